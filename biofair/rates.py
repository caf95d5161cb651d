"""Error rates at thresholds and thresholds at a target FMR.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from biofair._counts import sorted_scores
from biofair._validation import as_rates, as_scores, scalar_or_array
from biofair.exceptions import InsufficientComparisonsWarning


class ErrorRates(NamedTuple):
    """FMR and FNMR at the requested thresholds."""

    fmr: float | NDArray[np.float64]
    fnmr: float | NDArray[np.float64]


class OperatingPoint(NamedTuple):
    """One threshold with the error rates it gives and the counts behind them."""

    threshold: float
    fmr: float
    fnmr: float
    false_matches: int
    false_non_matches: int
    n_mated: int
    n_nonmated: int

    @property
    def tmr(self) -> float:
        """True match rate, ``1 - fnmr``."""
        return (self.n_mated - self.false_non_matches) / self.n_mated


def _as_thresholds(thresholds: ArrayLike) -> NDArray[np.float64]:
    values = np.asarray(thresholds, dtype=np.float64)
    n_nan = int(np.isnan(values).sum())
    if n_nan:
        raise ValueError(f"thresholds contains {n_nan} NaN values")
    return values


def counts_at(mated_sorted: NDArray, nonmated_sorted: NDArray, thresholds: ArrayLike):
    """False-match and false-non-match counts at thresholds, from ascending scores."""
    false_matches = nonmated_sorted.size - np.searchsorted(nonmated_sorted, thresholds, "left")
    false_non_matches = np.searchsorted(mated_sorted, thresholds, "left")
    return false_matches, false_non_matches


def tmr_sorted(mated_sorted: NDArray, thresholds: ArrayLike) -> NDArray[np.float64]:
    """TMR at thresholds from ascending mated scores, from the count of true matches."""
    return (mated_sorted.size - np.searchsorted(mated_sorted, thresholds, "left")) / mated_sorted.size


def fmr_fnmr(mated: ArrayLike, nonmated: ArrayLike, thresholds: ArrayLike) -> ErrorRates:
    """False match and false non-match rates at given thresholds.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated, nonmated : array_like of shape (M,) and (N,)
        Similarity scores of mated (genuine) and non-mated (impostor) comparisons.
    thresholds : float or array_like
        Decision thresholds; ``+inf`` and ``-inf`` are allowed.

    Returns
    -------
    ErrorRates
        ``fmr`` and ``fnmr``, floats for a scalar threshold, else arrays shaped like
        ``thresholds``. Decision rule: a comparison is a match iff ``score >= threshold``.

    Notes
    -----
    ``FMR(t) = #{nonmated >= t} / N`` and ``FNMR(t) = #{mated < t} / M``. The counts add
    across chunks of the data, so they can be computed partition by partition.

    Examples
    --------
    >>> fmr_fnmr([0.6, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], 0.6)
    ErrorRates(fmr=0.5, fnmr=0.0)
    """
    mated_sorted, nonmated_sorted = sorted_scores(mated, nonmated)
    values = _as_thresholds(thresholds)
    false_matches, false_non_matches = counts_at(mated_sorted, nonmated_sorted, values)
    return ErrorRates(
        scalar_or_array(false_matches / nonmated_sorted.size, thresholds),
        scalar_or_array(false_non_matches / mated_sorted.size, thresholds),
    )


def allowed_false_matches(fmr: NDArray, n_nonmated: int) -> NDArray[np.int64]:
    """Largest count c with ``c / N <= fmr`` in floating point, for each target."""
    count = np.floor(fmr * n_nonmated).astype(np.int64)
    count += (count + 1) / n_nonmated <= fmr
    count -= count / n_nonmated > fmr
    return count


def warn_unresolvable(
    fmr: NDArray, n_nonmated: int, *, rate: str = "FMR", counted: str = "non-mated comparisons"
) -> NDArray[np.bool_]:
    """Warn when a target rate is below 1/N; return the mask of resolvable targets."""
    resolved = fmr >= 1.0 / n_nonmated
    if not resolved.all():
        bad = np.unique(fmr[~resolved])
        warnings.warn(
            f"target {rate} {', '.join(f'{x:g}' for x in bad)} is below 1/N = {1 / n_nonmated:.3g} "
            f"(N = {n_nonmated} {counted}): the data cannot resolve it",
            InsufficientComparisonsWarning,
            stacklevel=3,
        )
    return resolved


def threshold_at_fmr_sorted(nonmated_sorted: NDArray, fmr: NDArray) -> NDArray[np.float64]:
    """``threshold_at_fmr`` on ascending, validated scores and validated targets."""
    n_nonmated = nonmated_sorted.size
    allowed = allowed_false_matches(fmr, n_nonmated)
    # Candidate: the score whose rank from the top is ``allowed``; if ties reach below
    # it, the rule needs the next distinct score above the tied block.
    index = np.minimum(n_nonmated - allowed, n_nonmated - 1)
    candidate = nonmated_sorted[index]
    first = np.searchsorted(nonmated_sorted, candidate, side="left")
    after = np.searchsorted(nonmated_sorted, candidate, side="right")
    top = np.nextafter(nonmated_sorted[-1], np.inf)
    above = np.where(after < n_nonmated, nonmated_sorted[np.minimum(after, n_nonmated - 1)], top)
    thresholds = np.where(first >= n_nonmated - allowed, candidate, above)
    return np.where(allowed == 0, top, thresholds)


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

    Warns
    -----
    InsufficientComparisonsWarning
        When a target is below ``1/N``: the data cannot resolve it.

    Examples
    --------
    >>> threshold_at_fmr([0.1, 0.4, 0.6, 0.7], 0.25)
    0.7
    >>> threshold_at_fmr([0.1, 0.4, 0.6, 0.7], 0.5)
    0.6
    """
    nonmated_sorted = np.sort(as_scores(nonmated, "nonmated"))
    targets = as_rates(fmr, "fmr")
    warn_unresolvable(targets, nonmated_sorted.size)
    return scalar_or_array(threshold_at_fmr_sorted(nonmated_sorted, targets), fmr)


