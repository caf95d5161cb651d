"""Hostile inputs to ``area_under_fdr``: an area that depends on the order of its input, or
that silently reads a table of FDR rows as one curve, is refused."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

import biofair as bf


@pytest.mark.parametrize("scale", ["linear", "log10"])
@pytest.mark.parametrize("fdr", [[0.5, 0.9, 0.7], [0.9, 0.5, 0.7]], ids=["0.5 first", "0.9 first"])
def test_a_target_given_twice_with_two_fdr_values_is_refused(fdr, scale):
    """The area was 0.6 with 0.5 first and 0.8 with 0.9 first (both scales): the order of the
    rows decided which of the two FDR values at FMR = 0.1 entered the trapezoid."""
    first, second = fdr[:2]
    message = (f"fmr_targets repeats 1 target with different FDR values (e.g. 0.1: {first:g} and {second:g}); "
               "the area would depend on their order: give each target once")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        bf.area_under_fdr(fdr, [0.1, 0.1, 0.01], scale=scale)


def test_a_target_given_twice_with_one_fdr_value_counts_once():
    """fairness_summary(fmr_targets=(0.1, 0.1, ...)) gives such rows: the same threshold, the same FDR."""
    area = bf.area_under_fdr([0.8, 0.6, 0.8, 0.5], [0.1, 0.01, 0.1, 0.001])
    # hand-worked: axis (t - 0.001) / 0.099 puts 0.01 at 1/11; trapezoids 1/11 · 0.55 + 10/11 · 0.7
    expected = Fraction(1, 11) * Fraction(55, 100) + Fraction(10, 11) * Fraction(7, 10)
    assert area == pytest.approx(float(expected), rel=1e-15, abs=0)


@pytest.mark.parametrize("argument", ["fdr", "fmr_targets"])
def test_a_two_dimensional_input_is_refused(argument):
    """Two FDR rows (two systems, or two attributes) were flattened into one curve: 0.65."""
    rows = {"fdr": np.array([[0.5, 0.6], [0.7, 0.8]]), "fmr_targets": np.array([[0.1, 0.2], [0.3, 0.4]])}
    flat = {"fdr": [0.5, 0.6, 0.7, 0.8], "fmr_targets": [0.1, 0.2, 0.3, 0.4]}
    given = flat | {argument: rows[argument]}
    with pytest.raises(ValueError, match=re.escape(f"{argument} must be one-dimensional (one value per target), "
                                                   "got shape (2, 2)")):
        bf.area_under_fdr(given["fdr"], given["fmr_targets"])
