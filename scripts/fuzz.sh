#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz; clang with ASan + UBSan, in build-asan/, the same build
# as the checked tests: scripts/checked-build.sh) and runs each for SECONDS (default 60), one after
# the other, starting from its seed corpus tests/fuzz/corpus/<target>/. Fails (exit 1) on the first
# finding: the crashing input is kept as build-asan/fuzz/<target>/crash-* (add it to the seed corpus
# once fixed, as a regression input). New coverage found on the way stays in build-asan/fuzz/<target>/
# corpus/ for the next run. Inputs that need a file are written under $TMPDIR (default /dev/shm).
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail

seconds="${1:-60}"
shift || true
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2; }
repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
targets=("$@")
((${#targets[@]})) || targets=(fuzz_idx fuzz_csv fuzz_experiment_json fuzz_weights_json fuzz_run_folder fuzz_training_state)

bash "$repo_dir/scripts/checked-build.sh" asan "${targets[@]}"
build_dir="${MOMENTUM_LAB_CHECKED_BUILD_ROOT:-$repo_dir}/build-asan"
[[ -d /dev/shm && -w /dev/shm ]] && export TMPDIR="${TMPDIR:-/dev/shm}"
# A leak is a finding too; UBSan stops at its first report (also compiled in: -fno-sanitize-recover).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

summary=()
for target in "${targets[@]}"; do
  work="$build_dir/fuzz/$target"
  mkdir -p "$work/corpus"
  echo "== $target: $seconds s"
  log="$work/last-run.log"
  # -timeout: one input taking over 10 s is a finding (a hang); -rss_limit_mb: so is more than 2 GiB.
  if ! "$build_dir/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$repo_dir/tests/fuzz/corpus/$target" \
       >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz.sh: $target found a problem; input and log: $work/ (see $log)" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  summary+=("$target: 0 findings in $seconds s, $runs inputs, corpus $(ls "$work/corpus" | wc -l) files")
done
printf '%s\n' "${summary[@]}"
