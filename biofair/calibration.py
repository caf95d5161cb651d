"""Calibration: how well scores read as likelihood ratios, and how to make them so.

A calibrated score is a natural-log likelihood ratio, ``llr = ln p(s | mated) / p(s | non-mated)``:
a decision maker with prior ``p`` and costs ``c_miss``, ``c_fa`` can then accept iff
``llr >= ln(c_fa (1 - p) / (c_miss p))`` without seeing a single development score. Cllr
measures the cost of reading the scores that way; minCllr the cost that remains after the best
monotone recalibration (pool-adjacent-violators, PAV); their difference is the calibration
loss. Actual DCF beside minimum DCF is the same comparison at one operating point.

Read more in the chapter "Calibration: from scores to evidence" (``notebooks/11``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import isotonic_regression
from scipy.special import expit, logit

from biofair._counts import counts_at, error_counts_sorted, sorted_scores
from biofair._typing import By
from biofair._validation import (
    SMALLEST_BOUND,
    _is_real_number,
    as_count,
    as_number,
    as_scores,
    check_values_finite,
    how_many,
    is_real_dtype,
    power_of_two_exponent,
    quoted,
    text_mask,
)
from biofair._warnings import warn
from biofair.detection_cost import _checked_costs, _min_dcf_from_counts
from biofair.dispersion import _inequity, garbe
from biofair.exceptions import SchemaError, UndefinedRateWarning
from biofair.groups import ScoresByGroup, scores_by_group

_LN2 = np.log(2.0)
_POOLED = "(all)"  # the row of all groups pooled
_FAIRNESS_MEASURES = ["cllr", "min_cllr", "calibration_loss", "actual_dcf", "min_dcf"]


def _bayes_threshold(p_target: float, c_miss: float, c_fa: float) -> float:
    """``ln(c_fa (1 - p) / (c_miss p))``: accept iff the LLR reaches it (Bayes decision), of a
    prior and costs checked by :func:`~biofair.detection_cost._checked_costs`."""
    return float(np.log(c_fa * (1.0 - p_target)) - np.log(c_miss * p_target))


def _cllr_sorted(mated: NDArray, nonmated: NDArray) -> float:
    """Cllr in bits of LLRs (±inf allowed: a right answer with infinite evidence costs 0).

    Costs near 1.8e308 are averaged at 2^-64 of their size, so that their sum does not
    overflow; a Cllr beyond the largest float is an error, never inf.
    """

    def half_mean(costs: NDArray) -> float:  # in bits, cost by cost: ln 2 / ln 2 is exactly 1
        shift = 64 if costs.size and costs.max() > 2.0**960 else 0  # exact: powers of two
        return float(np.ldexp((np.ldexp(costs, -shift) / _LN2).mean(), shift - 1))

    with np.errstate(over="ignore"):
        value = half_mean(np.logaddexp(0.0, -mated)) + half_mean(np.logaddexp(0.0, nonmated))
    if not np.isfinite(value):
        raise OverflowError(
            "Cllr exceeds the largest float64: LLRs of magnitude up to "
            f"{max(np.abs(mated[np.isfinite(mated)]).max(initial=0), np.abs(nonmated[np.isfinite(nonmated)]).max(initial=0)):.3g} "
            "point the wrong way; scores this large are not log-likelihood ratios"
        )
    return float(value)


def cllr(mated: ArrayLike, nonmated: ArrayLike) -> float:
    """Log-likelihood-ratio cost of scores read as natural-log likelihood ratios.

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) scores, read as natural-log likelihood ratios.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) scores, read the same way.

    Returns
    -------
    float
        In bits,

        ``Cllr = 1/(2 ln 2) · [mean_m ln(1 + e^{-s}) + mean_n ln(1 + e^{s})]``.

        0 for perfect, infinitely confident evidence; 1 for scores that are all 0 (no
        evidence either way); above 1 when the scores mislead. It is the area under the
        Bayes error rate ``P_e = p·FNMR + (1 - p)·FMR`` of the decisions the LLRs make, over
        all prior log-odds ``ln(p / (1 - p))``, divided by ``2 ln 2`` (Brümmer and du Preez,
        2006; not the mean of the normalised DCF, which tends to 1 at extreme priors), so it
        penalises both poor discrimination and poor calibration.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN, a
        masked value or an integer beyond ``±2**53``; or for an LLR of infinite evidence for
        the wrong answer (a mated -inf, a non-mated +inf: Cllr is infinite). Infinite
        evidence for the right answer costs 0 (:func:`biofair.pav_llrs` gives such LLRs).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused).

    See Also
    --------
    min_cllr : The part of Cllr that no monotone recalibration removes.
    fit_logistic_calibration : Turns similarity scores into log-likelihood ratios.

    References
    ----------
    N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection",
    Computer Speech and Language, 2006 (Cllr, eq. 30).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.cllr([0.0, 0.0], [0.0])
    1.0
    >>> round(bf.cllr([3.0, 2.0], [-2.0, -4.0]), 4)
    0.1156
    """
    m, n = sorted_scores(mated, nonmated, infinite=True)  # LLRs of ±inf: infinite evidence
    if m[0] == -np.inf or n[-1] == np.inf:
        raise ValueError("Cllr is infinite: " + ("a mated LLR is -inf" if m[0] == -np.inf else "a non-mated LLR is +inf")
                         + ", infinite evidence for the wrong answer")
    return _cllr_sorted(m, n)


def _pav_llrs(mated_sorted: NDArray, nonmated_sorted: NDArray) -> tuple[NDArray, NDArray]:
    """LLRs of both classes (ascending) after PAV, tied scores pooled into one value."""
    scores = np.concatenate([nonmated_sorted, mated_sorted])
    labels = np.concatenate([np.zeros(nonmated_sorted.size), np.ones(mated_sorted.size)])
    order = np.argsort(scores, kind="stable")
    scores, labels = scores[order], labels[order]
    starts = np.flatnonzero(np.concatenate([[True], scores[1:] != scores[:-1]]))
    weights = np.diff(np.append(starts, scores.size))
    tied_mated = np.add.reduceat(labels, starts)
    posterior = isotonic_regression(tied_mated / weights, weights=weights, increasing=True).x
    # each pooled block's LLR from its counts, k mated of w: ln(k·N) - ln((w - k)·M), the products
    # exact below 2**53, so that a block of the classes' own proportions has an LLR of 0 exactly
    # (logit of the rounded k/w gave -1.1e-16)
    blocks = np.flatnonzero(np.concatenate([[True], posterior[1:] != posterior[:-1]]))
    k, w = np.add.reduceat(tied_mated, blocks), np.add.reduceat(weights, blocks).astype(np.float64)
    with np.errstate(divide="ignore"):
        block_llrs = np.log(k * nonmated_sorted.size) - np.log((w - k) * mated_sorted.size)
    llrs = np.repeat(np.repeat(block_llrs, np.diff(np.append(blocks, weights.size))), weights)
    return llrs[labels == 1], llrs[labels == 0]


def pav_llrs(mated: ArrayLike, nonmated: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Optimal monotone recalibration: the log-likelihood ratios PAV gives each score.

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) scores; any scale, higher = more similar.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) scores.

    Returns
    -------
    mated_llrs : ndarray
        The mated scores, ascending, mapped to ``logit(q) - ln(M / N)`` where ``q`` is the
        isotonic (pool-adjacent-violators) regression of the class label (1 = mated) on the
        score, tied scores pooled first so that they share one value. The result is
        non-decreasing in the score and can reach ``±inf`` at the ends (blocks of one class).
    nonmated_llrs : ndarray
        The non-mated scores, ascending, mapped the same way.

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
    min_cllr : Cllr of these LLRs.
    fit_logistic_calibration : The parametric (affine) recalibration.

    Notes
    -----
    Computed with ``scipy.optimize.isotonic_regression`` on the label means of the
    distinct scores, weighted by their counts. PAV maximises the likelihood among all
    monotone maps, and so minimises Cllr among them (Brümmer and du Preez, 2013).

    References
    ----------
    N. Brümmer and J. du Preez, "The PAV algorithm optimizes binary proper scoring rules",
    arXiv:1304.2331, 2013; M. Ayer et al., "An empirical distribution function for sampling
    with incomplete information", Ann. Math. Stat., 1955 (PAV).

    Examples
    --------
    >>> import biofair as bf
    >>> mated_llrs, nonmated_llrs = bf.pav_llrs([0.6, 0.9], [0.1, 0.7])
    >>> mated_llrs.tolist(), nonmated_llrs.tolist()
    ([0.0, inf], [-inf, 0.0])
    """
    return _pav_llrs(*sorted_scores(mated, nonmated))


