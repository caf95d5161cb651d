"""Exact thresholds at target FMRs over partitioned scores (passes 2 and 3)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._counts import just_above
from biofair._summation import PART, parts
from biofair._thresholds import MARKED_UNRESOLVED, RETURNED_UNRESOLVED, allowed_false_matches, warn_unresolved
from biofair._typing import By
from biofair._validation import as_rates, as_targets, scalar_or_array
from biofair.partitions._order_statistics import (
    Windows,
    by_class,
    homogeneous_nonmated,
    locate,
    order_statistics,
    refine,
    wanted_bins,
)
from biofair.partitions.census import _as_frame, _cached, _class_census, _on_partitions, partitioned
from biofair.partitions.equal_error_rate import _speculative_bins


def _ranks(targets: NDArray, n: int) -> NDArray[np.int64]:
    """Ascending ranks each target's threshold is read from: the smallest and the largest
    score and, for ``0 < c < n`` allowed false matches, the ``(c+1)``-th largest."""
    allowed = allowed_false_matches(targets, n)
    return np.concatenate([[0, n - 1], n - 1 - allowed[(allowed > 0) & (allowed < n)]])


def _thresholds_from(windows: Windows, stream: int, targets: NDArray) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """threshold_at_fmr's rule on refined windows, and the scores at or above each threshold.

    For ``c`` allowed false matches: the smallest distinct score above the ``(c+1)``-th
    largest; ``nextafter(max)`` if ``c = 0``; the smallest score if every score is allowed.
    """
    n = int(windows.sizes[stream])
    top = just_above(windows.kth(stream, n - 1))  # rejects every score
    thresholds, at_or_above = [], []
    for c in allowed_false_matches(targets, n):
        if c == 0:
            thresholds.append(top)
            at_or_above.append(0)
        elif c >= n:
            thresholds.append(windows.kth(stream, 0))
            at_or_above.append(n)
        else:
            above = windows.above(stream, windows.kth(stream, n - 1 - int(c)))
            thresholds.append(top if above is None else above)
            at_or_above.append(0 if above is None else windows.at_or_above(stream, above))
    # + 0.0: -0.0 and 0.0 give 0.0, whichever a partition held first, as threshold_at_fmr_sorted
    return np.array(thresholds, dtype=np.float64) + 0.0, np.array(at_or_above, dtype=np.int64)


def _pooled_thresholds_and_counts(scores: Any, targets: NDArray, by: By, *,
                                  unresolved: str = MARKED_UNRESOLVED) -> tuple[NDArray, NDArray, int]:
    """Thresholds on the pooled homogeneous non-mated scores, the scores at or above each, and N
    (found once per frame, grouping and targets: FDR after pooled_thresholds reads nothing).
    ``unresolved`` ends the warning of unresolved targets: what the caller's result does."""
    frame, census_ = partitioned(scores, by=by)
    n_nonmated = int(census_.n_nonmated.sum())
    warn_unresolved(targets, n_nonmated, consequence=unresolved)

    def find() -> tuple[NDArray, NDArray]:
        # without cross-group pairs, the homogeneous non-mated scores are the non-mated class:
        # then one refinement of both classes also collects, on speculation, what the EER needs
        pooled = census_.n_cross == 0
        select, args, n_streams = (by_class, (), 2) if pooled else (homogeneous_nonmated, (census_,), 1)
        histogram = locate(frame, select, args, n_streams)
        wanted = wanted_bins(histogram, [_ranks(targets, int(histogram[0].sum())), *[[]] * (n_streams - 1)])
        requests = [(select, args, histogram, wanted)]
        classes = locate(frame, by_class, (), 2)  # made by the census: no pass
        if pooled:
            wanted |= _speculative_bins(classes)
        else:
            requests.append((by_class, (), classes, _speculative_bins(classes)))
        return _thresholds_from(refine(frame, requests)[0], 0, targets)

    key = ("thresholds", repr(census_.columns), np.asarray(targets).tobytes())
    thresholds, at_or_above = _cached(frame, key, find)
    return thresholds.copy(), at_or_above.copy(), n_nonmated


def pooled_thresholds(scores: Any, fmr_targets: ArrayLike, *, by: By = "group") -> NDArray[np.float64]:
    """Set exact thresholds at target FMRs on the pooled homogeneous non-mated scores.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set (a :class:`biofair.partitions.Partitioned` skips the census).
    fmr_targets : sequence of float
        Target FMRs in [0, 1].
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    ndarray
        The same thresholds as the in-memory fairness functions set (one for every group),
        by the rule of :func:`biofair.threshold_at_fmr`: for a target with ``c`` allowed false
        matches, the smallest distinct non-mated score above the ``(c+1)``-th largest
        (``nextafter(max)`` when ``c = 0``, the minimum when every score is allowed).

    Raises
    ------
    SchemaError
        When the data fail the checks of :func:`biofair.partitions.census` (a missing group
        column, invalid scores or labels in a partition, several systems or splits, group
        labels that cannot be named one way, fewer than two groups, or a group without mated or
        homogeneous non-mated comparisons), a Parquet file cannot be read, or a local Parquet
        file has changed or is gone since it was first read.
    FileNotFoundError
        When ``scores`` is a Parquet path or glob that matches no file.
    ValueError
        When ``fmr_targets`` is empty or holds a target outside [0, 1] (NaN included),
        ``by`` is empty, names a column twice or names "score" or "mated", or ``scores`` is a
        ``Partitioned`` made for another ``by``.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``,
        ``by`` is not a column name or a list of column names, or ``fmr_targets`` is not a
        sequence of numbers (one number is refused).

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below 3/N (rule of three).

    See Also
    --------
    biofair.threshold_at_fmr : The rule, in memory.
    biofair.partitions.fairness_discrepancy_rate : FDR at these thresholds.

    Notes
    -----
    One pass after the census: the census's locating histogram (2**18 bins) locates each
    order statistic's bin; the distinct values of those bins and their non-empty neighbours
    give it exactly. The same pass collects, on speculation, the distinct scores that
    :func:`biofair.partitions.eer` refines (when no pair crosses groups).

    References
    ----------
    T. de Freitas Pereira and S. Marcel, IEEE T-BIOM, 2022 (one threshold for every group,
    set on the pooled non-mated scores). bob.measure, ``far_threshold`` (the rule).

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.fdr_canonical_system(n_mated=100, n_nonmated=1_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.pooled_thresholds(dd.from_pandas(table, npartitions=3), [1e-2])
    >>> bool(found[0] == bf.threshold_at_fmr(table.loc[~table["mated"], "score"], 1e-2))
    True
    """
    targets = as_targets(fmr_targets, "fmr_targets")
    return _pooled_thresholds_and_counts(scores, targets, by, unresolved=RETURNED_UNRESOLVED)[0]


