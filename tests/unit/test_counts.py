"""The shared counts at the distinct mated scores, and d' summed part by part, against direct computations."""

from __future__ import annotations

import importlib
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import biofair as bf
from biofair._counts import error_counts, mated_counts
from biofair.equal_error_rate import _eer_from_counts

from biofair import _summation

decidability_module = importlib.import_module("biofair.decidability")

scores = st.one_of(
    # Small integer grids: many ties within and across classes.
    arrays(np.float64, st.integers(1, 30), elements=st.integers(-6, 6).map(float)),
    # Continuous scores: (almost surely) no ties.
    arrays(np.float64, st.integers(1, 30), elements=st.floats(-10, 10, allow_subnormal=False)),
)


@given(mated=scores, nonmated=scores, shift=st.integers(-3, 3))
@settings(max_examples=150, deadline=None)
def test_counts_at_mated_scores_equal_direct_comparisons(mated, nonmated, shift):
    mated = mated + shift
    counts = mated_counts(mated, nonmated)
    m, n = mated.size, nonmated.size
    assert counts.values.tolist() == np.unique(mated).tolist()
    assert counts.first.tolist() == [int(np.sum(mated < v)) for v in counts.values]
    assert counts.below.tolist() == [int(np.sum(nonmated < v)) for v in counts.values]
    assert counts.after.tolist() == [int(np.sum(nonmated <= v)) for v in counts.values]
    assert counts.nonmated_sorted.tolist() == sorted(nonmated.tolist())
    assert counts.mated_sorted.tolist() == sorted(mated.tolist())
    # accept all, each distinct mated score, reject all
    assert counts.false_matches.tolist() == [n, *(int(np.sum(nonmated >= v)) for v in counts.values), 0]
    assert counts.false_non_matches.tolist() == [0, *counts.first.tolist(), m]


@given(mated=scores, nonmated=scores, shift=st.integers(-3, 3))
@settings(max_examples=150, deadline=None)
def test_roc_vertices_trace_the_all_thresholds_roc(mated, nonmated, shift):
    mated = mated + shift
    counts = mated_counts(mated, nonmated)
    false_matches, true_matches = counts.roc_vertices()
    every = error_counts(mated, nonmated)  # every distinct score of either class is a threshold
    points = set(zip(every.false_matches.tolist(), (mated.size - every.false_non_matches).tolist()))
    points.add((nonmated.size, mated.size))  # accept all
    assert set(zip(false_matches.tolist(), true_matches.tolist())) <= points  # achievable points only
    assert (np.diff(false_matches) >= 0).all() and (np.diff(true_matches) >= 0).all()
    assert (false_matches[0], true_matches[0], false_matches[-1], true_matches[-1]) == (0, 0, nonmated.size, mated.size)
    # Twice the area under the polyline is twice the Mann-Whitney count of the pairs.
    twice = int(np.sum(np.diff(false_matches) * (true_matches[1:] + true_matches[:-1])))
    wins = (mated[:, None] > nonmated[None, :]).sum()
    ties = (mated[:, None] == nonmated[None, :]).sum()
    assert twice == 2 * wins + ties


@given(mated=scores, nonmated=scores, shift=st.integers(-3, 3),
       method=st.sampled_from(["rocch", "midpoint", "interval"]))
@settings(max_examples=150, deadline=None)
def test_eer_from_mated_counts_equals_eer_over_every_threshold(mated, nonmated, shift, method):
    mated = mated + shift
    fast = bf.eer(mated, nonmated, method=method)
    full = _eer_from_counts(error_counts(mated, nonmated), method)
    assert (fast.threshold, fast.method) == (full.threshold, full.method)
    if method == "rocch":  # collinear hull points may interpolate the crossing 1 ulp apart
        assert fast.eer == pytest.approx(full.eer, rel=0, abs=4e-16)
    else:
        assert (fast.eer, fast.low, fast.high) == (full.eer, full.low, full.high)


@given(mated=scores, nonmated=scores, p_target=st.sampled_from([0.01, 0.2, 0.5, 0.9]))
@settings(max_examples=100, deadline=None)
def test_min_dcf_equals_the_minimum_over_every_threshold(mated, nonmated, p_target):
    every = error_counts(mated, nonmated)
    cost = p_target * every.fnmr + (1 - p_target) * every.fmr
    assert bf.min_dcf(mated, nonmated, p_target=p_target) == np.min(cost) / min(p_target, 1 - p_target)


@given(values=arrays(np.float64, st.integers(1, 3000), elements=st.floats(-1e6, 1e6)),
       leaf=st.sampled_from([128, 129, 136, 1000]))
@settings(max_examples=100, deadline=None)
def test_pairwise_sum_by_parts_is_numpys_sum_to_the_bit(values, leaf):
    with mock.patch.object(_summation, "PART", leaf):
        mean, variance = decidability_module._mean_and_variance(values)
        single = decidability_module._mean_and_variance(values.astype(np.float32))
    assert (mean, variance) == (np.mean(values), np.var(values))
    wide = values.astype(np.float32).astype(np.float64)
    assert single == (np.mean(wide), np.var(wide))


