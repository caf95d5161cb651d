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
