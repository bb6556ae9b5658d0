#!/usr/bin/env python3
"""The recorder's own time per call: the bench_recorder.py model and loop, 1,000 steps, every 10,
timed around each rec.step; prints the median per recorded step and per other step (the step
before a recorded one, which copies the weights, apart), in wall-clock time and in the training
thread's CPU time (which leaves out the writer thread and other processes taking the core: on a
busy machine it drifts far less). Medians of single calls drift less than whole loops on a busy
machine; alternate runs to compare two versions of the package:

    python3 python/bench_recorder_calls.py [--package DIR]   (DIR/momentum_lab; default: beside this script)
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--package", default=str(Path(__file__).resolve().parent))
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()
    sys.path.insert(0, args.package)
    import momentum_lab as ml

    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(1)
    inputs = torch.rand(50, 64, 784, generator=generator)
    labels = torch.randint(0, 10, (50, 64), generator=generator)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    calls = {"recorded": [], "before": [], "other": []}
    cpu = {"recorded": [], "before": [], "other": []}
    with tempfile.TemporaryDirectory() as folder:
        recorder = ml.Recorder(model, optimizer, Path(folder) / "r", every=10, total_steps=args.steps)
        for step in range(1, args.steps + 1):
            optimizer.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(model(inputs[step % 50]), labels[step % 50])
            loss.backward()
            optimizer.step()
            entered, entered_cpu = time.perf_counter(), time.thread_time()
            recorder.step(loss=loss)
            left, left_cpu = time.perf_counter(), time.thread_time()
            kind = "recorded" if step % 10 == 0 else "before" if step % 10 == 9 else "other"
            calls[kind].append(left - entered)
            cpu[kind].append(left_cpu - entered_cpu)
        recorder.close()
    print(ml.__file__)
    for name, times in (("wall", calls), ("thread CPU", cpu)):
        print(f"  {name}: {1e3 * statistics.median(times['recorded']):.3f} ms per recorded step, "
              f"{1e6 * statistics.median(times['other']):.1f} us per other step, "
              f"{1e6 * statistics.median(times['before']):.0f} us the step before a recorded one")


if __name__ == "__main__":
    main()
