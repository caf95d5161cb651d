"""Permutation null of a fairness index: its value when groups do not matter.

Read more in the chapter "Choose CEI's parameters" (``notebooks/05``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from pandas.api.extensions import ExtensionArray

from biofair._resampling import _number, progress, resolution_warned_once
from biofair._typing import Alternative, By, Seed, Unit
from biofair._validation import as_count, as_rng, check_choice, check_subject_in_every_row, how_many, quoted
from biofair._warnings import warn
from biofair.exceptions import PermutationNullWarning
from biofair.groups import _MISSING_GROUP, _attribute_codes, _attributes_of, _group_codes, _torn_subjects
from biofair.schema import _check_ids_of_one_kind, _resampled_cluster, _validate_score_set


class PermutationNull(NamedTuple):
    """An observed statistic, its permutation null distribution and the p-value.

    Returned by :func:`biofair.permutation_null`.

    Attributes
    ----------
    observed : float
        The statistic on the data as they are.
    null : ndarray
        The statistic on each permutation of the group labels.
    p_value : float
        ``(1 + #{null at least as unfair as observed}) / (1 + n_permutations)``.
    n_permutations : int
        Permutations drawn.
    alternative : str
        ``"less"`` or ``"greater"``: the direction of unfairness.
    n_redrawn : int
        Arrangements that could not be scored (the statistic raised ``ValueError``: a
        permuted group too small for it) and were drawn again; 0 when every one could.
    nonmated_within : float
        The share of the table's non-mated comparisons that lie within a group (both sides
        with the same labels); 1 with one label per comparison. NaN when not given (a
        ``PermutationNull`` built by hand).
    nonmated_within_shuffled : float
        The same share in the permuted tables, averaged over the ``n_permutations`` of the
        null; below ``nonmated_within`` when labels given per side are shuffled by subject
        (see :func:`biofair.permutation_null`'s Notes). NaN when not given.

    See Also
    --------
    biofair.permutation_null : The function that returns it.

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> result = bf.PermutationNull(0.8, np.array([0.9, 0.95, 0.85]), 0.25, 3, "less")
    >>> result.p_value
    0.25
    """

    observed: float
    null: NDArray[np.float64]
    p_value: float
    n_permutations: int
    alternative: str
    n_redrawn: int = 0
    nonmated_within: float = float("nan")
    nonmated_within_shuffled: float = float("nan")


def _column(labels: ExtensionArray, index: pd.Index) -> pd.Series:
    """Permuted labels as a column of their own dtype (``assign`` would read text held as
    Python objects as ``str``)."""
    return pd.Series(labels, index=index, dtype=labels.dtype)


class _Shuffles:
    """Permuted copies of a score table: ``draw(rng)`` returns one and the share of its non-mated
    comparisons within groups; ``within`` is that share in the table itself."""

    def __init__(self, draw: Callable[[np.random.Generator], tuple[object, float]], within: float):
        self.draw, self.within = draw, within

    def read_as(self, read: Callable[[object], object]) -> _Shuffles:
        """These shuffles, each copy passed through ``read`` (grouped, say)."""
        def draw(rng: np.random.Generator) -> tuple[object, float]:
            copy, within = self.draw(rng)
            return read(copy), within

        return _Shuffles(draw, self.within)


def _shuffle_plan(scores: pd.DataFrame, by: By, cluster: str | None, *,
                  instead: str | None = "unit='pair'") -> _Shuffles:
    """The permuted copies of ``scores`` a null reads, one per draw (see :class:`_Shuffles`).

    ``instead``: the option that shuffles comparisons rather than subjects, which the error
    for a subject with two labels names (None where the caller has no such option).
    """
    attributes = _attributes_of(by)
    _group_codes(scores, by)  # raises a clear error for a missing group column
    columns = {a: [a] if a in scores.columns else [f"reference_{a}", f"probe_{a}"] for a in attributes}
    # per-side columns beside a pair-level one agree with it on every row (_group_codes refuses them
    # otherwise) and move with it: left as they were, no permuted table could be grouped
    sides = {a: [f"reference_{a}", f"probe_{a}"] for a, names in columns.items()
             if len(names) == 1 and {f"reference_{a}", f"probe_{a}"} <= set(scores.columns)}
    if cluster is not None:  # a column of the table (checked by the callers)
        return _with_sides(_subject_shuffle(scores, columns, cluster, instead), sides)
    per_side = [a for a, c in columns.items() if len(c) == 2]
    if per_side:
        raise ValueError(
            f"per-side group columns {['reference_' + a for a in per_side]} can only be "
            "shuffled by subject: give the table its subject column (cluster=, by default 'reference_subject'), "
            "with unit='subject' or unit=None"
        )
    mated = scores["mated"].to_numpy(dtype=bool)
    labels = {a: scores[a].array for a in columns}  # taken as they are: categories stay codes, text stays Arrow

    def shuffled(rng: np.random.Generator) -> tuple[pd.DataFrame, float]:
        # Shuffle labels within each class so that every group keeps its class sizes.
        rows = np.arange(len(scores))
        for in_class in (mated, ~mated):
            rows[in_class] = rng.permutation(rows[in_class])
        # one label per comparison: every comparison is in a group, shuffled or not
        return scores.assign(**{a: _column(column.take(rows), scores.index) for a, column in labels.items()}), 1.0

    return _with_sides(_Shuffles(shuffled, 1.0), sides)


def _with_sides(shuffles: _Shuffles, sides: dict[str, list[str]]) -> _Shuffles:
    """``shuffles``, their permuted tables with each pair-level attribute's labels copied into its
    per-side columns ``sides`` (``{attribute: [reference_<attribute>, probe_<attribute>]}``)."""
    if not sides:
        return shuffles
    return shuffles.read_as(lambda table: table.assign(
        **{side: table[attribute] for attribute, names in sides.items() for side in names}))


def _check_one_label_per_subject(subject: NDArray[np.intp], value: NDArray, ids: pd.Index, names: list[str],
                                 instead: str | None) -> None:
    """Raise when a subject's comparisons carry two labels of an attribute: shuffled by
    subject, each subject takes one label, so the permuted tables could not look like the
    observed one (a subject's first label would silently stand for all of them)."""
    n_torn, torn = _torn_subjects(subject, value)
    if n_torn:
        examples = "; ".join(f"{quoted(ids[code])}: [{', '.join(quoted(label) for label in sorted(map(str, labels)))}]"
                             for code, labels in torn.items())
        escape = f" or shuffle comparisons instead ({instead})" if len(names) == 1 and instead else ""
        missing = any(_MISSING_GROUP in map(str, labels) for labels in torn.values())
        why = (f" ({_MISSING_GROUP!r} is the label missing_groups='group' gives empty cells: where a subject has "
               "its label in other rows, the empty cells are omissions, so fill them in with that label)"
               if missing else "")
        raise ValueError(
            f"{how_many(n_torn, 'subject', verbs=('has', 'have'))} comparisons with different labels in column(s) {names} ({examples}); "
            f"a shuffle by subject gives each subject one label: correct the labels{escape}{why}"
        )


def _subject_shuffle(scores: pd.DataFrame, columns: dict[str, list[str]], cluster: str,
                     instead: str | None) -> _Shuffles:
    """Permute attributes between subjects; every side of a comparison follows its subject.

    A pair-level attribute follows the ``cluster`` subject; ``reference_<attr>`` follows
    ``cluster`` and ``probe_<attr>`` the matching probe column (``probe_subject`` for
    ``reference_subject``). Subjects are permuted among those that have labels of the same
    attributes. The labels are taken in their own dtype (categorical codes, Arrow text).

    A non-mated comparison is within a group when its two subjects have the same label of
    every attribute given per side (a pair-level label is one for both): each subject's
    label of those, as the grouping numbers it, is read through the permutation of each draw.
    """
    probe = "probe_" + cluster.removeprefix("reference_")
    subject_of = {}
    for attribute, names in columns.items():
        subject_of[names[0]] = cluster
        if len(names) == 2:
            if probe not in scores.columns:
                raise ValueError(f"shuffling {names[1]} by subject needs the column {probe!r}")
            subject_of[names[1]] = probe
    sides = sorted(set(subject_of.values()))
    for side in sides:  # a missing id, coded -1 below, made its rows the last subject's
        check_subject_in_every_row(scores[side], side, instead=instead)
    _check_ids_of_one_kind({f"column {side!r}": scores[side] for side in sides})  # 1 and "1": two subjects
    # sorted: one seed permutes the same subjects whatever the rows' order
    codes, ids = pd.factorize(pd.concat([scores[side] for side in sides], ignore_index=True), sort=True)
    codes = dict(zip(sides, np.split(codes, len(sides))))
    n_subjects = int(max(c.max() for c in codes.values())) + 1
    # Each subject's own value of every attribute: the first row where it appears among the
    # attribute's columns stacked (-1: the subject has none).
    values, own = {}, {}
    for attribute, names in columns.items():
        subject = np.concatenate([codes[subject_of[n]] for n in names])
        stacked = pd.concat([scores[n] for n in names], ignore_index=True)
        _check_one_label_per_subject(subject, stacked.to_numpy(), ids, names, instead)
        first = pd.Series(np.arange(subject.size)).groupby(subject).first()
        own[attribute] = np.full(n_subjects, -1, dtype=np.intp)
        own[attribute][first.index.to_numpy()] = first.to_numpy()
        values[attribute] = stacked.array  # taken as they are: categories stay codes, text stays Arrow

    # A subject takes the attributes of one that has the same ones: with a pair-level and a
    # per-side attribute, a subject seen only as a probe has no pair-level label to give.
    has = np.stack([own[attribute] >= 0 for attribute in columns], axis=1)
    kind = np.unique(has, axis=0, return_inverse=True)[1].ravel()
    alike = [np.flatnonzero(kind == k) for k in range(int(kind.max()) + 1)]

    # The subjects of both sides of every non-mated comparison, and each subject's group code
    # of every attribute given per side (every subject of either side has one).
    nonmated = ~scores["mated"].to_numpy(dtype=bool)
    pairs = [codes[side][nonmated] for side in (cluster, probe)] if probe in codes else []
    own_codes = [np.concatenate(_attribute_codes(scores, names)[:2])[own[attribute]]
                 for attribute, names in columns.items() if len(names) == 2]

    def within(donor: NDArray[np.intp]) -> float:
        """The share of the non-mated comparisons within groups when subject s takes the
        labels of subject ``donor[s]``."""
        same = np.ones(int(nonmated.sum()), dtype=bool)
        for code in own_codes:  # a loop over the attributes given per side
            drawn = code[donor]
            same &= drawn[pairs[0]] == drawn[pairs[1]]
        return float(same.mean())

    def shuffled(rng: np.random.Generator) -> tuple[pd.DataFrame, float]:
        donor = np.empty(n_subjects, dtype=np.intp)  # subject s takes the attributes of subject donor[s]
        for subjects in alike:
            donor[subjects] = rng.permutation(subjects)
        return scores.assign(**{
            name: _column(values[attribute].take(own[attribute][donor][codes[subject_of[name]]], allow_fill=True),
                          scores.index)  # -1 would be missing, never another subject's label
            for attribute, names in columns.items()
            for name in names
        }), within(donor)

    return _Shuffles(shuffled, within(np.arange(n_subjects)))


def permutation_null(
    statistic: Callable[[pd.DataFrame], float],
    scores: pd.DataFrame,
    *,
    by: By = "group",
    n_permutations: int = 200,
    unit: Unit | None = None,
    cluster: str = "reference_subject",
    alternative: Alternative = "less",
    rng: Seed = None,
    progress_bar: bool | None = None,
) -> PermutationNull:
    """The distribution of a fairness statistic when group labels carry no information.

    Read more in the chapter "Choose CEI's parameters".

    Parameters
    ----------
    statistic : callable
        ``statistic(table) -> float``, a fairness index of a score table, e.g.
        ``lambda t: bf.comprehensive_equity_index(t).extreme``.
    scores : pandas.DataFrame
        Score table with the group column(s) of ``by``.
    by : str or sequence of str, default "group"
        The grouping attribute(s) to shuffle.
    n_permutations : int, default 200
        Permutations.
    unit : {"pair", "subject"}, optional
        What the labels move with. ``"subject"``: labels are shuffled between subjects, a
        subject keeps all its comparisons and takes another subject's group (one with
        labels of the same attributes: a subject seen only as a probe has no pair-level
        label, and swaps with its like). ``"pair"``: labels are shuffled between comparisons
        within each class (group class sizes kept). By default ``"subject"`` when the table
        has the ``cluster`` column, else ``"pair"``. The pair shuffle assumes independent
        comparisons: when a subject's comparisons share its effect, it rejects identical
        groups far more often than the nominal level, so keep the subject column when the
        data have one.
    cluster : str, default "reference_subject"
        The subject column (a name the table lacks, other than the default, is an error).
    alternative : {"less", "greater"}, default "less"
        Direction of unfairness: "less" for indices where 1 is fair (FDR, DFI, CEI),
        "greater" for GARBE, Inequity and N-Sigma.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.
    progress_bar : bool, optional
        Show a progress bar; by default only on an interactive terminal.

    Returns
    -------
    PermutationNull
        ``observed``, the ``null`` values, and ``p_value = (1 + #{null at least as unfair as
        observed}) / (1 + n_permutations)``, a null value equal to the observed one up to
        rounding (a relative 100 ulp, as in ``scipy.stats.permutation_test``) counted;
        ``n_redrawn``, the arrangements drawn again because the statistic could not score
        them; ``nonmated_within`` and ``nonmated_within_shuffled``, the share of non-mated
        comparisons within groups in the table and its mean over the permuted tables of the
        null (both 1 with one label per comparison; see Notes).

    Raises
    ------
    ValueError
        When labels are shuffled between subjects and a subject's comparisons carry two
        labels of an attribute (named, with the labels: each subject takes one label, so
        no permuted table could look like the observed one), per-side group columns are
        to be shuffled without a subject column, or the statistic is NaN on some table or
        infinite on the observed one, or fewer than one arrangement in ten can be scored
        (see Notes); or when ``n_permutations`` is below 1, ``alternative`` is neither "less"
        nor "greater", ``by`` is empty, names a column twice or names "score" or "mated", or
        ``rng`` is a negative seed.
    TypeError
        When ``statistic`` is not callable, ``by`` is not a column name or a list of column
        names, ``n_permutations`` is not an integer, or ``rng`` is neither a Generator, an
        integer seed nor None.
    SchemaError
        When the table is invalid, its group labels cannot be named one way (see
        :func:`biofair.group_labels`), the subject ids mix numbers and text (``1`` and
        ``"1"`` would be two subjects), or ``cluster`` names a column the table lacks
        (other than the default, or with ``unit="subject"``).

    Warns
    -----
    UserWarning
        When some arrangements could not be scored and were drawn again (counted, with the
        first reason; see Notes).
    PermutationNullWarning
        When the permuted tables keep, on average, fewer than 9 in 10 of the table's share of
        non-mated comparisons within groups (``nonmated_within_shuffled < 0.9 *
        nonmated_within``; see Notes).

    See Also
    --------
    biofair.bootstrap : An interval for the same statistic.
    biofair.comprehensive_equity_index : An index to read against its null.

    Notes
    -----
    Finite samples make DFI and CEI fall below 1 even for identical groups; the null shows
    how far, so that an observed value is read against it rather than against 1. The
    statistic on the observed data warns for targets it cannot resolve; on the permuted
    tables, whose group sizes are about the same, those warnings are not repeated.

    With one group label per comparison (a ``group`` column), the subject shuffle moves a
    non-mated comparison with its ``cluster`` subject only. When the non-mated scores also
    depend on the other subject (a probe that scores high against everyone) and the trial
    list pairs each reference with probes of its own group, the permuted groups mix probes
    that the observed groups keep apart, and the null is too narrow: in a simulation of
    identical groups with a probe effect as large as the noise (``tests/unit/
    test_uncertainty.py``), the test rejected at the 5% level far more often than 5% of the
    time. Labels given per side (``reference_group`` and ``probe_group``, e.g. from a subject
    file) move with each subject on both sides; the test is then valid for the mated indices,
    but a non-mated pair of one group whose two subjects draw different labels becomes
    cross-group and leaves the groups. ``nonmated_within`` and ``nonmated_within_shuffled``
    say how many stay: of a trial list of pairs within groups only (100%), about half stay
    when two groups of equal size are shuffled (48% of VoxCeleb1-H's, by nationality). The
    non-mated indices' nulls then compare smaller groups than the table's, which fall
    further below 1 by chance, and a large p-value does not say that the groups' non-mated
    scores agree (on that list the non-mated CEI of a ResNet verifier lay far above its null
    mean, p = 1). The function warns (:class:`~biofair.PermutationNullWarning`) when the
    shuffles keep on average fewer than 9 in 10 of the table's share
    (``nonmated_within_shuffled < 0.9 * nonmated_within``): groups with more than a tenth
    fewer non-mated comparisons than the table's.

    A small group, its subjects moved as a whole, can take subjects with too few scores among
    them for the statistic (CEI needs scores on both sides of its split percentile, FDR a
    non-mated comparison in every group). An arrangement on which the statistic raises
    ``ValueError`` is drawn again, with a warning that counts them: the null is that of the
    arrangements the statistic can score, as it scores the observed one. When the groups do
    not matter the observed arrangement is one of those, each as likely as the others, so
    the p-value keeps its level. When fewer than one arrangement in ten can be scored the
    groups are too small to shuffle and the null is refused. A NaN is not drawn again: it is
    an error, for a statistic that returns NaN may well be wrong on every table.

    References
    ----------
    P. Good, "Permutation, Parametric, and Bootstrap Tests of Hypotheses", Springer, 2005
    (the permutation test and its p-value with the observed arrangement counted).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.beta_scenario("BG", n_groups=2, n_mated=500, n_nonmated=500, rng=0)
    >>> result = bf.permutation_null(lambda t: bf.comprehensive_equity_index(t, bins=20).extreme,
    ...                              table, n_permutations=19, rng=0)
    >>> result.p_value  # the observed CEI is below every permuted one
    0.05
    """
    if not callable(statistic):
        raise TypeError(f"statistic must be a function of a score table that returns a number, e.g. {_EXAMPLE}, "
                        f"got {statistic!r}")
    as_count(n_permutations, "n_permutations")
    check_choice(alternative, "alternative", ("less", "greater"))
    _validate_score_set(scores)
    rng = as_rng(rng)
    shuffles = _shuffle_plan(scores, by, _resampled_cluster(scores, unit, cluster))
    observed = _number(statistic(scores), _EXAMPLE)
    return _nulls({"statistic": statistic}, shuffles, {"statistic": observed}, n_permutations=n_permutations,
                  alternative=alternative, rng=rng, progress_bar=progress_bar)["statistic"]


#: A statistic that picks one number, for the message of one that returns something else.
_EXAMPLE = "lambda table: bf.outcome_fairness(table, fmr=1e-3).garbe_fnmr"


def _nulls(statistics: dict[str, Callable], shuffles: _Shuffles, observed: dict[str, float], *, n_permutations: int,
           alternative: Alternative, rng: np.random.Generator, progress_bar: bool | None) -> dict[str, PermutationNull]:
    """The null of each statistic over the same arrangements, ``shuffles.draw(rng)`` drawn once
    per permutation (a permuted table, or its groups) and read by every statistic.

    An arrangement that a statistic cannot score (it raises ``ValueError``: a permuted group
    left with too few scores for it, which a small group's subjects, moved as a whole, often
    are) is drawn again. The null is then that of the arrangements every statistic scores, as
    it scores the observed one; when the groups do not matter the observed arrangement is one
    of those, each as likely as the others, so the p-value stays exact. A bootstrap could not
    do this: a resample drawn again would no longer be one of the data's. Below one scored
    arrangement in ``_DRAWS_PER_PERMUTATION``, the null is refused.

    The share of non-mated comparisons within groups is averaged over the arrangements of the
    null, and a :class:`~biofair.PermutationNullWarning` given when it falls below
    ``_KEPT_WITHIN`` times the table's (see :func:`permutation_null`'s Notes).
    """
    null = {name: np.empty(n_permutations) for name in statistics}
    within = np.empty(n_permutations)
    redrawn, first_problem = 0, None
    with resolution_warned_once():
        for i in progress(range(n_permutations), total=n_permutations, desc="permutations", show=progress_bar):
            while True:
                try:  # grouping the arrangement can fail too: a group left without a class
                    arrangement, within[i] = shuffles.draw(rng)
                    values = [statistic(arrangement) for statistic in statistics.values()]
                    break
                except ValueError as problem:
                    redrawn, first_problem = redrawn + 1, first_problem or problem
                    if redrawn > (_DRAWS_PER_PERMUTATION - 1) * n_permutations:
                        raise _TooSmallToShuffle(
                            f"the permutation null cannot be drawn: {redrawn} of {redrawn + i} shuffled arrangements "
                            f"of the groups could not be scored (the first: {first_problem}); the groups are too "
                            "small to shuffle (merge the smallest with others, or leave them out)") from first_problem
            for name, value in zip(statistics, values):
                null[name][i] = _number(value, _EXAMPLE)
    if redrawn:
        warn(f"{redrawn} of {redrawn + n_permutations} shuffled arrangements of the groups could not be scored and "
             f"{'was' if redrawn == 1 else 'were'} drawn again (the first: {first_problem}): the permutation null is "
             "that of the arrangements that can be scored, as the observed one can")
    shares = (shuffles.within, float(within.mean()))
    if shares[1] < _KEPT_WITHIN * shares[0]:
        warn(f"the shuffles of the labels leave {shares[1]:.1%} of the non-mated comparisons within groups on "
             f"average, against {shares[0]:.1%} in the table: with labels given per side, each subject takes its "
             "new label to both sides of its comparisons, and a non-mated pair of one group whose two subjects draw "
             "different labels leaves the groups. The nulls of indices that read non-mated scores are then those of "
             "groups with fewer non-mated comparisons than the table's, which fall further below 1 by chance: a "
             "large p-value there does not say that the groups' non-mated scores agree (the nulls of indices of "
             "mated scores are not affected); read such an index beside its groups' sizes rather than against this "
             "null",
             PermutationNullWarning)
    return {name: _tested(observed[name], null[name], alternative, redrawn, shares) for name in statistics}


#: The share of the table's non-mated comparisons within groups that the shuffles must keep on
#: average, below which the null warns that they left the groups.
_KEPT_WITHIN = 0.9


#: Arrangements drawn per permutation at most when some cannot be scored.
_DRAWS_PER_PERMUTATION = 10


class _TooSmallToShuffle(ValueError):
    """Too few shuffled arrangements of the groups can be scored for a permutation null."""


def _tested(observed: float, null: NDArray[np.float64], alternative: Alternative, redrawn: int,
            within: tuple[float, float]) -> PermutationNull:
    """The p-value of ``observed`` against its ``null``: a null value equal to it up to rounding
    counts as at least as extreme. ``within``: the shares of non-mated comparisons within groups
    in the table and in its shuffles."""
    if np.isinf(observed):  # every arrangement would count as at least as extreme, or none
        raise ValueError("the statistic is infinite on the observed table, so no p-value can be read; make it "
                         "finite on every arrangement of the groups")
    undefined = int(np.isnan(null).sum())
    if np.isnan(observed) or undefined:  # a NaN compares false: a p-value as if nothing were as extreme
        where = (["the observed table"] if np.isnan(observed) else []) + (
            [f"{undefined} of {null.size} permutations"] if undefined else [])
        raise ValueError(f"the statistic is NaN on {' and '.join(where)}, so no p-value can be read; make it "
                         "defined on every arrangement of the groups")
    # a permuted value equal to the observed one up to rounding counts as at least as extreme (the
    # relative slack of scipy.stats.permutation_test): a sum of the same scores in another order
    # could fall 1 ulp on the wrong side of it, and the p-value came out too small
    slack = 100 * np.finfo(np.float64).eps * abs(observed)
    extreme = null <= observed + slack if alternative == "less" else null >= observed - slack
    p_value = (1 + int(extreme.sum())) / (1 + null.size)
    return PermutationNull(observed, null, p_value, null.size, alternative, redrawn, *within)
