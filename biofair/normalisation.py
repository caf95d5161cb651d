"""Score normalisation with a cohort of known impostors: Z-norm, T-norm and S-norm.

A cohort is a set of scores of one side of a comparison (a subject, an utterance, or a whole
group) against subjects known to be someone else. Its mean and standard deviation turn a raw
score into "how many impostor standard deviations above the impostors": Z-norm uses the
reference side's cohort statistics, T-norm the probe side's, and symmetric S-norm the mean of
the two. With group labels as the key, the cohort is the group's own impostors (a group-aware
normalisation).

Read more in the chapter "Mitigation and its price" (``notebooks/12``).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._typing import Norm
from biofair._validation import (
    as_count,
    as_scores,
    check_choice,
    check_column_name,
    how_many,
    is_blank,
    is_real_dtype,
    quoted,
)
from biofair.schema import _check_booleans_apart, _check_ids_of_one_kind, _mated_problem, validate_scores



def cohort_scores(cross: pd.DataFrame, cohort_subjects: Collection) -> pd.DataFrame:
    """The scores of every non-cohort subject against the cohort, from non-mated comparisons.

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    cross : pandas.DataFrame
        Non-mated comparisons between cohort subjects and other subjects, with
        ``reference_subject``, ``probe_subject`` and ``score`` (e.g. the ``cross`` table of
        :func:`biofair.mitigation.subject_disjoint_split`, with the cohort as its
        development side).
    cohort_subjects : collection
        The cohort's subjects.

    Returns
    -------
    pandas.DataFrame
        Columns ``subject`` (the side that is not in the cohort) and ``score``, one row per
        comparison that has exactly one side in the cohort; mated rows are refused.

    Raises
    ------
    ValueError
        When ``cross`` lacks a column, holds mated comparisons, non-finite cohort scores or a
        missing subject id (its row named), has no comparison with exactly one side in the
        cohort, or when ``cohort_subjects`` holds a missing id (None would match every
        comparison without a subject).
    TypeError
        When ``cross`` is not a pandas DataFrame, its scores are not numbers, or
        ``cohort_subjects`` is a string or no collection (a string is not a collection of
        subjects) or holds an id that is not one value (a list).
    SchemaError
        When the subject ids are numbers in one of ``cross``'s subject columns or in
        ``cohort_subjects`` and text in another, or both in one (``1 != "1"``: a cohort
        subject would go unrecognised); or booleans in one and other numbers in another, or
        both in one (``True == 1``: subject 1 would be read as the cohort's subject True).

    See Also
    --------
    cohort_statistics : Their mean and standard deviation per subject.

    References
    ----------
    R. Auckenthaler, M. Carey and H. Lloyd-Thomas, "Score normalization for text-independent
    speaker verification systems", Digital Signal Processing, 2000 (cohorts of impostors).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> cross = pd.DataFrame({"score": [0.1, 0.3], "mated": [False, False],
    ...                       "reference_subject": ["c1", "x"], "probe_subject": ["x", "c2"]})
    >>> bf.normalisation.cohort_scores(cross, {"c1", "c2"})["subject"].tolist()
    ['x', 'x']
    """
    _check_frame(cross, "cross")
    missing = [c for c in ("reference_subject", "probe_subject", "score") if c not in cross.columns]
    if missing:
        raise ValueError(f"cross lacks the column(s) {missing}: give non-mated comparisons with both subjects")
    if "mated" in cross.columns:
        labels = cross["mated"]
        if problem := _mated_problem(labels):  # astype(bool): "no" was mated, None not
            raise ValueError(f"cross's {problem}")
        if labels.any():
            raise ValueError("a cohort holds impostors only: cross has "
                             f"{how_many(int(labels.sum()), 'mated comparison')}")
    if isinstance(cohort_subjects, (str, bytes)) or not isinstance(cohort_subjects, Iterable):
        raise TypeError(
            f"cohort_subjects must be a collection of subjects, e.g. {{'c1', 'c2'}}, got {cohort_subjects!r}"
        )
    subjects = list(cohort_subjects)
    if unhashable := [subject for subject in subjects if not isinstance(subject, Hashable)]:  # a list, say
        raise TypeError(f"cohort_subjects must hold subject ids (a number or a text each), got {quoted(unhashable[0])} "
                        "among them")
    cohort = set(subjects)
    cohort_ids = pd.Series(list(cohort))
    if cohort_ids.isna().any():  # None would match the comparisons with no subject id
        raise ValueError("cohort_subjects holds a missing subject id (None or NaN): give the cohort's ids only")
    for column in ("reference_subject", "probe_subject"):  # a comparison of no one would be left out, or kept
        blank = cross[column].isna().to_numpy()
        if blank.any():
            raise ValueError(f"cross[{column!r}] has {how_many(int(blank.sum()), 'missing subject id')} (first in row "
                             f"{cross.index[blank].tolist()[0]!r}): whether that side is in the cohort is unknown; "
                             "fill them in or drop those comparisons")
    ids = {"cross['reference_subject']": cross["reference_subject"], "cross['probe_subject']": cross["probe_subject"],
           "cohort_subjects": cohort_ids}
    _check_ids_of_one_kind(ids)  # and booleans apart: isin reads subject 1 as the cohort's True
    reference_in = cross["reference_subject"].isin(cohort).to_numpy()
    probe_in = cross["probe_subject"].isin(cohort).to_numpy()
    one_side = reference_in != probe_in
    if not one_side.any():
        among = how_many(len(cohort), "cohort subject")
        raise ValueError(f"no comparison of cross has exactly one side among the {among}: "
                         "there is no cohort score (is cross the table of cross comparisons of the split?)")
    sides = cross["probe_subject"].to_numpy(), cross["reference_subject"].to_numpy()
    if {side.dtype.kind for side in sides} == {"u", "i"}:  # np.where would make uint64 and int64 ids float64,
        sides = tuple(side.astype(object) for side in sides)  # where those beyond 2**53 merge
    subject = np.where(reference_in, *sides)[one_side]
    return pd.DataFrame({"subject": subject, "score": as_scores(cross["score"].to_numpy()[one_side], "score")})


def cohort_statistics(cohort: pd.DataFrame, *, key: str = "subject", min_size: int = 10) -> pd.DataFrame:
    """Mean and standard deviation of each key's cohort scores.

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    cohort : pandas.DataFrame
        Cohort scores: a ``score`` column and the ``key`` column.
    key : str, default "subject"
        What the statistics are kept per: a subject (classic Z/T-norm) or a group label
        (group-aware normalisation).
    min_size : int, default 10
        Fewest cohort scores a key needs, at least 2 (a standard deviation needs two); keys
        with fewer are left out.

    Returns
    -------
    pandas.DataFrame
        Index ``key``: ``mean``, ``std`` (population standard deviation) and ``n``. Keys
        with fewer than ``min_size`` cohort scores, or whose cohort scores are all equal (no
        spread to divide by), are left out: :func:`normalise_scores` then names the
        comparisons that have no statistics. Scores times a power of two give the same
        statistics times that power (no spread is lost to underflow, none overflows), and
        the rows' order does not change a digit.

    Raises
    ------
    ValueError
        When ``score`` or ``key`` is missing, a key is missing or blank (text of white space
        only), a score is not finite, the table is empty or ``min_size`` is below 2.
    TypeError
        When ``cohort`` is not a pandas DataFrame, its scores are not numbers, ``key`` is not a
        column name (a string), or ``min_size`` is not an integer.
    SchemaError
        When the ``key`` column holds numbers and text (``1`` and ``"1"`` would get two sets
        of statistics, each from part of the scores), or booleans and other numbers (``True``
        and ``1`` would get one set, from the scores of both).

    See Also
    --------
    normalise_scores : Uses them.

    References
    ----------
    R. Auckenthaler, M. Carey and H. Lloyd-Thomas, "Score normalization for text-independent
    speaker verification systems", Digital Signal Processing, 2000 (cohorts of impostors).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> cohort = pd.DataFrame({"subject": ["x", "x", "y", "y"], "score": [0.0, 2.0, 1.0, 1.0]})
    >>> bf.normalisation.cohort_statistics(cohort, min_size=2).loc["x"].tolist()
    [1.0, 1.0, 2.0]
    """
    minimum = as_count(min_size, "min_size", minimum=2)
    check_column_name(key, "key")
    _check_frame(cohort, "cohort")
    if key not in cohort.columns or "score" not in cohort.columns:
        raise ValueError(f"the cohort needs the columns 'score' and {key!r}; it has {list(cohort.columns)}")
    blank = [label for label in cohort[key].dropna().unique() if is_blank(label)]  # "" or spaces: as an empty cell
    missing = (cohort[key].isna() | cohort[key].isin(blank)).to_numpy()
    if missing.any():
        raise ValueError(f"column {key!r} has {how_many(int(missing.sum()), 'missing or blank value')}: those cohort "
                         "scores belong to no one")
    _check_ids_of_one_kind({f"cohort[{key!r}]": cohort[key]}, what=key)  # 1 and "1": two keys, True and 1 one
    values = as_scores(cohort["score"].to_numpy(), "score")
    codes, keys = pd.factorize(cohort[key].to_numpy(), sort=True)
    # Each key's scores in increasing order, so that its sums depend on its scores and not on
    # the order of the rows (the last digits of a mean moved when the rows were shuffled).
    order = np.lexsort((values, codes))
    codes, values = codes[order], values[order]
    starts = np.flatnonzero(np.diff(codes, prepend=-1))
    n = np.diff(np.append(starts, codes.size))
    smallest, largest = values[starts], values[starts + n - 1]
    # Times the power of two that brings the largest magnitude into [0.5, 1): exact, so that
    # the squared deviations neither underflow (a spread below about 1e-154 had a std of 0)
    # nor overflow (above about 1e154: inf), nor the sum of scores near 1e308.
    exponent = np.frexp(np.maximum(np.abs(smallest), np.abs(largest)))[1]  # 0 for all-zero scores
    scaled = np.ldexp(values, -exponent[codes])
    first = np.add.reduceat(scaled, starts) / n
    # Two passes, the second corrected by the mean deviation from the first mean: the first
    # mean's rounding does not enter the variance (a one-pass std of scores 1e9 +- 1 was off
    # in its 8th digit).
    deviations = scaled - first[codes]
    correction = np.add.reduceat(deviations, starts) / n
    variance = np.maximum(np.add.reduceat(deviations**2, starts) / n - correction**2, 0.0)
    constant = smallest == largest  # exactly no spread, whatever the rounding of a mean
    stats = pd.DataFrame({
        "mean": np.where(constant, smallest, np.clip(np.ldexp(first + correction, exponent), smallest, largest)),
        "std": np.where(constant, 0.0, np.ldexp(np.sqrt(variance), exponent)),
        "n": n,
    }, index=pd.Index(keys, name=key))
    return stats[(stats["n"] >= minimum) & (stats["std"] > 0)]


def _check_frame(table: object, name: str) -> None:
    """Raise a TypeError naming ``name`` unless ``table`` is a pandas DataFrame."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(table).__name__}")


