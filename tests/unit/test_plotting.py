"""Figures: DET tick labels that never collide, one style per group, many groups in linear time."""

from __future__ import annotations

import math
import re
import time
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from IPython.core.formatters import HTMLFormatter
from scipy.special import expit
from scipy.stats import norm

import biofair as bf
from biofair import plotting


pytestmark = pytest.mark.usefixtures("close_figures")  # tests/conftest.py


@pytest.fixture(autouse=True)
def pandas_display_restored():
    """use_style sets pandas' float format: later tests (doctests printing tables) must not see it."""
    yield
    pd.reset_option("display.float_format")


def scores(rng, n_mated=2_000, n_nonmated=200_000):
    """Scores rounded to 0.01: the axes' range of 200,000 comparisons, a curve of few vertices."""
    return np.round(rng.normal(3.0, 1.0, n_mated), 2), np.round(rng.normal(0.0, 1.0, n_nonmated), 2)


def label_boxes(fig, axis):
    """Window extents of the visible, non-empty tick labels of one axis of a drawn figure."""
    renderer = fig.canvas.get_renderer()
    labels = axis.get_ticklabels()
    return [label.get_window_extent(renderer) for label in labels if label.get_visible() and label.get_text()]


def overlapping(boxes) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]


@pytest.mark.parametrize("width", [2.5, 3.2, 4.5, 6.4, 10.0])
@pytest.mark.parametrize("panels", [1, 3])
def test_det_tick_labels_never_collide(width, panels):
    """At every figure width and panel count the book uses (and narrower), no two labels overlap."""
    plotting.use_style(retina=False)
    mated, nonmated = scores(np.random.default_rng(0))
    fig, axes = plt.subplots(1, panels, figsize=(width * panels, 0.65 * width), squeeze=False)
    for ax in axes[0]:
        plotting.plot_det(mated, nonmated, label="A", ax=ax)
    fig.canvas.draw()
    for ax in axes[0]:
        for axis in (ax.xaxis, ax.yaxis):
            boxes = label_boxes(fig, axis)
            assert len(boxes) >= 2, f"only {len(boxes)} labels on the {axis.axis_name} axis"
            assert overlapping(boxes) == [], [label.get_text() for label in axis.get_ticklabels()]
        # nor do the two axes' labels meet in the corner ("0.01" on "0.0001", a helper saw in the book)
        corner = [(x, y) for x in label_boxes(fig, ax.xaxis) for y in label_boxes(fig, ax.yaxis) if x.overlaps(y)]
        assert corner == [], corner


@pytest.mark.parametrize("decimals", [0, 2, 12])
def test_roc_and_det_lines_leave_out_only_points_inside_straight_runs(decimals):
    """Every vertex was drawn (1e7 for 1e7 distinct scores, 644 MB kept by the figure); a point
    inside a horizontal or vertical run lies on the segment its neighbours draw, on any
    monotone axis scale, so leaving it out draws the same line."""
    rng = np.random.default_rng(decimals)
    mated, nonmated = np.round(rng.normal(1.5, 1, 300), decimals), np.round(rng.normal(0, 1, 3_000), decimals)
    counts = bf.roc_curve(mated, nonmated)
    full = (counts.fmr[::-1], counts.tmr[::-1])
    ax = plotting.plot_roc(mated, nonmated)
    x, y = ax.lines[0].get_data()
    positive = full[0] > 0
    every = np.column_stack([full[0][positive], full[1][positive]])
    kept = np.column_stack([x, y])
    assert len(kept) < len(every) and len(kept) >= 2
    # each point left out lies on the straight segment between the kept points around it
    kept_at = np.flatnonzero((every[:, None, :] == kept[None, :, :]).all(2).any(1))
    assert len(kept_at) == len(kept) and kept_at[0] == 0 and kept_at[-1] == len(every) - 1
    for i in np.setdiff1d(np.arange(len(every)), kept_at):
        before, after = every[kept_at[kept_at < i][-1]], every[kept_at[kept_at > i][0]]
        assert (before[0] == every[i][0] == after[0]) or (before[1] == every[i][1] == after[1])
    plt.close("all")
    det = plotting.plot_det(mated, nonmated).lines[0]  # the same rule on (FMR, FNMR), FMR = 0 included
    assert len(det.get_xdata()) == plotting._corners(counts.fmr, 1 - counts.tmr).sum() < len(counts.fmr)
    plt.close("all")


