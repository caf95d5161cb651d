"""Warnings name the user's line that caused them, and say it once.

A fixed ``stacklevel`` is right for one depth of calls only: the warning of an unresolved
target raised under ``fairness_summary`` pointed into ``_resampling.py`` and ``summaries.py``,
five lines in all, so the default filter showed it five times and never named the call.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair import partitions as bp
from biofair._thresholds import RETURNED_UNRESOLVED


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 300
    return pd.DataFrame({
        "score": np.r_[rng.normal(2, 1, n), rng.normal(0, 1, 4 * n)],
        "mated": np.r_[np.ones(n, bool), np.zeros(4 * n, bool)],
        "gender": rng.choice(["F", "M"], 5 * n),
    })


CALLS = {
    "threshold_at_fmr": lambda t: bf.threshold_at_fmr(bf.split_scores(t)[1], 1e-4),
    "operating_summary": lambda t: bf.operating_summary(*bf.split_scores(t)),
    "fairness_discrepancy_rate": lambda t: bf.fairness_discrepancy_rate(t, by="gender"),
    "fairness_summary": lambda t: bf.fairness_summary(t, by="gender", n_resamples=40, n_permutations=20, rng=0),
    "differential_report": lambda t: bf.differential_report(t, by="gender", fmr=1e-4, rng=0),
    "inequity": lambda t: bf.inequity([0.0, 0.01], counts=[1000, 1000]),
}


@pytest.mark.parametrize("name", CALLS)
def test_warnings_point_at_the_calling_line(name: str, table: pd.DataFrame) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CALLS[name](table)
    assert caught, f"{name} was expected to warn on this table"
    assert {w.filename for w in caught} == {__file__}, [(w.filename, w.lineno) for w in caught]


def test_a_warning_raised_by_several_metrics_is_shown_once(table: pd.DataFrame) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        bf.fairness_summary(table, by="gender", n_resamples=40, n_permutations=20, rng=0)
    messages = [str(w.message) for w in caught if issubclass(w.category, bf.InsufficientComparisonsWarning)]
    assert len(messages) == 1, messages
    assert messages[0].endswith("such rows are marked unresolved")  # not the bootstraps' "value returned"


def test_a_package_imported_through_a_symbolic_link_still_points_at_the_caller(tmp_path) -> None:
    """Frames of biofair imported as /tmp/link/biofair/... were not recognised as biofair's when
    the package's own path was resolved and theirs was not (macOS's /tmp is such a link)."""
    import subprocess
    import sys
    from pathlib import Path

    link = tmp_path / "link"
    link.symlink_to(Path(bf.__file__).resolve().parents[1])
    script = ("import sys, warnings, numpy as np; sys.path.insert(0, sys.argv[1]); import biofair as bf\n"
              "assert bf.__file__.startswith(sys.argv[1])\n"
              "with warnings.catch_warnings(record=True) as caught:\n"
              "    warnings.simplefilter('always')\n"
              "    bf.threshold_at_fmr(np.arange(100.0), 1e-3)\n"
              "print(caught[0].filename)\n")
    found = subprocess.run([sys.executable, "-c", script, str(link)], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "<string>"


def test_a_warning_of_a_file_being_read_points_at_the_call(tmp_path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text("score,mated\n0.9,1\n0.1,0\n0.2,0\n,\n,\n")  # a spreadsheet's trailing rows
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bf.read_scores(path)
    assert [w.filename for w in caught] == [__file__]


def test_out_of_core_warnings_point_at_the_call(tmp_path, table: pd.DataFrame) -> None:
    table.to_parquet(tmp_path / "part.parquet")
    data = bp.partitioned(str(tmp_path / "*.parquet"), by="gender")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bp.pooled_thresholds(data, [1e-4], by="gender")
    assert caught and {w.filename for w in caught} == {__file__}
    # it returns thresholds, not rows to mark unresolved
    assert all(str(w.message).endswith(RETURNED_UNRESOLVED) for w in caught), caught[0].message


def test_a_target_just_below_three_over_n_is_told_apart_from_it():
    """'target FMR 0.0003 is below 3/N = 0.0003': 3/N of 9,999 comparisons (0.00030003) was
    written to three digits, as the target it exceeds."""
    scores = np.linspace(0, 1, 9999)
    with pytest.warns(bf.InsufficientComparisonsWarning, match=re.escape(
            "target FMR 0.0003 is below 3/N = 0.00030003 (N = 9999 non-mated comparisons)")):
        bf.tmr_at_fmr(scores[:100], scores, 0.0003)
    with pytest.warns(bf.InsufficientComparisonsWarning, match=re.escape(
            "target FMR 0.0001 is below 3/N = 0.0003 (N = 9999 non-mated comparisons)")):  # three digits tell
        bf.tmr_at_fmr(scores[:100], scores, 0.0001)
