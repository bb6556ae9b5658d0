#!/usr/bin/env python3
"""Independent reference for the golden rows of tests/test_optim.cpp (goldenRows()).

Each row runs one optimizer for two steps on a fixed 2x3 layer (W0, gradients G1 then G2) and
prints the weights after each step, in the exact C++ form the test uses:

    python3 tests/optim_reference.py            # prints the rows (paste between the GENERATED markers)
    python3 tests/optim_reference.py --write    # rewrites the rows between the markers in place
    python3 tests/optim_reference.py --check    # torch rows vs the plain-Python algorithms, then exits

Needs: Python 3. With PyTorch importable (Debian: python3-torch; on this machine run it with
/usr/bin/python3 when `python3` is a pyenv shim without torch) the rows torch.optim implements
(sgd, momentum, nesterov, adagrad, rmsprop, adam, adamw with no momentum aggregation) are computed
by torch.optim in float64. The rows torch has no counterpart for (momentum aggregation over
fan-in / fan-out / layer, neuron-mean, sgdm-ema) always come from the plain-Python doubles below,
written from the algorithms documented by torch.optim and the README; so do all rows when torch is
missing (a note goes to stderr). No code under test is used.
"""
import math
import re
import sys
from pathlib import Path

W0 = [[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]]
G1 = [[0.2, -0.4, 0.1], [-0.3, 0.6, 0.5]]
G2 = [[-0.1, 0.3, 0.2], [0.4, -0.02, -0.05]]

