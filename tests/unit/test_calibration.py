"""Calibration metrics against independent computations (quadrature, loops, scikit-learn)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import integrate, stats
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

import biofair as bf
from biofair.calibration import _pav_llrs

scores = arrays(np.float64, st.integers(1, 40), elements=st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 1)))


def _cllr_loop(mated, nonmated):
    """Cllr by its definition, one comparison at a time."""
    miss = sum(math.log2(1 + math.exp(-s)) for s in mated) / len(mated)
    false_alarm = sum(math.log2(1 + math.exp(s)) for s in nonmated) / len(nonmated)
    return (miss + false_alarm) / 2


def test_cllr_of_calibrated_scores_matches_numerical_integration():
    # mated ~ N(mu, 2mu), non-mated ~ N(-mu, 2mu): ln f_m(s)/f_n(s) = s exactly
    mu, n = 2.0, 400_000
    sd = math.sqrt(2 * mu)
    rng = np.random.default_rng(0)
    mated, nonmated = rng.normal(mu, sd, n), rng.normal(-mu, sd, n)
    s = np.linspace(-5, 5, 11)
    assert np.allclose(stats.norm.logpdf(s, mu, sd) - stats.norm.logpdf(s, -mu, sd), s)
    miss = integrate.quad(lambda x: stats.norm.pdf(x, mu, sd) * np.logaddexp(0, -x), -np.inf, np.inf)[0]
    fa = integrate.quad(lambda x: stats.norm.pdf(x, -mu, sd) * np.logaddexp(0, x), -np.inf, np.inf)[0]
    expected = (miss + fa) / (2 * math.log(2))
    # the sample mean's standard error sets the tolerance (4 standard errors)
    se = math.sqrt(np.logaddexp(0, -mated).var() / n + np.logaddexp(0, nonmated).var() / n) / (2 * math.log(2))
    assert abs(bf.cllr(mated, nonmated) - expected) < 4 * se
    # calibrated: PAV can only remove sampling noise
    assert bf.cllr(mated, nonmated) - bf.min_cllr(mated, nonmated) < 0.005


@given(scores, scores)
def test_cllr_equals_a_loop(mated, nonmated):
    assert bf.cllr(mated, nonmated) == pytest.approx(_cllr_loop(mated, nonmated), rel=1e-12)


@given(scores, scores)
def test_min_cllr_never_exceeds_cllr(mated, nonmated):
    assert 0 <= bf.min_cllr(mated, nonmated) <= bf.cllr(mated, nonmated) + 1e-12
    assert bf.min_cllr(mated, nonmated) <= 1


@pytest.mark.parametrize(("n_mated", "n_nonmated"), [(1, 1), (3, 7), (10, 1000)])
def test_min_cllr_of_tied_scores_is_exactly_one_bit(n_mated, n_nonmated):
    # no order to exploit: the best monotone map is the constant LLR 0, which costs 1 bit
    assert bf.min_cllr(np.full(n_mated, 0.3), np.full(n_nonmated, 0.3)) == 1.0


@given(scores, scores, st.floats(0.1, 5), st.floats(-3, 3), st.sampled_from(["affine", "exp", "cube"]))
def test_min_cllr_is_invariant_to_increasing_transforms(mated, nonmated, a, b, kind):
    transform = {"affine": lambda x: a * x + b, "exp": lambda x: np.exp(x / 2) + b, "cube": lambda x: x**3 + a * x}[kind]
    assert bf.min_cllr(transform(mated), transform(nonmated)) == pytest.approx(bf.min_cllr(mated, nonmated), abs=1e-12)


@given(scores, scores)
@settings(max_examples=200)
def test_pav_equals_scikit_learn_isotonic_regression(mated, nonmated):
    mated_llrs, nonmated_llrs = bf.pav_llrs(mated, nonmated)
    x = np.concatenate([mated, nonmated])
    y = np.concatenate([np.ones(mated.size), np.zeros(nonmated.size)])
    posterior = IsotonicRegression().fit(x, y).predict(np.sort(x))  # ties pooled, as ours
    with np.errstate(divide="ignore"):
        expected = np.log(posterior) - np.log1p(-posterior) - np.log(mated.size / nonmated.size)
    # ours come per class, ascending: merge them into the order of all scores
    merged = np.concatenate([np.sort(nonmated), np.sort(mated)])
    got = np.concatenate([nonmated_llrs, mated_llrs])[np.argsort(merged, kind="stable")]
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


def test_pav_is_monotone_and_pools_ties():
    mated_llrs, nonmated_llrs = _pav_llrs(np.array([0.2, 0.5, 0.5, 0.9]), np.array([0.1, 0.5, 0.7]))
    assert mated_llrs[1] == mated_llrs[2] == nonmated_llrs[1]
    assert np.all(np.diff(mated_llrs) >= 0) and np.all(np.diff(nonmated_llrs) >= 0)


@pytest.mark.parametrize("seed", range(3))
def test_logistic_calibration_matches_unpenalised_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    mated, nonmated = rng.normal(0.6, 0.2, 300), rng.normal(0.1, 0.15, 2_000)
    ours = bf.fit_logistic_calibration(mated, nonmated)
    x = np.concatenate([mated, nonmated])[:, None]
    y = np.concatenate([np.ones(mated.size), np.zeros(nonmated.size)])
    model = LogisticRegression(C=np.inf, class_weight="balanced", tol=1e-12, max_iter=10_000).fit(x, y)
    assert ours.scale == pytest.approx(model.coef_[0, 0], rel=1e-5)
    assert ours.offset == pytest.approx(model.intercept_[0], rel=1e-5, abs=1e-6)


def test_logistic_calibration_minimises_cllr_at_even_prior():
    rng = np.random.default_rng(1)
    mated, nonmated = rng.normal(1, 1, 500), rng.normal(-0.5, 0.8, 800)
    fit = bf.fit_logistic_calibration(mated, nonmated)
    best = bf.cllr(fit.transform(mated), fit.transform(nonmated))
    for da, db in [(0.01, 0), (-0.01, 0), (0, 0.01), (0, -0.01)]:
        other = bf.LogisticCalibration(fit.scale + da, fit.offset + db, 0.5)
        assert best < bf.cllr(other.transform(mated), other.transform(nonmated))


@pytest.mark.parametrize("mated, nonmated, message", [
    ([2.0, 3.0], [0.0, 1.0], "separates"),
    ([1.0, 3.0], [0.0, 1.0], "separates"),
    ([1.0], [1.0, 1.0], "all 3 scores equal 1.0"),  # no evidence at all, rather than separated
])
def test_logistic_calibration_refuses_separable_classes(mated, nonmated, message):
    with pytest.raises(ValueError, match=message):
        bf.fit_logistic_calibration(mated, nonmated)


@given(scores, scores, st.floats(0.01, 0.99), st.floats(0.5, 10), st.floats(0.5, 10))
def test_actual_dcf_is_a_loop_and_never_below_min_dcf(mated, nonmated, p, c_miss, c_fa):
    eta = math.log(c_fa * (1 - p) / (c_miss * p))
    fnmr = sum(s < eta for s in mated) / len(mated)
    fmr = sum(s >= eta for s in nonmated) / len(nonmated)
    expected = (c_miss * p * fnmr + c_fa * (1 - p) * fmr) / min(c_miss * p, c_fa * (1 - p))
    got = bf.actual_dcf(mated, nonmated, p_target=p, c_miss=c_miss, c_fa=c_fa)
    assert got == pytest.approx(expected, rel=1e-12)
    assert got >= bf.min_dcf(mated, nonmated, p_target=p, c_miss=c_miss, c_fa=c_fa) - 1e-12


@given(scores, scores)
def test_bayes_error_rates_rows_match_single_calls(mated, nonmated):
    x = np.array([-3.0, -0.5, 0.0, 2.0])
    table = bf.bayes_error_rates(mated, nonmated, prior_log_odds=x)
    for row in table.itertuples():
        # the Bayes decision at prior log-odds x: match iff llr >= -x, exactly
        fnmr = sum(s < -row.prior_log_odds for s in mated) / len(mated)
        fmr = sum(s >= -row.prior_log_odds for s in nonmated) / len(nonmated)
        p = row.p_target
        assert row.actual_dcf == pytest.approx((p * fnmr + (1 - p) * fmr) / min(p, 1 - p), rel=1e-12)
        if not np.isclose(np.concatenate([mated, nonmated]), -row.prior_log_odds, rtol=0, atol=1e-9).any():
            # actual_dcf's threshold ln((1-p)/p) differs from -x only by p's rounding
            assert row.actual_dcf == pytest.approx(bf.actual_dcf(mated, nonmated, p_target=p), rel=1e-9)
        assert row.min_dcf == pytest.approx(bf.min_dcf(mated, nonmated, p_target=row.p_target), rel=1e-9)
        # PAV's LLRs are optimal at every prior: their Bayes decision reaches minimum DCF
        assert row.pav_dcf == pytest.approx(row.min_dcf, rel=1e-9, abs=1e-12)


def test_bayes_error_areas_are_cllr_and_min_cllr():
    # Unnormalised Bayes error rate P_e(x) = min(p, 1-p) * normalised DCF: its integral over
    # the prior log-odds is 2 ln 2 Cllr (actual) and 2 ln 2 minCllr (PAV = minimum)
    rng = np.random.default_rng(5)
    mated, nonmated = rng.normal(1.5, 1.2, 300), rng.normal(-1.0, 1.5, 500)
    x = np.linspace(-30, 30, 120_001)
    table = bf.bayes_error_rates(mated, nonmated, prior_log_odds=x)
    weight = np.minimum(table["p_target"], 1 - table["p_target"])
    actual = integrate.trapezoid(table["actual_dcf"] * weight, x) / (2 * np.log(2))
    minimum = integrate.trapezoid(table["min_dcf"] * weight, x) / (2 * np.log(2))
    # The actual curve steps at each score: a step inside one of the trapezoids (h = 5e-4) is
    # off by at most h/2 times its height, and the heights of each class sum to at most 1, so
    # |error| <= h / (2 ln 2) = 3.6e-4, 6e-4 of Cllr here. The minimum curve is continuous
    # (the least of lines in p), its error second order in h: 1.5e-9 of minCllr here.
    assert actual == pytest.approx(_cllr_loop(mated, nonmated), rel=1e-3)
    assert minimum == pytest.approx(bf.min_cllr(mated, nonmated), rel=1e-6)
    # the area under the normalised curve (over the plotted range) is not proportional to Cllr
    plotted = np.linspace(-6, 6, 12_001)
    ratios = [integrate.trapezoid(bf.bayes_error_rates(k * mated, k * nonmated, prior_log_odds=plotted)["actual_dcf"],
                                  plotted) / bf.cllr(k * mated, k * nonmated) for k in (1, 4)]
    assert ratios[1] > 2 * ratios[0]


def test_bayes_error_rates_decide_at_minus_x_exactly():
    # ln((1-p)/p) from p = sigmoid(x) rounds: -1.9999999999999987 at x = 2, -36.04 at x = 36,
    # which turned an LLR of exactly -x (a match) into a miss
    table = bf.bayes_error_rates([-2.0, 3.0], [-4.0], prior_log_odds=[2.0])
    assert table["actual_dcf"].tolist() == [0.0]
    table = bf.bayes_error_rates([-36.02, 0.0], [-100.0], prior_log_odds=[36.0])
    # half the mated missed: p·0.5 / (1 - p) = 0.5·e^36 (1 - p from the rounded p was 4.5% off)
    assert table["actual_dcf"].iloc[0] == pytest.approx(0.5 * math.exp(36.0), rel=1e-12)


def test_bayes_error_rates_refuse_a_prior_of_one():
    with pytest.raises(ValueError, match=r"^prior_log_odds must give a prior strictly between 0 and 1 in float64 .*, "
                                         r"got 40\.0$"):
        bf.bayes_error_rates([1.0, 2.0], [0.0, -1.0], prior_log_odds=[0.0, 40.0])


@pytest.mark.parametrize("x, shown", [([0.0, np.nan], "1 value that is not finite (e.g. nan)"),
                                      ([np.inf, 1.0, -np.inf], "2 values that are not finite (e.g. inf)")])
def test_bayes_error_rates_name_a_log_odds_that_is_not_finite_as_such(x, shown):
    """Read as scores, a NaN prior log-odds was told to "leave out the comparisons without a
    finite score, or decide how to count them (as errors ...)", which are no comparisons."""
    with pytest.raises(ValueError) as raised:
        bf.bayes_error_rates([1.0, 2.0], [0.0, -1.0], prior_log_odds=x)
    assert str(raised.value) == (f"prior_log_odds has {shown}: give the log-odds ln(p / (1 - p)) of priors strictly "
                                 "between 0 and 1, such as numpy.linspace(-6, 6, 61)")


