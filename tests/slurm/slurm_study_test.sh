#!/usr/bin/env bash
# Integration test (ctest label "slurm"): a real single-node Slurm in a temporary folder runs each
# study given (a tiny one, and a tiny one over two hyper-parameters) through `momentum-lab-cli study
# --emit slurm`, and its aggregated results must equal a local run of the same study. munged, slurmctld and slurmd get their own key, socket, ports,
# spool and state folders, and are stopped by the PIDs this script started; the jobs it submitted are
# cancelled by their ids first, on every way out.
# Every array task is watched: one that fails fails the test at once, with its state and its log.
# Skipped (exit 77) when slurm-wlm, munge or python3 is not installed, or when not root (slurmd must
# run as root).
set -euo pipefail
cli="$1"
studies=("${@:2}")  # STUDY.json ...
skip() { echo "SKIPPED: $*"; exit 77; }
for tool in munged slurmctld slurmd sbatch squeue scontrol scancel python3; do
  command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || skip "$tool is not installed (Debian packages slurm-wlm, munge and python3)"
done
[[ $(id -u) -eq 0 ]] || skip "slurmd needs root to start jobs as their user"
PATH="$PATH:/usr/sbin"

tmp="$(mktemp -d /tmp/momentum-lab-slurm.XXXXXX)"
dir=""  # the study folder of the study being run (fail shows its logs)
job_deadline_s=120
pids=()
job_ids=()
cleanup() {
  if ((${#job_ids[@]})); then
    scancel "${job_ids[@]}" 2>/dev/null || true
    for _ in $(seq 50); do
      [[ -z "$(squeue -h -j "$(IFS=,; echo "${job_ids[*]}")" -o %i 2>/dev/null)" ]] && break
      sleep 0.1
    done
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done; done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAILED: $*"
  for log in "$tmp"/*.log "$dir"/slurm/logs/*; do [[ -s $log ]] && { echo "== $log"; tail -20 "$log"; }; done
  exit 1
}

# munged: its own key, socket, pid and seed files.
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --foreground --force --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/seed" --log-file="$tmp/munged.log" >>"$tmp/daemons.out" 2>&1 &
pids+=($!)

host="$(hostname -s)"
port=$((20000 + RANDOM % 20000))
cat >"$tmp/slurm.conf" <<CONF
ClusterName=momentumlab
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$host CPUs=2 State=UNKNOWN
PartitionName=study Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
for _ in $(seq 50); do [[ -S $tmp/munge/socket ]] && break; sleep 0.1; done
slurmctld -D -i -f "$SLURM_CONF" >>"$tmp/daemons.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$tmp/daemons.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
  sleep 0.2
done
sinfo -h -o %T | grep -qE '^(idle|mixed|allocated)' || fail "the node did not come up"

# One study through Slurm, then locally; the two folders' files must match.
run_study() {
  local study="$1" index="$2" submitted states task state compared local="$tmp/local-$2"
  local -a study_jobs
  # The study folder's name holds what the emitted scripts must quote: spaces, a quote, $( ).
  dir="$tmp/my 'study' \$(touch PWNED) $index"
  # The study through Slurm. submit.sh prints "NAME ID" pairs, one per job it chained (the arrays and
  # the aggregation job); every number in that line is a job to watch.
  "$cli" study "$study" --out "$dir" --emit slurm --throttle 2 >/dev/null
  submitted="$("$dir/slurm/submit.sh")"
  mapfile -t study_jobs < <(tr -s '[:space:]' '\n' <<<"$submitted" | grep -xE '[0-9]+' || true)
  ((${#study_jobs[@]})) || fail "submit.sh printed no job ids: '$submitted'"
  job_ids+=("${study_jobs[@]}")  # cleanup cancels every study's jobs

  # Watch every array task and the aggregation job: a task that ends in a failed state fails the test
  # at once with its state and its log; the wait ends when every job and task has COMPLETED.
  failed_task() {
    local task="$1" state="$2" log
    log="$(scontrol show job "$task" 2>/dev/null | sed -n 's/^ *StdOut=//p' | head -1 || true)"
    [[ -f $log ]] || fail "Slurm job $task ended $state ($submitted); its log '$log' does not exist"
    fail "Slurm job $task ended $state ($submitted); its log, $log:"$'\n'"$(cat "$log")"
  }
  job_list="$(IFS=,; echo "${study_jobs[*]}")"
  deadline=$((SECONDS + job_deadline_s))
  while :; do
    states="$(squeue -h -r -t all -j "$job_list" -o '%i %T %r' 2>/dev/null || true)"
    while read -r task state _; do
      case "$state" in
        FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
          failed_task "$task" "$state"
          ;;
      esac
    done <<<"$states"
    # Should a failed task leave the queue unseen, the job depending on it would wait for ever.
    ! grep -q ' DependencyNeverSatisfied$' <<<"$states" ||
      fail "a Slurm job can never start, a job it depends on failed ($submitted): $states"
    [[ -n $states ]] && ! grep -qv '^[^ ]* COMPLETED ' <<<"$states" && break
    ((SECONDS < deadline)) ||
      fail "the jobs did not finish within $job_deadline_s s ($submitted); their states:"$'\n'"$states"
    sleep 0.2
  done
  compgen -G "$dir/slurm/logs/tune-*.out" >/dev/null || fail "no tune logs in $dir/slurm/logs"

  # The same study locally: every file it writes under results/ and into each trial's folder must be
  # the Slurm run's, up to the folder's path and the wall-clock columns (see compare_study_runs.py).
  "$cli" study "$study" --out "$local" --jobs 2 --quiet
  compared="$(python3 "$(dirname "${BASH_SOURCE[0]}")/compare_study_runs.py" "$dir" "$local" 2>&1)" ||
    fail "the Slurm run's files differ from the local run's:"$'\n'"$compared"
  [[ -z "$(find "$tmp" -name 'PWNED*')" ]] || fail "a script ran part of the folder's name"
  echo "$(basename "$study"): $(find "$dir" -name trial.json | wc -l) trials through Slurm ($submitted) and locally; $compared"
}

for i in "${!studies[@]}"; do run_study "${studies[$i]}" "$i"; done
echo "PASSED: ${#studies[@]} studies"
