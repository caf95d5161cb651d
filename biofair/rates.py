"""Error rates at thresholds and thresholds at a target FMR.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import counts_at, sorted_scores, tmr_sorted
from biofair._fast_tmr import tmr_at_fmr_jackknife, tmr_at_fmr_replicates
from biofair._thresholds import RETURNED_UNRESOLVED, largest_sorted, threshold_at_fmr_sorted, warn_unresolved
from biofair._validation import as_rates, as_scores, as_target, as_threshold, as_thresholds, scalar_or_array


class ErrorRates(NamedTuple):
    """FMR and FNMR at the requested thresholds.

    Returned by :func:`biofair.fmr_fnmr`.

    Attributes
    ----------
    fmr : float or ndarray
        False match rate ``#{nonmated >= t} / N`` at each threshold.
    fnmr : float or ndarray
        False non-match rate ``#{mated < t} / M`` at each threshold.

    See Also
    --------
    biofair.fmr_fnmr : The function that returns it.
    biofair.OperatingPoint : One threshold with its counts.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.fmr_fnmr([0.6, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], [0.5, 0.85])
    ErrorRates(fmr=array([0.5, 0. ]), fnmr=array([0.        , 0.66666667]))
    """

    fmr: float | NDArray[np.float64]
    fnmr: float | NDArray[np.float64]


class OperatingPoint(NamedTuple):
    """One threshold with the error rates it gives and the counts behind them.

    Returned by :func:`biofair.operating_point`. Decision rule: a comparison is a match
    iff ``score >= threshold``.

    Attributes
    ----------
    threshold : float
        The decision threshold.
    fmr : float
        Achieved false match rate, ``false_matches / n_nonmated``.
    fnmr : float
        Achieved false non-match rate, ``false_non_matches / n_mated``.
    false_matches : int
        Non-mated scores at or above the threshold (``k`` of a target FMR).
    false_non_matches : int
        Mated scores below the threshold.
    n_mated : int
        Mated comparisons M.
    n_nonmated : int
        Non-mated comparisons N.

    See Also
    --------
    biofair.operating_point : The function that returns it.
    biofair.operating_summary : Every operating-point metric in one table.

    Examples
    --------
    >>> import biofair as bf
    >>> point = bf.operating_point([0.5, 0.65, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], threshold=0.65)
    >>> point.fmr, point.fnmr, point.tmr
    (0.25, 0.25, 0.75)
    """

    threshold: float
    fmr: float
    fnmr: float
    false_matches: int
    false_non_matches: int
    n_mated: int
    n_nonmated: int

    @property
    def tmr(self) -> float:
        """True match rate, ``1 - fnmr``, from the count of true matches."""
        return (self.n_mated - self.false_non_matches) / self.n_mated


def fmr_fnmr(mated: ArrayLike, nonmated: ArrayLike, thresholds: ArrayLike) -> ErrorRates:
    """False match and false non-match rates at given thresholds.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Similarity scores of mated (genuine) comparisons.
    nonmated : array_like of shape (N,)
        Similarity scores of non-mated (impostor) comparisons.
    thresholds : float or array_like
        Decision thresholds; ``+inf`` and ``-inf`` are allowed.

    Returns
    -------
    ErrorRates
        ``fmr`` and ``fnmr``, floats for a scalar threshold, else arrays shaped like
        ``thresholds``. Decision rule: a comparison is a match iff ``score >= threshold``.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; or when a threshold is
        NaN or not a float64 number (an integer beyond ``2**53``, a long double or a fraction
        with more digits: it would be decided as its rounding).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), or a threshold is not a number.

    See Also
    --------
    biofair.threshold_at_fmr : The threshold that meets a target FMR.
    biofair.operating_point : Rates at one threshold with their counts.
    biofair.det_curve : The rates at every achievable threshold.

    Notes
    -----
    ``FMR(t) = #{nonmated >= t} / N`` and ``FNMR(t) = #{mated < t} / M``. The counts add
    across chunks of the data, so they can be computed partition by partition.

    References
    ----------
    ISO/IEC 19795-1:2021, Biometric performance testing and reporting, Part 1: false match
    and false non-match rates of a verification test.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.fmr_fnmr([0.6, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], 0.6)
    ErrorRates(fmr=0.5, fnmr=0.0)
    """
    mated_sorted, nonmated_sorted = sorted_scores(mated, nonmated)
    values = as_thresholds(thresholds)
    false_matches, false_non_matches = counts_at(mated_sorted, nonmated_sorted, values)
    return ErrorRates(
        scalar_or_array(false_matches / nonmated_sorted.size, thresholds),
        scalar_or_array(false_non_matches / mated_sorted.size, thresholds),
    )


def threshold_at_fmr(nonmated: ArrayLike, fmr: float | ArrayLike) -> float | NDArray:
    """Smallest threshold whose FMR does not exceed a target.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    fmr : float or array_like
        Target false match rate(s) in [0, 1].

    Returns
    -------
    float or ndarray
        The smallest ``t`` among the distinct non-mated scores and
        ``nextafter(max(nonmated), +inf)`` with ``FMR(t) <= fmr`` (match iff
        ``score >= t``). This is bob.measure's ``far_threshold`` rule: never the nearest
        FMR, always one at or below the target.

    Raises
    ------
    ValueError
        When ``nonmated`` is empty, is not one-dimensional, or holds a NaN or infinite score, a
        masked value or an integer beyond ``±2**53``; or when a target in ``fmr`` lies outside
        [0, 1] (NaN included).
    TypeError
        When ``nonmated`` does not hold real numbers (booleans, text and complex numbers are
        refused), or ``fmr`` is not a number or an array of numbers.

    Warns
    -----
    InsufficientComparisonsWarning
        When a target is below ``3/N`` (it allows fewer than 3 false matches): the data
        cannot show that it is met (SPEC section 1, rule of three).

    See Also
    --------
    biofair.tmr_at_fmr : The TMR at this threshold.
    biofair.operating_point : The threshold with its achieved rates and counts.

    Notes
    -----
    A target is *resolved* iff it allows at least 3 false matches, ``3/N <= fmr`` in
    floating point (``fmr·N >= 3``), and *precise* iff it allows at least 30; the tables of
    the package report both next to every rate at a target.

    References
    ----------
    ISO/IEC 19795-1:2021, rule of three for the smallest error rate a test can support.
    bob.measure, ``far_threshold``: the threshold rule.

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> nonmated = np.arange(100) / 100  # 0.00, 0.01, ..., 0.99
    >>> float(bf.threshold_at_fmr(nonmated, 0.05))  # 0.95 ... 0.99 are 5 false matches
    0.95
    """
    scores = as_scores(nonmated, "nonmated", keep_float32=True)
    targets = as_rates(fmr, "fmr")
    warn_unresolved(np.ravel(targets), scores.size, consequence=RETURNED_UNRESOLVED)
    largest = largest_sorted(scores, np.ravel(targets))
    return scalar_or_array(threshold_at_fmr_sorted(largest, targets, scores.size), fmr)


def tmr_at_fmr(mated: ArrayLike, nonmated: ArrayLike, fmr: float | ArrayLike) -> float | NDArray:
    """True match rate at the threshold set for a target FMR.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores; they set the threshold.
    fmr : float or array_like
        Target false match rate(s) in [0, 1].

    Returns
    -------
    float or ndarray
        ``1 - FNMR(threshold_at_fmr(nonmated, fmr))``, the TMR of the strictest threshold
        rule of :func:`biofair.threshold_at_fmr`.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; or when a target in
        ``fmr`` lies outside [0, 1] (NaN included).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), or ``fmr`` is not a number or an array of numbers.

    Warns
    -----
    InsufficientComparisonsWarning
        When a target is below ``3/N`` (rule of three).

    See Also
    --------
    biofair.threshold_at_fmr : The threshold it uses.
    biofair.bootstrap : An interval for it, by the fast path this function declares.
    biofair.partitions.tmr_at_fmr : The same value over a partitioned score set.

    Notes
    -----
    ``tmr_at_fmr.bootstrap_replicates`` is its fast path for :func:`biofair.bootstrap`
    (``args=(fmr,)``, ``data="arrays"``): the replicates of both resampling units are drawn
    from their exact laws without re-sorting the scores, and
    ``tmr_at_fmr.jackknife_replicates`` gives the leave-one-out values that
    ``method="bca"`` needs without evaluating the statistic once per comparison.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification,
    TMR at FMR = 1e-1 ... 1e-4 (Table VI).

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> nonmated = np.arange(100) / 100
    >>> mated = np.array([0.5, 0.9, 0.96, 0.99])
    >>> float(bf.tmr_at_fmr(mated, nonmated, 0.05))  # threshold 0.95
    0.5
    """
    mated_sorted, scores = np.sort(as_scores(mated, "mated")), as_scores(nonmated, "nonmated")
    targets = as_rates(fmr, "fmr")
    warn_unresolved(np.ravel(targets), scores.size, consequence=RETURNED_UNRESOLVED)
    largest = largest_sorted(scores, np.ravel(targets))  # the only non-mated scores the rule reads
    tmr = tmr_sorted(mated_sorted, threshold_at_fmr_sorted(largest, targets, scores.size))
    return scalar_or_array(tmr, fmr)


# The fast path this statistic declares to biofair.bootstrap (see its "Fast path" notes).
tmr_at_fmr.bootstrap_replicates = tmr_at_fmr_replicates
tmr_at_fmr.jackknife_replicates = tmr_at_fmr_jackknife


def operating_point(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    fmr: float | None = None,
    threshold: float | None = None,
) -> OperatingPoint:
    """The operating point at a threshold, or at the threshold set for a target FMR.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.
    fmr : float, optional
        Target FMR; the threshold is :func:`biofair.threshold_at_fmr` of ``nonmated``.
    threshold : float, optional
        A fixed threshold. Give exactly one of ``fmr`` and ``threshold``.

    Returns
    -------
    OperatingPoint
        Threshold, achieved FMR and FNMR (match iff ``score >= threshold``), and the
        false-match and false-non-match counts with the class sizes.

    Raises
    ------
    ValueError
        When both or neither of ``fmr`` and ``threshold`` are given; when ``mated`` or
        ``nonmated`` is empty, is not one-dimensional, or holds a NaN or infinite score, a
        masked value or an integer beyond ``±2**53``; or when ``fmr`` lies outside [0, 1] (NaN
        included) or ``threshold`` is NaN or not a float64 number (an integer beyond ``2**53``,
        a long double or a fraction with more digits: it would be decided as its rounding).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), ``fmr`` is not one number (a sequence is refused) or
        ``threshold`` is not a number.

    Warns
    -----
    InsufficientComparisonsWarning
        When ``fmr`` is below ``3/N`` (rule of three).

    See Also
    --------
    biofair.fmr_fnmr : Rates at many thresholds.
    biofair.operating_summary : Every operating-point metric in one table.

    References
    ----------
    ISO/IEC 19795-1:2021: an operating point is reported with its threshold, its achieved
    error rates and the counts behind them.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.operating_point([0.5, 0.65, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], threshold=0.7)
    OperatingPoint(threshold=0.7, fmr=0.25, fnmr=0.5, false_matches=1, false_non_matches=2, n_mated=4, n_nonmated=4)
    """
    if (fmr is None) == (threshold is None):
        raise ValueError("give exactly one of fmr= and threshold=")
    mated_sorted, nonmated_sorted = sorted_scores(mated, nonmated)
    if fmr is not None:
        target = as_target(fmr)
        warn_unresolved(target, nonmated_sorted.size, consequence=RETURNED_UNRESOLVED)
        threshold = float(threshold_at_fmr_sorted(nonmated_sorted, target)[0])
    value = as_threshold(threshold)
    false_matches, false_non_matches = counts_at(mated_sorted, nonmated_sorted, value)
    return OperatingPoint(
        threshold=value,
        fmr=float(false_matches / nonmated_sorted.size),
        fnmr=float(false_non_matches / mated_sorted.size),
        false_matches=int(false_matches),
        false_non_matches=int(false_non_matches),
        n_mated=mated_sorted.size,
        n_nonmated=nonmated_sorted.size,
    )
