"""Pass 1 over a partitioned score set: read it, check every partition, count.

Every out-of-core function starts here: the group names, the comparisons per group and
class, the score range and every problem of the data, each naming its partition.
"""

from __future__ import annotations

import functools
import os
import threading
import uuid
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._summation import PART, parts
from biofair._typing import By
from biofair._validation import how_many, is_blank, quoted
from biofair.exceptions import SchemaError
from biofair.groups import (
    _attributes_of,
    _check_equal_labels_written_alike,
    _composite_names,
    _factorize_categories,
    _invisible,
    _invisible_problem,
    _label_names,
    _label_text,
    _other_attributes,
    _pair_level_disagreement,
    _unsigned_zeros,
)
from biofair.io import _check_names
from biofair.schema import (
    _READ_ONLY_AS_NAMED,
    _SCORE_SETS,
    _contradiction,
    _misnamed,
    _near_names,
    _refuse_pooling,
    _row,
    _score_problems,
)


class Census(NamedTuple):
    """What the first pass learns about a partitioned score set.

    Returned by :func:`biofair.partitions.census`.

    Attributes
    ----------
    names : list of str
        The groups, in the order of :func:`biofair.scores_by_group`.
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


def _extra(module: str) -> Any:
    """The module ``module`` of the extra ``biofair[dask]`` (Dask, distributed, pyarrow), or a
    ModuleNotFoundError that says how to install it (Python's own named only the module)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            f"biofair.partitions needs {error.name or module}, which is not installed: pip install 'biofair[dask]' "
            "(Dask, distributed and pyarrow), or call the in-memory functions of biofair on a pandas table",
            name=error.name,
        ) from error


def _as_frame(scores: Any):
    """A Dask DataFrame from a Dask DataFrame, a Parquet path or glob, or a Partitioned.

    Raises
    ------
    ModuleNotFoundError
        When Dask or pyarrow is not installed, naming the extra ``biofair[dask]``.
    """
    dd = _extra("dask.dataframe")
    pa = _extra("pyarrow")

    if isinstance(scores, (Partitioned, dd.DataFrame)):
        frame = scores.frame if isinstance(scores, Partitioned) else scores
        _check_unchanged(_known(frame).get("stamps"))  # what is kept about it still holds
        return frame
    if isinstance(scores, str) or hasattr(scores, "__fspath__"):
        footers = _check_files_alike(str(scores))
        try:
            with warnings.catch_warnings():  # Dask's own use of pandas' deprecated inplace=, for a stored index
                warnings.filterwarnings("ignore", message="The inplace keyword in DataFrame")
                frame = dd.read_parquet(str(scores))
        except FileNotFoundError:
            raise FileNotFoundError(f"no Parquet file or folder at {str(scores)!r}") from None
        except pa.ArrowException as error:  # a damaged file, or duplicate names: name the file if Arrow did not
            problem = next(filter(None, map(_unreadable, _files_of(str(scores)))), None)
            raise SchemaError(problem or f"{str(scores)!r} cannot be read as Parquet: {error}") from None
        except ValueError as error:  # a folder without Parquet files: Dask's words
            if "categories must be unique" in str(error):  # hive folders group=1/ and group=01/
                raise SchemaError(
                    f"the folder names of {str(scores)!r} (hive style, column=value/) hold values that read as "
                    "the same number (such as 1 and 01): Dask makes one category of them and fails. Rename "
                    "the folders, or put the column in the files"
                ) from None
            if "No files satisfy" not in str(error):
                raise
            raise FileNotFoundError(f"no Parquet file (*.parquet) in the folder {str(scores)!r}") from None
        if len(frame.columns) == 0:  # what Dask reads from a glob that matches no file
            raise FileNotFoundError(f"no Parquet file matches {str(scores)!r} (or its files have no columns)")
        _check_all_files_read(str(scores), frame)
        if footers:  # read once: the census checks the group columns' types on them
            _context(frame).cache[("footers",)] = footers
        if stored := [name for name in _stored_index(frame) if name is not None]:
            raise SchemaError(
                f"the Parquet files of {str(scores)!r} store the column(s) {stored} as pandas' index (to_parquet "
                "keeps a named index), which Dask takes out of the columns: write them with the index as columns, "
                "table.reset_index().to_parquet(...), or read them with biofair.read_scores, which takes it back"
            )
        return frame
    if isinstance(scores, pd.DataFrame):  # "got DataFrame" read as if a Dask one had been refused
        raise TypeError("scores must be a dask DataFrame or a Parquet path, got a pandas DataFrame: give "
                        "dask.dataframe.from_pandas(scores, npartitions=...), or call the in-memory function "
                        "of biofair, which gives the same result")
    raise TypeError(f"scores must be a dask DataFrame or a Parquet path, got {type(scores).__name__}")


def _check_required(frame, grouping: Sequence[str] = ()) -> None:
    """Refuse, before any pass, local Parquet files of which some lack a score or mated
    column that others have (:func:`_check_files_hold`, naming each), and a frame without
    one (Dask gives a Parquet folder the columns of its first file: here every file lacks
    it), naming a column that differs only in case or spaces. Every partition reported it,
    after a pass over all of them. Also a system, split or subject column so misnamed,
    unless ``grouping`` reads it (it would be ignored; by its name alone, as in memory where
    a system or split column of one value is let through). Also a score column of decimals,
    which a repartitioned frame read through Arrow's cast and the files, read one by one,
    refused as text. Also hive-style folders of missing values, which Dask cannot read
    (:func:`_check_no_missing_keys`)."""
    import pyarrow as pa

    _check_no_missing_keys(frame)
    _check_hive_types(frame)
    if misnamed := _misnamed(list(frame.columns), renaming=_dask_renaming, grouping=grouping):
        raise SchemaError(misnamed)
    _check_files_hold(frame, ("score", "mated"))
    missing = [column for column in ("score", "mated") if column not in frame.columns]
    if missing:
        files = _whole_files(frame)
        first = f"; these are the columns of the first file, {files[0]}" if files else ""
        raise SchemaError(f"missing column(s): {', '.join(missing)}"
                          f"{_near_names(missing, list(frame.columns), renaming=_dask_renaming)}{first}")
    stored = frame["score"].dtype
    if isinstance(stored, pd.ArrowDtype) and pa.types.is_decimal(stored.pyarrow_dtype):
        raise SchemaError(  # each file read by pandas gave Python decimals (dtype object), a repartition Arrow's
            f"column 'score' holds decimals ({stored.pyarrow_dtype}): out of core biofair reads float scores. "
            "Write the files with float64 scores, or read them in memory with biofair.read_scores, which "
            "converts each decimal as its text reads (Arrow's cast, as in dd.read_parquet(path).astype("
            "{'score': 'float64'}), rounds some an ulp off)"
        )


#: The folder name of a missing value (hive style: ``group=__HIVE_DEFAULT_PARTITION__/``), as
#: Spark, Hive and Arrow write it.
_MISSING_KEY = "__HIVE_DEFAULT_PARTITION__"


def _check_no_missing_keys(frame) -> None:
    """Refuse, before any pass, local Parquet files under a hive-style folder of missing
    values (``group=__HIVE_DEFAULT_PARTITION__/``, where Spark and Arrow put the rows whose
    partition column is missing), naming the folder and its rows: Dask failed on them in the
    pass with Arrow's "No non-null segments were available for field 'group'; couldn't infer
    type", naming no folder, file or cause. A row without a group label belongs to no
    group, as in memory, where missing labels are refused."""
    plan = _local_plan(frame)
    keys = (plan[0].get("partition_names") or []) if plan else []
    folders: dict[str, list[str]] = {}  # folder: the files under it
    for file in dict.fromkeys(piece[0] for piece in plan[1]) if keys else ():
        parts = os.path.abspath(file).split(os.sep)
        if folder := next((os.sep.join(parts[: k + 1]) for k, part in enumerate(parts[:-1])
                           if part in {f"{key}={_MISSING_KEY}" for key in keys}), None):
            folders.setdefault(folder, []).append(file)
    if folders:
        folder, files = next(iter(folders.items()))
        key = os.path.basename(folder).split("=", 1)[0]
        footers = _footers(frame)  # None when a footer cannot be read: the rows go uncounted
        rows = "" if footers is None else how_many(sum(footers[os.path.abspath(f)].n_rows for f in files), "row") + " "
        raise SchemaError(
            f"the folder {folder} (hive style, {key}={_MISSING_KEY}: Spark's and Arrow's name for a missing "
            f"{key}) holds {rows}without a {key!r} in {how_many(len(files), 'file')}"
            f"{f', and {len(folders) - 1} more such folder(s)' if len(folders) > 1 else ''}, which Dask cannot "
            f"read (it fails to infer the column's type). Give those rows a {key} (e.g. 'unknown') and write them "
            "again, or move the folder out to leave them out"
        )


