"""Minimum normalised detection cost (minDCF).

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import ErrorCounts, MatedCounts, mated_counts
from biofair._summation import SMALL_PART, parts
from biofair._validation import SMALLEST_BOUND, as_number


def _checked_costs(p_target: float, c_miss: float, c_fa: float) -> tuple[float, float, float]:
    """The prior and costs of a detection cost, checked: ``p`` in (0, 1), positive finite costs
    whose weighted costs ``c_miss·p`` and ``c_fa·(1-p)`` are normal float64 numbers, at least
    2**-1022 (an underflow to 0 made the normalised cost 0/0: NaN, or a ZeroDivisionError; a
    subnormal one, times a rate, underflowed to 0 or lost its digits: a cost of 0 for classes
    that overlap)."""
    p_target = as_number(p_target, "p_target", low=0.0, high=1.0, open_low=True, open_high=True)
    c_miss = as_number(c_miss, "c_miss", low=0.0, open_low=True, open_high=True)
    c_fa = as_number(c_fa, "c_fa", low=0.0, open_low=True, open_high=True)
    weighted = (c_miss * p_target, c_fa * (1.0 - p_target))
    if min(weighted) < SMALLEST_BOUND:
        raise ValueError(
            f"c_miss·p_target = {weighted[0]:g} and c_fa·(1 - p_target) = {weighted[1]:g} must both be at least "
            f"2**-1022 = {SMALLEST_BOUND!r}, the smallest normal float64: bring the costs and the prior within a few "
            "hundred orders of magnitude"
        )
    return p_target, c_miss, c_fa


def _min_dcf_from_counts(
    counts: ErrorCounts | MatedCounts, p_target: float = 0.01, c_miss: float = 1.0, c_fa: float = 1.0
) -> float:
    """minDCF of precomputed error counts (see :func:`min_dcf`).

    The cost grows with both errors, so over all achievable thresholds it is smallest at
    one of the points :class:`~biofair._counts.MatedCounts` holds.
    """
    p_target, c_miss, c_fa = _checked_costs(p_target, c_miss, c_fa)

    def lowest_cost(fmr: NDArray, fnmr: NDArray) -> float:
        return float(np.min(c_miss * p_target * fnmr + c_fa * (1.0 - p_target) * fmr))

    if isinstance(counts, ErrorCounts):  # its rates, computed once and kept (for a call per prior)
        lowest = lowest_cost(counts.fmr, counts.fnmr)
    else:  # part by part (small temporaries)
        size, lowest = counts.first.size + 2, np.inf
        for start, stop in parts(size, part=SMALL_PART):
            fmr = counts.false_matches_between(start, stop) / counts.n_nonmated
            fnmr = counts.false_non_matches_between(start, stop) / counts.n_mated
            lowest = min(lowest, lowest_cost(fmr, fnmr))
    return lowest / min(c_miss * p_target, c_fa * (1.0 - p_target))


def min_dcf(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    p_target: float = 0.01,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
) -> float:
    """Minimum normalised detection cost over all achievable thresholds.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    p_target : float, default 0.01
        Prior probability of a mated comparison, in (0, 1).
    c_miss : float, default 1
        Cost of a false non-match (miss).
    c_fa : float, default 1
        Cost of a false match (false alarm).

    Returns
    -------
    float
        ``min_t (c_miss·FNMR(t)·p + c_fa·FMR(t)·(1-p)) / min(c_miss·p, c_fa·(1-p))``
        (eq. 4 of the operating-point paper) over every distinct score and the
        reject-all threshold (match iff ``score >= t``). 1 is the cost of the better
        trivial system (accept all or reject all), so a useful system scores below 1.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; or when ``p_target``
        lies outside (0, 1), ``c_miss`` or ``c_fa`` is not a positive, finite number, or
        ``c_miss·p_target`` or ``c_fa·(1 - p_target)`` is below ``2**-1022`` (the smallest
        normal float64: its products with the rates would underflow).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), or ``p_target``, ``c_miss`` or ``c_fa`` is not a number.

    See Also
    --------
    biofair.eer : The operating point where both error rates meet.
    biofair.det_curve : Every achievable (FMR, FNMR) pair the minimum is taken over.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification, eq. 4.
    NIST Speaker Recognition Evaluation plans (the normalised detection cost function).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.min_dcf([0.5, 0.65, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], p_target=0.5)
    0.5
    """
    return _min_dcf_from_counts(mated_counts(mated, nonmated), p_target, c_miss, c_fa)
