"""The one mechanism every rule shares: group values of a layer's state and their sharing.

A layer is a weight tensor W (dim 0 = the neurons: a Linear row, a Conv output channel) and an
optional bias vector b. Groups, as core/optim/MomentumAggregation (the C++ layer matrix
[out x (in*k*k + 1)] with the bias as its last column):
  fan-in : all incoming connections of a neuron (a Linear row, a Conv channel's in*k*k kernel)
  fan-out: all outgoing connections of an input (a Conv input channel's out*k*k weights)
  layer  : the whole weight tensor
bias "own" leaves b out (ordinary per-connection state); "join" counts it as one more connection:
fan-in averages row j with b_j, fan-out averages the bias vector, layer averages both together.
"""
import torch

SCOPES = ("none", "fan-in", "fan-out", "layer")
BIAS_MODES = ("own", "join")
STATISTICS = ("mean", "signed-abs-mean")


def _checked(scope, bias, statistic="mean"):
    if scope not in SCOPES:
        raise ValueError(f"scope {scope!r}: expected one of {', '.join(SCOPES)}")
    if bias not in BIAS_MODES:
        raise ValueError(f"bias {bias!r}: expected own or join")
    if statistic not in STATISTICS:
        raise ValueError(f"statistic {statistic!r}: expected mean or signed-abs-mean")


def group_values(weight, bias, scope, bias_mode="own", statistic="mean"):
    """The statistic of each group, broadcastable to the tensors: (for weight, for bias or None).

    statistic "mean" averages the entries, "signed-abs-mean" their magnitudes. Scope "none" is
    treated as fan-in (what the neuron means of a per-connection rule show). The bias value is
    None when the bias keeps its own state (bias own, or no bias).
    """
    _checked(scope, bias_mode, statistic)
    join = bias_mode == "join" and bias is not None
    w = weight.abs() if statistic == "signed-abs-mean" else weight
    b = (bias.abs() if statistic == "signed-abs-mean" else bias) if join else None
    rows = w.reshape(w.shape[0], -1)
    if scope in ("none", "fan-in"):
        if join:
            values = (rows.sum(dim=1) + b) / (rows.shape[1] + 1)
        else:
            values = rows.mean(dim=1)
        return values.reshape((-1,) + (1,) * (weight.dim() - 1)), (values if join else None)
    if scope == "fan-out":
        dims = (0,) + tuple(range(2, weight.dim()))  # a conv input channel's kernel positions together
        return w.mean(dim=dims, keepdim=True), (b.mean() if join else None)
    value = (w.sum() + b.sum()) / (w.numel() + b.numel()) if join else w.mean()
    return value, (value if join else None)


def compact_means(weight, bias, scope, bias_mode="own", out=None):
    """The group means as one vector (a snapshot's neuron_means): fan-in / none one per neuron,
    fan-out one per input (then the bias unit with join), layer a single value; written into
    `out` (a vector of that size) when given."""
    if (out is not None and scope in ("none", "fan-in") and (bias_mode == "own" or bias is None)
            and out.dtype == weight.dtype):
        _checked(scope, bias_mode)  # group_values' row mean, straight into out (the same kernel)
        return torch.mean(weight.reshape(weight.shape[0], -1), 1, out=out)
    on_weight, on_bias = group_values(weight, bias, scope, bias_mode)
    if scope == "fan-out":
        values = on_weight.reshape(-1)
        values = torch.cat([values, on_bias.reshape(1)]) if on_bias is not None else values
    elif scope == "layer":
        values = on_weight.reshape(1)
    else:
        values = on_weight.reshape(-1)
    return values if out is None else out.copy_(values)


def _share_(entries, value, blend, statistic):
    shared = torch.sign(entries) * value if statistic == "signed-abs-mean" else value
    if blend == 1.0:
        entries.copy_(shared.expand_as(entries) if torch.is_tensor(shared) else shared)
    else:
        entries.mul_(1.0 - blend).add_(shared, alpha=blend)


def share_(weight, bias, scope, bias_mode="own", blend=1.0, statistic="mean"):
    """In place: a <- (1-blend)*a + blend*M(a), M(a) each entry's group value (signed-abs-mean:
    sign(a) times the group's mean magnitude). Scope none or blend 0 leave the state alone."""
    _checked(scope, bias_mode, statistic)
    if scope == "none" or blend == 0.0:
        return
    on_weight, on_bias = group_values(weight, bias, scope, bias_mode, statistic)
    _share_(weight, on_weight, blend, statistic)
    if on_bias is not None:
        _share_(bias, on_bias, blend, statistic)


def factored_(weight, bias, bias_mode="own"):
    """In place: v <- rowmean(v)_i * colmean(v)_j / mean(v) over the layer matrix [out x in*k*k]
    (plus the bias column with join); 0 stays 0 where mean(v) = 0."""
    join = bias_mode == "join" and bias is not None
    rows = weight.view(weight.shape[0], -1)  # a view: written back below
    matrix = torch.cat([rows, bias.reshape(-1, 1)], dim=1) if join else rows
    row_means = matrix.mean(dim=1)
    column_means = matrix.mean(dim=0)
    total = row_means.mean()
    scaled = torch.where(total == 0, torch.zeros_like(row_means), row_means / total)
    estimate = scaled[:, None] * column_means[None, :]
    rows.copy_(estimate[:, : rows.shape[1]])
    if join:
        bias.copy_(estimate[:, -1])


def share_second_moment_(weight, bias, scope, bias_mode="own"):
    """The second-moment sharing (S): none, fan-in, fan-out, layer (the group means of share_) or
    factored (Adafactor's rank-1 estimate, factored_)."""
    if scope == "factored":
        factored_(weight, bias, bias_mode)
    else:
        share_(weight, bias, scope, bias_mode)
