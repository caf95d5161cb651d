"""The ends of the generalised Pareto intervals at the edges of their grids, and the far
tail, against a profile likelihood computed apart (``tests/tails.py``): the shape is
maximised continuously (``scipy.optimize``) and ``S`` is taken by its logarithm, so that
constraints below the smallest float64 are constraints too; not biofair's grid of shapes."""

import re
import warnings

import numpy as np
import pytest
from scipy import stats

import biofair as bf
from tails import ProfileReference as Reference


@pytest.fixture(scope="module")
def normal():
    return np.random.default_rng(0).normal(size=2_000)


@pytest.fixture(scope="module")
def heavy():
    """Generalised Pareto scores of shape 0.5 (fitted: 0.35), a tail with no end."""
    return stats.genpareto.rvs(0.5, size=2_000, random_state=1)


@pytest.mark.parametrize("above", [5, 20, 40, 100])
def test_the_fmr_upper_end_is_solved_for_up_to_s_1(normal, above):
    """The finding: a threshold ``above`` scores into the tail of 200 (S from 0.97 down to 0.5)
    had its upper end replaced by n_u/N = 0.1 (the S grid stopped at 10^-0.25): 0.0507 in
    [0.0449, 0.1000] at 100, where the profile likelihood gives [0.0449, 0.0563]. The end is now
    solved for up to S = 1, where no tail meets the constraint. Tolerance: 2e-3 relative (a grid
    of shapes can only narrow the interval, and does so here by about 2e-4)."""
    top = np.sort(normal)
    threshold = (top[-201 + above] + top[-200 + above]) / 2
    reference = Reference(normal)
    estimate, low, high = (reference.share * 10**end for end in reference.fmr_interval(threshold))
    assert high < 0.98 * reference.share
    tail = bf.extrapolated_fmr(normal, threshold)
    assert tail.estimate == pytest.approx(estimate, rel=1e-5)  # scipy's fit, on excesses in other units
    assert tail.low == pytest.approx(low, rel=2e-3) and tail.high == pytest.approx(high, rel=2e-3)


@pytest.mark.parametrize("fmr", [0.095, 0.099])
def test_the_threshold_lower_end_is_solved_for_towards_u(normal, fmr):
    """The finding: near n_u/N = 0.1 the estimate's distance above u is below the grid's first
    (1/59 of the largest excess) and became its end: the interval's lower end was the estimate,
    1.29496 at fmr=0.095 (profile: 1.29020), and 1.27307 at 0.099 (profile: 1.27212). The grid
    now starts at u, where no tail meets the constraint. Tolerance: 1e-4 (the scores' spread
    is 1)."""
    estimate, low, high = Reference(normal).threshold_interval(fmr)
    tail = bf.extrapolated_threshold(normal, fmr)
    assert tail.estimate == pytest.approx(estimate, abs=1e-5)
    assert tail.low == pytest.approx(low, abs=1e-4) and tail.high == pytest.approx(high, abs=1e-4)
    assert tail.tail_start < tail.low < tail.estimate


def test_a_threshold_near_the_largest_float_gives_no_numpy_warning(normal):
    """The finding: at 1e308 the distance above u, in units of the mean excess, overflowed with
    a RuntimeWarning ('overflow encountered in scalar divide'). The result is unchanged: the
    bounded tail (shape -0.21) ends at 3.83, and the FMR beyond it is 0, warned."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(UserWarning, match=r"^extrapolated_fmr: the generalised Pareto tail fitted to the top 200 of "
                                             r"the 2,000 non-mated scores \(shape -0\.21\) ends at 3\.83279, below "
                                             r"threshold=1e\+308") as caught:
            tail = bf.extrapolated_fmr(normal, 1e308)
    assert (tail.estimate, tail.low, tail.high) == (0.0, 0.0, 0.0) and tail.shape < 0
    assert "accepted at confidence 1" not in str(caught[0].message)  # its deviance is inf


def test_an_infinite_threshold_has_an_fmr_of_0_exactly(normal, heavy):
    """No score reaches an infinite threshold: the FMR is 0 in [0, 0] whatever the tail, and
    nothing is warned. It was warned that the heavy tail (shape 0.35) 'ends at -5.00247,
    below threshold=inf', with 'a deviance of inf' 'accepted at confidence 1'."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for scores in (normal, heavy):
            tail = bf.extrapolated_fmr(scores, np.inf)
            assert (tail.estimate, tail.low, tail.high, tail.fmr) == (0.0, 0.0, 0.0, 0.0) and tail.extrapolated


