"""Areas under the ROC and precision-recall curves.

Every area is computed on the piecewise-linear ROC of :func:`biofair.roc_curve` (straight
lines between the vertices at distinct thresholds), exactly, from one sort per class.
Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

from functools import partial

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import CountsAtMatedScores, MatedCounts, mated_counts
from biofair._resampling import weighted_replicates
from biofair._summation import PART, SMALL_PART, pairwise_sum, parts
from biofair._thresholds import allowed_false_matches
from biofair._validation import check_bound, check_flag


class BoundedValue(float):
    """A value with the interval it is known to lie in, ``low <= value <= high``.

    A ``float`` (it computes and compares as its value, and formats as its value with a
    format spec such as ``f"{auc:.4f}"``) that also carries ``low`` and ``high``; ``repr``,
    ``str`` and ``print`` show the bounds when they differ. The in-memory functions compute
    the value exactly (``low == high``, and ``exact`` is True); the partitioned ones
    (:mod:`biofair.partitions`) may only bound it from histograms, and then the value is the
    midpoint of the bounds.

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
    >>> bounded = bf.BoundedValue(0.8, low=0.79, high=0.81)
    >>> bounded
    BoundedValue(0.8, low=0.79, high=0.81)
    >>> f"{bounded:.2f}"
    '0.80'
    >>> print(bounded)
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


def _twice_area_exact(n_mated: int, n_nonmated: int) -> bool:
    """True when twice the ROC area in counts (at most 2·M·N) fits int64 arithmetic."""
    return 2 * n_mated * n_nonmated < 2**62


def _roc_auc_from_counts(counts: CountsAtMatedScores) -> float:
    """Full ROC area from the counts at the mated scores: the Mann-Whitney count.

    Each mated score at ``values[i]`` is above ``below[i]`` non-mated scores and ties
    ``after[i] - below[i]``: twice the area in counts is ``Σ (below + after)`` over the
    mated scores, in exact integer arithmetic when it fits.
    """
    m, n = counts.n_mated, counts.n_nonmated
    if not _twice_area_exact(m, n):
        per_value, beaten = counts.mated_at_values(), counts.below + counts.after
        return float(np.dot(per_value * 1.0, beaten * 1.0) / (2 * m * n))
    twice = 0  # summed part by part (small temporaries), exact
    for start, stop in parts(counts.first.size, part=SMALL_PART):
        beaten = np.add(counts.below[start:stop], counts.after[start:stop])
        twice += int(np.dot(counts.mated_at_values(start, stop), beaten))
    return twice / (2 * m * n)  # Python's int division: correctly rounded


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

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused).

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
    return BoundedValue(_roc_auc_from_counts(mated_counts(mated, nonmated)))


