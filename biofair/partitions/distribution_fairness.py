"""DFI, CEI and CEIᴬ of partitioned scores, from merged histograms: exactly the in-memory values.

DFI needs one histogram pass on the census's range. CEI also needs each group's own
split percentile: the two order statistics ``np.percentile`` interpolates between (and
each group's smallest and largest score) come from the locating and refinement passes of
the order-statistics module of :mod:`biofair.partitions`; a last pass counts every group's tail and
centre on their edges. CEIᴬ first merges each group's mean and variance (Chan et al.'s
pairwise update) and counts the scores beyond ``mu ± N·sigma``.
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._typing import By, Combine, MeanTail, ScoreKind
from biofair._validation import as_number, check_bins, check_choice, power_of_two_exponents
from biofair.decidability import _deviation_exponents
from biofair.distribution_fairness import (
    EquityIndex,
    _automatic_parameters,
    _cei_from_counts,
    _cei_parameters,
    _dfi_from_counts,
    _empty_centre,
    _index_from_divergences,
    _part_edges,
    _percentile_rank,
    _range_edges,
    _tail_limit,
)
from biofair.partitions._order_statistics import Windows, bins_of, order_statistics
from biofair.partitions.census import Census, Partitioned, _group_keys, _needed, _on_partitions, partitioned


def _group_histograms_part(part: pd.DataFrame, index: int, census: Census, edges: NDArray) -> NDArray:
    """Counts per (group, class, bin) of the homogeneous comparisons of a partition."""
    values, group, mated = _group_keys(part, census)
    keep = group >= 0
    n_bins = edges.size - 1
    key = (group[keep] * 2 + mated[keep]) * n_bins + bins_of(values[keep], edges)
    return np.bincount(key, minlength=len(census.names) * 2 * n_bins).reshape(-1, 2, n_bins)


def distribution_fairness_index(scores: Any, *, by: By = "group", bins: int = 100,
                                combine: Combine = "pooled") -> EquityIndex:
    """Distribution Fairness Index (DFI) of a partitioned score set, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    bins : int, default 100
        Equal-width bins over the pooled range of all homogeneous scores.
    combine : {"pooled", "equal"}, default "pooled"
        As for :func:`biofair.distribution_fairness_index`.

    Returns
    -------
    EquityIndex
        The result of :func:`biofair.distribution_fairness_index`, equal to it.

    Raises
    ------
    SchemaError
        When the data fail the checks of :func:`biofair.partitions.census` (a missing group
        column, invalid scores or labels in a partition, several systems or splits, group
        labels that cannot be named one way, fewer than two groups, or a group without mated or
        homogeneous non-mated comparisons), a Parquet file cannot be read, or a local Parquet
        file has changed or is gone since it was first read; or when the scores span a range
        too narrow for ``bins`` equal-width float64 bins (e.g. 0.5 and the next float above
        it).
    FileNotFoundError
        When ``scores`` is a Parquet path or glob that matches no file.
    ValueError
        When ``combine`` is not "pooled" or "equal", ``bins`` is below 1 or above 1,000,000,
        ``by`` is empty, names a column twice or names "score" or "mated", or ``scores`` is a
        ``Partitioned`` made for another ``by``.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``,
        ``by`` is not a column name or a list of column names, or ``bins`` is not an integer.

    See Also
    --------
    biofair.distribution_fairness_index : The same index in memory.

    Notes
    -----
    The in-memory function's bins come from the census; one histogram pass per group and
    class follows.

    References
    ----------
    K. Kotwal and S. Marcel's DFI, as restated in "Balancing Tails when Comparing
    Distributions: Comprehensive Equity Index (CEI)", eq. 5-7.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.beta_scenario("BG", n_groups=2, n_mated=1_000, n_nonmated=1_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.distribution_fairness_index(dd.from_pandas(table, npartitions=3))
    >>> found.extreme == bf.distribution_fairness_index(table).extreme
    True
    """
    check_choice(combine, "combine", ("pooled", "equal"))
    bins = check_bins(bins)
    frame, census_ = partitioned(scores, by=by)
    edges = _range_edges(census_.low, census_.high, bins)
    counts = _on_partitions(frame, _group_histograms_part, census_, edges, columns=_needed(census_), total=True)
    return _dfi_from_counts(census_.names, counts[:, 1], counts[:, 0], combine=combine)


# -- CEI: per-group percentiles, then tail and centre histograms ---------------------------------


def _one_class(part: pd.DataFrame, census: Census, kind: str) -> tuple[NDArray, NDArray[np.intp]]:
    """Stream k: the homogeneous comparisons of group k in class ``kind``."""
    values, group, mated = _group_keys(part, census)
    return values, np.where((group >= 0) & (mated == (kind == "mated")), group, -1)


class _Split(NamedTuple):
    tail_ranges: NDArray  # (groups, 2): low and high of each group's tail
    centre_ranges: NDArray
    splits: NDArray  # the first tail score (non-mated) or the last one (mated)


def _split_points(windows: Windows, names: list[str], kind: str, percentiles: NDArray, tail_sizes: NDArray) -> _Split:
    """Each group's split, and the ranges of its tail and centre, as in memory (``tail_sizes``:
    see :func:`_split_rank`)."""
    tails, centres, splits = [], [], []
    for k, (name, percentile, tail_size) in enumerate(zip(names, percentiles, tail_sizes)):
        size = int(windows.sizes[k])
        q = percentile if kind == "nonmated" else 100.0 - percentile
        rank = _split_rank(size, kind, percentile, tail_size)
        at = (windows.kth(k, rank) if tail_size  # the tail's innermost score
              else _tail_limit(windows.kth(k, rank), windows.kth(k, min(rank + 1, size - 1)), size, q, kind))
        low, high = windows.kth(k, 0), windows.kth(k, size - 1)
        if kind == "nonmated":  # tail: scores >= at
            split = windows.above(k, at, inclusive=True)
            edge = windows.below(k, split)
            tail, centre = (split, high), (low, edge)
        else:  # tail: scores <= at
            split = windows.below(k, at, inclusive=True)
            edge = windows.above(k, split)
            tail, centre = (low, split), (edge, high)
        if edge is None:  # the split is the lowest (non-mated) or highest (mated) score: name its ties
            raise _empty_centre(name, size, kind, percentile, tied=windows.count(k, split), value=split)
        tails.append(tail)
        centres.append(centre)
        splits.append(split)
    return _Split(np.array(tails), np.array(centres), np.array(splits))


def _split_rank(size: int, kind: str, percentile: float, tail_size: int) -> int:
    """The rank of the group's score its split reads: with ``tail_size`` ``j > 0`` (CEIᴬ's count
    beyond ``mu ± N·sigma``), its tail's innermost score, as the in-memory split counts the tail;
    else the lower of the two its percentile lies between."""
    if tail_size:
        return size - int(tail_size) if kind == "nonmated" else int(tail_size) - 1
    return _percentile_rank(size, percentile if kind == "nonmated" else 100.0 - percentile)


def _percentile_ranks(sizes: NDArray, kind: str, percentiles: NDArray, tail_sizes: NDArray) -> list[NDArray]:
    """Per group: smallest, largest and the two scores its split lies between."""
    ranks = []
    for size, percentile, tail_size in zip(sizes, percentiles, tail_sizes):
        size = int(size)
        rank = _split_rank(size, kind, percentile, tail_size)
        ranks.append(np.array([0, size - 1, rank, min(rank + 1, size - 1)]))
    return ranks


def _tail_centre_part(part: pd.DataFrame, index: int, census: Census, kind: str, splits: NDArray,
                      tail_edges: NDArray, centre_edges: NDArray) -> NDArray[np.int64]:
    """Counts per (group, tail or centre, bin) of one class of a partition."""
    values, group = _one_class(part, census, kind)
    keep = group >= 0
    values, group = values[keep], group[keep]
    in_tail = values >= splits[group] if kind == "nonmated" else values <= splits[group]
    bins = np.empty(values.size, dtype=np.intp)
    bins[in_tail] = bins_of(values[in_tail], tail_edges)
    bins[~in_tail] = bins_of(values[~in_tail], centre_edges)
    n_bins = tail_edges.size - 1
    key = (group * 2 + in_tail) * n_bins + bins
    return np.bincount(key, minlength=len(census.names) * 2 * n_bins).reshape(-1, 2, n_bins)


#: Groups whose splits one locating and refinement pass find together: each needs a dense
#: int64 row of 2**18 locating bins in every partition's task, in their sums and on the
#: client (about 8 MB a group measured; 1,000 groups at once took 8.3 GB), so more groups are
#: located in batches of this many (256 MB each), two passes a batch.
_GROUPS_PER_PASS = 32


def _one_class_of(part: pd.DataFrame, census: Census, kind: str, first: int, count: int
                  ) -> tuple[NDArray, NDArray[np.intp]]:
    """Stream k: the homogeneous comparisons of group ``first + k`` in class ``kind``, for the
    ``count`` groups from ``first`` on."""
    values, group = _one_class(part, census, kind)
    return values, np.where((group >= first) & (group < first + count), group - first, -1)


def _cei_divergences(data: Partitioned, kind: str, percentiles: NDArray, tail_weight: float, bins: int,
                     mean_tail: str, smoothing: float, *, tail_sizes: NDArray | None = None) -> NDArray[np.float64]:
    """Locate and refine each group's split (two passes per ``_GROUPS_PER_PASS`` groups), then
    count tails and centres (one pass). ``tail_sizes``: CEIᴬ's counts beyond ``mu ± N·sigma``
    (see :func:`_split_rank`)."""
    frame, census_ = data
    if tail_sizes is None:
        tail_sizes = np.zeros(len(census_.names), dtype=np.int64)
    parts = []
    for first in range(0, len(census_.names), _GROUPS_PER_PASS):
        chosen = slice(first, first + _GROUPS_PER_PASS)
        names, wanted, counted = census_.names[chosen], percentiles[chosen], tail_sizes[chosen]
        every = len(names) == len(census_.names)  # every group at once: no remapping, the histogram kept
        select, args = (_one_class, (census_, kind)) if every else (_one_class_of, (census_, kind, first, len(names)))
        ranks = partial(_percentile_ranks, kind=kind, percentiles=wanted, tail_sizes=counted)
        windows = order_statistics(frame, select, args, len(names), ranks, keep=every)
        parts.append(_split_points(windows, names, kind, wanted, counted))
    split = _Split(*(np.concatenate(arrays) for arrays in zip(*parts)))
    tail_edges, centre_edges = _part_edges(split.tail_ranges, split.centre_ranges, bins, mean_tail)
    counts = _on_partitions(frame, _tail_centre_part, census_, kind, split.splits, tail_edges, centre_edges,
                            columns=_needed(census_), total=True)
    return _cei_from_counts(counts[:, 1], counts[:, 0], kind=kind, percentile=float(np.mean(percentiles)),
                           tail_weight=tail_weight, mean_tail=mean_tail, smoothing=smoothing)


def comprehensive_equity_index(
    scores: Any,
    *,
    kind: ScoreKind = "mated",
    percentile: float = 95.0,
    tail_weight: float = 0.8,
    bins: int = 100,
    by: By = "group",
    mean_tail: MeanTail = "groups",
    smoothing: float = 1e-6,
) -> EquityIndex:
    """Comprehensive Equity Index (CEI) of one class of a partitioned score set, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set.
    kind : {"mated", "nonmated"}, default "mated"
        The class compared across groups.
    percentile : float, default 95
        ``P_split`` in (0, 100).
    tail_weight : float, default 0.8
        ``w_t`` in [0, 1].
    bins : int, default 100
        Bins of the tail and centre histograms.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    mean_tail : {"groups", "split_mean"}, default "groups"
        How the mean's parts are formed.
    smoothing : float, default 1e-6
        Mass added to every bin, ``"split_mean"`` only.

    Returns
    -------
    EquityIndex
        The result of :func:`biofair.comprehensive_equity_index` (every option as there),
        equal to it.

    Raises
    ------
    SchemaError
        When the data fail the checks of :func:`biofair.partitions.census` (a missing group
        column, invalid scores or labels in a partition, several systems or splits, group
        labels that cannot be named one way, fewer than two groups, or a group without mated or
        homogeneous non-mated comparisons), a Parquet file cannot be read, or a local Parquet
        file has changed or is gone since it was first read; or when every score of a group's
        class falls in its tail (an empty centre: too few or tied scores), the tails' or the
        centres' scores span a range too narrow for ``bins`` equal-width float64 bins, or, with
        ``mean_tail="split_mean"``, the mean distribution has an empty tail or centre.
    FileNotFoundError
        When ``scores`` is a Parquet path or glob that matches no file.
    ValueError
        When ``kind`` is not "mated" or "nonmated", ``percentile`` lies outside (0, 100),
        ``tail_weight`` outside [0, 1], ``smoothing`` is not positive (NaN included),
        ``bins`` is below 1 or above 1,000,000, ``mean_tail`` is not "groups" or
        "split_mean", ``by`` is empty, names a column twice or names "score" or "mated", or
        ``scores`` is a ``Partitioned`` made for another ``by``.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``,
        ``by`` is not a column name or a list of column names, ``percentile`` or
        ``tail_weight`` is not a number, or ``bins`` is not an integer.

    See Also
    --------
    biofair.comprehensive_equity_index : The same index in memory.

    Notes
    -----
    Each group's split is its own ``np.percentile`` (linear interpolation between two order
    statistics, found exactly by a locating and a refinement pass); a third pass counts
    every group's tail and centre on the same edges as in memory.

    References
    ----------
    "Balancing Tails when Comparing Distributions: Comprehensive Equity Index (CEI) with
    Application to Bias Evaluation in Operational Face Biometrics", eq. 8-10.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.beta_scenario("BG", n_groups=2, n_mated=1_000, n_nonmated=1_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.comprehensive_equity_index(dd.from_pandas(table, npartitions=3), bins=20)
    >>> found.extreme == bf.comprehensive_equity_index(table, bins=20).extreme
    True
    """
    parameters = _cei_parameters(kind=kind, percentile=percentile, tail_weight=tail_weight, bins=bins,
                                mean_tail=mean_tail, smoothing=smoothing)
    data = partitioned(scores, by=by)
    percentiles = np.full(len(data.census.names), parameters["percentile"])
    divergences = _cei_divergences(  # the checked floats, as in memory
        data, kind, percentiles, parameters["tail_weight"], parameters["bins"], mean_tail,
        parameters.get("smoothing", 0.0),  # read with mean_tail="split_mean" only
    )
    return _index_from_divergences(divergences, data.census.names, parameters)


def _moments_part(part: pd.DataFrame, index: int, census: Census, kind: str) -> NDArray[np.float64]:
    """Per group: count, a reference score ``r``, the mean of ``v - r``, the sum of squared
    deviations from that mean, the power of two ``e`` the scores are in units of, the largest
    magnitude, the smallest and largest score (in units of ``2^e``; inf and -inf without one)
    and the power of two ``k`` the deviations are in units of (9 x groups).

    ``r`` is one of the group's scores, so a constant group has deviations of exactly 0 (its
    mean, summed directly, can round an ulp off its score, and the ulp became a spread).
    Scores are divided by ``2^e`` (exact) where the partition's largest of the group lies
    outside ``[2^-500, 2^500]``, as in memory: squares of 1e-200 vanished and those of 1e160
    overflowed. Deviations are divided by ``2^k`` before they are squared where the
    partition's scores of the group span less than ``2^-500`` (in units of ``2^e``), as in
    memory: squares of scores of 1e-150 a few ulps apart vanished.
    """
    values, group = _one_class(part, census, kind)
    keep = group >= 0
    values, group = values[keep], group[keep]
    size = len(census.names)
    largest = np.zeros(size)
    np.maximum.at(largest, group, np.abs(values))
    exponent = power_of_two_exponents(largest)  # the in-memory index's rule, per group
    if exponent.any():
        values = np.ldexp(values, -exponent[group])
    low, high = np.full(size, np.inf), np.full(size, -np.inf)
    np.minimum.at(low, group, values)
    np.maximum.at(high, group, values)
    scale = _deviation_exponents(low, high)
    reference = np.zeros(size)
    reference[group] = values  # one of each group's scores (whichever is written last)
    shifted = values - reference[group]
    n = np.bincount(group, minlength=size).astype(np.float64)
    offset = np.bincount(group, shifted, minlength=size) / np.maximum(n, 1)
    deviation = np.ldexp(shifted - offset[group], -scale[group])
    return np.stack([n, reference, offset, np.bincount(group, deviation * deviation, minlength=size), exponent,
                     largest, low, high, scale])


def _merged_moments(parts: list[NDArray]) -> tuple[NDArray, NDArray, NDArray, NDArray, NDArray]:
    """Per group: a reference score ``r`` (the first partition's with any of the group), the
    mean of ``v - r``, both in units of ``2^e``, the (population) standard deviation in units
    of ``2^(e + k)``, ``e``: that of the group's largest magnitude over all partitions, as in
    memory (not the largest of the partitions' own ``e``, which is 0 both for scores near 1 and
    for a partition whose scores of the group are all 0: beside scores of 1e-300 elsewhere,
    those were brought to units of 1 and their spread vanished), and ``k``: that of the group's
    spread over all partitions where it lies below 2^-500 (in units of ``2^e``), as in memory.
    Each partition's moments are brought to those units (exactly, but for parts of a partition
    that fall below the smallest float beside the others; a partition of zeros has moments of 0
    in any units). Merged by Chan et al.'s pairwise update. Scores a few ulps apart keep their
    spread and a constant group has none, as in memory."""
    exponent = power_of_two_exponents(np.max([part[5] for part in parts], axis=0))
    shifts = [part[4].astype(np.int64) - exponent for part in parts]  # <= 0 where the partition has a score
    # the group's smallest and largest score (a partition without it holds inf and -inf)
    low = np.min([np.ldexp(part[6], shift) for part, shift in zip(parts, shifts)], axis=0)
    high = np.max([np.ldexp(part[7], shift) for part, shift in zip(parts, shifts)], axis=0)
    scale = _deviation_exponents(low, high)
    n = np.zeros_like(parts[0][0])
    reference, offset, squares = np.zeros_like(n), np.zeros_like(n), np.zeros_like(n)
    for (n_b, reference_b, offset_b, squares_b, _, _, _, _, scale_b), shift in zip(parts, shifts):
        reference_b, offset_b = np.ldexp(reference_b, shift), np.ldexp(offset_b, shift)
        squares_b = np.ldexp(squares_b, 2 * (shift + scale_b.astype(np.int64) - scale))
        reference = np.where(n > 0, reference, reference_b)
        total = n + n_b
        # b's mean less the running one (0 where b has none of the group: no inf · 0 below)
        delta = np.where(n_b > 0, (reference_b - reference) + offset_b - offset, 0.0)
        share = np.divide(n_b, total, out=np.zeros_like(total), where=total > 0)
        offset = offset + delta * share
        scaled = np.ldexp(delta, -scale)
        squares = squares + squares_b + scaled * scaled * n * share
        n = total
    return reference, offset, np.sqrt(squares / n), exponent, scale


def _beyond_part(part: pd.DataFrame, index: int, census: Census, kind: str, reference: NDArray,
                 offset: NDArray, std: NDArray, exponent: NDArray, scale: NDArray, n_std: float) -> NDArray[np.int64]:
    """Per group: scores more than ``n_std`` standard deviations beyond the mean
    (``reference + offset``, in units of ``2^exponent``; the deviation in units of
    ``2^(exponent + scale)``, as ``std``), towards the class's error tail."""
    values, group = _one_class(part, census, kind)
    keep = group >= 0
    values, group = values[keep], group[keep]
    if exponent.any():
        values = np.ldexp(values, -exponent[group])
    sign = 1.0 if kind == "nonmated" else -1.0
    beyond = sign * np.ldexp((values - reference[group]) - offset[group], -scale[group]) > n_std * std[group]
    return np.bincount(group[beyond], minlength=len(census.names))