# (label, optimizer, hyper-parameters by their HyperParameters member name), in goldenRows() order.
# Every member the optimizer reads is given, so the C++ defaults do not matter.
NONE_OWN = {"momentumMean": "None", "bias": "Own"}
ROWS = [
    ("sgd", "sgd", {"lr": 0.1, "weightDecay": 0.0}),
    ("sgd weight_decay", "sgd", {"lr": 0.1, "weightDecay": 0.1}),
    ("momentum", "momentum",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, **NONE_OWN}),
    ("momentum dampening weight_decay", "momentum",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.5, "weightDecay": 0.1, **NONE_OWN}),
    ("nesterov", "nesterov",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, **NONE_OWN}),
    ("nesterov weight_decay", "nesterov",
     {"lr": 0.1, "momentum": 0.8, "dampening": 0.0, "weightDecay": 0.05, **NONE_OWN}),
    ("nesterov fan-in join", "nesterov",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, "momentumMean": "FanIn", "bias": "Join"}),
    ("momentum fan-out own", "momentum",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, "momentumMean": "FanOut", "bias": "Own"}),
    ("neuron-mean own", "neuron-mean",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, "momentumMean": "FanIn", "bias": "Own"}),
    ("neuron-mean join", "neuron-mean",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, "momentumMean": "FanIn", "bias": "Join"}),
    ("sgdm-ema", "sgdm-ema", {"lr": 0.1, "momentum": 0.9, **NONE_OWN}),
    ("sgdm-ema layer join", "sgdm-ema", {"lr": 0.1, "momentum": 0.5, "momentumMean": "Layer", "bias": "Join"}),
    ("adagrad", "adagrad",
     {"lr": 0.1, "eps": 1e-10, "lrDecay": 0.0, "initialAccumulator": 0.0, "weightDecay": 0.0}),
    ("adagrad lr_decay initial_accumulator", "adagrad",
     {"lr": 0.1, "eps": 1e-10, "lrDecay": 0.5, "initialAccumulator": 0.1, "weightDecay": 0.0}),
    ("adagrad weight_decay", "adagrad",
     {"lr": 0.1, "eps": 1e-10, "lrDecay": 0.0, "initialAccumulator": 0.0, "weightDecay": 0.15}),
    ("adagrad eps 0.1", "adagrad",
     {"lr": 0.1, "eps": 0.1, "lrDecay": 0.0, "initialAccumulator": 0.0, "weightDecay": 0.0}),
    ("adagrad eps 1 initial_accumulator", "adagrad",
     {"lr": 0.1, "eps": 1.0, "lrDecay": 0.0, "initialAccumulator": 0.1, "weightDecay": 0.0}),
    ("rmsprop", "rmsprop",
     {"lr": 0.01, "alpha": 0.99, "eps": 1e-08, "momentum": 0.0, "centered": False, "weightDecay": 0.0}),
    ("rmsprop centered", "rmsprop",
     {"lr": 0.01, "alpha": 0.99, "eps": 1e-08, "momentum": 0.0, "centered": True, "weightDecay": 0.0}),
    ("rmsprop momentum", "rmsprop",
     {"lr": 0.01, "alpha": 0.99, "eps": 1e-08, "momentum": 0.9, "centered": False, "weightDecay": 0.0}),
    ("rmsprop centered momentum weight_decay", "rmsprop",
     {"lr": 0.01, "alpha": 0.9, "eps": 1e-08, "momentum": 0.5, "centered": True, "weightDecay": 0.1}),
    ("rmsprop eps 0.1", "rmsprop",
     {"lr": 0.01, "alpha": 0.99, "eps": 0.1, "momentum": 0.0, "centered": False, "weightDecay": 0.0}),
    ("rmsprop centered momentum eps 1", "rmsprop",
     {"lr": 0.01, "alpha": 0.9, "eps": 1.0, "momentum": 0.5, "centered": True, "weightDecay": 0.0}),
    ("adam", "adam",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-08, "weightDecay": 0.0, "amsgrad": False, **NONE_OWN}),
    ("adam amsgrad", "adam",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.9, "eps": 1e-08, "weightDecay": 0.0, "amsgrad": True, **NONE_OWN}),
    ("adam weight_decay", "adam",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-08, "weightDecay": 0.1, "amsgrad": False, **NONE_OWN}),
    ("adam layer own", "adam",
     {"lr": 0.1, "beta1": 0.8, "beta2": 0.999, "eps": 1e-08, "weightDecay": 0.0, "amsgrad": False,
      "momentumMean": "Layer", "bias": "Own"}),
    ("adam eps 0.1", "adam",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 0.1, "weightDecay": 0.0, "amsgrad": False, **NONE_OWN}),
    ("adam eps 1 amsgrad", "adam",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.9, "eps": 1.0, "weightDecay": 0.0, "amsgrad": True, **NONE_OWN}),
    ("adamw", "adamw",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-08, "weightDecay": 0.1, "amsgrad": False, **NONE_OWN}),
    ("adamw amsgrad fan-out join", "adamw",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.9, "eps": 1e-08, "weightDecay": 0.1, "amsgrad": True,
      "momentumMean": "FanOut", "bias": "Join"}),
    ("adamw eps 0.1", "adamw",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 0.1, "weightDecay": 0.1, "amsgrad": False, **NONE_OWN}),
    ("adamw eps 1", "adamw",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1.0, "weightDecay": 0.1, "amsgrad": False, **NONE_OWN}),
]


# ---------------------------------------------------------------- plain Python doubles
def mp(f, *ms):
    return [[f(*[m[r][c] for m in ms]) for c in range(3)] for r in range(2)]


def zeros():
    return [[0.0] * 3 for _ in range(2)]


def agg(B, scope, bias):
    """Every entry of a group becomes the group's mean; own leaves the bias column (last) alone."""
    A = [row[:] for row in B]
    cols = 3 if bias == "Join" else 2
    if scope == "FanIn":
        for r in range(2):
            m = sum(B[r][:cols]) / cols
            for c in range(cols):
                A[r][c] = m
    elif scope == "FanOut":
        for c in range(cols):
            m = (B[0][c] + B[1][c]) / 2
            for r in range(2):
                A[r][c] = m
    elif scope == "Layer":
        m = sum(B[r][c] for r in range(2) for c in range(cols)) / (2 * cols)
        for r in range(2):
            for c in range(cols):
                A[r][c] = m
    return A


