"""Second audit of the bootstrap, the paired bootstrap and the out-of-core metrics at their
numerical edges: each test fails on the module before its fix."""

from __future__ import annotations

import math

import numpy as np
import pytest

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
    assert any(note.startswith("raised by the statistic on paired bootstrap evaluation ") for note in caught.value.__notes__)
