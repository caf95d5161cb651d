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
