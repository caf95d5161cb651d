"""Reading score files into score tables.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from biofair._typing import By
from biofair.exceptions import SchemaError
from biofair.groups import add_subject_attributes, scores_by_group
from biofair.schema import validate_scores

_ScoreFormat = Literal["auto", "csv", "parquet", "bob"]
_PathLike = str | os.PathLike

_TRUE_LABELS = {"true", "1", "mated", "genuine", "target"}
_FALSE_LABELS = {"false", "0", "nonmated", "non-mated", "impostor", "nontarget", "non-target"}
_BOB_COLUMNS = {
    4: ["reference_subject", "probe_subject", "probe_id", "score"],
    5: ["reference_subject", "reference_id", "probe_subject", "probe_id", "score"],
}


def _as_mated(labels: pd.Series) -> pd.Series:
    """Convert a label column to bool: booleans, 0/1, or the usual words."""
    if pd.api.types.is_bool_dtype(labels) and not labels.isna().any():
        return labels.astype(bool)
    words = labels.astype(str).str.strip().str.lower()
    words = words.str.replace(r"^(\d+)\.0$", r"\1", regex=True)  # 1.0 -> 1
    known = words.isin(_TRUE_LABELS | _FALSE_LABELS) & labels.notna()
    if not known.all():
        examples = ", ".join(repr(x) for x in pd.unique(labels[~known])[:5])
        raise SchemaError(
            f"invalid score table:\n- column 'mated' has {int((~known).sum())} values that are "
            f"not a mated/non-mated label (e.g. {examples}); use booleans, 0/1, "
            "genuine/impostor or target/nontarget"
        )
    return words.isin(_TRUE_LABELS)


def _read_table(path: Path, format: _ScoreFormat) -> pd.DataFrame:
    suffix = path.suffix.lower()
    if format == "auto":
        format = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "csv"}.get(
            suffix, "bob"
        )
    if format == "parquet":
        return pd.read_parquet(path)
    if format == "csv":
        return pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",")
    if format == "bob":
        table = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, comment="#")
        if table.shape[1] not in _BOB_COLUMNS:
            raise SchemaError(
                f"a bob score file has 4 or 5 whitespace-separated columns; {path} has "
                f"{table.shape[1]}"
            )
        table.columns = _BOB_COLUMNS[table.shape[1]]
        table["score"] = pd.to_numeric(table["score"], errors="coerce")
        table["mated"] = table["reference_subject"] == table["probe_subject"]
        return table
    raise ValueError(f"format must be 'auto', 'csv', 'parquet' or 'bob', got {format!r}")


def _read_plain(path: Path) -> np.ndarray:
    return pd.read_csv(path, header=None, sep=r"\s+", comment="#").to_numpy().ravel()


def read_scores(
    path: _PathLike | tuple[_PathLike, _PathLike],
    *,
    columns: Mapping[str, str] | None = None,
    greater_is_match: bool = True,
    format: _ScoreFormat = "auto",
) -> pd.DataFrame:
    """Read a score file into a validated score table.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    path : path or (path, path)
        A CSV (``.csv``, ``.tsv``) or Parquet (``.parquet``, ``.pq``) table; a bob score
        file (4 columns ``claimed_id real_id probe_label score`` or 5 columns
        ``claimed_id model_label real_id probe_label score``, whitespace separated,
        ``mated`` = claimed id equals real id); or a pair ``(mated_file, nonmated_file)``
        of plain files with one score per line (pyeer style).
    columns : mapping, optional
        Renames the file's columns to the canonical ones, e.g. ``{"sc": "score",
        "lab": "mated"}``. Labels may be booleans, 0/1, genuine/impostor or
        target/nontarget.
    greater_is_match : bool, default True
        False for distance scores: they are negated here, once, so that every metric
        sees similarities.
    format : {"auto", "csv", "parquet", "bob"}, default "auto"
        ``"auto"`` decides by the file suffix; any other suffix is read as bob.

    Returns
    -------
    pandas.DataFrame
        A table that passed :func:`biofair.validate_scores`.

    Raises
    ------
    SchemaError
        When the file cannot be parsed, a mapped column is absent, or the table is invalid.
    FileNotFoundError
        When a file does not exist.

    See Also
    --------
    biofair.read_grouped_scores : Also checks that the groups can be compared.
    biofair.validate_scores : The checks every table passes.

    References
    ----------
    bob.measure's score file formats (4 and 5 columns); pyeer's plain score files.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.read_scores(bf.datasets.example_scores_path())
    >>> len(table), int(table["mated"].sum())
    (7920, 720)
    """
    if isinstance(path, tuple):
        mated, nonmated = (_read_plain(Path(p)) for p in path)
        table = pd.DataFrame(
            {
                "score": np.concatenate([mated, nonmated]),
                "mated": np.repeat([True, False], [mated.size, nonmated.size]),
            }
        )
    else:
        source = Path(path)
        if not source.is_file():
            raise FileNotFoundError(f"no score file at {source}")
        try:
            table = _read_table(source, format)
        except (ValueError, OSError, pd.errors.ParserError) as error:
            if isinstance(error, SchemaError):
                raise
            raise SchemaError(f"could not read {source} as a score file: {error}") from error
    if columns:
        absent = [name for name in columns if name not in table.columns]
        if absent:
            raise SchemaError(
                f"columns {absent} named in the mapping are not in the file "
                f"(it has {list(table.columns)})"
            )
        table = table.rename(columns=dict(columns))
    if "mated" in table.columns:
        table["mated"] = _as_mated(table["mated"])
    if "score" in table.columns and pd.api.types.is_numeric_dtype(table["score"]):
        table["score"] = table["score"].astype(np.float64)
        if not greater_is_match:
            table["score"] = -table["score"]
    return validate_scores(table)


def read_grouped_scores(
    path: _PathLike | tuple[_PathLike, _PathLike],
    *,
    by: By = "group",
    columns: Mapping[str, str] | None = None,
    greater_is_match: bool = True,
    format: _ScoreFormat = "auto",
    subjects: _PathLike | None = None,
) -> pd.DataFrame:
    """Read a score file for a fairness analysis and check that its groups can be compared.

    Read more in the chapter "Analyse your own system".

    Parameters
    ----------
    path : path or (path, path)
        As for :func:`biofair.read_scores`.
    by : str or sequence of str, default "group"
        The grouping attribute(s) the analysis will compare.
    columns : mapping, optional
        As for :func:`biofair.read_scores`.
    greater_is_match : bool, default True
        As for :func:`biofair.read_scores`.
    format : {"auto", "csv", "parquet", "bob"}, default "auto"
        As for :func:`biofair.read_scores`.
    subjects : path, optional
        A CSV of subject attributes (a ``subject`` column and one column per attribute),
        joined to both sides of every comparison (see :func:`biofair.add_subject_attributes`).

    Returns
    -------
    pandas.DataFrame
        A validated score table with at least two groups, each with mated and non-mated
        comparisons.

    Raises
    ------
    SchemaError, FileNotFoundError
        Naming the first problem found: unreadable file, missing column, bad values, a
        missing group column, fewer than two groups, a group without one class.

    See Also
    --------
    biofair.read_scores : Reads without the group checks.
    biofair.add_subject_attributes : Joins subject attributes to a table.

    References
    ----------
    ISO/IEC 19795-10:2024 (comparing demographic groups needs comparisons of each class in
    every group).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.read_grouped_scores(bf.datasets.example_scores_path(), by="group")
    >>> sorted(table["group"].unique())
    ['A', 'B', 'C']
    """
    table = read_scores(path, columns=columns, greater_is_match=greater_is_match, format=format)
    if subjects is not None:
        source = Path(subjects)
        if not source.is_file():
            raise FileNotFoundError(f"no subject attribute file at {source}")
        table = add_subject_attributes(table, pd.read_csv(source))
    scores_by_group(table, by=by)
    return table
