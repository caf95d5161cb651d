"""Bootstrap replicates of TMR at a target FMR without re-sorting, and its leave-one-out
values: the fast path that ``biofair.tmr_at_fmr`` declares to ``biofair.bootstrap`` (its
``bootstrap_replicates`` and ``jackknife_replicates``).

Both laws are exact: the replicates have the distribution the resampling plan of
``biofair.bootstrap`` gives for the same unit; only the random stream differs. The
leave-one-out values are those of the plain jackknife, grouped by value.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from biofair._counts import just_above, tmr_sorted
from biofair._resampling import cluster_weights, count_clusters
from biofair._summation import parts
from biofair._thresholds import allowed_false_matches, threshold_at_fmr_sorted, top_sorted
from biofair._validation import as_target

#: Entries of the largest matrix one batch of resamples may hold. A batch makes several
#: int64 matrices of this size: at 20 million the subject bootstrap of TMR at FMR 0.1 peaked
#: at 0.5 GB on 1e5 scores; at 2 million it needs 80 MB and runs no slower (cache-sized).
_BATCH_ENTRIES = 2_000_000


def tmr_at_fmr_replicates(
    mated: NDArray,
    nonmated: NDArray,
    fmr: float,
    *,
    n_resamples: int,
    rng: np.random.Generator,
    clusters: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
    progress_bar: bool | None = None,
) -> NDArray[np.float64]:
    """Bootstrap replicates of ``tmr_at_fmr(mated, nonmated, fmr)`` (the fast-path protocol).

    It shows no progress bar (``progress_bar`` is accepted and ignored): the replicates take
    a few vectorised passes, not one evaluation per resample.

    ``clusters`` is None for ``unit="pair"`` and ``(mated_clusters, nonmated_clusters)``,
    the cluster code of every comparison, for ``unit="subject"``.
    """
    target = float(as_target(fmr)[0])
    if clusters is None:
        return _pair_replicates(mated, nonmated, target, n_resamples, rng)
    n_clusters = count_clusters(clusters)
    weights = np.stack(list(cluster_weights(n_clusters, n_resamples, rng))) if n_resamples else np.zeros((0, n_clusters), int)
    return subject_replicates(mated, nonmated, target, clusters, weights)


def tmr_at_fmr_jackknife(
    mated: NDArray,
    nonmated: NDArray,
    fmr: float,
    *,
    clusters: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
) -> list[tuple[NDArray[np.float64], NDArray[np.int64]]]:
    """Leave-one-out values of ``tmr_at_fmr(mated, nonmated, fmr)`` for the BCa acceleration.

    Per independently resampled sample, ``(values, counts)``: ``counts[i]`` of its units,
    left out, give ``values[i]``. ``unit="pair"`` (``clusters=None``): the mated and the
    non-mated comparisons, in closed form (:func:`pair_jackknife`); ``unit="subject"``: the
    clusters, each left out by weighting it 0 (:func:`subject_replicates`).
    """
    target = float(as_target(fmr)[0])
    if clusters is None:
        return pair_jackknife(mated, nonmated, target)
    n_clusters = count_clusters(clusters)
    batch = max(1, _BATCH_ENTRIES // n_clusters)  # subject_replicates holds clusters x batch counts
    values = []
    for start, stop in parts(n_clusters, part=batch):
        left_out = np.arange(start, stop)
        weights = np.ones((left_out.size, n_clusters), dtype=np.int64)
        weights[np.arange(left_out.size), left_out] = 0
        values.append(subject_replicates(mated, nonmated, target, clusters, weights))
    return [(np.concatenate(values), np.ones(n_clusters, dtype=np.int64))]


# -- unit="pair" ---------------------------------------------------------------------------------


def _pair_replicates(
    mated: NDArray, nonmated: NDArray, fmr: float, n_resamples: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Pair-bootstrap replicates of TMR at a target FMR: the resampled TMR at each resampled
    threshold ``t`` (:func:`pair_thresholds`) is ``Binomial(M, TMR(t)) / M``."""
    thresholds = pair_thresholds(nonmated, fmr, n_resamples, rng)
    mated_sorted = np.sort(mated)
    return rng.binomial(mated_sorted.size, tmr_sorted(mated_sorted, thresholds)) / mated_sorted.size


