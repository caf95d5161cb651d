"""Tests that kill mutants the other suites let live (mutation testing, second round): each
pins a branch or a term of subset_bias, calibration, the bootstrap, the permutation null or
identification against an independent computation (scipy, a loop, a hand-worked case)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import biofair as bf

# -- subset_bias ---------------------------------------------------------------------------------


@pytest.mark.parametrize("a, b", [([0.1, 0.1, 0.1], [0.2, 0.2]), ([0.3, 0.3], [0.05, 0.05, 0.05, 0.05])])
def test_constant_sets_that_differ_are_infinitely_far_and_not_similar(a, b):
    """Both sets constant, means apart: the gap over a spread of 0 is inf (N-Sigma) and the
    T-test rejects with certainty (similarity 0), as the limit of sets whose spread shrinks."""
    assert bf.n_sigma(a, b) == math.inf
    assert bf.welch_similarity(a, b) == 0.0
    nearly_constant = np.add(a, [1e-9] + [0.0] * (len(a) - 1))  # the limit: spread 1e-9, similarity near 0
    assert bf.welch_similarity(nearly_constant, b) < 1e-6


def test_welch_similarity_of_spreads_a_few_ulps_wide_near_the_bottom_of_the_range():
    """Values 2**-499 (1 + k·2**-52): neither scaled by power_of_two_scaled (they lie inside
    [2**-500, 2**500]) nor with squares of their spreads above the float range's bottom
    (about 1e-166 squared). The Welch test does not change under a shift and a scale, so its
    p-value is scipy's on the integers k: [0, 1, 2, 3] against [5, 6, 8, 9], about 0.0036."""
    ka, kb = np.array([0, 1, 2, 3]), np.array([5, 6, 8, 9])
    a, b = (2.0**-499 * (1 + k * 2.0**-52) for k in (ka, kb))
    expected = stats.ttest_ind(ka, kb, equal_var=False).pvalue
    assert bf.welch_similarity(a, b) == pytest.approx(expected, rel=1e-12)
    assert bf.n_sigma(a, b) == pytest.approx(abs(ka.mean() - kb.mean()) / math.hypot(ka.std(ddof=1), kb.std(ddof=1)),
                                             rel=1e-12)


@pytest.mark.parametrize("n_mated, n_nonmated, expected_mated", [(1, 999, 1), (999, 1, 99)])
def test_subsets_of_a_lopsided_group_keep_one_comparison_of_each_class(n_mated, n_nonmated, expected_mated):
    """round(100 · 1/1000) = 0 mated and round(100 · 999/1000) = 100 mated (0 non-mated) are
    raised and lowered to keep one comparison of each class: 1 and 99 mated of 100. Replayed
    with a loop over the draws: the same seed draws the groups in sorted order, each from its
    sorted scores, mated first."""
    rng = np.random.default_rng(3)
    parts = []
    for group, (m, n) in {"a": (n_mated, n_nonmated), "b": (500, 500)}.items():
        parts.append(pd.DataFrame({"score": np.r_[rng.normal(2, 1, m), rng.normal(0, 1, n)],
                                   "mated": np.repeat([True, False], [m, n]), "group": group}))
    table = pd.concat(parts, ignore_index=True)
    found = bf.subset_performance(table, n_subsets=2, size=100, metric="eer", rng=7)
    replay = np.random.default_rng(7)
    for group, n_in_subset in (("a", expected_mated), ("b", 50)):
        rows = table[table["group"] == group]
        mated, nonmated = np.sort(rows["score"][rows["mated"]]), np.sort(rows["score"][~rows["mated"]])
        for subset in range(2):
            m, n = replay.choice(mated, n_in_subset), replay.choice(nonmated, 100 - n_in_subset)
            expected = bf.eer(m, n).eer
            got = found[(found["group"] == group) & (found["subset"] == subset)]["value"].item()
            assert got == expected


# -- calibration ---------------------------------------------------------------------------------


