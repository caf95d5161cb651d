"""Hostile numbers given to the metrics rewritten for speed: each against an independent computation.

Found by a review of the counts at the distinct mated scores, d' summed part by part and the
stratified bootstrap; each test names the behaviour that was wrong before its fix.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import biofair as bf
from exact import exact_decidability


@pytest.mark.parametrize(("mated", "nonmated"), [
    ([0.0, 1.0, 2.0], [1e308, 1e308]),  # one class constant near the float64 limit
    ([-3.0, 1.2196095785198782e16, 0.5], [-1e308]),  # found by hypothesis: raised "both have zero variance"
    ([1e-160, 0.0, 3e-160], [1.0, 1.0, 2.0]),  # deviations whose squares are subnormal
    ([0.0, 1e-160], [1.0, 1.0]),
    ([-7.223673279221276e-158, 0.0, 0.0, -2.6688052782089457e-281], [0.0]),  # hypothesis: NumPy's d' is 2e-9 off
])
def test_decidability_keeps_the_spread_of_a_class_far_smaller_than_the_other_classs_scores(mated, nonmated):
    """A single power of two cannot bring both classes to a scale where the squares of their
    deviations neither overflow nor underflow: d' is read from each class's own scale."""
    assert bf.decidability(mated, nonmated) == pytest.approx(exact_decidability(mated, nonmated), rel=1e-13)


@pytest.mark.parametrize("order", [[-0.0, 0.0], [0.0, -0.0]])
def test_thresholds_do_not_depend_on_the_order_of_signed_zeros(order):
    """-0.0 and 0.0 are one score; which of them a sort puts first depends on the input order,
    and a threshold must not (a table would print -0 for one order and 0 for the other)."""
    nonmated = [*order, 1.0, 2.0, *order, *order]
    mated = [*order, 3.0]
    assert math.copysign(1.0, bf.threshold_at_fmr(nonmated, 1.0)) == 1.0
    assert math.copysign(1.0, bf.operating_point(mated, nonmated, fmr=1.0).threshold) == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # min_fmr 1e-3 with N = 8
        summary = bf.operating_summary([*order, 0.5, 3.0], nonmated, fmr_targets=[1.0], pauc_bounds=[1.0])
    assert math.copysign(1.0, summary.set_index("metric").loc["tmr_at_fmr", "threshold"]) == 1.0
    for method in ("rocch", "midpoint", "interval"):  # the EER lies at the threshold 0
        result = bf.eer([*order, 2.0, -1.0, 2.0], [order[0], -3.0, -2.0, 1.0, -1.0, order[1]], method=method)
        assert result.threshold == 0.0 and math.copysign(1.0, result.threshold) == 1.0, method


@pytest.mark.parametrize("order", [(-0.0, 0.0), (0.0, -0.0)])
def test_curve_thresholds_do_not_depend_on_the_order_of_signed_zeros(order):
    nonmated = [*order, 1.0, -2.0]
    mated = [*order, 3.0]
    for curve in (bf.roc_curve(mated, nonmated), bf.det_curve(mated, nonmated)):
        zeros = curve.thresholds[curve.thresholds == 0]
        assert zeros.size == 1 and math.copysign(1.0, zeros[0]) == 1.0


def test_the_largest_float_as_a_score_raises_no_overflow_warning():
    """Above the largest float the threshold that rejects everything is +inf: no warning
    (under pytest's warnings-as-errors NumPy's overflow warning was an error)."""
    big = np.finfo(np.float64).max
    mated, nonmated = np.array([0.5, big]), np.array([-1.0, 0.0, 0.25, big])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        assert bf.threshold_at_fmr(nonmated, 0.0) == np.inf
        assert bf.roc_curve(mated, nonmated).thresholds[0] == np.inf
        assert bf.det_curve(mated, nonmated).thresholds[-1] == np.inf
        assert bf.tmr_at_fmr(mated, nonmated, 0.0) == 0.0
        bf.operating_summary(mated, nonmated, fmr_targets=[0.25], pauc_bounds=[0.25])
        bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(0.25,), n_resamples=50, rng=0)


def _two_groups(values: np.ndarray) -> "pd.DataFrame":
    """The same scores for both classes; groups a and b take turns."""
    import pandas as pd

    n = values.size
    return pd.DataFrame({"score": np.concatenate([values, values]), "mated": np.repeat([True, False], n),
                         "group": np.tile(np.where(np.arange(n) % 2 == 0, "a", "b"), 2)})


@pytest.mark.parametrize("index", [bf.comprehensive_equity_index, bf.automatic_comprehensive_equity_index,
                                   bf.distribution_fairness_index])
def test_distribution_fairness_spanning_the_float_range_equals_it_at_half_scale(index):
    """The CEI splits each group at a percentile between its two lowest mated scores, -1.7e308
    and 1.5e308: NumPy's interpolation overflowed to +inf there (a RuntimeWarning, and every
    score in the tail). Halving every score changes no bin and no split: the same index."""
    rng = np.random.default_rng(0)
    spread = np.sort(rng.uniform(1.5e308, 1.7e308, 38))
    values = np.concatenate([[-1.7e308, -1.7e308], spread])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", bf.CoarseHistogramWarning)  # the two lowest squeeze the rest into 6 bins
        whole, half = index(_two_groups(values), by="group"), index(_two_groups(values / 2), by="group")
    assert (whole.normal, whole.extreme) == (half.normal, half.extreme)
    assert 0.0 <= whole.normal <= 1.0


@pytest.mark.parametrize("values", [[1.0, np.nextafter(1.0, 2.0)], [0.0, 5e-324], [1e300, np.nextafter(1e300, 2e300)]])
def test_a_range_too_narrow_for_the_bins_is_named(values):
    """Scores a few ulps apart cannot be cut into 100 equal-width bins: NumPy's "Too many bins
    for data range" named neither the scores nor the way out."""
    table = _two_groups(np.array(values * 20))
    with pytest.raises(bf.SchemaError, match=r"^the scores span only .*100 equal-width bins: give fewer bins \(bins=, "):
        bf.distribution_fairness_index(table, by="group")
    assert 0.0 <= bf.distribution_fairness_index(table, by="group", bins=1).normal <= 1.0


