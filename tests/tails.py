"""The generalised Pareto profile likelihood computed apart from biofair, shared by the tests
of its extrapolations: the shape maximised continuously (a grid, then Brent's method between
the grid neighbours of its best point) and ``S`` taken by its logarithm, so that constraints
below the smallest float64 are constraints too."""

from __future__ import annotations

import numpy as np
from scipy import optimize, stats

CUT95 = stats.chi2.ppf(0.95, 1)  # 3.84


def loglik(y, xi, sigma):
    """Log-likelihood of the excesses ``y`` under the tail of shape ``xi`` and scale ``sigma``."""
    if not 0 < sigma < np.inf:
        return -np.inf
    z = xi * y / sigma
    return -np.inf if np.any(z <= -1) else -y.size * np.log(sigma) - (1 + 1 / xi) * np.log1p(z).sum()


class ProfileReference:
    """The fit of the top tenth of ``scores`` (at least 50; excesses over the next score
    down, as biofair's Notes define them), its maximum likelihood refined by Nelder-Mead,
    and the continuous profile likelihood of ``log S(d)`` over the ``shapes`` grid (by
    default (-1, 2]; heavy tails far out need more)."""

    def __init__(self, scores, *, shapes=np.linspace(-0.999, 2.0, 1501)):
        scores = np.sort(np.asarray(scores, dtype=np.float64))
        n_tail = max(50, round(0.1 * scores.size))
        self.start = scores[scores.size - n_tail - 1]
        self.y = scores[scores > self.start] - self.start
        self.share = self.y.size / scores.size
        self.shape, _, self.scale = stats.genpareto.fit(self.y, floc=0)
        self.shapes = shapes[np.abs(shapes) > 1e-6]
        best = optimize.minimize(lambda p: -loglik(self.y, p[0], np.exp(p[1])), [self.shape, np.log(self.scale)],
                                 method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12})
        self.best = max(-best.fun, loglik(self.y, self.shape, self.scale))

    def deviance(self, d, log_q):
        """Twice the loss of the best tail with ``ln S(d) = log_q`` (the scale follows:
        ``sigma = xi d / (q^-xi - 1)``): the grid of shapes, then Brent's method."""
        def minus(xi):
            with np.errstate(over="ignore"):
                return -loglik(self.y, xi, xi * d / np.expm1(-xi * log_q))

        grid = self.shapes
        values = np.array([minus(x) for x in grid])
        i = int(np.argmin(values))
        refined = optimize.minimize_scalar(minus, bounds=(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]),
                                           method="bounded", options={"xatol": 1e-12})
        return 2 * (self.best + min(values[i], refined.fun))

    def fmr_interval(self, threshold):
        """log10 of the estimate of S at the threshold and of the ends of its 95% interval."""
        d = threshold - self.start
        estimate = stats.genpareto.logsf(d, self.shape, 0, self.scale) / np.log(10)

        def excess(log10_q):
            return self.deviance(d, log10_q * np.log(10)) - CUT95

        bottom = 3 * estimate - 20
        low = optimize.brentq(excess, bottom, estimate, xtol=1e-9) if excess(bottom) > 0 else -np.inf
        return estimate, low, optimize.brentq(excess, estimate, -1e-12, xtol=1e-9)

    def threshold_interval(self, fmr):
        """The estimate of the threshold at ``fmr`` and the ends of its 95% interval."""
        log_q = np.log(fmr / self.share)
        d = stats.genpareto.isf(np.exp(log_q), self.shape, 0, self.scale)

        def excess(distance):
            return self.deviance(distance, log_q) - CUT95

        low = optimize.brentq(excess, 1e-9 * d, d, xtol=1e-12)
        high = optimize.brentq(excess, d, 100 * self.y.max(), xtol=1e-12)
        return self.start + d, self.start + low, self.start + high
