"""Exact order statistics of partitioned scores: locate on a histogram, refine in a few bins.

Thresholds at a target FMR, CEI's percentiles and the EER all need a few order statistics
of a score set that is never in one place. Two passes find them exactly:

1. locating histogram: every partition counts its scores on the ``2**_LOCATING_BITS``
   locating bins (``biofair.partitions.census._locating_bins``: ranges of scores that
   need no score range, so the census makes the histograms of both classes and of the
   pooled homogeneous non-mated scores on speculation); the summed counts tell which bin
   holds the ``r``-th smallest score;
2. refinement: every partition returns the distinct values (with counts) of those bins
   and of the nearest non-empty bin on each side; summed, they give the exact value of
   each wanted order statistic and of its neighbours. One pass refines the bins of several
   requests (the thresholds' and, on speculation, the EER's).

Scores are read as *streams*: a function ``select(partition, *args)`` returns the scores
and a stream code per row (``-1``: not read), so one pass serves several groups or classes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._summation import PART, parts
from biofair._warnings import warn
from biofair.partitions.census import (
    _LOCATING_BITS,
    Census,
    _cached,
    _context,
    _group_keys,
    _histogram_key,
    _locating_bins,
    _needed,
    _on_partitions,
    _scores,
    _SparseCounts,
)

#: Default bins of the bounded ROC areas' equal-width histograms (not the locating bins; it
#: was named LOCATING_BINS, which read as the size of the 2**18-bin locating histogram).
AREA_BINS = 1 << 16

Select = Callable[..., tuple[NDArray[np.float64], NDArray[np.intp]]]


def bins_of(values: NDArray, edges: NDArray) -> NDArray[np.intp]:
    """Bin of each value on equal-width ``edges``, by np.histogram's rule.

    Bin ``b`` holds ``edges[b] <= x < edges[b+1]``, the last bin also ``x == edges[-1]``;
    values outside the edges go to the first or last bin. Computed by arithmetic (at half
    scale when the edges span more than the largest float, dividing by their width when
    it is too narrow to invert), then corrected by one comparison with the edges on each
    side (as np.histogram does). Edges that floating point could not space equally (14
    subnormal steps in 10 bins: widths of 1 step and one of 5), on which the arithmetic
    misses by more than one bin, are searched instead. The arithmetic is monotone in the
    value, so checking each bin's first and last float checks every value.
    """
    n_bins = edges.size - 1
    bin_ = np.arange(n_bins)
    first, last = _arithmetic_bins(edges[:-1], edges), _arithmetic_bins(np.nextafter(edges[1:], -np.inf), edges)
    if np.any(first < bin_ - 1) or np.any(last > bin_ + 1):
        return np.clip(np.searchsorted(edges, values, side="right") - 1, 0, n_bins - 1)
    index = _arithmetic_bins(values, edges)
    index -= (values < edges[index]) & (index > 0)
    index += (values >= edges[index + 1]) & (index < n_bins - 1)
    return index


def _arithmetic_bins(values: NDArray, edges: NDArray) -> NDArray[np.intp]:
    """The bin of each value on ``edges`` if they were exactly equal-width, clipped to the bins."""
    n_bins = edges.size - 1
    with np.errstate(over="ignore"):
        width = edges[-1] - edges[0]
        per_unit = n_bins / width
    if not np.isfinite(width):  # edges wider than the largest float (scores spanning ±1.8e308): at half scale
        scaled = (values / 2 - edges[0] / 2) * (n_bins / (edges[-1] / 2 - edges[0] / 2))
    elif not np.isfinite(per_unit):  # edges so narrow (below n_bins / 1.8e308) that bins per unit overflow
        scaled = (values - edges[0]) / width * n_bins
    else:
        scaled = (values - edges[0]) * per_unit
    return np.clip(scaled, 0, n_bins - 1).astype(np.intp)


def by_class(part: pd.DataFrame) -> tuple[NDArray, NDArray[np.intp]]:
    """Every comparison, groups ignored: stream 0 non-mated, stream 1 mated."""
    return _scores(part), part["mated"].to_numpy(dtype=np.intp)


def homogeneous_nonmated(part: pd.DataFrame, census: Census) -> tuple[NDArray, NDArray[np.intp]]:
    """Stream 0: the non-mated pairs whose two sides share a group."""
    values, group, mated = _group_keys(part, census)
    return values, np.where((group >= 0) & ~mated, 0, -1)


def _histogram_part(part: pd.DataFrame, index: int, select: Select, args: tuple, n_streams: int) -> _SparseCounts:
    """One partition's locating histogram of the streams of ``select`` (streams x bins)."""
    values, stream = select(part, *args)
    keep = stream >= 0
    n_bins = 1 << _LOCATING_BITS
    key = stream[keep] * n_bins + _locating_bins(values[keep])
    return _SparseCounts.of(np.bincount(key, minlength=n_streams * n_bins).reshape(n_streams, n_bins))


