"""Bad inputs to mitigation found by an edge-numerics audit of identification and mitigation:
each test fails on the module before its fix."""

from __future__ import annotations

import re
from fractions import Fraction

import pandas as pd
import pytest

import biofair as bf
from biofair import mitigation

TABLE = pd.DataFrame({"score": [1.0, 2.0, 1.5, 0.5], "mated": [True, False, True, False],
                      "group": ["a", "a", "b", "b"]})


@pytest.mark.parametrize("scale", ["2", None, True])
def test_a_calibration_whose_scale_is_not_a_number_is_named(scale):
    """A scale of "2" or None was NumPy's "ufunc 'isfinite' not supported for the input
    types", naming neither the group nor the scale; True was taken as the scale 1."""
    maps = {"a": bf.LogisticCalibration(scale, 0.0, 0.5), "b": bf.LogisticCalibration(1.0, 0.0, 0.5)}
    with pytest.raises(TypeError, match="^" + re.escape(
            f"calibrations whose scale or offset is not a real number: {{'a': ({scale!r}, 0.0)}}; give numbers, "
            "as fit_group_calibration returns them") + "$"):
        mitigation.apply_group_calibration(TABLE, maps)


def test_a_calibration_of_real_numbers_that_are_not_floats():
    """An integer beyond the largest float64 was NumPy's "ufunc 'isfinite' not supported": it is
    an infinite scale, refused as a NaN one is; a Fraction was refused the same way, and is
    the number it is (the map of 1/4 and 1: 1/4·s + 1, by hand)."""
    maps = {"a": bf.LogisticCalibration(10**400, 0.0, 0.5), "b": bf.LogisticCalibration(1.0, 0.0, 0.5)}
    with pytest.raises(ValueError, match="^" + re.escape(
            "calibrations with a non-finite scale or offset: {'a': (inf, 0.0)}; refit them (fit_group_calibration)")
            + "$"):
        mitigation.apply_group_calibration(TABLE, maps)
    maps["a"] = bf.LogisticCalibration(Fraction(1, 4), 1, 0.5)
    assert mitigation.apply_group_calibration(TABLE, maps)["score"].tolist() == [1.25, 1.5, 1.5, 0.5]