def pair_thresholds(nonmated: NDArray, fmr: float, n_resamples: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """The threshold at a target FMR of each of ``n_resamples`` pair resamples, from two draws each.

    Write the N non-mated scores in descending order ``d[0] >= d[1] >= ...``. A resample
    draws N positions, each ``floor(V·N)`` for a uniform ``V``. With ``c`` the false matches
    the target allows, the rule of :func:`biofair.threshold_at_fmr` on the resample is

        t = the smallest resampled score above X, the (c+1)-th largest resampled score,
            or nextafter(max of the resample, +inf) if no resampled score is above X,

    and only two order statistics of the ``V`` decide it. The (c+1)-th smallest ``V`` is
    ``v ~ Beta(c+1, N-c)``, so ``X = d[floor(v·N)]``; given ``v``, the other ``c`` smaller
    ones are uniform on ``[0, v)``. With ``f`` the first position of X's value (ties), the
    largest of those below ``f/N`` is ``y = f/N - v·(1 - W^(1/c))`` for a uniform ``W`` (none
    if ``y < 0``): ``t = d[floor(y·N)]``, or ``nextafter(X)`` when none (then X is the
    largest). For ``c = N`` (FMR = 1), X lies below every score (``v = 1``, ``f = N``) and
    ``t`` is the smallest resampled score. The law is exact (up to the rounding of float64
    uniforms); only the top ``max floor(v·N) + 1`` scores are sorted.
    """
    n = nonmated.size
    c = int(allowed_false_matches(np.array([fmr]), n)[0])
    if c < n:
        v = rng.beta(c + 1, n - c, n_resamples)
        x_position = np.minimum(np.floor(v * n).astype(np.int64), n - 1)
        ascending = top_sorted(nonmated, int(x_position.max(initial=0)) + 1)  # every position drawn
        top = ascending[::-1]
        first = ascending.size - np.searchsorted(ascending, top[x_position], side="right")  # scores above X
    else:  # FMR = 1: X lies below every score
        v, x_position, first = np.ones(n_resamples), np.zeros(n_resamples, np.int64), np.full(n_resamples, n)
        top = np.sort(nonmated)[::-1]
    w = rng.random(n_resamples)
    with np.errstate(divide="ignore"):  # log(0) = -inf: no draw above X
        y = first / n + v * np.expm1(np.log(w) / c) if c > 0 else np.full(n_resamples, -1.0)
    found = (y >= 0) & (first > 0)
    above = np.clip(np.floor(np.where(found, y, 0.0) * n).astype(np.int64), 0, np.maximum(first - 1, 0))
    return np.where(found, top[above], just_above(top[x_position]))


def pair_jackknife(mated: NDArray, nonmated: NDArray, fmr: float) -> list[tuple[NDArray, NDArray]]:
    """TMR at a target FMR with each comparison left out, as (values, how many give each).

    One entry per class (the mated scores, then the non-mated ones), as the BCa acceleration
    of :func:`biofair.bootstrap` reads them. Leaving out a mated score keeps the threshold
    ``t`` and removes one true match if the score is at or above it: ``(A - 1)/(M - 1)`` for
    the ``A`` scores at or above ``t``, ``A/(M - 1)`` for the others. Leaving out a non-mated
    score keeps the mated scores and sets the threshold with ``N - 1`` scores, allowing ``c``
    false matches: with the distinct scores ``u_0 > u_1 > ...`` occurring ``n_k`` times and
    ``G_k = n_0 + ... + n_k``, let ``K0`` (``K1``) be the last ``k`` with ``G_k <= c``
    (``<= c + 1``). Leaving out a copy of ``u_j`` gives the threshold ``u_K1`` if ``j < K1``
    or ``j = K1`` with another copy, ``u_(K1-1)`` if it was the only copy of ``u_K1``, and
    ``u_K0`` if ``j > K1``; where that index is -1, ``nextafter`` of the largest score left.
    Only the top ``c_N + 2`` non-mated scores are sorted (``c_N >= c`` allowed among all N).
    A class of one comparison is not left out (it adds nothing to the acceleration; see
    :func:`biofair.bootstrap`), as in the plain jackknife: its entry is missing.
    """
    n_mated, n = mated.size, nonmated.size
    mated_sorted = np.sort(mated)
    targets = np.array([fmr])
    largest = top_sorted(nonmated, int(allowed_false_matches(targets, n)[0]) + 2)  # all both rules read
    samples = []
    if n_mated > 1:
        threshold = threshold_at_fmr_sorted(largest, targets, n)
        true_matches = n_mated - int(np.searchsorted(mated_sorted, threshold[0], side="left"))
        mated_values = np.array([(true_matches - 1) / (n_mated - 1), true_matches / (n_mated - 1)])
        mated_counts = np.array([true_matches, n_mated - true_matches])
        samples.append((mated_values[mated_counts > 0], mated_counts[mated_counts > 0]))
    if n < 2:
        return samples

    c = int(allowed_false_matches(targets, n - 1)[0])
    block = largest[::-1][: c + 2]  # descending: all that the rule reads
    starts = np.flatnonzero(np.append(True, block[1:] != block[:-1]))
    values, copies = block[starts], np.diff(np.append(starts, block.size))
    at_or_above = np.cumsum(copies)  # G_k; a last value cut by the block has G_k > c + 1 anyway
    k0, k1 = np.sum(at_or_above <= c) - 1, np.sum(at_or_above <= c + 1) - 1
    # What is left out: a copy of u_0, ..., u_K1 (one group each), or any lower score (one group).
    left_out = np.arange(k1 + 2)
    only_copy = np.append(copies[: k1 + 1] == 1, False)
    chosen = np.where(left_out <= k1, np.where((left_out == k1) & only_copy, k1 - 1, k1), k0)
    largest_left = np.where((left_out == 0) & only_copy, values[min(1, values.size - 1)], values[0])
    thresholds = np.where(chosen >= 0, values[np.maximum(chosen, 0)], just_above(largest_left))
    counts = np.append(copies[: k1 + 1], n - (at_or_above[k1] if k1 >= 0 else 0))
    kept = counts > 0
    return [*samples, (tmr_sorted(mated_sorted, thresholds[kept]), counts[kept])]


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
    for start, stop in parts(n_resamples, part=batch):
        rows = slice(start, stop)
        counted = np.cumsum(weights[rows][:, codes[:top]], axis=1)[:, ends]  # draws >= each value
        present = np.diff(counted, axis=1, prepend=0) > 0
        within = counted[:, -1] > allowed[rows]  # the crossing lies inside the block
        fits = np.sum(counted <= allowed[rows, None], axis=1)  # values whose count is allowed
        last_present = np.maximum.accumulate(np.where(present, np.arange(values.size), -1), axis=1)
        chosen = np.where(fits > 0, last_present[np.arange(counted.shape[0]), np.maximum(fits - 1, 0)], -1)
        first_present = np.where(present.any(axis=1), np.argmax(present, axis=1), -1)
        found = np.where(chosen >= 0, values[np.maximum(chosen, 0)],
                         just_above(values[np.maximum(first_present, 0)]))
        ok = within & ((chosen >= 0) | (first_present >= 0))
        thresholds[rows] = np.where(ok, found, np.nan)
    for b in np.flatnonzero(np.isnan(thresholds)):  # the threshold lies below the block
        resample = np.sort(np.repeat(nonmated, weights[b][clusters]))
        thresholds[b] = threshold_at_fmr_sorted(resample, np.array([fmr]))[0]
    return thresholds
