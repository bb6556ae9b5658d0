#!/usr/bin/env python3
"""Writes the single-run folder REF into DIR the way a slow training does, for test_follow:

    follow_trickle.py REF DIR PAUSE_MS

config.json, weights_initial.json and the metrics header first, then "ready" on stdout. Then per
snapshots.bin record: the metrics rows up to its step and the record, each written in two parts
with PAUSE_MS between them (cut inside a metrics line, inside the record's JSON line or inside its
floats; the snapshots header too, before the first record), then "appended STEP MS" on stdout
(MS: milliseconds since the epoch once the record is whole). Last weights_final.json, and
summary.csv in two parts, then "done".
"""
import json
import shutil
import sys
import time
from pathlib import Path


def say(text):
    print(text, flush=True)


def write_in_two(path, data, cut, pause):
    with open(path, "ab") as f:
        f.write(data[:cut])
        f.flush()
        time.sleep(pause)
        f.write(data[cut:])
        f.flush()


def records(snapshots):
    """(header bytes, [(step, record bytes)]) of a snapshots.bin."""
    first = snapshots.index(b"\n") + 1
    end = snapshots.index(b"\n", first) + 1
    header, found = snapshots[:end], []
    while end < len(snapshots):
        line_end = snapshots.index(b"\n", end) + 1
        record = json.loads(snapshots[end:line_end])
        found.append((record["step"], snapshots[end:line_end + record["bytes"]]))
        end = line_end + record["bytes"]
    return header, found


def main():
    ref, out, pause = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) / 1000
    out.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "weights_initial.json"):
        shutil.copy(ref / name, out / name)
    lines = (ref / "metrics.csv").read_bytes().splitlines(keepends=True)
    (out / "metrics.csv").write_bytes(lines[0])
    rows = [(int(line.split(b",")[0]), line) for line in lines[1:]]
    header, snapshots = records((ref / "snapshots.bin").read_bytes())
    say("ready")
    write_in_two(out / "snapshots.bin", header, len(header) // 2, pause)
    for k, (step, record) in enumerate(snapshots):
        for _, line in [row for row in rows if row[0] <= step]:
            write_in_two(out / "metrics.csv", line, len(line) // 2, pause)
        rows = [row for row in rows if row[0] > step]
        line_end = record.index(b"\n") + 1
        cut = line_end // 2 if k % 2 == 0 else line_end + (len(record) - line_end) // 2
        write_in_two(out / "snapshots.bin", record, cut, pause)
        say(f"appended {step} {int(time.time() * 1000)}")
        time.sleep(pause)
    for _, line in rows:
        write_in_two(out / "metrics.csv", line, len(line) // 2, pause)
    shutil.copy(ref / "weights_final.json", out / "weights_final.json")
    summary = (ref / "summary.csv").read_bytes()
    write_in_two(out / "summary.csv", summary, len(summary) - 5, 3 * pause)
    say("done")


if __name__ == "__main__":
    main()
