"""Calibration against independent computations, where an audit of chapter 11 found the suite
silent: the logistic calibration at priors other than 0.5 and where one class saturates the
posterior (scikit-learn and scipy.optimize), the per-group and pooled rows of per-side groups
(direct formulas, scikit-learn's PAV and loops over thresholds), and the Bayes error rates of
infinite LLRs (a loop over every decision)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy.special import logit
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

import biofair as bf


def weighted_cross_entropy(mated, nonmated, p, scale, offset):
    """The loss fit_logistic_calibration minimises, written out (in nats)."""
    shift = offset + logit(p)
    return (p * np.mean(np.logaddexp(0.0, -(scale * mated + shift)))
            + (1 - p) * np.mean(np.logaddexp(0.0, scale * nonmated + shift)))


def scikit_learn_fit(mated, nonmated, p):
    """Unpenalised logistic regression, the mated class weighing p/M and the non-mated (1-p)/N:
    its intercept is the offset plus the training prior's log-odds logit(p)."""
    x = np.concatenate([mated, nonmated])[:, None]
    y = np.concatenate([np.ones(mated.size), np.zeros(nonmated.size)])
    weight = np.concatenate([np.full(mated.size, p / mated.size), np.full(nonmated.size, (1 - p) / nonmated.size)])
    model = LogisticRegression(C=np.inf, tol=1e-12, max_iter=100_000).fit(x, y, sample_weight=weight * y.size)
    return model.coef_[0, 0], model.intercept_[0] - logit(p)


@pytest.mark.parametrize("p", [0.001, 0.01, 0.2, 0.9])
@pytest.mark.parametrize("seed", range(2))
def test_logistic_calibration_at_any_prior_is_the_weighted_fit(seed, p):
    """The suite compared the fit with scikit-learn at p = 0.5 only (class_weight="balanced")."""
    rng = np.random.default_rng(seed)
    mated, nonmated = rng.normal(1.0, 1.0, 80).round(1), rng.normal(-0.5, 0.7, 700).round(1)
    fit = bf.fit_logistic_calibration(mated, nonmated, p_target=p)
    scale, offset = scikit_learn_fit(mated, nonmated, p)
    assert fit.scale == pytest.approx(scale, rel=1e-6)
    assert fit.offset == pytest.approx(offset, rel=1e-6, abs=1e-8)
    assert fit.p_target == p


@pytest.mark.parametrize("mated, nonmated, p", [
    # one mated score between 3,000 tied non-mated ones and one above it
    (np.array([0.5]), np.r_[np.zeros(3000), 1.0], 0.01),
    (np.array([2.0, 0.0]), np.r_[np.full(10_000, -1.0), 1.0], 0.01),
    # np.linalg.solve found the Hessian singular (LinAlgError: "Singular matrix")
    (np.array([24.0, 0.2]), np.r_[15.5, 4.5, np.zeros(7527)], 0.99),
], ids=["one mated", "two mated", "singular"])
def test_logistic_calibration_where_one_class_saturates_is_the_optimum(mated, nonmated, p):
    """Where the few scores far from a large tie saturate the posterior, the Hessian is singular
    to rounding and Newton's step 1e12 long: halved to a step 100 long that raised the loss, it
    was taken, and the fit returned (-2555, -2556) where the optimum is (12.4, 7.78), a weighted
    cross-entropy of 51 nats instead of 0.0018."""
    fit = bf.fit_logistic_calibration(mated, nonmated, p_target=p)
    scale, offset = scikit_learn_fit(mated, nonmated, p)
    assert fit.scale == pytest.approx(scale, rel=1e-6)
    assert fit.offset == pytest.approx(offset, rel=1e-6)
    # and no other map has a lower loss (scipy from the start Newton's method starts from)
    best = optimize.minimize(lambda t: weighted_cross_entropy(mated, nonmated, p, *t), [0.0, 0.0], method="BFGS")
    ours = weighted_cross_entropy(mated, nonmated, p, fit.scale, fit.offset)
    assert ours <= best.fun * (1 + 1e-9)


def direct_cllr(mated, nonmated):
    return (np.mean(np.logaddexp(0.0, -mated)) + np.mean(np.logaddexp(0.0, nonmated))) / (2 * math.log(2))


