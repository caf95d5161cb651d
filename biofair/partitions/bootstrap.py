"""Intervals over partitioned scores by the Poisson bootstrap (mergeable per-row weights)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._typing import By, Seed
from biofair._validation import as_count, as_number, as_rng, as_thresholds, check_alpha, check_resamples
from biofair._warnings import warn
from biofair.discrepancy import _discrepancy, _max_gap
from biofair.exceptions import UndefinedRateWarning
from biofair.partitions.census import Census, _group_keys, _needed, _on_partitions, partitioned
from biofair.partitions.rates import group_rates_at


def _poisson_counts_part(part: pd.DataFrame, index: int, census: Census, thresholds: NDArray,
                         n_resamples: int, generators: list[np.random.Generator]) -> tuple[NDArray, NDArray]:
    """Per resample: weighted totals per (group, class) and weighted counts at thresholds."""
    values, group, mated = _group_keys(part, census)
    keep = group >= 0
    values, key = values[keep], (group[keep] * 2 + mated[keep])
    size = 2 * len(census.names)
    rng = generators[index]
    totals = np.empty((n_resamples, size))
    at_or_above = np.empty((n_resamples, size, thresholds.size))
    above = [values >= t for t in thresholds]
    for b in range(n_resamples):
        weights = rng.poisson(1.0, values.size).astype(np.float64)
        totals[b] = np.bincount(key, weights, minlength=size)
        for j, mask in enumerate(above):
            at_or_above[b, :, j] = np.bincount(key[mask], weights[mask], minlength=size)
    return totals, at_or_above


def _warn_empty(empty: NDArray[np.bool_], names: list[str]) -> None:
    """Warn when resamples (rows of ``empty``) weigh every comparison of a group's class
    (columns: non-mated, mated of each group) 0, naming the groups and how many."""
    if not empty.any():
        return
    counts = empty.sum(axis=0)
    which = ", ".join(f"{names[k // 2]!r} {'mated' if k % 2 else 'non-mated'} ({counts[k]})"
                      for k in np.flatnonzero(counts))
    warn(
        f"{int(empty.any(axis=1).sum())} of {empty.shape[0]} Poisson resamples weigh every comparison of a "
        f"group's class 0, which leaves its rate (and FDR) undefined there; the intervals leave those "
        f"resamples out: {which}. A group this small is better served by biofair.bootstrap in memory",
        UndefinedRateWarning,
    )


def poisson_bootstrap(
    scores: Any,
    thresholds: ArrayLike,
    *,
    by: By = "group",
    alpha: float = 0.5,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    rng: Seed = None,
) -> pd.DataFrame:
    """Percentile intervals of per-group FMR, FNMR and FDR at fixed thresholds (Poisson bootstrap).

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned evaluation set.
    thresholds : array_like
        Fixed decision thresholds (set them on development data).
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    alpha : float, default 0.5
        Weight of the FMR differential of FDR.
    n_resamples : int, default 1000
        Bootstrap resamples B, at least ``2 / (1 - confidence)`` (40 at 95%).
    confidence : float, default 0.95
        Coverage of the percentile intervals.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed; each partition draws from its own child of it
        (``Generator.spawn``), so the same seed gives the same table whatever the workers.

    Returns
    -------
    pandas.DataFrame
        One row per group, rate and threshold, and one per threshold for FDR (``metric``
        ``"fdr"``, group ``"FDR"``: select them by ``metric``, as a group may be called
        "FDR" too): ``group``, ``threshold``, ``metric``, ``value`` (on all data), ``low``,
        ``high``.

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
        When ``alpha`` lies outside [0, 1], ``confidence`` outside (0, 1), ``n_resamples`` is
        below ``2 / (1 - confidence)``, ``thresholds`` is empty, has more than one dimension or
        holds a NaN, ``by`` is empty, names a column twice or names "score" or "mated",
        ``scores`` is a ``Partitioned`` made for another ``by``, or ``rng`` is a negative seed.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``,
        ``by`` is not a column name or a list of column names, ``alpha`` or ``confidence`` is
        not a number, ``n_resamples`` is not an integer, a threshold is not a number, or
        ``rng`` is neither a Generator, an integer seed nor None.

    Warns
    -----
    UndefinedRateWarning
        When resamples weigh every comparison of a group's class 0 (see Notes).

    See Also
    --------
    biofair.bootstrap : The pair or subject bootstrap in memory.
    biofair.partitions.fairness_discrepancy_rate : The FDR values, without intervals.

    Notes
    -----
    Each comparison that counts towards a rate (mated, or non-mated within one group) gets
    an independent Poisson(1) weight in each resample, drawn inside its partition; non-mated
    pairs across groups enter no rate and draw no weight. A resample is the sum of
    per-partition weighted counts, so it merges like the counts themselves and needs no
    shuffle. This approximates the pair bootstrap (``unit="pair"`` of :func:`biofair.bootstrap`,
    whose weights are multinomial) for large sets; there is no subject bootstrap here. It
    assumes the comparisons are independent: when subjects recur in many of them, as in an
    all-against-all trial list, the intervals are too narrow (the chapter "Audit demographic
    differentials" measures how much). Thresholds are fixed: the interval
    covers the evaluation sample only. A resample that weighs every comparison of a
    group's class 0 (likely only for a class of a few comparisons: ``e**-n`` for ``n``)
    leaves that rate and FDR undefined; the percentiles leave such resamples out, with an
    :class:`~biofair.UndefinedRateWarning` naming the group and how many.

    References
    ----------
    N. Chamandy, O. Muralidharan, A. Najmi and S. Naidu, "Estimating Uncertainty for Massive
    Data Streams", Google technical report, 2012 (the Poisson bootstrap).

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=1_000, n_nonmated=10_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     intervals = bp.poisson_bootstrap(dd.from_pandas(table, npartitions=2), [3.0], n_resamples=50, rng=0)
    >>> intervals["metric"].value_counts().to_dict()
    {'fmr': 3, 'fnmr': 3, 'fdr': 1}
    """
    alpha = check_alpha(alpha)
    n_resamples = as_count(n_resamples, "n_resamples")
    confidence = as_number(confidence, "confidence", low=0.0, high=1.0, open_low=True, open_high=True)
    check_resamples(n_resamples, confidence)
    values = as_thresholds(thresholds, flat=True)
    data = partitioned(scores, by=by)
    frame, census_ = data
    generators = as_rng(rng).spawn(frame.npartitions)
    parts = _on_partitions(frame, _poisson_counts_part, census_, values, n_resamples, generators,
                           columns=_needed(census_))
    totals = np.sum([t for t, _ in parts], axis=0)[:, :, None]  # (B, 2K, 1)
    above = np.sum([a for _, a in parts], axis=0)  # (B, 2K, T)
    _warn_empty(totals[:, :, 0] == 0, census_.names)
    with np.errstate(invalid="ignore"):  # 0 / 0 where a resample weighs a class of a group 0: NaN, left out
        fmr = above[:, 0::2] / totals[:, 0::2]
        fnmr = 1.0 - above[:, 1::2] / totals[:, 1::2]
    fdr = _discrepancy(_max_gap(fmr.swapaxes(0, 1)), _max_gap(fnmr.swapaxes(0, 1)), alpha)  # (B, T)
    rates, _ = group_rates_at(data, values, by=by)
    exact = {"fmr": rates.fmr, "fnmr": rates.fnmr}
    tails = [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100]
    rows = []
    for metric, replicates in (("fmr", fmr), ("fnmr", fnmr)):
        low, high = np.nanpercentile(replicates, tails, axis=0)
        for k, name in enumerate(census_.names):
            for j, t in enumerate(values):
                rows.append((name, t, metric, exact[metric][k, j], low[k, j], high[k, j]))
    fdr_exact = _discrepancy(_max_gap(rates.fmr), _max_gap(rates.fnmr), alpha)
    low, high = np.nanpercentile(fdr, tails, axis=0)
    rows += [("FDR", t, "fdr", fdr_exact[j], low[j], high[j]) for j, t in enumerate(values)]
    return pd.DataFrame(rows, columns=["group", "threshold", "metric", "value", "low", "high"])
