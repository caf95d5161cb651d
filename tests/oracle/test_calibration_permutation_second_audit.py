"""Second edge audit of calibration, detection costs, cohort normalisation and the permutation
null: each test fails on the module before its fix, and checks a number against an independent
computation or a refusal against its message."""

from __future__ import annotations

import re

import numpy as np
import pytest

import biofair as bf


@pytest.mark.parametrize("p", [1e-310, 2.0**-1023])
def test_logistic_fit_refuses_a_subnormal_training_prior(p):
    """At p_target = 1e-310 the non-mated weight (1 - p)/N times 2**1030 overflowed to inf: the loss
    was NaN and the fit came back as (0.647, 1.17), where the priors 1e-300 to 2.3e-308 give
    slopes of 461 to 473; at 1e-320 or 5e-324 Newton's damping loop never ended. Such a prior
    is refused, as min_dcf refuses a weighted cost below 2**-1022."""
    rng = np.random.default_rng(0)
    mated, nonmated = rng.normal(1, 1, 50), rng.normal(-1, 1, 60)
    with pytest.raises(ValueError, match=re.escape(f"p_target = {p!r} is below 2**-1022")):
        bf.fit_logistic_calibration(mated, nonmated, p_target=p)

