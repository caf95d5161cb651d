"""Demographic groups of a score table, and error rates per group.

A comparison belongs to a group through a pair-level column (``group``, or any column
named in ``by``) or through per-side columns ``reference_<by>`` and ``probe_<by>``. With
per-side columns, per-group FMR uses **homogeneous non-mated pairs** only (reference and
probe in the same group); cross-group pairs are reported by :func:`cross_group_fmr`.
Read more in the chapter "Set one threshold for everyone" (``notebooks/03``).
"""

from __future__ import annotations

import decimal
import functools
import re
import unicodedata
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._counts import counts_at
from biofair._thresholds import (allowed_false_matches, at_or_above_runs, threshold_at_fmr_runs,
                                threshold_at_fmr_sorted, top_sorted, warn_unresolved)
from biofair._threads import IN_TWO_THREADS_FROM, in_two_threads
from biofair._typing import By
from biofair._validation import (
    as_count,
    as_rates,
    as_threshold,
    as_thresholds,
    how_many,
    is_blank,
    long_double_problem,
    quoted,
    scalar_or_array,
    shell_option,
)
from biofair._warnings import warn
from biofair.exceptions import SchemaError
from biofair.schema import (
    CANONICAL_COLUMNS,
    _check_ids_of_one_kind,
    _check_table,
    _cli_renaming,
    _first_columns,
    _missing,
    _missing_groups_fix,
    _nan_apart,
    _near_names,
    _row,
    _shown_with_unusual_characters,
    _validate_score_set,
)


class GroupScores(NamedTuple):
    """The sorted mated and homogeneous non-mated scores of one group.

    The values of a :class:`biofair.ScoresByGroup`.

    Attributes
    ----------
    mated : ndarray
        The group's mated scores, ascending.
    nonmated : ndarray
        The group's homogeneous non-mated scores (both sides in the group), ascending.

    See Also
    --------
    biofair.scores_by_group : Makes one per group.

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3], "mated": [True, False, True, False],
    ...                       "group": ["a", "a", "b", "b"]})
    >>> bf.scores_by_group(table)["a"]
    GroupScores(mated=array([0.9]), nonmated=array([0.2]))
    """

    mated: NDArray[np.float64]
    nonmated: NDArray[np.float64]


class GroupRates(NamedTuple):
    """Rates and counts of K groups at T thresholds.

    Returned by :func:`biofair.partitions.group_rates_at`; the in-memory fairness indices
    compute the same arrays. Match iff ``score >= threshold``.

    Attributes
    ----------
    fmr : ndarray of shape (K, T)
        FMR of each group's homogeneous non-mated comparisons at each threshold.
    fnmr : ndarray of shape (K, T)
        FNMR of each group's mated comparisons at each threshold.
    false_matches : ndarray of shape (K, T)
        Homogeneous non-mated comparisons at or above each threshold.
    false_non_matches : ndarray of shape (K, T)
        Mated comparisons below each threshold.
    n_mated : ndarray of shape (K, 1)
        Mated comparisons of each group.
    n_nonmated : ndarray of shape (K, 1)
        Homogeneous non-mated comparisons of each group.

    See Also
    --------
    biofair.rates_by_group : The same numbers as a tidy table.
    biofair.partitions.group_rates_at : Returns it.

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> rates = bf.GroupRates(np.array([[0.5]]), np.array([[0.0]]), np.array([[1]]),
    ...                       np.array([[0]]), np.array([[2]]), np.array([[2]]))
    >>> float(rates.fmr[0, 0])
    0.5
    """

    fmr: NDArray[np.float64]
    fnmr: NDArray[np.float64]
    false_matches: NDArray[np.int64]
    false_non_matches: NDArray[np.int64]
    n_mated: NDArray[np.int64]
    n_nonmated: NDArray[np.int64]


_MISSING_GROUP = "(missing)"  # the group of rows without a label, when the reader is told so
_CROSS_GROUP = "(cross-group)"  # the row of heterogeneous non-mated pairs in group_sizes


def _attributes_of(by: By) -> list[str]:
    """The grouping attributes named by ``by`` (a column name or a sequence of them)."""
    if isinstance(by, str):
        attributes = [by]
    elif isinstance(by, Sequence) and not isinstance(by, bytes):
        attributes = list(by)
    else:
        raise TypeError(f"by must be a column name or a list of column names, got {by!r}")
    if not attributes:
        raise ValueError("by must name at least one column")
    if not all(isinstance(a, str) and a for a in attributes):
        raise TypeError(f"by must hold column names (non-empty strings), got {by!r}")
    if len(set(attributes)) < len(attributes):
        raise ValueError(f"by names a column more than once: {by!r}")
    if read := [a for a in attributes if a in _NOT_GROUPS]:  # a group per score value, or per class
        raise ValueError(
            f"by names {read[0]!r}, which holds each comparison's {_NOT_GROUPS[read[0]]}, not its group: give the "
            "attribute whose groups are compared (a column such as 'group' or 'gender')")
    return attributes


#: Columns of the schema that ``by`` cannot name, with what they hold.
_NOT_GROUPS = {"score": "score", "mated": "class (mated or not)"}


def _renaming(renames: dict[str, str]) -> str:
    return f"scores.rename(columns={renames!r}) ({_cli_renaming(renames)})"


def _by_option(names: list[str]) -> str:
    """The ``--by`` of ``biofair report`` that groups by one of ``names``: the one name,
    shell-quoted, or a placeholder when there are several."""
    return shell_option("--by", names[0]) if len(names) == 1 else "--by <column>"


#: Attributes whose ``reference_`` and ``probe_`` columns name no groups: each side's subject,
#: and each side's sample (a bob score file's ``reference_id`` and ``probe_id``).
_NOT_ATTRIBUTES = ("subject", "id")


def _attribute_names(columns: Sequence) -> list[str]:
    """The attributes whose columns could name the groups (a ``by``): each pair-level column
    but a score, label, subject, system or split column, and each attribute with both a
    ``reference_`` and a ``probe_`` column but the subjects and the samples (``_NOT_ATTRIBUTES``),
    ``group`` included."""
    names = {str(c): None for c in columns}
    found = []
    for name in names:
        side = re.fullmatch(r"(?:reference|probe)_(.+)", name)
        if side is None:
            if name not in CANONICAL_COLUMNS or name == "group":
                found.append(name)
        elif (attribute := side.group(1)) not in _NOT_ATTRIBUTES and {f"reference_{attribute}",
                                                                       f"probe_{attribute}"} <= names.keys():
            found.append(attribute)
    return list(dict.fromkeys(found))


def _other_attributes(columns: Sequence, *, command: bool = True) -> str:
    """The attributes whose columns could name the groups instead (:func:`_attribute_names`),
    as the ``by`` to give (and, with ``command``, the option of ``biofair report``): "" when
    there is none."""
    others = _attribute_names(columns)
    if not others:
        return ""
    example = others[0] if len(others) == 1 else "<column>"
    return (f"; to compare the groups of {' or '.join(map(repr, others[:5]))}, pass by={example!r}"
            + (f" (biofair report {_by_option(others)})" if command else ""))


def _group_columns(scores: pd.DataFrame, by: By) -> dict[str, list[str]]:
    """Each attribute of ``by`` and its column(s): ``[attr]`` or ``[reference_attr, probe_attr]``."""
    columns = {}
    for attribute in _attributes_of(by):
        sides = [f"reference_{attribute}", f"probe_{attribute}"]
        if attribute in scores.columns:
            if set(sides) <= set(scores.columns) and (problem := _pair_level_disagreement(scores, attribute, sides)):
                raise SchemaError(problem)
            columns[attribute] = [attribute]
        elif set(sides) <= set(scores.columns):
            columns[attribute] = sides
        else:
            absent = sorted(name for name in (attribute, *sides) if name not in scores.columns)
            # "Group": case and spaces count (a column of a wanted name itself is no near name)
            near = any(str(c).strip().lower() in absent for c in scores.columns if c not in sides)
            one_side = [side for side in sides if side in scores.columns]
            raise SchemaError(
                f"no group column for {attribute!r}: give a pair-level column of that name or "
                f"both {sides[0]} and {sides[1]}"
                + (_near_names(absent, scores.columns, renaming=_renaming) if near
                   else f" (the table has {one_side[0]!r} but no {(set(sides) - set(one_side)).pop()!r})" if one_side
                   else f" (the table has {list(scores.columns)}{_other_attributes(scores.columns)})")
            )
    return columns


def _pair_level_disagreement(scores: pd.DataFrame, attribute: str, sides: list[str]) -> str:
    """The problem ("" if none) of a table with a pair-level column and both per-side columns
    of one attribute that disagree on a row: the pair-level column is read, so a pair it
    places in one group would count as homogeneous where its sides say it crosses groups (a
    ``group`` copied from ``reference_group``, say). A missing label (None, NaN, or pandas'
    ``<NA>``, which has no truth value) differs from a label and not from another missing one."""
    pair = scores[attribute].to_numpy(dtype=object)
    pair_missing = pd.isna(pair)
    differ = np.zeros(len(scores), dtype=bool)
    for side in sides:
        value = scores[side].to_numpy(dtype=object)
        value_missing = pd.isna(value)
        known = ~(pair_missing | value_missing)
        differ |= pair_missing != value_missing
        differ[known] |= (pair[known] != value[known]).astype(bool)
    if not differ.any():
        return ""
    first = int(differ.argmax())
    return (
        f"column {attribute!r} and the columns {sides[0]!r} / {sides[1]!r} both give the groups of "
        f"{attribute!r} and disagree in {how_many(int(differ.sum()), 'row')} (first in {_row(scores, first)}: "
        f"{quoted(pair[first])} against {quoted(scores[sides[0]].iloc[first])} / "
        f"{quoted(scores[sides[1]].iloc[first])}). The pair-level column would be read and the sides ignored, "
        f"so a pair across groups would count in one group. Keep one: table.drop(columns=[{attribute!r}]) to "
        f"group by the sides, or table.drop(columns=[{sides[0]!r}, {sides[1]!r}])"
    )


