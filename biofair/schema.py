"""The score table: one row per comparison, checked in one place.

Canonical columns: ``score`` (float, higher = more similar) and ``mated`` (bool) are
required; ``group``, ``reference_subject``, ``probe_subject``, ``reference_group``,
``probe_group``, ``system`` and ``split`` are optional. Read more in the chapter
"Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import decimal
import numbers
import unicodedata
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._typing import Unit
from biofair._validation import how_many, inexact_integers, long_double_problem, quoted
from biofair.exceptions import SchemaError

_REQUIRED_COLUMNS = ("score", "mated")
_OPTIONAL_COLUMNS = (
    "group",
    "reference_subject",
    "probe_subject",
    "reference_group",
    "probe_group",
    "system",
    "split",
)
#: The columns a score table may have: ``score`` and ``mated`` (required), then the optional ones.
CANONICAL_COLUMNS = _REQUIRED_COLUMNS + _OPTIONAL_COLUMNS
_GROUP_COLUMNS = ("group", "reference_group", "probe_group")


#: ``attrs`` key of a table just read from a file: what its rows are called there ("data row",
#: "comparison", "score number"), when row label i is the (i + 1)-th of them (set and removed by
#: :mod:`biofair.io`'s readers), so that messages name the row as the file numbers it.
_FILE_ROWS = "biofair_file_rows"
#: ``attrs`` key of a table just read from a text file: its field separator ("," "\t" ";", or
#: ``r"\s+"`` for a bob file or a score list), so that a message says how to read its numbers
#: (set and removed by :mod:`biofair.io`'s readers).
_FILE_SEPARATOR = "biofair_file_separator"


def _row(rows: pd.DataFrame | pd.Series, position: int) -> str:
    """How a message names the row at ``position``: "data row N" (from 1, as a spreadsheet
    numbers the rows under the header; "comparison N" in a bob file, "score number N" in a
    list of scores) while a reader checks a table it has just read, otherwise "row <label>"
    (the table's own row label)."""
    label = rows.index[position]
    if noun := rows.attrs.get(_FILE_ROWS):
        return f"{noun} {label + 1}"
    return f"row {label.item() if isinstance(label, np.generic) else quoted(label)}"


def _missing_groups_fix(column: str, *, blank: bool = False) -> str:
    """How to give comparisons without a label in ``column`` a group (the same words wherever
    a group label is missing: :func:`validate_scores` and the grouping functions); with
    ``blank``, how to fill the labels that are empty or white space only too."""
    fill = f"scores.fillna({{{column!r}: 'unknown'}})"
    if blank:
        fill = f"scores.replace({{{column!r}: r'^\\s*$'}}, 'unknown', regex=True).{fill.removeprefix('scores.')}"
    return (
        "Give them a group of their own, '(missing)', with read_grouped_scores(..., missing_groups='group') "
        f"(biofair report --missing-groups group), or fill them yourself, e.g. {fill}"
    )


def _check_table(scores: object, *, name: str = "scores", groups: bool = False) -> None:
    """Raise unless ``scores`` is a pandas DataFrame whose columns have distinct names (with two
    columns of one name, ``scores[name]`` is a table, and no column can be read). The type
    error calls the table by its argument's ``name`` and, with ``groups``, says that a
    :class:`biofair.ScoresByGroup` is accepted too.

    Raises
    ------
    TypeError
        Naming the type and its module (a polars or pyarrow table is no pandas DataFrame), and
        how to convert it.
    SchemaError
        Naming the duplicate column names.
    """
    if not isinstance(scores, pd.DataFrame):
        module = type(scores).__module__.partition(".")[0]
        kind = type(scores).__qualname__ if module == "builtins" else f"{module}.{type(scores).__qualname__}"
        if hasattr(scores, "to_pandas"):  # polars, pyarrow, cudf ...
            advice = f": convert it with {name}.to_pandas()"
        elif isinstance(scores, dict):
            advice = f": make one with pd.DataFrame({name})"
        else:
            advice = ""
        accepted = "a pandas DataFrame or a biofair.ScoresByGroup" if groups else "a pandas DataFrame"
        raise TypeError(f"{name} must be {accepted}, got {kind}{advice}")
    duplicated = scores.columns[scores.columns.duplicated()].unique().tolist()
    if duplicated:
        raise SchemaError(f"invalid score table:\n- duplicate column name(s): {duplicated}")


#: What :func:`pandas.api.types.infer_dtype` calls ids that are all numbers.
_NUMBER_KINDS = frozenset({"integer", "floating", "mixed-integer-float", "boolean", "decimal", "complex"})
_IDS_AS_TEXT = (
    "Read the ids as text in every table, e.g. pd.read_csv(path, dtype={'reference_subject': str, "
    "'probe_subject': str}), which keeps ids such as '007' as written, or convert them one way "
    "(table[column].astype(str))"
)


def _first_of_each_type(ids: pd.Series) -> dict[type, object]:
    """The first distinct id of each Python type (a loop over distinct ids, for the few
    columns ``infer_dtype`` calls mixed)."""
    first: dict[type, object] = {}
    for value in pd.unique(ids.dropna().astype(object)):
        first.setdefault(type(value), value)
    return first


def _id_kind(ids: pd.Series) -> str:
    """``"numbers"``, ``"text"``, ``"mixed"`` (ids of several types, such as 1 and "1"),
    ``"other"`` (ids of one other type: bytes, dates, tuples) or ``""`` (no id)."""
    values = ids.cat.categories if isinstance(ids.dtype, pd.CategoricalDtype) else ids
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred == "empty":
        return ""
    if inferred == "string":
        return "text"
    if inferred in _NUMBER_KINDS:
        return "numbers"
    if inferred in ("mixed", "mixed-integer") and len(_first_of_each_type(pd.Series(values))) > 1:
        return "mixed"
    return "other"


def _number_kinds(ids: pd.Series) -> set[str]:
    """Whether ``ids`` holds ``"booleans"``, other ``"numbers"``, or both (or neither: text)."""
    values = ids.cat.categories.to_series() if isinstance(ids.dtype, pd.CategoricalDtype) else ids
    if pd.api.types.is_bool_dtype(values.dtype):
        return {"booleans"}
    if values.dtype != object:
        return {"numbers"} if pd.api.types.is_numeric_dtype(values.dtype) else set()
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred == "boolean":
        return {"booleans"}
    if inferred not in ("mixed", "mixed-integer"):  # one kind: numbers, text, or other objects
        return {"numbers"} if inferred in ("integer", "floating", "mixed-integer-float", "decimal") else set()
    types = values.dropna().map(type).unique()  # several types (a few columns): each value's own
    return ({"booleans"} if any(issubclass(t, (bool, np.bool_)) for t in types) else set()) | (
        {"numbers"} if any(issubclass(t, numbers.Number) and not issubclass(t, (bool, np.bool_)) for t in types)
        else set())


def _check_booleans_apart(columns: dict[str, pd.Series], *, what: str = "subject") -> None:
    """Raise when ids compared with one another are booleans in one column and other numbers in
    another, or both in one: ``True == 1`` and ``False == 0`` in Python and in pandas' hashing,
    so ``isin``, ``factorize`` and ``reindex`` read the id ``True`` as the id ``1``."""
    kinds = {name: _number_kinds(ids) for name, ids in columns.items()}
    fix = "convert them one way (e.g. table[column].astype(int), or to text)"
    for name, kind in kinds.items():
        if kind == {"booleans", "numbers"}:
            raise SchemaError(f"{name} holds {what} ids that are booleans and other numbers (True and 1): True == 1 "
                              f"and False == 0, so {what} True would be read as {what} 1; {fix}")
    booleans = [f"{name} ({columns[name].dtype})" for name, kind in kinds.items() if kind == {"booleans"}]
    others = [f"{name} ({columns[name].dtype})" for name, kind in kinds.items() if kind == {"numbers"}]
    if booleans and others:
        raise SchemaError(f"{what} ids are booleans in {', '.join(booleans)} but other numbers in {', '.join(others)}: "
                          f"True == 1 and False == 0, so {what} True would be read as {what} 1; {fix}")


def _check_ids_of_one_kind(columns: dict[str, pd.Series], *, what: str = "subject", hint: str = _IDS_AS_TEXT) -> None:
    """Raise when subject ids that are compared with one another are numbers in one column
    and text in another, or both in one column: ``1 != "1"``, so one subject would be two.

    Parameters
    ----------
    columns : dict of str to pandas.Series
        Each id column, under the name the message gives it (e.g. ``"dev['probe_subject']"``).
    what : str, default "subject"
        What the ids name, for the message ("subject", or "group" for cohort statistics
        kept per group).
    hint : str, optional
        How to repair them, ending the message; by default, reading a score file's subject
        columns as text.

    Raises
    ------
    SchemaError
        Naming the column of several types with an id of each type, or the columns of
        numbers and those of text with their dtypes; and how to read the ids as text.
    """
    kinds = {name: _id_kind(ids) for name, ids in columns.items()}
    for name, kind in kinds.items():
        if kind == "mixed":
            examples = ", ".join(f"{quoted(v)} ({t.__name__})" for t, v in list(_first_of_each_type(columns[name]).items())[:3])
            raise SchemaError(f"{name} holds {what} ids of several types, e.g. {examples}: 1 and '1' would be "
                              f"two {what}s. {hint}")
    _check_booleans_apart(columns, what=what)  # True == 1: between columns, each of one type
    numbers = [f"{name} ({columns[name].dtype})" for name, kind in kinds.items() if kind == "numbers"]
    text = [f"{name} ({columns[name].dtype})" for name, kind in kinds.items() if kind == "text"]
    if numbers and text:
        raise SchemaError(f"{what} ids are numbers in {', '.join(numbers)} but text in {', '.join(text)}: a "
                          f"{what} written 1 in one and '1' in the other would be two {what}s. {hint}")
    if "other" not in kinds.values():  # numbers and text alone were told apart above
        return
    # another kind (bytes, dates) against text or numbers, or against each other: b"a" != "a"
    firsts = {name: first for name, kind in kinds.items() if kind and (first := _first_id(columns[name])) is not None}
    described = {name: type(first).__name__ if kinds[name] == "other" else kinds[name] for name, first in firsts.items()}
    if len(set(described.values())) > 1:
        found = ", ".join(f"{kind} in {name} ({columns[name].dtype}, e.g. {quoted(firsts[name])})"
                          for name, kind in described.items())
        decode = " (bytes: [i.decode() for i in ids])" if "bytes" in described.values() else ""
        raise SchemaError(f"{what} ids are of different kinds: {found}; no id of one kind equals an id of another, "
                          f"so a {what} written as both would be two {what}s. {hint}{decode}")


def _first_id(ids: pd.Series) -> object:
    """The first id of a column, as a Python object (``b"a"``, not NumPy's ``bytes_``), or None
    when it has none (an empty column of text keeps its dtype)."""
    values = ids.cat.categories if isinstance(ids.dtype, pd.CategoricalDtype) else ids.dropna()
    if len(values) == 0:
        return None
    first = values[0] if isinstance(values, pd.Index) else values.iloc[0]
    return first.item() if isinstance(first, np.generic) else first


def _cli_renaming(renames: dict[str, str]) -> str:
    return "biofair report --columns '" + ",".join(f"{name}={key}" for name, key in renames.items()) + "'"


def _reading_renaming(renames: dict[str, str]) -> str:
    """The renaming of a score file's columns, as given to read_scores and to biofair report."""
    return f"read_scores(path, columns={renames!r}) or {_cli_renaming(renames)}"


def _near_names(missing: list[str], columns: Sequence[str], *,
                renaming: Callable[[dict[str, str]], str] = _cli_renaming) -> str:
    """What the table has instead of the ``missing`` columns: the names that differ from them
    only in case or surrounding spaces, with the ``renaming`` to make, else its columns."""
    near = {}
    for name in columns:
        key = str(name).strip().lower()
        if key in missing and key not in near.values():
            near[name] = key
    if near:
        return (f" (the table has {', '.join(repr(n) for n in near)}: names are case- and "
                f"space-sensitive; rename them, e.g. {renaming(near)})")
    columns = list(columns)
    if not columns:
        return " (the table has no columns)"
    placeholders = {f"<{name} column>": name for name in missing}
    return f" (the table has {_first_columns(columns)}; map its names to biofair's, e.g. {renaming(placeholders)})"


def _first_columns(columns: Sequence) -> str:
    """The first ten of ``columns``, quoted, and how many more, as a message lists them."""
    columns = list(columns)
    return ", ".join(repr(n) for n in columns[:10]) + (f" and {len(columns) - 10} more" if len(columns) > 10 else "")


#: Optional columns whose absence changes the results without an error, and how.
_READ_ONLY_AS_NAMED = {
    "system": "the rows of several systems would be pooled",
    "split": "development and evaluation rows would be pooled",
    "reference_subject": "comparisons would be resampled one by one, not by subject",
    "probe_subject": "comparisons would be resampled one by one, not by subject",
}


def _misnamed(columns: Sequence[str], *, renaming: Callable[[dict[str, str]], str] = _cli_renaming,
              grouping: Sequence[str] = (), table: pd.DataFrame | None = None) -> str:
    """The problem of columns named like ``system``, ``split`` or a subject column but for
    case, spaces or hyphens ("System", "Reference Subject"), when the column itself is
    absent: they would be ignored, and the results would change without a word ("" when
    there are none). Columns in ``grouping`` (what ``by`` names) are read, and are not one;
    with the ``table``, neither is a system or split column of a single value (nothing to pool)."""
    near = {}
    for name in columns:
        key = "_".join(str(name).strip().lower().replace("-", " ").split())
        if key not in _READ_ONLY_AS_NAMED or key in columns or key in near.values() or name in grouping:
            continue
        if key in _SCORE_SETS and table is not None and table[name].nunique(dropna=True) < 2:
            continue
        near[name] = key
    if not near:
        return ""
    harms = "; ".join(dict.fromkeys(_READ_ONLY_AS_NAMED[key] for key in near.values()))
    return (f"column(s) {', '.join(repr(name) for name in near)} would be ignored, as only the name(s) "
            f"{', '.join(repr(key) for key in near.values())} are read: {harms}. Rename them, e.g. {renaming(near)}")


def _shown_with_unusual_characters(value: object) -> str:
    """``repr(value)`` (shortened, see :func:`biofair._validation.quoted`), followed by the names
    of the characters in it that are not ASCII: '−0.5' (U+2212 MINUS SIGN) reads as '-0.5' but
    is no number."""
    unusual = list(dict.fromkeys(c for c in str(value) if not c.isascii()))[:3]
    names = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in unusual)
    return f"{quoted(value)} ({names})" if unusual else quoted(value)