def _side_stats(scores: pd.DataFrame, statistics: pd.DataFrame, column: str) -> tuple[NDArray, NDArray]:
    if column not in scores.columns:
        raise ValueError(f"no column {column!r} names the cohort of each comparison")
    keys = scores[column]
    what = "subject" if column.endswith("subject") else column
    _check_booleans_apart({f"scores[{column!r}]": keys, "the statistics' index": statistics.index.to_series()},
                          what=what)  # reindex reads 1 with the statistics of True in an object index
    # a key without a row reads NaN (the statistics' means are finite); isin would not do: it
    # matches 1 to True, which reindex does not
    mean = statistics["mean"].reindex(keys).to_numpy(dtype=np.float64)
    missing = np.isnan(mean)
    if missing.any():  # first, whether the keys are numbers on one side and text on the other
        _check_ids_of_one_kind({f"scores[{column!r}]": keys, "the statistics' index": statistics.index.to_series()},
                               what=what)
        raise ValueError(
            f"{how_many(int(missing.sum()), 'comparison', verbs=('has', 'have'))} no cohort "
            f"statistics for their {column} "
            f"(e.g. {quoted(keys.iloc[int(missing.argmax())])}); drop them or enlarge the cohort (cohort_statistics "
            "leaves out the keys with fewer than min_size cohort scores, or whose cohort scores are all equal)"
        )
    return mean, statistics["std"].reindex(keys).to_numpy(dtype=np.float64)


