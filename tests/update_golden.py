#!/usr/bin/env python3
"""Rewrites the golden arrays of tests/test_reproducibility.cpp from its own printout.

Use only after a deliberate change of the numbers (say so in the commit):
  MOMENTUM_LAB_PRINT_GOLDEN=1 build/tests/test_reproducibility | python3 tests/update_golden.py
"""
import re
import sys
from pathlib import Path

path = Path(__file__).with_name("test_reproducibility.cpp")
source = path.read_text()
for line in sys.stdin:
    match = re.match(r"^(\w+) = \{(.*)\};$", line.strip())
    if not match:
        continue
    name, values = match.group(1), match.group(2).split(", ")
    rows = [", ".join(values[i:i + 6]) for i in range(0, len(values), 6)]
    body = "{\n        " + ",\n        ".join(rows) + "}" if len(values) > 6 else "{" + ", ".join(values) + "}"
    constant = "k" + name[0].upper() + name[1:]
    source, count = re.subn(r"(const std::vector<double> %s = )\{[^}]*\};" % constant,
                            lambda m: m.group(1) + body + ";", source)
    if count != 1:
        sys.exit(f"{constant}: not found in {path}")
path.write_text(source)