#: What a column of numbers that is not numeric holds, by what :func:`pandas.api.types.infer_dtype` calls it.
_NUMBERS_FOUND = {"string": "numbers written as text", "mixed": "numbers, some written as text",
                  "mixed-integer": "numbers, some written as text", "floating": "numbers as Python objects",
                  "integer": "numbers as Python objects", "mixed-integer-float": "numbers as Python objects"}


#: Numbers with a decimal comma ("0,83"), and numbers with thousands separators ("1,200",
#: "12,345.5": a first group of 1 to 3 digits, not 0, then groups of 3).
_DECIMAL_COMMA = r"\s*[-+]?\d*,\d+(?:[eE][-+]?\d+)?\s*"
_THOUSANDS = r"\s*[-+]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d*)?\s*"


def _comma_hint(values: pd.Series, separator: str | None) -> str:
    """What the distinct unparsed scores ``values`` are, when all are numbers with a comma:
    decimal commas; thousands separators; or either ("1,200": 1.2 or 1200, which only the file's
    author knows; read with a decimal comma, it was taken for 1.2). "" otherwise. Decimal
    commas are read by biofair's readers with ``decimal=','`` where the file's fields are
    separated by something else (``separator``, None for a table not read from a text file)."""
    text = values.astype(str)
    decimal_comma, thousands = text.str.fullmatch(_DECIMAL_COMMA).all(), text.str.fullmatch(_THOUSANDS).all()
    if decimal_comma and thousands:
        return ("; they read as numbers with a decimal comma (1,200 = 1.2) or with a thousands separator (1,200 = "
                "1200), and nothing in the file says which: write them without thousands separators and with a "
                "decimal point")
    if thousands:
        return ("; they read as numbers with thousands separators: remove the commas, e.g. "
                "table['score'] = pd.to_numeric(table['score'].str.replace(',', ''))")
    if not decimal_comma:
        return ""
    if separator is None:
        return ("; they read as numbers with a decimal comma: convert them, table['score'] = "
                "pd.to_numeric(table['score'].str.replace(',', '.')), or read the file with "
                "biofair.read_scores(path, decimal=',') (biofair report --decimal ,)")
    if separator == ",":
        return ("; they read as numbers with a decimal comma, in a file that also separates its fields with commas: "
                "write them with a decimal point, or separate the fields with ';' and read the file with "
                "biofair.read_scores(path, decimal=',') or biofair report --decimal ,")
    return ("; they read as numbers with a decimal comma: read the file with biofair.read_scores(path, decimal=',') "
            "or biofair report --decimal ,")


