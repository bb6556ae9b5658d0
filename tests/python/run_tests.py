#!/usr/bin/env python3
"""Runs the PyTorch bridge's tests (python/momentum_lab) with unittest, one torch thread.

    /usr/bin/python3 tests/python/run_tests.py PATH/TO/momentum-lab-cli [test_module ...]

Without module names every test_*.py here runs. Exits 77 (CTest: skipped) with a message when
torch or numpy is not importable by this python3.
"""
import os
import sys
import unittest
from pathlib import Path

try:
    import numpy  # noqa: F401
    import torch
except ImportError as error:
    print(f"SKIP: {error.name} is not importable by this python3 (Debian: apt install python3-torch python3-numpy)")
    sys.exit(77)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: run_tests.py MOMENTUM_LAB_CLI [test_module ...]")
    os.environ["MOMENTUM_LAB_CLI"] = sys.argv[1]
    torch.set_num_threads(1)
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    loader = unittest.TestLoader()
    names = sys.argv[2:] or sorted(p.stem for p in here.glob("test_*.py"))
    suite = unittest.TestSuite(loader.loadTestsFromName(name) for name in names)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
