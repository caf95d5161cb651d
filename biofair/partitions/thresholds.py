"""Exact thresholds at target FMRs over partitioned scores (passes 2 and 3)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._validation import as_rates, scalar_or_array
from biofair.partitions.census import Census, as_frame, class_census, group_keys, on_partitions, partitioned
from biofair.partitions.order_statistics import Windows, locating_edges, order_statistics
from biofair.rates import allowed_false_matches, warn_unresolvable


def homogeneous_nonmated(part: pd.DataFrame, census: Census) -> tuple[NDArray, NDArray[np.intp]]:
    """Stream 0: the non-mated pairs whose two sides share a group."""
    values, group, mated = group_keys(part, census)
    return values, np.where((group >= 0) & ~mated, 0, -1)


def by_class(part: pd.DataFrame) -> tuple[NDArray, NDArray[np.intp]]:
    """Every comparison, groups ignored: stream 0 non-mated, stream 1 mated."""
    return part["score"].to_numpy(dtype=np.float64), part["mated"].to_numpy(dtype=np.intp)


def _ranks(targets: NDArray, n: int) -> NDArray[np.int64]:
    """Ascending ranks each target's threshold is read from: the smallest and the largest
    score and, for ``0 < c < n`` allowed false matches, the ``(c+1)``-th largest."""
    allowed = allowed_false_matches(targets, n)
    return np.concatenate([[0, n - 1], n - 1 - allowed[(allowed > 0) & (allowed < n)]])


def thresholds_from(windows: Windows, stream: int, targets: NDArray) -> NDArray[np.float64]:
    """threshold_at_fmr's rule on refined windows: for ``c`` allowed false matches, the
    smallest distinct score above the ``(c+1)``-th largest; ``nextafter(max)`` if ``c = 0``;
    the smallest score if every score is allowed."""
    n = int(windows.sizes[stream])
    top = np.nextafter(windows.kth(stream, n - 1), np.inf)  # rejects every score
    thresholds = []
    for c in allowed_false_matches(targets, n):
        if c == 0:
            thresholds.append(top)
        elif c >= n:
            thresholds.append(windows.kth(stream, 0))
        else:
            above = windows.above(stream, windows.kth(stream, n - 1 - int(c)))
            thresholds.append(top if above is None else above)
    return np.array(thresholds, dtype=np.float64)


def pooled_thresholds(scores: Any, fmr_targets: ArrayLike, *, by: str = "group") -> NDArray[np.float64]:
    """Thresholds at target FMRs on the pooled homogeneous non-mated scores, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    The same thresholds as the in-memory fairness functions set (one for every group), by
    the rule of :func:`biofair.threshold_at_fmr`: for a target with ``c`` allowed false
    matches, the smallest distinct non-mated score above the ``(c+1)``-th largest
    (``nextafter(max)`` when ``c = 0``, the minimum when every score is allowed). Two
    passes after the census: a 65,536-bin histogram locates each order statistic's bin;
    the distinct values of those bins and their non-empty neighbours give it exactly.

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below ``1/N``.
    """
    frame, census_ = partitioned(scores, by=by)
    targets = np.atleast_1d(as_rates(fmr_targets, "fmr_targets"))
    warn_unresolvable(targets, int(census_.n_nonmated.sum()))
    windows = order_statistics(frame, homogeneous_nonmated, (census_,), 1,
                               locating_edges(census_.low, census_.high),
                               lambda sizes: [_ranks(targets, int(sizes[0]))])
    return thresholds_from(windows, 0, targets)


def _mated_at_or_above_part(part: pd.DataFrame, index: int, thresholds: NDArray) -> NDArray[np.int64]:
    values, stream = by_class(part)
    mated = values[stream == 1]
    return np.array([(mated >= t).sum() for t in thresholds], dtype=np.int64)


def tmr_at_fmr(scores: Any, fmr: float | ArrayLike) -> float | NDArray:
    """:func:`biofair.tmr_at_fmr` over all comparisons of a partitioned score set, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    Groups are ignored: the threshold is set on every non-mated comparison (cross-group
    pairs included) and the TMR counts every mated one. Four passes: class census,
    locating histogram, refinement, mated counts at the thresholds.

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below ``1/N``.
    """
    frame = as_frame(scores)
    targets = np.atleast_1d(as_rates(fmr, "fmr"))
    counts = class_census(frame)
    warn_unresolvable(targets, counts.n_nonmated)
    windows = order_statistics(frame, by_class, (), 2, locating_edges(counts.low, counts.high),
                               lambda sizes: [_ranks(targets, int(sizes[0])), []])
    thresholds = thresholds_from(windows, 0, targets)
    matches = np.sum(on_partitions(frame, _mated_at_or_above_part, thresholds), axis=0)
    return scalar_or_array((matches / counts.n_mated).reshape(np.shape(fmr)), fmr)
