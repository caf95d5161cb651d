"""Audit of the curves, areas and EERs against exact fractions: tiny FMR bounds, option checks,
fully separated classes and reversed ones."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biofair as bf


def exact_roc(mated, nonmated) -> list[tuple[Fraction, Fraction]]:
    """(FMR, TMR) at every distinct score and above the largest, FMR ascending, by counting."""
    thresholds = np.unique(np.concatenate([mated, nonmated]))
    thresholds = np.append(thresholds, np.nextafter(thresholds[-1], np.inf))[::-1]
    return [(Fraction(int(np.sum(nonmated >= t)), nonmated.size), Fraction(int(np.sum(mated >= t)), mated.size))
            for t in thresholds]


def exact_mean_tmr(mated, nonmated, bound: float) -> Fraction:
    """(1/b) ∫_0^b T(u) du on the piecewise-linear ROC, in exact fractions."""
    b, area = Fraction(bound), Fraction(0)
    roc = exact_roc(mated, nonmated)
    for (u0, t0), (u1, t1) in zip(roc[:-1], roc[1:]):
        if u0 >= b:
            break
        if u1 > u0:
            end = min(u1, b)
            area += (end - u0) * (2 * t0 + (t1 - t0) * (end - u0) / (u1 - u0)) / 2
    return area / b


BOUNDS = [float(np.finfo(np.float64).smallest_normal), 1e-300, 1e-200, 1e-155, 1e-100, 1 / 7, 1 / 3, 0.5, 1.0]


def test_partial_auc_of_a_tied_top_score_at_the_smallest_bounds():
    """A top score shared by both classes starts the ROC with a diagonal, T(u) = 2u/3 here, so
    the mean TMR below b is b/3. The area b²/3 was formed first and underflowed: 0.0 for every
    bound below 1e-162 (and digits lost below 1e-154), though bounds down to 2**-1022 are
    accepted as exact."""
    mated, nonmated = [5.0, 1.0, 1.0], [5.0, 0.0]
    for bound in BOUNDS:
        expected = Fraction(bound) / 3 if bound <= 0.5 else None
        got = bf.partial_auc(mated, nonmated, max_fmr=bound)
        if expected is not None:
            assert got == pytest.approx(float(expected), rel=1e-15, abs=0), bound
        assert got == pytest.approx(float(exact_mean_tmr(np.array(mated), np.array(nonmated), bound)),
                                     rel=1e-15, abs=0), bound


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=10), st.lists(st.integers(-3, 3), min_size=1, max_size=10),
       st.sampled_from(BOUNDS))
def test_partial_auc_equals_exact_fractions_at_any_bound(mated, nonmated, bound):
    mated, nonmated = np.array(mated, dtype=float), np.array(nonmated, dtype=float)
    expected = float(exact_mean_tmr(mated, nonmated, bound))
    got = bf.partial_auc(mated, nonmated, max_fmr=bound)
    assert got == pytest.approx(expected, rel=1e-14, abs=0)
    # McClish's form of the same mean TMR m: (1 + (m - b/2) / (1 - b/2)) / 2
    standardized = 0.5 * (1 + (Fraction(expected) - Fraction(bound) / 2) / (1 - Fraction(bound) / 2))
    got = bf.partial_auc(mated, nonmated, max_fmr=bound, standardized=True)
    assert got == pytest.approx(float(standardized), rel=1e-14, abs=0)


@pytest.mark.parametrize("flag", ["False", "no", 0, 1, None, np.array([True])])
def test_standardized_must_be_a_bool(flag):
    """standardized="False" (truthy text) gave McClish's form without a word."""
    with pytest.raises(TypeError, match="standardized must be True or False"):
        bf.partial_auc([0.5, 0.9, 0.3], [0.1, 0.5, 0.6], max_fmr=0.5, standardized=flag)


def test_standardized_takes_numpy_bools():
    mated, nonmated = [0.5, 0.9, 0.3], [0.1, 0.5, 0.6]
    for flag in (False, True):
        assert (bf.partial_auc(mated, nonmated, max_fmr=0.5, standardized=np.bool_(flag))
                == bf.partial_auc(mated, nonmated, max_fmr=0.5, standardized=flag))


