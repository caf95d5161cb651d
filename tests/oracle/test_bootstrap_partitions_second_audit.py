"""Second audit of the bootstrap, the paired bootstrap and the out-of-core metrics at their
numerical edges: each test fails on the module before its fix."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import biofair as bf


def test_a_paired_difference_that_overflows_on_a_resample_is_named():
    """m(A) = max of A's mated scores, m(B) = max of B's: finite on every resample, and so is
    their difference on all the data, 9.5e307 - (-7e307) = 1.65e308. A resample that draws A's
    9.5e307 and only B's -8.5e307 and -9.5e307 gives 1.8e308 or more, past the largest float:
    the message said "the statistic is infinite on 1 of 40 resamples", which it is on none."""
    a = (np.array([8e307, 9.5e307, 7e307, 8.5e307]), np.array([0.0, 1.0]))
    b = (np.array([-8e307, -9.5e307, -7e307, -8.5e307]), np.array([0.0, 1.0]))
    assert math.isfinite(9.5e307 - -7e307) and math.isfinite(9.5e307 - -8e307) and math.isinf(9.5e307 - -8.5e307)
    with pytest.raises(ValueError, match=r"^the difference m\(A\) - m\(B\) = 9\.5e\+307 - -[89]\.5e\+307 on a "
                                         r"paired bootstrap evaluation is beyond the largest float") as caught:
        bf.paired_bootstrap(lambda m, n: float(np.max(m)), a, b, n_resamples=40, rng=0)
    notes = caught.value.__notes__
    assert any(note.startswith("raised by the statistic on paired bootstrap evaluation ") for note in notes)


def test_paired_bca_counts_differences_equal_to_the_estimate_up_to_their_terms_rounding():
    """Systems A and B differ on one of 380 mated comparisons (B scores it 0, below the
    threshold 0.5); the statistic is the share of mated scores at or above 0.5. A resample's
    difference is exactly j/380, j the draws of that comparison; a float k/380 - (k-1)/380 is
    1/380 up to the rounding of its terms (about 0.9), a few hundred ulp of 1/380, beyond the
    slack of 100 ulp of the estimate: replicates equal to the estimate were counted below it
    (or above), z0 moved and the upper end was 0.012660 where Efron's interval on the exact
    replicates (j/380, z0 from the draws, the plain jackknife's closed form) gives 0.012464."""
    rng = np.random.default_rng(29)
    n, b = 380, 400
    mated_a = rng.normal(1.5, 1, n)
    special = int(np.flatnonzero(mated_a >= 0.5)[0])
    mated_b = mated_a.copy()
    mated_b[special] = 0.0
    nonmated = np.array([0.0, 1.0])
    draws = np.random.default_rng(29)  # the plan's draws: the mated positions, then the non-mated ones
    drawn = np.empty(b, dtype=int)
    for k in range(b):
        drawn[k] = np.count_nonzero(draws.integers(0, n, n) == special)
        draws.integers(0, 2, 2)
    z0 = stats.norm.ppf((np.sum(drawn < 1) + np.sum(drawn == 1) / 2) / b)
    left_out = np.full(n, 1 / (n - 1))  # the difference with each mated comparison left out
    left_out[special] = 0.0
    u = (n - 1) * (left_out.mean() - left_out)
    a = np.sum(u**3) / (6 * np.sum(u**2) ** 1.5)
    z = stats.norm.ppf([0.025, 0.975])
    levels = stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
    expected = [float(type7_percentile(sorted(Fraction(int(j), n) for j in drawn), level)) for level in levels]

    got = bf.paired_bootstrap(lambda m, _: float(np.mean(m >= 0.5)), (mated_a, nonmated), (mated_b, nonmated),
                              n_resamples=b, method="bca", rng=29)
    np.testing.assert_array_equal(np.round(got.replicates * n), drawn)
    assert got.low == pytest.approx(expected[0], abs=1e-15)
    assert got.high == pytest.approx(expected[1], rel=1e-12)


def type7_percentile(ordered: list[Fraction], level: float) -> Fraction:
    """NumPy's default (type 7) percentile of sorted values, in exact fractions at ``level``."""
    h = (len(ordered) - 1) * Fraction(level)
    i = int(h)
    return ordered[i] + (h - i) * (ordered[min(i + 1, len(ordered) - 1)] - ordered[i])