def test_actual_dcf_accepts_an_llr_equal_to_the_bayes_threshold():
    """p_target 0.5 and equal costs: the Bayes threshold ln(1·0.5 / (1·0.5)) is 0 exactly, and an
    LLR of 0 reaches it, so it is accepted (SPEC 1: a match iff score >= threshold). By hand,
    mated [0, 0, 1] and non-mated [-1, 0]: no miss, one false alarm of two, cost
    (0.5·0 + 0.5·1/2) / 0.5 = 0.5 (rejecting the ties would give (0.5·2/3 + 0) / 0.5 = 2/3).
    bayes_error_rates at prior log-odds 0 is the same decision."""
    mated, nonmated = [0.0, 0.0, 1.0], [-1.0, 0.0]
    assert bf.actual_dcf(mated, nonmated, p_target=0.5) == 0.5
    assert bf.bayes_error_rates(mated, nonmated, prior_log_odds=[0.0])["actual_dcf"].item() == 0.5


def test_dcf_loss_is_the_actual_less_the_minimum_dcf():
    """Group b: mated [2], non-mated [-1, 1] read as LLRs at p = 0.5 accept the 1 (a false
    alarm, actual DCF 0.5) where the best threshold separates the classes (min DCF 0): its
    loss is +0.5, actual_dcf - min_dcf of the group's scores."""
    table = pd.DataFrame({"score": [2.0, -1.0, 1.0, 0.5, -0.5, 0.0], "mated": [True, False, False, True, False, True],
                          "group": ["b"] * 3 + ["a"] * 3})
    result = bf.calibration_by_group(table, p_target=0.5)
    for group in ("a", "b"):
        rows = table[table["group"] == group]
        mated, nonmated = rows["score"][rows["mated"]], rows["score"][~rows["mated"]]
        expected = bf.actual_dcf(mated, nonmated, p_target=0.5) - bf.min_dcf(mated, nonmated, p_target=0.5)
        assert result.loc[group, "dcf_loss"] == expected
    assert result.loc["b", "dcf_loss"] == 0.5


def test_calibration_loss_of_scores_that_are_nearly_their_own_pav_llrs_is_not_negative():
    """Scores 1e-15 off the LLRs PAV gives them (ln(1/2), ln(3/2)): Cllr and minCllr agree to
    an ulp, and minCllr computed from PAV rounded 1.1e-16 above Cllr. PAV is the best monotone
    map (Brümmer and du Preez), so minCllr <= Cllr and the loss is at least 0."""
    mated = [-0.693147180559946, 0.40546510810816494, 0.40546510810816494, 0.40546510810816494]
    nonmated = [-0.693147180559946, 0.40546510810816494]
    table = pd.DataFrame({"score": mated + nonmated + [2.0, -1.0, 1.0],
                          "mated": [True] * 4 + [False] * 2 + [True, False, False], "group": ["a"] * 6 + ["b"] * 3})
    result = bf.calibration_by_group(table, p_target=0.5)
    assert (result["calibration_loss"] >= 0).all()
    assert (result["min_cllr"] <= result["cllr"]).all()
    assert result.loc["a", "cllr"] == pytest.approx(bf.min_cllr(mated, nonmated), abs=1e-15)



# -- bootstrap -----------------------------------------------------------------------------------


@pytest.mark.parametrize("statistic, args", [(bf.roc_auc, ()), (bf.tmr_at_fmr, (0.1,))])
def test_strata_hold_for_a_statistic_that_declares_the_fast_path(statistic, args):
    """roc_auc and tmr_at_fmr declare bootstrap_replicates, which resamples each class as a
    whole: with strata= the plain path must run, so that each group keeps its counts. Their
    replicates are those of the same statistic behind a wrapper without the fast path, and
    differ from the unstratified ones (group b, 3 mated of 23, loses or doubles its mated)."""
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"score": np.r_[rng.normal(2, 1, 40), rng.normal(0, 1, 200), rng.normal(4, 1, 3),
                                         rng.normal(0, 1, 20)],
                          "mated": np.repeat([True, False, True, False], [40, 200, 3, 20]),
                          "group": np.repeat(["a", "b"], [240, 23])})
    found = bf.bootstrap(statistic, table, args=args, strata="group", n_resamples=60, rng=4)
    plain = bf.bootstrap(lambda m, n, *a: statistic(m, n, *a), table, args=args, strata="group", n_resamples=60, rng=4)
    unstratified = bf.bootstrap(statistic, table, args=args, n_resamples=60, rng=4)
    np.testing.assert_array_equal(found.replicates, plain.replicates)
    assert not np.array_equal(found.replicates, unstratified.replicates)


