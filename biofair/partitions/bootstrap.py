"""Intervals over partitioned scores by the Poisson bootstrap (mergeable per-row weights)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair.discrepancy import check_alpha, discrepancy, max_gap
from biofair.partitions.census import Census, group_keys, on_partitions, partitioned
from biofair.partitions.rates import group_rates_at


def _poisson_counts_part(part: pd.DataFrame, index: int, census: Census, thresholds: NDArray,
                         n_resamples: int, seed: int) -> tuple[NDArray, NDArray]:
    """Per resample: weighted totals per (group, class) and weighted counts at thresholds."""
    values, group, mated = group_keys(part, census)
    keep = group >= 0
    values, key = values[keep], (group[keep] * 2 + mated[keep])
    size = 2 * len(census.names)
    rng = np.random.default_rng([seed, index])
    totals = np.empty((n_resamples, size))
    at_or_above = np.empty((n_resamples, size, thresholds.size))
    above = [values >= t for t in thresholds]
    for b in range(n_resamples):
        weights = rng.poisson(1.0, values.size).astype(np.float64)
        totals[b] = np.bincount(key, weights, minlength=size)
        for j, mask in enumerate(above):
            at_or_above[b, :, j] = np.bincount(key[mask], weights[mask], minlength=size)
    return totals, at_or_above


def poisson_bootstrap(
    scores: Any,
    thresholds: ArrayLike,
    *,
    by: str = "group",
    alpha: float = 0.5,
    n_resamples: int = 200,
    confidence: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Percentile intervals of per-group FMR, FNMR and FDR at fixed thresholds (Poisson bootstrap).

    Read more in the chapter "When the evaluation outgrows one machine".

    Each comparison gets an independent Poisson(1) weight in each resample, drawn inside
    its partition from a generator seeded by ``(seed, partition index)``: a resample is the
    sum of per-partition weighted counts, so it merges like the counts themselves and needs
    no shuffle. This approximates the pair bootstrap (whose weights are multinomial) for
    large sets. Thresholds are fixed (set them on development data): the interval covers
    the evaluation sample only.

    Returns
    -------
    pandas.DataFrame
        One row per group and threshold (FDR rows have group ``"FDR"``): ``threshold``,
        ``metric``, ``value`` (on all data), ``low``, ``high``.
    """
    check_alpha(alpha)
    if n_resamples < 1 or not 0.0 < confidence < 1.0:
        raise ValueError("n_resamples must be positive and confidence in (0, 1)")
    data = partitioned(scores, by=by)
    frame, census_ = data
    values = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    parts = on_partitions(frame, _poisson_counts_part, census_, values, n_resamples, seed)
    totals = np.sum([t for t, _ in parts], axis=0)[:, :, None]  # (B, 2K, 1)
    above = np.sum([a for _, a in parts], axis=0)  # (B, 2K, T)
    fmr = above[:, 0::2] / totals[:, 0::2]
    fnmr = 1.0 - above[:, 1::2] / totals[:, 1::2]
    fdr = discrepancy(max_gap(fmr.swapaxes(0, 1)), max_gap(fnmr.swapaxes(0, 1)), alpha)  # (B, T)
    rates, _ = group_rates_at(data, values, by=by)
    exact = {"fmr": rates.fmr, "fnmr": rates.fnmr}
    tails = [(1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100]
    rows = []
    for metric, replicates in (("fmr", fmr), ("fnmr", fnmr)):
        low, high = np.percentile(replicates, tails, axis=0)
        for k, name in enumerate(census_.names):
            for j, t in enumerate(values):
                rows.append((name, t, metric, exact[metric][k, j], low[k, j], high[k, j]))
    fdr_exact = discrepancy(max_gap(rates.fmr), max_gap(rates.fnmr), alpha)
    low, high = np.percentile(fdr, tails, axis=0)
    rows += [("FDR", t, "fdr", fdr_exact[j], low[j], high[j]) for j, t in enumerate(values)]
    return pd.DataFrame(rows, columns=["group", "threshold", "metric", "value", "low", "high"])
