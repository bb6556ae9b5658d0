#!/usr/bin/env python3
"""Recorded PyTorch runs for test_torch_explainer: a 4-5-3 tanh MLP, full batch, 6 steps, a
snapshot at every step, trained with torch's SGD momentum, torch's Adam and the package's
NeuronMeanSGD (fan-in), each into OUT/<label>.

    record_explainer_runs.py OUT      (exit 77 without torch: the test skips)
"""
import sys
from pathlib import Path

try:
    import torch
except ImportError:
    print("torch is not installed", file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
import momentum_lab as ml  # noqa: E402

RULES = {
    "sgd-momentum": lambda model: torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
    "adam": lambda model: torch.optim.Adam(model.parameters(), lr=0.01),
    # the model itself: its layers' weights and biases paired, as the neuron-mean rule needs
    "neuron-mean": lambda model: ml.NeuronMeanSGD(model, lr=0.1, momentum=0.9, momentum_mean="fan-in"),
}


def main():
    out = Path(sys.argv[1])
    generator = torch.Generator().manual_seed(5)
    inputs = torch.randn(32, 4, generator=generator)
    labels = torch.randint(0, 3, (32,), generator=generator)
    for label, make in RULES.items():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
        optimizer = make(model)
        with ml.Recorder(model, optimizer, out / label, every=1, label=label, total_steps=6) as recorder:
            for _ in range(6):
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(inputs), labels)
                loss.backward()
                optimizer.step()
                recorder.step(loss=loss)


if __name__ == "__main__":
    main()
