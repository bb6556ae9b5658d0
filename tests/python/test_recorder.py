"""The recorder: its folder read back by read_run holds exactly the tensors of the recorded steps,
the CLI opens it like one of its own, and unrecorded steps copy nothing to the host."""
import copy
import json
import tempfile
import unittest
import warnings
from pathlib import Path

import numpy as np
import torch

import support
import momentum_lab as ml

EVERY, STEPS = 3, 10
RECORDED = [3, 6, 9, 10]  # every 3rd step and the last (total_steps)

# torch.optim state name -> the snapshot's name
FIRST = {"momentum_buffer": "first_moment", "exp_avg": "first_moment"}
SECOND = {"exp_avg_sq": "second_moment", "square_avg": "second_moment", "sum": "second_moment"}
RULE = {"max_exp_avg_sq": "max_second_moment", "grad_avg": "centred_mean"}

OPTIMIZERS = {
    "sgd": lambda m: torch.optim.SGD(m.parameters(), lr=0.1),
    "momentum": lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9),
    "adam-amsgrad": lambda m: torch.optim.Adam(m.parameters(), lr=0.01, amsgrad=True),
    "adamw": lambda m: torch.optim.AdamW(m.parameters(), lr=0.01),
    "rmsprop-centered": lambda m: torch.optim.RMSprop(m.parameters(), lr=0.01, momentum=0.5, centered=True),
    "adagrad": lambda m: torch.optim.Adagrad(m.parameters(), lr=0.1),
    "neuron-mean-join": lambda m: ml.NeuronMeanSGD(m, lr=0.1, momentum_mean="fan-out", bias="join"),
    "adam-mini": lambda m: ml.AdamMini(m, lr=0.01),
}


def layer_matrix(weight, bias):
    rows = weight.detach().reshape(weight.shape[0], -1).cpu().numpy()
    return np.concatenate([rows, bias.detach().reshape(-1, 1).cpu().numpy()], axis=1)


def expected_means(matrix, scope, bias, columns_per_input):
    """The neuron means of a first moment, written out from the format's description."""
    weights = matrix[:, :-1] if bias == "own" else matrix
    if scope in ("none", "fan-in"):
        return weights.mean(axis=1)
    if scope == "fan-out":
        inputs = (matrix.shape[1] - 1) // columns_per_input
        means = [matrix[:, i * columns_per_input:(i + 1) * columns_per_input].mean() for i in range(inputs)]
        return np.array(means + ([matrix[:, -1].mean()] if bias == "join" else []))
    return np.array([weights.mean()])


def data(conv):
    generator = torch.Generator().manual_seed(4)
    inputs = torch.rand(24, 1, 8, 8, generator=generator) if conv else torch.randn(24, 6, generator=generator)
    return inputs, torch.randint(0, 10 if conv else 4, (24,), generator=generator)