def _score_problems(score: pd.Series) -> list[str]:
    """What stops ``score`` from being finite float64 scores, one problem per line."""
    if pd.api.types.is_bool_dtype(score):
        return [f"column 'score' holds booleans (dtype {score.dtype}), not comparison scores"]
    if pd.api.types.is_complex_dtype(score):
        return [f"column 'score' holds complex numbers (dtype {score.dtype}), not comparison scores"]
    if not pd.api.types.is_numeric_dtype(score):
        unparsed = (pd.to_numeric(score, errors="coerce").isna() & score.notna()).to_numpy()
        if unparsed.any():
            examples = ", ".join(_shown_with_unusual_characters(x) for x in pd.unique(score[unparsed])[:3])
            hint = _comma_hint(pd.Series(pd.unique(score[unparsed])), score.attrs.get(_FILE_SEPARATOR))
            not_numbers = how_many(int(unparsed.sum()), "value", verbs=("is not a number", "are not numbers"))
            return [f"column 'score' must be numeric; {not_numbers} (e.g. {examples}; first in {_row(score, int(unparsed.argmax()))}){hint}"]
        first = score.dropna().iloc[0] if score.notna().any() else None
        if isinstance(first, decimal.Decimal):  # a Parquet decimal column, read by pandas
            return [f"column 'score' holds decimals (Python Decimal objects, dtype {score.dtype}), not float "
                    "scores: biofair.read_scores converts a Parquet file's decimals; else "
                    "score.map(float) converts them"]
        if first is None:
            return [f"column 'score' must be numeric, got only missing values (dtype {score.dtype})"]
        found = _NUMBERS_FOUND.get(pd.api.types.infer_dtype(score, skipna=True))
        if found is None:
            return [f"column 'score' must be numeric, got dtype {score.dtype}"]
        missing = score.isna().to_numpy()
        return [f"column 'score' must be numeric, got {found} (dtype {score.dtype})"
                + (f", {int(missing.sum())} of them missing (first in {_row(score, int(missing.argmax()))})"
                   if missing.any() else "")
                + ": convert it, table['score'] = pd.to_numeric(table['score'])"
                + (", and drop the rows without a score or give them one" if missing.any() else "")]
    raw = score.to_numpy()
    inexact = inexact_integers(raw)
    if inexact.any():
        return [
            f"column 'score' has {how_many(int(inexact.sum()), 'integer value')} beyond ±2^53 (e.g. "
            f"{raw[inexact][0]}) that float64 cannot hold exactly: distinct scores would become ties"
        ]
    if problem := long_double_problem(raw, "column 'score'"):
        return [problem]
    values = score.to_numpy(dtype=np.float64, na_value=np.nan)
    if problem := _tied_decimals_problem(score, values):
        return [problem]
    finite = np.isfinite(values)
    if finite.all():  # one pass for the common case; count only when needed
        return []
    # pandas' missing value <NA> of nullable and Arrow columns, which the float64 copy holds as NaN, is named as such
    n_missing = int(score.isna().sum()) if getattr(score.dtype, "na_value", None) is pd.NA else 0
    n_nan = int(np.isnan(values).sum()) - n_missing
    missing = f"{how_many(n_missing, 'missing value')} (<NA>), " if n_missing else ""
    return [f"column 'score' has {missing}{n_nan:,} NaN and "
            f"{how_many(values.size - int(finite.sum()) - n_nan - n_missing, 'infinite value')} "
            f"(first in {_row(score, int(np.argmin(finite)))})"]


