"""Second audit of the error-rate and outcome-fairness modules at their numerical edges.

Each test compares biofair with a computation written here (a brute-force loop, exact
fractions, scipy's optimisers) and failed on the module it was written against.
"""

import numpy as np
import pytest
from scipy import optimize, stats

import biofair as bf
from tails import CUT95, ProfileReference

#: Shapes up to 8: the constrained likelihood of a heavy tail far out peaks well above the fit's shape.
HEAVY_SHAPES = np.linspace(-0.9999, 8.0, 4000)


@pytest.fixture(scope="module")
def heavy_tails():
    """Generalised Pareto scores of shapes 1.5 and 2 (2,000 each): heavy tails, whose
    constrained likelihood is sharp in the shape far beyond the data."""
    rng = np.random.default_rng(0)
    stats.genpareto.rvs(1.0, size=2000, random_state=rng)  # the probe's first sample, skipped
    return [stats.genpareto.rvs(xi, size=2000, random_state=rng) for xi in (1.5, 2.0)]


@pytest.mark.parametrize("which", [0, 1])
def test_extrapolated_fmr_interval_ends_are_the_continuous_profiles(heavy_tails, which):
    """The finding: the profile was the best of a grid of shapes (0.02 apart, a quarter of a
    standard error near the fit), and under a constraint far out the likelihood is far
    sharper in the shape than the fit's: at S(d) = 1e-3 the best grid shape was 0.02 from the
    optimum and 0.30-0.41 below its log-likelihood. For shape-2 scores the interval of the FMR
    at the true 1e-5 threshold was [1.05e-6, 3.19e-5] where the profile gives
    [8.05e-7, 3.41e-5] (the lower end 30% high); for shape 1.5 the upper end was 5% short."""
    scores = heavy_tails[which]
    threshold = stats.genpareto.isf(1e-5, (1.5, 2.0)[which])
    reference = ProfileReference(scores, shapes=HEAVY_SHAPES)
    d = threshold - reference.start
    estimate = stats.genpareto.logsf(d, reference.shape, 0, reference.scale) / np.log(10)

    def excess_deviance(log10_s):
        return reference.deviance(d, log10_s * np.log(10)) - CUT95

    low = optimize.brentq(excess_deviance, -14, estimate, xtol=1e-9)
    high = optimize.brentq(excess_deviance, estimate, -1e-9, xtol=1e-9)
    tail = bf.extrapolated_fmr(scores, threshold)
    assert tail.estimate == pytest.approx(reference.share * 10**estimate, rel=1e-3)  # scipy's fit, scaled or not
    assert tail.low == pytest.approx(reference.share * 10**low, rel=1e-3)
    assert tail.high == pytest.approx(reference.share * 10**high, rel=1e-3)


@pytest.mark.parametrize("which", [0, 1])
def test_extrapolated_threshold_interval_ends_are_the_continuous_profiles(heavy_tails, which):
    """Two findings. The upper end was inf whenever the profile accepted the last of its
    distances, 100 times the largest excess, and always when the estimate lay beyond them
    (the estimate's distance is then the last, always accepted): at FMR 1e-5 the shape-1.5
    scores gave [7.68e6, inf] around 1.22e8, where the profile rejects every threshold above
    4.15e9 (docstring: inf only when a heavy tail cannot be excluded, or beyond the largest
    float64). The grid of shapes narrowed it too, as for the FMR. Both ends are now the
    continuous profile's."""
    scores, fmr = heavy_tails[which], 1e-5
    reference = ProfileReference(scores, shapes=HEAVY_SHAPES)
    log_q = np.log(fmr / reference.share)
    estimate = reference.start + stats.genpareto.isf(fmr / reference.share, reference.shape, 0, reference.scale)

    def excess_deviance(t):
        return reference.deviance(t - reference.start, log_q) - CUT95

    low = optimize.brentq(excess_deviance, reference.start + reference.y.max(), estimate, xtol=1e-9)
    high = optimize.brentq(excess_deviance, estimate, 100 * estimate, xtol=1e-9)
    tail = bf.extrapolated_threshold(scores, fmr)
    assert tail.estimate == pytest.approx(estimate, rel=1e-3)  # scipy's fit, scaled or not
    assert tail.low == pytest.approx(low, rel=1e-3)
    assert tail.high == pytest.approx(high, rel=1e-3)
