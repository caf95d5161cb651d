"""Hostile inputs to the figures (DET, ROC, Bayes error, reliability, cross-group heatmap):
perfectly separated groups, single operating points, rates outside [0, 1], labels matplotlib
would read as math text and more groups than a legend holds are drawn as they are or refused
by name."""

from __future__ import annotations

import re
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import biofair as bf  # noqa: E402
from biofair import plotting  # noqa: E402


pytestmark = pytest.mark.usefixtures("close_figures")  # tests/conftest.py


SEPARATED = (np.arange(10.0, 20.0), np.arange(0.0, 50.0) / 10)  # every mated score above every non-mated one


@pytest.mark.parametrize("max_rate", [0.0, 1.0, 2.0, float("nan"), 1e-7])
def test_det_refuses_a_max_rate_outside_the_probit_range(max_rate):
    """matplotlib said 'Axis limits cannot be NaN or Inf' (after NumPy's 'divide by zero
    encountered in log10' for 0); below 1e-6 the axis was drawn upside down."""
    message = f"max_rate must lie in (1e-06, 1), got {max_rate!r}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            plotting.plot_det(*SEPARATED, max_rate=max_rate)


def test_det_marks_a_perfectly_separated_group_in_the_corner():
    """Every point of its curve has FMR or FNMR 0 and lay beyond the axes: an empty plot
    with the group in the legend."""
    ax = plotting.plot_det(*SEPARATED, label="separated", color=plotting.COLORS[2])
    curve, corner = ax.lines
    assert (list(corner.get_xdata()), list(corner.get_ydata())) == ([0.0], [0.0])
    assert corner.get_transform() is ax.transAxes and not corner.get_clip_on()
    assert corner.get_marker() == "o" and corner.get_color() == curve.get_color() == plotting.COLORS[2]
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["separated"]
    # a curve with errors on both sides of every threshold gets no dot
    overlapping = plotting.plot_det(np.arange(10.0), np.arange(5.0, 15.0))
    assert len(overlapping.lines) == 1


def test_det_rates_of_zero_stay_out_of_view_when_a_later_curve_widens_the_axes():
    """A curve's FMR of 0 was drawn at half its own axis' lowest rate (5e-4 of 1,000 non-mated
    scores); a second curve of 100,000 widened the axis to 1e-5 and brought it into view:
    a vertical line at FMR = 0.05 % that no threshold gives."""
    from scipy.special import ndtr

    small = (np.arange(100.0) / 10, np.arange(1_000.0) / 500 - 2)  # 1,000 non-mated: FMR 0 or >= 1e-3
    ax = plotting.plot_det(*small)
    plotting.plot_det(np.arange(100.0) / 10, np.arange(100_000.0) / 50_000 - 2, ax=ax)
    assert ndtr(ax.get_xlim()[0]) == pytest.approx(1e-5)
    fmr = ndtr(ax.lines[0].get_xdata())
    # FMR 0 is drawn below every axis a curve can set (5e-7), out of view; no other point lies below
    # what 1,000 scores can show (1e-3). Points inside a straight run are left out (plotting._corners).
    assert ndtr(ax.get_xlim()[0]) > 5e-7
    at_zero = np.isclose(fmr, 5e-7, rtol=1e-6, atol=0)
    assert at_zero.any() and np.all(at_zero | (fmr >= 1e-3 - 1e-12)) and fmr.max() == pytest.approx(1.0)


def test_roc_of_a_single_operating_point_is_drawn_as_a_dot():
    """All scores equal: FMR is 0 or 1, the one point of FMR > 0 is (1, 1), and a line of one
    vertex drew nothing: an empty plot with the group in the legend."""
    ax = plotting.plot_roc(np.ones(10), np.ones(10), label="ties")
    (line,) = ax.lines
    assert (list(line.get_xdata()), list(line.get_ydata()), line.get_marker()) == ([1.0], [1.0], "o")
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["ties"]
    assert plotting.plot_roc(np.ones(10), np.ones(10), marker="s").lines[0].get_marker() == "s"
    assert plotting.plot_roc(np.arange(5.0), np.arange(5.0)).lines[0].get_marker() == "None"


