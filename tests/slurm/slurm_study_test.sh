#!/usr/bin/env bash
# Integration test (ctest label "slurm"): a real single-node Slurm in a temporary folder runs a
# tiny study through `momentum-lab-cli study --emit slurm`, and its aggregated results must equal a
# local run of the same study. munged, slurmctld and slurmd get their own key, socket, ports,
# spool and state folders, and are stopped by the PIDs this script started.
# Skipped (exit 77) when slurm-wlm or munge is not installed, or when not root (slurmd must run as root).
set -euo pipefail
cli="$1"
study="$2"
skip() { echo "SKIPPED: $*"; exit 77; }
for tool in munged slurmctld slurmd sbatch squeue; do
  command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || skip "$tool is not installed (Debian packages slurm-wlm and munge)"
done
[[ $(id -u) -eq 0 ]] || skip "slurmd needs root to start jobs as their user"
PATH="$PATH:/usr/sbin"

tmp="$(mktemp -d /tmp/momentum-lab-slurm.XXXXXX)"
# The study folder's name holds what the emitted scripts must quote: spaces, a quote, $( ).
dir="$tmp/my 'study' \$(touch PWNED)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done; done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAILED: $*"
  for log in "$tmp"/*.log "$dir"/slurm/logs/*; do [[ -f $log ]] && { echo "== $log"; tail -20 "$log"; }; done
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

# The study through Slurm, then the same study locally.
"$cli" study "$study" --out "$dir" --emit slurm --throttle 2 >/dev/null
ids="$("$dir/slurm/submit.sh")"
aggregate_job="${ids##* }"
for _ in $(seq 600); do
  [[ -z "$(squeue -h -o %i 2>/dev/null)" ]] && break
  sleep 0.2
done
[[ -f $dir/results/summary.csv ]] || fail "no results after the aggregate job $aggregate_job ($ids)"
"$cli" study "$study" --out "$tmp/local" --jobs 2 --quiet
for file in summary.csv paired.csv bands.csv selected.csv expected-best.csv sensitivity.csv profile.csv results.json; do
  cmp -s "$dir/results/$file" "$tmp/local/results/$file" || {
    diff <(sed "s#$dir#DIR#g" "$dir/results/$file") <(sed "s#$tmp/local#DIR#g" "$tmp/local/results/$file") | head
    fail "results/$file differs between Slurm and the local run"
  }
done
compgen -G "$dir/slurm/logs/tune-*.out" >/dev/null || fail "no tune logs in $dir/slurm/logs"
[[ -z "$(find "$tmp" -name 'PWNED*')" ]] || fail "a script ran part of the folder's name"
echo "PASSED: $(find "$dir" -name trial.json | wc -l) trials, identical results through Slurm ($ids) and locally"