def tmr_at_fmr(mated: ArrayLike, nonmated: ArrayLike, fmr: float | ArrayLike) -> float | NDArray:
    """True match rate at the threshold set for a target FMR.

    Read more in the chapter "Compute error rates from scores".

    Returns
    -------
    float or ndarray
        ``1 - FNMR(threshold_at_fmr(nonmated, fmr))``, the TMR of the strictest threshold
        rule of :func:`threshold_at_fmr`.

    Examples
    --------
    >>> tmr_at_fmr([0.5, 0.65, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], 0.25)
    0.5
    """
    mated_sorted, nonmated_sorted = sorted_scores(mated, nonmated)
    targets = as_rates(fmr, "fmr")
    warn_unresolvable(targets, nonmated_sorted.size)
    tmr = tmr_sorted(mated_sorted, threshold_at_fmr_sorted(nonmated_sorted, targets))
    return scalar_or_array(tmr, fmr)


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
    mated, nonmated : array_like
        Mated and non-mated similarity scores.
    fmr : float, optional
        Target FMR; the threshold is :func:`threshold_at_fmr` of ``nonmated``.
    threshold : float, optional
        A fixed threshold. Give exactly one of ``fmr`` and ``threshold``.

    Returns
    -------
    OperatingPoint
        Threshold, achieved FMR and FNMR (match iff ``score >= threshold``), and the
        false-match and false-non-match counts with the class sizes.

    Examples
    --------
    >>> operating_point([0.5, 0.65, 0.8, 0.9], [0.1, 0.4, 0.6, 0.7], fmr=0.25)
    OperatingPoint(threshold=0.7, fmr=0.25, fnmr=0.5, false_matches=1, false_non_matches=2, n_mated=4, n_nonmated=4)
    """
    if (fmr is None) == (threshold is None):
        raise ValueError("give exactly one of fmr= and threshold=")
    mated_sorted, nonmated_sorted = sorted_scores(mated, nonmated)
    if fmr is not None:
        target = as_rates(fmr, "fmr").reshape(1)
        warn_unresolvable(target, nonmated_sorted.size)
        threshold = float(threshold_at_fmr_sorted(nonmated_sorted, target)[0])
    value = float(_as_thresholds(threshold))
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