def isotonic_min_cllr(mated, nonmated):
    """PAV by scikit-learn; its posterior minus the data's prior log-odds ln(M/N) is an LLR."""
    x = np.concatenate([mated, nonmated])
    y = np.concatenate([np.ones(mated.size), np.zeros(nonmated.size)])
    posterior = IsotonicRegression().fit(x, y).predict(x)
    with np.errstate(divide="ignore"):
        llr = np.log(posterior) - np.log1p(-posterior) - math.log(mated.size / nonmated.size)
    return min(direct_cllr(llr[: mated.size], llr[mated.size:]), 1.0)


def dcf_loop(mated, nonmated, p, threshold):
    fnmr = sum(s < threshold for s in mated) / len(mated)
    fmr = sum(s >= threshold for s in nonmated) / len(nonmated)
    return (p * fnmr + (1 - p) * fmr) / min(p, 1 - p)


def min_dcf_loop(mated, nonmated, p):
    """Every decision "match iff score >= t": t at each score, and rejecting every comparison."""
    costs = [dcf_loop(mated, nonmated, p, t) for t in np.concatenate([mated, nonmated])]
    return min(costs + [p / min(p, 1 - p)])


@pytest.mark.parametrize("seed", range(3))
def test_group_and_pooled_rows_of_per_side_groups_are_the_definitions(seed):
    """Each group's row and the pooled row "(all)" (all the mated and homogeneous non-mated
    scores; the cross-group pairs left out), each measure by its own formula. The suite checked
    the group rows of a pair-level group column only."""
    rng = np.random.default_rng(seed)
    n, p = 400, 0.2
    reference = rng.choice(["a", "b", "c"], n)
    mated = rng.random(n) < 0.3
    probe = np.where(mated | (rng.random(n) < 0.6), reference, rng.choice(["a", "b", "c"], n))
    table = pd.DataFrame({"score": np.round(rng.normal(-0.5, 1.5, n) + 2.0 * mated, 1), "mated": mated,
                          "reference_group": reference, "probe_group": probe})
    result = bf.calibration_by_group(table, p_target=p)
    homogeneous = table[table["reference_group"] == table["probe_group"]]
    parts = {g: homogeneous[homogeneous["reference_group"] == g] for g in ("a", "b", "c")} | {"(all)": homogeneous}
    assert result.index.tolist() == list(parts)
    for name, part in parts.items():
        m = part.loc[part["mated"], "score"].to_numpy()
        nm = part.loc[~part["mated"], "score"].to_numpy()
        row = result.loc[name]
        assert (row["n_mated"], row["n_nonmated"]) == (m.size, nm.size)
        assert row["cllr"] == pytest.approx(direct_cllr(m, nm), rel=1e-12)
        assert row["min_cllr"] == pytest.approx(isotonic_min_cllr(m, nm), rel=1e-9)
        assert row["calibration_loss"] == pytest.approx(row["cllr"] - row["min_cllr"], abs=1e-15)
        assert row["actual_dcf"] == pytest.approx(dcf_loop(m, nm, p, math.log((1 - p) / p)), rel=1e-12)
        assert row["min_dcf"] == pytest.approx(min_dcf_loop(m, nm, p), rel=1e-12)


@pytest.mark.parametrize("mated, nonmated", [
    ([np.inf, 1.0, -2.0], [-np.inf, 0.0, 3.0]),
    ([np.inf, 1.0], [np.inf, 0.0]),  # an infinite LLR in both classes: reject-all is a decision of its own
    ([-np.inf, 1.0, 1.0], [-np.inf, 1.0, -5.0]),
])
def test_bayes_error_rates_of_infinite_llrs_are_a_loop_over_decisions(mated, nonmated):
    """Infinite LLRs (infinite evidence, as PAV gives) are allowed in bayes_error_rates; at
    every prior, the actual DCF decides at -x, the minimum is over every decision, and the PAV
    LLRs' Bayes decision reaches it."""
    x = np.array([-4.0, -1.0, 0.0, 0.5, 3.0])
    table = bf.bayes_error_rates(mated, nonmated, prior_log_odds=x)
    m, nm = np.array(mated), np.array(nonmated)
    for row in table.itertuples():
        p = 1 / (1 + math.exp(-row.prior_log_odds))
        assert row.p_target == pytest.approx(p, rel=1e-15)
        assert row.actual_dcf == pytest.approx(dcf_loop(m, nm, p, -row.prior_log_odds), rel=1e-12)
        assert row.min_dcf == pytest.approx(min_dcf_loop(m, nm, p), rel=1e-12)
        assert row.pav_dcf == pytest.approx(row.min_dcf, rel=1e-12)
