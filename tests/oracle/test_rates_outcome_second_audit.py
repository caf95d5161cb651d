"""Second audit of the error-rate and outcome-fairness modules at their numerical edges.

Each test compares biofair with a computation written here (a brute-force loop, exact
fractions, scipy's optimisers) and failed on the module it was written against.
"""


import numpy as np
import pytest
from scipy import optimize, stats

import biofair as bf

CUT95 = stats.chi2.ppf(0.95, 1)


# -- extrapolation: the profile likelihood over a continuous shape ------------------------------


class ContinuousProfile:
    """The top tenth of ``scores`` (at least 50; excesses over the next score down), the
    maximum likelihood refined by Nelder-Mead, and the profile likelihood of a constraint
    ``S(d) = q`` maximised over a continuous shape in (-1, 8]: a grid of 4,000 shapes, then
    Brent's method between the neighbours of its best one, on scipy's generalised Pareto
    log-density."""

    def __init__(self, scores):
        scores = np.sort(np.asarray(scores, dtype=np.float64))
        n_tail = max(50, round(0.1 * scores.size))
        self.start = scores[scores.size - n_tail - 1]
        self.y = scores[scores > self.start] - self.start
        self.share = self.y.size / scores.size
        self.shape, _, self.scale = stats.genpareto.fit(self.y, floc=0)

        def minus(p):
            return np.inf if p[0] <= -1 else -stats.genpareto.logpdf(self.y, p[0], 0, np.exp(p[1])).sum()

        best = optimize.minimize(minus, [self.shape, np.log(self.scale)], method="Nelder-Mead",
                                 options={"xatol": 1e-10, "fatol": 1e-12})
        self.best = -min(best.fun, minus([self.shape, np.log(self.scale)]))

    def loglik(self, xi, d, log_q):
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            sigma = xi * d / np.expm1(-xi * log_q)
        if not (0 < sigma < np.inf) or xi == 0:
            return -np.inf
        return float(stats.genpareto.logpdf(self.y, xi, 0, sigma).sum())

    def deviance(self, d, log_q):
        grid = np.linspace(-0.9999, 8.0, 4000)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            sigma = grid * d / np.expm1(-grid * log_q)
            z = (grid / sigma)[:, None] * self.y
            values = np.where((z > -1).all(1) & (sigma > 0),
                              -self.y.size * np.log(sigma) - (1 + 1 / grid) * np.log1p(np.maximum(z, -1)).sum(1),
                              -np.inf)
        i = int(np.nanargmax(values))
        refined = optimize.minimize_scalar(lambda xi: -self.loglik(xi, d, log_q), method="bounded",
                                           bounds=(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]),
                                           options={"xatol": 1e-12})
        return 2 * (self.best - max(values[i], -refined.fun))


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
    reference = ContinuousProfile(scores)
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
    reference = ContinuousProfile(scores)
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
