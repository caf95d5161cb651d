"""Tidy summaries: every operating-point metric of a system, and its fairness with intervals.

Read more in the chapters "Compute error rates from scores" (``notebooks/01``) and
"Analyse your own system" (``notebooks/13``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import nullcontext
from functools import partial
from typing import get_args

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from biofair._counts import counts_at, mated_counts_sorted
from biofair._direction import warn_if_reversed
from biofair._resampling import resolution_warned_once, weighted_replicates
from biofair._threads import IN_TWO_THREADS_FROM, here_and_there
from biofair._thresholds import resolution, threshold_at_fmr_sorted, warn_unresolved
from biofair._typing import By, EerMethod, Seed, Unit
from biofair._validation import (
    SMALLEST_BOUND,
    as_count,
    as_number,
    as_rng,
    as_scores,
    as_target,
    as_targets,
    check_alpha,
    check_bound,
    check_choice,
    check_finite,
)
from biofair._warnings import warn
from biofair.areas import (
    _log_fmr_auc_from_counts,
    _partial_aucs_from_counts,
    _pr_auc_from_counts,
    _roc_auc_from_counts,
    roc_auc,
)
from biofair.bootstrap import bootstrap
from biofair.decidability import _decidability_scaled
from biofair.detection_cost import _checked_costs, _min_dcf_from_counts
from biofair.discrepancy import area_under_fdr, fairness_discrepancy_rate
from biofair.dispersion import outcome_fairness
from biofair.distribution_fairness import (
    EquityIndex,
    _automatic_index_marked,
    comprehensive_equity_index,
    distribution_fairness_index,
)
from biofair.equal_error_rate import _eer_from_mated_counts, _rocch_eer_value, eer
from biofair.groups import (
    ScoresByGroup,
    _grouped,
    _ordered_for_grouping,
    _pooled_size,
    scores_by_group,
)
from biofair.permutation import _nulls, _shuffle_plan, _TooSmallToShuffle
from biofair.rates import tmr_at_fmr
from biofair.schema import _resampled_cluster, split_scores

_LOWER_SHARE = 0.45  # of the non-mated scores, sorted by the calling thread (it first computes d')
_OPERATING_COLUMNS = ["metric", "fmr_target", "value", "threshold", "k", "resolved", "precise"]
_SUMMARY_COLUMNS = ["metric", "attribute", "fmr_target", "value", "low", "high", "unit", "n_resamples",
                    "threshold", "k", "resolved", "precise", "parameters"]


def _settings(**values: object) -> str:
    """The settings a row's value was computed with, as text: ``bins=100, percentile=95``
    (numbers to 4 significant digits, or more where 4 would show a whole number the value is
    not; a mapping as ``(A: 99.83, B: 100)``)."""
    def shown(value: object) -> str:
        if isinstance(value, dict):
            return "(" + ", ".join(f"{name}: {shown(v)}" for name, v in value.items()) + ")"
        if not isinstance(value, float):
            return str(value)
        # CEIᴬ's split percentile 99.9967 (one score beyond mu + 3 sigma among 30,000) read "100", the
        # percentile of a group without a tail
        for digits in range(4, 17):
            text = f"{value:.{digits}g}"
            if float(text) == value or not float(text).is_integer():
                return text
        return f"{value:.17g}"  # any float as itself

    return ", ".join(f"{name}={shown(value)}" for name, value in values.items())


def _typed(table: pd.DataFrame) -> pd.DataFrame:
    """The columns of a summary with their dtypes: ``k``, ``resolved`` and ``precise`` may be
    missing (rows without a target)."""
    return table.astype({"value": float, "fmr_target": float, "threshold": float, "k": "Int64",
                         "resolved": "boolean", "precise": "boolean"})


def operating_summary(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    fmr_targets: Sequence[float] = (1e-1, 1e-2, 1e-3, 1e-4),
    pauc_bounds: Sequence[float] = (1e-1, 1e-2, 1e-3),
    min_fmr: float = 1e-3,
    p_target: float = 0.01,
    eer_method: EerMethod = "rocch",
) -> pd.DataFrame:
    """Every operating-point metric of a system in one tidy table, from one sort per class.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    fmr_targets : sequence of float, default (1e-1, 1e-2, 1e-3, 1e-4)
        FMR targets for TMR and FNMR (thresholds by :func:`biofair.threshold_at_fmr`).
    pauc_bounds : sequence of float, default (1e-1, 1e-2, 1e-3)
        Bounds ``b`` of the normalised partial AUC and the overstatement ``G_b``, in
        [2**-1022, 1] (from the smallest normal float).
    min_fmr : float, default 1e-3
        Lower bound of the log-FMR AUC (upper bound 1), in [2**-1022, 1).
    p_target : float, default 0.01
        Target prior of the minDCF (unit costs), in [2**-1022, 1).
    eer_method : {"rocch", "midpoint", "interval"}, default "rocch"
        The ``method`` passed on to :func:`biofair.eer`.

    Returns
    -------
    pandas.DataFrame
        One row per metric with columns ``metric``; ``fmr_target`` (the FMR target that
        sets the row's threshold, or the FMR bound of an area; NaN if none); ``value``;
        ``threshold`` (NaN if none); ``k`` (non-mated scores at or above a threshold set at
        a target, missing otherwise); ``resolved`` and ``precise`` (the row's target or
        bound allows at least 3, or 30, false matches among the N non-mated scores,
        ``fmr·N >= 3`` or ``>= 30``; missing for rows without one). Metrics: ``roc_auc``,
        ``partial_auc``, ``overstatement`` (``G_b = roc_auc - partial_auc``),
        ``log_fmr_auc``, ``min_dcf``, ``eer``, ``decidability``, ``pr_auc``,
        ``mated_nonmated_ratio``, ``tmr_at_fmr``, ``fnmr_at_fmr``, ``n_mated``,
        ``n_nonmated`` and ``fmr_resolution`` (1/N, the smallest non-zero FMR the data can
        show).

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; when ``fmr_targets`` is
        empty or holds a target outside [0, 1], ``pauc_bounds`` is empty or holds a bound
        outside [2**-1022, 1], or ``min_fmr`` lies outside [2**-1022, 1) (NaN included); when
        ``p_target`` lies outside [2**-1022, 1) (below it, the normalising cost ``p_target`` is
        no normal float) or ``eer_method`` is not "rocch", "midpoint" or "interval"; or when
        both classes have zero variance (d' is undefined, as for :func:`biofair.decidability`).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), ``fmr_targets`` or ``pauc_bounds`` is not a sequence of numbers
        (one number is refused), or ``min_fmr`` or ``p_target`` is not a number.

    Warns
    -----
    InsufficientComparisonsWarning
        When an FMR target or bound is below 3/N (rule of three).

    See Also
    --------
    biofair.fairness_summary : The summary of a system's fairness, with intervals.
    biofair.operating_point : One operating point with its counts.
    biofair.tmr_at_fmr : One of the rows.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification
    (Table VI: full, partial and log-FMR areas, minDCF, EER, d', TMR at fixed FMRs, and the
    overstatement of ROC-AUC). ISO/IEC 19795-1:2021 (resolution of a target rate).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.gaussian_scores(n_mated=1_000, n_nonmated=10_000, rng=0)
    >>> summary = bf.operating_summary(*bf.split_scores(table), fmr_targets=[1e-2, 1e-3], pauc_bounds=[1e-2])
    >>> rows = summary.query("metric == 'tmr_at_fmr'").reset_index(drop=True)
    >>> rows[["fmr_target", "k", "resolved", "precise"]]
       fmr_target    k  resolved  precise
    0       0.010  100      True     True
    1       0.001   10      True    False
    """
    mated = as_scores(mated, "mated", keep_float32=True)
    nonmated = as_scores(nonmated, "nonmated", keep_float32=True, finite=False)
    targets = as_targets(fmr_targets, "fmr_targets")
    bounds = np.array([check_bound(bound, "pauc_bounds") for bound in as_targets(pauc_bounds, "pauc_bounds").tolist()])
    check_bound(min_fmr, "min_fmr")
    check_choice(eer_method, "eer_method", get_args(EerMethod))
    _checked_costs(p_target, 1.0, 1.0)  # with the other options: it was checked after both sorts and the counts
    with ThreadPoolExecutor(max_workers=1) if nonmated.size >= IN_TWO_THREADS_FROM else nullcontext() as pool:
        mated_sorted, nonmated_sorted, d_prime = _sorted_classes_and_decidability(mated, nonmated, pool)
        n_mated, n_nonmated = mated_sorted.size, nonmated_sorted.size
        if min_fmr == 1.0:  # after the scores' checks; the log-FMR area spans [min_fmr, 1]: no max_fmr here
            raise ValueError("min_fmr must be below 1: the log-FMR area runs from min_fmr to FMR = 1, got 1.0")
        warn_unresolved(np.concatenate([targets, bounds, [min_fmr]]), n_nonmated)

        # One search of the distinct mated scores into the non-mated ones: every ROC metric
        # reads these counts; the thresholds at targets read the sorted scores.
        counts = mated_counts_sorted(mated_sorted, nonmated_sorted, pool=pool)
        # Each step computes one metric here and another in the second thread, one pair at a
        # time: the areas read the ROC polyline (made, then dropped) and the EER its convex
        # hull (large temporaries); the other metrics are computed part by part beside them.
        vertices, full = here_and_there(pool, counts.roc_vertices, lambda: _roc_auc_from_counts(counts))
        log_area, partial = here_and_there(pool, lambda: _log_fmr_auc_from_counts(counts, min_fmr, 1.0, vertices),
                                           lambda: _partial_aucs_from_counts(counts, bounds, False, vertices))
        del vertices
        equal, (average_precision, min_cost) = here_and_there(
            pool, lambda: _eer_from_mated_counts(counts, eer_method),
            lambda: (_pr_auc_from_counts(counts), _min_dcf_from_counts(counts, p_target)))
        del counts
    thresholds = threshold_at_fmr_sorted(nonmated_sorted, targets)
    false_matches, false_non_matches = counts_at(mated_sorted, nonmated_sorted, thresholds)
    nan, na = float("nan"), pd.NA

    rows = [("roc_auc", nan, full, nan, na)]
    rows += [("partial_auc", b, value, nan, na) for b, value in zip(bounds, partial)]
    rows += [("overstatement", b, full - value, nan, na) for b, value in zip(bounds, partial)]
    rows.append(("log_fmr_auc", min_fmr, log_area, nan, na))
    rows.append(("min_dcf", nan, min_cost, nan, na))
    rows.append(("eer", nan, equal.eer, equal.threshold, na))
    rows.append(("decidability", nan, d_prime, nan, na))
    rows.append(("pr_auc", nan, average_precision, nan, na))
    rows.append(("mated_nonmated_ratio", nan, n_mated / n_nonmated, nan, na))
    tmr, fnmr = (n_mated - false_non_matches) / n_mated, false_non_matches / n_mated
    rows += [("tmr_at_fmr", f, x, t, k) for f, x, t, k in zip(targets, tmr, thresholds, false_matches)]
    rows += [("fnmr_at_fmr", f, x, t, k) for f, x, t, k in zip(targets, fnmr, thresholds, false_matches)]
    rows += [
        ("n_mated", nan, n_mated, nan, na),
        ("n_nonmated", nan, n_nonmated, nan, na),
        ("fmr_resolution", nan, 1.0 / n_nonmated, nan, na),
    ]
    return _operating_table(rows, n_nonmated)


def _sorted_classes_and_decidability(mated: NDArray, nonmated: NDArray, pool: Executor | None
                                     ) -> tuple[NDArray, NDArray, float]:
    """Both classes sorted (float32 kept) and d' of the scores as given; the non-mated scores
    checked finite.

    From ``IN_TWO_THREADS_FROM`` non-mated scores, the sort of the non-mated scores is shared by
    two threads without a merge: the second one partitions them at the ``k``-th smallest
    (``np.partition``: ``k = _LOWER_SHARE·N``) and sorts those above it, while this one checks
    them, sorts the mated scores and computes d' (a read of all scores), then sorts the ``k``
    below it (NumPy's sorts release the GIL). On two cores that costs about 0.8 of one sort of
    them. d' equals :func:`biofair.decidability` on the same arrays, to the bit.
    """
    if pool is None:
        mated_sorted, nonmated_sorted = np.sort(mated), np.sort(nonmated)  # -inf first, +inf and NaN last
        return mated_sorted, nonmated_sorted, _finite_decidability(mated, mated_sorted, nonmated,
                                                                   nonmated_sorted[[0, -1]])
    lower = int(nonmated.size * _LOWER_SHARE)
    partitioned = pool.submit(np.partition, nonmated, lower)
    upper_sorted = pool.submit(lambda: partitioned.result()[lower:].sort())
    mated_sorted = np.sort(mated)
    ends = np.array([nonmated.min(), nonmated.max()])  # NaN if any score is NaN
    d_prime = _finite_decidability(mated, mated_sorted, nonmated, ends)
    nonmated_sorted = partitioned.result()
    nonmated_sorted[:lower].sort()
    upper_sorted.result()
    return mated_sorted, nonmated_sorted, d_prime


def _finite_decidability(mated: NDArray, mated_sorted: NDArray, nonmated: NDArray, nonmated_ends: NDArray) -> float:
    """d' once the non-mated scores are checked finite by their smallest and largest (NaN if
    one is NaN): a ValueError counting NaN and infinities if they are not."""
    if not np.isfinite(nonmated_ends).all():
        check_finite(nonmated, "nonmated")
    return _decidability_scaled(mated, nonmated, mated_sorted[[0, -1]], nonmated_ends)


def _operating_table(rows: list[tuple], n_nonmated: int) -> pd.DataFrame:
    """The rows ``(metric, fmr_target, value, threshold, k)`` as a typed table, with ``resolved``
    and ``precise`` of each row's FMR target (missing where it has none)."""
    metric, fmr_target, value, threshold, k = zip(*rows)
    targets = np.array(fmr_target, dtype=np.float64)
    missing = np.isnan(targets)
    resolved, precise = resolution(np.where(missing, 1.0, targets), n_nonmated)
    columns = [list(metric), targets, np.array(value, dtype=np.float64), np.array(threshold, dtype=np.float64),
               pd.array(k, dtype="Int64"), pd.arrays.BooleanArray(resolved, missing.copy()),
               pd.arrays.BooleanArray(precise, missing.copy())]
    return pd.DataFrame(dict(zip(_OPERATING_COLUMNS, columns)))


def _area_targets(fmr_targets: Sequence[float]) -> NDArray[np.float64]:
    """:func:`fairness_summary`'s FMR targets, which also bound its areas: a ValueError naming
    ``fmr_targets`` unless they lie in [2**-1022, 1] (``pauc_bounds``) with the smallest below 1
    (``min_fmr``)."""
    targets = as_targets(fmr_targets, "fmr_targets")
    areas = "they are also the bounds of the partial-AUC rows, and the smallest the lower bound of the log-FMR area"
    if (small := targets[targets < SMALLEST_BOUND]).size:
        raise ValueError(f"fmr_targets must be at least 2**-1022 = {SMALLEST_BOUND!r} here, got {float(small[0])!r}: "
                         f"{areas} (no area has a bound of 0); give a small positive target instead, e.g. 1e-6")
    if targets.min() == 1.0:
        raise ValueError(f"fmr_targets must hold a target below 1, got only 1.0: {areas}, "
                         "which runs from it to FMR = 1")
    return targets


def _shown_parameters(index: EquityIndex) -> dict[str, object]:
    """A CEI's parameters as a summary row shows them: the class is in the row's name, and
    CEIᴬ's data-chosen split percentiles and tail weight with its ``n_std`` and bins."""
    return {name: value for name, value in index.parameters.items() if name not in ("kind", "tail_mass_ratio")}


def _eer_value(mated: NDArray, nonmated: NDArray) -> float:
    """The ROCCH EER as a number, the statistic bootstrapped for the summary."""
    return eer(mated, nonmated).eer


# Its fast path for biofair.bootstrap: each resample's hull from cumulative weights, no sort.
_eer_value.bootstrap_replicates = partial(weighted_replicates, _rocch_eer_value)


def fairness_summary(
    scores: pd.DataFrame,
    *,
    by: By = "group",
    fmr_targets: Sequence[float] = (1e-1, 1e-2, 1e-3),
    operating_fmr: float = 1e-2,
    alpha: float = 0.5,
    n_resamples: int = 1000,
    n_permutations: int = 200,
    unit: Unit | None = None,
    cluster: str = "reference_subject",
    confidence: float = 0.95,
    rng: Seed = None,
    progress_bar: bool | None = None,
) -> pd.DataFrame:
    """How good and how fair a system is, in one table: performance and fairness, with intervals or nulls.

    Read more in the chapter "Analyse your own system"; ``biofair report`` shows this table.

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table with the group column(s) of ``by`` (see
        :func:`biofair.read_grouped_scores`).
    by : str or sequence of str, default "group"
        The grouping attribute(s) whose groups are compared.
    fmr_targets : sequence of float, default (1e-1, 1e-2, 1e-3)
        FMR targets of the TMR and FDR rows, and bounds of the partial AUC rows (the
        smallest is the lower bound of the log-FMR AUC): in [2**-1022, 1], the smallest
        below 1.
    operating_fmr : float, default 1e-2
        FMR of the one threshold (on the pooled homogeneous non-mated scores) of GARBE and
        Inequity.
    alpha : float, default 0.5
        Weight of the FMR differential in FDR and of GARBE_FMR in GARBE.
    n_resamples : int, default 1000
        Bootstrap resamples of the resampled rows, at least ``2 / (1 - confidence)`` (40 at
        95%).
    n_permutations : int, default 200
        Permutations of the nulls of the FDR area and CEI (as :func:`biofair.permutation_null`;
        the three nulls read the same permutations).
    unit : {"pair", "subject"}, optional
        What the bootstrap resamples; by default ``"subject"`` when the table has the
        ``cluster`` column (subjects recur in many comparisons), else ``"pair"``. With
        ``"subject"`` the permutation nulls also move whole subjects (with one group label
        per comparison, the non-mated nulls are too narrow when the probe subject also
        shapes the scores: see :func:`biofair.permutation_null`'s Notes).
    cluster : str, default "reference_subject"
        The subject column that defines the clusters (a name the table lacks, other than
        the default, is an error).
    confidence : float, default 0.95
        Coverage of the intervals.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed; the same seed gives the same table.
    progress_bar : bool, optional
        Show progress bars; by default only on an interactive terminal.

    Returns
    -------
    pandas.DataFrame
        One row per metric: ``metric``, ``attribute`` (missing for the rows about the whole
        system, else the grouping), ``fmr_target`` (NaN if none), ``value``, ``low`` and
        ``high`` (the bootstrap interval, NaN unless resampled), ``unit`` and
        ``n_resamples`` (of resampled rows), ``threshold``, and ``k``, ``resolved`` and
        ``precise`` as in :func:`biofair.operating_summary` (``k`` counts the non-mated
        scores the threshold was set on that reach it: all of them for the system rows, the
        pooled homogeneous ones for the group rows). The system rows are those of
        :func:`biofair.operating_summary`, with intervals on ``roc_auc``, ``eer`` and
        ``tmr_at_fmr`` (its fast path; percentile intervals, whose coverage falls short for
        the EER of small samples: see the Notes of :func:`biofair.bootstrap`). The group rows: ``fdr`` per target;
        ``area_under_fdr_log10`` (with two targets or more; over FMR from the smallest to
        the largest of ``fmr_targets``, each decade weighing the same; ``resolved`` and
        ``precise`` only when those of every target's FDR row are) and
        ``cei_extreme_mated`` / ``_nonmated``, each without an interval (resampling makes
        the groups differ more than the data do and biases both downwards, so a percentile
        interval can exclude the estimate: identical groups, area 1, got [0.917, 0.973])
        but with its permutation ``_null_mean`` and ``_p_value`` (left out, with a warning,
        when the groups are too small to shuffle: see :func:`biofair.permutation_null`'s
        Notes); ``garbe_fmr``, ``garbe_fnmr``, ``inequity_fmr`` and ``inequity_fnmr``
        at ``operating_fmr``; ``dfi_normal``, ``dfi_extreme``; ``cei_auto_extreme_mated``
        and ``_nonmated`` (CEIᴬ), ``resolved`` False when a group has no score beyond
        ``mu ± 3·sigma`` (its tail is then its extreme score alone: the warning of
        :func:`biofair.automatic_comprehensive_equity_index`, given as this mark).
        ``parameters`` names, as text, the settings each value was computed with beyond its
        ``fmr_target`` (empty for rows without any): ``alpha`` of FDR and the FMR range, scale
        and ``alpha`` of its area, both with ``optimistic=True`` (the thresholds are set on the
        very scores whose group rates they compare, as :func:`biofair.fairness_discrepancy_rate`
        without ``dev`` flags them), Inequity's ``zero`` rule with the groups whose zero rate
        it replaced (``replaced=(a, b)``, when any), the bins, split percentile(s) and tail
        weight of DFI, CEI and CEIᴬ (CEIᴬ's chosen from the data, group by group), the EER's
        method, minDCF's prior and costs, and the permutations behind a null (with
        ``redrawn=``, the arrangements drawn again because a permuted group had too few scores
        for an index, and ``nonmated_within=(table: ..., shuffled: ...)``, the share of
        non-mated comparisons within groups in the table and on average in its permuted
        tables, unless both are 1, as with one label per comparison: see
        :func:`biofair.permutation_null`'s Notes).

    Raises
    ------
    SchemaError
        When ``scores`` is an invalid score table (see :func:`biofair.validate_scores`) or
        holds several systems or splits, lacks a group column of ``by`` or has rows without a
        group label, its group labels cannot be named one way (see
        :func:`biofair.group_labels`), it has fewer than two groups, or a group has no mated or
        no homogeneous non-mated comparison (named, with its counts); when ``cluster`` names no
        column (other than the default) or mixes numbers and text; or when every score of a
        group's class falls in CEI's tail (an empty centre), or the scores a histogram of DFI
        or CEI spans lie too close together to cut into its bins (a few ulps apart).
    ValueError
        When ``n_permutations`` is below 1 (checked before any resampling), ``fmr_targets`` is
        empty, holds a target outside [2**-1022, 1] (0 included: the targets bound the areas)
        or only targets of 1, ``unit`` is not "pair", "subject" or None,
        ``confidence`` lies outside (0, 1), ``n_resamples`` is below ``2 / (1 - confidence)``,
        ``alpha`` or ``operating_fmr`` lies outside [0, 1], ``by`` is empty, names a column
        twice or names "score" or "mated", or, with ``unit="subject"``, the ``cluster`` column
        has missing values or a single subject; when the permutation nulls cannot shuffle the
        labels (checked before any resampling): per-side group columns without a ``cluster``
        column or with ``unit="pair"``, or a subject whose comparisons carry two labels of
        an attribute (see :func:`biofair.permutation_null`); or when a metric is
        undefined on the data: d' of two classes without variance (see
        :func:`biofair.operating_summary`), or a bootstrapped statistic that is NaN or infinite
        (see :func:`biofair.bootstrap`); or when ``rng`` is a negative seed.
    TypeError
        When ``scores`` is not a DataFrame, ``fmr_targets`` is not a sequence of numbers (one
        number is refused), ``operating_fmr`` is not one number, ``alpha`` or ``confidence`` is not a number,
        ``n_resamples`` or ``n_permutations`` is not an integer, ``cluster`` is not a column
        name, ``rng`` is neither a Generator, an integer seed nor None, or ``by``
        is not a column name or a list of column names.

    Warns
    -----
    InsufficientComparisonsWarning
        For targets below 3/N of the non-mated scores they are set on (rule of three).
    UndefinedRateWarning
        When a zero group rate is replaced by its upper bound for Inequity.
    ScoreDirectionWarning
        When the ROC AUC of the whole table is below 0.5: mated scores are mostly below
        non-mated ones, as when the scores are distances (negate them first). Not when
        :func:`biofair.read_scores` or :func:`biofair.read_grouped_scores` has said so of
        the table.
    PermutationNullWarning
        When the permuted tables of the nulls keep fewer than 9 in 10 of the table's share of
        non-mated comparisons within groups (labels given per side: see
        :func:`biofair.permutation_null`'s Notes).

    See Also
    --------
    biofair.operating_summary : The system rows without intervals.
    biofair.fairness_discrepancy_rate : The FDR rows.
    biofair.bootstrap : The intervals.
    biofair.permutation_null : The CEI nulls.

    References
    ----------
    T. de Freitas Pereira and S. Marcel, IEEE T-BIOM, 2022 (FDR). "Balancing Tails when
    Comparing Distributions: Comprehensive Equity Index (CEI)" (CEI, CEIᴬ, and GARBE and
    DFI as restated there). P. Grother, NISTIR 8429 (draft), 2022 (Inequity). ISO/IEC
    19795-10:2024 (reporting performance across demographic groups).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.read_grouped_scores(bf.datasets.example_scores_path())
    >>> summary = bf.fairness_summary(table, n_resamples=40, n_permutations=10, rng=0)
    >>> rows = summary.query("metric == 'fdr'").reset_index(drop=True)
    >>> rows[["attribute", "fmr_target", "k", "resolved", "precise"]]
      attribute  fmr_target    k  resolved  precise
    0     group       0.100  720      True     True
    1     group       0.010   72      True     True
    2     group       0.001    7      True    False
    >>> summary["unit"].dropna().unique().tolist()
    ['subject']
    """
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"scores must be a score table (a pandas DataFrame), got {type(scores).__name__}")
    # every option and the grouping are checked before the bootstraps, not minutes after them
    targets = _area_targets(fmr_targets)
    as_count(n_permutations, "n_permutations")
    alpha = check_alpha(alpha)
    # as a float to the bootstraps: a Fraction failed inside np.percentile, a float32 or long double moved the
    # intervals' ends
    confidence = as_number(confidence, "confidence", low=0.0, high=1.0, open_low=True, open_high=True)
    as_target(operating_fmr, "operating_fmr")
    groups = scores_by_group(scores, by=by)
    unit = "pair" if _resampled_cluster(scores, unit, cluster) is None else "subject"
    # the permutations' plan checks that the labels can be shuffled (per-side labels need
    # subjects, each subject one label), which the nulls at the end would find out too late
    ordered = _ordered_for_grouping(scores, by)
    shuffles = _shuffle_plan(ordered, by, _resampled_cluster(ordered, unit, cluster))
    rng = as_rng(rng)
    warn_if_reversed(scores)  # distances in a table: every row below would be reversed
    resampling = {"n_resamples": n_resamples, "unit": unit, "cluster": cluster, "confidence": confidence,
                  "rng": rng, "progress_bar": progress_bar}
    nan, na = float("nan"), pd.NA
    rows = []

    def add(metric, attribute, fmr_target, value, interval=None, threshold=nan, k=na, resolved=na, precise=na,
            parameters=""):
        low, high, used, n = (nan, nan, None, na) if interval is None else (
            interval.low, interval.high, interval.unit, interval.n_resamples)
        rows.append((metric, attribute, fmr_target, value, low, high, used, n, threshold, k, resolved, precise,
                     parameters))

    # The whole system: the operating summary, with intervals on its headline rows.
    mated, nonmated = split_scores(scores)
    with resolution_warned_once():  # operating_summary warns for these targets, in a table's words
        headline = {"roc_auc": {None: bootstrap(roc_auc, scores, **resampling)},
                    "eer": {None: bootstrap(_eer_value, scores, **resampling)},
                    "tmr_at_fmr": {t: bootstrap(tmr_at_fmr, scores, args=(t,), **resampling)
                                   for t in dict.fromkeys(targets.tolist())}}  # a target given twice: once
    system = operating_summary(mated, nonmated, fmr_targets=targets, pauc_bounds=targets, min_fmr=targets.min())
    # the settings of the rows that have any beyond their target (operating_summary's defaults)
    system_settings = {"log_fmr_auc": _settings(fmr_range=f"{targets.min():g} ... 1"), "eer": _settings(method="rocch"),
                       "min_dcf": _settings(p_target=0.01, c_miss=1, c_fa=1)}
    for row in system.itertuples(index=False):
        target = None if np.isnan(row.fmr_target) else float(row.fmr_target)
        add(row.metric, None, row.fmr_target, row.value, headline.get(row.metric, {}).get(target), row.threshold,
            row.k, row.resolved, row.precise, system_settings.get(row.metric, ""))

    # The groups: one threshold for everyone at each target, and the distribution indices.
    attribute = by if isinstance(by, str) else " / ".join(by)
    # Without cross-group pairs the thresholds rest on the scores the system rows used, whose
    # warning has named the same targets with the same N: it is not given twice.
    repeated = _pooled_size(groups) == nonmated.size
    with resolution_warned_once() if repeated else nullcontext():
        fdr = fairness_discrepancy_rate(groups, by=by, fmr_targets=targets, alpha=alpha)
    # no development split here: the thresholds are set on the scores they judge (SPEC section 4: flagged)
    optimistic = bool(fdr["optimistic"].all())
    for row in fdr.itertuples(index=False):
        add("fdr", attribute, row.fmr_target, row.fdr, None, row.threshold, row.k, row.resolved, row.precise,
            _settings(alpha=alpha, optimistic=row.optimistic))

    def fdr_area(grouped: ScoresByGroup) -> float:
        values = fairness_discrepancy_rate(grouped, by=by, fmr_targets=targets, alpha=alpha)
        return area_under_fdr(values["fdr"], values["fmr_target"], scale="log10")

    def cei_extreme(kind: str) -> Callable[[ScoresByGroup], float]:
        return lambda grouped: comprehensive_equity_index(grouped, by=by, kind=kind).extreme

    # The FDR area and CEI get no bootstrap interval. Resampling makes the groups differ more
    # than the data do (the largest gap in rates grows, the histograms part), so their
    # replicates sit below the estimate: identical groups, area 1, got the interval
    # [0.917, 0.973]. Each is read against its permutation null instead, all three on the same
    # permutations: each permuted table is grouped once and read by every index (three times
    # fewer shuffles and groupings than a null each). The permuted tables are made from the
    # table ordered by score, with its labels as categories, whose grouping needs no sort and
    # no factorization (5x faster at 1e6 rows): shuffled by subject, the same permutations as
    # from the table as it is (the subjects are numbered in sorted order). The estimates read
    # the groups made above, outside the resamples' silence: CEI's warning of a coarse
    # histogram is given here, once; the area, from the FDR rows above.
    indices = {f"cei_extreme_{kind}": cei_extreme(kind) for kind in ("mated", "nonmated")}
    equity = {f"cei_extreme_{kind}": comprehensive_equity_index(groups, by=by, kind=kind)
              for kind in ("mated", "nonmated")}
    estimates = {name: index.extreme for name, index in equity.items()}
    index_settings = {name: _settings(**_shown_parameters(index)) for name, index in equity.items()}
    if np.unique(targets).size >= 2:  # an area needs two targets
        indices = {"area_under_fdr_log10": fdr_area, **indices}
        estimates["area_under_fdr_log10"] = area_under_fdr(fdr["fdr"], fdr["fmr_target"], scale="log10")
    try:
        with resolution_warned_once():  # the FDR rows (or the system rows) have warned for these targets
            nulls = _nulls(indices, shuffles.read_as(lambda table: _grouped(table, by)), estimates,
                           n_permutations=n_permutations, alternative="less", rng=rng, progress_bar=progress_bar)
    except _TooSmallToShuffle as problem:  # the indices stand, without a null
        warn(f"{problem}: the FDR area and CEI are given without their null rows")
        nulls = {}
    index_settings["area_under_fdr_log10"] = _settings(fmr_range=f"{targets.min():g} ... {targets.max():g}",
                                                       scale="log10", alpha=alpha, optimistic=optimistic)
    # the area is no better resolved than the least resolved of the targets it runs over
    area_marks = {"resolved": bool(fdr["resolved"].all()), "precise": bool(fdr["precise"].all())}
    # the same arrangements for every null: the same redraws, the same shares of non-mated pairs within groups
    drawn = next(iter(nulls.values()), None)
    redrawn = drawn.n_redrawn if drawn else 0
    within = {"table": drawn.nonmated_within, "shuffled": drawn.nonmated_within_shuffled} if drawn else {}
    null_settings = _settings(n_permutations=n_permutations, unit=unit, **({"redrawn": redrawn} if redrawn else {}),
                              **({"nonmated_within": within} if set(within.values()) - {1.0} else {}))
    for name in indices:
        add(name, attribute, nan, estimates[name], parameters=index_settings[name],
            **(area_marks if name == "area_under_fdr_log10" else {}))
        if name in nulls:
            add(f"{name}_null_mean", attribute, nan, nulls[name].null.mean(), parameters=null_settings)
            add(f"{name}_p_value", attribute, nan, nulls[name].p_value, parameters=null_settings + ", alternative=less")
    outcome = outcome_fairness(groups, by=by, fmr=operating_fmr, alpha=alpha)
    def inequity_settings(rate: str) -> str:  # SPEC section 4: report which groups' zero rates were replaced
        replaced = outcome.rates.loc[outcome.rates[f"{rate}_bounded"], "group"].tolist()
        return _settings(zero="upper_bound", **({"replaced": "(" + ", ".join(replaced) + ")"} if replaced else {}))

    outcome_settings = {"garbe_fmr": _settings(correction="K/(K-1)"), "garbe_fnmr": _settings(correction="K/(K-1)"),
                        "inequity_fmr": inequity_settings("fmr"), "inequity_fnmr": inequity_settings("fnmr")}
    for name in ("garbe_fmr", "garbe_fnmr", "inequity_fmr", "inequity_fnmr"):
        add(name, attribute, operating_fmr, getattr(outcome, name), None, outcome.threshold, outcome.k,
            outcome.resolved, outcome.precise, outcome_settings[name])
    dfi = distribution_fairness_index(groups, by=by)
    add("dfi_normal", attribute, nan, dfi.normal, parameters=_settings(**dfi.parameters))
    add("dfi_extreme", attribute, nan, dfi.extreme, parameters=_settings(**dfi.parameters))
    for kind in ("mated", "nonmated"):
        automatic, resolved = _automatic_index_marked(groups, by=by, kind=kind)
        add(f"cei_auto_extreme_{kind}", attribute, nan, automatic.extreme, resolved=resolved,
            parameters=_settings(**_shown_parameters(automatic)))
    summary = pd.DataFrame(rows, columns=_SUMMARY_COLUMNS)
    return _typed(summary).astype({"low": float, "high": float, "n_resamples": "Int64"})
