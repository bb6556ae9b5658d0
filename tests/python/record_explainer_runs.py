#!/usr/bin/env python3
"""Recorded PyTorch runs for test_torch_explainer and test_torch_views: a 4-5-3 tanh MLP, full
batch, 6 steps, a snapshot at every step, trained with torch's SGD momentum, torch's Adam and the
package's NeuronMeanSGD (fan-in), each into OUT/<label>, with OUT/<label>/tensors.json: the first
layer's weight, bias, their gradients and first moments (momentum_buffer / exp_avg) as the
training loop saw them after each step (what the app must show).

    record_explainer_runs.py OUT      (exit 77 without torch: the test skips)
"""
import json
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
        seen = []
        with ml.Recorder(model, optimizer, out / label, every=1, label=label, total_steps=6) as recorder:
            for _ in range(6):
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(inputs), labels)
                loss.backward()
                optimizer.step()
                recorder.step(loss=loss)
                seen.append(first_layer(model[0], optimizer))
        (out / label / "tensors.json").write_text(json.dumps(seen))


def first_layer(layer, optimizer):
    """[out x (in + 1)] matrices, bias last, as nested lists: weight, gradient, first moment."""
    def matrix(weight, bias):
        return torch.cat([weight, bias.reshape(-1, 1)], dim=1).tolist()
    state_w, state_b = optimizer.state[layer.weight], optimizer.state[layer.bias]
    key = "momentum_buffer" if "momentum_buffer" in state_w else "exp_avg"
    return {"weight": matrix(layer.weight.detach(), layer.bias.detach()),
            "gradient": matrix(layer.weight.grad, layer.bias.grad),
            "first_moment": matrix(state_w[key], state_b[key])}


if __name__ == "__main__":
    main()
