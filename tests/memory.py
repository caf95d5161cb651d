"""Peak memory of one call, as the tests that bound a function's memory measure it."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any


def peak_memory(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """``(function(*args, **kwargs), peak)``: its result, and the most bytes Python's
    allocators held at once while it ran (NumPy's buffers included), as traced by tracemalloc."""
    tracemalloc.start()
    try:
        result = function(*args, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, peak
