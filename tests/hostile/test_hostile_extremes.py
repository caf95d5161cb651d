"""Hostile numbers at the ends of floating point, each against an independent computation.

Subnormal rates, scores a few ulps apart, values near ±1.8e308 and float32's largest score:
each test names what was wrong before its fix.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import biofair as bf
from exact import exact_decidability, exact_sqrt

ULP = np.nextafter(0.5, 1.0)  # 0.5 and one ulp


def exact_garbe(rates, correction=True) -> float:
    """GARBE of the float rates in rational arithmetic (rounded once, at the end)."""
    x = [Fraction(r) for r in rates]
    k, total = len(x), sum(x)
    if total == 0:
        return 0.0
    gini = sum(abs(a - b) for a in x for b in x) / (2 * k * total)
    return float(gini * k / (k - 1) if correction else gini)


@pytest.mark.parametrize("rates", [[5e-324, 0.0], [1e-310, 1e-310, 1e-310, 2e-310], [5e-324, 5e-324, 0.0, 0.0]])
@pytest.mark.parametrize("correction", [True, False])
def test_garbe_of_subnormal_rates(rates, correction):
    """The mean of 5e-324 and 0 rounds to 0, which GARBE read as "all rates zero" (0, the
    fairest, where one group has every error: 1); subnormal rates lost digits (0.19999999999999804)."""
    assert bf.garbe(rates, correction=correction) == pytest.approx(exact_garbe(rates, correction), rel=1e-15, abs=0)


def test_float32_scores_at_the_largest_float32_raise_no_overflow_warning():
    """A float64 threshold just above float32's largest score (the threshold that rejects
    everything) was searched as nextafter(float32 max): +inf, correctly, but with NumPy's
    "overflow encountered in nextafter", an error under warnings-as-errors."""
    top = np.finfo(np.float32).max
    mated = np.array([top, top / 2, 1.0], dtype=np.float32)
    nonmated = np.array([-top, 0.0, top], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        summary = bf.operating_summary(mated, nonmated, fmr_targets=[0.5], pauc_bounds=[0.5]).set_index("metric")
        wide = bf.operating_summary(mated.astype(float), nonmated.astype(float), fmr_targets=[0.5],
                                    pauc_bounds=[0.5]).set_index("metric")
    assert summary["value"].equals(wide["value"])


def _exact_moments(a, b):
    """Exact gap of the means, sample variances (ddof=1) and sizes of two float sets."""
    a, b = [Fraction(x) for x in a], [Fraction(x) for x in b]
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    var_a = sum((x - mean_a) ** 2 for x in a) / (len(a) - 1)
    var_b = sum((x - mean_b) ** 2 for x in b) / (len(b) - 1)
    return abs(mean_a - mean_b), var_a, var_b, len(a), len(b)


def exact_n_sigma(a, b) -> float:
    gap, var_a, var_b, _, _ = _exact_moments(a, b)
    return exact_sqrt(gap**2 / (var_a + var_b))


def exact_welch(a, b) -> float:
    gap, var_a, var_b, n_a, n_b = _exact_moments(a, b)
    se = var_a / n_a + var_b / n_b
    df = se**2 / ((var_a / n_a) ** 2 / (n_a - 1) + (var_b / n_b) ** 2 / (n_b - 1))
    return float(2 * stats.t.sf(exact_sqrt(gap**2 / se), float(df)))


BIG = 1e308
SETS = [
    ([BIG, BIG], [-BIG, BIG]),  # was NaN (the sum of the squares overflowed), with RuntimeWarnings
    ([1e-320, 0.0], [0.0, 0.0]),  # the variance underflowed: inf and 0 where the sets are 1/sqrt(2) apart
    ([0.5, 0.5, 0.5], [0.5, 0.5, ULP]),  # the mean of b rounded to 0.5: 0 and 1 where they are 0.577 apart
    ([0.1] * 5 + [np.nextafter(0.1, 1.0)], [0.1, np.nextafter(0.1, 0.0), 0.1]),
    ([1.0, 1.0, 1.0], [0.9, 1.0, 0.8]),  # one constant set: scipy's "catastrophic cancellation" warning
    ([0.2, 0.25, 0.3, 0.2], [0.3, 0.35, 0.4, 0.25]),  # ordinary values
    ([2.0**400, 2.0**400, 2.0**400], [0.0, 5e-324, 0.0]),  # t beyond the float range: p = 0
    ([1.0, 1.0], [0.0, 1e-308]),  # the same, where scipy's t overflowed with a RuntimeWarning
]


@pytest.mark.parametrize(("a", "b"), SETS)
def test_n_sigma_and_welch_similarity_of_extreme_and_close_values(a, b):
    """N-Sigma and the Welch T-test read the means and spreads of each set about a centre of
    its own, at a scale where squares neither overflow nor underflow: the exact values, and
    no RuntimeWarning (the Welch p-value of a constant set against a varied one warned)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert bf.n_sigma(a, b) == pytest.approx(exact_n_sigma(a, b), rel=1e-13, abs=0)
        assert bf.welch_similarity(a, b) == pytest.approx(exact_welch(a, b), rel=1e-10, abs=0)


