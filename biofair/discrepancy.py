"""Fairness Discrepancy Rate (FDR) and the area under it.

Read more in the chapter "Set one threshold for everyone" (``notebooks/03``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from biofair._thresholds import resolution_columns
from biofair._typing import By, Scale
from biofair._validation import as_rates, as_targets, check_alpha, check_choice, how_many
from biofair._warnings import warn
from biofair.exceptions import SchemaError
from biofair.groups import (_LOOK_ALIKE, ScoresByGroup, _group_rates, _groups_of, _look_alike_key, _look_alike_kind,
                            _number, _pooled_at_or_above, _pooled_size, _pooled_threshold, scores_by_group)

_DEFAULT_FMR_TARGETS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)


def _max_gap(rates: np.ndarray) -> np.ndarray:
    """max_ij |x_i - x_j| over groups (axis 0) = max - min."""
    return rates.max(axis=0) - rates.min(axis=0)


def _discrepancy(gap_a: np.ndarray, gap_b: np.ndarray, alpha: float) -> np.ndarray:
    """``1 - (alpha·A + (1 - alpha)·B)``: FDR (eq. 6) from its two largest gaps."""
    return 1.0 - (alpha * gap_a + (1.0 - alpha) * gap_b)


def _discrepancy_table(
    targets: np.ndarray,
    thresholds: np.ndarray,
    gaps: tuple[np.ndarray, np.ndarray],
    *,
    alpha: float,
    n_dev: int,
    at_or_above: np.ndarray,
    optimistic: bool,
    rate: str = "fmr",
) -> pd.DataFrame:
    """One row per target: ``1 - (alpha·A + (1 - alpha)·B)``, its threshold, resolution and flags.

    ``at_or_above`` counts, per target, the ``n_dev`` comparisons the threshold was set on
    that reach it (the ``k`` of SPEC section 1).
    """
    gap_a, gap_b = gaps
    return pd.DataFrame(
        {
            f"{rate}_target": targets,
            "threshold": thresholds,
            "A": gap_a,
            "B": gap_b,
            "fdr": _discrepancy(gap_a, gap_b, alpha),
            "alpha": alpha,
            **resolution_columns(targets, n_dev, at_or_above),
            "optimistic": optimistic,
        }
    )


def _same_scores(groups: ScoresByGroup, dev_groups: ScoresByGroup) -> bool:
    """Whether two groupings hold the same scores in the same groups (each array is sorted:
    whatever the order of the rows)."""
    return groups.keys() == dev_groups.keys() and all(
        np.array_equal(a, b) for name in groups for a, b in zip(groups[name], dev_groups[name])
    )


def _shares_subjects(scores: pd.DataFrame | ScoresByGroup, dev: pd.DataFrame | ScoresByGroup) -> bool:
    """Whether the development scores are the evaluation scores, or share a subject with
    them (a threshold set on a subject it is then applied to is optimistic): by the subject
    columns, when both tables have them."""
    if dev is scores:
        return True
    subjects = ["reference_subject", "probe_subject"]
    if not all(isinstance(t, pd.DataFrame) and set(subjects) <= set(t.columns) for t in (scores, dev)):
        return False
    return bool(np.isin(pd.unique(dev[subjects].to_numpy().ravel()), pd.unique(scores[subjects].to_numpy().ravel())).any())


def _warn_if_groups_differ(names: Sequence[str], dev_names: Sequence[str], *,
                           units: tuple[str, str] = ("comparisons", "non-mated scores")) -> None:
    """Warn when the development scores have none of some evaluation groups (the pooled
    thresholds are then set without their non-mated scores), or hold groups the evaluation
    lacks (whose scores set the thresholds too: every development group is pooled).
    ``units``: what the development set holds and what the thresholds are set on (an
    identification set's non-enrolled probes and their best scores). Labels are compared as
    text, as groups are named: a missing group whose label differs from a development group's
    only as two labels the readers warn of do (see :func:`biofair.groups._warn_if_labels_look_alike`:
    'Female' and 'female', 'F ' and 'F'; or '1' and '1.0', as a column of floats writes a
    number) is pointed out, with the fix."""
    def shown(groups: list[str]) -> str:
        return ", ".join(repr(name) for name in groups[:5]) + (", ..." if len(groups) > 5 else "")

    missing = [name for name in names if name not in set(dev_names)]
    extra = [name for name in dev_names if name not in set(names)]
    if missing:
        keys = {_look_alike_key(name): name for name in extra}
        numbers = {value: name for name in extra if (value := _number(name)) is not None}
        alike: dict[str, list[tuple[str, str]]] = {}  # kind of _LOOK_ALIKE: (evaluation, development) labels
        for name in missing:
            if (key := _look_alike_key(name)) in keys:
                alike.setdefault(_look_alike_kind(name, keys[key]), []).append((name, keys[key]))
            elif (value := _number(name)) in numbers:
                alike.setdefault("numbers", []).append((name, numbers[value]))
        hints = [
            f"development scores' {shown([d for _, d in pairs])} "
            + (f"write the same numbers as the evaluation's {shown([e for e, _ in pairs])}" if kind == "numbers" else
               f"differ from the evaluation's {shown([e for e, _ in pairs])} only by {_LOOK_ALIKE[kind][0]}")
            + f". {_LOOK_ALIKE[kind][1]} in both tables"
            for kind, pairs in alike.items()
        ]
        warn(
            f"the development scores have no {units[0]} of {len(missing)} of the {len(names)} evaluation "
            f"groups ({shown(missing)}): the thresholds are set on the other groups' {units[1]} only"
            + (f". Labels are compared as text, and the {'. The '.join(hints)}" if hints else ""),
            UserWarning,
        )
    if extra:
        warn(
            f"the development scores hold {how_many(len(extra), 'group')} that the evaluation scores lack ({shown(extra)}): "
            f"their {units[1]} set the pooled thresholds too",
            UserWarning,
        )


def fairness_discrepancy_rate(
    scores: pd.DataFrame | ScoresByGroup,
    *,
    fmr_targets: Sequence[float] = _DEFAULT_FMR_TARGETS,
    alpha: float = 0.5,
    by: By = "group",
    dev: pd.DataFrame | ScoresByGroup | None = None,
) -> pd.DataFrame:
    """FDR at thresholds set for target FMRs, one threshold for every group.

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        Evaluation score table with a group column (see :func:`biofair.group_labels`).
        A :func:`biofair.scores_by_group` of it lets several indices share one grouping.
    fmr_targets : sequence of float, default (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)
        Targets ``FMR = 10^x``; each gives one threshold.
    alpha : float, default 0.5
        Weight of the FMR differential (0: only FNMR matters, 1: only FMR).
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    dev : pandas.DataFrame or ScoresByGroup, optional
        Development table the thresholds are set on. Without it they are set on
        ``scores`` itself, which is optimistic (flagged in the ``optimistic`` column), as
        they are when ``dev`` holds the same scores in the same groups (a copy, or its
        ``ScoresByGroup``) or shares a subject with ``scores`` (by the subject columns, when
        both tables have them).

    Returns
    -------
    pandas.DataFrame
        One row per target: ``fmr_target``, ``threshold``, ``A`` (largest FMR gap),
        ``B`` (largest FNMR gap), ``fdr``, ``alpha``, ``k`` (pooled development non-mated
        scores at or above the threshold), ``resolved`` (the target allows at least 3
        false matches among the N pooled development non-mated scores, ``fmr·N >= 3``),
        ``precise`` (at least 30) and ``optimistic``.

    Raises
    ------
    SchemaError
        When ``scores`` or ``dev`` is an invalid score table (see
        :func:`biofair.validate_scores`) or holds several systems or splits, lacks a group
        column of ``by`` or has rows without a group label, its group labels cannot be named
        one way (see :func:`biofair.group_labels`), it has fewer than two groups, or a group
        has no mated or no homogeneous non-mated comparison (named, with its counts). An
        error in ``dev`` begins by saying so.
    ValueError
        When ``alpha`` lies outside [0, 1], ``fmr_targets`` is empty or holds a target outside
        [0, 1] (NaN included), ``by`` is empty, names a column twice or names "score" or
        "mated", or ``scores`` or ``dev`` is a ``ScoresByGroup`` formed with another ``by``.
    TypeError
        When ``scores`` or ``dev`` is neither a DataFrame nor a ``ScoresByGroup``, ``by`` is
        not a column name or a list of column names, ``alpha`` is not a number, or
        ``fmr_targets`` is not a sequence of numbers (one number is refused).

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below 3/N of the pooled development non-mated scores (rule of three).
    UserWarning
        When ``dev`` has no comparisons of an evaluation group, or holds a group that the
        evaluation scores lack (its non-mated scores set the thresholds too). Labels are compared as
        text, as groups are named: dev's ``1.0`` is not the group ``'1'`` (the warning says
        that the two write one number).

    See Also
    --------
    biofair.area_under_fdr : One number over a range of targets.
    biofair.outcome_fairness : GARBE and Inequity at one threshold.
    biofair.identification_discrepancy_rate : The same index for open-set identification.
    biofair.partitions.fairness_discrepancy_rate : The same table over a partitioned score set.

    Notes
    -----
    ``t_x = threshold_at_fmr(pooled homogeneous non-mated dev scores, 10^x)``;
    ``A(t) = max_ij |FMR_i(t) - FMR_j(t)|``, ``B(t) = max_ij |FNMR_i(t) - FNMR_j(t)|``,
    ``FDR(t) = 1 - (alpha·A(t) + (1 - alpha)·B(t))`` in [0, 1], 1 = no discrepancy.
    Match iff ``score >= t``.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022, eq. 4-6.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=1_000, n_nonmated=10_000, rng=0)
    >>> fdr = bf.fairness_discrepancy_rate(table, fmr_targets=[1e-2, 1e-3])
    >>> fdr[["fmr_target", "k", "resolved", "precise"]]
       fmr_target    k  resolved  precise
    0       0.010  300      True     True
    1       0.001   30      True     True
    >>> bool((fdr["fdr"] < 1).all())
    True
    """
    alpha = check_alpha(alpha)
    targets = as_targets(fmr_targets, "fmr_targets")
    groups = scores_by_group(scores, by=by)
    dev_groups = groups if dev is None else _development_groups(dev, by)
    _warn_if_groups_differ(list(groups), list(dev_groups))
    thresholds = np.atleast_1d(_pooled_threshold(dev_groups, targets))
    rates = _group_rates(groups, thresholds)
    return _discrepancy_table(
        targets, thresholds, (_max_gap(rates.fmr), _max_gap(rates.fnmr)), alpha=alpha,
        n_dev=_pooled_size(dev_groups), at_or_above=_pooled_at_or_above(dev_groups, thresholds),
        optimistic=dev is None or _same_scores(groups, dev_groups) or _shares_subjects(scores, dev),
    )


def _development_groups(dev: pd.DataFrame | ScoresByGroup, by: By) -> ScoresByGroup:
    """:func:`biofair.scores_by_group` of ``dev``, its errors saying that they are about ``dev``."""
    try:
        return _groups_of(dev, by, name="dev")
    except SchemaError as error:
        raise SchemaError(f"dev, the development scores the thresholds are set on: {error}") from error


def area_under_fdr(fdr: ArrayLike, fmr_targets: ArrayLike, *, scale: Scale = "linear") -> float:
    """Area under FDR over a range of FMR targets, on an axis scaled to [0, 1].

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    fdr : array_like
        FDR values, one per target.
    fmr_targets : array_like
        The FMR targets (at least two distinct), in any order. A target given twice must
        have the same FDR both times.
    scale : {"linear", "log10"}, default "linear"
        ``"linear"``: trapezoid over the targets min-max scaled to [0, 1], as the authors'
        reference code; the decade nearest FMR = 1 dominates. ``"log10"``: trapezoid over
        ``log10(target)`` scaled to [0, 1]; every decade weighs the same.

    Returns
    -------
    float
        The area, in [0, 1]. Report the range of targets with it: areas over different
        ranges are not comparable.

    Raises
    ------
    ValueError
        When ``fdr`` or ``fmr_targets`` is not one-dimensional or holds a value outside [0, 1]
        (NaN included), the two differ in length, they give fewer than two distinct targets, a
        target repeats with different FDR values, ``scale`` is not "linear" or "log10", or a
        target is 0 with ``scale="log10"``.
    TypeError
        When ``fdr`` or ``fmr_targets`` does not hold numbers.

    See Also
    --------
    biofair.fairness_discrepancy_rate : The FDR values it integrates.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics: A Figure of Merit to Assess
    Biometric Verification Systems", IEEE T-BIOM, 2022 (the area under FDR, and its
    reference code's linear scaling).

    Examples
    --------
    >>> import biofair as bf
    >>> fdr = [0.80145, 0.5065, 0.50205, 0.50085, 0.5004, 0.50005]
    >>> targets = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]
    >>> round(bf.area_under_fdr(fdr, targets), 5), round(bf.area_under_fdr(fdr, targets, scale="log10"), 5)
    (0.63898, 0.53211)
    """
    check_choice(scale, "scale", ("linear", "log10"))
    values, targets = as_rates(fdr, "fdr"), as_rates(fmr_targets, "fmr_targets")
    for name, array in (("fdr", values), ("fmr_targets", targets)):
        if array.ndim > 1:
            raise ValueError(f"{name} must be one-dimensional (one value per target), got shape {array.shape}")
    values, targets = values.ravel(), targets.ravel()
    if values.size != targets.size:
        raise ValueError(f"fdr has {values.size} values but fmr_targets has {targets.size}")
    order = np.argsort(targets, kind="stable")
    values, targets = values[order], targets[order]
    clash = (targets[1:] == targets[:-1]) & (values[1:] != values[:-1])
    if clash.any():
        raise ValueError(
            f"fmr_targets repeats {how_many(int(clash.sum()), 'target')} with different FDR values (e.g. "
            f"{targets[1:][clash][0]:g}: {values[:-1][clash][0]:g} and {values[1:][clash][0]:g}); "
            "the area would depend on their order: give each target once"
        )
    if scale == "log10" and np.any(targets <= 0):
        raise ValueError("fmr_targets must be positive for scale='log10'")
    axis = np.log10(targets) if scale == "log10" else targets
    if np.unique(axis).size < 2:
        raise ValueError("area_under_fdr needs at least two distinct fmr_targets")
    scaled = (axis - axis[0]) / (axis[-1] - axis[0])
    return float(np.sum(np.diff(scaled) * (values[1:] + values[:-1]) / 2))
