#!/usr/bin/env python3
"""A small PyTorch CNN on MNIST, trained with torch's SGD momentum and with the package's
NeuronMeanSGD (per-channel neuron mean), each recorded into a run folder the app opens.

    PYTHONPATH=python python3 python/examples/mnist_cnn.py [--device cuda] [--steps 300] [--out runs/pytorch-mnist]
    momentum-lab runs/pytorch-mnist/neuron-mean        # the app; or momentum-lab-cli export DIR --out report

Data: the MNIST IDX files of scripts/fetch-mnist.sh ($MOMENTUM_LAB_DATA_DIR, else
$XDG_DATA_HOME/momentum-lab, else ~/.local/share/momentum-lab, then mnist/), or --data DIR; without
them the bundled 8x8 digits (resources/data/digits.csv.gz) with a smaller CNN. The network is
1x28x28-conv8k5-pool2-conv16k5-pool2-64-10 relu (the app's mnist-cnn preset), 1x8x8-conv8k3-pool2-32-10
on digits. Prints one line per run and a summary; exits 1 when a check fails (non-finite or
non-decreasing loss, a folder whose snapshots do not read back).
"""
import argparse
import gzip
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import momentum_lab as ml  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def read_idx(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if data[:2] != b"\0\0" or data[2] != 8:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    dims = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims))
    values = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims)
    if values.size != int(np.prod(shape)):
        raise ValueError(f"{path}: {values.size} values, the header says {shape}")
    return values.reshape(shape)


def mnist_directory(given):
    if given:
        return Path(given)
    base = os.environ.get("MOMENTUM_LAB_DATA_DIR") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "momentum-lab")
    return Path(base) / "mnist"


def find(directory, stem):
    for name in (stem, stem + ".gz"):
        if (directory / name).exists():
            return directory / name
    return None


def load_data(given):
    """(name, train images [N,1,H,W] float in [0,1], train labels, test images, test labels)."""
    directory = mnist_directory(given)
    files = [find(directory, s) for s in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                          "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")]
    if all(files):
        train_x, train_y, test_x, test_y = (read_idx(f) for f in files)
        scale = lambda x: torch.from_numpy(x.astype(np.float32) / 255.0).unsqueeze(1)  # noqa: E731
        return ("mnist", scale(train_x), torch.from_numpy(train_y.astype(np.int64)), scale(test_x),
                torch.from_numpy(test_y.astype(np.int64)))
    if given:
        raise SystemExit(f"--data {given}: no MNIST IDX files there")
    print(f"MNIST not found in {directory} (scripts/fetch-mnist.sh); using the bundled 8x8 digits")
    with gzip.open(REPO / "resources" / "data" / "digits.csv.gz", "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    order = np.random.default_rng(0).permutation(len(table))
    table = table[order]
    images = torch.from_numpy(table[:, :64] / 16.0).reshape(-1, 1, 8, 8)
    labels = torch.from_numpy(table[:, 64].astype(np.int64))
    cut = int(0.8 * len(table))
    return "digits", images[:cut], labels[:cut], images[cut:], labels[cut:]


def build(kind, seed):
    torch.manual_seed(seed)
    if kind == "mnist":
        return torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(8, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
            torch.nn.Linear(16 * 4 * 4, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
        torch.nn.Linear(8 * 3 * 3, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))


@torch.no_grad()
def evaluate(model, images, labels, device):
    logits = model(images.to(device))
    targets = labels.to(device)
    return (torch.nn.functional.cross_entropy(logits, targets),
            (logits.argmax(dim=1) == targets).float().mean())


def train(label, make_optimizer, data, args, device):
    kind, train_x, train_y, test_x, test_y = data
    model = build(kind, args.seed).to(device)
    optimizer = make_optimizer(model)
    train_x, train_y = train_x.to(device), train_y.to(device)
    generator = torch.Generator(device="cpu").manual_seed(args.seed)
    steps_per_epoch = len(train_x) // args.batch
    out = Path(args.out) / label
    input_shape = tuple(train_x.shape[1:])
    start = time.perf_counter()
    first_loss = None
    with ml.Recorder(model, optimizer, out, every=args.every, label=label, input_shape=input_shape, data=kind,
                     seed=args.seed, batch=args.batch, steps_per_epoch=steps_per_epoch,
                     total_steps=args.steps) as recorder:
        order = torch.randperm(len(train_x), generator=generator).to(device)
        for step in range(1, args.steps + 1):
            position = (step - 1) % steps_per_epoch
            if position == 0 and step > 1:
                order = torch.randperm(len(train_x), generator=generator).to(device)
            batch = order[position * args.batch:(position + 1) * args.batch]
            optimizer.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(model(train_x[batch]), train_y[batch])
            loss.backward()
            optimizer.step()
            if first_loss is None:
                first_loss = loss.detach()
            evaluation = {}
            if step == args.steps or step % args.eval_every == 0:
                test_loss, accuracy = evaluate(model, test_x, test_y, device)
                evaluation = {"test_loss": test_loss, "test_accuracy": accuracy}
            recorder.step(loss=loss, **evaluation)
    seconds = time.perf_counter() - start
    run = ml.read_run(out)
    final_test_loss, final_accuracy = (float(v) for v in evaluate(model, test_x, test_y, device))
    train_losses = np.asarray(run.metrics["train_loss"], dtype=np.float64)
    tail = float(np.mean(train_losses[-10:]))
    expected = ml.recorder.snapshot_count(args.steps, recorder.every)
    problems = []
    if not np.isfinite(train_losses).all() or not np.isfinite(final_test_loss):
        problems.append("a loss is not finite")
    if tail >= float(first_loss):
        problems.append(f"the loss did not decrease ({float(first_loss):.4f} -> {tail:.4f})")
    if len(run.snapshots) != expected:
        problems.append(f"{len(run.snapshots)} snapshots read back, expected {expected}")
    if len(train_losses) != args.steps:
        problems.append(f"{len(train_losses)} metrics rows, expected {args.steps}")
    last = run.snapshots[-1]["layers"][0] if run.snapshots else {}
    if "first_moment" not in last:
        problems.append("the snapshots keep no first moment")
    print(f"{label}: device {device}, {args.steps} steps in {seconds:.1f} s, train loss {float(first_loss):.4f} -> "
          f"{tail:.4f} (last 10), test loss {final_test_loss:.4f}, test accuracy {100 * final_accuracy:.1f} %, "
          f"{len(run.snapshots)} snapshots in {out}" + ("" if not problems else "; FAILED: " + "; ".join(problems)))
    return not problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu (default), cuda, or auto (cuda when available)")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--every", type=int, default=50, help="record a snapshot every N steps (and the last)")
    parser.add_argument("--eval-every", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", help="a folder with the MNIST IDX files (default: where fetch-mnist.sh puts them)")
    parser.add_argument("--out", default="runs/pytorch-mnist")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    device = args.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no CUDA device")
    data = load_data(args.data)
    print(f"data {data[0]}: {len(data[1])} train / {len(data[3])} test images; device {device}"
          + (f" ({torch.cuda.get_device_name(device)})" if device.startswith("cuda") else ""))
    runs = {
        "momentum": lambda m: torch.optim.SGD(m.parameters(), lr=args.lr, momentum=args.momentum),
        "neuron-mean": lambda m: ml.NeuronMeanSGD(m, lr=args.lr, momentum=args.momentum),
    }
    ok = all([train(label, make, data, args, device) for label, make in runs.items()])
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