def normalise_scores(
    scores: pd.DataFrame,
    statistics: pd.DataFrame,
    *,
    method: Norm = "s",
    reference_key: str = "reference_subject",
    probe_key: str = "probe_subject",
) -> pd.DataFrame:
    """Z-, T- or S-normalise every score with the cohort statistics of its sides.

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table with the columns ``reference_key`` and ``probe_key``.
    statistics : pandas.DataFrame
        :func:`cohort_statistics`, indexed by the values of those columns.
    method : {"z", "t", "s"}, default "s"
        ``"z"``: ``(s - μ_r) / σ_r`` with the reference side's cohort; ``"t"``:
        ``(s - μ_p) / σ_p`` with the probe side's; ``"s"``: the mean of the two.
    reference_key : str, default "reference_subject"
        Column whose value names the reference side's cohort statistics.
    probe_key : str, default "probe_subject"
        Column whose value names the probe side's cohort statistics.

    Returns
    -------
    pandas.DataFrame
        A copy of ``scores`` with the normalised ``score``.

    Raises
    ------
    ValueError
        When a comparison's side has no cohort statistics, a ``reference_key`` or
        ``probe_key`` column the method needs is missing, ``method`` is not one of the three,
        or ``statistics`` is not a table of :func:`cohort_statistics` (a missing ``mean`` or
        ``std`` column, a MultiIndex, a key given twice, a mean that is not finite or a std
        that is not positive and finite).
    TypeError
        When ``statistics`` is not a pandas DataFrame or its ``mean`` or ``std`` does not
        hold numbers (text, booleans), or ``reference_key`` or ``probe_key`` is not a column
        name (a string).
    SchemaError
        When ``scores`` is not a valid score table (:func:`biofair.validate_scores`: it needs
        both mated and non-mated comparisons, among others), or a side has no statistics
        because its keys are numbers and the statistics' text, or the reverse (``1 != "1"``);
        or when a side's keys or the statistics' index are booleans and the other numbers,
        or either holds both (``True == 1``: key 1 would be read with the statistics of True).
    OverflowError
        When a normalised score overflows float64 (statistics on another scale); a step of
        its computation that overflows where the score does not (``s - mean`` of scores near
        the largest float64, the sum of S-norm's Z and T scores) is taken in halves.

    See Also
    --------
    cohort_statistics : The statistics.
    biofair.mitigation.group_thresholds : Another way to align the groups' impostors.

    References
    ----------
    R. Auckenthaler, M. Carey and H. Lloyd-Thomas, "Score normalization for text-independent
    speaker verification systems", Digital Signal Processing, 2000 (Z-norm, T-norm);
    P. Kenny, "Bayesian speaker verification with heavy-tailed priors", Odyssey 2010 (S-norm).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> stats = pd.DataFrame({"mean": [0.0, 1.0], "std": [1.0, 2.0]}, index=["a", "b"])
    >>> table = pd.DataFrame({"score": [3.0, 0.0], "mated": [False, True],
    ...                       "reference_subject": ["a", "b"], "probe_subject": ["b", "b"]})
    >>> [bf.normalisation.normalise_scores(table, stats, method=m)["score"].tolist() for m in "zts"]
    [[3.0, -0.5], [1.0, -0.5], [2.0, -0.5]]
    """
    check_choice(method, "method", ("z", "t", "s"))
    check_column_name(reference_key, "reference_key")
    check_column_name(probe_key, "probe_key")
    validate_scores(scores)
    _check_statistics(statistics)
    raw = scores["score"].to_numpy(dtype=np.float64)
    sides = [key for key, used in ((reference_key, method in ("z", "s")), (probe_key, method in ("t", "s"))) if used]
    side_stats = [_side_stats(scores, statistics, key) for key in sides]
    with np.errstate(over="ignore", invalid="ignore"):
        normalised = np.mean([(raw - mean) / std for mean, std in side_stats], axis=0)
        wide = ~np.isfinite(normalised)
        if wide.any():  # s - mean, or S-norm's sum of two, beyond float64 where the result is not: in halves
            halves = [(raw[wide] * 0.5 - mean[wide] * 0.5) / std[wide] for mean, std in side_stats]
            normalised[wide] = np.mean(halves, axis=0) * 2
    if not np.isfinite(normalised).all():
        raise OverflowError(
            f"{how_many(int((~np.isfinite(normalised)).sum()), 'normalised score', verbs=('overflows', 'overflow'))} "
            "float64: "
            "the cohort statistics are not on the scale of the scores"
        )
    return scores.assign(score=normalised)