def run_plain(name, hp):
    lr = hp["lr"]
    wd = hp.get("weightDecay", 0.0)
    mu = hp.get("momentum", 0.0)
    scope = hp.get("momentumMean", "None")
    bias = hp.get("bias", "Own")
    W = [r[:] for r in W0]
    st = {}
    out = []
    for t, G in ((1, G1), (2, G2)):
        if name in ("sgd", "momentum", "nesterov", "neuron-mean"):
            g = mp(lambda g, w: g + wd * w, G, W)
            if name == "sgd" or mu == 0:
                d = g
            else:
                if t == 1:
                    b = [r[:] for r in g]
                else:
                    damp = hp.get("dampening", 0.0)
                    b = mp(lambda a, g: mu * a + (1 - damp) * g, agg(st["b"], scope, bias), g)
                st["b"] = b
                d = mp(lambda g, b: g + mu * b, g, b) if name == "nesterov" else b
            W = mp(lambda w, d: w - lr * d, W, d)
        elif name == "sgdm-ema":
            m = mp(lambda a, g: mu * a + (1 - mu) * g, agg(st.get("m", zeros()), scope, bias), G)
            st["m"] = m
            W = mp(lambda w, m: w - lr * m, W, m)
        elif name == "adagrad":
            g = mp(lambda g, w: g + wd * w, G, W)
            clr = lr / (1 + (t - 1) * hp["lrDecay"])
            s = st.get("s", [[hp["initialAccumulator"]] * 3 for _ in range(2)])
            s = mp(lambda s, g: s + g * g, s, g)
            st["s"] = s
            W = mp(lambda w, g, s: w - clr * g / (math.sqrt(s) + hp["eps"]), W, g, s)
        elif name == "rmsprop":
            a = hp["alpha"]
            eps = hp["eps"]
            g = mp(lambda g, w: g + wd * w, G, W)
            v = mp(lambda v, g: a * v + (1 - a) * g * g, st.get("v", zeros()), g)
            st["v"] = v
            if hp["centered"]:
                c = mp(lambda c, g: a * c + (1 - a) * g, st.get("c", zeros()), g)
                st["c"] = c
                den = mp(lambda v, c: math.sqrt(v - c * c) + eps, v, c)
            else:
                den = mp(lambda v: math.sqrt(v) + eps, v)
            if mu > 0:
                b = mp(lambda b, g, d: mu * b + g / d, st.get("b", zeros()), g, den)
                st["b"] = b
                W = mp(lambda w, b: w - lr * b, W, b)
            else:
                W = mp(lambda w, g, d: w - lr * g / d, W, g, den)
        elif name in ("adam", "adamw"):
            b1, b2, eps = hp["beta1"], hp["beta2"], hp["eps"]
            if name == "adamw":
                g = G
                W = mp(lambda w: w * (1 - lr * wd), W)  # decoupled: shrink first
            else:
                g = mp(lambda g, w: g + wd * w, G, W)
            m = mp(lambda m, g: b1 * m + (1 - b1) * g, agg(st.get("m", zeros()), scope, bias), g)
            v = mp(lambda v, g: b2 * v + (1 - b2) * g * g, st.get("v", zeros()), g)
            st["m"], st["v"] = m, v
            if hp["amsgrad"]:
                vh = mp(max, st.get("vmax", zeros()), v)
                st["vmax"] = vh
            else:
                vh = v
            bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
            W = mp(lambda w, m, v: w - lr / bc1 * m / (math.sqrt(v) / math.sqrt(bc2) + eps), W, m, vh)
        else:
            raise SystemExit(f"optim_reference.py: no algorithm for optimizer '{name}'")
        out.append([x for r in W for x in r])
    return out