def min_cllr(mated: ArrayLike, nonmated: ArrayLike) -> float:
    """Cllr after the optimal monotone recalibration (PAV): the discrimination part of Cllr.

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) scores; any scale, higher = more similar.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) scores.

    Returns
    -------
    float
        ``minCllr = Cllr(PAV(scores))`` in bits, with :func:`pav_llrs`. It depends only on
        the order of the scores (any strictly increasing transform leaves it unchanged), lies
        in [0, 1] and is at most :func:`cllr` of the same scores read as LLRs, up to rounding
        (scores that are already PAV's LLRs can give a minCllr 1 ulp above their Cllr, which
        :func:`calibration_by_group` clamps); the difference ``Cllr - minCllr`` is the
        calibration loss.

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
    cllr : The cost of the scores as they are.
    calibration_by_group : Cllr, minCllr and DCFs of every group.

    References
    ----------
    N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection",
    Computer Speech and Language, 2006 (minCllr).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.min_cllr([0.6, 0.9], [0.1, 0.7])
    0.5
    """
    return _min_cllr_sorted(*sorted_scores(mated, nonmated))


def _min_cllr_sorted(mated: NDArray, nonmated: NDArray) -> float:
    """minCllr in bits of two ascending arrays."""
    # the constant LLR 0 is one of the monotone maps PAV optimises over, and costs exactly 1 bit:
    # a value above 1 can only be rounding (all scores tied give 1 + 2e-16 without the min)
    return min(_cllr_sorted(*_pav_llrs(mated, nonmated)), 1.0)


