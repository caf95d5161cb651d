"""Identification fairness: rank-n (closed set) and DIR/FPIR (open set) per group.

Every search of a probe against the gallery is reduced to one row, its **outcome**: the
probe's group, whether its subject is enrolled (``mated``), the decisive ``score`` (the
score of its mate if enrolled, else its best score) and the ``rank`` of its mate. All
identification metrics are computed from these rows, so a gallery of any size is searched
once, block by block, and the rows can be resampled like a score table. Read more in the
chapter "Identify fairly" (``notebooks/07``).

Ranks and ties: the rank of a mate is 1 + the number of non-mated gallery entries whose
score is at least the mate's (``ties="pessimistic"``, the default: a tie is an error, as a
tie at the threshold is a match) or strictly above it (``ties="optimistic"``). The gallery
holds one entry per enrolled identity.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence, Sized

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._summation import parts
from biofair._thresholds import RETURNED_UNRESOLVED, threshold_at_fmr_sorted, warn_unresolved
from biofair._typing import By, Ties
from biofair._validation import (
    as_count,
    as_rates,
    as_targets,
    as_thresholds,
    check_alpha,
    check_choice,
    how_many,
    inexact_integers,
    is_blank,
    is_real_dtype,
    long_double_problem,
    quoted,
    scalar_or_array,
    unmasked,
)
from biofair.discrepancy import _discrepancy_table, _max_gap, _warn_if_groups_differ
from biofair.exceptions import SchemaError
from biofair.groups import _attributes_of, _label_text, _text_labels
from biofair.schema import _check_ids_of_one_kind, _contradiction, _mated_problem, _row, _score_problems

_OUTCOME_COLUMNS = ("probe_id", "group", "mated", "score", "rank", "top_nonmated")
_DEFAULT_FPIR_TARGETS = (1e-1, 1e-2, 1e-3)


def _check_ties(ties: str) -> None:
    check_choice(ties, "ties", ("pessimistic", "optimistic"))


def _probe_groups(scores: pd.DataFrame, by: By) -> pd.Series:
    """The probe's group of every row: ``probe_<attr>`` or ``<attr>`` per attribute, named as
    :func:`biofair.group_labels` names them (two distinct groups never share a name)."""
    columns = []
    for attribute in _attributes_of(by):
        found = [c for c in (f"probe_{attribute}", attribute) if c in scores.columns]
        if not found:
            raise SchemaError(f"no group column: expected 'probe_{attribute}' or '{attribute}'")
        columns.append(found[0])
    problems = [f"column {c!r} has {how_many(int(scores[c].isna().sum()), 'missing value')}"
                for c in columns if scores[c].isna().any()]
    for column in columns:
        problems += _blank_problems(scores[column], f"column {column!r}", place=lambda i: f"in {_row(scores, i)}")
    if problems:
        raise SchemaError("invalid identification table:\n- " + "\n- ".join(problems))
    return pd.Series(_text_labels(scores, columns), index=scores.index)


def _blank_problems(labels: pd.Series, name: str, *, place: Callable[[int], str]) -> list[str]:
    """The problem of group labels that are text, empty or white space only (as an empty cell,
    see :func:`biofair._validation.is_blank`): their probes would have no group. ``name``: the
    labels as the message names them; ``place(i)``: where the ``i``-th label is, in words."""
    if labels.dtype.kind in "biufcmM":  # numbers, booleans and dates are never blank
        return []
    blank_labels = [label for label in pd.unique(labels.dropna()) if is_blank(label)]
    if not blank_labels:
        return []
    blank = labels.isin(blank_labels).to_numpy()
    return [f"{name} has {how_many(int(blank.sum()), 'blank label')} (empty or white space only), e.g. "
            f"{place(int(blank.argmax()))}: every probe needs its group"]


def probe_outcomes(scores: pd.DataFrame, *, by: By = "group", ties: Ties = "pessimistic") -> pd.DataFrame:
    """One outcome row per probe from a long identification table.

    Read more in the chapter "Identify fairly".

    Parameters
    ----------
    scores : pandas.DataFrame
        One row per (probe, gallery entry) comparison with columns ``probe_id``,
        ``reference_id``, ``score`` (higher = more similar), ``mated`` (the entry is the
        probe's own identity) and the probe's group in ``probe_<by>`` or ``<by>``. Every
        probe is compared with the same gallery, one entry per identity (checked when the
        table has ``reference_subject``); at most one entry per probe is mated. Probes
        without a mated entry are open-set (non-enrolled) probes.
    by : str or sequence of str, default "group"
        The attribute(s) whose groups are compared; several combine into one group per
        probe, named by joining the values with " / " as :func:`biofair.group_labels` does
        (every value quoted when one contains "/"). Labels are read as text; two labels that
        differ only in type (``1`` and ``"1"``) are an error.
    ties : {"pessimistic", "optimistic"}, default "pessimistic"
        How a non-mated entry scoring exactly as the mate counts for the rank (see the
        module notes).

    Returns
    -------
    pandas.DataFrame
        One row per probe: ``probe_id``, ``group``, ``mated`` (enrolled), ``score`` (mate
        score if enrolled, else the best score), ``rank`` (1-based rank of the mate, 0 if
        not enrolled) and ``top_nonmated`` (best non-mated score; ``-inf`` when the gallery
        holds only the probe's mate).

    Raises
    ------
    SchemaError
        No rows or missing columns; missing or blank (empty or white space only) group labels,
        in every group column; then listing every problem: non-finite scores or scores that
        float64 cannot hold exactly (integers beyond ``±2**53``, long doubles), missing probe or
        entry ids, non-boolean or missing labels, repeated (probe, entry) pairs, probes with
        several mates, several groups or several ``probe_subject`` values (a probe is one
        presentation of one subject), probes not compared with the whole gallery, rows
        whose ``mated`` contradicts ``reference_subject == probe_subject`` when the table has
        both columns, and a ``reference_subject`` with several entries (``reference_id``) or an
        entry with several; or a group column holding two labels that differ only in type, or
        ids of two types in ``probe_id`` or ``reference_id`` (``1`` and ``"1"``).
    ValueError
        When ``by`` is empty, names a column twice or names "score" or "mated", or ``ties``
        is neither "pessimistic" nor "optimistic".
    TypeError
        When ``scores`` is not a pandas DataFrame, or ``by`` is not a column name or a list of
        column names.

    See Also
    --------
    biofair.probe_outcomes_from_matrix : The same rows from a probes x gallery matrix.
    biofair.cmc : Closed-set rank-n rates per group.
    biofair.identification_discrepancy_rate : FDR' of open-set identification.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, section on identification (eq. 9-11).
    ISO/IEC 19795-1:2021 (rank, DIR and FPIR of identification tests).

    Examples
    --------
    >>> import pandas as pd
    >>> from biofair import probe_outcomes
    >>> table = pd.DataFrame({"probe_id": ["p", "p", "p", "q", "q", "q"],
    ...                       "reference_id": ["a", "b", "c"] * 2,
    ...                       "score": [0.9, 0.95, 0.1, 0.3, 0.2, 0.6],
    ...                       "mated": [True, False, False, False, False, False],
    ...                       "group": ["x", "x", "x", "y", "y", "y"]})
    >>> probe_outcomes(table)[["probe_id", "mated", "score", "rank"]]
      probe_id  mated  score  rank
    0        p   True    0.9     2
    1        q  False    0.6     0
    """
    _check_ties(ties)
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"scores must be a pandas DataFrame, got {type(scores).__name__}")
    missing = [c for c in ("probe_id", "reference_id", "score", "mated") if c not in scores.columns]
    if missing:
        raise SchemaError(f"invalid identification table:\n- missing column(s): {', '.join(missing)}")
    if scores.empty:
        raise SchemaError("invalid identification table: it has no rows; every probe needs its scores "
                          "against the whole gallery")
    probe_group = _probe_groups(scores, by)
    problems = _score_problems(scores["score"])
    problems += [f"column {c!r} has {how_many(int(scores[c].isna().sum()), 'missing value')}"
                 for c in ("probe_id", "reference_id") if scores[c].isna().any()]
    mated = scores["mated"]
    if problem := _mated_problem(mated):
        problems.append(problem)
    if problems:
        raise SchemaError("invalid identification table:\n- " + "\n- ".join(problems))
    for column, what in (("probe_id", "probe"), ("reference_id", "reference")):  # 1 and "1": two of them
        _check_ids_of_one_kind({f"scores[{column!r}]": scores[column]}, what=what, hint=(
            "Read the ids as text, e.g. pd.read_csv(path, dtype={'probe_id': str, 'reference_id': str}), or "
            "convert them one way (scores[column].astype(str))"))

    probe, probe_ids = pd.factorize(scores["probe_id"])
    entry, entry_ids = pd.factorize(scores["reference_id"])
    n_probes, n_entries = len(probe_ids), len(entry_ids)
    pairs = probe.astype(np.int64) * n_entries + entry
    ordered = np.sort(pairs)  # a sort: NumPy's hashing np.unique was 80 times slower on these keys
    n_repeated = int(np.count_nonzero(ordered[1:] == ordered[:-1]))
    per_probe = np.bincount(probe, minlength=n_probes)
    is_mated = mated.to_numpy(dtype=bool)
    mates = np.bincount(probe[is_mated], minlength=n_probes)
    groups_per_probe = probe_group.groupby(probe).nunique().to_numpy()
    if n_repeated:
        problems.append(f"{n_repeated} repeated (probe_id, reference_id) pairs")
    if not n_repeated and (mates > 1).any():  # a repeated mated pair is not a second mate
        problems.append(f"{how_many(int((mates > 1).sum()), 'probe', verbs=('has', 'have'))} "
                        "several mated entries; fuse the gallery "
                        "to one entry per identity first")
    if (groups_per_probe > 1).any():
        problems.append(f"{how_many(int((groups_per_probe > 1).sum()), 'probe', verbs=('belongs', 'belong'))} to "
                        "several groups")
    if not n_repeated and (per_probe != n_entries).any():
        problems.append(f"{how_many(int((per_probe != n_entries).sum()), 'probe', verbs=('was', 'were'))} not "
                        "compared with all "
                        f"{n_entries} gallery entries")
    if {"reference_subject", "probe_subject"} <= set(scores.columns):  # as validate_scores reads them
        problems += [problem for problem in (_contradiction(scores),) if problem]
    if "reference_subject" in scores.columns:
        problems += _gallery_identity_problems(entry, entry_ids, scores["reference_subject"])
    if "probe_subject" in scores.columns:
        problems += _probe_subject_problems(probe, probe_ids, scores["probe_subject"])
    if problems:
        raise SchemaError("invalid identification table:\n- " + "\n- ".join(problems))

    values = scores["score"].to_numpy(dtype=np.float64)
    mate_score = np.full(n_probes, -np.inf)
    mate_score[probe[is_mated]] = values[is_mated]
    ahead = values >= mate_score[probe] if ties == "pessimistic" else values > mate_score[probe]
    rank = 1 + np.bincount(probe[~is_mated & ahead], minlength=n_probes)
    top_nonmated = np.full(n_probes, -np.inf)
    np.maximum.at(top_nonmated, probe[~is_mated], values[~is_mated])
    group = probe_group.to_numpy()[np.unique(probe, return_index=True)[1]]
    return _outcome_table(probe_ids, group, mates == 1, mate_score, rank, top_nonmated)


def _probe_subject_problems(probe: NDArray[np.intp], probe_ids: pd.Index, subjects: pd.Series) -> list[str]:
    """The problem of the probes whose rows name several ``probe_subject`` values (a missing
    one counts as a value): a probe is one presentation of one subject, so its rows are two
    searches under one id. Linear in the rows: each probe's smallest and largest subject code."""
    codes = pd.factorize(subjects)[0]
    n_probes = len(probe_ids)
    lowest, highest = np.full(n_probes, codes.max(initial=-1)), np.full(n_probes, -1)
    np.minimum.at(lowest, probe, codes)
    np.maximum.at(highest, probe, codes)
    several = lowest != highest
    if not several.any():
        return []
    first = int(several.argmax())
    rows = np.flatnonzero(probe == first)
    named = [quoted(subjects.iloc[row]) for row in (rows[0], rows[codes[rows] != codes[rows[0]]][0])]
    return [f"{how_many(int(several.sum()), 'probe', verbs=('has', 'have'))} rows of several probe subjects, e.g. "
            f"probe {quoted(probe_ids[first])}: {named[0]} and {named[1]}; a probe is one presentation of one "
            "subject: give each presentation its own probe_id"]


def _gallery_identity_problems(entry: NDArray[np.intp], entry_ids: pd.Index, subjects: pd.Series) -> list[str]:
    """What is wrong with a long table's gallery, read from its ``reference_subject`` column
    (``entry``: the codes of ``reference_id``, ``entry_ids`` their values): an identity with
    several entries, each of which counts as a non-mate of its own in the ranks of other
    subjects' mates (:func:`probe_outcomes_from_matrix` refuses a repeated gallery identity),
    or an entry of several identities. Rows without a subject are left to the other checks."""
    subject, subject_ids = pd.factorize(subjects)
    known = subject >= 0
    rows_entry, rows_subject = entry[known], subject[known]
    of_entry = np.full(len(entry_ids), -1)
    of_entry[rows_entry] = rows_subject  # one of each entry's subjects (which one does not matter)
    torn = rows_subject != of_entry[rows_entry]  # rows of an entry that names another subject too
    torn_entries = np.unique(rows_entry[torn])
    problems = []
    whole = of_entry[np.setdiff1d(np.flatnonzero(of_entry >= 0), torn_entries)]  # the subject of each other entry
    entries = np.bincount(whole, minlength=len(subject_ids))  # gallery entries of each subject
    if (entries > 1).any():
        first = int(np.argmax(entries > 1))
        repeated = np.setdiff1d(np.flatnonzero(of_entry == first), torn_entries)[:2]
        shown = " and ".join(quoted(value) for value in entry_ids[repeated])
        problems.append(f"{how_many(int((entries > 1).sum()), 'reference subject', verbs=('has', 'have'))} several "
                        f"gallery entries, e.g. {quoted(subject_ids[first])} (reference_id {shown}): each entry "
                        "would count as a non-mate of its own in the ranks of other subjects' mates; fuse each "
                        "subject's entries into one first (one entry per identity)")
    if torn_entries.size:
        first = int(torn_entries[0])
        named = np.unique(rows_subject[rows_entry == first])[:2]  # in order of appearance in the table
        shown = " and ".join(quoted(value) for value in subject_ids[named])
        problems.append(f"{how_many(torn_entries.size, 'reference_id', verbs=('names', 'name'))} several "
                        f"reference subjects, e.g. {quoted(entry_ids[first])} ({shown}): a gallery entry is one "
                        "identity: give it the same reference_subject in every row")
    return problems


def _outcome_table(probe_ids, group, enrolled, mate_score, rank, top_nonmated) -> pd.DataFrame:
    return pd.DataFrame({
        "probe_id": np.asarray(probe_ids),
        "group": np.asarray(group, dtype=object),
        "mated": enrolled,
        "score": np.where(enrolled, mate_score, top_nonmated),
        "rank": np.where(enrolled, rank, 0),
        "top_nonmated": top_nonmated,
    })


def _held(length: int | None) -> str:
    """What a row of ``length`` items holds (None: the row is a single value)."""
    return "a single value" if length is None else f"{length} value{'s' * (length != 1)}"


def _rectangular(values: ArrayLike, name: str, expected: str) -> NDArray:
    """``values`` as an array (a masked one refused, see :func:`unmasked`), or a SchemaError
    naming ``name`` and its row lengths when it is a ragged nest of lists, which NumPy refuses
    with an error that names neither. ``expected``: what to give instead."""
    try:
        return unmasked(values, name)
    except ValueError:
        if np.ma.isMaskedArray(values) or not isinstance(values, Sequence):  # not NumPy's ragged-list error
            raise
        lengths = [len(row) if isinstance(row, Sized) and not isinstance(row, (str, bytes)) else None
                   for row in values]  # rows, not scores, and only on this error path
    odd = [i for i, length in enumerate(lengths) if length != lengths[0]]
    if not odd:  # rows of one length with lists inside them, where single values should be
        raise SchemaError(f"{name} is ragged: its rows hold nested lists where single values should be; {expected}")
    found = ", ".join(_held(n) for n in sorted(set(lengths), key=lambda n: -1 if n is None else n))
    raise SchemaError(f"{name} is ragged: its rows are of {len(set(lengths))} lengths ({found}), e.g. row 0 holds "
                      f"{_held(lengths[0])} and row {odd[0]} {_held(lengths[odd[0]])}; {expected}")


def _as_ids(values: ArrayLike, name: str, *, expected: str = "give one id per item, a flat sequence") -> NDArray:
    """``values`` as an array; text, or a list that mixes types, with its types kept. NumPy
    writes ``[1, "a"]`` as ``["1", "a"]`` (probe 1 would then find the gallery's ``"1"``),
    ``[True, 1]`` as ``[1, 1]`` and ``[1, 1.0]`` as ``[1.0, 1.0]``: two labels merged in
    silence, where :func:`biofair.group_labels` refuses them. ``expected``: what to give
    instead of a ragged nest of lists."""
    array = _rectangular(values, name, expected)
    if isinstance(values, np.ndarray):
        return array
    mixed = isinstance(values, (list, tuple)) and len(set(map(type, values))) > 1
    return np.asarray(values, dtype=object) if array.dtype.kind == "U" or mixed else array


def _block_outcomes(
    block: NDArray, mate_columns: NDArray[np.intp], *, ties: Ties = "pessimistic"
) -> tuple[NDArray, NDArray, NDArray]:
    """Mate score, rank and best non-mated score of each row of a probes x gallery block.

    ``mate_columns[i]`` is the gallery column of probe ``i``'s mate, -1 if not enrolled.
    Returns ``(mate_score, rank, top_nonmated)``; ``mate_score`` is ``-inf`` and ``rank``
    is ``1 + (number of entries)`` for probes without a mate.
    """
    rows = np.flatnonzero(mate_columns >= 0)
    nonmated = np.array(block, dtype=np.float64, copy=True)
    mate_score = np.full(len(nonmated), -np.inf)
    mate_score[rows] = nonmated[rows, mate_columns[rows]]
    nonmated[rows, mate_columns[rows]] = -np.inf
    compare = np.greater_equal if ties == "pessimistic" else np.greater
    rank = 1 + compare(nonmated, mate_score[:, None]).sum(axis=1)
    return mate_score, rank, nonmated.max(axis=1)


def probe_outcomes_from_matrix(
    scores: ArrayLike | Callable[[int, int], NDArray],
    *,
    probe_subjects: ArrayLike,
    gallery_subjects: ArrayLike,
    probe_groups: ArrayLike,
    probe_ids: ArrayLike | None = None,
    block_size: int = 256,
    ties: Ties = "pessimistic",
) -> pd.DataFrame:
    """Probe outcomes from a probes x gallery score matrix, read a block of probes at a time.

    Read more in the chapter "Identify fairly".

    Parameters
    ----------
    scores : array_like of shape (P, G) or callable
        The similarity matrix (a NumPy array or a ``numpy.memmap`` on disk), or a function
        ``scores(start, stop)`` returning the rows ``start:stop`` (for example computed
        from embeddings): only ``block_size`` rows are ever in memory.
    probe_subjects : array_like of shape (P,)
        Identity of each probe; a probe is enrolled when its identity is in the gallery.
    gallery_subjects : array_like of shape (G,)
        Identity of each gallery entry, each at most once.
    probe_groups : array_like of shape (P,)
        Group of each probe, read as text; two labels that differ only in type (``1`` and
        ``"1"``) are an error.
    probe_ids : array_like of shape (P,), optional
        Names of the probes, one each (default 0 ... P-1).
    block_size : int, default 256
        Probes per block: memory is about ``16 · block_size · G`` bytes.
    ties : {"pessimistic", "optimistic"}, default "pessimistic"
        See the module notes.

    Returns
    -------
    pandas.DataFrame
        As :func:`biofair.probe_outcomes`.

    Raises
    ------
    SchemaError
        When the matrix, a block, the identities or the probe ids are a ragged list (rows of
        several lengths, named with them). Then listing every problem: no probe, an empty
        gallery, a repeated gallery identity, identities, group labels or probe ids of the wrong
        shape, missing identities, labels or probe ids, blank labels (empty or white space
        only), repeated probe ids, a block size that is not a positive integer; then a matrix
        or block of the wrong shape, non-numeric, complex or non-finite scores, integer scores
        beyond ``±2**53`` or long doubles that float64 cannot hold exactly (it would tie
        them); or identities that are numbers on one side (probes or gallery) and text on the
        other, or both on one (no probe would find its mate), also when given as a list, or of
        two other kinds (bytes or dates against text or numbers); or probe ids, or group
        labels, that differ only in type.
    ValueError
        When the matrix, a block, the identities or the probe ids are a masked array with
        masked entries, or ``ties`` is neither "pessimistic" nor "optimistic".

    See Also
    --------
    biofair.probe_outcomes : The same rows from a long table.
    biofair.synthetic.identification_embeddings : A seeded test whose ``scores`` it reads.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022 (rank of the mate, best non-mated score).

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> matrix = np.array([[0.9, 0.2], [0.3, 0.8], [0.4, 0.5]])  # 3 probes x 2 gallery entries
    >>> bf.probe_outcomes_from_matrix(matrix, probe_subjects=["a", "b", "z"], gallery_subjects=["a", "b"],
    ...                               probe_groups=["x", "y", "y"])[["group", "mated", "score", "rank"]]
      group  mated  score  rank
    0     x   True    0.9     1
    1     y   True    0.8     1
    2     y  False    0.5     0
    """
    _check_ties(ties)
    subjects = _as_ids(probe_subjects, "probe_subjects")
    gallery_ids = _as_ids(gallery_subjects, "gallery_subjects")
    groups = _as_ids(probe_groups, "probe_groups", expected="give one group label per probe, a flat sequence")
    ids = np.arange(subjects.size) if probe_ids is None else _as_ids(probe_ids, "probe_ids")
    n_probes = subjects.size
    problems = [f"{name} must be one-dimensional, got "
                + (f"the single value {quoted(value.item())}" if value.ndim == 0 else f"shape {value.shape}")
                for name, value in (("probe_subjects", subjects), ("gallery_subjects", gallery_ids),
                                    ("probe_groups", groups))
                if value.ndim != 1]
    for name, value, why in (
        ("probe_subjects", subjects, "a probe without one cannot be told enrolled or not"),
        ("gallery_subjects", gallery_ids, "give every entry one (a distractor an identity of its own)"),
    ):
        if pd.isna(value).any():
            missing = how_many(int(pd.isna(value).sum()), 'missing identity', plural='missing identities')
            problems.append(f"{name} has {missing}: {why}")
    if n_probes == 0:
        problems.append("probe_subjects is empty: there is no probe to search")
    if gallery_ids.size == 0:
        problems.append("gallery_subjects is empty: a search needs at least one gallery entry")
    gallery = pd.Index(gallery_ids.ravel())
    if not gallery.is_unique:
        problems.append("gallery_subjects repeats an identity; the gallery needs one entry per identity")
    if groups.size != n_probes and subjects.ndim == groups.ndim == 1:  # else already named above
        problems.append(f"probe_groups has {groups.size} values for {n_probes} probes")
    if pd.isna(groups).any():
        problems.append(f"probe_groups has {how_many(int(pd.isna(groups).sum()), 'missing value')}")
    problems += _blank_problems(pd.Series(groups.ravel()), "probe_groups", place=lambda i: f"at position {i}")
    if ids.shape != (n_probes,) and subjects.ndim == 1:
        problems.append(f"probe_ids has shape {ids.shape} for {n_probes} probes")
    elif pd.isna(ids).any():  # probe_outcomes refuses a missing probe_id too
        problems.append(f"probe_ids has {how_many(int(pd.isna(ids).sum()), 'missing value')}: each row of the matrix is one "
                        "probe's search and needs its own id")
    elif not pd.Index(ids).is_unique:  # as probe_outcomes, whose probes are its probe_id values
        repeated = pd.Index(ids)[pd.Index(ids).duplicated()].unique()
        problems.append(f"probe_ids repeats {how_many(len(repeated), 'id')}, e.g. {repeated[0]!r}: each row of the matrix is "
                        "one probe's search and needs its own id")
    if isinstance(block_size, (bool, np.bool_)) or not isinstance(block_size, numbers.Integral) or block_size < 1:
        problems.append(f"block_size must be an integer of at least 1, got {block_size!r}")
    if problems:
        raise SchemaError("invalid identification data:\n- " + "\n- ".join(problems))
    # 1 != "1": probes read as text against a gallery read as numbers would find no mate
    one_kind = "Give every id as text or every id as a number, e.g. [str(i) for i in ids]"
    _check_ids_of_one_kind({"probe_subjects": pd.Series(subjects), "gallery_subjects": pd.Series(gallery_ids)},
                           hint=one_kind)
    _check_ids_of_one_kind({"probe_ids": pd.Series(ids)}, what="probe", hint=one_kind)  # as probe_outcomes' probe_id
    groups = _text_labels(pd.DataFrame({"probe_groups": groups.ravel()}), ["probe_groups"])
    mate_columns = gallery.get_indexer(subjects)
    one_row = f"give each probe one row of {len(gallery)} scores, one per gallery entry"
    if callable(scores):
        read = scores
    else:
        matrix = scores if hasattr(scores, "shape") else _rectangular(scores, "scores", one_row)  # a memmap stays
        if matrix.shape != (n_probes, len(gallery)):
            raise SchemaError(f"the score matrix has shape {matrix.shape}, expected ({n_probes}, {len(gallery)})")
        read = lambda start, stop: matrix[start:stop]  # noqa: E731
    outcomes = []
    # as an int: a NumPy integer added up in its own type (np.uint8(200) made the second block of 300 probes 200:144)
    for start, stop in parts(n_probes, part=int(block_size)):
        block = _rectangular(read(start, stop), f"block {start}:{stop}", one_row)
        if block.shape != (stop - start, len(gallery)):
            raise SchemaError(f"block {start}:{stop} has shape {block.shape}, expected ({stop - start}, {len(gallery)})")
        if block.dtype == bool or not np.issubdtype(block.dtype, np.number):
            raise SchemaError(f"block {start}:{stop} must hold numeric scores, got dtype {block.dtype}")
        if np.iscomplexobj(block):  # float64 would drop the imaginary parts with a warning
            raise SchemaError(f"block {start}:{stop} holds complex numbers (dtype {block.dtype}), not comparison scores")
        inexact = inexact_integers(block)
        if inexact.any():
            raise SchemaError(
                f"block {start}:{stop} has {how_many(int(inexact.sum()), 'integer score')} beyond ±2^53 (e.g. "
                f"{block[inexact][0]}) that float64 cannot hold exactly: distinct scores would become ties"
            )
        if problem := long_double_problem(block, f"block {start}:{stop}"):
            raise SchemaError(problem)
        if not np.isfinite(block).all():
            non_finite = how_many(int((~np.isfinite(block)).sum()), "non-finite score")
            raise SchemaError(f"block {start}:{stop} has {non_finite}")
        outcomes.append(_block_outcomes(block, mate_columns[start:stop], ties=ties))
    mate_score, rank, top_nonmated = (np.concatenate(p) for p in zip(*outcomes))
    return _outcome_table(ids, groups, mate_columns >= 0, mate_score, rank, top_nonmated)


def _check_outcomes(outcomes: pd.DataFrame, name: str = "outcomes") -> None:
    """Raise unless ``outcomes`` is a probe outcome table: its columns, boolean ``mated``,
    finite ``score`` and a ``group`` for every probe (a probe without one would drop out),
    labels that name distinct groups distinctly (``1`` and ``"1"`` were two columns named 1)."""
    if not isinstance(outcomes, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame of probe outcomes (see probe_outcomes), "
                        f"got {type(outcomes).__name__}")
    missing = [c for c in _OUTCOME_COLUMNS if c not in outcomes.columns]
    if missing:
        raise SchemaError(f"{name} is not a probe outcome table (see probe_outcomes): missing {', '.join(missing)}")
    problems = _score_problems(outcomes["score"])
    mated = outcomes["mated"]
    if problem := _mated_problem(mated):
        problems.append(problem)
    problems += _group_problems(outcomes["group"])
    problems += _rank_problems(outcomes["rank"], mated)
    if problems:
        raise SchemaError(f"{name} is not a valid probe outcome table:\n- " + "\n- ".join(problems))


def _group_problems(group: pd.Series) -> list[str]:
    """What is wrong with the ``group`` column: missing or blank labels (a probe without a
    group), or labels that differ only in type, which :func:`biofair.group_labels` refuses."""
    if group.isna().any():
        return [f"column 'group' has {how_many(int(group.isna().sum()), 'missing value')}: every probe needs its group"]
    if blank := _blank_problems(group, "column 'group'", place=lambda i: f"in {_row(group, i)}"):
        return blank
    try:
        _text_labels(group.to_frame(), ["group"])
    except SchemaError as error:
        return [str(error)]
    return []


def _rank_problems(rank: pd.Series, mated: pd.Series) -> list[str]:
    """What is wrong with the ``rank`` column: whole numbers, at least 1 for an enrolled probe
    (its mate's place) and 0 for another (a NaN rank was never a hit, -5 one at rank 1)."""
    if not is_real_dtype(rank.dtype):  # text: numpy's sort failed; complex: the imaginary parts were dropped
        return [f"column 'rank' must hold whole numbers, got dtype {rank.dtype}; convert it, e.g. "
                "outcomes['rank'].astype('int64')"]
    values = rank.to_numpy(dtype=np.float64, na_value=np.nan)
    whole = np.isfinite(values) & (values == np.round(values))
    bad = ~whole | (values < 0)
    known = pd.api.types.is_bool_dtype(mated) and not mated.isna().any()  # else 'mated' has its own problem
    if known:
        enrolled = mated.to_numpy(dtype=bool)
        bad |= (enrolled & (values < 1)) | (~enrolled & (values != 0))
    if not bad.any():
        return []
    first = int(bad.argmax())
    which = (" (enrolled)" if enrolled[first] else " (not enrolled)") if known else ""
    return [f"column 'rank' has {how_many(int(bad.sum()), 'value', verbs=('that is', 'that are'))} not a rank (a whole number, at least 1 for an "
            f"enrolled probe, 0 for a probe not enrolled): e.g. {rank.tolist()[first]!r} in {_row(rank, first)}{which}"]


def _groups(outcomes: pd.DataFrame, *, need_open_set: bool) -> dict[str, pd.DataFrame]:
    """The outcome rows of each group; every group needs enrolled (and open-set) probes."""
    _check_outcomes(outcomes)
    groups = dict(tuple(outcomes.groupby("group", sort=True)))
    problems = []
    for name, rows in groups.items():
        n_enrolled = int(rows["mated"].sum())
        n_open = len(rows) - n_enrolled
        if n_enrolled == 0 or (need_open_set and n_open == 0):
            problems.append(f"group {name!r} has {n_enrolled} enrolled and {n_open} non-enrolled probes"
                            + ("; both are needed" if need_open_set else "; enrolled probes are needed"))
    if len(groups) < 2:
        problems.append(f"fairness needs at least two groups; the outcomes have {len(groups)}")
    if problems:
        raise SchemaError("cannot compare the groups:\n- " + "\n- ".join(problems))
    return groups


def _rank_n_rates(groups: dict[str, pd.DataFrame], ranks: NDArray[np.int64]) -> pd.DataFrame:
    """The rank-n rate of every group (columns) at every rank (rows) of checked ``groups``."""
    rows = {}
    for name, group in groups.items():
        enrolled = np.sort(group.loc[group["mated"], "rank"].to_numpy())
        rows[name] = np.searchsorted(enrolled, ranks, side="right") / enrolled.size
    return pd.DataFrame(rows, index=pd.Index(ranks, name="rank"))


#: The most ranks :func:`cmc` gives beyond the worst rank of a mate, past which its rows are
#: all 1 (a million rows is 8 MB a group; ``np.arange(1, 10**9)`` took the machine's memory,
#: ``10**20`` was NumPy's "Maximum allowed size exceeded", ``2**63 - 1`` an empty curve).
_MAX_CMC_RANKS = 1_000_000


def cmc(outcomes: pd.DataFrame, *, max_rank: int = 20) -> pd.DataFrame:
    """Cumulative match characteristic of every group (closed set).

    Read more in the chapter "Identify fairly".

    Parameters
    ----------
    outcomes : pandas.DataFrame
        Probe outcomes (:func:`probe_outcomes`); only enrolled probes count.
    max_rank : int, default 20
        Last rank of the curve; ranks beyond the gallery size are allowed (their rates are 1),
        up to 1,000,000 or the worst rank of a mate in ``outcomes``, whichever is larger.

    Returns
    -------
    pandas.DataFrame
        Index ``rank`` = 1 ... max_rank, one column per group: ``rank-n = |{enrolled probes
        with rank <= n}| / |enrolled probes|`` (eq. 9 of de Freitas Pereira and Marcel, whose
        denominator the paper calls the gallery size; biofair reads it as the group's enrolled
        probes, so that the rate is a share of the probes counted in ``C(n)`` and reaches 1).

    Raises
    ------
    SchemaError
        When ``outcomes`` is not a valid probe outcome table (a missing column, a non-boolean
        ``mated``, a non-finite score, a missing or blank group, group labels that differ only
        in type), has fewer than two groups, or a group lacks the probes the measure needs
        (named, with its counts).
    TypeError
        When ``outcomes`` is not a DataFrame or ``max_rank`` is not an integer.
    ValueError
        When ``max_rank`` is below 1, or above both 1,000,000 and the worst rank of a mate in
        ``outcomes`` (the curve is 1 in every group from that rank on; the message gives it).

    See Also
    --------
    biofair.rank_n_differential : The largest gap between two groups at one rank.
    biofair.probe_outcomes : The outcome rows it reads.

    Notes
    -----
    Each row is one probe, whatever its ``probe_id``: a probe listed twice counts twice.
    Repeated ids are not refused: :func:`biofair.bootstrap` with ``data="table"`` draws
    rows with replacement, and tables of :func:`probe_outcomes_from_matrix` joined together
    repeat its default ids (0, 1, ...). Where each id names one probe, drop the repeats first
    (``outcomes.drop_duplicates("probe_id")``).

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, eq. 9.

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> matrix = np.array([[0.9, 0.2], [0.3, 0.8], [0.9, 0.5]])
    >>> outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=["a", "b", "b"],
    ...                                          gallery_subjects=["a", "b"], probe_groups=["x", "y", "y"])
    >>> bf.cmc(outcomes, max_rank=2)
            x    y
    rank
    1     1.0  0.5
    2     1.0  1.0
    """
    count = as_count(max_rank, "max_rank")
    groups = _groups(outcomes, need_open_set=False)
    worst = max(int(g.loc[g["mated"], "rank"].max()) for g in groups.values())
    if count > max(worst, _MAX_CMC_RANKS):
        raise ValueError(f"max_rank must be at most {max(worst, _MAX_CMC_RANKS):,} (one row per rank), got {count:,}: "
                         f"the curve is 1 in every group from rank {worst:,}, the worst rank of a mate in outcomes, "
                         f"on; max_rank={worst} gives the whole curve")
    return _rank_n_rates(groups, np.arange(1, count + 1))


def rank_n_differential(outcomes: pd.DataFrame, *, rank: int = 1) -> float:
    """Largest gap in rank-n identification rate between two groups (closed set).

    Read more in the chapter "Identify fairly".

    Parameters
    ----------
    outcomes : pandas.DataFrame
        Probe outcomes (:func:`biofair.probe_outcomes`); only enrolled probes count.
    rank : int, default 1
        The rank n (the same keyword as :func:`biofair.identification_rates`).

    Returns
    -------
    float
        ``C = max_ij |rank-n_i - rank-n_j|`` (eq. 10 of de Freitas Pereira and Marcel), in
        [0, 1]; 0 when every group is identified equally often.

    Raises
    ------
    SchemaError
        When ``outcomes`` is not a valid probe outcome table (a missing column, a non-boolean
        ``mated``, a non-finite score, a missing or blank group, group labels that differ only
        in type), has fewer than two groups, or a group lacks the probes the measure needs
        (named, with its counts).
    TypeError
        When ``outcomes`` is not a DataFrame or ``rank`` is not an integer.
    ValueError
        When ``rank`` is below 1.

    See Also
    --------
    biofair.cmc : The rank-n rates of every group.

    Notes
    -----
    Each row is one probe, whatever its ``probe_id``: a probe listed twice counts twice (why
    repeated ids are not refused, and how to drop them: :func:`biofair.cmc`).

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, eq. 10.

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> matrix = np.array([[0.9, 0.2], [0.3, 0.8], [0.9, 0.5]])
    >>> outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=["a", "b", "b"],
    ...                                          gallery_subjects=["a", "b"], probe_groups=["x", "y", "y"])
    >>> bf.rank_n_differential(outcomes, rank=1)
    0.5
    """
    ranks = np.array([as_count(rank, "rank")])
    rates = _rank_n_rates(_groups(outcomes, need_open_set=False), ranks).to_numpy()
    return float(_max_gap(rates.T)[0])


def threshold_at_fpir(outcomes: pd.DataFrame, fpir: float | ArrayLike) -> float | NDArray:
    """Smallest threshold whose FPIR, over the non-enrolled probes of all groups, meets a target.

    Read more in the chapter "Identify fairly".

    Parameters
    ----------
    outcomes : pandas.DataFrame
        Probe outcomes (:func:`biofair.probe_outcomes`) with non-enrolled probes.
    fpir : float or array_like
        Target false positive identification rate(s) in [0, 1].

    Returns
    -------
    float or ndarray
        The rule of :func:`biofair.threshold_at_fmr` applied to the best scores of the
        non-enrolled probes: a non-enrolled probe raises a false alarm when its best score
        reaches the threshold. As there, a float for one target, else an array of the shape
        of ``fpir`` (a 2-D target gives a 2-D array).

    Raises
    ------
    SchemaError
        When no probe is non-enrolled, or ``outcomes`` is not a probe outcome table (a
        missing column, a non-boolean ``mated``, a non-finite score, a missing or blank group,
        group labels that differ only in type).
    TypeError
        When ``outcomes`` is not a DataFrame, or ``fpir`` is not a number or an array of
        numbers (booleans and text are refused).
    ValueError
        When a target in ``fpir`` lies outside [0, 1] (NaN included).

    Warns
    -----
    InsufficientComparisonsWarning
        When a target is below ``3/N``, N the number of non-enrolled probes (rule of three).

    See Also
    --------
    biofair.threshold_at_fmr : The same rule on non-mated scores.
    biofair.identification_discrepancy_rate : FDR' at these thresholds.

    Notes
    -----
    Each row is one probe, whatever its ``probe_id``: a probe listed twice counts twice (why
    repeated ids are not refused, and how to drop them: :func:`biofair.cmc`).

    References
    ----------
    ISO/IEC 19795-1:2021 (FPIR of an open-set identification test).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> outcomes = pd.DataFrame({"probe_id": range(20), "group": ["x", "y"] * 10, "mated": False,
    ...                          "score": [i / 20 for i in range(20)], "rank": 0,
    ...                          "top_nonmated": [i / 20 for i in range(20)]})
    >>> float(bf.threshold_at_fpir(outcomes, 0.15))  # 3 of 20 probes raise an alarm
    0.85
    """
    open_set = _open_set_scores(outcomes)
    return scalar_or_array(_thresholds_at_fpir(open_set, as_rates(fpir, "fpir")), fpir)


def _open_set_scores(outcomes: pd.DataFrame, name: str = "outcomes") -> NDArray[np.float64]:
    """The sorted best scores of the non-enrolled probes of ``outcomes`` (checked), named
    ``name`` in the errors."""
    _check_outcomes(outcomes, name)
    open_set = np.sort(outcomes.loc[~outcomes["mated"], "score"].to_numpy(dtype=np.float64))
    if open_set.size == 0:
        raise SchemaError(f"{name} has no non-enrolled probe: FPIR needs open-set probes (probes whose "
                          "identity is not in the gallery)")
    return open_set


def _thresholds_at_fpir(open_set: NDArray[np.float64], targets: NDArray[np.float64]) -> NDArray[np.float64]:
    """:func:`threshold_at_fpir` of sorted open-set scores, warning for unresolved targets."""
    warn_unresolved(np.ravel(targets), open_set.size, rate="FPIR", counted="non-enrolled probes",
                    errors="false alarms", consequence=RETURNED_UNRESOLVED)
    return threshold_at_fmr_sorted(open_set, targets)


def _dir_fpir(groups: dict[str, pd.DataFrame], thresholds: NDArray, rank: int) -> tuple[NDArray, NDArray]:
    """DIR and FPIR of every group (rows) at every threshold (columns)."""
    as_count(rank, "rank")
    dir_rates, fpir_rates = [], []
    for group in groups.values():
        enrolled = group[group["mated"]]
        found = np.sort(enrolled.loc[enrolled["rank"] <= rank, "score"].to_numpy())
        alarms = np.sort(group.loc[~group["mated"], "score"].to_numpy())
        dir_rates.append((found.size - np.searchsorted(found, thresholds, side="left")) / len(enrolled))
        fpir_rates.append((alarms.size - np.searchsorted(alarms, thresholds, side="left")) / alarms.size)
    return np.array(dir_rates), np.array(fpir_rates)


def identification_rates(outcomes: pd.DataFrame, thresholds: ArrayLike, *, rank: int = 1) -> pd.DataFrame:
    """DIR and FPIR of every group at every threshold (open set).

    Read more in the chapter "Identify fairly".

    Parameters
    ----------
    outcomes : pandas.DataFrame
        Probe outcomes (:func:`probe_outcomes`).
    thresholds : array_like
        Decision thresholds, one or a flat, non-empty sequence (``±inf`` allowed, NaN is an
        error); a candidate is returned iff its score ``>= t``.
    rank : int, default 1
        A mate is identified when its rank is at most ``rank``.

    Returns
    -------
    pandas.DataFrame
        One row per group and threshold: ``group``, ``threshold``,
        ``dir = |{enrolled: rank <= R and mate score >= t}| / |enrolled|``,
        ``fpir = |{non-enrolled: best score >= t}| / |non-enrolled|`` and both counts.

    Raises
    ------
    SchemaError
        When ``outcomes`` is not a valid probe outcome table (a missing column, a non-boolean
        ``mated``, a non-finite score, a missing or blank group, group labels that differ only
        in type), has fewer than two groups, or a group lacks the probes the measure needs
        (named, with its counts).
    TypeError
        When ``outcomes`` is not a DataFrame, a threshold is not a number (booleans and text
        are refused), or ``rank`` is not an integer.
    ValueError
        When ``thresholds`` is empty or not flat, a threshold is NaN or not a float64 number
        (an integer beyond ``2**53``: it would be decided as its rounding), or ``rank`` is
        below 1.

    See Also
    --------
    biofair.identification_discrepancy_rate : The largest gaps between these rates.
    biofair.threshold_at_fpir : A threshold for a target FPIR.

    Notes
    -----
    Each row is one probe, whatever its ``probe_id``: a probe listed twice counts twice (why
    repeated ids are not refused, and how to drop them: :func:`biofair.cmc`).

    References
    ----------
    ISO/IEC 19795-1:2021 (DIR and FPIR). T. de Freitas Pereira and S. Marcel, IEEE T-BIOM,
    2022 (per-group rates of open-set identification).

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> matrix = np.array([[0.9, 0.2], [0.3, 0.8], [0.4, 0.5], [0.7, 0.1]])
    >>> outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=["a", "b", "y", "z"],
    ...                                          gallery_subjects=["a", "b"], probe_groups=["x", "y", "y", "x"])
    >>> bf.identification_rates(outcomes, [0.6])[["group", "dir", "fpir"]]
      group  dir  fpir
    0     x  1.0   1.0
    1     y  1.0   0.0
    """
    values = as_thresholds(thresholds, flat=True, decided="probe")
    groups = _groups(outcomes, need_open_set=True)
    dir_rates, fpir_rates = _dir_fpir(groups, values, rank)
    n_enrolled = np.array([int(g["mated"].sum()) for g in groups.values()])
    n_open = np.array([len(g) for g in groups.values()]) - n_enrolled
    return pd.DataFrame({
        "group": np.repeat(list(groups), values.size),
        "threshold": np.tile(values, len(groups)),
        "dir": dir_rates.ravel(),
        "fpir": fpir_rates.ravel(),
        "n_enrolled": np.repeat(n_enrolled, values.size),
        "n_nonenrolled": np.repeat(n_open, values.size),
    })


def identification_discrepancy_rate(
    outcomes: pd.DataFrame,
    *,
    fpir_targets: Sequence[float] = _DEFAULT_FPIR_TARGETS,
    alpha: float = 0.5,
    rank: int = 1,
    dev: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """FDR' of open-set identification at thresholds set for target FPIRs.

    Read more in the chapter "Identify fairly".

    Parameters
    ----------
    outcomes : pandas.DataFrame
        Evaluation probe outcomes (:func:`probe_outcomes`).
    fpir_targets : sequence of float, default 1e-1, 1e-2, 1e-3
        Each target gives one threshold, shared by every group.
    alpha : float, default 0.5
        Weight of the FPIR differential (0: only DIR matters, 1: only FPIR).
    rank : int, default 1
        Rank up to which a mate counts as identified.
    dev : pandas.DataFrame, optional
        Development outcomes the thresholds are set on; without them they are set on
        ``outcomes`` itself, which is optimistic (flagged in the ``optimistic`` column), as
        it is when ``dev`` holds the same outcomes (the same rows of group, ``mated``,
        ``score`` and ``rank``, in any order). Probe ids are not compared: those of
        :func:`probe_outcomes_from_matrix` default to 0, 1, ... in every table.

    Returns
    -------
    pandas.DataFrame
        One row per target: ``fpir_target``, ``threshold``, ``A`` (largest FPIR gap),
        ``B`` (largest DIR gap), ``fdr``, ``alpha``, ``k`` (development non-enrolled probes
        whose best score reaches the threshold), ``resolved`` (the target allows at least 3
        false alarms among the N development non-enrolled probes, ``fpir·N >= 3``),
        ``precise`` (at least 30) and ``optimistic``.

    Raises
    ------
    SchemaError
        When ``outcomes`` or ``dev`` is not a valid probe outcome table (a missing column, a
        non-boolean ``mated``, a non-finite score, a missing or blank group, group labels that
        differ only in type), has fewer than two groups, or a group lacks the probes the
        measure needs (named, with its counts), or ``dev`` has no non-enrolled probe.
    TypeError
        When ``outcomes`` or ``dev`` is not a DataFrame, ``fpir_targets`` is not a sequence of
        numbers (one number, booleans and text are refused), ``alpha`` is not a number, or
        ``rank`` is not an integer.
    ValueError
        When ``fpir_targets`` is empty or not flat or holds a target outside [0, 1] (NaN
        included), ``alpha`` lies outside [0, 1] (NaN included), or ``rank`` is below 1.

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below 3/N of the development non-enrolled probes (rule of three).
    UserWarning
        When ``dev`` has no non-enrolled probes of an evaluation group, or holds a group that
        the evaluation outcomes lack (its probes set the thresholds too). Labels are compared as
        text, as groups are named: dev's ``1.0`` is not the group ``'1'`` (the warning says
        that the two write one number).

    See Also
    --------
    biofair.fairness_discrepancy_rate : FDR of verification.
    biofair.identification_rates : The per-group rates behind the gaps.
    biofair.area_under_fdr : One number over a range of targets.

    Notes
    -----
    ``FDR'(t) = 1 - (alpha · max_ij |FPIR_i(t) - FPIR_j(t)| + (1 - alpha) · max_ij
    |DIR_i(t) - DIR_j(t)|)``. The paper's eq. 11 defines the bracket, a discrepancy; biofair
    reports one minus it, on FDR's scale (1 = fair, 0 = the largest gap), so that
    :func:`biofair.area_under_fdr` applies unchanged.

    Each row is one probe, whatever its ``probe_id``: a probe listed twice counts twice, in
    ``outcomes`` and in ``dev`` (why repeated ids are not refused, and how to drop them:
    :func:`biofair.cmc`).

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, eq. 11.

    Examples
    --------
    >>> import biofair as bf
    >>> data = bf.synthetic.identification_embeddings(fair=False, n_enrolled=200, n_nonenrolled=200, rng=0)
    >>> outcomes = bf.probe_outcomes_from_matrix(data.scores, probe_subjects=data.probe_subjects,
    ...                                          gallery_subjects=data.gallery_subjects,
    ...                                          probe_groups=data.probe_groups)
    >>> fdr = bf.identification_discrepancy_rate(outcomes, fpir_targets=[1e-1, 1e-2])
    >>> fdr[["fpir_target", "k", "resolved", "precise"]]
       fpir_target   k  resolved  precise
    0         0.10  60      True     True
    1         0.01   6      True    False
    """
    alpha = check_alpha(alpha)
    as_count(rank, "rank")
    targets = as_targets(fpir_targets, "fpir_targets")
    groups = _groups(outcomes, need_open_set=True)
    open_set = _open_set_scores(outcomes, "outcomes") if dev is None else _open_set_scores(dev, "dev")
    if dev is not None:  # labels as text, as groups are named: dev's -0.0 is the group '0.0', as 0.0 is
        _warn_if_groups_differ([_label_text(name) for name in groups],
                               [_label_text(name) for name in pd.unique(dev.loc[~dev["mated"], "group"])],
                               units=("non-enrolled probes", "non-enrolled probes' best scores"))
    thresholds = np.atleast_1d(_thresholds_at_fpir(open_set, targets))
    dir_rates, fpir_rates = _dir_fpir(groups, thresholds, rank)
    return _discrepancy_table(
        targets, thresholds, (_max_gap(fpir_rates), _max_gap(dir_rates)), alpha=alpha,
        n_dev=open_set.size, at_or_above=open_set.size - np.searchsorted(open_set, thresholds, side="left"),
        optimistic=dev is None or _same_outcomes(outcomes, dev), rate="fpir",
    )


def _same_outcomes(outcomes: pd.DataFrame, dev: pd.DataFrame) -> bool:
    """Whether ``dev`` holds the same probe outcomes as ``outcomes`` (checked tables), whatever
    the order of the rows: the same rows of group (as text, as groups are named: -0.0 is '0.0'), ``mated``, ``score`` and ``rank``.
    Probe ids are not compared: :func:`probe_outcomes_from_matrix` numbers them 0, 1, ... in
    every table."""
    columns = ["group", "mated", "score", "rank"]
    if dev is outcomes:
        return True
    if len(dev) != len(outcomes) or not set(columns) <= set(dev.columns):
        return False
    rows = [table[columns].astype({"mated": bool, "score": np.float64, "rank": np.int64})
            .assign(group=table["group"].map(_label_text)).sort_values(columns, ignore_index=True)
            for table in (outcomes, dev)]
    return rows[0].equals(rows[1])
