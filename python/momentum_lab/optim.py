"""torch.optim optimizers of the neuron-mean family, with the formulas and defaults of the C++
catalog (core/optim/OptimizerCatalog.cpp, docs/optimizers.md), in float32.

Which tensors form a layer: a parameter group's "layers" key lists [weight_index, bias_index]
pairs (bias_index None for a layer without bias) into the group's "params". The weight's dim 0 is
its neurons (a Linear row, a Conv output channel: per-channel fan-in). neuron_param_groups(model)
builds the groups of a model's Linear and Conv layers; parameters listed in no pair (embeddings,
norms, ...) fall back to the per-connection rule (no sharing, no gradient centralization).

Every state-sharing step goes through momentum_lab._means (share_, share_second_moment_).
The state uses torch.optim's names: momentum_buffer, exp_avg, exp_avg_sq, max_exp_avg_sq, step.
"""
import math
import warnings

import torch

from . import _means

_CONV_OR_LINEAR = (torch.nn.Linear, torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d)


def neuron_layers(model):
    """The model's layers whose weight rows are neurons, in module order: (name, module) of each
    Linear / Conv1d / Conv2d / Conv3d."""
    return [(name, module) for name, module in model.named_modules() if isinstance(module, _CONV_OR_LINEAR)]


def neuron_param_groups(model, **options):
    """Parameter groups for the optimizers below: one group with every Linear/Conv weight paired with
    its bias ("layers"), and, when the model has other parameters, a second group with those (the
    per-connection rule). `options` (e.g. lr=0.1) go into both groups."""
    paired, layers, seen = [], [], set()
    for _, module in neuron_layers(model):
        if not module.weight.requires_grad or id(module.weight) in seen:
            continue
        seen.add(id(module.weight))
        bias = module.bias if module.bias is not None and module.bias.requires_grad else None
        layers.append([len(paired), len(paired) + 1 if bias is not None else None])
        paired.append(module.weight)
        if bias is not None:
            seen.add(id(bias))
            paired.append(bias)
    others = [p for p in model.parameters() if p.requires_grad and id(p) not in seen]
    groups = [dict(params=paired, layers=layers, **options)] if paired else []
    if others:
        groups.append(dict(params=others, layers=[], **options))
    return groups


def _foreach_ok(tensors, foreach):
    if foreach is False or not tensors:
        return False
    device = tensors[0].device
    return all(t.device == device and not t.is_sparse and t.dtype == tensors[0].dtype for t in tensors)


def _mul_(tensors, scalar, foreach):
    if _foreach_ok(tensors, foreach):
        torch._foreach_mul_(tensors, scalar)
    else:
        for t in tensors:
            t.mul_(scalar)


def _add_(tensors, others, alpha, foreach):
    if _foreach_ok(tensors, foreach):
        torch._foreach_add_(tensors, others, alpha=alpha)
    else:
        for t, o in zip(tensors, others):
            t.add_(o, alpha=alpha)


