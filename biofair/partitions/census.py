"""Pass 1 over a partitioned score set: read it, check every partition, count.

Every out-of-core function starts here: the group names, the comparisons per group and
class, the score range and every problem of the data, each naming its partition.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._typing import By
from biofair.exceptions import SchemaError


class Census(NamedTuple):
    """What the first pass learns about a partitioned score set.

    Returned by :func:`biofair.partitions.census`.

    Attributes
    ----------
    names : list of str
        The groups, sorted.
    columns : tuple of (list of str, list of str)
        The group columns read for the reference side and for the probe side, one per
        attribute of ``by`` (a pair-level column stands on both sides).
    n_mated : ndarray of int
        Mated comparisons per group.
    n_nonmated : ndarray of int
        Homogeneous non-mated comparisons per group.
    n_cross : int
        Non-mated pairs whose sides belong to different groups.
    low : float
        Smallest homogeneous score.
    high : float
        Largest homogeneous score.
    n_partitions : int
        Partitions read.

    See Also
    --------
    biofair.partitions.census : The function that returns it.
    biofair.group_sizes : The same counts of an in-memory table.

    Examples
    --------
    >>> import numpy as np
    >>> from biofair.partitions import Census
    >>> Census(["a", "b"], (["group"], ["group"]), np.array([5, 6]), np.array([50, 60]), 0, -1.0, 2.0, 1).n_mated
    array([5, 6])
    """

    names: list[str]
    columns: tuple[list[str], list[str]]
    n_mated: NDArray[np.int64]
    n_nonmated: NDArray[np.int64]
    n_cross: int
    low: float
    high: float
    n_partitions: int


def _as_frame(scores: Any):
    """A Dask DataFrame from a Dask DataFrame, a Parquet path or glob, or a Partitioned."""
    import dask.dataframe as dd

    if isinstance(scores, Partitioned):
        return scores.frame
    if isinstance(scores, dd.DataFrame):
        return scores
    if isinstance(scores, str) or hasattr(scores, "__fspath__"):
        return dd.read_parquet(str(scores))
    raise TypeError(f"scores must be a dask DataFrame or a Parquet path, got {type(scores).__name__}")


def _group_columns(columns: Sequence[str], by: By) -> tuple[list[str], list[str]]:
    """The reference-side and probe-side group columns of every attribute of ``by``."""
    attributes = [by] if isinstance(by, str) else list(by)
    if not attributes:
        raise ValueError("by must name at least one column")
    reference, probe = [], []
    for attribute in attributes:
        sides = [f"reference_{attribute}", f"probe_{attribute}"]
        if attribute in columns:
            sides = [attribute, attribute]
        elif not set(sides) <= set(columns):
            raise SchemaError(
                f"no group column for {attribute!r}: give a pair-level column of that name or both "
                f"{sides[0]} and {sides[1]} (the data have {list(columns)})"
            )
        reference.append(sides[0])
        probe.append(sides[1])
    return reference, probe


class _Context:
    """What biofair keeps about one frame object while it lives: where its passes run and
    what they found (census, locating histograms, thresholds), so that later calls on the
    same :class:`Partitioned` reuse it instead of reading the data again."""

    def __init__(self):
        self.scheduler: Any = None
        self.cache: dict = {}


_CONTEXTS: dict[int, _Context] = {}
#: Passes over the data made so far in this process (the benchmark reports it per metric).
_PASSES = [0]


def _context(frame) -> _Context:
    """The context of ``frame``, made on first use and dropped with the frame."""
    key = id(frame)
    if key not in _CONTEXTS:
        _CONTEXTS[key] = _Context()
        weakref.finalize(frame, _CONTEXTS.pop, key, None)
    return _CONTEXTS[key]


def _cached(frame, key: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per frame object and key."""
    cache = _context(frame).cache
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _add(*parts):
    """The sum of arrays, or of tuples of arrays element by element."""
    if isinstance(parts[0], tuple):
        return tuple(_add(*same) for same in zip(*parts))
    return functools.reduce(np.add, parts)