def _tied_decimals_problem(score: pd.Series, values: NDArray[np.float64]) -> str:
    """The problem ("" if none) of Arrow decimal scores (``pd.read_parquet(...,
    dtype_backend="pyarrow")`` of a SQL or Spark export) of which two distinct ones have one
    nearest float64, ``values``: they would be ties. Neighbours in the decimals' own order are
    compared (the nearest float never reverses two decimals, so only neighbours can merge)."""
    if not isinstance(score.dtype, pd.ArrowDtype):
        return ""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_decimal(score.dtype.pyarrow_dtype):
        return ""
    decimals = pa.array(score.array)
    order = pc.sort_indices(decimals).to_numpy()  # missing values last: their NaN ties nothing
    ordered = decimals.take(order)
    distinct = pc.fill_null(pc.not_equal(ordered[1:], ordered[:-1]), False).to_numpy(zero_copy_only=False)
    nearest = values[order]
    merged = np.flatnonzero(distinct & (nearest[1:] == nearest[:-1]))
    if not merged.size:
        return ""
    first = merged[0]
    return (f"column 'score' has {how_many(merged.size, 'pair')} of distinct decimals ({score.dtype.pyarrow_dtype}) "
            f"that float64 cannot tell apart (e.g. {ordered[first]} and {ordered[first + 1]}, both "
            f"{quoted(nearest[first])}): distinct scores would become ties. Round them to 15 significant digits, "
            "which float64 keeps apart, or store them as float64")


