"""Messages of ``bf.paired_bootstrap`` at numerical edges: an error names what is wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest

import biofair as bf


def test_a_paired_difference_beyond_the_largest_float_is_named():
    """m(A) = 1.5e308 and m(B) = -1e308 are finite, their difference 2.5e308 is not: the
    message said "the statistic is infinite on 40 of 40 resamples", which it is on none."""
    a = (np.array([1e308, 1.5e308, 1.2e308]), np.array([0.0, 1.0]))
    b = (np.array([-1e308, -1.5e308, -1.2e308]), np.array([0.0, 1.0]))
    assert math.isinf(1.5e308 - -1e308)
    with pytest.raises(ValueError, match=r"^the difference m\(A\) - m\(B\) = 1\.5e\+308 - -1e\+308 is beyond the "
                                         r"largest float \(±1\.8e\+308\)"):
        bf.paired_bootstrap(lambda m, n: float(np.max(m)), a, b, n_resamples=40, rng=0)
