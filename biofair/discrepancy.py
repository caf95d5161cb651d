"""Fairness Discrepancy Rate (FDR) and the area under it.

Read more in the chapter "Set one threshold for everyone" (``notebooks/03``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from biofair._validation import as_number, as_rates, as_targets
from biofair.groups import By, ScoresByGroup, group_rates, pooled_threshold, scores_by_group

DEFAULT_FMR_TARGETS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)


def max_gap(rates: np.ndarray) -> np.ndarray:
    """max_ij |x_i - x_j| over groups (axis 0) = max - min."""
    return rates.max(axis=0) - rates.min(axis=0)


def check_alpha(alpha: float) -> float:
    """``alpha``, the weight of the first differential, if it is a number in [0, 1]."""
    return as_number(alpha, "alpha", low=0.0, high=1.0)


def discrepancy(gap_a: np.ndarray, gap_b: np.ndarray, alpha: float) -> np.ndarray:
    """``1 - (alpha·A + (1 - alpha)·B)``: FDR (eq. 6) from its two largest gaps."""
    return 1.0 - (alpha * gap_a + (1.0 - alpha) * gap_b)


def discrepancy_table(
    targets: np.ndarray,
    thresholds: np.ndarray,
    gaps: tuple[np.ndarray, np.ndarray],
    *,
    alpha: float,
    n_dev: int,
    optimistic: bool,
    rate: str = "fmr",
) -> pd.DataFrame:
    """One row per target: ``1 - (alpha·A + (1 - alpha)·B)`` with its threshold and flags."""
    gap_a, gap_b = gaps
    return pd.DataFrame(
        {
            f"{rate}_target": targets,
            "threshold": thresholds,
            "A": gap_a,
            "B": gap_b,
            "fdr": discrepancy(gap_a, gap_b, alpha),
            "alpha": alpha,
            "resolved": targets >= 1.0 / n_dev,
            "optimistic": optimistic,
        }
    )


def fairness_discrepancy_rate(
    scores: pd.DataFrame | ScoresByGroup,
    *,
    fmr_targets: Sequence[float] = DEFAULT_FMR_TARGETS,
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
    fmr_targets : sequence of float, default 1e-1 ... 1e-6
        Targets ``FMR = 10^x``; each gives one threshold.
    alpha : float, default 0.5
        Weight of the FMR differential (0: only FNMR matters, 1: only FMR).
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    dev : pandas.DataFrame or ScoresByGroup, optional
        Development table the thresholds are set on. Without it they are set on
        ``scores`` itself, which is optimistic (flagged in the ``optimistic`` column).

    Returns
    -------
    pandas.DataFrame
        One row per target: ``fmr_target``, ``threshold``, ``A`` (largest FMR gap),
        ``B`` (largest FNMR gap), ``fdr``, ``alpha``, ``resolved`` (target >= 1/N of the
        pooled development non-mated scores) and ``optimistic``.

    Notes
    -----
    ``t_x = threshold_at_fmr(pooled homogeneous non-mated dev scores, 10^x)``;
    ``A(t) = max_ij |FMR_i(t) - FMR_j(t)|``, ``B(t) = max_ij |FNMR_i(t) - FNMR_j(t)|``,
    ``FDR(t) = 1 - (alpha·A(t) + (1 - alpha)·B(t))`` in [0, 1], 1 = no discrepancy
    (eq. 4-6 of de Freitas Pereira and Marcel). Match iff ``score >= t``.

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below 1/N of the development non-mated scores.
    """
    check_alpha(alpha)
    targets = as_targets(fmr_targets, "fmr_targets")
    groups = scores_by_group(scores, by=by)
    dev_groups = groups if dev is None else scores_by_group(dev, by=by)
    thresholds = np.atleast_1d(pooled_threshold(dev_groups, targets))
    rates = group_rates(groups, thresholds)
    return discrepancy_table(
        targets, thresholds, (max_gap(rates.fmr), max_gap(rates.fnmr)), alpha=alpha,
        n_dev=dev_groups.pooled_nonmated.size, optimistic=dev is None,
    )


def area_under_fdr(
    fdr: ArrayLike, fmr_targets: ArrayLike, *, scale: Literal["linear", "log10"] = "linear"
) -> float:
    """Area under FDR over a range of FMR targets, on an axis scaled to [0, 1].

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    fdr : array_like
        FDR values, one per target.
    fmr_targets : array_like
        The FMR targets (at least two distinct).
    scale : {"linear", "log10"}, default "linear"
        ``"linear"``: trapezoid over the targets min-max scaled to [0, 1], as the authors'
        reference code; the decade nearest FMR = 1 dominates. ``"log10"``: trapezoid over
        ``log10(target)`` scaled to [0, 1]; every decade weighs the same.

    Returns
    -------
    float
        The area, in [0, 1]. Report the range of targets with it: areas over different
        ranges are not comparable.

    Examples
    --------
    >>> fdr = [0.80145, 0.5065, 0.50205, 0.50085, 0.5004, 0.50005]
    >>> targets = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]
    >>> round(area_under_fdr(fdr, targets), 5), round(area_under_fdr(fdr, targets, scale="log10"), 5)
    (0.63898, 0.53211)
    """
    values = as_rates(fdr, "fdr").ravel()
    targets = as_rates(fmr_targets, "fmr_targets").ravel()
    if values.size != targets.size:
        raise ValueError(f"fdr has {values.size} values but fmr_targets has {targets.size}")
    if scale == "log10":
        if np.any(targets <= 0):
            raise ValueError("fmr_targets must be positive for scale='log10'")
        axis = np.log10(targets)
    elif scale == "linear":
        axis = targets
    else:
        raise ValueError(f"scale must be 'linear' or 'log10', got {scale!r}")
    if np.unique(axis).size < 2:
        raise ValueError("area_under_fdr needs at least two distinct fmr_targets")
    order = np.argsort(axis)
    axis, values = axis[order], values[order]
    scaled = (axis - axis[0]) / (axis[-1] - axis[0])
    return float(np.sum(np.diff(scaled) * (values[1:] + values[:-1]) / 2))
