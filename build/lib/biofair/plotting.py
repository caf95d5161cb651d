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

#: Colour-blind-safe colours (Okabe-Ito), used in this order for groups and systems.
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
#: Line styles, used in this order with :data:`COLORS` so that curves differ without colour.
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
    """Draw the histograms (densities) of mated and non-mated scores, thresholds as lines.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    thresholds : mapping of str to float, optional
        Vertical lines: a label (e.g. ``"FMR = 1e-3"``) for each threshold value.
    bins : int, default 60
        Equal-width bins over the pooled range of both classes.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure's axes by default.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; nothing is written to disk.

    See Also
    --------
    biofair.plotting.plot_det : The error trade-off of the same scores.
    biofair.threshold_at_fmr : Thresholds to mark.

    References
    ----------
    ISO/IEC 19795-1:2021 (score distributions of mated and non-mated comparisons).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import biofair as bf
    >>> table = bf.synthetic.gaussian_scores(n_mated=200, n_nonmated=2_000, rng=0)
    >>> ax = bf.plotting.plot_score_distributions(*bf.split_scores(table), thresholds={"t": 1.0})
    >>> ax.get_xlabel()
    'score'
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
    """Draw the DET curve (FNMR against FMR) on probit axes, i.e. normal deviates.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    label : str, optional
        Legend label of the curve.
    max_rate : float, default 0.95
        Upper end of both axes.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure's axes by default.
    **line_kwargs
        Passed on to ``Axes.plot`` (colour, line style, ...).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on. Each axis starts at the tick just below what its class can
        show (1/N for FMR, 1/M for FNMR) and ends at ``max_rate``; rates of 0 or 1 cannot be
        shown on probit axes and are drawn at the axis edge.

    See Also
    --------
    biofair.det_curve : The points it draws.
    biofair.plotting.plot_roc : The ROC on a log FMR axis.

    References
    ----------
    A. Martin et al., "The DET curve in assessment of detection task performance",
    Eurospeech 1997.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import biofair as bf
    >>> table = bf.synthetic.gaussian_scores(n_mated=200, n_nonmated=2_000, rng=0)
    >>> ax = bf.plotting.plot_det(*bf.split_scores(table), label="system")
    >>> ax.get_xlabel()
    'false match rate (%)'
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
    """Draw the ROC curve with FMR on a log10 axis, so that the low-FMR region is visible.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    label : str, optional
        Legend label of the curve.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure's axes by default. A curve already on it keeps its range.
    **line_kwargs
        Passed on to ``Axes.plot`` (colour, line style, ...).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; the FMR axis starts at ``1/N``, the smallest non-zero FMR the
        data can show.

    See Also
    --------
    biofair.roc_curve : The points it draws.
    biofair.plotting.plot_det : The DET on probit axes.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification (ROC
    on a log FMR axis).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import biofair as bf
    >>> table = bf.synthetic.gaussian_scores(n_mated=200, n_nonmated=2_000, rng=0)
    >>> ax = bf.plotting.plot_roc(*bf.split_scores(table), label="system")
    >>> ax.get_xscale()
    'log'
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
