#!/usr/bin/env python3
"""Recorded PyTorch runs for test_torch_explainer and test_torch_views: a 4-5-3 tanh MLP, full
batch, 6 steps, a snapshot at every step, trained with torch's SGD momentum, torch's Adam and the
package's NeuronMeanSGD (fan-in), each into OUT/<label>, with OUT/<label>/tensors.json: the first
layer's weight, bias, their gradients and first moments (momentum_buffer / exp_avg) as the
training loop saw them after each step (what the app must show). Two more folders hold models
the app shows as blocks (no one network): OUT/blocks-branches, two parallel Linear layers whose
outputs are joined and a head (torch SGD momentum), and OUT/blocks-subset, the MLP with only its
second layer recorded; their tensors.json has the same matrices of every recorded layer by name.

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
        model = mlp()
        record(out / label, model, make(model), label, None, inputs, labels,
               lambda optimizer, model=model: first_layer(model[0], optimizer))
    branches = Branches()
    record_blocks(out / "blocks-branches", branches, None, inputs, labels)
    model = mlp()
    record_blocks(out / "blocks-subset", model, [model[2]], inputs, labels)


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))


class Branches(torch.nn.Module):
    """Two branches over the same input, joined: no chain of the app's networks."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.left, self.right, self.head = torch.nn.Linear(4, 5), torch.nn.Linear(4, 3), torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.head(torch.tanh(torch.cat([self.left(x), self.right(x)], dim=1)))


def record(folder, model, optimizer, label, layers, inputs, labels, seen_after_step):
    """Six recorded full-batch steps; tensors.json: what seen_after_step(optimizer) gave after each."""
    seen = []
    with ml.Recorder(model, optimizer, folder, every=1, label=label, total_steps=6, layers=layers) as recorder:
        for _ in range(6):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(inputs), labels)
            loss.backward()
            optimizer.step()
            recorder.step(loss=loss)
            seen.append(seen_after_step(optimizer))
    (folder / "tensors.json").write_text(json.dumps(seen))


def record_blocks(folder, model, layers, inputs, labels):
    """Torch SGD momentum; tensors.json holds every recorded layer's matrices by module name."""
    recorded = layers or [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    names = {module: name for name, module in model.named_modules()}
    record(folder, model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), "momentum", layers, inputs,
           labels, lambda optimizer: {names[layer]: first_layer(layer, optimizer) for layer in recorded})


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
