#!/usr/bin/env python3
"""The PyTorch half of momentum-lab-bench's conv comparison: training steps per second
of 1x28x28-conv8k5-pool2-conv16k5-pool2-10 (ReLU, cross-entropy, batch 64, SGD with momentum 0.9)
on one CPU thread, float32, random data gathered from a 8192-sample set as the bench does.
Prints the number alone on stdout; exits 1 with a message when torch is missing.

    /usr/bin/python3 scripts/bench-torch-conv.py [--seconds S]
"""
import sys
import time

try:
    import torch
except ImportError:
    print("PyTorch is not importable by /usr/bin/python3 (Debian: apt install python3-torch)")
    sys.exit(1)

seconds = float(sys.argv[2]) if len(sys.argv) == 3 and sys.argv[1] == "--seconds" else 2.0
torch.set_num_threads(1)
torch.manual_seed(1)
model = torch.nn.Sequential(
    torch.nn.Conv2d(1, 8, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(8, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Flatten(), torch.nn.Linear(16 * 4 * 4, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss()
images = torch.rand(8192, 1, 28, 28)
labels = torch.randint(0, 10, (8192,))
batches = 8192 // 64


def step(i):
    begin = (i % batches) * 64
    x, y = images[begin:begin + 64], labels[begin:begin + 64]
    optimizer.zero_grad()
    loss_fn(model(x), y).backward()
    optimizer.step()


for i in range(20):  # warm-up
    step(i)
steps = 0
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    for _ in range(16):
        step(steps)
        steps += 1
print(f"{steps / (time.perf_counter() - start):.1f}")