_ULPS_APART = [
    ([0.5, 0.5, ULP], [0.5, 0.5, 0.5]),  # was 0: the mated mean rounded onto 0.5 (exact d' = 1)
    ([1.0, 1.0, np.nextafter(1.0, 2.0)], [1.0, 1.0]),
    ([0.1] * 5 + [np.nextafter(0.1, 1.0)], [0.1, 0.1]),  # was 1.1547 (exact 0.6325)
    ([0.5, 0.7, 0.9], [0.1, 0.3, 0.5, 0.6]),  # ordinary scores
]
_NEAR_FLOAT64_MAX = ([1e308, np.nextafter(1e308, 2e308), 1e308], [np.nextafter(1e308, 0.0), 1e308])  # beyond float32


@pytest.mark.parametrize(("mated", "nonmated", "dtype"),
                         [(*case, dtype) for case in _ULPS_APART for dtype in (np.float64, np.float32)]
                         + [(*_NEAR_FLOAT64_MAX, np.float64)])
def test_decidability_of_scores_a_few_ulps_apart(mated, nonmated, dtype):
    """d' of scores a few ulps apart: np.mean rounds a class's mean onto a score, and the gap
    of the means (or a spread) vanished or doubled. Deviations are now taken about the
    middle of each class's range; float32 scores give what float64 ones of the same values give."""
    mated, nonmated = np.array(mated), np.array(nonmated)
    if dtype is np.float32:
        mated, nonmated = mated.astype(np.float32), nonmated.astype(np.float32)
        mated[-1] = np.nextafter(mated[-1], np.float32(2))  # a few float32 ulps apart
    assert bf.decidability(mated, nonmated) == pytest.approx(exact_decidability(mated, nonmated), rel=1e-13, abs=0)
    assert bf.decidability(mated, nonmated) == bf.decidability(mated.astype(float), nonmated.astype(float))


@pytest.mark.parametrize(("mated", "nonmated"), [([0.30000000000000004] * 3, [0.2] * 3), ([0.1], [1.0, 1.0, 1.0])])
def test_decidability_of_constant_classes_is_undefined(mated, nonmated):
    """The mean of three 0.30000000000000004 rounded below them: deviations of an ulp, a
    spread of 1e-17 and d' = 5e15 where both classes are constant and d' is undefined."""
    with pytest.raises(ValueError, match="both have zero variance"):
        bf.decidability(mated, nonmated)


@pytest.mark.parametrize(("mated", "nonmated"), [
    ([1.7e308, 1.7e308], [0.0, 1e-300]),
    ([1.7e308, 1.7e308], [0.5, np.nextafter(0.5, 1.0)]),
    ([1e300, 1e300], [0.0, 1e-30]),
    ([0.0, 5e-324], [-1.7e308, -1.7e308]),
])
def test_decidability_of_a_spread_lost_in_the_scaling_is_inf(mated, nonmated):
    """A spread below 2^-1074 of the largest score became 0 when the scores were scaled, and d'
    was refused as "both have zero variance (every mated score is 1.7e+308 and every non-mated
    score 0.0)", where the non-mated scores vary. Its exact value is past the largest float."""
    assert exact_decidability(mated, nonmated) == math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert bf.decidability(mated, nonmated) == math.inf
        assert bf.decidability(nonmated, mated) == math.inf


def test_decidability_beyond_the_float_range_is_inf_without_a_warning():
    """1.8e308 against 0 and 1: d' (about 5e308) is past the largest float; it was inf with
    NumPy's "overflow encountered in ldexp"."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert bf.decidability([0.0, 1.0, 1.0, 1.0, 0.0], [np.finfo(float).max]) == math.inf
