"""Statistical bias over subsets: SP, EOP, the Welch T-test and N-Sigma.

Each group gets K performance values (EER, or TMR at FMR = 0.01), one per random subset of
its comparisons; the measures compare those values between an evaluated group and a
reference group. Read more in the chapter "Measure bias over subsets" (``notebooks/06``).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from biofair._counts import error_counts_sorted, tmr_sorted
from biofair._thresholds import MARKED_UNRESOLVED, resolution_columns, threshold_at_fmr_sorted, warn_unresolved
from biofair._typing import By, Seed, SubsetMetric
from biofair._validation import (
    as_count,
    as_rates,
    as_rng,
    as_scores,
    check_choice,
    check_values_finite,
    power_of_two_scaled,
)
from biofair.equal_error_rate import _eer_from_counts
from biofair.exceptions import SchemaError
from biofair.groups import ScoresByGroup, _label_text, _text_labels, scores_by_group

#: The target FMR of ``metric="tmr"``: TMR at FMR = 0.01, as the N-Sigma paper.
_TMR_TARGET = 0.01


def _two_sets(a: ArrayLike, b: ArrayLike, function: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``a`` and ``b`` as float64 arrays of at least two finite performance values each, or a
    ValueError that names them as the values they are (not as comparison scores): an empty
    set is one of too few values, as one of one value is."""
    sets = []
    for name, values in (("a", a), ("b", b)):
        sets.append(check_values_finite(as_scores(values, name, finite=False, noun="performance value", empty=True),
                                        name, advice="give one finite performance value per subset"))
    if sets[0].size < 2 or sets[1].size < 2:
        raise ValueError(f"{function} needs at least two performance values per set, one per subset (a sample "
                         f"standard deviation), got {sets[0].size} and {sets[1].size}")
    return sets[0], sets[1]


def _centred_moments(values: NDArray[np.float64]) -> tuple[float, float, float]:
    """``(centre, offset, std)``: the mean is ``centre + offset``, ``std`` the sample standard
    deviation (``ddof=1``). Deviations are taken about the middle of the values' range (exact
    for values a few ulps apart, which ``np.mean`` rounds onto one of them) and scaled by a
    power of two of their own before they are squared (they do not underflow). Both sums are
    exactly rounded (``math.fsum``), so they do not depend on the values' order: a set and a
    permutation of it have the same moments to the bit (a pairwise sum in another order left
    N-Sigma at about 1e-17 instead of 0)."""
    centre = values.min() / 2 + values.max() / 2
    shifted = values - centre
    offset = math.fsum(shifted) / values.size
    deviations = shifted - offset
    largest = float(np.abs(deviations).max())
    if largest == 0.0:
        return float(centre), float(offset), 0.0
    exponent = int(np.frexp(largest)[1])
    scaled = np.ldexp(deviations, -exponent)
    std = np.ldexp(np.sqrt(math.fsum(scaled * scaled) / (values.size - 1)), exponent)
    return float(centre), float(offset), float(std)


def _gap_and_spreads(a: NDArray, b: NDArray) -> tuple[float, float, float]:
    """``mean_a - mean_b`` and the two sample standard deviations, of the values scaled by one
    power of two where they lie outside [2^-500, 2^500] (N-Sigma and the T-test do not depend
    on scale; squares of values near ±1.8e308 overflowed)."""
    a, b = power_of_two_scaled(a, b)
    centre_a, offset_a, std_a = _centred_moments(a)
    centre_b, offset_b, std_b = _centred_moments(b)
    return (centre_a - centre_b) + (offset_a - offset_b), std_a, std_b