def _check_no_missing(scores: pd.DataFrame, columns: list[str], *,
                      unlabelled: Sequence[NDArray[np.bool_]] | None = None) -> None:
    """Raise, naming each column, its count and its first row, when comparisons have no group
    label: a missing value, or text that is empty or white space only, which names no group
    (as an empty cell of a file, which the readers read as missing).

    ``unlabelled`` holds those rows of each column where a factorization has found them (code
    -1, see :func:`_coded`); by default they are found here.
    """
    if unlabelled is None:
        unlabelled = [_coded(scores[column])[0] < 0 for column in columns]
    problems, blank, first = [], False, None
    for column, rows in zip(columns, unlabelled):
        if rows.any():
            missing = rows & _missing(scores[column])  # NaN of Arrow floats too: no blank
            n_blank = int(np.count_nonzero(rows & ~missing))
            blank, first = blank or n_blank > 0, first or column
            problems.append(f"column {column!r} has {how_many(int(rows.sum()), 'missing value')} (first in "
                            f"{_row(scores, int(rows.argmax()))}{_nan_apart(scores[column], missing)})"
                            + (f", {n_blank} of them blank (empty or white space only)" if n_blank else ""))
    if problems:
        raise SchemaError(
            f"missing group labels: {'; '.join(problems)}; those comparisons would have no group. "
            + _missing_groups_fix(first, blank=blank)
        )


def _label_text(label: object) -> str:
    """A label as text, as its group is named: ``str(label)``, but a zero of floats or decimals
    without its sign. ``-0.0 == 0.0``, so pandas makes one group of them, which was named
    '-0.0' or '0.0' after whichever came first in the table (see also :func:`_unsigned_zeros`)."""
    if isinstance(label, (float, np.floating, decimal.Decimal)) and label == 0:
        label = abs(label)
    return str(label)


def _label_names(labels: pd.Index, columns: list[str]) -> list[str]:
    """Labels as text (see :func:`_label_text`); two labels that differ only in type (1 and
    "1") are an error."""
    names = [_label_text(label) for label in labels]
    if len(set(names)) < len(names):
        seen: dict[str, list] = {}
        for label, name in zip(labels, names):
            seen.setdefault(name, []).append(label)
        clash = next(values for values in seen.values() if len(values) > 1)
        raise SchemaError(
            f"column(s) {columns} hold distinct labels that read the same: "
            f"{', '.join(f'{quoted(v)} ({type(v).__name__})' for v in clash)}; store the labels as "
            "text (biofair.read_scores reads them as written) or relabel them"
        )
    _warn_if_labels_look_alike(names, columns)
    return names


#: The words every warning of :func:`_warn_if_labels_look_alike` starts with (resamples do
#: not repeat them; the command line shows them).
_LOOK_ALIKE_WARNING = "hold labels that differ only by"

#: What two labels that read alike may differ by, and how to merge them if they are one group.
_LOOK_ALIKE = {
    "spaces": ("surrounding spaces", "Strip the labels (table[column].str.strip())"),
    "other": ("letter case or Unicode form (e.g. 'é' as one character or as e and an accent) or by characters "
              "that print as nothing (such as a zero-width space)",
              "Normalise the labels (table[column].str.normalize('NFC').str.strip().str.lower()), or relabel "
              "them,"),
    "numbers": ("how a number is written (1, 1.0 and 01)",
                "Write each number one way (for whole numbers: table[column] = "
                "pd.to_numeric(table[column]).astype(int).astype(str))"),
}


def _shown(label: str) -> str:
    """A label as Python writes it; with its code points where it is not plain (NFC) text, so
    that two labels that print alike are told apart."""
    return quoted(label, written=repr if unicodedata.is_normalized("NFC", label) else ascii)


def _printed(label: str) -> str:
    """A label without what prints as nothing: its format characters (a zero-width space, a byte
    order mark, a soft hyphen, a directional mark) and its control characters other than white
    space (NUL, ESC, DEL, the C1 controls: 'a' NUL 'b' prints as 'ab' in a terminal and a browser)."""
    return label if label.isprintable() else "".join(
        c for c in label if unicodedata.category(c) != "Cf" and (unicodedata.category(c) != "Cc" or c.isspace()))


def _number(label: str) -> decimal.Decimal | None:
    """The finite number a label writes, exactly ("01", "1.0" and "1e0" are one; two ids of 17
    digits stay two), or None."""
    try:
        value = decimal.Decimal(label)
    except decimal.InvalidOperation:
        return None
    return value if value.is_finite() else None


def _look_alike_key(label: str) -> str:
    """What two labels that print alike share: the label in Unicode form NFKC, without its
    format characters and surrounding spaces, in lower case ("Female", "female " and "female"
    with a zero-width space are one key)."""
    return _printed(unicodedata.normalize("NFKC", label)).strip().casefold()


def _look_alike_kind(label: str, other: str) -> str:
    """The kind of :data:`_LOOK_ALIKE` by which two labels of one key differ."""
    return "spaces" if label.strip() == other.strip() else "other"


def _warn_if_labels_look_alike(names: list[str], columns: list[str]) -> None:
    """Warn when two labels differ only by surrounding spaces ("a" and "a "), by letter case,
    Unicode normal form or format characters ("Female" and "female"; "é" composed or not; "a"
    and "a" with a zero-width space: each pair prints alike), or by how they write one number
    ("1", "1.0" and "01", as spreadsheets and pandas' floats write it): they stay two groups,
    as written, but are more often one group typed twice."""
    keys = {name: _look_alike_key(name) for name in names}
    alike: dict[str, list[str]] = {}
    numbers: dict[decimal.Decimal, list[str]] = {}
    for name, key in keys.items():
        alike.setdefault(key, []).append(name)
        if (value := _number(name)) is not None:
            numbers.setdefault(value, []).append(name)
    split = [variants for variants in alike.values() if len(variants) > 1]
    by_spaces = [variants for variants in split
                 if all(_look_alike_kind(variants[0], name) == "spaces" for name in variants[1:])]
    # numbers written differently, beyond the spaces and Unicode forms the other kinds name
    by_number = [variants for variants in numbers.values() if len({keys[name] for name in variants}) > 1]
    for kind, found in (("spaces", by_spaces), ("other", [v for v in split if v not in by_spaces]),
                        ("numbers", by_number)):
        if found:
            how, fix = _LOOK_ALIKE[kind]
            shown = [", ".join(map(_shown, variants)) for variants in found[:_PROBLEMS_SHOWN]]
            if len(found) > _PROBLEMS_SHOWN:  # ten thousand groups, say
                shown.append(f"and {how_many(len(found) - _PROBLEMS_SHOWN, 'more such set')}")
            warn(
                f"column(s) {columns} {_LOOK_ALIKE_WARNING} {how}: {'; '.join(shown)}; they are kept as "
                f"separate groups. {fix} if they are one group",
                UserWarning,
            )


def _unsigned_zeros(labels: pd.Series) -> pd.Series:
    """Float labels with -0.0 as 0.0 (``-0.0 + 0.0``), others as they are: pandas factorizes
    NumPy's -0.0 and 0.0 as one label, but Arrow's as two, which would read the same."""
    return labels + 0.0 if pd.api.types.is_float_dtype(labels.dtype) else labels


def _coded(labels: pd.Series) -> tuple[NDArray[np.intp], pd.Index | pd.Categorical]:
    """Codes of the labels, in sorted order, and the distinct labels they number.

    Code -1: no label, a missing value or text that is empty or white space only (see
    :func:`biofair._validation.is_blank`), which names no group. Categorical labels are read
    from their codes, without a factorization (see :func:`_factorize_categories`): the
    categories present, in the categories' order, which is what ``pd.factorize(labels,
    sort=True)`` gives for them. Labels of mixed types (1 and "x"), which cannot be sorted
    together, are ordered by their text. Float labels -0.0 and 0.0 are one (see
    :func:`_unsigned_zeros`).
    """
    labels = _unsigned_zeros(labels)
    if isinstance(labels.dtype, pd.CategoricalDtype):
        codes, uniques = _factorize_categories(labels)
    else:
        try:
            codes, uniques = _factorize_sorted(labels)
        except TypeError:  # numpy cannot order int and str together
            codes, uniques = pd.factorize(labels, sort=False)
            order = np.argsort([str(label) for label in uniques], kind="stable")
            codes, uniques = np.where(codes < 0, -1, np.argsort(order)[codes]), uniques[order]
    blank = np.array([is_blank(label) for label in uniques], dtype=bool)
    if not blank.any():
        return codes, uniques
    renumbered = np.full(blank.size + 1, -1, dtype=np.intp)  # renumbered[-1]: a missing label stays -1
    renumbered[:-1][~blank] = np.arange(blank.size - int(blank.sum()))
    return renumbered[codes], uniques[~blank]


