"""Binomial confidence intervals of error rates, in closed form."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import stats


def binomial_intervals(errors: NDArray, n: NDArray, confidence: float) -> tuple[NDArray, ...]:
    """Clopper-Pearson and Wilson intervals of ``errors / n``; NaN where n = 0.

    Clopper-Pearson, from the beta quantiles: ``[B(a/2; k, n-k+1), B(1-a/2; k+1, n-k)]``,
    0 at k = 0 and 1 at k = n (``a = 1 - confidence``). Wilson's score interval without
    continuity correction: ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``, exactly 0
    at k = 0 and 1 at k = n (where rounding left 4e-19 and 1 - 1e-16). Both in
    closed form, for all groups at once (``scipy.stats.binomtest`` solves for the exact ends
    numerically, off by up to 1e-4 of the bound for n >= 1e6 and small k).
    """
    k, n = np.ravel(errors).astype(np.float64), np.ravel(n).astype(np.float64)
    some = n > 0
    tail = (1.0 - confidence) / 2
    with np.errstate(invalid="ignore", divide="ignore"):  # k = 0, k = n and n = 0 are set below
        cp_low = np.where(k > 0, stats.beta.ppf(tail, k, n - k + 1), 0.0)
        cp_high = np.where(k < n, stats.beta.ppf(1 - tail, k + 1, n - k), 1.0)
        z, p = stats.norm.isf(tail), k / n
        centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
        wilson_low = np.where(k > 0, centre - half, 0.0)
        wilson_high = np.where(k < n, centre + half, 1.0)
    return tuple(np.where(some, end, np.nan) for end in (cp_low, cp_high, wilson_low, wilson_high))