def n_sigma(a: ArrayLike, b: ArrayLike) -> float:
    """Distance between two sets of performance values in combined standard deviations.

    Read more in the chapter "Measure bias over subsets".

    Parameters
    ----------
    a, b : array_like of shape (K,)
        Performance values of two groups, one per subset (at least two each).

    Returns
    -------
    float
        ``|mean_a - mean_b| / sqrt(s_a² + s_b²)`` with sample standard deviations
        (``ddof=1``); 0 for identical sets, larger = more biased. ``inf`` when both sets
        are constant but differ.

    Raises
    ------
    ValueError
        When ``a`` or ``b`` holds fewer than two values, is not one-dimensional, or holds a NaN
        or infinite value, a masked value or an integer beyond ``±2**53``.
    TypeError
        When ``a`` or ``b`` does not hold real numbers (booleans, text and complex numbers are
        refused).

    See Also
    --------
    biofair.welch_similarity : The Welch T-test p-value of the same sets.
    biofair.subset_bias : N-Sigma of every group against a reference.

    Notes
    -----
    Each set's mean and spread are read about the middle of its own range, at one power of two
    of scale (exact): values a few ulps apart, subnormal values and values near ±1.8e308 give
    the value of the exact formula, not 0, ``inf`` or NaN.

    References
    ----------
    "Measuring Bias in AI Models: An Statistical Approach Introducing N-Sigma" (its N-Sigma
    definition).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.n_sigma([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    0.0
    >>> round(bf.n_sigma([1.0, 2.0, 3.0], [3.0, 4.0, 5.0]), 4)
    1.4142
    """
    a, b = _two_sets(a, b, "n_sigma")
    gap, std_a, std_b = _gap_and_spreads(a, b)
    spread = math.hypot(std_a, std_b)
    if spread == 0.0:
        return 0.0 if gap == 0.0 else float("inf")
    return abs(gap) / spread


def welch_similarity(a: ArrayLike, b: ArrayLike) -> float:
    """Two-sided Welch T-test p-value between two sets of performance values.

    Read more in the chapter "Measure bias over subsets".

    Parameters
    ----------
    a, b : array_like of shape (K,)
        Performance values of two groups, one per subset (at least two each).

    Returns
    -------
    float
        The p-value of Welch's unequal-variance t-test; 1 for identical sets, near 0 when
        the means differ beyond their spread. Two constant sets give 1 if equal, else 0.

    Raises
    ------
    ValueError
        When ``a`` or ``b`` holds fewer than two values, is not one-dimensional, or holds a NaN
        or infinite value, a masked value or an integer beyond ``±2**53``.
    TypeError
        When ``a`` or ``b`` does not hold real numbers (booleans, text and complex numbers are
        refused).

    See Also
    --------
    biofair.n_sigma : The distance of the same sets in standard deviations.
    biofair.subset_bias : The similarity of every group to a reference.

    Notes
    -----
    Each set's mean and spread are read about the middle of its own range, at one power of two
    of scale (exact): values a few ulps apart, subnormal values and values near ±1.8e308 give
    the p-value of the exact t and degrees of freedom (``scipy.stats.ttest_ind_from_stats``),
    not 1, 0 or NaN, and no RuntimeWarning.

    References
    ----------
    "Measuring Bias in AI Models: An Statistical Approach Introducing N-Sigma" (the T-test
    similarity). B. L. Welch, "The generalization of Student's problem when several
    different population variances are involved", Biometrika, 1947.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.welch_similarity([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    1.0
    """
    a, b = _two_sets(a, b, "welch_similarity")
    gap, std_a, std_b = _gap_and_spreads(a, b)
    if std_a == 0.0 and std_b == 0.0:
        return 1.0 if gap == 0.0 else 0.0
    exponent = int(np.frexp(max(std_a, std_b))[1])  # the larger spread in [0.5, 1): no overflow
    with np.errstate(over="ignore"):  # a gap beyond the float range over the spread: t = inf, p = 0
        gap, std_a, std_b = (float(np.ldexp(x, -exponent)) for x in (gap, std_a, std_b))
        return float(stats.ttest_ind_from_stats(gap, std_a, a.size, 0.0, std_b, b.size, equal_var=False).pvalue)