def test_calibration_by_group_caps_min_cllr_at_one_as_min_cllr_does():
    # a group of tied scores: PAV's constant LLR costs 1 bit, 1 + 2e-16 after rounding
    table = pd.DataFrame({"score": [0.0] * 7 + [1.0, -1.0, 2.0], "mated": [True] * 3 + [False] * 4 + [True, False, True],
                          "group": ["a"] * 7 + ["b"] * 3})
    row = bf.calibration_by_group(table, p_target=0.5).loc["a"]
    assert row["min_cllr"] == bf.min_cllr(np.zeros(3), np.zeros(4)) == 1.0
    assert row["calibration_loss"] == 0.0


def test_a_calibration_loss_is_never_below_zero():
    """Tied scores, 45 mated and 182 non-mated: minCllr rounded 1.1e-16 above Cllr, the loss
    was -1.1e-16, and calibration_fairness refused the table calibration_by_group had made (a
    helper's audit)."""
    rows = [pd.DataFrame({"score": 0.0, "mated": [True] * m + [False] * n, "group": g})
            for g, m, n in (("a", 40, 160), ("c", 45, 182))]
    result = bf.calibration_by_group(pd.concat(rows, ignore_index=True))
    assert (result["calibration_loss"] >= 0).all() and (result["min_cllr"] <= result["cllr"]).all()
    assert bf.calibration_fairness(result).loc["calibration_loss"].notna().any()


