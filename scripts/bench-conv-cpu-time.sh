#!/bin/bash
# CPU time per training step of the conv benchmark, ours and PyTorch's, less sensitive to
# a shared machine's load than the wall clock: `perf stat -e task-clock` of a 1-second and a
# 4-second run of each side; the difference of the two, divided by the difference in steps, leaves
# start-up and the python import out.
#     bash scripts/bench-conv-cpu-time.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for seconds in 1 4; do
  perf stat -x, -e task-clock --no-inherit -o "$work/ours-$seconds" \
    "$build/app/momentum-lab-bench" --part conv --seconds "$seconds" > "$work/ours-rate-$seconds"
  perf stat -x, -e task-clock -o "$work/torch-$seconds" \
    /usr/bin/python3 scripts/bench-torch-conv.py --seconds "$seconds" > "$work/torch-rate-$seconds"
done
/usr/bin/python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
def task_clock(name):  # milliseconds
    return float(next(l for l in open(f"{work}/{name}") if "task-clock" in l).split(",")[0])
def ours_rate(seconds):  # the bench's "cnn relu ..." line: steps/s is its sixth field
    return float(next(l for l in open(f"{work}/ours-rate-{seconds}") if l.startswith("cnn relu")).split()[5])
def torch_rate(seconds):
    return float(open(f"{work}/torch-rate-{seconds}").read())
ours = (task_clock("ours-4") - task_clock("ours-1")) / (4 * ours_rate(4) - ours_rate(1))
torch = (task_clock("torch-4") - task_clock("torch-1")) / (4 * torch_rate(4) - torch_rate(1))
print(f"CPU time per step: momentum-lab {ours:.2f} ms, PyTorch {torch:.2f} ms, ratio {torch / ours:.2f}x")
PY