def _named(labels: pd.Series, codes: NDArray[np.intp], uniques: pd.Index | pd.Categorical,
           columns: list[str]) -> list[str]:
    """The names of the labels :func:`_coded` numbered, checked (see :func:`_label_names` and
    :func:`_check_equal_labels_written_alike`)."""
    names = _label_names(uniques, columns)
    _check_equal_labels_written_alike(labels, codes, columns)
    return names


def _factorized(labels: pd.Series, columns: list[str]) -> tuple[NDArray[np.intp], list[str]]:
    """Codes (-1: no label, see :func:`_coded`) and names of the labels, in sorted order."""
    codes, uniques = _coded(labels)
    return codes, _named(labels, codes, uniques, columns)


def _factorize_sorted(labels: pd.Series) -> tuple[NDArray[np.intp], pd.Index]:
    """``pd.factorize(labels, sort=True)``.

    Arrow-backed labels, ``IN_TWO_THREADS_FROM`` or more, are dictionary-encoded by Arrow
    in two halves, one per thread (Arrow hashes without the GIL). The labels of both halves'
    dictionaries are merged and sorted; then each thread renumbers its half's Arrow indices
    into them with Arrow's ``take`` of a small table and writes them into the codes. pandas'
    factorization of each half would widen its codes and renumber them once more in NumPy,
    whose ``take`` first widens 32-bit indices too: 1.0-1.6x slower in all, in alternating runs
    at 1e7-2e7 labels.
    """
    if len(labels) < IN_TWO_THREADS_FROM or getattr(labels.dtype, "storage", None) != "pyarrow":
        return pd.factorize(labels, sort=True)
    import pyarrow as pa
    import pyarrow.compute as pc

    def encoded(part: pa.ChunkedArray) -> list[pa.DictionaryArray]:  # an empty part can come back unchunked
        encoding = pc.dictionary_encode(part)
        return getattr(encoding, "chunks", [encoding])

    column, half = pa.array(labels.array), len(labels) // 2  # the Arrow chunks, not copied
    first, second = in_two_threads(lambda: encoded(column.slice(0, half)), lambda: encoded(column.slice(half)))
    dictionaries = pa.chunked_array([chunk.dictionary for chunk in first + second], type=column.type)
    uniques = pd.Index(dictionaries, dtype=labels.dtype).unique().sort_values()
    codes = np.empty(len(labels), dtype=np.intp)

    def renumber(chunks: list[pa.DictionaryArray], start: int) -> None:
        for chunk in chunks:  # a missing label takes the position after the chunk's labels: code -1
            new_code = pa.array(np.append(uniques.get_indexer(pd.Index(chunk.dictionary, dtype=labels.dtype)), -1))
            indices = pc.fill_null(chunk.indices, len(chunk.dictionary))
            codes[start : start + len(chunk)] = pc.take(new_code, indices).to_numpy()
            start += len(chunk)

    in_two_threads(lambda: renumber(first, 0), lambda: renumber(second, half))
    return codes, uniques


#: What ``infer_dtype`` calls an object column whose equal labels can be written differently: one
#: of several types (1 and "1", True and 1, 1 and 1.0), or of decimals (``Decimal("1") ==
#: Decimal("1.0")``, as when per-side decimal columns have different scales).
_WRITTEN_SEVERAL_WAYS = frozenset({"mixed", "mixed-integer", "mixed-integer-float", "decimal"})


def _check_equal_labels_written_alike(labels: pd.Series, codes: NDArray[np.intp], columns: list[str]) -> None:
    """Raise when ``pd.factorize`` made one group of equal labels of different types.

    ``True == 1``, ``1 == 1.0`` and ``Decimal("1") == Decimal("1.0")`` in Python, so pandas
    merges them, and the group is named after whichever comes first ("True" or "1"): a
    reordered table would name it otherwise. Only an object column of several types, or of
    decimals, is read twice (values and text).
    """
    if labels.dtype != object or pd.api.types.infer_dtype(labels, skipna=True) not in _WRITTEN_SEVERAL_WAYS:
        return
    written = pd.DataFrame({"code": codes, "text": labels.map(_label_text, na_action="ignore").to_numpy()})
    written = written[codes >= 0].drop_duplicates()
    merged = written[written["code"].duplicated(keep=False)]
    if len(merged):
        first = merged.index[merged["code"] == merged["code"].iloc[0]]
        values = labels.to_numpy()[first]
        raise SchemaError(
            f"column(s) {columns} hold equal labels written differently: "
            f"{', '.join(f'{quoted(v)} ({type(v).__name__})' for v in values)}; pandas would make them one group, "
            "named after whichever comes first. Store the labels as text (biofair.read_scores reads them as "
            "written) or relabel them"
        )


def _factorize_categories(column: pd.Series) -> tuple[NDArray[np.intp], pd.Categorical]:
    """``pd.factorize`` of a categorical column from its integer codes, without hashing: the
    code of each row among the observed categories (-1 where missing), and those categories
    (in the categories' order rather than that of first appearance). Where every category
    is observed and no label is missing (the usual case), the codes are the column's own."""
    codes = column.cat.codes.to_numpy()
    missing = codes.size > 0 and codes.min() < 0
    observed = _observed(codes[codes >= 0] if missing else codes, len(column.cat.categories))
    categories = pd.Categorical.from_codes(np.flatnonzero(observed), dtype=column.dtype)
    if observed.all() and not missing:
        return codes.astype(np.intp), categories
    remap = np.full(observed.size + 1, -1, dtype=np.intp)  # remap[-1]: missing stays -1
    remap[:-1][observed] = np.arange(int(observed.sum()))
    return remap[codes], categories


def _labelled_codes(scores: pd.DataFrame, columns: list[str]) -> tuple[list[NDArray[np.intp]], list[str]]:
    """The codes of each of ``columns`` (a pair-level column, or the two sides of one
    attribute, whose labels share the codes) and the names they number, in sorted order.

    Raises
    ------
    SchemaError
        When a row has no label in one of them (see :func:`_check_no_missing`), or the labels
        cannot be named one way (see :func:`_named`).
    """
    labels = scores[columns[0]] if len(columns) == 1 else pd.concat([scores[c] for c in columns], ignore_index=True)
    codes, uniques = _coded(labels)
    coded = np.split(codes, len(columns))
    _check_no_missing(scores, columns, unlabelled=[column < 0 for column in coded])
    _check_visible(scores, columns, coded, uniques)
    return coded, _named(labels, codes, uniques, columns)


#: Unicode categories of the characters that print as nothing: format characters (a zero-width
#: space, a byte order mark, a soft hyphen) and control characters.
_UNPRINTED = frozenset({"Cf", "Cc"})


def _invisible(label: object) -> bool:
    """Whether a label is text that prints as nothing although it is not blank (see
    :func:`biofair._validation.is_blank`): white space, format and control characters only."""
    return (isinstance(label, str) and not is_blank(label)
            and all(c.isspace() or unicodedata.category(c) in _UNPRINTED for c in label))


def _invisible_problem(column: str, labels: list[str], rows: int, first: str) -> str:
    """The problem of ``rows`` labels of ``column`` that print as nothing (the distinct
    ``labels``; ``first``: the first such row), and a replacement that relabels them."""
    characters = dict.fromkeys(c for label in labels for c in label if not c.isspace())
    escaped = "".join(f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in characters)
    shown = ", ".join(map(_shown_with_unusual_characters, labels[:3])) + (", ..." if len(labels) > 3 else "")
    return (f"column {column!r} has {how_many(rows, 'label', verbs=('that prints', 'that print'))} as nothing ({shown}; first in {first}): a group so "
            f"named would show blank in every table. Relabel them, e.g. "
            f"scores.replace({{{column!r}: r'^[\\s{escaped}]*$'}}, 'unknown', regex=True)")


def _check_visible(scores: pd.DataFrame, columns: list[str], coded: list[NDArray[np.intp]],
                   uniques: pd.Index | pd.Categorical) -> None:
    """Raise, naming each column, its count, its first row and how to relabel them, when labels
    print as nothing (a zero-width space, see :func:`_invisible`): a group of that name would
    show blank in every table and message. Blank labels were refused as missing before.
    ``coded``: the codes of each column into ``uniques``."""
    invisible = [code for code, label in enumerate(uniques) if _invisible(label)]
    if not invisible:
        return
    problems = []
    for column, codes in zip(columns, coded):
        rows = np.isin(codes, invisible)
        if rows.any():
            labels = [uniques[code] for code in np.unique(codes[rows]).tolist()]
            problems.append(_invisible_problem(column, labels, int(rows.sum()), _row(scores, int(rows.argmax()))))
    raise SchemaError("; ".join(problems))


