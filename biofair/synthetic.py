"""Seeded synthetic score tables for teaching and testing.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import optimize, stats

from biofair._resampling import interval
from biofair._validation import (
    SMALLEST_BOUND,
    as_count,
    as_number,
    as_rng,
    as_targets,
    check_alpha,
    check_choice,
    check_flag,
    check_resamples,
    how_many,
    is_blank,
    quoted,
)
from biofair._warnings import warn
from biofair.exceptions import InsufficientComparisonsWarning
from biofair._binomial import binomial_intervals
from biofair.differentials import _clustered_replicates
from biofair.discrepancy import _discrepancy, _max_gap

#: The most float64 values one NumPy array can hold: its size in bytes must fit np.intp
#: (beyond it NumPy raises "array is too big" or "Maximum allowed dimension exceeded").
_MOST_FLOATS = np.iinfo(np.intp).max // np.dtype(np.float64).itemsize
#: The largest count NumPy's binomial draws take (an int64).
_MOST_COUNT = np.iinfo(np.int64).max


def _assigned(values: Mapping[str, object]) -> str:
    """``name=value`` of each parameter a message names: ``"n_mated=10, n_nonmated=3"``."""
    return ", ".join(f"{name}={quoted(value)}" for name, value in values.items())


def _check_size(count: int, noun: str, given: str, *, most: int = _MOST_FLOATS,
                holder: str = "one NumPy array can hold", unit: str = "float64 value") -> None:
    """Raise a ValueError naming the parameters ``given`` when they would draw ``count``
    values (of ``noun``), more than ``most``, which NumPy refuses with a message naming none."""
    if count > most:
        raise ValueError(f"{given} would draw {how_many(count, noun)}, more than {holder}: at most "
                         f"{how_many(most, unit)}")


def _check_finite(scores: NDArray, noun: str, given: str) -> None:
    """Raise a ValueError naming the parameters ``given`` when a drawn score is not finite:
    every score of a generator's table must be, as :func:`biofair.validate_scores` demands."""
    infinite = ~np.isfinite(scores)
    if infinite.any():
        raise ValueError(
            f"the {noun} would overflow float64 (beyond ±{np.finfo(np.float64).max:.3g}): {given} drew "
            f"{how_many(int(infinite.sum()), 'infinite score')} among {how_many(scores.size, 'draw')}; "
            "give these parameters on a smaller scale"
        )


