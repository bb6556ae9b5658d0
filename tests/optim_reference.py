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
    # ---- state sharing as one family (no torch counterpart: plain Python below)
    ("momentum blend 0.5 fan-in own", "momentum",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, "momentumMean": "FanIn", "bias": "Own",
      "momentumMeanBlend": 0.5}),
    ("nesterov blend 0.25 fan-out join", "nesterov",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, "momentumMean": "FanOut", "bias": "Join",
      "momentumMeanBlend": 0.25}),
    ("neuron-mean signed-abs-mean join", "neuron-mean",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, "momentumMean": "FanIn", "bias": "Join",
      "momentumMeanStat": "SignedAbsMean"}),
    ("momentum signed-abs-mean blend 0.5 layer own", "momentum",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, "momentumMean": "Layer", "bias": "Own",
      "momentumMeanBlend": 0.5, "momentumMeanStat": "SignedAbsMean"}),
    ("sgdm-ema signed-abs-mean fan-out own", "sgdm-ema",
     {"lr": 0.1, "momentum": 0.5, "momentumMean": "FanOut", "bias": "Own", "momentumMeanStat": "SignedAbsMean"}),
    ("adam blend 0.5 signed-abs-mean fan-in own", "adam",
     {"lr": 0.1, "beta1": 0.8, "beta2": 0.999, "eps": 1e-08, "weightDecay": 0.0, "amsgrad": False,
      "momentumMean": "FanIn", "bias": "Own", "momentumMeanBlend": 0.5, "momentumMeanStat": "SignedAbsMean"}),
    ("sgd gradient-centralization weight_decay", "sgd",
     {"lr": 0.1, "weightDecay": 0.1, "gradientCentralization": True}),
    ("neuron-mean gradient-centralization", "neuron-mean",
     {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weightDecay": 0.0, "momentumMean": "FanIn", "bias": "Own",
      "gradientCentralization": True}),
    ("sgdm-ema gradient-centralization", "sgdm-ema",
     {"lr": 0.1, "momentum": 0.5, **NONE_OWN, "gradientCentralization": True}),
    ("adamw gradient-centralization", "adamw",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-08, "weightDecay": 0.1, "amsgrad": False, **NONE_OWN,
      "gradientCentralization": True}),
    ("adagrad gradient-centralization weight_decay", "adagrad",
     {"lr": 0.1, "eps": 1e-10, "lrDecay": 0.0, "initialAccumulator": 0.0, "weightDecay": 0.15,
      "gradientCentralization": True}),
    ("adam second-moment fan-in own", "adam",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.9, "eps": 1e-08, "weightDecay": 0.0, "amsgrad": False, **NONE_OWN,
      "secondMomentMean": "FanIn"}),
    ("adam second-moment fan-out join amsgrad", "adam",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.9, "eps": 1e-08, "weightDecay": 0.0, "amsgrad": True,
      "momentumMean": "None", "bias": "Join", "secondMomentMean": "FanOut"}),
    ("adam second-moment layer own", "adam",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-08, "weightDecay": 0.1, "amsgrad": False, **NONE_OWN,
      "secondMomentMean": "Layer"}),
    ("adamw second-moment factored own", "adamw",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.9, "eps": 1e-08, "weightDecay": 0.1, "amsgrad": False, **NONE_OWN,
      "secondMomentMean": "Factored"}),
    ("adam second-moment factored join", "adam",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.9, "eps": 1e-08, "weightDecay": 0.0, "amsgrad": False,
      "momentumMean": "None", "bias": "Join", "secondMomentMean": "Factored"}),
    ("rmsprop second-moment layer join momentum", "rmsprop",
     {"lr": 0.01, "alpha": 0.9, "eps": 1e-08, "momentum": 0.5, "centered": False, "weightDecay": 0.0,
      "bias": "Join", "secondMomentMean": "Layer"}),
    ("rmsprop second-moment factored own", "rmsprop",
     {"lr": 0.01, "alpha": 0.9, "eps": 1e-08, "momentum": 0.0, "centered": False, "weightDecay": 0.0,
      "bias": "Own", "secondMomentMean": "Factored"}),
    ("adagrad second-moment fan-in join", "adagrad",
     {"lr": 0.1, "eps": 1e-10, "lrDecay": 0.0, "initialAccumulator": 0.1, "weightDecay": 0.0,
      "bias": "Join", "secondMomentMean": "FanIn"}),
    ("adagrad second-moment factored own", "adagrad",
     {"lr": 0.1, "eps": 1e-10, "lrDecay": 0.0, "initialAccumulator": 0.0, "weightDecay": 0.0,
      "bias": "Own", "secondMomentMean": "Factored"}),
    ("adam-mini", "adam-mini",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.9, "eps": 1e-08, "weightDecay": 0.0, **NONE_OWN}),
    ("adam-mini join weight_decay", "adam-mini",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-08, "weightDecay": 0.1, "momentumMean": "None",
      "bias": "Join"}),
    # ---- the named rules, from their stated formulas (plain Python only)
    ("lamb", "lamb", {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-06, "weightDecay": 0.01}),
    ("lamb weight_decay 0.5", "lamb", {"lr": 0.1, "beta1": 0.8, "beta2": 0.9, "eps": 1e-06, "weightDecay": 0.5}),
    ("lars", "lars", {"lr": 1.0, "momentum": 0.9, "weightDecay": 0.0, "trust": 0.001}),
    ("lars weight_decay trust 0.1", "lars", {"lr": 0.5, "momentum": 0.5, "weightDecay": 0.1, "trust": 0.1}),
    ("novograd", "novograd", {"lr": 0.01, "beta1": 0.95, "beta2": 0.98, "eps": 1e-08, "weightDecay": 0.0}),
    ("novograd weight_decay", "novograd",
     {"lr": 0.1, "beta1": 0.9, "beta2": 0.5, "eps": 1e-08, "weightDecay": 0.1}),
    ("sm3", "sm3", {"lr": 0.1, "momentum": 0.0}),
    ("sm3 momentum", "sm3", {"lr": 0.1, "momentum": 0.9}),
    ("adafactor", "adafactor", {"lr": 0.0, "beta1": 0.0}),
    ("adafactor lr beta1", "adafactor", {"lr": 0.05, "beta1": 0.9}),
    ("nero", "nero", {"lr": 0.01, "beta2": 0.999}),
    ("nero beta 0.9", "nero", {"lr": 0.1, "beta2": 0.9}),
]