def automatic_comprehensive_equity_index(
    scores: Any, *, kind: ScoreKind = "mated", n_std: float = 3.0, bins: int = 100, by: By = "group"
) -> EquityIndex:
    """CEIᴬ of one class of a partitioned score set: split and tail weight from the data.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        The partitioned score set.
    kind : {"mated", "nonmated"}, default "mated"
        The class compared across groups.
    n_std : float, default 3
        ``N``: the split sits N standard deviations from each group's mean.
    bins : int, default 100
        Bins of the tail and centre histograms.
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    EquityIndex
        The result of :func:`biofair.automatic_comprehensive_equity_index`.

    Raises
    ------
    SchemaError
        When the data fail the checks of :func:`biofair.partitions.census` (a missing group
        column, invalid scores or labels in a partition, several systems or splits, group
        labels that cannot be named one way, fewer than two groups, or a group without mated or
        homogeneous non-mated comparisons), a Parquet file cannot be read, or a local Parquet
        file has changed or is gone since it was first read; or when every score of a group's
        class falls in its tail (an empty centre: tied scores), or the tails' or the centres'
        scores span a range too narrow for ``bins`` equal-width float64 bins.
    FileNotFoundError
        When ``scores`` is a Parquet path or glob that matches no file.
    ValueError
        When ``kind`` is not "mated" or "nonmated", ``n_std`` is not positive and finite,
        ``bins`` is below 1 or above 1,000,000, ``by`` is empty, names a column twice or
        names "score" or "mated", or ``scores`` is a ``Partitioned`` made for another ``by``.
    TypeError
        When ``scores`` is neither a Dask DataFrame, a Parquet path nor a ``Partitioned``,
        ``by`` is not a column name or a list of column names, ``n_std`` is not a number, or
        ``bins`` is not an integer.

    Warns
    -----
    InsufficientComparisonsWarning
        When no score of a group lies beyond ``mu ± N·sigma``, as in memory.

    See Also
    --------
    biofair.automatic_comprehensive_equity_index : The same index in memory.

    Notes
    -----
    Five passes: merged moments per group, the counts beyond ``mu ± N·sigma``, then CEI's
    three. Each group's mean and standard deviation are merged from partitions, about one of
    its scores, so they can differ from the in-memory ones in the last bits of the group's
    spread: the result equals the in-memory one unless a score lies within that rounding of
    ``mu ± N·sigma``.

    References
    ----------
    "Balancing Tails when Comparing Distributions: Comprehensive Equity Index (CEI) with
    Application to Bias Evaluation in Operational Face Biometrics", eq. 11-14.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.beta_scenario("BG", n_groups=2, n_mated=1_000, n_nonmated=1_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.automatic_comprehensive_equity_index(dd.from_pandas(table, npartitions=3), bins=20)
    >>> found.extreme == bf.automatic_comprehensive_equity_index(table, bins=20).extreme
    True
    """
    check_choice(kind, "kind", ("mated", "nonmated"))
    n_std = as_number(n_std, "n_std", low=0.0, open_low=True)  # text, True, 0, inf and NaN refused as in memory
    bins = check_bins(bins)
    data = partitioned(scores, by=by)
    frame, census_ = data
    moments = _merged_moments(_on_partitions(frame, _moments_part, census_, kind, columns=_needed(census_)))
    counts = _on_partitions(frame, _beyond_part, census_, kind, *moments, n_std, columns=_needed(census_),
                            total=True)
    sizes = census_.n_mated if kind == "mated" else census_.n_nonmated
    percentiles, parameters = _automatic_parameters(census_.names, counts / sizes, kind=kind,
                                                   n_std=n_std, bins=bins)
    divergences = _cei_divergences(data, kind, percentiles, parameters["tail_weight"], bins, "groups", 0.0,
                                   tail_sizes=counts)
    return _index_from_divergences(divergences, census_.names, parameters)