def _dask_renaming(renames: dict[str, str]) -> str:
    return f"dd.read_parquet(path).rename(columns={renames!r})"


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
                f"{sides[0]} and {sides[1]} (the data have {list(columns)}{_other_attributes(columns, command=False)})"
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


def _known(frame) -> dict:
    """What is kept about ``frame`` (its context's cache), without making a context."""
    context = _CONTEXTS.get(id(frame))
    return {} if context is None else context.cache


def _cached(frame, key: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per frame object and key."""
    cache = _context(frame).cache
    if key not in cache:
        cache[key] = compute()
    return cache[key]


class _SparseCounts(NamedTuple):
    """A histogram of counts held as its non-zero bins: what a partition's task returns for a
    locating histogram, of which a partition fills a few thousand of 2**18 bins per stream
    (about 100 kB to move between processes instead of several MB)."""

    shape: tuple[int, ...]
    index: NDArray[np.intp]  # flat indices of the non-zero bins
    count: NDArray[np.int64]

    @classmethod
    def of(cls, dense: NDArray[np.int64]) -> _SparseCounts:
        index = np.flatnonzero(dense)
        return cls(dense.shape, index, dense.ravel()[index])

    def dense(self) -> NDArray[np.int64]:
        counts = np.zeros(self.shape, dtype=np.int64)
        counts.ravel()[self.index] = self.count
        return counts


def _add(*parts):
    """The sum of arrays or of sparse counts, or of tuples of them element by element; lists
    are concatenated."""
    if isinstance(parts[0], _SparseCounts):
        return _SparseCounts.of(functools.reduce(np.add, (part.dense() for part in parts)))
    if isinstance(parts[0], tuple):
        return tuple(_add(*same) for same in zip(*parts))
    if isinstance(parts[0], list):
        return [item for part in parts for item in part]
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
    the census), refused before the pass when some local files lack one that others have
    (:func:`_check_files_hold`). ``total``: add the results up on the workers, eight at a
    time, and return the sum (arrays of counts stay off the client until they are one). A frame that reads
    whole local Parquet files, one per partition, is read and computed in one task per file.
    """
    import dask

    context = _context(frame)
    if columns is not None:  # Dask's own tasks read a column a file lacks as missing values, or fail naming no
        _check_files_hold(frame, columns)  # file; read whole, a file without a subject column went unchecked
    if "stamps" not in context.cache:  # the first pass: what the files are as it reads them
        files = _local_files(frame)
        context.cache["stamps"] = None if files is None else _stamps(files)
    else:  # a later pass: the same files, or its counts would be mixed with the ones kept
        _check_unchanged(context.cache["stamps"])
    if columns is not None:
        columns = [c for c in dict.fromkeys(columns) if c in frame.columns]
    if "files" not in context.cache:
        context.cache["files"] = _whole_files(frame)
    if context.cache["files"] is not None:
        files = context.cache["files"]
        name = f"{function.__name__.lstrip('_')}-{uuid.uuid4().hex}"  # the task's name on a dashboard
        tasks = [dask.delayed(_read_and_apply)(file, columns, function, i, *args, dask_key_name=(name, i))
                 for i, file in enumerate(files)]
    else:
        parts = (frame if columns is None else frame[columns]).to_delayed()
        tasks = [dask.delayed(function)(part, i, *args) for i, part in enumerate(parts)]
    while total and len(tasks) > 1:
        tasks = [dask.delayed(_add)(*tasks[i : i + 8]) for i in range(0, len(tasks), 8)]
    _PASSES[0] += 1
    try:
        with warnings.catch_warnings():  # Dask's own use of pandas' deprecated inplace=, as where it is read
            warnings.filterwarnings("ignore", message="The inplace keyword in DataFrame")
            found = dask.compute(*tasks, scheduler=context.scheduler)
    except (KeyError, ValueError) as error:  # pandas' "not in index", Arrow's "No match for FieldRef"
        if columns is None or not any(text in str(error) for text in ("not in index", "No match for FieldRef")):
            raise
        raise SchemaError(
            f"a partition lacks a column this pass reads ({error}): Dask takes the columns of the first "
            f"Parquet file, and a later file does not have them all. Give every file the columns {columns}"
        ) from error
    return found[0] if total else list(found)


def _read_and_apply(file: str, columns: list[str] | None, function: Callable, index: int, *args) -> Any:
    """``function`` on the columns of one Parquet file, read where it runs (one task, no transfer).
    Columns that this file lacks (the frame's columns are those of its first file) are left
    out, for the census to name, instead of failing in the reader."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        part = pd.read_parquet(file, columns=columns)
    except (pa.ArrowException, OSError, KeyError) as error:  # a damaged footer or data page, or a column it lacks
        if problem := _unreadable(file):
            raise SchemaError(f"partition {index}: {problem}") from None
        present = set(pq.read_schema(file).names)
        if columns is None or set(columns) <= present:
            raise SchemaError(f"partition {index}: {file} cannot be read ({' '.join(str(error).split())})") from None
        part = pd.read_parquet(file, columns=[c for c in columns if c in present])
    return function(part, index, *args)


#: The file name endings Dask reads in a folder (its ``parquet_file_extension``); it skips others.
_PARQUET_SUFFIXES = (".parq", ".parquet", ".pq")


def _check_files_alike(path: str) -> dict[str, _Footer] | None:
    """Refuse, before any pass, a local folder or glob from which Dask would leave out data
    without a word: Parquet files of a folder not named ``*.parquet`` (``.parq``, ``.pq``),
    which Dask skips; or a system, split or subject column that some files have and others
    lack (Dask takes the columns of the first file: one it lacks is never read, and the rows
    of several systems were pooled, those of several splits too, and the subjects went
    unchecked). Also a column that is both a hive-style folder key (``group=a/``) and a
    column of the files under it, which Dask fails to merge. Returns the footer of every
    file read (for :func:`_footers`), or None when one cannot be read."""
    import pyarrow as pa
    from pathlib import Path

    files = _files_of(path)
    if Path(path).is_dir():
        skipped = sorted(str(f) for f in Path(path).rglob("*") if f.is_file() and str(f).endswith(_PARQUET_SUFFIXES)
                         and any(p.startswith(("_", ".")) for p in f.relative_to(path).parts))
        if skipped:
            raise SchemaError(
                f"the folder {path!r} holds {how_many(len(skipped), 'file', verbs=('that is', 'that are'))} hidden or "
                f"under a name that starts with '_': {', '.join(skipped[:3])}{' ...' if len(skipped) > 3 else ''} "
                "(Spark's _temporary/ folder, macOS's ._ files?). pandas, pyarrow and Spark skip such files but Dask "
                "reads them, so their rows would be counted: move them out of the folder"
            )
        unnamed = [f for f in files if not f.endswith(_PARQUET_SUFFIXES) and _starts_as_parquet(f)]
        if unnamed:
            raise SchemaError(
                f"the folder {path!r} holds {how_many(len(unnamed), 'Parquet file', verbs=('that is', 'that are'))} "
                f"not named *.parquet: {', '.join(unnamed[:3])}{' ...' if len(unnamed) > 3 else ''}. Dask reads only "
                "files named *.parquet, *.parq or *.pq, so the rows of any other would be left out: give every "
                "Parquet file one of those endings"
            )
        files = [f for f in files if f.endswith(_PARQUET_SUFFIXES)]
    try:
        footers = {os.path.abspath(file): _footer(file) for file in files}
    except (pa.ArrowException, OSError):
        return None  # an unreadable file: the reading that follows names it
    names = {file: set(footers[os.path.abspath(file)].schema.names) for file in files}
    if empty := [file for file in files if not names[file]]:  # Dask takes the first file's columns: none at all
        raise SchemaError(
            f"{path!r} holds {how_many(len(empty), 'Parquet file', verbs=('that has', 'that have'))} no columns (a "
            f"table written without them?): {', '.join(empty[:3])}{' ...' if len(empty) > 3 else ''}. Remove such "
            "files, or write them with the columns of the others"
        )
    for file in files:  # Dask reads every folder name key=value of a file's path (its parents' too) as a column
        if both := [part for part in Path(os.path.abspath(file)).parent.parts
                   if "=" in part and part.split("=", 1)[0] in names[file]]:
            key = both[0].split("=", 1)[0]
            raise SchemaError(
                f"column {key!r} is both in the Parquet files (e.g. {file}) and in the name of a folder above them "
                f"({both[0]}/, hive style, which Dask reads as a column), and Dask cannot read it twice. Drop the "
                f"column from the files (the folder names give it), or rename the folders without '{key}='"
            )
    for column, harm in _READ_ONLY_AS_NAMED.items():
        holders = [file for file, columns in names.items() if column in columns]
        if 0 < len(holders) < len(names):
            lacking = next(file for file in names if column not in names[file])
            raise SchemaError(
                f"column {column!r} is in {len(holders)} of the {len(names)} Parquet files of {path!r} (e.g. "
                f"{holders[0]}) but not in the others (e.g. {lacking}): Dask reads the columns of the first "
                f"file, so it could be left unread ({harm}). Write it in every file"
            )
    return footers


def _check_all_files_read(path: str, frame) -> None:
    """Refuse a local folder of which Dask plans to read other Parquet files than it holds: a
    ``_metadata`` file, which Dask reads instead of listing the folder, written before files
    were added leaves their rows out without a word (and one that names a removed file fails
    in the pass, as an unreadable partition)."""
    from pathlib import Path

    planned = _local_files(frame)
    if not Path(path).is_dir() or planned is None:
        return
    if gone := [file for file in planned if not os.path.isfile(file)]:
        raise SchemaError(f"the _metadata file of the folder {path!r} names "
                          f"{how_many(len(gone), 'file', verbs=('that is', 'that are'))} not there: "
                          f"{', '.join(gone[:3])}{' ...' if len(gone) > 3 else ''}; delete _metadata, or write it "
                          "again from the files")
    read = {os.path.abspath(file) for file in planned}
    unread = [f for f in _files_of(path) if f.endswith(_PARQUET_SUFFIXES) and os.path.abspath(f) not in read]
    if unread:
        reason = ("the folder's _metadata file, which Dask reads instead of the folder, does not name every file "
                  "(written before files were added?): delete _metadata, or write it again from the files"
                  if (Path(path) / "_metadata").is_file() else "Dask's plan does not name every file")
        raise SchemaError(
            f"Dask would not read {how_many(len(unread), 'Parquet file')} of the folder {path!r}, whose rows would be "
            f"left out: {', '.join(unread[:3])}{' ...' if len(unread) > 3 else ''}; {reason}"
        )


class _Footer(NamedTuple):
    """What a Parquet file's footer says about it, read without its data."""

    schema: Any  # pyarrow.Schema
    n_rows: int


def _footer(file: str) -> _Footer:
    import pyarrow.parquet as pq

    metadata = pq.read_metadata(file)  # kept without pandas' metadata, the bulk of a schema
    return _Footer(metadata.schema.to_arrow_schema().remove_metadata(), metadata.num_rows)


def _footers(frame) -> dict[str, _Footer] | None:
    """The footer of every local Parquet file ``frame`` reads, by absolute path: those that
    :func:`_check_files_alike` read for the path it was made from, and the others read now
    (None for any other frame, or when a footer cannot be read: the pass names that file)."""
    import pyarrow as pa

    files = _local_files(frame)
    try:
        return None if files is None else {os.path.abspath(file): _footer_of(frame, file) for file in files}
    except (pa.ArrowException, OSError):
        return None


def _footer_of(frame, file: str) -> _Footer:
    """The footer of one file ``frame`` reads: the one kept with it, else read now."""
    return (_known(frame).get(("footers",)) or {}).get(os.path.abspath(file)) or _footer(file)


def _starts_as_parquet(file: str) -> bool:
    with open(file, "rb") as handle:
        return handle.read(4) == b"PAR1"


def _unreadable(file: str) -> str | None:
    """Why Arrow cannot read ``file`` as a score table (not Parquet, a damaged footer, two
    columns of one name), naming it; None when its schema reads."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        _check_names(pq.read_schema(file).names, file)  # the in-memory reader's check and words
    except (pa.ArrowException, OSError) as error:
        return f"{file} cannot be read as Parquet ({error})"
    except SchemaError as error:
        return str(error)
    return None


def _files_of(path: str) -> list[str]:
    """The files Dask reads for a local Parquet path, folder (recursively, without the hidden
    and ``_``-prefixed files Dask skips) or glob."""
    import glob
    from pathlib import Path

    if Path(path).is_dir():
        return sorted(str(f) for f in Path(path).rglob("*")
                      if f.is_file() and not any(p.startswith(("_", ".")) for p in f.relative_to(path).parts))
    return sorted(f for f in glob.glob(path, recursive=True) if Path(f).is_file())


def _stored_index(frame) -> list[str | None]:
    """The index columns pandas stored in the Parquet files ``frame`` reads (``[None]``: an
    unnamed index), from Dask's plan; none for another frame."""
    try:
        return list(frame.expr._dataset_info.get("index") or [])
    except (AttributeError, KeyError, TypeError):
        return []


def _local_plan(frame) -> tuple[dict, list] | None:
    """Dask's plan of a ``dask.dataframe.read_parquet`` frame of local files: its dataset
    information and the piece (file, row groups, filters) of each partition; None for any
    other frame (in memory, transformed, or on another file system)."""
    expr = getattr(frame, "expr", None)
    try:
        info, parts = expr._dataset_info, expr._plan["parts"]
    except (AttributeError, KeyError, TypeError):
        return None
    if not type(expr).__name__.startswith("ReadParquet") or type(info.get("fs")).__name__ != "LocalFileSystem":
        return None
    pieces = [part.get("piece") if isinstance(part, dict) else None for part in parts]
    return None if not all(isinstance(piece, tuple) for piece in pieces) else (info, pieces)


def _local_files(frame) -> list[str] | None:
    """The local files a ``dask.dataframe.read_parquet`` frame reads (None for any other frame)."""
    plan = _local_plan(frame)
    return None if plan is None else sorted({piece[0] for piece in plan[1]})


def _stamps(files: list[str]) -> dict[str, tuple[int, int] | None]:
    """Size and modification time (ns) of each file; None for one that is gone or unreadable."""
    stamps = {}
    for file in files:
        try:
            stat = os.stat(file)
        except OSError:  # gone, or no longer readable
            stamps[file] = None
        else:
            stamps[file] = (stat.st_size, stat.st_mtime_ns)
    return stamps


def _check_unchanged(stamps: dict[str, tuple[int, int] | None] | None) -> None:
    """Raise when a file changed since the first pass over a frame: what the census and
    earlier passes found (kept for later calls) no longer describes it, and a new pass
    would mix the two (a helper saw negative error counts)."""
    if stamps is None:
        return
    now = _stamps(list(stamps))
    changed = [file for file in stamps if now[file] != stamps[file]]
    if changed:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        raise SchemaError(
            f"{how_many(len(changed), 'Parquet file')} changed or vanished since this score set was first read: "
            f"{shown}. What was counted then no longer describes the files; read them again with a new "
            "biofair.partitions.partitioned(path)"
        )


def _partition_files(frame) -> list[str] | None:
    """The local file each partition of ``frame`` reads (whole, some of its row groups, or
    filtered; under hive-style folders or not), from Dask's plan of a
    ``dask.dataframe.read_parquet`` frame; otherwise None."""
    plan = _local_plan(frame)
    if plan is None or len(plan[1]) != frame.npartitions:
        return None
    return [piece[0] for piece in plan[1]]


def _whole_files(frame) -> list[str] | None:
    """The file of each partition when ``frame`` is ``dask.dataframe.read_parquet`` of whole
    local files, one per partition, without filters, an index column (pandas' unnamed
    index, ``[None]``, which ``DataFrame.to_parquet`` writes by default, is no column and
    counts as none) or columns read from hive-style folder names (``group=a/``, which the
    file itself lacks); otherwise None (the frame's own tasks read it). Reads Dask's plan of
    the files, checked against every way it could differ."""
    files = _partition_files(frame)
    if files is None:
        return None
    info, pieces = _local_plan(frame)
    if (info.get("filters") or any(_stored_index(frame)) or info.get("partition_names")
            or any(piece[1:] != (None, None) for piece in pieces)):
        return None
    return files


def _label_kind(arrow_type: Any) -> str:
    """The kind of labels an Arrow type holds: ``"text"``, ``"integer"``, ``"float"``, or the
    type itself; dictionary-encoded labels are their values' kind."""
    import pyarrow as pa

    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    kinds = {"text": (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view),
             "integer": (pa.types.is_integer,), "float": (pa.types.is_floating,)}
    return next((kind for kind, tests in kinds.items() if any(test(arrow_type) for test in tests)), str(arrow_type))


def _stored_types(footers: dict[str, _Footer], column: str, kind: Callable[[Any], str], *,
                  shown: int = 3) -> str | None:
    """How the local Parquet files of ``footers`` store ``column``, when they store it as more
    than one ``kind`` of Arrow type (e.g. ``int64 in 1 file (a.parquet); string in 2 files
    (b.parquet, c.parquet)``); else None. Files without rows, or whose column holds only
    nulls (Arrow's null type), store nothing."""
    import pyarrow as pa

    where: dict[str, list[tuple[str, str]]] = {}  # kind: (file, its Arrow type) of each file
    for file, footer in footers.items():
        index = footer.schema.get_field_index(column)
        if index >= 0 and footer.n_rows and not pa.types.is_null(stored := footer.schema.field(index).type):
            where.setdefault(kind(stored), []).append((file, str(stored)))
    if len(where) < 2:
        return None
    return "; ".join(f"{places[0][1]} in {how_many(len(places), 'file')} ({', '.join(file for file, _ in places[:shown])}"
                     f"{' ...' if len(places) > shown else ''})" for places in where.values())


def _check_label_types(frame, columns: tuple[list[str], list[str]]) -> None:
    """Refuse, before any pass, a group column of one kind of labels in some local Parquet
    files and another in others (integers here, text there), read from their footers. Read
    whole, such files kept 1 and "1" apart (refused only when both occurred); read by Dask's
    own tasks (hive-style folders, row groups), every file is cast to the first one's type,
    which merged them without a word or failed naming no file."""
    footers = _footers(frame)
    for column in dict.fromkeys(columns[0] + columns[1]) if footers else ():
        if stored_as := _stored_types(footers, column, _label_kind):
            raise SchemaError(
                f"group column {column!r} is stored with different types in the Parquet files: {stored_as}. "
                "Whether labels such as 1 and '1' make one group or two would depend on how the files are read: "
                f"write the column with one type in every file, as text (e.g. table.astype({{{column!r}: str}})"
                ".to_parquet(file))"
            )


#: What Dask's reading of hive-style folders with the first file's type would do to the
#: values of the other files, per column, and how to write the column instead (the type,
#: and the Arrow expression that converts a file's ``table``).
_HIVE_CASTS = {
    "score": ("round or truncate the scores of the others", "float64", "table['score'].cast('float64')"),
    "mated": ("read every non-zero label of the others as mated (True), without a word", "booleans",
              "pc.equal(table['mated'], 1), if 1 marks a mated comparison"),
}


def _check_hive_types(frame) -> None:
    """Refuse, before any pass, local Parquet files under hive-style folders (``group=a/``)
    whose score or mated column is stored with different types (unless the first file's is
    float64 scores, which reads every other exactly, decimals aside: Arrow's cast rounds some
    an ulp off, and a file read alone refuses them): Dask reads every file with the first
    one's type, which rounded float64 scores to float32 without a word (the EER and FDR then
    differed from those of the same rows in memory), failed on floats after integers
    (Arrow's "Float value 1.371 was truncated converting to int64", naming no file), and
    read labels 0, 1 and 2 after booleans as non-mated, mated and mated (a file read alone
    refuses them). Files read whole or in row groups each keep their own type."""
    plan = _local_plan(frame)
    if plan is None or not plan[0].get("partition_names") or (footers := _footers(frame)) is None:
        return
    for column, (harm, written, converted) in _HIVE_CASTS.items():
        stored_as = _stored_types(footers, column, str) if column in frame.columns else None
        if stored_as and (column != "score" or frame[column].dtype != np.float64 or "decimal" in stored_as):
            raise SchemaError(
                f"column {column!r} is stored with different types in the Parquet files: {stored_as}. Dask reads "
                f"the files of hive-style folders (column=value/) with the type of the first one, "
                f"{frame[column].dtype}, which would {harm}: write the column as {written} in every file, e.g. "
                f"pq.write_table(table.set_column(table.schema.get_field_index({column!r}), {column!r}, "
                f"{converted}), path)"
            )


class _Labels(NamedTuple):
    """The group labels of one partition, per attribute of ``by``."""

    reference: list[NDArray[np.intp]]  # codes of the reference side's labels
    probe: list[NDArray[np.intp]]  # codes of the probe side's labels (the same for pair-level)
    texts: list[list[str]]  # the labels the codes stand for, as text
    values: list[pd.Series]  # the distinct labels as stored (to find 1 and "1")


def _labels_of(part: pd.DataFrame, columns: tuple[list[str], list[str]]) -> _Labels:
    """Every label of every attribute as a code into its text, ``str`` of the stored value
    (as :func:`biofair.group_labels`); both sides of an attribute share the codes."""
    labels = _Labels([], [], [], [])
    for pair in zip(*columns):
        names = list(dict.fromkeys(pair))
        both = part[names[0]] if len(names) == 1 else pd.concat([part[name] for name in names], ignore_index=True)
        both = _unsigned_zeros(both)
        codes, values = _factorize_categories(both) if isinstance(both.dtype, pd.CategoricalDtype) else pd.factorize(both)
        _check_equal_labels_written_alike(both, codes, names)  # True and 1 in one partition
        merged, texts = pd.factorize(np.array([_label_text(value) for value in values], dtype=object))
        if len(texts) < len(merged):  # distinct labels that read the same (1 and "1") share a code
            codes = merged[codes]
        labels.reference.append(codes[: len(part)])
        labels.probe.append(codes[len(part) :] if len(names) == 2 else labels.reference[-1])
        labels.texts.append(list(texts))
        labels.values.append(pd.Series(values))
    return labels


def _same_group(labels: _Labels) -> NDArray[np.bool_]:
    """True where both sides of a pair belong to the same group (always, for pair-level columns)."""
    same = np.ones(len(labels.reference[0]), dtype=bool)
    for reference, probe in zip(labels.reference, labels.probe):
        if reference is not probe:
            same &= reference == probe
    return same


def _combinations(labels: _Labels, rows: NDArray[np.bool_] | None) -> tuple[NDArray[np.intp], list[tuple[str, ...]]]:
    """The code of every selected row's combination of reference-side labels (every row's
    for ``rows=None``), and the combinations (one label per attribute, as text; with one
    attribute, every label)."""
    every = slice(None) if rows is None else rows
    if len(labels.texts) == 1:
        return labels.reference[0][every], [(text,) for text in labels.texts[0]]
    key = np.zeros(len(labels.reference[0]) if rows is None else int(rows.sum()), dtype=np.int64)
    for codes, texts in zip(labels.reference, labels.texts):
        key = key * len(texts) + codes[every]
    codes, kept = pd.factorize(key)
    combinations = []
    for code in kept.tolist():  # decode the mixed-radix code
        combination = []
        for texts in reversed(labels.texts):
            code, digit = divmod(code, len(texts))
            combination.append(texts[digit])
        combinations.append(tuple(reversed(combination)))
    return codes, combinations


def _composite_quoted(names: list[str], n_attributes: int) -> bool:
    """Whether the census's composite names quote their labels (see ``_composite_names``).

    Unquoted names hold exactly ``n_attributes - 1`` separators and no other "/"; labels
    are quoted when one of them contains "/", so that some name holds more.
    """
    return any(name.count("/") >= n_attributes for name in names)


def _group_keys(part: pd.DataFrame, census: Census) -> tuple[NDArray, NDArray[np.intp], NDArray[np.bool_]]:
    """Scores (float32 kept, anything else as float64), group codes (-1: cross-group pair)
    and labels of one partition."""
    labels = _labels_of(part, census.columns)
    same = _same_group(labels)
    everyone = same.all()
    codes, combinations = _combinations(labels, None if everyone else same)
    if len(census.columns[0]) == 1:
        names = [combination[0] for combination in combinations]
    else:
        names = _composite_names(combinations, quote=_composite_quoted(census.names, len(census.columns[0])))
    lookup = pd.Index(census.names).get_indexer(names)
    if everyone:  # the partition's codes are often the census's own (every group present, in order)
        group = codes if np.array_equal(lookup, np.arange(lookup.size)) else lookup[codes]
    else:
        group = np.full(len(part), -1, dtype=np.intp)
        group[same] = lookup[codes]
    return _scores(part), group, part["mated"].to_numpy(dtype=bool)


def _scores(part: pd.DataFrame) -> NDArray:
    """The scores of a partition: float32 as they are (half the memory, exact), else float64."""
    values = part["score"].to_numpy()
    return values if values.dtype == np.float32 else values.astype(np.float64, copy=False)


#: Bits of the locating bin: 2**18 bins, 512 per binade of float32 (a factor of 2 in score).
_LOCATING_BITS = 18


def _locating_bins(values: NDArray) -> NDArray[np.int32]:
    """The locating bin of each score: the top ``_LOCATING_BITS`` bits of an order-preserving
    code of the score rounded to float32 (as int32, computed in place in one new array).

    Rounding to float32 is monotone, and the code (the float's bits as a signed integer,
    those of a negative float with the magnitude bits inverted; -0 read as +0) orders as
    the floats do, so ``a <= b`` implies ``bin(a) <= bin(b)``: every bin holds one range of
    scores. No range is needed, so the first pass bins before it knows the scores' range;
    float32 scores are binned by integer operations on their bits, without a conversion.
    """
    with np.errstate(over="ignore"):  # beyond float32's range: infinite, still in order
        single = values.astype(np.float32, copy=False) + np.float32(0)  # a new array; -0.0 + 0.0 = +0.0
    code = single.view(np.int32)
    negative = code >> 31  # -1 (all bits) for a negative float, else 0
    negative &= np.int32(0x7FFFFFFF)
    code ^= negative  # negative floats: larger magnitude, smaller code
    code >>= 32 - _LOCATING_BITS
    code += np.int32(1 << (_LOCATING_BITS - 1))
    return code


def _histogram_key(name: str, *args) -> tuple:
    """Cache key of the locating histogram of the streams ``name`` (a select function's name)
    with ``args`` (a census stands for its group columns)."""
    return ("locate", name, *(repr(a.columns) if isinstance(a, Census) else a for a in args))


# -- pass 1: census -------------------------------------------------------------------------


#: Read by the census passes when the data have them: ``mated`` must say whether they are equal.
_SUBJECTS = ("reference_subject", "probe_subject")


def _problems_of(part: pd.DataFrame, index: int, columns: list[str]) -> list[str]:
    """Everything wrong with one partition, each naming the partition."""
    missing = [c for c in ("score", "mated", *columns) if c not in part.columns]
    if missing:
        return [f"partition {index}: missing column(s) {', '.join(missing)}"]
    if part.empty:  # no row to be wrong about, whatever types its writer gave the columns (Arrow's null)
        return []
    problems = []
    column = part["score"]
    if pd.api.types.is_float_dtype(column.dtype):  # NumPy floats checked as they are; nulls read as NaN
        if column.dtype in (np.float32, np.float64):
            values = column.to_numpy()
        else:
            values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        if bad := _n_not_finite(values):  # as validate_scores words it: a NaN is missing, an inf is not
            n_nan = int(np.count_nonzero(np.isnan(values)))
            problems.append(f"partition {index}: column 'score' has {n_nan:,} NaN and {how_many(bad - n_nan, 'infinite value')}")
    else:  # text, decimals, booleans, integers (beyond 2**53?): refused as in memory, in its words
        problems += [f"partition {index}: {problem}" for problem in _score_problems(column)]
    mated = part["mated"]
    if not pd.api.types.is_bool_dtype(mated):
        hint = ""
        if pd.api.types.is_integer_dtype(mated.dtype) and mated.isin([0, 1]).all():  # read_scores takes them
            hint = "; its labels are 0 and 1: give dd.read_parquet(path).astype({'mated': bool})"
        elif pd.api.types.infer_dtype(np.asarray(mated), skipna=True) == "string":  # as Spark writes true/false
            labels = sorted(pd.unique(np.asarray(mated.dropna(), dtype=object)))
            coded = (", read as a category from a dictionary-encoded column or a hive-style folder name mated=<label>/"
                     if isinstance(mated.dtype, pd.CategoricalDtype) else "")
            hint = (f"; its labels are text ({', '.join(map(quoted, labels[:5]))}{', ...' if len(labels) > 5 else ''})"
                    f"{coded}: give "
                    "dd.read_parquet(path).assign(mated=lambda f: f['mated'] == <the label of mated comparisons>)")
        present = mated.dropna()
        if mated.dtype == object and len(present) < len(mated) and present.map(type).eq(bool).all():
            # an Arrow boolean column with nulls, which pandas reads as objects
            problems.append(f"partition {index}: column 'mated' has {how_many(len(mated) - len(present), 'missing value')}")
        else:
            problems.append(f"partition {index}: column 'mated' must be boolean, got {mated.dtype}{hint}")
    elif n_missing := _n_missing(mated):  # a nullable boolean (pyarrow, "boolean")
        problems.append(f"partition {index}: column 'mated' has {how_many(n_missing, 'missing value')}")
    elif set(_SUBJECTS) <= set(part.columns) and (problem := _contradiction(part)):
        problems.append(f"partition {index}: {problem}")
    for column in columns:
        if n_missing := _n_missing(part[column]):
            problems.append(f"partition {index}: column {column!r} has {how_many(n_missing, 'missing value')}")
    return problems


def _score_sets(part: pd.DataFrame) -> dict[str, NDArray]:
    """The distinct values of each score-set column (``system``, ``split``) a partition has."""
    return {column: pd.unique(part[column].dropna()) for column in _SCORE_SETS if column in part.columns}


def _check_one_set(found: list[dict]) -> None:
    """Refuse partitions that hold several systems or splits together, as in memory."""
    for column in _SCORE_SETS:
        seen = [part["sets"][column] for part in found if column in part["sets"]]
        if seen:
            _refuse_pooling(column, pd.unique(pd.Series(np.concatenate(seen), dtype=object)))


def _n_not_finite(values: NDArray) -> int:
    """NaN and infinite values, counted only when the smallest or largest value (which a
    NaN becomes) is not finite: one pass of min and max where every value is finite."""
    if not values.size or (np.isfinite(values.min()) and np.isfinite(values.max())):
        return 0
    return int(np.count_nonzero(~np.isfinite(values)))


def _n_missing(column: pd.Series) -> int:
    """Missing values of a column: none in a NumPy boolean or integer column; a categorical
    column's read from its codes (-1 where missing) without a mask when their minimum is 0."""
    if isinstance(column.dtype, np.dtype) and column.dtype.kind in "biu":
        return 0
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        return int(np.count_nonzero(codes < 0)) if codes.size and codes.min() < 0 else 0
    return int(column.isna().sum())


def _raise_problems(found: list[list[str]], frame, needed: Sequence[str]) -> None:
    """One error listing the problems of every partition (``found[i]``: those of partition
    ``i``), each followed by the local Parquet file it was read from, when Dask's plan of
    ``frame`` says, and, for files read whole, what that file lacks of ``needed`` (the
    columns the pass read)."""
    files = _partition_files(frame)
    notes = {}
    if any(found) and _whole_files(frame) is not None:
        notes = {i: _lacking_in(frame, files[i], list(dict.fromkeys(needed)), first=files[0])
                 for i, part in enumerate(found) if part}
    problems = [f"{p} (file {files[i]}{notes.get(i, '')})" if files else p
                for i, part in enumerate(found) for p in part]
    if problems:
        raise SchemaError("invalid score partitions:\n- " + "\n- ".join(problems))


def _lacking_in(frame, file: str, needed: list[str], *, first: str) -> str:
    """What a file of ``frame``, read whole, lacks of ``needed`` and may hold misnamed: its
    columns, those that ``frame`` (Dask's columns: those of its ``first`` file) lacks, and
    the renaming to write it with; "" when it has no column the first file lacks. (Dask's
    own tasks read no file that lacks a column another has: :func:`_check_files_hold`
    refuses it first.)"""
    import pyarrow as pa

    try:
        names = _footer_of(frame, file).schema.names
    except (pa.ArrowException, OSError):  # gone since it was read: the problem stands as found
        return ""
    lacking = [column for column in needed if column not in names]
    if not lacking or not [column for column in names if column not in frame.columns]:
        return ""
    return (f", whose columns are {', '.join(map(repr, names))}"
            + _rewrite(names, lacking, like=(first, list(frame.columns)), first=True))


def _rewrite(names: list[str], lacking: list[str], *, like: tuple[str, list[str]] | None, first: bool) -> str:
    """How to repair a file whose columns are ``names`` and which lacks ``lacking``: write it
    again with the names of the file ``like`` (its path and its columns, which include
    ``lacking``; ``first``: the first file Dask reads), renaming those of its columns that
    file does not have; or, when there are none or no such file, with every column."""
    extra = [column for column in names if like is not None and column not in like[1]]
    if not extra:
        return ": write every column in every file"
    renames = dict(zip(extra, lacking)) if len(extra) == len(lacking) == 1 else {f"<{c} column>": c for c in lacking}
    which = f"the first file, {like[0]}, has" if first else f"{like[0]} has {', '.join(map(repr, lacking))} and"
    return (f"; {which} no {', '.join(map(repr, extra))}: if misnamed, write this file again with "
            f"{'the first' if first else 'that'} file's names, e.g. "
            f"pq.write_table(pq.read_table(path).rename_columns({renames!r}), path)")


def _check_files_hold(frame, required: Sequence[str]) -> None:
    """Refuse, from the footers of the local Parquet files ``frame`` reads (no pass), files
    without a ``required`` column that other files have: Dask gives the frame the columns of
    its first file, so such a file failed in the pass (``KeyError``, naming no file, when
    Dask reads row groups), was read as missing values (under hive-style folders, filtered),
    or was named only after a pass over every other file; and when the first file was the
    odd one, the frame lacked the column and renaming the frame would break the others. Also
    a ``required`` column that no file has but the files name differently ('Score' here,
    'SCORE' there), for which no renaming of the frame fits every file. Names each such file,
    its partitions, its columns and the renaming to write it with. The columns of hive-style
    folder names (``group=a/``) are in no file, and are not looked for. Checked once per
    frame and set of columns."""
    checked, files = ("held", *required), _partition_files(frame)
    if files is None or checked in _known(frame) or (footers := _footers(frame)) is None:
        return
    keys = _local_plan(frame)[0].get("partition_names") or []
    required = [column for column in dict.fromkeys(required) if column not in keys]
    names = {file: footers[os.path.abspath(file)].schema.names for file in dict.fromkeys(files)}
    somewhere = {column for held in names.values() for column in held}
    near = {file: {column: next((name for name in held if str(name).strip().lower() == column), None)
                   for column in required if column not in somewhere} for file, held in names.items()}
    unlike = [column for column in required
              if column not in somewhere and len({near[file][column] for file in names}) > 1]
    lacking = {file: [column for column in required
                      if column not in held and (column in somewhere or column in unlike)] for file, held in names.items()}
    if not any(lacking.values()):  # a column that every file lacks alike: the frame's own check names it
        _context(frame).cache[checked] = True
        return
    complete = next((file for file in names if not lacking[file]), None)
    like = None if complete is None else (complete, names[complete])
    problems = []
    for file in filter(lacking.get, names):
        partitions = [str(i) for i, read in enumerate(files) if read == file]
        elsewhere = [column for column in lacking[file] if column in somewhere]
        own = {near[file][column]: column for column in lacking[file] if column in unlike and near[file][column]}
        if elsewhere or not own:
            advice = _rewrite(names[file], elsewhere, like=like, first=complete == files[0])
        else:
            spelt = dict.fromkeys(near[other][column] for column in own.values() for other in names)
            advice = (f"; no file has {', '.join(map(repr, own.values()))}, and the files name it "
                      f"{', '.join(repr(name) for name in spelt if name)}: no renaming of the frame fits them all, "
                      "write this file again with its own names, e.g. "
                      f"pq.write_table(pq.read_table(path).rename_columns({own!r}), path)")
        problems.append(
            f"partition{'s' if len(partitions) > 1 else ''} {', '.join(partitions)}: missing column(s) "
            f"{', '.join(lacking[file])} (file {file}, whose columns are {', '.join(map(repr, names[file]))}{advice})"
        )
    raise SchemaError("invalid score partitions:\n- " + "\n- ".join(problems))


def _blank_labels(part: pd.DataFrame, labels: _Labels, columns: tuple[list[str], list[str]], index: int) -> list[str]:
    """The problem of group labels that are empty or white space only, per column: they name
    no group, as an empty cell does (the in-memory check refuses them as missing labels); and
    that of labels that print as nothing (a zero-width space), refused as in memory."""
    problems = []
    for side, codes_of in ((0, labels.reference), (1, labels.probe)):
        for k, column in enumerate(columns[side]):
            if side == 1 and column == columns[0][k]:  # a pair-level column, read once
                continue
            blank = [code for code, text in enumerate(labels.texts[k]) if is_blank(text)]
            rows = int(np.isin(codes_of[k], blank).sum()) if blank else 0
            if rows:  # an unused category "" names no row
                problems.append(f"partition {index}: column {column!r} has {how_many(rows, 'blank label')} (empty or "
                                "white space only), which name no group, as missing labels do; give them a label (e.g. "
                                "'unknown') and write the file again")
            invisible = [code for code, text in enumerate(labels.texts[k]) if _invisible(text)]
            if invisible and (unseen := np.isin(codes_of[k], invisible)).any():  # as in memory, with its row
                seen = [labels.texts[k][code] for code in np.unique(codes_of[k][unseen]).tolist()]
                problem = _invisible_problem(column, seen, int(unseen.sum()), _row(part, int(unseen.argmax())))
                problems.append(f"partition {index}: {problem} and write the file again")
    return problems


def _census_part(part: pd.DataFrame, index: int, columns: tuple[list[str], list[str]],
                 shadowed: Sequence[tuple[str, list[str]]] = ()) -> dict:
    """Problems of one partition, or its distinct labels of every attribute, its counts per
    (combination of labels, class), cross pairs and range, and the counts and range of each
    class over all pairs (for the metrics that ignore groups). ``shadowed``: each attribute
    read from its pair-level column whose per-side columns the data also have, with them."""
    problems = _problems_of(part, index, list(dict.fromkeys(columns[0] + columns[1])))
    problems = problems or [f"partition {index}: {problem}" for attribute, sides in shadowed
                            if set(sides) <= set(part.columns) and not part.empty
                            and (problem := _pair_level_disagreement(part, attribute, sides))]
    if problems:
        return [{"problems": problems}], *_census_histograms(None, None, None)
    values = _scores(part)
    labels = _labels_of(part, columns)
    if blank := _blank_labels(part, labels, columns, index):
        return [{"problems": blank}], *_census_histograms(None, None, None)
    homogeneous = _same_group(labels)
    mated = part["mated"].to_numpy(dtype=bool)
    everyone = homogeneous.all()
    if not everyone and (split := ~homogeneous & mated).any():  # refused as in memory
        return [{"problems": [
            f"partition {index}: {how_many(int(split.sum()), 'mated comparison', verbs=('has', 'have'))} "
            f"{', '.join(columns[0])} different from "
            f"{', '.join(columns[1])} (first in {_row(part, int(split.argmax()))}); a mated comparison belongs "
            "to one group: correct the attributes or give a pair-level column"
        ]}], *_census_histograms(None, None, None)
    codes, combinations = _combinations(labels, None if everyone else homogeneous)
    pairs = np.bincount(codes * 2 + (mated if everyone else mated[homogeneous]), minlength=2 * len(combinations))
    counts = {c: (int(m), int(n)) for c, (n, m) in zip(combinations, pairs.reshape(-1, 2))}
    # one attribute: every label of either side is a group already (_combinations lists them all);
    # several: add every combination either side has (one seen in cross pairs only, too)
    if len(columns[0]) > 1 and not everyone:
        for side in (labels, labels._replace(reference=labels.probe)):
            counts |= {c: (0, 0) for c in _combinations(side, None)[1] if c not in counts}
    classes = _class_counts(values, mated)
    if everyone:  # every pair within one group: the groups' range is the classes'
        low, high, cross = classes["low"], classes["high"], 0
    else:
        kept = values[homogeneous]
        low, high = (float(kept.min()), float(kept.max())) if kept.size else (np.inf, -np.inf)
        cross = int((~homogeneous & ~mated).sum())
    return [{
        "problems": [],
        "sets": _score_sets(part),
        "values": labels.values,
        "counts": counts,
        "cross": cross,
        "low": low,
        "high": high,
        "classes": classes,
    }], *_census_histograms(values, mated, None if everyone else homogeneous)


def _census_histograms(values: NDArray | None, mated: NDArray[np.bool_] | None,
                       homogeneous: NDArray[np.bool_] | None) -> tuple[_SparseCounts, _SparseCounts]:
    """Locating histograms of a partition on speculation: both classes (streams 0 non-mated,
    1 mated) and the homogeneous non-mated scores (the pooled thresholds'); zeros without data."""
    n_bins = 1 << _LOCATING_BITS
    if values is None:
        return _SparseCounts((2, n_bins), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64)), \
            _SparseCounts((1, n_bins), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64))
    # the mated stream after the other, keyed part by part in cache; in 64 bits, which
    # bincount would otherwise make in a copy
    stream_and_bin = np.empty(values.size, dtype=np.int64)
    for start, stop in parts(values.size, part=PART):
        key = stream_and_bin[start:stop]
        np.multiply(mated[start:stop], np.int64(n_bins), out=key)
        key += _locating_bins(values[start:stop])
    classes = _SparseCounts.of(np.bincount(stream_and_bin, minlength=2 * n_bins).reshape(2, n_bins))
    if homogeneous is None or homogeneous.all():
        nonmated = classes.index < n_bins  # stream 0 comes first
        return classes, _SparseCounts((1, n_bins), classes.index[nonmated], classes.count[nonmated])
    homogeneous_nonmated = np.bincount(stream_and_bin[homogeneous & ~mated], minlength=n_bins)[None]
    return classes, _SparseCounts.of(homogeneous_nonmated)


