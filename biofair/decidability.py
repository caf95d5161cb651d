"""Decidability index d' of two score distributions.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._validation import as_scores, power_of_two_scaled


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
    Scores of extreme magnitude are first scaled by the power of two that brings the
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


def _mean_and_variance(values: NDArray[np.float64], overwrite: bool) -> tuple[float, float]:
    """``np.mean`` and ``np.var`` of float64 values, by their operations in their order.

    Equal to the bit. With ``overwrite``, the squared deviations are written over
    ``values`` instead of a temporary array as large as them.
    """
    mean = np.add.reduce(values) / values.size
    deviations = np.subtract(values, mean, out=values if overwrite else None)
    np.multiply(deviations, deviations, out=deviations)
    return mean, np.add.reduce(deviations) / values.size


def _decidability(mated: ArrayLike, nonmated: ArrayLike, overwrite: bool = False) -> float:
    """d' of two score arrays (float32 ones are copied to float64); with ``overwrite``,
    float64 arrays given are used as scratch space and left holding squared deviations."""
    mated, nonmated = power_of_two_scaled(as_scores(mated, "mated"), as_scores(nonmated, "nonmated"))
    mean_mated, var_mated = _mean_and_variance(mated, overwrite)
    mean_nonmated, var_nonmated = _mean_and_variance(nonmated, overwrite)
    spread = (var_mated + var_nonmated) / 2
    if spread == 0.0:
        raise ValueError("decidability is undefined: mated and nonmated both have zero variance")
    return float(abs(mean_mated - mean_nonmated) / np.sqrt(spread))
