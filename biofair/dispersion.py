"""GARBE and Inequity: how unequal error rates are across groups at one threshold.

Read more in the chapter "Find bias in the tails" (``notebooks/04``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._binomial import binomial_intervals
from biofair._thresholds import rate_resolution, resolution
from biofair._typing import By, ZeroRate
from biofair._validation import (
    as_number,
    as_rates,
    as_target,
    as_threshold,
    check_alpha,
    check_choice,
    check_flag,
    how_many,
    is_real_dtype,
    power_of_two_scaled,
    unmasked,
)
from biofair._warnings import warn
from biofair.exceptions import UndefinedRateWarning
from biofair.groups import GroupRates, ScoresByGroup, _group_rates, _pooled_threshold, scores_by_group


def _per_group(rates: ArrayLike, name: str = "rates") -> NDArray[np.float64]:
    values = as_rates(rates, name)
    if values.ndim != 1:
        raise ValueError(f"{name} must hold one rate per group, shape (K,), got shape {values.shape}")
    if values.size < 2:
        raise ValueError(f"{name} needs the rates of at least two groups, got {values.size}")
    return values


def garbe(rates: ArrayLike, *, correction: bool = True) -> float:
    """Gini Aggregation Rate for Biometric Equitability (GARBE) of per-group rates.

    Read more in the chapter "Find bias in the tails".

    Parameters
    ----------
    rates : array_like of shape (K,)
        One error rate (FMR or FNMR) per group, K >= 2.
    correction : bool, default True
        Multiply by K/(K-1) (Howard et al.), so that one group holding all errors gives 1.
        False gives eq. 3-4 of the CEI paper as printed, which lies in [0, (K-1)/K].

    Returns
    -------
    float
        ``G = (K/(K-1)) · Σ_i Σ_j |x_i - x_j| / (2 K² mean(x))`` in [0, 1] (without the
        factor K/(K-1) when ``correction=False``); 0 when all rates are equal (including all
        zero). Higher is less equitable.

    Raises
    ------
    ValueError
        When ``rates`` is not one-dimensional, holds fewer than two rates (one per group) or a
        rate outside [0, 1] (NaN included), or is a masked array with masked values.
    TypeError
        When ``rates`` does not hold numbers, or ``correction`` is not True or False.

    See Also
    --------
    biofair.inequity : The worst group's rate over the geometric mean.
    biofair.outcome_fairness : GARBE of FMR and FNMR at one threshold.

    Notes
    -----
    Rates below ``2**-500`` (3e-151) are first scaled by the power of two that brings the largest into
    [0.5, 1): exact, and G does not depend on scale, so subnormal rates (5e-324 and 0) keep
    a non-zero mean and all their digits. The double sum is taken over the sorted rates,
    ``Σ_i Σ_j |x_i - x_j| = 2 Σ_m m (K - m) (x_(m+1) - x_(m))``: memory and time grow with K,
    not K², and the result does not depend on the order of the groups.

    References
    ----------
    J. J. Howard, E. J. Laird, R. E. Rubin, Y. B. Sirotin, J. L. Tipton and A. R. Vemury,
    "Evaluating Proposed Fairness Models for Face Recognition Algorithms", ICPR 2022 workshops
    (GARBE). The CEI paper, eq. 3-4 (without the K/(K-1) correction), which credits it to
    the same group's BTAS 2019 study of demographic homogeneity.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.garbe([0.01, 0.01, 0.01])
    0.0
    >>> bf.garbe([0.0, 0.0, 0.3])
    1.0
    """
    check_flag(correction, "correction")  # "no" would have applied it
    (values,) = power_of_two_scaled(_per_group(rates))  # exact; G does not depend on scale
    ordered = np.sort(values)  # one order whatever the groups' order: the same last digit
    k = ordered.size
    mean = ordered.mean()
    if mean == 0.0:
        return 0.0
    # Σ_i Σ_j |x_i - x_j| = 2 Σ_m m (K - m) (x_(m+1) - x_(m)): the gap above the m lowest rates
    # parts m of them from the K - m others. Non-negative terms, and K values, not K² differences.
    below = np.arange(1, k)
    gini = np.sum(below * (k - below) * np.diff(ordered)) / (k**2 * mean)
    # at most (k - 1)/k, and 1 with the correction (one group holds every error): above it by rounding only
    return float(min(gini * k / (k - 1), 1.0) if correction else min(gini, (k - 1) / k))


def _comparisons_per_group(counts: ArrayLike, k: int) -> NDArray[np.float64]:
    """``counts`` as float64 if they are a whole, positive number of comparisons for each of
    the ``k`` rates, else raise."""
    raw = unmasked(counts, "counts")
    if not is_real_dtype(raw.dtype):
        raise TypeError(f"counts must be numbers of comparisons, got {counts!r}")
    n = raw.astype(np.float64)
    if n.shape != (k,):
        raise ValueError(f"counts must give one number of comparisons per rate, shape ({k},), got shape {n.shape}")
    whole = np.isfinite(n) & (n >= 1) & (n == np.round(n))
    if not whole.all():
        raise ValueError("counts must be whole, positive numbers of comparisons; "
                         f"{how_many(int((~whole).sum()), 'count', verbs=('is', 'are'))} not: "
                         f"{n[~whole][:5]}")
    return n


def _zero_rates(zero_rate: str, which: str) -> None:
    """Raise for the zero rates ``which`` names (e.g. "1 rate is zero (at position 1)") when
    ``zero_rate`` is "raise"."""
    if zero_rate == "raise":
        raise ValueError(f"inequity is undefined: {which}; zero='upper_bound' replaces each "
                         "by its one-sided 95% upper bound 1 - 0.05^(1/n), n its comparisons")


def _inequity(rates: NDArray, counts: NDArray | None) -> float:
    """Inequity of ``rates``, a zero rate replaced by its 95% upper bound ``1 - 0.05^(1/n)``
    of its ``counts`` (needed only then), as ``-expm1(ln(0.05)/n)``: the difference from 1
    would lose a digit per decade of n, and every digit from n = 1e17, where 0.05^(1/n) rounds to 1."""
    zero = rates == 0.0
    if zero.any():
        rates = np.where(zero, -np.expm1(np.log(0.05) / counts), rates)
    ordered = np.sort(rates)  # one order whatever the groups' order: the same last digit
    # max / geometric mean, as exp(mean(log max - log x)): exactly 1 for equal rates; inf beyond
    # the float range (subnormal rates beside 1), as the quotient is
    with np.errstate(over="ignore"):
        return float(np.exp(np.mean(np.log(ordered[-1]) - np.log(ordered))))


def inequity(
    rates: ArrayLike,
    *,
    counts: ArrayLike | None = None,
    zero: ZeroRate = "upper_bound",
) -> float:
    """Inequity (NIST): the worst group's rate over the geometric mean of all groups.

    Read more in the chapter "Find bias in the tails".

    Parameters
    ----------
    rates : array_like of shape (K,)
        One error rate per group, K >= 2.
    counts : array_like of shape (K,), optional
        Comparisons behind each rate (whole, positive numbers); needed when a rate is zero.
    zero : {"upper_bound", "raise"}, default "upper_bound"
        A zero rate makes the geometric mean 0. ``"upper_bound"`` replaces it by the
        one-sided 95% upper bound ``1 - 0.05^(1/n_i)`` (about 3/n_i) and warns, giving the
        positions of the replaced rates (:func:`biofair.outcome_fairness` names the groups);
        ``"raise"`` raises.

    Returns
    -------
    float
        ``IN = max_i x_i / (Π_i x_i)^(1/K)`` >= 1; 1 when all rates are equal and
        non-zero; inf when the quotient exceeds the largest float64 (rates near 5e-324
        beside 1). Zero rates are replaced by bounds that depend on ``n_i``: groups that all
        make no error, with different counts, give more than 1. Rates and counts pair by
        position.

    Raises
    ------
    ValueError
        When ``rates`` is not one-dimensional or holds fewer than two rates (one per group), a
        rate lies outside [0, 1] (NaN included), ``counts`` does not give a whole, positive
        number for each rate, ``rates`` and ``counts`` are Series with different indexes
        (which would pair by position, not by group), ``zero`` is neither "upper_bound" nor
        "raise", or a rate is zero with ``zero="raise"`` or without ``counts``.
    TypeError
        When ``rates`` or ``counts`` does not hold numbers (booleans are refused).

    Warns
    -----
    UndefinedRateWarning
        When a zero rate was replaced.

    See Also
    --------
    biofair.garbe : A Gini-type dispersion of the same rates.
    biofair.outcome_fairness : Inequity of FMR and FNMR at one threshold.

    References
    ----------
    P. Grother, "Face Recognition Vendor Test (FRVT) Part 8: Summarizing Demographic
    Differentials", NISTIR 8429 (draft), 2022; the CEI paper, eq. 1-2.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.inequity([0.02, 0.02])
    1.0
    >>> round(bf.inequity([0.01, 0.04]), 6)
    2.0
    """
    values = _per_group(rates)
    if isinstance(rates, pd.Series) and isinstance(counts, pd.Series) and not rates.index.equals(counts.index):
        raise ValueError("rates and counts are Series with different indexes; they pair by position, so align "
                         "them first: counts.reindex(rates.index)")
    n = None if counts is None else _comparisons_per_group(counts, values.size)
    check_choice(zero, "zero", ("upper_bound", "raise"))  # another value acted as "upper_bound"
    replaced = values == 0.0
    if replaced.any():
        positions = np.flatnonzero(replaced).tolist()
        where = f"at position{'s' if len(positions) > 1 else ''} {', '.join(map(str, positions))}"
        which = f"{how_many(len(positions), 'rate', verbs=('is', 'are'))} zero ({where})"
        _zero_rates(zero, which)
        if counts is None:
            raise ValueError(f"inequity is undefined: {which}; give counts (comparisons per group) to replace "
                             "each by its 95% upper bound")
        warn(f"zero rates replaced by their 95% upper bound 1 - 0.05^(1/n): {how_many(len(positions), 'rate')} "
             f"{where}", UndefinedRateWarning)
    return _inequity(values, n)


class OutcomeFairness(NamedTuple):
    """GARBE and Inequity of FMR and FNMR at one threshold.

    Returned by :func:`biofair.outcome_fairness` and :func:`biofair.partitions.outcome_fairness`.

    Attributes
    ----------
    threshold : float
        The threshold every group shares (match iff ``score >= threshold``).
    garbe_fmr : float
        GARBE of the groups' FMRs.
    garbe_fnmr : float
        GARBE of the groups' FNMRs.
    garbe : float
        ``alpha·garbe_fmr + (1 - alpha)·garbe_fnmr``.
    inequity_fmr : float
        Inequity of the groups' FMRs.
    inequity_fnmr : float
        Inequity of the groups' FNMRs.
    rates : pandas.DataFrame
        Per group: ``fmr`` and ``fnmr``, each with its Clopper-Pearson interval
        (``fmr_cp_low`` / ``fmr_cp_high``, ``fnmr_cp_low`` / ``fnmr_cp_high``), the counts behind
        them (``false_matches`` of ``n_nonmated``, ``false_non_matches`` of ``n_mated``),
        ``fmr_resolved`` / ``fnmr_resolved`` (whether the group's comparisons can bound the rate,
        by the rule of three: see :func:`biofair.outcome_fairness`), ``fmr_precise`` /
        ``fnmr_precise`` (likewise by the rule of thirty) and ``fmr_bounded`` / ``fnmr_bounded``
        (zero rates replaced by their upper bound for Inequity).
    fmr_target : float
        The target FMR the threshold was set for; NaN when the threshold was given.
    k : int
        The pooled homogeneous non-mated scores at or above the threshold (the groups'
        ``false_matches`` together).
    resolved : bool or None
        Whether the target allows at least 3 false matches among the N pooled homogeneous
        non-mated scores (``fmr·N >= 3``, the rule of three); None when the threshold was given.
    precise : bool or None
        Whether it allows at least 30 (the rule of thirty); None when the threshold was given.

    See Also
    --------
    biofair.outcome_fairness : The function that returns it.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=5_000, n_nonmated=200_000, rng=0)
    >>> result = bf.outcome_fairness(table, threshold=3.5)
    >>> result.rates["group"].tolist()
    ['0', '1', '2']
    """

    threshold: float
    garbe_fmr: float
    garbe_fnmr: float
    garbe: float  # alpha·GARBE_FMR + (1 - alpha)·GARBE_FNMR
    inequity_fmr: float
    inequity_fnmr: float
    rates: pd.DataFrame  # per group: fmr, fnmr, their intervals and counts, resolution, which zero rates were bounded
    fmr_target: float  # NaN when the threshold was given
    k: int  # pooled homogeneous non-mated scores at or above the threshold
    resolved: bool | None  # fmr_target·N >= 3; None without a target
    precise: bool | None  # fmr_target·N >= 30; None without a target


def outcome_fairness(
    scores: pd.DataFrame | ScoresByGroup,
    *,
    threshold: float | None = None,
    fmr: float | None = None,
    by: By = "group",
    alpha: float = 0.5,
    correction: bool = True,
    zero: ZeroRate = "upper_bound",
    confidence: float = 0.95,
) -> OutcomeFairness:
    """GARBE_FMR/FNMR and IN_FMR/FNMR of a score table at one threshold.

    Read more in the chapter "Find bias in the tails".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        Score table with a group column.
        A :func:`biofair.scores_by_group` of it lets several indices share one grouping.
    threshold : float, optional
        The decision threshold (match iff ``score >= threshold``) ...
    fmr : float, optional
        ... or a target FMR on the pooled homogeneous non-mated scores of all groups, as
        NIST sets one threshold for everyone. Give exactly one.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    alpha : float, default 0.5
        Weight of GARBE_FMR in the combined GARBE.
    correction : bool, default True
        The K/(K-1) correction of :func:`biofair.garbe`.
    zero : {"upper_bound", "raise"}, default "upper_bound"
        What a zero rate does to Inequity (see :func:`biofair.inequity`).
    confidence : float, default 0.95
        Coverage of each group's Clopper-Pearson interval, in (0, 1).

    Returns
    -------
    OutcomeFairness
        The indices; a per-group ``rates`` table with the counts behind each rate and its
        Clopper-Pearson interval (``fmr_cp_low`` / ``fmr_cp_high``, ``fnmr_cp_low`` /
        ``fnmr_cp_high``), whose ``fmr_resolved`` / ``fnmr_resolved`` columns say whether the
        group's comparisons can bound each rate (rule of three; see Notes), ``fmr_precise`` /
        ``fnmr_precise`` whether they bound it closely (rule of thirty) and ``fmr_bounded`` /
        ``fnmr_bounded`` flag the zero rates replaced for Inequity;
        and, with ``fmr``, the target's ``k`` (pooled false matches at the threshold),
        ``resolved`` (``fmr·N >= 3``) and ``precise`` (``fmr·N >= 30``).

    Raises
    ------
    SchemaError
        When ``scores`` is an invalid score table (see :func:`biofair.validate_scores`), lacks
        a group column of ``by`` or has rows without a group label, its group labels cannot be
        named one way (see :func:`biofair.group_labels`), or it has fewer than two groups.
    TypeError
        When ``scores`` is neither a DataFrame nor a ``ScoresByGroup``, ``by`` is not a column
        name or a list of column names, ``threshold``, ``alpha`` or ``confidence`` is not a
        number, ``correction`` is not True or False, or ``fmr`` is not one rate (a sequence is
        refused: :func:`biofair.fairness_discrepancy_rate` takes several targets).
    ValueError
        When both or neither of ``threshold`` and ``fmr`` are given, ``threshold`` is NaN or not
        a float64 number (an integer beyond ``2**53``, a fraction with more digits), ``fmr`` or
        ``alpha`` lies outside [0, 1], ``confidence`` outside (0, 1), ``zero`` is neither
        "upper_bound" nor "raise", a rate is zero with ``zero="raise"``, ``by`` is empty, names a
        column twice or names "score" or "mated", or ``scores`` is a ``ScoresByGroup`` formed
        with another ``by``.

    Warns
    -----
    InsufficientComparisonsWarning
        When ``fmr`` is below 3/N of the pooled homogeneous non-mated scores.
    UndefinedRateWarning
        When a zero rate was replaced for Inequity, naming the groups.

    See Also
    --------
    biofair.garbe : GARBE of any rates.
    biofair.inequity : Inequity of any rates.
    biofair.fairness_discrepancy_rate : The largest gaps at several thresholds.
    biofair.partitions.outcome_fairness : The same indices over a partitioned score set.

    Notes
    -----
    Resolution of each group's rate, as in :func:`biofair.differential_report`: the rate in
    question is the larger of the rate asked about and the group's observed rate ``k/n``; it
    is resolved when it allows at least 3 errors among the group's ``n`` comparisons (the rule
    of three), that is when the group has ``k >= 3`` errors or ``asked·n >= 3``. The rate
    asked about is the target ``fmr``, or with ``threshold`` the pooled FMR at it; for FNMR it
    is the pooled FNMR. Below both, a count of 0, 1 or 2 cannot bound the group's rate, yet
    GARBE and Inequity read it as they read the others. *Precise* likewise with 30 errors
    (the rule of thirty): a resolved rate that is not precise is bounded, but loosely.

    Each group's interval is Clopper-Pearson's, from the beta quantiles
    ``[B(a/2; k, n-k+1), B(1-a/2; k+1, n-k)]`` (0 at ``k = 0``, 1 at ``k = n``,
    ``a = 1 - confidence``), as :func:`biofair.differential_report` gives it. It takes the
    group's comparisons as independent: when a subject has several, it is too narrow (the
    differential report adds a subject-clustered bootstrap interval).

    References
    ----------
    P. Grother, NISTIR 8429 (draft), 2022 (Inequity), after NISTIR 8280, 2019 (one threshold
    for everyone). J. J. Howard et al., ICPR 2022 workshops (GARBE). The CEI paper, eq. 1-4.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=5_000, n_nonmated=200_000, rng=0)
    >>> result = bf.outcome_fairness(table, threshold=3.5)  # group 0 collects the false matches
    >>> bool(result.garbe_fmr > 0.3 and result.inequity_fmr > 1)
    True
    >>> at_target = bf.outcome_fairness(table, fmr=1e-3)
    >>> at_target.k, at_target.resolved, at_target.precise
    (600, True, True)
    >>> at_target.rates[["group", "false_matches", "n_nonmated"]]
      group  false_matches  n_nonmated
    0     0            494      200000
    1     1             87      200000
    2     2             19      200000
    """
    if (threshold is None) == (fmr is None):
        raise ValueError("give exactly one of threshold= and fmr=")
    if threshold is not None:
        threshold = as_threshold(threshold)
    else:
        fmr = float(as_target(fmr)[0])
    alpha, confidence = _check_outcome_options(alpha, correction, zero, confidence)
    groups = scores_by_group(scores, by=by)
    if fmr is not None:
        threshold = float(_pooled_threshold(groups, fmr))
    rates = _group_rates(groups, threshold)
    return _outcome_from_rates(list(groups), float(threshold), rates, fmr_target=fmr, alpha=alpha,
                               correction=correction, zero=zero, confidence=confidence)


def _check_outcome_options(alpha: float, correction: bool, zero: str, confidence: float) -> tuple[float, float]:
    """Check the options of :func:`outcome_fairness` (in memory and out of core) before any
    grouping: ``alpha`` in [0, 1], ``correction`` a bool, ``zero`` a known choice and
    ``confidence`` in (0, 1); return ``alpha`` and ``confidence`` as floats."""
    alpha = check_alpha(alpha)
    check_flag(correction, "correction")
    check_choice(zero, "zero", ("upper_bound", "raise"))
    return alpha, as_number(confidence, "confidence", low=0.0, high=1.0, open_low=True, open_high=True)


def _outcome_from_rates(
    names: list[str], threshold: float, rates: GroupRates, *, fmr_target: float | None, alpha: float,
    correction: bool, zero: str, confidence: float,
) -> OutcomeFairness:
    """GARBE and Inequity from the rates of every group at one threshold (a column of ``rates``),
    with the resolution of ``fmr_target`` (None: the threshold was given) on the pooled scores, and
    each group's rates with their Clopper-Pearson intervals at ``confidence`` and resolution."""
    fmr_rates, fnmr_rates = rates.fmr[:, 0], rates.fnmr[:, 0]
    false_matches, false_non_matches = rates.false_matches[:, 0], rates.false_non_matches[:, 0]
    n_nonmated, n_mated = rates.n_nonmated[:, 0], rates.n_mated[:, 0]
    fmr_bounded, fnmr_bounded = fmr_rates == 0.0, fnmr_rates == 0.0
    if fmr_bounded.any() or fnmr_bounded.any():
        which = ", ".join(f"{rate} of groups {[n for n, b in zip(names, bounded) if b]}"
                          for rate, bounded in (("FMR", fmr_bounded), ("FNMR", fnmr_bounded)) if bounded.any())
        count = int(fmr_bounded.sum() + fnmr_bounded.sum())
        _zero_rates(zero, f"{how_many(count, 'group rate', verbs=('is', 'are'))} zero ({which})")
        warn(f"zero rates replaced by their 95% upper bound: {which}", UndefinedRateWarning)
    in_fmr = _inequity(fmr_rates, n_nonmated)
    in_fnmr = _inequity(fnmr_rates, n_mated)
    if fmr_target is None:
        resolved = precise = None
    else:
        resolved, precise = (bool(flag[0]) for flag in resolution([fmr_target], int(n_nonmated.sum())))
    garbe_fmr = garbe(fmr_rates, correction=correction)
    garbe_fnmr = garbe(fnmr_rates, correction=correction)
    asked_fmr = false_matches.sum() / n_nonmated.sum() if fmr_target is None else fmr_target
    fmr_resolved, fmr_precise = rate_resolution(np.full(len(names), asked_fmr), false_matches, n_nonmated)
    fnmr_resolved, fnmr_precise = rate_resolution(np.full(len(names), false_non_matches.sum() / n_mated.sum()),
                                                  false_non_matches, n_mated)
    fmr_low, fmr_high, _, _ = binomial_intervals(false_matches, n_nonmated, confidence)
    fnmr_low, fnmr_high, _, _ = binomial_intervals(false_non_matches, n_mated, confidence)
    table = pd.DataFrame(
        {
            "group": names,
            "fmr": fmr_rates,
            "fmr_cp_low": fmr_low,
            "fmr_cp_high": fmr_high,
            "fnmr": fnmr_rates,
            "fnmr_cp_low": fnmr_low,
            "fnmr_cp_high": fnmr_high,
            "false_matches": false_matches,
            "n_nonmated": n_nonmated,
            "false_non_matches": false_non_matches,
            "n_mated": n_mated,
            "fmr_resolved": fmr_resolved,
            "fnmr_resolved": fnmr_resolved,
            "fmr_precise": fmr_precise,
            "fnmr_precise": fnmr_precise,
            "fmr_bounded": fmr_bounded,
            "fnmr_bounded": fnmr_bounded,
        }
    )
    return OutcomeFairness(
        threshold=threshold,
        garbe_fmr=garbe_fmr,
        garbe_fnmr=garbe_fnmr,
        garbe=alpha * garbe_fmr + (1 - alpha) * garbe_fnmr,
        inequity_fmr=in_fmr,
        inequity_fnmr=in_fnmr,
        rates=table,
        fmr_target=np.nan if fmr_target is None else fmr_target,
        k=int(false_matches.sum()),
        resolved=resolved,
        precise=precise,
    )