def test_det_ticks_are_probit_positions_labelled_in_percent():
    mated, nonmated = scores(np.random.default_rng(1))
    ax = plotting.plot_det(mated, nonmated, max_rate=0.5)
    ax.figure.set_size_inches(12, 8)
    ax.figure.canvas.draw()
    for axis in (ax.xaxis, ax.yaxis):
        for tick, label in zip(axis.get_majorticklocs(), axis.get_ticklabels()):
            assert float(label.get_text()) == pytest.approx(100 * norm.cdf(tick), rel=1e-9)
    # the FMR axis starts at the decade of 1/N (N = 200,000: 1e-6), the FNMR axis at 1/M's (1e-4)
    assert norm.cdf(ax.get_xlim()[0]) == pytest.approx(1e-6)
    assert norm.cdf(ax.get_ylim()[0]) == pytest.approx(1e-4)
    assert norm.cdf(ax.get_xlim()[1]) == pytest.approx(0.5)


def test_a_second_curve_widens_the_det_range_to_its_own_resolution():
    rng = np.random.default_rng(2)
    ax = plotting.plot_det(rng.normal(2, 1, 100), rng.normal(0, 1, 1_000))
    assert norm.cdf(ax.get_xlim()[0]) == pytest.approx(1e-3)
    plotting.plot_det(rng.normal(2, 1, 100), rng.normal(0, 1, 100_000), ax=ax)
    assert norm.cdf(ax.get_xlim()[0]) == pytest.approx(1e-5)
    plotting.plot_det(rng.normal(2, 1, 100), rng.normal(0, 1, 500), ax=ax)
    assert norm.cdf(ax.get_xlim()[0]) == pytest.approx(1e-5)


def test_many_groups_are_drawn_in_linear_time_and_without_an_unreadable_legend():
    """Issue #19: one legend per group made 400 groups take 30 s (quadratic)."""
    rng = np.random.default_rng(3)
    data = [(rng.normal(2, 1, 50), rng.normal(0, 1, 200)) for _ in range(400)]
    fig, ax = plt.subplots()
    start = time.perf_counter()
    for i, (mated, nonmated) in enumerate(data):
        plotting.plot_det(mated, nonmated, label=f"group {i}", ax=ax)
    fig.canvas.draw()
    elapsed = time.perf_counter() - start
    assert len(ax.lines) == 400
    assert ax.get_legend() is None
    assert elapsed < 6.0, f"400 groups took {elapsed:.1f} s"


@pytest.mark.parametrize("plot", [plotting.plot_det, plotting.plot_roc])
def test_legend_lists_every_curve_up_to_the_limit(plot):
    rng = np.random.default_rng(4)
    fig, ax = plt.subplots()
    for i in range(plotting.MAX_LEGEND_ENTRIES):
        plot(rng.normal(2, 1, 50), rng.normal(0, 1, 200), label=f"g{i}", ax=ax)
    shown = [text.get_text() for text in ax.get_legend().get_texts()]
    assert shown == [f"g{i}" for i in range(plotting.MAX_LEGEND_ENTRIES)]
    assert list(ax.texts) == []
    plot(rng.normal(2, 1, 50), rng.normal(0, 1, 200), label="one too many", ax=ax)
    assert ax.get_legend() is None
    plot(rng.normal(2, 1, 50), rng.normal(0, 1, 200), label="and another", ax=ax)
    assert ax.get_legend() is None
    # the legend did not vanish without a word (200 groups in a report: 200 curves, no key)
    assert [text.get_text() for text in ax.texts] == [
        f"{plotting.MAX_LEGEND_ENTRIES + 2} labelled curves: too many for a legend (ax.legend() draws one)"]


def test_unlabelled_curves_add_no_legend():
    rng = np.random.default_rng(5)
    ax = plotting.plot_det(rng.normal(2, 1, 50), rng.normal(0, 1, 200))
    assert ax.get_legend() is None