def _needed(*args) -> list[str]:
    """The columns a pass reads: score, mated and the group columns of any census in ``args``."""
    columns = ["score", "mated"]
    for arg in args:
        if isinstance(arg, Census):
            columns += [*arg.columns[0], *arg.columns[1]]
    return columns


def _on_partitions(frame, function: Callable, *args, columns: Sequence[str] | None = None,
                   total: bool = False) -> Any:
    """``function(partition, index, *args)`` on every partition, computed by Dask: one pass.

    ``columns``: read only these (those the frame has; the others are reported missing by
    the census). ``total``: add the results up on the workers, eight at a time, and return
    the sum (arrays of counts stay off the client until they are one).
    """
    import dask

    scheduler = _context(frame).scheduler
    if columns is not None:
        frame = frame[[c for c in dict.fromkeys(columns) if c in frame.columns]]
    tasks = [dask.delayed(function)(part, i, *args) for i, part in enumerate(frame.to_delayed())]
    while total and len(tasks) > 1:
        tasks = [dask.delayed(_add)(*tasks[i : i + 8]) for i in range(0, len(tasks), 8)]
    _PASSES[0] += 1
    found = dask.compute(*tasks, scheduler=scheduler)
    return found[0] if total else list(found)


def _labels(column: pd.Series) -> pd.Series:
    """Group labels as strings; string and string-categorical columns are kept as they are."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        if pd.api.types.is_string_dtype(column.cat.categories):
            return column.reset_index(drop=True)
    elif pd.api.types.is_string_dtype(column):
        return column.reset_index(drop=True)
    return column.astype(str).reset_index(drop=True)


def _side_labels(part: pd.DataFrame, columns: tuple[list[str], list[str]]) -> list[pd.Series]:
    """The group label of each side (one series when every attribute is pair-level).

    Several attributes combine into one label per side, their values joined by " / ".
    """

    def label(names: list[str]) -> pd.Series:
        if len(names) == 1:
            return _labels(part[names[0]])
        return functools.reduce(lambda a, b: a + " / " + b, [_labels(part[n]).astype(str) for n in names])

    reference, probe = columns
    return [label(reference)] if reference == probe else [label(reference), label(probe)]


def _group_keys(part: pd.DataFrame, census: Census) -> tuple[NDArray, NDArray[np.intp], NDArray[np.bool_]]:
    """Scores (float32 kept, anything else as float64), group codes (-1: cross-group pair or
    no group) and labels of one partition."""
    names = pd.Index(census.names)
    codes = []
    for side in _side_labels(part, census.columns):
        side_codes, labels = _codes(side)
        codes.append(np.append(names.get_indexer(labels), -1)[side_codes])  # code -1 (missing) stays -1
    group = np.where(codes[0] == codes[-1], codes[0], -1)
    return _scores(part), group, part["mated"].to_numpy(dtype=bool)


def _scores(part: pd.DataFrame) -> NDArray:
    """The scores of a partition: float32 as they are (half the memory, exact), else float64."""
    values = part["score"].to_numpy()
    return values if values.dtype == np.float32 else values.astype(np.float64, copy=False)


# -- pass 1: census -------------------------------------------------------------------------


def _problems_of(part: pd.DataFrame, index: int, columns: list[str]) -> list[str]:
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


def _codes(side: pd.Series) -> tuple[NDArray[np.intp], NDArray]:
    """Integer code of every label, and the labels (as strings) the codes stand for."""
    if isinstance(side.dtype, pd.CategoricalDtype):
        return side.cat.codes.to_numpy(dtype=np.intp), side.cat.categories.astype(str).to_numpy(dtype=object)
    codes, uniques = pd.factorize(side)
    return codes.astype(np.intp), np.asarray(uniques, dtype=object)


def _census_part(part: pd.DataFrame, index: int, columns: tuple[list[str], list[str]]) -> dict:
    """Problems of one partition, or its counts per (group, class), cross pairs and range,
    and the counts and range of each class over all pairs (for the metrics that ignore groups)."""
    if problems := _problems_of(part, index, list(dict.fromkeys(columns[0] + columns[1]))):
        return {"problems": problems}
    values = _scores(part)
    mated = part["mated"].to_numpy(dtype=bool)
    coded = [_codes(side) for side in _side_labels(part, columns)]
    labels = np.unique(np.concatenate([names for _, names in coded]))
    codes = [np.searchsorted(labels, names)[side] for side, names in coded]  # one code per label
    homogeneous = codes[0] == codes[-1]
    key = codes[0][homogeneous] * 2 + mated[homogeneous]
    counts = np.bincount(key, minlength=2 * labels.size).reshape(-1, 2)
    if len(columns[0]) == 1:  # one attribute: every label of either side is a group
        seen = np.zeros(labels.size, dtype=bool)
        for side in codes:
            seen[side] = True
    else:  # several: every combination seen on both sides of a pair (as biofair.group_labels)
        seen = counts.sum(axis=1) > 0
    kept = values[homogeneous]
    return {
        "problems": [],
        "counts": pd.DataFrame({True: counts[seen, 1], False: counts[seen, 0]}, index=list(labels[seen])),
        "cross": int((~homogeneous & ~mated).sum()),
        "low": float(kept.min()) if kept.size else np.inf,
        "high": float(kept.max()) if kept.size else -np.inf,
        "classes": _class_counts(values, mated),
    }


def census(scores: Any, *, by: By = "group") -> Census:
    """Pass 1: check every partition and count comparisons per group and class.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame or str
        Partitioned score table (or a Parquet path or glob) with ``score``, ``mated`` and
        the group column(s) of ``by`` (pair-level, or ``reference_<attr>`` and
        ``probe_<attr>``).
    by : str or sequence of str, default "group"
        The grouping attribute(s); several combine into one group per observed
        combination, named by joining the values with " / " (as :func:`biofair.group_labels`).

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

    See Also
    --------
    biofair.partitions.partitioned : The census with its frame, to pass to several functions.
    biofair.group_sizes : The same counts of an in-memory table.

    References
    ----------
    ISO/IEC 19795-10:2024 (the size of every demographic group, reported before any index).

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.fdr_canonical_system(n_mated=100, n_nonmated=1_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     found = bp.census(dd.from_pandas(table, npartitions=3))
    >>> found.names, found.n_mated.tolist(), found.n_partitions
    (['0', '1', '2'], [100, 100, 100], 3)
    """
    frame = _as_frame(scores)
    columns = _group_columns(list(frame.columns), by)
    found = _on_partitions(frame, _census_part, columns, columns=["score", "mated", *columns[0], *columns[1]])
    _raise_problems([part["problems"] for part in found])
    _context(frame).cache.setdefault(("classes",), _classes_from([part["classes"] for part in found]))
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
    """A partitioned score set with its census: pass it to several functions to count once.

    Returned by :func:`biofair.partitions.partitioned`; every function of
    :mod:`biofair.partitions` accepts it in place of the data.

    Attributes
    ----------
    frame : dask.dataframe.DataFrame
        The partitioned scores.
    census : Census
        Their census (groups, counts, range).

    See Also
    --------
    biofair.partitions.partitioned : The function that returns it.
    biofair.ScoresByGroup : The in-memory counterpart.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.fdr_canonical_system(n_mated=100, n_nonmated=1_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     data = bp.partitioned(dd.from_pandas(table, npartitions=2))
    >>> data.census.names
    ['0', '1', '2']
    """

    frame: Any
    census: Census


def partitioned(scores: Any, *, by: By = "group", scheduler: Any = None) -> Partitioned:
    """The frame of ``scores`` and its census (returned as is when already made).

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame, str or Partitioned
        Partitioned score table, or a Parquet path or glob.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    scheduler : str or distributed.Client, optional
        Where every pass over these data runs: the address of a Dask distributed scheduler
        (``"tcp://host:8786"``; a client is connected to it, not made the default one) or a
        ``Client``. Without it, Dask's current scheduler (the default client if there is one).
        The workers must reach the data (a shared file system or object store).

    Returns
    -------
    Partitioned
        The frame and its :func:`biofair.partitions.census`. Pass it to every function of
        :mod:`biofair.partitions`: they run on its scheduler and reuse what earlier calls
        learnt about the data (the census, the locating histograms, the thresholds at
        target FMRs) instead of reading them again.

    Raises
    ------
    ValueError
        When a ``Partitioned`` was made for another grouping.

    See Also
    --------
    biofair.partitions.census : What the census holds.
    biofair.scores_by_group : The in-memory counterpart.

    References
    ----------
    ISO/IEC 19795-10:2024 (the size of every demographic group).

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import biofair as bf
    >>> from biofair import partitions as bp
    >>> table = bf.synthetic.fdr_canonical_system(n_mated=100, n_nonmated=1_000, rng=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     data = bp.partitioned(dd.from_pandas(table, npartitions=2))
    ...     again = bp.partitioned(data)  # counted once
    >>> again is data
    True
    """
    if isinstance(scores, Partitioned):
        if scores.census.columns != _group_columns(list(scores.frame.columns), by):
            raise ValueError(f"this census was made for other group columns than by={by!r}")
        if scheduler is not None:
            _context(scores.frame).scheduler = _client(scheduler)
        return scores
    frame = _as_frame(scores)
    if scheduler is not None:
        _context(frame).scheduler = _client(scheduler)
    return Partitioned(frame, census(frame, by=by))


def _client(scheduler: Any):
    """A distributed ``Client`` for a scheduler address, or the client given."""
    if not isinstance(scheduler, str):
        return scheduler
    from distributed import Client

    return Client(scheduler, set_as_default=False)


class _ClassCensus(NamedTuple):
    """Counts and range of all comparisons, groups ignored (for metrics over all pairs)."""

    n_mated: int
    n_nonmated: int
    low: float  # smallest score
    high: float  # largest score


def _class_counts(values: NDArray, mated: NDArray[np.bool_]) -> dict:
    return {"n_mated": int(mated.sum()), "n": values.size,
            "low": float(values.min()) if values.size else np.inf,
            "high": float(values.max()) if values.size else -np.inf}


def _class_census_part(part: pd.DataFrame, index: int) -> dict:
    if problems := _problems_of(part, index, []):
        return {"problems": problems}
    return {"problems": [], **_class_counts(_scores(part), part["mated"].to_numpy(dtype=bool))}


def _classes_from(found: list[dict]) -> _ClassCensus:
    n_mated = sum(part["n_mated"] for part in found)
    n_nonmated = sum(part["n"] for part in found) - n_mated
    return _ClassCensus(n_mated, n_nonmated, min(part["low"] for part in found),
                        max(part["high"] for part in found))


def _class_census(frame) -> _ClassCensus:
    """Check every partition (``score`` and ``mated`` only) and count each class; no pass
    when the census of this frame has counted them already.

    Raises
    ------
    SchemaError
        Naming each partition's problems, or a class without comparisons.
    """

    def count() -> _ClassCensus:
        found = _on_partitions(frame, _class_census_part, columns=["score", "mated"])
        _raise_problems([part["problems"] for part in found])
        return _classes_from(found)

    counts = _cached(frame, ("classes",), count)
    if counts.n_mated == 0 or counts.n_nonmated == 0:
        raise SchemaError(f"the scores hold {counts.n_mated} mated and {counts.n_nonmated} non-mated "
                          "comparisons; both classes are needed")
    return counts