# ---------------------------------------------------------------- plain Python doubles
def mp(f, *ms):
    return [[f(*[m[r][c] for m in ms]) for c in range(3)] for r in range(2)]


def zeros():
    return [[0.0] * 3 for _ in range(2)]


def groups(scope, bias):
    """The (row, column) entries that share a value; own leaves the bias column (last) out."""
    cols = 3 if bias == "Join" else 2
    if scope == "FanIn":
        return [[(r, c) for c in range(cols)] for r in range(2)]
    if scope == "FanOut":
        return [[(r, c) for r in range(2)] for c in range(cols)]
    if scope == "Layer":
        return [[(r, c) for r in range(2) for c in range(cols)]]
    return []


def sign(x):
    return (x > 0) - (x < 0)


def agg(B, scope, bias, blend=1.0, stat="Mean"):
    """a <- (1-blend)*a + blend*shared: shared = the group's mean, or with SignedAbsMean
    sign(a) * mean |a| over the group."""
    A = [row[:] for row in B]
    for group in groups(scope, bias):
        if stat == "SignedAbsMean":
            m = sum(abs(B[r][c]) for r, c in group) / len(group)
            for r, c in group:
                A[r][c] = (1 - blend) * B[r][c] + blend * sign(B[r][c]) * m
        else:
            m = sum(B[r][c] for r, c in group) / len(group)
            for r, c in group:
                A[r][c] = (1 - blend) * B[r][c] + blend * m
    return A


def share_v(V, scope, bias):
    """--second-moment-mean: group means, or factored rowmean_i * colmean_j / mean."""
    if scope != "Factored":
        return agg(V, scope, bias)
    cols = 3 if bias == "Join" else 2
    A = [row[:] for row in V]
    row_mean = [sum(V[r][:cols]) / cols for r in range(2)]
    col_mean = [(V[0][c] + V[1][c]) / 2 for c in range(cols)]
    total = sum(row_mean) / 2
    for r in range(2):
        for c in range(cols):
            A[r][c] = row_mean[r] * col_mean[c] / total if total != 0 else 0.0
    return A


