"""Exact fairness metrics over partitioned score sets too large for one machine (Dask).

Every function reads a ``dask.dataframe.DataFrame`` (or a Parquet path or glob) with the
canonical columns, computes a small summary of each partition (counts at thresholds,
histograms on fixed edges, the distinct values inside a few bins), adds the summaries up
and derives the metric from the sum. The result equals the in-memory function's: the
scores are never gathered in one place. Read more in the chapter "When the evaluation
outgrows one machine" (``notebooks/11``).

The passes over the data:

1. census: the group names, comparisons per group and class, the score range, and every
   problem (missing column, NaN scores, missing group labels, a group without a class);
2. locating histogram: on 65,536 fixed bins of the homogeneous non-mated scores, it finds
   the bin that holds each order statistic a threshold needs;
3. refinement: the distinct values and their counts inside those bins only give the exact
   threshold, by the rule of :func:`biofair.threshold_at_fmr`;
4. counts at thresholds per group and class: exact rates, hence FDR, GARBE and Inequity.

DFI needs one histogram pass; ROC-AUC is bounded from histograms; intervals come from the
Poisson bootstrap. Requires the optional dependencies ``biofair[dask]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._validation import as_rates
from biofair.discrepancy import DEFAULT_FMR_TARGETS, check_alpha, discrepancy, discrepancy_table, max_gap
from biofair.dispersion import OutcomeFairness, outcome_from_rates
from biofair.distribution_fairness import EquityIndex, check_bins, dfi_from_counts, range_edges
from biofair.exceptions import SchemaError
from biofair.groups import GroupRates, rates_table
from biofair.rates import allowed_false_matches, warn_unresolvable

#: Bins of the locating histogram (pass 2).
LOCATING_BINS = 1 << 16


class Census(NamedTuple):
    """What the first pass learns about a partitioned score set."""

    names: list[str]  # groups, sorted
    columns: list[str]  # the group column(s) read: pair-level, or reference_/probe_ sides
    n_mated: NDArray[np.int64]  # per group
    n_nonmated: NDArray[np.int64]  # per group, homogeneous pairs only
    n_cross: int  # non-mated pairs whose sides belong to different groups
    low: float  # smallest homogeneous score
    high: float  # largest homogeneous score
    n_partitions: int


def _frame(scores: Any):
    """A Dask DataFrame from a Dask DataFrame, a Parquet path or glob, or a Partitioned."""
    import dask.dataframe as dd

    if isinstance(scores, Partitioned):
        return scores.frame
    if isinstance(scores, dd.DataFrame):
        return scores
    if isinstance(scores, str) or hasattr(scores, "__fspath__"):
        return dd.read_parquet(str(scores))
    raise TypeError(f"scores must be a dask DataFrame or a Parquet path, got {type(scores).__name__}")


def _group_columns(columns: Sequence[str], by: str) -> list[str]:
    if by in columns:
        return [by]
    sides = [f"reference_{by}", f"probe_{by}"]
    if set(sides) <= set(columns):
        return sides
    raise SchemaError(
        f"no group column for {by!r}: give a pair-level column of that name or both {sides[0]} "
        f"and {sides[1]} (the data have {list(columns)})"
    )


def _on_partitions(frame, function: Callable, *args) -> list:
    """``function(partition, index, *args)`` on every partition, computed by Dask."""
    import dask

    tasks = [dask.delayed(function)(part, i, *args) for i, part in enumerate(frame.to_delayed())]
    return list(dask.compute(*tasks))


def _labels(column: pd.Series) -> pd.Series:
    """Group labels as strings; string and string-categorical columns are kept as they are."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        if pd.api.types.is_string_dtype(column.cat.categories):
            return column.reset_index(drop=True)
    elif pd.api.types.is_string_dtype(column):
        return column.reset_index(drop=True)
    return column.astype(str).reset_index(drop=True)


def _same_group(sides: list[pd.Series]) -> NDArray[np.bool_]:
    """True where both sides of a pair belong to the same group (always, for one column)."""
    if len(sides) == 1:
        return np.ones(len(sides[0]), dtype=bool)
    try:
        return (sides[0] == sides[1]).to_numpy(dtype=bool)
    except TypeError:  # categoricals with different categories
        return (sides[0].astype(str) == sides[1].astype(str)).to_numpy(dtype=bool)