def test_calibration_by_group_matches_per_group_calls():
    rng = np.random.default_rng(3)
    table = pd.concat([
        bf.synthetic.gaussian_scores(n_mated=200, n_nonmated=400, mated_mean=m, rng=rng).assign(group=g)
        for g, m in (("a", 1.0), ("b", 3.0))
    ])
    result = bf.calibration_by_group(table, p_target=0.1)
    for g in ("a", "b"):
        part = table[table["group"] == g]
        mated, nonmated = bf.split_scores(part)
        assert result.loc[g, "cllr"] == pytest.approx(bf.cllr(mated, nonmated), rel=1e-12)
        assert result.loc[g, "min_cllr"] == pytest.approx(bf.min_cllr(mated, nonmated), rel=1e-12)
        assert result.loc[g, "actual_dcf"] == pytest.approx(bf.actual_dcf(mated, nonmated, p_target=0.1), rel=1e-12)
        assert result.loc[g, "min_dcf"] == pytest.approx(bf.min_dcf(mated, nonmated, p_target=0.1), rel=1e-12)
    fairness = bf.calibration_fairness(result)
    values = result.loc[["a", "b"], "cllr"]
    assert fairness.loc["cllr", "ratio"] == pytest.approx(values.max() / values.min(), rel=1e-15)
    # two groups: Inequity is sqrt(max / min) (scale-free)
    assert fairness.loc["cllr", "inequity"] == pytest.approx(math.sqrt(values.max() / values.min()), rel=1e-13)