def actual_dcf(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    p_target: float = 0.01,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
) -> float:
    """Normalised detection cost of the Bayes decision on scores read as log-likelihood ratios.

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) scores, read as natural-log likelihood ratios.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) scores, read the same way.
    p_target : float, default 0.01
        Prior probability of a mated comparison, in (0, 1).
    c_miss : float, default 1
        Cost of a false non-match (miss).
    c_fa : float, default 1
        Cost of a false match (false alarm).

    Returns
    -------
    float
        ``(c_miss·p·FNMR(η) + c_fa·(1-p)·FMR(η)) / min(c_miss·p, c_fa·(1-p))`` at the Bayes
        threshold ``η = ln(c_fa (1-p) / (c_miss p))`` (match iff ``llr >= η``), normalised as
        :func:`biofair.min_dcf`. It is never below minDCF; the gap is the calibration loss at
        this operating point. ``η`` is computed in float64 from ``p_target`` as given, so an
        LLR within rounding of the exact ``η`` may fall on either side of it.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN, a
        masked value or an integer beyond ``±2**53`` (``±inf`` is allowed: infinite evidence);
        or when ``p_target`` lies outside (0, 1), ``c_miss`` or ``c_fa`` is not a positive,
        finite number, or ``c_miss·p_target`` or ``c_fa·(1 - p_target)`` is below ``2**-1022``.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), or ``p_target``, ``c_miss`` or ``c_fa`` is not a number.
    OverflowError
        When the normalised cost exceeds the largest float64: ``c_miss·p_target`` and
        ``c_fa·(1 - p_target)`` more than 308 orders of magnitude apart, and the decision
        errs on the costlier side.

    See Also
    --------
    biofair.min_dcf : The cost at the best threshold, chosen with hindsight.
    bayes_error_rates : Both costs over a range of priors, the threshold ``-x`` taken exactly
        from the prior log-odds (the same unless an LLR lies within rounding of it).

    References
    ----------
    NIST Speaker Recognition Evaluation plans (actual and minimum DCF); N. Brümmer and
    J. du Preez, "Application-independent evaluation of speaker detection", 2006.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.actual_dcf([2.0, 0.5, -1.0], [-2.0, 1.0], p_target=0.5)
    0.8333333333333333
    """
    # the checked floats, also in the cost below: a float32 or long double prior or cost computed in its own
    # precision there (a cost off in its 8th digit, or by 1 ulp) from that of the same number as a float
    p_target, c_miss, c_fa = _checked_costs(p_target, c_miss, c_fa)
    threshold = _bayes_threshold(p_target, c_miss, c_fa)
    mated_sorted, nonmated_sorted = sorted_scores(mated, nonmated, infinite=True)
    false_matches, false_non_matches = counts_at(mated_sorted, nonmated_sorted, threshold)
    # the rates first, as min_dcf computes them: the same point then costs the same, never 1 ulp less
    fnmr, fmr = false_non_matches / mated_sorted.size, false_matches / nonmated_sorted.size
    weighted = (c_miss * p_target, c_fa * (1.0 - p_target))
    with np.errstate(over="ignore"):
        cost = (weighted[0] * fnmr + weighted[1] * fmr) / min(weighted)
    if not np.isfinite(cost):
        raise OverflowError(
            f"the normalised cost exceeds the largest float64: c_miss·p_target = {weighted[0]:g} and "
            f"c_fa·(1 - p_target) = {weighted[1]:g} differ by more than 308 orders of magnitude and the Bayes "
            "decision errs on the costlier side; bring the costs and the prior closer"
        )
    return float(cost)


