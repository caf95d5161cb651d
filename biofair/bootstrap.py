"""Percentile bootstrap intervals for any metric, and paired comparisons of two systems.

Read more in the chapter "Put an interval on every number" (``notebooks/02``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from biofair._counts import sorted_scores
from biofair._resampling import Sample, Scores, Unit, progress, resample_rows, resolution_warned_once
from biofair._validation import as_count, as_number, as_rng
from biofair.rates import allowed_false_matches, threshold_at_fmr_sorted, tmr_at_fmr, tmr_sorted


class BootstrapResult(NamedTuple):
    """A metric with its percentile bootstrap interval."""

    estimate: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    unit: str
    replicates: NDArray[np.float64]


class PairedResult(NamedTuple):
    """The difference ``m(A) - m(B)`` of two systems on one trial list, with its interval."""

    difference: float
    low: float
    high: float
    p_greater: float  # share of resamples with m(A) > m(B)
    confidence: float
    n_resamples: int
    unit: str
    replicates: NDArray[np.float64]

    @property
    def significant(self) -> bool:
        """True when the interval excludes 0."""
        return self.low > 0 or self.high < 0


def _check(n_resamples: int, confidence: float) -> None:
    as_count(n_resamples, "n_resamples")
    as_number(confidence, "confidence", low=0.0, high=1.0, open_low=True, open_high=True)


def _interval(replicates: NDArray, confidence: float) -> tuple[float, float]:
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return float(low), float(high)


def _fast_tmr_target(metric: Callable) -> float | None:
    """The FMR target of ``functools.partial(tmr_at_fmr, fmr=f)``, else None."""
    if isinstance(metric, functools.partial) and metric.func is tmr_at_fmr and not metric.args:
        fmr = metric.keywords.get("fmr")
        if fmr is not None and np.ndim(fmr) == 0 and set(metric.keywords) == {"fmr"}:
            return float(fmr)
    return None


def tmr_at_fmr_replicates(
    mated: NDArray, nonmated: NDArray, fmr: float, n_resamples: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Pair-bootstrap replicates of TMR at a target FMR without re-sorting.

    A resample of the N non-mated scores changes the threshold only through the draws that
    land among the top ``m`` scores (``m`` a little above ``fmr·N``): their number is
    Binomial(N, m/N) and, given it, they spread over the top scores multinomially. The
    resampled TMR at a threshold ``t`` is Binomial(M, TMR(t))/M. Both are exact laws of the
    pair bootstrap; a resample whose top-``m`` draws do not reach the threshold (vanishingly
    rare by the choice of ``m``) is redrawn in full.
    """
    mated_sorted, nonmated_sorted = sorted_scores(mated, nonmated)
    n_nonmated, n_mated = nonmated_sorted.size, mated_sorted.size
    allowed = int(allowed_false_matches(np.array([fmr]), n_nonmated)[0])
    top = min(n_nonmated, allowed + int(10 * np.sqrt(allowed + 1)) + 50)
    values, sizes = np.unique(nonmated_sorted[n_nonmated - top :], return_counts=True)
    batch = max(1, 20_000_000 // values.size)  # resamples per batch: bounded memory
    thresholds = np.concatenate(
        [
            _resampled_thresholds(values, sizes, top, n_nonmated, allowed, min(batch, n_resamples - start), rng)
            for start in range(0, n_resamples, batch)
        ]
    )
    for b in np.flatnonzero(np.isnan(thresholds)):  # the threshold fell below the top block
        resample = np.sort(rng.choice(nonmated_sorted, n_nonmated))
        thresholds[b] = threshold_at_fmr_sorted(resample, np.array([fmr]))[0]
    return rng.binomial(n_mated, tmr_sorted(mated_sorted, thresholds)) / n_mated


def _resampled_thresholds(
    values: NDArray, sizes: NDArray, top: int, n_nonmated: int, allowed: int, n: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Thresholds of ``n`` resamples from the draws among the top scores (NaN: redo in full)."""
    in_top = rng.binomial(n_nonmated, top / n_nonmated, n)
    counts = rng.multinomial(in_top, sizes / top)  # (n, J) draws per distinct top value
    j = values.size
    at_or_above = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]  # draws >= each value
    first_ok = np.argmax(at_or_above <= allowed, axis=1)
    first_ok[at_or_above[:, -1] > allowed] = j  # only the reject-all threshold qualifies
    # The threshold is the first value present in the resample at or after first_ok ...
    present = np.where(counts > 0, np.arange(j), j)
    next_present = np.minimum.accumulate(present[:, ::-1], axis=1)[:, ::-1]
    next_present = np.concatenate([next_present, np.full((n, 1), j)], axis=1)
    chosen = next_present[np.arange(n), first_ok]
    # ... or, if none, just above the largest value present (reject everything).
    largest = np.where(counts.any(axis=1), j - 1 - np.argmax(counts[:, ::-1] > 0, axis=1), 0)
    thresholds = np.where(
        chosen < j, values[np.minimum(chosen, j - 1)], np.nextafter(values[largest], np.inf)
    )
    return np.where(in_top > allowed, thresholds, np.nan)


def bootstrap(
    metric: Callable,
    scores: Scores,
    *,
    n_resamples: int = 1000,
    unit: Unit = "pair",
    cluster: str = "reference_subject",
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
    progress_bar: bool | None = None,
) -> BootstrapResult:
    """Percentile bootstrap interval of any metric of the package.

    Read more in the chapter "Put an interval on every number".

    Parameters
    ----------
    metric : callable
        Called as ``metric(mated, nonmated)`` or, if it takes one argument, as
        ``metric(table)``; returns a float. ``functools.partial(bf.tmr_at_fmr, fmr=f)``
        with ``unit="pair"`` takes a fast exact path that never re-sorts.
    scores : pandas.DataFrame or (mated, nonmated)
        The data; a table is required for ``unit="subject"`` and for table metrics.
    n_resamples : int, default 1000
        Bootstrap resamples B.
    unit : {"pair", "subject"}, default "pair"
        ``"pair"`` resamples comparisons within each class; ``"subject"`` resamples the
        clusters of ``cluster`` with replacement and keeps all their comparisons
        (identity-clustered, the conservative choice when subjects recur in many pairs).
    cluster : str, default "reference_subject"
        Column whose values define the clusters for ``unit="subject"``: every comparison,
        mated or not, belongs to the cluster of its reference subject.
    confidence : float, default 0.95
        Coverage of the interval.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed; the same seed gives the same result, bit for bit.
    progress_bar : bool, optional
        Show a progress bar; by default only on an interactive terminal.

    Returns
    -------
    BootstrapResult
        ``estimate`` (the metric on all data), the interval ``[low, high]`` (the
        ``(1-confidence)/2`` and ``(1+confidence)/2`` quantiles of the replicates),
        ``confidence``, ``n_resamples``, ``unit`` and the ``replicates``.
    """
    _check(n_resamples, confidence)
    rng = as_rng(rng)
    sample = Sample(scores, cluster=cluster if unit == "subject" else None)
    estimate = sample.evaluate(metric)  # validates the data and the FMR target, and warns
    target = _fast_tmr_target(metric)
    if target is not None and unit == "pair":
        replicates = tmr_at_fmr_replicates(
            sample.values[sample.mated], sample.values[~sample.mated], target, n_resamples, rng
        )
    else:
        plan = resample_rows(sample, unit, n_resamples, rng)
        with resolution_warned_once():
            replicates = np.array(
                [sample.evaluate(metric, rows) for rows in progress(plan, total=n_resamples, desc="bootstrap", show=progress_bar)]
            )
    low, high = _interval(replicates, confidence)
    return BootstrapResult(estimate, low, high, confidence, n_resamples, unit, replicates)


def paired_bootstrap(
    metric: Callable,
    scores_a: Scores,
    scores_b: Scores,
    *,
    n_resamples: int = 1000,
    unit: Unit = "pair",
    cluster: str = "reference_subject",
    confidence: float = 0.95,
    rng: np.random.Generator | int | None = None,
    progress_bar: bool | None = None,
) -> PairedResult:
    """Difference of a metric between two systems scored on the same trial list.

    Read more in the chapter "Put an interval on every number".

    Parameters
    ----------
    metric : callable
        As for :func:`bootstrap`.
    scores_a, scores_b : pandas.DataFrame or (mated, nonmated)
        The two systems' scores, row by row for the same trials (same length and labels).
    n_resamples, unit, cluster, confidence, rng, progress_bar
        As for :func:`bootstrap`; both systems get the same resampled rows.

    Returns
    -------
    PairedResult
        ``difference = m(A) - m(B)`` on all data, its percentile interval, ``p_greater``
        (share of resamples with ``m(A) > m(B)``), and the replicates of the difference.
        The difference is significant when the interval excludes 0.
    """
    _check(n_resamples, confidence)
    rng = as_rng(rng)
    clusters = cluster if unit == "subject" else None
    a, b = Sample(scores_a, cluster=clusters), Sample(scores_b, cluster=clusters)
    if len(a) != len(b) or not np.array_equal(a.mated, b.mated):
        raise ValueError(
            "scores_a and scores_b must hold the same trials in the same order "
            f"(got {len(a)} and {len(b)} rows, labels {'equal' if np.array_equal(a.mated, b.mated) else 'different'})"
        )
    difference = a.evaluate(metric) - b.evaluate(metric)
    plan = resample_rows(a, unit, n_resamples, rng)
    with resolution_warned_once():
        replicates = np.array(
            [
                a.evaluate(metric, rows) - b.evaluate(metric, rows)
                for rows in progress(plan, total=n_resamples, desc="paired bootstrap", show=progress_bar)
            ]
        )
    low, high = _interval(replicates, confidence)
    p_greater = float(np.mean(replicates > 0))
    return PairedResult(difference, low, high, p_greater, confidence, n_resamples, unit, replicates)


def ranking_flips(
    comparisons: Mapping[str, PairedResult],
    *,
    higher_is_better: Mapping[str, bool] | None = None,
) -> list[tuple[str, str]]:
    """Pairs of metrics whose significant differences prefer different systems.

    Read more in the chapter "Put an interval on every number".

    Parameters
    ----------
    comparisons : mapping of str to PairedResult
        Paired differences ``m(A) - m(B)`` by metric name.
    higher_is_better : mapping of str to bool, optional
        Orientation of each metric (False for EER, minDCF, FNMR). By default every metric
        is taken as higher-is-better, so a flip is two significant differences of opposite
        sign (the specification's rule).

    Returns
    -------
    list of (str, str)
        Every pair ``(metric preferring A, metric preferring B)`` among the significant
        differences; empty when all significant differences agree.
    """
    orientation = higher_is_better or {}
    prefers_a = {
        name: (result.difference > 0) == orientation.get(name, True)
        for name, result in comparisons.items()
        if result.significant
    }
    return [
        (first, second)
        for first, a_first in prefers_a.items()
        for second, a_second in prefers_a.items()
        if a_first and not a_second
    ]
