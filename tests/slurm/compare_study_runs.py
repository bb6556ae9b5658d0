#!/usr/bin/env python3
"""Compares two folders written by the same study (one run through Slurm, one locally): every file
under results/ and every file of each trial's folder (a folder holding trial.json), whatever their
names, so a new results file is compared without editing this script. A file on one side only, or a
file whose content differs, is named with the first lines of the difference; exit status 1 then.

What may differ between two runs of the same study is taken out before comparing:
- the study folder's path, which becomes DIR wherever it appears;
- in CSV files, the columns whose name starts with "wall" (wall_ms of results/time-to-target.csv and
  of each trial's summary.csv and metrics.csv), and in JSON files the keys that start with "wall":
  they time the machine and its load, not the computation, and differ on every run.
Everything else (trial.json, summary.csv, metrics.csv, weights, every results file) must be identical.

Usage: compare_study_runs.py SLURM_FOLDER LOCAL_FOLDER
"""
import csv
import difflib
import io
import json
import os
import sys
from pathlib import Path


def is_wall(name):
    return name.strip().lower().startswith("wall")


def without_wall_columns(text):
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or not any(is_wall(name) for name in rows[0]):
        return text
    kept = [i for i, name in enumerate(rows[0]) if not is_wall(name)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([row[i] for i in kept if i < len(row)])
    return out.getvalue()


def without_wall_keys(value):
    if isinstance(value, dict):
        return {key: without_wall_keys(item) for key, item in value.items() if not is_wall(key)}
    if isinstance(value, list):
        return [without_wall_keys(item) for item in value]
    return value


def normalised(path, root):
    text = path.read_text(encoding="utf-8", errors="surrogateescape").replace(str(root), "DIR")
    if path.suffix == ".csv":
        return without_wall_columns(text)
    if path.suffix == ".json":
        try:
            document = json.loads(text)
        except ValueError as error:
            return f"not JSON ({error})\n{text}"
        if without_wall_keys(document) != document:
            return json.dumps(without_wall_keys(document), indent=4, sort_keys=True) + "\n"
    return text


def results_files(root):
    return {path.relative_to(root) for path in (root / "results").rglob("*") if path.is_file()}


def trial_files(root):
    folders = {path.parent for path in root.rglob("trial.json")}
    return {path.relative_to(root) for folder in folders for path in folder.iterdir() if path.is_file()}


def compare(kind, names_of, slurm, local):
    """The problems with the files `names_of` lists in both folders, and how many files it compared."""
    slurm_names, local_names = names_of(slurm), names_of(local)
    problems = [f"{name}: written by the Slurm run only" for name in sorted(slurm_names - local_names)]
    problems += [f"{name}: written by the local run only" for name in sorted(local_names - slurm_names)]
    if not local_names:
        problems.append(f"the local run wrote no {kind} files")
    for name in sorted(slurm_names & local_names):
        a, b = normalised(slurm / name, slurm), normalised(local / name, local)
        if a != b:
            diff = difflib.unified_diff(
                a.splitlines(), b.splitlines(), f"slurm/{name}", f"local/{name}", lineterm="", n=1)
            lines = "\n".join(list(diff)[:20])
            problems.append(f"{name} differs between the Slurm run and the local run:\n{lines}")
    return problems, len(local_names)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_study_runs.py SLURM_FOLDER LOCAL_FOLDER")
    slurm, local = (Path(os.path.abspath(folder)) for folder in sys.argv[1:])
    results_problems, results_count = compare("results", results_files, slurm, local)
    trial_problems, trial_count = compare("trial", trial_files, slurm, local)
    problems = results_problems + trial_problems
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"{results_count} results files and {trial_count} trial files identical")


if __name__ == "__main__":
    main()