def bayes_error_rates(
    mated: ArrayLike, nonmated: ArrayLike, *, prior_log_odds: ArrayLike | None = None
) -> pd.DataFrame:
    """Actual and minimum normalised Bayes error rate over a range of prior log-odds (APE).

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) scores, read as natural-log likelihood ratios.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) scores, read the same way.
    prior_log_odds : array_like, optional
        Effective prior log-odds ``x = ln(p / (1 - p))``; default 61 values from -6 to 6.

    Returns
    -------
    pandas.DataFrame
        One row per ``prior_log_odds``: ``p_target`` = sigmoid(x), ``actual_dcf`` (Bayes
        decision, match iff ``llr >= -x`` = ``ln((1-p)/p)``, with ``-x`` exactly, not recomputed
        from the rounded ``p``) and ``min_dcf`` (best threshold), both with unit
        costs and normalised by ``min(p, 1-p)``, and ``pav_dcf``, the actual DCF of the PAV
        LLRs, which equals ``min_dcf``: PAV is optimal at every prior at once. Multiplied back
        by ``min(p, 1-p)``, the actual curve is the Bayes error rate
        ``P_e(x) = p·FNMR(-x) + (1-p)·FMR(-x)``, whose integral over all ``x`` is
        ``2 ln 2 · Cllr`` (and that of the PAV curve ``2 ln 2 · minCllr``, so the area between
        them is the calibration loss); the areas under the normalised curves are not
        proportional to Cllr (Brümmer and du Preez, 2006).

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN, a
        masked value or an integer beyond ``±2**53`` (``±inf`` is allowed: infinite evidence);
        or when ``prior_log_odds`` is empty or not one-dimensional, holds a NaN or infinite
        value, or gives a prior that rounds to 0 or 1 (``x`` outside about [-709, 36]).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), or ``prior_log_odds`` does not hold real numbers.

    See Also
    --------
    biofair.plotting.plot_bayes_error : Draws this table.
    actual_dcf : One row of it, its threshold computed from the rounded ``p`` (the same
        unless an LLR lies within rounding of ``-x``).

    References
    ----------
    N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection",
    Computer Speech and Language, 2006 (applied probability of error, APE, plots);
    D. van Leeuwen and N. Brümmer, "An introduction to application-independent evaluation of
    speaker recognition systems", 2007 (normalised Bayes error-rate plot).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.bayes_error_rates([2.0, 0.5, -1.0], [-2.0, 1.0], prior_log_odds=[0.0])
    >>> table[["p_target", "actual_dcf", "min_dcf"]].round(4).to_dict("records")
    [{'p_target': 0.5, 'actual_dcf': 0.8333, 'min_dcf': 0.5}]
    """
    if prior_log_odds is not None and np.size(prior_log_odds) == 0:
        raise ValueError("prior_log_odds is empty: give at least one operating point's prior log-odds")
    x = np.linspace(-6.0, 6.0, 61) if prior_log_odds is None else check_values_finite(
        as_scores(prior_log_odds, "prior_log_odds", finite=False, noun="prior log-odds value"), "prior_log_odds",
        advice="give the log-odds ln(p / (1 - p)) of priors strictly between 0 and 1, such as numpy.linspace(-6, 6, 61)")
    p, q = expit(x), expit(-x)  # q = 1 - p to full precision: 1 - p was 4.5% off at x = 36
    extreme = (p <= 0.0) | (p >= 1.0)
    if extreme.any():
        raise ValueError(
            f"prior_log_odds must give a prior strictly between 0 and 1 in float64 (x from about -709 to 36), "
            f"got {float(x[extreme][0])!r}"
        )
    mated_sorted, nonmated_sorted = sorted_scores(mated, nonmated, infinite=True)
    # p and q times one power of two per prior, the smaller in [0.5, 1): the normalised costs are
    # the same, and no product with a rate underflows (p is subnormal below x = -708.4)
    exponent = np.frexp(np.minimum(p, q))[1]
    p_weight, q_weight = np.ldexp(p, -exponent), np.ldexp(q, -exponent)
    norm = np.minimum(p_weight, q_weight)

    threshold = -x  # exact: ln((1-p)/p) from the rounded p would move it (by 0.04 at x = 36)

    def dcf_at_bayes(m: NDArray, n: NDArray) -> NDArray:
        false_matches, false_non_matches = counts_at(m, n, threshold)
        return (p_weight * (false_non_matches / m.size) + q_weight * (false_matches / n.size)) / norm

    counts = error_counts_sorted(mated_sorted, nonmated_sorted)
    return pd.DataFrame(
        {
            "prior_log_odds": x,
            "p_target": p,
            "actual_dcf": dcf_at_bayes(mated_sorted, nonmated_sorted),
            # p·FNMR + q·FMR over min(p, q) is min_dcf at the prior 1/2 with the costs p and q
            "min_dcf": [_min_dcf_from_counts(counts, 0.5, c_miss=float(a), c_fa=float(b))
                        for a, b in zip(p_weight, q_weight)],
            "pav_dcf": dcf_at_bayes(*_pav_llrs(mated_sorted, nonmated_sorted)),
        }
    )


class LogisticCalibration(NamedTuple):
    """An affine map from scores to natural-log likelihood ratios, ``llr = scale·s + offset``.

    Returned by :func:`fit_logistic_calibration`; call :meth:`transform` on new scores.

    Attributes
    ----------
    scale : float
        Slope of the map (positive for a useful system).
    offset : float
        Intercept of the map.
    p_target : float
        The prior the map was trained at (weights of the two classes in the fit).

    See Also
    --------
    fit_logistic_calibration : Fits it on development scores.

    Examples
    --------
    >>> import biofair as bf
    >>> bf.LogisticCalibration(2.0, -1.0, 0.5).transform([0.0, 1.0]).tolist()
    [-1.0, 1.0]
    """

    scale: float
    offset: float
    p_target: float

    def transform(self, scores: ArrayLike) -> NDArray[np.float64]:
        """The log-likelihood ratios of ``scores``: ``scale·s + offset``.

        Parameters
        ----------
        scores : array_like
            Scores on the scale the map was fitted on.

        Returns
        -------
        ndarray
            Natural-log likelihood ratios.

        See Also
        --------
        fit_logistic_calibration : Fits the map.

        Examples
        --------
        >>> import biofair as bf
        >>> bf.LogisticCalibration(1.0, 0.5, 0.5).transform([1.0]).tolist()
        [1.5]
        """
        with np.errstate(over="ignore", invalid="ignore"):
            llrs = self.scale * as_scores(scores, "scores") + self.offset
        if not np.isfinite(llrs).all():
            raise OverflowError(
                f"scale·s + offset overflows float64 for {how_many(int((~np.isfinite(llrs)).sum()), 'score')} "
                f"(scale {self.scale:.3g}, offset {self.offset:.3g}): these scores are not on the scale "
                "the map was fitted on"
            )
        return llrs


