"""Recorder: a torch training loop written as a Momentum Lab run folder (config.json, metrics.csv,
weights_initial.json, weights_final.json, summary.csv, snapshots.bin) that the app and the CLI open.

Device tensors are copied to the host only on recorded steps (and at start and close): every copy
goes through Recorder._to_host, one per recorded step, counted in Recorder.host_copies.
"""
import json
import math
import os
import queue
import time
import warnings

import numpy as np
import torch

from . import _format, _means
from .optim import neuron_layers

# torch.optim state name -> where it goes in a snapshot (a quantity, or a rule-state buffer)
FIRST_MOMENT_KEYS = ("momentum_buffer", "exp_avg")
SECOND_MOMENT_KEYS = ("exp_avg_sq", "square_avg", "sum")
RULE_STATE_KEYS = {"max_exp_avg_sq": "max_second_moment", "grad_avg": "centred_mean"}

POOL_BUFFERS = 3  # host buffers of snapshots: one being filled, two queued for the writer thread
LOSS_SLOTS = 64  # a buffer's room for the pending losses grows by this many
_NO_STATE = {}
_ACTIVATIONS = {torch.nn.ReLU: "relu", torch.nn.Tanh: "tanh", torch.nn.Sigmoid: "sigmoid", torch.nn.Identity: "identity"}
_SKIPPED = (torch.nn.Flatten, torch.nn.Dropout, torch.nn.Dropout2d)


