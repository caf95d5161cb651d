"""Edge numerics of ``bf.bootstrap`` and its intervals (``biofair._resampling.interval``),
each against an independent computation: exact fractions for the percentile ends, Efron
and Tibshirani's BCa level written out for the adjusted levels.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import biofair as bf


def type7_percentile(values, q: float) -> float:
    """The type-7 (linear) percentile ``q`` (in percent, as NumPy takes it) in exact
    arithmetic: the position ``q/100 · (n - 1)`` as NumPy rounds it, then the exact point
    between its two neighbours, rounded once to float64."""
    ordered = sorted(Fraction(float(v)) for v in values)
    position = Fraction(q / 100 * (len(ordered) - 1))
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    t = position - below
    return float(ordered[below] + (ordered[above] - ordered[below]) * t)


def median_of_mated(mated, nonmated) -> float:
    return float(np.median(mated))


def test_percentile_end_between_replicates_of_opposite_huge_sign_is_finite():
    """The percentile end lies between two replicates, -1e308 and 1e308: NumPy's linear
    interpolation took their difference, 2e308, which overflowed to inf, and the interval
    came back as [-inf, 1.5e308] (a RuntimeWarning only). The end is the point 0.975 of
    the way from -1e308 to 1e308, 9.5e307, a finite float."""
    mated = np.array([-1e308, 1e308, 1e308, 1.5e308, 1.5e308])
    result = bf.bootstrap(median_of_mated, (mated, np.arange(5.0)), n_resamples=40, rng=5)
    replicates = np.sort(result.replicates)
    assert replicates[0] == -1e308 and replicates[1] == 1e308  # the low end lies between them
    expected = [type7_percentile(result.replicates, 100 * (1 - 0.95) / 2),
                type7_percentile(result.replicates, 100 * (1 + 0.95) / 2)]
    assert np.isfinite(expected).all()
    np.testing.assert_allclose([result.low, result.high], expected, rtol=1e-15)


def declared(replicates, leave_one_out):
    """A statistic of value 0 on all the data that declares the fast-path protocol (see
    :mod:`biofair.bootstrap`): these bootstrap replicates and these leave-one-out values (one
    sample, one unit each)."""
    def statistic(mated, nonmated) -> float:
        return 0.0

    statistic.bootstrap_replicates = lambda mated, nonmated, **_: replicates
    statistic.jackknife_replicates = lambda mated, nonmated, **_: [(leave_one_out, np.ones(leave_one_out.size))]
    return statistic


def bca_levels(replicates, estimate, leave_one_out, confidence):
    """Efron and Tibshirani's eq. 14.10 and 14.15 written out: z0, the acceleration ``a`` of
    one sample, and ``1 - a (z0 + z)`` at both ends with the adjusted levels."""
    z0 = stats.norm.ppf(np.mean(replicates < estimate) + np.mean(replicates == estimate) / 2)
    u = (leave_one_out.size - 1) * (np.mean(leave_one_out) - leave_one_out)
    a = np.sum(u**3) / (6 * np.sum(u**2) ** 1.5)
    z = stats.norm.ppf([(1 - confidence) / 2, (1 + confidence) / 2])
    denominators = 1 - a * (z0 + z)
    return denominators, stats.norm.cdf(z0 + (z0 + z) / denominators)


# 1999 replicates below the estimate 0 and one above (z0 = 3.29), and a jackknife in which one
# unit of 100 moves the statistic (a = 0.165, near the largest acceleration, 1/6)
POLE_REPLICATES = np.append(-1.0 - np.arange(1999.0), 1.0)
POLE_LEAVE_ONE_OUT = np.append(-1.0, np.zeros(99))


def test_bca_beyond_the_pole_of_its_level_transformation_is_refused():
    """BCa's adjusted level Phi(z0 + (z0 + z) / (1 - a (z0 + z))) is increasing in z only while
    1 - a (z0 + z) > 0; beyond it the level wraps around to the other side. At 99.9% here
    1 - a (z0 + z) = -0.080 at the upper end, whose level fell to 0 (below the lower end's
    0.9995): the interval came back as [-0.999, -1999.0], its low end above its high end."""
    statistic = declared(POLE_REPLICATES, POLE_LEAVE_ONE_OUT)
    denominators, levels = bca_levels(POLE_REPLICATES, 0.0, POLE_LEAVE_ONE_OUT, 0.999)
    assert denominators[1] < 0 < denominators[0] and levels[1] < levels[0]  # the wrap-around
    with pytest.raises(ValueError, match=r"^method='bca' is undefined here: .*1 - a·\(z0 \+ z\) = -0\.08.*"
                                         r"use method='percentile'"):
        bf.bootstrap(statistic, ([1.0, 2.0], [0.0, 1.0]), method="bca", n_resamples=2000, confidence=0.999, rng=0)


def test_bca_just_inside_the_pole_is_efrons_interval():
    """At 99% the same replicates and jackknife keep 1 - a (z0 + z) = 0.037 > 0: the interval is
    Efron's, read at the adjusted levels."""
    statistic = declared(POLE_REPLICATES, POLE_LEAVE_ONE_OUT)
    denominators, levels = bca_levels(POLE_REPLICATES, 0.0, POLE_LEAVE_ONE_OUT, 0.99)
    assert (denominators > 0).all() and denominators.min() < 0.05
    result = bf.bootstrap(statistic, ([1.0, 2.0], [0.0, 1.0]), method="bca", n_resamples=2000, confidence=0.99, rng=0)
    expected = [type7_percentile(POLE_REPLICATES, 100 * level) for level in levels]
    np.testing.assert_allclose([result.low, result.high], expected, rtol=1e-12)
    assert result.low <= result.high


