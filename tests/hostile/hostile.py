"""Helpers of the hostile-input suite: the shipped example and the CLI in another process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "biofair" / "data" / "example_scores.csv"
FAST_DIFFERENTIAL = ["-n", "40", "--seed", "3"]
FAST = [*FAST_DIFFERENTIAL, "--n-permutations", "10"]  # the standard layout's


def example() -> pd.DataFrame:
    """The shipped example: 3 groups of 12 subjects, subject ids, pair-level groups."""
    return pd.read_csv(EXAMPLE, dtype={"group": str})


def biofair_command(*args, **kwargs) -> subprocess.Popen:
    """Start ``biofair`` in a process of its own (stdout and stderr captured as text)."""
    command = [str(Path(sys.executable).with_name("biofair")), *map(str, args)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, **kwargs)