def at_or_above(histogram: NDArray) -> NDArray[np.int64]:
    """Scores of each stream at or above the start of each bin, and 0 above the last bin
    (streams x bins + 1): the counts at a threshold equal to a bin's first score."""
    from_top = np.cumsum(histogram[:, ::-1], axis=1)[:, ::-1]
    return np.concatenate([from_top, np.zeros((histogram.shape[0], 1), dtype=from_top.dtype)], axis=1)


def locate(frame, select: Select, args: tuple, n_streams: int, *, keep: bool = True) -> NDArray[np.int64]:
    """Pass 1: counts per stream (rows) and locating bin (columns), summed over partitions.

    No pass when the same histogram of the same frame was made before (the census makes
    those of ``by_class`` and ``homogeneous_nonmated``). ``keep=False``: made and not kept
    (2 MB a stream: a caller that goes through many streams a batch at a time).
    """
    def histogram() -> NDArray[np.int64]:
        return _on_partitions(frame, _histogram_part, select, args, n_streams, columns=_needed(*args),
                              total=True).dense()

    return _cached(frame, _histogram_key(select.__name__, *args), histogram) if keep else histogram()


def _distinct_part(part: pd.DataFrame, index: int, requests: list[tuple]) -> list[pd.Series]:
    """Per request (select, args, wanted bins): the count of every (stream, value) of the
    wanted bins of one partition."""
    found = []
    for select, args, wanted in requests:
        values, stream = select(part, *args)
        rows = _rows_in_bins(values, wanted.any(axis=0))  # the few rows in a bin some stream wants
        stream, bins = stream[rows], _locating_bins(values[rows])
        inside = stream >= 0
        inside[inside] = wanted[stream[inside], bins[inside]]  # in a bin their own stream wants
        found.append(pd.DataFrame({"stream": stream[inside], "value": values[rows[inside]]}).value_counts())
    return found


def _rows_in_bins(values: NDArray, marked: NDArray[np.bool_]) -> NDArray[np.intp]:
    """The rows, in order, whose locating bin is marked; binned and looked up part by part,
    so that the bins stay in cache (about 1.5x faster than binning every row first)."""
    found = [np.flatnonzero(np.take(marked, _locating_bins(values[start:stop]))) + start
             for start, stop in parts(values.size, part=PART)]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


class Windows:
    """Per stream, every distinct value of a few bins, with its count and exact rank.

    ``kth``, ``above`` and ``below`` answer for the wanted ranks and their neighbours; a
    question about a value outside the refined bins is a programming error (it raises).
    """

    def __init__(self, histogram: NDArray, distinct: pd.Series):
        self.sizes = histogram.sum(axis=1)
        self._before_bin = np.cumsum(histogram, axis=1) - histogram  # scores in lower bins
        self._values, self._counts, self._bins, self._below = [], [], [], []
        for stream in range(histogram.shape[0]):
            part = distinct[distinct.index.get_level_values(0) == stream]
            values = part.index.get_level_values(1).to_numpy(dtype=np.float64)
            counts = part.to_numpy(dtype=np.int64)
            order = np.argsort(values)
            values, counts = values[order], counts[order]
            bins = _locating_bins(values)
            earlier = np.cumsum(counts) - counts  # window scores below each value
            first_in_bin = np.searchsorted(bins, bins, side="left")
            self._values.append(values)
            self._counts.append(counts)
            self._bins.append(bins)
            self._below.append(self._before_bin[stream, bins] + earlier - earlier[first_in_bin])

    def kth(self, stream: int, rank: int) -> float:
        """The score of 0-based ascending ``rank`` in ``stream``."""
        below, counts = self._below[stream], self._counts[stream]
        j = int(np.searchsorted(below + counts, rank, side="right"))
        if j == below.size or below[j] > rank:
            raise RuntimeError(f"rank {rank} of stream {stream} lies outside the refined bins")
        return float(self._values[stream][j])

    def above(self, stream: int, value: float, *, inclusive: bool = False) -> float | None:
        """The smallest score ``> value`` (``>=`` if inclusive); None if there is none."""
        values = self._values[stream]
        j = int(np.searchsorted(values, value, side="left" if inclusive else "right"))
        return float(values[j]) if j < values.size else None

    def below(self, stream: int, value: float, *, inclusive: bool = False) -> float | None:
        """The largest score ``< value`` (``<=`` if inclusive); None if there is none."""
        values = self._values[stream]
        j = int(np.searchsorted(values, value, side="right" if inclusive else "left")) - 1
        return float(values[j]) if j >= 0 else None

    def counts_below(self, stream: int, thresholds: NDArray) -> NDArray[np.int64]:
        """Scores of ``stream`` strictly below each threshold (each in a refined bin)."""
        bins = _locating_bins(thresholds)
        cumulative = np.concatenate([[0], np.cumsum(self._counts[stream])])
        in_lower_bins = np.searchsorted(self._bins[stream], bins, side="left")
        below_threshold = np.searchsorted(self._values[stream], thresholds, side="left")
        return self._before_bin[stream, bins] + cumulative[below_threshold] - cumulative[in_lower_bins]

    def _position(self, stream: int, value: float) -> int:
        """Where ``value``, one of the refined distinct scores of ``stream``, stands among them."""
        j = int(np.searchsorted(self._values[stream], value))
        if j == self._values[stream].size or self._values[stream][j] != value:
            raise RuntimeError(f"{value!r} is not a refined score of stream {stream}")
        return j

    def at_or_above(self, stream: int, value: float) -> int:
        """Scores of ``stream`` at or above ``value``, one of its refined distinct scores."""
        return int(self.sizes[stream] - self._below[stream][self._position(stream, value)])

    def count(self, stream: int, value: float) -> int:
        """Scores of ``stream`` equal to ``value``, one of its refined distinct scores."""
        return int(self._counts[stream][self._position(stream, value)])

    def values(self, stream: int) -> NDArray[np.float64]:
        """The distinct refined scores of ``stream``, ascending."""
        return self._values[stream]


