"""Helpers of the hostile-input suite: the shipped example and the CLI in another process."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "biofair" / "data" / "example_scores.csv"
FAST_DIFFERENTIAL = ["-n", "40", "--seed", "3"]
FAST = [*FAST_DIFFERENTIAL, "--n-permutations", "10"]  # the standard layout's


def example() -> pd.DataFrame:
    """The shipped example: 3 groups of 12 subjects, subject ids, pair-level groups."""
    return pd.read_csv(EXAMPLE, dtype={"group": str})


def as_from_a_terminal() -> None:
    """Give SIGINT, SIGTERM and SIGHUP the handlers of a program started from a terminal. A test
    run in the background of a script (SIGINT ignored) or under nohup (SIGHUP ignored) hands
    that ignoring on to its processes, and ``biofair report`` keeps a signal ignored on entry:
    the tests that interrupt a run would find it running on."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)


def biofair_command(*args, **kwargs) -> subprocess.Popen:
    """Start ``biofair`` in a process of its own (stdout and stderr captured as text), its
    signals as from a terminal unless ``preexec_fn`` says otherwise."""
    command = [str(Path(sys.executable).with_name("biofair")), *map(str, args)]
    kwargs.setdefault("preexec_fn", as_from_a_terminal)
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, **kwargs)


def three_groups(labels: tuple[str, str, str], n: int = 300) -> pd.DataFrame:
    """``n`` comparisons in three groups named ``labels``, a quarter of them mated, scores
    rounded to 2 decimals (ties), each group's a little higher than the one before."""
    rng = np.random.default_rng(0)
    group = np.arange(n) % 3
    mated = (np.arange(n) // 3) % 4 == 0
    score = np.round(rng.normal(np.where(mated, 1.5, 0.0) + 0.3 * group, 1.0), 2)
    return pd.DataFrame({"score": score, "mated": mated, "group": np.array(labels)[group]})
