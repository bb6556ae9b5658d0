"""The optimizers' own properties: the limits that equal torch.optim's rules, the foreach path,
state_dict round trips and the fallback of parameters outside layer pairs."""
import copy
import io
import unittest
import warnings

import torch

import support
import momentum_lab as ml

STEPS = 12


def trajectory(model, optimizer, steps=STEPS, seed=5):
    generator = torch.Generator().manual_seed(seed)
    inputs = torch.randn(32, 6, generator=generator)
    labels = torch.randint(0, 4, (32,), generator=generator)
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(inputs), labels).backward()
        optimizer.step()
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def difference(make_a, make_b, steps=STEPS):
    a, b = support.mlp(), support.mlp()
    return (trajectory(a, make_a(a), steps) - trajectory(b, make_b(b), steps)).abs().max().item()


class Limits(unittest.TestCase):
    def test_scope_none_is_torch_sgd(self):
        self.assertEqual(difference(lambda m: ml.NeuronMeanSGD(m, lr=0.1, momentum_mean="none", dampening=0.2),
                                    lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, dampening=0.2)),
                         0.0)

    def test_blend_zero_is_momentum_and_blend_one_the_mean(self):
        self.assertEqual(difference(lambda m: ml.NeuronMeanSGD(m, lr=0.1, momentum_mean_blend=0.0, nesterov=True),
                                    lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, nesterov=True)),
                         0.0)
        self.assertGreater(difference(lambda m: ml.NeuronMeanSGD(m, lr=0.1),
                                      lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)), 1e-4)

    def test_adam_without_sharing_is_torch_adam(self):
        self.assertLess(difference(lambda m: ml.NeuronMeanAdamW(m, lr=0.01, momentum_mean="none", amsgrad=True),
                                   lambda m: torch.optim.AdamW(m.parameters(), lr=0.01, amsgrad=True)), 1e-6)
        self.assertLess(difference(lambda m: ml.NeuronMeanAdam(m, lr=0.01, momentum_mean="none", weight_decay=0.1),
                                   lambda m: torch.optim.Adam(m.parameters(), lr=0.01, weight_decay=0.1)), 1e-6)

    def test_adam_mini_is_adamw_with_a_second_moment_per_neuron(self):
        self.assertEqual(difference(lambda m: ml.AdamMini(m, lr=0.01, weight_decay=0.1),
                                    lambda m: ml.NeuronMeanAdamW(m, lr=0.01, weight_decay=0.1, momentum_mean="none",
                                                                 second_moment_mean="fan-in")), 0.0)

    def test_foreach_path_matches_the_loop(self):
        for make in (lambda m, f: ml.NeuronMeanSGD(m, lr=0.1, bias="join", foreach=f),
                     lambda m, f: ml.NeuronMeanSGD(m, lr=0.1, nesterov=True, momentum_mean="layer", foreach=f),
                     lambda m, f: ml.NeuronMeanEMA(m, lr=0.3, foreach=f),
                     lambda m, f: ml.NeuronMeanAdam(m, lr=0.01, second_moment_mean="fan-out", foreach=f)):
            self.assertLess(difference(lambda m: make(m, True), lambda m: make(m, False)), 1e-6)


class Pairing(unittest.TestCase):
    def test_groups_pair_each_weight_with_its_bias(self):
        model = torch.nn.Sequential(torch.nn.Embedding(5, 6), torch.nn.LayerNorm(6), torch.nn.Linear(6, 3),
                                    torch.nn.Conv1d(3, 2, 1, bias=False))
        paired, others = ml.neuron_param_groups(model, lr=0.5)
        self.assertEqual(paired["layers"], [[0, 1], [2, None]])
        self.assertIs(paired["params"][1], model[2].bias)
        self.assertEqual(len(others["params"]), 3)  # the embedding and the norm's two tensors
        self.assertEqual(others["layers"], [])
        self.assertEqual(paired["lr"], 0.5)

    def test_unpaired_parameters_follow_the_per_connection_rule(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            difference_ = difference(lambda m: ml.NeuronMeanSGD(m.parameters(), lr=0.1),
                                     lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9))
        self.assertEqual(difference_, 0.0)
        self.assertTrue(any("per-connection" in str(w.message) for w in caught))

    def test_join_shares_the_bias_with_its_neuron(self):
        weight = torch.tensor([[1.0, 2.0], [3.0, 5.0]])
        bias = torch.tensor([3.0, -2.0])
        ml.share_(weight, bias, "fan-in", "join")
        self.assertTrue(torch.equal(weight, torch.tensor([[2.0, 2.0], [2.0, 2.0]])))
        self.assertTrue(torch.equal(bias, torch.tensor([2.0, 2.0])))


class StateDict(unittest.TestCase):
    def test_round_trip_continues_identically(self):
        for make in (lambda m: ml.NeuronMeanSGD(m, lr=0.1, bias="join", momentum_mean="fan-out"),
                     lambda m: ml.NeuronMeanAdam(m, lr=0.01, amsgrad=True, second_moment_mean="factored"),
                     lambda m: ml.NeuronMeanEMA(m, lr=0.3), lambda m: ml.AdamMini(m, lr=0.01)):
            model = support.mlp()
            optimizer = make(model)
            trajectory(model, optimizer, steps=5)
            saved = io.BytesIO()
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, saved)
            continued = trajectory(model, optimizer, steps=7, seed=9)
            saved.seek(0)
            state = torch.load(saved)
            restored_model = support.mlp(seed=99)
            restored_model.load_state_dict(state["model"])
            restored = make(restored_model)
            restored.load_state_dict(state["optimizer"])
            self.assertEqual(restored.param_groups[0]["layers"], optimizer.param_groups[0]["layers"])
            resumed = trajectory(restored_model, restored, steps=7, seed=9)
            self.assertTrue(torch.equal(continued, resumed), type(optimizer).__name__)
            fresh_model = support.mlp(seed=99)
            fresh_model.load_state_dict(state["model"])
            self.assertFalse(torch.equal(continued, trajectory(fresh_model, make(fresh_model), steps=7, seed=9)))


if __name__ == "__main__":
    torch.set_num_threads(1)
    unittest.main()
