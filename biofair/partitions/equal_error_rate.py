"""EER of partitioned scores: exact for "midpoint" and "interval", bounded for "rocch"."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from biofair._counts import ErrorCounts, just_above
from biofair._typing import EerMethod
from biofair._validation import as_count
from biofair.equal_error_rate import EqualErrorRate, _checked, _eer_from_counts, _hull_crossing
from biofair.partitions._order_statistics import at_or_above, by_class, locate, refine, refined_windows
from biofair.partitions.census import _as_frame, _class_census, _ClassCensus, _locating_bins


def _rates_at_bin_starts(histogram: NDArray) -> tuple[NDArray, NDArray]:
    """FMR and FNMR at each bin's first score and above every score (bins + 1 each)."""
    nonmated, mated = at_or_above(histogram)
    n_nonmated, n_mated = nonmated[0], mated[0]
    return nonmated / n_nonmated, (n_mated - mated) / n_mated


def _window(histogram: NDArray) -> NDArray[np.bool_]:
    """Bins holding both thresholds around the crossing.

    ``G_j = FNMR - FMR`` at the first score of bin ``j`` rises from -1 (bin 0) to 1 (above
    every score), and every threshold of an empty bin has the ``G`` of the next boundary,
    so the last bin ``c`` with ``G_c < 0`` holds scores, the first of them with ``G < 0``.
    The smallest threshold with FNMR >= FMR is then a later score of bin ``c`` or the first
    score of the next non-empty bin (or lies above every score), and the largest with
    FNMR <= FMR is the score before it: the window is bin ``c`` and the next non-empty bin.
    """
    fmr_at, fnmr_at = _rates_at_bin_starts(histogram)
    crossing = int(np.searchsorted(fnmr_at - fmr_at, 0.0, side="left")) - 1
    nonempty = np.flatnonzero(histogram.sum(axis=0))
    wanted = np.zeros(histogram.shape[1], dtype=bool)
    wanted[[crossing, *nonempty[nonempty > crossing][:1]]] = True
    return wanted


def _speculative_bins(histogram: NDArray) -> NDArray[np.bool_]:
    """Bins of both classes (2 x bins) that :func:`eer` would refine, known from the locating
    histogram alone: the window around the crossing and every other bin whose corner lies
    below the line of a crossing edge of the hull through the bins' first scores. A pass
    that refines other bins collects these on speculation, so that the EER needs none for them
    (the hull of the exact points around the crossing can still ask for other bins)."""
    fmr_at, fnmr_at = _rates_at_bin_starts(histogram)
    window = _window(histogram)
    nonempty = histogram.sum(axis=0) > 0
    sizes = tuple(int(side[0]) for side in at_or_above(histogram))
    _, edge_ends = _crossing(fmr_at[np.append(nonempty, True)], fnmr_at[np.append(nonempty, True)], sizes)
    coarse = np.flatnonzero(nonempty & ~window)
    window[coarse[_outside((fmr_at[coarse + 1], fnmr_at[coarse]), edge_ends)]] = True
    return np.tile(window, (2, 1))


def _exact_points(frame, histogram: NDArray, counts: _ClassCensus, bins: NDArray[np.bool_]) -> ErrorCounts:
    """Exact error counts at every distinct score of the given bins (contiguous or not), and
    above every score when they include the last non-empty bin: one refinement pass, or
    none when an earlier pass refined these bins."""
    wanted = np.tile(bins, (2, 1))
    windows = refined_windows(frame, wanted)
    if windows is None:
        windows = refine(frame, [(by_class, (), histogram, wanted)])[0]
    thresholds = np.union1d(windows.values(0), windows.values(1))
    thresholds = thresholds[bins[_locating_bins(thresholds)]]
    false_matches = counts.n_nonmated - windows.counts_below(0, thresholds)
    false_non_matches = windows.counts_below(1, thresholds)
    if bins[np.flatnonzero(histogram.sum(axis=0))[-1]]:
        thresholds = np.append(thresholds, just_above(counts.high))
        false_matches = np.append(false_matches, 0)
        false_non_matches = np.append(false_non_matches, counts.n_mated)
    return ErrorCounts(thresholds, false_matches, false_non_matches, counts.n_mated, counts.n_nonmated)