def test_a_range_too_narrow_for_cei_names_the_tails():
    """CEI bins the tails over their own range: the message said "the scores span only" a
    range narrower than the scores', and advised fewer bins to fairness_summary, which takes
    no bins (a summaries audit)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    values = np.r_[rng.normal(3, 1, 100), rng.normal(0, 1, 1000)] * 5e-324
    table = pd.DataFrame({"score": values, "mated": np.arange(values.size) < 100,
                          "group": np.tile(["a", "b"], values.size // 2)})
    with pytest.raises(bf.SchemaError, match=r"^the tails' scores span only \[5e-324, 1e-323\]: .* give fewer bins "
                                             r"\(bins=, where the function takes it\), or spread the scores out"):
        bf.comprehensive_equity_index(table, kind="mated")


@pytest.mark.parametrize("value", [1e16, -3e17, 1.7e308, np.finfo(float).max, -np.finfo(float).max, 0.5])
def test_one_score_has_bins_wherever_numpy_cannot_centre_it(value):
    """NumPy's range of width 1 around a single score rounds away from 1e16 on ("Too many
    bins"); the edges are then ulps of the score, finite and increasing, and hold it."""
    from biofair.distribution_fairness import _range_edges, _sorted_counts

    edges = _range_edges(value, value, 100)
    assert edges.size == 101 and np.all(np.isfinite(edges)) and np.all(np.diff(edges) > 0)
    counts = _sorted_counts(np.full(7, value), edges)
    assert counts.sum() == 7 and np.count_nonzero(counts) == 1
    if abs(value) < 1e15:  # where NumPy can, its edges
        np.testing.assert_array_equal(edges, np.histogram_bin_edges([value], bins=100))


def test_fmr_bounds_down_to_the_smallest_normal_float():
    """Below 2**-1022 the log-FMR area's ratio of bounds overflowed (NaN at min_fmr=1e-320)
    and the partial area's products underflowed (0 at max_fmr=5e-324, for 0.5): such bounds
    are refused (tests/hostile/test_hostile_api.py); from the smallest normal float on, both
    areas are right. Here TMR is 0.5 for FMR in (0, 0.5) and 1 above it."""
    mated, nonmated = [0.5, 2.0], [0.0, 1.0]
    smallest = float(np.finfo(np.float64).smallest_normal)
    assert bf.partial_auc(mated, nonmated, max_fmr=smallest) == 0.5
    # (0.5 ln(0.5 / a) + 1 ln(1 / 0.5)) / ln(1 / a), a = 2**-1022: (0.5·1021 + 1) / 1022
    assert bf.log_fmr_auc(mated, nonmated, min_fmr=smallest) == pytest.approx(511.5 / 1022, rel=1e-14)
    assert bf.log_fmr_auc([1.0], [0.0], min_fmr=smallest) == 1.0