def _keys(part: pd.DataFrame, census: Census) -> tuple[NDArray, NDArray[np.intp], NDArray[np.bool_]]:
    """Scores, group codes (-1: cross-group pair) and labels of one partition."""
    codes = [pd.Categorical(_labels(part[c]), categories=census.names).codes for c in census.columns]
    group = np.where(codes[0] == codes[-1], codes[0], -1).astype(np.intp)
    return part["score"].to_numpy(dtype=np.float64), group, part["mated"].to_numpy(dtype=bool)


# -- pass 1: census -------------------------------------------------------------------------


def _problems(part: pd.DataFrame, index: int, columns: list[str]) -> list[str]:
    """Everything wrong with one partition, each naming the partition."""
    missing = [c for c in ("score", "mated", *columns) if c not in part.columns]
    if missing:
        return [f"partition {index}: missing column(s) {', '.join(missing)}"]
    problems = []
    values = part["score"].to_numpy(dtype=np.float64, na_value=np.nan)
    if bad := int((~np.isfinite(values)).sum()):
        problems.append(f"partition {index}: {bad} NaN or infinite scores")
    if not pd.api.types.is_bool_dtype(part["mated"]):
        problems.append(f"partition {index}: column 'mated' must be boolean, got {part['mated'].dtype}")
    for column in columns:
        if n_missing := int(part[column].isna().sum()):
            problems.append(f"partition {index}: column {column!r} has {n_missing} missing values")
    return problems


def _raise_problems(found: list[list[str]]) -> None:
    problems = [p for part in found for p in part]
    if problems:
        raise SchemaError("invalid score partitions:\n- " + "\n- ".join(problems))


def _census_part(part: pd.DataFrame, index: int, columns: list[str]) -> dict:
    """Problems of one partition, or its counts per (group, class), cross pairs and range."""
    if problems := _problems(part, index, columns):
        return {"problems": problems}
    values = part["score"].to_numpy(dtype=np.float64)
    sides = [_labels(part[c]) for c in columns]
    homogeneous = _same_group(sides)
    mated = part["mated"].to_numpy(dtype=bool)
    grouping = sides[0][homogeneous].reset_index(drop=True)
    counts = pd.Series(mated[homogeneous]).groupby(grouping, observed=True).agg(["sum", "size"])
    counts.index = counts.index.astype(str)
    names = sorted({str(name) for side in sides for name in side.unique()})
    counts = pd.DataFrame({True: counts["sum"], False: counts["size"] - counts["sum"]}).reindex(names, fill_value=0)
    kept = values[homogeneous]
    return {
        "problems": [],
        "counts": counts,
        "cross": int((~homogeneous & ~mated).sum()),
        "low": float(kept.min()) if kept.size else np.inf,
        "high": float(kept.max()) if kept.size else -np.inf,
    }


def census(scores: Any, *, by: str = "group") -> Census:
    """Pass 1: check every partition and count comparisons per group and class.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame or str
        Partitioned score table (or a Parquet path or glob) with ``score``, ``mated`` and
        the group column(s) of ``by`` (pair-level, or ``reference_<by>`` and ``probe_<by>``).
    by : str, default "group"
        The grouping attribute.

    Returns
    -------
    Census
        Group names, counts per group and class, cross-group count, score range.

    Raises
    ------
    SchemaError
        Listing every problem with its partition (missing columns, NaN or infinite scores,
        non-boolean labels, missing group labels), then fewer than two groups or a group
        without mated or homogeneous non-mated comparisons (named, with its counts).
    """
    frame = _frame(scores)
    columns = _group_columns(list(frame.columns), by)
    found = _on_partitions(frame, _census_part, columns)
    _raise_problems([part["problems"] for part in found])
    counts = pd.concat([part["counts"] for part in found]).groupby(level=0).sum()
    names = [str(name) for name in counts.index]
    result = Census(
        names, columns, counts[True].to_numpy(dtype=np.int64), counts[False].to_numpy(dtype=np.int64),
        sum(part["cross"] for part in found), min(part["low"] for part in found),
        max(part["high"] for part in found), len(found),
    )
    empty = [
        f"group {name!r} has {m} mated and {n} homogeneous non-mated comparisons; both are needed"
        for name, m, n in zip(names, result.n_mated, result.n_nonmated) if m == 0 or n == 0
    ]
    if len(names) < 2:
        empty.append(f"fairness needs at least two groups; by={by!r} gives {len(names)}")
    if empty:
        raise SchemaError("cannot compare groups:\n- " + "\n- ".join(empty))
    return result