def _attribute_codes(scores: pd.DataFrame, columns: list[str]) -> tuple[NDArray[np.intp], NDArray[np.intp], list[str]]:
    """Integer group codes of the reference and of the probe side of every comparison for one
    attribute, and their names.

    A pair-level column gives both sides its label (one array, returned twice). Per-side
    columns give each side its own; a non-mated row whose sides differ is a heterogeneous
    pair, a mated row whose sides differ is an error (a mated comparison is of one subject).
    """
    coded, names = _labelled_codes(scores, columns)
    if len(columns) == 1:
        return coded[0], coded[0], names
    reference, probe = coded
    if "mated" in scores.columns:
        split = (reference != probe) & scores["mated"].to_numpy(dtype=bool)
        if split.any():
            row = split.argmax()
            raise SchemaError(
                f"{how_many(int(split.sum()), 'mated comparison', verbs=('has', 'have'))} {columns[0]} "
                f"different from {columns[1]} (first in {_row(scores, row)}: {quoted(names[reference[row]])} vs "
                f"{quoted(names[probe[row]])}); a mated comparison belongs to one group: correct the "
                "attributes or give a pair-level column"
            )
    return reference, probe, names


def _composite_names(parts: list[tuple[str, ...]], *, quote: bool | None = None) -> list[str]:
    """Names of groups formed by several attributes: the labels joined by " / ".

    When a label of any group contains "/" (``quote=None``: decided from ``parts``), every
    label is quoted (``'a / b' / 'c'``), so that two distinct combinations never read the same.
    """
    if quote is None:
        quote = any("/" in label for labels in parts for label in labels)
    return [" / ".join(repr(label) if quote else label for label in labels) for labels in parts]