def test_roc_after_a_chance_diagonal_keeps_its_own_range_without_a_warning():
    """A diagonal drawn first from x = 0 made plot_roc ask for a log axis from 0: matplotlib
    warned 'Attempt to set non-positive xlim on a log-scaled axis will be ignored.' and chose
    a range of its own (from 1.3e-4, not 1/N = 2e-4)."""
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], color="0.6")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plotting.plot_roc(*SEPARATED, ax=ax)
    assert ax.get_xlim() == (1 / 50, 1.0)


def test_cross_group_heatmap_draws_dollar_and_blank_group_names_as_written():
    """'$a_1$' was drawn as math text (a with subscript 1); a group named '' had no tick label."""
    fmr = pd.DataFrame([[1e-3, 1e-4]], index=pd.Index(["$a_1$"], name="reference_$cost"), columns=["$5", ""])
    fmr.columns.name = "probe_$cost"
    ax = plotting.plot_cross_group_fmr(fmr)
    assert [t.get_text() for t in ax.get_yticklabels()] == [r"\$a_1\$"]
    assert [t.get_text() for t in ax.get_xticklabels()] == [r"\$5", "''"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == (r"probe group (\$cost)", r"reference group (\$cost)")
    ax.figure.canvas.draw()  # no mathtext ParseError either


@pytest.mark.parametrize("rate", [np.inf, -np.inf, 1.5])
def test_cross_group_heatmap_refuses_an_infinite_rate(rate):
    """+inf passed the range check (only finite rates were checked) and was drawn as a blank
    cell, as if it had no pairs."""
    fmr = pd.DataFrame([[rate, 1e-3]], index=["a"], columns=["a", "b"])
    message = f"fmr must hold rates in [0, 1] (NaN: no pairs), got {rate!r} at ['a', 'a']"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        plotting.plot_cross_group_fmr(fmr)


@pytest.mark.parametrize(("fmr", "message"), [
    (np.array([[1e-3]]), "fmr must be a pandas DataFrame, got ndarray"),
    (pd.DataFrame([["x"]], index=["a"], columns=["a"]), "fmr must hold numbers: column 'a' has dtype str"),
    # drawn without a word: rates read from text, and booleans as rates of 1 and 0
    (pd.DataFrame([["0.001"]], index=["a"], columns=["a"], dtype=object), "fmr must hold numbers: column 'a' has dtype object"),
    (pd.DataFrame([[True, False]], index=["a"], columns=["a", "b"]), "fmr must hold numbers: column 'a' has dtype bool"),
])
def test_cross_group_heatmap_refuses_a_table_that_is_not_numbers(fmr, message):
    """NumPy's 'could not convert string to float' or "'numpy.ndarray' object has no attribute 'to_numpy'";
    numbers written as text and booleans were drawn."""
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        plotting.plot_cross_group_fmr(fmr)


def test_cross_group_heatmap_refuses_an_empty_table():
    """An empty plot with matplotlib's 'Attempting to set identical low and high xlims' warnings."""
    message = "fmr has no cells (shape (0, 0)): at least one reference and one probe group are needed"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        plotting.plot_cross_group_fmr(pd.DataFrame())


FMR = pd.DataFrame([[1e-3, np.nan]], index=["a"], columns=["a", "b"])


@pytest.mark.parametrize(("n", "shown"), [(np.nan, "nan"), (0, "0.0"), (-5, "-5.0"), (1000.5, "1000.5")])
def test_cross_group_heatmap_refuses_pair_counts_that_are_not_counts(n, shown):
    """NaN: "cannot convert float NaN to integer"; 0, -5 and 1000.5 were drawn as
    '1.0e-03 / 0 / 0', '0 / -5' and '1 / 1,000'."""
    pairs = pd.DataFrame([[n, 0]], index=FMR.index, columns=FMR.columns)
    message = f"pairs must hold a whole number of at least 1 pair in each cell with a rate, got {shown} at ['a', 'a']"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        plotting.plot_cross_group_fmr(FMR, pairs=pairs)


def test_cross_group_heatmap_refuses_pairs_the_rate_cannot_come_from():
    """FMR 1e-3 of 10 pairs was labelled '0 / 10' under the rate 1.0e-03."""
    pairs = pd.DataFrame([[10, 0]], index=FMR.index, columns=FMR.columns)
    message = ("fmr 0.001 at ['a', 'a'] is not a whole number of false matches out of 10 pairs (0.01): "
               "pass the pairs the rates come from")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        plotting.plot_cross_group_fmr(FMR, pairs=pairs)
    # a cell without a rate may have no pairs; the others are labelled k / n
    ax = plotting.plot_cross_group_fmr(FMR, pairs=pairs * 100)
    assert [text.get_text() for text in ax.texts] == ["1.0e-3\n1 / 1,000"]


@pytest.mark.parametrize("plot", [plotting.plot_det, plotting.plot_roc, plotting.plot_reliability])
def test_a_legend_of_twenty_groups_fits_in_the_books_figure(plot):
    """One column of 20 entries ran off a 6.4 x 4 inch figure: the last groups were cut off."""
    with matplotlib.rc_context():  # use_style's rcParams end with the test
        plotting.use_style(retina=False, tables=False)
        fig, ax = plt.subplots()
        rng = np.random.default_rng(0)
        for i in range(plotting.MAX_LEGEND_ENTRIES):
            plot(rng.normal(2, 1, 50), rng.normal(0, 1, 200), label=f"group {i}", ax=ax)
        fig.canvas.draw()
    texts = ax.get_legend().get_texts()
    assert [text.get_text() for text in texts] == [f"group {i}" for i in range(plotting.MAX_LEGEND_ENTRIES)]
    renderer = fig.canvas.get_renderer()
    outside = [t.get_text() for t in texts if not fig.bbox.contains(*t.get_window_extent(renderer).corners()[0])
               or not fig.bbox.contains(*t.get_window_extent(renderer).corners()[-1])]
    assert outside == []


def test_bayes_error_counts_both_curves_of_a_label_against_the_legend_limit():
    """Each label adds two entries (actual and minimum DCF) but counted as one: 12 groups
    gave a legend of 24 entries running off the figure, groups 8 to 11 cut off."""
    rng = np.random.default_rng(1)
    fig, ax = plt.subplots()
    for i in range(plotting.MAX_LEGEND_ENTRIES // 2):
        plotting.plot_bayes_error(rng.normal(2, 2, 50), rng.normal(-2, 2, 50), label=f"g{i}", ax=ax)
    assert len(ax.get_legend().get_texts()) == plotting.MAX_LEGEND_ENTRIES
    plotting.plot_bayes_error(rng.normal(2, 2, 50), rng.normal(-2, 2, 50), label="one too many", ax=ax)
    assert ax.get_legend() is None


def test_reliability_curves_take_consecutive_styles_of_the_books_cycle():
    """The grey diagonal was drawn with ax.plot(color=...), which still took the cycle's next
    line style: groups got every other style, so that group 0 and group 16 looked alike."""
    rng = np.random.default_rng(2)
    with matplotlib.rc_context():
        plotting.use_style(retina=False, tables=False)
        fig, ax = plt.subplots()
        for i in range(3):
            plotting.plot_reliability(rng.normal(2, 2, 50), rng.normal(-2, 2, 50), label=f"g{i}", ax=ax)
    curves = [line for line in ax.lines if line.get_label().startswith("g")]
    assert [line.get_color() for line in curves] == list(plotting.COLORS[:3])
    diagonal = ax.lines[1]
    assert (list(diagonal.get_xdata()), list(diagonal.get_ydata()), diagonal.get_color()) == ([0, 1], [0, 1], "0.6")


def test_bayes_error_keeps_the_range_of_a_curve_drawn_before():
    """Each call set the y range from its own curve: a calibrated system drawn second cut the
    range to 1.2 and the first, miscalibrated system's curve (up to 2.6) off at 1.2."""
    rng = np.random.default_rng(0)
    shifted = (rng.normal(2, 2, 500) - 1.5, rng.normal(-2, 2, 500) - 1.5)
    ax = plotting.plot_bayes_error(*shifted, label="shifted")
    assert ax.get_ylim() == (0.0, 2.0)
    plotting.plot_bayes_error(rng.normal(2, 2, 500), rng.normal(-2, 2, 500), label="calibrated", ax=ax)
    assert ax.get_ylim() == (0.0, 2.0)
    assert plotting.plot_bayes_error(np.arange(10.0, 20.0), -np.arange(10.0, 20.0)).get_ylim() == (0.0, 1.2)


def test_roc_of_a_perfectly_separated_group_is_not_hidden_under_the_frame():
    """TMR = 1 at every FMR > 0 was drawn on the top edge of a (0, 1) axis, under the spine:
    an empty-looking plot."""
    ax = plotting.plot_roc(*SEPARATED, label="separated")
    (line,) = ax.lines
    assert set(line.get_ydata()) == {1.0}
    low, high = ax.get_ylim()
    assert low < 0.0 and 1.0 < high <= 1.05


def drawn_markers(ax):
    """Every marker the lines of ``ax`` draw (tick marks are markers too: not theirs), from the
    renderer's own calls: (display x, display y, face colour or None for an open circle, edge
    colour, cut at a clip rectangle?)."""
    from matplotlib.colors import to_rgba

    ax.figure.canvas.draw()  # the layout, as shown
    renderer = ax.figure.canvas.get_renderer()
    draw_markers, drawn = renderer.draw_markers, []

    def record(gc, marker_path, marker_trans, path, trans, rgbFace=None):
        for x, y in trans.transform(path.vertices):
            face = None if rgbFace is None or to_rgba(rgbFace)[3] == 0 else to_rgba(rgbFace)  # none: open
            drawn.append((float(x), float(y), face, to_rgba(gc.get_rgb()), gc.get_clip_rectangle() is not None))
        draw_markers(gc, marker_path, marker_trans, path, trans, rgbFace)

    renderer.draw_markers = record
    for line in ax.lines:
        line.draw(renderer)
    return drawn


def assert_marked(ax, expected, colour):
    """The lines of ``ax`` draw exactly the markers ``expected``, (display x, display y, filled?): open
    circles unfilled, every one of ``colour`` and none cut at the frame."""
    from matplotlib.colors import to_rgba

    def place(mark):
        return round(mark[0], 3), round(mark[1], 3)

    drawn = sorted(drawn_markers(ax), key=place)
    assert len(drawn) == len(expected)
    for (x, y, face, edge, clipped), (ex, ey, filled) in zip(drawn, sorted(expected, key=place)):
        assert (x, y) == pytest.approx((ex, ey), abs=1e-6)
        assert (face, edge, clipped) == (to_rgba(colour) if filled else None, to_rgba(colour), False)


def probit_place(ax, fmr, fnmr):
    """Display position of a point of rates in (0, 1) on DET axes (scipy's normal quantiles)."""
    from scipy.stats import norm

    return tuple(ax.transData.transform((norm.ppf(fmr), norm.ppf(fnmr))))


def test_det_marks_an_operating_point_with_a_rate_of_zero_on_the_edge():
    """A threshold at which a group has no false match (FMR = 0) was marked beyond the axes:
    the group's dot was missing, without a word."""
    mated, nonmated = np.arange(1.0, 101.0), np.arange(0.0, 50.0)  # at 60: FMR 0, FNMR 0.59
    ax = plotting.plot_det(mated, nonmated, thresholds=[30.0, 60.0, np.inf, -np.inf], color=plotting.COLORS[1])
    assert ax.lines[0].get_color() == plotting.COLORS[1]  # the curve; its marks are checked as drawn
    ax.figure.canvas.draw()  # laid out first (the book's style, once set, lays figures out when drawn)
    box = ax.bbox
    assert_marked(ax, [
        (*probit_place(ax, 0.4, 0.29), True),  # 30: inside, a dot
        (box.x0, probit_place(ax, 0.5, 0.59)[1], False),  # 60: FMR 0, open on the left edge
        (box.x0, box.y1, False),  # +inf: FMR 0 and FNMR 1, top left
        (box.x1, box.y0, False),  # -inf: FMR 1 and FNMR 0, bottom right
    ], plotting.COLORS[1])


def test_det_marks_an_operating_point_beyond_max_rate_on_the_edge_it_lies_beyond():
    """A point with a rate between max_rate and 1 was drawn where it lies in data units: with
    FMR 0.64 and FNMR 0 it floated beyond the frame (to the right of the bottom-right corner),
    with FMR 0.015 and FNMR 0.68 it was cut off by the frame, without a word. Such a point is
    an open circle on the edge it lies beyond, as a rate of 0 or 1 is; when a later curve's
    wider range brings it into view, it is a dot at its place."""
    rng = np.random.default_rng(0)
    mated, nonmated = rng.normal(2, 1, 200), rng.normal(0, 1, 200)
    thresholds = [-0.5, 1.0, 2.5]
    rates = bf.fmr_fnmr(mated, nonmated, thresholds)
    assert rates.fmr.tolist() == [0.64, 0.135, 0.015] and rates.fnmr.tolist() == [0.0, 0.17, 0.68]
    ax = plotting.plot_det(mated, nonmated, thresholds=thresholds, max_rate=0.5, color="k")
    ax.figure.canvas.draw()  # laid out first (the book's style, once set, lays figures out when drawn)
    box = ax.bbox
    assert_marked(ax, [
        (box.x1, box.y0, False),  # FMR 0.64 > 0.5 and FNMR 0: the bottom-right corner
        (*probit_place(ax, 0.135, 0.17), True),
        (probit_place(ax, 0.015, 0.5)[0], box.y1, False),  # FNMR 0.68 > 0.5: on the top edge
    ], "k")
    plotting.plot_det(mated, nonmated, max_rate=0.95, ax=ax, color="k")  # the axes now reach 0.95
    ax.figure.canvas.draw()
    assert_marked(ax, [
        (probit_place(ax, 0.64, 0.5)[0], box.y0, False),  # FNMR 0: on the bottom edge, at FMR 0.64
        (*probit_place(ax, 0.135, 0.17), True),
        (*probit_place(ax, 0.015, 0.68), True),
    ], "k")


def test_bayes_error_joins_priors_given_out_of_order_from_left_to_right():
    """prior_log_odds=[3, -3, 0] drew a line from 3 back to -3 and on to 0: a zigzag through
    points that are not neighbours."""
    rng = np.random.default_rng(3)
    mated, nonmated = rng.normal(2, 2, 100), rng.normal(-2, 2, 100)
    ax = plotting.plot_bayes_error(mated, nonmated, prior_log_odds=[3.0, -3.0, 0.0])
    expected = plotting.plot_bayes_error(mated, nonmated, prior_log_odds=[-3.0, 0.0, 3.0])
    for drawn, sorted_line in zip(ax.lines[:2], expected.lines[:2]):
        assert drawn.get_xdata().tolist() == [-3.0, 0.0, 3.0]
        assert drawn.get_ydata().tolist() == sorted_line.get_ydata().tolist()


@pytest.mark.parametrize(("ax", "got"), [
    ("x", "str 'x'"),
    (1, "int"),
    (plt.figure, "function"),
])
@pytest.mark.parametrize("draw", [
    lambda rng, ax: plotting.plot_score_distributions(rng.normal(2, 1, 50), rng.normal(0, 1, 200), ax=ax),
    lambda rng, ax: plotting.plot_det(rng.normal(2, 1, 50), rng.normal(0, 1, 200), ax=ax),
    lambda rng, ax: plotting.plot_roc(rng.normal(2, 1, 50), rng.normal(0, 1, 200), ax=ax),
    lambda rng, ax: plotting.plot_bayes_error(rng.normal(2, 1, 50), rng.normal(0, 1, 200), ax=ax),
    lambda rng, ax: plotting.plot_reliability(rng.normal(2, 1, 50), rng.normal(0, 1, 200), ax=ax),
    lambda rng, ax: plotting.plot_cross_group_fmr(pd.DataFrame([[1e-2, 1e-3], [1e-3, 1e-2]], index=["a", "b"],
                                                               columns=["a", "b"]), ax=ax),
], ids=["distributions", "det", "roc", "bayes_error", "reliability", "cross_group_fmr"])
def test_every_plot_refuses_an_ax_that_is_not_axes_by_name(draw, ax, got):
    """Was matplotlib's AttributeError ("'str' object has no attribute 'hist'"), which named
    neither the argument nor what it should be."""
    with pytest.raises(TypeError, match="^" + re.escape(
            "ax must be matplotlib Axes (e.g. fig, ax = plt.subplots()), or None for a new figure, got " + got) + "$"):
        draw(np.random.default_rng(0), ax)


def test_an_array_of_axes_is_refused_with_the_way_to_pick_one():
    _, axes = plt.subplots(2)
    with pytest.raises(TypeError, match=re.escape("got ndarray: plt.subplots(n) returns an array of them, pass one, "
                                                  "e.g. ax=axes[0]")):
        plotting.plot_det(np.arange(5.0), np.arange(20.0) - 3, ax=axes)
    plotting.plot_det(np.arange(5.0), np.arange(20.0) - 3, ax=axes[0])  # one of them draws
    assert axes[0].lines
    plt.close("all")
