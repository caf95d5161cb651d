"""All operating-point metrics of one system in one tidy table.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from biofair._counts import error_counts_sorted, sorted_scores
from biofair._validation import as_targets
from biofair.areas import (
    log_fmr_auc_from_counts,
    partial_auc_from_counts,
    pr_auc_from_counts,
    roc_auc_from_counts,
)
from biofair.decidability import decidability
from biofair.detection_cost import min_dcf_from_counts
from biofair.equal_error_rate import EerMethod, eer_from_counts
from biofair.rates import threshold_at_fmr_sorted, warn_unresolvable

REPORT_COLUMNS = ["metric", "fmr", "value", "threshold", "resolved"]


def operating_report(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    fmr_targets: Sequence[float] = (1e-1, 1e-2, 1e-3, 1e-4),
    pauc_bounds: Sequence[float] = (1e-1, 1e-2, 1e-3),
    min_fmr: float = 1e-3,
    p_target: float = 0.01,
    eer_method: EerMethod = "rocch",
) -> pd.DataFrame:
    """Every operating-point metric of a system, from one sort per class.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated, nonmated : array_like
        Mated and non-mated similarity scores.
    fmr_targets : sequence of float, default 1e-1 ... 1e-4
        FMR targets for TMR and FNMR (thresholds by :func:`biofair.threshold_at_fmr`).
    pauc_bounds : sequence of float, default 1e-1, 1e-2, 1e-3
        Bounds ``b`` of the normalised partial AUC and the overstatement ``G_b``.
    min_fmr : float, default 1e-3
        Lower bound of the log-FMR AUC (upper bound 1).
    p_target : float, default 0.01
        Target prior of the minDCF (unit costs).
    eer_method : {"rocch", "midpoint", "interval"}, default "rocch"
        See :func:`biofair.eer`.

    Returns
    -------
    pandas.DataFrame
        One row per metric with columns ``metric``, ``fmr`` (the FMR target or bound the
        row refers to, NaN if none), ``value``, ``threshold`` (NaN if none) and
        ``resolved`` (False when that FMR is below ``1/N``, the smallest FMR the data can
        resolve). Metrics: ``roc_auc``, ``partial_auc``, ``overstatement``
        (``G_b = roc_auc - partial_auc``), ``log_fmr_auc``, ``min_dcf``, ``eer``,
        ``decidability``, ``pr_auc``, ``mated_nonmated_ratio``, ``tmr_at_fmr``,
        ``fnmr_at_fmr``, ``n_mated``, ``n_nonmated`` and ``fmr_resolution`` (1/N).

    Warns
    -----
    InsufficientComparisonsWarning
        When an FMR target or bound is below 1/N.
    """
    mated_sorted, nonmated_sorted = sorted_scores(mated, nonmated)
    counts = error_counts_sorted(mated_sorted, nonmated_sorted)
    n_mated, n_nonmated = counts.n_mated, counts.n_nonmated
    targets = as_targets(fmr_targets, "fmr_targets")
    bounds = as_targets(pauc_bounds, "pauc_bounds")
    warn_unresolvable(np.concatenate([targets, bounds, [min_fmr]]), n_nonmated)
    nan = float("nan")

    full = roc_auc_from_counts(counts)
    rows = [("roc_auc", nan, full, nan)]
    partial = [partial_auc_from_counts(counts, b, False) for b in bounds]
    rows += [("partial_auc", b, value, nan) for b, value in zip(bounds, partial)]
    rows += [("overstatement", b, full - value, nan) for b, value in zip(bounds, partial)]
    rows.append(("log_fmr_auc", min_fmr, log_fmr_auc_from_counts(counts, min_fmr, 1.0), nan))
    rows.append(("min_dcf", nan, min_dcf_from_counts(counts, p_target), nan))
    equal = eer_from_counts(counts, eer_method)
    rows.append(("eer", nan, equal.eer, equal.threshold))
    rows.append(("decidability", nan, decidability(mated_sorted, nonmated_sorted), nan))
    rows.append(("pr_auc", nan, pr_auc_from_counts(counts), nan))
    rows.append(("mated_nonmated_ratio", nan, n_mated / n_nonmated, nan))
    thresholds = threshold_at_fmr_sorted(nonmated_sorted, targets)
    false_non_matches = np.searchsorted(mated_sorted, thresholds, "left")
    tmr, fnmr = (n_mated - false_non_matches) / n_mated, false_non_matches / n_mated
    rows += [("tmr_at_fmr", f, x, t) for f, x, t in zip(targets, tmr, thresholds)]
    rows += [("fnmr_at_fmr", f, x, t) for f, x, t in zip(targets, fnmr, thresholds)]
    rows += [
        ("n_mated", nan, n_mated, nan),
        ("n_nonmated", nan, n_nonmated, nan),
        ("fmr_resolution", nan, 1.0 / n_nonmated, nan),
    ]
    table = pd.DataFrame(rows, columns=REPORT_COLUMNS[:-1])
    table["value"] = table["value"].astype(float)
    table["resolved"] = ~(table["fmr"] < 1.0 / n_nonmated)
    return table
