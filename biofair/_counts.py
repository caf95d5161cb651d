"""The one sort every operating-point metric is computed from.

``error_counts`` sorts each class once and walks both sorted arrays with vectorised
operations to give, at every distinct score and at one threshold above all scores, the
number of false matches and false non-matches: the curves are drawn from these counts.
``mated_counts`` gives what the ROC metrics need, the counts at the distinct mated scores
(where FNMR changes), from one ``searchsorted`` of them into the sorted non-mated scores:
every area, the convex hull and its EER, the minimum cost and the average precision are
computed from them, and ``operating_summary`` computes them once for all its metrics.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._validation import as_scores, check_finite, how_many


def just_above(values: ArrayLike) -> NDArray[np.float64] | np.float64:
    """The smallest float above each value (``nextafter(x, +inf)``): the threshold that
    rejects every score up to ``x``; above the largest float it is +inf, without NumPy's
    overflow warning."""
    with np.errstate(over="ignore"):
        return np.nextafter(values, np.inf)


class _Rates:
    """FMR, FNMR and TMR of ``false_matches`` and ``false_non_matches`` out of ``n_nonmated``
    and ``n_mated``, each computed once, on first use."""

    false_matches: NDArray[np.integer]
    false_non_matches: NDArray[np.integer]
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


@dataclass(frozen=True, eq=False)
class ErrorCounts(_Rates):
    """Error counts at achievable thresholds, thresholds ascending.

    From :func:`error_counts`, ``thresholds`` holds the distinct scores of both classes and,
    last, ``nextafter(max score, +inf)`` (reject everything). Decision rule: match iff
    ``score >= threshold``. The rates are computed once, on first use.
    """

    thresholds: NDArray[np.float64]
    false_matches: NDArray[np.int64]  # number of non-mated scores >= threshold
    false_non_matches: NDArray[np.int64]  # number of mated scores < threshold
    n_mated: int
    n_nonmated: int

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


def sorted_scores(mated: ArrayLike, nonmated: ArrayLike, *, keep_float32: bool = False,
                  infinite: bool = False) -> tuple[NDArray, NDArray]:
    """Validate both classes and return them sorted ascending (new arrays).

    With ``keep_float32``, float32 scores stay float32 (see :func:`in_dtype_of`). With
    ``infinite``, ±inf is a value like another (log-likelihood ratios: infinite evidence);
    NaN never is.
    """
    return _sorted(mated, "mated", keep_float32, infinite), _sorted(nonmated, "nonmated", keep_float32, infinite)


def _sorted(values: ArrayLike, name: str, keep_float32: bool, infinite: bool = False) -> NDArray:
    """One class validated and sorted; its finiteness is read at both ends of the sorted
    array (``np.sort`` puts -inf first, +inf and NaN last), not by a pass over all of it."""
    ordered = np.sort(as_scores(values, name, keep_float32=keep_float32, finite=False))
    if infinite:
        if np.isnan(ordered[-1]):
            raise ValueError(f"{name} contains {how_many(int(np.isnan(ordered).sum()), 'NaN value')}: leave out the "
                             "comparisons without a score, or decide how to count them, before computing a metric")
    elif not (np.isfinite(ordered[0]) and np.isfinite(ordered[-1])):
        check_finite(ordered, name)
    return ordered


def in_dtype_of(sorted_values: NDArray, thresholds: ArrayLike) -> NDArray:
    """Thresholds to count ``sorted_values`` against with ``searchsorted``, in their dtype.

    float32 scores are searched with the smallest float32 at or above each (float64)
    threshold: the same counts of scores at or above it and below it, without a float64
    copy of the scores (which ``searchsorted`` makes when the dtypes differ).
    """
    values = np.asarray(thresholds, dtype=np.float64)
    if sorted_values.dtype != np.float32:
        return values
    with np.errstate(over="ignore"):  # above the float32 range (or just above its largest): +inf, above every score
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

    The distinct values of each class are merged by one search of the mated distinct
    values into the non-mated ones (:func:`searchsorted_ascending`); everything else is
    linear.
    """
    n_mated, n_nonmated = mated_sorted.size, nonmated_sorted.size
    m_first = _first_of_runs(mated_sorted)
    n_first = _first_of_runs(nonmated_sorted)
    m_values, n_values = mated_sorted[m_first], nonmated_sorted[n_first]

    # pos[i]: number of distinct non-mated values below the i-th distinct mated value.
    pos = searchsorted_ascending(n_values, m_values)
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
    thresholds[-1] = just_above(top)
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