def fit_logistic_calibration(
    mated: ArrayLike, nonmated: ArrayLike, *, p_target: float = 0.5, max_iter: int = 100
) -> LogisticCalibration:
    """Fit ``llr = a·s + b`` by prior-weighted logistic regression (linear calibration).

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    mated : array_like of shape (M,)
        Mated (genuine) development scores.
    nonmated : array_like of shape (N,)
        Non-mated (impostor) development scores.
    p_target : float, default 0.5
        Training prior ``p``: the mated class weighs ``p / M`` and the non-mated class
        ``(1 - p) / N``, whatever their sizes. 0.5 weighs the classes equally, the prior of
        Cllr; it is not the application prior of :func:`actual_dcf` (default 0.01).
    max_iter : int, default 100
        Most Newton steps.

    Returns
    -------
    LogisticCalibration
        ``(a, b)`` minimising the prior-weighted cross-entropy (in nats)

        ``p/M Σ_m ln(1 + e^{-(a s + b + L)}) + (1-p)/N Σ_n ln(1 + e^{a s + b + L})``,
        ``L = logit(p)``,

        which at ``p = 0.5`` is Cllr of the calibrated scores times ``ln 2``. Without
        penalty, this is scikit-learn's ``LogisticRegression(C=np.inf,
        class_weight="balanced")`` for ``p = 0.5``.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; when ``p_target`` lies
        outside (0, 1) or below ``2**-1022`` (the smallest normal float64: the classes' weights
        would be more than the float64 range apart) or ``max_iter`` is below 1; when all the
        scores are equal, or one threshold separates the classes, ties at that threshold aside
        (no finite maximum-likelihood fit); when the slope exceeds the largest float64 (scores
        near ``1e-310``); or when Newton's method does not converge.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), ``p_target`` is not a number or ``max_iter`` not an integer.

    See Also
    --------
    pav_llrs : The optimal non-parametric (monotone) recalibration.
    biofair.mitigation.fit_group_calibration : One calibration per group.

    Notes
    -----
    Newton's method on the two parameters from ``a = 0`` and the ``b`` of the class sizes,
    its step damped (Levenberg-Marquardt) where it would raise the loss: where one class
    saturates the posterior (a few scores far from many tied ones), the Hessian is nearly
    singular and the undamped step overshoots. Scores are centred and scaled for the fit and
    the map transformed back. Fit on development scores and apply to evaluation scores: fitted on the scores it
    is judged on, its Cllr is optimistic.

    References
    ----------
    N. Brümmer, "FoCal: Tools for fusion and calibration of automatic speaker detection
    systems", 2005 (linear logistic-regression calibration); N. Brümmer and J. du Preez,
    "Application-independent evaluation of speaker detection", 2006.

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> rng = np.random.default_rng(0)
    >>> mated, nonmated = rng.normal(1, 0.5, 2000), rng.normal(-1, 0.5, 2000)
    >>> fit = bf.fit_logistic_calibration(mated, nonmated)
    >>> round(fit.scale, 1), abs(fit.offset) < 0.05  # the true LLR is 8·s
    (7.6, True)
    """
    p = as_number(p_target, "p_target", low=0.0, high=1.0, open_low=True, open_high=True)
    if p < SMALLEST_BOUND:  # the weights' ratio (1 - p)/p would exceed the largest float64
        raise ValueError(
            f"p_target = {p!r} is below 2**-1022 = {SMALLEST_BOUND!r}, the smallest normal float64: the classes' "
            "weights p/M and (1 - p)/N would be more than the float64 range apart; give a larger training prior"
        )
    max_iter = as_count(max_iter, "max_iter")
    m, n = as_scores(mated, "mated"), as_scores(nonmated, "nonmated")
    both = np.concatenate([m, n])
    if both.min() == both.max():
        raise ValueError(f"all {both.size} scores equal {float(both[0])!r}: they hold no evidence to calibrate")
    if n.max() <= m.min() or m.max() <= n.min():
        raise ValueError(
            "one threshold separates mated and non-mated scores (ties at the boundary aside): "
            "the logistic fit has no finite solution"
        )
    # centred and scaled at a power of two that keeps sums and squares of 1e308 or 1e-310 finite
    exponent = power_of_two_exponent(both)
    scaled = np.ldexp(both, -exponent)
    centre, spread = scaled.mean(), scaled.std()
    z = (scaled - centre) / spread
    label = np.concatenate([np.ones(m.size), np.zeros(n.size)])
    weight = np.concatenate([np.full(m.size, p / m.size), np.full(n.size, (1 - p) / n.size)])
    # times the power of two that brings the smaller prior to [0.5, 1): the loss, its gradient and
    # its Hessian keep their size at a prior of 1e-20 (they shrank with it, under the fixed floor
    # of the damping and of the step, which stopped the fit early or not at all); exact, and 1 at 0.5
    weight = np.ldexp(weight, -np.frexp(min(p, 1 - p))[1])
    sign = 2.0 * label - 1.0  # +1 mated, -1 non-mated
    design = np.column_stack([z, np.ones_like(z)])
    prior = float(logit(p))

    def loss(theta: NDArray) -> float:
        return float(weight @ np.logaddexp(0.0, -sign * (design @ theta + prior)))

    theta, damping = np.zeros(2), 0.0
    current = loss(theta)
    for _ in range(max_iter):
        posterior = expit(design @ theta + prior)
        gradient = design.T @ (weight * (posterior - label))
        hessian = (design * (weight * posterior * (1 - posterior))[:, None]).T @ design
        # Newton's step, damped (Levenberg-Marquardt) until it lowers the loss. Where a class's
        # scores saturate the posterior, the Hessian is singular to rounding and the step was 1e12
        # to 1e18 long: halved 34 times it was still 100 long and raised the loss, and was taken
        # (a map of the wrong sign, its cost in the millions), or solve() found the Hessian singular.
        # Damping turns the step towards the gradient, which lowers the loss.
        # Undamped, a step may raise the loss by the rounding of its sum: near the optimum the loss
        # moves with the square of the error, so a last step of 5e-9 changes it by less than its
        # rounding, and was refused or taken depending on the CPU's rounding (the fit then stopped
        # 1e-8 off on one machine and exact on another).
        slack = 1e-13 * abs(current)
        while True:
            try:
                step = np.linalg.solve(hessian + damping * np.eye(2), gradient)
                new = loss(theta - step)
            except np.linalg.LinAlgError:  # singular: the posterior saturated at all distinct scores but one
                step, new = gradient, np.inf
            if new < current or (damping == 0.0 and new <= current + slack) or np.abs(step).max() < 1e-10:
                break
            damping = max(10.0 * damping, 1e-10)
        if not new <= current + slack:  # no step lowers the loss, however damped: the optimum
            break
        theta, previous, current = theta - step, current, new
        if np.abs(step).max() < 1e-10 or (damping == 0.0 and not current < previous):  # the error left: its square
            break
        damping = damping / 10.0 if damping > 1e-9 else 0.0
    else:
        raise ValueError(f"the logistic calibration did not converge in {max_iter} Newton steps")
    scale = theta[0] / spread
    with np.errstate(over="ignore"):
        slope = float(np.ldexp(scale, -exponent))  # the map of scaled = both · 2^-exponent
    if not np.isfinite(slope):
        raise ValueError(
            f"the calibration's slope {scale:.3g}·2^{-exponent} exceeds the largest float64: scores of "
            f"magnitude {np.abs(both).max():.3g} are too small to map to LLRs; rescale them"
        )
    return LogisticCalibration(slope, float(theta[1] - scale * centre), p)