def _check_statistics(statistics: pd.DataFrame) -> None:
    """Raise unless ``statistics`` has one row per key with a finite mean and a positive, finite std."""
    _check_frame(statistics, "statistics")
    missing = [c for c in ("mean", "std") if c not in statistics.columns]
    if missing:
        raise ValueError(f"statistics lacks the column(s) {missing}: give the table of cohort_statistics")
    text = [c for c in ("mean", "std") if not is_real_dtype(statistics[c].dtype)]
    if text:  # astype(float) would read "0.5" as a number, and True as a std of 1
        raise TypeError(f"statistics' column(s) {text} must hold numbers, got dtype(s) "
                        f"{[str(statistics[c].dtype) for c in text]}: give the table of cohort_statistics")
    if isinstance(statistics.index, pd.MultiIndex):  # the keys are one column's values, never tuples
        raise ValueError(f"statistics has a MultiIndex of {statistics.index.nlevels} levels; its index must hold "
                         "one key per row, as cohort_statistics gives it")
    if statistics.index.has_duplicates:
        raise ValueError(f"statistics has several rows for {statistics.index[statistics.index.duplicated()][0]!r}")
    mean, std = statistics["mean"].to_numpy(dtype=np.float64), statistics["std"].to_numpy(dtype=np.float64)
    bad = ~(np.isfinite(mean) & np.isfinite(std) & (std > 0))
    if bad.any():
        raise ValueError(
            f"statistics of {statistics.index[bad][0]!r} (mean {float(mean[bad][0])!r}, std {float(std[bad][0])!r}): every mean "
            "must be finite and every std positive and finite"
        )


__all__ = ["cohort_scores", "cohort_statistics", "normalise_scores"]