class CountsAtMatedScores(_Rates):
    """The counts every ROC metric is computed from: those at the distinct mated scores.

    FNMR changes only at mated scores. With D distinct mated scores ``values``, ascending:
    at ``values[i]``, ``first[i]`` mated comparisons lie below it (its false non-matches),
    ``below[i]`` non-mated ones lie below it (``N - below[i]`` false matches) and
    ``after[i]`` at or below it (``after[i] - below[i]`` of them tie it; ``after`` is
    ``below`` itself when none does). With thresholds ascending, the ROC in counts (false
    matches, false non-matches) runs from the accept-all point ``(N, 0)`` through
    ``A_i = (N - below[i], first[i])`` at ``values[i]`` and ``B_i = (N - after[i], first[i+1])``
    at the next score above it (``first[D] = M``) to the reject-all point ``(0, M)``: from
    ``A_i`` to ``B_i`` it steps to the next FNMR (along a diagonal when non-mated scores tie
    ``values[i]``), from ``B_i`` to ``A_{i+1}`` it runs straight along FMR past the non-mated
    scores between the two mated ones.

    ``false_matches`` and ``false_non_matches`` (made on each use) and the rates (kept)
    are those at ``(N, 0)``, at each ``A_i`` and at ``(0, M)``, thresholds ascending: a cost
    increasing in both errors is smallest at one of them, and the ROC convex hull's vertices
    are among them (each ``B_i`` lies above the chord from ``A_{i+1}`` to ``A_i``).

    :class:`MatedCounts` holds the counts of the sorted scores themselves,
    :class:`WeightedCounts` those of a resample that repeats each comparison.
    """

    first: NDArray[np.integer]
    below: NDArray[np.integer]
    after: NDArray[np.integer]

    @property
    def false_matches(self) -> NDArray[np.intp]:
        """False matches at the accept-all threshold, at each distinct mated score, and
        at the reject-all threshold."""
        return self.false_matches_between(0, self.first.size + 2)

    @property
    def false_non_matches(self) -> NDArray[np.intp]:
        """False non-matches at the thresholds of :attr:`false_matches`."""
        return self.false_non_matches_between(0, self.first.size + 2)

    def false_matches_between(self, start: int, stop: int) -> NDArray[np.intp]:
        """``false_matches[start:stop]``, made without the others."""
        return self._points(start, stop, self.n_nonmated, 0,
                            lambda scores, out: np.subtract(self.n_nonmated, self.below[scores], out=out))

    def false_non_matches_between(self, start: int, stop: int) -> NDArray[np.intp]:
        """``false_non_matches[start:stop]``, made without the others."""
        return self._points(start, stop, 0, self.n_mated, lambda scores, out: np.copyto(out, self.first[scores]))

    def _points(self, start: int, stop: int, accept_all: int, reject_all: int,
                at_scores: Callable[[slice, NDArray[np.intp]], object]) -> NDArray[np.intp]:
        """Counts at the points ``start .. stop - 1`` of (accept-all, the D distinct mated
        scores, reject-all): ``accept_all``, what ``at_scores(scores, out)`` writes into
        ``out`` for a slice ``scores`` of the distinct mated scores, ``reject_all``."""
        size = self.first.size
        counts = np.empty(stop - start, dtype=np.intp)
        low, high = max(start, 1), min(stop, size + 1)  # the points at distinct mated scores
        if low < high:
            at_scores(slice(low - 1, high - 1), counts[low - start : high - start])
        if start == 0:
            counts[0] = accept_all
        if stop == size + 2:
            counts[-1] = reject_all
        return counts

    def mated_at_values(self, start: int = 0, stop: int | None = None) -> NDArray[np.intp]:
        """How many mated scores equal each distinct mated score ``start .. stop - 1``
        (all by default): ``first[i + 1] - first[i]``, with ``first[D] = M``."""
        size = self.first.size
        stop = size if stop is None else stop
        return np.diff(self.first[start:stop], append=self.first[stop] if stop < size else self.n_mated)

    def roc_vertices(self) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """The ROC's vertices as (false matches, true matches), FMR ascending.

        ``(0, 0)``, then ``B_i`` and ``A_i`` for i = D - 1 down to 0, then ``(N, M)``: 2D + 2
        points, some repeated (``B_i = A_{i+1}`` when no non-mated score lies between the
        two mated ones); every segment between two consecutive ones is straight. Made anew
        on each call (as large as four arrays of D counts): keep it only while it is used.
        """
        n, m, size = self.n_nonmated, self.n_mated, 2 * self.first.size + 2
        false_matches, true_matches = np.empty(size, dtype=np.intp), np.empty(size, dtype=np.intp)
        false_matches[0], true_matches[0], false_matches[-1], true_matches[-1] = 0, 0, n, m
        np.subtract(n, self.after[::-1], out=false_matches[1:-1:2])
        np.subtract(n, self.below[::-1], out=false_matches[2:-1:2])
        np.subtract(m, self.first[::-1], out=true_matches[2:-1:2])  # at A_i
        true_matches[1], true_matches[3:-1:2] = 0, true_matches[2:-3:2]  # B_i: as at A_{i+1}
        return false_matches, true_matches


