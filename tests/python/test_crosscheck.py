"""The package's optimizers against momentum-lab-cli train: the same network, initial weights and
data (CSV, full batch, 50 steps); every step's loss and the final weights must agree within float32
accuracy, for each sharing scope, bias own / join, blend, statistic and the adam-style rules."""
import csv
import json
import tempfile
import unittest
from pathlib import Path

import torch

import support
import momentum_lab as ml

STEPS = 50
TOLERANCE = 2e-5  # float32 trajectories that differ only in summation order stay far below this

# label -> (CLI optimizer spec, torch optimizer factory on neuron_param_groups)
DENSE = {
    "fan-in-own": ("neuron-mean:lr=0.2", lambda g: ml.NeuronMeanSGD(g, lr=0.2)),
    "fan-in-join": ("neuron-mean:lr=0.2:bias=join", lambda g: ml.NeuronMeanSGD(g, lr=0.2, bias="join")),
    "fan-out-own": ("momentum:lr=0.2:momentum-mean=fan-out",
                    lambda g: ml.NeuronMeanSGD(g, lr=0.2, momentum_mean="fan-out")),
    "fan-out-join": ("momentum:lr=0.2:momentum-mean=fan-out:bias=join",
                     lambda g: ml.NeuronMeanSGD(g, lr=0.2, momentum_mean="fan-out", bias="join")),
    "layer-own": ("momentum:lr=0.2:momentum-mean=layer", lambda g: ml.NeuronMeanSGD(g, lr=0.2, momentum_mean="layer")),
    "layer-join": ("momentum:lr=0.2:momentum-mean=layer:bias=join",
                   lambda g: ml.NeuronMeanSGD(g, lr=0.2, momentum_mean="layer", bias="join")),
    "blend": ("neuron-mean:lr=0.2:momentum-mean-blend=0.4:dampening=0.1:weight-decay=0.01",
              lambda g: ml.NeuronMeanSGD(g, lr=0.2, momentum_mean_blend=0.4, dampening=0.1, weight_decay=0.01)),
    "signed-abs": ("neuron-mean:lr=0.2:momentum-mean-stat=signed-abs-mean:bias=join",
                   lambda g: ml.NeuronMeanSGD(g, lr=0.2, momentum_mean_stat="signed-abs-mean", bias="join")),
    "nesterov-gc": ("nesterov:lr=0.1:momentum-mean=fan-in:gradient-centralization=true",
                    lambda g: ml.NeuronMeanSGD(g, lr=0.1, nesterov=True, gradient_centralization=True)),
    "ema": ("sgdm-ema:lr=0.5:momentum-mean=fan-out:momentum-mean-blend=0.7",
            lambda g: ml.NeuronMeanEMA(g, lr=0.5, momentum_mean="fan-out", momentum_mean_blend=0.7)),
    "adam-fan-in": ("adam:lr=0.01:momentum-mean=fan-in:second-moment-mean=fan-in",
                    lambda g: ml.NeuronMeanAdam(g, lr=0.01, momentum_mean="fan-in", second_moment_mean="fan-in")),
    "adam-join": ("adam:lr=0.01:momentum-mean=layer:second-moment-mean=fan-out:bias=join:amsgrad=true",
                  lambda g: ml.NeuronMeanAdam(g, lr=0.01, momentum_mean="layer", second_moment_mean="fan-out",
                                              bias="join", amsgrad=True)),
    "adam-factored": ("adam:lr=0.01:momentum-mean=fan-out:second-moment-mean=factored:weight-decay=0.05",
                      lambda g: ml.NeuronMeanAdam(g, lr=0.01, momentum_mean="fan-out", second_moment_mean="factored",
                                                  weight_decay=0.05)),
    "adamw-blend": ("adamw:lr=0.01:momentum-mean=fan-in:momentum-mean-blend=0.5:second-moment-mean=layer",
                    lambda g: ml.NeuronMeanAdamW(g, lr=0.01, momentum_mean_blend=0.5, second_moment_mean="layer")),
    "adam-mini": ("adam-mini:lr=0.01:momentum-mean=fan-in:weight-decay=0.1",
                  lambda g: ml.AdamMini(g, lr=0.01, momentum_mean="fan-in", weight_decay=0.1)),
}

CONV = {
    "conv-fan-in-join": ("neuron-mean:lr=0.05:bias=join", lambda g: ml.NeuronMeanSGD(g, lr=0.05, bias="join")),
    "conv-fan-out": ("momentum:lr=0.05:momentum-mean=fan-out:momentum-mean-stat=signed-abs-mean",
                     lambda g: ml.NeuronMeanSGD(g, lr=0.05, momentum_mean="fan-out",
                                                momentum_mean_stat="signed-abs-mean")),
    "conv-adam": ("adam:lr=0.01:momentum-mean=fan-out:second-moment-mean=fan-out:bias=join",
                  lambda g: ml.NeuronMeanAdam(g, lr=0.01, momentum_mean="fan-out", second_moment_mean="fan-out",
                                              bias="join")),
}