def test_group_styles_are_distinct_stable_and_independent_of_order():
    groups = [f"g{i:02d}" for i in range(32)]
    styles = plotting.group_styles(groups)
    pairs = {(s["color"], s["linestyle"]) for s in styles.values()}
    assert len(pairs) == 32
    assert plotting.group_styles(reversed(groups + groups)) == styles
    assert styles["g00"] == {"color": plotting.COLORS[0], "linestyle": plotting.LINESTYLES[0]}
    assert styles["g08"] == {"color": plotting.COLORS[0], "linestyle": plotting.LINESTYLES[1]}
    # up to four groups differ in line style too: told apart without their colours
    assert len({styles[f"g{i:02d}"]["linestyle"] for i in range(4)}) == 4
    # the styles go straight into a plot call
    rng = np.random.default_rng(6)
    ax = plotting.plot_det(rng.normal(2, 1, 50), rng.normal(0, 1, 200), **styles["g09"])
    assert ax.lines[0].get_color() == plotting.COLORS[1] and ax.lines[0].get_linestyle() == "-."


def test_use_style_sets_the_palette_line_styles_and_resolution():
    plotting.use_style(retina=False)
    cycle = plt.rcParams["axes.prop_cycle"].by_key()
    assert cycle["color"][: len(plotting.COLORS)] == list(plotting.COLORS)
    assert len(set(zip(cycle["color"], cycle["linestyle"]))) == len(plotting.COLORS) * len(plotting.LINESTYLES)
    assert plt.rcParams["savefig.dpi"] >= 200
    assert plt.rcParams["figure.constrained_layout.use"]


@pytest.mark.parametrize("value, shown", [
    (1.2345e-05, "1.234e-5"), (-1.5e-5, "-1.5e-5"), (1e-300, "1e-300"), (2.5e15, "2.5e15"), (1e20, "1e20"),
    (123456.7, "1.235e5"), (1000000.0, "1000000"), (0.99996, "0.99996"), (380.999999999998, "381.000"),
])
def test_table_cells_write_exponents_as_the_prose_does(value, shown):
    """Before: Python's exponents (1.234e-05, 2.5e+15) beside the prose's 1.234e-5 and 2.5e15. The
    shown text reads back within half its last digit."""
    text = plotting._table_number(value)
    assert text == shown
    digits = len(text.split("e")[0].lstrip("-").replace(".", "").lstrip("0"))
    assert abs(float(text) - value) <= 0.5 * 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)


def test_use_style_prints_whole_floats_as_integers_and_others_to_four_significant_digits():
    table = pd.DataFrame({"n_nonmated": [275488.0, 0.0, np.nan], "fmr": [1.2345e-05, 0.0, 0.987654]},
                         index=pd.Index(["A", "B", "C"], name="group"))
    before = table.copy()
    plotting.use_style(retina=False)
    cells = [line.split() for line in table.to_string().splitlines()[2:]]
    assert cells == [["A", "275488", "1.234e-5"], ["B", "0", "0"], ["C", "NaN", "0.9877"]]
    pd.testing.assert_frame_equal(table, before)  # the display changes, never a value
    assert "1.234e-5" in table.to_html()
    pd.reset_option("display.float_format")
    plotting.use_style(retina=False, tables=False)
    assert "275488.0" in table.to_string()


class Shell:
    """What use_style uses of IPython's shell: its HTML formatter."""

    def __init__(self):
        self.display_formatter = SimpleNamespace(formatters={"text/html": HTMLFormatter()})


def test_use_style_asks_ipython_for_retina_figures(monkeypatch):
    """In a notebook the inline backend renders PNGs at twice the pixel density."""
    calls = []
    monkeypatch.setattr("IPython.get_ipython", Shell)
    monkeypatch.setattr("matplotlib_inline.backend_inline.set_matplotlib_formats", calls.append)
    plotting.use_style()
    assert calls == ["retina"]