def _roc_auc_jackknife(
    mated: NDArray, nonmated: NDArray, *, clusters: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None
) -> list[tuple[NDArray[np.float64], NDArray[np.int64]]]:
    """Leave-one-out values of :func:`roc_auc` for the BCa acceleration, in closed form.

    With ``w_i = 2·#{n < m_i} + #{n = m_i}`` the twice-credit of mated score ``i`` and
    ``v_j = 2·#{m > n_j} + #{m = n_j}`` that of non-mated score ``j``, twice the Mann-Whitney
    count is ``U2 = Σ w_i = Σ v_j``. ``unit="pair"`` (``clusters=None``): leaving out mated
    ``i`` gives ``(U2 - w_i) / (2 (M-1) N)``, non-mated ``j`` ``(U2 - v_j) / (2 M (N-1))``;
    one sample per class of at least two comparisons (a class of one adds nothing to the
    acceleration and is not left out, as :func:`biofair.bootstrap` documents).
    ``unit="subject"``: leaving out cluster ``c`` removes its credits and adds back those of
    its own mated/non-mated pairs, which both sums took away:
    ``(U2 - Σ_c w - Σ_c v + W_c) / (2 (M - M_c)(N - N_c))``. One sort of each class and
    one of the (cluster, rank) keys: no evaluation per unit, which made BCa quadratic.
    """
    m_sorted, n_sorted = np.sort(mated), np.sort(nonmated)
    w = (np.searchsorted(n_sorted, mated, "left") + np.searchsorted(n_sorted, mated, "right")).astype(np.int64)
    v = (2 * m_sorted.size - np.searchsorted(m_sorted, nonmated, "left")
         - np.searchsorted(m_sorted, nonmated, "right")).astype(np.int64)
    twice = int(w.sum())
    n_m, n_n = mated.size, nonmated.size
    if clusters is None:  # a class of one comparison is not left out, as in the plain jackknife
        classes = ((w, n_m - 1, n_n), (v, n_m, n_n - 1))
        return [((twice - credits) / (2.0 * left_m * left_n), np.ones(credits.size, dtype=np.int64))
                for credits, left_m, left_n in classes if credits.size > 1]
    c_m, c_n = clusters
    k = int(max(c_m.max(initial=-1), c_n.max(initial=-1))) + 1
    distinct, ranks = np.unique(np.concatenate([mated, nonmated]), return_inverse=True)
    rank_m, rank_n = ranks[:n_m], ranks[n_m:]
    keys = np.sort(c_n.astype(np.int64) * distinct.size + rank_n)  # non-mated by (cluster, score)
    key_m, start_m = c_m.astype(np.int64) * distinct.size + rank_m, c_m.astype(np.int64) * distinct.size
    below = np.searchsorted(keys, key_m, "left") - np.searchsorted(keys, start_m, "left")
    tied = np.searchsorted(keys, key_m, "right") - np.searchsorted(keys, key_m, "left")
    own = np.bincount(c_m, weights=2 * below + tied, minlength=k)  # W_c: pairs within cluster c
    left = twice - np.bincount(c_m, weights=w, minlength=k) - np.bincount(c_n, weights=v, minlength=k) + own
    pairs = 2.0 * (n_m - np.bincount(c_m, minlength=k)) * (n_n - np.bincount(c_n, minlength=k))
    if (pairs == 0).any():
        raise ValueError("method='bca' is undefined here: leaving out one subject leaves no mated or no "
                         "non-mated comparison; use method='percentile'")
    return [(left / pairs, np.ones(k, dtype=np.int64))]


# The fast path this statistic declares to biofair.bootstrap (see its "Fast path" notes).
roc_auc.bootstrap_replicates = partial(weighted_replicates, _roc_auc_from_counts)
roc_auc.jackknife_replicates = _roc_auc_jackknife


def _twice_area(false_matches: NDArray, true_matches: NDArray, start: int, stop: int, exact: bool) -> int | float:
    """Twice the area under the ROC polyline from vertex ``start`` to vertex ``stop``, in
    counts: trapezoids summed part by part (small temporaries), in exact integers if ``exact``."""
    total = 0 if exact else 0.0
    for begin, end in parts(stop, part=PART, start=start):
        widths = np.diff(false_matches[begin : end + 1])
        heights = np.add(true_matches[begin + 1 : end + 1], true_matches[begin:end])
        total += int(np.dot(widths, heights)) if exact else float(np.dot(widths * 1.0, heights * 1.0))
    return total