def _calibration_row(mated: NDArray, nonmated: NDArray, p_target: float, c_miss: float, c_fa: float) -> dict:
    """Cllr, minCllr and both DCFs of two ascending arrays."""
    full = _cllr_sorted(mated, nonmated)
    # PAV's map is the best monotone one, the identity among them: minCllr <= Cllr, but rounding
    # left it 1.1e-16 above (a loss of -1.1e-16, which calibration_fairness then refused)
    minimum = min(_min_cllr_sorted(mated, nonmated), full)
    costs = {"p_target": p_target, "c_miss": c_miss, "c_fa": c_fa}
    dcf = actual_dcf(mated, nonmated, **costs)
    best = _min_dcf_from_counts(error_counts_sorted(mated, nonmated), p_target, c_miss, c_fa)
    return {
        "cllr": full,
        "min_cllr": minimum,
        "calibration_loss": full - minimum,
        "actual_dcf": dcf,
        "min_dcf": best,
        "dcf_loss": dcf - best,
        "n_mated": mated.size,
        "n_nonmated": nonmated.size,
    }


def calibration_by_group(
    scores: pd.DataFrame | ScoresByGroup,
    *,
    by: By = "group",
    p_target: float = 0.01,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
) -> pd.DataFrame:
    """Cllr, minCllr, calibration loss and actual beside minimum DCF of every group.

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    scores : pandas.DataFrame or ScoresByGroup
        A score table whose ``score`` column holds natural-log likelihood ratios, with the
        group column(s) of ``by``.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    p_target : float, default 0.01
        Prior probability of a mated comparison for the DCFs.
    c_miss : float, default 1
        Cost of a false non-match.
    c_fa : float, default 1
        Cost of a false match.

    Returns
    -------
    pandas.DataFrame
        One row per group (index ``group``), then a row ``"(all)"`` of all the groups'
        mated and homogeneous non-mated scores pooled: ``cllr``, ``min_cllr``,
        ``calibration_loss`` = Cllr - minCllr, ``actual_dcf``, ``min_dcf``, ``dcf_loss`` =
        actual - minimum DCF, ``n_mated`` and ``n_nonmated`` (homogeneous pairs).

    Raises
    ------
    SchemaError
        When ``scores`` is an invalid score table (see :func:`biofair.validate_scores`, which
        refuses infinite LLRs too) or holds several systems or splits, lacks a group column of
        ``by`` or has rows without a group label, its group labels cannot be named one way (see
        :func:`biofair.group_labels`), it has fewer than two groups, or a group has no mated or
        no homogeneous non-mated comparison (named, with its counts); or when a group is
        labelled ``"(all)"``, the name of the pooled row.
    ValueError
        When ``p_target`` lies outside (0, 1), ``c_miss`` or ``c_fa`` is not a positive, finite
        number, or ``c_miss·p_target`` or ``c_fa·(1 - p_target)`` is below ``2**-1022``; or when
        ``by`` is empty, names a column twice or names "score" or "mated", or ``scores`` is a
        ``ScoresByGroup`` formed with another ``by``.
    TypeError
        When ``scores`` is neither a DataFrame nor a ``ScoresByGroup``, ``by`` is not a column
        name or a list of column names, or ``p_target``, ``c_miss`` or ``c_fa`` is not a
        number.
    OverflowError
        When a group's Cllr exceeds the largest float64 (LLRs near ``±1.8e308`` that point the
        wrong way, as for :func:`biofair.cllr`), or its actual DCF does (as for
        :func:`actual_dcf`), naming the group.

    See Also
    --------
    calibration_fairness : The fairness indices of these columns.
    cllr : Cllr of one set of scores.

    References
    ----------
    N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection",
    2006 (Cllr, minCllr); T. de Freitas Pereira and S. Marcel, "Fairness in Biometrics",
    IEEE T-BIOM, 2022 (homogeneous non-mated pairs per group).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"score": [2.0, -1.0, 0.5, 1.0, -3.0, 0.0],
    ...                       "mated": [True, False, True, True, False, False],
    ...                       "group": ["a", "a", "a", "b", "b", "b"]})
    >>> bf.calibration_by_group(table, p_target=0.5)["cllr"].round(3).to_dict()
    {'a': 0.443, 'b': 0.493, '(all)': 0.474}
    """
    groups = scores_by_group(scores, by=by)
    if _POOLED in groups:
        raise SchemaError(f"a group is labelled {_POOLED!r}, the name of the row of all groups pooled; relabel it")
    pooled_mated = np.sort(np.concatenate([g.mated for g in groups.values()]))
    rows = {}
    for name, (mated, nonmated) in [*((name, (g.mated, g.nonmated)) for name, g in groups.items()),
                                    (_POOLED, (pooled_mated, groups.pooled_nonmated))]:
        try:
            rows[name] = _calibration_row(mated, nonmated, p_target, c_miss, c_fa)
        except OverflowError as error:  # which group's scores, as fit_group_calibration says
            raise OverflowError(f"group {name!r}: {error}") from error
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("group")