def cells(html: str) -> list[str]:
    """The text of every header and data cell of an HTML table, in order."""
    return re.findall(r"<t[hd][^>]*>([^<]*)</t[hd]>", html)


def test_in_a_notebook_missing_values_are_empty_cells_and_labels_stay_as_written(monkeypatch):
    shell = Shell()
    monkeypatch.setattr("IPython.get_ipython", lambda: shell)
    plotting.use_style(retina=False)
    table = pd.DataFrame({
        "metric": ["eer", "tmr_at_fmr", "tmr_at_fmr"], "fmr_target": [np.nan, 0.1, 1e-3],
        "value": [0.1012, 0.8944, 0.4042], "low": [0.08643, 0.8652, np.nan], "unit": ["subject", None, np.nan],
        "n_resamples": pd.array([200, pd.NA, 200], dtype="Int64"), "resolved": pd.array([pd.NA, True, False]),
        "group": pd.array(["NaN", "<NA>", pd.NA], dtype="string"),  # labels that read as missing values
    }).set_index(["metric", "fmr_target"])
    before = table.copy()
    shown = cells(shell.display_formatter.formatters["text/html"](table))
    body = shown[shown.index("fmr_target") + 7 :]  # after the header rows
    assert body == ["eer", "", "0.1012", "0.08643", "subject", "200", "", "NaN",
                    "tmr_at_fmr", "0.1", "0.8944", "0.8652", "", "", "True", "&lt;NA&gt;",
                    "0.001", "0.4042", "", "", "200", "False", ""]
    pd.testing.assert_frame_equal(table, before)  # the display changes, never a value
    assert "NaN" in table.to_string()  # outside the notebook's HTML, pandas as ever


def test_a_dollar_sign_in_a_table_starts_no_formula(monkeypatch):
    """Income brackets as group labels ("$50k-$100k"): MathJax, which the book and the report's
    HTML load, typeset "50k-" as a formula in a table cell."""
    shell = Shell()
    monkeypatch.setattr("IPython.get_ipython", lambda: shell)
    plotting.use_style(retina=False)
    html = shell.display_formatter.formatters["text/html"](pd.DataFrame({"fmr": [0.01, 0.02]}, index=["$50k-$100k", "<$50k"]))
    assert re.fullmatch(r'<div class="tex2jax_ignore mathjax_ignore">\n<style.*</table>\n</div>', html, flags=re.S)
    assert cells(html)[2:] == ["$50k-$100k", "0.01", "&lt;$50k", "0.02"]


def test_a_table_too_long_to_show_whole_keeps_pandas_marks(monkeypatch):
    """Relabelling would convert every row to show a few: a long table keeps NaN in its labels."""
    shell = Shell()
    monkeypatch.setattr("IPython.get_ipython", lambda: shell)
    plotting.use_style(retina=False)
    table = pd.DataFrame({"value": np.arange(100.0), "low": np.nan, "n": pd.array([pd.NA] * 100, dtype="Int64")},
                         index=pd.Index([np.nan] * 100, name="fmr_target"))
    with pd.option_context("display.max_rows", 10, "display.min_rows", 10):
        shown = cells(shell.display_formatter.formatters["text/html"](table))
    assert shown.count("...") == 4 and shown.count("NaN") == 10 and shown.count("&lt;NA&gt;") == 10
    assert "" in shown[shown.index("0"):]  # the float column's NaN is still empty
    with pd.option_context("display.max_rows", 10, "display.min_rows", 4):  # pandas shows min_rows of it
        html = shell.display_formatter.formatters["text/html"](table)
    assert cells(html).count("NaN") == 4 and "100 rows × 3 columns" in html
    with pd.option_context("display.notebook_repr_html", False):  # no HTML: the notebook shows text
        assert shell.display_formatter.formatters["text/html"](table) is None


def test_colors_are_the_okabe_ito_palette():
    assert plotting.COLORS[:3] == ("#0072B2", "#D55E00", "#009E73") and len(set(plotting.COLORS)) == 8
    assert bf.plotting is plotting


