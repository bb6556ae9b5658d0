"""Readers of run folders (momentum-lab-cli train --out, Recorder) and study folders (momentum-lab-cli study)."""
import csv
import json
import math
import os

import numpy as np

from . import _format

try:  # optional: tables as DataFrames when pandas is installed
    import pandas as _pandas
except ImportError:
    _pandas = None

METRICS_COLUMNS = ("step", "epoch", "train_loss", "test_loss", "test_accuracy", "wall_ms")


def _table(path):
    """A CSV file as a pandas DataFrame when pandas is installed, else a dict of numpy arrays
    (numeric columns as float64 with NaN for empty cells, others as str). A cut-off last line is
    left out, as the app does."""
    with open(path, newline="") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        return {} if _pandas is None else _pandas.DataFrame()
    header, body = rows[0], rows[1:]
    columns = {}
    for index, name in enumerate(header):
        cells = [row[index] if index < len(row) else "" for row in body]
        try:
            columns[name] = np.array([float(c) if c != "" else math.nan for c in cells], dtype=np.float64)
        except ValueError:
            columns[name] = np.array(cells, dtype=str)
    return _pandas.DataFrame(columns) if _pandas is not None else columns


class Run:
    """One run of a folder: config (its run entry merged with the experiment), metrics, summary,
    weights and snapshots.

    snapshots: a list of records (step, epoch, batch_loss, quantities, layers: per layer a dict
    quantity -> numpy array [rows, cols] (bias last column), neuron_means, rule-state buffers).
    """

    def __init__(self, directory, config, spec):
        self.directory = directory
        self.config = config
        self.spec = spec
        self.label = spec.get("label", spec.get("optimizer", ""))
        path = os.path.join(directory, "metrics.csv")
        self.metrics = _table(path) if os.path.exists(path) else None
        path = os.path.join(directory, "summary.csv")
        self.summary = _table(path) if os.path.exists(path) else None
        self.weights_initial = self._weights("weights_initial.json")
        self.weights_final = self._weights("weights_final.json")
        path = os.path.join(directory, "snapshots.bin")
        self.snapshot_header, self.snapshots = _format.read_snapshots(path) if os.path.exists(path) else (None, [])

    def _weights(self, name):
        path = os.path.join(self.directory, name)
        if not os.path.exists(path):
            return None
        with open(path) as f:
            layers = json.load(f)["layers"]
        return [{"weight": np.array(_floats(l["weight"]), dtype=np.float32),
                 "bias": np.array(_floats(l["bias"]), dtype=np.float32), "type": l.get("type", "dense")}
                for l in layers]

    @property
    def steps(self):
        """The steps that have a snapshot."""
        return [record["step"] for record in self.snapshots]

    def snapshot(self, step, layer, quantity):
        """One saved matrix: quantity parameters / gradient / first_moment / second_moment / update /
        neuron_means / a rule-state buffer, of layer `layer` at step `step`."""
        for record in self.snapshots:
            if record["step"] == step:
                if quantity not in record["layers"][layer]:
                    raise KeyError(f"step {step}, layer {layer}: no {quantity} (saved: "
                                   f"{', '.join(record['layers'][layer])})")
                return record["layers"][layer][quantity]
        raise KeyError(f"no snapshot at step {step} (saved: {self.steps})")

    def series(self, layer, quantity):
        """(steps, array [snapshots, ...]): a quantity of a layer over every snapshot that has it."""
        kept = [r for r in self.snapshots if quantity in r["layers"][layer]]
        return np.array([r["step"] for r in kept]), np.stack([r["layers"][layer][quantity] for r in kept]) if kept \
            else np.zeros((0,))

    def __repr__(self):
        return f"Run({self.label!r}, {len(self.snapshots)} snapshots, {self.directory!r})"


def _floats(value):
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return float(value)  # "nan", "inf", "-inf" as written for non-finite values


def _folder_name(label):
    """core/experiment/RunLabels.h: every character but letters, digits and - _ . + = @ becomes _."""
    name = "".join(c if c.isascii() and (c.isalnum() or c in "-_.+=@") else "_" for c in label)
    return "_" + name[1:] if name.startswith(".") else name


def read_run(directory, run=None):
    """A run folder: a Run for a single-run folder; with several runs (one subfolder each) a dict
    label -> Run, or the Run labelled `run`."""
    with open(os.path.join(directory, "config.json")) as f:
        config = json.load(f)
    specs = config.get("runs", [])
    for spec in specs:
        spec.setdefault("label", spec.get("optimizer", ""))
    if os.path.exists(os.path.join(directory, "metrics.csv")) or len(specs) <= 1:
        single = Run(directory, config, specs[0] if specs else {})
        if run is not None and run != single.label:
            raise KeyError(f"{directory}: no run {run!r} (its run: {single.label!r})")
        return single
    runs = {spec["label"]: Run(os.path.join(directory, _folder_name(spec["label"])), config, spec) for spec in specs}
    if run is not None:
        if run not in runs:
            raise KeyError(f"{directory}: no run {run!r} (its runs: {', '.join(runs)})")
        return runs[run]
    return runs


class Study:
    """A study folder: its study file, aggregate's result tables, and its trials (read on demand)."""

    def __init__(self, directory):
        self.directory = directory
        with open(os.path.join(directory, "study.json")) as f:
            self.study = json.load(f)
        results = os.path.join(directory, "results")
        self.results = {}
        if os.path.isdir(results):
            for name in sorted(os.listdir(results)):
                path = os.path.join(results, name)
                if name.endswith(".csv") and not name.startswith("band-"):
                    self.results[name[:-4]] = _table(path)
                elif name == "results.json":
                    with open(path) as f:
                        self.results["results"] = json.load(f)
        self.trials = []  # dicts: phase, task, label, number / seed, folder, trial (trial.json), finished
        for phase, sub in ((1, "tune"), (2, "final")):
            root = os.path.join(directory, sub)
            if not os.path.isdir(root):
                continue
            for task in sorted(os.listdir(root)):
                for label in sorted(os.listdir(os.path.join(root, task))):
                    for trial in sorted(os.listdir(os.path.join(root, task, label))):
                        folder = os.path.join(root, task, label, trial)
                        marker = os.path.join(folder, "trial.json")
                        info = None
                        if os.path.exists(marker):
                            with open(marker) as f:
                                info = json.load(f)
                        self.trials.append({"phase": phase, "task": task, "label": label, "name": trial,
                                            "folder": folder, "trial": info, "finished": info is not None})

    def run(self, trial):
        """The run folder of a trial (an entry of .trials) as a Run."""
        return read_run(trial["folder"])

    def __repr__(self):
        return f"Study({self.directory!r}, {len(self.trials)} trials, results: {', '.join(self.results) or 'none'})"


def read_study(directory):
    """A study folder (momentum-lab-cli study --out DIR) as a Study."""
    return Study(directory)