def infer_network(model, input_shape=None):
    """(network spec, activation) of a chain of Linear / Conv2d / MaxPool2d / AvgPool2d layers with
    one activation kind, in module order (e.g. "1x28x28-conv8k5-pool2-64-10", "relu"), each layer
    reading what the one before gives (its size, its channels); raises ValueError naming the module
    that does not fit. A forward() that runs the layers in another order is not seen here."""
    tokens, activations = [], set()
    shape = None  # what the layer before gives one sample, where known: (C, H, W) or (n,)
    if input_shape is not None:
        tokens.append("x".join(str(int(d)) for d in input_shape) if len(input_shape) > 1 else str(int(input_shape[0])))
        shape = tuple(int(d) for d in input_shape)
    for name, module in model.named_modules():
        if list(module.children()):
            continue
        if isinstance(module, torch.nn.Linear):
            if shape is not None and math.prod(shape) != module.in_features:
                raise ValueError(f"{name}: reads {module.in_features} values, but the layer before gives "
                                 f"{math.prod(shape)}: the layers form no chain")
            if not tokens:
                tokens.append(str(module.in_features))
            tokens.append(str(module.out_features))
            shape = (module.out_features,)
        elif isinstance(module, torch.nn.Conv2d):
            k, s, p = module.kernel_size, module.stride, module.padding
            if (not tokens or k[0] != k[1] or s[0] != s[1] or isinstance(p, str) or p[0] != p[1]
                    or module.dilation != (1, 1) or module.groups != 1):
                raise ValueError(f"{name}: a Conv2d the app reads has a square kernel, stride and padding, no "
                                 "dilation or groups, and input_shape=(C, H, W) given to the recorder")
            if shape is None or len(shape) != 3 or shape[0] != module.in_channels:
                raise ValueError(f"{name}: reads {module.in_channels} channels, but the layer before gives "
                                 f"{shape}: the layers form no chain")
            tokens.append(f"conv{module.out_channels}k{k[0]}" + (f"s{s[0]}" if s[0] != 1 else "") +
                          (f"p{p[0]}" if p[0] else ""))
            side = [(d + 2 * p[0] - k[0]) // s[0] + 1 for d in shape[1:]]
            shape = (module.out_channels, side[0], side[1])
        elif isinstance(module, (torch.nn.MaxPool2d, torch.nn.AvgPool2d)):
            k = module.kernel_size if isinstance(module.kernel_size, int) else module.kernel_size[0]
            stride = module.stride if isinstance(module.stride, int) else module.stride[0]
            if stride != k or (module.padding not in (0, (0, 0))):
                raise ValueError(f"{name}: pooling must have stride = kernel and no padding")
            tokens.append(("pool" if isinstance(module, torch.nn.MaxPool2d) else "avgpool") + str(k))
            shape = (shape[0], shape[1] // k, shape[2] // k) if shape is not None and len(shape) == 3 else shape
        elif type(module) in _ACTIVATIONS:
            activations.add(_ACTIVATIONS[type(module)])
        elif not isinstance(module, _SKIPPED) and list(module.parameters(recurse=False)):
            raise ValueError(f"{name}: {type(module).__name__} has no counterpart in the app's networks; pass network=")
    if len(activations) > 1:
        raise ValueError(f"the model mixes activations {sorted(activations)}; the app's networks use one; "
                         "pass activation=")
    return "-".join(tokens), (activations.pop() if activations else None)


def snapshot_count(total_steps, every):
    """Snapshots of a run of total_steps at an interval (the last step always has one)."""
    return total_steps // every + (1 if total_steps % every else 0)


def catalog_run(optimizer, group=0):
    """(catalog optimizer name, hyper-parameters by catalog key) describing a torch optimizer."""
    if hasattr(optimizer, "catalog_run"):
        return optimizer.catalog_run(group)
    g = optimizer.param_groups[group]
    if isinstance(optimizer, torch.optim.SGD):
        hp = {"lr": g["lr"], "weight-decay": g["weight_decay"]}
        if g["momentum"] == 0:
            return "sgd", hp
        hp.update(momentum=g["momentum"], dampening=g["dampening"])
        return ("nesterov" if g["nesterov"] else "momentum"), hp
    if isinstance(optimizer, (torch.optim.Adam, torch.optim.AdamW)):
        return ("adamw" if isinstance(optimizer, torch.optim.AdamW) else "adam"), {
            "lr": g["lr"], "beta1": g["betas"][0], "beta2": g["betas"][1], "eps": g["eps"],
            "weight-decay": g["weight_decay"], "amsgrad": g["amsgrad"]}
    if isinstance(optimizer, torch.optim.RMSprop):
        return "rmsprop", {"lr": g["lr"], "alpha": g["alpha"], "eps": g["eps"], "weight-decay": g["weight_decay"],
                           "momentum": g["momentum"], "centered": g["centered"]}
    if isinstance(optimizer, torch.optim.Adagrad):
        return "adagrad", {"lr": g["lr"], "lr-decay": g["lr_decay"], "weight-decay": g["weight_decay"],
                           "initial-accumulator": g["initial_accumulator_value"], "eps": g["eps"]}
    warnings.warn(f"{type(optimizer).__name__} has no counterpart in the app's catalog; config.json names it sgd")
    return "sgd", {"lr": g.get("lr", 0.01)}


class Recorder:
    """Records a training loop into a run folder the app and the CLI open.

        rec = Recorder(model, optimizer, out="runs/x", every=10)
        for ...: loss.backward(); optimizer.step(); rec.step(loss=loss)   # after the optimizer's step
        rec.close()   # or: with Recorder(...) as rec:

    Every step appends a metrics.csv row (its loss kept on the device until the next recorded
    step); steps every*stride (and total_steps when given) also append a snapshots.bin record of
    each recorded layer: parameters and gradient after/of that step, the optimizer's first and
    second moment, the update (w_after - w_before) and the neuron means of the first moment.
    The snapshot file stays within max_mb (default 1000, as the CLI's --snapshots-max-mb): with
    total_steps the interval is raised to the smallest that fits (the CLI refuses instead); without,
    the first half of the budget is spent at `every`, then each half of what is left at twice the
    stride before (the core's decimation: every second sample once full), then recording stops.
    """

    def __init__(self, model, optimizer, out, every=10, layers=None, label=None, network=None, activation=None,
                 input_shape=None, loss="cross-entropy", data="custom", seed=0, batch=0, steps_per_epoch=None,
                 total_steps=None, max_mb=1000, name=None, background=True):
        if every < 1:
            raise ValueError("every: expected a whole number >= 1")
        self.model, self.optimizer, self.out, self.every = model, optimizer, str(out), int(every)
        self.steps_per_epoch, self.total_steps = steps_per_epoch, total_steps
        all_layers = neuron_layers(model)
        if layers is None:
            chosen = all_layers
        else:
            wanted = [m if isinstance(m, torch.nn.Module) else dict(model.named_modules())[m] for m in layers]
            chosen = [(n, m) for n, m in all_layers if any(m is w for w in wanted)]
            if len(chosen) != len(wanted):
                raise ValueError("layers: expected Linear or Conv modules of the model (or their names)")
        self.layers = [m for _, m in chosen]
        if not self.layers:
            raise ValueError("the model has no Linear or Conv layer to record")
        self.shapes = [(m.weight.shape[0], m.weight[0].numel() + 1) for m in self.layers]
        self.columns_per_input = [m.weight[0, 0].numel() for m in self.layers]
        self.optimizer_name, hp = catalog_run(optimizer)
        if not self._layers_paired():  # the package's rule ran per connection: say so, not its sharing
            self.optimizer_name, hp = _per_connection(self.optimizer_name, hp)
        self.label = label or self.optimizer_name
        self.scope, self.bias_mode = self._sharing()
        chain = None  # the model as one of the app's networks, where it is one
        try:
            chain = infer_network(model, input_shape)
        except ValueError as error:
            if network is None and len(self.layers) == len(all_layers):
                warnings.warn(f"{error}; the app shows the recorded layers as blocks")
        whole = len(self.layers) == len(all_layers)
        if whole and (network is not None or chain is not None):
            network = network or chain[0]
            activation = activation or (chain[1] if chain else None)
        elif network is not None:
            warnings.warn("network= describes the whole model, not a subset of its layers: left out of config.json")
            network = None
        if activation is None and network is not None:
            warnings.warn("no activation module found; config.json says relu (pass activation=)")
            activation = "relu"
        follows = _followers(all_layers, chosen) if chain is not None else {}
        # Without "network" (a subset, branches, modules the app has no counterpart for) the app
        # shows the recorded layers as blocks to pick from.
        self.config = {"name": name or f"PyTorch: {self.label}", "loss": loss, "data": data, "seed": seed,
                       "batch": batch, "steps": total_steps or 0, "epochs": 0, "eval-every": 0,
                       "init": "weights_initial.json",
                       "recorded-layers": [_layer_entry(n, m, follows.get(n)) for n, m in chosen],
                       "runs": [dict({"label": self.label, "optimizer": self.optimizer_name},
                                     **{k: _json_value(v) for k, v in hp.items()})]}
        if network is not None:
            self.config["network"] = network
        if activation is not None:
            self.config["activation"] = activation
        os.makedirs(self.out, exist_ok=True)
        self._staging = None  # the device buffer a CUDA model's snapshot is gathered in
        self._pool, self._pool_size = queue.Queue(), 0  # host buffers, returned by the writer thread
        _format.write_json_atomically(os.path.join(self.out, "config.json"), self.config)
        self.host_copies = 0
        _format.write_json_atomically(os.path.join(self.out, "weights_initial.json"), self._weights())
        self._metrics = open(os.path.join(self.out, "metrics.csv"), "w")
        self._metrics.write("step,epoch,train_loss,test_loss,test_accuracy,wall_ms\n")
        self._metrics.flush()
        self._snapshots = _format.SnapshotFileWriter(os.path.join(self.out, "snapshots.bin"), self.label,
                                                     self.shapes, self.scope, self.bias_mode, self.columns_per_input,
                                                     background=background)
        self.step_count = 0
        self.recorded_steps = []
        self._pending = []  # metrics rows not yet written: their values may be device tensors
        self._capacity = max(1, int(max_mb * 1e6 // _format.record_bytes_bound(self.shapes)))
        self._stride, self._left_total, self._left_at_stride = 1, None, None
        if total_steps:  # the CLI's check, with the smallest interval that fits instead of a refusal
            asked = self.every
            self.every = max(self.every, -(-total_steps // self._capacity))
            while snapshot_count(total_steps, self.every) > self._capacity:
                self.every += 1
            if self.every != asked:
                warnings.warn(f"every {asked}: {snapshot_count(total_steps, asked)} snapshots could exceed "
                              f"max_mb {max_mb}; recording every {self.every} steps")
        else:  # unknown length: half the budget at each stride, then every second sample
            self._left_total, self._left_at_stride = self._capacity, max(1, self._capacity // 2)
        self._last = {"loss": None, "test_loss": None, "test_accuracy": None}
        self._closed = False
        self._started = time.perf_counter()
        self._own_seconds = 0.0  # the recorder's own time, left out of wall_ms
        self._kept_before = None  # the buffers _clone_parameters copies into
        self._upcoming = None  # the next recorded step, worked out by step() (math.inf: no more)
        self._plan = None  # the _RecordPlan of the last record
        self._before = self._clone_parameters() if self._records(1) else None

    # -- public API ------------------------------------------------------------------------------
    def step(self, loss=None, test_loss=None, test_accuracy=None, epoch=None):
        """After optimizer.step(): one metrics row (loss: the batch loss before the update, a tensor
        or a number; test figures where evaluated) and, on a recorded step, one snapshot."""
        entered = time.perf_counter()
        self.step_count = step = self.step_count + 1
        if epoch is None:
            epoch = (step - 1) // self.steps_per_epoch + 1 if self.steps_per_epoch else 1
        wall_ms = (entered - self._started - self._own_seconds) * 1000.0
        # Most steps end here: a few Python operations, no copy (the loss stays on its device).
        values = (loss.detach() if isinstance(loss, torch.Tensor) else _detached(loss),
                  None if test_loss is None else _detached(test_loss),
                  None if test_accuracy is None else _detached(test_accuracy))
        self._pending.append((step, epoch, values, wall_ms))
        upcoming = self._upcoming
        if upcoming is None or upcoming < step:
            upcoming = self._next_recorded(step - 1)
        if step == upcoming:
            self._snapshot(step, epoch)
            upcoming = self._next_recorded(step)
        if step + 1 == upcoming:
            self._before = self._clone_parameters()
        self._upcoming = upcoming
        self._own_seconds += time.perf_counter() - entered

    def close(self, status="done"):
        """Writes the pending metrics, weights_final.json and summary.csv; closes the files."""
        if self._closed:
            return
        self._closed = True
        self._flush_metrics([])
        self._metrics.close()
        self._snapshots.close()
        _format.write_json_atomically(os.path.join(self.out, "weights_final.json"), self._weights())
        self.config["steps"] = self.step_count
        _format.write_json_atomically(os.path.join(self.out, "config.json"), self.config)
        wall_ms = (time.perf_counter() - self._started - self._own_seconds) * 1000.0
        last = self._last
        cells = [_csv_field(self.label), _format.number_text(last["loss"]), _format.number_text(last["test_loss"]),
                 _format.number_text(last["test_accuracy"]), str(self.step_count), f"{wall_ms:.3f}", status]
        with open(os.path.join(self.out, "summary.csv"), "w") as f:
            f.write("optimizer,final_train_loss,final_test_loss,final_test_accuracy,steps,wall_ms,status\n")
            f.write(",".join(cells) + "\n")

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        self.close("done" if kind is None else "stopped")
        return False

    # -- internals -------------------------------------------------------------------------------
    def _records(self, step):
        return self._next_recorded(step - 1) == step

    def _next_recorded(self, step):
        """The first recorded step after `step`: the next multiple of every * stride, or total_steps
        when that comes first (math.inf once the budget is spent)."""
        if self._left_total == 0:
            return math.inf
        interval = self.every * self._stride
        upcoming = (step // interval + 1) * interval
        if self.total_steps is not None and step < self.total_steps < upcoming:
            return self.total_steps
        return upcoming

    def _group(self):
        """The parameter group of the first recorded layer's weight (None: not optimized)."""
        first = self.layers[0].weight
        return next((g for g in self.optimizer.param_groups if any(p is first for p in g["params"])), None)

    def _layers_paired(self):
        """False where a package rule's group does not pair the recorded weight with its layer (the
        optimizer was given model.parameters(): every parameter followed the per-connection rule)."""
        group = self._group()
        if group is None or "layers" not in group:
            return True
        return any(group["params"][w] is self.layers[0].weight for w, _ in group["layers"])

    def _sharing(self):
        """The momentum_mean and bias of the recorded layers' group (none/own for torch's rules)."""
        group = self._group()
        if group is None or not self._layers_paired():
            return "none", "own"
        return group.get("momentum_mean", "none"), group.get("bias", "own")

    def _to_host(self, tensor, out=None):
        """The one device-to-host copy path (into `out`, a host buffer, when given; a CPU tensor
        without `out` is already there: no copy, but counted all the same)."""
        self.host_copies += 1
        if out is not None:
            if tensor is not out:  # a device staging buffer (a CPU model gathers in `out` itself)
                out.copy_(tensor.detach().to(torch.float32).reshape(-1))
            return out.numpy()
        return tensor.detach().to(torch.float32).reshape(-1).cpu().numpy()

    def _buffer(self, size, device):
        """A host buffer (a _Staging) of `size` floats from the pool shared with the writer thread
        (pinned for a CUDA model); waits for the writer when every buffer is queued."""
        pinned = device.type == "cuda"
        while True:
            try:
                buffer = self._pool.get_nowait()
            except queue.Empty:
                if self._pool_size < POOL_BUFFERS:
                    self._pool_size += 1
                    return _Staging(torch.empty(size, dtype=torch.float32, pin_memory=pinned))
                buffer = self._pool.get()
            if buffer.tensor.numel() == size:
                return buffer
            self._pool_size -= 1  # another size (the quantities changed): dropped

    def _clone_parameters(self):
        """The weights before the next step (a _Rows per layer), copied into buffers kept from one
        recorded step to the next (a fresh allocation of a large tensor costs its page faults each time)."""
        with torch.no_grad():
            parameters = [(m.weight, m.bias) for m in self.layers]  # a module's attribute: read once
            kept = self._kept_before
            if kept is None or any(k.tensors[0].shape != w.shape or k.tensors[0].device != w.device
                                   for k, (w, _) in zip(kept, parameters)):
                kept = [_Rows(torch.empty_like(w), None if b is None else torch.empty_like(b), shape)
                        for (w, b), shape in zip(parameters, self.shapes)]
                self._kept_before = kept
            for k, (w, b) in zip(kept, parameters):
                kept_weight, kept_bias = k.tensors
                kept_weight.copy_(w)
                if kept_bias is not None:
                    kept_bias.copy_(b)
            return kept

    def _weights(self):
        with torch.no_grad():
            flat = torch.cat([t.detach().reshape(-1) for m in self.layers
                              for t in ((m.weight,) + ((m.bias,) if m.bias is not None else ()))])
            values = self._to_host(flat)
        layers, offset = [], 0
        for m in self.layers:
            weight = values[offset:offset + m.weight.numel()].reshape(m.weight.shape)
            offset += m.weight.numel()
            bias = None
            if m.bias is not None:
                bias = values[offset:offset + m.bias.numel()]
                offset += m.bias.numel()
            layers.append((weight, bias, isinstance(m, torch.nn.Conv2d)))
        return _format.weights_json(layers)

    def _state(self, tensor, keys):
        if tensor is None:
            return None, None
        state = self.optimizer.state.get(tensor, {})
        for key in keys:
            if torch.is_tensor(state.get(key)) and state[key].shape == tensor.shape:
                return key, state[key]
        return None, None

    def _signature(self):
        """What a record's layout depends on, cheap to compare at each record: each recorded
        parameter and its memory, and the memory of the optimizer-state tensors kept for it (Adam's
        appear after the first step). A _RecordPlan holds the tensors it reads: their ids and
        addresses cannot pass to others while it lives."""
        state = self.optimizer.state
        signature = []
        for m in self.layers:
            for p in (m.weight, m.bias):
                if p is not None:
                    signature += (id(p), p.data_ptr())
                    for value in state.get(p, _NO_STATE).values():
                        if isinstance(value, torch.Tensor):
                            signature.append(value.data_ptr())
        return tuple(signature)

    def _layout(self):
        """The plan of this step's record: the one of the last record while the signature holds."""
        signature = self._signature()
        if self._plan is not None and self._plan.signature == signature:
            return self._plan
        found = []
        for m in self.layers:
            first = self._state(m.weight, FIRST_MOMENT_KEYS)
            second = self._state(m.weight, SECOND_MOMENT_KEYS)
            rules = {name: key for key, name in RULE_STATE_KEYS.items() if self._state(m.weight, (key,))[1] is not None}
            found.append((first, second, rules))
        has_first = all(f[0][1] is not None for f in found)
        has_second = all(f[1][1] is not None for f in found)
        rule_names = [name for name in found[0][2] if all(name in f[2] for f in found)]
        quantities = ["parameters", "gradient"] + (["first_moment"] if has_first else []) + \
            (["second_moment"] if has_second else []) + ["update"]
        layers = []
        for m, shape, (first, second, rules) in zip(self.layers, self.shapes, found):
            b = m.bias
            moments = [_Rows(buffer, self._state(b, (key,))[1], shape)
                       for present, (key, buffer) in ((has_first, first), (has_second, second)) if present]
            means = (first[1], self._state(b, (first[0],))[1]) if has_first else None
            buffers = [_Rows(self._state(m.weight, (rules[n],))[1], self._state(b, (rules[n],))[1], shape)
                       for n in rule_names]
            layers.append(_LayerPlan(m.weight, b, shape, moments, means, buffers, self.scope, self.bias_mode))
        self._plan = _RecordPlan(signature, quantities, rule_names, layers, self.layers[0].weight.device)
        return self._plan

    def _snapshot(self, step, epoch):
        with torch.no_grad():
            plan = self._layout()
            losses = [v for _, _, values, _ in self._pending for v in values if isinstance(v, torch.Tensor)]
            # room for the losses rounded up: a test loss now and then keeps the buffer's size
            total = plan.payload_size + -(-len(losses) // LOSS_SLOTS) * LOSS_SLOTS
            device = plan.device
            host = self._buffer(total, device)
            if device.type == "cpu":  # the matrices go straight into the host buffer
                self._staging = host
            elif (self._staging is None or self._staging.tensor.numel() != total
                  or self._staging.tensor.device != device):
                self._staging = _Staging(torch.empty(total, dtype=torch.float32, device=device))
            staging = self._staging
            plan.gather(staging.views(plan), self._before)
            target = staging.tensor[plan.payload_size:plan.payload_size + len(losses)]
            if losses and all(loss.dim() == 0 and loss.dtype == torch.float32 for loss in losses):
                torch.stack(losses, out=target)  # the usual scalar losses in one operation
            else:
                for index, loss in enumerate(losses):
                    target[index:index + 1].copy_(loss.reshape(1))
            values = self._to_host(staging.tensor, out=host.tensor)
        self._flush_metrics(values[plan.payload_size:plan.payload_size + len(losses)])
        self._snapshots.append(step, epoch, self._step_loss, plan.quantities, plan.neuron_counts,
                               [(name, self.shapes) for name in plan.rule_names], values[:plan.payload_size],
                               release=lambda: self._pool.put(host))
        self.recorded_steps.append(step)
        self._before = None
        if self._left_total is not None:  # the budget's next half: every second sample from now on
            self._left_total -= 1
            self._left_at_stride -= 1
            if self._left_total == 0:
                warnings.warn(f"{self.out}: the snapshot budget (max_mb) is spent at step {step}; no more snapshots")
            elif self._left_at_stride == 0:
                self._stride *= 2
                self._left_at_stride = max(1, self._left_total // 2)

    def _flush_metrics(self, host_values):
        """Writes the pending rows; host_values: their tensor values, copied in the snapshot's one copy."""
        if not len(host_values):  # close(): what is left comes over in one copy
            tensors = [v for _, _, values, _ in self._pending for v in values if isinstance(v, torch.Tensor)]
            if tensors:
                device = tensors[0].device
                host_values = self._to_host(torch.stack([t.reshape(()).float().to(device) for t in tensors]))
        host = iter(host_values.tolist() if isinstance(host_values, np.ndarray) else host_values)
        # their cells as _format.number_text writes them: a float32's shortest text, empty for NaN
        texts = iter([str(value) if value == value else "" for value in host_values])
        number_text, last, lines = _format.number_text, self._last, []

        def cell(value):
            if isinstance(value, torch.Tensor):
                return next(host), next(texts)
            return value, number_text(value)

        for step, epoch, (loss, test_loss, test_accuracy), wall_ms in self._pending:
            loss, loss_text = cell(loss)
            if loss is not None:
                last["loss"] = loss
            if test_loss is None and test_accuracy is None:  # most rows: the batch loss alone
                lines.append(f"{step},{epoch},{loss_text},,,{wall_ms:.3f}\n")
                continue
            (test_loss, test_loss_text), (test_accuracy, test_accuracy_text) = cell(test_loss), cell(test_accuracy)
            if test_loss is not None and test_loss == test_loss:  # NaN: not evaluated
                last["test_loss"] = test_loss
            if test_accuracy is not None and test_accuracy == test_accuracy:
                last["test_accuracy"] = test_accuracy
            lines.append(f"{step},{epoch},{loss_text},{test_loss_text},{test_accuracy_text},{wall_ms:.3f}\n")
        if self._pending:
            self._step_loss = loss
        self._pending = []
        self._metrics.write("".join(lines))
        self._metrics.flush()


def _fill(out, weight, bias):
    """out [rows, cols], a contiguous matrix, <- the weight's rows [rows, cols - 1] and the bias as
    the last column [rows, 1] (0 where either is None): one call where both match out, else two."""
    if (weight is not None and bias is not None and weight.dtype == bias.dtype == out.dtype
            and weight.device == out.device == bias.device):
        torch.cat((weight, bias), 1, out=out)
        return
    for source, target in ((weight, out[:, :-1]), (bias, out[:, -1:])):
        if source is None:
            target.zero_()
        else:
            target.copy_(source)


class _Rows:
    """A weight-shaped tensor and its bias (or None) read as a layer matrix's two parts, [rows,
    cols - 1] and [rows, 1]: views made once where the memory allows (the optimizer updates its
    state in place), else reshaped (copied) at each read, as a channels-last conv weight."""

    def __init__(self, weight, bias, shape):
        rows, cols = shape
        self.tensors = (weight.detach(), None if bias is None else bias.detach())
        self._shapes = ((rows, cols - 1), (rows, 1))
        self._views = tuple(None if t is None else _view_or_none(t, s) for t, s in zip(self.tensors, self._shapes))
        self._fixed = all(v is not None or t is None for v, t in zip(self._views, self.tensors))

    def read(self):
        if self._fixed:
            return self._views
        return tuple(None if t is None else (v if v is not None else t.reshape(s))
                     for t, v, s in zip(self.tensors, self._views, self._shapes))


def _view_or_none(tensor, shape):
    try:
        return tensor.view(shape)
    except RuntimeError:
        return None


class _LayerPlan:
    """Where one layer's matrices in a record come from (its gradient is read at each record: a
    training loop may set it to None and back)."""

    def __init__(self, weight, bias, shape, moments, means, buffers, scope, bias_mode):
        self.weight, self.bias, self.shape = weight, bias, shape
        self.parameters = _Rows(weight, bias, shape)
        self.moments, self.buffers = moments, buffers  # _Rows of the optimizer state
        self.means_of, self.scope, self.bias_mode = means, scope, bias_mode
        self.means_count = 0 if means is None else _means.compact_means(*means, scope, bias_mode).numel()

    def gather(self, views, before):
        """Writes the layer into its views (_RecordPlan.views); before: the _Rows of the weights
        before the step (None: not kept, the update is 0)."""
        parameters, gradient, moments, (update_weight, update_bias), means, buffers = views
        rows, cols = self.shape
        weight, bias = self.weight, self.bias
        after_weight, after_bias = self.parameters.read()
        _fill(parameters, after_weight, after_bias)
        before_weight, before_bias = (after_weight, after_bias) if before is None else before.read()
        torch.sub(after_weight, before_weight, out=update_weight)
        if after_bias is None:
            update_bias.zero_()
        else:
            torch.sub(after_bias, before_bias, out=update_bias)
        gradient_bias = None if bias is None or bias.grad is None else bias.grad.reshape(rows, 1)
        _fill(gradient, None if weight.grad is None else weight.grad.reshape(rows, cols - 1), gradient_bias)
        for view, source in zip(moments, self.moments):
            _fill(view, *source.read())
        if means is not None:  # right after the first moment's copy, while it is in the cache
            _means.compact_means(*self.means_of, self.scope, self.bias_mode, out=means)
        for view, source in zip(buffers, self.buffers):
            _fill(view, *source.read())


class _RecordPlan:
    """A record's layout, worked out once and kept while the signature it was made for holds (see
    Recorder._signature): its quantities, rule-state buffers, neuron counts, size and layers."""

    def __init__(self, signature, quantities, rule_names, layers, device):
        self.signature, self.quantities, self.rule_names, self.layers = signature, quantities, rule_names, layers
        self.device = device
        self.neuron_counts = [layer.means_count for layer in layers]
        matrices = len(quantities) + len(rule_names)
        self.payload_size = sum(matrices * layer.shape[0] * layer.shape[1] + layer.means_count for layer in layers)

    def views(self, buffer):
        """Per layer the views of a buffer where its parts go (in the format's order: the
        quantities, the neuron means, the rule state): parameters, gradient, [moments], (update's
        weight part, bias part), means (or None), [rule-state buffers]."""
        views, offset = [], 0
        for layer in self.layers:
            rows, cols = layer.shape
            matrices = []
            for _ in self.quantities:
                matrices.append(buffer[offset:offset + rows * cols].view(rows, cols))
                offset += rows * cols
            means = buffer[offset:offset + layer.means_count] if layer.means_count else None
            offset += layer.means_count
            buffers = []
            for _ in self.rule_names:
                buffers.append(buffer[offset:offset + rows * cols].view(rows, cols))
                offset += rows * cols
            update = matrices[-1]
            views.append((matrices[0], matrices[1], matrices[2:-1], (update[:, :-1], update[:, -1:]), means, buffers))
        return views

    def gather(self, views, before):
        for index, (layer, layer_views) in enumerate(zip(self.layers, views)):
            layer.gather(layer_views, None if before is None else before[index])


class _Staging:
    """A float32 buffer records are gathered in, with its views for the last plan it served."""

    def __init__(self, tensor):
        self.tensor, self._plan, self._views = tensor, None, None

    def views(self, plan):
        if self._plan is not plan:
            self._plan, self._views = plan, plan.views(self.tensor)
        return self._views


def _followers(all_layers, chosen):
    """{name: the recorded layer it reads from} for recorded layers next to each other in the
    model's chain (all_layers in chain order)."""
    order = [name for name, _ in all_layers]
    recorded = {name for name, _ in chosen}
    return {name: order[i - 1] for i, name in enumerate(order) if i > 0 and name in recorded and order[i - 1] in recorded}


def _layer_entry(name, module, follows):
    """config.json's description of one recorded layer: its module name, kind, weight shape and
    the recorded layer whose output it reads (None where unknown: no chain, or not recorded)."""
    kind = "conv2d" if isinstance(module, torch.nn.Conv2d) else \
        "linear" if isinstance(module, torch.nn.Linear) else type(module).__name__.lower()
    return {"name": name, "kind": kind, "shape": [int(d) for d in module.weight.shape], "follows": follows}


def _per_connection(name, hp):
    """The catalog run of a package rule whose layers were not paired: no sharing of either moment."""
    hp = dict(hp)
    for key in ("momentum-mean", "second-moment-mean"):
        if key in hp:
            hp[key] = "none"
    if "gradient-centralization" in hp:  # centres the rows of paired weights only
        hp["gradient-centralization"] = False
    if name == "neuron-mean":  # fan-in by name: the same rule without sharing is momentum
        name = "momentum"
        hp["momentum-mean"] = "none"
    return name, hp


def _detached(value):
    if torch.is_tensor(value):
        return value.detach()
    return None if value is None else float(value)


def _json_value(value):
    if isinstance(value, bool) or isinstance(value, str):
        return value
    return float(value)


def _csv_field(text):
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text
