"""Edges of the figures found in an audit: DET curves of groups too small to show a point on
probit axes, labels of hundreds of characters and legends of many thresholds."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
from scipy.stats import norm  # noqa: E402

from biofair import plotting  # noqa: E402


pytestmark = pytest.mark.usefixtures("close_figures")  # tests/conftest.py


def rates_at_every_threshold(mated, nonmated):
    """(FMR, FNMR) at each score and above the highest, by counting, one threshold at a time."""
    mated, nonmated = np.asarray(mated, dtype=float), np.asarray(nonmated, dtype=float)
    thresholds = sorted(set(mated) | set(nonmated)) + [np.inf]
    return [(np.mean(nonmated >= t), np.mean(mated < t)) for t in thresholds]


def a_point_inside(ax, mated, nonmated) -> bool:
    """Whether some threshold gives a point strictly inside the DET axes' range."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    return any(x0 < norm.ppf(fmr) < x1 and y0 < norm.ppf(fnmr) < y1
               for fmr, fnmr in rates_at_every_threshold(mated, nonmated) if 0 < fmr < 1 and 0 < fnmr < 1)


TINY = {
    "2 mated, 3 non-mated": ([1.0, 2.0], [0.5, 1.5, 2.5]),  # FNMR 0, 0.5 or 1: at best on the top edge
    "one non-mated score": ([0.0, 1.0], [0.5]),  # FMR 0 or 1 at every threshold
    "all tied": ([1.0, 1.0, 1.0], [1.0, 1.0]),  # from accept-all straight to reject-all
    "one each, reversed": ([0.0], [0.5]),
}


@pytest.mark.parametrize("name", TINY)
def test_det_legend_says_when_a_groups_curve_has_no_point_inside_the_axes(name):
    """A group of a few comparisons had a legend entry but nothing to see: its curve ran along
    the frame (FNMR 0.5 on axes ending at 0.5) or wholly beyond it (rates of 0 and 1 only)."""
    mated, nonmated = TINY[name]
    rng = np.random.default_rng(0)
    ax = plotting.plot_det(rng.normal(2, 1, 500), rng.normal(0, 1, 5_000), label="large", max_rate=0.5)
    plotting.plot_det(mated, nonmated, label="tiny", ax=ax, max_rate=0.5)
    assert not a_point_inside(ax, mated, nonmated)
    note = f"tiny (off the axes: {len(mated)} mated, {len(nonmated)} non-mated)"
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["large", plotting._plain(note)]


def test_det_legend_names_a_small_group_as_it_is_while_a_point_is_inside_the_axes():
    """The note depends on the axes, not on the group's size alone: up to 95 % the point at
    FMR 1/3, FNMR 1/2 of 2 mated and 3 non-mated comparisons is inside; a perfectly separated
    group's curve is beyond the axes but has its dot in the corner, which its legend entry shows
    (it showed a line sample)."""
    mated, nonmated = TINY["2 mated, 3 non-mated"]
    ax = plotting.plot_det(mated, nonmated, label="tiny")
    assert a_point_inside(ax, mated, nonmated)
    separated = plotting.plot_det([2.0, 3.0], [0.0, 1.0], label="separated")
    assert not a_point_inside(separated, [2.0, 3.0], [0.0, 1.0])
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["tiny"]
    assert [text.get_text() for text in separated.get_legend().get_texts()] == ["separated"]
    (handle,) = separated.get_legend().legend_handles  # the corner dot, as drawn, not a line that is not
    assert (handle.get_marker(), handle.get_linestyle()) == ("o", "None")
    unlabelled = plotting.plot_det(*TINY["all tied"])  # no legend, nothing to say
    assert unlabelled.get_legend() is None


LONG = "".join(chr(ord("a") + i % 26) for i in range(300))
# its first 80 characters on two lines, then "…" and its last 20 (300 = 7 * 40 + 20)
LONG_SHOWN = f"{LONG[:40]}\n{LONG[40:80]}\n\u2026{LONG[280:]}"