def train_recorded(model, optimizer, folder, conv=False, device="cpu", **options):
    """Trains with a recorder; returns what the loop itself saw at each recorded step."""
    inputs, labels = (t.to(device) for t in data(conv))
    layers = [m for m in model.modules() if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d))]
    seen = {}
    recorder = ml.Recorder(model, optimizer, folder, every=EVERY, total_steps=STEPS,
                           input_shape=(1, 8, 8) if conv else None, **options)
    with recorder:
        for step in range(1, STEPS + 1):
            before = [layer_matrix(m.weight, m.bias) for m in layers]
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(inputs), labels)
            loss.backward()
            optimizer.step()
            recorder.step(loss=loss, test_loss=0.5 if step == 6 else None, epoch=1 + step // 4)
            if step in RECORDED:
                snapshot = []
                for m, old in zip(layers, before):
                    entry = {"parameters": layer_matrix(m.weight, m.bias),
                             "gradient": layer_matrix(m.weight.grad, m.bias.grad)}
                    entry["update"] = entry["parameters"] - old
                    for key, buffer in optimizer.state[m.weight].items():
                        name = FIRST.get(key) or SECOND.get(key) or RULE.get(key)
                        if name and torch.is_tensor(buffer):
                            entry[name] = layer_matrix(buffer, optimizer.state[m.bias][key])
                    snapshot.append(entry)
                seen[step] = (loss.item(), snapshot)
    return recorder, seen


class ReadBack(unittest.TestCase):
    def check(self, label, make, conv=False, device="cpu"):
        model = (support.small_cnn() if conv else support.mlp()).to(device)
        optimizer = make(model)
        with tempfile.TemporaryDirectory() as directory:
            recorder, seen = train_recorded(model, optimizer, directory, conv, device)
            run = ml.read_run(directory)
            self.assertEqual(run.steps, RECORDED, label)
            scope = optimizer.param_groups[0].get("momentum_mean", "none")
            bias = optimizer.param_groups[0].get("bias", "own")
            for record in run.snapshots:
                loss, expected = seen[record["step"]]
                self.assertAlmostEqual(record["batch_loss"], loss, places=6)
                for index, (layer, wanted) in enumerate(zip(record["layers"], expected)):
                    self.assertEqual(sorted(k for k in layer if k != "neuron_means"), sorted(wanted), label)
                    for name, matrix in wanted.items():
                        np.testing.assert_array_equal(layer[name], matrix, f"{label} step {record['step']} {name}")
                    if "first_moment" in wanted:
                        columns = recorder.columns_per_input[index]
                        np.testing.assert_allclose(layer["neuron_means"],
                                                   expected_means(wanted["first_moment"], scope, bias, columns),
                                                   rtol=1e-5, atol=1e-7)
                    else:
                        self.assertEqual(layer["neuron_means"].size, 0)
            metrics = run.metrics
            self.assertEqual(list(metrics["step"]), list(range(1, STEPS + 1)))
            self.assertEqual(list(metrics["epoch"]), [1 + s // 4 for s in range(1, STEPS + 1)])
            self.assertEqual(np.float32(metrics["train_loss"][5]), np.float32(seen[6][0]))
            self.assertEqual(float(metrics["test_loss"][5]), 0.5)
            self.assertTrue(np.isnan(metrics["test_loss"][4]))
            final = run.weights_final
            np.testing.assert_array_equal(final[-1]["weight"], model[-1].weight.detach().cpu().numpy())
            self.assertEqual(recorder.host_copies, 2 + len(RECORDED))  # the two weights files, one per snapshot

    def test_dense_rules(self):
        for label, make in OPTIMIZERS.items():
            with self.subTest(optimizer=label):
                self.check(label, make)

    def test_conv(self):
        self.check("conv", lambda m: ml.NeuronMeanSGD(m, lr=0.05, momentum_mean="fan-out", bias="join"), conv=True)
        self.check("conv-adam", lambda m: torch.optim.Adam(m.parameters(), lr=0.01), conv=True)


    @unittest.skipUnless(torch.cuda.is_available(), "no CUDA device")
    def test_cuda(self):
        for label in ("adam-amsgrad", "rmsprop-centered", "neuron-mean-join", "adam-mini"):
            with self.subTest(optimizer=label):
                self.check(label, OPTIMIZERS[label], device="cuda")
        self.check("conv", lambda m: ml.NeuronMeanSGD(m, lr=0.05, momentum_mean="fan-out", bias="join"), conv=True,
                   device="cuda")


class HostCopies(unittest.TestCase):
    def test_unrecorded_steps_copy_nothing_to_the_host(self):
        calls = []
        originals = {name: getattr(torch.Tensor, name) for name in ("cpu", "item", "numpy", "tolist", "to", "__float__")}

        def counting(name):
            original = originals[name]

            def method(self, *args, **kwargs):
                if name != "to" or any(str(a).startswith("cpu") for a in list(args) + list(kwargs.values())):
                    calls.append(name)
                return original(self, *args, **kwargs)
            return method

        model = support.mlp()
        optimizer = ml.NeuronMeanAdam(model, lr=0.01)
        inputs, labels = data(False)
        with tempfile.TemporaryDirectory() as directory:
            recorder = ml.Recorder(model, optimizer, directory, every=4)
            per_step = []
            for step in range(1, 13):
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(inputs), labels)
                loss.backward()
                optimizer.step()
                copies = recorder.host_copies
                try:
                    for name in originals:
                        setattr(torch.Tensor, name, counting(name))
                    recorder.step(loss=loss)
                finally:
                    for name, original in originals.items():
                        setattr(torch.Tensor, name, original)
                per_step.append((len(calls), recorder.host_copies - copies))
                calls.clear()
            recorder.close()
            for step, (host_calls, copies) in enumerate(per_step, start=1):
                if step % 4:
                    self.assertEqual((host_calls, copies), (0, 0), f"step {step}")
                else:
                    self.assertEqual(copies, 1, f"step {step}: one copy per recorded step")
            self.assertEqual(ml.read_run(directory).steps, [4, 8, 12])


class NewMemory(unittest.TestCase):
    def test_state_loaded_and_weights_moved_mid_run_are_recorded(self):
        """A record's plan is kept while the recorded tensors keep their memory: an optimizer state
        loaded mid-run (new tensors) and weights given new memory are what the next records hold."""
        model = support.mlp()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        inputs, labels = data(False)
        first, seen = model[0], {}
        with tempfile.TemporaryDirectory() as directory:
            with ml.Recorder(model, optimizer, directory, every=2, total_steps=8) as recorder:
                for step in range(1, 9):
                    optimizer.zero_grad()
                    loss = torch.nn.functional.cross_entropy(model(inputs), labels)
                    loss.backward()
                    optimizer.step()
                    recorder.step(loss=loss)
                    momentum = [optimizer.state[p]["momentum_buffer"] for p in (first.weight, first.bias)]
                    seen[step] = (layer_matrix(first.weight, first.bias), layer_matrix(*momentum))
                    if step == 4:
                        optimizer.load_state_dict(copy.deepcopy(optimizer.state_dict()))
                        first.weight.data = first.weight.data.clone()
            run = ml.read_run(directory)
            self.assertEqual(run.steps, [2, 4, 6, 8])
            for record in run.snapshots:
                weights, momentum = seen[record["step"]]
                np.testing.assert_array_equal(record["layers"][0]["parameters"], weights, f"step {record['step']}")
                np.testing.assert_array_equal(record["layers"][0]["first_moment"], momentum, f"step {record['step']}")


class Unpaired(unittest.TestCase):
    def test_a_rule_given_bare_parameters_is_recorded_as_it_ran(self):
        """NeuronMeanSGD(model.parameters()) pairs no layer: it runs per connection, and config.json
        and the snapshots say so (the app's explainer recombines what the rule did)."""
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the optimizer's own warning about the pairing
            optimizer = ml.NeuronMeanSGD(model.parameters(), lr=0.1, momentum=0.9, gradient_centralization=True)
        with tempfile.TemporaryDirectory() as folder:
            with ml.Recorder(model, optimizer, folder, every=1) as recorder:
                loss = torch.nn.functional.cross_entropy(model(torch.randn(8, 4)), torch.randint(0, 3, (8,)))
                loss.backward()
                optimizer.step()
                recorder.step(loss=loss)
            run = json.loads((Path(folder) / "config.json").read_text())["runs"][0]
            self.assertEqual(run["optimizer"], "momentum")
            self.assertEqual(run["momentum-mean"], "none")
            self.assertFalse(run["gradient-centralization"])
            header = (Path(folder) / "snapshots.bin").read_bytes().split(b"\n")[1]
            self.assertEqual(json.loads(header)["momentum-mean"], "none")


class Budget(unittest.TestCase):
    def record(self, directory, budget_records, **options):
        model = support.mlp()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        inputs, labels = data(False)
        bound = ml._format.record_bytes_bound([(7, 7), (5, 8), (4, 6)])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with ml.Recorder(model, optimizer, directory, every=1, max_mb=budget_records * bound / 1e6,
                             **options) as recorder:
                for _ in range(200):
                    optimizer.zero_grad()
                    loss = torch.nn.functional.cross_entropy(model(inputs), labels)
                    loss.backward()
                    optimizer.step()
                    recorder.step(loss=loss)
        self.assertLessEqual((Path(directory) / "snapshots.bin").stat().st_size, budget_records * bound)
        self.assertEqual(len(caught), 1)
        return ml.read_run(directory).steps

    def test_unknown_length_halves_the_budget_at_each_stride(self):
        with tempfile.TemporaryDirectory() as directory:
            self.assertEqual(self.record(directory, 8), [1, 2, 3, 4, 6, 8, 12, 16])

    def test_known_length_raises_the_interval_to_fit(self):
        with tempfile.TemporaryDirectory() as directory:
            # 8 records fit: 200 / 25 = 8 snapshots, while every 24 would take 9 (8 and the last step)
            self.assertEqual(self.record(directory, 8, total_steps=200), list(range(25, 201, 25)))


@unittest.skipUnless(support.cli_available(), f"{support.CLI} is not built")
class OpensInTheCli(unittest.TestCase):
    def export(self, folder, quantity, step):
        status, _, err = support.run_cli("export", folder, "--out", Path(folder) / "report", "--quantity", quantity,
                                         "--step", step)
        self.assertEqual(status, 0, err)
        self.assertNotIn("warning", err)

    def test_mlp_and_cnn_folders(self):
        for conv, make, quantities in (
                (False, lambda m: ml.NeuronMeanSGD(m, lr=0.1, bias="join"),
                 ("weight", "gradient", "momentum", "neuron-mean-momentum", "update")),
                (False, lambda m: torch.optim.Adam(m.parameters(), lr=0.01, amsgrad=True),
                 ("momentum", "second-moment", "update")),
                (True, lambda m: ml.NeuronMeanAdam(m, lr=0.01, momentum_mean="fan-out", second_moment_mean="fan-in"),
                 ("momentum", "second-moment-group-mean", "second-moment"))):
            model = support.small_cnn() if conv else support.mlp()
            with tempfile.TemporaryDirectory() as directory:
                train_recorded(model, make(model), directory, conv)
                for quantity in quantities:
                    for step in (3, 10):
                        with self.subTest(conv=conv, quantity=quantity, step=step):
                            self.export(directory, quantity, step)
                status, _, err = support.run_cli("export", directory, "--out", Path(directory) / "r2", "--quantity",
                                                 "momentum", "--step", 4)
                self.assertNotEqual(status, 0)  # a step without a snapshot is refused: the steps were read
                self.assertIn("saved steps: 3, 6, 9, 10", err)


class DescribesTheRecordedLayers(unittest.TestCase):
    """config.json names each recorded layer; "network" only where the recorded layers are one chain."""

    def config(self, model, layers=None, input_shape=None):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ml.Recorder(model, optimizer, directory, layers=layers, input_shape=input_shape).close()
            return json.loads((Path(directory) / "config.json").read_text()), [str(w.message) for w in caught]

    def test_a_chain_is_a_network(self):
        config, _ = self.config(support.mlp())
        self.assertEqual(config["network"], "6-7-5-4")
        self.assertEqual(config["recorded-layers"], [
            {"name": "0", "kind": "linear", "shape": [7, 6], "follows": None},
            {"name": "2", "kind": "linear", "shape": [5, 7], "follows": "0"},
            {"name": "4", "kind": "linear", "shape": [4, 5], "follows": "2"}])
        config, _ = self.config(support.small_cnn(), input_shape=(1, 8, 8))
        self.assertEqual(config["network"], "1x8x8-conv4k3p1-pool2-conv6k3s2p1-12-10")
        self.assertEqual([layer["kind"] for layer in config["recorded-layers"]], ["conv2d", "conv2d", "linear", "linear"])
        self.assertEqual(config["recorded-layers"][1]["shape"], [6, 4, 3, 3])

    def test_a_subset_is_blocks(self):
        model = support.mlp()
        config, _ = self.config(model, layers=[model[2], model[4]])
        self.assertNotIn("network", config)
        self.assertEqual([(layer["name"], layer["follows"]) for layer in config["recorded-layers"]],
                         [("2", None), ("4", "2")])

    def test_layers_whose_sizes_do_not_chain_are_blocks(self):
        class Branches(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.left, self.right, self.head = torch.nn.Linear(4, 5), torch.nn.Linear(4, 3), torch.nn.Linear(8, 2)

            def forward(self, x):
                return self.head(torch.cat([self.left(x), self.right(x)], dim=1))

        config, caught = self.config(Branches())
        self.assertNotIn("network", config)
        self.assertEqual([layer["follows"] for layer in config["recorded-layers"]], [None, None, None])
        self.assertTrue(any("right: reads 4 values, but the layer before gives 5" in w for w in caught), caught)
        with self.assertRaisesRegex(ValueError, "reads 3 channels, but the layer before gives"):
            ml.infer_network(torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.Conv2d(3, 4, 3),
                                                 torch.nn.Flatten(), torch.nn.Linear(64, 2)), (1, 8, 8))


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main()
