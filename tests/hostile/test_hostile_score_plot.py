"""Hostile inputs to ``plot_score_distributions``: score ranges numpy cannot bin or matplotlib
cannot scale, a NaN threshold and a number of bins no memory holds get a plot in exact units
or an error of biofair's."""

from __future__ import annotations

import re

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from biofair.plotting import plot_score_distributions  # noqa: E402


pytestmark = pytest.mark.usefixtures("close_figures")  # tests/conftest.py


def step_heights(ax) -> list[float]:
    """The top of each class's outline (histtype='step'): non-mated, then mated."""
    return [float(patch.get_xy()[:, 1].max()) for patch in ax.patches if not patch.get_fill()]


def test_a_range_of_one_ulp_is_refused_by_name():
    """numpy said 'Too many bins for data range. Cannot create 60 finite-sized bins.'"""
    message = ("mated and nonmated span only [0.5, 0.5000000000000001]: too narrow for 60 equal-width bins at "
               "float64 precision; pass fewer bins, or subtract a constant (e.g. 0.5) from the scores and the "
               "thresholds")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        plot_score_distributions([np.nextafter(0.5, 1.0)], [0.5])


def test_one_bin_draws_a_range_of_one_ulp():
    ax = plot_score_distributions([np.nextafter(0.5, 1.0)], [0.5], bins=1)
    assert step_heights(ax) == [1 / np.spacing(0.5)] * 2  # one score per class in a bin one ulp wide


def test_a_range_wider_than_float64_is_drawn_in_units_of_2_to_the_1024():
    """numpy could not bin [-1e308, 1e308] (its width overflows): 'Too many bins for data range'."""
    ax = plot_score_distributions([1e308], [-1e308], bins=2)
    c = float(np.ldexp(1e308, -1024))  # exact: a power of two
    assert ax.get_xlabel() == "score / 2^1024"
    assert step_heights(ax) == [1 / c, 1 / c]  # edges [-c, 0, c]: one score per class in a bin c wide
    low, high = ax.get_xlim()
    assert low <= -c and c <= high


def test_scores_near_1e_300_are_drawn_in_units_matplotlib_can_scale():
    """matplotlib took the x range [1e-300, 3e-300] for a singular one and showed [-0.055, 0.055]:
    an empty plot, without a warning."""
    mated, nonmated = [3e-300], [1e-300, 1.5e-300]
    exponent = int(np.frexp(3e-300)[1])
    low, high = np.ldexp(1e-300, -exponent), np.ldexp(3e-300, -exponent)
    ax = plot_score_distributions(mated, nonmated, bins=2)
    assert ax.get_xlabel() == f"score / 2^{exponent}"
    width = (high - low) / 2
    assert step_heights(ax) == pytest.approx([1 / width, 1 / width], rel=1e-15)  # both non-mated in bin 0
    x_low, x_high = ax.get_xlim()
    assert x_low <= low and high <= x_high


def test_a_nan_threshold_is_refused():
    """It entered the legend as 'x' with no line drawn."""
    with pytest.raises(ValueError, match=re.escape("thresholds['x'] is NaN: no comparison can be decided against it")):
        plot_score_distributions([0.9, 0.8], [0.1, 0.2], thresholds={"x": float("nan")})


def test_a_billion_bins_is_refused_before_any_memory_is_taken():
    """numpy made the 1e9 + 1 edges (8 GB) and matplotlib binned into them: the process was killed."""
    with pytest.raises(ValueError, match=re.escape("bins must be at most 1,000,000, got 1,000,000,000")):
        plot_score_distributions([0.9], [0.1], bins=10**9)