def _group_names(found: list[dict], columns: tuple[list[str], list[str]],
                 files: list[str] | None = None) -> tuple[list[str], NDArray, NDArray]:
    """The groups of all partitions, named and ordered as :func:`biofair.group_labels` does,
    with their mated and homogeneous non-mated counts.

    Raises
    ------
    SchemaError
        When a group column holds two distinct labels that read the same (``1`` and ``"1"``),
        in one partition or in two.
    """
    order = []  # per attribute, the rank of each label in the in-memory order
    for k, pair in enumerate(zip(*columns)):
        pair = list(dict.fromkeys(pair))
        _, labels = pd.factorize(pd.concat([part["values"][k] for part in found], ignore_index=True), sort=True)
        order.append({name: rank for rank, name in enumerate(_label_names(labels, pair))})
    counts: dict[tuple[str, ...], NDArray] = {}
    for part in found:
        for combination, pair in part["counts"].items():
            counts[combination] = counts.get(combination, np.zeros(2, dtype=np.int64)) + pair
    for combination in counts:
        for k, (label, ranks, pair) in enumerate(zip(combination, order, zip(*columns))):
            if label not in ranks:
                raise SchemaError(f"column(s) {list(dict.fromkeys(pair))} hold equal labels written "
                                  f"differently (one reads {quoted(label)}): {_stored_as(found, k, files)}; "
                                  "store the labels as text")
    combinations = sorted(counts, key=lambda c: [ranks[label] for label, ranks in zip(c, order)])
    names = [c[0] for c in combinations] if len(columns[0]) == 1 else _composite_names(combinations)
    sizes = np.array([counts[c] for c in combinations], dtype=np.int64).reshape(-1, 2)
    return names, sizes[:, 0], sizes[:, 1]


