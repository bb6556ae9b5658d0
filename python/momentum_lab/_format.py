"""snapshots.bin (format 2, docs/guide/snapshot-format.md) and the other run-folder files."""
import json
import math
import os
import queue
import threading

import numpy as np

MAGIC = b"momentum-lab-snapshots 2"
MAGIC_V1 = b"momentum-lab-snapshots 1"
QUANTITIES = ("parameters", "gradient", "first_moment", "second_moment", "update")


def number_text(value):
    """A float32 cell as the CLI writes it: shortest text, empty for none / NaN."""
    if value is None:
        return ""
    value = float(value)
    if math.isnan(value):
        return ""
    return str(np.float32(value))


def record_bytes_bound(shapes):
    """The most bytes one record can take (core SnapshotFileWriter::recordBytesBound)."""
    floats = sum(7 * rows * cols + 2 * (rows + cols) + 2 for rows, cols in shapes)
    return 512 + 64 * len(shapes) + 4 * floats


class SnapshotFileWriter:
    """Appends records to snapshots.bin, each in one system call (no buffer in between, so a
    reader following the file sees a record whole or not at all, as far as the system allows);
    background=True writes them on a thread of its own (errors surface at the next append or at
    close). One call also means one release of the interpreter lock per record on that thread,
    where buffered writes took several, each a hand-over the training thread waits on."""

    def __init__(self, path, label, shapes, scope="none", bias="own", columns_per_input=None, background=False):
        self.shapes = [(int(r), int(c)) for r, c in shapes]
        header = {"label": label, "layers": [list(s) for s in self.shapes], "momentum-mean": scope, "bias": bias}
        if columns_per_input and any(c != 1 for c in columns_per_input):
            header["columns_per_input"] = [int(c) for c in columns_per_input]
        self._file = open(path, "wb", buffering=0)
        self._write_all([MAGIC + b"\n" + json.dumps(header, separators=(",", ":")).encode() + b"\n"])
        self.records = 0
        self._error = None
        self._queue = queue.Queue(maxsize=2) if background else None
        if background:  # the writes overlap the training; at most 2 records wait
            self._thread = threading.Thread(target=self._drain, name="snapshots.bin writer", daemon=True)
            self._thread.start()

    def append(self, step, epoch, batch_loss, quantities, neuron_means, rule_state, payload, release=None):
        """payload: float32 values already in the format's order; the rest describes them. With a
        background writer the payload must stay untouched until release() is called (after its write)."""
        payload = np.ascontiguousarray(payload, dtype="<f4")
        loss = None if batch_loss is None or not math.isfinite(batch_loss) else float(batch_loss)
        record = {"step": int(step), "epoch": int(epoch), "batch_loss": loss, "quantities": list(quantities),
                  "neuron_means": [int(n) for n in neuron_means],
                  "rule_state": [{"name": name, "shapes": [list(s) for s in shapes]} for name, shapes in rule_state],
                  "bytes": int(payload.nbytes)}
        expected = sum(len(quantities) * r * c for r, c in self.shapes) + sum(neuron_means) + sum(
            r * c for _, shapes in rule_state for r, c in shapes)
        if payload.size != expected:
            raise ValueError(f"snapshot payload: {payload.size} values, the record describes {expected}")
        line = json.dumps(record, separators=(",", ":")).encode() + b"\n"
        self.records += 1
        if self._queue is None:
            self._write(line, payload, release)
        else:
            self._raise()
            self._queue.put((line, payload, release))

    def _write(self, line, payload, release):
        try:
            self._write_all([line, payload.data])  # the array's own memory: no copy
        finally:
            if release is not None:
                release()

    def _write_all(self, parts):
        """The parts in one writev where the system has it (a killed run keeps every complete record)."""
        fd = self._file.fileno()
        total = sum(memoryview(part).nbytes for part in parts)
        written = os.writev(fd, parts) if hasattr(os, "writev") else 0
        if written < total:  # no writev, or a short write: the rest part by part
            rest = memoryview(b"".join(bytes(memoryview(part).cast("B")) for part in parts))[written:]
            while rest:
                rest = rest[os.write(fd, rest):]

    def _drain(self):
        while (item := self._queue.get()) is not None:
            if self._error is not None:
                item[2] and item[2]()
                continue
            try:
                self._write(*item)
            except BaseException as error:  # reported to the training thread at its next append / close
                self._error = error

    def _raise(self):
        if self._error is not None:
            raise OSError(f"{self._file.name}: cannot write ({self._error})") from self._error

    def close(self):
        if self._queue is not None and self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        if not self._file.closed:
            os.fsync(self._file.fileno())
            self._file.close()
        self._raise()


def read_snapshots(path):
    """(header, [record]) of a snapshots.bin; each record a dict with step, epoch, batch_loss and
    "layers": per layer a dict quantity -> array [rows, cols], "neuron_means" -> vector and each
    rule-state buffer by name. A cut-off last record is left out (as the app does)."""
    records = []
    with open(path, "rb") as f:
        magic = f.readline().strip()
        if magic not in (MAGIC, MAGIC_V1):
            raise ValueError(f"{path}: not a snapshot file (first line {magic[:40]!r})")
        header = json.loads(f.readline())
        shapes = [tuple(s) for s in header["layers"]]
        while True:
            line = f.readline()
            if not line.endswith(b"\n"):
                break
            record = json.loads(line)
            data = f.read(record["bytes"])
            if len(data) != record["bytes"]:
                break
            values = np.frombuffer(data, dtype="<f4")
            offset = 0
            layers = []
            rule_state = record.get("rule_state", [])
            for index, (rows, cols) in enumerate(shapes):
                layer = {}
                for name in record["quantities"]:
                    layer[name] = values[offset:offset + rows * cols].reshape(rows, cols)
                    offset += rows * cols
                count = record["neuron_means"][index]
                layer["neuron_means"] = values[offset:offset + count]
                offset += count
                for buffer in rule_state:
                    r, c = buffer["shapes"][index]
                    layer[buffer["name"]] = values[offset:offset + r * c].reshape(r, c)
                    offset += r * c
                layers.append(layer)
            if offset != values.size:
                raise ValueError(f"{path}: record {len(records) + 1}: {values.size} values, its layout needs {offset}")
            records.append({"step": record["step"], "epoch": record["epoch"], "batch_loss": record["batch_loss"],
                            "quantities": list(record["quantities"]), "layers": layers})
    return header, records


def write_json_atomically(path, value):
    temporary = f"{path}.tmp"
    with open(temporary, "w") as f:
        json.dump(value, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def weights_json(layers):
    """{"layers": [...]} of (weight ndarray, bias ndarray or None, is_conv) per layer, as the CLI's
    weights files (a conv layer in PyTorch's [out][in][kh][kw] layout with "type":"conv")."""
    out = []
    for weight, bias, conv in layers:
        bias = bias if bias is not None else np.zeros(weight.shape[0], dtype=np.float32)
        entry = {"weight": _finite_list(weight), "bias": _finite_list(bias)}
        if conv:
            entry = {"type": "conv", **entry}
        out.append(entry)
    return {"layers": out}


def _finite_list(array):
    array = np.asarray(array, dtype=np.float64)
    if np.isfinite(array).all():
        return array.tolist()
    def convert(x):
        if isinstance(x, list):
            return [convert(v) for v in x]
        return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
    return convert(array.tolist())