def centralize(G):
    """Gradient centralization: each row's weights (not the bias column) lose their mean."""
    return [[g - (row[0] + row[1]) / 2 for g in row[:2]] + [row[2]] for row in G]


def run_plain(name, hp):
    lr = hp["lr"]
    wd = hp.get("weightDecay", 0.0)
    mu = hp.get("momentum", 0.0)
    scope = hp.get("momentumMean", "None")
    bias = hp.get("bias", "Own")
    blend = hp.get("momentumMeanBlend", 1.0)
    stat = hp.get("momentumMeanStat", "Mean")
    vscope = hp.get("secondMomentMean", "None")
    gc = centralize if hp.get("gradientCentralization", False) else (lambda g: g)
    W = [r[:] for r in W0]
    st = {}
    out = []
    for t, G in ((1, G1), (2, G2)):
        if name in ("sgd", "momentum", "nesterov", "neuron-mean"):
            g = gc(mp(lambda g, w: g + wd * w, G, W))
            if name == "sgd" or mu == 0:
                d = g
            else:
                if t == 1:
                    b = [r[:] for r in g]
                else:
                    damp = hp.get("dampening", 0.0)
                    b = mp(lambda a, g: mu * a + (1 - damp) * g, agg(st["b"], scope, bias, blend, stat), g)
                st["b"] = b
                d = mp(lambda g, b: g + mu * b, g, b) if name == "nesterov" else b
            W = mp(lambda w, d: w - lr * d, W, d)
        elif name == "sgdm-ema":
            m = mp(lambda a, g: mu * a + (1 - mu) * g, agg(st.get("m", zeros()), scope, bias, blend, stat), gc(G))
            st["m"] = m
            W = mp(lambda w, m: w - lr * m, W, m)
        elif name == "adagrad":
            g = gc(mp(lambda g, w: g + wd * w, G, W))
            clr = lr / (1 + (t - 1) * hp["lrDecay"])
            s = st.get("s", [[hp["initialAccumulator"]] * 3 for _ in range(2)])
            s = share_v(mp(lambda s, g: s + g * g, s, g), vscope, bias)
            st["s"] = s
            W = mp(lambda w, g, s: w - clr * g / (math.sqrt(s) + hp["eps"]), W, g, s)
        elif name == "rmsprop":
            a = hp["alpha"]
            eps = hp["eps"]
            g = gc(mp(lambda g, w: g + wd * w, G, W))
            v = share_v(mp(lambda v, g: a * v + (1 - a) * g * g, st.get("v", zeros()), g), vscope, bias)
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
                g = gc(G)
                W = mp(lambda w: w * (1 - lr * wd), W)  # decoupled: shrink first
            else:
                g = gc(mp(lambda g, w: g + wd * w, G, W))
            m = mp(lambda m, g: b1 * m + (1 - b1) * g, agg(st.get("m", zeros()), scope, bias, blend, stat), g)
            v = share_v(mp(lambda v, g: b2 * v + (1 - b2) * g * g, st.get("v", zeros()), g), vscope, bias)
            st["m"], st["v"] = m, v
            if hp["amsgrad"]:
                vh = mp(max, st.get("vmax", zeros()), v)
                st["vmax"] = vh
            else:
                vh = v
            bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
            W = mp(lambda w, m, v: w - lr / bc1 * m / (math.sqrt(v) / math.sqrt(bc2) + eps), W, m, vh)
        elif name == "adam-mini":
            # Zhang et al. 2024 as specified here: one v per neuron (row), the mean of g^2 over its
            # weights; each bias its own v, or with join in its neuron's block.
            b1, b2, eps = hp["beta1"], hp["beta2"], hp["eps"]
            W = mp(lambda w: w * (1 - lr * wd), W)
            g = gc(G)
            m = mp(lambda m, g: b1 * m + (1 - b1) * g, agg(st.get("m", zeros()), scope, bias, blend, stat), g)
            block = 3 if bias == "Join" else 2
            v = st.get("v", zeros())
            v = [[b2 * v[r][c] + (1 - b2) * (sum(x * x for x in g[r][:block]) / block if c < block else g[r][c] ** 2)
                  for c in range(3)] for r in range(2)]
            st["m"], st["v"] = m, v
            bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
            W = mp(lambda w, m, v: w - lr * (m / bc1) / (math.sqrt(v / bc2) + eps), W, m, v)
        elif name in NAMED:
            g = gc(G)
            W = NAMED[name](W, g, t, hp, st)
        else:
            raise SystemExit(f"optim_reference.py: no algorithm for optimizer '{name}'")
        out.append([x for r in W for x in r])
    return out


