"""Bootstrap replicates of TMR at a target FMR without re-sorting: the fast path that
``biofair.tmr_at_fmr`` declares to ``biofair.bootstrap`` (its ``bootstrap_replicates``).

Both laws are exact: the replicates have the distribution the resampling plan of
``biofair.bootstrap`` gives for the same unit; only the random stream differs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from biofair._counts import sorted_scores, tmr_sorted
from biofair._thresholds import allowed_false_matches, threshold_at_fmr_sorted
from biofair._validation import as_rates

#: Entries of the largest matrix one batch of resamples may hold.
_BATCH_ENTRIES = 20_000_000


def tmr_at_fmr_replicates(
    mated: NDArray,
    nonmated: NDArray,
    fmr: float,
    *,
    n_resamples: int,
    rng: np.random.Generator,
    clusters: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
) -> NDArray[np.float64]:
    """Bootstrap replicates of ``tmr_at_fmr(mated, nonmated, fmr)`` (the fast-path protocol).

    ``clusters`` is None for ``unit="pair"`` and ``(mated_clusters, nonmated_clusters)``,
    the cluster code of every comparison, for ``unit="subject"``.
    """
    if np.ndim(fmr) != 0:
        raise ValueError("the bootstrap takes one FMR target at a time: give fmr as a number")
    target = float(as_rates(fmr, "fmr"))
    if clusters is None:
        return _pair_replicates(mated, nonmated, target, n_resamples, rng)
    n_clusters = int(max(clusters[0].max(initial=-1), clusters[1].max(initial=-1))) + 1
    weights = np.stack([np.bincount(rng.integers(0, n_clusters, n_clusters), minlength=n_clusters)
                        for _ in range(n_resamples)]) if n_resamples else np.zeros((0, n_clusters), int)
    return subject_replicates(mated, nonmated, target, clusters, weights)


# -- unit="pair" ---------------------------------------------------------------------------------


def _pair_replicates(
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
    batch = max(1, _BATCH_ENTRIES // values.size)  # resamples per batch: bounded memory
    thresholds = np.concatenate(
        [
            _resampled_thresholds(values, sizes, top, n_nonmated, allowed, min(batch, n_resamples - start), rng)
            for start in range(0, n_resamples, batch)
        ]
        or [np.empty(0)]
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


# -- unit="subject" ------------------------------------------------------------------------------


def subject_replicates(
    mated: NDArray,
    nonmated: NDArray,
    fmr: float,
    clusters: tuple[NDArray[np.intp], NDArray[np.intp]],
    weights: NDArray[np.int64],
) -> NDArray[np.float64]:
    """TMR at a target FMR of each cluster resample, given how often it draws each cluster.

    ``weights[b, c]`` is how often resample ``b`` drew cluster ``c``; every comparison of a
    drawn cluster counts that often. The threshold rule is applied to the weighted non-mated
    scores from the top down: only the scores near the target's count are read (a resample
    whose threshold falls below them is computed in full), and the mated scores at or above
    each threshold are counted per cluster by one binary search.
    """
    mated_clusters, nonmated_clusters = clusters
    n_clusters = weights.shape[1]
    thresholds = _subject_thresholds(nonmated, nonmated_clusters, fmr, weights)
    # Mated scores at or above each threshold, per cluster: one binary search of every
    # (cluster, threshold) pair among the mated scores ordered by (cluster, rank of score).
    per_cluster = np.bincount(mated_clusters, minlength=n_clusters)
    distinct_scores = np.unique(mated)
    width = distinct_scores.size + 1
    keys = np.sort(mated_clusters * width + np.searchsorted(distinct_scores, mated))
    distinct, which = np.unique(thresholds, return_inverse=True)
    queries = np.arange(n_clusters)[:, None] * width + np.searchsorted(distinct_scores, distinct)[None, :]
    at_or_above = np.cumsum(per_cluster)[:, None] - np.searchsorted(keys, queries, side="left")
    true_matches = np.einsum("bc,cb->b", weights, at_or_above[:, which])
    drawn_mated = weights @ per_cluster
    if (drawn_mated == 0).any():
        raise ValueError("a cluster resample drew no mated comparison; use unit='pair' or more subjects")
    return true_matches / drawn_mated


def _subject_thresholds(
    nonmated: NDArray, clusters: NDArray[np.intp], fmr: float, weights: NDArray[np.int64]
) -> NDArray[np.float64]:
    """The threshold of every weighted resample of the non-mated scores."""
    n_resamples, n_clusters = weights.shape
    order = np.argsort(-nonmated, kind="stable")
    descending, codes = nonmated[order], clusters[order]
    n = descending.size
    totals = weights @ np.bincount(clusters, minlength=n_clusters)
    if (totals == 0).any():
        raise ValueError("a cluster resample drew no non-mated comparison; use unit='pair' or more subjects")
    allowed = allowed_false_matches(np.full(n_resamples, fmr), totals)
    # The top block: enough scores to hold the crossing of most resamples, ending at a tie's end.
    reach = int(np.max(allowed, initial=0))
    top = min(n, 2 * reach + int(20 * np.sqrt(reach + 1)) + 100)
    while top < n and descending[top] == descending[top - 1]:
        top += 1
    block = descending[:top]
    ends = np.flatnonzero(np.append(block[1:] != block[:-1], True))  # last index of each value
    values = block[ends]
    thresholds = np.full(n_resamples, np.nan)
    batch = max(1, _BATCH_ENTRIES // max(top, 1))
    for start in range(0, n_resamples, batch):
        rows = slice(start, min(start + batch, n_resamples))
        counted = np.cumsum(weights[rows][:, codes[:top]], axis=1)[:, ends]  # draws >= each value
        present = np.diff(counted, axis=1, prepend=0) > 0
        within = counted[:, -1] > allowed[rows]  # the crossing lies inside the block
        fits = np.sum(counted <= allowed[rows, None], axis=1)  # values whose count is allowed
        last_present = np.maximum.accumulate(np.where(present, np.arange(values.size), -1), axis=1)
        chosen = np.where(fits > 0, last_present[np.arange(counted.shape[0]), np.maximum(fits - 1, 0)], -1)
        first_present = np.where(present.any(axis=1), np.argmax(present, axis=1), -1)
        found = np.where(chosen >= 0, values[np.maximum(chosen, 0)],
                         np.nextafter(values[np.maximum(first_present, 0)], np.inf))
        ok = within & ((chosen >= 0) | (first_present >= 0))
        thresholds[rows] = np.where(ok, found, np.nan)
    for b in np.flatnonzero(np.isnan(thresholds)):  # the threshold lies below the block
        resample = np.sort(np.repeat(nonmated, weights[b][clusters]))
        thresholds[b] = threshold_at_fmr_sorted(resample, np.array([fmr]))[0]
    return thresholds
