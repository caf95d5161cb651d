"""Pass 1 over a partitioned score set: read it, check every partition, count.

Every out-of-core function starts here: the group names, the comparisons per group and
class, the score range and every problem of the data, each naming its partition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair.exceptions import SchemaError


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


def as_frame(scores: Any):
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


def on_partitions(frame, function: Callable, *args) -> list:
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


def group_keys(part: pd.DataFrame, census: Census) -> tuple[NDArray, NDArray[np.intp], NDArray[np.bool_]]:
    """Scores, group codes (-1: cross-group pair) and labels of one partition."""
    codes = [pd.Categorical(_labels(part[c]), categories=census.names).codes for c in census.columns]
    group = np.where(codes[0] == codes[-1], codes[0], -1).astype(np.intp)
    return part["score"].to_numpy(dtype=np.float64), group, part["mated"].to_numpy(dtype=bool)


# -- pass 1: census -------------------------------------------------------------------------


def problems_of(part: pd.DataFrame, index: int, columns: list[str]) -> list[str]:
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


def raise_problems(found: list[list[str]]) -> None:
    problems = [p for part in found for p in part]
    if problems:
        raise SchemaError("invalid score partitions:\n- " + "\n- ".join(problems))


def _census_part(part: pd.DataFrame, index: int, columns: list[str]) -> dict:
    """Problems of one partition, or its counts per (group, class), cross pairs and range."""
    if problems := problems_of(part, index, columns):
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
    frame = as_frame(scores)
    columns = _group_columns(list(frame.columns), by)
    found = on_partitions(frame, _census_part, columns)
    raise_problems([part["problems"] for part in found])
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
    frame = as_frame(scores)
    return Partitioned(frame, census(frame, by=by))


class ClassCensus(NamedTuple):
    """Counts and range of all comparisons, groups ignored (for metrics over all pairs)."""

    n_mated: int
    n_nonmated: int
    low: float  # smallest score
    high: float  # largest score


def _class_census_part(part: pd.DataFrame, index: int) -> dict:
    if problems := problems_of(part, index, []):
        return {"problems": problems}
    values, mated = part["score"].to_numpy(dtype=np.float64), part["mated"].to_numpy(dtype=bool)
    return {"problems": [], "n_mated": int(mated.sum()), "n": values.size,
            "low": float(values.min()) if values.size else np.inf,
            "high": float(values.max()) if values.size else -np.inf}


def class_census(frame) -> ClassCensus:
    """Check every partition (``score`` and ``mated`` only) and count each class.

    Raises
    ------
    SchemaError
        Naming each partition's problems, or a class without comparisons.
    """
    found = on_partitions(frame, _class_census_part)
    raise_problems([part["problems"] for part in found])
    n_mated = sum(part["n_mated"] for part in found)
    n_nonmated = sum(part["n"] for part in found) - n_mated
    if n_mated == 0 or n_nonmated == 0:
        raise SchemaError(f"the scores hold {n_mated} mated and {n_nonmated} non-mated comparisons; "
                          "both classes are needed")
    return ClassCensus(n_mated, n_nonmated, min(part["low"] for part in found),
                       max(part["high"] for part in found))