def test_an_fmr_below_the_smallest_float_is_warned_as_an_underflow(heavy):
    """At 1e250 the heavy tail's FMR is 10^-714.3: the estimate 0 is that value underflowing,
    not a tail ending below the threshold, as the warning said (the same false 'ends at -5.00247'
    as at inf). The profile likelihood computed here puts the upper end at 10^-436 (both ends
    underflow too: the interval is [0, 0] as float64), and the warning now says so. (The
    estimate, 10^-714, moves by 0.1 decade between scipy's fits of the excesses in other units:
    it is checked against the tail biofair returns.)"""
    reference = Reference(heavy)
    high = np.log10(reference.share) + reference.fmr_interval(1e250)[2]
    assert high < -324  # below 2**-1074
    with pytest.warns(UserWarning, match=r"^extrapolated_fmr: an FMR below the smallest float64 \(2\*\*-1074, "
                                         r"4\.9e-324\): threshold=1e\+250 is reached by the generalised Pareto "
                                         r"tail fitted to the top 200 of the 2,000 non-mated scores \(shape 0\.35, a "
                                         r"tail with no end\) with an FMR of 10\^(-?\d+\.\d): the estimate is "
                                         r"returned as 0") as caught:
        tail = bf.extrapolated_fmr(heavy, 1e250)
    assert (tail.estimate, tail.low, tail.high) == (0.0, 0.0, 0.0)
    log_survival = stats.genpareto.logsf(1e250 - tail.tail_start, tail.shape, 0, tail.scale)
    estimate = np.log10(200 / 2_000) + log_survival / np.log(10)
    message = str(caught[0].message)
    assert float(re.search(r"FMR of 10\^(-?\d+\.\d)", message).group(1)) == pytest.approx(estimate, abs=0.051)
    assert "ends at" not in message and "interval [0, 0]" in message


def test_a_heavy_tail_too_far_for_float64_is_refused(heavy):
    """At 1.7e308 the distance of the threshold above u overflows float64 (in units of the mean
    excess, 0.002 for these scores / 1000): a bounded tail's FMR there is 0, but a tail with no
    end gives none. It was warned that the tail 'ends at -0.005', below the threshold."""
    with pytest.raises(OverflowError, match=r"^threshold=1\.7e\+308 lies more than 1\.8e308 mean excesses .* "
                                            r"its distance overflows float64, and a tail with no end \(shape 0\.35\)"):
        bf.extrapolated_fmr(heavy / 1000, 1.7e308)


def test_a_threshold_beyond_the_largest_float_is_refused(heavy):
    """The finding: the threshold at 1e-30 of these scores times 1e300 (2.5e10 mean excesses above
    u) was inf, in [inf, inf], without a word. It is refused, naming the overflow. At 1e-300 of
    the scores times 1e200 the estimate, 2.35e305, is a float64: returned, its upper end inf."""
    with pytest.raises(OverflowError, match=r"^the threshold at fmr=1e-30 overflows float64: the generalised "
                                            r"Pareto tail fitted to the top 200 of the 2,000 non-mated scores "
                                            r"\(shape 0\.35\)"):
        bf.extrapolated_threshold(heavy * 1e300, 1e-30)
    tail = bf.extrapolated_threshold(heavy * 1e200, 1e-300)
    estimate = tail.tail_start + stats.genpareto.isf(1e-300 / 0.1, tail.shape, 0, tail.scale)  # its definition
    assert tail.estimate == pytest.approx(estimate, rel=1e-9) and tail.low < tail.estimate
    assert tail.high == np.inf
