"""Every metric of operating_summary equals a straightforward computation over all thresholds.

The oracle below is the definition, written without any of the package's shortcuts: every
distinct score of either class and one threshold above them all is a threshold, the counts at
each are direct comparisons of every score, and each metric reads those counts. biofair
computes the same metrics from the mated-score thresholds only; this test keeps it honest.
"""

from __future__ import annotations

import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import biofair as bf
from exact import exact_decidability

TARGETS = [0.5, 0.1, 0.03]
BOUNDS = [1.0, 0.3, 0.07]
MIN_FMR = 0.02
P_TARGET = 0.2


def all_threshold_counts(mated, nonmated):
    """Thresholds ascending (every distinct score, then one above all) and the counts there."""
    values = np.unique(np.concatenate([mated, nonmated]))
    thresholds = np.append(values, np.nextafter(values[-1], np.inf))
    false_matches = (nonmated[:, None] >= thresholds).sum(axis=0)
    false_non_matches = (mated[:, None] < thresholds).sum(axis=0)
    return thresholds, false_matches, false_non_matches


def area_up_to(fmr, tmr, bound):
    """Area under the piecewise-linear ROC (FMR ascending) from 0 to ``bound``."""
    j = int(np.argmax(fmr >= bound))  # the first point at or past the bound (fmr[0] is 0)
    # TMR where the segment ending at point j reaches the bound, approached from the left.
    at_bound = tmr[j - 1] + (tmr[j] - tmr[j - 1]) * (bound - fmr[j - 1]) / (fmr[j] - fmr[j - 1])
    return np.trapezoid(np.append(tmr[:j], at_bound), np.append(fmr[:j], bound))


def log_area(fmr, tmr, low, high):
    """∫ T(u) d ln u over [low, high], segment by segment (T linear in u on each)."""
    total = 0.0
    for u0, u1, t0, t1 in zip(fmr[:-1], fmr[1:], tmr[:-1], tmr[1:]):
        a, b = max(u0, low), min(u1, high)
        if b > a:
            slope = (t1 - t0) / (u1 - u0)
            total += (t0 - slope * u0) * np.log(b / a) + slope * (b - a)
    return total / np.log(high / low)


def rocch_eer(fmr, fnmr):
    """Smallest point of FMR = FNMR on a segment between two ROC points (every pair)."""
    on_diagonal = [f for f, g in zip(fmr, fnmr) if f == g]
    best = min(on_diagonal, default=np.inf)
    for f1, g1 in zip(fmr, fnmr):
        for f2, g2 in zip(fmr, fnmr):
            if g1 > f1 and g2 < f2:  # one point on each side of the diagonal
                share = (g1 - f1) / ((g1 - f1) - (g2 - f2))
                best = min(best, f1 + share * (f2 - f1))
    return best


def expected_summary(mated, nonmated, eer_method):
    thresholds, fm, fnm = all_threshold_counts(mated, nonmated)
    m, n = mated.size, nonmated.size
    fmr, fnmr, tmr = fm / n, fnm / m, (m - fnm) / m
    roc_fmr, roc_tmr = fmr[::-1], tmr[::-1]  # FMR ascending
    full = area_up_to(roc_fmr, roc_tmr, 1.0)
    values = {("roc_auc", None): full}
    for b in BOUNDS:
        values[("partial_auc", b)] = area_up_to(roc_fmr, roc_tmr, b) / b
        values[("overstatement", b)] = full - area_up_to(roc_fmr, roc_tmr, b) / b
    values[("log_fmr_auc", MIN_FMR)] = log_area(roc_fmr, roc_tmr, MIN_FMR, 1.0)
    cost = P_TARGET * fnmr + (1 - P_TARGET) * fmr
    values[("min_dcf", None)] = cost.min() / min(P_TARGET, 1 - P_TARGET)
    # the rules compare rates exactly, as fractions with the common denominator m·n (in floats
    # a tie between |FMR - FNMR| at two thresholds was broken by rounding)
    scaled_fmr, scaled_fnmr = fm.astype(object) * m, fnm.astype(object) * n
    gap = np.abs(scaled_fmr - scaled_fnmr)
    closest = int(np.flatnonzero(gap == gap.min())[0])  # the lowest such threshold
    if eer_method == "rocch":
        eer, eer_threshold = rocch_eer(fmr, fnmr), thresholds[closest]
    elif eer_method == "midpoint":
        eer, eer_threshold = (fmr[closest] + fnmr[closest]) / 2, thresholds[closest]
    else:
        below = np.flatnonzero(scaled_fnmr <= scaled_fmr)[-1]
        above = np.flatnonzero(scaled_fnmr >= scaled_fmr)[0]
        k = below if scaled_fnmr[below] + scaled_fmr[below] <= scaled_fmr[above] + scaled_fnmr[above] else above
        eer, eer_threshold = (fmr[k] + fnmr[k]) / 2, thresholds[k]
    values[("eer", None)] = eer
    values[("decidability", None)] = exact_decidability(mated, nonmated)
    true_matches = m - fnm
    precision = true_matches[:-1] / (true_matches[:-1] + fm[:-1])
    values[("pr_auc", None)] = np.sum((true_matches[:-1] - true_matches[1:]) / m * precision)
    values[("mated_nonmated_ratio", None)] = m / n
    # A threshold at a target FMR is set on the non-mated scores alone: the lowest of their
    # distinct values and one above them all whose FMR meets the target.
    candidates = np.unique(nonmated)
    candidates = np.append(candidates, np.nextafter(candidates[-1], np.inf))
    at_target = {}
    for f in TARGETS:
        t = next(c for c in candidates if np.sum(nonmated >= c) / n <= f)
        values[("tmr_at_fmr", f)], values[("fnmr_at_fmr", f)] = np.sum(mated >= t) / m, np.sum(mated < t) / m
        at_target[f] = (t, np.sum(nonmated >= t))
    values[("n_mated", None)], values[("n_nonmated", None)] = m, n
    values[("fmr_resolution", None)] = 1 / n
    return values, at_target, eer_threshold


