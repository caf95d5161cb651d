"""ROC-AUC and partial AUC of partitioned scores, bounded from class histograms."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair.areas import check_bound, partial_from_area
from biofair.distribution_fairness import check_bins, range_edges
from biofair.partitions.census import as_frame, class_census, on_partitions
from biofair.partitions.order_statistics import LOCATING_BINS, at_or_above, bins_of, locating_edges, order_statistics
from biofair.partitions.thresholds import by_class
from biofair.rates import allowed_false_matches


class BoundedValue(NamedTuple):
    """A value known to lie in ``[low, high]``, with the midpoint as the estimate."""

    estimate: float
    low: float
    high: float


def _class_histogram_part(part: pd.DataFrame, index: int, edges: NDArray) -> NDArray:
    """Counts per (class, bin) of the comparisons at or above ``edges[0]`` of a partition."""
    values, mated = by_class(part)
    keep = values >= edges[0]
    n_bins = edges.size - 1
    key = mated[keep] * n_bins + bins_of(values[keep], edges)
    return np.bincount(key, minlength=2 * n_bins).reshape(2, n_bins)


def _area_bounds(frame, edges: NDArray, n_mated: int, n_nonmated: int, bound: float) -> tuple[float, float]:
    """Bounds of the area under the ROC from FMR 0 to ``bound``, from one histogram pass.

    With ``F_j`` and ``T_j`` the FMR and TMR of a threshold at the start of bin ``j``
    (scores at or above it), the piecewise-linear ROC runs inside bin ``j`` from
    ``(F_{j+1}, T_{j+1})`` to ``(F_j, T_j)``, rising, so its area over that FMR span lies
    between the span times ``T_{j+1}`` and the span times ``T_j``. ``edges[0]`` must have
    ``F_0 >= bound``.
    """
    counts = at_or_above(np.sum(on_partitions(frame, _class_histogram_part, edges), axis=0))
    fmr, tmr = counts[0] / n_nonmated, counts[1] / n_mated
    span = np.clip(np.minimum(fmr[:-1], bound) - fmr[1:], 0.0, None)
    return float(span @ tmr[1:]), float(span @ tmr[:-1])


def roc_auc(scores: Any, *, bins: int = LOCATING_BINS) -> BoundedValue:
    """ROC-AUC of all comparisons of a partitioned score set, bounded from histograms.

    Read more in the chapter "When the evaluation outgrows one machine".

    Returns
    -------
    BoundedValue
        With ``m_b`` and ``n_b`` the mated and non-mated counts of bin ``b`` (equal width
        over the score range): pairs in different bins are ordered exactly,
        ``D = Σ_b m_b Σ_{b' < b} n_b'``, and the ``S = Σ_b m_b n_b`` pairs inside one bin
        are not, so the exact AUC (ties counted one half) lies in ``[D / MN, (D + S) / MN]``.
        The width ``S / MN`` shrinks with finer bins. Two passes: class census, histogram.
    """
    bins = check_bins(bins)
    frame = as_frame(scores)
    counts = class_census(frame)
    edges = range_edges(counts.low, counts.high, bins)
    low, high = _area_bounds(frame, edges, counts.n_mated, counts.n_nonmated, 1.0)
    return BoundedValue((low + high) / 2, low, high)


def partial_auc(scores: Any, *, max_fmr: float, standardized: bool = False,
                bins: int = LOCATING_BINS) -> BoundedValue:
    """:func:`biofair.partial_auc` of all comparisons of a partitioned score set, bounded.

    Read more in the chapter "When the evaluation outgrows one machine".

    Returns
    -------
    BoundedValue
        The bins cover only the scores that matter: from ``L``, the ``(c+1)``-th largest
        non-mated score (``c`` false matches allowed at ``max_fmr``, found exactly by a
        locating and a refinement pass), to the largest score. With ``F_j`` and ``T_j`` the
        FMR and TMR at the first score of bin ``j``, the ROC inside bin ``j`` rises from
        ``(F_{j+1}, T_{j+1})`` to ``(F_j, T_j)``, so the area over its FMR span (clipped at
        ``max_fmr``) lies between the span times ``T_{j+1}`` and the span times ``T_j``.
        Both sums are mapped as the in-memory value is (divided by ``max_fmr``, or
        McClish-standardised). Four passes: class census, locate, refine, histogram.
    """
    bins = check_bins(bins)
    bound = check_bound(max_fmr, "max_fmr")
    frame = as_frame(scores)
    counts = class_census(frame)
    allowed = int(allowed_false_matches(np.array([bound]), counts.n_nonmated)[0])
    start = counts.low
    if allowed < counts.n_nonmated:
        rank = counts.n_nonmated - 1 - allowed
        windows = order_statistics(frame, by_class, (), 2, locating_edges(counts.low, counts.high),
                                   lambda sizes: [np.array([rank]), []])
        start = windows.kth(0, rank)
    low, high = _area_bounds(frame, range_edges(start, counts.high, bins), counts.n_mated,
                             counts.n_nonmated, bound)
    low, high = partial_from_area(low, bound, standardized), partial_from_area(high, bound, standardized)
    return BoundedValue((low + high) / 2, low, high)
