"""ROC-AUC and partial AUC of partitioned scores, bounded from class histograms."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._thresholds import allowed_false_matches
from biofair._validation import check_bins, check_bound, check_flag
from biofair.areas import BoundedValue, _partial_from_mean
from biofair.distribution_fairness import _range_edges
from biofair.exceptions import SchemaError
from biofair.partitions._order_statistics import (
    AREA_BINS,
    at_or_above,
    bins_of,
    by_class,
    order_statistics,
)
from biofair.partitions.census import _as_frame, _class_census, _on_partitions


_ULPS = 4  # outward rounding of the partial-area bounds (units in the last place)


def _area_edges(low: float, high: float, bins: int) -> NDArray[np.float64]:
    """Equal-width edges from ``low`` to ``high``: ``bins`` bins, or half as many, again and
    again, where floating point cannot cut a narrow range (scores a few ulps apart) that
    finely. Any edges bound the areas; coarser ones only widen the bounds."""
    while True:
        try:
            return _range_edges(low, high, bins)
        except SchemaError:
            if bins == 1:
                raise
            bins //= 2

def _class_histogram_part(part: pd.DataFrame, index: int, edges: NDArray) -> NDArray:
    """Counts per (class, bin) of the comparisons at or above ``edges[0]`` of a partition."""
    values, mated = by_class(part)
    keep = values >= edges[0]
    n_bins = edges.size - 1
    key = mated[keep] * n_bins + bins_of(values[keep], edges)
    return np.bincount(key, minlength=2 * n_bins).reshape(2, n_bins)


def _mean_tmr_bounds(frame, edges: NDArray, n_mated: int, n_nonmated: int, bound: float) -> tuple[float, float]:
    """Bounds of the mean TMR over FMR in [0, ``bound``] (the area divided by ``bound``),
    from one histogram pass.

    With ``F_j`` and ``T_j`` the FMR and TMR of a threshold at the start of bin ``j``
    (scores at or above it), the piecewise-linear ROC runs inside bin ``j`` from
    ``(F_{j+1}, T_{j+1})`` to ``(F_j, T_j)``, rising, so its area over that FMR span lies
    between the span times ``T_{j+1}`` and the span times ``T_j``. ``edges[0]`` must have
    ``F_0 >= bound``. Both sums are correctly rounded (``math.fsum``): a dot product's
    summation order can depend on memory alignment, and could put ``low`` an ulp above
    ``high`` where they are equal. The spans are scaled by the power of two that brings
    ``bound`` to [0.5, 1) (exact): at the smallest bounds allowed, span times TMR fell
    below 2**-1022 and lost bits (the bounds missed the mean TMR of 1/1000 at 1e-306).
    """
    counts = _class_counts(frame, edges)
    fmr, tmr = counts[0] / n_nonmated, counts[1] / n_mated
    scale = -math.frexp(bound)[1]
    span = np.ldexp(np.clip(np.minimum(fmr[:-1], bound) - fmr[1:], 0.0, None), scale)
    scaled_bound = math.ldexp(bound, scale)
    return math.fsum(span * tmr[1:]) / scaled_bound, math.fsum(span * tmr[:-1]) / scaled_bound


def _class_counts(frame, edges: NDArray) -> NDArray[np.int64]:
    """Non-mated (row 0) and mated (row 1) scores at or above each edge: one histogram pass."""
    return at_or_above(_on_partitions(frame, _class_histogram_part, edges, columns=["score", "mated"], total=True))


def roc_auc(scores: Any, *, bins: int = AREA_BINS) -> BoundedValue:
    """ROC-AUC of all comparisons of a partitioned score set, bounded from histograms.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set; groups are ignored.
    bins : int, default 65536
        Equal-width bins over the score range (only out of core: finer bins, tighter bounds);
        halved until floating point can cut the range into that many.

    Returns
    -------
    BoundedValue
        The midpoint of the bounds, with ``low`` and ``high``. With ``m_b`` and ``n_b`` the
        mated and non-mated counts of bin ``b``: pairs in different bins are ordered
        exactly, ``D = Σ_b m_b Σ_{b' < b} n_b'``, and the ``S = Σ_b m_b n_b`` pairs inside
        one bin are not, so the exact AUC (ties counted one half) lies in
        ``[D / MN, (D + S) / MN]``, both counted in integers and correctly rounded, as
        :func:`biofair.roc_auc` is: the bounds hold its value to the last bit. The width
        ``S / MN`` shrinks with finer bins.

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
        When ``bins`` is below 1 or above 1,000,000.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``, or
        ``bins`` is not an integer.

    See Also
    --------
    biofair.roc_auc : The exact value in memory (the same return type).
    biofair.partitions.partial_auc : The partial area, bounded.

    Notes
    -----
    Two passes: class census, histogram.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification, eq. 1.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.gaussian_scores(n_mated=500, n_nonmated=5_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     bounded = bp.roc_auc(dd.from_pandas(table, npartitions=4), bins=256)
    >>> bool(bounded.low <= bf.roc_auc(*bf.split_scores(table)) <= bounded.high), bounded.exact
    (True, False)
    """
    bins = check_bins(bins)
    frame = _as_frame(scores)
    counts = _class_census(frame)
    edges = _area_edges(counts.low, counts.high, bins)
    at_or_above_edge = _class_counts(frame, edges).astype(object)  # Python ints: D and S exactly
    nonmated_in_bin = at_or_above_edge[0, :-1] - at_or_above_edge[0, 1:]
    pairs = counts.n_mated * counts.n_nonmated
    ordered = int(np.dot(nonmated_in_bin, at_or_above_edge[1, 1:]))  # D
    with_same_bin = int(np.dot(nonmated_in_bin, at_or_above_edge[1, :-1]))  # D + S
    # int / int is correctly rounded, as the in-memory value is: the bounds hold it, also where
    # they meet (S = 0); float sums of rates were an ulp off there, on either side
    low, high = ordered / pairs, with_same_bin / pairs
    return BoundedValue((low + high) / 2, low=low, high=high)


def partial_auc(scores: Any, max_fmr: float, *, standardized: bool = False,
                bins: int = AREA_BINS) -> BoundedValue:
    """Average TMR below an FMR bound of a partitioned score set, bounded from histograms.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set; groups are ignored.
    max_fmr : float
        Upper FMR bound ``b`` in [2**-1022, 1] (from the smallest normal float).
    standardized : bool, default False
        McClish's standardised area, as :func:`biofair.partial_auc`.
    bins : int, default 65536
        Equal-width bins over the scores that matter (only out of core); halved until
        floating point can cut their range into that many.

    Returns
    -------
    BoundedValue
        The midpoint of the bounds, with ``low`` and ``high``. The bins cover only the
        scores that matter: from ``L``, the ``(c+1)``-th largest non-mated score (``c``
        false matches allowed at ``max_fmr``, found exactly by a locating and a refinement
        pass), to the largest score. With ``F_j`` and ``T_j`` the FMR and TMR at the first
        score of bin ``j``, the ROC inside bin ``j`` rises from ``(F_{j+1}, T_{j+1})`` to
        ``(F_j, T_j)``, so the area over its FMR span (clipped at ``max_fmr``) lies between
        the span times ``T_{j+1}`` and the span times ``T_j``. Both sums are mapped as the
        in-memory value is (divided by ``max_fmr``, or McClish-standardised), then rounded
        outward by four units in the last place, so that they hold the in-memory value,
        which rounds differently (the bounds are never equal, even where the bins resolve
        every score).

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
        When ``max_fmr`` lies outside [2**-1022, 1] (NaN included), or ``bins`` is below 1 or
        above 1,000,000.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``,
        ``max_fmr`` is not a number, ``standardized`` is not True or False, or ``bins`` is not
        an integer.

    See Also
    --------
    biofair.partial_auc : The exact value in memory (the same return type).
    biofair.partitions.roc_auc : The whole area, bounded.

    Notes
    -----
    Three passes: class census (with the locating histogram), refine, histogram.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification, eq. 2.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.gaussian_scores(n_mated=500, n_nonmated=5_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     bounded = bp.partial_auc(dd.from_pandas(table, npartitions=4), max_fmr=0.1, bins=256)
    >>> exact = bf.partial_auc(*bf.split_scores(table), max_fmr=0.1)
    >>> bool(bounded.low <= exact <= bounded.high)
    True
    """
    bins = check_bins(bins)
    bound = check_bound(max_fmr, "max_fmr")
    standardized = check_flag(standardized, "standardized")  # "no" standardised, as any non-empty string
    frame = _as_frame(scores)
    counts = _class_census(frame)
    allowed = int(allowed_false_matches(np.array([bound]), counts.n_nonmated)[0])
    start = counts.low
    if allowed < counts.n_nonmated:
        rank = counts.n_nonmated - 1 - allowed
        windows = order_statistics(frame, by_class, (), 2, lambda sizes: [np.array([rank]), []])
        start = windows.kth(0, rank)
    low, high = _mean_tmr_bounds(frame, _area_edges(start, counts.high, bins), counts.n_mated,
                                 counts.n_nonmated, bound)
    low, high = _partial_from_mean(low, bound, standardized), _partial_from_mean(high, bound, standardized)
    # Both sums are of products of rounded rates, and the in-memory value interpolates the
    # last segment in floating point: where the bins resolve every score the two can differ
    # by an ulp (seen: 0.12061561973106089 in memory, 0.1206156197310609 for both bounds).
    # Rounded outward, the bounds hold the in-memory value, not only the real area.
    low, high = max(low - _ULPS * np.spacing(low), 0.0), min(high + _ULPS * np.spacing(high), 1.0)
    return BoundedValue((low + high) / 2, low=low, high=high)