def gaussian_scores(
    *,
    n_mated: int = 1_000,
    n_nonmated: int = 10_000,
    mated_mean: float = 2.0,
    mated_std: float = 1.0,
    nonmated_std: float = 1.0,
    tail_share: float = 0.0,
    tail_mean: float = 3.0,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Draw a score table with normal mated and non-mated scores.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    n_mated : int, default 1000
        Mated comparisons (at least 1).
    n_nonmated : int, default 10000
        Non-mated comparisons (at least 1).
    mated_mean : float, default 2
        Mean of the mated scores.
    mated_std : float, default 1
        Mated scores follow N(mated_mean, mated_std²).
    nonmated_std : float, default 1
        Non-mated scores follow N(0, nonmated_std²) ...
    tail_share : float, default 0
        ... except a share ``tail_share`` of them, drawn from N(tail_mean, nonmated_std²):
        a heavy right tail of look-alike impostors, which barely moves the ROC area but
        ruins low-FMR operation.
    tail_mean : float, default 3
        Mean of the look-alike impostors.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``score`` and ``mated``: mated rows first.

    Raises
    ------
    ValueError
        When ``n_mated`` or ``n_nonmated`` is below 1, their sum is more than one NumPy array
        can hold (``2**63 - 1`` bytes of float64 scores), ``tail_share`` lies outside [0, 1],
        a mean or a standard deviation is NaN or infinite, a standard deviation is negative,
        a drawn score overflows float64 (a mean or a standard deviation near ±1.8e308: the
        message names them), or ``rng`` is a negative seed.
    TypeError
        When a mean, a standard deviation or ``tail_share`` is not a number, ``n_mated`` or
        ``n_nonmated`` is not an integer, or ``rng`` is neither a Generator, an integer seed
        nor None.

    See Also
    --------
    biofair.synthetic.fdr_canonical_system : Three groups of normal scores.
    biofair.synthetic.beta_scenario : Beta scores with a biased group.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification (a
    heavy impostor tail that ROC-AUC hides).

    Examples
    --------
    >>> from biofair.synthetic import gaussian_scores
    >>> table = gaussian_scores(n_mated=3, n_nonmated=5, rng=0)
    >>> table["mated"].tolist()
    [True, True, True, False, False, False, False, False]
    """
    n_mated, n_nonmated = as_count(n_mated, "n_mated"), as_count(n_nonmated, "n_nonmated")
    # as floats: a Fraction or long double tail_mean failed inside NumPy's normal draw
    tail_share = as_number(tail_share, "tail_share", low=0.0, high=1.0)
    mated_mean, tail_mean = as_number(mated_mean, "mated_mean"), as_number(tail_mean, "tail_mean")  # NaN: NaN scores
    mated_std = as_number(mated_std, "mated_std", low=0.0)
    nonmated_std = as_number(nonmated_std, "nonmated_std", low=0.0)
    _check_size(n_mated + n_nonmated, "score", _assigned({"n_mated": n_mated, "n_nonmated": n_nonmated}))
    rng = as_rng(rng)
    mated = rng.normal(mated_mean, mated_std, n_mated)
    _check_finite(mated, "mated scores", _assigned({"mated_mean": mated_mean, "mated_std": mated_std}))
    in_tail = rng.random(n_nonmated) < tail_share
    nonmated = rng.normal(np.where(in_tail, tail_mean, 0.0), nonmated_std)
    given = {"nonmated_std": nonmated_std} | ({"tail_mean": tail_mean} if in_tail.any() else {})
    _check_finite(nonmated, "non-mated scores", _assigned(given))
    return pd.DataFrame(
        {
            "score": np.concatenate([mated, nonmated]),
            "mated": np.repeat([True, False], [n_mated, n_nonmated]),
        }
    )


def _group_table(name: str, mated: np.ndarray, nonmated: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "score": np.concatenate([mated, nonmated]),
            "mated": np.repeat([True, False], [mated.size, nonmated.size]),
            "group": name,
        }
    )


#: Per group (mated mean, mated std, non-mated mean), non-mated std 1 (see fdr_canonical_system).
FDR_CANONICAL = {
    True: {"0": (4.78, 0.61, 0.0), "1": (4.78, 0.61, 0.0), "2": (4.78, 0.61, 0.0)},
    False: {"0": (5.2, 0.61, 0.5), "1": (4.7, 0.61, 0.0), "2": (4.3, 0.61, -0.5)},
}


def fdr_canonical_system(
    *,
    fair: bool = True,
    n_mated: int = 20_000,
    n_nonmated: int = 400_000,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Draw the canonical fair or unfair three-group system of the FDR paper (its Figs. 2-3).

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    fair : bool, default True
        Fair: every group has mated scores N(4.78, 0.61²) and non-mated N(0, 1), chosen to
        resemble the paper's Table I. Unfair: group "0" has mated N(5.2, 0.61²) and
        non-mated N(0.5, 1), group "1" N(4.7, 0.61²) and N(0, 1), group "2" N(4.3, 0.61²)
        and N(-0.5, 1): one group collects the false matches, another the false
        non-matches, as in the paper's Table II (the paper does not give its parameters).
        The model's exact rates are :func:`fdr_canonical_rates`; the chapter sets them
        beside the paper's tables.
    n_mated : int, default 20000
        Mated comparisons per group.
    n_nonmated : int, default 400000
        Non-mated comparisons per group. FMR = 1e-6 needs about 1e6 pooled non-mated scores
        to be observed at all, and 3e6 to be resolved.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``score``, ``mated`` and ``group`` ("0", "1", "2").

    Raises
    ------
    ValueError
        When ``n_mated`` or ``n_nonmated`` is negative (0 gives groups without that class,
        which the fairness indices refuse), the three groups' scores are more than one NumPy
        array can hold (``2**63 - 1`` bytes of float64), or ``rng`` is a negative seed.
    TypeError
        When ``fair`` is not a bool, ``n_mated`` or ``n_nonmated`` is not an integer, or
        ``rng`` is neither a Generator, an integer seed nor None.

    See Also
    --------
    biofair.fairness_discrepancy_rate : The index the paper built the system for.
    biofair.synthetic.fdr_canonical_rates : The exact rates of the same model.
    biofair.synthetic.fdr_cross_group_system : The same groups with cross-group impostors.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, Figs. 2-3 and Tables I-II.

    Examples
    --------
    >>> from biofair.synthetic import fdr_canonical_system
    >>> table = fdr_canonical_system(fair=False, n_mated=10, n_nonmated=100, rng=0)
    >>> table.groupby("group").size().tolist()
    [110, 110, 110]
    """
    n_mated, n_nonmated = as_count(n_mated, "n_mated", minimum=0), as_count(n_nonmated, "n_nonmated", minimum=0)
    _check_size(len(FDR_CANONICAL[True]) * (n_mated + n_nonmated), "score",
                _assigned({"n_mated": n_mated, "n_nonmated": n_nonmated}))
    rng = as_rng(rng)
    return pd.concat(
        [
            _group_table(
                name,
                rng.normal(mated_mean, mated_std, n_mated),
                rng.normal(nonmated_mean, 1.0, n_nonmated),
            )
            for name, (mated_mean, mated_std, nonmated_mean) in FDR_CANONICAL[check_flag(fair, "fair")].items()
        ],
        ignore_index=True,
    )


def _pooled_normal_threshold(means: NDArray, target: float) -> float:
    """t with mean_g P(N(mu_g, 1) >= t) = target: the pooled threshold of equal-size groups."""
    per_group = means + stats.norm.isf(target)
    low, high = per_group.min(), per_group.max()
    if low == high:
        return float(low)
    # mean_g sf(t - mu_g) decreases in t, is >= target at min_g t_g and <= target at max_g t_g
    gap = lambda t: np.log(np.mean(np.exp(stats.norm.logsf(t - means)))) - np.log(target)  # noqa: E731
    return float(optimize.brentq(gap, low, high, xtol=1e-13, rtol=1e-15))


def fdr_canonical_rates(
    *,
    fair: bool = True,
    fmr_targets: Sequence[float] = (1e-3, 1e-4, 1e-5, 1e-6),
    alpha: float = 0.5,
) -> pd.DataFrame:
    """The exact rates and FDR of the canonical systems, from their normal distributions.

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    fair : bool, default True
        The fair or the unfair system of :func:`fdr_canonical_system`.
    fmr_targets : sequence of float, default (1e-3, 1e-4, 1e-5, 1e-6)
        Targets of the pooled FMR, in (0, 1); each gives one threshold.
    alpha : float, default 0.5
        Weight of the FMR differential in FDR.

    Returns
    -------
    pandas.DataFrame
        One row per target and group: ``fmr_target``, ``threshold`` (the model's threshold
        for that target), ``group``, ``fmr``, ``fnmr`` and ``fdr`` (the system's FDR at that
        threshold, the same on every row of the target).

    Raises
    ------
    ValueError
        When ``alpha`` lies outside [0, 1], or ``fmr_targets`` is empty or holds a target
        outside (0, 1) (NaN included) or below ``2**-1022`` (the smallest normal float: the
        model's rates at a smaller target underflow float64, and are refused rather than
        given as 0).
    TypeError
        When ``fair`` is not a bool, ``alpha`` is not a number, or ``fmr_targets`` is not a
        sequence of numbers (one number is refused).

    See Also
    --------
    biofair.synthetic.fdr_canonical_system : Samples of the same model.
    biofair.fairness_discrepancy_rate : The same table from samples.

    Notes
    -----
    With group g's non-mated scores N(mu_g, 1) and mated scores N(m_g, s_g²), and groups of
    equal size, the threshold t for a target x solves ``mean_g P(N(mu_g, 1) >= t) = x``
    (the pooled FMR; Brent's method between the groups' own thresholds ``mu_g + Φ⁻¹(1 - x)``).
    Then ``FMR_g = 1 - Φ(t - mu_g)``, ``FNMR_g = Φ((t - m_g) / s_g)`` and
    ``FDR = 1 - (alpha·A + (1 - alpha)·B)`` with A and B the largest gaps between groups.
    No sample is drawn: these rates are what an infinitely large test would measure. A
    group's FMR far below the target (the unfair system's groups at a target near
    ``2**-1022``) can underflow float64 to 0.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, Tables I-II.

    Examples
    --------
    >>> from biofair.synthetic import fdr_canonical_rates
    >>> rates = fdr_canonical_rates(fair=True, fmr_targets=[1e-3])
    >>> rates[["group", "fmr", "fdr"]].round(4)
      group    fmr  fdr
    0     0  0.001  1.0
    1     1  0.001  1.0
    2     2  0.001  1.0
    >>> round(float(rates["fnmr"].iloc[0]), 4)
    0.0028
    """
    alpha = check_alpha(alpha)
    targets = as_targets(fmr_targets, "fmr_targets")
    if np.any((targets <= 0) | (targets >= 1)):
        raise ValueError(f"fmr_targets must lie strictly between 0 and 1, got {fmr_targets!r}")
    if np.any(tiny := targets < SMALLEST_BOUND):  # norm.sf and norm.isf underflow: every FMR came out 0
        raise ValueError(
            f"fmr_targets must be at least 2**-1022 = {SMALLEST_BOUND!r}, the smallest normal float: "
            f"{how_many(int(tiny.sum()), 'target', verbs=('is', 'are'))} below it "
            f"({', '.join(quoted(float(x)) for x in targets[tiny])}), where the model's rates underflow float64"
        )
    params = FDR_CANONICAL[check_flag(fair, "fair")]
    names = list(params)
    mated_mean, mated_std, nonmated_mean = (np.array(column, dtype=float) for column in zip(*params.values()))
    thresholds = np.array([_pooled_normal_threshold(nonmated_mean, float(x)) for x in targets])
    fmr = stats.norm.sf(thresholds[None, :] - nonmated_mean[:, None])  # groups x targets
    fnmr = stats.norm.cdf((thresholds[None, :] - mated_mean[:, None]) / mated_std[:, None])
    fdr = _discrepancy(_max_gap(fmr), _max_gap(fnmr), alpha)
    return pd.DataFrame({
        "fmr_target": np.repeat(targets, len(names)),
        "threshold": np.repeat(thresholds, len(names)),
        "group": np.tile(names, targets.size),
        "fmr": fmr.T.ravel(),
        "fnmr": fnmr.T.ravel(),
        "fdr": np.repeat(fdr, len(names)),
    })


def fdr_cross_group_system(
    *,
    fair: bool = False,
    n_mated: int = 20_000,
    n_nonmated: int = 100_000,
    cross_shift: float = 1.0,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """The canonical three-group system with non-mated pairs across groups too.

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    fair : bool, default False
        The fair or the unfair system of :func:`fdr_canonical_system`.
    n_mated : int, default 20000
        Mated comparisons per group (always within one group: one person).
    n_nonmated : int, default 100000
        Non-mated comparisons per (reference group, probe group) cell: 9 cells.
    cross_shift : float, default 1
        How much lower, on average, an impostor scores against a reference of another
        group than the two groups' homogeneous impostors do (>= 0; 0: no effect).
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``score``, ``mated``, ``reference_group`` and ``probe_group`` ("0", "1",
        "2"); the pairs within one group follow :func:`fdr_canonical_system`.

    Raises
    ------
    ValueError
        When ``n_mated`` or ``n_nonmated`` is below 1, the scores of the 3 groups and 9 cells
        are more than one NumPy array can hold (``2**63 - 1`` bytes of float64),
        ``cross_shift`` is negative, NaN or infinite, or ``rng`` is a negative seed.
    TypeError
        When ``fair`` is not a bool, ``n_mated`` or ``n_nonmated`` is not an integer,
        ``cross_shift`` is not a number, or ``rng`` is neither a Generator, an integer seed
        nor None.

    See Also
    --------
    biofair.cross_group_fmr : The reference group x probe group FMR table.
    biofair.plotting.plot_cross_group_fmr : That table as a heatmap.

    Notes
    -----
    Non-mated scores of reference group r and probe group p: N(mu_r, 1) when r = p, else
    N((mu_r + mu_p) / 2 - cross_shift, 1), with mu_g the group's non-mated mean in
    :data:`FDR_CANONICAL`. Comparisons of people who differ in a demographic attribute look
    less alike, which is what NIST's FRVT and, for most cells, the FDR paper's Tables IV, VI
    and VII report (its Table VI has Asian-Hispanic pairs above the Hispanic ones at 1e-2).

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, Tables IV, VI and VII (e-p tables).

    Examples
    --------
    >>> from biofair.synthetic import fdr_cross_group_system
    >>> table = fdr_cross_group_system(n_mated=2, n_nonmated=3, rng=0)
    >>> table.groupby(["reference_group", "probe_group"]).size().tolist()
    [5, 3, 3, 3, 5, 3, 3, 3, 5]
    """
    n_mated, n_nonmated = as_count(n_mated, "n_mated"), as_count(n_nonmated, "n_nonmated")
    cross_shift = as_number(cross_shift, "cross_shift", low=0.0)  # inf drew -inf scores
    n_groups = len(FDR_CANONICAL[True])
    _check_size(n_groups * n_mated + n_groups**2 * n_nonmated, "score",
                _assigned({"n_mated": n_mated, "n_nonmated": n_nonmated}))
    rng = as_rng(rng)
    params = FDR_CANONICAL[check_flag(fair, "fair")]
    parts = []
    for reference, (mated_mean, mated_std, reference_mean) in params.items():
        parts.append(pd.DataFrame({"score": rng.normal(mated_mean, mated_std, n_mated), "mated": True,
                                   "reference_group": reference, "probe_group": reference}))
        for probe, (_, _, probe_mean) in params.items():
            mean = reference_mean if probe == reference else (reference_mean + probe_mean) / 2 - cross_shift
            parts.append(pd.DataFrame({"score": rng.normal(mean, 1.0, n_nonmated), "mated": False,
                                       "reference_group": reference, "probe_group": probe}))
    return pd.concat(parts, ignore_index=True)


#: Beta parameters (a, b) of the balanced system of beta_scenario.
BETA_MATED, BETA_NONMATED = (14.0, 3.0), (3.0, 14.0)
#: The look-alike components mixed into the biased group's tail under BG and BI.
BETA_BG_TAIL, BETA_BI_TAIL = (6.0, 4.0), (4.0, 6.0)
#: BC: at strength 1 the non-mated centre moves up by this much; the move tapers linearly
#: to nothing between the non-mated median and BETA_BC_KEPT.
BETA_BC_SHIFT = 0.2
#: BC: the non-mated quantile from which the biased group's scores are left as they are.
BETA_BC_KEPT = 0.995


def _shift_centre(scores: NDArray, shift: float) -> NDArray:
    """Move non-mated scores up by ``shift`` below the median of Beta(3, 14), by nothing above
    its ``BETA_BC_KEPT`` quantile, and by a linearly tapering amount in between (monotone
    while ``shift`` is smaller than the distance between the two quantiles)."""
    start, stop = stats.beta.ppf([0.5, BETA_BC_KEPT], *BETA_NONMATED)
    return scores + shift * np.clip((stop - scores) / (stop - start), 0.0, 1.0)


def beta_scenario(
    scenario: str = "balanced",
    *,
    strength: float = 1.0,
    n_groups: int = 4,
    n_mated: int = 200_000,
    n_nonmated: int = 200_000,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Draw the Beta-distributed scores of the CEI paper's controlled scenarios (its Fig. 1).

    Read more in the chapter "Find bias in the tails".

    Parameters
    ----------
    scenario : {"balanced", "BG", "BI", "BC"}, default "balanced"
        Every group draws mated scores from Beta(14, 3) and non-mated from Beta(3, 14),
        except the last group ("D" with four groups), which is biased:
        ``"BG"``: a share ``0.08·strength`` of its mated scores comes from Beta(6, 4), a
        longer lower tail (more false non-matches);
        ``"BI"``: a share ``0.08·strength`` of its non-mated scores comes from Beta(4, 6), a
        longer upper tail (more false matches);
        ``"BC"``: the centre of its non-mated scores moves up by ``0.2·strength`` while
        their upper tail is kept: a score ``x`` becomes ``x + 0.2·strength·w(x)``, with
        ``w = 1`` below the median of Beta(3, 14), ``w = 0`` above its 99.5th percentile
        (so the false matches at any threshold above it are those of the other groups),
        linear in between; its mated scores are unbiased (the paper says only that BC
        shifts the means of the "genuine-impostor distribution": leaving the mated scores
        alone is the book's reading of its Table 3, where BC keeps their CEI_E near 1);
        ``"balanced"``: no group is biased.
    strength : float, default 1
        Bias strength, >= 0 (0 gives the balanced system); for BC at most 1.4 (the move
        must keep the order of the scores). The share BG and BI draw from the tail component
        is capped at 1 (every score of the class, from strength 12.5 on).
    n_groups : int, default 4
        Groups, labelled "A", "B", ... (2 to 26).
    n_mated : int, default 200000
        Mated comparisons per group. CEIᴬ at N = 3 compares tails of about 1% of these
        scores on 100 bins: the default keeps its finite-sample floor above 0.95.
    n_nonmated : int, default 200000
        Non-mated comparisons per group.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``score``, ``mated`` and ``group``.

    Raises
    ------
    ValueError
        When ``scenario`` is not "balanced", "BG", "BI" or "BC", ``strength`` is negative, NaN
        or infinite (or above 1.4 for "BC"), ``n_groups`` lies outside 2 ... 26, ``n_mated``
        or ``n_nonmated`` is negative, the groups' scores are more than one NumPy array can
        hold (``2**63 - 1`` bytes of float64), or ``rng`` is a negative seed.
    TypeError
        When ``strength`` is not a number, ``n_groups``, ``n_mated`` or ``n_nonmated`` is not
        an integer, or ``rng`` is neither a Generator, an integer seed nor None.

    See Also
    --------
    biofair.comprehensive_equity_index : The index the scenarios were built for.
    biofair.distribution_fairness_index : Misses the tail scenarios.

    References
    ----------
    "Balancing Tails when Comparing Distributions: Comprehensive Equity Index (CEI) with
    Application to Bias Evaluation in Operational Face Biometrics", Fig. 1 and Table 3.

    Examples
    --------
    >>> from biofair.synthetic import beta_scenario
    >>> table = beta_scenario("BI", n_groups=2, n_mated=10, n_nonmated=100, rng=0)
    >>> sorted(table["group"].unique())
    ['A', 'B']
    """
    check_choice(scenario, "scenario", ("balanced", "BG", "BI", "BC"))
    # as a float and an int: a float32 or long double strength shifted BC's scores in its own precision (a
    # long double made a float128 score column), and n_groups as np.uint8 overflowed in the size check
    strength = as_number(strength, "strength", low=0.0)  # NaN passed "strength < 0" and drew NaN shares
    if scenario == "BC" and strength > 1.4:
        raise ValueError(f"BC needs strength at most 1.4 to keep the order of the scores, got {strength!r}")
    if (n_groups := as_count(n_groups, "n_groups", minimum=2)) > 26:
        raise ValueError(f"n_groups must lie in 2 ... 26 (one letter per group), got {n_groups}")
    n_mated, n_nonmated = as_count(n_mated, "n_mated", minimum=0), as_count(n_nonmated, "n_nonmated", minimum=0)
    _check_size(n_groups * (n_mated + n_nonmated), "score",
                _assigned({"n_groups": n_groups, "n_mated": n_mated, "n_nonmated": n_nonmated}))
    rng = as_rng(rng)
    share = min(0.08 * strength, 1.0)
    tables = []
    for index in range(n_groups):
        mated = rng.beta(*BETA_MATED, n_mated)
        nonmated = rng.beta(*BETA_NONMATED, n_nonmated)
        if index == n_groups - 1:
            if scenario == "BG":
                swap = rng.random(n_mated) < share
                mated[swap] = rng.beta(*BETA_BG_TAIL, int(swap.sum()))
            elif scenario == "BI":
                swap = rng.random(n_nonmated) < share
                nonmated[swap] = rng.beta(*BETA_BI_TAIL, int(swap.sum()))
            elif scenario == "BC":
                nonmated = _shift_centre(nonmated, BETA_BC_SHIFT * strength)
        tables.append(_group_table(chr(ord("A") + index), mated, nonmated))
    return pd.concat(tables, ignore_index=True)


#: Per group (noise of a sample around its identity, crowding of the group's identities).
IDENTIFICATION_GROUPS = {
    True: {"0": (0.9, 0.6), "1": (0.9, 0.6), "2": (0.9, 0.6)},
    False: {"0": (0.85, 0.5), "1": (0.9, 0.6), "2": (0.95, 0.8)},
}


class IdentificationData(NamedTuple):
    """Unit-norm embeddings of a gallery (one entry per identity) and of probes.

    Returned by :func:`biofair.synthetic.identification_embeddings`.

    Attributes
    ----------
    gallery : ndarray of shape (G, d)
        One embedding per enrolled identity.
    gallery_subjects : ndarray of shape (G,)
        The identity of each gallery entry.
    probes : ndarray of shape (P, d)
        One embedding per search.
    probe_subjects : ndarray of shape (P,)
        The identity of each probe (enrolled or not).
    probe_groups : ndarray of shape (P,)
        The group of each probe.

    See Also
    --------
    biofair.probe_outcomes_from_matrix : Reads its ``scores`` block by block.

    Examples
    --------
    >>> from biofair.synthetic import identification_embeddings
    >>> data = identification_embeddings(n_enrolled=5, n_nonenrolled=5, dim=8, rng=0)
    >>> data.scores(0, 2).shape
    (2, 15)
    """

    gallery: NDArray[np.float64]
    gallery_subjects: NDArray[np.int64]
    probes: NDArray[np.float64]
    probe_subjects: NDArray[np.int64]
    probe_groups: NDArray[np.str_]

    def scores(self, start: int, stop: int) -> NDArray[np.float64]:
        """Cosine similarities of probes ``start:stop`` with the whole gallery (a block of rows).

        Parameters
        ----------
        start, stop : int
            The first probe and one past the last, as in ``probes[start:stop]``.

        Returns
        -------
        ndarray
            ``(stop - start) x n_gallery`` similarities, row ``i`` for probe ``start + i``.
        """
        return self.probes[start:stop] @ self.gallery.T

    def long_table(self) -> pd.DataFrame:
        """Every (probe, gallery entry) comparison as one row (for small galleries).

        Returns
        -------
        pandas.DataFrame
            Columns ``probe_id``, ``reference_id`` (the entry's subject), ``score``,
            ``mated`` and ``probe_group``; ``n_probes x n_gallery`` rows, probe by probe.
        """
        n_probes, n_gallery = len(self.probes), len(self.gallery)
        probe = np.repeat(np.arange(n_probes), n_gallery)
        entry = np.tile(np.arange(n_gallery), n_probes)
        return pd.DataFrame({
            "probe_id": probe,
            "reference_id": self.gallery_subjects[entry],
            "score": self.scores(0, n_probes).ravel(),
            "mated": self.probe_subjects[probe] == self.gallery_subjects[entry],
            "probe_group": self.probe_groups[probe],
        })


def _unit(vectors: NDArray) -> NDArray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _sample(identities: NDArray, noise: float, rng: np.random.Generator) -> NDArray:
    """One noisy unit-norm sample of each identity."""
    return _unit(identities + noise * rng.normal(size=identities.shape) / np.sqrt(identities.shape[1]))


def identification_embeddings(
    *,
    fair: bool = True,
    n_enrolled: int = 500,
    n_nonenrolled: int = 500,
    n_searched: int | None = None,
    dim: int = 64,
    rng: np.random.Generator | int | None = None,
) -> IdentificationData:
    """Draw a seeded open-set identification test with three groups of identities.

    Read more in the chapter "Identify fairly".

    Parameters
    ----------
    fair : bool, default True
        Fair: every group's identities are equally spread and its samples equally noisy.
        Unfair: group "2" has noisier samples (its mates rank lower: lower DIR) and more
        crowded identities (its non-enrolled probes resemble enrolled people: higher FPIR);
        group "0" is the opposite.
    n_enrolled, n_nonenrolled : int, default 500
        Per group: identities enrolled in the gallery, and identities searched without
        being enrolled (one probe each).
    n_searched : int, optional
        Per group, how many enrolled identities are searched with one probe (default all).
    dim : int, default 64
        Embedding dimension.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.

    Returns
    -------
    IdentificationData
        Gallery and probe embeddings with identities and probe groups; ``.scores(a, b)``
        gives blocks of the probes x gallery cosine matrix.

    Raises
    ------
    ValueError
        When ``n_enrolled``, ``n_nonenrolled`` or ``n_searched`` is below 1, ``n_searched``
        exceeds ``n_enrolled``, ``dim`` is below 2, the gallery's or the probes' embeddings
        (``3·n_enrolled·dim`` or ``3·(n_searched + n_nonenrolled)·dim`` values) are more than
        one NumPy array can hold (``2**63 - 1`` bytes of float64), or ``rng`` is a negative
        seed.
    TypeError
        When ``fair`` is not a bool, ``n_enrolled``, ``n_nonenrolled``, ``n_searched`` or
        ``dim`` is not an integer, or ``rng`` is neither a Generator, an integer seed nor None.

    See Also
    --------
    biofair.probe_outcomes_from_matrix : Searches every probe against the gallery.
    biofair.identification_discrepancy_rate : FDR' of the outcomes.

    Notes
    -----
    Identity of a person in group ``g``: ``unit(c_g · u_g + z / sqrt(d))`` with ``u_g`` the
    group's direction, ``c_g`` its crowding and ``z`` standard normal; a sample of it:
    ``unit(identity + s_g · z' / sqrt(d))`` with ``s_g`` the group's noise.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, IEEE T-BIOM, 2022 (open-set identification:
    enrolled and non-enrolled probes, DIR and FPIR per group).

    Examples
    --------
    >>> from biofair.synthetic import identification_embeddings
    >>> data = identification_embeddings(fair=False, n_enrolled=20, n_nonenrolled=10, rng=0)
    >>> data.gallery.shape, data.probes.shape
    ((60, 64), (90, 64))
    """
    n_enrolled, n_nonenrolled = as_count(n_enrolled, "n_enrolled"), as_count(n_nonenrolled, "n_nonenrolled")
    n_searched = n_enrolled if n_searched is None else as_count(n_searched, "n_searched")
    dim = as_count(dim, "dim", minimum=2)
    if n_searched > n_enrolled:
        raise ValueError(f"n_searched must be at most n_enrolled ({n_enrolled}), got {n_searched}")
    given = {"n_enrolled": n_enrolled, "n_nonenrolled": n_nonenrolled, "n_searched": n_searched, "dim": dim}
    _check_size(len(IDENTIFICATION_GROUPS[True]) * max(n_enrolled, n_searched + n_nonenrolled) * dim,
                "embedding value", _assigned(given))  # the gallery's or the probes' embeddings
    rng = as_rng(rng)
    per_group = n_enrolled + n_nonenrolled
    gallery, gallery_subjects, probes, probe_subjects, probe_groups = [], [], [], [], []
    for g, (name, (noise, crowding)) in enumerate(IDENTIFICATION_GROUPS[check_flag(fair, "fair")].items()):
        direction = _unit(rng.normal(size=(1, dim)))
        identities = _unit(crowding * direction + rng.normal(size=(per_group, dim)) / np.sqrt(dim))
        subjects = g * per_group + np.arange(per_group)
        searched = np.r_[0:n_searched, n_enrolled:per_group]
        gallery.append(_sample(identities[:n_enrolled], noise, rng))
        gallery_subjects.append(subjects[:n_enrolled])
        probes.append(_sample(identities[searched], noise, rng))
        probe_subjects.append(subjects[searched])
        probe_groups.append(np.full(searched.size, name))
    return IdentificationData(
        np.concatenate(gallery), np.concatenate(gallery_subjects), np.concatenate(probes),
        np.concatenate(probe_subjects), np.concatenate(probe_groups),
    )


#: Per group: (subjects, mated mean, homogeneous non-mated mean) of demographic_scores.
DEMOGRAPHIC_GROUPS = {"a": (120, 4.0, 0.0), "b": (120, 3.5, 0.3), "c": (9, 3.5, 0.3)}


def _check_group_names(names: list) -> None:
    """Raise a ValueError naming the groups of :func:`demographic_scores` that name no group
    (None, NaN, text that is empty or white space only: a table's missing label) or that are
    written alike as text (``1`` and ``"1"``: their subject ids, ``"1-000"``, would collide)."""
    nameless = [name for name in names if (pd.api.types.is_scalar(name) and pd.isna(name)) or is_blank(name)]
    if nameless:
        raise ValueError(
            f"groups must name every group: {how_many(len(nameless), 'name', verbs=('is', 'are'))} missing or "
            f"blank (empty or white space only): {', '.join(quoted(name) for name in nameless)}"
        )
    written: dict[str, list] = {}
    for name in names:
        written.setdefault(str(name), []).append(name)
    alike = next((same for same in written.values() if len(same) > 1), None)
    if alike is not None:
        raise ValueError(
            f"groups has {how_many(len(alike), 'name')} written alike as text ({quoted(str(alike[0]))}): "
            f"{', '.join(quoted(name) for name in alike)}; their subjects' ids ({quoted(f'{alike[0]}-000')}, ...) "
            "would collide: rename the groups"
        )


def demographic_scores(
    *,
    groups: dict[str, tuple[int, float, float]] | None = None,
    mated_per_subject: int = 5,
    nonmated_per_subject: int = 40,
    cross_share: float = 0.5,
    cross_shift: float = -0.5,
    subject_sd: float = 0.5,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Draw a score table with subjects, per-side groups and subject-level correlation.

    Read more in the chapter "Audit demographic differentials".

    Parameters
    ----------
    groups : dict, optional
        Per group name: ``(subjects, mated mean, non-mated mean)``; by default
        :data:`DEMOGRAPHIC_GROUPS` (two groups of 120 subjects, one of 9: too small to
        resolve a low FMR).
    mated_per_subject : int, default 5
        Mated comparisons of each reference subject.
    nonmated_per_subject : int, default 40
        Non-mated comparisons of each reference subject ...
    cross_share : float, default 0.5
        ... of which this share has a probe of another group (the rest, of its own group).
    cross_shift : float, default -0.5
        Cross-group non-mated scores have the mean of the two groups' means plus this.
    subject_sd : float, default 0.5
        Every score has variance 1: ``mean + subject_sd·a_s + sqrt(1 - subject_sd²)·e`` with
        one normal effect ``a_s`` per reference subject and class, so the comparisons of one
        subject are correlated (intraclass correlation ``subject_sd²``).
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``score``, ``mated``, ``reference_subject``, ``probe_subject``,
        ``reference_group`` and ``probe_group``. The true rates are normal tails: at
        threshold t, FNMR of group g is ``Phi(t - mated mean)`` and FMR ``1 - Phi(t -
        non-mated mean)``.

    Raises
    ------
    ValueError
        When ``subject_sd`` lies outside [0, 1) or ``cross_share`` outside [0, 1] (NaN
        included), ``cross_shift`` or a group's mean is NaN or infinite, ``groups`` has fewer
        than two groups or a group of fewer than two subjects, a group's name is None, NaN or
        text that is empty or white space only (a table's missing label), two names are
        written alike as text (``1`` and ``"1"``: their subject ids would collide),
        ``mated_per_subject`` or ``nonmated_per_subject`` is below 1, the scores are more than
        one NumPy array can hold (``2**63 - 1`` bytes of float64), a drawn score overflows
        float64 (a mean near ±1.8e308: the message names its groups and ``cross_shift``), or
        ``rng`` is a negative seed.
    TypeError
        When ``groups`` is not a mapping of 3-tuples, a count is not an integer, a mean,
        ``subject_sd``, ``cross_share`` or ``cross_shift`` is not a number, or ``rng`` is
        neither a Generator, an integer seed nor None.

    See Also
    --------
    biofair.differential_report : The report this table is made to exercise.
    biofair.synthetic.interval_coverage : Coverage of rate intervals under this correlation.

    References
    ----------
    ISO/IEC 19795-10:2024 (per-side demographic attributes; cross-group comparisons).

    Examples
    --------
    >>> from biofair.synthetic import demographic_scores
    >>> table = demographic_scores(rng=0)
    >>> table.groupby("reference_group")["mated"].sum().tolist()
    [600, 600, 45]
    """
    groups = DEMOGRAPHIC_GROUPS if groups is None else groups
    subject_sd = as_number(subject_sd, "subject_sd", low=0.0, high=1.0, open_high=True)
    cross_share = as_number(cross_share, "cross_share", low=0.0, high=1.0)
    cross_shift = as_number(cross_shift, "cross_shift")  # NaN drew NaN cross-group scores
    mated_per_subject = as_count(mated_per_subject, "mated_per_subject")  # 2.5 drew 2 per subject
    nonmated_per_subject = as_count(nonmated_per_subject, "nonmated_per_subject")
    if not isinstance(groups, Mapping):
        raise TypeError(f"groups must map each group name to (subjects, mated mean, non-mated mean), got {groups!r}")
    if len(groups) < 2:
        raise ValueError(f"groups must hold at least two groups, got {list(groups)}")
    _check_group_names(list(groups))
    for name, spec in groups.items():
        if isinstance(spec, str) or not isinstance(spec, Sequence) or len(spec) != 3:
            raise TypeError(f"groups[{name!r}] must be (subjects, mated mean, non-mated mean), got {spec!r}")
    # the specs as an int and two floats (messages quote them as given): a Fraction mean failed inside NumPy, a
    # long double one made a float128 score column, and subjects as np.uint8 overflowed in their cumulative sum
    checked = {name: (as_count(spec[0], f"the subjects of group {name!r}", minimum=2),
                      as_number(spec[1], f"the mated mean of group {name!r}"),
                      as_number(spec[2], f"the non-mated mean of group {name!r}")) for name, spec in groups.items()}
    n_subjects = sum(spec[0] for spec in checked.values())
    _check_size(n_subjects * (mated_per_subject + nonmated_per_subject), "score",
                f"{_assigned({'mated_per_subject': mated_per_subject, 'nonmated_per_subject': nonmated_per_subject})} "
                f"with {how_many(n_subjects, 'subject')} in groups")
    rng = as_rng(rng)
    names = list(groups)
    size, mated_mean, nonmated_mean = (np.array(column) for column in zip(*checked.values()))
    group_of = np.repeat(np.arange(len(names)), size)  # group code of each subject
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    ids = np.array([f"{names[g]}-{i - first[g]:03d}" for i, g in enumerate(group_of)], dtype=object)
    noise = np.sqrt(1 - subject_sd**2)
    effect = subject_sd * rng.normal(size=(n_subjects, 2))  # per subject: mated, non-mated effect
    # mated: each subject against itself
    m_ref = np.repeat(np.arange(n_subjects), mated_per_subject)
    with np.errstate(over="ignore", invalid="ignore"):  # a non-finite score is refused below, by its groups
        m_score = mated_mean[group_of[m_ref]] + effect[m_ref, 0] + noise * rng.normal(size=m_ref.size)
    _check_finite(m_score, "mated scores", _assigned(
        {f"groups[{quoted(names[g])}]": groups[names[g]] for g in np.unique(group_of[m_ref[~np.isfinite(m_score)]])}))
    # non-mated: a probe of another group (cross_share) or of the subject's own group
    n_ref = np.repeat(np.arange(n_subjects), nonmated_per_subject)
    own = group_of[n_ref]
    cross = rng.random(n_ref.size) < cross_share
    other_group = (own + rng.integers(1, len(names), n_ref.size)) % len(names)
    probe_group = np.where(cross, other_group, own)
    offset = rng.integers(0, size[probe_group] - (~cross))  # own group: skip the subject itself
    probe = first[probe_group] + offset
    probe += (~cross) & (probe >= n_ref)
    with np.errstate(over="ignore", invalid="ignore"):
        middle = (nonmated_mean[own] + nonmated_mean[probe_group]) / 2
        wide = ~np.isfinite(middle)  # the sum of two means beyond float64 where their middle is not: in halves
        middle[wide] = nonmated_mean[own[wide]] / 2 + nonmated_mean[probe_group[wide]] / 2
        mean = np.where(cross, middle + cross_shift, nonmated_mean[own])
        n_score = mean + effect[n_ref, 1] + noise * rng.normal(size=n_ref.size)
    infinite = ~np.isfinite(n_score)
    involved = np.unique(np.concatenate([own[infinite], probe_group[infinite]]))
    _check_finite(n_score, "non-mated scores", _assigned(
        {f"groups[{quoted(names[g])}]": groups[names[g]] for g in involved}
        | ({"cross_shift": cross_shift} if (infinite & cross).any() else {})))
    reference = np.concatenate([m_ref, n_ref])
    probes = np.concatenate([m_ref, probe])
    return pd.DataFrame({
        "score": np.concatenate([m_score, n_score]),
        "mated": np.repeat([True, False], [m_ref.size, n_ref.size]),
        "reference_subject": ids[reference],
        "probe_subject": ids[probes],
        "reference_group": np.array(names, dtype=object)[group_of[reference]],
        "probe_group": np.array(names, dtype=object)[group_of[probes]],
    })


def interval_coverage(
    *,
    rate: float = 0.05,
    n_subjects: int = 100,
    comparisons_per_subject: int = 20,
    subject_sd: float = 0.5,
    n_repeats: int = 400,
    n_resamples: int = 400,
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Simulate how often intervals of an error rate cover it when a subject's comparisons correlate.

    The intervals: Clopper-Pearson, Wilson, and the pair and subject bootstraps.

    Read more in the chapter "Audit demographic differentials".

    Parameters
    ----------
    rate : float, default 0.05
        The true error rate (the mean over subjects).
    n_subjects : int, default 100
        Subjects of the simulated group.
    comparisons_per_subject : int, default 20
        Comparisons of each subject.
    subject_sd : float, default 0.5
        Subject effect: subject s errs with probability ``Phi((Phi^-1(rate) - subject_sd·z_s)
        / sqrt(1 - subject_sd²))``, ``z_s`` standard normal, whose mean over subjects is
        ``rate`` (the score model of :func:`demographic_scores`). 0: independent comparisons.
    n_repeats : int, default 400
        Simulated groups.
    n_resamples : int, default 400
        Bootstrap resamples per simulated group.
    confidence : float, default 0.95
        Nominal coverage.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.

    Returns
    -------
    pandas.DataFrame
        One row per ``method`` (``"clopper-pearson"``, ``"wilson"``, ``"pair bootstrap"``,
        ``"subject bootstrap"``): ``coverage`` (share of repeats whose interval holds the
        true rate), ``coverage_low`` / ``coverage_high`` (its 95% Clopper-Pearson interval),
        ``mean_width`` and ``design_effect`` (mean over repeats of the subject bootstrap's
        variance over the binomial one).

    Raises
    ------
    ValueError
        When ``rate`` or ``confidence`` lies outside (0, 1) or ``subject_sd`` outside [0, 1)
        (NaN included), ``n_subjects`` is below 2, ``comparisons_per_subject`` or ``n_repeats``
        is below 1, ``n_resamples`` is below ``2 / (1 - confidence)``, a simulated group's
        comparisons (``n_subjects·comparisons_per_subject``) are more than NumPy's binomial
        draws count (an int64), the subject effects (``n_repeats·n_subjects``) or the pair
        bootstrap's rates (``n_resamples·n_repeats``) are more than one NumPy array can hold
        (``2**63 - 1`` bytes of float64), or ``rng`` is a negative seed.
    TypeError
        When ``rate``, ``subject_sd`` or ``confidence`` is not a number, ``n_subjects``,
        ``comparisons_per_subject``, ``n_repeats`` or ``n_resamples`` is not an integer, or
        ``rng`` is neither a Generator, an integer seed nor None.

    Warns
    -----
    InsufficientComparisonsWarning
        When no simulated group has an error rate strictly between 0 and 1: its
        ``design_effect`` is NaN.

    See Also
    --------
    biofair.differential_report : Reports all four intervals' kinds and the design effect.
    biofair.synthetic.demographic_scores : Scores with the same correlation.

    References
    ----------
    L. Kish, "Survey Sampling", Wiley, 1965 (design effect of cluster samples). R. G. Field
    and A. H. Welsh, "Bootstrapping clustered data", JRSS-B 69, 2007.

    Examples
    --------
    >>> from biofair.synthetic import interval_coverage
    >>> table = interval_coverage(n_repeats=50, n_resamples=100, rng=0)
    >>> table["method"].tolist()
    ['clopper-pearson', 'wilson', 'pair bootstrap', 'subject bootstrap']
    """
    rate = as_number(rate, "rate", low=0.0, high=1.0, open_low=True, open_high=True)
    subject_sd = as_number(subject_sd, "subject_sd", low=0.0, high=1.0, open_high=True)
    n_subjects = as_count(n_subjects, "n_subjects", minimum=2)
    m = as_count(comparisons_per_subject, "comparisons_per_subject")
    n_repeats = as_count(n_repeats, "n_repeats")
    confidence = as_number(confidence, "confidence", low=0.0, high=1.0, open_low=True, open_high=True)
    check_resamples(n_resamples := as_count(n_resamples, "n_resamples"), confidence)
    _check_size(n_subjects * m, "comparison", _assigned({"n_subjects": n_subjects, "comparisons_per_subject": m}),
                most=_MOST_COUNT, holder="NumPy's binomial draws count (an int64)", unit="comparison")
    _check_size(n_repeats * n_subjects, "subject effect", _assigned({"n_repeats": n_repeats, "n_subjects": n_subjects}))
    _check_size(n_resamples * n_repeats, "bootstrap rate",
                _assigned({"n_resamples": n_resamples, "n_repeats": n_repeats}))
    rng = as_rng(rng)
    z = rng.normal(size=(n_repeats, n_subjects))
    p = stats.norm.cdf((stats.norm.ppf(rate) - subject_sd * z) / np.sqrt(1 - subject_sd**2))
    errors = rng.binomial(m, p)  # (repeats, subjects)
    k, n = errors.sum(1), n_subjects * m
    cp_low, cp_high, w_low, w_high = binomial_intervals(k, np.full(n_repeats, n), confidence)
    pair = rng.binomial(n, k / n, (n_resamples, n_repeats)) / n
    ends = {"pair bootstrap": [], "subject bootstrap": []}
    deff = []
    totals = np.full((n_subjects, 1), float(m))
    for r in range(n_repeats):  # one vectorised bootstrap per simulated group
        estimate = k[r] / n
        ends["pair bootstrap"].append(interval(pair[:, r], estimate, lambda: [], method="percentile", confidence=confidence))
        reps = _clustered_replicates(errors[r][:, None].astype(float), totals, n_resamples, rng)[:, 0]
        ends["subject bootstrap"].append(interval(reps, estimate, lambda: [], method="percentile", confidence=confidence))
        if 0 < estimate < 1:
            deff.append(reps.var() / (estimate * (1 - estimate) / n))
    if not deff:
        warn(f"no simulated group has an error rate strictly between 0 and 1 ({n:,} comparisons at rate "
             f"{rate:g}): the design effect is undefined (NaN); give more subjects or comparisons per subject",
             InsufficientComparisonsWarning)
    lows_highs = {"clopper-pearson": (cp_low, cp_high), "wilson": (w_low, w_high),
                  **{name: tuple(np.array(e).T) for name, e in ends.items()}}
    rows = []
    for method, (low, high) in lows_highs.items():
        covered = int(np.sum((low <= rate) & (rate <= high)))
        band_low, band_high, _, _ = (float(end[0]) for end in binomial_intervals(np.array([covered]), np.array([n_repeats]), 0.95))
        rows.append({"method": method, "coverage": covered / n_repeats, "coverage_low": band_low,
                     "coverage_high": band_high, "mean_width": float(np.mean(high - low)),
                     "design_effect": float(np.mean(deff)) if deff else float("nan")})
    return pd.DataFrame(rows)


__all__ = [
    "BETA_BC_KEPT",
    "BETA_BC_SHIFT",
    "BETA_BG_TAIL",
    "BETA_BI_TAIL",
    "BETA_MATED",
    "BETA_NONMATED",
    "DEMOGRAPHIC_GROUPS",
    "FDR_CANONICAL",
    "IDENTIFICATION_GROUPS",
    "IdentificationData",
    "beta_scenario",
    "demographic_scores",
    "fdr_canonical_rates",
    "fdr_canonical_system",
    "fdr_cross_group_system",
    "gaussian_scores",
    "identification_embeddings",
    "interval_coverage",
]
