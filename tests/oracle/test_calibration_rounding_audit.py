"""Calibration costs at the edges of float64, found by an audit against independent formulas:
an actual DCF 1 ulp below the minimum, a Bayes error rate off by 5% at prior log-odds 35,
a Cllr of 1 ± 1 ulp for scores that carry no evidence, and overflows without a name."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf


def test_actual_dcf_is_never_below_min_dcf_at_the_same_point():
    """Three mated 0s, one non-mated 0, p = 0.35: everything rejected, FNMR 1, cost 0.35 / 0.35 =
    1 exactly (by hand); actual_dcf gave 0.9999999999999999 and calibration_by_group a
    dcf_loss of -1.1e-16."""
    assert bf.actual_dcf([0.0, 0.0, 0.0], [0.0], p_target=0.35) == 1.0 == bf.min_dcf([0.0, 0.0, 0.0], [0.0], p_target=0.35)
    rng = np.random.default_rng(3)
    for _ in range(300):
        mated, nonmated = rng.integers(-3, 4, rng.integers(1, 8)) * 0.5, rng.integers(-3, 4, rng.integers(1, 8)) * 0.5
        p = float(rng.choice([0.01, 0.1, 0.35, 0.5, 0.7, 0.99]))
        assert bf.actual_dcf(mated, nonmated, p_target=p) >= bf.min_dcf(mated, nonmated, p_target=p)
    table = pd.DataFrame({"score": [0.0, 0.0, 0.0, 0.0, 2.0, -1.0], "mated": [True, True, True, False, True, False],
                          "group": ["a"] * 4 + ["b"] * 2})
    assert (bf.calibration_by_group(table, p_target=0.35)["dcf_loss"] >= 0).all()


@pytest.mark.parametrize("x", [20.0, 30.0, 35.0, 36.0])
def test_bayes_error_rate_at_large_prior_log_odds(x):
    """Every LLR -40, below the threshold -x: every mated comparison missed, no false match,
    so the normalised cost is p / (1 - p) = e^x. 1 - p computed as 1 - expit(x) lost its
    digits: 5.3% off at x = 35, 4.5% at 36."""
    table = bf.bayes_error_rates([-40.0], [-40.0], prior_log_odds=[x])
    assert table["actual_dcf"].item() == pytest.approx(math.exp(x), rel=1e-12)
    assert table["min_dcf"].item() == 1.0  # accept everything: (1 - p)·1 / (1 - p)
    assert table["pav_dcf"].item() == 1.0  # PAV: LLRs +inf or 0 here, and so min_dcf


@pytest.mark.parametrize(("m", "n"), [(1, 1), (1, 25), (1, 999), (7, 3), (1000, 10_000)])
def test_scores_of_no_evidence_cost_exactly_one_bit(m, n):
    """LLRs of 0 everywhere: Cllr 1 exactly, as documented (it gave 1 ± 1 ulp for 2,233 of
    3,481 sizes; above 1 reads as 'misleading')."""
    assert bf.cllr(np.zeros(m), np.zeros(n)) == 1.0


def test_an_actual_dcf_beyond_float64_is_named_not_inf():
    """It returned inf with NumPy's RuntimeWarning alone."""
    message = ("the normalised cost exceeds the largest float64: c_miss·p_target = 5e+299 and c_fa·(1 - p_target) = "
               "5e-301 differ by more than 308 orders of magnitude and the Bayes decision errs on the costlier side")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(OverflowError, match="^" + re.escape(message)):
            bf.actual_dcf([-2000.0], [-2000.0], p_target=0.5, c_miss=1e300, c_fa=1e-300)
        with pytest.raises(ValueError, match="^" + re.escape("c_miss·p_target = 9.99989e-321 and c_fa·(1 - p_target) "
                                                             "= 1 must both be at least 2**-1022")):  # subnormal
            bf.actual_dcf([800.0], [800.0], p_target=1e-320)


def test_calibration_by_group_names_the_group_whose_cost_overflows():
    table = pd.DataFrame({"score": [2.0, -2.0, -1.7e308, 1.7e308, -1.7e308, 1.7e308],
                          "mated": [True, False, True, False, True, False], "group": ["a", "a", "b", "b", "b", "b"]})
    with pytest.raises(OverflowError, match=r"^group 'b': Cllr exceeds the largest float64"):
        bf.calibration_by_group(table)