def _listed(names: pd.Index, values: NDArray) -> str:
    return ", ".join(f"{name!r}: {float(value)!r}" for name, value in zip(names, values))


def _refuse_non_numbers(groups: pd.DataFrame) -> None:
    """A TypeError naming every measure column of ``groups`` that holds text (``"0.2"``, which
    ``to_numpy(dtype=float)`` would read as a number where the other functions refuse it) or
    values that are not real numbers (booleans read as 1 and 0, complex numbers, durations)."""
    text, other = {}, {}
    for measure in _FAIRNESS_MEASURES:
        values = groups[measure].to_numpy()
        found = text_mask(values)
        if found.any():
            text[measure] = f"{values[found][0]!r} in group {groups.index[found][0]!r}"
        elif values.dtype == object and (odd := ~np.asarray(_is_real_number(values), dtype=bool)).any():
            other[measure] = f"e.g. {quoted(values[odd][0])} in group {groups.index[odd][0]!r}"  # True, 1j, <NA>
        elif not (is_real_dtype(values.dtype) or values.dtype == object):
            other[measure] = groups[measure].dtype
    if text:
        columns = ", ".join(f"{measure!r} (e.g. {example})" for measure, example in text.items())
        raise TypeError(f"by_group holds text in the column(s) {columns}: convert them to numbers first, e.g. "
                        f"by_group[{list(text)}] = by_group[{list(text)}].apply(pandas.to_numeric)")
    if other:
        columns = ", ".join(f"{measure!r} ({dtype})" for measure, dtype in other.items())
        raise TypeError(f"by_group's column(s) {columns} must hold real numbers: give the table of "
                        "calibration_by_group, whose measures are costs")


