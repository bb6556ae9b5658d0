#!/usr/bin/env python3
"""PyTorch's side of momentum-lab-bench's whole-process comparison.

Runs the same work as the CLI's run, on one thread, with the data preloaded (loading is not timed),
and prints one line: `seconds S` — the CPU time (the machine may be shared) of the training loop with its end-of-epoch evaluations (loss over
the whole training set, test loss and accuracy, as the CLI's evaluation), nothing else.

    /usr/bin/python3 scripts/torch-bench.py mnist MNIST_DIR    # 784-128-10 relu, cross-entropy,
                                                               # batch 64, 3 epochs of 8,000 images
    /usr/bin/python3 scripts/torch-bench.py sine               # 1-2-2-1 tanh, mse, batch 1,
                                                               # 200,000 steps of 200 samples
Both use SGD with momentum 0.9 (lr 0.01 and 0.1, the CLI's settings in the benchmark).
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
    # The same sizes as the CLI's `mnist` data (8,000 train / 2,000 test); which images does not
    # matter for the time.
    images = read_idx(idx_file(directory, "train-images-idx3-ubyte"))[:10000].reshape(-1, 784).float() / 255.0
    labels = read_idx(idx_file(directory, "train-labels-idx1-ubyte"))[:10000].long()
    model = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    return model, torch.nn.CrossEntropyLoss(), (images[:8000], labels[:8000]), (images[8000:], labels[8000:]), 64, 3 * 125, 0.01, True


def sine():
    x = torch.linspace(-math.pi, math.pi, 300).reshape(-1, 1)
    y = torch.sin(x)
    model = torch.nn.Sequential(torch.nn.Linear(1, 2), torch.nn.Tanh(), torch.nn.Linear(2, 2), torch.nn.Tanh(),
                                torch.nn.Linear(2, 1))
    return model, torch.nn.MSELoss(), (x[:200], y[:200]), (x[200:], y[200:]), 1, 200000, 0.1, False


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
    start = time.process_time()
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
    print(f"seconds {time.process_time() - start:.4f}")


if __name__ == "__main__":
    main()
