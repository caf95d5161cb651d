"""Distribution fairness: DFI, CEI and the automatic CEIᴬ.

All three compare each group's score histogram with the mean histogram of all groups by a
Kullback-Leibler divergence in bits. With ``m`` the mean of K pmfs, ``KL(p_i || m) <=
log2 K``, so every index lies in [0, 1] (1 = identical histograms) and no epsilon is
needed. Read more in the chapters "Find bias in the tails" and "Choose CEI's parameters"
(``notebooks/04`` and ``05``).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import expit
from scipy.stats import norm

from biofair._typing import By, Combine, MeanTail, ScoreKind
from biofair._validation import (
    as_number,
    check_bins,
    check_choice,
    power_of_two_exponent,
    power_of_two_scaled,
)
from biofair._warnings import warn
from biofair.decidability import _deviation_exponent, _mean_and_variance, _middle
from biofair.exceptions import CoarseHistogramWarning, InsufficientComparisonsWarning, SchemaError
from biofair.groups import ScoresByGroup, scores_by_group


class EquityIndex(NamedTuple):
    """A distribution fairness index: both variants, the divergences and the parameters.

    Returned by DFI, CEI and CEIᴬ, in memory and out of core.

    Attributes
    ----------
    normal : float
        ``1 - Σ S_i / (K log2 K)``, in [0, 1] (beyond it only with CEI's
        ``mean_tail="split_mean"``); 1 = identical histograms.
    extreme : float
        ``1 - max S_i / log2 K``, in [0, 1] (the same exception): the worst group's divergence.
    divergences : pandas.Series
        ``S_i`` per group, in bits.
    parameters : dict
        Every setting used (bins, split percentile(s), weights, N), to report beside the value.

    See Also
    --------
    biofair.distribution_fairness_index : DFI.
    biofair.comprehensive_equity_index : CEI.
    biofair.automatic_comprehensive_equity_index : CEIᴬ.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.beta_scenario("balanced", n_groups=2, n_mated=500, n_nonmated=500, rng=0)
    >>> index = bf.distribution_fairness_index(table, bins=20)
    >>> sorted(index.parameters)
    ['bins', 'combine']
    """

    normal: float
    extreme: float
    divergences: pd.Series
    parameters: dict[str, Any]


def _kl_divergence_bits(p: NDArray, q: NDArray) -> NDArray[np.float64]:
    """``Σ_b p_b log2(p_b / q_b)`` along the last axis, with ``0 log 0 = 0``.

    ``q`` must be positive wherever ``p`` is (true for the mean of pmfs that include p). Where
    ``p_b / q_b`` overflows (a ``q_b`` below about 1e-308: CEI's ``smoothing=1e-310`` in a bin
    that the mean's part leaves empty), its logarithm is ``log2 p_b - log2 q_b``, about 1,030
    bits, not inf.
    """
    with np.errstate(over="ignore"):
        ratio = np.divide(p, q, out=np.ones_like(p), where=p > 0)
    logs = np.log2(ratio)
    overflowed = np.isinf(logs)
    if overflowed.any():  # where p > 0
        logs[overflowed] = np.log2(p[overflowed]) - np.log2(np.broadcast_to(q, p.shape)[overflowed])
    return np.sum(p * logs, axis=-1)


def _mean_pmf(pmfs: NDArray) -> NDArray[np.float64]:
    """The mean of the rows of ``pmfs`` (groups x bins), whatever the groups' order.

    The rows are summed in ascending order per bin, and each bin is kept between its smallest
    and largest row value, which rounding can cross: identical rows are their own mean, so
    their divergences are exactly 0 (ten identical groups gave DFI 0.9999999999999999).
    """
    ordered = np.sort(pmfs, axis=0)
    return np.clip(ordered.mean(axis=0), ordered[0], ordered[-1])


def _divergences_from_mean(pmfs: NDArray) -> NDArray[np.float64]:
    """``S_i = KL(p_i || m)`` in bits of every row against the rows' mean ``m``.

    Kept in ``[0, log2 K]``, the bounds of a divergence from a mean of K pmfs that rounding
    can cross by an ulp (seven groups with disjoint histograms gave DFI -2.2e-16).
    """
    return np.clip(_kl_divergence_bits(pmfs, _mean_pmf(pmfs)), 0.0, np.log2(pmfs.shape[0]))


def _sorted_counts(values: NDArray, edges: NDArray) -> NDArray[np.int64]:
    """``np.histogram(values, edges)[0]`` of ascending ``values``, by binary search.

    Bin ``i`` holds ``edges[i] <= x < edges[i+1]``, the last bin also ``x == edges[-1]``.
    """
    positions = np.searchsorted(values, edges, side="left")
    positions[-1] = np.searchsorted(values, edges[-1], side="right")
    return np.diff(positions)


def _class_counts(samples: list[NDArray], edges: NDArray) -> NDArray[np.int64]:
    """One histogram per ascending sample on the given edges (samples x bins)."""
    return np.array([_sorted_counts(s, edges) for s in samples], dtype=np.int64).reshape(len(samples), -1)


def _normalised(counts: NDArray) -> NDArray[np.float64]:
    """Each row divided by its sum: a pmf per group."""
    return counts / counts.sum(axis=1, keepdims=True)


def _edges(samples: list[NDArray], bins: int) -> NDArray[np.float64]:
    """Equal-width bin edges over the pooled range of ascending samples (as np.histogram)."""
    present = [s for s in samples if s.size]
    return _range_edges(min(s[0] for s in present), max(s[-1] for s in present), bins)


def _range_edges(low: float, high: float, bins: int, *, spanned: str = "the scores") -> NDArray[np.float64]:
    """``bins`` equal-width bins from ``low`` to ``high``: np.histogram's edges for that range.

    A range wider than the largest float (scores spanning ±1.8e308) is binned at half
    scale and doubled back, which is exact for powers of two. One score (``low == high``)
    NumPy centres in a range of width 1, which rounding loses from 1e16 on: then the bins are
    one ulp of the score wide, the score the edge farthest from zero (every sample that
    shares the range is that score, so any bin holding it gives the same pmfs). A wider
    range holding fewer than ``bins + 1`` floats (scores a few ulps apart) cannot be cut
    into ``bins`` equal widths: a SchemaError says so (``spanned``: the scores the range is
    that of), where NumPy's would not name the scores.
    """
    try:
        low, high = float(low), float(high)  # float64 edges for float32 scores too: as a float64 copy bins them
        if np.isfinite(high - low):
            return np.histogram_bin_edges(np.array([low, high]), bins=bins)
        return 2.0 * np.histogram_bin_edges(np.array([low / 2.0, high / 2.0]), bins=bins)
    except ValueError as error:  # NumPy: "Too many bins for data range"
        if low == high:  # exact multiples of the score's ulp, toward zero: no overflow
            value = float(low)
            steps = np.arange(bins + 1) * abs(value - np.nextafter(value, 0.0))  # the ulp toward zero
            return value - steps[::-1] if value > 0 else value + steps
        raise SchemaError(
            f"{spanned} span only [{float(low)!r}, {float(high)!r}]: floating point cannot cut that range into "
            f"{bins} equal-width bins: give fewer bins (bins=, where the function takes it), or spread the scores "
            "out (a·score + b, with a > 0, gives the same histograms)"
        ) from error


def _warn_if_coarse(samples: list[NDArray], counts: NDArray, edges: NDArray, histogram: str) -> None:
    """Warn (:class:`~biofair.CoarseHistogramWarning`) when the bins barely resolve the scores.

    ``counts`` are the histograms (groups x bins) of the ascending ``samples`` on ``edges``.
    The warning is given when the central 90% of the pooled counts fall in fewer than a
    tenth of the bins, the other 10% stretch the range, and those few bins merge distinct
    scores (more distinct scores than bins): a few extreme scores have squeezed the bulk
    into a handful of bins, where every group looks alike. A bulk of tied scores (integer
    scores, most of them 0) loses nothing to the binning and gives no warning.
    """
    cumulative = np.cumsum(np.sum(counts, axis=0))
    total, bins = cumulative[-1], cumulative.size
    if total == 0:
        return
    first = int(np.searchsorted(cumulative, 0.05 * total, side="right"))  # holds the 5th percentile
    last = int(np.searchsorted(cumulative, 0.95 * total, side="left"))  # holds the 95th
    span = last - first + 1
    stretched = (cumulative[first - 1] if first else 0) > 0 or cumulative[last] < total
    if 10 * span >= bins or not stretched:
        return
    low, high = edges[first], edges[last + 1]
    end = "right" if last == bins - 1 else "left"  # the last bin holds its upper edge
    bulk = [s[np.searchsorted(s, low, side="left") : np.searchsorted(s, high, side=end)] for s in samples]
    if np.unique(np.concatenate(bulk)).size <= span:
        return
    warn(
        f"{histogram} barely resolves the scores: the central 90% of them fall in {span} of its "
        f"{bins} equal-width bins, [{float(low):.4g}, {float(high):.4g}], while the range is "
        f"[{float(edges[0]):.4g}, {float(edges[-1]):.4g}]; extreme scores (a sentinel value, another "
        "unit, a long tail?) stretch it and make the groups look alike",
        CoarseHistogramWarning,
    )


def _index_from_divergences(divergences: NDArray, names: list[str], parameters: dict[str, Any]) -> EquityIndex:
    k = len(names)
    return EquityIndex(
        normal=float(1.0 - math.fsum(divergences) / (k * np.log2(k))),  # fsum: the same in any group order
        extreme=float(1.0 - divergences.max() / np.log2(k)),
        divergences=pd.Series(divergences, index=pd.Index(names, name="group"), name="divergence"),
        parameters=parameters,
    )



def distribution_fairness_index(
    scores: pd.DataFrame | ScoresByGroup,
    *,
    by: By = "group",
    bins: int = 100,
    combine: Combine = "pooled",
) -> EquityIndex:
    """Distribution Fairness Index (DFI): how much the groups' score histograms differ.

    Read more in the chapter "Find bias in the tails".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        Score table with a group column (homogeneous non-mated pairs per group).
        A :func:`biofair.scores_by_group` of it lets several indices share one grouping.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    bins : int, default 100
        Equal-width bins over the pooled range of the groups' scores, mated and homogeneous
        non-mated (cross-group pairs, which belong to no group, do not widen it).
    combine : {"pooled", "equal"}, default "pooled"
        ``"pooled"``: a group's pmf is the histogram of all its scores, mated and
        non-mated together (so the more numerous class dominates); ``"equal"``: the mean of
        its mated and its non-mated pmfs.

    Returns
    -------
    EquityIndex
        ``normal`` (DFI_N), ``extreme`` (DFI_E), ``divergences`` S_i and ``parameters``.

    Raises
    ------
    SchemaError
        When ``scores`` is an invalid score table (see :func:`biofair.validate_scores`) or
        holds several systems or splits, lacks a group column of ``by`` or has rows without a
        group label, its group labels cannot be named one way (see
        :func:`biofair.group_labels`), it has fewer than two groups, or a group has no mated or
        no homogeneous non-mated comparison (named, with its counts); or when the scores span a
        range too narrow for ``bins`` equal-width float64 bins (e.g. 0.5 and the next float
        above it).
    ValueError
        When ``bins`` is below 1 or above 1,000,000, ``combine`` is not "pooled" or "equal",
        ``by`` is empty, names a column twice or names "score" or "mated", or ``scores`` is a
        ``ScoresByGroup`` formed with another ``by``.
    TypeError
        When ``scores`` is neither a DataFrame nor a ``ScoresByGroup``, ``by`` is not a column
        name or a list of column names, or ``bins`` is not an integer.

    See Also
    --------
    biofair.comprehensive_equity_index : Weighs the tails of the histograms apart.
    biofair.partitions.distribution_fairness_index : The same index over a partitioned score set.

    Notes
    -----
    ``S_i = KL(p_i || m)`` in bits with ``m = (1/K) Σ p_i``;
    ``DFI_N = 1 - Σ S_i / (K log2 K)``, ``DFI_E = 1 - max S_i / log2 K``. The bins are
    equal-width on the score scale, so the index is not rank-based: an increasing transform
    of the scores (``exp``) changes it, where FDR does not; scaling by a power of two does not.

    References
    ----------
    K. Kotwal and S. Marcel, distribution fairness index, as restated in "Balancing Tails
    when Comparing Distributions: Comprehensive Equity Index (CEI) with Application to Bias
    Evaluation in Operational Face Biometrics" (its eq. 5-7).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.beta_scenario("BC", n_groups=2, n_mated=2_000, n_nonmated=2_000, rng=0)
    >>> index = bf.distribution_fairness_index(table)  # BC moves the centre of group B's non-mated scores
    >>> round(index.normal, 3), round(index.extreme, 3)
    (0.686, 0.652)
    """
    bins = check_bins(bins)
    check_choice(combine, "combine", ("pooled", "equal"))
    groups = scores_by_group(scores, by=by)
    samples = [s for g in groups.values() for s in g]
    edges = _edges(samples, bins)
    mated = np.array([_sorted_counts(g.mated, edges) for g in groups.values()])
    nonmated = np.array([_sorted_counts(g.nonmated, edges) for g in groups.values()])
    _warn_if_coarse(samples, mated + nonmated, edges, "DFI's histogram")
    return _dfi_from_counts(list(groups), mated, nonmated, combine=combine)


def _dfi_from_counts(
    names: list[str], mated: NDArray, nonmated: NDArray, *, combine: str = "pooled"
) -> EquityIndex:
    """DFI from per-group histogram counts of each class on common edges (groups x bins)."""
    mated, nonmated = mated.astype(np.float64), nonmated.astype(np.float64)
    if combine == "pooled":  # the histogram of all of a group's scores
        counts = mated + nonmated
        pmfs = counts / counts.sum(axis=1, keepdims=True)
    else:
        pmfs = (mated / mated.sum(axis=1, keepdims=True) + nonmated / nonmated.sum(axis=1, keepdims=True)) / 2
    divergences = _divergences_from_mean(pmfs)
    return _index_from_divergences(divergences, names, {"bins": mated.shape[1], "combine": combine})


def _percentile_rank(size: int, percentile: float) -> int:
    """``k`` with np.percentile's (linear) value between the k-th and (k+1)-th smallest."""
    return min(int(np.floor((size - 1) * np.true_divide(percentile, 100))), size - 1)


def _percentile_between(lower: float, upper: float, size: int, percentile: float) -> float:
    """``np.percentile(v, percentile)`` of an ascending ``v`` of ``size`` scores, from
    ``lower = v[k]`` and ``upper = v[k+1]`` (k of :func:`_percentile_rank`): the same
    fraction ``gamma = (size-1)·q - k`` and the same interpolation as NumPy.

    Where ``upper - lower`` overflows (scores spanning ±1.8e308), NumPy's interpolation
    gives ±inf, outside the scores; both are then halved, interpolated and doubled back
    (exact at such magnitudes), which gives the finite value between them.
    """
    virtual = (size - 1) * np.true_divide(percentile, 100)
    lower, upper = float(lower), float(upper)
    if virtual >= size - 1:
        return upper
    gamma = float(virtual - np.floor(virtual))
    if np.isfinite(upper - lower):
        return _lerp(lower, upper, gamma)
    return 2.0 * _lerp(lower / 2.0, upper / 2.0, gamma)


def _lerp(lower: float, upper: float, gamma: float) -> float:
    """NumPy's linear interpolation between two float64 values (``np.quantile`` of the pair
    at ``gamma``, the same operations in the same order, without its overhead): from the
    lower value below ``gamma = 0.5``, from the upper one from there on."""
    difference = upper - lower
    return lower + difference * gamma if gamma < 0.5 else upper - difference * (1.0 - gamma)


def _tail_limit(lower: float, upper: float, size: int, percentile: float, kind: ScoreKind) -> float:
    """The innermost score of a group's CEI tail: its first (non-mated) or last (mated) score.

    ``lower = v[k]`` and ``upper = v[k+1]`` are the two ascending scores the ``percentile``-th
    (``P_split`` non-mated, ``100 - P_split`` mated) lies between (k of
    :func:`_percentile_rank`), at the fraction ``gamma`` of the gap that NumPy reads. That
    percentile is ``lower`` where ``gamma = 0`` and strictly between the two scores otherwise,
    so the non-mated tail (scores at or above it) starts at ``lower`` or at ``upper``, and the
    mated tail (scores at or below it) ends at ``lower``. It is decided so, not by comparing the
    scores with the interpolated value, which rounds onto ``lower`` or ``upper`` when the gap is
    a few ulps (adjacent scores near 1e15), and the tail took that score too.
    """
    virtual = (size - 1) * np.true_divide(percentile, 100)  # as np.percentile and _percentile_between
    return float(upper if kind == "nonmated" and virtual != np.floor(virtual) else lower)


def _sorted_percentile(values: NDArray, percentile: float) -> float:
    """``np.percentile(values, percentile)`` of ascending ``values``, read at its two order
    statistics instead of partitioning a copy."""
    k = _percentile_rank(values.size, percentile)
    return _percentile_between(values[k], values[min(k + 1, values.size - 1)], values.size, percentile)


def _split_parts(
    samples: list[NDArray], names: list[str], kind: ScoreKind, percentiles: NDArray,
    *, tail_sizes: NDArray | None = None,
) -> tuple[list[NDArray], list[NDArray]]:
    """Each group's tail and centre, split at its own percentile.

    ``tail_sizes`` (CEIᴬ): per group, the number ``j`` of its scores beyond ``mu ± N·sigma``,
    which form its tail where ``j > 0``. Its percentile ``100 (1 - j/n)`` lies a fraction
    ``j/n`` of the gap between the two scores around that split from the inner one, but is
    not re-found from it: computed, it rounds onto the inner score when the gap is below
    ``n / 2j`` ulps, and the tail took that score too (two scores 1 ulp apart around the split
    of a group of 1,002).
    """
    tails, centres = [], []
    for i, (name, values, percentile) in enumerate(zip(names, samples, percentiles)):  # values ascending
        counted = tail_sizes is not None and tail_sizes[i] > 0
        q = percentile if kind == "nonmated" else 100.0 - percentile
        k = _percentile_rank(values.size, q)
        limit = _tail_limit(values[k], values[min(k + 1, values.size - 1)], values.size, q, kind)
        if kind == "nonmated":  # right tail, scores >= the split: the impostors that get accepted
            split = values.size - tail_sizes[i] if counted else np.searchsorted(values, limit, side="left")
            tail, centre = values[split:], values[:split]
        else:  # left tail, scores <= the split: the genuine users that get rejected
            split = tail_sizes[i] if counted else np.searchsorted(values, limit, side="right")
            tail, centre = values[:split], values[split:]
        if centre.size == 0:
            end = values[0] if kind == "nonmated" else values[-1]  # the tie that the split falls on
            raise _empty_centre(name, values.size, kind, percentile,
                                tied=int(np.count_nonzero(values == end)), value=float(end))
        tails.append(tail)
        centres.append(centre)
    return tails, centres


def _empty_centre(
    name: str, size: int, kind: str, percentile: float, *, tied: int | None = None, value: float | None = None
) -> SchemaError:
    """The error for a group whose every score falls in the tail: its split percentile is its
    lowest non-mated (highest mated) score, ``value``, which ``tied`` of its ``size`` scores
    share (both optional).

    With ``k`` of ``n`` scores tied there (``1 < k < n``), the split leaves them in the centre
    from a percentile above ``100 (k - 1) / (n - 1)`` on, which the message gives.
    """
    scores = f"its one {kind} score falls" if size == 1 else f"all {size:,} {kind} scores fall"
    message = (f"group {name!r}: {scores} in the tail at percentile {percentile:g}; "
               "the centre is empty (too few or tied scores)")
    if tied is not None and 1 < tied < size:
        end = "lowest" if kind == "nonmated" else "highest"
        message += (f": {tied} of them share its {end} score, {value!r}, where the split falls; use a percentile "
                    f"above {100.0 * (tied - 1) / (size - 1):.6g} (the tied scores then form the centre), or remove "
                    "the tied scores if they stand for failed comparisons")
    return SchemaError(message)


def _smoothed(pmfs: NDArray, smoothing: float) -> NDArray:
    """Add ``smoothing`` to every bin and renormalise (keeps every KL divergence finite)."""
    pmfs = pmfs + smoothing
    return pmfs / pmfs.sum(axis=-1, keepdims=True)


_REACHED = 1e-12  # a cumulative share this close to its target reaches it (far above rounding, far below a count)


def _mean_split_divergences(
    tail_counts: NDArray, centre_counts: NDArray, kind: ScoreKind, percentile: float, smoothing: float
) -> tuple[NDArray, NDArray]:
    """The second reading: the mean distribution is split at its own percentile.

    Tails and centres share the bins of the whole class, so ``tail + centre`` counts are
    each group's whole histogram.
    """
    bins = tail_counts.shape[1]
    mean = _mean_pmf(_normalised(tail_counts + centre_counts))
    # The tail: the fewest outer bins (right for non-mated, left for mated) holding (100 - P)% of
    # the mean's mass, summed from the tail's end; a share reached exactly is reached whatever the
    # rounding of the sums (1 - 95/100 is 0.050000000000000044: a tie fell either side of it).
    outward = mean[::-1] if kind == "nonmated" else mean
    size = 1 + np.searchsorted(np.cumsum(outward), (100.0 - percentile) / 100.0 - _REACHED)
    in_tail = np.arange(bins) >= bins - size if kind == "nonmated" else np.arange(bins) < size

    def part(mask: NDArray) -> NDArray:
        mass = np.where(mask, mean, 0.0)
        if mass.sum() == 0.0:
            raise SchemaError(
                f"the mean {kind} distribution has an empty tail or centre at percentile "
                f"{percentile:g}: its mass fills {np.count_nonzero(mean)} of {bins} bins; use "
                "more bins, or, if a few outlying scores stretch the pooled range, remove them"
            )
        return _smoothed(mass / mass.sum(), smoothing)

    return (
        _kl_divergence_bits(_smoothed(_normalised(tail_counts), smoothing), part(in_tail)),
        _kl_divergence_bits(_smoothed(_normalised(centre_counts), smoothing), part(~in_tail)),
    )


def _class_samples(scores: pd.DataFrame, by: By, kind: ScoreKind) -> tuple[list[str], list[NDArray]]:
    """Group names and each group's scores of one class."""
    check_choice(kind, "kind", ("mated", "nonmated"))
    groups = scores_by_group(scores, by=by)
    return list(groups), [getattr(g, kind) for g in groups.values()]


def _part_edges(
    tail_ranges: NDArray, centre_ranges: NDArray, bins: int, mean_tail: str
) -> tuple[NDArray, NDArray]:
    """Edges of the tail and centre histograms from each group's (low, high) of each part.

    ``"groups"``: tails share equal-width bins over the union of the tails' ranges,
    centres over the union of the centres'; ``"split_mean"``: both over the whole class
    (the union of both, since a group's tail and centre hold all its scores).
    """
    if mean_tail == "groups":
        return (_range_edges(tail_ranges[:, 0].min(), tail_ranges[:, 1].max(), bins, spanned="the tails' scores"),
                _range_edges(centre_ranges[:, 0].min(), centre_ranges[:, 1].max(), bins,
                             spanned="the centres' scores"))
    ranges = np.concatenate([tail_ranges, centre_ranges])
    edges = _range_edges(ranges[:, 0].min(), ranges[:, 1].max(), bins)
    return edges, edges


def _cei_from_counts(
    tail_counts: NDArray,
    centre_counts: NDArray,
    *,
    kind: ScoreKind,
    percentile: float,
    tail_weight: float,
    mean_tail: str,
    smoothing: float,
) -> NDArray[np.float64]:
    """S'_i = w_t·KL(t_i || m_t) + w_c·KL(c_i || m_c) in bits, from each group's tail and
    centre counts (groups x bins, on the edges of :func:`_part_edges`)."""
    if mean_tail == "groups":
        tail = _divergences_from_mean(_normalised(tail_counts))
        centre = _divergences_from_mean(_normalised(centre_counts))
    else:
        tail, centre = _mean_split_divergences(tail_counts, centre_counts, kind, percentile, smoothing)
    return tail_weight * tail + (1.0 - tail_weight) * centre


def _cei_divergences(
    names: list[str],
    samples: list[NDArray],
    kind: ScoreKind,
    percentiles: NDArray,
    tail_weight: float,
    bins: int,
    mean_tail: str,
    smoothing: float,
    *,
    tail_sizes: NDArray | None = None,
) -> NDArray[np.float64]:
    """CEI's divergences of in-memory samples (ascending, one per group); ``tail_sizes`` as
    for :func:`_split_parts`."""
    tails, centres = _split_parts(samples, names, kind, percentiles, tail_sizes=tail_sizes)

    def ranges(parts: list[NDArray]) -> NDArray:  # no part is empty: _split_parts checks
        return np.array([[p[0], p[-1]] for p in parts])

    tail_edges, centre_edges = _part_edges(ranges(tails), ranges(centres), bins, mean_tail)
    tail_counts, centre_counts = _class_counts(tails, tail_edges), _class_counts(centres, centre_edges)
    name = kind.replace("nonmated", "non-mated")
    if mean_tail == "groups":
        _warn_if_coarse(tails, tail_counts, tail_edges, f"CEI's histogram of the {name} tails")
        _warn_if_coarse(centres, centre_counts, centre_edges, f"CEI's histogram of the {name} centres")
    else:  # one histogram of the whole class, cut where the mean's tail starts
        _warn_if_coarse(samples, tail_counts + centre_counts, tail_edges, f"CEI's histogram of the {name} scores")
    return _cei_from_counts(
        tail_counts, centre_counts, kind=kind, percentile=float(np.mean(percentiles)), tail_weight=tail_weight,
        mean_tail=mean_tail, smoothing=smoothing,
    )


def comprehensive_equity_index(
    scores: pd.DataFrame | ScoresByGroup,
    *,
    kind: ScoreKind = "mated",
    percentile: float = 95.0,
    tail_weight: float = 0.8,
    bins: int = 100,
    by: By = "group",
    mean_tail: MeanTail = "groups",
    smoothing: float = 1e-6,
) -> EquityIndex:
    """Comprehensive Equity Index (CEI) of one class of scores.

    Read more in the chapter "Find bias in the tails".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        Score table with a group column.
        A :func:`biofair.scores_by_group` of it lets several indices share one grouping.
    kind : {"mated", "nonmated"}, default "mated"
        The class compared across groups.
    percentile : float, default 95
        ``P_split`` in (0, 100). Non-mated: a group's tail is its scores at or above its
        own ``P_split``-th percentile (the right tail, false matches); mated: its scores at
        or below its ``(100 - P_split)``-th percentile (the left tail, false non-matches).
    tail_weight : float, default 0.8
        ``w_t`` in [0, 1]; the centre weighs ``w_c = 1 - w_t``.
    bins : int, default 100
        Tail parts share equal-width bins over the union of the groups' tail ranges, centre
        parts over the union of their centre ranges; each part is normalised.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    mean_tail : {"groups", "split_mean"}, default "groups"
        How the mean's parts are formed. ``"groups"`` (the specification's reading):
        ``m_t`` and ``m_c`` are the means of the groups' tail and centre pmfs.
        ``"split_mean"`` (the paper's other sentence): all parts share bins over the
        class's pooled range, and the mean of the groups' whole pmfs is split at its own
        ``P_split``; parts are smoothed by ``smoothing`` per bin, and the index can leave
        [0, 1].
    smoothing : float, default 1e-6
        Mass added to every bin of every part before the KL divergence, ``"split_mean"`` only.

    Returns
    -------
    EquityIndex
        ``normal`` (CEI_N), ``extreme`` (CEI_E), ``divergences`` S'_i, ``parameters``.

    Raises
    ------
    SchemaError
        When ``scores`` is an invalid score table (see :func:`biofair.validate_scores`) or
        holds several systems or splits, lacks a group column of ``by`` or has rows without a
        group label, its group labels cannot be named one way (see
        :func:`biofair.group_labels`), it has fewer than two groups, or a group has no mated or
        no homogeneous non-mated comparison (named, with its counts); or when every score of a
        group's class falls in its tail (an empty centre: too few or tied scores), the tails'
        or the centres' scores span a range too narrow for ``bins`` equal-width float64 bins,
        or, with ``mean_tail="split_mean"``, the mean distribution has an empty tail or centre.
    ValueError
        When ``kind`` is not "mated" or "nonmated", ``percentile`` lies outside (0, 100),
        ``tail_weight`` outside [0, 1], ``smoothing`` is not positive (NaN included),
        ``bins`` is below 1 or above 1,000,000, ``mean_tail`` is not "groups" or
        "split_mean", ``by`` is empty, names a column twice or names "score" or "mated", or
        ``scores`` is a ``ScoresByGroup`` formed with another ``by``.
    TypeError
        When ``scores`` is neither a DataFrame nor a ``ScoresByGroup``, ``by`` is not a column
        name or a list of column names, ``percentile``, ``tail_weight`` or ``smoothing`` is not a number, or
        ``bins`` is not an integer.

    See Also
    --------
    biofair.automatic_comprehensive_equity_index : CEIᴬ, with the split and weight chosen from the data.
    biofair.distribution_fairness_index : DFI, which does not weigh tails apart.
    biofair.permutation_null : What CEI gives when groups do not matter.
    biofair.partitions.comprehensive_equity_index : The same index over a partitioned score set.

    Notes
    -----
    ``S'_i = w_t·KL(t_i || m_t) + w_c·KL(c_i || m_c)`` in bits, with ``m_t`` and ``m_c`` the
    means of the groups' tail and centre pmfs (the project's reading of eq. 8; the paper
    also mentions splitting the mean distribution itself, which can leave [0, 1]).
    ``CEI_N = 1 - Σ S'_i / (K log2 K)``, ``CEI_E = 1 - max S'_i / log2 K``. Binned on the
    score scale as DFI: an increasing transform of the scores changes the index.

    References
    ----------
    "Balancing Tails when Comparing Distributions: Comprehensive Equity Index (CEI) with
    Application to Bias Evaluation in Operational Face Biometrics", eq. 8-10.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.beta_scenario("BG", n_groups=3, n_mated=2_000, n_nonmated=2_000, rng=0)
    >>> mated = bf.comprehensive_equity_index(table, kind="mated")
    >>> nonmated = bf.comprehensive_equity_index(table, kind="nonmated")
    >>> round(mated.extreme, 3), round(nonmated.extreme, 3)  # BG biases the mated tail
    (0.456, 0.736)
    >>> mated.divergences.round(3)  # of the last group, C
    group
    A    0.425
    B    0.437
    C    0.863
    Name: divergence, dtype: float64
    """
    parameters = _cei_parameters(kind=kind, percentile=percentile, tail_weight=tail_weight, bins=bins,
                                mean_tail=mean_tail, smoothing=smoothing)
    names, samples = _class_samples(scores, by, kind)
    percentiles = np.full(len(names), parameters["percentile"])
    divergences = _cei_divergences(  # the checked floats: a Fraction made the divergences Python objects
        names, samples, kind, percentiles, parameters["tail_weight"], parameters["bins"], mean_tail,
        parameters.get("smoothing", 0.0),  # read with mean_tail="split_mean" only
    )
    return _index_from_divergences(divergences, names, parameters)


def _cei_parameters(
    *, kind: str, percentile: float, tail_weight: float, bins: int, mean_tail: str, smoothing: float
) -> dict[str, Any]:
    """CEI's options, checked, as the ``parameters`` of its result."""
    check_choice(kind, "kind", ("mated", "nonmated"))
    percentile = as_number(percentile, "percentile", low=0.0, high=100.0, open_low=True, open_high=True)
    tail_weight = as_number(tail_weight, "tail_weight", low=0.0, high=1.0)
    check_choice(mean_tail, "mean_tail", ("groups", "split_mean"))
    smoothing = as_number(smoothing, "smoothing", low=0.0, open_low=True)  # NaN gave a NaN index, a negative NumPy's error
    parameters = {"kind": kind, "percentile": percentile, "tail_weight": tail_weight,
                  "bins": check_bins(bins), "mean_tail": mean_tail}
    if mean_tail == "split_mean":
        parameters["smoothing"] = smoothing
    return parameters


def automatic_comprehensive_equity_index(
    scores: pd.DataFrame | ScoresByGroup,
    *,
    kind: ScoreKind = "mated",
    n_std: float = 3.0,
    bins: int = 100,
    by: By = "group",
) -> EquityIndex:
    """CEIᴬ: CEI with each group's split percentile and the tail weight chosen from the data.

    Read more in the chapter "Choose CEI's parameters".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        Score table with a group column.
        A :func:`biofair.scores_by_group` of it lets several indices share one grouping.
    kind : {"mated", "nonmated"}, default "mated"
        The class compared across groups.
    n_std : float, default 3
        ``N``: the split sits N standard deviations from the group's mean, towards its
        error tail.
    bins : int, default 100
        As for :func:`biofair.comprehensive_equity_index`.
    by : str or sequence of str, default "group"
        The grouping attribute(s).

    Returns
    -------
    EquityIndex
        ``parameters`` holds ``n_std``, ``percentiles`` (per group), ``tail_mass_ratio``
        (``Delta_i``) and the chosen ``tail_weight``.

    Raises
    ------
    SchemaError
        When ``scores`` is an invalid score table (see :func:`biofair.validate_scores`) or
        holds several systems or splits, lacks a group column of ``by`` or has rows without a
        group label, its group labels cannot be named one way (see
        :func:`biofair.group_labels`), it has fewer than two groups, or a group has no mated or
        no homogeneous non-mated comparison (named, with its counts); or when every score of a
        group's class falls in its tail (an empty centre: tied scores), or the tails' or the
        centres' scores span a range too narrow for ``bins`` equal-width float64 bins.
    ValueError
        When ``kind`` is not "mated" or "nonmated", ``n_std`` is not positive (NaN included),
        ``bins`` is below 1 or above 1,000,000, ``by`` is empty, names a column twice or
        names "score" or "mated", or ``scores`` is a ``ScoresByGroup`` formed with another
        ``by``.
    TypeError
        When ``scores`` is neither a DataFrame nor a ``ScoresByGroup``, ``by`` is not a column
        name or a list of column names, ``n_std`` is not a number, or ``bins`` is not an
        integer.

    Warns
    -----
    InsufficientComparisonsWarning
        When no score of a group lies beyond ``mu ± N·sigma``: its split is its 100th
        percentile and its tail its extreme score(s) alone (a normal tail beyond N = 3 holds
        0.135% of the scores: about 2,200 are needed for 3 of them).

    See Also
    --------
    biofair.comprehensive_equity_index : CEI with fixed split and weight.
    biofair.partitions.automatic_comprehensive_equity_index : The same index over a
        partitioned score set.

    Notes
    -----
    Per group: ``t_i = mu_i + N·sigma_i`` (non-mated) or ``mu_i - N·sigma_i`` (mated) (eq. 11),
    with the population standard deviation (``ddof=0``), and scores strictly beyond ``t_i``;
    ``P_i = 100 ·`` share of its scores on the centre side of ``t_i`` (eq. 12) is its split
    percentile. ``Delta_i = (share beyond t_i) / (1 - Phi(N))``, the empirical tail mass
    over that of a fitted normal (1 for a normal tail: the project's reading of the open
    ``Delta`` of eq. 13). ``s_i = sigmoid(Delta_i)·P_i/100`` and ``w_t = mean_i s_i``
    (eq. 14), then CEI as in :func:`biofair.comprehensive_equity_index`.

    References
    ----------
    "Balancing Tails when Comparing Distributions: Comprehensive Equity Index (CEI) with
    Application to Bias Evaluation in Operational Face Biometrics", eq. 11-14.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.beta_scenario("balanced", n_groups=2, n_mated=2_000, n_nonmated=2_000, rng=0)
    >>> index = bf.automatic_comprehensive_equity_index(table, kind="nonmated", n_std=2)
    >>> bool(0 < index.parameters["tail_weight"] < 1)
    True
    """
    return _automatic_index(scores, kind=kind, n_std=n_std, bins=bins, by=by, warn_empty=True)


def _automatic_index(scores: pd.DataFrame | ScoresByGroup, *, kind: ScoreKind, n_std: float, bins: int, by: By,
                     warn_empty: bool) -> EquityIndex:
    """CEIᴬ; an empty tail is warned about only with ``warn_empty``."""
    n_std = as_number(n_std, "n_std", low=0.0, open_low=True)  # a float: SciPy's tail refused a Fraction
    bins = check_bins(bins)
    names, samples = _class_samples(scores, by, kind)
    counts = np.array([_count_beyond(v, kind, n_std) for v in samples])
    percentiles, parameters = _automatic_parameters(names, counts / np.array([v.size for v in samples]), kind=kind,
                                                    n_std=n_std, bins=bins, warn_empty=warn_empty)
    divergences = _cei_divergences(
        names, samples, kind, percentiles, parameters["tail_weight"], bins, "groups", 0.0, tail_sizes=counts
    )
    return _index_from_divergences(divergences, names, parameters)


def _automatic_index_marked(groups: ScoresByGroup, *, by: By, kind: ScoreKind) -> tuple[EquityIndex, bool]:
    """CEIᴬ at its defaults for a table of results, and whether every group's tail held a score
    (none is split at its 100th percentile): the row's ``resolved``, where the function
    itself would warn, as tables mark the targets they would warn about."""
    index = _automatic_index(groups, kind=kind, n_std=3.0, bins=100, by=by, warn_empty=False)
    return index, max(index.parameters["percentiles"].values()) < 100.0


def _count_beyond(values: NDArray, kind: ScoreKind, n_std: float) -> int:
    """The number of ascending ``values`` beyond ``mu + N·sigma`` (non-mated) or ``mu - N·sigma``
    (mated): ``sum(sign·(v - mu) > N·sigma)``, ``sign = +1`` or ``-1``.

    ``mu`` and ``sigma`` are summed about the middle ``c`` of the range, as d' sums them
    (:func:`biofair.decidability`): ``v - mu = (v - c) - mean(v - c)``. Scores a few ulps apart
    keep their spread, which a mean rounded onto one of them loses, and a constant group has
    ``v - mu = 0`` exactly, so none of its scores lies beyond (with ``np.mean``, 11 copies of
    0.6342052851328924 were all beyond at N = 0.5). As d', a spread below 2^-500 (scores of
    about 1e-150 a few ulps apart) is read in units of a power of two of its own, whose
    squares do not underflow (sigma was 0, and every score above the mean beyond it).
    ``sign·(v - mu)`` is monotone in ``v`` (rounding keeps the order), so on sorted scores the
    comparison changes once and a bisection finds where, in O(log n) instead of O(n).

    Scores within rounding of the limit (2^-36 of the range) are decided in exact integer
    arithmetic (:func:`_beyond_exactly`): a score exactly at ``mu ± N·sigma`` is not beyond it,
    which rounding of the mean and of the square root decided either way (10 mated zeros among
    90 ones at N = 3 lie at mu - 3·sigma = 0: all 10 were beyond, P = 90 for 100).
    """
    if power_of_two_exponent(values[[0, -1]]):  # the extremes set the scale
        (values,) = power_of_two_scaled(values)  # exact; no overflow near ±1.8e308
    sign = 1.0 if kind == "nonmated" else -1.0
    ends = values[[0, -1]].astype(np.float64)
    centre = _middle(ends)
    scale = _deviation_exponent(ends, 0)  # a spread below 2^-500: deviations in units of 2^scale
    offset, variance = _mean_and_variance(values, scale, centre=centre)
    limit = n_std * np.sqrt(variance)
    n = values.size
    outward = range(n) if kind == "nonmated" else range(n - 1, -1, -1)  # sign·(v - mu) ascending along it

    def first(beyond: Callable[[float], bool]) -> int:  # the first position along outward where it holds
        return bisect.bisect_left(range(n), True, key=lambda j: beyond(values[outward[j]]))

    def deviation(v: float) -> float:
        return sign * np.ldexp((v - centre) - offset, -scale)

    rounding = 2.0**-36 * (np.ldexp(ends[1] - ends[0], -scale) + limit)
    start = first(lambda v: deviation(v) > limit)
    if variance > 0 and rounding > 0:  # else a constant group: no score beyond, exactly
        low, high = first(lambda v: deviation(v) >= limit - rounding), first(lambda v: deviation(v) > limit + rounding)
        if low < high:  # the float comparison cannot decide these: the exact one does
            exactly = _beyond_exactly(values, int(sign), n_std)
            start = low + bisect.bisect_left(range(high - low), True, key=lambda j: exactly(values[outward[low + j]]))
    return n - start


def _beyond_exactly(values: NDArray, sign: int, n_std: float) -> Callable[[float], bool]:
    """``v -> sign·(v - mu) > N·sigma`` of the scores ``values`` in exact integer arithmetic:
    ``sign·(n v - S1) > 0`` and ``(n v - S1)² > N²·(n S2 - S1²)``, with ``S1`` and ``S2`` the
    exact sums of the scores and of their squares. Every float is a whole multiple of the
    smallest power of two among their ulps, so the sums are Python integers in that unit
    (NumPy object arrays: about 1 s for a million distinct scores, where fractions took 24 s).
    """
    distinct, counts = np.unique(values, return_counts=True)
    fractions, exponents = np.frexp(distinct.astype(np.float64))
    mantissas, exponents = (fractions * 2.0**53).astype(np.int64), exponents - 53  # v = m·2^e, exactly
    unit = int(exponents.min())  # a zero's too (0·2^-53): no exponent lies below the unit

    def whole(mantissa: NDArray, exponent: NDArray) -> NDArray:  # v / 2^unit, Python integers
        return mantissa.astype(object) * (2 ** (exponent - unit).astype(object))

    multiples, n = whole(mantissas, exponents), values.size
    first_sum = int((multiples * counts.astype(object)).sum())
    ratio = Fraction(n_std) ** 2  # N² = a/b: compare b·gap² with a·(n S2 - S1²)
    spread = ratio.numerator * (n * int((multiples * multiples * counts.astype(object)).sum()) - first_sum**2)

    def beyond(v: float) -> bool:
        fraction, exponent = np.frexp(np.float64(v))
        gap = n * int(whole(np.array([int(fraction * 2.0**53)]), np.array([exponent - 53]))[0]) - first_sum
        return sign * gap > 0 and ratio.denominator * gap * gap > spread

    return beyond


def _automatic_parameters(
    names: list[str], beyond: NDArray, *, kind: ScoreKind, n_std: float, bins: int, warn_empty: bool = True
) -> tuple[NDArray[np.float64], dict[str, Any]]:
    """CEIᴬ's split percentiles and parameters from each group's share beyond ``mu ± N·sigma``.

    A group with no score beyond is split at its 100th percentile: its tail is its extreme
    score(s) alone, and its ``Delta_i`` is 0 (with ``n`` scores, a normal tail beyond ``N``
    holds ``n·(1 - Phi(N))`` of them on average: 0.3 for 240 scores at N = 3). With
    ``warn_empty``, an :class:`~biofair.InsufficientComparisonsWarning` names such groups.
    Beyond ``N`` of about 38, ``1 - Phi(N)`` is 0 in float64: a group with a score beyond has
    ``Delta_i`` infinite, ``sigmoid(Delta_i) = 1`` (0/0 gave NaN for all of them).
    """
    empty = [name for name, share in zip(names, beyond) if share == 0]
    if empty and warn_empty:
        side = "above mu + N·sigma" if kind == "nonmated" else "below mu - N·sigma"
        warn(
            f"CEIᴬ: no {kind.replace('nonmated', 'non-mated')} score of group(s) {', '.join(map(repr, empty))} lies "
            f"{side} (N = n_std = {n_std:g}; a normal tail holds {norm.sf(n_std):.3g} of the scores), so each is "
            "split at its 100th percentile and its tail is its extreme score(s) alone; use a smaller n_std or more "
            "scores", InsufficientComparisonsWarning)
    percentiles = 100.0 * (1.0 - beyond)
    with np.errstate(divide="ignore"):  # 1 - Phi(N) underflows to 0 beyond N = 38: Delta_i = inf
        ratio = np.divide(beyond, norm.sf(n_std), out=np.zeros_like(beyond), where=beyond > 0)  # no 0/0
    tail_weight = math.fsum(expit(ratio) * percentiles / 100.0) / len(names)  # the same in any group order
    return percentiles, {
        "kind": kind,
        "n_std": n_std,
        "bins": bins,
        "percentiles": dict(zip(names, percentiles.tolist())),
        "tail_mass_ratio": dict(zip(names, ratio.tolist())),
        "tail_weight": tail_weight,
    }
