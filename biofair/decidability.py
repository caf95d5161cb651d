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
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; or when both classes
        have zero variance (d' is undefined).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused).

    See Also
    --------
    biofair.roc_auc : A threshold-free summary that reads the whole ROC.
    biofair.operating_summary : Reports d' with the other operating-point metrics.

    Notes
    -----
    Means and variances are summed in float64 as ``np.mean`` and ``np.var`` of float64 scores
    sum them (pairwise), also for float32 scores, which are read part by part
    without a float64 copy: the same d' for float32 scores as for float64 ones of the same
    values. Scores of extreme magnitude are first scaled by the power of two that brings the
    largest into [0.5, 1): exact, and d' does not depend on scale, so scores near ±1.8e308
    do not overflow and subnormal scores (1e-310) keep their non-zero variance. A class whose
    spread is far below that scale (0, 1, 2 against 1e308) has its deviations scaled by a power
    of two of its own before they are squared, so its variance does not underflow; a spread
    below ``2**-1074`` of the largest score is lost in the first scaling, and only beside a
    constant class at that scale, where d' is inf (1e-300 against 1.7e308). Each class
    is summed about the middle of its own range (its mean is that middle plus the mean of the
    differences), so scores a few ulps apart keep the gap of their means and their spread,
    which a mean rounded onto one of the scores loses (d' = 0 for 0.5, 0.5, 0.5 + 1 ulp
    against 0.5, 0.5, 0.5, where it is 1; computed so, it is 1 to within an ulp).

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


def _mean_and_variance(values: NDArray[np.floating], deviation_exponent: int = 0,
                       centre: float = 0.0) -> tuple[float, float]:
    """``np.mean`` and ``np.var`` of the scores as float64, by their operations in their order.

    Equal to the bit to NumPy's on a float64 copy, whatever the dtype of ``values``, without
    making one: the deviations are squared and summed part by part in one small buffer. With
    ``deviation_exponent`` ``k``, the deviations are divided by ``2**k`` before they are squared
    (exact): the variance returned is ``np.var / 4**k``. With ``centre`` ``c``, those of
    ``values - c`` (the mean returned is the mean less ``c``).
    """
    buffer = np.empty(min(values.size, PART), dtype=np.float64)
    centre = np.float64(centre)

    def shifted(part: NDArray) -> NDArray[np.float64]:  # a float32 or shifted part goes into the buffer
        if centre:  # float32 scores are subtracted as float64: as from a float64 copy
            return np.subtract(part, centre, out=buffer[: part.size])
        if part.dtype == np.float64:
            return part
        out = buffer[: part.size]
        out[...] = part
        return out

    mean = pairwise_sum(values, shifted) / values.size

    def squared_deviations(part: NDArray) -> NDArray[np.float64]:  # computed in float64 (mean is)
        out = np.subtract(shifted(part), mean, out=buffer[: part.size])
        if deviation_exponent:
            np.ldexp(out, -deviation_exponent, out=out)
        return np.multiply(out, out, out=out)

    return mean, pairwise_sum(values, squared_deviations) / values.size


def _decidability(mated: ArrayLike, nonmated: ArrayLike) -> float:
    """d' of two score arrays, float64 or float32 (read as float64 part by part)."""
    mated, nonmated = as_scores(mated, "mated", keep_float32=True), as_scores(nonmated, "nonmated", keep_float32=True)
    return _decidability_scaled(mated, nonmated, np.array([mated.min(), mated.max()]),
                                np.array([nonmated.min(), nonmated.max()]))


def _deviation_exponent(ends: NDArray, exponent: int) -> int:
    """The exponent ``k`` that brings a class's range (its ``ends``, min and max, divided by
    ``2**exponent``) into [0.5, 1) when it lies below 2^-500, else 0: the squares of its
    deviations divided by ``2**k`` do not underflow."""
    low, high = np.ldexp(np.asarray(ends, dtype=np.float64), -exponent)
    return int(_deviation_exponents(np.array([low]), np.array([high]))[0])


def _deviation_exponents(low: NDArray, high: NDArray) -> NDArray[np.int64]:
    """:func:`_deviation_exponent` of each range from ``low`` to ``high`` (already scaled); 0
    for an empty range (``high < low``: a group without scores in a partition)."""
    spread = np.where(high >= low, high - low, 0.0)
    return np.where((spread > 0.0) & (spread < 2.0**-500), np.frexp(spread)[1], 0).astype(np.int64)


def _middle(ends: NDArray[np.float64]) -> np.float64:
    """The middle of a class's range (its min and max): halves first, so it cannot overflow."""
    return ends[0] / 2 + ends[1] / 2


def _decidability_scaled(mated: NDArray, nonmated: NDArray, mated_ends: NDArray, nonmated_ends: NDArray) -> float:
    """d' of the scores divided by ``2**e`` (exact; see :func:`power_of_two_exponent`), each
    class's deviations divided by a power of two of their own where their squares would
    underflow (a class whose spread is far below the other class's scores)."""
    exponent = power_of_two_exponent(mated_ends, nonmated_ends)
    k_mated, k_nonmated = _deviation_exponent(mated_ends, exponent), _deviation_exponent(nonmated_ends, exponent)
    if exponent:
        mated, nonmated = np.ldexp(mated, -exponent), np.ldexp(nonmated, -exponent)
    # each class's deviations about the middle of its range: exact for scores a few ulps apart
    # (np.mean rounds their mean onto one of them, and the gap of the means or a spread is lost)
    centre_mated, centre_nonmated = (_middle(np.ldexp(np.asarray(ends, dtype=np.float64), -exponent))
                                     for ends in (mated_ends, nonmated_ends))
    offset_mated, var_mated = _mean_and_variance(mated, k_mated, centre_mated)
    offset_nonmated, var_nonmated = _mean_and_variance(nonmated, k_nonmated, centre_nonmated)
    # spread = (var_m 4^k_m + var_n 4^k_n) / 2, in units of 4^top (a constant class adds nothing)
    top = max((k for k, var in ((k_mated, var_mated), (k_nonmated, var_nonmated)) if var > 0), default=0)
    spread = (np.ldexp(var_mated, 2 * (k_mated - top)) + np.ldexp(var_nonmated, 2 * (k_nonmated - top))) / 2
    if spread == 0.0 and (mated_ends[0] != mated_ends[1] or nonmated_ends[0] != nonmated_ends[1]):
        # a class spread below 2^-1074 of the largest score (lost in the scaling) beside a constant
        # class, which sets that scale: the gap is at least about half the scale, d' beyond 2^1000
        return float("inf")
    if spread == 0.0:
        raise ValueError(
            "decidability is undefined: mated and nonmated both have zero variance (every mated score is "
            f"{float(mated_ends[0])!r} and every non-mated score {float(nonmated_ends[0])!r})"
        )
    gap = (centre_mated - centre_nonmated) + (offset_mated - offset_nonmated)
    with np.errstate(over="ignore"):  # a d' beyond the largest float (1e308 against 0 and 1) is inf
        return float(np.ldexp(abs(gap) / np.sqrt(spread), -top))