class _LayerOptimizer(torch.optim.Optimizer):
    """Shared plumbing: layer pairs, the rule gradient and the first-moment sharing."""

    catalog_name = None  # the C++ catalog's optimizer (config.json of a recorded run)

    def __init__(self, params, defaults):
        if isinstance(params, torch.nn.Module):
            params = neuron_param_groups(params)
        defaults = dict(defaults, layers=[])
        super().__init__(params, defaults)
        if not any(group["layers"] for group in self.param_groups):
            warnings.warn(f"{type(self).__name__}: no parameter group pairs a layer's weight with its bias, so "
                          "every parameter follows the per-connection rule; pass neuron_param_groups(model) "
                          "(or the model itself)", stacklevel=3)
        for group in self.param_groups:
            self._check_group(group)

    def _check_group(self, group):
        _means._checked(group.get("momentum_mean", "none"), group["bias"], group.get("momentum_mean_stat", "mean"))
        count = len(group["params"])
        for pair in group["layers"]:
            if len(pair) != 2 or not 0 <= pair[0] < count or not (pair[1] is None or 0 <= pair[1] < count):
                raise ValueError(f"layers: {pair} is not a [weight_index, bias_index or None] pair of this group")

    @staticmethod
    def layer_pairs(group):
        """(weight, bias or None) of each layer of the group whose weight has a gradient."""
        params = group["params"]
        for w, b in group["layers"]:
            weight = params[w]
            if weight.grad is None:
                continue
            bias = params[b] if b is not None and params[b].grad is not None else None
            yield weight, bias

    def _rule_gradients(self, group, params, weight_decay):
        """g + weight_decay * w (coupled decay), then with gradient_centralization each layer weight
        row loses its mean (biases and unpaired parameters untouched)."""
        grads = [p.grad for p in params]
        if weight_decay != 0.0:
            grads = [g.add(p, alpha=weight_decay) for g, p in zip(grads, params)]
        if group.get("gradient_centralization", False):
            weights = {id(w) for w, _ in self.layer_pairs(group)}
            grads = [g - g.reshape(g.shape[0], -1).mean(dim=1).reshape((-1,) + (1,) * (g.dim() - 1))
                     if id(p) in weights and g.dim() > 1 else g for g, p in zip(grads, params)]
        return grads

    def _share_first_moment(self, group, key, only=None):
        """M(a) in place on state[key] of each layer (only: the ids of the tensors to treat)."""
        for weight, bias in self.layer_pairs(group):
            if only is not None and id(weight) not in only:
                continue
            wb = self.state[weight][key]
            bb = self.state[bias].get(key) if bias is not None else None
            _means.share_(wb, bb, group["momentum_mean"], group["bias"], group["momentum_mean_blend"],
                          group["momentum_mean_stat"])

    def _share_second_moment(self, group, key):
        for weight, bias in self.layer_pairs(group):
            bb = self.state[bias][key] if bias is not None else None
            _means.share_second_moment_(self.state[weight][key], bb, group["second_moment_mean"], group["bias"])

    def _params_with_grad(self, group):
        params = [p for p in group["params"] if p.grad is not None]
        for p in params:
            if p.grad.is_sparse:
                raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")
        return params


def _sharing_defaults(momentum_mean, bias, blend, stat):
    if not 0.0 <= blend <= 1.0:
        raise ValueError(f"momentum_mean_blend {blend}: expected a number in [0, 1]")
    _means._checked(momentum_mean, bias, stat)
    return dict(momentum_mean=momentum_mean, bias=bias, momentum_mean_blend=blend, momentum_mean_stat=stat)


class NeuronMeanSGD(_LayerOptimizer):
    """SGD momentum whose buffer is shared over each neuron's incoming connections (catalog neuron-mean).

    b_1 = g; b <- mu*M(b) + (1-tau)*g; w <- w - lr*b (nesterov: w <- w - lr*(g + mu*b)); M: the
    momentum_mean group mean, blended (1-lambda)*b + lambda*M(b); g includes weight_decay*w.
    """

    def __init__(self, params, lr=0.01, momentum=0.9, dampening=0.0, weight_decay=0.0, nesterov=False,
                 momentum_mean="fan-in", bias="own", momentum_mean_blend=1.0, momentum_mean_stat="mean",
                 gradient_centralization=False, foreach=None):
        if lr < 0.0 or weight_decay < 0.0:
            raise ValueError("lr and weight_decay: expected numbers >= 0")
        if not 0.0 <= momentum < 1.0 or not 0.0 <= dampening <= 1.0:
            raise ValueError("momentum: expected a number in [0, 1); dampening: in [0, 1]")
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError("nesterov needs momentum > 0 and dampening 0")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, gradient_centralization=gradient_centralization,
                                      foreach=foreach,
                                      **_sharing_defaults(momentum_mean, bias, momentum_mean_blend,
                                                          momentum_mean_stat)))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = self._params_with_grad(group)
            if not params:
                continue
            lr, mu, foreach = group["lr"], group["momentum"], group["foreach"]
            grads = self._rule_gradients(group, params, group["weight_decay"])
            if mu == 0.0:
                _add_(params, grads, -lr, foreach)
                continue
            fresh, running, running_grads = set(), [], []
            for p, g in zip(params, grads):
                state = self.state[p]
                if "momentum_buffer" not in state:  # the buffer starts as the first gradient, undamped
                    state["momentum_buffer"] = torch.clone(g).detach()
                    fresh.add(id(p))
                else:
                    running.append(state["momentum_buffer"])
                    running_grads.append(g)
                state["step"] = state.get("step", 0) + 1
            self._share_first_moment(group, "momentum_buffer",
                                     only={id(p) for p in params if id(p) not in fresh})
            if running:
                _mul_(running, mu, foreach)
                _add_(running, running_grads, 1.0 - group["dampening"], foreach)
            buffers = [self.state[p]["momentum_buffer"] for p in params]
            if group["nesterov"]:
                directions = ([g.add(b, alpha=mu) for g, b in zip(grads, buffers)] if not _foreach_ok(grads, foreach)
                              else torch._foreach_add(grads, buffers, alpha=mu))
            else:
                directions = buffers
            _add_(params, directions, -lr, foreach)
        return loss

    def catalog_run(self, group=0):
        """The C++ catalog's run of this group: (optimizer name, hyper-parameters by catalog key)."""
        g = self.param_groups[group]
        hp = {"lr": g["lr"], "momentum": g["momentum"], "dampening": g["dampening"],
              "weight-decay": g["weight_decay"], "bias": g["bias"], "momentum-mean-blend": g["momentum_mean_blend"],
              "momentum-mean-stat": g["momentum_mean_stat"], "gradient-centralization": g["gradient_centralization"]}
        if g["nesterov"]:
            return "nesterov", dict(hp, **{"momentum-mean": g["momentum_mean"]})
        if g["momentum_mean"] == "fan-in":
            return "neuron-mean", hp
        return "momentum", dict(hp, **{"momentum-mean": g["momentum_mean"]})