def test_bca_of_replicates_of_opposite_huge_sign_is_the_scaled_interval():
    """BCa is invariant to the scale of the statistic: the median of scores times 2^1021
    (up to ±1.57e308) has the interval of the median of the unscaled scores times 2^1021, bit
    for bit. z0 counted the replicates equal to the estimate from ``|replicate - estimate|``,
    which overflowed between -7·2^1021 and 2·2^1021 (a RuntimeWarning: an error under
    warnings-as-errors, noise for everyone else)."""
    unscaled = np.array([-7.0, -1, 2, 7, 3, 5, -6])
    small = bf.bootstrap(median_of_mated, (unscaled, np.arange(5.0)), method="bca", n_resamples=200, rng=0)
    huge = bf.bootstrap(median_of_mated, (np.ldexp(unscaled, 1021), np.arange(5.0)), method="bca",
                        n_resamples=200, rng=0)
    assert huge.replicates.min() < 0 < huge.replicates.max()
    np.testing.assert_array_equal(huge.replicates, np.ldexp(small.replicates, 1021))
    assert [huge.low, huge.high] == list(np.ldexp([small.low, small.high], 1021))


def test_roc_auc_bca_with_one_mated_comparison_is_the_plain_jackknifes():
    """bootstrap documents that a class of one comparison adds nothing to the acceleration and
    is not left out: the statistic wrapped in a lambda (the plain jackknife) gives Efron's
    interval from the non-mated jackknife; bf.roc_auc, whose fast path gives its leave-one-out
    values in closed form, refused ("needs at least two comparisons of each class"). Both now
    give the same interval, which is Efron's by hand."""
    mated, nonmated = np.array([0.9]), np.random.default_rng(0).normal(size=300)
    fast = bf.bootstrap(bf.roc_auc, (mated, nonmated), method="bca", n_resamples=200, rng=0)
    plain = bf.bootstrap(lambda m, n: float(bf.roc_auc(m, n)), (mated, nonmated), method="bca", n_resamples=200,
                         rng=0)
    np.testing.assert_array_equal(fast.replicates, plain.replicates)  # the same draws, as documented
    leave_one_out = np.array([float(bf.roc_auc(mated, np.delete(nonmated, j))) for j in range(nonmated.size)])
    _, levels = bca_levels(fast.replicates, fast.estimate, leave_one_out, 0.95)
    expected = [type7_percentile(fast.replicates, 100 * level) for level in levels]
    np.testing.assert_allclose([fast.low, fast.high], expected, rtol=1e-12)
    np.testing.assert_allclose([plain.low, plain.high], expected, rtol=1e-12)


@pytest.mark.filterwarnings("ignore::biofair.exceptions.InsufficientComparisonsWarning")  # small on purpose
@pytest.mark.parametrize(("mated", "nonmated", "fmr"), [
    (np.array([8.5]), np.arange(10.0), 0.1),  # one mated comparison: the non-mated jackknife
    (np.arange(10.0), np.array([4.5]), 0.5),  # one non-mated comparison: the mated jackknife
])
def test_tmr_bca_with_one_comparison_in_a_class_is_efrons_from_the_other(mated, nonmated, fmr):
    """As for ROC-AUC: bf.tmr_at_fmr refused BCa with one comparison in a class, which the plain
    jackknife (and bootstrap's notes) leave out. Its interval is Efron's from its replicates
    and the other class's leave-one-out values, computed by brute force."""
    result = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(fmr,), method="bca", n_resamples=400, rng=1)
    if mated.size == 1:
        leave_one_out = [float(bf.tmr_at_fmr(mated, np.delete(nonmated, j), fmr)) for j in range(nonmated.size)]
    else:
        leave_one_out = [float(bf.tmr_at_fmr(np.delete(mated, i), nonmated, fmr)) for i in range(mated.size)]
    _, levels = bca_levels(result.replicates, result.estimate, np.array(leave_one_out), 0.95)
    expected = [type7_percentile(result.replicates, 100 * level) for level in levels]
    np.testing.assert_allclose([result.low, result.high], expected, rtol=1e-12)
