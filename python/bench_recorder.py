#!/usr/bin/env python3
"""Recorder overhead: a 784-128-10 relu MLP, batch 64, torch SGD momentum on CPU (one thread),
the same training loop without and with a Recorder snapshotting every 10 steps.

    PYTHONPATH=python python3 python/bench_recorder.py [--steps 2000] [--repeats 5] [--every 10] [--dir DIR]

Alternates the two loops `repeats` times (same initial weights and batches) and prints each
loop's median time and the overhead in percent (median with / median without - 1, and the range
of each repeat's own ratio: on a shared machine the loops' times drift between repeats); the
recorder's close() (final weights, fsync of snapshots.bin) is timed apart, once per run.
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import momentum_lab as ml  # noqa: E402


def loop(steps, inputs, labels, every, folder):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    recorder = ml.Recorder(model, optimizer, folder, every=every, total_steps=steps) if folder else None
    batches = len(inputs)
    inside = [0.0, 0.0]  # seconds in the recorder's calls: recorded steps, other steps
    start = time.perf_counter()
    for step in range(steps):
        x, y = inputs[step % batches], labels[step % batches]
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if recorder:
            entered = time.perf_counter()
            recorder.step(loss=loss)
            inside[0 if (step + 1) % every == 0 else 1] += time.perf_counter() - entered
    seconds = time.perf_counter() - start
    if recorder:  # once per run, outside the loop: the weights file and the snapshots' fsync
        entered = time.perf_counter()
        recorder.close()
        inside.append(time.perf_counter() - entered)
    return seconds, inside


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--dir", help="where the recorded folders go (default: a temporary folder)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    generator = torch.Generator().manual_seed(1)
    inputs = torch.rand(50, 64, 784, generator=generator)
    labels = torch.randint(0, 10, (50, 64), generator=generator)
    plain, recorded, inside = [], [], []
    loop(200, inputs, labels, args.every, None)  # warm-up
    with tempfile.TemporaryDirectory(dir=args.dir) as directory:
        for repeat in range(args.repeats):
            plain.append(loop(args.steps, inputs, labels, args.every, None)[0])
            seconds, spent = loop(args.steps, inputs, labels, args.every, Path(directory) / f"r{repeat}")
            recorded.append(seconds)
            inside.append(spent)
            size = (Path(directory) / f"r{repeat}" / "snapshots.bin").stat().st_size
            for name in ("snapshots.bin", "metrics.csv"):  # the next loop writes to a cool page cache
                (Path(directory) / f"r{repeat}" / name).unlink()
    without, with_ = statistics.median(plain), statistics.median(recorded)
    print(f"784-128-10 MLP, batch 64, SGD momentum, CPU, {args.threads} thread(s), {args.steps} steps, "
          f"snapshot every {args.every} steps ({size / 1e6:.1f} MB per run), median of {args.repeats}:")
    print(f"  without recorder: {without:.3f} s ({1e3 * without / args.steps:.3f} ms/step)  {sorted(plain)}")
    print(f"  with recorder:    {with_:.3f} s ({1e3 * with_ / args.steps:.3f} ms/step)  {sorted(recorded)}")
    pairs = sorted(100 * (r / p - 1) for p, r in zip(plain, recorded))  # each repeat's two loops, back to back
    print(f"  overhead: {100 * (with_ / without - 1):.1f} % (per repeat: {pairs[0]:.1f} to {pairs[-1]:.1f} %)")
    snapshots = args.steps // args.every
    recorded_ms = 1e3 * statistics.median(i[0] for i in inside) / snapshots
    other_us = 1e6 * statistics.median(i[1] for i in inside) / (args.steps - snapshots)
    print(f"  inside the recorder's calls: {recorded_ms:.3f} ms per recorded step, {other_us:.1f} us per other step;"
          f" close() {1e3 * statistics.median(i[2] for i in inside):.0f} ms once per run (fsync)")


if __name__ == "__main__":
    main()