def _mated_problem(mated: pd.Series) -> str:
    """What stops ``mated`` from being booleans without a missing value, and how to convert
    it ("" when nothing does). A categorical column is judged by its labels (pandas' read of a
    dictionary-encoded Parquet column: 'true'/'false' as categories)."""
    if mated.hasnans:
        missing = mated.isna().to_numpy()
        return (f"column 'mated' has {how_many(int(missing.sum()), 'missing value')} (first in {_row(mated, int(missing.argmax()))}): "
                "every comparison is mated or not; fill them in, or drop those rows (table.dropna(subset=['mated']))")
    if pd.api.types.is_bool_dtype(mated):
        return ""
    labels = mated.astype(mated.dtype.categories.dtype) if isinstance(mated.dtype, pd.CategoricalDtype) else mated
    kind = pd.api.types.infer_dtype(labels, skipna=True)
    if kind == "boolean":  # Python booleans in an object column
        found, fix = "Python booleans", "table['mated'].astype(bool)"
    elif pd.api.types.is_numeric_dtype(labels) and labels.isin([0, 1]).all():
        found, fix = "0 and 1", "table['mated'].eq(1), if 1 marks a mated comparison"
    elif kind == "string":
        found = "text (" + ", ".join(quoted(value) for value in sorted(pd.unique(labels.astype(str)))[:5]) + ")"
        fix = ("table['mated'].eq(<the label of mated comparisons>) (read_scores reads the usual labels of a "
               "file, such as yes/no or genuine/impostor)")
    else:
        return f"column 'mated' must be boolean, got dtype {mated.dtype}"
    return f"column 'mated' must be boolean, got {found} (dtype {mated.dtype}): convert it, table['mated'] = {fix}"


