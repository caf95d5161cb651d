"""Figures: score distributions, DET on probit axes, ROC on a log FMR axis.

Each function draws on ``ax`` (a new one if omitted) and returns it; nothing is written to
disk. Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike
from scipy.stats import norm

from biofair._counts import error_counts
from biofair._validation import as_scores

#: Colour-blind-safe colours (Okabe-Ito) and line styles, used in this order.
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
LINESTYLES = ("-", "--", "-.", ":")
_DET_TICKS = np.array([1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99])


def _axes(ax: Axes | None) -> Axes:
    return plt.subplots()[1] if ax is None else ax


def plot_score_distributions(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    thresholds: Mapping[str, float] | None = None,
    bins: int = 60,
    ax: Axes | None = None,
) -> Axes:
    """Histograms (densities) of mated and non-mated scores, thresholds as vertical lines.

    ``thresholds`` maps a label (e.g. ``"FMR = 1e-3"``) to a threshold value.
    """
    ax = _axes(ax)
    mated, nonmated = as_scores(mated, "mated"), as_scores(nonmated, "nonmated")
    edges = np.histogram_bin_edges(np.concatenate([mated, nonmated]), bins=bins)
    for values, label, color in ((nonmated, "non-mated", COLORS[1]), (mated, "mated", COLORS[0])):
        ax.hist(values, bins=edges, density=True, histtype="stepfilled", alpha=0.35, color=color)
        ax.hist(values, bins=edges, density=True, histtype="step", color=color, label=label)
    for i, (label, value) in enumerate((thresholds or {}).items()):
        ax.axvline(value, color="0.2", linestyle=LINESTYLES[i % len(LINESTYLES)], label=label)
    ax.set_xlabel("score")
    ax.set_ylabel("density")
    ax.legend(frameon=False)
    return ax


def _probit_axis(ax: Axes, axis: str, n_comparisons: int, upper: float) -> tuple[float, float]:
    """Put probit ticks on one axis from the data's resolution (1/n) up to ``upper``."""
    lowest = max(_DET_TICKS[_DET_TICKS <= 1.0 / n_comparisons], default=_DET_TICKS[0])
    ticks = _DET_TICKS[(_DET_TICKS >= lowest) & (_DET_TICKS <= upper)]
    set_ticks, set_labels, set_lim = (
        (ax.set_xticks, ax.set_xticklabels, ax.set_xlim)
        if axis == "x"
        else (ax.set_yticks, ax.set_yticklabels, ax.set_ylim)
    )
    set_ticks(norm.ppf(ticks))
    set_labels([f"{100 * t:g}" for t in ticks])
    set_lim(norm.ppf(lowest), norm.ppf(upper))
    return lowest, upper


def plot_det(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    label: str | None = None,
    max_rate: float = 0.95,
    ax: Axes | None = None,
    **line_kwargs,
) -> Axes:
    """DET curve (FNMR against FMR) on probit axes, i.e. normal deviates.

    Each axis starts at the tick just below what its class can resolve (1/N for FMR,
    1/M for FNMR) and ends at ``max_rate``. Rates of 0 or 1 cannot be shown on probit
    axes; they are drawn at the axis edge. Further keyword arguments go to ``Axes.plot``.
    """
    ax = _axes(ax)
    counts = error_counts(mated, nonmated)
    x_range = _probit_axis(ax, "x", counts.n_nonmated, max_rate)
    y_range = _probit_axis(ax, "y", counts.n_mated, max_rate)
    ax.plot(
        norm.ppf(np.clip(counts.fmr, x_range[0] / 2, 1 - x_range[0] / 2)),
        norm.ppf(np.clip(counts.fnmr, y_range[0] / 2, 1 - y_range[0] / 2)),
        label=label,
        **line_kwargs,
    )
    ax.set_xlabel("false match rate (%)")
    ax.set_ylabel("false non-match rate (%)")
    ax.grid(True, alpha=0.3)
    if label is not None:
        ax.legend(frameon=False)
    return ax


def plot_roc(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    label: str | None = None,
    ax: Axes | None = None,
    **line_kwargs,
) -> Axes:
    """ROC curve with FMR on a log10 axis, so that the low-FMR region is visible.

    The axis starts at ``1/N`` (the smallest non-zero FMR the data can show). Further
    keyword arguments go to ``Axes.plot``.
    """
    ax = _axes(ax)
    counts = error_counts(mated, nonmated)
    fmr, tmr = counts.fmr[::-1], counts.tmr[::-1]
    left = 1.0 / counts.n_nonmated
    if ax.has_data():  # another curve is there: keep its range too
        left = min(left, ax.get_xlim()[0])
    shown = fmr > 0
    ax.plot(fmr[shown], tmr[shown], label=label, **line_kwargs)
    ax.set_xscale("log")
    ax.set_xlim(left, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("false match rate")
    ax.set_ylabel("true match rate")
    ax.grid(True, which="both", alpha=0.3)
    if label is not None:
        ax.legend(frameon=False)
    return ax
