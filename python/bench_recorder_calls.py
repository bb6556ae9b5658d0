#!/usr/bin/env python3
"""The recorder's own time per call: the bench_recorder.py model and loop, 1,000 steps, every 10,
timed around each rec.step; prints the median per recorded step and per other step (the step
before a recorded one, which copies the weights, apart). Medians of single calls drift less than
whole loops on a busy machine; alternate runs to compare two versions of the package:

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
    with tempfile.TemporaryDirectory() as folder:
        recorder = ml.Recorder(model, optimizer, Path(folder) / "r", every=10, total_steps=args.steps)
        for step in range(1, args.steps + 1):
            optimizer.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(model(inputs[step % 50]), labels[step % 50])
            loss.backward()
            optimizer.step()
            entered = time.perf_counter()
            recorder.step(loss=loss)
            kind = "recorded" if step % 10 == 0 else "before" if step % 10 == 9 else "other"
            calls[kind].append(time.perf_counter() - entered)
        recorder.close()
    print(f"{ml.__file__}: {1e3 * statistics.median(calls['recorded']):.2f} ms per recorded step, "
          f"{1e6 * statistics.median(calls['other']):.1f} us per other step, "
          f"{1e6 * statistics.median(calls['before']):.0f} us the step before a recorded one")


if __name__ == "__main__":
    main()