def eer(scores: Any, *, method: EerMethod = "rocch", max_passes: int = 10) -> EqualErrorRate:
    """Equal error rate of all comparisons of a partitioned score set, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set (groups are ignored).
    method : {"rocch", "midpoint", "interval"}, default "rocch"
        As for the in-memory function.
    max_passes : int, default 10
        Most refinement passes for ``"rocch"``; if its bounds have not met by then, the
        result brackets the EER between ``low`` and ``high``.

    Returns
    -------
    EqualErrorRate
        ``"midpoint"`` and ``"interval"``: equal to the in-memory result (value, threshold
        and bracket), after two passes: the class census with a locating histogram of
        each class (2**18 bins), and the distinct scores of both classes in the bin where
        FNMR overtakes FMR and the next non-empty one, which give the exact error counts at
        every threshold there. After :func:`biofair.partitions.partitioned` and
        :func:`biofair.partitions.pooled_thresholds` on the same data, none: their passes
        made the histogram and collected those scores, and the bins the ROCCH's first
        refinement is expected to need, on speculation (the exact hull may ask for others:
        then one more pass each round of refinement). ``"rocch"``: ``low`` and ``high`` bound
        the ROCCH EER and meet in practice (then ``eer`` is exact); ``threshold`` is the exact
        one of ``"midpoint"``.

    Raises
    ------
    SchemaError
        When a partition holds invalid scores or labels (as :func:`biofair.partitions.census`
        words them), the data hold several systems or splits or no comparison of a class, a
        Parquet file cannot be read, or a local Parquet file has changed or is gone since it
        was first read.
    FileNotFoundError
        When ``scores`` is a Parquet path or glob that matches no file.
    ValueError
        When ``method`` is not "rocch", "midpoint" or "interval", or ``max_passes`` is
        negative.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``, or
        ``max_passes`` is not an integer.

    See Also
    --------
    biofair.eer : The same EER in memory.

    Notes
    -----
    The ROCCH EER depends on the convex hull of the whole ROC. The ROC points at the first
    score of every bin and at every score of a refined bin are exact, so the hull through
    them crosses FMR = FNMR no lower than the true hull: ``high``. Every ROC point inside
    an unrefined bin is dominated by the bin's corner (its lowest FMR with its lowest
    FNMR), so the hull through the exact points and the corners crosses no higher: ``low``.
    A corner can move the crossing only if it lies below the line of a hull edge at the
    crossing; those bins are refined (one pass) and the test repeats. When no corner lies
    below, both hulls cross on the same edge and ``low == high``.

    References
    ----------
    N. Brümmer and E. de Villiers, The BOSARIS Toolkit, 2011 (ROC convex hull EER).
    D. Maio et al., "FVC2000: Fingerprint Verification Competition", IEEE TPAMI, 2002.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.gaussian_scores(n_mated=500, n_nonmated=5_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.eer(dd.from_pandas(table, npartitions=4))
    >>> found == bf.eer(*bf.split_scores(table))
    True
    """
    _checked(method)  # biofair's message for an array too (an array of one "rocch" passed ``not in``)
    max_passes = as_count(max_passes, "max_passes", minimum=0)
    frame = _as_frame(scores)
    counts = _class_census(frame)
    histogram = locate(frame, by_class, (), 2)
    refined = _window(histogram)
    near = _exact_points(frame, histogram, counts, refined)
    if method != "rocch":
        return _eer_from_counts(near, method)
    threshold = _eer_from_counts(near, "midpoint").threshold
    fmr_at, fnmr_at = _rates_at_bin_starts(histogram)
    nonempty = histogram.sum(axis=0) > 0
    exact = (np.concatenate([fmr_at[np.append(nonempty, True)], near.fmr]),
             np.concatenate([fnmr_at[np.append(nonempty, True)], near.fnmr]))
    for passes in range(max_passes + 1):
        high, edge_ends = _crossing(*exact, (counts.n_nonmated, counts.n_mated))
        coarse = np.flatnonzero(nonempty & ~refined)
        corners = (fmr_at[coarse + 1], fnmr_at[coarse])
        outside = _outside(corners, edge_ends)
        if not outside.any():  # the crossing edges support every corner too: the bounds meet
            low = high
            break
        if passes == max_passes:
            low, _ = _crossing(np.concatenate([exact[0], corners[0]]), np.concatenate([exact[1], corners[1]]),
                               (counts.n_nonmated, counts.n_mated))
            break
        more = np.zeros_like(refined)
        more[coarse[outside]] = True
        found = _exact_points(frame, histogram, counts, more)
        exact = (np.concatenate([exact[0], found.fmr]), np.concatenate([exact[1], found.fnmr]))
        refined |= more
    return EqualErrorRate((low + high) / 2, threshold, low, high, "rocch")


def _crossing(fmr: NDArray, fnmr: NDArray, sizes: tuple[int, int]) -> tuple[float, NDArray]:
    """ROCCH EER of ROC points in any order (rates of ``sizes``, the non-mated and mated
    counts), and the (x, y) ends of the hull edges it lies on."""
    order = np.lexsort((-fnmr, fmr))  # FMR ascending; at equal FMR, the higher FNMR first
    value, ends = _hull_crossing(fmr[order], fnmr[order], *sizes)
    return value, np.stack([fmr[order][ends], fnmr[order][ends]], axis=1)


def _outside(points: tuple[NDArray, NDArray], edge_ends: NDArray) -> NDArray[np.bool_]:
    """Points strictly below the line of any of the hull edges (ends in hull order).

    Every ROC point lies on or above those lines; if every corner does too, adding the
    corners cannot move the crossing, so the bounds meet.
    """
    x, y = points
    outside = np.zeros(x.size, dtype=bool)
    for (x1, y1), (x2, y2) in zip(edge_ends[:-1], edge_ends[1:]):
        outside |= (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) < 0
    return outside