def calibration_fairness(by_group: pd.DataFrame) -> pd.DataFrame:
    """Fairness indices of per-group calibration: max/min ratio, largest gap, GARBE, Inequity.

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    by_group : pandas.DataFrame
        The table of :func:`calibration_by_group` (its ``"(all)"`` row is left out).

    Returns
    -------
    pandas.DataFrame
        One row per measure (``cllr``, ``min_cllr``, ``calibration_loss``, ``actual_dcf``,
        ``min_dcf``), columns ``max_gap`` = max - min over groups, ``ratio`` = max / min,
        ``garbe`` (:func:`biofair.garbe`, the Gini coefficient of the per-group values) and
        ``inequity`` (:func:`biofair.inequity`, max / geometric mean, from the logarithms of
        the values). GARBE is scale-free, so it is computed on the values divided by their
        maximum (these costs are not rates and can exceed 1). Lower is fairer in every column.
        A group whose value is 0 (a perfectly separated group has minDCF 0) makes ``ratio``
        and ``inequity`` infinite, with a warning, as do values so far apart that their ratio
        exceeds the largest float64; when every group's value is 0 they are 1, as for any
        equal values.

    Raises
    ------
    ValueError
        When a column is missing, the index has several levels or a group's row more than
        once (tables of several calibration_by_group calls stacked), fewer than two groups
        remain, or a value is negative, NaN or infinite.
    TypeError
        When ``by_group`` is not a DataFrame, or a measure column holds text (numbers written
        as text, such as ``"0.2"``: each such column named, with how to convert it) or values
        that are not real numbers (booleans, complex numbers, durations).

    Warns
    -----
    UndefinedRateWarning
        When some but not all groups have the value 0, naming the measure and the groups, or
        when a measure's ratio or inequity exceeds the largest float64.

    See Also
    --------
    calibration_by_group : The per-group values.
    biofair.garbe : GARBE of error rates.

    References
    ----------
    J. J. Howard, E. J. Laird, R. E. Rubin, Y. B. Sirotin, J. L. Tipton and A. R. Vemury,
    "Evaluating Proposed Fairness Models for Face Recognition Algorithms", ICPR 2022 workshops (GARBE);
    the CEI paper (Inequity as eq. 1-2, GARBE as eq. 3-4).

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> table = pd.DataFrame({"cllr": [0.2, 0.4], "min_cllr": [0.1, 0.1],
    ...                       "calibration_loss": [0.1, 0.3], "actual_dcf": [0.3, 0.6],
    ...                       "min_dcf": [0.2, 0.3]}, index=["a", "b"])
    >>> bf.calibration_fairness(table).loc["cllr", ["max_gap", "ratio"]].round(3).tolist()
    [0.2, 2.0]
    """
    if not isinstance(by_group, pd.DataFrame):
        raise TypeError(f"by_group must be the DataFrame of calibration_by_group, got {type(by_group).__name__}")
    missing = [m for m in _FAIRNESS_MEASURES if m not in by_group.columns]
    if missing:
        raise ValueError(f"by_group lacks the column(s) {missing}: give the table of calibration_by_group")
    # tables of several systems stacked: their rows, the pooled ones among them, were compared as groups
    if by_group.index.nlevels > 1:
        raise ValueError(f"by_group has {by_group.index.nlevels} index levels {list(by_group.index.names)}: give "
                         "the table of one calibration_by_group call (one system's rows, e.g. table.loc[system])")
    repeated = by_group.index[by_group.index.duplicated()].unique()
    if len(repeated):
        raise ValueError(f"by_group has more than one row for the group(s) {list(repeated)}: give the table of "
                         "one calibration_by_group call")
    groups = by_group.drop(index=_POOLED, errors="ignore")
    if len(groups) < 2:
        raise ValueError(f"calibration fairness compares groups: by_group has {len(groups)} besides {_POOLED!r}")
    _refuse_non_numbers(groups)
    rows = {}
    for measure in _FAIRNESS_MEASURES:
        values = groups[measure].to_numpy(dtype=np.float64)
        bad = ~(np.isfinite(values) & (values >= 0))
        if bad.any():
            raise ValueError(f"{measure} must be finite and non-negative in every group; it is not in "
                             f"{_listed(groups.index[bad], values[bad])}")
        largest, zero = values.max(), values == 0.0
        if zero.all():  # equal values: perfectly fair, as garbe says
            rows[measure] = {"max_gap": 0.0, "ratio": 1.0, "garbe": 0.0, "inequity": 1.0}
            continue
        if zero.any():
            warn(f"{measure} is 0 in {_listed(groups.index[zero], values[zero])}: its ratio and "
                 "inequity (max over min, max over the geometric mean) are infinite", UndefinedRateWarning)
        with np.errstate(over="ignore"):  # values hundreds of decades apart: named below
            ratio, equity = (np.inf, np.inf) if zero.any() else (largest / values.min(), _inequity(values, None))
        if not zero.any() and not np.isfinite(ratio + equity):
            warn(f"{measure} spans more than the float64 range over the groups ({_listed(groups.index, values)}): its "
                 "ratio or inequity exceeds the largest float64 and is given as inf", UndefinedRateWarning)
        rows[measure] = {"max_gap": largest - values.min(), "ratio": ratio, "garbe": garbe(values / largest),
                         "inequity": equity}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("measure")


__all__ = [
    "LogisticCalibration",
    "actual_dcf",
    "bayes_error_rates",
    "calibration_by_group",
    "calibration_fairness",
    "cllr",
    "fit_logistic_calibration",
    "min_cllr",
    "pav_llrs",
]
