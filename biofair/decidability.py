"""Decidability index d' of two score distributions.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._summation import PART, pairwise_sum
from biofair._validation import as_scores, power_of_two_exponent


def decidability(mated: ArrayLike, nonmated: ArrayLike) -> float:
    """Decidability d': the separation of the class means in pooled standard deviations.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.

    Returns
    -------
    float
        ``|mean_m - mean_n| / sqrt((var_m + var_n) / 2)`` with population variances
        (``ddof=0``). It summarises the whole distributions, not the tails that decide
        low-FMR operation.

    Raises
    ------
    ValueError
        When both classes have zero variance (d' is undefined).

    See Also
    --------
    biofair.roc_auc : A threshold-free summary that reads the whole ROC.
    biofair.operating_summary : Reports d' with the other operating-point metrics.

    Notes
    -----
    Means and variances are summed in float64 as ``np.mean`` and ``np.var`` of float64 scores
    sum them (pairwise, to the bit), also for float32 scores, which are read part by part
    without a float64 copy: the same d' for float32 scores as for float64 ones of the same
    values. Scores of extreme magnitude are first scaled by the power of two that brings the
    largest into [0.5, 1): exact, and d' does not depend on scale, so scores near ±1.8e308
    do not overflow and subnormal scores (1e-310) keep their non-zero variance.

    References
    ----------
    J. Daugman, "Biometric decision landscapes", University of Cambridge Technical Report
    482, 2000 (the decidability index d').

    Examples
    --------
    >>> import biofair as bf
    >>> bf.decidability([1.0, 3.0], [-1.0, 1.0])
    2.0
    """
    return _decidability(mated, nonmated)


def _mean_and_variance(values: NDArray[np.floating]) -> tuple[float, float]:
    """``np.mean`` and ``np.var`` of the scores as float64, by their operations in their order.

    Equal to the bit to NumPy's on a float64 copy, whatever the dtype of ``values``, without
    making one: the deviations are squared and summed part by part in one small buffer.
    """
    buffer = np.empty(min(values.size, PART), dtype=np.float64)

    def as_float64(part: NDArray) -> NDArray[np.float64]:  # a float32 part is cast into the buffer
        if part.dtype == np.float64:
            return part
        out = buffer[: part.size]
        out[...] = part
        return out

    mean = pairwise_sum(values, as_float64) / values.size

    def squared_deviations(part: NDArray) -> NDArray[np.float64]:  # computed in float64 (mean is)
        out = np.subtract(part, mean, out=buffer[: part.size])
        return np.multiply(out, out, out=out)

    return mean, pairwise_sum(values, squared_deviations) / values.size


def _decidability(mated: ArrayLike, nonmated: ArrayLike) -> float:
    """d' of two score arrays, float64 or float32 (read as float64 part by part)."""
    mated, nonmated = as_scores(mated, "mated", keep_float32=True), as_scores(nonmated, "nonmated", keep_float32=True)
    return _decidability_scaled(mated, nonmated, power_of_two_exponent(mated, nonmated))


def _decidability_sorted(mated_sorted: NDArray, nonmated_sorted: NDArray) -> float:
    """d' of two ascending, validated arrays (their largest magnitudes are at their ends)."""
    exponent = power_of_two_exponent(mated_sorted[[0, -1]], nonmated_sorted[[0, -1]])
    return _decidability_scaled(mated_sorted, nonmated_sorted, exponent)


def _decidability_scaled(mated: NDArray, nonmated: NDArray, exponent: int) -> float:
    """d' of the scores divided by ``2**exponent`` (exact; see :func:`power_of_two_exponent`)."""
    if exponent:
        mated, nonmated = np.ldexp(mated, -exponent), np.ldexp(nonmated, -exponent)
    mean_mated, var_mated = _mean_and_variance(mated)
    mean_nonmated, var_nonmated = _mean_and_variance(nonmated)
    spread = (var_mated + var_nonmated) / 2
    if spread == 0.0:
        raise ValueError("decidability is undefined: mated and nonmated both have zero variance")
    return float(abs(mean_mated - mean_nonmated) / np.sqrt(spread))