@dataclass(frozen=True, eq=False)
class MatedCounts(CountsAtMatedScores):
    """The counts at the distinct mated scores of two sorted classes.

    ``first``, ``below`` and ``after`` are positions in ``mated_sorted`` and
    ``nonmated_sorted``, which are counts of the scores below them. The sorted scores are
    held, not copied.
    """

    mated_sorted: NDArray[np.floating]
    nonmated_sorted: NDArray[np.floating]
    first: NDArray[np.intp]
    below: NDArray[np.intp]
    after: NDArray[np.intp]

    @property
    def n_mated(self) -> int:
        return self.mated_sorted.size

    @property
    def n_nonmated(self) -> int:
        return self.nonmated_sorted.size

    @property
    def values(self) -> NDArray[np.floating]:
        """The distinct mated scores, ascending (a new array)."""
        return self.mated_sorted[self.first]

    def weighted(self, mated_weights: NDArray[np.integer], nonmated_weights: NDArray[np.integer]) -> WeightedCounts:
        """The counts of the resample that repeats the i-th sorted mated score
        ``mated_weights[i]`` times and the j-th sorted non-mated one ``nonmated_weights[j]``
        times, from cumulative sums: O(M + N), no sort.

        A distinct mated score drawn 0 times keeps its point: the ROC point of the resample
        at that threshold, on a straight stretch of its curve, so every area and the hull
        are those of the resample's own distinct scores.
        """
        mated_below, nonmated_below = _cumulative(mated_weights), _cumulative(nonmated_weights)
        return WeightedCounts(mated_below[self.first], nonmated_below[self.below], nonmated_below[self.after],
                              int(mated_below[-1]), int(nonmated_below[-1]))


def _cumulative(weights: NDArray[np.integer]) -> NDArray[np.int64]:
    """``[0, w0, w0 + w1, ...]``: the weight below each position, and the total last."""
    below = np.empty(weights.size + 1, dtype=np.int64)
    below[0] = 0
    np.cumsum(weights, out=below[1:])
    return below


@dataclass(frozen=True, eq=False)
class WeightedCounts(CountsAtMatedScores):
    """The counts at the distinct mated scores of a resample (see :meth:`MatedCounts.weighted`)."""

    first: NDArray[np.int64]
    below: NDArray[np.int64]
    after: NDArray[np.int64]
    n_mated: int
    n_nonmated: int


#: Ascending keys :func:`searchsorted_ascending` searches at a time.
_KEYS_PER_CHUNK = 4096


def searchsorted_ascending(sorted_values: NDArray, keys: NDArray, *, pool: Executor | None = None,
                           chunk: int = _KEYS_PER_CHUNK) -> NDArray[np.intp]:
    """``np.searchsorted(sorted_values, keys)`` (side ``"left"``) for ascending keys.

    The positions of every ``chunk``-th key are searched first. With the keys ascending,
    those of the keys from one of them up to the next lie between their two positions, so
    each chunk of keys is searched only in that stretch of ``sorted_values`` (fewer steps,
    and a stretch that stays in cache): a key's position is the stretch's start plus the
    number of its values below the key. With ``pool``, a task there searches the upper
    chunks while this thread searches the lower ones, split where their estimated cost (keys
    times log2 of the stretch) is half spent: keys among dense values take more steps than
    keys in a sparse tail (NumPy's search releases the GIL).
    """
    starts = np.searchsorted(sorted_values, keys[::chunk])
    bounds = np.append(starts, sorted_values.size)
    positions = np.empty(keys.size, dtype=np.intp)

    def search(chunks: range) -> None:
        for i in chunks:
            begin, end, low, high = i * chunk, (i + 1) * chunk, bounds[i], bounds[i + 1]
            np.add(np.searchsorted(sorted_values[low:high], keys[begin:end]), low, out=positions[begin:end])

    if pool is None:
        search(range(starts.size))
        return positions
    chunk_keys = np.minimum(chunk, keys.size - chunk * np.arange(starts.size))
    cost = np.cumsum(chunk_keys * np.log2(np.diff(bounds) + 2.0))
    split = int(np.searchsorted(cost, cost[-1] / 2)) + 1
    upper = pool.submit(search, range(split, starts.size))
    search(range(split))
    upper.result()
    return positions


def mated_counts_sorted(mated_sorted: NDArray, nonmated_sorted: NDArray, *,
                        pool: Executor | None = None) -> MatedCounts:
    """The counts at the distinct mated scores, from two ascending, validated arrays.

    One search of the distinct mated scores into the non-mated ones
    (:func:`searchsorted_ascending`, in two threads with ``pool``), and a second one only
    for those a non-mated score ties: O(D log N) for D distinct mated scores.
    """
    first = _first_of_runs(mated_sorted)
    values = mated_sorted[first]
    below = searchsorted_ascending(nonmated_sorted, values, pool=pool)
    # the first non-mated score at or above each value (the last one, below it, where none is)
    tied = np.flatnonzero(np.take(nonmated_sorted, below, mode="clip") == values)
    after = below
    if tied.size:
        after = below.copy()
        after[tied] = np.searchsorted(nonmated_sorted, values[tied], side="right")
    return MatedCounts(mated_sorted, nonmated_sorted, first, below, after)


def mated_counts(mated: ArrayLike, nonmated: ArrayLike) -> MatedCounts:
    """Validate, sort once per class and count errors at the distinct mated scores."""
    return mated_counts_sorted(*sorted_scores(mated, nonmated, keep_float32=True))