def _label_problems(scores: pd.DataFrame) -> list[str]:
    mated = scores["mated"]
    if problem := _mated_problem(mated):
        return [problem]
    problems = []
    n_mated = int(np.count_nonzero(mated.to_numpy(dtype=bool)))
    if n_mated == 0:
        problems.append("no mated comparisons: column 'mated' is never True")
    if n_mated == len(mated):
        problems.append("no non-mated comparisons: column 'mated' is never False")
    if {"reference_subject", "probe_subject"} <= set(scores.columns):
        if problem := _contradiction(scores):
            problems.append(problem)
    return problems


def _contradicted(reference: pd.Series, probe: pd.Series, mated: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Rows whose ``mated`` is not ``reference == probe``: a missing id equals nothing, and
    ids are compared as values (categorical columns with different categories too)."""
    try:
        same = (reference == probe).to_numpy(dtype=bool, na_value=False)
    except TypeError:  # pandas compares categoricals only with the same categories
        known = (reference.notna() & probe.notna()).to_numpy()
        same = np.zeros(len(mated), dtype=bool)
        same[known] = np.asarray(reference[known], dtype=object) == np.asarray(probe[known], dtype=object)
    return same != mated


def _stripped(ids: pd.Series) -> pd.Series:
    """Text ids without surrounding spaces; other ids unchanged."""
    return ids.map(lambda value: value.strip() if isinstance(value, str) else value, na_action="ignore")


def _contradiction(scores: pd.DataFrame) -> str:
    """The problem of the rows whose ``mated`` contradicts ``reference_subject ==
    probe_subject`` ("" when none), with how many of them agree once spaces around the ids
    are stripped (``"s2 "`` and ``"s2"``: one subject typed twice), and the first row of each kind."""
    reference, probe = scores["reference_subject"], scores["probe_subject"]
    mated = scores["mated"].to_numpy(dtype=bool)
    wrong = _contradicted(reference, probe, mated)
    if not wrong.any():
        return ""
    count = int(np.count_nonzero(wrong))
    problem = (f"{how_many(count, 'row', verbs=('has', 'have'))} 'mated' contradicting "
               "reference_subject == probe_subject")
    rows = np.flatnonzero(wrong)
    spaces_only = ~_contradicted(_stripped(reference.iloc[rows]), _stripped(probe.iloc[rows]), mated[rows])
    by_spaces = rows[spaces_only]
    if (~spaces_only).any():  # the row to look at first
        first = rows[~spaces_only][0]
        problem += (f", e.g. {_row(scores, first)} (mated {bool(mated[first])}, subjects "
                    f"{quoted(reference.iloc[first])} and {quoted(probe.iloc[first])})")
    if by_spaces.size:
        first = by_spaces[0]
        problem += (
            f" ({by_spaces.size} of them only because of spaces around an id, e.g. {_row(scores, first)}: "
            f"{quoted(reference.iloc[first])} and {quoted(probe.iloc[first])}; strip the ids, "
            "table[column].str.strip(), if they name one subject)"
        )
    return problem


def _missing(values: pd.Series) -> NDArray[np.bool_]:
    """The rows of ``values`` without a value: pandas' missing ones, and NaN in a column of Arrow
    or pandas' nullable floats (``double[pyarrow]``, ``Float64``), which keep NaN apart from
    ``<NA>``: ``isna`` does not count it there, and ``pd.factorize`` makes it a value of its own
    (the rows without a subject id would be one subject)."""
    missing = values.isna().to_numpy()
    if isinstance(values.dtype, pd.api.extensions.ExtensionDtype) and pd.api.types.is_float_dtype(values.dtype):
        missing = missing | np.isnan(values.to_numpy(dtype=np.float64, na_value=np.nan))
    return missing


def _nan_apart(values: pd.Series, missing: NDArray[np.bool_]) -> str:
    """What to do first ("" if nothing) when some of the ``missing`` rows of ``values`` (see
    :func:`_missing`) hold NaN that the column keeps apart from ``<NA>``: fillna and dropna,
    which the messages advise, leave them."""
    if not (missing & values.notna().to_numpy()).any():
        return ""
    return (f"; NaN, which a {values.dtype} column keeps apart from <NA>, so that fillna and dropna leave it: "
            f"first convert the column, scores[{values.name!r}] = scores[{values.name!r}].astype(float)")


#: Why a missing value in an optional column that is not a group column is refused.
_SUBJECT_NEEDED = ("each comparison needs its subjects' ids: a resampling or a permutation by subject moves a "
                   "subject's comparisons together")
_UNFILLED = {
    "reference_subject": _SUBJECT_NEEDED,
    "probe_subject": _SUBJECT_NEEDED,
    "system": "a row without its system cannot be kept apart from the other systems' rows, which no metric pools",
    "split": "a row without its split cannot be kept apart from the other split's rows, which no metric pools",
}


def validate_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Check a score table and raise one error listing every problem.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    scores : pandas.DataFrame
        One row per comparison with at least ``score`` and ``mated``.

    Returns
    -------
    pandas.DataFrame
        ``scores`` itself, unchanged, so that calls can be chained.

    Raises
    ------
    SchemaError
        Listing, one per line: duplicate column names (alone: nothing else can be checked),
        missing required columns, an empty table, non-numeric, boolean, missing (``<NA>`` of a
        nullable or Arrow column, counted apart from NaN), non-finite or inexact (integers
        beyond ``±2**53``, or long doubles, that float64 cannot hold exactly; Arrow decimals of
        which float64 would make two distinct ones a tie) scores (numbers as text or objects:
        with how to convert them), missing or non-boolean labels (0 and 1, text: with how to
        convert them), an empty class, labels that contradict the subject ids, and missing
        values in an optional canonical column (NaN of an Arrow or nullable float column too; a
        row without a group would otherwise be dropped silently), each with its first such row
        and how to fill them (for a group column, how to give those rows a group; blank group
        labels, empty or white space only, are refused by the functions that group the table).
        Numbers written with a comma are named as such: decimal commas, thousands separators, or
        either ("1,200": 1.2 or 1200, which the file does not say).
    TypeError
        When ``scores`` is not a pandas DataFrame (its type named with its module, and how
        to convert a polars or pyarrow table).

    See Also
    --------
    biofair.read_scores : Reads a score file and validates it.
    biofair.split_scores : The two classes of a validated table.

    References
    ----------
    ISO/IEC 19795-1:2021 (a comparison's score and its mated / non-mated ground truth).

    Examples
    --------
    >>> import pandas as pd
    >>> from biofair import validate_scores
    >>> validate_scores(pd.DataFrame({"score": [0.1, float("nan")], "mated": [True, True]}))
    Traceback (most recent call last):
    ...
    biofair.exceptions.SchemaError: invalid score table:
    - column 'score' has 1 NaN and 0 infinite values (first in row 1)
    - no non-mated comparisons: column 'mated' is never False
    """
    _check_table(scores)
    problems = []
    missing = [column for column in _REQUIRED_COLUMNS if column not in scores.columns]
    if missing:
        problems.append(f"missing column(s): {', '.join(missing)}{_near_names(missing, scores.columns, renaming=_reading_renaming)}")
    if len(scores) == 0:
        problems.append("the table has no rows")
    else:
        if "score" in scores.columns:
            problems += _score_problems(scores["score"])
        if "mated" in scores.columns:
            problems += _label_problems(scores)
        for column in _OPTIONAL_COLUMNS:
            if column in scores.columns and (unlabelled := _missing(scores[column])).any():
                problem = (f"column {column!r} has {how_many(int(unlabelled.sum()), 'missing value')} (first in "
                           f"{_row(scores, int(unlabelled.argmax()))}")
                problem += f"{_nan_apart(scores[column], unlabelled)})"
                if column in _GROUP_COLUMNS:
                    problem += f"; those comparisons would have no group. {_missing_groups_fix(column)}"
                else:
                    problem += f"; {_UNFILLED[column]}: fill them in, or drop those rows (scores.dropna(subset=[{column!r}]))"
                problems.append(problem)
    if problems:
        raise SchemaError("invalid score table:\n- " + "\n- ".join(problems))
    return scores


#: Columns that tell apart score sets no metric may pool, and how to select one set.
_SCORE_SETS = {
    "system": "select one, e.g. scores[scores['system'] == {first}] (biofair.paired_bootstrap compares "
              "two systems scored on the same trials)",
    "split": "pass the rows of one, e.g. the evaluation rows, and the development rows as dev= where a function "
             "takes it: fairness_discrepancy_rate(scores[scores['split'] == 'eval'], dev=scores[scores['split'] == 'dev'])",
}


def _validate_score_set(scores: pd.DataFrame, *, name: str = "scores", groups: bool = False) -> pd.DataFrame:
    """:func:`validate_scores`, and refuse a table that holds several score sets a metric
    would pool: the rows of several systems, or development rows with evaluation rows
    (the optional columns ``system`` and ``split``). Reading such a table is fine; a metric
    on all of its rows is not. ``name`` and ``groups`` word the type error (see
    :func:`_check_table`)."""
    _check_table(scores, name=name, groups=groups)
    validate_scores(scores)
    for column in _SCORE_SETS:
        if column in scores.columns:
            _refuse_pooling(column, pd.unique(scores[column].dropna()))
    return scores


def _first_score_sets(values: Sequence) -> str:
    """The first five distinct ``values`` of a score-set column, quoted, as a message lists them."""
    return ", ".join(map(quoted, values[:5])) + (", ..." if len(values) > 5 else "")


def _refuse_pooling(column: str, values: Sequence) -> None:
    """Raise if the distinct non-missing ``values`` of a score-set column are more than one."""
    if len(values) > 1:
        raise SchemaError(
            f"the table holds {len(values)} score sets in column {column!r} ({_first_score_sets(values)}), whose "
            f"rows a metric would pool: {_SCORE_SETS[column].format(first=quoted(values[0]))}"
        )


#: The subject column resampled or shuffled by default; a table without it is read by comparison.
_DEFAULT_CLUSTER = "reference_subject"


def _check_cluster_name(cluster: object, unit: str | None) -> None:
    """Raise a TypeError unless ``cluster`` is a column name (None once meant "by comparison",
    which ``unit="pair"`` now says)."""
    if not isinstance(cluster, str):
        advice = " (to take comparisons as the units, give unit='pair')" if cluster is None and unit != "pair" else ""
        raise TypeError(f"cluster must be a column name, got {cluster!r}{advice}")


def _resampled_cluster(scores: pd.DataFrame, unit: Unit | None, cluster: str) -> str | None:
    """The subject column whose comparisons a resampling or a shuffle keeps together, or None
    to take comparisons as the units.

    ``unit="pair"``: None. ``unit="subject"``: ``cluster``, which the table must have.
    ``unit=None``: ``cluster`` when the table has it; else None for the default column (a
    table without subject ids) and a SchemaError for any other name (a misspelling)."""
    if unit not in (None, "pair", "subject"):
        raise ValueError(f"unit must be 'pair', 'subject' or None, got {unit!r}")
    _check_cluster_name(cluster, unit)
    if unit == "pair":
        return None
    if cluster in scores.columns:
        return cluster
    if unit == "subject":
        raise SchemaError(f"unit='subject' needs a score table with a {cluster!r} column; the table has "
                          f"{list(scores.columns)}")
    if cluster != _DEFAULT_CLUSTER:
        raise SchemaError(f"cluster={cluster!r} names no column; the table has {list(scores.columns)}")
    return None


def split_scores(scores: pd.DataFrame) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Mated and non-mated scores of a validated table, as two float arrays.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table with ``score`` and ``mated``.

    Returns
    -------
    tuple of ndarray
        ``(mated, nonmated)``, in table order, ready for every metric of the package.

    Raises
    ------
    SchemaError
        When the table is invalid (see :func:`biofair.validate_scores`).

    See Also
    --------
    biofair.validate_scores : The checks it runs first.
    biofair.roc_auc : One of the metrics that take the two arrays.

    References
    ----------
    ISO/IEC 19795-1:2021 (mated and non-mated comparisons).

    Examples
    --------
    >>> import pandas as pd
    >>> from biofair import split_scores
    >>> table = pd.DataFrame({"score": [0.9, 0.2, 0.7], "mated": [True, False, True]})
    >>> split_scores(table)
    (array([0.9, 0.7]), array([0.2]))
    """
    _validate_score_set(scores)
    values = scores["score"].to_numpy(dtype=np.float64)
    mated = scores["mated"].to_numpy(dtype=bool)
    return values[mated], values[~mated]