def statistical_parity(a: ArrayLike, b: ArrayLike) -> float:
    """Parity of two groups over K paired subsets: ``1 - mean_k |a_k - b_k|``.

    Read more in the chapter "Measure bias over subsets". Statistical parity (SP) is this
    formula on the EERs of the subsets; equality of opportunity (EOP) is the same formula on
    their TMRs, so :func:`biofair.equal_opportunity` is this function under its other name.

    Parameters
    ----------
    a, b : array_like of shape (K,)
        The performance values of two groups, subset by subset (EERs for SP, TMRs for EOP):
        rates in [0, 1].

    Returns
    -------
    float
        ``1 - mean_k |a_k - b_k|``; 1 when the groups agree on every subset.

    Raises
    ------
    ValueError
        When ``a`` and ``b`` are empty, differ in length, are not one-dimensional or hold a
        value outside [0, 1] (NaN included).
    TypeError
        When ``a`` or ``b`` holds text or other values that are not numbers.

    See Also
    --------
    biofair.equal_opportunity : The same function, named for TMRs.
    biofair.subset_bias : SP or EOP of every group against a reference.

    References
    ----------
    "Measuring Bias in AI Models: An Statistical Approach Introducing N-Sigma" (SP and EOP).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.statistical_parity([0.1, 0.2], [0.1, 0.4])  # SP on EERs
    0.9
    >>> bf.equal_opportunity([0.9, 0.8], [0.9, 0.8])  # EOP on TMRs: the same formula
    1.0
    """
    a, b = as_rates(a, "a"), as_rates(b, "b")  # EERs or TMRs: rates in [0, 1]
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"a and b must be one-dimensional, one value per subset; got shapes {a.shape} and {b.shape}")
    if a.size != b.size:
        raise ValueError(f"a and b must pair value by value; got {a.size} and {b.size} values")
    if not a.size:
        raise ValueError("a and b are empty: parity needs the values of at least one subset")
    return float(1.0 - np.mean(np.abs(a - b)))


#: Equality of opportunity (EOP): :func:`statistical_parity` on the subsets' TMRs.
equal_opportunity = statistical_parity


def _subset_value(mated: NDArray, nonmated: NDArray, metric: SubsetMetric) -> tuple[float, int | None]:
    """A subset's EER (with None), or its TMR at FMR = 0.01 with ``k``, its non-mated scores at
    or above the threshold set on them."""
    mated, nonmated = np.sort(mated), np.sort(nonmated)
    if metric == "eer":
        return _eer_from_counts(error_counts_sorted(mated, nonmated)).eer, None
    threshold = threshold_at_fmr_sorted(nonmated, np.array([_TMR_TARGET]))
    k = nonmated.size - int(np.searchsorted(nonmated, threshold[0], side="left"))
    return float(tmr_sorted(mated, threshold)[0]), k


