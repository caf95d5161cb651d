"""Areas under the ROC and precision-recall curves.

Every area is computed on the piecewise-linear ROC of :func:`biofair.roc_curve` (straight
lines between the vertices at distinct thresholds), exactly, from one sort per class.
Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import ErrorCounts, error_counts_sorted, roc_counts, sorted_scores
from biofair._thresholds import allowed_false_matches
from biofair._validation import check_bound


class BoundedValue(float):
    """A value with the interval it is known to lie in, ``low <= value <= high``.

    A ``float`` (it computes, compares and prints as its value) that also carries ``low``
    and ``high``. The in-memory functions compute the value exactly (``low == high``, and
    ``exact`` is True); the partitioned ones (:mod:`biofair.partitions`) may only bound it
    from histograms, and then the value is the midpoint of the bounds.

    Parameters
    ----------
    value : float
        The value (the midpoint of the bounds when they differ).
    low, high : float, optional
        The bounds; both default to ``value`` (an exact value).

    Attributes
    ----------
    low : float
        Lower bound of the value.
    high : float
        Upper bound of the value.
    exact : bool
        True when the bounds meet.

    See Also
    --------
    biofair.roc_auc : Returns an exact BoundedValue.
    biofair.partitions.roc_auc : Returns a bounded one.

    Examples
    --------
    >>> import biofair as bf
    >>> auc = bf.roc_auc([0.5, 0.9], [0.1, 0.5])
    >>> auc, auc.low, auc.high, auc.exact
    (0.875, 0.875, 0.875, True)
    >>> bf.BoundedValue(0.8, low=0.79, high=0.81)
    BoundedValue(0.8, low=0.79, high=0.81)
    """

    __slots__ = ("low", "high")

    def __new__(cls, value: float, low: float | None = None, high: float | None = None) -> BoundedValue:
        self = super().__new__(cls, value)
        self.low = float(value) if low is None else float(low)
        self.high = float(value) if high is None else float(high)
        if not self.low <= float(value) <= self.high:
            raise ValueError(f"a bounded value needs low <= value <= high, got {self.low}, {float(value)}, {self.high}")
        return self

    @property
    def exact(self) -> bool:
        """True when ``low == high``: the value is known exactly."""
        return self.low == self.high

    def __repr__(self) -> str:
        if self.exact:
            return float.__repr__(self)
        return f"BoundedValue({float.__repr__(self)}, low={self.low!r}, high={self.high!r})"

    def __reduce__(self):
        return (BoundedValue, (float(self), self.low, self.high))


def _roc_vertices(counts: ErrorCounts) -> tuple[NDArray, NDArray]:
    """ROC vertices as (FMR, TMR), FMR ascending."""
    return counts.fmr[::-1], counts.tmr[::-1]


def _roc_auc_from_counts(counts: ErrorCounts) -> float:
    """Full ROC area from precomputed counts, in exact integer arithmetic when it fits."""
    false_matches = counts.false_matches[::-1]
    true_matches = counts.n_mated - counts.false_non_matches[::-1]
    if 2 * counts.n_mated * counts.n_nonmated >= 2**62:  # keep the products in int64
        false_matches, true_matches = false_matches * 1.0, true_matches * 1.0
    twice_area = np.sum(np.diff(false_matches) * (true_matches[1:] + true_matches[:-1]))
    return float(twice_area / (2 * counts.n_mated * counts.n_nonmated))


def roc_auc(mated: ArrayLike, nonmated: ArrayLike) -> BoundedValue:
    """Area under the whole ROC curve.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.

    Returns
    -------
    BoundedValue
        ``P(mated > nonmated) + 0.5 P(mated == nonmated)`` over all pairs of one mated
        and one non-mated score (the Mann-Whitney statistic over M·N), equal to the
        trapezoidal area under the ROC and to scikit-learn's ``roc_auc_score``. Exact: a
        float whose ``low`` and ``high`` equal it (the type :func:`biofair.partitions.roc_auc`
        returns with bounds).

    See Also
    --------
    biofair.partial_auc : The area below an FMR bound.
    biofair.log_fmr_auc : The area on a log FMR axis.
    biofair.partitions.roc_auc : The same area, bounded, over a partitioned score set.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification,
    eq. 1 (the full ROC area).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.roc_auc([0.5, 0.9], [0.1, 0.5])
    0.875
    """
    return BoundedValue(_roc_auc_from_counts(roc_counts(mated, nonmated)))


def _area_up_to(fmr: NDArray, tmr: NDArray, bound: float) -> float:
    """Area under the piecewise-linear ROC from FMR 0 to ``bound``."""
    last = int(np.searchsorted(fmr, bound, side="right")) - 1
    area = float(np.sum(np.diff(fmr[: last + 1]) * (tmr[1 : last + 1] + tmr[:last]))) / 2
    if bound > fmr[last]:  # a part of the next segment
        width = bound - fmr[last]
        tmr_at_bound = tmr[last] + (tmr[last + 1] - tmr[last]) * width / (fmr[last + 1] - fmr[last])
        area += width * (tmr[last] + tmr_at_bound) / 2
    return area


def _counts_down_to_fmr(mated_sorted: NDArray, nonmated_sorted: NDArray, bound: float) -> ErrorCounts:
    """Counts at every achievable threshold from the top down past FMR ``bound``.

    The ROC from FMR 0 to ``bound`` with all its vertices, as :func:`error_counts_sorted`
    gives it, from the scores at or above the ``(c+1)``-th largest non-mated score (``c``
    false matches allowed at ``bound``), whose FMR is above the bound. Summing the same
    vertices in the same order, the area equals the one over all thresholds to the bit.
    """
    n_mated, n_nonmated = mated_sorted.size, nonmated_sorted.size
    allowed = int(allowed_false_matches(np.array([bound]), n_nonmated)[0])
    if allowed >= n_nonmated:
        return error_counts_sorted(mated_sorted, nonmated_sorted)
    cut = nonmated_sorted[n_nonmated - 1 - allowed]
    below = int(np.searchsorted(mated_sorted, cut, side="left"))
    top = error_counts_sorted(mated_sorted[below:] if below < n_mated else mated_sorted[-1:],
                              nonmated_sorted[np.searchsorted(nonmated_sorted, cut, side="left") :])
    if below == n_mated:  # no mated score at or above the cut: all of them are missed there
        keep = top.thresholds > mated_sorted[-1]
        return ErrorCounts(top.thresholds[keep], top.false_matches[keep], np.full(keep.sum(), n_mated),
                           n_mated, n_nonmated)
    return ErrorCounts(top.thresholds, top.false_matches, top.false_non_matches + below, n_mated, n_nonmated)


def _partial_auc_from_counts(counts: ErrorCounts, max_fmr: float, standardized: bool) -> float:
    """Partial ROC area from precomputed counts (see :func:`partial_auc`)."""
    bound = check_bound(max_fmr, "max_fmr")
    return _partial_from_area(_area_up_to(*_roc_vertices(counts), bound), bound, standardized)


def _partial_from_area(area: float, bound: float, standardized: bool) -> float:
    """The reported partial AUC of the area under the ROC up to FMR ``bound`` (increasing)."""
    if standardized:
        min_area, max_area = bound**2 / 2, bound
        return 0.5 * (1.0 + (area - min_area) / (max_area - min_area))
    return area / bound


def partial_auc(
    mated: ArrayLike, nonmated: ArrayLike, *, max_fmr: float, standardized: bool = False
) -> BoundedValue:
    """Average TMR below an FMR bound (normalised partial ROC area).

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    max_fmr : float
        Upper FMR bound ``b`` in (0, 1].
    standardized : bool, default False
        Return McClish's standardised area instead (scikit-learn's ``max_fpr``), which
        maps a chance ROC to 0.5 and a perfect one to 1.

    Returns
    -------
    BoundedValue
        ``(1/b) ∫_0^b T(u) du`` on the piecewise-linear ROC (eq. 2 of the operating-point
        paper), or ``(1 + (A - b²/2) / (b - b²/2)) / 2`` with ``A`` the raw area when
        ``standardized``. Exact (``low == high``).

    See Also
    --------
    biofair.roc_auc : The whole area.
    biofair.operating_summary : The partial areas and their overstatement in one table.
    biofair.partitions.partial_auc : The same area, bounded, over a partitioned score set.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification, eq. 2.
    D. K. McClish, "Analyzing a portion of the ROC curve", Medical Decision Making, 1989
    (the standardised form).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.partial_auc([0.5, 0.9], [0.1, 0.5], max_fmr=0.5)
    0.75
    """
    bound = check_bound(max_fmr, "max_fmr")
    counts = _counts_down_to_fmr(*sorted_scores(mated, nonmated, keep_float32=True), bound)
    return BoundedValue(_partial_auc_from_counts(counts, bound, standardized))


def _log_fmr_auc_from_counts(counts: ErrorCounts, min_fmr: float, max_fmr: float) -> float:
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
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    min_fmr : float, default 1e-3
        The lower end ``a`` of the FMR range, ``0 < a < b``.
    max_fmr : float, default 1
        The upper end ``b`` of the FMR range, ``b <= 1``.

    Returns
    -------
    float
        ``∫_a^b T(u) d log10(u) / (log10 b - log10 a)`` (eq. 3 of the operating-point
        paper), in [0, 1]; every decade of FMR weighs the same.

    See Also
    --------
    biofair.partial_auc : The average TMR on a linear FMR axis.
    biofair.roc_curve : The curve it integrates.

    Notes
    -----
    ``T`` is linear in ``u`` within a ROC segment, so each segment integrates exactly:
    ``∫ (c + k u) du / u = c ln(u1/u0) + k (u1 - u0)``.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification, eq. 3.

    Examples
    --------
    >>> import biofair as bf
    >>> round(bf.log_fmr_auc([0.5, 0.9], [0.1, 0.5], min_fmr=0.5), 6)
    1.0
    """
    return _log_fmr_auc_from_counts(roc_counts(mated, nonmated), min_fmr, max_fmr)


def _pr_auc_from_counts(counts: ErrorCounts) -> float:
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

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores, the positive class.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.

    Returns
    -------
    float
        ``Σ_k (R_k - R_{k+1}) P_k`` over thresholds in ascending order, with precision
        ``P = TM / (TM + FM)`` and recall ``R = TMR``; equal to scikit-learn's
        ``average_precision_score``. Unlike ROC areas it depends on the ratio M/N of mated
        to non-mated comparisons: report that ratio next to it.

    See Also
    --------
    biofair.roc_auc : The ROC area, which does not depend on M/N.
    biofair.operating_summary : Reports pr_auc with the mated/non-mated ratio.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification
    (average precision, reported with the class ratio).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.pr_auc([0.5, 0.9], [0.1, 0.5])
    0.8333333333333333
    """
    return _pr_auc_from_counts(roc_counts(mated, nonmated))
