#!/usr/bin/env python3
"""The folders of core/ and ui/ are stages of one pipeline, listed in order by the
`foreach(folder ...)` line of core/CMakeLists.txt and ui/CMakeLists.txt. A file may include
headers of its own stage and of earlier ones, never of a later one (an arrow backwards would
make the layout lie about the data flow).

    python3 scripts/check-layers.py [REPO]      exit 0: no backward include; 1: each one listed
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"(([A-Za-z_]+)/[^"]+)"', re.M)
FOREACH = re.compile(r"^foreach\(folder ([^)]*)\)", re.M)


def stages(cmake_file):
    match = FOREACH.search(cmake_file.read_text())
    if not match:
        sys.exit(f"{cmake_file}: expected a 'foreach(folder ...)' line listing the stages in order")
    return match.group(1).split()


def backward_includes(root, order):
    """(file, line number, included stage, own stage) of every include of a later stage."""
    rank = {name: index for index, name in enumerate(order)}
    found = []
    for stage in order:
        for path in sorted((root / stage).rglob("*")):
            if path.suffix not in (".h", ".cpp"):
                continue
            text = path.read_text(errors="replace")
            for match in INCLUDE.finditer(text):
                included = match.group(2)
                if not (root / match.group(1)).exists():
                    continue  # another include root's header (ui/ also sees core/'s folders)
                if included in rank and rank[included] > rank[stage]:
                    line = text.count("\n", 0, match.start()) + 1
                    found.append((path, line, included, stage))
    return found


def main():
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = []
    for part in ("core", "ui"):
        order = stages(repo / part / "CMakeLists.txt")
        print(f"{part}/: {' -> '.join(order)}")
        problems += backward_includes(repo / part, order)
    for path, line, included, stage in problems:
        print(f"{path.relative_to(repo)}:{line}: includes {included}/, a later stage than {stage}/")
    print(f"{len(problems)} backward include(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
