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