def _stored_as(found: list[dict], k: int, files: list[str] | None, shown: int = 3) -> str:
    """How each partition stores the labels of attribute ``k`` (e.g. ``int64 in partition 0
    (file a.parquet); float64 in partition 1 (file b.parquet)``), the first few of each type."""
    where: dict[str, list[str]] = {}
    for i, part in enumerate(found):
        where.setdefault(str(part["values"][k].dtype), []).append(f"{i} (file {files[i]})" if files else str(i))
    return "; ".join(f"{dtype} in partition{'s' if len(places) > 1 else ''} {', '.join(places[:shown])}" + (
        f" and {len(places) - shown} more" if len(places) > shown else "") for dtype, places in where.items())


def census(scores: Any, *, by: By = "group") -> Census:
    """Pass 1: check every partition and count comparisons per group and class.

    Read more in the chapter "When the evaluation outgrows one machine".

    Parameters
    ----------
    scores : dask.dataframe.DataFrame or str
        Partitioned score table (or a Parquet path or glob) with ``score``, ``mated`` and
        the group column(s) of ``by`` (pair-level, or ``reference_<attr>`` and
        ``probe_<attr>``). Note that ``dask.dataframe.from_pandas`` turns object columns
        into strings by default (``dataframe.convert-string``), so ``1`` and ``"1"`` merge
        before the census sees them: store group labels as text.
    by : str or sequence of str, default "group"
        The grouping attribute(s); several combine into one group per combination that
        either side of a comparison has (one seen only in cross-group pairs is a group
        without comparisons, refused as such). Groups are named and ordered as
        :func:`biofair.group_labels` names them: labels as text, several joined by " / "
        (every label quoted when one contains "/").

    Returns
    -------
    Census
        Group names, counts per group and class, cross-group count, score range.

    Raises
    ------
    SchemaError
        Before any pass, when a group column holds labels of one kind in some local Parquet
        files and of another in others (integers, text), naming a file of each type, a
        column is both in the files and in a hive-style folder name (``group=a/``), rows are
        under a hive-style folder of missing values (``group=__HIVE_DEFAULT_PARTITION__/``,
        which Dask cannot read), files under hive-style folders store the score column with
        different types and the first one's is not float64, or the mated column with
        different types (Dask would read every file with the first one's), or some
        local Parquet files lack a score or mated column that others have, or all lack it
        but name it differently ('Score' in one, 'SCORE' in another), naming each with its
        partitions, its columns and the renaming to write it with (read from the files'
        footers, whether Dask reads them whole, in row groups or under hive-style folders,
        and whichever file is the odd one, the first too); the same for a group or subject
        column, however the files are read. Else
        listing every problem with its partition, and its file when the partitions are
        local Parquet files (missing columns, with that file's columns and the renaming to
        write it with when it has a column the first file lacks, NaN or infinite scores,
        scores stored as text, decimals, booleans or integers beyond ``±2**53`` as
        :func:`biofair.validate_scores` words them, non-boolean or missing labels, labels that contradict
        ``reference_subject == probe_subject`` where the data have both, missing group
        labels, mated comparisons whose two sides' groups differ, a pair-level group column
        that disagrees with the per-side columns the data also have), then several systems or
        splits (columns ``system``, ``split``) that a metric would pool, then two distinct
        labels of a group column that read the same (``1`` and ``"1"``) or two equal labels
        written differently (``True`` and ``1``), then partitions without a row, then fewer
        than two groups or a group without mated or homogeneous non-mated comparisons (named,
        with its counts).
    FileNotFoundError
        When ``scores`` is a Parquet path or glob that matches no file.
    ValueError
        When ``by`` is empty, names a column twice or names "score" or "mated".
    TypeError
        When ``by`` is not a column name or a list of column names.
    ModuleNotFoundError
        When Dask or pyarrow is not installed: ``pip install 'biofair[dask]'``.

    See Also
    --------
    biofair.partitions.partitioned : The census with its frame, to pass to several functions.
    biofair.group_sizes : The same counts of an in-memory table.

    Notes
    -----
    The same pass counts, on speculation, the scores of each class and the pooled
    homogeneous non-mated scores on 2**18 locating bins (the top bits of each score's
    float32 code, which need no score range): kept with the frame, they locate the order
    statistics of the thresholds, the EER, TMR at FMR and the partial AUC without a pass.

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
    _check_required(frame, grouping=[c for name in _attributes_of(by) for c in (name, f"reference_{name}", f"probe_{name}")])
    try:
        columns = _group_columns(list(frame.columns), by)
    except SchemaError as error:  # Dask reads the columns of the first file only: say so
        if files := _whole_files(frame):
            raise SchemaError(f"{error}; these are the columns of the first file, {files[0]}") from None
        raise
    _check_label_types(frame, columns)
    # the per-side columns of an attribute read from its pair-level column: read to check they agree
    shadowed = [(attribute, sides) for attribute in _attributes_of(by) if attribute in frame.columns
                and set(sides := [f"reference_{attribute}", f"probe_{attribute}"]) <= set(frame.columns)]
    found, classes, homogeneous = _on_partitions(
        frame, _census_part, columns, shadowed,
        columns=["score", "mated", *_SUBJECTS, *_SCORE_SETS, *columns[0], *columns[1],
                 *(side for _, sides in shadowed for side in sides)],
        total=True)
    cache = _context(frame).cache
    _raise_problems([part["problems"] for part in found], frame, ["score", "mated", *columns[0], *columns[1]])
    _check_one_set(found)
    cache.setdefault(("classes",), _classes_from([part["classes"] for part in found]))
    cache.setdefault(_histogram_key("by_class"), classes.dense())  # what later passes locate on
    cache.setdefault(_histogram_key("homogeneous_nonmated", repr(columns)), homogeneous.dense())
    names, n_mated, n_nonmated = _group_names(found, columns, _partition_files(frame))
    result = Census(
        names, columns, n_mated, n_nonmated,
        sum(part["cross"] for part in found), min(part["low"] for part in found),
        max(part["high"] for part in found), len(found),
    )
    empty = [
        f"group {quoted(name)} has {m} mated and {n} homogeneous non-mated comparisons; both are needed"
        for name, m, n in zip(names, result.n_mated, result.n_nonmated) if m == 0 or n == 0
    ]
    if not names and not result.n_cross:  # as in memory, where an empty table is refused first
        raise SchemaError("invalid score partitions:\n- the partitions hold no rows")
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
        (``"tcp://host:8786"``; a client is connected to it, not made the default one, and
        closed when the data are dropped: ``del data`` before the cluster closes), a
        ``Client``, or one of Dask's schedulers on this machine by name (``"threads"``,
        ``"processes"``, ``"synchronous"``). Without it, Dask's current scheduler (the
        default client if there is one).
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
        When ``by`` is empty, names a column twice or names "score" or "mated", ``scores`` is
        a ``Partitioned`` made for another ``by``, or ``scheduler`` is text that is neither an
        address with a port nor a local scheduler's name.
    TypeError
        When ``by`` is not a column name or a list of column names.
    OSError
        When no Dask scheduler answers at the ``scheduler`` address within 60 s (a
        dashboard's address, a refused port), naming it.
    ModuleNotFoundError
        When Dask or pyarrow (or, for a scheduler's address, distributed) is not installed:
        ``pip install 'biofair[dask]'``.
    SchemaError
        When, given a ``Partitioned`` (or a frame read before), a local Parquet file it reads
        has changed size or modification time, or is gone, since the first pass over it:
        what was counted then no longer describes the files (every function of
        :mod:`biofair.partitions` checks this before it uses or reads anything).

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
        _check_unchanged(_known(scores.frame).get("stamps"))
        if scores.census.columns != _group_columns(list(scores.frame.columns), by):
            raise ValueError(f"this census was made for other group columns than by={by!r}")
        if scheduler is not None:
            _context(scores.frame).scheduler = _client(scheduler, scores.frame)
        return scores
    frame = _as_frame(scores)
    if scheduler is not None:
        _context(frame).scheduler = _client(scheduler, frame)
    return Partitioned(frame, census(frame, by=by))


#: Dask's schedulers on this machine, by the names ``dask.compute(scheduler=...)`` takes.
_LOCAL_SCHEDULERS = ("threads", "processes", "synchronous", "sync", "single-threaded")


def _client(scheduler: Any, frame) -> Any:
    """The client given, one of Dask's local schedulers by name, or a distributed ``Client``
    for a scheduler address that is closed when ``frame`` is dropped (a client left open
    keeps trying to reach its scheduler)."""
    if not isinstance(scheduler, str) or scheduler in _LOCAL_SCHEDULERS:
        return scheduler
    if ":" not in scheduler:  # distributed's "missing port number in address 'processes'"
        raise ValueError(
            f"scheduler must be a Dask scheduler's address with its port ('tcp://host:8786'), a distributed "
            f"Client, or one of Dask's local schedulers {', '.join(map(repr, _LOCAL_SCHEDULERS))}; got {scheduler!r}"
        )
    client = _connected(scheduler)
    weakref.finalize(frame, client.close)
    return client


#: How long :func:`_connected` waits for a scheduler to answer.
_CONNECT_SECONDS = 60


def _connected(address: str) -> Any:
    """A distributed ``Client`` of the scheduler at ``address``, or an OSError that names the
    address within ``_CONNECT_SECONDS``. ``Client`` alone waited forever on an address that
    is no Dask scheduler's (a web server: the dashboard's port, 8787) and ran out of memory
    on another (it read an HTTP answer as the length of a message): it runs in a thread of
    its own, abandoned if it does not return in time."""
    distributed = _extra("distributed")
    outcome: dict[str, Any] = {}

    def connect() -> None:
        try:
            outcome["client"] = distributed.Client(address, set_as_default=False, timeout=f"{_CONNECT_SECONDS}s")
        except Exception as error:  # whatever it is (a MemoryError from an HTTP answer), the message names it
            outcome["error"] = error

    thread = threading.Thread(target=connect, name="biofair-connect", daemon=True)
    thread.start()
    thread.join(_CONNECT_SECONDS)
    if "client" in outcome:
        return outcome["client"]
    error = outcome.get("error")
    what = f"within {_CONNECT_SECONDS} s" if error is None else f"({type(error).__name__}: {error})"
    raise OSError(
        f"no Dask scheduler answered at {address!r} {what}. Give the scheduler's address (tcp://host:8786, as "
        "the scheduler prints it when it starts, or client.scheduler.address), not its dashboard's "
        "(http://host:8787); for a tls:// scheduler, pass a distributed Client made with its security settings"
    ) from error


class _ClassCensus(NamedTuple):
    """Counts and range of all comparisons, groups ignored (for metrics over all pairs)."""

    n_mated: int
    n_nonmated: int
    low: float  # smallest score
    high: float  # largest score


def _class_counts(values: NDArray, mated: NDArray[np.bool_]) -> dict:
    return {"n_mated": int(np.count_nonzero(mated)), "n": values.size,
            "low": float(values.min()) if values.size else np.inf,
            "high": float(values.max()) if values.size else -np.inf}


def _class_census_part(part: pd.DataFrame, index: int) -> tuple[list[dict], NDArray]:
    """Problems or class counts of one partition, and both classes' locating histogram."""
    if problems := _problems_of(part, index, []):
        return [{"problems": problems}], _census_histograms(None, None, None)[0]
    values, mated = _scores(part), part["mated"].to_numpy(dtype=bool)
    return [{"problems": [], "sets": _score_sets(part), **_class_counts(values, mated)}], \
        _census_histograms(values, mated, None)[0]


