"""Bad input gives a clear error or warning that names the argument."""

from __future__ import annotations

import re

import numpy as np
import pytest

import biofair as bf

GOOD = np.array([0.2, 0.5, 0.9])
METRICS = {
    "roc_curve": bf.roc_curve,
    "det_curve": bf.det_curve,
    "roc_auc": bf.roc_auc,
    "pr_auc": bf.pr_auc,
    "eer": bf.eer,
    "min_dcf": bf.min_dcf,
    "decidability": bf.decidability,
    "log_fmr_auc": lambda m, n: bf.log_fmr_auc(m, n, min_fmr=0.5),
    "partial_auc": lambda m, n: bf.partial_auc(m, n, max_fmr=0.5),
    "tmr_at_fmr": lambda m, n: bf.tmr_at_fmr(m, n, 0.5),
    "fmr_fnmr": lambda m, n: bf.fmr_fnmr(m, n, 0.5),
    "operating_point": lambda m, n: bf.operating_point(m, n, threshold=0.5),
    "operating_summary": lambda m, n: bf.operating_summary(m, n, fmr_targets=[1.0], pauc_bounds=[1.0], min_fmr=1.0),
}
BAD = {
    "nan": ([0.1, np.nan, 0.3], ValueError, r"contains 1 NaN and 0 infinite values"),
    "inf": ([0.1, np.inf, -np.inf], ValueError, r"contains 0 NaN and 2 infinite values"),
    "empty": ([], ValueError, r"is empty"),
    "2d": ([[0.1, 0.2]], ValueError, r"must be one-dimensional"),
    "text": (["a", "b"], TypeError, r"must hold numeric scores"),
    "bool": ([True, False], TypeError, r"must hold numeric scores"),
    # NumPy counts durations among its integers: Cllr was 1.80 in seconds and 1442.9 in milliseconds
    "durations": (np.array([1, 2], dtype="timedelta64[s]"), TypeError, r"must hold numeric scores, got dtype timedelta64\[s\]"),
    # NumPy holds these whole, as one object: the message advised numpy.asarray(values, dtype=float), which fails too
    "none": (None, TypeError, r"must be a sequence of scores \(a list, an array or a Series\), got NoneType$"),
    "set": ({0.1, 0.2}, TypeError, r"must be a sequence of scores \(a list, an array or a Series\), got set; make it a "
                                   r"list first, e\.g\. list\(values\)$"),
}


@pytest.mark.parametrize("metric", sorted(METRICS))
@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("side", ["mated", "nonmated"])
def test_bad_scores_name_the_argument(metric, case, side):
    values, error, message = BAD[case]
    args = (values, GOOD) if side == "mated" else (GOOD, values)
    with pytest.raises(error, match=f"^{side} {message}"):
        METRICS[metric](*args)


@pytest.mark.parametrize("fmr", [-0.1, 1.5, np.nan])
def test_fmr_outside_unit_interval(fmr):
    with pytest.raises(ValueError, match=r"^fmr must lie in \[0, 1\]"):
        bf.threshold_at_fmr(GOOD, fmr)
    with pytest.raises(ValueError, match=r"^fmr must lie in \[0, 1\]"):
        bf.tmr_at_fmr(GOOD, GOOD, [0.1, fmr])
    with pytest.raises(ValueError, match=r"^fmr_targets must lie in \[0, 1\]"):
        bf.operating_summary(GOOD, GOOD, fmr_targets=[fmr])


@pytest.mark.parametrize("bound", [0.0, -1.0, 1.5])
def test_area_bounds_outside_unit_interval(bound):
    """The bounds' interval is [2**-1022, 1]: the message said (0, 1], which holds bounds the
    areas refuse (a summaries audit)."""
    with pytest.raises(ValueError, match=r"^max_fmr must lie in \[2\*\*-1022, 1\], got " + re.escape(repr(bound)) + "$"):
        bf.partial_auc(GOOD, GOOD, max_fmr=bound)
    with pytest.raises(ValueError, match=r"^min_fmr must lie in \[2\*\*-1022, 1\]"):
        bf.log_fmr_auc(GOOD, GOOD, min_fmr=bound)


def test_log_fmr_auc_needs_an_interval():
    with pytest.raises(ValueError, match=r"min_fmr .* must be below max_fmr"):
        bf.log_fmr_auc(GOOD, GOOD, min_fmr=0.5, max_fmr=0.5)


def test_unresolvable_targets_warn_with_the_count():
    nonmated = np.linspace(0, 1, 100)
    with pytest.warns(bf.InsufficientComparisonsWarning, match=r"0.001 is below 3/N = 0.03 \(N = 100"):
        bf.threshold_at_fmr(nonmated, 1e-3)
    with pytest.warns(bf.InsufficientComparisonsWarning, match=r"N = 100 non-mated"):
        table = bf.operating_summary(GOOD, nonmated)
    unresolved = table.loc[~table["resolved"], "fmr_target"]
    assert set(unresolved) == {1e-2, 1e-3, 1e-4}  # below 3/N = 0.03 (rule of three)
    assert set(table.loc[~table["precise"], "fmr_target"]) == {1e-1, 1e-2, 1e-3, 1e-4}  # below 30/N


def test_operating_point_needs_exactly_one_option():
    with pytest.raises(ValueError, match="exactly one of fmr= and threshold="):
        bf.operating_point(GOOD, GOOD)
    with pytest.raises(ValueError, match="exactly one of fmr= and threshold="):
        bf.operating_point(GOOD, GOOD, fmr=0.1, threshold=0.5)


def test_nan_threshold_and_bad_options():
    with pytest.raises(ValueError, match="thresholds has 1 NaN value: no comparison can be decided"):
        bf.fmr_fnmr(GOOD, GOOD, [0.5, np.nan])
    with pytest.raises(ValueError, match="^method must be 'rocch', 'midpoint' or 'interval', got 'nearest'$"):
        bf.eer(GOOD, GOOD, method="nearest")
    with pytest.raises(ValueError, match="p_target must lie in"):
        bf.min_dcf(GOOD, GOOD, p_target=1.0)
    with pytest.raises(ValueError, match=r"c_fa must lie in \(0, inf\), got 0"):
        bf.min_dcf(GOOD, GOOD, c_fa=0)
    with pytest.raises(ValueError, match="decidability is undefined"):
        bf.decidability([1.0, 1.0], [0.0, 0.0])