# ---- the named rules: W [2 x 3] = weights (columns 0, 1) | bias (column 2)
def weights(M):
    return [row[:2] for row in M]


def frob(rows):
    return math.sqrt(sum(x * x for row in rows for x in row))


def rms(values):
    return math.sqrt(sum(x * x for x in values) / len(values))


def lamb(W, g, t, hp, st):
    b1, b2, eps, wd = hp["beta1"], hp["beta2"], hp["eps"], hp["weightDecay"]
    m = mp(lambda m, g: b1 * m + (1 - b1) * g, st.get("m", zeros()), g)
    v = mp(lambda v, g: b2 * v + (1 - b2) * g * g, st.get("v", zeros()), g)
    st["m"], st["v"] = m, v
    r = mp(lambda m, v: (m / (1 - b1 ** t)) / (math.sqrt(v / (1 - b2 ** t)) + eps), m, v)
    r = [[r[i][0] + wd * W[i][0], r[i][1] + wd * W[i][1], r[i][2]] for i in range(2)]
    wn, rn = frob(weights(W)), frob(weights(r))
    tau = 1.0 if wn == 0 or rn == 0 else wn / rn
    return [[W[i][c] - hp["lr"] * (tau if c < 2 else 1.0) * r[i][c] for c in range(3)] for i in range(2)]


def lars(W, g, t, hp, st):
    wd, mu, lr = hp["weightDecay"], hp["momentum"], hp["lr"]
    wn, gn = frob(weights(W)), frob(weights(g))
    local = 1.0 if wn == 0 or gn == 0 else hp["trust"] * wn / (gn + wd * wn)
    u = st.get("u", zeros())
    u = [[mu * u[i][c] + (lr * local * (g[i][c] + wd * W[i][c]) if c < 2 else lr * g[i][c]) for c in range(3)]
         for i in range(2)]
    st["u"] = u
    return mp(lambda w, u: w - u, W, u)


def novograd(W, g, t, hp, st):
    b1, b2, eps, wd = hp["beta1"], hp["beta2"], hp["eps"], hp["weightDecay"]
    m = st.get("m", zeros())
    new_m = zeros()
    for cols, key in (([0, 1], "vw"), ([2], "vb")):
        norm2 = sum(g[i][c] ** 2 for i in range(2) for c in cols)
        v = norm2 if t == 1 else b2 * st[key] + (1 - b2) * norm2
        st[key] = v
        for i in range(2):
            for c in cols:
                step = g[i][c] / (math.sqrt(v) + eps) + wd * W[i][c]
                new_m[i][c] = step if t == 1 else b1 * m[i][c] + step
    st["m"] = new_m
    return mp(lambda w, m: w - hp["lr"] * m, W, new_m)


def sm3(W, g, t, hp, st):
    mu_row, mu_col = st.get("row", [0.0, 0.0]), st.get("col", [0.0, 0.0])
    nu = [[min(mu_row[i], mu_col[c]) + g[i][c] ** 2 for c in range(2)] for i in range(2)]
    st["row"] = [max(nu[i]) for i in range(2)]
    st["col"] = [max(nu[0][c], nu[1][c]) for c in range(2)]
    nu_b = [st.get("bias", [0.0, 0.0])[i] + g[i][2] ** 2 for i in range(2)]
    st["bias"] = nu_b
    nu_all = [nu[i] + [nu_b[i]] for i in range(2)]
    d = mp(lambda g, n: g / math.sqrt(n) if n > 0 else 0.0, g, nu_all)
    beta = hp["momentum"]
    if beta > 0:
        d = mp(lambda m, d: beta * m + (1 - beta) * d, st.get("m", zeros()), d)
        st["m"] = d
    return mp(lambda w, d: w - hp["lr"] * d, W, d)