def subset_performance(
    scores: pd.DataFrame | ScoresByGroup,
    *,
    by: By = "group",
    n_subsets: int = 50,
    size: int,
    metric: SubsetMetric = "eer",
    rng: Seed = None,
) -> pd.DataFrame:
    """K performance values per group, each on a random subset of its comparisons.

    Read more in the chapter "Measure bias over subsets".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        Score table with a group column.
        A :func:`biofair.scores_by_group` of it lets several indices share one grouping.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    n_subsets : int, default 50
        Subsets per group, K.
    size : int
        Comparisons per subset, drawn with replacement and stratified by class: the subset
        keeps the group's share of mated comparisons, with at least one of each class.
    metric : {"eer", "tmr"}, default "eer"
        ROCCH EER, or TMR at FMR = 0.01 with each subset's own threshold.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``group``, ``subset`` (0 ... K-1), ``value``; attribute ``metric`` in
        ``.attrs``. For ``metric="tmr"`` also, as every rate at a target: ``k`` (the subset's
        non-mated scores at or above its threshold), ``resolved`` (FMR = 0.01 allows at least
        3 false matches among the subset's ``N`` non-mated scores, ``0.01·N >= 3``) and
        ``precise`` (at least 30).

    Raises
    ------
    SchemaError
        When ``scores`` is an invalid score table (see :func:`biofair.validate_scores`) or
        holds several systems or splits, lacks a group column of ``by`` or has rows without a
        group label, its group labels cannot be named one way (see
        :func:`biofair.group_labels`), it has fewer than two groups, or a group has no mated or
        no homogeneous non-mated comparison (named, with its counts).
    ValueError
        When ``metric`` is not "eer" or "tmr", ``n_subsets`` or ``size`` is below 2, ``by`` is
        empty, names a column twice or names "score" or "mated", ``scores`` is a
        ``ScoresByGroup`` formed with another ``by``, or ``rng`` is a negative seed.
    TypeError
        When ``scores`` is neither a DataFrame nor a ScoresByGroup, ``by`` is not a column
        name or a list of column names, ``n_subsets`` or ``size`` is not an integer, or ``rng`` is neither a Generator,
        an integer seed nor None.

    Warns
    -----
    InsufficientComparisonsWarning
        For ``metric="tmr"`` when a subset has fewer than 300 non-mated comparisons, so
        that FMR = 0.01 allows fewer than 3 false matches (rule of three); once per such
        group, named. Its rows are marked unresolved.

    See Also
    --------
    biofair.subset_bias : Compares the values between groups.

    References
    ----------
    "Measuring Bias in AI Models: An Statistical Approach Introducing N-Sigma" (K subsets per
    group, EER or TMR at FMR = 0.01 on each).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.beta_scenario("balanced", n_groups=2, n_mated=500, n_nonmated=500, rng=0)
    >>> values = bf.subset_performance(table, n_subsets=5, size=200, rng=0)
    >>> values.groupby("group").size().tolist()
    [5, 5]
    """
    check_choice(metric, "metric", ("eer", "tmr"))
    as_count(n_subsets, "n_subsets", minimum=2)
    as_count(size, "size", minimum=2)
    rng = as_rng(rng)
    groups = scores_by_group(scores, by=by)
    rows = {}
    for name in sorted(groups):  # drawn in the names' order: the categories' order changes no subset
        group = groups[name]
        share = group.mated.size / (group.mated.size + group.nonmated.size)
        n_mated = int(np.clip(round(size * share), 1, size - 1))
        if metric == "tmr":
            warn_unresolved(np.array([_TMR_TARGET]), size - n_mated,
                            counted=f"non-mated comparisons in each subset of group {name!r}",
                            consequence=f"{MARKED_UNRESOLVED}; raise size to resolve them")
        rows[name] = []
        for subset in range(n_subsets):
            mated = rng.choice(group.mated, n_mated, replace=True)
            nonmated = rng.choice(group.nonmated, size - n_mated, replace=True)
            rows[name].append((name, subset, *_subset_value(mated, nonmated, metric), size - n_mated))
    ordered = [row for name in groups for row in rows[name]]
    table = pd.DataFrame([row[:3] for row in ordered], columns=["group", "subset", "value"])
    if metric == "tmr":  # a rate at a target carries its k and resolution (SPEC section 1)
        n_nonmated = np.array([row[4] for row in ordered], dtype=np.int64)
        table = table.assign(**resolution_columns(np.full(len(ordered), _TMR_TARGET), n_nonmated,
                                                  [row[3] for row in ordered]))
    table.attrs["metric"] = metric
    return table


def _values_by_group(performance: pd.DataFrame) -> dict[str, NDArray[np.float64]]:
    """Each group's values in the order of its subset ids, checked: rates in [0, 1], every
    group labelled and holding the same subset ids, each once (values pair subset by subset),
    at least two (a sample standard deviation)."""
    if not isinstance(performance, pd.DataFrame):
        raise TypeError(f"performance must be a pandas DataFrame (the output of subset_performance), "
                        f"got {type(performance).__name__}")
    missing = [c for c in ("group", "subset", "value") if c not in performance.columns]
    if missing:
        raise SchemaError(f"the performance table lacks the column(s) {missing}; "
                          "subset_performance makes a table with group, subset and value")
    unlabelled = int(performance["group"].isna().sum())
    if unlabelled:
        raise SchemaError(f"{unlabelled} row(s) of the performance table have no group label")
    # named as group_labels names groups: 1 and "1" are refused, not two rows that print alike
    performance = performance.assign(group=_text_labels(performance, ["group"]))
    try:  # each group's rows in the order of their subset ids (groupby keeps the rows' order)
        performance = performance.sort_values("subset", kind="stable")
    except TypeError as error:  # ids of kinds that do not compare, such as 3 and "3"
        raise SchemaError(f"the column 'subset' mixes kinds of subset id ({error}); give every subset id "
                          "as an integer, as subset_performance does") from None
    values, subsets = {}, {}
    for name, g in performance.groupby("group", sort=True):
        ids = g["subset"].to_numpy()
        if pd.isna(ids).any() or (ids[1:] == ids[:-1]).any():
            raise SchemaError(f"group {name!r} lists a subset id twice or leaves one empty in the column "
                              "'subset'; each subset has one value")
        values[name] = as_rates(g["value"].to_numpy(), f"the values of group {name!r}")
        subsets[name] = ids
    names = list(subsets)
    for name in names[1:]:
        first, ids = subsets[names[0]], subsets[name]
        if not np.array_equal(ids, first):
            raise SchemaError(
                f"groups {names[0]!r} and {name!r} hold different subsets ({first.size} and {ids.size}; "
                f"ids in one only: {np.setxor1d(first, ids)[:5].tolist()}); the measures pair the "
                "groups' values subset by subset"
            )
    if names and subsets[names[0]].size < 2:
        raise ValueError(f"each group holds {subsets[names[0]].size} subset value; N-Sigma and the T-test need "
                         "at least two per group (a sample standard deviation): draw n_subsets >= 2")
    return values


