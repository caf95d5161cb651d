"""Checks shared by every metric: arrays of scores and rates in [0, 1]."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def as_scores(values: ArrayLike, name: str) -> NDArray[np.float64]:
    """Return ``values`` as a 1-D float64 array of finite scores, or raise naming ``name``."""
    array = np.asarray(values)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.number):
        raise TypeError(f"{name} must hold numeric scores, got dtype {array.dtype}")
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty: at least one comparison score is needed")
    array = array.astype(np.float64, copy=False)
    finite = np.isfinite(array)
    if not finite.all():
        n_nan = int(np.isnan(array).sum())
        n_inf = int((~finite).sum()) - n_nan
        raise ValueError(f"{name} contains {n_nan} NaN and {n_inf} infinite values")
    return array


def as_rates(values: ArrayLike, name: str) -> NDArray[np.float64]:
    """Return ``values`` as a float64 array (any shape) of rates in [0, 1], or raise."""
    array = np.asarray(values, dtype=np.float64)
    bad = ~((array >= 0.0) & (array <= 1.0))  # also catches NaN
    if bad.any():
        raise ValueError(
            f"{name} must lie in [0, 1]; {int(bad.sum())} value(s) do not: {array[bad][:5]}"
        )
    return array


def scalar_or_array(values: NDArray, like: ArrayLike) -> float | NDArray:
    """Return a Python float when the request ``like`` was a scalar, else the array."""
    return float(values) if np.ndim(like) == 0 else values


def check_bound(value: float, name: str) -> float:
    """``value`` as a float, if it is an FMR bound in (0, 1]."""
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{name} must lie in (0, 1], got {value!r}")
    return float(value)


def check_alpha(alpha: float) -> float:
    """``alpha``, the weight of the first differential, if it lies in [0, 1]."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha!r}")
    return alpha


def check_bins(bins: int) -> int:
    """``bins`` as an int, if it is a positive integer."""
    if int(bins) != bins or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    return int(bins)


def check_kind(kind: str) -> str:
    """``kind`` if it names a class of scores."""
    if kind not in ("mated", "nonmated"):
        raise ValueError(f"kind must be 'mated' or 'nonmated', got {kind!r}")
    return kind


def check_choice(value: str, name: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else a ValueError naming the option."""
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}"
        raise ValueError(f"{name} must be {listed}, got {value!r}")
    return value
