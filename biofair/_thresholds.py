"""The threshold at a target FMR and the resolution of that target (SPEC section 1).

Shared by every function that sets a threshold at a target rate, in memory and out of core.

Resolution, in floating point: with ``N`` comparisons, a target ``fmr`` allows ``c`` false
matches, the largest count with ``c / N <= fmr`` (the comparison the threshold rule itself
makes between an achieved and a target rate). The target is *resolved* iff ``c >= 3`` (rule
of three) and *precise* iff ``c >= 30`` (rule of thirty). In exact arithmetic ``c >= 3`` is
``fmr·N >= 3``; computed as ``3 / N <= fmr`` it does not depend on how ``fmr·N`` rounds
(``3e-4 * 10_000`` is ``2.9999999999999996`` in floating point, yet 3e-4 is exactly the FMR of
3 false matches in 10,000).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import just_above
from biofair._warnings import warn
from biofair.exceptions import InsufficientComparisonsWarning

#: Fewest false matches a resolved target allows (rule of three).
RESOLVED = 3
#: Fewest false matches a precise target allows (rule of thirty).
PRECISE = 30


def allowed_false_matches(fmr: NDArray, n_nonmated: int | NDArray[np.int64]) -> NDArray[np.int64]:
    """Largest count c with ``c / N <= fmr`` in floating point, for each target (and its own N,
    when ``n_nonmated`` is an array of them)."""
    count = np.floor(fmr * n_nonmated).astype(np.int64)
    count += (count + 1) / n_nonmated <= fmr
    count -= count / n_nonmated > fmr
    return count


def threshold_at_fmr_sorted(
    nonmated_sorted: NDArray, fmr: NDArray, n_nonmated: int | None = None
) -> NDArray[np.float64]:
    """``threshold_at_fmr`` on ascending, validated scores and validated targets.

    ``nonmated_sorted`` may hold only the largest of ``n_nonmated`` scores (see
    :func:`largest_sorted`), as long as they are more than the false matches any target
    allows: the rule reads nothing below them.
    """
    n_nonmated = nonmated_sorted.size if n_nonmated is None else n_nonmated
    offset = n_nonmated - nonmated_sorted.size  # scores left out, all below those given
    allowed = allowed_false_matches(fmr, n_nonmated)
    # Candidate: the score whose rank from the top is ``allowed``; if ties reach below
    # it, the rule needs the next distinct score above the tied block. A tied block that
    # reaches below the scores given starts below them too (``first`` is then too high,
    # but still below ``n_nonmated - allowed``: the same decision).
    index = np.minimum(n_nonmated - allowed, n_nonmated - 1)
    candidate = nonmated_sorted[index - offset]
    first = np.searchsorted(nonmated_sorted, candidate, side="left") + offset
    after = np.searchsorted(nonmated_sorted, candidate, side="right") + offset
    top = just_above(np.float64(nonmated_sorted[-1]))
    above = np.where(after < n_nonmated, nonmated_sorted[np.minimum(after, n_nonmated - 1) - offset], top)
    thresholds = np.where(first >= n_nonmated - allowed, candidate, above)
    return np.where(allowed == 0, top, thresholds) + 0.0  # + 0.0: -0.0 and 0.0 give 0.0, whichever sorted first


def at_or_above_runs(runs: list[NDArray], values: ArrayLike) -> NDArray[np.int64]:
    """How many scores of the union of ascending arrays are at or above each value (one
    ``searchsorted`` per array)."""
    return sum(r.size - np.searchsorted(r, values, side="left") for r in runs)


def threshold_at_fmr_runs(runs: list[NDArray], fmr: NDArray) -> NDArray[np.float64]:
    """:func:`threshold_at_fmr_sorted` of the union of ascending arrays, without merging them.

    The rule, restated: with ``c`` allowed false matches, the threshold is the ``c``-th
    largest score ``v`` if at most ``c`` scores reach it (ties), else the next larger score,
    else ``nextafter(max, +inf)`` (always when ``c = 0``). ``fmr`` is one-dimensional.

    ``v`` is bracketed by a sample: every ``s``-th score of each of the ``R`` runs from its
    largest down, ``s = isqrt(N / (2R + 1))``, sorted together. Of the ``g`` scores of a run
    at or above any value, ``ceil(g / s)`` are sampled, so at least ``c`` scores reach the
    sample ``R`` places below the ``ceil(c / s)``-th largest one, and fewer than ``c`` reach
    the next sample above that one. Counting the scores at or above each distinct sample in
    between (about ``R`` of them; ``searchsorted`` in every run) finds two consecutive
    samples ``u < w`` with ``#{>= u} >= c > #{>= w}``: ``v`` is ``u`` or one of the scores
    strictly between them, fewer than ``s`` per run, which are gathered and sorted. Cost: a
    sort of ``N / s`` samples, and per target one of at most ``R·s`` scores, however many
    scores tie.
    """
    runs = [r for r in runs if r.size]
    n_scores = sum(r.size for r in runs)
    allowed = allowed_false_matches(fmr, n_scores)
    counted = np.maximum(allowed, 1)  # c = 0 has no c-th largest score: its threshold is top
    top = just_above(max(float(r[-1]) for r in runs))
    stride = max(1, math.isqrt(n_scores // (2 * len(runs) + 1)))
    sample = np.sort(np.concatenate([r[::-1][::stride] for r in runs]))

    # per target: the distinct samples from R places below the ceil(c/s)-th largest one up
    # to it (-inf if there are fewer), then the next larger sample (+inf if none)
    wanted = -(-counted // stride)  # ceil(c / s)
    last, first = sample.size - wanted, sample.size - wanted - len(runs)
    after = np.searchsorted(sample, sample[last], side="right")
    candidates = [np.concatenate([[-np.inf] if lowest < 0 else [], np.unique(sample[max(lowest, 0) : highest + 1]),
                                  sample[larger : larger + 1] if larger < sample.size else [np.inf]])
                  for lowest, highest, larger in zip(first, last, after)]
    reach = np.split(at_or_above_runs(runs, np.concatenate(candidates)),
                     np.cumsum([c.size for c in candidates])[:-1])
    pick = [np.flatnonzero(r >= c)[-1] for r, c in zip(reach, counted)]  # u; w follows it
    low = np.array([c[i] for c, i in zip(candidates, pick)])
    high = np.array([c[i + 1] for c, i in zip(candidates, pick)])
    starts = [np.searchsorted(r, low, side="right") for r in runs]
    stops = [np.searchsorted(r, high, side="left") for r in runs]
    thresholds = np.full(allowed.size, top)
    for t in np.flatnonzero(allowed):
        count = allowed[t]
        between = np.sort(np.concatenate([r[begin[t] : end[t]] for r, begin, end in zip(runs, starts, stops)]))
        above_low = reach[t][pick[t] + 1] + between.size  # scores above u
        if above_low >= count:  # v lies between u and w
            value = between[above_low - count]
            reached = above_low - np.searchsorted(between, value, side="left")
            following = np.searchsorted(between, value, side="right")
            larger = between[following] if following < between.size else high[t]
        else:  # v is u
            value, reached = low[t], reach[t][pick[t]]
            larger = between[0] if between.size else high[t]
        if reached <= count:
            thresholds[t] = value
        elif larger < np.inf:
            thresholds[t] = larger
    return thresholds + 0.0  # -0.0 and 0.0 give 0.0, as threshold_at_fmr_sorted


def largest_sorted(scores: NDArray, fmr: NDArray) -> NDArray:
    """The scores :func:`threshold_at_fmr_sorted` reads for targets ``fmr``, ascending.

    The ``c + 1`` largest, ``c`` the most false matches a target allows, found by
    ``np.partition`` in linear time and then sorted: far less work than sorting all of
    them when the targets are small.
    """
    count = int(np.max(allowed_false_matches(np.asarray(fmr, dtype=np.float64), scores.size), initial=0)) + 1
    return top_sorted(scores, count)


def top_sorted(scores: NDArray, count: int) -> NDArray:
    """The ``count`` largest scores (all if fewer), ascending: ``np.partition``, then a sort."""
    count = min(count, scores.size)
    if 2 * count > scores.size:
        return np.sort(scores)
    return np.sort(np.partition(scores, scores.size - count)[scores.size - count :])


def resolution(targets: ArrayLike, n: int | NDArray[np.int64]) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``(resolved, precise)`` of each target rate with ``n`` comparisons, one count for all or
    one per target (module notes)."""
    allowed = allowed_false_matches(np.asarray(targets, dtype=np.float64), n)
    return allowed >= RESOLVED, allowed >= PRECISE