def adafactor(W, g, t, hp, st):
    eps1, eps2, clip = 1e-30, 1e-3, 1.0
    decay = 1 - t ** -0.8
    rho = hp["lr"] if hp["lr"] > 0 else min(1e-2, 1 / math.sqrt(t))
    sq = mp(lambda g: g * g + eps1, g)
    R = [decay * r + (1 - decay) * (sq[i][0] + sq[i][1]) for i, r in enumerate(st.get("R", [0.0, 0.0]))]
    C = [decay * c + (1 - decay) * (sq[0][j] + sq[1][j]) for j, c in enumerate(st.get("C", [0.0, 0.0]))]
    vb = [decay * v + (1 - decay) * sq[i][2] for i, v in enumerate(st.get("vb", [0.0, 0.0]))]
    st["R"], st["C"], st["vb"] = R, C, vb
    V = [[R[i] * C[j] / sum(R) for j in range(2)] + [vb[i]] for i in range(2)]
    U = mp(lambda g, v: g / math.sqrt(v), g, V)
    uw = [U[i][c] for i in range(2) for c in range(2)]
    ub = [U[i][2] for i in range(2)]
    cw, cb = max(1.0, rms(uw) / clip), max(1.0, rms(ub) / clip)
    U = [[U[i][c] / (cw if c < 2 else cb) for c in range(3)] for i in range(2)]
    if hp["beta1"] > 0:
        U = mp(lambda m, u: hp["beta1"] * m + (1 - hp["beta1"]) * u, st.get("m", zeros()), U)
        st["m"] = U
    aw = max(eps2, rms([W[i][c] for i in range(2) for c in range(2)])) * rho
    ab = max(eps2, rms([W[i][2] for i in range(2)])) * rho
    return [[W[i][c] - (aw if c < 2 else ab) * U[i][c] for c in range(3)] for i in range(2)]


def nero_project(W):
    out = []
    for row in W:
        mean = (row[0] + row[1]) / 2
        centred = [row[0] - mean, row[1] - mean]
        norm = math.sqrt(centred[0] ** 2 + centred[1] ** 2)
        out.append([x / norm if norm > 0 else x for x in centred] + [row[2]])
    return out


def nero(W, g, t, hp, st):
    beta, lr = hp["beta2"], hp["lr"]
    if t == 1:
        W = nero_project(W)
        sw = sum(math.sqrt(W[i][0] ** 2 + W[i][1] ** 2) for i in range(2)) / 2
        sb = (abs(W[0][2]) + abs(W[1][2])) / 2
        st["scale"] = (sw if sw != 0 else 0.01, sb if sb != 0 else 0.01)
    S = [beta * s + (1 - beta) * (g[i][0] ** 2 + g[i][1] ** 2) for i, s in enumerate(st.get("S", [0.0, 0.0]))]
    Sb = [beta * s + (1 - beta) * g[i][2] ** 2 for i, s in enumerate(st.get("Sb", [0.0, 0.0]))]
    st["S"], st["Sb"] = S, Sb
    bc = 1 - beta ** t
    out = []
    for i in range(2):
        row = []
        for c in range(3):
            s, scale = (S[i], st["scale"][0]) if c < 2 else (Sb[i], st["scale"][1])
            row.append(W[i][c] - lr * scale * (g[i][c] / math.sqrt(s / bc) if s > 0 else 0.0))
        out.append(row)
    return nero_project(out)


NAMED = {"lamb": lamb, "lars": lars, "novograd": novograd, "sm3": sm3, "adafactor": adafactor, "nero": nero}


# ---------------------------------------------------------------- torch.optim, float64
def torch_optimizer(torch, name, hp, params):
    """The torch.optim counterpart of a row, or None when torch has none (aggregation, sgdm-ema)."""
    shared = (hp.get("momentumMean", "None") != "None" or hp.get("secondMomentMean", "None") != "None"
              or hp.get("gradientCentralization", False))
    if shared or name in ("neuron-mean", "sgdm-ema", "adam-mini") or name in NAMED:
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
    if key == "momentumMeanStat":
        return "MeanStatistic::" + value
    if key == "secondMomentMean":
        return "SecondMomentScope::" + value
    return repr(float(value))


def cpp_row(label, name, hp, steps):
    reals = "; ".join(f"h.{k} = {cpp_value(k, v)}" for k, v in hp.items() if k not in ("momentumMean", "bias"))
    lines = ["    {", f'        HyperParameters h = defaultsOf("{name}");', f"        {reals};"]
    choices = "; ".join(f"h.{k} = {cpp_value(k, hp[k])}" for k in ("momentumMean", "bias") if k in hp)
    if choices:
        lines.append(f"        {choices};")
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
