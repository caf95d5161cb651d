"""Hostile inputs to the Pareto front found by the audit of chapter 12: biofair's error, not a wrong front."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from biofair import mitigation


def test_pareto_front_of_points_that_are_not_a_table():
    """Was pandas' "'dict' object has no attribute 'columns'"."""
    with pytest.raises(TypeError, match="^" + re.escape(
            "points must be a DataFrame with one column per objective, got dict") + "$"):
        mitigation.pareto_front({"x": [1.0, 2.0]}, {"x": "min"})


def test_pareto_front_of_complex_objectives():
    """Complex numbers were cast to float64 with a ComplexWarning and compared by their real part:
    1+5j and 1 were a tie."""
    points = pd.DataFrame({"x": [1 + 5j, 1 + 0j], "y": [0.0, 1.0]})
    with pytest.raises(TypeError, match="^" + re.escape(
            "objective columns must hold real numbers; ['x'] hold complex ones, which have no order: give their "
            "real part or modulus") + "$"):
        mitigation.pareto_front(points, {"x": "min", "y": "min"})
