#!/usr/bin/env python3
"""PyTorch's side of momentum-lab-bench's whole-process comparison.

Runs the same work as the CLI's run on one thread: loads the data, then trains with end-of-epoch
evaluations (loss over the whole training set, test loss and accuracy, as the CLI's evaluation).
momentum-lab-bench times this whole process on the wall clock (interpreter start, `import torch`,
data loading, training); the script itself prints one line about its training loop alone, for the
breakdown: `loop_cpu_seconds C loop_wall_seconds W blas PATH`, PATH the BLAS library the process
mapped (its matrix products run there; which one libblas.so.3 is decides much of PyTorch's time).

    /usr/bin/python3 scripts/torch-bench.py mnist MNIST_DIR    # 784-128-10 relu, cross-entropy,
                                                               # batch 64, 3 epochs of 8,000 images
    /usr/bin/python3 scripts/torch-bench.py sine               # 1-2-2-1 tanh, mse, batch 1,
                                                               # 200,000 steps of 200 samples
Both use SGD with momentum 0.9 and lr 0.01 (the CLI's settings in the benchmark).
Exit status 3 with a message on stderr when torch cannot be imported.
"""
import gzip
import math
import sys
import time

try:
    import torch
except ImportError as error:
    print(f"torch is not importable ({error})", file=sys.stderr)
    sys.exit(3)


def read_idx(path):
    """An IDX file (plain or .gz) as a uint8 tensor of its dimensions."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(dims)]
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


def idx_file(directory, stem):
    import os
    plain = os.path.join(directory, stem)
    return plain if os.path.exists(plain) else plain + ".gz"


def mnist(directory):
    # The CLI's `mnist` data: its train and test files (8,000 / 2,000 images), at most that many.
    def split(images_stem, labels_stem, count):
        images = read_idx(idx_file(directory, images_stem))[:count].reshape(-1, 784).float() / 255.0
        return images, read_idx(idx_file(directory, labels_stem))[:count].long()
    train = split("train-images-idx3-ubyte", "train-labels-idx1-ubyte", 8000)
    test = split("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", 2000)
    model = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    return model, torch.nn.CrossEntropyLoss(), train, test, 64, 3 * (train[0].shape[0] // 64), 0.01, True


def sine():
    x = torch.linspace(-math.pi, math.pi, 300).reshape(-1, 1)
    y = torch.sin(x)
    model = torch.nn.Sequential(torch.nn.Linear(1, 2), torch.nn.Tanh(), torch.nn.Linear(2, 2), torch.nn.Tanh(),
                                torch.nn.Linear(2, 1))
    return model, torch.nn.MSELoss(), (x[:200], y[:200]), (x[200:], y[200:]), 1, 200000, 0.01, False


def evaluate(model, loss, train, test, classes):
    with torch.no_grad():
        loss(model(train[0]), train[1]).item()
        out = model(test[0])
        loss(out, test[1]).item()
        if classes:
            (out.argmax(1) == test[1]).float().mean().item()


def main():
    torch.set_num_threads(1)
    if len(sys.argv) == 3 and sys.argv[1] == "mnist":
        case = mnist(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "sine":
        case = sine()
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    model, loss, train, test, batch, steps, lr, classes = case
    torch.manual_seed(1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    per_epoch = train[0].shape[0] // batch
    start, wall_start = time.process_time(), time.perf_counter()
    for step in range(steps):
        epoch_step = step % per_epoch
        if epoch_step == 0:
            order = torch.randperm(train[0].shape[0])
        chosen = order[epoch_step * batch:(epoch_step + 1) * batch]
        optimizer.zero_grad()
        loss(model(train[0][chosen]), train[1][chosen]).backward()
        optimizer.step()
        if epoch_step == per_epoch - 1:
            evaluate(model, loss, train, test, classes)
    cpu, wall = time.process_time() - start, time.perf_counter() - wall_start
    with open("/proc/self/maps") as maps:
        blas = sorted({line.split()[-1] for line in maps if "blas" in line.lower() or "mkl" in line.lower()})
    print(f"loop_cpu_seconds {cpu:.4f} loop_wall_seconds {wall:.4f} blas {','.join(blas) or 'none'}")


if __name__ == "__main__":
    main()