def test_det_marks_the_operating_points_of_given_thresholds():
    rng = np.random.default_rng(7)
    mated, nonmated = rng.normal(2, 1, 500), rng.normal(0, 1, 5_000)
    ax = plotting.plot_det(mated, nonmated, thresholds=[1.0, 1.5], color=plotting.COLORS[2], label="A")
    curve, points = ax.lines
    expected = bf.fmr_fnmr(mated, nonmated, [1.0, 1.5])
    np.testing.assert_allclose(norm.cdf(points.get_xdata()), expected.fmr, rtol=1e-12)
    np.testing.assert_allclose(norm.cdf(points.get_ydata()), expected.fnmr, rtol=1e-12)
    assert points.get_color() == curve.get_color() == plotting.COLORS[2]
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["A"]


def test_cross_group_heatmap_is_log10_coloured_and_annotated_with_counts():
    import pandas as pd
    from matplotlib.colors import LogNorm

    fmr = pd.DataFrame([[1e-2, 1e-4, np.nan], [0.0, 1e-3, 5e-5]], index=["a", "b"], columns=["a", "b", "c"])
    pairs = pd.DataFrame([[20_000, 20_000, 0], [20_000, 10_000, 20_000]], index=fmr.index, columns=fmr.columns)
    ax = plotting.plot_cross_group_fmr(fmr, pairs=pairs)
    image = ax.images[0]
    assert isinstance(image.norm, LogNorm)
    assert image.norm.vmin == pytest.approx(1 / 20_000) and image.norm.vmax == pytest.approx(1e-2)
    data = image.get_array()
    assert data.mask[0, 2] and not data.mask[1, 0]  # no pairs: blank; zero: at the floor
    assert data[1, 0] == pytest.approx(1 / 20_000)
    # colours a decade apart are equally far apart on the colour scale
    assert image.norm(1e-3) - image.norm(1e-4) == pytest.approx(image.norm(1e-2) - image.norm(1e-3))
    texts = [text.get_text() for text in ax.texts]
    assert texts == ["1.0e-2\n200 / 20,000", "1.0e-4\n2 / 20,000", "0\n0 / 20,000", "1.0e-3\n10 / 10,000",
                     "5.0e-5\n1 / 20,000"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("probe group", "reference group")
    fmr.index.name, fmr.columns.name = "reference_gender", "probe_gender"
    named = plotting.plot_cross_group_fmr(fmr)
    assert (named.get_xlabel(), named.get_ylabel()) == ("probe group (gender)", "reference group (gender)")
    without = plotting.plot_cross_group_fmr(fmr)
    assert [text.get_text() for text in without.texts][0] == "1.0e-2"


def _contrast(first, second) -> float:
    """WCAG 2.1 contrast ratio of two sRGB colours, computed here from the standard's formula."""
    def luminance(colour):
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in matplotlib.colors.to_rgb(colour)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_first_five_colours_stand_out_on_white():
    contrasts = [_contrast(colour, "white") for colour in plotting.COLORS]
    assert min(contrasts[:5]) >= 3 and max(contrasts[5:]) < 3


def test_cross_group_heatmap_labels_contrast_with_their_cells():
    """Every number on the heatmap reaches WCAG AA (4.5:1) against its cell, across the
    whole colour scale (the old luma rule put white on mid greens at 2.9:1)."""
    rates = np.logspace(-5, -1, 25).reshape(5, 5)
    fmr = pd.DataFrame(rates, index=list("abcde"), columns=list("abcde"))
    ax = plotting.plot_cross_group_fmr(fmr)
    image = ax.images[0]
    for text in ax.texts:
        i, j = (int(round(v)) for v in text.get_position()[::-1])
        cell = image.cmap(image.norm(rates[i, j]))
        assert _contrast(text.get_color(), cell) >= 4.5, (text.get_text(), cell)
    assert {text.get_color() for text in ax.texts} == {"black", "white"}


def test_cross_group_heatmap_checks_its_input():
    import pandas as pd

    fmr = pd.DataFrame([[0.1, 0.2]], index=["a"], columns=["a", "b"])
    with pytest.raises(ValueError, match="same rows and columns"):
        plotting.plot_cross_group_fmr(fmr, pairs=fmr[["b", "a"]])
    with pytest.raises(ValueError, match=r"rates in \[0, 1\]"):
        plotting.plot_cross_group_fmr(fmr * 10)


def test_score_distribution_thresholds_need_their_labels():
    """A list of thresholds gave "'list' object has no attribute 'items'"."""
    with pytest.raises(TypeError, match=r"^thresholds must map a label to each threshold, e\.g\. \{'FMR = 1e-3': 2\.1\}, "
                                        r"got \[1\.0\]$"):
        plotting.plot_score_distributions([1.0, 2.0], [0.0, 0.5], thresholds=[1.0])


@settings(max_examples=30, deadline=None)
@given(mated=st.lists(st.integers(-2, 2), min_size=1, max_size=30), nonmated=st.lists(st.integers(-2, 2), min_size=1,
       max_size=30), bins=st.integers(1, 8))
def test_reliability_bins_never_split_a_tie_and_count_every_row(mated, nonmated, bins):
    """A stable sort put a tie's mated rows before its non-mated ones, so a bin edge inside
    the tie drew (0.5, 1.0) and (0.5, 0.0) for one prediction whose share of mated pairs is 0.5."""
    m, n = np.array(mated, dtype=float), np.array(nonmated, dtype=float)
    ax = plotting.plot_reliability(m, n, bins=bins)
    x, y = ax.lines[0].get_data()
    plt.close(ax.figure)
    predicted = expit(np.r_[m, n] + np.log(m.size / n.size))
    is_mated = np.r_[np.ones(m.size), np.zeros(n.size)]
    # a loop over the bins: each holds whole ties, and the points are their rows' means
    order = np.argsort(predicted, kind="stable")
    groups, start = [], 0
    for value in np.unique(predicted):
        rows = order[predicted[order] == value]
        groups.append((start * bins // predicted.size, rows))
        start += rows.size
    expected = {}
    for b, rows in groups:
        expected.setdefault(b, []).extend(rows)
    assert len(x) == len(expected) <= bins
    for (b, rows), px, py in zip(sorted(expected.items()), x, y):
        assert px == pytest.approx(predicted[rows].mean()) and py == pytest.approx(is_mated[rows].mean())


def test_cross_group_cells_are_labelled_while_the_labels_can_fit():
    """200 groups a side: 40,000 labels took 15 s to draw and none could be read (a helper's audit)."""
    rng = np.random.default_rng(0)
    for groups, labels in ((20, 400), (21, 0)):
        names = [f"g{i}" for i in range(groups)]
        ax = plotting.plot_cross_group_fmr(pd.DataFrame(rng.random((groups, groups)) * 1e-3, index=names, columns=names))
        assert len(ax.texts) == labels and len(ax.images) == 1
        plt.close(ax.figure)


def test_group_styles_of_one_string_is_refused():
    """group_styles("abc") styled the letters a, b and c (a helper's audit)."""
    with pytest.raises(TypeError, match=r"^groups must be a collection of group labels, e\.g\. \['a', 'b'\], got 'abc'$"):
        plotting.group_styles("abc")


@pytest.mark.parametrize("groups, message", [
    (3, "groups must be a collection of group labels, e.g. ['a', 'b'], got 3"),
    (None, "groups must be a collection of group labels, e.g. ['a', 'b'], got None"),
    (["a", ["b", "c"]], "groups must hold group labels (a text or a number each), got ['b', 'c'] among them"),
])
def test_group_styles_name_what_is_not_a_collection_of_labels(groups, message):
    """Python's "'int' object is not iterable" and "unhashable type: 'list'" named neither
    the argument nor the label."""
    with pytest.raises(TypeError) as raised:
        plotting.group_styles(groups)
    assert str(raised.value) == message


@pytest.mark.parametrize("plot", [bf.plotting.plot_roc, bf.plotting.plot_det, bf.plotting.plot_bayes_error])
def test_a_refused_plot_leaves_no_figure_open(plot):
    """plot_roc, plot_det and plot_bayes_error made their figure, then found the scores bad:
    an empty figure stayed open (and showed up in a notebook's next output)."""
    plt.close("all")
    with pytest.raises(ValueError, match=r"^mated contains 1 NaN"):
        plot(np.array([1.0, np.nan]), np.array([0.0, 0.5]))
    assert plt.get_fignums() == []


@pytest.mark.parametrize("thresholds, error, message", [
    ("1.0", TypeError, r"^thresholds must be numbers, got '1\.0'$"),
    ([True], TypeError, r"^thresholds must be numbers, got \[True\]$"),  # was drawn at 1.0
    ([[1.0]], ValueError, r"^thresholds must be one number or a non-empty, flat sequence, got shape \(1, 1\)$"),
    ([], ValueError, r"^thresholds must be one number or a non-empty, flat sequence, got shape \(0,\)$"),
    ([np.nan], ValueError, r"^thresholds has 1 NaN value: no comparison can be decided against it$"),
])
def test_det_checks_its_thresholds_before_making_a_figure(thresholds, error, message):
    """plot_det read its thresholds with np.asarray(dtype=float) after making the figure:
    a text threshold gave NumPy's "could not convert", True was drawn at 1.0, a nested list
    was flattened, and every refusal left an empty figure open."""
    plt.close("all")
    with pytest.raises(error, match=message):
        plotting.plot_det(np.array([1.0, 2.0]), np.array([0.0, 0.5]), thresholds=thresholds)
    assert plt.get_fignums() == []


@pytest.mark.parametrize(("rate", "options", "text"), [
    (1.5e-4, {}, "1.5e-4"), (2e-4, {}, "2.0e-4"), (2e-4, {"trim": True}, "2e-4"), (1e-3, {"digits": 1}, "1e-3"),
    (2.5e-3, {"digits": 1}, "3e-3"), (2.5e-3, {"trim": True}, "2.5e-3"), (2.693e-5, {"digits": 4}, "2.693e-5"),
    (2.69e-5, {"digits": 4}, "2.690e-5"), (2.69e-5, {"digits": 4, "trim": True}, "2.69e-5"), (1e-12, {}, "1.0e-12"),
    (0.0, {}, "0"), (-0.0, {"digits": 3}, "0"), (-3e-4, {}, "-3.0e-4"), (1.0, {"digits": 1}, "1e0"),
    (123.0, {}, "1.2e2"), (np.float32(1e-3), {"trim": True}, "1e-3"), (7, {"digits": 1}, "7e0"),
])
def test_format_rate_by_hand(rate, options, text):
    assert plotting.format_rate(rate, **options) == text


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(1, 8), st.booleans())
def test_format_rate_is_python_e_notation_without_exponent_padding(rate, digits, trim):
    """The text reads back as the value Python's e-notation rounds to, with no sign on a
    positive exponent, no leading zero in it, and (trimmed) no trailing zero in the mantissa."""
    text = plotting.format_rate(rate, digits=digits, trim=trim)
    assert float(text) == float(format(rate, f".{digits - 1}e"))
    if rate == 0:
        assert text == "0"
        return
    mantissa, exponent = text.split("e")
    assert exponent == str(int(exponent)) and exponent != "-0"
    assert len(mantissa.lstrip("-").replace(".", "")) == digits or trim
    assert not trim or not mantissa.endswith(("0", "."))


@pytest.mark.parametrize(("rate", "options", "error", "message"), [
    (float("nan"), {}, ValueError, "rate must be finite, got nan"),
    (float("-inf"), {}, ValueError, "rate must be finite, got -inf"),
    ("1e-3", {}, TypeError, "rate must be a real number, got '1e-3'"),
    (True, {}, TypeError, "rate must be a real number, got True"),
    (np.array([1e-3]), {}, TypeError, "rate must be a real number, got array([0.001])"),
    (1e-3, {"digits": 0}, ValueError, "digits must be at least 1, got 0"),
    (1e-3, {"digits": 2.0}, TypeError, "digits must be an integer, got 2.0"),  # as every count of the package
    (1e-3, {"digits": True}, TypeError, "digits must be an integer, got True"),
])
def test_format_rate_refuses_what_is_not_a_finite_number(rate, options, error, message):
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        plotting.format_rate(rate, **options)
