"""Extreme-value estimates of an FMR the data cannot resolve: a generalised Pareto tail.

Read more in the chapter "Audit demographic differentials" (``notebooks/10``).

With ``N`` non-mated scores no FMR below ``3/N`` can be measured (rule of three). Above a
high score ``u``, the excesses ``y = s - u`` of the top scores follow, for a broad class of
score distributions, a generalised Pareto law (Pickands-Balkema-de Haan theorem) with
survival ``S(y) = (1 + xi y / sigma)^(-1/xi)``. Fitting it to the ``n_u`` highest scores
extends the empirical FMR beyond the data::

    FMR(t) = (n_u / N) · S(t - u),   t > u

Every number computed this way is marked *extrapolated*: it rests on the model, not on
observed false matches.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, stats

from biofair._binomial import binomial_intervals
from biofair._resampling import progress
from biofair._thresholds import RESOLVED, resolution
from biofair._typing import Seed
from biofair._validation import (
    as_count,
    as_number,
    as_rng,
    as_scores,
    as_threshold,
    how_many,
    power_of_two_exponent,
)
from biofair._warnings import warn

#: Shape values over which the profile likelihood is maximised, with a finer grid around the
#: fitted shape (:func:`_shapes`).
_SHAPES = np.linspace(-0.95, 1.5, 123)
#: Numbers one block of the profile's computation holds (a block of constraints and shapes
#: times the excesses): 32 MB of float64, whatever the size of the tail.
_BLOCK_ENTRIES = 2**22
# Fewest tail scores a fit accepts.
_MIN_TAIL = 20
#: How the warning of an interval that is the point 0 begins (:func:`_warn_point_zero`).
_POINT_ZERO = "extrapolated_fmr: the generalised Pareto tail fitted"
#: How the warning of an FMR below the smallest float64 begins (:func:`_warn_underflow`).
_UNDERFLOW = "extrapolated_fmr: an FMR below the smallest float64"


class TailEstimate(NamedTuple):
    """An FMR at a threshold (or a threshold at an FMR) from a generalised Pareto tail.

    Returned by :func:`biofair.extrapolated_fmr` and :func:`biofair.extrapolated_threshold`.

    Attributes
    ----------
    estimate : float
        The FMR at ``threshold`` (or the threshold at ``fmr``) under the fitted tail.
    low : float
        Lower end of the profile-likelihood interval.
    high : float
        Upper end of the profile-likelihood interval (``inf`` when the data cannot bound it).
    confidence : float
        Coverage the interval was made for.
    threshold : float
        The threshold asked for (or estimated).
    fmr : float
        The FMR asked for (or estimated).
    tail_start : float
        ``u``: the scores above it were fitted.
    n_tail : int
        ``n_u``: the scores above ``u``.
    n_nonmated : int
        ``N``: all non-mated scores.
    shape : float
        The fitted shape ``xi`` (negative: a bounded tail, as a normal's; positive: heavy).
    scale : float
        The fitted scale ``sigma``.
    extrapolated : bool
        True when the threshold lies above ``u`` (the estimate rests on the model). Always
        True for a threshold the data cannot resolve.

    See Also
    --------
    biofair.extrapolated_fmr : Returns it for a threshold.
    biofair.extrapolated_threshold : Returns it for a target FMR.

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> tail = bf.extrapolated_fmr(np.random.default_rng(0).normal(size=2_000), 3.5)
    >>> tail.extrapolated, tail.n_tail
    (True, 200)
    """

    estimate: float
    low: float
    high: float
    confidence: float
    threshold: float
    fmr: float
    tail_start: float
    n_tail: int
    n_nonmated: int
    shape: float
    scale: float
    extrapolated: bool


class _Tail(NamedTuple):
    excess: NDArray[np.float64]  # in units of the mean excess, as are scale and loglik
    start: float
    share: float  # n_u / N
    shape: float
    scale: float
    loglik: float
    unit: float  # the mean excess: a distance above the start is excess · unit


def _fit(nonmated: ArrayLike, tail_fraction: float, min_tail: int) -> tuple[_Tail, int, int]:
    """The generalised Pareto fit to the top ``tail_fraction`` of the scores (at least
    ``min_tail`` of them); excesses over the next score down. The scores are first divided
    by ``2^e`` (returned), exactly, so that sums of scores near 1e308 do not overflow and
    ratios of subnormal ones do not either; the start is in those units. The excesses, the
    scale and the log-likelihood are in units of the mean excess: scores times any power of
    two give the same fit and the same profile likelihoods, bit for bit."""
    scores = np.sort(as_scores(nonmated, "nonmated"))
    exponent = power_of_two_exponent(scores)
    scores = np.ldexp(scores, -exponent)
    # a float: as float32, long double or Fraction, the tail's size was rounded from another product
    tail_fraction = as_number(tail_fraction, "tail_fraction", low=0.0, high=1.0, open_low=True, open_high=True)
    minimum = as_count(min_tail, "min_tail", minimum=_MIN_TAIL)
    n = scores.size
    wanted = max(minimum, int(round(tail_fraction * n)))
    if wanted >= n:
        raise ValueError(
            f"nonmated has {how_many(n, 'score')}: a tail of {wanted} needs at least {wanted + 1} "
            f"(min_tail = {minimum}); too few to fit a tail"
        )
    start = scores[n - wanted - 1]
    excess = scores[scores > start] - start  # ties at u stay below it
    distinct = np.unique(excess).size
    if excess.size < minimum or distinct < 3:
        shown = float(np.ldexp(start, exponent))  # in the scores' own units
        raise ValueError(
            f"nonmated has only {how_many(excess.size, 'score')} above the tail start {shown:g}; too few to fit a tail"
            if excess.size < minimum else
            f"the {excess.size} scores of nonmated above the tail start {shown:g} take only {distinct} distinct "
            "values; a tail fit needs at least 3"
        )
    unit = float(excess.mean())  # fitted in units of the mean excess: the same fit whatever the score scale
    excess = excess / unit
    shape, _, scale = stats.genpareto.fit(excess, floc=0)
    if shape < -1:  # no regular maximum there (the likelihood grows as the end nears the top score): the
        # uniform tail, the bound of the regular fits, whose likelihood sigma^-n_u is largest at the top excess
        # (scipy's fit with the shape fixed at -1 often ended the tail below it: an FMR of 0 above observed scores)
        shape, scale = -1.0, float(excess.max())
    loglik = float(stats.genpareto.logpdf(excess, shape, 0, scale).sum())
    return _Tail(excess, float(start), excess.size / n, float(shape), float(scale), loglik, unit), n, exponent


def _shapes(tail: _Tail) -> NDArray[np.float64]:
    """The shapes the profile is maximised over: :data:`_SHAPES`, the fitted shape itself
    (so that the estimate's own constraint gives the fit's likelihood: it is always
    accepted), and 41 shapes a quarter of a standard error apart around it, the standard
    error of the fit being about ``(1 + xi) / sqrt(n_u)`` (``1 + xi`` taken as at least 0.5,
    so that a fit near -1 keeps a useful spread). With a large tail the likelihood
    is so sharp in the shape that the grid's step of 0.02 (about 7 standard errors at
    ``n_u = 10^5``) missed it, and the interval could exclude the estimate."""
    error = (1 + max(tail.shape, -0.5)) / np.sqrt(tail.excess.size)
    local = tail.shape + error * np.linspace(-5, 5, 41)
    shapes = np.unique(np.concatenate([_SHAPES, [tail.shape], local[local > -1]]))
    return shapes[shapes != 0]  # the constraint's scale is undefined at 0 (its limit is the exponential tail's)


def _loglik(excess: NDArray, distance: NDArray, log_survival: NDArray, xi: NDArray) -> NDArray[np.float64]:
    """Log-likelihood of the excesses under the tail of shape ``xi`` (never 0) with
    ``S(d) = q``, one per element of the equally shaped ``distance``, ``log_survival``
    (``log q``) and ``xi``: the scale follows from the constraint, ``sigma = xi d / (q^-xi - 1)``.
    -inf where no such tail holds every excess. Computed in blocks of at most
    :data:`_BLOCK_ENTRIES` numbers."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        sigma = xi * distance / np.expm1(-xi * log_survival)
        ratio = (xi / sigma).ravel()[:, None]  # xi / sigma, one row per tail
        sums = np.empty(ratio.shape[0])
        rows = max(1, _BLOCK_ENTRIES // excess.size)
        for start in range(0, ratio.shape[0], rows):
            z = ratio[start:start + rows] * excess  # xi y / sigma
            logs = np.log1p(np.maximum(z, -1.0))
            sums[start:start + rows] = np.where((z > -1).all(1), logs.sum(1), np.nan)
        loglik = -excess.size * np.log(sigma) - (1 + 1 / xi) * sums.reshape(sigma.shape)
    return np.where(np.isfinite(loglik) & (sigma > 0), loglik, -np.inf)


#: Golden-section steps that refine each constraint's best shape between the grid's neighbours
#: of its best grid shape: the bracket shrinks to 0.618^30, 5e-7 of its width.
_REFINE_STEPS = 30


def _constrained_loglik(excess: NDArray, distance: NDArray, log_survival: NDArray,
                        shapes: NDArray) -> NDArray[np.float64]:
    """Profile log-likelihood: for each pair (d, log q), the largest log-likelihood of a tail
    with ``S(d) = q`` (:func:`_loglik`). ``q`` is given by its natural logarithm, so that an
    ``S`` below the smallest float64 (a heavy tail far out) is a constraint too.

    The best of the grid ``shapes`` (none is 0) is refined by a golden-section search between
    its two neighbours on the grid. Under a constraint far from the data the likelihood is
    much sharper in the shape than the fit's own (the scale moves with the shape): the best
    grid shape of a heavy tail fell 0.02 from the optimum and 0.4 below its log-likelihood,
    which narrowed the interval by up to 25%."""
    xi = shapes[None, :]
    grid = _loglik(excess, distance[:, None], log_survival[:, None], xi)  # (constraints, shapes)
    best = np.argmax(grid, axis=1)
    low, high = shapes[np.maximum(best - 1, 0)], shapes[np.minimum(best + 1, shapes.size - 1)]

    def at(x: NDArray) -> NDArray[np.float64]:
        return _loglik(excess, distance, log_survival, x)

    golden = (np.sqrt(5.0) - 1) / 2
    inner_low, inner_high = high - golden * (high - low), low + golden * (high - low)
    at_low, at_high = at(inner_low), at(inner_high)
    for _ in range(_REFINE_STEPS):  # the maximum stays between low and high
        left = at_low >= at_high  # it lies in [low, inner_high]
        low, high = np.where(left, low, inner_low), np.where(left, inner_high, high)
        inner_low, inner_high = (np.where(left, high - golden * (high - low), inner_high),
                                 np.where(left, inner_low, low + golden * (high - low)))
        value = at(np.where(left, inner_low, inner_high))
        at_low, at_high = np.where(left, value, at_high), np.where(left, at_low, value)
    return np.maximum(grid.max(1), np.maximum(at_low, at_high))


def _accepted_range(grid: NDArray, profile: NDArray, loglik: float, confidence: float,
                    at: Callable[[float], float]) -> tuple[float, float] | None:
    """The ends of the region where the likelihood ratio test accepts (Wilks: the deviance
    ``2 (l_hat - l_p)`` below the chi-square(1) quantile): between the last grid point inside
    and the first outside, the point where the profile ``at(x)`` crosses the cut (Brent's
    method, to a ten-thousandth of the grid step); an end of the grid where the region
    reaches it. None when the test accepts no grid point (an estimate off the grid: FMR 0
    beyond a bounded tail's end). The profile is concave near its ends: interpolated linearly
    between grid points 0.25 decade apart, it narrowed the interval (each end by up to 5%)."""
    cut = loglik - stats.chi2.ppf(confidence, 1) / 2
    inside = np.flatnonzero(profile >= cut)
    if inside.size == 0:
        return None

    def above_cut(x: float) -> float:  # clipped: -inf (no tail meets the constraint) keeps its sign, finite
        return max(at(x) - cut, -1.0)

    ends = []
    for edge, step in ((inside[0], -1), (inside[-1], 1)):
        out = edge + step
        ends.append(float(grid[edge]) if out < 0 or out >= grid.size else optimize.brentq(
            above_cut, grid[out], grid[edge], xtol=1e-4 * abs(grid[edge] - grid[out])))
    return ends[0], ends[1]


def _warn_point_zero(tail: _Tail, n: int, exponent: int, threshold: float, deviance: float,
                     confidence: float) -> None:
    """Warn that the interval of an extrapolated FMR is the single point 0: the fitted tail
    (a bounded one, of ``n`` scores divided by ``2^exponent``) ends below the threshold, and
    the best tail reaching the threshold has ``deviance``, above the chi-square(1) cut, so the
    likelihood ratio test rejects it."""
    end = float(np.ldexp(tail.start + tail.scale / -tail.shape * tail.unit, exponent))
    rejected = stats.chi2.sf(deviance, 1)  # 0 for a deviance of inf (a threshold near the largest float64)
    accepted = (f"it would be accepted at confidence {stats.chi2.cdf(deviance, 1):.4g}" if rejected >= 5e-5 else
                f"it would be accepted only above confidence 1 - {rejected:.2g}" if rejected > 0 else
                "no confidence below 1 that a float64 holds accepts it")
    warn(
        f"{_POINT_ZERO} to the top {tail.excess.size:,} of the {how_many(n, 'non-mated score')} "
        f"(shape {tail.shape:.2f}) ends at {end:.6g}, below threshold={threshold:.6g}, so the FMR estimate "
        f"is 0 and its {confidence:.3g} interval is [0, 0]: the best tail reaching the threshold (S >= 1e-14 "
        f"there) has a deviance of {deviance:.2f}, above the chi-square(1) cut {stats.chi2.ppf(confidence, 1):.2f} "
        f"({accepted}). Do not read [0, 0] as certainty "
        "that the FMR is 0: the chi-square calibration fails for shapes below -0.5 (a non-regular likelihood), "
        f"and the fit is a model's, the less of a tail the more of the sample it holds (here {tail.share:.0%}). "
        "Give more non-mated scores, or report this FMR as not estimated"
    )


def _warn_underflow(tail: _Tail, n: int, threshold: float, log_fmr: float, high: float,
                    confidence: float) -> None:
    """Warn that the FMR of the fitted tail at ``threshold``, ``10^log_fmr``, is below the
    smallest float64 and is returned as 0, in the interval [0, ``high``]."""
    warn(
        f"{_UNDERFLOW} (2**-1074, 4.9e-324): threshold={threshold:.6g} is reached by the generalised Pareto tail "
        f"fitted to the top {tail.excess.size:,} of the {how_many(n, 'non-mated score')} (shape {tail.shape:.2f}"
        f"{', a tail with no end' if tail.shape >= 0 else ''}) with an FMR of 10^{log_fmr:.1f}: the estimate is "
        f"returned as 0, the value underflowing, not an FMR of 0, in the {confidence:.3g} interval [0, {high:.3g}]"
    )


def _too_far(tail: _Tail, n: int, exponent: int, threshold: float) -> str:
    """The message of a threshold whose distance above the start of a tail with no end
    overflows float64 in units of its mean excess."""
    return (
        f"threshold={threshold:.6g} lies more than 1.8e308 mean excesses "
        f"({float(np.ldexp(tail.unit, exponent)):.3g}) above the start {float(np.ldexp(tail.start, exponent)):.6g} "
        f"of the generalised Pareto tail fitted to the top {tail.excess.size:,} of the "
        f"{how_many(n, 'non-mated score')}: its distance overflows float64, and a tail with no end "
        f"(shape {tail.shape:.2f}) gives no FMR there without it; lower the threshold"
    )


def extrapolated_fmr(
    nonmated: ArrayLike,
    threshold: float,
    *,
    tail_fraction: float = 0.1,
    min_tail: int = 50,
    confidence: float = 0.95,
) -> TailEstimate:
    """FMR at a threshold beyond the data, from a generalised Pareto fit to the top scores.

    Read more in the chapter "Audit demographic differentials".

    Parameters
    ----------
    nonmated : array_like
        Non-mated scores (higher = more similar).
    threshold : float
        Decision threshold (match iff ``score >= threshold``).
    tail_fraction : float, default 0.1
        Share of the highest scores fitted (the top 10%, a common choice that keeps the
        fit in the tail yet gives it scores enough) ...
    min_tail : int, default 50
        ... and never fewer than this many (at least 20).
    confidence : float, default 0.95
        Coverage of the profile-likelihood interval.

    Returns
    -------
    TailEstimate
        ``estimate = (n_u/N) · S(threshold - u)`` with its interval, the fit and
        ``extrapolated=True`` when ``threshold > u``. At or below ``u`` the empirical FMR is
        returned (the data resolve it) with the Clopper-Pearson interval and
        ``extrapolated=False``. At ``threshold=inf``, which no score reaches, the FMR is 0
        in [0, 0], exactly and without a warning, whatever the tail.

    Raises
    ------
    ValueError
        When ``nonmated`` is empty, is not one-dimensional, or holds a NaN or infinite score, a
        masked value or an integer beyond ``±2**53``; when ``threshold`` is NaN or not a float64
        number, ``min_tail`` is below 20, or ``tail_fraction`` or ``confidence`` lies outside
        (0, 1); or when there are too few scores for a tail of ``min_tail`` (at least
        ``min_tail + 1``), or ties leave the tail fewer than ``min_tail`` scores above its start
        or fewer than 3 distinct ones.
    TypeError
        When ``nonmated`` does not hold real numbers (booleans, text and complex numbers are
        refused), ``threshold``, ``tail_fraction`` or ``confidence`` is not a number, or
        ``min_tail`` is not an integer.
    OverflowError
        When the fitted tail has no end (shape at least 0) and ``threshold`` lies so far above
        ``u`` (near the largest float64) that its distance overflows float64 in units of the
        tail's mean excess: no FMR can be computed there.

    Warns
    -----
    UserWarning
        When the interval is the single point 0: the fitted tail ends below the threshold and
        the likelihood ratio test rejects every tail that reaches it. The warning gives the
        deviance of the best such tail and the confidence at which it would be accepted.
    UserWarning
        When the fitted tail reaches the threshold but its FMR there is below the smallest
        float64 (``2**-1074``): the estimate is returned as 0, the value underflowing, not an
        FMR of 0 (a heavy tail far out). The warning gives the FMR's power of ten and the
        interval, whose upper end may underflow to 0 too.

    See Also
    --------
    biofair.extrapolated_threshold : The threshold at a target FMR, the same way.
    biofair.differential_report : Uses it for groups that cannot resolve the target.
    biofair.threshold_at_fmr : The empirical threshold, where the data resolve the target.

    Notes
    -----
    ``u`` is the highest score below the top ``n_u = max(min_tail, round(tail_fraction·N))``;
    the excesses ``y = s - u`` of the scores above it are fitted by maximum likelihood
    (``scipy.stats.genpareto.fit`` with location 0; a shape below -1, where the likelihood
    has no maximum, is taken at -1, the uniform tail). The share ``n_u / N`` is fixed by this
    choice, so the interval is that of ``S(threshold - u)`` times it: the profile
    likelihood interval (Coles, section 4.3.3), the values ``q`` of ``S`` whose best tail
    under the constraint ``S(d) = q`` has a deviance below the chi-square(1) quantile.
    The profile is maximised over a grid of shapes in [-0.95, 1.5] (step 0.02), refined
    around the fitted shape (41 shapes a quarter of a standard error apart), then between
    the neighbours of the best grid shape by a golden-section search, and evaluated
    every 0.25 decade of ``S`` from ``1e-14`` to 1 (where no tail meets the constraint: its
    scale is infinite) and at the estimate (taken by its logarithm, so that one below
    ``2**-1074`` is a grid point too); each end is then solved for between the grid points
    around it (Brent's method): the upper end always, below ``n_u / N``. Its lower end is 0
    when the region reaches ``1e-14``, or when a bounded tail ending below the threshold
    fits as well. Its upper end is 0 too, with a warning, when the fitted tail ends below the
    threshold and even the best tail reaching it (one ending just past it: as ``S(d) -> 0``
    the constrained tails end at ``d``) has a deviance above the cut; the interval is then
    the profile likelihood's, but no certainty. The chi-square calibration of the deviance
    needs a regular likelihood, which the generalised Pareto's is only for shapes above -0.5
    (Smith, 1985): fits below it, where a bounded tail's end is estimated from the few
    highest scores, give intervals that cover less than their confidence.

    Below ``N = min_tail / tail_fraction`` (500 by default) the tail is more than
    ``tail_fraction`` of the scores, and near ``N = min_tail`` it is nearly all of them: the
    bulk of the distribution is fitted as if it were its tail. For normal scores at a true
    FMR of 1e-3 the 95% interval covered it in 26%, 52%, 77% and 86% of 400 samples of
    ``N`` = 51, 60, 100 and 200 scores, and was [0, 0] in 68%, 36%, 11% and 4% (92%, 88% and
    91% for generalised Pareto scores of shape -0.3 at ``N`` = 51, 60 and 100).

    The model is continuous and only approached in the tail: normal scores, whose tail nears
    the Pareto form slowly, come out low and their interval covers less than its confidence
    at the default ``tail_fraction``; scores rounded to a grid that is coarse against the
    tail's spread (the excesses then sit on that grid) come out lower still. Read the
    estimate as a model's, as its ``extrapolated`` flag says.

    References
    ----------
    S. Coles, "An Introduction to Statistical Modeling of Extreme Values", Springer, 2001,
    sections 4.2-4.3 (threshold excesses, profile likelihood). J. Pickands, "Statistical
    inference using extreme order statistics", Annals of Statistics 3, 1975. R. L. Smith,
    "Maximum likelihood estimation in a class of nonregular cases", Biometrika 72, 1985.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> import biofair as bf
    >>> scores = np.random.default_rng(1).normal(size=3_000)
    >>> tail = bf.extrapolated_fmr(scores, 3.3)  # FMR 4.8e-4: 1.4 expected false matches
    >>> bool(tail.low <= norm.sf(3.3) <= tail.high), tail.extrapolated
    (True, True)
    """
    threshold = as_threshold(threshold)
    confidence = as_number(confidence, "confidence", low=0.0, high=1.0, open_low=True, open_high=True)
    tail, n, exponent = _fit(nonmated, tail_fraction, min_tail)
    fit = (float(np.ldexp(tail.start, exponent)), tail.excess.size, n, tail.shape,
           float(np.ldexp(tail.scale * tail.unit, exponent)))
    if threshold <= fit[0]:
        k = int(np.sum(as_scores(nonmated, "nonmated") >= threshold))
        low, high, _, _ = (float(end[0]) for end in binomial_intervals(np.array([k]), np.array([n]), confidence))
        return TailEstimate(k / n, low, high, confidence, threshold, k / n, *fit, False)
    if threshold == np.inf:  # no score reaches it, whatever the tail
        return TailEstimate(0.0, 0.0, 0.0, confidence, threshold, 0.0, *fit, True)
    with np.errstate(over="ignore"):  # inf: a threshold near the largest float64, far beyond the tail
        distance = (np.ldexp(threshold, -exponent) - tail.start) / tail.unit
    if distance == np.inf and tail.shape >= 0:
        raise OverflowError(_too_far(tail, n, exponent, threshold))
    survival = float(stats.genpareto.sf(distance, tail.shape, 0, tail.scale))
    log_survival = float(stats.genpareto.logsf(distance, tail.shape, 0, tail.scale))  # -inf beyond a bounded tail's end
    # the profile over log S on a grid of 0.25 decades (below 1e-14: 0) up to S = 1, where no tail
    # meets the constraint (its scale is infinite), and at the estimate (which may underflow: 10^-700)
    grid = np.linspace(-14, 0, 57)
    if np.isfinite(log_survival):
        grid = np.unique(np.append(grid, np.log10(survival) if survival > 0 else log_survival / np.log(10)))
    shapes = _shapes(tail)
    profile = _constrained_loglik(tail.excess, np.full(grid.size, distance), grid * np.log(10), shapes)
    # Beyond a bounded tail's end the estimate is S = 0, off the grid. The test may accept no
    # S > 0 (the interval is 0 alone), or only S away from 0: fits that must reach past the
    # threshold can fit the excesses better the heavier their tail. The accepted set then holds
    # 0 and a stretch above it, and the interval spans both.
    low, high = _accepted_range(grid, profile, max(tail.loglik, profile.max()), confidence, lambda log_s: float(
        _constrained_loglik(tail.excess, np.array([distance]), np.array([log_s * np.log(10)]), shapes)[0])) or (
        -np.inf, -np.inf)  # log10 S
    fmr, high = tail.share * survival, tail.share * 10**high  # high < n_u/N: S = 1 is never accepted
    low = 0.0 if survival == 0 or low <= grid[0] else tail.share * 10**low
    if fmr == 0 and np.isfinite(log_survival):  # the fitted tail reaches the threshold, its FMR below 2**-1074
        _warn_underflow(tail, n, threshold, np.log10(tail.share) + log_survival / np.log(10), high, confidence)
    elif high == 0:  # the fitted tail ends below the threshold and the test rejects every tail reaching it
        _warn_point_zero(tail, n, exponent, threshold, 2 * (tail.loglik - profile.max()), confidence)
    return TailEstimate(fmr, low, high, confidence, threshold, fmr, *fit, True)


def extrapolated_threshold(
    nonmated: ArrayLike,
    fmr: float,
    *,
    tail_fraction: float = 0.1,
    min_tail: int = 50,
    confidence: float = 0.95,
) -> TailEstimate:
    """Threshold at a target FMR beyond the data, from a generalised Pareto fit.

    Read more in the chapter "Audit demographic differentials".

    Parameters
    ----------
    nonmated : array_like
        Non-mated scores (higher = more similar).
    fmr : float
        Target FMR, below the share ``n_u / N`` of the fitted tail.
    tail_fraction : float, default 0.1
        Share of the highest scores fitted ...
    min_tail : int, default 50
        ... and never fewer than this many (at least 20).
    confidence : float, default 0.95
        Coverage of the profile-likelihood interval.

    Returns
    -------
    TailEstimate
        ``estimate = u + sigma/xi · ((n_u / (N·fmr))^xi - 1)``, the threshold whose
        extrapolated FMR is ``fmr``, with its profile-likelihood interval (``high = inf``
        when the test accepts every distance float64 holds, or when the upper end exceeds
        the largest float64) and ``extrapolated=True``.

    Raises
    ------
    ValueError
        When ``nonmated`` is empty, is not one-dimensional, or holds a NaN or infinite score, a
        masked value or an integer beyond ``±2**53``; when ``fmr``, ``tail_fraction`` or
        ``confidence`` lies outside (0, 1) or ``min_tail`` is below 20; when there are too few
        scores to fit a tail (as for :func:`biofair.extrapolated_fmr`); or when ``fmr`` is not
        below ``n_u / N`` (the data resolve it: use :func:`biofair.threshold_at_fmr`).
    TypeError
        When ``nonmated`` does not hold real numbers (booleans, text and complex numbers are
        refused), ``fmr``, ``tail_fraction`` or ``confidence`` is not a number, or ``min_tail``
        is not an integer.
    OverflowError
        When the estimated threshold exceeds the largest float64 (a heavy tail of scores
        near it, or a tiny ``fmr``).

    See Also
    --------
    biofair.extrapolated_fmr : The FMR at a threshold, the same way.
    biofair.threshold_at_fmr : The empirical threshold.

    Notes
    -----
    The interval holds the thresholds ``t`` for which the constraint ``S(t - u) = fmr·N/n_u``
    is not rejected by the likelihood ratio test (profile likelihood of a return level,
    Coles, section 4.3.3), over a grid of 120 distances above ``u``: ``u`` itself (where no
    tail meets the constraint: its scale is 0), 59 up to the largest excess, 59 more up to
    100 times it, and the estimate's; while the test accepts the last of them (a heavy tail,
    or an estimate beyond them), 20 more every five decades, up to the largest float64. Each
    end is solved for between the grid points around it: the lower end always, above ``u``,
    and the upper end unless the test accepts the largest float64.

    The caveats of :func:`biofair.extrapolated_fmr` hold here too: for shapes below -0.5
    the chi-square calibration fails, and a small sample's tail is most of its scores. For
    normal scores and ``fmr=1e-3`` the 95% interval covered the true threshold in about 25%,
    52%, 79% and 87% of 200 samples of ``N`` = 51, 60, 100 and 200 scores, its upper end
    falling below it in most of the rest.

    References
    ----------
    S. Coles, "An Introduction to Statistical Modeling of Extreme Values", Springer, 2001,
    section 4.3.3 (return levels and their profile likelihood).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> import biofair as bf
    >>> scores = np.random.default_rng(1).normal(size=3_000)
    >>> tail = bf.extrapolated_threshold(scores, 1e-4)
    >>> bool(tail.low <= norm.isf(1e-4) <= tail.high)
    True
    """
    target = as_number(fmr, "fmr", low=0.0, high=1.0, open_low=True, open_high=True)
    confidence = as_number(confidence, "confidence", low=0.0, high=1.0, open_low=True, open_high=True)
    tail, n, exponent = _fit(nonmated, tail_fraction, min_tail)
    if target >= tail.share:
        raise ValueError(
            f"fmr={target:g} is not below the tail share n_u/N = {tail.share:.3g}: the data "
            "resolve it; use threshold_at_fmr"
        )
    survival = target / tail.share
    distance = float(stats.genpareto.isf(survival, tail.shape, 0, tail.scale))
    with np.errstate(over="ignore"):  # a heavy tail, scores near the largest float64: inf, refused
        estimate = float(np.ldexp(tail.start + distance * tail.unit, exponent))
    if estimate == np.inf:
        raise OverflowError(
            f"the threshold at fmr={target:g} overflows float64: the generalised Pareto tail fitted to the top "
            f"{tail.excess.size:,} of the {how_many(n, 'non-mated score')} (shape {tail.shape:.2f}) puts it "
            f"{distance:.3g} mean excesses ({float(np.ldexp(tail.unit, exponent)):.3g}) above its start "
            f"{float(np.ldexp(tail.start, exponent)):.6g}; the scores are too large for this FMR"
        )
    span = tail.excess.max()
    # from u, where no tail meets the constraint (its scale is 0), to 100 times the largest excess
    grid = np.unique(np.concatenate([np.linspace(0, 1, 60) * span, span * np.logspace(0, 2, 60)[1:], [distance]]))
    shapes = _shapes(tail)
    log_survival = np.log(survival)
    profile = _constrained_loglik(tail.excess, grid, np.full(grid.size, log_survival), shapes)
    # the grid holds the estimate's distance, whose profile is the maximum: always accepted. While the
    # region reaches the grid's end (a heavy tail, or an estimate beyond it), five more decades up to
    # the largest float64: the upper end is inf only when no distance that float64 holds is rejected
    level = max(tail.loglik, profile.max()) - stats.chi2.ppf(confidence, 1) / 2
    while profile[-1] >= level and grid[-1] < np.finfo(np.float64).max:
        with np.errstate(over="ignore"):
            further = np.unique(np.minimum(grid[-1] * np.logspace(0.25, 5, 20), np.finfo(np.float64).max))
        grid = np.append(grid, further)
        profile = np.append(profile, _constrained_loglik(tail.excess, further, np.full(further.size, log_survival),
                                                         shapes))
    low, high = _accepted_range(grid, profile, max(tail.loglik, profile.max()), confidence, lambda d: float(
        _constrained_loglik(tail.excess, np.array([d]), np.array([log_survival]), shapes)[0]))
    high = np.inf if high >= grid[-1] else high
    with np.errstate(over="ignore"):  # an upper end beyond the largest float64: inf
        low, high, start, scale = (float(np.ldexp(v, exponent)) for v in (
            tail.start + low * tail.unit, tail.start + high * tail.unit, tail.start, tail.scale * tail.unit))
    return TailEstimate(estimate, low, high, confidence, estimate, target, start, tail.excess.size, n, tail.shape, scale, True)


def subsample_coverage(
    nonmated: ArrayLike,
    threshold: float,
    *,
    fraction: float = 0.01,
    n_repeats: int = 200,
    tail_fraction: float = 0.1,
    min_tail: int = 50,
    confidence: float = 0.95,
    rng: Seed = None,
    progress_bar: bool | None = None,
) -> pd.DataFrame:
    """Check the extrapolated FMR by subsampling: how often its interval covers the full data's FMR.

    Each repetition fits the tail on a small random share of the scores and compares its
    interval with the empirical FMR of all of them.

    Read more in the chapter "Audit demographic differentials".

    Parameters
    ----------
    nonmated : array_like
        A large set of non-mated scores, whose empirical FMR at ``threshold`` stands for
        the truth.
    threshold : float
        The threshold (match iff ``score >= threshold``).
    fraction : float, default 0.01
        Share of the scores drawn (without replacement) in each repetition: ``fraction * N``
        rounded to the nearest integer (halves to even).
    n_repeats : int, default 200
        Repetitions.
    tail_fraction : float, default 0.1
        Share of the highest scores fitted, as for :func:`biofair.extrapolated_fmr` ...
    min_tail : int, default 50
        ... and never fewer than this many.
    confidence : float, default 0.95
        Coverage of each interval.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed. Each repetition draws its subsample with one call of
        ``rng.choice(nonmated, n, replace=False)``, in turn: the same seed and the same scores
        in the same order give the same table.
    progress_bar : bool, optional
        Show a progress bar over the repetitions; by default only on an interactive terminal
        (each fit reads its tail many times: 200 repetitions on 1e6 scores take about 30 s).

    Returns
    -------
    pandas.DataFrame
        One row per repetition: ``n`` (scores drawn), ``k`` (of them at or above the
        threshold), ``resolved`` (whether the subsample resolves the full-data FMR by the
        rule of three), ``estimate``, ``low``, ``high``, ``full_fmr`` (the empirical FMR of
        all the scores) and ``covered`` (``low <= full_fmr <= high``). A repetition whose
        interval is 0 alone is not warned about, as :func:`biofair.extrapolated_fmr` warns:
        its row does not cover.

    Raises
    ------
    ValueError
        When ``nonmated`` is empty, is not one-dimensional, or holds a NaN or infinite score, a
        masked value or an integer beyond ``±2**53``; when ``threshold`` is NaN or not a float64
        number, ``fraction`` lies outside (0, 1], ``n_repeats`` is below 1, ``min_tail`` below
        20, or ``tail_fraction`` or ``confidence`` outside (0, 1); when fewer than 3 scores lie
        at or above ``threshold`` (the full data's FMR, then unresolved by the rule of three,
        cannot stand for the truth: an interval from 0 would count as covering it); or when a
        subsample cannot be fitted (``fraction`` draws no more than ``min_tail`` scores, or ties
        leave its tail too few scores or fewer than 3 distinct ones); or when ``rng`` is a
        negative seed.
    TypeError
        When ``nonmated`` does not hold real numbers, ``threshold``, ``fraction``,
        ``tail_fraction`` or ``confidence`` is not a number, ``n_repeats`` or ``min_tail`` is
        not an integer, or ``rng`` is neither a Generator, an integer seed nor None.

    See Also
    --------
    biofair.extrapolated_fmr : The estimate being checked.

    References
    ----------
    S. Coles, "An Introduction to Statistical Modeling of Extreme Values", Springer, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> scores = np.random.default_rng(0).normal(size=100_000)
    >>> runs = bf.subsample_coverage(scores, 3.0, fraction=0.05, n_repeats=5, rng=0)
    >>> len(runs), bool(runs["covered"].mean() >= 0.6)
    (5, True)
    """
    scores = as_scores(nonmated, "nonmated")
    threshold = as_threshold(threshold)
    fraction = as_number(fraction, "fraction", low=0.0, high=1.0, open_low=True)  # a float, as tail_fraction
    repeats = as_count(n_repeats, "n_repeats")
    rng = as_rng(rng)
    size = int(round(fraction * scores.size))
    if size <= as_count(min_tail, "min_tail", minimum=_MIN_TAIL):
        raise ValueError(
            f"fraction={fraction!r} draws {size} of {scores.size} scores; a tail of min_tail={min_tail} "
            f"needs at least {min_tail + 1}"
        )
    above = int(np.count_nonzero(scores >= threshold))
    if above < RESOLVED:
        raise ValueError(
            f"only {above} of the {scores.size:,} scores lie at or above threshold={threshold!r}: the full data's "
            f"FMR there is unresolved (fewer than {RESOLVED} false matches), so it cannot stand for the truth "
            "that the intervals should cover; lower the threshold or give more scores"
        )
    full = above / scores.size
    rows = []
    for _ in progress(range(repeats), total=repeats, desc="tail fits", show=progress_bar):  # each fit vectorised
        drawn = rng.choice(scores, size, replace=False)
        with warnings.catch_warnings():  # an interval of 0 alone is a row that does not cover, not a warning
            warnings.filterwarnings("ignore", _POINT_ZERO, UserWarning)
            tail = extrapolated_fmr(drawn, threshold, tail_fraction=tail_fraction, min_tail=min_tail,
                                    confidence=confidence)
        rows.append((size, int(np.sum(drawn >= threshold)), bool(resolution(full, size)[0]), tail.estimate,
                     tail.low, tail.high))
    table = pd.DataFrame(rows, columns=["n", "k", "resolved", "estimate", "low", "high"])
    table["full_fmr"] = full
    table["covered"] = (table["low"] <= full) & (full <= table["high"])
    return table
