"""Exact per-group rates at thresholds over partitioned scores: FDR, GARBE, Inequity (pass 4)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._typing import By, ZeroRate
from biofair._validation import as_target, as_targets, as_threshold, as_thresholds, check_alpha
from biofair.discrepancy import _DEFAULT_FMR_TARGETS, _discrepancy_table, _max_gap, _warn_if_groups_differ
from biofair.dispersion import OutcomeFairness, _outcome_from_rates, _check_outcome_options
from biofair.exceptions import SchemaError
from biofair.groups import GroupRates, _rates_table
from biofair.partitions.census import (
    _SUBJECTS,
    Census,
    Partitioned,
    _as_frame,
    _cached,
    _context,
    _group_keys,
    _needed,
    _on_partitions,
    partitioned,
)
from biofair.partitions.thresholds import _pooled_thresholds_and_counts, _at_or_above_each


def _subjects_part(part: pd.DataFrame, index: int) -> NDArray:
    return pd.unique(part[list(_SUBJECTS)].to_numpy().ravel())


#: Two salts of the order-free fingerprint of a group's scores: 128 bits in all.
_SALTS = (np.uint64(0), np.uint64(0x9E3779B97F4A7C15))


def _fingerprint_part(part: pd.DataFrame, index: int, census: Census) -> NDArray[np.uint64]:
    """Per salt (rows) and (group, class) (columns, ``2k`` non-mated and ``2k + 1`` mated of
    group k): the sum, modulo 2**64, of a hash of every homogeneous score's float64 bits
    (-0.0 as +0.0, a float32 score as its float64 value: equal values, equal bits)."""
    values, group, mated = _group_keys(part, census)
    keep = group >= 0
    bits = (values[keep].astype(np.float64) + 0.0).view(np.uint64)
    key = group[keep] * 2 + mated[keep]
    sums = np.zeros((len(_SALTS), 2 * len(census.names)), dtype=np.uint64)
    for row, salt in enumerate(_SALTS):
        np.add.at(sums[row], key, pd.util.hash_array(bits ^ salt, categorize=False))  # wraps modulo 2**64
    return sums


def _same_scores(data: Partitioned, dev: Partitioned) -> bool:
    """Whether ``dev`` holds the same scores in the same groups as ``data``, whatever the
    order of the rows and the partitions, as :func:`biofair.discrepancy._same_scores` in
    memory: the censuses (groups, counts per class, range) must agree, and then a 128-bit
    fingerprint of each group's scores of each class, one pass over each set (two sets that
    differ agree on it with a probability of about 2**-128)."""
    ours, theirs = data.census, dev.census
    if sorted(ours.names) != sorted(theirs.names) or (ours.low, ours.high) != (theirs.low, theirs.high):
        return False
    order = pd.Index(theirs.names).get_indexer(ours.names)  # dev's position of each of our groups
    if not (np.array_equal(ours.n_mated, theirs.n_mated[order])
            and np.array_equal(ours.n_nonmated, theirs.n_nonmated[order])):
        return False
    sums = [_cached(d.frame, ("fingerprint", repr(d.census.columns)), lambda d=d: _on_partitions(
        d.frame, _fingerprint_part, d.census, columns=_needed(d.census), total=True)) for d in (data, dev)]
    columns = np.stack([2 * order, 2 * order + 1], axis=1).ravel()
    return bool(np.array_equal(sums[0], sums[1][:, columns]))


def _optimistic(data: Partitioned, dev: Partitioned | None) -> bool:
    """Whether thresholds set on ``dev`` are optimistic for ``data``, as in memory: no ``dev``,
    the same data (the same frame, or one read alike, or other rows or files holding the same
    scores in the same groups: :func:`_same_scores`), or a subject in both, by the subject
    columns when both have them (one pass over those two columns of each)."""
    if dev is None or dev.frame is data.frame or dev.frame._name == data.frame._name or _same_scores(data, dev):
        return True
    if not all(set(_SUBJECTS) <= set(d.frame.columns) for d in (data, dev)):
        return False
    ids = [pd.unique(np.concatenate(_on_partitions(d.frame, _subjects_part, columns=list(_SUBJECTS))))
           for d in (data, dev)]
    return bool(pd.Series(ids[1]).dropna().isin(ids[0]).any())  # a missing id is no subject to share

def _counts_at_part(part: pd.DataFrame, index: int, census: Census, thresholds: NDArray) -> NDArray:
    values, group, mated = _group_keys(part, census)
    n_keys = 2 * (len(census.names) + 1)
    # 0, 1: cross-group; 2k + 2, 2k + 3: group k; in 16 bits where the counting key fits
    key = group.astype(np.int16 if n_keys * (thresholds.size + 1) < 2**15 else np.intp)
    key += 1
    key *= 2
    key += mated
    return _at_or_above_each(values, key, n_keys, thresholds)


def _counts_at(frame, census: Census, thresholds: NDArray) -> NDArray[np.int64]:
    """Scores at or above each threshold per (group + 1, class) (row 0, 1: cross-group pairs):
    counted once per frame and threshold. A counting pass also counts, on speculation, at
    every pooled threshold found on this frame, so that FDR after these rates reads nothing."""
    cache = _context(frame).cache
    counted = cache.setdefault(("counts at", repr(census.columns)), {})
    keys = thresholds.tolist()
    missing = [t for t in dict.fromkeys(keys) if t not in counted]
    if missing:
        found = [key for key in cache if key[:2] == ("thresholds", repr(census.columns))]
        todo = list(dict.fromkeys(missing + [t for key in found for t in cache[key][0].tolist() if t not in counted]))
        counts = _on_partitions(frame, _counts_at_part, census, np.array(todo, dtype=np.float64),
                                columns=_needed(census), total=True)
        counted.update(zip(todo, counts.T))
    return np.stack([counted[t] for t in keys], axis=1)


def group_rates_at(
    scores: Any, thresholds: ArrayLike, *, by: By = "group"
) -> tuple[GroupRates, NDArray[np.float64] | None]:
    """Exact FMR and FNMR of every group at every threshold, and the cross-group FMR.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set (a :class:`biofair.partitions.Partitioned` skips the census).
    thresholds : array_like
        Decision thresholds; a comparison matches iff ``score >= t``.
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    (GroupRates, ndarray or None)
        Rates and counts of every group (rows) at every threshold (columns), one pass over
        the data (none for thresholds counted before on the same data, such as those of
        :func:`biofair.partitions.pooled_thresholds`, counted on speculation); and the FMR
        of the non-mated pairs whose sides differ in group at each threshold, ``None`` when
        there are no such pairs.

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
        When ``thresholds`` is empty, has more than one dimension or holds a NaN or a value
        float64 does not hold exactly, ``by`` is empty, names a column twice or names "score" or
        "mated", or ``scores`` is a ``Partitioned`` made for another ``by``.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``,
        ``by`` is not a column name or a list of column names, or a threshold is not a number.

    See Also
    --------
    biofair.partitions.rates_by_group : The same rates as a tidy table.
    biofair.GroupRates : The first result.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, IEEE T-BIOM, 2022 (per-group rates on homogeneous
    pairs; cross-group pairs reported apart).

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=1_000, n_nonmated=10_000, rng=0)
    >>> data = dd.from_pandas(table, npartitions=4)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     rates, cross = bp.group_rates_at(data, [2.0, 3.0])
    >>> rates.fmr.shape, cross is None
    ((3, 2), True)
    """
    values = as_thresholds(thresholds, flat=True)
    frame, census_ = partitioned(scores, by=by)
    at_or_above = _counts_at(frame, census_, values)
    false_matches, true_matches = at_or_above[2::2], at_or_above[3::2]
    n_mated, n_nonmated = census_.n_mated[:, None], census_.n_nonmated[:, None]
    false_non_matches = n_mated - true_matches
    rates = GroupRates(false_matches / n_nonmated, false_non_matches / n_mated, false_matches,
                       false_non_matches, n_mated, n_nonmated)
    return rates, (at_or_above[0] / census_.n_cross if census_.n_cross else None)


def rates_by_group(scores: Any, thresholds: ArrayLike, *, by: By = "group") -> pd.DataFrame:
    """FMR and FNMR of every group at every threshold of a partitioned score set, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set.
    thresholds : float or array_like
        Decision thresholds (match iff ``score >= threshold``).
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    pandas.DataFrame
        The table of :func:`biofair.rates_by_group`, equal to it value for value.

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
        When ``thresholds`` is empty, has more than one dimension or holds a NaN or a value
        float64 does not hold exactly, ``by`` is empty, names a column twice or names "score" or
        "mated", or ``scores`` is a ``Partitioned`` made for another ``by``.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``,
        ``by`` is not a column name or a list of column names, or a threshold is not a number.

    See Also
    --------
    biofair.rates_by_group : The same table in memory.
    biofair.partitions.group_rates_at : The same numbers as arrays, with the cross-group FMR.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, IEEE T-BIOM, 2022, eq. 4-5.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=1_000, n_nonmated=10_000, rng=0)
    >>> data = dd.from_pandas(table, npartitions=4)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.rates_by_group(data, [3.0])
    >>> found.equals(bf.rates_by_group(table, [3.0]))
    True
    """
    values = as_thresholds(thresholds, flat=True)
    data = partitioned(scores, by=by)
    rates, _ = group_rates_at(data, values, by=by)
    return _rates_table(data.census.names, values, rates)


def fairness_discrepancy_rate(
    scores: Any,
    *,
    fmr_targets: Sequence[float] = _DEFAULT_FMR_TARGETS,
    alpha: float = 0.5,
    by: By = "group",
    dev: Any | None = None,
) -> pd.DataFrame:
    """FDR of a partitioned score set at thresholds set for target FMRs, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The evaluation set.
    fmr_targets : sequence of float, default (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)
        Targets ``FMR = 10^x``; each gives one threshold.
    alpha : float, default 0.5
        Weight of the FMR differential.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    dev : dask.dataframe.DataFrame, str or Partitioned, optional
        Development set the thresholds are set on; without it, ``scores``. Optimistic (the
        ``optimistic`` column) without it, and when it is ``scores`` (or the same files),
        holds the same scores in the same groups (other files or rows, in any order: when
        the censuses agree, one more pass over each set compares a 128-bit fingerprint of
        every group's scores) or shares a subject with it (by the subject columns, when both
        have them: one more pass over those two columns).

    Returns
    -------
    pandas.DataFrame
        The table of :func:`biofair.fairness_discrepancy_rate` (with ``k``, ``resolved`` and
        ``precise``), equal to it value for value.

    Raises
    ------
    SchemaError
        When ``scores`` or ``dev`` fail the checks of :func:`biofair.partitions.census` (a
        missing group column, invalid scores or labels in a partition, several systems or
        splits, group labels that cannot be named one way, fewer than two groups, or a group
        without mated or homogeneous non-mated comparisons), a Parquet file cannot be read, or
        a local Parquet file has changed or is gone since it was first read. An error in
        ``dev`` begins by saying so.
    FileNotFoundError
        When ``scores`` or ``dev`` is a Parquet path or glob that matches no file.
    ValueError
        When ``alpha`` lies outside [0, 1], ``fmr_targets`` is empty or holds a target outside
        [0, 1] (NaN included), ``by`` is empty, names a column twice or names "score" or
        "mated", or ``scores`` or ``dev`` is a ``Partitioned`` made for another ``by``.
    TypeError
        When ``scores`` or ``dev`` is neither a Dask DataFrame, a Parquet path nor a
        ``Partitioned``, ``by`` is not a column name or a list of column names, ``alpha`` is
        not a number, or ``fmr_targets`` is not a sequence of numbers (one number is refused).

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below 3/N of the pooled development non-mated scores (rule of three).
    UserWarning
        When ``dev`` has no comparisons of an evaluation group, or holds a group that the
        evaluation scores lack (its non-mated scores set the thresholds too). Labels are compared as
        text, as groups are named: dev's ``1.0`` is not the group ``'1'`` (the warning says
        that the two write one number).

    See Also
    --------
    biofair.fairness_discrepancy_rate : The same table in memory.
    biofair.partitions.poisson_bootstrap : Intervals at fixed thresholds.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, eq. 4-6.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=1_000, n_nonmated=10_000, rng=0)
    >>> data = dd.from_pandas(table, npartitions=4)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.fairness_discrepancy_rate(data, fmr_targets=[1e-2, 1e-3])
    >>> found.equals(bf.fairness_discrepancy_rate(table, fmr_targets=[1e-2, 1e-3]))
    True
    """
    alpha = check_alpha(alpha)
    targets = as_targets(fmr_targets, "fmr_targets")
    if dev is not None and not isinstance(dev, Partitioned):
        dev = _as_development(_as_frame, dev)  # a mistyped path refused before a pass over the evaluation data
    data = partitioned(scores, by=by)
    dev_data = data if dev is None else _as_development(partitioned, dev, by=by)
    _warn_if_groups_differ(data.census.names, dev_data.census.names)
    thresholds, at_or_above, n_dev = _pooled_thresholds_and_counts(dev_data, targets, by)
    rates, _ = group_rates_at(data, thresholds, by=by)
    return _discrepancy_table(
        targets, thresholds, (_max_gap(rates.fmr), _max_gap(rates.fnmr)), alpha=alpha,
        n_dev=n_dev, at_or_above=at_or_above, optimistic=_optimistic(data, None if dev is None else dev_data),
    )


def _as_development(read: Callable[..., Any], dev: Any, **options: Any) -> Any:
    """``read(dev, **options)``, its errors saying that they are about ``dev`` (its partition
    0 is not the evaluation set's), as in memory."""
    try:
        return read(dev, **options)
    except (SchemaError, FileNotFoundError, TypeError) as error:
        raise type(error)(f"dev, the development scores the thresholds are set on: {error}") from error


def outcome_fairness(
    scores: Any,
    *,
    threshold: float | None = None,
    fmr: float | None = None,
    by: By = "group",
    alpha: float = 0.5,
    correction: bool = True,
    zero: ZeroRate = "upper_bound",
    confidence: float = 0.95,
) -> OutcomeFairness:
    """GARBE and Inequity of a partitioned score set at one threshold, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set.
    threshold : float, optional
        The decision threshold ...
    fmr : float, optional
        ... or a target FMR on the pooled homogeneous non-mated scores. Give exactly one.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    alpha : float, default 0.5
        Weight of GARBE_FMR in the combined GARBE.
    correction : bool, default True
        The K/(K-1) correction of :func:`biofair.garbe`.
    zero : {"upper_bound", "raise"}, default "upper_bound"
        What a zero rate does to Inequity (see :func:`biofair.inequity`).
    confidence : float, default 0.95
        Coverage of each group's Clopper-Pearson interval, in (0, 1).

    Returns
    -------
    OutcomeFairness
        The result of :func:`biofair.outcome_fairness`, equal to it.

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
        When both or neither of ``threshold`` and ``fmr`` are given, ``threshold`` is NaN or not
        a float64 number (an integer beyond ``2**53``, a fraction with more digits), ``fmr`` or
        ``alpha`` lies outside [0, 1], ``confidence`` outside (0, 1), ``zero`` is neither
        "upper_bound" nor "raise", a rate is zero with ``zero="raise"``, ``by`` is empty, names a
        column twice or names "score" or "mated", or ``scores`` is a ``Partitioned`` made for
        another ``by``.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``,
        ``by`` is not a column name or a list of column names, ``threshold``, ``alpha`` or
        ``confidence`` is not a number, ``correction`` is not True or False, or ``fmr`` is not
        one rate (a sequence is refused).

    Warns
    -----
    InsufficientComparisonsWarning
        When ``fmr`` is below 3/N of the pooled homogeneous non-mated scores.
    UndefinedRateWarning
        When a zero rate was replaced for Inequity.

    See Also
    --------
    biofair.outcome_fairness : The same indices in memory.

    References
    ----------
    P. Grother, NISTIR 8429 (draft), 2022 (Inequity). J. J. Howard et al., ICPR 2022
    workshops (GARBE).

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=5_000, n_nonmated=200_000, rng=0)
    >>> data = dd.from_pandas(table, npartitions=4)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.outcome_fairness(data, threshold=3.5)
    >>> found[:6] == bf.outcome_fairness(table, threshold=3.5)[:6]
    True
    """
    if (threshold is None) == (fmr is None):
        raise ValueError("give exactly one of threshold= and fmr=")
    if threshold is not None:
        as_threshold(threshold)  # named in the singular, as in memory
    alpha, confidence = _check_outcome_options(alpha, correction, zero, confidence)
    data = partitioned(scores, by=by)
    if fmr is not None:
        target = as_target(fmr)
        fmr = float(target[0])
        threshold = float(_pooled_thresholds_and_counts(data, target, by)[0][0])
    rates, _ = group_rates_at(data, [threshold], by=by)
    return _outcome_from_rates(data.census.names, float(threshold), rates, fmr_target=fmr, alpha=alpha,
                               correction=correction, zero=zero, confidence=confidence)