@pytest.mark.parametrize("costs", [{"c_miss": 1e-320, "p_target": 1e-10}, {"c_miss": 1e-300, "p_target": 1e-300},
                                   {"c_fa": 1e-320, "p_target": 0.999999}, {"p_target": 5e-324},
                                   {"p_target": 0.5, "c_fa": 1e-323}, {"p_target": 1e-315}])
def test_costs_whose_products_leave_float64_are_refused(costs):
    """c_miss·p_target underflowing to 0 made actual_dcf NaN (0/0) and min_dcf raise
    ZeroDivisionError; a subnormal one, times a rate, underflowed or lost digits: min_dcf was 0
    for classes that overlap at p_target=5e-324, 0.65 for 2/3 at 1e-322, 2.5e-9 off at 1e-315
    (a calibration audit)."""
    mated, nonmated = np.array([1.0, 2.0, 3.0]), np.array([0.0, -1.0, 2.5])
    for cost in (bf.min_dcf, bf.actual_dcf):
        with pytest.raises(ValueError, match=r"c_miss·p_target = .* must both be at least 2\*\*-1022 = "
                                             r"2\.2250738585072014e-308, the smallest normal float64"):
            cost(mated, nonmated, **costs)
    assert bf.min_dcf(mated, nonmated, p_target=1e-300) == pytest.approx(2 / 3, rel=1e-15)  # a normal weight


def test_the_bayes_error_rates_below_x_of_minus_708_stay_exact():
    """Below x = -708.4 the prior p is subnormal: p·FNMR lost digits, and min_dcf read
    0.5000000000000008 where pav_dcf, which it equals, read 0.5 (a calibration audit); the
    minimum DCF there now passes the weights scaled by a power of two, as the refusal of
    subnormal weights requires."""
    table = bf.bayes_error_rates([2.0, 0.5, -1.0], [-2.0, 1.0], prior_log_odds=[-709.78, -709.0, -708.3, 0.0])
    assert (table["min_dcf"] == table["pav_dcf"]).all()
    assert table["min_dcf"].tolist() == [2 / 3, 2 / 3, 2 / 3, 0.5]