# -- permutation ---------------------------------------------------------------------------------


def test_the_pair_shuffle_keeps_each_groups_class_sizes():
    """unit="pair" shuffles the labels within each class: every permuted table has the
    observed number of mated and of non-mated comparisons in each group (here 5 and 30 in a,
    15 and 10 in b, counted by a groupby), and the labels do move."""
    rng = np.random.default_rng(1)
    table = pd.DataFrame({"score": rng.normal(size=60), "mated": np.repeat([True, False, True, False], [5, 30, 15, 10]),
                          "group": np.repeat(["a", "b"], [35, 25])})
    observed = table.groupby(["group", "mated"]).size().to_dict()
    seen, moved = [], []

    def statistic(permuted: pd.DataFrame) -> float:
        seen.append(permuted.groupby(["group", "mated"]).size().to_dict())
        moved.append(bool((permuted["group"] != table["group"]).any()))
        return float(permuted.loc[permuted["group"] == "a", "score"].mean())

    bf.permutation_null(statistic, table, unit="pair", n_permutations=30, rng=2)
    assert observed == {("a", False): 30, ("a", True): 5, ("b", False): 10, ("b", True): 15}
    assert len(seen) == 31 and all(counts == observed for counts in seen)
    assert any(moved)


# -- identification ------------------------------------------------------------------------------


def test_an_enrolled_probe_with_rank_zero_is_not_an_outcome():
    """A mate's rank is 1 + the entries ahead of it, so at least 1: an enrolled probe of rank 0
    (a rank counted from 0, say) is refused, named, and not read as a hit at every rank."""
    outcomes = pd.DataFrame({"probe_id": ["p0", "p1", "p2", "p3"], "group": ["a", "a", "b", "b"],
                             "mated": [True, False, True, False], "score": [0.9, 0.4, 0.8, 0.3],
                             "rank": [0, 0, 1, 0], "top_nonmated": [0.5, 0.4, 0.2, 0.3]})
    with pytest.raises(bf.SchemaError, match=r"column 'rank' has 1 value that is not a rank .* e\.g\. 0 in .*"
                                             r"\(enrolled\)"):
        bf.cmc(outcomes, max_rank=2)
    assert bf.cmc(outcomes.assign(rank=[1, 0, 1, 0]), max_rank=1).loc[1].tolist() == [1.0, 1.0]


def test_a_trial_id_missing_in_the_same_row_of_both_systems_is_the_same_trial():
    """A probe_id left empty in one row of both tables (NaN, as a CSV reader gives it, in
    one and None in the other) names the same trial: the paired bootstrap runs, and its
    difference is roc_auc(A) - roc_auc(B), called on each table. A NaN that differs from
    NaN is no difference between the systems' trial lists."""
    rng = np.random.default_rng(0)
    a = pd.DataFrame({"score": np.r_[rng.normal(2, 1, 30), rng.normal(0, 1, 60)],
                      "mated": np.repeat([True, False], [30, 60]),
                      "probe_id": [f"p{i}" for i in range(89)] + [np.nan]})
    b = a.assign(score=a["score"] * 0.5 + a["mated"] * 0.3,
                 probe_id=a["probe_id"].astype(object).where(a.index < 89, None))
    result = bf.paired_bootstrap(bf.roc_auc, a, b, n_resamples=50, rng=0)
    expected = (bf.roc_auc(a["score"][a["mated"]], a["score"][~a["mated"]])
                - bf.roc_auc(b["score"][b["mated"]], b["score"][~b["mated"]]))
    assert result.difference == expected
    assert result.low <= result.high
    assert bf.paired_bootstrap(bf.roc_auc, a, a.assign(score=b["score"]), n_resamples=50, rng=0).difference == expected
