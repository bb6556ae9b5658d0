#!/usr/bin/env python3
"""Conv networks against PyTorch: the same network, initial weights and data, 50
full-batch steps of momentum and of the per-channel neuron mean; the final weights and every
step's loss must agree within float32 accuracy.

    /usr/bin/python3 tests/conv_torch_trajectory.py PATH/TO/momentum-lab-cli

torch.nn.Conv2d / MaxPool2d / Linear (one thread, float32) against `momentum-lab-cli train` on
the same CSV data and an --init file written from torch's initial weights (the conv layers in
PyTorch's [out][in][kh][kw] layout). The neuron mean, which torch lacks, is written out below:
before each decay every weight's buffer entry becomes the mean over its output unit (a dense
row; a conv output channel's in*kh*kw kernel), biases keep ordinary momentum (--bias own).
Exits 77 (CTest: skipped) with a message when torch is not importable.
"""
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import torch
except ImportError:
    print("SKIP: PyTorch is not importable by this python3 (Debian: apt install python3-torch)")
    sys.exit(77)

NETWORK = "1x8x8-conv4k3p1-pool2-conv6k3s2p1-12-10"  # conv with padding, max pool, stride, flatten
STEPS, LR, MU = 50, 0.05, 0.9
TRAIN, TEST = 64, 16


def build_torch():
    torch.manual_seed(3)
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.Tanh(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(4, 6, 3, stride=2, padding=1), torch.nn.Tanh(), torch.nn.Flatten(),
        torch.nn.Linear(24, 12), torch.nn.Tanh(), torch.nn.Linear(12, 10))


def write_csv(path, images, labels):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow([f"x{i}" for i in range(64)] + ["label"])
        for image, label in zip(images, labels):
            writer.writerow([repr(float(v)) for v in image.flatten().tolist()] + [int(label)])


def weights_json(model):
    layers = []
    for module in model:
        if isinstance(module, torch.nn.Conv2d):
            layers.append({"type": "conv", "weight": module.weight.tolist(), "bias": module.bias.tolist()})
        elif isinstance(module, torch.nn.Linear):
            layers.append({"weight": module.weight.tolist(), "bias": module.bias.tolist()})
    return {"layers": layers}


def train_torch(model, images, labels, neuron_mean):
    loss_fn = torch.nn.CrossEntropyLoss()
    buffers = {}
    losses = []
    for _ in range(STEPS):
        model.zero_grad()
        loss = loss_fn(model(images), labels)
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for name, p in model.named_parameters():
                g = p.grad
                if name not in buffers:
                    buffers[name] = g.clone()  # first step: the buffer is the gradient (torch.optim.SGD)
                else:
                    b = buffers[name]
                    if neuron_mean and p.dim() > 1:  # weights: the mean over each output unit's fan-in
                        b.copy_(b.mean(dim=tuple(range(1, p.dim())), keepdim=True).expand_as(b))
                    b.mul_(MU).add_(g)
                p.sub_(LR * buffers[name])
    return losses


def flat_layers(model):
    return [m for m in model if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: conv_torch_trajectory.py MOMENTUM_LAB_CLI")
    cli = sys.argv[1]
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(7)
    images = torch.rand(TRAIN + TEST, 1, 8, 8, generator=generator)
    labels = torch.randint(0, 10, (TRAIN + TEST,), generator=generator)
    worst_weight = worst_loss = 0.0
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        write_csv(root / "train.csv", images[:TRAIN], labels[:TRAIN])
        write_csv(root / "test.csv", images[TRAIN:], labels[TRAIN:])
        (root / "init.json").write_text(json.dumps(weights_json(build_torch())))
        for optimizer, neuron_mean in (("momentum", False), ("neuron-mean", True)):
            out = root / optimizer
            command = [cli, "train", "--network", NETWORK, "--activation", "tanh", "--loss", "cross-entropy",
                       "--data", f"csv:{root / 'train.csv'},{root / 'test.csv'}", "--init", str(root / "init.json"),
                       "--batch", "0", "--steps", str(STEPS), "--optimizer", optimizer, "--lr", str(LR),
                       "--momentum", str(MU), "--out", str(out)]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
            model = build_torch()
            torch_losses = train_torch(model, images[:TRAIN], labels[:TRAIN], neuron_mean)
            with open(out / "metrics.csv") as f:
                ours = [float(row["train_loss"]) for row in csv.DictReader(f)]
            final = json.loads((out / "weights_final.json").read_text())["layers"]
            loss_error = max(abs(a - b) for a, b in zip(ours, torch_losses))
            weight_error = 0.0
            for layer, module in zip(final, flat_layers(model)):
                for key, tensor in (("weight", module.weight), ("bias", module.bias)):
                    theirs = torch.tensor(layer[key], dtype=torch.float32)
                    if theirs.shape != tensor.shape:
                        sys.exit(f"{optimizer}: {key} has shape {list(theirs.shape)}, torch {list(tensor.shape)}")
                    weight_error = max(weight_error, (theirs - tensor.detach()).abs().max().item())
            print(f"{optimizer}: {len(ours)} steps, loss {torch_losses[0]:.4f} -> {torch_losses[-1]:.4f}; "
                  f"largest difference: loss {loss_error:.2e}, weights {weight_error:.2e}")
            if len(ours) != STEPS or loss_error > 1e-4 or weight_error > 1e-4:
                sys.exit(f"{optimizer}: the trajectories differ beyond float32 accuracy")
            worst_weight, worst_loss = max(worst_weight, weight_error), max(worst_loss, loss_error)
    print(f"PASS: conv trajectories match torch (largest differences: loss {worst_loss:.2e}, weights {worst_weight:.2e})")


if __name__ == "__main__":
    main()