class Partitioned(NamedTuple):
    """A partitioned score set with its census: pass it to several functions to count once."""

    frame: Any
    census: Census


def partitioned(scores: Any, *, by: str = "group") -> Partitioned:
    """The frame of ``scores`` and its :func:`census` (returned as is when already made).

    Read more in the chapter "When the evaluation outgrows one machine".
    """
    if isinstance(scores, Partitioned):
        if scores.census.columns != _group_columns(list(scores.frame.columns), by):
            raise ValueError(f"this census was made for other group columns than by={by!r}")
        return scores
    frame = _frame(scores)
    return Partitioned(frame, census(frame, by=by))


# -- passes 2 and 3: exact thresholds ----------------------------------------------------------


def _bins_of(values: NDArray, edges: NDArray) -> NDArray[np.intp]:
    """Bin of each value: ``edges[b] <= x < edges[b+1]``, the last bin closed (np.histogram)."""
    return np.clip(np.searchsorted(edges, values, side="right") - 1, 0, edges.size - 2)


def _nonmated_histogram_part(part: pd.DataFrame, index: int, census: Census, edges: NDArray) -> NDArray:
    values, group, mated = _keys(part, census)
    pooled = values[(group >= 0) & ~mated]
    return np.bincount(_bins_of(pooled, edges), minlength=edges.size - 1)


def _distinct_in_bins_part(
    part: pd.DataFrame, index: int, census: Census, edges: NDArray, wanted: NDArray
) -> pd.Series:
    values, group, mated = _keys(part, census)
    pooled = values[(group >= 0) & ~mated]
    kept = pooled[np.isin(_bins_of(pooled, edges), wanted)]
    return pd.Series(kept).value_counts()


def pooled_thresholds(scores: Any, fmr_targets: ArrayLike, *, by: str = "group") -> NDArray[np.float64]:
    """Thresholds at target FMRs on the pooled homogeneous non-mated scores, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    The same thresholds as the in-memory fairness functions set (one for every group): for
    a target with ``c`` allowed false matches, the smallest distinct non-mated score above
    the ``(c+1)``-th largest (``nextafter(max)`` when ``c = 0``, the minimum when every
    score is allowed). Two passes: a 65,536-bin histogram locates the ``(c+1)``-th largest
    score's bin; the distinct values of that bin and of the next non-empty bin above it
    give the exact answer.

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below ``1/N``.
    """
    frame, census_ = partitioned(scores, by=by)
    targets = np.atleast_1d(as_rates(fmr_targets, "fmr_targets"))
    n = int(census_.n_nonmated.sum())
    warn_unresolvable(targets, n)
    allowed = allowed_false_matches(targets, n)
    edges = np.linspace(census_.low, census_.high, LOCATING_BINS + 1)
    histogram = np.sum(_on_partitions(frame, _nonmated_histogram_part, census_, edges), axis=0)
    nonempty = np.flatnonzero(histogram)
    from_top = np.cumsum(histogram[::-1])  # scores in the top j + 1 bins
    needed = (allowed > 0) & (allowed < n)
    rank = allowed[needed] + 1  # the (c+1)-th largest score decides the threshold
    bins = LOCATING_BINS - 1 - np.searchsorted(from_top, rank, side="left")
    next_up = nonempty[np.minimum(np.searchsorted(nonempty, bins, side="right"), nonempty.size - 1)]
    wanted = np.unique(np.concatenate([bins, next_up, nonempty[[0, -1]]]))
    parts = _on_partitions(frame, _distinct_in_bins_part, census_, edges, wanted)
    distinct = pd.concat(parts).groupby(level=0).sum().sort_index()
    values, counts = distinct.index.to_numpy(dtype=np.float64), distinct.to_numpy()
    top = np.nextafter(values[-1], np.inf)  # above the largest non-mated score: rejects them all
    thresholds = np.where(allowed == 0, top, values[0])  # everything allowed: the smallest
    for i, r, b in zip(np.flatnonzero(needed), rank, bins):
        in_bin = (values >= edges[b]) & ((values < edges[b + 1]) | (b == LOCATING_BINS - 1))
        order = np.flatnonzero(in_bin)[::-1]  # distinct values of bin b, largest first
        kth = values[order[np.searchsorted(np.cumsum(counts[order]), r - histogram[b + 1 :].sum())]]
        greater = values[values > kth]
        thresholds[i] = greater[0] if greater.size else top
    return thresholds