class NeroReference(torch.optim.Optimizer):
    """Nero (Liu et al. 2021) as github.com/jxbz/nero's nero.py defines it: each weight tensor's rows
    (one per output neuron) are centred and scaled to unit length when the optimizer is created, so
    the first gradient is taken at projected weights; then per neuron S <- b*S + (1-b)*||g||^2 (a
    bias entry: g^2), w <- w - lr*scale*g/sqrt(S/(1-b^t)) (0 where S = 0) and the rows again
    projected; scale = the mean row norm after the first projection (a bias vector: mean |b|)."""

    def __init__(self, groups, lr, beta=0.999):
        super().__init__(groups, dict(lr=lr))
        self.beta = beta
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.dim() > 1:
                        self._project(p)
                    scale = self._row_norms(p).mean().item()
                    self.state[p].update(step=0, S=torch.zeros_like(self._row_norms(p)),
                                         scale=scale if scale != 0.0 else 0.01)

    @staticmethod
    def _row_norms(x):
        return x.reshape(x.shape[0], -1).norm(dim=1) if x.dim() > 1 else x.abs()

    @staticmethod
    def _project(p):
        rows = p.view(p.shape[0], -1)
        rows -= rows.mean(dim=1, keepdim=True)
        norms = rows.norm(dim=1, keepdim=True)
        rows /= torch.where(norms > 0, norms, torch.ones_like(norms))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] += 1
                state["S"] = self.beta * state["S"] + (1 - self.beta) * self._row_norms(p.grad) ** 2
                shape = [p.shape[0]] + [1] * (p.dim() - 1)
                d = (state["S"] / (1 - self.beta ** state["step"])).sqrt().view(shape)
                p -= group["lr"] * state["scale"] * torch.where(d > 0, p.grad / d, torch.zeros_like(p.grad))
                if p.dim() > 1:
                    self._project(p)


def train_torch(model, factory, inputs, labels):
    optimizer = factory(ml.neuron_param_groups(model))
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), labels)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses


def largest_differences(folder, model, losses):
    with open(folder / "metrics.csv") as f:
        theirs = [float(row["train_loss"]) for row in csv.DictReader(f)]
    if len(theirs) != len(losses):
        raise AssertionError(f"{folder}: {len(theirs)} steps in metrics.csv, torch {len(losses)}")
    loss_error = max(abs(a - b) for a, b in zip(theirs, losses))
    weight_error = 0.0
    modules = [m for m in model.modules() if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d))]
    for layer, module in zip(support.load_weights(folder / "weights_final.json"), modules):
        for key, tensor in (("weight", module.weight), ("bias", module.bias)):
            cli = torch.tensor(layer[key], dtype=torch.float32)
            if cli.shape != tensor.shape:
                raise AssertionError(f"{folder}: {key} shape {list(cli.shape)}, torch {list(tensor.shape)}")
            weight_error = max(weight_error, (cli - tensor.detach()).abs().max().item())
    return loss_error, weight_error


@unittest.skipUnless(support.cli_available(), f"{support.CLI} is not built")
class CrossCheck(unittest.TestCase):
    def check(self, network, build, inputs, labels, variants, train_count):
        with tempfile.TemporaryDirectory() as directory:
            root = Path(directory)
            support.write_csv(root / "train.csv", inputs[:train_count], labels[:train_count])
            support.write_csv(root / "test.csv", inputs[train_count:], labels[train_count:])
            (root / "init.json").write_text(json.dumps(support.weights_json(build())))
            runs = ",".join(f"{spec}:label={label}" for label, (spec, _) in variants.items())
            status, _, err = support.run_cli(
                "train", "--network", network, "--activation", "tanh", "--loss", "cross-entropy",
                "--data", f"csv:{root / 'train.csv'},{root / 'test.csv'}", "--init", root / "init.json",
                "--batch", 0, "--steps", STEPS, "--optimizer", runs, "--out", root / "out")
            self.assertEqual(status, 0, err)
            finals = {}
            for label, (_, factory) in variants.items():
                with self.subTest(variant=label):
                    model = build()
                    losses = train_torch(model, factory, inputs[:train_count], labels[:train_count])
                    loss_error, weight_error = largest_differences(root / "out" / label, model, losses)
                    print(f"{label}: loss {losses[0]:.4f} -> {losses[-1]:.4f}, largest differences: "
                          f"loss {loss_error:.1e}, weights {weight_error:.1e}")
                    self.assertLess(loss_error, TOLERANCE, label)
                    self.assertLess(weight_error, TOLERANCE, label)
                    finals[label] = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
            # The variants must differ from each other far beyond the tolerance, or the check could
            # not tell one scope from another.
            labels_ = list(finals)
            for i, a in enumerate(labels_):
                for b in labels_[i + 1:]:
                    self.assertGreater((finals[a] - finals[b]).abs().max().item(), 100 * TOLERANCE, f"{a} vs {b}")

    def test_dense(self):
        generator = torch.Generator().manual_seed(11)
        inputs = torch.randn(64, 6, generator=generator)
        labels = torch.randint(0, 4, (64,), generator=generator)
        self.check("6-7-5-4", support.mlp, inputs, labels, DENSE, 48)

    def test_nero(self):
        # The CLI projects the rows before the first forward pass, as nero.py does when created.
        generator = torch.Generator().manual_seed(5)
        inputs = torch.randn(64, 6, generator=generator)
        labels = torch.randint(0, 4, (64,), generator=generator)
        nero = {"nero": ("nero:lr=0.01", lambda g: NeroReference(g, lr=0.01)),
                "nero-beta": ("nero:lr=0.02:beta2=0.99", lambda g: NeroReference(g, lr=0.02, beta=0.99))}
        self.check("6-7-5-4", support.mlp, inputs, labels, nero, 48)

    def test_conv(self):
        generator = torch.Generator().manual_seed(7)
        inputs = torch.rand(80, 1, 8, 8, generator=generator)
        labels = torch.randint(0, 10, (80,), generator=generator)
        self.check(support.SMALL_CNN_SPEC, support.small_cnn, inputs, labels, CONV, 64)


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main()