def _classes_from(found: list[dict]) -> _ClassCensus:
    n_mated = sum(part["n_mated"] for part in found)
    n_nonmated = sum(part["n"] for part in found) - n_mated
    return _ClassCensus(n_mated, n_nonmated, min(part["low"] for part in found),
                        max(part["high"] for part in found))


def _class_census(frame) -> _ClassCensus:
    """Check every partition (``score`` and ``mated``, and the subject ids where the data
    have them) and count each class; no pass when the census of this frame has counted
    them already.

    Raises
    ------
    SchemaError
        Naming each partition's problems, or a class without comparisons.
    """

    def count() -> _ClassCensus:
        _check_required(frame)
        found, classes = _on_partitions(frame, _class_census_part, columns=["score", "mated", *_SUBJECTS, *_SCORE_SETS],
                                        total=True)
        _raise_problems([part["problems"] for part in found], frame, ["score", "mated"])
        _check_one_set(found)
        _context(frame).cache.setdefault(_histogram_key("by_class"), classes.dense())  # what later passes locate on
        return _classes_from(found)

    counts = _cached(frame, ("classes",), count)
    if counts.n_mated == 0 or counts.n_nonmated == 0:
        raise SchemaError(f"column 'mated' marks {counts.n_mated} mated and {counts.n_nonmated} non-mated "
                          "comparisons; both classes are needed")
    return counts