# ---------------------------------------------------------------- torch.optim, float64
def torch_optimizer(torch, name, hp, params):
    """The torch.optim counterpart of a row, or None when torch has none (aggregation, sgdm-ema)."""
    if hp.get("momentumMean", "None") != "None" or name in ("neuron-mean", "sgdm-ema"):
        return None
    o = torch.optim
    wd = hp.get("weightDecay", 0.0)
    if name == "sgd":
        return o.SGD(params, lr=hp["lr"], weight_decay=wd)
    if name in ("momentum", "nesterov"):
        return o.SGD(params, lr=hp["lr"], momentum=hp["momentum"], dampening=hp["dampening"], weight_decay=wd,
                     nesterov=name == "nesterov")
    if name == "adagrad":
        return o.Adagrad(params, lr=hp["lr"], lr_decay=hp["lrDecay"], weight_decay=wd,
                         initial_accumulator_value=hp["initialAccumulator"], eps=hp["eps"])
    if name == "rmsprop":
        return o.RMSprop(params, lr=hp["lr"], alpha=hp["alpha"], eps=hp["eps"], weight_decay=wd,
                         momentum=hp["momentum"], centered=hp["centered"])
    if name in ("adam", "adamw"):
        cls = o.Adam if name == "adam" else o.AdamW
        return cls(params, lr=hp["lr"], betas=(hp["beta1"], hp["beta2"]), eps=hp["eps"], weight_decay=wd,
                   amsgrad=hp["amsgrad"])
    raise SystemExit(f"optim_reference.py: no torch.optim counterpart known for '{name}'")


def run_torch(torch, name, hp):
    w = torch.tensor(W0, dtype=torch.float64, requires_grad=True)
    optimizer = torch_optimizer(torch, name, hp, [w])
    if optimizer is None:
        return None
    out = []
    for G in (G1, G2):
        w.grad = torch.tensor(G, dtype=torch.float64)
        optimizer.step()
        out.append(w.detach().flatten().tolist())
    return out


# ---------------------------------------------------------------- output in the C++ form
def cpp_value(key, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if key == "momentumMean":
        return "MeanScope::" + value
    if key == "bias":
        return "BiasMode::" + value
    return repr(float(value))


def cpp_row(label, name, hp, steps):
    reals = "; ".join(f"h.{k} = {cpp_value(k, v)}" for k, v in hp.items() if k not in ("momentumMean", "bias"))
    lines = ["    {", f'        HyperParameters h = defaultsOf("{name}");', f"        {reals};"]
    if "momentumMean" in hp:
        lines.append(f"        h.momentumMean = {cpp_value('momentumMean', hp['momentumMean'])};"
                     f" h.bias = {cpp_value('bias', hp['bias'])};")
    values = [", ".join(f"{x:.9g}" for x in step) for step in steps]
    lines.append(f'        rows.push_back({{"{label}", "{name}", h,')
    lines.append(f"                        {{{values[0]}}},")
    lines.append(f"                        {{{values[1]}}}}});")
    lines.append("    }")
    return "\n".join(lines)


def main():
    try:
        import torch
    except ImportError:
        torch = None
        print("optim_reference.py: torch not importable, every row from the plain-Python algorithms",
              file=sys.stderr)

    if "--check" in sys.argv:
        if torch is None:
            raise SystemExit("--check needs torch")
        worst = 0.0
        for label, name, hp in ROWS:
            reference = run_torch(torch, name, hp)
            if reference is not None:
                plain = run_plain(name, hp)
                diff = max(abs(a - b) for ra, rb in zip(reference, plain) for a, b in zip(ra, rb))
                worst = max(worst, diff)
                print(f"{label:45s} max |torch - plain| = {diff:.3g}")
        print(f"worst: {worst:.3g}")
        return

    rows = []
    for label, name, hp in ROWS:
        steps = run_torch(torch, name, hp) if torch is not None else None
        rows.append(cpp_row(label, name, hp, steps if steps is not None else run_plain(name, hp)))
    text = "\n".join(rows) + "\n"

    if "--write" in sys.argv:
        path = Path(__file__).with_name("test_optim.cpp")
        source = path.read_text()
        pattern = r"(// BEGIN GENERATED by tests/optim_reference.py[^\n]*\n).*?(\s*// END GENERATED)"
        source, count = re.subn(pattern, lambda m: m.group(1) + text.rstrip("\n") + m.group(2), source,
                                flags=re.S)
        if count != 1:
            raise SystemExit(f"{path}: the GENERATED markers were not found")
        path.write_text(source)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