@pytest.mark.skipif(np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps, reason="long double is float64 here")
def test_long_double_scores_that_float64_cannot_hold_are_refused():
    """1 + eps(long double) against 1 was rounded to float64 silently: a tie, ROC-AUC 0.5 where
    it is 1 (as int64 beyond 2^53 is refused); 1e400 was reported as an infinite score."""
    one = np.array([1.0], dtype=np.longdouble)
    for mated, shown in ((one + np.finfo(np.longdouble).eps, "1.0000000000000000001"), (one * np.longdouble("1e400"), "1e+400")):
        with pytest.raises(ValueError, match=re.escape(f"mated has 1 long double score (e.g. np.longdouble('{shown}')) "
                                                       "that float64 cannot hold exactly")):
            bf.roc_auc(mated, one)
    assert bf.roc_auc(one * 2, one) == 1.0  # exact in float64: read as it is


def test_thresholds_that_float64_does_not_hold_are_refused_not_rounded():
    """Scores beyond float64 are refused, thresholds were rounded without a word: 2**53 + 1
    was decided as 2**53, so the score 2**53 counted as a false match at a threshold above it
    (FMR 1 where SPEC 1 gives 0); a long double 1 + 2**-60 likewise; Fraction(1, 2) and
    10**400 were NumPy's "ufunc 'isnan' not supported" and Python's "int too large to convert
    to float" (an error rates audit). Thresholds float64 holds exactly pass, and an integer
    beyond the largest float decides every comparison as an infinite threshold does."""
    from fractions import Fraction

    rounded = "a comparison whose score lies between the two would be decided otherwise"
    with pytest.raises(ValueError, match=re.escape("threshold=9007199254740993 is not a float64 number: float64 "
                                                   "holds it as 9007199254740992.0, and " + rounded)):
        bf.operating_point([2.0**53], [2.0**53], threshold=2**53 + 1)
    with pytest.raises(ValueError, match=re.escape("threshold=Fraction(1, 3) is not a float64 number")):
        bf.operating_point([1.0, 2.0], [0.0, 1.0], threshold=Fraction(1, 3))
    with pytest.raises(ValueError, match=re.escape("thresholds has 1 value that float64 does not hold exactly (e.g. "
                                                   "9007199254740993, held as 9007199254740992.0): " + rounded)):
        bf.fmr_fnmr([2.0**53], [2.0**53], np.array([2**60, 2**53 + 1]))
    if np.finfo(np.longdouble).eps < np.finfo(np.float64).eps:
        with pytest.raises(ValueError, match=r"^thresholds has 1 value that float64 does not hold exactly"):
            bf.fmr_fnmr([1.0], [1.0], np.longdouble(1) + np.longdouble(2) ** -60)
    assert bf.fmr_fnmr([2.0**53], [2.0**53], 2**53 + 2) == (0.0, 1.0)  # float64 holds it
    assert bf.operating_point([1.0, 2.0], [0.0, 1.0], threshold=Fraction(1, 2)).false_matches == 1
    above, below = (bf.operating_point([1.0, 2.0], [0.0, 1.0], threshold=t) for t in (10**400, -10**400))
    assert (above.threshold, above.fmr, above.fnmr) == (np.inf, 0.0, 1.0)
    assert (below.threshold, below.fmr, below.fnmr) == (-np.inf, 1.0, 0.0)


def test_a_threshold_given_as_a_0d_array_is_its_number():
    """operating_point took fmr=np.array(0.1) but refused threshold=np.array(0.1) as "not a
    number" (an error rates audit); a 1-element array is still refused: one threshold."""
    mated, nonmated = [1.0, 2.0], [0.0, 1.0]
    assert bf.operating_point(mated, nonmated, threshold=np.array(0.5)) == bf.operating_point(mated, nonmated,
                                                                                              threshold=0.5)
    with pytest.raises(TypeError, match=re.escape("threshold must be a number, got array([0.5])")):
        bf.operating_point(mated, nonmated, threshold=np.array([0.5]))