def _combine(coded: list[tuple[NDArray[np.intp], NDArray[np.intp], list[str]]]
             ) -> tuple[NDArray[np.intp], NDArray[np.intp], list[tuple[str, ...]]]:
    """The combination of labels of each side of every comparison under one or several
    attributes: codes of the reference and of the probe side, numbering the combinations
    that some side of some comparison has (mated or not), in the order of the attributes'
    codes, and those combinations' labels.

    ``coded`` holds each attribute's reference codes, probe codes and label names
    (:func:`_attribute_codes`). Pair-level attributes alone give one array, returned twice.
    """
    reference, probe, names = coded[0]
    parts = [(name,) for name in names]
    for more_reference, more_probe, more_names in coded[1:]:
        one = reference is probe and more_reference is more_probe  # pair-level: both sides alike
        size = len(more_names)
        combined = reference * size + more_reference
        codes, kept = pd.factorize(combined if one else np.concatenate([combined, probe * size + more_probe]),
                                   sort=True)
        reference, probe = (codes, codes) if one else np.split(codes, 2)
        parts = [parts[c // size] + (more_names[c % size],) for c in kept.tolist()]
    return reference, probe, parts


def _group_names(parts: list[tuple[str, ...]], n_attributes: int) -> list[str]:
    """The names of groups of ``n_attributes`` labels each: a label alone, or several joined
    by :func:`_composite_names`."""
    return [labels[0] for labels in parts] if n_attributes == 1 else _composite_names(parts)


def _group_codes(scores: pd.DataFrame, by: By = "group") -> tuple[NDArray[np.intp], list[str]]:
    """Integer group code of every comparison (-1 for a heterogeneous non-mated pair).

    A group per label, or per combination of labels of several attributes, that either side
    of a comparison has (as the census of :mod:`biofair.partitions` counts them): a group
    seen only in cross-group pairs is one without comparisons of its own, which the
    functions that need them refuse by name. Combinations are named by joining the values
    with " / " (quoted when a value contains "/"; see :func:`group_labels`).
    """
    coded = [_attribute_codes(scores, columns) for columns in _group_columns(scores, by).values()]
    reference, probe, parts = _combine(coded)
    codes = reference if reference is probe else np.where(reference == probe, reference, -1)
    return codes, _group_names(parts, len(coded))


def _text_labels(table: pd.DataFrame, columns: list[str]) -> NDArray[np.object_]:
    """The group name of every row from pair-level columns, one per attribute, named as
    :func:`group_labels` names them (two distinct labels or combinations never merge).

    Raises
    ------
    SchemaError
        When a column has missing or blank labels (empty or white space only), two labels
        that differ only in type, or equal labels of different types (``True`` and ``1``).
    """
    codes, _, parts = _combine([_attribute_codes(table, [column]) for column in columns])
    return np.array(_group_names(parts, len(columns)), dtype=object)[codes]


def _torn_subjects(subject: ArrayLike, label: ArrayLike) -> tuple[int, dict]:
    """Subjects whose rows carry more than one label: how many there are, and the labels of
    the first five of them (in order of appearance), for an error message."""
    pairs = pd.DataFrame({"subject": subject, "label": label}).drop_duplicates()
    torn = pairs[pairs["subject"].duplicated(keep=False)]
    subjects = pd.unique(torn["subject"])
    return subjects.size, {subject: torn["label"][torn["subject"] == subject].tolist() for subject in subjects[:5]}


def group_labels(scores: pd.DataFrame, *, by: By = "group") -> pd.Series:
    """The group of every comparison, or NaN for a heterogeneous non-mated pair.

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table.
    by : str or sequence of str, default "group"
        Attribute(s) defining the groups. For each attribute the pair-level column of that
        name is used if present, else the pair ``reference_<attr>`` / ``probe_<attr>``,
        and a pair whose two sides differ belongs to no group.

    Returns
    -------
    pandas.Series
        String labels, NaN where reference and probe of a non-mated pair belong to different
        groups. Labels are the column's values as text; several attributes are joined by
        " / ", and when any value contains "/" every value is quoted (``'a / b' / 'c'``), so
        two distinct combinations never share a name.

    Raises
    ------
    SchemaError
        When ``scores`` has two columns of one name, an attribute has neither a pair-level
        column nor both per-side columns, or has both and they disagree on a row (the
        pair-level column would count a pair across groups in one), a group column has
        missing or blank labels (empty
        or white space only, which name no group: counted, with the first row), two labels
        differ only in type (``1`` and ``"1"``), two equal labels are written differently
        (``True`` and ``1``, ``1`` and ``1.0``, which pandas would merge under the name of
        whichever comes first), or the two sides of a mated comparison differ.
    TypeError
        When ``scores`` is not a pandas DataFrame (named, with how to convert a polars or
        pyarrow table), or ``by`` is not a column name or a list of column names.
    ValueError
        When ``by`` is empty, names a column twice or names "score" or "mated".

    See Also
    --------
    biofair.scores_by_group : The scores of every group, sorted.
    biofair.group_sizes : How many comparisons each group has.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022 (per-group rates on homogeneous
    non-mated pairs).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [0.9, 0.2, 0.3], "mated": [True, False, False],
    ...                       "reference_gender": ["f", "f", "f"], "probe_gender": ["f", "f", "m"]})
    >>> bf.group_labels(table, by="gender").tolist()
    ['f', 'f', nan]
    >>> table = pd.DataFrame({"a": ["x / y", "x"], "b": ["z", "y / z"]})
    >>> bf.group_labels(table, by=["a", "b"]).tolist()
    ["'x / y' / 'z'", "'x' / 'y / z'"]
    """
    _check_table(scores)
    codes, names = _group_codes(scores, by)
    labels = np.array(names + [np.nan], dtype=object)[codes]  # code -1 picks the NaN
    return pd.Series(labels, index=scores.index, name="group")


def _check_sorted_groups(groups: dict) -> None:
    """Refuse groups the indices cannot read: fewer than two, or scores that are not a
    non-empty, ascending, finite 1-D float array per class (every index reads them sorted,
    and was silently wrong on a ScoresByGroup built by hand from unsorted arrays), or long
    doubles that float64 does not hold (thresholds are float64: one between two scores
    would be rounded onto one of them)."""
    problems = [] if len(groups) >= 2 else [f"fairness needs at least two groups, got {len(groups)}"]
    for name, scores in groups.items():
        if not isinstance(scores, GroupScores):
            problems.append(f"group {quoted(name)}: expected a GroupScores(np.sort(mated), np.sort(nonmated)) of float "
                            f"arrays, got {_described(scores)}")
            continue
        for side in ("mated", "nonmated"):
            values = getattr(scores, side)
            if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind != "f":
                problems.append(f"group {quoted(name)}: {side} scores must be a 1-D float array "
                                "(np.sort(np.asarray(scores, "
                                f"dtype=float))), got {_described(values)}")
            elif values.size == 0 or not (np.isfinite(values[0]) and np.isfinite(values[-1])):
                problems.append(f"group {quoted(name)}: {side} scores must be finite, and at least one")
            elif not _ascending(values):
                problems.append(f"group {quoted(name)}: {side} scores must be ascending (np.sort them)")
            elif problem := long_double_problem(values, f"{side} scores"):  # thresholds are float64
                problems.append(f"group {quoted(name)}: {problem}")
    if problems:
        raise SchemaError("cannot compare groups:\n- " + "\n- ".join(problems))


def _described(value: object) -> str:
    """What a value is, for a message: its type, with the shape and dtype of an array and the
    length of a tuple or list."""
    if isinstance(value, np.ndarray):
        return f"a {value.ndim}-D {value.dtype} array"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return type(value).__name__


#: Groups a ScoresByGroup's repr lists before it says how many more there are.
_REPR_GROUPS = 10


class ScoresByGroup(dict):
    """Sorted mated and homogeneous non-mated scores of every group, keyed by group name.

    Made once by :func:`biofair.scores_by_group` and accepted by every fairness index in
    place of the score table, so that a summary of several indices groups and sorts the data
    once. A ``dict`` of :class:`biofair.GroupScores`.

    Parameters
    ----------
    groups : dict of str to GroupScores
        The sorted scores of each group, keyed by group name: two groups or more, each with
        non-empty, ascending, finite float arrays of both classes (else a SchemaError).
    by : str or sequence of str
        The grouping the groups were made with.

    Attributes
    ----------
    by : str or sequence of str
        The grouping it was made with; an index asked for another ``by`` refuses it.
    pooled_nonmated : ndarray
        All groups' homogeneous non-mated scores, ascending (the scores thresholds at a
        target FMR are set on; the fairness indices select those thresholds from the
        groups' sorted scores and never merge them, so this is computed only when read).

    Raises
    ------
    SchemaError
        When ``groups`` has fewer than two groups, or a group's scores are not a GroupScores
        of non-empty, ascending, finite 1-D float arrays (each named, with what it holds), or
        are long doubles that float64 does not hold exactly.
    TypeError
        On any change after construction (``groups[name] = ...``, ``del``, ``update``,
        ``pop``, ...): the indices read the groups as checked, and cache their pooled scores;
        make another one instead, with :func:`biofair.scores_by_group` or ``ScoresByGroup``.

    See Also
    --------
    biofair.scores_by_group : Makes it.
    biofair.GroupScores : Its values.

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3], "mated": [True, False, True, False],
    ...                       "group": ["a", "a", "b", "b"]})
    >>> groups = bf.scores_by_group(table)
    >>> sorted(groups), groups.pooled_nonmated.tolist()
    (['a', 'b'], [0.2, 0.3])
    """

    def __init__(self, groups: dict[str, GroupScores], by: By):
        _check_sorted_groups(groups)
        super().__init__(groups)
        self._by = by

    @classmethod
    def _of_sorted(cls, groups: dict[str, GroupScores], by: By) -> ScoresByGroup:
        """The groups :func:`scores_by_group` has just split and sorted, unchecked (the check
        would read every score again)."""
        made = cls.__new__(cls)
        dict.__init__(made, groups)
        made._by = by
        return made

    @property
    def by(self) -> By:
        """The grouping the groups were made with."""
        return self._by

    def __reduce__(self) -> tuple:
        """Pickled and copied as its groups and ``by`` (a dict's pickle would set every item)."""
        return type(self)._of_sorted, (dict(self), self._by)

    def _read_only(self, *args: object, **kwargs: object) -> None:
        """Refused: a ScoresByGroup is not changed once made (a changed one was not checked again).

        Raises
        ------
        TypeError
            Always, saying how to make another one.
        """
        raise TypeError(
            "a ScoresByGroup cannot be changed: the fairness indices read its groups as they were checked, and "
            "cache their pooled scores. Make another one, e.g. bf.scores_by_group(table[...], by=...) or "
            "bf.ScoresByGroup({**groups, name: bf.GroupScores(np.sort(mated), np.sort(nonmated))}, by=groups.by)"
        )

    __setitem__ = __delitem__ = __ior__ = update = pop = popitem = clear = setdefault = _read_only

    def __repr__(self) -> str:
        """The grouping and each group's counts, not its scores (millions of them)."""
        shown = [f"{quoted(name)} ({g.mated.size:,} mated, {g.nonmated.size:,} non-mated)"
                 for name, g in list(self.items())[:_REPR_GROUPS]]
        more = f", ... ({len(self) - _REPR_GROUPS:,} more groups)" if len(self) > _REPR_GROUPS else ""
        return f"<ScoresByGroup by={self.by!r}: {', '.join(shown)}{more}>"

    @functools.cached_property
    def pooled_nonmated(self) -> NDArray[np.float64]:
        """All groups' homogeneous non-mated scores, sorted (merged from the sorted runs)."""
        return np.sort(np.concatenate([g.nonmated for g in self.values()]), kind="stable")


_CHUNK = 1 << 16  # rows read at a time by the grouping: a chunk of values and codes stays in cache


def _chunk_counts(codes: NDArray[np.integer], n_codes: int, *, chunk: int = _CHUNK) -> NDArray[np.intp]:
    """How often each code ``0 .. n_codes - 1`` occurs in each chunk of ``chunk`` rows, shape
    ``(n_chunks, n_codes)``; a bincount of all rows at once would first widen every small
    code to 64 bits in memory (2.5x slower for 8-bit codes)."""
    counts = np.zeros((-(-codes.size // chunk), n_codes), dtype=np.intp)
    for row, start in enumerate(range(0, codes.size, chunk)):
        counts[row] = np.bincount(codes[start : start + chunk], minlength=n_codes)
    return counts


def _observed(codes: NDArray[np.integer], n_codes: int) -> NDArray[np.bool_]:
    """Which of the codes ``0 .. n_codes - 1`` occur in ``codes``. Up to 64 codes, the OR of
    ``1 << code`` over all rows, in the smallest unsigned integer of ``n_codes`` bits (a
    vectorised shift and reduction: 8x faster than counting for 8-bit codes); else counted."""
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        if n_codes <= 8 * np.dtype(dtype).itemsize:
            bits = np.bitwise_or.reduce(np.left_shift(dtype(1), codes.astype(dtype, copy=False)), initial=dtype(0))
            return (bits >> np.arange(n_codes, dtype=dtype)) & dtype(1) == 1
    return _chunk_counts(codes, n_codes).sum(axis=0) > 0


def _split_by_key(values: NDArray, keys: NDArray[np.integer], n_keys: int, *, chunk: int = _CHUNK) -> list[NDArray]:
    """The values of each key ``0 .. n_keys - 1``, in row order.

    Chunk by chunk, a stable radix sort of the keys, a gather of the values, and a copy of
    each key's run to its place in that key's array. Gathering all rows at once would read
    the whole array once per key (consecutive rows of one key are far apart), about the
    cost of sorting the values; within a chunk of ``chunk`` rows the reads stay in cache
    (about 2x faster at 1e7 rows and 18 keys). From ``IN_TWO_THREADS_FROM`` rows, two
    threads each take half of the chunks (every chunk's runs have their own places).
    """
    counts = _chunk_counts(keys, n_keys, chunk=chunk)
    split = [np.empty(total, dtype=values.dtype) for total in counts.sum(axis=0)]
    places = np.cumsum(counts, axis=0) - counts  # where each chunk's run of each key starts

    def fill(chunks: range) -> None:
        bounds = np.zeros(n_keys + 1, dtype=np.intp)
        for row in chunks:
            rows = slice(row * chunk, (row + 1) * chunk)
            gathered = values[rows][np.argsort(keys[rows], kind="stable")]
            np.cumsum(counts[row], out=bounds[1:])
            for key in np.flatnonzero(counts[row]):
                place = places[row, key]
                split[key][place : place + counts[row, key]] = gathered[bounds[key] : bounds[key + 1]]

    n_chunks = counts.shape[0]
    if keys.size < IN_TWO_THREADS_FROM:
        fill(range(n_chunks))
    else:
        in_two_threads(lambda: fill(range(n_chunks // 2)), lambda: fill(range(n_chunks // 2, n_chunks)))
    return split


def _sort_in_place(arrays: list[NDArray]) -> None:
    """Sort every array in place: from ``IN_TWO_THREADS_FROM`` values in all, in two
    threads (NumPy sorts without the GIL), the next largest array going to the thread with
    fewer values to sort, so that both finish together."""
    if sum(array.size for array in arrays) < IN_TWO_THREADS_FROM:
        for array in arrays:
            array.sort()
        return
    shares: tuple[list[NDArray], list[NDArray]] = ([], [])
    sizes = [0, 0]
    for array in sorted(arrays, key=len, reverse=True):
        lighter = sizes.index(min(sizes))
        shares[lighter].append(array)
        sizes[lighter] += array.size

    def sort_share(share: list[NDArray]) -> None:
        for array in share:
            array.sort()

    in_two_threads(lambda: sort_share(shares[0]), lambda: sort_share(shares[1]))


#: Scores compared at a time by :func:`_ascending`.
_ASCENDING_BLOCK = 1 << 16


def _ascending(values: NDArray) -> bool:
    """Whether ``values`` never decrease (checked in blocks, without an array of the size of
    ``values``; stops at the first block that decreases)."""
    block = _ASCENDING_BLOCK
    for start in range(0, max(values.size - 1, 0), block):
        stop = min(start + block, values.size - 1)
        if not np.all(values[start + 1 : stop + 1] >= values[start:stop]):
            return False
    return True


def _ordered_for_grouping(scores: pd.DataFrame, by: By) -> pd.DataFrame:
    """``scores`` ordered by score (stable), with text group labels as categories: a table
    that :func:`scores_by_group` groups without a sort and without a factorization, into
    the same groups (checked: otherwise the labels are left as they are). For statistics
    computed on many relabelled copies of one table (permutation nulls)."""
    ordered = scores.sort_values("score", kind="stable")
    with warnings.catch_warnings():  # the table's own grouping has warned already
        warnings.simplefilter("ignore")
        try:
            categorical = {}
            for columns in _group_columns(ordered, by).values():
                if not any(isinstance(ordered[c].dtype, pd.CategoricalDtype) for c in columns):
                    categories = pd.concat([ordered[c] for c in columns]).astype("category").cat.categories
                    categorical.update({c: pd.Categorical(ordered[c], categories=categories) for c in columns})
            coded = ordered.assign(**categorical)  # one set of categories for both sides
            (codes, names), (coded_codes, coded_names) = _group_codes(ordered, by), _group_codes(coded, by)
        except (TypeError, ValueError):  # labels of mixed types, missing labels: as they are
            return ordered
    return coded if names == coded_names and np.array_equal(codes, coded_codes) else ordered


#: Groups a grouping error (and sets of labels that look alike a warning) names one by one;
#: the rest are counted.
_PROBLEMS_SHOWN = 10


def scores_by_group(scores: pd.DataFrame | ScoresByGroup, *, by: By = "group") -> ScoresByGroup:
    """Sorted mated and homogeneous non-mated scores of every group.

    Read more in the chapter "Audit two real speaker verifiers".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        A score table with the group column(s) of ``by``; a ``ScoresByGroup`` made with the
        same ``by`` is returned as it is.
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    ScoresByGroup
        Every fairness index accepts it in place of the table: compute it once when you
        compute several indices of the same data. One group per label that some comparison
        has: a category of a categorical column that none has (left over from a filter)
        forms no group, as in pandas' ``groupby(observed=True)``.

    Raises
    ------
    SchemaError
        When the table is invalid, its group labels cannot be named one way (see
        :func:`group_labels`), it has fewer than two groups, or a group has no mated or no
        homogeneous non-mated comparison (named, with its counts).
    ValueError
        When ``by`` is empty, names a column twice or names "score" or "mated", or ``scores``
        is a ``ScoresByGroup`` formed with another ``by``.
    TypeError
        When ``scores`` is neither a DataFrame nor a ``ScoresByGroup``, or ``by`` is not a
        column name or a list of column names.

    See Also
    --------
    biofair.group_labels : The group of every comparison.
    biofair.fairness_discrepancy_rate : One of the indices that accept the result.

    Notes
    -----
    One factorization of the labels (none for categorical labels: their codes are read), one
    stable radix sort of the (group, class) codes (8-bit up to 62 groups), chunk by chunk,
    and one sort per group and class (shared by two threads from 2**18 scores): about the
    cost of one sort of all scores plus the factorization, whatever the number of groups.
    The split keeps the rows' order, so a table already ordered by score needs no sort:
    then the grouping costs a few passes over the rows.
    Every index then reads the sorted arrays: counts at thresholds and histograms by binary
    search, percentiles at their order statistics, pooled thresholds by selection across
    the groups.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022 (homogeneous non-mated pairs).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3], "mated": [True, False, True, False],
    ...                       "group": ["a", "a", "b", "b"]})
    >>> {name: g.mated.tolist() for name, g in bf.scores_by_group(table).items()}
    {'a': [0.9], 'b': [0.8]}
    """
    return _groups_of(scores, by, name="scores")


def _spelled_alike(by: object) -> object:
    """``by`` as a tuple of the attributes it names, in order ("group", ["group"] and
    ("group",) form the same groups, with the same names); anything else as it is."""
    return (by,) if isinstance(by, str) else tuple(by) if isinstance(by, (list, tuple)) else by


def _groups_of(table: pd.DataFrame | ScoresByGroup, by: By, *, name: str) -> ScoresByGroup:
    """:func:`scores_by_group` of ``table``, given as the argument ``name``, which its type
    error names (``dev`` is no ``scores``)."""
    if isinstance(table, ScoresByGroup):
        if _spelled_alike(table.by) != _spelled_alike(by):
            raise ValueError(f"these groups were formed with by={table.by!r}, not by={by!r}")
        return table
    _validate_score_set(table, name=name, groups=True)
    return _grouped(table, by)


def _grouped(scores: pd.DataFrame, by: By) -> ScoresByGroup:
    """:func:`scores_by_group` of a table known to be valid: a permutation of a validated
    table's group labels (its scores, classes and subjects unchanged) is grouped without
    checking its scores again."""
    codes, names = _group_codes(scores, by)
    values = scores["score"].to_numpy(dtype=np.float64)
    mated = scores["mated"].to_numpy(dtype=bool)
    # key 0: heterogeneous non-mated pairs (code -1); 2k+2 / 2k+3: non-mated / mated of group k,
    # in the smallest integer type that holds them (argsort is a radix sort for 8 and 16 bits)
    n_keys = 2 * len(names) + 2
    small = next(t for t in (np.int8, np.int16, np.intp) if n_keys <= np.iinfo(t).max)
    keys = codes.astype(small)
    keys *= 2
    keys += 2
    keys += mated
    runs = _split_by_key(values, keys, n_keys)
    if not _ascending(values):  # each run keeps the rows' order: a table ordered by score needs no sort
        _sort_in_place(runs[2:])
    groups, problems = {}, []
    for code, name in enumerate(names):
        nonmated, mated_scores = runs[2 * code + 2], runs[2 * code + 3]
        if mated_scores.size == 0 or nonmated.size == 0:
            problems.append(
                f"group {quoted(name)} has {mated_scores.size} mated and {nonmated.size} "
                "homogeneous non-mated comparisons; both are needed"
                + (" (it holds the comparisons without a label: fill in their labels, or remove those rows "
                   "from the file)" if _MISSING_GROUP in name else "")
            )
        groups[name] = GroupScores(mated_scores, nonmated)
    if len(groups) < 2:
        problems.append(f"fairness needs at least two groups; by={by!r} gives {len(groups)}")
    if problems:
        if len(problems) > _PROBLEMS_SHOWN:  # e.g. by= a column of ids: a group per row
            problems = problems[:_PROBLEMS_SHOWN] + [f"and {len(problems) - _PROBLEMS_SHOWN:,} more such groups, of "
                                                     f"{len(names):,} in all (is by={by!r} the grouping you meant?)"]
        raise SchemaError("cannot compare groups:\n- " + "\n- ".join(problems))
    return ScoresByGroup._of_sorted(groups, by)


def _no_subject_column(columns: Sequence, subject: str, *, file: object = None) -> str:
    """The problem of a table of subject attributes (of the subject ``file``, if one) without
    its ``subject`` column, with its columns and the way forward: naming the column of ids, the
    one that differs from ``subject`` only in letter case or surrounding spaces if there is one."""
    near = [str(c) for c in columns if str(c).strip().lower() == subject.strip().lower()]
    shown = _first_columns([str(c) for c in columns])
    if file is None:
        return (f"the attributes have no column {subject!r}, the ids of their subjects (their columns: {shown}): "
                + (f"pass subject={near[0]!r}" if near else "pass subject=<the column of subject ids>"))
    return (f"the subject file {file} has no column {subject!r}, the ids of its subjects (its columns: {shown}): "
            + (f"rename {near[0]!r} to {subject} in its first line" if near
               else f"name its column of subject ids {subject} in its first line"))


def add_subject_attributes(
    scores: pd.DataFrame, attributes: pd.DataFrame, *, subject: str = "subject"
) -> pd.DataFrame:
    """Per-side attribute columns from a table of subjects (speaker or person metadata).

    Read more in the chapter "Analyse your own system".

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table with ``reference_subject`` and ``probe_subject``.
    attributes : pandas.DataFrame
        One row per subject: the column ``subject`` and one column per attribute
        (e.g. ``gender``, ``age_group``).
    subject : str, default "subject"
        The subject column of ``attributes``.

    Returns
    -------
    pandas.DataFrame
        A copy of ``scores`` with ``reference_<attr>`` and ``probe_<attr>`` for every
        attribute, ready for ``by=<attr>``.

    Raises
    ------
    SchemaError
        When a column is missing, or named twice in either table, a subject id is missing, a
        subject appears twice in ``attributes``, subjects of the score table have no
        attributes (counted, never left as NaN), or an attribute column would replace a
        column of ``scores``. Missing attribute values are kept: grouping by that attribute
        then raises, naming them.
    TypeError
        When ``scores`` or ``attributes`` is not a pandas DataFrame (named, with its type).

    Warns
    -----
    UserWarning
        When ``scores`` has a pair-level column of an attribute's name: a grouping by that
        name reads it, not the attribute.

    See Also
    --------
    biofair.read_grouped_scores : Joins a subject attribute file while reading scores.
    biofair.group_labels : The groups the new columns define.

    References
    ----------
    ISO/IEC 19795-10:2024, demographic attributes recorded per subject and carried to every
    comparison.

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> scores = pd.DataFrame({"score": [0.9, 0.2], "mated": [True, False],
    ...                        "reference_subject": ["s1", "s1"], "probe_subject": ["s1", "s2"]})
    >>> people = pd.DataFrame({"subject": ["s1", "s2"], "gender": ["f", "m"]})
    >>> bf.add_subject_attributes(scores, people)[["reference_gender", "probe_gender"]]
      reference_gender probe_gender
    0                f            f
    1                f            m
    """
    _check_table(scores)  # a DataFrame whose columns have distinct names
    if not isinstance(attributes, pd.DataFrame):
        _check_table(attributes, name="attributes")  # names its type
    if twice := sorted({str(c) for c in attributes.columns[attributes.columns.duplicated()]}):
        raise SchemaError(f"the attributes have more than one column named {twice}: give each attribute one column")
    if missing := [c for c in ("reference_subject", "probe_subject") if c not in scores.columns]:
        raise SchemaError(  # the attributes join a comparison by its subjects
            f"the scores have no {' and no '.join(map(repr, missing))}, the subject ids the subject attributes join "
            f"by{_near_names(missing, scores.columns, renaming=_renaming)}"
        )
    if subject not in attributes.columns:
        raise SchemaError(_no_subject_column(attributes.columns, subject))
    unnamed = [(f"the scores' {c!r}", int(scores[c].isna().sum())) for c in ("reference_subject", "probe_subject")]
    unnamed.append((f"the attributes' {subject!r}", int(attributes[subject].isna().sum())))
    if any(count for _, count in unnamed):
        raise SchemaError("subject ids are missing: " + ", ".join(
            f"in {how_many(count, 'row')} of {column} column" for column, count in unnamed if count))
    clash = [f"{side}_{c}" for c in attributes.columns if c != subject for side in ("reference", "probe")
             if f"{side}_{c}" in scores.columns]
    if clash:
        raise SchemaError(f"the scores already have the column(s) {clash}; the subject attributes would replace them")
    if shadowed := [c for c in attributes.columns if c != subject and c in scores.columns]:
        warn(  # a grouping by that name reads the pair-level column first
            f"the scores have a pair-level column named like the subject attribute(s) {shadowed}: a grouping "
            f"by={shadowed[0]!r} reads that column, not the attribute; rename one of them to group by the other",
            UserWarning,
        )
    table = attributes.astype({subject: str})
    duplicated = table[subject].duplicated()
    if duplicated.any():
        repeated = pd.unique(table.loc[duplicated, subject])
        raise SchemaError(
            f"{how_many(len(repeated), 'subject', verbs=('has', 'have'))} more than one row in the "
            "attributes, e.g. "
            f"[{', '.join(map(quoted, repeated[:5]))}]: give each subject one row"
        )
    table = table.set_index(subject)
    ids = {side: scores[f"{side}_subject"].astype(str) for side in ("reference", "probe")}
    rows = {side: table.index.get_indexer(ids[side]) for side in ids}  # -1: a subject without attributes
    unknown = {name for side in ids for name in ids[side][rows[side] < 0]}
    if unknown:
        known = {name.strip(): name for name in table.index}  # spaces around an id on either side
        padded = sorted(name for name in unknown if name.strip() in known)
        numbers = {value: name for name in table.index if (value := _number(name)) is not None}
        written = sorted(name for name in unknown if _number(name) in numbers)  # 0 and 0.0
        raise SchemaError(
            f"{how_many(len(unknown), 'subject')} of the score table {'has' if len(unknown) == 1 else 'have'} no "
            f"attributes, e.g. [{', '.join(map(quoted, sorted(unknown)[:5]))}]"
            + (f"; {len(padded)} of them {'differs' if len(padded) == 1 else 'differ'} from a subject of the attributes only by surrounding spaces "
               f"(e.g. {quoted(padded[0])} and {quoted(known[padded[0].strip()])}): strip the ids "
               "(table[column].str.strip())"
               if padded else "")
            + (f"; {len(written)} of them {'is' if len(written) == 1 else 'are'} the number of a subject of the attributes written otherwise (e.g. "
               f"{quoted(written[0])} and {quoted(numbers[_number(written[0])])}): read the ids of both tables "
               "as text, "
               "or write them one way" if written else "")
        )
    result = scores.copy()
    for side in ids:  # the attributes' own dtypes: nullable integers stay integers (1, not 1.0), categories stay
        for column in table.columns:
            result[f"{side}_{column}"] = table[column].array.take(rows[side])
    return result


def group_sizes(
    scores: pd.DataFrame,
    *,
    by: By = "group",
    min_mated: int = 100,
    min_nonmated: int = 1000,
    min_subjects: int = 10,
) -> pd.DataFrame:
    """Count comparisons and subjects per group, and flag groups too small to trust.

    Read more in the chapter "Audit two real speaker verifiers".

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    min_mated, min_nonmated, min_subjects : int, default 100, 1000 and 10
        A group with fewer mated or homogeneous non-mated comparisons, or (when
        ``reference_subject`` is known) fewer distinct subjects, is flagged ``small``: with
        ``N`` non-mated comparisons no FMR below ``1/N`` can even be observed (a target is
        resolved only from ``3/N``), and a handful of people cannot stand for a demographic
        group. 0 flags none.

    Returns
    -------
    pandas.DataFrame
        One row per group (largest first): ``n_mated``, ``n_nonmated``, ``n_subjects``
        (distinct reference subjects of the group's own comparisons, mated and homogeneous
        non-mated, when known: a subject seen only in cross-group pairs is not counted),
        ``fmr_resolution`` (``1/n_nonmated``, the
        smallest non-zero FMR the group can show) and ``small``. Heterogeneous non-mated
        pairs are counted in a last row ``(cross-group)``.

    Raises
    ------
    SchemaError
        When the table is invalid or holds several systems or splits, its group labels cannot
        be named one way (see :func:`group_labels`), a group is labelled ``(cross-group)``
        while the table has cross-group pairs, or ``reference_subject`` mixes numbers and
        text (``1`` and ``"1"`` would be counted as two subjects) or booleans and other
        numbers (``True == 1``).
    ValueError
        When ``by`` is empty, names a column twice or names "score" or "mated", or
        ``min_mated``, ``min_nonmated`` or ``min_subjects`` is negative.
    TypeError
        When ``scores`` is not a pandas DataFrame, ``by`` is not a column name or a list of
        column names, or ``min_mated``, ``min_nonmated`` or ``min_subjects`` is not an integer.

    See Also
    --------
    biofair.scores_by_group : Refuses groups without mated or non-mated comparisons.
    biofair.operating_summary : Marks targets the data cannot resolve.

    References
    ----------
    ISO/IEC 19795-10:2024, reporting the size of every demographic group.

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3], "mated": [True, False, True, False],
    ...                       "group": ["a", "a", "b", "b"]})
    >>> bf.group_sizes(table, min_mated=1, min_nonmated=1)[["n_mated", "n_nonmated", "small"]]
           n_mated  n_nonmated  small
    group
    a            1           1  False
    b            1           1  False
    """
    # unchecked, NaN flagged no group, None failed in pandas and True counted as 1
    min_mated, min_nonmated, min_subjects = (as_count(value, name, minimum=0) for name, value in (
        ("min_mated", min_mated), ("min_nonmated", min_nonmated), ("min_subjects", min_subjects)))
    _validate_score_set(scores)
    codes, names = _group_codes(scores, by)
    mated = scores["mated"].to_numpy(dtype=bool)
    table = pd.DataFrame(
        {
            "n_mated": np.bincount(codes[mated & (codes >= 0)], minlength=len(names)),
            "n_nonmated": np.bincount(codes[~mated & (codes >= 0)], minlength=len(names)),
        },
        index=pd.Index(names, name="group"),
    )
    if "reference_subject" in scores.columns:
        _check_ids_of_one_kind({"column 'reference_subject'": scores["reference_subject"]})  # 1 and "1": two
        subjects = pd.Series(scores["reference_subject"].to_numpy())[codes >= 0]
        table["n_subjects"] = (subjects.groupby(codes[codes >= 0]).nunique()  # a group seen only in
                               .reindex(range(len(names)), fill_value=0).to_numpy())  # cross-group pairs: 0
    table["fmr_resolution"] = 1.0 / table["n_nonmated"].where(table["n_nonmated"] > 0)
    table["small"] = (table["n_mated"] < min_mated) | (table["n_nonmated"] < min_nonmated)
    if "n_subjects" in table.columns:
        table["small"] |= table["n_subjects"] < min_subjects
    table = table.sort_values(["n_nonmated", "n_mated"], ascending=False)
    cross = int((codes < 0).sum())
    if cross and _CROSS_GROUP in table.index:
        raise SchemaError(f"a group is labelled {_CROSS_GROUP!r}, the name of the row of cross-group pairs; relabel it")
    if cross:  # not a group: no subjects or resolution of its own, never flagged small
        row = pd.DataFrame({"n_mated": [0], "n_nonmated": [cross], "small": [False]},
                           index=pd.Index([_CROSS_GROUP], name="group"))
        table = pd.concat([table, row]).astype({"n_mated": np.int64, "n_nonmated": np.int64})
    return table


def _pooled_size(groups: ScoresByGroup) -> int:
    """How many homogeneous non-mated scores all groups have together."""
    return sum(g.nonmated.size for g in groups.values())


def _pooled_threshold(groups: ScoresByGroup, fmr: ArrayLike) -> float | NDArray:
    """Threshold at a target FMR on the pooled homogeneous non-mated scores of all groups,
    selected from the groups' sorted scores (the pooled scores are never merged); with more
    groups than the square root of their number of scores, from the largest scores of their
    concatenation, which is cheaper there: the selection across ``R`` sorted groups counts
    about ``R`` candidates in each (10,000 groups of 5 to 40 scores: 0.02 s, for 2.1 s across
    the groups, on a loaded machine)."""
    targets = as_rates(fmr, "fmr")
    n_scores = _pooled_size(groups)
    warn_unresolved(np.ravel(targets), n_scores)
    runs = [g.nonmated for g in groups.values()]
    if len(runs) ** 2 > n_scores:
        largest = top_sorted(np.concatenate(runs), int(allowed_false_matches(targets.ravel(), n_scores).max()) + 2)
        thresholds = threshold_at_fmr_sorted(largest, targets.ravel(), n_scores)
    else:
        thresholds = threshold_at_fmr_runs(runs, targets.ravel())
    return scalar_or_array(thresholds.reshape(targets.shape), fmr)


def _pooled_at_or_above(groups: ScoresByGroup, thresholds: ArrayLike) -> NDArray[np.int64]:
    """Pooled homogeneous non-mated scores at or above each threshold (``k`` of its target)."""
    return at_or_above_runs([g.nonmated for g in groups.values()], thresholds)


def _group_rates(groups: dict[str, GroupScores], thresholds: ArrayLike) -> GroupRates:
    """FMR and FNMR of every group (rows) at every threshold (columns)."""
    values = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    counts = [counts_at(g.mated, g.nonmated, values) for g in groups.values()]
    false_matches = np.array([c[0] for c in counts])
    false_non_matches = np.array([c[1] for c in counts])
    n_mated = np.array([[g.mated.size] for g in groups.values()])
    n_nonmated = np.array([[g.nonmated.size] for g in groups.values()])
    return GroupRates(
        false_matches / n_nonmated,
        false_non_matches / n_mated,
        false_matches,
        false_non_matches,
        n_mated,
        n_nonmated,
    )


def rates_by_group(scores: pd.DataFrame, thresholds: ArrayLike, *, by: By = "group") -> pd.DataFrame:
    """FMR and FNMR of every group at every threshold, with the counts behind them.

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        A score table with a group column (see :func:`group_labels`), or a
        :func:`scores_by_group` of it made with the same ``by``.
    thresholds : float or array_like
        Decision thresholds (match iff ``score >= threshold``).
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    pandas.DataFrame
        One row per group and threshold: ``group``, ``threshold``, ``fmr``, ``fnmr``,
        ``false_matches``, ``n_nonmated`` (homogeneous non-mated pairs), ``false_non_matches``
        and ``n_mated``.

    Raises
    ------
    SchemaError
        When ``scores`` is an invalid score table (see :func:`biofair.validate_scores`) or
        holds several systems or splits, lacks a group column of ``by`` or has rows without a
        group label, its group labels cannot be named one way (see
        :func:`biofair.group_labels`), it has fewer than two groups, or a group has no mated or
        no homogeneous non-mated comparison (named, with its counts).
    ValueError
        When ``thresholds`` is empty, has more than one dimension or holds a NaN or a value
        float64 does not hold exactly, ``by`` is empty, names a column twice or names "score" or
        "mated", or ``scores`` is a ``ScoresByGroup`` formed with another ``by``.
    TypeError
        When ``scores`` is neither a DataFrame nor a ``ScoresByGroup``, ``by`` is not a column
        name or a list of column names, or a threshold is not a number.

    See Also
    --------
    biofair.fairness_discrepancy_rate : The largest gaps between these rates.
    biofair.cross_group_fmr : FMR of the pairs whose sides belong to different groups.
    biofair.partitions.rates_by_group : The same table over a partitioned score set.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022 (per-group FMR and FNMR at one
    threshold for everyone, eq. 4-5).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [0.9, 0.4, 0.8, 0.6, 0.2, 0.7],
    ...                       "mated": [True, True, False, True, False, False],
    ...                       "group": ["a", "a", "a", "b", "b", "b"]})
    >>> bf.rates_by_group(table, 0.5)[["group", "fmr", "fnmr"]]
      group  fmr  fnmr
    0     a  1.0   0.5
    1     b  0.5   0.0
    """
    groups = scores_by_group(scores, by=by)
    values = as_thresholds(thresholds, flat=True)
    return _rates_table(list(groups), values, _group_rates(groups, values))


def _rates_table(names: list[str], thresholds: NDArray, rates: GroupRates) -> pd.DataFrame:
    """The long table of :func:`rates_by_group`: one row per group and threshold."""
    shape = rates.fmr.shape
    return pd.DataFrame(
        {
            "group": np.repeat(names, thresholds.size),
            "threshold": np.tile(thresholds, len(names)),
            "fmr": rates.fmr.ravel(),
            "fnmr": rates.fnmr.ravel(),
            "false_matches": rates.false_matches.ravel(),
            "n_nonmated": np.broadcast_to(rates.n_nonmated, shape).ravel(),
            "false_non_matches": rates.false_non_matches.ravel(),
            "n_mated": np.broadcast_to(rates.n_mated, shape).ravel(),
        }
    )


def cross_group_fmr(scores: pd.DataFrame, threshold: float, *, by: By = "group") -> pd.DataFrame:
    """FMR of non-mated pairs for every reference group x probe group, at one threshold.

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table with per-side group columns ``reference_<attr>`` and ``probe_<attr>``.
    threshold : float
        The decision threshold (match iff ``score >= threshold``).
    by : str or sequence of str, default "group"
        The grouping attribute(s); several attributes combine into one group per side,
        named by joining the values with " / ".

    Returns
    -------
    pandas.DataFrame
        Rows: reference (enrolment) group; columns: probe group, both in the order of the
        groups' labels (numbers by value: 2 before 10), as :func:`rates_by_group` lists them;
        values: FMR of the non-mated pairs of that cell (NaN where a cell has no pairs). The
        diagonal holds the homogeneous FMRs used by per-group metrics (Tables IV, VI and VII
        of the FDR paper).

    Raises
    ------
    SchemaError
        When ``scores`` is an invalid score table (see :func:`biofair.validate_scores`) or
        holds several systems or splits, ``reference_<attr>`` or ``probe_<attr>`` is missing
        or has missing or blank labels (empty or white space only), its group labels cannot
        be named one way (see :func:`biofair.group_labels`), or the two sides of a mated
        comparison differ.
    ValueError
        When ``threshold`` is NaN or a value float64 does not hold exactly, or ``by`` is
        empty, names a column twice or names "score" or "mated".
    TypeError
        When ``scores`` is not a pandas DataFrame, ``threshold`` is not a number, or ``by`` is
        not a column name or a list of column names.

    See Also
    --------
    biofair.rates_by_group : The per-group rates on homogeneous pairs.
    biofair.group_labels : Which pairs are homogeneous.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, Tables IV, VI and VII.

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [0.9, 0.6, 0.2, 0.7], "mated": [True, False, False, False],
    ...                       "reference_group": ["a", "a", "a", "b"],
    ...                       "probe_group": ["a", "a", "b", "a"]})
    >>> bf.cross_group_fmr(table, 0.5)
    probe_group    a    b
    reference_group
    a            1.0  0.0
    b            1.0  NaN
    """
    table, names = _cross_group_cells(scores, threshold, by=by)
    matrix = (table["accepted"] / table["comparisons"]).set_axis(
        pd.MultiIndex.from_frame(table[["reference", "probe"]])).unstack("probe")
    matrix = matrix.reindex(index=names, columns=names)  # in the groups' order; a group without non-mated pairs: NaN
    attributes = _attributes_of(by)
    matrix.index.name = " / ".join(f"reference_{a}" for a in attributes)
    matrix.columns.name = " / ".join(f"probe_{a}" for a in attributes)
    return matrix


def _cross_group_counts(scores: pd.DataFrame, threshold: float, *, by: By = "group") -> pd.DataFrame:
    """Non-mated comparisons of every observed (reference group, probe group) cell and how
    many of them are at or above the threshold: columns ``reference``, ``probe``,
    ``accepted``, ``comparisons`` and ``fmr``, one row per cell (the long form of
    :func:`cross_group_fmr`)."""
    return _cross_group_cells(scores, threshold, by=by)[0]


def _cross_group_cells(scores: pd.DataFrame, threshold: float, *, by: By = "group") -> tuple[pd.DataFrame, list[str]]:
    """:func:`_cross_group_counts`, and the names of all groups of the table's sides, mated
    comparisons' included, named as :func:`group_labels` names them from the per-side columns."""
    _validate_score_set(scores)
    threshold = as_threshold(threshold)
    sides = [[f"reference_{a}", f"probe_{a}"] for a in _attributes_of(by)]
    missing = [c for pair in sides for c in pair if c not in scores.columns]
    if missing:
        raise SchemaError(f"cross_group_fmr needs per-side group columns; missing {missing}")
    reference, probe, parts = _combine([_attribute_codes(scores, pair) for pair in sides])
    names = _group_names(parts, len(sides))
    nonmated = ~scores["mated"].to_numpy(dtype=bool)
    table = (  # grouped by code, so the cells come in the groups' order (2, 9, 10; not as text)
        pd.DataFrame({"reference": reference[nonmated], "probe": probe[nonmated],
                      "accepted": scores["score"].to_numpy(dtype=np.float64)[nonmated] >= threshold})
        .groupby(["reference", "probe"])["accepted"]
        .agg(["sum", "size"])
        .reset_index()
        .rename(columns={"sum": "accepted", "size": "comparisons"})
    )
    labels = np.array(names, dtype=object)
    table["reference"], table["probe"] = labels[table["reference"]], labels[table["probe"]]
    table["accepted"] = table["accepted"].astype(np.int64)
    table["fmr"] = table["accepted"] / table["comparisons"]
    return table, names