def _partial_aucs_from_counts(counts: MatedCounts, bounds: NDArray, standardized: bool,
                              vertices: tuple[NDArray, NDArray] | None = None) -> list[float]:
    """Partial ROC areas up to each FMR bound from precomputed counts (see :func:`partial_auc`);
    ``vertices``: ``counts.roc_vertices()`` if already made.

    Twice the area in counts up to the last ROC vertex at or below a bound (at most ``c``
    false matches, ``c`` the count the bound allows) is an exact integer sum of trapezoids;
    the part of the next segment up to the bound is interpolated in floating point.
    """
    bounds = [check_bound(bound, "max_fmr") for bound in bounds]
    m, n = counts.n_mated, counts.n_nonmated
    exact = _twice_area_exact(m, n)
    false_matches, true_matches = counts.roc_vertices() if vertices is None else vertices
    allowed = allowed_false_matches(np.array(bounds), n)
    lasts = np.searchsorted(false_matches, allowed, side="right") - 1  # vertices at or below each bound
    twice_to, done, total = {}, 0, 0
    for last in sorted({int(last) for last in lasts}):  # each area extends the one before
        total += _twice_area(false_matches, true_matches, done, last, exact)
        twice_to[last], done = total, last
    areas = []
    for bound, last in zip(bounds, lasts):
        last = int(last)
        # The mean TMR over [0, bound], not the area: the area of a diagonal first segment
        # (top score tied across classes) is about bound², which underflows below 1e-154.
        mean_tmr = twice_to[last] / (2 * m * n) / bound  # int / int correctly rounded, or floats
        fmr, tmr = false_matches[last] / n, true_matches[last] / m
        if bound > fmr:  # a part of the next segment
            width = bound - fmr
            next_fmr, next_tmr = false_matches[last + 1] / n, true_matches[last + 1] / m
            tmr_at_bound = tmr + (next_tmr - tmr) * (width / (next_fmr - fmr))
            mean_tmr += width / bound * (tmr + tmr_at_bound) / 2
        areas.append(_partial_from_mean(mean_tmr, bound, standardized))
    return areas


def _partial_from_mean(mean_tmr: float, bound: float, standardized: bool) -> float:
    """The reported partial AUC of the mean TMR over FMR in [0, ``bound``] (increasing).

    McClish's ``(1 + (A - b²/2) / (b - b²/2)) / 2`` with ``A = b·mean``, divided through by
    ``b``: ``b²`` underflows for the smallest bounds allowed.
    """
    if standardized:
        return 0.5 * (1.0 + (mean_tmr - bound / 2) / (1.0 - bound / 2))
    return mean_tmr


