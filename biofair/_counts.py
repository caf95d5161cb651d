"""The one sort every operating-point metric is computed from.

``error_counts`` sorts each class once and walks both sorted arrays with vectorised
operations to give, at every distinct score and at one threshold above all scores, the
number of false matches and false non-matches: the curves are drawn from these counts.
``roc_counts`` gives the same counts at the M + 1 thresholds where the ROC can turn (the
mated scores); every area, the convex hull and the minimum cost are computed from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._validation import as_scores


@dataclass(frozen=True, eq=False)
class ErrorCounts:
    """Error counts at achievable thresholds, thresholds ascending.

    From :func:`error_counts`, ``thresholds`` holds the distinct scores of both classes and,
    last, ``nextafter(max score, +inf)`` (reject everything); from :func:`roc_counts`, only
    those where the ROC can turn. Decision rule: match iff
    ``score >= threshold``. The rates are computed once, on first use.
    """

    thresholds: NDArray[np.float64]
    false_matches: NDArray[np.int64]  # number of non-mated scores >= threshold
    false_non_matches: NDArray[np.int64]  # number of mated scores < threshold
    n_mated: int
    n_nonmated: int

    @cached_property
    def fmr(self) -> NDArray[np.float64]:
        """FMR at each threshold."""
        return self.false_matches / self.n_nonmated

    @cached_property
    def fnmr(self) -> NDArray[np.float64]:
        """FNMR at each threshold."""
        return self.false_non_matches / self.n_mated

    @cached_property
    def tmr(self) -> NDArray[np.float64]:
        """TMR = 1 - FNMR at each threshold, from the count of true matches."""
        return (self.n_mated - self.false_non_matches) / self.n_mated

    @cached_property
    def corners(self) -> NDArray[np.intp]:
        """Indices of the ROC vertices where the curve changes direction.

        The vertices strictly inside a horizontal or vertical run of the ROC lie on a
        straight line between their neighbours: dropping them leaves the piecewise-linear
        curve, and so every area, unchanged.
        """
        step_fm = np.diff(self.false_matches) != 0
        step_fnm = np.diff(self.false_non_matches) != 0
        straight = (~step_fm[:-1] & ~step_fm[1:]) | (~step_fnm[:-1] & ~step_fnm[1:])
        return np.flatnonzero(np.concatenate([[True], ~straight, [True]]))


def sorted_scores(mated: ArrayLike, nonmated: ArrayLike, *, keep_float32: bool = False) -> tuple[NDArray, NDArray]:
    """Validate both classes and return them sorted ascending (new arrays).

    With ``keep_float32``, float32 scores stay float32 (see :func:`in_dtype_of`).
    """
    return (np.sort(as_scores(mated, "mated", keep_float32=keep_float32)),
            np.sort(as_scores(nonmated, "nonmated", keep_float32=keep_float32)))


def in_dtype_of(sorted_values: NDArray, thresholds: ArrayLike) -> NDArray:
    """Thresholds to count ``sorted_values`` against with ``searchsorted``, in their dtype.

    float32 scores are searched with the smallest float32 at or above each (float64)
    threshold: the same counts of scores at or above it and below it, without a float64
    copy of the scores (which ``searchsorted`` makes when the dtypes differ).
    """
    values = np.asarray(thresholds, dtype=np.float64)
    if sorted_values.dtype != np.float32:
        return values
    with np.errstate(over="ignore"):  # above the float32 range: +inf, above every score
        rounded = values.astype(np.float32)
    return np.where(rounded < values, np.nextafter(rounded, np.float32(np.inf)), rounded)


def _first_of_runs(sorted_values: NDArray) -> NDArray[np.intp]:
    """Indices where a new distinct value starts in an ascending array."""
    starts = np.empty(sorted_values.size, dtype=bool)
    starts[0] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=starts[1:])
    return np.flatnonzero(starts)


def error_counts_sorted(mated_sorted: NDArray, nonmated_sorted: NDArray) -> ErrorCounts:
    """Error counts from two ascending, validated arrays (no sorting done here).

    The distinct values of each class are merged by one ``searchsorted`` of the mated
    distinct values into the non-mated ones; everything else is linear.
    """
    n_mated, n_nonmated = mated_sorted.size, nonmated_sorted.size
    m_first = _first_of_runs(mated_sorted)
    n_first = _first_of_runs(nonmated_sorted)
    m_values, n_values = mated_sorted[m_first], nonmated_sorted[n_first]

    # pos[i]: number of distinct non-mated values below the i-th distinct mated value.
    pos = np.searchsorted(n_values, m_values, side="left")
    shared = pos < n_values.size
    shared[shared] = n_values[pos[shared]] == m_values[shared]
    only_mated = np.flatnonzero(~shared)

    # Distinct non-mated values: slot among the merged thresholds and mated count below.
    n_range = n_values.size + 1
    mated_values_below = np.cumsum(np.bincount(pos, minlength=n_range))[:-1]
    mated_values_below -= np.bincount(pos[shared], minlength=n_range)[:-1]
    n_slots = np.arange(n_values.size) + np.cumsum(
        np.bincount(pos[only_mated], minlength=n_range)
    )[:-1]
    # Distinct mated values that no non-mated score shares.
    m_slots = pos[only_mated] + np.arange(only_mated.size)

    size = n_values.size + only_mated.size + 1
    thresholds = np.empty(size, dtype=np.float64)
    false_matches = np.empty(size, dtype=np.int64)
    false_non_matches = np.empty(size, dtype=np.int64)
    thresholds[n_slots] = n_values
    false_matches[n_slots] = n_nonmated - n_first
    false_non_matches[n_slots] = np.append(m_first, n_mated)[mated_values_below]
    thresholds[m_slots] = m_values[only_mated]
    false_matches[m_slots] = n_nonmated - np.append(n_first, n_nonmated)[pos[only_mated]]
    false_non_matches[m_slots] = m_first[only_mated]

    top = max(float(mated_sorted[-1]), float(nonmated_sorted[-1]))
    thresholds[-1] = np.nextafter(top, np.inf)
    false_matches[-1] = 0
    false_non_matches[-1] = n_mated
    return ErrorCounts(thresholds, false_matches, false_non_matches, n_mated, n_nonmated)


def error_counts(mated: ArrayLike, nonmated: ArrayLike) -> ErrorCounts:
    """Validate, sort once per class and count errors at every achievable threshold."""
    return error_counts_sorted(*sorted_scores(mated, nonmated))


def counts_at(mated_sorted: NDArray, nonmated_sorted: NDArray, thresholds: ArrayLike):
    """False-match and false-non-match counts at thresholds, from ascending scores."""
    false_matches = nonmated_sorted.size - np.searchsorted(nonmated_sorted, in_dtype_of(nonmated_sorted, thresholds),
                                                           "left")
    false_non_matches = np.searchsorted(mated_sorted, in_dtype_of(mated_sorted, thresholds), "left")
    return false_matches, false_non_matches


def tmr_sorted(mated_sorted: NDArray, thresholds: ArrayLike) -> NDArray[np.float64]:
    """TMR at thresholds from ascending mated scores, from the count of true matches."""
    below = np.searchsorted(mated_sorted, in_dtype_of(mated_sorted, thresholds), "left")
    return (mated_sorted.size - below) / mated_sorted.size


def roc_counts_sorted(mated_sorted: NDArray, nonmated_sorted: NDArray) -> ErrorCounts:
    """Error counts at the thresholds where the ROC can turn, from two ascending arrays.

    FNMR changes only at mated scores: between two consecutive distinct mated scores the
    ROC runs straight along FMR. Its vertices are therefore the counts at each distinct
    mated score ``v`` (``#{nonmated >= v}``), at the next score of either class above ``v``
    (``#{nonmated > v}``), at the lowest score and above all scores; the thresholds of
    :func:`error_counts_sorted` left out lie strictly inside a horizontal run. Every area,
    the convex hull and the minimum detection cost are the same on both sets of vertices.
    Cost: one ``searchsorted`` per side of the distinct mated scores into the non-mated
    ones, O(M log N), and O(M) memory.
    """
    n_mated, n_nonmated = mated_sorted.size, nonmated_sorted.size
    m_first = _first_of_runs(mated_sorted)
    values = mated_sorted[m_first]
    below = np.searchsorted(nonmated_sorted, values, side="left")
    # Non-mated scores above each mated value: a second search only where they tie.
    after = below.copy()
    tied = below < n_nonmated
    tied[tied] = nonmated_sorted[below[tied]] == values[tied]
    after[tied] = np.searchsorted(nonmated_sorted, values[tied], side="right")
    # The next threshold above each mated value is the next mated value or the next
    # non-mated score, whichever is lower; it is a threshold of its own when non-mated.
    own = after < n_nonmated
    own[own] = nonmated_sorted[after[own]] < np.append(values[1:], np.inf)[own]
    lowest = int(nonmated_sorted[0] < values[0])  # a non-mated score is the lowest: accept-all point
    slot = np.cumsum(own) + lowest  # slot of each mated value, shifted by the own thresholds before it
    slot -= own
    slot += np.arange(values.size)
    nexts = slot[own] + 1

    size = values.size + nexts.size + lowest + 1
    thresholds = np.empty(size, dtype=np.float64)
    false_matches = np.empty(size, dtype=np.int64)
    false_non_matches = np.empty(size, dtype=np.int64)
    thresholds[slot] = values
    false_matches[slot] = n_nonmated - below
    false_non_matches[slot] = m_first
    following = after[own]
    thresholds[nexts] = nonmated_sorted[following]
    false_matches[nexts] = n_nonmated - following
    false_non_matches[nexts] = np.append(m_first[1:], n_mated)[own]
    if lowest:
        thresholds[0], false_matches[0], false_non_matches[0] = nonmated_sorted[0], n_nonmated, 0
    thresholds[-1] = np.nextafter(max(float(mated_sorted[-1]), float(nonmated_sorted[-1])), np.inf)
    false_matches[-1], false_non_matches[-1] = 0, n_mated
    return ErrorCounts(thresholds, false_matches, false_non_matches, n_mated, n_nonmated)


def roc_counts(mated: ArrayLike, nonmated: ArrayLike) -> ErrorCounts:
    """Validate, sort once per class and count errors where the ROC can turn."""
    return roc_counts_sorted(*sorted_scores(mated, nonmated, keep_float32=True))