scores = st.one_of(
    # Small integer grids: many ties within and across classes.
    arrays(np.float64, st.integers(1, 30), elements=st.integers(-6, 6).map(float)),
    # Continuous scores: (almost surely) no ties.
    arrays(np.float64, st.integers(1, 30), elements=st.floats(-10, 10, allow_subnormal=False)),
)


@given(mated=scores, nonmated=scores, shift=st.integers(-3, 3),
       eer_method=st.sampled_from(["rocch", "midpoint", "interval"]))
@settings(max_examples=150, deadline=None)
def test_operating_summary_equals_all_threshold_oracle(mated, nonmated, shift, eer_method):
    mated = mated + shift
    if np.ptp(mated) == 0 and np.ptp(nonmated) == 0:
        return  # d' is undefined (both classes constant); the summary raises (tested elsewhere)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # small N
        summary = bf.operating_summary(mated, nonmated, fmr_targets=TARGETS, pauc_bounds=BOUNDS,
                                       min_fmr=MIN_FMR, p_target=P_TARGET, eer_method=eer_method)
    expected, at_target, eer_threshold = expected_summary(mated, nonmated, eer_method)
    assert len(summary) == len(expected)
    for row in summary.itertuples(index=False):
        target = None if np.isnan(row.fmr_target) else row.fmr_target
        want = expected[(row.metric, target)]
        if row.metric in ("n_mated", "n_nonmated", "tmr_at_fmr", "fnmr_at_fmr", "mated_nonmated_ratio",
                          "fmr_resolution"):
            assert row.value == want, row.metric  # counts and ratios of counts: exact
        else:
            assert row.value == pytest.approx(want, rel=1e-12, abs=1e-12), row.metric
        if row.metric in ("tmr_at_fmr", "fnmr_at_fmr"):
            assert (row.threshold, row.k) == at_target[target]
        if row.metric == "eer":
            assert row.threshold == eer_threshold


@given(mated=scores, nonmated=scores, shift=st.integers(-3, 3))
@settings(max_examples=100, deadline=None)
def test_narrowed_hull_crossing_equals_whole_hull(mated, nonmated, shift):
    # Narrow down to two points, the least the crossing needs: every step of the narrowing runs.
    from biofair import equal_error_rate
    from biofair._counts import error_counts

    counts = error_counts(mated + shift, nonmated)
    corners = counts.corners[::-1]
    fmr, fnmr = counts.fmr[corners], counts.fnmr[corners]
    sizes = counts.n_nonmated, counts.n_mated
    with mock.patch.object(equal_error_rate, "_FEW_POINTS", 1):
        narrowed = equal_error_rate._hull_crossing_narrowed(fmr, fnmr, *sizes)
    # Where hull points are collinear (a chance ROC), the two may end the crossing's edge at
    # different points of the same line; the crossing, exact and rounded once, is the same.
    assert narrowed == equal_error_rate._hull_crossing(fmr, fnmr, *sizes)[0]
    assert narrowed == pytest.approx(rocch_eer(fmr, fnmr), abs=1e-12)


@given(mated=scores, nonmated=scores, eer_method=st.sampled_from(["rocch", "midpoint", "interval"]))
@settings(max_examples=60, deadline=None)
def test_float32_scores_give_the_float64_summary_of_the_same_values(mated, nonmated, eer_method):
    mated32, nonmated32 = mated.astype(np.float32), nonmated.astype(np.float32)
    if np.var(mated32.astype(float)) + np.var(nonmated32.astype(float)) == 0:
        return  # d' is undefined
    options = {"fmr_targets": TARGETS, "pauc_bounds": BOUNDS, "min_fmr": MIN_FMR, "eer_method": eer_method}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        single = bf.operating_summary(mated32, nonmated32, **options)
        double = bf.operating_summary(mated32.astype(np.float64), nonmated32.astype(np.float64), **options)
        assert bf.threshold_at_fmr(nonmated32, TARGETS).tolist() == bf.threshold_at_fmr(
            nonmated32.astype(np.float64), TARGETS).tolist()
    pd.testing.assert_frame_equal(single, double, check_exact=True)