def partial_auc(
    mated: ArrayLike, nonmated: ArrayLike, max_fmr: float, *, standardized: bool = False
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
        Upper FMR bound ``b`` in [2**-1022, 1] (from the smallest normal float).
    standardized : bool, default False
        Return McClish's standardised area instead (scikit-learn's ``max_fpr``), which
        maps a chance ROC to 0.5 and a perfect one to 1.

    Returns
    -------
    BoundedValue
        ``(1/b) ∫_0^b T(u) du`` on the piecewise-linear ROC (eq. 2 of the operating-point
        paper), or ``(1 + (A - b²/2) / (b - b²/2)) / 2`` with ``A`` the raw area when
        ``standardized``. Exact (``low == high``).

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; or when ``max_fmr``
        lies outside [2**-1022, 1] (NaN included).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), ``max_fmr`` is not a number, or ``standardized`` is neither
        True nor False (NumPy's bools count).

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
    standardized = check_flag(standardized, "standardized")  # "no" would have standardised
    return BoundedValue(_partial_aucs_from_counts(mated_counts(mated, nonmated), [bound], standardized)[0])


def _log_fmr_auc_from_counts(counts: MatedCounts, min_fmr: float, max_fmr: float,
                             vertices: tuple[NDArray, NDArray] | None = None) -> float:
    """Log-FMR area from precomputed counts (see :func:`log_fmr_auc`); ``vertices``:
    ``counts.roc_vertices()`` if already made.

    Summed over the ROC segments along which FMR moves, FMR ascending: those from ``B_i``
    to ``A_{i+1}`` (flat) and from ``A_i`` to ``B_i`` where non-mated scores tie a mated one.
    """
    low, high = check_bound(min_fmr, "min_fmr"), check_bound(max_fmr, "max_fmr")
    if low >= high:
        raise ValueError(f"min_fmr ({low!r}) must be below max_fmr ({high!r})")
    n, m = counts.n_nonmated, counts.n_mated
    false_matches, true_matches = counts.roc_vertices() if vertices is None else vertices
    # The segments where FMR moves and whose FMR range meets (low, high): a segment ends
    # above ``low`` when it ends above the count ``low`` allows, and starts below ``high``
    # when it starts below the smallest count at or above ``high``.
    begin = int(np.searchsorted(false_matches, allowed_false_matches(np.array([low]), n)[0], side="right")) - 1
    at_high = int(allowed_false_matches(np.array([high]), n)[0])
    at_high += at_high / n < high
    end = int(np.searchsorted(false_matches, at_high, side="left"))
    moving = begin + np.flatnonzero(false_matches[begin + 1 : end + 1] != false_matches[begin:end])

    def integrals(segments: NDArray[np.intp]) -> NDArray[np.float64]:
        u0, u1 = false_matches[segments] / n, false_matches[segments + 1] / n
        t0, t1 = true_matches[segments] / m, true_matches[segments + 1] / m
        start, stop = np.maximum(u0, low), np.minimum(u1, high)
        slope = (t1 - t0) / (u1 - u0)
        at_start = t0 + slope * (start - u0)  # T(u) = T(start) + slope (u - start) on the segment
        # ∫ T(u) d ln u around the segment's start (see the Notes of log_fmr_auc)
        x = (stop - start) / start
        ln = np.log1p(x)
        return at_start * ln + slope * start * (x - ln)

    return float(pairwise_sum(moving, integrals) / np.log1p((high - low) / low))


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
        The lower end ``a`` of the FMR range, ``2**-1022 <= a < b`` (from the smallest
        normal float).
    max_fmr : float, default 1
        The upper end ``b`` of the FMR range, ``b <= 1``.

    Returns
    -------
    float
        ``∫_a^b T(u) d log10(u) / (log10 b - log10 a)`` (eq. 3 of the operating-point
        paper), in [0, 1]; every decade of FMR weighs the same.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; or when ``min_fmr`` or
        ``max_fmr`` lies outside [2**-1022, 1] (NaN included) or ``min_fmr`` is not below
        ``max_fmr``.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), or ``min_fmr`` or ``max_fmr`` is not a number.

    See Also
    --------
    biofair.partial_auc : The average TMR on a linear FMR axis.
    biofair.roc_curve : The curve it integrates.

    Notes
    -----
    ``T`` is linear in ``u`` within a ROC segment, so each segment integrates exactly:
    ``∫ (c + k u) du / u = c ln(u1/u0) + k (u1 - u0)``. It is computed around the segment's
    start, as ``T(u0) ln(1 + x) + k u0 (x - ln(1 + x))`` with ``x = (u1 - u0) / u0``: on a
    steep segment (scores tied across the classes) far from FMR 0 the two terms of the first
    form cancel, and ``ln(u1/u0)`` of a ratio near 1 loses digits.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification, eq. 3.

    Examples
    --------
    >>> import biofair as bf
    >>> round(bf.log_fmr_auc([0.5, 0.9], [0.1, 0.5], min_fmr=0.5), 6)
    1.0
    """
    return _log_fmr_auc_from_counts(mated_counts(mated, nonmated), min_fmr, max_fmr)


def _pr_auc_from_counts(counts: MatedCounts) -> float:
    """Average precision from precomputed counts (see :func:`pr_auc`).

    Recall moves only at the distinct mated scores: at ``values[i]`` it drops by the mated
    scores equal to it, at precision ``TM / (TM + FM)`` with ``TM = M - first[i]`` and
    ``FM = N - below[i]`` (every such threshold accepts at least one comparison).
    """
    m, n = counts.n_mated, counts.n_nonmated

    def terms(scores: range) -> NDArray[np.float64]:  # recall step x precision at these distinct mated scores
        true_matches = np.subtract(m, counts.first[scores.start : scores.stop])
        accepted = np.subtract(n, counts.below[scores.start : scores.stop])
        accepted += true_matches
        precision = np.divide(true_matches, accepted)
        recall_step = counts.mated_at_values(scores.start, scores.stop) / m
        return np.multiply(recall_step, precision, out=precision)

    # np.sum of the terms, to the bit, made part by part (small temporaries)
    return float(pairwise_sum(range(counts.first.size), terms, part=SMALL_PART))


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

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused).

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
    return _pr_auc_from_counts(mated_counts(mated, nonmated))
