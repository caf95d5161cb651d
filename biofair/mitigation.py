"""Mitigation, measured honestly: parameters from a development split, rates from a disjoint one.

Three post-hoc mitigations of a verifier's group differentials, each fitted on development
scores and judged on evaluation scores of other subjects: group-specific thresholds (every
group at the same FMR), group-aware calibration (one logistic calibration per group), and,
in :mod:`biofair.normalisation`, cohort score normalisation. :func:`pareto_front` marks the
methods and parameters that no other beats on both performance and fairness.

Read more in the chapter "Mitigation and its price" (``notebooks/12``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._counts import counts_at
from biofair._thresholds import resolution_columns, threshold_at_fmr_sorted, warn_unresolved
from biofair._typing import By, Direction, Seed
from biofair._validation import (as_number, as_rng, as_target, as_threshold, float_or_infinite, how_many,
                                 is_real_number, quoted)
from biofair.calibration import LogisticCalibration, fit_logistic_calibration
from biofair.exceptions import SchemaError
from biofair.groups import (
    _check_no_missing,
    _factorized,
    _groups_of,
    _group_columns,
    _torn_subjects,
    group_labels,
    scores_by_group,
)
from biofair.normalisation import _check_frame
from biofair.schema import _check_ids_of_one_kind, _contradiction, _mated_problem, _row, validate_scores

_SUBJECT_COLUMNS = ("reference_subject", "probe_subject")


class SubjectSplit(NamedTuple):
    """A score table split by subject into development and evaluation comparisons.

    Returned by :func:`subject_disjoint_split`.

    Attributes
    ----------
    dev : pandas.DataFrame
        Comparisons whose two subjects are both development subjects.
    eval : pandas.DataFrame
        Comparisons whose two subjects are both evaluation subjects.
    cross : pandas.DataFrame
        Non-mated comparisons of an evaluation subject with a development subject (a
        cohort of known impostors for score normalisation; neither split holds them).
    dev_subjects : frozenset
        The development subjects.
    eval_subjects : frozenset
        The evaluation subjects.

    See Also
    --------
    subject_disjoint_split : Makes it.
    check_subject_disjoint : The check it passes.

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> empty = pd.DataFrame()
    >>> bf.mitigation.SubjectSplit(empty, empty, empty, frozenset("a"), frozenset("b")).dev_subjects
    frozenset({'a'})
    """

    dev: pd.DataFrame
    eval: pd.DataFrame
    cross: pd.DataFrame
    dev_subjects: frozenset
    eval_subjects: frozenset

    def __repr__(self) -> str:
        """How many comparisons and subjects each part holds, not the tables themselves."""
        return (f"<SubjectSplit dev: {len(self.dev):,} comparisons of {len(self.dev_subjects):,} subjects; "
                f"eval: {len(self.eval):,} comparisons of {len(self.eval_subjects):,} subjects; "
                f"cross: {len(self.cross):,} comparisons>")


def _subjects(scores: pd.DataFrame, name: str = "scores") -> set:
    """The subjects of a table (either side), once the ids are known present and of one kind."""
    _check_frame(scores, name)
    missing = [c for c in _SUBJECT_COLUMNS if c not in scores.columns]
    if missing:
        raise ValueError(f"a split by subject needs the columns {', '.join(missing)}")
    for column in _SUBJECT_COLUMNS:
        missing = scores[column].isna().to_numpy()
        if missing.any():
            raise ValueError(
                f"column {column!r} has {how_many(int(missing.sum()), 'missing subject')} (first in "
                f"{_row(scores, int(missing.argmax()))}): a comparison without its subjects fits neither split"
            )
    _check_ids_of_one_kind({f"{name}[{c!r}]": scores[c] for c in _SUBJECT_COLUMNS})
    # each column's distinct ids, hashed once (not one Python object per row) and as Python values: stacked,
    # a uint64 column and an int64 one were float64, where ids beyond 2**53 merge
    return set().union(*(scores[c].unique().tolist() for c in _SUBJECT_COLUMNS))


def check_subject_disjoint(dev: pd.DataFrame, evaluation: pd.DataFrame) -> None:
    """Raise if any subject of the evaluation comparisons appears in the development ones.

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    dev : pandas.DataFrame
        Development comparisons, with ``reference_subject`` and ``probe_subject``.
    evaluation : pandas.DataFrame
        Evaluation comparisons, with the same columns.

    Returns
    -------
    None
        When no subject is on both sides.

    Raises
    ------
    ValueError
        Naming the number of shared subjects and a few of them, the subject column with
        missing ids, or the subject columns a table lacks.
    TypeError
        When ``dev`` or ``evaluation`` is not a pandas DataFrame.
    SchemaError
        When the subject ids are numbers in one column and text in another (of either
        table), or both in one column: ``1`` and ``"1"`` never compare equal, so a subject
        read as a number in one table and as text in the other would pass unseen.

    See Also
    --------
    subject_disjoint_split : Splits a table so that this check passes.

    References
    ----------
    ISO/IEC 19795-1:2021, biometric performance testing (test subjects kept apart from the
    data a system is tuned on).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> dev = pd.DataFrame({"reference_subject": ["a"], "probe_subject": ["b"]})
    >>> bf.mitigation.check_subject_disjoint(dev, dev.replace({"a": "c", "b": "d"}))
    >>> bf.mitigation.check_subject_disjoint(dev, dev)
    Traceback (most recent call last):
    ...
    ValueError: 2 evaluation subjects also in the development split, e.g. 'a', 'b'
    """
    dev_subjects, eval_subjects = _subjects(dev, "dev"), _subjects(evaluation, "evaluation")
    _check_ids_of_one_kind({f"{name}[{c!r}]": table[c] for name, table in (("dev", dev), ("evaluation", evaluation))
                            for c in _SUBJECT_COLUMNS})
    shared = sorted(dev_subjects & eval_subjects, key=str)
    if shared:
        raise ValueError(
            f"{how_many(len(shared), 'evaluation subject')} also in the development split, "
            f"e.g. {', '.join(map(quoted, shared[:5]))}"
        )


def _subject_strata(scores: pd.DataFrame, column: str, stratify: str) -> pd.Series:
    """The code of each reference subject's label in ``column`` (in the labels' sorted order),
    indexed by subject; a subject whose rows carry two labels is an error."""
    codes, names = _factorized(scores[column], [column])  # -1: missing
    labelled = codes >= 0
    subject, codes = scores["reference_subject"].to_numpy()[labelled], codes[labelled]
    n_torn, torn = _torn_subjects(subject, codes)
    if n_torn:
        examples = "; ".join(f"{subject!r}: {[names[code] for code in labels]}" for subject, labels in torn.items())
        raise ValueError(
            f"stratify={stratify!r}: {how_many(n_torn, 'subject', verbs=('has', 'have'))} comparisons with different labels in column "
            f"{column!r} ({examples}); a subject belongs to one stratum: correct the labels"
        )
    strata = pd.Series(codes, index=pd.Index(subject, name="subject"), name="code")
    return strata[~strata.index.duplicated()]


def subject_disjoint_split(
    scores: pd.DataFrame, *, dev_fraction: float = 0.5, stratify: str | None = None, rng: Seed = None
) -> SubjectSplit:
    """Split comparisons by subject, so that no identity is in both development and evaluation.

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table with ``reference_subject`` and ``probe_subject``.
    dev_fraction : float, default 0.5
        Share of the subjects drawn for development, in (0, 1), rounded to a whole number of
        subjects, and at least one subject is left on each side: 0.99 of 10 subjects puts 9,
        not 10, in development.
    stratify : str, optional
        A subject attribute (the column ``reference_<stratify>``, else ``<stratify>``, read
        on each subject's comparisons as reference, which must agree): the draw is made
        within each of its values, so that every group keeps about ``dev_fraction`` of its
        subjects in development, and every group of at least two subjects has at least one
        on each side (0.1 of a group of 5 puts 1 in development, not 0). The subjects alone
        in their group are drawn together, as one stratum: each is on one side, about
        ``dev_fraction`` of them in development, so that both sides keep a subject even
        when every group has one. Subjects without a label (missing, or only ever a probe)
        form one stratum of their own. Counts are rounded half to even (Python's ``round``:
        0.5 of 5 subjects puts 2 in development, of 7 puts 4).
    rng : numpy.random.Generator or int, optional
        Source of randomness (seed).

    Returns
    -------
    SubjectSplit
        ``dev`` (both subjects in development), ``eval`` (both in evaluation) and ``cross``
        (the non-mated comparisons between the two sets), with the two subject sets.
        Mated comparisons are never cross.

    Raises
    ------
    ValueError
        When the scores lack ``reference_subject`` or ``probe_subject``, or a comparison its
        subject ids (named, with the first row), have fewer than two subjects, ``dev_fraction``
        is not in (0, 1), ``stratify`` names no column of the scores, or a subject's comparisons
        as reference carry two different ``stratify`` labels (named, with their labels: a
        subject belongs to one stratum), or ``rng`` is a negative seed.
    TypeError
        When ``scores`` is not a pandas DataFrame, ``dev_fraction`` is not a number (text and
        booleans are refused), or ``rng`` is neither a Generator, an integer seed nor None.
    SchemaError
        When the subject ids mix numbers and text (``1`` and ``"1"`` would be two subjects,
        and could land on both sides), a ``mated`` column is not boolean (0 and 1, text or a
        missing value: named, with how to convert it, as :func:`biofair.validate_scores` does)
        or contradicts ``reference_subject == probe_subject`` (a mated comparison of two
        subjects would become a cross comparison), or the ``stratify`` column holds distinct labels that
        read the same (``1`` and ``"1"``) or equal labels written differently (``True`` and
        ``1``), as for the groups of :func:`biofair.group_labels`.

    See Also
    --------
    check_subject_disjoint : What the split guarantees, as a check.
    biofair.fairness_discrepancy_rate : Takes the development split as ``dev=``.

    References
    ----------
    ISO/IEC 19795-1:2021, biometric performance testing (test subjects kept apart from the
    data a system is tuned on).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.read_scores(bf.datasets.example_scores_path())
    >>> split = bf.mitigation.subject_disjoint_split(table, rng=0)
    >>> split.dev_subjects.isdisjoint(split.eval_subjects), len(split.dev) + len(split.eval) + len(split.cross) == len(table)
    (True, True)
    """
    fraction = as_number(dev_fraction, "dev_fraction", low=0.0, high=1.0, open_low=True, open_high=True)
    generator = as_rng(rng)
    subjects = pd.Series(sorted(_subjects(scores), key=str))
    if "mated" in scores.columns:  # booleans, as everywhere (0/1 skipped the check); a mated pair of two subjects
        if problem := _mated_problem(scores["mated"]) or _contradiction(scores):  # would be cross
            raise SchemaError(f"invalid score table:\n- {problem}")
    if stratify is None:
        strata = pd.Series(0, index=subjects)
    else:
        column = next((c for c in (f"reference_{stratify}", stratify) if c in scores.columns), None)
        if column is None:
            raise ValueError(f"stratify={stratify!r} needs the column 'reference_{stratify}' or {stratify!r}")
        strata = _subject_strata(scores, column, stratify).reindex(subjects.to_numpy(), fill_value=-1)
        alone = strata.map(strata.value_counts()).to_numpy() == 1
        strata[alone] = -2  # drawn together: else each went to the side its rounding of 1 gave, all to one
    if subjects.size < 2:
        raise ValueError(f"a split by subject needs at least two subjects; the scores have {subjects.size}")
    dev_subjects = set()
    for _, members in strata.groupby(strata, sort=True):
        names = members.index.to_numpy()
        n_dev = int(round(fraction * names.size))
        if names.size >= 2:  # both sides keep the stratum, whatever the rounding
            n_dev = min(max(n_dev, 1), names.size - 1)
        dev_subjects.update(generator.choice(names, size=n_dev, replace=False).tolist())
    in_dev = scores["reference_subject"].isin(dev_subjects).to_numpy()
    probe_in_dev = scores["probe_subject"].isin(dev_subjects).to_numpy()
    eval_subjects = frozenset(set(subjects) - dev_subjects)
    return SubjectSplit(
        scores[in_dev & probe_in_dev],
        scores[~in_dev & ~probe_in_dev],
        scores[in_dev != probe_in_dev],
        frozenset(dev_subjects),
        eval_subjects,
    )


def group_thresholds(dev: pd.DataFrame, fmr: float, *, by: By = "group") -> pd.DataFrame:
    """One threshold per group, each at the same target FMR on that group's own impostors.

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    dev : pandas.DataFrame or ScoresByGroup
        Development comparisons with the group column(s) of ``by``, or a
        :func:`biofair.scores_by_group` of them made with the same ``by``.
    fmr : float
        The target FMR every group is given.
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    pandas.DataFrame
        Index ``group``: ``threshold``, ``t_g = threshold_at_fmr(homogeneous non-mated
        scores of g, fmr)``, so that on the development split ``FMR_g(t_g) <= fmr``; ``k``,
        the group's non-mated scores at or above ``t_g``; ``n_nonmated``; and ``resolved``
        / ``precise``, whether the group's ``n_nonmated`` allow at least 3 / 30 false
        matches at the target (rule of three / thirty). Pass it, or its ``threshold``
        column, to :func:`rates_at_group_thresholds`.

    Raises
    ------
    SchemaError
        When ``dev`` is an invalid score table (see :func:`biofair.validate_scores`) or holds
        several systems or splits, lacks a group column of ``by`` or has rows without a group
        label, its group labels cannot be named one way (see :func:`biofair.group_labels`), it
        has fewer than two groups, or a group has no mated or no homogeneous non-mated
        comparison (named, with its counts).
    ValueError
        When ``fmr`` lies outside [0, 1] (NaN included), ``by`` is empty, names a column twice
        or names "score" or "mated", or ``dev`` is a ``ScoresByGroup`` formed with another
        ``by``.
    TypeError
        When ``dev`` is neither a DataFrame nor a ``ScoresByGroup``, ``by`` is not a column
        name or a list of column names, or ``fmr`` is not one number (a sequence is refused).

    Warns
    -----
    InsufficientComparisonsWarning
        For each group whose non-mated comparisons cannot resolve the target.

    See Also
    --------
    rates_at_group_thresholds : Each group's rates at its own threshold.
    biofair.threshold_at_fmr : The rule used in each group.

    References
    ----------
    ISO/IEC 19795-1 (rule of three); the FDR paper (de Freitas Pereira and Marcel, 2022)
    motivates one threshold for everyone, which this replaces.

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [0.9] + [i / 10 for i in range(10)] + [1.9] + [1 + i / 10 for i in range(10)],
    ...                       "mated": ([True] + [False] * 10) * 2, "group": ["a"] * 11 + ["b"] * 11})
    >>> bf.mitigation.group_thresholds(table, fmr=0.3).round(2)
           threshold  k  n_nonmated  resolved  precise
    group
    a            0.7  3          10      True    False
    b            1.7  3          10      True    False
    """
    groups = _groups_of(dev, by, name="dev")
    target = as_target(fmr)
    rows = {}
    for name, g in groups.items():
        warn_unresolved(target, g.nonmated.size, counted=f"non-mated comparisons of {name}")
        threshold = threshold_at_fmr_sorted(g.nonmated, target)
        k = counts_at(g.mated, g.nonmated, threshold)[0]  # the group's non-mated scores at or above it
        columns = resolution_columns(target, g.nonmated.size, k)
        rows[name] = {"threshold": float(threshold[0]), "k": int(columns["k"][0]), "n_nonmated": g.nonmated.size,
                      "resolved": bool(columns["resolved"][0]), "precise": bool(columns["precise"][0])}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("group")


def rates_at_group_thresholds(scores: pd.DataFrame, thresholds: Mapping | pd.DataFrame, *,
                              by: By = "group") -> pd.DataFrame:
    """Each group's FMR and FNMR at its own threshold, with the counts behind them.

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        Evaluation comparisons with the group column(s) of ``by``, or a
        :func:`biofair.scores_by_group` of them made with the same ``by``.
    thresholds : mapping or pandas.DataFrame
        Group name to threshold, or the table of :func:`group_thresholds` (of a
        development split), whose ``threshold`` column is read.
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    pandas.DataFrame
        Index ``group``: ``threshold``, ``fmr``, ``fnmr``, ``false_matches``, ``n_nonmated``
        (homogeneous pairs), ``false_non_matches``, ``n_mated``. Match iff ``score >= t_g``.

    Raises
    ------
    ValueError
        When a group of the scores has no threshold, a threshold names no group of the
        scores (a group missing from the evaluation split, or a misspelt name), a Series or
        table of thresholds names a group twice, ``by`` is empty, names a column twice or
        names "score" or "mated", or ``scores`` is a ``ScoresByGroup`` formed with another
        ``by``.
    TypeError
        When ``thresholds`` is not a mapping, Series or table, a group's threshold is not a
        real number, or ``by`` is not a column name or a list of column names.
    SchemaError
        When the scores are invalid or cannot be grouped by ``by``, as for
        :func:`biofair.scores_by_group`.

    See Also
    --------
    group_thresholds : Sets the thresholds.
    biofair.rates_by_group : The same table with one threshold for everyone.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022 (per-group FMR and FNMR).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [0.9, 0.1, 0.2, 0.4, 0.6, 0.7],
    ...                       "mated": [True, False, True, True, False, False],
    ...                       "group": ["a"] * 3 + ["b"] * 3})
    >>> bf.mitigation.rates_at_group_thresholds(table, {"a": 0.5, "b": 0.65})[["fmr", "fnmr"]]
           fmr  fnmr
    group
    a      0.0   0.5
    b      0.5   1.0
    """
    if isinstance(thresholds, pd.DataFrame):
        if "threshold" not in thresholds.columns:
            raise ValueError(f"a table of thresholds needs a 'threshold' column (as group_thresholds returns); "
                             f"it has {list(thresholds.columns)}")
        thresholds = thresholds["threshold"]
    elif not isinstance(thresholds, (Mapping, pd.Series)):
        raise TypeError(f"thresholds must map each group to its threshold (or be the table of group_thresholds), "
                        f"got {type(thresholds).__name__}")
    if isinstance(thresholds, pd.Series) and not thresholds.index.is_unique:
        twice = thresholds.index[thresholds.index.duplicated()].unique().tolist()
        raise ValueError(f"thresholds name the group(s) {', '.join(map(quoted, twice))} more than once: "
                         "give each group one threshold")
    groups = scores_by_group(scores, by=by)
    missing = [name for name in groups if name not in thresholds]
    unused = [name for name in thresholds.keys() if name not in groups]  # a Series iterates its values
    if missing:
        raise ValueError(
            f"no threshold for the groups {missing}"
            + (f"; thresholds are given for {unused}, which the scores do not have (group names are text, "
               "as group_thresholds returns them)" if unused else "")
        )
    if unused:
        raise ValueError(f"thresholds for groups that the scores do not have: {unused} (groups: {list(groups)})")
    rows = {}
    for name, g in groups.items():
        threshold = as_threshold(thresholds[name], f"the threshold of group {name!r}")
        false_matches, false_non_matches = counts_at(g.mated, g.nonmated, threshold)
        rows[name] = {
            "threshold": threshold,
            "fmr": false_matches / g.nonmated.size,
            "fnmr": false_non_matches / g.mated.size,
            "false_matches": int(false_matches),
            "n_nonmated": g.nonmated.size,
            "false_non_matches": int(false_non_matches),
            "n_mated": g.mated.size,
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("group")


def fit_group_calibration(
    dev: pd.DataFrame, *, by: By = "group", p_target: float = 0.5
) -> dict[str, LogisticCalibration]:
    """Group-aware calibration: one logistic calibration per group, fitted on development scores.

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    dev : pandas.DataFrame or ScoresByGroup
        Development comparisons with the group column(s) of ``by``, or a
        :func:`biofair.scores_by_group` of them made with the same ``by``.
    by : str or sequence of str, default "group"
        The grouping attribute(s) (or cluster labels, for a FairCal-like variant).
    p_target : float, default 0.5
        Training prior of each fit, as in :func:`biofair.fit_logistic_calibration` (not
        the application prior of :func:`biofair.actual_dcf`).

    Returns
    -------
    dict of str to LogisticCalibration
        ``llr = a_g·s + b_g`` per group, each fitted on the group's mated and homogeneous
        non-mated scores with :func:`biofair.fit_logistic_calibration`.

    Raises
    ------
    SchemaError
        When the table is invalid or a group lacks mated or homogeneous non-mated scores.
    ValueError
        Naming the group, when its scores cannot be calibrated (all equal, or separated by
        one threshold); or when ``p_target`` is not in (0, 1), ``by`` is empty, names a column
        twice or names "score" or "mated", or ``dev`` is a ``ScoresByGroup`` formed with
        another ``by``.
    TypeError
        When ``dev`` is neither a DataFrame nor a ``ScoresByGroup``, ``by`` is not a column
        name or a list of column names, or ``p_target`` is not a number.

    See Also
    --------
    apply_group_calibration : Applies the maps to evaluation scores.
    biofair.fit_logistic_calibration : One map for everyone.

    References
    ----------
    T. Salvador, S. Cairns, V. Voleti, N. Marshall and A. Oberman, "FairCal: Fairness
    Calibration for Face Verification", ICLR 2022 (calibration per cluster of embeddings;
    with known groups, this is their oracle baseline).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import biofair as bf
    >>> rng = np.random.default_rng(0)
    >>> table = pd.concat([bf.synthetic.gaussian_scores(n_mated=500, n_nonmated=500, mated_mean=d, rng=rng)
    ...                    .assign(group=g) for g, d in (("a", 2.0), ("b", 4.0))])
    >>> fits = bf.mitigation.fit_group_calibration(table)
    >>> fits["a"].scale < fits["b"].scale
    True
    """
    groups = _groups_of(dev, by, name="dev")
    as_number(p_target, "p_target", low=0.0, high=1.0, open_low=True, open_high=True)
    fits = {}
    for name, g in groups.items():
        try:
            fits[name] = fit_logistic_calibration(g.mated, g.nonmated, p_target=p_target)
        except ValueError as error:  # constant or separable scores: say whose
            raise ValueError(f"group {name!r}: {error}") from error
    return fits


def apply_group_calibration(
    scores: pd.DataFrame, calibrations: Mapping[str, LogisticCalibration], *, by: By = "group"
) -> pd.DataFrame:
    """Replace each comparison's score by the LLR of its group's calibration.

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    scores : pandas.DataFrame
        Evaluation comparisons with the group column(s) of ``by``.
    calibrations : mapping of str to LogisticCalibration
        One map per group, e.g. from :func:`fit_group_calibration`.
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    pandas.DataFrame
        A copy of ``scores`` whose ``score`` is ``a_g·s + b_g`` for a comparison of group
        ``g``. Each attribute is read as :func:`biofair.group_labels` reads it (its
        pair-level column if the table has one, else its two per-side columns), and a
        comparison whose two sides are in different groups gets the mean of the two
        groups' LLRs (as FairCal averages the two sides' calibrations).

    Raises
    ------
    ValueError
        When a group of the scores has no calibration, a calibration's scale or offset is not
        finite, or ``by`` is empty, names a column twice or names "score" or "mated".
    TypeError
        When ``calibrations`` is not a mapping of LogisticCalibration, a calibration's scale
        or offset is not a real number (text, None, a boolean), or ``by`` is not a column
        name or a list of column names.
    SchemaError
        When the scores are invalid (:func:`biofair.validate_scores`), or a group label is
        missing or cannot be read (named with its column and row, as by
        :func:`biofair.group_labels`).
    OverflowError
        When ``a_g·s + b_g`` overflows float64 (scores on another scale than the fit's).

    See Also
    --------
    fit_group_calibration : Fits the maps.

    References
    ----------
    T. Salvador et al., "FairCal: Fairness Calibration for Face Verification", ICLR 2022
    (the mean of the two sides' calibrations).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [1.0, 1.0], "mated": [True, False], "group": ["a", "b"]})
    >>> maps = {"a": bf.LogisticCalibration(2.0, 0.0, 0.5), "b": bf.LogisticCalibration(1.0, -1.0, 0.5)}
    >>> bf.mitigation.apply_group_calibration(table, maps)["score"].tolist()
    [2.0, 0.0]
    """
    validate_scores(scores)
    if not isinstance(calibrations, Mapping):
        raise TypeError(
            f"calibrations must map each group to its LogisticCalibration, got {type(calibrations).__name__}"
        )
    if wrong := {g: type(c).__name__ for g, c in calibrations.items() if not isinstance(c, LogisticCalibration)}:
        raise TypeError(f"calibrations must map each group to its LogisticCalibration (as fit_group_calibration "
                        f"returns them); got {wrong}")
    maps = _calibration_numbers(calibrations)
    broken = {g: pair for g, pair in maps.items() if not np.isfinite(pair).all()}
    if broken:
        raise ValueError(f"calibrations with a non-finite scale or offset: {broken}; refit them "
                         "(fit_group_calibration)")
    raw = scores["score"].to_numpy(dtype=np.float64)

    def llr_of(labels: pd.Series) -> NDArray:
        missing = sorted(set(labels.dropna()) - set(calibrations), key=str)
        if missing or labels.isna().any():
            unused = [g for g in calibrations if g not in set(labels.dropna())]
            raise ValueError(
                f"no calibration for the groups {missing or ['(missing)']}"
                + (f"; calibrations are given for {unused}, which the scores do not have (group names are "
                   "text, as fit_group_calibration returns them)" if unused else "")
            )
        scale = labels.map({g: scale for g, (scale, _) in maps.items()}).to_numpy(dtype=np.float64)
        offset = labels.map({g: offset for g, (_, offset) in maps.items()}).to_numpy(dtype=np.float64)
        return scale * raw + offset

    columns = _group_columns(scores, by)  # the pair-level column of an attribute if any, else its two sides
    with np.errstate(over="ignore", invalid="ignore"):
        if any(len(pair) == 2 for pair in columns.values()):
            _check_no_missing(scores, list(dict.fromkeys(c for pair in columns.values() for c in pair)))
            # each side's group (a pair-level attribute on both), named as fit_group_calibration
            # names them: both sides stacked, so that composite names are formed one way
            stacked = pd.concat([scores[[pair[side] for pair in columns.values()]].set_axis(list(columns), axis=1)
                                 for side in (0, -1)], ignore_index=True)
            labels = group_labels(stacked, by=list(columns))
            sides = llr_of(labels.iloc[: len(scores)]), llr_of(labels.iloc[len(scores):])
            calibrated = (sides[0] + sides[1]) / 2
            wide = np.isinf(calibrated) & np.isfinite(sides[0]) & np.isfinite(sides[1])
            if wide.any():  # a sum of two LLRs beyond float64 where their mean is not: in halves
                calibrated[wide] = sides[0][wide] * 0.5 + sides[1][wide] * 0.5
        else:
            calibrated = llr_of(group_labels(scores, by=by))
    if not np.isfinite(calibrated).all():
        raise OverflowError(
            f"a_g·s + b_g overflows float64 for {how_many(int((~np.isfinite(calibrated)).sum()), 'comparison')}: "
            "these scores are not on the scale the calibrations were fitted on"
        )
    return scores.assign(score=calibrated)


def _calibration_numbers(calibrations: Mapping[str, LogisticCalibration]) -> dict[str, tuple[float, float]]:
    """Each group's ``(scale, offset)`` as floats, an integer beyond the largest float64 as
    ``±inf``; a TypeError naming the groups whose scale or offset is not a real number (text,
    None or a boolean, which NumPy would read as 1)."""
    pairs = {g: (c.scale, c.offset) for g, c in calibrations.items()}
    if not_numbers := {g: pair for g, pair in pairs.items() if not all(map(is_real_number, pair))}:
        raise TypeError(f"calibrations whose scale or offset is not a real number: {not_numbers}; give numbers, "
                        "as fit_group_calibration returns them")
    return {g: tuple(map(float_or_infinite, pair)) for g, pair in pairs.items()}


def pareto_front(points: pd.DataFrame, objectives: Mapping[str, Direction]) -> pd.Series:
    """Mark the points that no other point beats on every objective (the non-dominated front).

    Read more in the chapter "Mitigation and its price".

    Parameters
    ----------
    points : pandas.DataFrame
        One row per method and parameter, with a column per objective.
    objectives : mapping of str to {"min", "max"}
        Each objective column and whether lower or higher is better, e.g.
        ``{"min_dcf": "min", "fdr": "max"}``.

    Returns
    -------
    pandas.Series of bool
        ``True`` for a point that no other point dominates, where ``q`` dominates ``p`` iff
        ``q`` is at least as good on every objective and strictly better on one.
        Same index as ``points``.

    Raises
    ------
    TypeError
        When ``points`` is not a DataFrame, ``objectives`` is not a mapping, or an objective
        column is not numeric or holds complex numbers.
    ValueError
        When there is no objective, an objective column is absent or holds NaN, or a
        direction is neither "min" nor "max".

    See Also
    --------
    rates_at_group_thresholds : Rates a mitigation's fairness is computed from.

    References
    ----------
    V. Pareto, Manuale di economia politica, 1906; K. Deb, Multi-Objective Optimization
    Using Evolutionary Algorithms, Wiley, 2001 (dominance).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> points = pd.DataFrame({"cost": [1, 2, 2, 3], "fairness": [0.5, 0.9, 0.6, 0.9]})
    >>> bf.mitigation.pareto_front(points, {"cost": "min", "fairness": "max"}).tolist()
    [True, True, False, False]
    """
    if not isinstance(points, pd.DataFrame):
        raise TypeError(f"points must be a DataFrame with one column per objective, got {type(points).__name__}")
    if not isinstance(objectives, Mapping):
        raise TypeError(f"objectives must map each column to 'min' or 'max', e.g. {{'min_dcf': 'min'}}, "
                        f"got {objectives!r}")
    absent = [c for c in objectives if c not in points.columns]
    if absent:
        raise ValueError(f"no objective column {absent} among {list(points.columns)}")
    bad = {k: v for k, v in objectives.items() if v not in ("min", "max")}
    if bad:
        raise ValueError(f"each objective must be 'min' or 'max', got {bad}")
    if not objectives:
        raise ValueError("pareto_front needs at least one objective")
    twice = [c for c in objectives if (points.columns == c).sum() > 1]
    if twice:
        raise ValueError(f"the points hold more than one column named {twice[0]!r}; name each objective once")
    not_numbers = [c for c in objectives if not pd.api.types.is_numeric_dtype(points[c])]
    if not_numbers:
        raise TypeError(f"objective columns must be numeric; {not_numbers} are not "
                        f"(dtypes {[str(points[c].dtype) for c in not_numbers]})")
    complex_columns = [c for c in objectives if pd.api.types.is_complex_dtype(points[c])]
    if complex_columns:
        raise TypeError(f"objective columns must hold real numbers; {complex_columns} hold complex ones, which "
                        "have no order: give their real part or modulus")
    # counted on the values: an Arrow-backed column keeps NaN apart from its missing values (isna: False)
    missing = {c: int(n) for c in objectives if (n := pd.isna(points[c].to_numpy()).sum())}
    if missing:
        raise ValueError(f"objective columns hold NaN (column: count): {missing}; a point without a value "
                         "cannot be compared")
    # Each objective as the rank of its value among the column's distinct values, negated for "max": lower
    # is better in every column, and values are compared in their own type (integers beyond 2**53 that
    # float64 would make equal stay apart).
    values = np.column_stack([
        np.unique(points[c].to_numpy(), return_inverse=True)[1] * (1 if d == "min" else -1)
        for c, d in objectives.items()
    ])
    # A point can only be dominated by one before it in lexicographic order, and a point dominated
    # by a dominated one is dominated by a point of the front: each block of points, in that order,
    # is compared with the front found so far and with itself (memory: block x front x objectives).
    order = np.lexsort(values.T[::-1])
    ranked = values[order]
    kept = np.zeros(len(ranked), dtype=bool)
    front = ranked[:0]
    for start in range(0, len(ranked), _PARETO_BLOCK):
        block = ranked[start:start + _PARETO_BLOCK]
        on_front = ~(_dominated_by(front, block) | _dominated_by(block, block))
        kept[start:start + len(block)] = on_front
        front = np.concatenate([front, block[on_front]])
    pareto = np.empty(len(ranked), dtype=bool)
    pareto[order] = kept
    return pd.Series(pareto, index=points.index, name="pareto")


#: Points compared with the front at once by :func:`pareto_front`.
_PARETO_BLOCK = 1024


def _dominated_by(candidates: NDArray[np.int64], points: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Whether some candidate dominates each point (lower is better in every column): no worse
    in every objective and better in one."""
    at_least = (candidates[:, None, :] <= points[None, :, :]).all(axis=2)
    better = (candidates[:, None, :] < points[None, :, :]).any(axis=2)
    return (at_least & better).any(axis=0)


__all__ = [
    "SubjectSplit",
    "apply_group_calibration",
    "check_subject_disjoint",
    "fit_group_calibration",
    "group_thresholds",
    "pareto_front",
    "rates_at_group_thresholds",
    "subject_disjoint_split",
]