@given(mated=scores, nonmated=scores)
@settings(max_examples=100, deadline=None)
def test_decidability_of_float32_scores_equals_float64_of_the_same_values(mated, nonmated):
    mated32, nonmated32 = mated.astype(np.float32), nonmated.astype(np.float32)
    if np.ptp(mated32) == 0 and np.ptp(nonmated32) == 0:
        return  # undefined (both classes constant)
    assert bf.decidability(mated32, nonmated32) == bf.decidability(mated32.astype(float), nonmated32.astype(float))


@pytest.mark.parametrize("bad, message", [(np.nan, "1 NaN and 0 infinite values"), (np.inf, "0 NaN and 1 infinite value"),
                                          (-np.inf, "0 NaN and 1 infinite value")])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_non_finite_scores_are_found_after_sorting(bad, message, dtype):
    values = np.array([0.3, 0.1, bad, 0.2], dtype=dtype)
    for call in (bf.eer, bf.min_dcf, bf.roc_auc, bf.operating_summary):
        with pytest.raises(ValueError, match=f"nonmated contains {message}"):
            call([0.5, 0.6], values)
        with pytest.raises(ValueError, match=f"mated contains {message}"):
            call(values, [0.5, 0.6])


@given(mated=scores, nonmated=scores, bound=st.sampled_from([1.0, 0.3, 0.05]))
@settings(max_examples=60, deadline=None)
def test_areas_in_floating_point_where_integers_could_overflow(mated, nonmated, bound):
    # Beyond 2·M·N >= 2^62 the trapezoids are summed in float64; the same areas up to rounding.
    areas = importlib.import_module("biofair.areas")
    exact = (bf.roc_auc(mated, nonmated), bf.partial_auc(mated, nonmated, max_fmr=bound))
    with mock.patch.object(areas, "_twice_area_exact", lambda m, n: False):
        rounded = (bf.roc_auc(mated, nonmated), bf.partial_auc(mated, nonmated, max_fmr=bound))
    assert rounded == pytest.approx(exact, rel=1e-12, abs=1e-15)


@given(mated=scores, nonmated=scores, shift=st.integers(-3, 3), data=st.data())
@settings(max_examples=200, deadline=None)
def test_counts_made_part_by_part_are_those_of_the_whole(mated, nonmated, shift, data):
    """false_matches_between / false_non_matches_between / mated_at_values: slices of the
    whole arrays, at every boundary (accept-all and reject-all points included)."""
    counts = mated_counts(mated + shift, nonmated)
    size = counts.first.size + 2
    start = data.draw(st.integers(0, size - 1))
    stop = data.draw(st.integers(start + 1, size))
    assert np.array_equal(counts.false_matches_between(start, stop), counts.false_matches[start:stop])
    assert np.array_equal(counts.false_non_matches_between(start, stop), counts.false_non_matches[start:stop])
    first = counts.first
    per_value = np.diff(np.append(first, counts.n_mated))  # mated scores at each distinct one
    assert per_value.sum() == counts.n_mated
    low, high = min(start, first.size - 1), min(stop, first.size)
    assert np.array_equal(counts.mated_at_values(low, high), per_value[low:high])


@pytest.mark.parametrize("part", [128, 136, 1000])
@pytest.mark.parametrize("decimals", [None, 2])
def test_metrics_computed_part_by_part_equal_the_whole_array_formulas(part, decimals):
    """ROC AUC, average precision and minDCF are computed part by part (operating_summary runs
    them beside the areas and the EER without adding to its peak memory): to the bit the
    formulas over whole arrays (Mann-Whitney count, np.sum of recall steps x precision, np.min
    of the costs), with parts far smaller than the 3,000 distinct mated scores."""
    rng = np.random.default_rng(11)
    mated, nonmated = rng.normal(1.5, 1, 3_000), rng.normal(0, 1, 20_000)
    if decimals is not None:
        mated, nonmated = np.round(mated, decimals), np.round(nonmated, decimals)
    counts = mated_counts(mated, nonmated)
    m, n, first, below = counts.n_mated, counts.n_nonmated, counts.first, counts.below
    per_value = np.diff(first, append=m)
    twice_area = int(np.dot(per_value, counts.below + counts.after))
    precision = (m - first) / (n - below + m - first)
    costs = 0.05 * counts.fnmr + 0.95 * counts.fmr
    areas, detection_cost = importlib.import_module("biofair.areas"), importlib.import_module("biofair.detection_cost")
    with mock.patch.object(areas, "SMALL_PART", part), mock.patch.object(detection_cost, "SMALL_PART", part):
        assert areas._roc_auc_from_counts(counts) == twice_area / (2 * m * n)
        assert areas._pr_auc_from_counts(counts) == float(np.sum(per_value / m * precision))
        assert detection_cost._min_dcf_from_counts(counts, 0.05) == float(np.min(costs)) / 0.05
    assert twice_area / (2 * m * n) == pytest.approx(roc_auc_score_of(mated, nonmated), abs=1e-15)


def roc_auc_score_of(mated, nonmated):
    """The Mann-Whitney AUC by brute force over every pair (ties count one half)."""
    greater = (mated[:, None] > nonmated[None, :]).sum()
    ties = (mated[:, None] == nonmated[None, :]).sum()
    return (greater + ties / 2) / (mated.size * nonmated.size)
