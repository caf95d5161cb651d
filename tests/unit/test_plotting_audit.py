"""Audit of biofair.plotting: every figure draws the data it claims, read back from the axes
and compared with loops, scipy and numpy; and the hostile inputs an audit found drawn wrong."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.stats import norm

import biofair as bf
from biofair import plotting


pytestmark = pytest.mark.usefixtures("close_figures")  # tests/conftest.py


def rates_by_loop(mated, nonmated):
    """(FMR, FNMR) at -inf, every distinct score and +inf, one threshold at a time."""
    thresholds = [-np.inf, *sorted(set(mated) | set(nonmated)), np.inf]
    fmr = np.array([sum(s >= t for s in nonmated) / len(nonmated) for t in thresholds])
    fnmr = np.array([sum(s < t for s in mated) / len(mated) for t in thresholds])
    return fmr, fnmr


def on_polyline(points, vertices):
    """Whether each point lies on the polyline through ``vertices`` (within rounding)."""
    a, b = vertices[:-1], vertices[1:]
    result = []
    for p in points:
        d = b - a
        length = np.maximum((d ** 2).sum(1), 1e-300)
        u = np.clip(((p - a) * d).sum(1) / length, 0, 1)
        nearest = a + u[:, None] * d
        result.append(np.min(np.hypot(*(nearest - p).T)) < 1e-9)
    return np.array(result)


def tiny_samples(seed, count=40):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield (np.round(rng.normal(1, 1, rng.integers(1, 12)), 1).tolist(),
               np.round(rng.normal(0, 1, rng.integers(1, 25)), 1).tolist())


def test_det_draws_probit_fmr_against_probit_fnmr_at_every_threshold():
    """Every (probit FMR, probit FNMR) of a loop over thresholds lies on the drawn line, and
    every drawn vertex is one of them; rates of 0 and 1 sit beyond the axes (at 5e-7 from
    them), never inside the range the axes show."""
    clip = 5e-7
    for mated, nonmated in tiny_samples(1):
        ax = plotting.plot_det(mated, nonmated)
        fmr, fnmr = rates_by_loop(mated, nonmated)
        expected = np.column_stack([norm.ppf(np.clip(fmr, clip, 1 - clip)), norm.ppf(np.clip(fnmr, clip, 1 - clip))])
        drawn = np.column_stack(ax.lines[0].get_data())
        assert on_polyline(expected, drawn).all()
        assert all(np.isclose(expected, vertex, rtol=0, atol=1e-12).all(1).any() for vertex in drawn)
        low, high = ax.get_xlim()
        assert norm.ppf(clip) < low and norm.ppf(1 - clip) > high
        plt.close("all")


def test_roc_draws_tmr_against_every_positive_fmr():
    for mated, nonmated in tiny_samples(2):
        ax = plotting.plot_roc(mated, nonmated)
        fmr, fnmr = rates_by_loop(mated, nonmated)
        shown = fmr > 0
        expected = np.column_stack([fmr[shown], 1 - fnmr[shown]])[::-1]
        drawn = np.column_stack(ax.lines[0].get_data())
        assert on_polyline(expected, drawn).all()
        np.testing.assert_allclose(drawn[[0, -1]], expected[[0, -1]], rtol=1e-12)
        assert ax.get_xlim()[0] == pytest.approx(min(1 / len(nonmated), 0.1))
        plt.close("all")


def test_roc_of_a_single_nonmated_score_has_a_log_axis_to_show_it():
    """N = 1 set the x axis to [1, 1]: matplotlib warned (an error under the test settings)
    and widened it by itself. The only FMR above 0 is 1: a dot at (1, TMR = 1)."""
    ax = plotting.plot_roc([2.0, 3.0], [0.0])
    assert ax.get_xlim() == pytest.approx((0.1, 1.0))
    x, y = ax.lines[0].get_data()
    assert (list(x), list(y), ax.lines[0].get_marker()) == ([1.0], [1.0], "o")


def test_score_distributions_are_numpys_densities_on_shared_edges():
    rng = np.random.default_rng(3)
    mated, nonmated = rng.normal(2, 1, 37), rng.normal(0, 1, 501)
    ax = plotting.plot_score_distributions(mated, nonmated, bins=13)
    edges = np.histogram_bin_edges(np.concatenate([mated, nonmated]), bins=13)
    steps = {patch.get_label(): patch.get_xy() for patch in ax.patches if patch.get_label() in ("mated", "non-mated")}
    for name, values in (("mated", mated), ("non-mated", nonmated)):
        density, _ = np.histogram(values, bins=edges, density=True)
        xy = steps[name]
        # the step outline: each bin's top edge runs from its left to its right edge at its density
        tops = xy[1:-1].reshape(-1, 2, 2)
        np.testing.assert_allclose(tops[:, 0, 0], edges[:-1], rtol=1e-12)
        np.testing.assert_allclose(tops[:, 1, 0], edges[1:], rtol=1e-12)
        np.testing.assert_allclose(tops[:, 0, 1], density, rtol=1e-12)
        assert (density * np.diff(edges)).sum() == pytest.approx(1.0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["non-mated", "mated"]


def test_score_distributions_draw_infinite_thresholds_on_the_edges():
    """A threshold of +inf (reject all) or -inf (accept all) was drawn at x = inf: nothing on
    the figure, while the legend named it."""
    ax = plotting.plot_score_distributions([1.0, 2.0], [0.0, 1.0], thresholds={"reject all": np.inf, "t": 1.5,
                                                                               "accept all": -np.inf})
    lines = {line.get_label(): line for line in ax.lines}
    assert list(lines) == ["reject all", "t", "accept all"]
    for name, edge in (("reject all", 1.0), ("accept all", 0.0)):
        line = lines[name]
        assert list(line.get_xdata()) == [edge, edge] and line.get_transform() == ax.transAxes
        assert not line.get_clip_on()
    assert list(lines["t"].get_xdata()) == [1.5, 1.5]
    assert np.isfinite(ax.get_xlim()).all()


def test_reliability_bins_match_a_loop():
    """Bins of equal count over the predicted probability, a tie never split: each distinct
    prediction goes to bin floor(rows below it * bins / rows)."""
    rng = np.random.default_rng(4)
    for _ in range(60):
        mated = np.round(rng.normal(1, 2, rng.integers(1, 15)))
        nonmated = np.round(rng.normal(-1, 2, rng.integers(1, 15)))
        bins = int(rng.integers(1, 8))
        ax = plotting.plot_reliability(mated, nonmated, bins=bins)
        predicted = expit(np.concatenate([mated, nonmated]) + np.log(len(mated) / len(nonmated)))
        is_mated = np.r_[np.ones(len(mated)), np.zeros(len(nonmated))]
        members: dict[int, list[float]] = {}
        for value in sorted(set(predicted)):
            members.setdefault(int(np.sum(predicted < value)) * bins // len(predicted), []).append(value)
        expected = [(predicted[np.isin(predicted, v)].mean(), is_mated[np.isin(predicted, v)].mean())
                    for _, v in sorted(members.items())]
        np.testing.assert_allclose(np.column_stack(ax.lines[0].get_data()), expected, rtol=1e-12)
        plt.close("all")


@pytest.mark.parametrize("bins", [10**20, 2**62])
def test_reliability_with_more_bins_than_rows_gives_each_prediction_its_bin(bins):
    """bins=10**20 raised OverflowError, bins=2**62 overflowed int64 ("'list' argument must
    have no negative elements"); more bins than rows draw what as many bins as rows draw."""
    mated, nonmated = np.arange(10.0), np.arange(10.0) - 0.5
    ax = plotting.plot_reliability(mated, nonmated, bins=bins)
    reference = plotting.plot_reliability(mated, nonmated, bins=20)
    np.testing.assert_array_equal(ax.lines[0].get_xydata(), reference.lines[0].get_xydata())
    assert len(ax.lines[0].get_xdata()) == 20


def test_bayes_error_draws_bayes_error_rates():
    rng = np.random.default_rng(5)
    mated, nonmated = rng.normal(2, 2, 50), rng.normal(-2, 2, 70)
    ax = plotting.plot_bayes_error(mated, nonmated, label="A")
    table = bf.bayes_error_rates(mated, nonmated)
    actual, minimum = ax.lines[:2]
    np.testing.assert_array_equal(actual.get_xdata(), table["prior_log_odds"])
    np.testing.assert_array_equal(actual.get_ydata(), table["actual_dcf"])
    np.testing.assert_array_equal(minimum.get_ydata(), table["min_dcf"])
    assert (actual.get_linestyle(), minimum.get_linestyle(), minimum.get_color()) == ("-", ":", actual.get_color())
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["A", "A (min)"]


def cross_group_table(seed=6, n=400):
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({"score": rng.normal(0, 1, n), "mated": rng.random(n) < 0.2,
                          "reference_group": rng.choice(["x", "y", "z"], n),
                          "reference_age": rng.choice(["old", "young"], n)})
    table["probe_group"] = np.where(table["mated"], table["reference_group"], rng.choice(["x", "y", "z"], n))
    table["probe_age"] = np.where(table["mated"], table["reference_age"], rng.choice(["old", "young"], n))
    return table


def test_cross_group_heatmap_cells_and_labels_are_the_rates_of_a_loop():
    table = cross_group_table()
    fmr = bf.cross_group_fmr(table, 0.5)
    nonmated = table[~table["mated"]]
    pairs = pd.crosstab(nonmated["reference_group"], nonmated["probe_group"]).reindex(index=fmr.index,
                                                                                       columns=fmr.columns)
    ax = plotting.plot_cross_group_fmr(fmr, pairs=pairs)
    cells, texts = ax.images[0].get_array(), iter(t.get_text() for t in ax.texts)
    for i, reference in enumerate(["x", "y", "z"]):
        for j, probe in enumerate(["x", "y", "z"]):
            cell = nonmated[(nonmated["reference_group"] == reference) & (nonmated["probe_group"] == probe)]
            k = int((cell["score"] >= 0.5).sum())
            assert cells[i, j] == pytest.approx(k / len(cell) if k else ax.images[0].norm.vmin, rel=1e-12)
            assert next(texts) == f"{plotting.format_rate(k / len(cell))}\n{k} / {len(cell)}"
    ticks = ([t.get_text() for t in ax.get_xticklabels()], [t.get_text() for t in ax.get_yticklabels()])
    assert ticks == (["x", "y", "z"], ["x", "y", "z"])


def test_cross_group_heatmap_of_several_attributes_names_each_attribute_once():
    """The index 'reference_group / reference_age' was labelled 'reference group (group / reference_age)'."""
    fmr = bf.cross_group_fmr(cross_group_table(), 0.5, by=["group", "age"])
    ax = plotting.plot_cross_group_fmr(fmr)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("probe group (group / age)", "reference group (group / age)")
    assert [t.get_text() for t in ax.get_xticklabels()] == list(fmr.columns)


def test_cross_group_colour_scale_never_shows_rates_above_the_largest():
    """A rate of 1 beside a zero gave a colour scale from 1 to 10 (rates no cell can have),
    and the zero took the colour of the 1."""
    fmr = pd.DataFrame([[1.0, 0.0], [np.nan, 1.0]], index=["a", "b"], columns=["a", "b"])
    ax = plotting.plot_cross_group_fmr(fmr)
    image = ax.images[0]
    assert (image.norm.vmin, image.norm.vmax) == pytest.approx((0.1, 1.0))
    assert image.cmap(image.norm(image.get_array()[0, 1])) != image.cmap(image.norm(image.get_array()[0, 0]))
    assert image.get_array().mask[1, 0]  # no pairs: blank
    assert [t.get_text() for t in ax.texts] == ["1.0e0", "0", "1.0e0"]
    equal = plotting.plot_cross_group_fmr(pd.DataFrame([[1e-3, 0.0]], index=["a"], columns=["a", "b"]))
    assert (equal.images[0].norm.vmin, equal.images[0].norm.vmax) == pytest.approx((1e-4, 1e-3))


def test_a_cleared_axes_draws_the_legend_of_the_curves_drawn_since():
    """The count of labelled curves outlived ax.cla(): 10 groups drawn after clearing 15 got
    no legend, and a note said there were 25."""
    rng = np.random.default_rng(7)
    fig, ax = plt.subplots()
    for i in range(15):
        plotting.plot_det(rng.normal(2, 1, 20), rng.normal(0, 1, 20), label=f"old {i}", ax=ax)
    ax.cla()
    for i in range(10):
        plotting.plot_det(rng.normal(2, 1, 20), rng.normal(0, 1, 20), label=f"new {i}", ax=ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [f"new {i}" for i in range(10)]
    assert list(ax.texts) == []
    # over the limit, cleared, and over it again: one note, with the count since clearing
    for i in range(25):
        plotting.plot_roc(rng.normal(2, 1, 20), rng.normal(0, 1, 20), label=f"g {i}", ax=ax)
    ax.cla()
    for i in range(22):
        plotting.plot_roc(rng.normal(2, 1, 20), rng.normal(0, 1, 20), label=f"h {i}", ax=ax)
    assert ax.get_legend() is None
    assert [t.get_text() for t in ax.texts] == ["22 labelled curves: too many for a legend (ax.legend() draws one)"]


def test_a_removed_curve_leaves_the_legend_while_it_is_shown():
    rng = np.random.default_rng(8)
    ax = plotting.plot_roc(rng.normal(2, 1, 20), rng.normal(0, 1, 20), label="gone")
    ax.lines[0].remove()
    plotting.plot_roc(rng.normal(2, 1, 20), rng.normal(0, 1, 20), label="kept", ax=ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["kept"]


def test_group_styles_order_labels_written_alike_by_type_not_by_hash():
    """1 and "1" both sort as "1": their order (so their colours) followed the set's hash
    order, which changes between Python runs (PYTHONHASHSEED)."""
    class Label:  # written "g" and hashed as given: the set holds hash 0 before hash 1 whatever the seed
        def __init__(self, hashed):
            self.hashed = hashed

        def __str__(self):
            return "g"

        def __hash__(self):
            return self.hashed

    class Zulu(Label):
        pass

    class Alpha(Label):
        pass

    zulu, alpha = Zulu(0), Alpha(1)
    assert list(plotting.group_styles([zulu, alpha])) == [alpha, zulu]
    groups = [str(i) for i in range(8)] + list(range(8))
    for given in (groups, groups[::-1]):
        styles = plotting.group_styles(given)
        assert list(styles) == [g for i in range(8) for g in (i, str(i))]
        assert styles[0]["color"] == plotting.COLORS[0] and styles["0"]["color"] == plotting.COLORS[1]


def test_group_styles_are_the_same_in_every_figure_of_the_groups():
    styles = plotting.group_styles(["b", "a", "c"])
    rng = np.random.default_rng(9)
    fig, (left, right) = plt.subplots(1, 2)
    for group in ("c", "a", "b"):
        mated, nonmated = rng.normal(2, 1, 30), rng.normal(0, 1, 30)
        plotting.plot_det(mated, nonmated, label=group, ax=left, **styles[group])
        plotting.plot_roc(mated, nonmated, label=group, ax=right, **styles[group])
    for ax in (left, right):
        drawn = {line.get_label(): (line.get_color(), line.get_linestyle()) for line in ax.lines}
        assert drawn == {g: (s["color"], s["linestyle"]) for g, s in styles.items()}