def rate_resolution(targets: NDArray, errors: NDArray, comparisons: NDArray) -> tuple[NDArray, NDArray]:
    """``(resolved, precise)`` of each group's rate: the rate in question, the larger of the
    rate asked about (``targets``) and the observed rate ``errors / comparisons``, allows at
    least 3 (30) errors among the comparisons (:func:`resolution`): ``target·n >= 3`` or
    ``errors >= 3``, as the observed rate allows exactly ``errors``. Neither without
    comparisons."""
    some = comparisons > 0
    n = np.maximum(comparisons, 1)  # no comparisons: neither, whatever the rate
    resolved, precise = resolution(np.fmax(targets, errors / n), n)
    return resolved & some, precise & some


#: How the warning ends for a function that returns a table, whose rows say ``resolved``.
MARKED_UNRESOLVED = "such rows are marked unresolved"
#: How the warning ends for a function that returns numbers, with no row to mark unresolved.
RETURNED_UNRESOLVED = "read the value returned for it as unresolved"


def warn_unresolved(
    targets: ArrayLike,
    n: int,
    *,
    rate: str = "FMR",
    counted: str = "non-mated comparisons",
    errors: str = "false matches",
    consequence: str = MARKED_UNRESOLVED,
) -> NDArray[np.bool_]:
    """Warn for the targets the data cannot resolve; return the mask of resolved targets.
    ``consequence`` ends the message: what the caller's result does about it."""
    values = np.asarray(targets, dtype=np.float64)
    resolved, _ = resolution(values, n)
    if not resolved.all():
        bad = np.unique(values[~resolved])
        target, is_, it = ("targets", "are", "each") if bad.size > 1 else ("target", "is", "it")
        bound, digits = RESOLVED / n, 3
        while digits < 17 and f"{bad.max():.{digits}g}" == f"{bound:.{digits}g}":  # "0.0003 is below 0.0003"
            digits += 1
        warn(
            f"{target} {rate} {', '.join(f'{x:.{max(digits, 6)}g}' for x in bad)} {is_} below {RESOLVED}/N = "
            f"{bound:.{digits}g} (N = {n} {counted}): {it} allows fewer than {RESOLVED} {errors}, too "
            f"few to show that the data meet it (rule of three); {consequence}",
            InsufficientComparisonsWarning,
        )
    return resolved


def resolution_columns(targets: ArrayLike, n: int, at_or_above: ArrayLike) -> dict[str, NDArray]:
    """The columns ``k``, ``resolved`` and ``precise`` of a table of rates at targets.

    ``at_or_above`` holds, per target, the comparisons at or above its threshold among the
    ``n`` it was set on.
    """
    resolved, precise = resolution(targets, n)
    return {"k": np.asarray(at_or_above, dtype=np.int64), "resolved": resolved, "precise": precise}