class NeuronMeanEMA(_LayerOptimizer):
    """SGD with momentum as an exponential moving average, shared over the group (catalog sgdm-ema).

    m_0 = 0; m <- beta*M(m) + (1-beta)*g; w <- w - lr*m (M as NeuronMeanSGD's).
    """

    def __init__(self, params, lr=0.01, momentum=0.9, momentum_mean="fan-in", bias="own", momentum_mean_blend=1.0,
                 momentum_mean_stat="mean", gradient_centralization=False, foreach=None):
        if lr < 0.0 or not 0.0 <= momentum < 1.0:
            raise ValueError("lr: expected a number >= 0; momentum: in [0, 1)")
        super().__init__(params, dict(lr=lr, momentum=momentum, gradient_centralization=gradient_centralization,
                                      foreach=foreach,
                                      **_sharing_defaults(momentum_mean, bias, momentum_mean_blend,
                                                          momentum_mean_stat)))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = self._params_with_grad(group)
            if not params:
                continue
            grads = self._rule_gradients(group, params, 0.0)
            for p in params:
                state = self.state[p]
                if "exp_avg" not in state:
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["step"] = state.get("step", 0) + 1
            self._share_first_moment(group, "exp_avg")
            buffers = [self.state[p]["exp_avg"] for p in params]
            _mul_(buffers, group["momentum"], group["foreach"])
            _add_(buffers, grads, 1.0 - group["momentum"], group["foreach"])
            _add_(params, buffers, -group["lr"], group["foreach"])
        return loss

    def catalog_run(self, group=0):
        g = self.param_groups[group]
        return "sgdm-ema", {"lr": g["lr"], "momentum": g["momentum"], "momentum-mean": g["momentum_mean"],
                            "bias": g["bias"], "momentum-mean-blend": g["momentum_mean_blend"],
                            "momentum-mean-stat": g["momentum_mean_stat"],
                            "gradient-centralization": g["gradient_centralization"]}