# -- pass 4: counts at thresholds ---------------------------------------------------------------


def _counts_at_part(part: pd.DataFrame, index: int, census: Census, thresholds: NDArray) -> NDArray:
    values, group, mated = _keys(part, census)
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
    at_or_above = np.sum(_on_partitions(frame, _counts_at_part, census_, values), axis=0)
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


# -- histograms: DFI and the bounded ROC-AUC ---------------------------------------------------


def _group_histograms_part(part: pd.DataFrame, index: int, census: Census, edges: NDArray) -> NDArray:
    """Counts per (group, class, bin) of the homogeneous comparisons of a partition."""
    values, group, mated = _keys(part, census)
    keep = group >= 0
    n_bins = edges.size - 1
    key = (group[keep] * 2 + mated[keep]) * n_bins + _bins_of(values[keep], edges)
    return np.bincount(key, minlength=len(census.names) * 2 * n_bins).reshape(-1, 2, n_bins)


def distribution_fairness_index(scores: Any, *, by: str = "group", bins: int = 100,
                                combine: str = "pooled") -> EquityIndex:
    """:func:`biofair.distribution_fairness_index` of a partitioned score set, exactly.

    Read more in the chapter "When the evaluation outgrows one machine".

    The in-memory function's bins (equal width over the range of all homogeneous scores)
    come from the census; one histogram pass per group and class follows.
    """
    if combine not in ("pooled", "equal"):
        raise ValueError(f"combine must be 'pooled' or 'equal', got {combine!r}")
    bins = check_bins(bins)
    frame, census_ = partitioned(scores, by=by)
    edges = range_edges(census_.low, census_.high, bins)
    counts = np.sum(_on_partitions(frame, _group_histograms_part, census_, edges), axis=0)
    return dfi_from_counts(census_.names, counts[:, 1], counts[:, 0], combine=combine)


class BoundedValue(NamedTuple):
    """A value known to lie in ``[low, high]``, with the midpoint as the estimate."""

    estimate: float
    low: float
    high: float


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
        The width ``S / MN`` shrinks with finer bins.
    """
    import dask

    bins = check_bins(bins)
    frame = _frame(scores)
    _raise_problems(_on_partitions(frame, _problems, []))
    low, high = dask.compute(frame["score"].min(), frame["score"].max())
    edges = np.linspace(float(low), float(high), bins + 1)
    counts = np.sum(_on_partitions(frame, _class_histogram_part, edges), axis=0)
    nonmated, mated = counts[0].astype(np.float64), counts[1].astype(np.float64)
    pairs = mated.sum() * nonmated.sum()
    below = np.concatenate([[0.0], np.cumsum(nonmated)[:-1]])
    ordered, unordered = float(mated @ below), float(mated @ nonmated)
    return BoundedValue(float((ordered + unordered / 2) / pairs), float(ordered / pairs), float((ordered + unordered) / pairs))


def _class_histogram_part(part: pd.DataFrame, index: int, edges: NDArray) -> NDArray:
    """Counts per (class, bin) of all comparisons of a partition."""
    values, mated = part["score"].to_numpy(dtype=np.float64), part["mated"].to_numpy(dtype=bool)
    n_bins = edges.size - 1
    return np.bincount(mated * n_bins + _bins_of(values, edges), minlength=2 * n_bins).reshape(2, n_bins)


# -- the Poisson bootstrap ---------------------------------------------------------------------


def _poisson_counts_part(part: pd.DataFrame, index: int, census: Census, thresholds: NDArray,
                         n_resamples: int, seed: int) -> tuple[NDArray, NDArray]:
    """Per resample: weighted totals per (group, class) and weighted counts at thresholds."""
    values, group, mated = _keys(part, census)
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
    parts = _on_partitions(frame, _poisson_counts_part, census_, values, n_resamples, seed)
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