def _mated_at_or_above_part(part: pd.DataFrame, index: int, thresholds: NDArray) -> NDArray[np.int64]:
    values, stream = by_class(part)
    return _at_or_above_each(values[stream == 1], np.zeros(int((stream == 1).sum()), dtype=np.intp), 1,
                            thresholds)[0]


def _at_or_above_each(values: NDArray, key: NDArray[np.integer], n_keys: int, thresholds: NDArray) -> NDArray[np.int64]:
    """Scores of each key (0 ... n_keys - 1) at or above each threshold (n_keys x thresholds),
    by a search of the scores among the sorted thresholds and a bincount, part by part (so
    that every temporary stays in cache). The key's integer dtype must hold
    ``n_keys * (thresholds.size + 1)`` (a small one moves fewer bytes)."""
    order = np.argsort(thresholds, kind="stable")
    ascending, width = thresholds[order], thresholds.size + 1
    counts = np.zeros(n_keys * width, dtype=np.int64)
    for start, stop in parts(values.size, part=PART):
        combined = key[start:stop] * width  # in the key's dtype
        combined += _at_or_below(ascending, values[start:stop])
        counts += np.bincount(combined, minlength=n_keys * width)
    from_top = np.cumsum(counts.reshape(n_keys, -1)[:, ::-1], axis=1)[:, ::-1]  # scores passing >= j thresholds
    found = np.empty((n_keys, thresholds.size), dtype=np.int64)
    found[:, order] = from_top[:, 1:]
    return found


def _at_or_below(ascending: NDArray, values: NDArray) -> NDArray:
    """Thresholds (ascending) at or below each score, ``np.searchsorted(ascending, values,
    side="right")``; for up to 32 thresholds by one vectorised comparison each, in the scores'
    dtype: a float32 score is at or above a threshold iff it is at or above the smallest
    float32 at or above the threshold (a NaN threshold is below no score either way)."""
    if ascending.size > 32:
        return np.searchsorted(ascending, values, side="right")
    if values.dtype == np.float32:
        with np.errstate(over="ignore"):  # beyond float32: infinite, as the smallest float32 above
            rounded = ascending.astype(np.float32)
        ascending = np.where(rounded < ascending, np.nextafter(rounded, np.float32(np.inf)), rounded)
    passed = np.zeros(values.size, dtype=np.uint8)
    for threshold in ascending:
        passed += values >= threshold
    return passed


def tmr_at_fmr(scores: Any, fmr: float | ArrayLike) -> float | NDArray:
    """True match rate at the threshold set for a target FMR, over a partitioned score set.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set; groups are ignored.
    fmr : float or array_like
        Target false match rate(s) in [0, 1].

    Returns
    -------
    float or ndarray
        :func:`biofair.tmr_at_fmr` of all the mated and non-mated comparisons, exactly: the
        threshold is set on every non-mated comparison (cross-group pairs included) and the
        TMR counts every mated one.

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
        When a target in ``fmr`` lies outside [0, 1] (NaN included).
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``, or
        ``fmr`` is not a number or an array of numbers.

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below 3/N (rule of three).

    See Also
    --------
    biofair.tmr_at_fmr : The same value in memory.
    biofair.partitions.pooled_thresholds : Thresholds on the homogeneous pairs of the groups.

    Notes
    -----
    Three passes: class census (with the locating histogram), refinement, mated counts at
    the thresholds.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification
    (TMR at fixed FMRs).

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.gaussian_scores(n_mated=500, n_nonmated=5_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.tmr_at_fmr(dd.from_pandas(table, npartitions=4), 1e-2)
    >>> found == bf.tmr_at_fmr(*bf.split_scores(table), 1e-2)
    True
    """
    frame = _as_frame(scores)
    targets = as_rates(fmr, "fmr").ravel()  # any shape, as in memory: the result takes it back
    counts = _class_census(frame)
    warn_unresolved(targets, counts.n_nonmated, consequence=RETURNED_UNRESOLVED)
    windows = order_statistics(frame, by_class, (), 2, lambda sizes: [_ranks(targets, int(sizes[0])), []])
    thresholds, _ = _thresholds_from(windows, 0, targets)
    matches = _on_partitions(frame, _mated_at_or_above_part, thresholds, columns=["score", "mated"], total=True)
    return scalar_or_array((matches / counts.n_mated).reshape(np.shape(fmr)), fmr)
