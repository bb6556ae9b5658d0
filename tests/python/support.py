"""Shared pieces of the PyTorch bridge's tests: the CLI's path, small models and data, a CLI runner."""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

CLI = os.environ.get("MOMENTUM_LAB_CLI", str(REPO / "build" / "app" / "momentum-lab-cli"))


def cli_available():
    return os.access(CLI, os.X_OK)


def run_cli(*arguments):
    """Runs the CLI; (exit status, stdout, stderr)."""
    result = subprocess.run([CLI, *map(str, arguments)], capture_output=True, text=True, timeout=300)
    return result.returncode, result.stdout, result.stderr


def write_csv(path, inputs, labels):
    """A csv: data set the CLI reads: x0..xN inputs, one label column (values written exactly)."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow([f"x{i}" for i in range(inputs[0].numel())] + ["label"])
        for x, label in zip(inputs, labels):
            writer.writerow([repr(float(v)) for v in x.flatten().tolist()] + [int(label)])


def weights_json(model):
    layers = []
    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d):
            layers.append({"type": "conv", "weight": module.weight.tolist(), "bias": module.bias.tolist()})
        elif isinstance(module, torch.nn.Linear):
            layers.append({"weight": module.weight.tolist(), "bias": module.bias.tolist()})
    return {"layers": layers}


def load_weights(path):
    return json.loads(Path(path).read_text())["layers"]


def mlp(seed=3, sizes=(6, 7, 5, 4)):
    torch.manual_seed(seed)
    layers = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers.append(torch.nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(torch.nn.Tanh())
    return torch.nn.Sequential(*layers)


def small_cnn(seed=3):
    """1x8x8-conv4k3p1-pool2-conv6k3s2p1-12-10 (tanh)."""
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.Tanh(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(4, 6, 3, stride=2, padding=1), torch.nn.Tanh(), torch.nn.Flatten(),
        torch.nn.Linear(24, 12), torch.nn.Tanh(), torch.nn.Linear(12, 10))


SMALL_CNN_SPEC = "1x8x8-conv4k3p1-pool2-conv6k3s2p1-12-10"