def outside_the_figure(texts) -> list[str]:
    """Those of ``texts`` that reach beyond the edges of their figure, as drawn."""
    texts = list(texts)
    fig = texts[0].figure
    fig.canvas.draw()  # a collapsed layout warns, and the warning is an error in the tests
    renderer = fig.canvas.get_renderer()
    return [text.get_text() for text in texts if not fig.bbox.contains(*text.get_window_extent(renderer).p0)
            or not fig.bbox.contains(*text.get_window_extent(renderer).p1)]


@pytest.mark.parametrize("plot", [plotting.plot_det, plotting.plot_roc, plotting.plot_reliability,
                                  plotting.plot_bayes_error])
def test_a_label_of_300_characters_is_wrapped_inside_the_books_figure(plot):
    """The legend entry ran 300 characters off the figure, and matplotlib warned
    'constrained_layout not applied because axes sizes collapsed to zero'."""
    rng = np.random.default_rng(1)
    with matplotlib.rc_context():
        plotting.use_style(retina=False, tables=False)
        ax = plot(rng.normal(2, 1, 100), rng.normal(0, 1, 100), label=LONG)
        assert outside_the_figure(ax.get_legend().get_texts()) == []
    assert [text.get_text() for text in ax.get_legend().get_texts()][0] == LONG_SHOWN
    assert ax.bbox.width > 100 and ax.bbox.height > 100  # pixels: the plot keeps its room


def test_score_distribution_threshold_labels_and_many_thresholds_stay_inside_the_figure():
    """A threshold labelled with 300 characters ran off the figure; 30 thresholds made a
    one-column legend of 32 entries taller than the figure (its layout collapsed)."""
    rng = np.random.default_rng(2)
    mated, nonmated = rng.normal(2, 1, 100), rng.normal(0, 1, 100)
    with matplotlib.rc_context():
        plotting.use_style(retina=False, tables=False)
        ax = plotting.plot_score_distributions(mated, nonmated, thresholds={LONG: 1.0})
        assert outside_the_figure(ax.get_legend().get_texts()) == []
        assert [text.get_text() for text in ax.get_legend().get_texts()] == ["non-mated", "mated", LONG_SHOWN]
        many = {f"t{i}": i / 10 for i in range(30)}
        ax = plotting.plot_score_distributions(mated, nonmated, thresholds=many)
        assert outside_the_figure(ax.get_legend().get_texts()) == []
        legend = ax.get_legend()
        assert [text.get_text() for text in legend.get_texts()] == ["non-mated", "mated", *many]
        assert legend._ncols == 4  # 32 entries in columns of at most 10
        box = legend.get_window_extent(ax.figure.canvas.get_renderer())
        assert ax.figure.bbox.y0 <= box.y0 and box.y1 <= ax.figure.bbox.y1


def test_cross_group_heatmap_of_groups_named_with_300_characters_keeps_its_cells():
    """Both axes' tick labels 300 characters long: 'constrained_layout not applied because
    axes sizes collapsed to zero', and no cell to see."""
    fmr = pd.DataFrame([[1e-3, 1e-4]], index=[LONG], columns=[LONG, "b"])
    with matplotlib.rc_context():
        plotting.use_style(retina=False, tables=False)
        ax = plotting.plot_cross_group_fmr(fmr)
        assert outside_the_figure([*ax.get_xticklabels(), *ax.get_yticklabels()]) == []
    shown = f"{LONG[:20]}\n{LONG[20:40]}\n\u2026{LONG[280:]}"  # lines of 20 characters on the ticks
    assert [text.get_text() for text in ax.get_yticklabels()] == [shown]
    assert [text.get_text() for text in ax.get_xticklabels()] == [shown, "b"]
    assert ax.bbox.width > 100 and ax.bbox.height > 100


def test_a_short_label_and_its_line_breaks_are_drawn_as_written():
    """Wrapping leaves labels of up to 40 characters a line alone, spaces and line breaks included."""
    label = "  forty characters exactly, padded: abcd\nsecond line "
    assert len(label.split("\n")[0]) == 40
    ax = plotting.plot_det(np.arange(10.0), np.arange(5.0, 15.0), label=label)
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [label]
