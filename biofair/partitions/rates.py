"""Exact per-group rates at thresholds over partitioned scores: FDR, GARBE, Inequity (pass 4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._validation import as_rates
from biofair.discrepancy import DEFAULT_FMR_TARGETS, check_alpha, discrepancy_table, max_gap
from biofair.dispersion import OutcomeFairness, outcome_from_rates
from biofair.groups import GroupRates, rates_table
from biofair.partitions.census import Census, group_keys, on_partitions, partitioned
from biofair.partitions.thresholds import pooled_thresholds


def _counts_at_part(part: pd.DataFrame, index: int, census: Census, thresholds: NDArray) -> NDArray:
    values, group, mated = group_keys(part, census)
    key = (group + 1) * 2 + mated  # 0, 1: cross-group; 2k + 2, 2k + 3: group k
    size = 2 * (len(census.names) + 1)
    return np.stack([np.bincount(key[values >= t], minlength=size) for t in thresholds], axis=1)


def group_rates_at(
    scores: Any, thresholds: ArrayLike, *, by: str = "group"
) -> tuple[GroupRates, NDArray[np.float64] | None]:
    """Exact FMR and FNMR of every group at every threshold, and the cross-group FMR.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set (a :class:`Partitioned` skips the census).
    thresholds : array_like
        Decision thresholds; a comparison matches iff ``score >= t``.
    by : str, default "group"
        The grouping attribute.

    Returns
    -------
    (GroupRates, ndarray or None)
        Rates and counts of every group (rows) at every threshold (columns), one pass over
        the data; and the FMR of the non-mated pairs whose sides differ in group at each
        threshold, ``None`` when there are no such pairs.
    """
    frame, census_ = partitioned(scores, by=by)
    values = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    at_or_above = np.sum(on_partitions(frame, _counts_at_part, census_, values), axis=0)
    false_matches, true_matches = at_or_above[2::2], at_or_above[3::2]
    n_mated, n_nonmated = census_.n_mated[:, None], census_.n_nonmated[:, None]
    false_non_matches = n_mated - true_matches
    rates = GroupRates(false_matches / n_nonmated, false_non_matches / n_mated, false_matches,
                       false_non_matches, n_mated, n_nonmated)
    return rates, (at_or_above[0] / census_.n_cross if census_.n_cross else None)


def rates_by_group(scores: Any, thresholds: ArrayLike, *, by: str = "group") -> pd.DataFrame:
    """:func:`biofair.rates_by_group` of a partitioned score set: the same table, exactly."""
    values = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    data = partitioned(scores, by=by)
    rates, _ = group_rates_at(data, values, by=by)
    return rates_table(data.census.names, values, rates)


def fairness_discrepancy_rate(
    scores: Any,
    *,
    fmr_targets: Sequence[float] = DEFAULT_FMR_TARGETS,
    alpha: float = 0.5,
    by: str = "group",
    dev: Any | None = None,
) -> pd.DataFrame:
    """:func:`biofair.fairness_discrepancy_rate` of a partitioned score set, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores, dev : dask.dataframe.DataFrame or str
        Evaluation and (optional) development sets; thresholds are set on ``dev`` when given.
    fmr_targets, alpha, by
        As for the in-memory function.
    """
    check_alpha(alpha)
    targets = as_rates(list(fmr_targets), "fmr_targets")
    data = partitioned(scores, by=by)
    dev_data = data if dev is None else partitioned(dev, by=by)
    thresholds = pooled_thresholds(dev_data, targets, by=by)
    rates, _ = group_rates_at(data, thresholds, by=by)
    return discrepancy_table(
        targets, thresholds, (max_gap(rates.fmr), max_gap(rates.fnmr)), alpha=alpha,
        n_dev=int(dev_data.census.n_nonmated.sum()), optimistic=dev is None,
    )


def outcome_fairness(
    scores: Any,
    *,
    threshold: float | None = None,
    fmr: float | None = None,
    by: str = "group",
    alpha: float = 0.5,
    correction: bool = True,
    zero: str = "upper_bound",
) -> OutcomeFairness:
    """:func:`biofair.outcome_fairness` (GARBE, Inequity) of a partitioned score set, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".
    """
    if (threshold is None) == (fmr is None):
        raise ValueError("give exactly one of threshold= and fmr=")
    check_alpha(alpha)
    data = partitioned(scores, by=by)
    if fmr is not None:
        threshold = float(pooled_thresholds(data, [fmr], by=by)[0])
    rates, _ = group_rates_at(data, [threshold], by=by)
    return outcome_from_rates(data.census.names, float(threshold), rates, alpha=alpha, correction=correction,
                              zero=zero)
