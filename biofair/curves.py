"""ROC and DET curves over every achievable threshold.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import error_counts


class RocCurve(NamedTuple):
    """ROC vertices, FMR ascending (thresholds descending).

    Returned by :func:`biofair.roc_curve`; the vertices are joined by straight lines.

    Attributes
    ----------
    fmr : ndarray
        False match rate of each vertex, ascending from 0 to 1.
    tmr : ndarray
        True match rate of each vertex, ascending from 0 to 1.
    thresholds : ndarray
        The threshold of each vertex, descending (match iff ``score >= threshold``).

    See Also
    --------
    biofair.roc_curve : The function that returns it.
    biofair.DetCurve : The same points as FNMR against FMR.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.roc_curve([0.5, 0.9], [0.1, 0.5]).thresholds.tolist()
    [0.9000000000000001, 0.9, 0.5, 0.1]
    """

    fmr: NDArray[np.float64]
    tmr: NDArray[np.float64]
    thresholds: NDArray[np.float64]


class DetCurve(NamedTuple):
    """DET vertices, thresholds ascending (FMR descending, FNMR ascending).

    Returned by :func:`biofair.det_curve`; plot it on probit axes.

    Attributes
    ----------
    fmr : ndarray
        False match rate at each threshold, descending from 1 to 0.
    fnmr : ndarray
        False non-match rate at each threshold, ascending from 0 to 1.
    thresholds : ndarray
        The thresholds, ascending (match iff ``score >= threshold``).

    See Also
    --------
    biofair.det_curve : The function that returns it.
    biofair.plotting.plot_det : Draws it on probit axes.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.det_curve([0.5, 0.9], [0.1, 0.5]).fmr.tolist()
    [1.0, 0.5, 0.0, 0.0]
    """

    fmr: NDArray[np.float64]
    fnmr: NDArray[np.float64]
    thresholds: NDArray[np.float64]


def roc_curve(mated: ArrayLike, nonmated: ArrayLike) -> RocCurve:
    """Receiver operating characteristic: TMR against FMR at every distinct threshold.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.

    Returns
    -------
    RocCurve
        ``fmr``, ``tmr`` and ``thresholds``, ordered by increasing FMR. The first vertex is
        the threshold ``nextafter(max score, +inf)`` (FMR = TMR = 0), then every distinct
        score in decreasing order down to the smallest (FMR = TMR = 1). Decision rule:
        match iff ``score >= threshold``.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused).

    See Also
    --------
    biofair.det_curve : The same thresholds as FNMR against FMR.
    biofair.roc_auc : The area under this curve.
    biofair.plotting.plot_roc : Draws it with a log FMR axis.

    Notes
    -----
    Vertices are joined by straight lines: a score shared by both classes moves both
    rates at once and gives a diagonal segment. Every area function of the package
    integrates this curve. The FMR and TMR arrays equal scikit-learn's
    ``roc_curve(..., drop_intermediate=False)``.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification
    (the interpolated ROC ``T(u)`` that every area integrates).

    Examples
    --------
    >>> import biofair as bf
    >>> curve = bf.roc_curve([0.5, 0.9], [0.1, 0.5])
    >>> curve.fmr.tolist(), curve.tmr.tolist()
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0])
    """
    counts = error_counts(mated, nonmated)
    # + 0.0: -0.0 and 0.0 give 0.0, whichever sorted first
    return RocCurve(fmr=counts.fmr[::-1], tmr=counts.tmr[::-1], thresholds=counts.thresholds[::-1] + 0.0)


def det_curve(mated: ArrayLike, nonmated: ArrayLike) -> DetCurve:
    """Detection error trade-off: FNMR against FMR at every achievable threshold.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) similarity scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) similarity scores.

    Returns
    -------
    DetCurve
        ``fmr``, ``fnmr`` and ``thresholds`` with thresholds ascending, from the smallest
        score (FMR = 1, FNMR = 0) to ``nextafter(max score, +inf)`` (FMR = 0, FNMR = 1).
        Plot it on probit (normal deviate) axes with :func:`biofair.plotting.plot_det`.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused).

    See Also
    --------
    biofair.roc_curve : The same thresholds as TMR against FMR.
    biofair.eer : Where the two rates of this curve meet.

    References
    ----------
    A. Martin et al., "The DET curve in assessment of detection task performance",
    Eurospeech 1997 (probit axes). ISO/IEC 19795-1:2021 (DET reporting).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.det_curve([0.5, 0.9], [0.1, 0.5]).fnmr.tolist()
    [0.0, 0.0, 0.5, 1.0]
    """
    counts = error_counts(mated, nonmated)
    return DetCurve(fmr=counts.fmr, fnmr=counts.fnmr, thresholds=counts.thresholds + 0.0)  # -0.0 as 0.0
