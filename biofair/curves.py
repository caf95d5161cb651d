"""ROC and DET curves over every achievable threshold.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import ErrorCounts, error_counts


class RocCurve(NamedTuple):
    """ROC vertices, FMR ascending (thresholds descending)."""

    fmr: NDArray[np.float64]
    tmr: NDArray[np.float64]
    thresholds: NDArray[np.float64]


class DetCurve(NamedTuple):
    """DET vertices, thresholds ascending (FMR descending, FNMR ascending)."""

    fmr: NDArray[np.float64]
    fnmr: NDArray[np.float64]
    thresholds: NDArray[np.float64]


def roc_from_counts(counts: ErrorCounts) -> RocCurve:
    """ROC vertices of precomputed error counts."""
    return RocCurve(
        fmr=counts.fmr[::-1], tmr=counts.tmr[::-1], thresholds=counts.thresholds[::-1]
    )


def roc_curve(mated: ArrayLike, nonmated: ArrayLike) -> RocCurve:
    """Receiver operating characteristic: TMR against FMR at every distinct threshold.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated, nonmated : array_like of shape (M,) and (N,)
        Mated and non-mated similarity scores.

    Returns
    -------
    RocCurve
        ``fmr``, ``tmr`` and ``thresholds``, ordered by increasing FMR. The first vertex is
        the threshold ``nextafter(max score, +inf)`` (FMR = TMR = 0), then every distinct
        score in decreasing order down to the smallest (FMR = TMR = 1). Decision rule:
        match iff ``score >= threshold``.

    Notes
    -----
    Vertices are joined by straight lines: a score shared by both classes moves both
    rates at once and gives a diagonal segment. Every area function of the package
    integrates this curve. The FMR and TMR arrays equal scikit-learn's
    ``roc_curve(..., drop_intermediate=False)``.

    Examples
    --------
    >>> curve = roc_curve([0.5, 0.9], [0.1, 0.5])
    >>> curve.fmr.tolist(), curve.tmr.tolist()
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0])
    """
    return roc_from_counts(error_counts(mated, nonmated))


def det_curve(mated: ArrayLike, nonmated: ArrayLike) -> DetCurve:
    """Detection error trade-off: FNMR against FMR at every achievable threshold.

    Read more in the chapter "Compute error rates from scores".

    Returns
    -------
    DetCurve
        ``fmr``, ``fnmr`` and ``thresholds`` with thresholds ascending, from the smallest
        score (FMR = 1, FNMR = 0) to ``nextafter(max score, +inf)`` (FMR = 0, FNMR = 1).
        Plot it on probit (normal deviate) axes with :func:`biofair.plotting.plot_det`.

    Examples
    --------
    >>> det_curve([0.5, 0.9], [0.1, 0.5]).fnmr.tolist()
    [0.0, 0.0, 0.5, 1.0]
    """
    counts = error_counts(mated, nonmated)
    return DetCurve(fmr=counts.fmr, fnmr=counts.fnmr, thresholds=counts.thresholds)