def test_calibration_fairness_of_values_hundreds_of_decades_apart():
    """Cllr 6e-322 in a, 4.3e3 in b: a / b underflowed to 0 and Inequity raised its own error
    ("zero='upper_bound' replaces ...", an option the caller cannot give); the ratio overflowed
    with NumPy's warning alone. Now both are inf, named in a warning; GARBE stays defined."""
    table = pd.DataFrame({"score": [740.0, -740.0, -3000.0, 3000.0], "mated": [True, False, True, False],
                          "group": ["a", "a", "b", "b"]})
    by_group = bf.calibration_by_group(table, p_target=0.5)
    assert 0 < by_group.loc["a", "cllr"] < 1e-320
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fair = bf.calibration_fairness(by_group)
    assert fair.loc["cllr", "ratio"] == np.inf
    assert fair.loc["cllr", "inequity"] == pytest.approx(math.sqrt(by_group.loc["b", "cllr"]) / math.sqrt(by_group.loc["a", "cllr"]))
    assert fair.loc["cllr", "garbe"] == 1.0  # Gini of (0+, 1) corrected for K = 2
    assert all(issubclass(w.category, bf.UndefinedRateWarning) for w in caught)
    assert any(str(w.message).startswith("cllr spans more than the float64 range over the groups ('a': 6.")
               for w in caught)


@pytest.mark.parametrize(("mated", "nonmated"), [([1.0, 2.0], [3.0]), ([0.0] * 3, [0.0]), ([1.0, 3.0, 5.0], [2.0, 4.0, 6.0])])
def test_a_pav_block_of_the_classes_own_proportions_has_an_llr_of_exactly_zero(mated, nonmated):
    """PAV pools everything into one block here, with M mated of M + N: posterior M / (M + N),
    the prior, so no evidence. logit of the rounded posterior gave -1.1e-16."""
    llrs = bf.pav_llrs(mated, nonmated)
    assert np.concatenate(llrs).tolist() == [0.0] * (len(mated) + len(nonmated))
    assert bf.min_cllr(mated, nonmated) == 1.0


@pytest.mark.parametrize(("mated", "nonmated", "p_target"), [
    ([0.83, 2.66, 1.66, -0.64, 0.99, 0.38], [-0.85, -2.61, -0.76, -0.76, 0.58, -0.68, -0.49], 1e-20),
    ([0.83, 2.66, 1.66, -0.64, 0.99, 0.38], [-0.85, -2.61, -0.76, -0.76, 0.58, -0.68, -0.49], 1e-100),
    ([-1.56, 1.42, 0.43, 0.55, 0.78, -1.02], [-1.23, -1.87], 1e-9),
    ([-1.56, 1.42, 0.43, 0.55, 0.78, -1.02], [-1.23, -1.87], 1 - 1e-12),
])
def test_logistic_calibration_at_extreme_priors_reaches_the_optimum(mated, nonmated, p_target):
    """The weighted loss shrank with min(p, 1 - p), under the fixed floors of the damping and of
    the step: at 1e-20 the fit stopped at (16.1, -7.1), its objective 4% above the optimum's; at
    1e-9 and 1 - 1e-12 it did not converge in 100 steps (a calibration audit). The optimum here:
    Nelder-Mead on the exact objective, from three starts."""
    from scipy import optimize
    from scipy.special import logit

    m, n = np.array(mated), np.array(nonmated)

    def objective(theta):
        shifted = logit(p_target) + theta[1]
        return (p_target * np.mean(np.logaddexp(0.0, -(theta[0] * m + shifted)))
                + (1 - p_target) * np.mean(np.logaddexp(0.0, theta[0] * n + shifted)))

    best = min(optimize.minimize(objective, start, method="Nelder-Mead",
                                 options={"xatol": 1e-12, "fatol": 1e-300, "maxiter": 40_000}).fun
               for start in ([1.0, 0.0], [20.0, -10.0], [200.0, -100.0]))
    fit = bf.fit_logistic_calibration(mated, nonmated, p_target=p_target)
    assert objective([fit.scale, fit.offset]) <= best * (1 + 1e-9)