class NeuronMeanAdam(_LayerOptimizer):
    """Adam with shared first and second moments (catalog adam; decoupled=True: adamw).

    m <- b1*M(m) + (1-b1)*g; v <- S(b2*v + (1-b2)*g^2) (amsgrad: v_hat = max(v_hat, v));
    w <- w - lr/(1-b1^t) * m/(sqrt(v_hat)/sqrt(1-b2^t) + eps); decoupled: also w <- w - lr*wd*w.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
                 decoupled=False, momentum_mean="fan-in", second_moment_mean="none", bias="own",
                 momentum_mean_blend=1.0, momentum_mean_stat="mean", gradient_centralization=False, foreach=None):
        if lr < 0.0 or eps < 0.0 or weight_decay < 0.0:
            raise ValueError("lr, eps and weight_decay: expected numbers >= 0")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError("betas: expected numbers in [0, 1)")
        if second_moment_mean not in _means.SCOPES + ("factored",):
            raise ValueError(f"second_moment_mean {second_moment_mean!r}: expected none, fan-in, fan-out, layer or "
                             "factored")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      decoupled=decoupled, second_moment_mean=second_moment_mean,
                                      gradient_centralization=gradient_centralization, foreach=foreach,
                                      **_sharing_defaults(momentum_mean, bias, momentum_mean_blend,
                                                          momentum_mean_stat)))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = self._params_with_grad(group)
            if not params:
                continue
            beta1, beta2 = group["betas"]
            lr, eps, wd, foreach = group["lr"], group["eps"], group["weight_decay"], group["foreach"]
            grads = self._rule_gradients(group, params, 0.0 if group["decoupled"] else wd)
            for p in params:
                state = self.state[p]
                if "exp_avg" not in state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["step"] += 1
            self._share_first_moment(group, "exp_avg")
            m = [self.state[p]["exp_avg"] for p in params]
            v = [self.state[p]["exp_avg_sq"] for p in params]
            _mul_(m, beta1, foreach)
            _add_(m, grads, 1.0 - beta1, foreach)  # 1 - beta in double, then rounded (as torch.optim)
            _mul_(v, beta2, foreach)
            _add_(v, [g * g for g in grads], 1.0 - beta2, foreach)
            self._share_second_moment(group, "exp_avg_sq")
            if group["amsgrad"]:
                for p in params:
                    torch.maximum(self.state[p]["max_exp_avg_sq"], self.state[p]["exp_avg_sq"],
                                  out=self.state[p]["max_exp_avg_sq"])
                v = [self.state[p]["max_exp_avg_sq"] for p in params]
            for p, m_p, v_p in zip(params, m, v):
                t = self.state[p]["step"]
                step_size = lr / (1.0 - beta1 ** t)
                root_correction = math.sqrt(1.0 - beta2 ** t)
                update = m_p / (v_p.sqrt() / root_correction + eps)
                if group["decoupled"] and wd != 0.0:
                    p.mul_(1.0 - lr * wd)
                p.add_(update, alpha=-step_size)
        return loss

    def catalog_run(self, group=0):
        g = self.param_groups[group]
        hp = {"lr": g["lr"], "beta1": g["betas"][0], "beta2": g["betas"][1], "eps": g["eps"],
              "weight-decay": g["weight_decay"], "amsgrad": g["amsgrad"], "second-moment-mean": g["second_moment_mean"],
              "momentum-mean": g["momentum_mean"], "bias": g["bias"], "momentum-mean-blend": g["momentum_mean_blend"],
              "momentum-mean-stat": g["momentum_mean_stat"], "gradient-centralization": g["gradient_centralization"]}
        return ("adamw" if g["decoupled"] else "adam"), hp


class NeuronMeanAdamW(NeuronMeanAdam):
    """Adam with decoupled weight decay and shared moments (catalog adamw).

    w <- w*(1 - lr*wd), then NeuronMeanAdam's step with g the plain gradient.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, **options):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, decoupled=True, **options)


class AdamMini(NeuronMeanAdam):
    """Adam-mini: adamw with one second moment per neuron (catalog adam-mini).

    m <- b1*M(m) + (1-b1)*g; v_i <- b2*v_i + (1-b2)*mean_j g_ij^2; w <- w*(1 - lr*wd), then the adam step.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_mean="none",
                 **options):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, decoupled=True,
                         amsgrad=False, second_moment_mean="fan-in", momentum_mean=momentum_mean, **options)

    def catalog_run(self, group=0):
        _, hp = super().catalog_run(group)
        for key in ("amsgrad", "second-moment-mean"):
            hp.pop(key)
        return "adam-mini", hp