def subset_bias(performance: pd.DataFrame, *, reference: str | None = None) -> pd.DataFrame:
    """SP or EOP, the T-test similarity and N-Sigma of every group against a reference.

    Read more in the chapter "Measure bias over subsets".

    Parameters
    ----------
    performance : pandas.DataFrame
        The output of :func:`subset_performance`.
    reference : str, optional
        The reference group; by default the one with the lowest mean value (the paper's
        rule: the best group for EER, the worst for TMR), the first in sorted order of the
        names among groups whose means tie. Group labels are read as text, as
        :func:`biofair.group_labels` names groups (a number is its text, ``1`` is ``'1'``).

    Returns
    -------
    pandas.DataFrame
        One row per group: ``group``, ``reference``, ``mean``, ``parity`` (SP for EER,
        EOP for TMR: one formula, :func:`biofair.statistical_parity`),
        ``welch_similarity`` and ``n_sigma``. The reference row compares the group with
        itself: parity 1, similarity 1, N-Sigma 0. A group whose values are constant, beside
        a constant reference of another value, has N-Sigma inf and similarity 0.

    Raises
    ------
    SchemaError
        When the table lacks a column, a row has no group label or a blank one, two group
        labels read the same (``1`` and ``"1"``), a group lists a subset id twice, the subset
        ids mix kinds (3 and "3"), or two groups hold different subset ids (named, with their
        counts).
    ValueError
        When a value is not a rate in [0, 1] (NaN included; the group is named), the table
        holds fewer than two groups or fewer than two subsets per group, or ``reference`` is
        not one of them.
    TypeError
        When ``performance`` is not a DataFrame, its column ``value`` holds text, or
        ``reference`` is neither a group name nor a number.

    See Also
    --------
    biofair.subset_performance : Makes the input.
    biofair.n_sigma : N-Sigma of two sets.

    References
    ----------
    "Measuring Bias in AI Models: An Statistical Approach Introducing N-Sigma" (SP, EOP, the
    T-test and N-Sigma against a reference group).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.beta_scenario("BG", n_groups=2, n_mated=2_000, n_nonmated=2_000, rng=0)
    >>> bias = bf.subset_bias(bf.subset_performance(table, n_subsets=20, size=1_000, rng=0))
    >>> bool(bias.set_index("group").loc["B", "n_sigma"] > 1)
    True
    """
    values = _values_by_group(performance)
    if len(values) < 2:  # a group against itself: "perfectly fair" by construction
        raise ValueError(f"subset bias compares groups: the performance table has {len(values)} "
                         f"({sorted(values)}); give the subsets of two groups or more")
    means = {name: math.fsum(v) / v.size for name, v in values.items()}  # exactly rounded: a tie stays a tie
    if reference is None:
        reference = min(means, key=means.get)
    elif isinstance(reference, (numbers.Number, np.generic)) and not isinstance(reference, str):
        reference = _label_text(reference)  # a group labelled 1 in the table is named '1'
    elif not isinstance(reference, str):
        raise TypeError(f"reference must name one group, got {type(reference).__name__} {reference!r}")
    if reference not in values:
        raise ValueError(f"reference group {reference!r} is not among {sorted(values)}")
    base = values[reference]
    return pd.DataFrame(
        [
            (name, reference, means[name], statistical_parity(base, v), welch_similarity(base, v), n_sigma(base, v))
            for name, v in values.items()
        ],
        columns=["group", "reference", "mean", "parity", "welch_similarity", "n_sigma"],
    )