def test_an_eer_method_that_is_not_text_is_named():
    """An array as method raised NumPy's "truth value of an array is ambiguous"."""
    with pytest.raises(ValueError, match=r"^method must be 'rocch', 'midpoint' or 'interval', got array"):
        bf.eer([1.0, 2.0], [0.0], method=np.array(["rocch", "midpoint"]))


def test_fully_separated_classes():
    """Every EER rule gives 0 at the smallest threshold that separates the classes; the DET
    holds the corner (0, 0) there, which probit axes cannot show (plot_det marks it); the ROC
    climbs the left edge; every area is 1."""
    mated, nonmated = [2.0, 3.0], [0.0, 1.0]
    for method in ("rocch", "midpoint", "interval"):
        assert bf.eer(mated, nonmated, method=method) == (0.0, 2.0, 0.0, 0.0, method)
    det = bf.det_curve(mated, nonmated)
    assert det.fmr.tolist() == [1.0, 0.5, 0.0, 0.0, 0.0] and det.fnmr.tolist() == [0.0, 0.0, 0.0, 0.5, 1.0]
    assert det.thresholds.tolist() == [0.0, 1.0, 2.0, 3.0, np.nextafter(3.0, np.inf)]
    roc = bf.roc_curve(mated, nonmated)
    assert roc.fmr.tolist() == [0.0, 0.0, 0.0, 0.5, 1.0] and roc.tmr.tolist() == [0.0, 0.5, 1.0, 1.0, 1.0]
    assert bf.roc_auc(mated, nonmated) == bf.partial_auc(mated, nonmated, max_fmr=1e-3) == 1.0
    assert bf.log_fmr_auc(mated, nonmated) == bf.pr_auc(mated, nonmated) == 1.0


def test_reversed_classes():
    """Mated scores all below the non-mated ones: the ROC convex hull is the chance diagonal
    (mixing accept-all and reject-all), so the ROCCH EER is 1/2, while the rules read at one
    threshold give 1; the ROC areas are 0 and the average precision is that of a ranking with
    both mated comparisons last: (1/2)(2/4) + (1/2)(1/3) = 5/12."""
    mated, nonmated = [0.0, 1.0], [2.0, 3.0]
    assert bf.eer(mated, nonmated) == (0.5, 2.0, 0.5, 0.5, "rocch")
    assert bf.eer(mated, nonmated, method="midpoint") == (1.0, 2.0, 1.0, 1.0, "midpoint")
    assert bf.eer(mated, nonmated, method="interval") == (1.0, 2.0, 1.0, 1.0, "interval")
    assert bf.roc_auc(mated, nonmated) == bf.partial_auc(mated, nonmated, max_fmr=0.5) == 0.0
    assert bf.log_fmr_auc(mated, nonmated) == 0.0
    assert bf.pr_auc(mated, nonmated) == pytest.approx(5 / 12, rel=1e-15)


@pytest.mark.parametrize("decimals", [None, 3])
def test_roc_auc_is_the_exact_mann_whitney_fraction_rounded_once(decimals):
    """Ties counted one half, to the last bit (scikit-learn's trapezoids are an ulp off here)."""
    rng = np.random.default_rng(1)
    mated, nonmated = rng.normal(1.8, 1.0, 5_000), rng.normal(0.0, 1.0, 7_000)
    if decimals is not None:
        mated, nonmated = np.round(mated, decimals), np.round(nonmated, decimals)
    ordered = np.sort(nonmated)
    twice = int(np.sum(np.searchsorted(ordered, mated, "left") + np.searchsorted(ordered, mated, "right")))
    auc = bf.roc_auc(mated, nonmated)
    assert auc == float(Fraction(twice, 2 * mated.size * nonmated.size))
    assert auc.low == auc.high == auc and auc.exact


def test_bounded_value_formats_as_its_value_and_shows_its_bounds():
    bounded = bf.BoundedValue(0.8, low=0.79, high=0.81)
    assert f"{bounded:.3f}" == "0.800" and bounded + 0 == 0.8 and bounded == 0.8
    assert str(bounded) == repr(bounded) == "BoundedValue(0.8, low=0.79, high=0.81)"
    assert str(bf.BoundedValue(0.8)) == "0.8"
    with pytest.raises(ValueError, match="low <= value <= high"):
        bf.BoundedValue(float("nan"))
