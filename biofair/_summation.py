"""NumPy's pairwise sum of values computed part by part, to the bit, in bounded memory.

``np.add.reduce`` sums a float64 array pairwise: it splits ``n`` values at ``n // 2``
rounded down to a multiple of 8 and adds the sums of the halves, down to blocks of at most
128 values. Splitting the same way down to parts of at most :data:`PART` values and reducing
each part with NumPy repeats those operations in their order, so a sum over values that
are computed (or cast) one part at a time equals the sum over the whole array of them,
without that array.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from numpy.typing import NDArray

#: Values summed at a time: small enough for the cache as float64; at least 128, the most
#: NumPy sums without splitting.
PART = 2**16

#: Values computed at a time by the metrics operating_summary runs beside other work in a
#: second thread: a few arrays of 128 kB, which add nothing to its peak memory.
SMALL_PART = 2**14


def parts(stop: int, *, part: int, start: int = 0) -> Iterator[tuple[int, int]]:
    """The bounds ``(begin, end)`` of consecutive parts of at most ``part`` positions that
    cover ``range(start, stop)``, in order (none when it is empty)."""
    for begin in range(start, stop, part):
        yield begin, min(begin + part, stop)


def pairwise_sum(items: NDArray | range, part_values: Callable[[NDArray | range], NDArray[np.float64]], *,
                 part: int | None = None) -> float:
    """``np.add.reduce(values)`` to the bit, where ``values`` maps ``items`` one to one and
    ``part_values`` gives the float64 values of a contiguous part of ``items`` (a slice of the
    array, or a ``range`` of positions), of at most ``part`` items (at least 128; default
    :data:`PART`)."""
    part = PART if part is None else part
    if len(items) <= part:
        return np.add.reduce(part_values(items))
    half = len(items) // 2
    half -= half % 8
    return pairwise_sum(items[:half], part_values, part=part) + pairwise_sum(items[half:], part_values, part=part)
