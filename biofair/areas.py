"""Areas under the ROC and precision-recall curves.

Every area is computed on the piecewise-linear ROC of :func:`biofair.roc_curve` (straight
lines between the vertices at distinct thresholds), exactly, from one sort per class.
Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import ErrorCounts, error_counts


def _roc_vertices(counts: ErrorCounts) -> tuple[NDArray, NDArray]:
    """ROC vertices as (FMR, TMR), FMR ascending."""
    return counts.fmr[::-1], counts.tmr[::-1]


def roc_auc_from_counts(counts: ErrorCounts) -> float:
    """Full ROC area from precomputed counts, in exact integer arithmetic when it fits."""
    false_matches = counts.false_matches[::-1]
    true_matches = counts.n_mated - counts.false_non_matches[::-1]
    if 2 * counts.n_mated * counts.n_nonmated >= 2**62:  # keep the products in int64
        false_matches, true_matches = false_matches * 1.0, true_matches * 1.0
    twice_area = np.sum(np.diff(false_matches) * (true_matches[1:] + true_matches[:-1]))
    return float(twice_area / (2 * counts.n_mated * counts.n_nonmated))


def roc_auc(mated: ArrayLike, nonmated: ArrayLike) -> float:
    """Area under the whole ROC curve.

    Read more in the chapter "Compute error rates from scores".

    Returns
    -------
    float
        ``P(mated > nonmated) + 0.5 P(mated == nonmated)`` over all pairs of one mated
        and one non-mated score (the Mann-Whitney statistic over M·N), equal to the
        trapezoidal area under the ROC and to scikit-learn's ``roc_auc_score``.

    Examples
    --------
    >>> roc_auc([0.5, 0.9], [0.1, 0.5])
    0.875
    """
    return roc_auc_from_counts(error_counts(mated, nonmated))


def _area_up_to(fmr: NDArray, tmr: NDArray, bound: float) -> float:
    """Area under the piecewise-linear ROC from FMR 0 to ``bound``."""
    last = int(np.searchsorted(fmr, bound, side="right")) - 1
    area = float(np.sum(np.diff(fmr[: last + 1]) * (tmr[1 : last + 1] + tmr[:last]))) / 2
    if bound > fmr[last]:  # a part of the next segment
        width = bound - fmr[last]
        tmr_at_bound = tmr[last] + (tmr[last + 1] - tmr[last]) * width / (fmr[last + 1] - fmr[last])
        area += width * (tmr[last] + tmr_at_bound) / 2
    return area


def check_bound(value: float, name: str) -> float:
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{name} must lie in (0, 1], got {value!r}")
    return float(value)


def partial_auc_from_counts(counts: ErrorCounts, max_fmr: float, standardized: bool) -> float:
    """Partial ROC area from precomputed counts (see :func:`partial_auc`)."""
    bound = check_bound(max_fmr, "max_fmr")
    return partial_from_area(_area_up_to(*_roc_vertices(counts), bound), bound, standardized)


def partial_from_area(area: float, bound: float, standardized: bool) -> float:
    """The reported partial AUC of the area under the ROC up to FMR ``bound`` (increasing)."""
    if standardized:
        min_area, max_area = bound**2 / 2, bound
        return 0.5 * (1.0 + (area - min_area) / (max_area - min_area))
    return area / bound


def partial_auc(
    mated: ArrayLike, nonmated: ArrayLike, *, max_fmr: float, standardized: bool = False
) -> float:
    """Average TMR below an FMR bound (normalised partial ROC area).

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated, nonmated : array_like
        Mated and non-mated similarity scores.
    max_fmr : float
        Upper FMR bound ``b`` in (0, 1].
    standardized : bool, default False
        Return McClish's standardised area instead (scikit-learn's ``max_fpr``), which
        maps a chance ROC to 0.5 and a perfect one to 1.

    Returns
    -------
    float
        ``(1/b) ∫_0^b T(u) du`` on the piecewise-linear ROC (eq. 2 of the operating-point
        paper), or ``(1 + (A - b²/2) / (b - b²/2)) / 2`` with ``A`` the raw area when
        ``standardized``.

    Examples
    --------
    >>> partial_auc([0.5, 0.9], [0.1, 0.5], max_fmr=0.5)
    0.75
    """
    return partial_auc_from_counts(error_counts(mated, nonmated), max_fmr, standardized)


def log_fmr_auc_from_counts(counts: ErrorCounts, min_fmr: float, max_fmr: float) -> float:
    """Log-FMR area from precomputed counts (see :func:`log_fmr_auc`)."""
    low, high = check_bound(min_fmr, "min_fmr"), check_bound(max_fmr, "max_fmr")
    if low >= high:
        raise ValueError(f"min_fmr ({low!r}) must be below max_fmr ({high!r})")
    corners = counts.corners[::-1]  # the same curve with fewer vertices
    fmr, tmr = counts.fmr[corners], counts.tmr[corners]
    start, stop = np.maximum(fmr[:-1], low), np.minimum(fmr[1:], high)
    keep = stop > start
    u0, u1, t0, t1 = fmr[:-1][keep], fmr[1:][keep], tmr[:-1][keep], tmr[1:][keep]
    start, stop = start[keep], stop[keep]
    slope = (t1 - t0) / (u1 - u0)
    intercept = t0 - slope * u0  # T(u) = intercept + slope * u on the segment
    # ∫ (c + k u) d ln u = c ln(stop / start) + k (stop - start)
    integral = intercept * np.log(stop / start) + slope * (stop - start)
    return float(np.sum(integral) / np.log(high / low))


def log_fmr_auc(
    mated: ArrayLike, nonmated: ArrayLike, *, min_fmr: float = 1e-3, max_fmr: float = 1.0
) -> float:
    """Average TMR over FMR decades: the ROC area on a log10 FMR axis, normalised.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    min_fmr, max_fmr : float, default 1e-3 and 1
        The FMR range ``[a, b]``, ``0 < a < b <= 1``.

    Returns
    -------
    float
        ``∫_a^b T(u) d log10(u) / (log10 b - log10 a)`` (eq. 3 of the operating-point
        paper), in [0, 1]; every decade of FMR weighs the same.

    Notes
    -----
    ``T`` is linear in ``u`` within a ROC segment, so each segment integrates exactly:
    ``∫ (c + k u) du / u = c ln(u1/u0) + k (u1 - u0)``.

    Examples
    --------
    >>> round(log_fmr_auc([0.5, 0.9], [0.1, 0.5], min_fmr=0.5), 6)
    1.0
    """
    return log_fmr_auc_from_counts(error_counts(mated, nonmated), min_fmr, max_fmr)


def pr_auc_from_counts(counts: ErrorCounts) -> float:
    """Average precision from precomputed counts (see :func:`pr_auc`)."""
    true_matches = counts.n_mated - counts.false_non_matches
    accepted = true_matches + counts.false_matches
    # Every threshold but the last (reject all) accepts at least one comparison.
    precision = true_matches[:-1] / accepted[:-1]
    recall_step = (true_matches[:-1] - true_matches[1:]) / counts.n_mated
    return float(np.sum(recall_step * precision))


def pr_auc(mated: ArrayLike, nonmated: ArrayLike) -> float:
    """Area under the precision-recall curve (average precision), mated as positives.

    Read more in the chapter "Compute error rates from scores".

    Returns
    -------
    float
        ``Σ_k (R_k - R_{k+1}) P_k`` over thresholds in ascending order, with precision
        ``P = TM / (TM + FM)`` and recall ``R = TMR``; equal to scikit-learn's
        ``average_precision_score``. Unlike ROC areas it depends on the ratio M/N of mated
        to non-mated comparisons: report that ratio next to it.

    Examples
    --------
    >>> pr_auc([0.5, 0.9], [0.1, 0.5])
    0.8333333333333333
    """
    return pr_auc_from_counts(error_counts(mated, nonmated))
