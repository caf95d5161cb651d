"""Hostile inputs to the generalised Pareto tail: scores times a power of two give the same
fit, bit for bit, and a tail that cannot be fitted is named in the scores' own units."""

from __future__ import annotations

import re

import numpy as np
import pytest

import biofair as bf

TAIL = np.random.default_rng(0).normal(size=2000)
EXPONENTS = [-1000, -600, -100, 10, 400, 600, 1020]


@pytest.mark.parametrize("k", EXPONENTS)
def test_extrapolated_fmr_is_scale_equivariant(k):
    """The interval came from log-likelihoods in score units, which move by n·k·log 2 and round
    differently: its high end was 4.04486643678833e-04 unscaled, 4.044866436788326e-04 at 2^400
    and 4.044866436764672e-04 at 2^-500."""
    reference = bf.extrapolated_fmr(TAIL, 3.5)
    tail = bf.extrapolated_fmr(np.ldexp(TAIL, k), float(np.ldexp(3.5, k)))
    for field in ("estimate", "low", "high", "fmr", "shape", "n_tail", "extrapolated"):
        assert getattr(tail, field) == getattr(reference, field), field
    for field in ("threshold", "tail_start", "scale"):
        assert getattr(tail, field) == np.ldexp(getattr(reference, field), k), field


@pytest.mark.parametrize("k", EXPONENTS)
def test_extrapolated_threshold_is_scale_equivariant(k):
    """Its interval ends, from the same log-likelihoods, were not 2^k times the unscaled ones
    (the low end 3.085514246626568 unscaled) in their last digits, for every k tried."""
    reference = bf.extrapolated_threshold(TAIL, 1e-5)
    tail = bf.extrapolated_threshold(np.ldexp(TAIL, k), 1e-5)
    for field in ("fmr", "shape", "n_tail"):
        assert getattr(tail, field) == getattr(reference, field), field
    for field in ("estimate", "low", "high", "threshold", "tail_start", "scale"):
        assert getattr(tail, field) == np.ldexp(getattr(reference, field), k), field


# 1800 scores near 0 under two values, each held by 100 scores: 200 tail scores, two distinct excesses.
TWO_VALUES = np.concatenate([np.linspace(-0.3, 0.3, 1800), np.full(100, 5.0), np.full(100, 6.0)])


@pytest.mark.parametrize("k", [0, 600])
def test_a_tail_of_two_values_is_named_as_such(k):
    """It said 'nonmated has only 200 scores above the tail start 0.3; too few' (200 >= min_tail
    = 50), and at scores x 2^600 it printed the start divided by 2^600 (0.0383)."""
    start = float(np.ldexp(0.3, k))
    message = (f"the 200 scores of nonmated above the tail start {start:g} take only 2 distinct values; "
               "a tail fit needs at least 3")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        bf.extrapolated_fmr(np.ldexp(TWO_VALUES, k), float(np.ldexp(7.0, k)))


def test_a_tail_of_ties_names_its_start_in_score_units():
    """300 scores tie at 2 x 2^600 above 1800 lower ones, so the tail start is that tie: it was
    printed divided by 2^600, 0.5."""
    scores = np.ldexp(np.concatenate([np.linspace(-3, 1.9, 1800), np.full(300, 2.0)]), 600)
    message = f"nonmated has only 0 scores above the tail start {np.ldexp(2.0, 600):g}; too few to fit a tail"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        bf.extrapolated_fmr(scores, float(np.ldexp(3.0, 600)))


@pytest.mark.parametrize("seed", [0, 4, 5])
def test_a_tail_fit_beyond_the_regular_shapes_is_taken_at_the_uniform_tail(seed):
    """Uniform scores on [0, 1]: scipy's fit of the top 10% gives a shape below -1, where the
    likelihood has no maximum (it grows as the tail's end nears the top score). Compared with
    that likelihood, every FMR above 0 was rejected: an FMR of 0 in [0, 0] at 0.9999, whose
    FMR is 1e-4 (a helper's audit). The fit is taken at -1, the uniform tail."""
    from scipy import stats

    scores = np.random.default_rng(seed).random(2_000)
    top = np.sort(scores)[-201:]
    assert stats.genpareto.fit(top[1:] - top[0], floc=0)[0] < -1  # the case this test is about
    tail = bf.extrapolated_fmr(scores, 0.9999)
    assert tail.shape == -1.0 and tail.extrapolated
    assert tail.low <= 1e-4 <= tail.high