def wanted_bins(histogram: NDArray, ranks: Sequence[NDArray]) -> NDArray[np.bool_]:
    """Bins holding each stream's wanted ranks, with the nearest non-empty bin on each side."""
    wanted = np.zeros(histogram.shape, dtype=bool)
    for stream, (counts, stream_ranks) in enumerate(zip(histogram, ranks)):
        if not np.size(stream_ranks):
            continue
        bins = np.searchsorted(np.cumsum(counts), stream_ranks, side="right")
        nonempty = np.flatnonzero(counts)
        at = np.searchsorted(nonempty, bins)
        neighbours = nonempty[np.clip(np.concatenate([at - 1, at + 1]), 0, nonempty.size - 1)]
        wanted[stream, np.concatenate([bins, neighbours])] = True
    return wanted


#: Rows in the refined bins from which the pass warns, when they are also a tenth of the scores.
_MANY_REFINED = 500_000


def refine(frame, requests: list[tuple]) -> list[Windows]:
    """Pass 2: per request (select, args, histogram, wanted bins), the distinct values of the
    wanted bins of every stream, with exact ranks; all requests in one pass. What is refined
    of ``by_class`` is kept with the frame for the EER (:func:`refined_windows`).

    Warns (UserWarning) when the wanted bins hold at least ``_MANY_REFINED`` rows and a tenth
    of the scores: scores crowded far from zero share a few locating bins (at 1000 ± 1 they
    are about 1 wide), and the pass then brings most distinct scores to this process."""
    refined = sum(int(histogram[wanted].sum()) for _, _, histogram, wanted in requests)
    scores = sum(int(histogram.sum()) for _, _, histogram, _ in requests)
    if refined >= max(_MANY_REFINED, scores // 10):
        warn(f"the exact thresholds bring the distinct values of {refined:,} of the {scores:,} scores read into this "
             "process: the scores crowd into a few of the locating bins (float32 codes, about 1 wide at 1000), as "
             "scores far from zero do. Subtract a typical score first, e.g. frame.assign(score=frame['score'] - 1000): "
             "the same thresholds, shifted, from a few bins")
    parts = _on_partitions(frame, _distinct_part, [(select, args, wanted) for select, args, _, wanted in requests],
                           columns=_needed(*[a for _, args, _, _ in requests for a in args]))
    found = []
    for k, (select, args, histogram, wanted) in enumerate(requests):
        distinct = pd.concat([part[k] for part in parts]).groupby(level=[0, 1]).sum()
        found.append(Windows(histogram, distinct))
        if select is by_class:
            _context(frame).cache.setdefault(("refined", "by_class"), []).append((wanted, found[-1]))
    return found


def refined_windows(frame, wanted: NDArray[np.bool_]) -> Windows | None:
    """Windows of ``by_class`` refined before that hold every wanted bin, if any."""
    for bins, windows in _context(frame).cache.get(("refined", "by_class"), []):
        if not (wanted & ~bins).any():
            return windows
    return None


def order_statistics(frame, select: Select, args: tuple, n_streams: int,
                     ranks: Callable[[NDArray[np.int64]], Sequence[NDArray]], *, keep: bool = True) -> Windows:
    """Both passes: ``ranks(sizes)`` gives each stream's wanted ranks from its size; ``keep``:
    whether the locating histogram is kept with the frame (see :func:`locate`)."""
    histogram = locate(frame, select, args, n_streams, keep=keep)
    return refine(frame, [(select, args, histogram, wanted_bins(histogram, ranks(histogram.sum(axis=1))))])[0]
