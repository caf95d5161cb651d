"""Equal error rate, three ways.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import bisect
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import (
    CountsAtMatedScores,
    ErrorCounts,
    MatedCounts,
    _first_of_runs,
    in_dtype_of,
    just_above,
    mated_counts,
)
from biofair._typing import EerMethod
from biofair._validation import check_choice



class EqualErrorRate(NamedTuple):
    """An EER with the threshold it belongs to.

    Returned by :func:`biofair.eer` and :func:`biofair.partitions.eer`.

    Attributes
    ----------
    eer : float
        The equal error rate.
    threshold : float
        The threshold the EER belongs to (see :func:`biofair.eer` for each method).
    low : float
        Lower end of the bracket: the FVC2000 interval for ``"interval"``, the smaller of
        the two rates at the threshold for ``"midpoint"``, and ``eer`` itself for
        ``"rocch"`` (or its lower bound out of core).
    high : float
        Upper end of the bracket, likewise.
    method : str
        The method that computed it.

    See Also
    --------
    biofair.eer : The function that returns it.

    Examples
    --------
    >>> import biofair as bf
    >>> result = bf.eer([0.5, 0.65, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], method="midpoint")
    >>> result.eer, result.threshold
    (0.25, 0.65)
    """

    eer: float
    threshold: float
    low: float
    high: float
    method: str


def _lower_hull(x: NDArray, y: NDArray) -> NDArray[np.intp]:
    """Indices of the lower convex hull of points sorted by ascending ``x``.

    Vectorised pruning: a point that lies on or above the segment joining its two
    neighbours is not a vertex of the lower hull; all such points are dropped at once,
    and the pass repeats until none is left. Each pass is linear. A point equal to the one
    before it is dropped first (two copies would each lie on the other's chord).
    """
    keep = np.flatnonzero(np.concatenate([[True], (np.diff(x) != 0) | (np.diff(y) != 0)]))
    while keep.size > 2:
        x0, x1, x2 = x[keep[:-2]], x[keep[1:-1]], x[keep[2:]]
        y0, y1, y2 = y[keep[:-2]], y[keep[1:-1]], y[keep[2:]]
        cross = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
        drop = cross <= 0  # middle point on or above the chord (or a repeated point)
        if not drop.any():
            break
        inner = keep[1:-1]
        keep = np.concatenate([keep[:1], inner[~drop], keep[-1:]])
    return keep


def _hull_crossing(fmr: NDArray, fnmr: NDArray, n_nonmated: int, n_mated: int) -> tuple[float, NDArray[np.intp]]:
    """Where the lower convex hull of ROC points (FMR ascending) crosses FMR = FNMR.

    Returns the EER and the indices of the ends of the hull edges it lies on: the two
    ends of one edge, or a vertex with its neighbours when it crosses at that vertex.

    The rates are counts over ``n_nonmated`` and ``n_mated``. Below ``N·M = 2^62`` the hull
    and the crossing are computed from the counts themselves: a point on a chord is dropped
    exactly (in rounded rates, a point of a straight edge fell on either side of it), and the
    crossing ``x_l + g_l / (g_l - g_r) · (x_r - x_l)`` (``g = FNMR - FMR``) is the exact
    fraction, rounded once. Any two points of the same edge then give the same EER to the
    last bit, whichever points of the ROC the hull was built from.
    """
    exact = n_nonmated * n_mated < 2**62  # int64 holds the products of counts
    if exact:
        x = np.rint(fmr * n_nonmated).astype(np.int64)  # false matches: k / N gives k back exactly
        y = np.rint(fnmr * n_mated).astype(np.int64)  # false non-matches
        hull = _lower_hull(x, y)
        gap = y[hull] * np.int64(n_nonmated) - x[hull] * np.int64(n_mated)  # (FNMR - FMR)·N·M
    else:
        hull = _lower_hull(fmr, fnmr)
        gap = fnmr[hull] - fmr[hull]
    k = int(np.searchsorted(-gap, 0, side="left"))  # first hull vertex with gap <= 0 (gap decreases)
    if gap[k] == 0:
        return float(fmr[hull[k]]), hull[max(k - 1, 0) : k + 2]
    left, right = hull[k - 1], hull[k]
    if not exact:
        share = gap[k - 1] / (gap[k - 1] - gap[k])
        return float(fmr[left] + share * (fmr[right] - fmr[left])), hull[k - 1 : k + 1]
    g_left, g_right, x_left, x_right = int(gap[k - 1]), int(gap[k]), int(x[left]), int(x[right])
    crossing = Fraction(x_left * (g_left - g_right) + g_left * (x_right - x_left), n_nonmated * (g_left - g_right))
    return float(crossing), hull[k - 1 : k + 1]


#: Below this many points, the crossing is taken from the hull of all of them.
_FEW_POINTS = 4096


def _hull_crossing_narrowed(fmr: NDArray, fnmr: NDArray, n_nonmated: int, n_mated: int) -> float:
    """The EER of :func:`_hull_crossing` on ROC points (FMR ascending), without their whole hull.

    The first and last points (FMR 0 and 1) are hull vertices on either side of the
    diagonal. Between two hull vertices, the point farthest below their chord is a hull
    vertex too (quickhull); keeping the pair that straddles the diagonal narrows the range
    geometrically. The hull between two of its vertices is the hull of the points between
    them, so the crossing of the narrowed range is the crossing of the whole hull.
    """
    left, right = 0, fmr.size - 1
    while right - left > _FEW_POINTS:
        x, y = fmr[left + 1 : right], fnmr[left + 1 : right]
        below = (fmr[right] - fmr[left]) * (y - fnmr[left]) - (fnmr[right] - fnmr[left]) * (x - fmr[left])
        farthest = int(np.argmin(below))
        if below[farthest] >= 0:  # nothing below the chord: it is the hull edge
            break
        farthest += left + 1
        if fnmr[farthest] > fmr[farthest]:
            left = farthest
        else:
            right = farthest
    return _hull_crossing(fmr[left : right + 1], fnmr[left : right + 1], n_nonmated, n_mated)[0]


def _rocch(fmr: NDArray, fnmr: NDArray, near: ErrorCounts) -> EqualErrorRate:
    """The ROCCH EER of ROC points (FMR ascending) that include the hull's vertices."""
    eer_value = _hull_crossing_narrowed(fmr, fnmr, near.n_nonmated, near.n_mated)
    return EqualErrorRate(eer_value, _midpoint(near).threshold, eer_value, eer_value, "rocch")


def _cross_multiplied(near: ErrorCounts) -> tuple[NDArray, NDArray]:
    """``FMR·N·M`` and ``FNMR·N·M`` as exact integers (false matches times M, false
    non-matches times N), so that ties between rates, and between sums and gaps of rates, are
    decided exactly and not by the rounding of the quotients: FMR 1/3 and FNMR 1 are as far
    apart as FMR 2/3 and FNMR 0. Beyond 2^62 (N·M of more than 4.6e18) the rates themselves."""
    if near.n_mated * near.n_nonmated >= 2**62:
        return near.fmr, near.fnmr
    return near.false_matches * np.int64(near.n_mated), near.false_non_matches * np.int64(near.n_nonmated)


def _midpoint(near: ErrorCounts) -> EqualErrorRate:
    fmr, fnmr = near.fmr, near.fnmr
    scaled_fmr, scaled_fnmr = _cross_multiplied(near)
    k = int(np.argmin(np.abs(scaled_fmr - scaled_fnmr)))  # the lowest such threshold on a tie
    low, high = sorted((float(fmr[k]), float(fnmr[k])))
    return EqualErrorRate((low + high) / 2, float(near.thresholds[k]) + 0.0, low, high, "midpoint")  # -0.0 as 0.0


def _interval(near: ErrorCounts) -> EqualErrorRate:
    fmr, fnmr, thresholds = near.fmr, near.fnmr, near.thresholds
    scaled_fmr, scaled_fnmr = _cross_multiplied(near)
    below = np.flatnonzero(scaled_fnmr <= scaled_fmr)[-1]  # t1: largest threshold with FNMR <= FMR
    above = np.flatnonzero(scaled_fnmr >= scaled_fmr)[0]  # t2: smallest threshold with FNMR >= FMR
    if scaled_fnmr[below] + scaled_fmr[below] <= scaled_fmr[above] + scaled_fnmr[above]:
        low, high, k = float(fnmr[below]), float(fmr[below]), below
    else:
        low, high, k = float(fmr[above]), float(fnmr[above]), above
    return EqualErrorRate((low + high) / 2, float(thresholds[k]) + 0.0, low, high, "interval")  # -0.0 as 0.0


_RULES = {"midpoint": _midpoint, "interval": _interval}


def _eer_from_counts(
    counts: ErrorCounts, method: EerMethod = "rocch", near: ErrorCounts | None = None
) -> EqualErrorRate:
    """EER of precomputed error counts (see :func:`eer`).

    ``near`` holds the counts at every achievable threshold around the crossing of FMR and
    FNMR, where the midpoint and interval rules pick their threshold; by default ``counts``
    holds them all.
    """
    near = counts if near is None else near
    if _checked(method) == "rocch":
        corners = counts.corners[::-1]  # hull vertices are ROC corners; FMR ascending
        return _rocch(counts.fmr[corners], counts.fnmr[corners], near)
    return _RULES[method](near)


def _checked(method: str) -> str:
    """``method`` if it names an EER rule, else a ValueError."""
    return check_choice(method, "method", ("rocch", *_RULES))


def _crossing_pair(counts: MatedCounts) -> ErrorCounts:
    """The two consecutive ROC vertices, thresholds ascending, where ``FNMR - FMR`` turns
    from negative to non-negative, with their thresholds.

    Along ascending thresholds ``FNMR - FMR`` never decreases, from -1 to 1. With ``i`` the
    first distinct mated score whose vertex ``A_i`` is not negative (see
    :class:`~biofair._counts.MatedCounts`), the turn lies between ``A_{i-1}`` and ``B_{i-1}``
    (the next score above ``values[i-1]``) if ``B_{i-1}`` is not negative, else between
    ``B_{i-1}`` and ``A_i``. ``B_{D-1}`` (FNMR 1) is never negative; ``B_{-1}`` is the
    accept-all point.
    """
    m, n, size = counts.n_mated, counts.n_nonmated, counts.first.size
    mated_sorted, nonmated_sorted = counts.mated_sorted, counts.nonmated_sorted
    first, below, after = counts.first, counts.below, counts.after
    fmr, fnmr = counts.fmr[1:-1], counts.fnmr[1:-1]  # at A_0 ... A_{D-1}
    i = bisect.bisect_left(range(size), True, key=lambda j: fnmr[j] - fmr[j] >= 0)  # D if none

    def value(j: int) -> float:  # the j-th distinct mated score
        return float(mated_sorted[first[j]])

    def b_vertex(j: int) -> tuple[float, int, int]:  # B_j: threshold, false matches, false non-matches
        if j < 0:
            return min(float(nonmated_sorted[0]), value(0)), n, 0
        above = [float(nonmated_sorted[after[j]])] if after[j] < n else []
        above += [value(j + 1)] if j + 1 < size else []
        top = just_above(max(float(mated_sorted[-1]), float(nonmated_sorted[-1])))
        return min(above, default=float(top)), n - int(after[j]), int(first[j + 1]) if j + 1 < size else m

    b = b_vertex(i - 1)
    if i == size or b[2] / m - b[1] / n >= 0:
        pair = [(value(i - 1), n - int(below[i - 1]), int(first[i - 1])), b]
    else:
        pair = [b, (value(i), n - int(below[i]), int(first[i]))]
    thresholds, false_matches, false_non_matches = (np.array(column) for column in zip(*pair))
    return ErrorCounts(thresholds, false_matches, false_non_matches, m, n)


def _near_crossing(pair: ErrorCounts, nonmated_sorted: NDArray) -> ErrorCounts:
    """Counts at the two achievable thresholds around the crossing of FMR and FNMR.

    ``pair``: the two consecutive ROC vertices of :func:`_crossing_pair`. Between them only
    non-mated scores can be thresholds, all with the FNMR of the second, so the crossing is
    found among the distinct non-mated scores of one run.
    """
    low, high = in_dtype_of(nonmated_sorted, pair.thresholds)
    start = int(np.searchsorted(nonmated_sorted, low, side="right"))
    stop = int(np.searchsorted(nonmated_sorted, high, side="left"))
    run = nonmated_sorted[start:stop]
    firsts = start + (_first_of_runs(run) if run.size else np.empty(0, dtype=np.intp))
    thresholds = np.concatenate([pair.thresholds[:1], nonmated_sorted[firsts], pair.thresholds[1:]])
    false_matches = np.concatenate([pair.false_matches[:1], pair.n_nonmated - firsts, pair.false_matches[1:]])
    false_non_matches = np.concatenate([pair.false_non_matches[:1], np.full(firsts.size, pair.false_non_matches[1]),
                                        pair.false_non_matches[1:]])
    run_counts = ErrorCounts(thresholds, false_matches, false_non_matches, pair.n_mated, pair.n_nonmated)
    i = int(np.argmax(run_counts.fnmr - run_counts.fmr >= 0))  # >= 1: the first is negative
    return ErrorCounts(thresholds[i - 1 : i + 1], false_matches[i - 1 : i + 1], false_non_matches[i - 1 : i + 1],
                       pair.n_mated, pair.n_nonmated)


def _rocch_eer_value(counts: CountsAtMatedScores) -> float:
    """The ROCCH EER of the counts at the distinct mated scores (their points hold the
    hull's vertices), without its threshold."""
    return _hull_crossing_narrowed(counts.fmr[::-1], counts.fnmr[::-1], counts.n_nonmated, counts.n_mated)


def _eer_from_mated_counts(counts: MatedCounts, method: EerMethod = "rocch") -> EqualErrorRate:
    """EER from the counts at the distinct mated scores.

    The hull's vertices are among the points ``counts`` holds; the midpoint and interval
    rules read the non-mated scores between the two ROC vertices around the crossing.
    """
    near = _near_crossing(_crossing_pair(counts), counts.nonmated_sorted)
    if _checked(method) == "rocch":
        return _rocch(counts.fmr[::-1], counts.fnmr[::-1], near)
    return _RULES[method](near)


def eer(mated: ArrayLike, nonmated: ArrayLike, *, method: EerMethod = "rocch") -> EqualErrorRate:
    """Equal error rate: where FMR and FNMR meet.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores (match iff ``score >= threshold``).
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    method : {"rocch", "midpoint", "interval"}, default "rocch"
        ``"rocch"``: where the convex hull of the ROC (in FMR, FNMR) crosses
        FMR = FNMR, as BOSARIS and pyllr. It is the EER of the best system reachable by
        mixing thresholds, never above max(FMR, FNMR) at any threshold.
        ``"midpoint"``: mean of FMR and FNMR at the threshold minimising ``|FMR - FNMR|``
        (the lowest such threshold), as bob.measure.
        ``"interval"``: the FVC2000 rule, as pyeer. With t1 the largest threshold with
        FNMR <= FMR and t2 the smallest with FNMR >= FMR, the interval is
        [FNMR(t1), FMR(t1)] if FNMR(t1) + FMR(t1) <= FMR(t2) + FNMR(t2), else
        [FMR(t2), FNMR(t2)]; the EER is its midpoint.

    Returns
    -------
    EqualErrorRate
        ``eer``, ``threshold``, ``low``, ``high`` and ``method``. The threshold is the one
        minimising ``|FMR - FNMR|`` for ``"rocch"`` and ``"midpoint"`` (the ROCCH EER itself is
        reached by mixing the two hull vertices around the crossing), and t1 or t2 for
        ``"interval"``.

    Raises
    ------
    ValueError
        When ``method`` is not "rocch", "midpoint" or "interval" (checked before the scores);
        or when ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused).

    See Also
    --------
    biofair.det_curve : The two rates at every threshold.
    biofair.min_dcf : A cost-weighted operating point.
    biofair.partitions.eer : The same EER over a partitioned score set.

    References
    ----------
    N. Brümmer and E. de Villiers, The BOSARIS Toolkit, 2011 (ROC convex hull EER).
    D. Maio et al., "FVC2000: Fingerprint Verification Competition", IEEE TPAMI, 2002 (the
    interval rule). bob.measure, ``eer`` (the midpoint rule).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.eer([0.5, 0.65, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7]).eer
    0.25
    >>> bf.eer([0.5, 0.65, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], method="interval")
    EqualErrorRate(eer=0.25, threshold=0.65, low=0.25, high=0.25, method='interval')
    """
    _checked(method)
    return _eer_from_mated_counts(mated_counts(mated, nonmated), method)
