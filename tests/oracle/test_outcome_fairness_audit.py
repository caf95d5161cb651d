"""Audit of FDR, its area, GARBE, Inequity and outcome_fairness against exact arithmetic and
brute-force loops: what the other oracles left out (exact fractions, tiny tied groups, group
order, a development set that is the evaluation set again, large counts, many groups)."""

from __future__ import annotations

import itertools
import re
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from scipy import stats
from hypothesis import strategies as st

import biofair as bf
from memory import peak_memory

FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        warnings.simplefilter("ignore", bf.UndefinedRateWarning)
        return call(*args, **kwargs)


def table_of(groups: dict) -> pd.DataFrame:
    """A score table from {group: (mated scores, non-mated scores)}."""
    rows = [(float(s), True, g) for g, (mated, _) in groups.items() for s in mated]
    rows += [(float(s), False, g) for g, (_, nonmated) in groups.items() for s in nonmated]
    return pd.DataFrame(rows, columns=["score", "mated", "group"])


tiny_groups = st.dictionaries(
    st.sampled_from(["a", "b", "c", "d"]),
    st.tuples(st.lists(st.integers(-3, 3), min_size=1, max_size=3),
              st.lists(st.integers(-3, 3), min_size=1, max_size=4)),
    min_size=2, max_size=4,
)


def exact_garbe(rates, correction=True):
    x = [Fraction(r) for r in rates]
    k = len(x)
    if sum(x) == 0:
        return Fraction(0)
    g = sum(abs(a - b) for a in x for b in x) / (2 * k * k * (sum(x) / k))
    return g * Fraction(k, k - 1) if correction else g


# ---------------------------------------------------------------------------------------------
# FDR: pooled threshold, largest pairwise gaps, alpha weights
# ---------------------------------------------------------------------------------------------


@FAST
@given(groups=tiny_groups, targets=st.lists(st.sampled_from([1.0, 0.7, 0.5, 0.3, 0.1, 0.0]), min_size=1, max_size=4),
       alpha=st.sampled_from([0.0, 0.25, 0.3, 0.5, 1.0]))
def test_fdr_of_tiny_tied_groups_equals_exact_pairwise_loops(groups, targets, alpha):
    """One- to three-score groups with ties across classes and at the threshold, targets
    unsorted and repeated: the threshold is the smallest candidate with FMR <= target on the
    pooled non-mated scores, A and B the largest gaps over all ordered pairs of groups
    (exact fractions), FDR = 1 - (alpha A + (1 - alpha) B)."""
    table = table_of(groups)
    fdr = quiet(bf.fairness_discrepancy_rate, table, fmr_targets=targets, alpha=alpha)
    pooled = table.loc[~table["mated"], "score"].to_numpy()
    candidates = [*np.unique(pooled), np.nextafter(pooled.max(), np.inf)]
    assert fdr["fmr_target"].tolist() == targets  # one row per target, in the order given
    for row, target in zip(fdr.itertuples(), targets):
        t = min(c for c in candidates if np.sum(pooled >= c) / pooled.size <= target)
        fmr = {g: Fraction(sum(s >= t for s in non), len(non)) for g, (_, non) in groups.items()}
        fnmr = {g: Fraction(sum(s < t for s in mat), len(mat)) for g, (mat, _) in groups.items()}
        a = max(abs(fmr[i] - fmr[j]) for i, j in itertools.product(fmr, fmr))
        b = max(abs(fnmr[i] - fnmr[j]) for i, j in itertools.product(fnmr, fnmr))
        assert row.threshold == t and row.k == sum(s >= t for s in pooled)
        assert row.A == pytest.approx(float(a), abs=2e-16) and row.B == pytest.approx(float(b), abs=2e-16)
        assert row.fdr == pytest.approx(float(1 - (Fraction(alpha) * a + (1 - Fraction(alpha)) * b)), abs=4e-16)
        assert 0.0 <= row.fdr <= 1.0


def test_fdr_by_hand():
    """a: mated 3, 2 and non-mated 1, 0, 2; b: mated 3 and non-mated 0. Pooled non-mated
    0, 0, 1, 2 (N = 4). FMR 0.5 -> t = 1: FMR_a = 2/3, FMR_b = 0; FMR 0 -> t just above 2:
    FNMR_a = 1/2 (the mated 2 is rejected), FNMR_b = 0."""
    table = table_of({"a": ([3, 2], [1, 0, 2]), "b": ([3], [0])})
    fdr = quiet(bf.fairness_discrepancy_rate, table, fmr_targets=[0.5, 0.0, 1.0], alpha=0.25)
    assert fdr["threshold"].tolist() == [1.0, np.nextafter(2.0, 3.0), 0.0]
    assert fdr["A"].tolist() == [2 / 3, 0.0, 0.0] and fdr["B"].tolist() == [0.0, 0.5, 0.0]
    assert fdr["fdr"].tolist() == [1 - 0.25 * 2 / 3, 1 - 0.75 * 0.5, 1.0]
    assert fdr["k"].tolist() == [2, 0, 4] and fdr["resolved"].tolist() == [False, False, True]


@FAST
@given(groups=tiny_groups, seed=st.integers(0, 2**32 - 1))
def test_fdr_and_outcome_fairness_do_not_depend_on_row_order_or_group_names(groups, seed):
    """Rows shuffled, the index duplicated and the groups renamed so that they sort the other
    way: the same FDR table and the same indices, to the last digit."""
    table = table_of(groups)
    rng = np.random.default_rng(seed)
    renamed = {g: f"z{9 - i}" for i, g in enumerate(sorted(groups))}
    other = table.iloc[rng.permutation(len(table))].assign(group=lambda t: t["group"].map(renamed))
    other.index = np.zeros(len(other), dtype=int)
    targets = [0.5, 0.1, 1.0]
    pd.testing.assert_frame_equal(quiet(bf.fairness_discrepancy_rate, table, fmr_targets=targets),
                                  quiet(bf.fairness_discrepancy_rate, other, fmr_targets=targets))
    first, second = (quiet(bf.outcome_fairness, t, threshold=0.5, alpha=0.3) for t in (table, other))
    assert first[:6] == second[:6] and first.k == second.k


def test_garbe_and_inequity_do_not_depend_on_the_order_of_the_groups():
    """The double sum and the mean of logs were taken in the order given: three orders of
    these five rates gave three GARBEs (…735, …746, …73) and two Inequities."""
    rates = [0.3, 0.1, 0.6, 0.7, 0.2]
    assert len({bf.garbe(list(p)) for p in itertools.permutations(rates)}) == 1
    assert len({bf.inequity(list(p)) for p in itertools.permutations(rates)}) == 1
    assert bf.garbe(rates) == pytest.approx(float(exact_garbe(rates)), rel=1e-15)
    assert bf.garbe([0.7, 0.2, 0.1]) == bf.garbe([0.1, 0.2, 0.7]) == 0.6


@pytest.mark.parametrize("dev", ["copy", "shuffled copy", "its ScoresByGroup"])
def test_a_development_set_holding_the_evaluation_scores_is_flagged_optimistic(dev):
    """SPEC 4: thresholds set on the evaluation scores themselves are optimistic. A copy of the
    table (without subject columns) or its grouping was read as an independent split."""
    table = table_of({"a": ([3, 2], [1, 0, 2]), "b": ([3, 1], [0, -1])})
    given = {"copy": table.copy(), "shuffled copy": table.sample(frac=1, random_state=0),
             "its ScoresByGroup": bf.scores_by_group(table)}[dev]
    fdr = quiet(bf.fairness_discrepancy_rate, table, dev=given, fmr_targets=[0.5])
    assert fdr["optimistic"].tolist() == [True]
    independent = table.assign(score=table["score"] + 0.5)
    assert not quiet(bf.fairness_discrepancy_rate, table, dev=independent, fmr_targets=[0.5])["optimistic"].any()


def test_an_invalid_development_set_is_named():
    """A development set without mated comparisons raised 'invalid score table: - no mated
    comparisons', as if the evaluation table were at fault."""
    table = table_of({"a": ([3, 2], [1, 0, 2]), "b": ([3, 1], [0, -1])})
    with pytest.raises(bf.SchemaError, match=r"^dev, the development scores the thresholds are set on: "
                                             r"invalid score table:\n- no mated comparisons"):
        bf.fairness_discrepancy_rate(table, dev=table[~table["mated"]], fmr_targets=[0.5])


# ---------------------------------------------------------------------------------------------
# Area under FDR
# ---------------------------------------------------------------------------------------------


def test_area_under_fdr_log10_by_hand_with_unsorted_and_repeated_targets():
    """Targets 1e-1, 1e-3, 1e-2 (1e-2 twice, same FDR): on the log10 axis scaled to [0, 1],
    1e-3 -> 0, 1e-2 -> 1/2, 1e-1 -> 1; trapezoids 1/2 (0.2 + 0.6)/2 + 1/2 (0.6 + 1)/2 = 0.6."""
    area = bf.area_under_fdr([1.0, 0.2, 0.6, 0.6], [1e-1, 1e-3, 1e-2, 1e-2], scale="log10")
    assert area == pytest.approx(0.6, rel=1e-15)
    # linear: 1e-2 sits at 9/99 = 1/11; 1/11 (0.2 + 0.6)/2 + 10/11 (0.6 + 1)/2
    linear = Fraction(1, 11) * Fraction(4, 10) + Fraction(10, 11) * Fraction(8, 10)
    assert bf.area_under_fdr([1.0, 0.2, 0.6, 0.6], [1e-1, 1e-3, 1e-2, 1e-2]) == pytest.approx(float(linear), rel=1e-15)


# ---------------------------------------------------------------------------------------------
# GARBE
# ---------------------------------------------------------------------------------------------


@FAST
@given(rates=st.lists(st.sampled_from([0.0, 1e-9, 0.001, 0.01, 0.1, 0.25, 0.5, 1.0]), min_size=2, max_size=9),
       correction=st.booleans())
def test_garbe_equals_the_exact_gini_mean_difference(rates, correction):
    """Double loop of |x_i - x_j| in exact fractions, with the K/(K-1) small-sample
    correction or without it; ties and zero rates included."""
    expected = float(exact_garbe(rates, correction))
    assert bf.garbe(rates, correction=correction) == pytest.approx(expected, rel=1e-13, abs=0)


def test_garbe_of_many_groups_takes_memory_in_proportion_to_k():
    """A K x K matrix of differences: 3,000 rates took 144 MB, 30,000 would take 14 GB."""
    rates = np.random.default_rng(5).uniform(0, 1, 3_000)
    value, peak = peak_memory(bf.garbe, rates)
    assert peak < 2_000_000
    # the double sum, one block of rows at a time
    total = sum(np.abs(block[:, None] - rates[None, :]).sum() for block in np.array_split(rates, 30))
    k = rates.size
    assert value == pytest.approx(total / (2 * k * k * rates.mean()) * k / (k - 1), rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Inequity
# ---------------------------------------------------------------------------------------------


def exact_bound(n: float) -> Decimal:
    with localcontext() as context:
        context.prec = 400  # 0.05^(1/n) differs from 1 in the 300th digit at n = 1e300
        return +(1 - Decimal("0.05") ** (1 / Decimal(int(n))))


@pytest.mark.parametrize("n", [10, 1e6, 1e9, 1e12, 2.0**53, 1e17, 1e300])
def test_inequity_bound_of_a_zero_rate_keeps_its_digits_for_large_counts(n):
    """1 - 0.05^(1/n) lost a digit per decade of n (relative error 2e-8 at a billion
    comparisons, 1e-3 at 2^53) and was 0 from n = 1e17: Inequity came out inf, or NaN."""
    with pytest.warns(bf.UndefinedRateWarning, match=r"^zero rates replaced by their 95% upper bound 1 - 0\.05\^\(1/n\): 1 rate at position 0$"):
        value = bf.inequity([0.0, 0.5], counts=[n, 10])
    with localcontext() as context:
        context.prec = 60
        expected = (Decimal("0.5") / exact_bound(n)).sqrt()  # max / sqrt(bound · 0.5)
    assert value == pytest.approx(float(expected), rel=1e-13)


def test_inequity_of_zero_rates_from_different_counts():
    """All rates zero: IN = max(b) / geomean(b) of the bounds b_i = 1 - 0.05^(1/n_i)."""
    with pytest.warns(bf.UndefinedRateWarning, match=r"^zero rates replaced by their 95% upper bound 1 - 0\.05\^\(1/n\): "
                                                     r"3 rates at positions 0, 1, 2$"):
        value = bf.inequity([0.0, 0.0, 0.0], counts=[10, 1_000, 100_000])
    bounds = [exact_bound(n) for n in (10, 1_000, 100_000)]
    with localcontext() as context:
        context.prec = 60
        expected = bounds[0] / (bounds[0] * bounds[1] * bounds[2]) ** (Decimal(1) / 3)
    assert value == pytest.approx(float(expected), rel=1e-14)
    with pytest.warns(bf.UndefinedRateWarning, match=r"^zero rates replaced by their .*: 2 rates at positions 0, 1$"):
        assert bf.inequity([0.0, 0.0], counts=[7, 7]) == 1.0


def test_inequity_of_zero_rates_without_counts_or_with_raise_names_them():
    with pytest.raises(ValueError, match=re.escape("inequity is undefined: 1 rate is zero (at position 1); "
                                                   "give counts")):
        bf.inequity([0.5, 0.0, 0.2])
    with pytest.raises(ValueError, match=re.escape("inequity is undefined: 2 rates are zero (at positions 0, 2); "
                                                   "zero='upper_bound' replaces each")):
        bf.inequity([0.0, 0.1, 0.0], counts=[5, 5, 5], zero="raise")


# ---------------------------------------------------------------------------------------------
# outcome_fairness: its table against each index called alone
# ---------------------------------------------------------------------------------------------


@FAST
@given(groups=tiny_groups, threshold=st.sampled_from([-4.0, -0.5, 0.0, 1.0, 2.5, 4.0]),
       alpha=st.sampled_from([0.0, 0.3, 0.5, 1.0]), correction=st.booleans())
def test_outcome_fairness_equals_each_index_called_alone(groups, threshold, alpha, correction):
    """GARBE and Inequity of the rates table, with that table's counts; zero rates flagged;
    the combined GARBE weighted by alpha; identical results whatever the group order."""
    table = table_of(groups)
    out = quiet(bf.outcome_fairness, table, threshold=threshold, alpha=alpha, correction=correction)
    rates = out.rates
    assert rates["group"].tolist() == sorted(groups)
    for name, (mated, nonmated) in groups.items():
        row = rates.set_index("group").loc[name]
        assert row["fmr"] == sum(s >= threshold for s in nonmated) / len(nonmated)
        assert row["fnmr"] == sum(s < threshold for s in mated) / len(mated)
    assert out.garbe_fmr == bf.garbe(rates["fmr"], correction=correction)
    assert out.garbe_fnmr == bf.garbe(rates["fnmr"], correction=correction)
    assert out.inequity_fmr == quiet(bf.inequity, rates["fmr"], counts=rates["n_nonmated"])
    assert out.inequity_fnmr == quiet(bf.inequity, rates["fnmr"], counts=rates["n_mated"])
    assert out.garbe == alpha * out.garbe_fmr + (1 - alpha) * out.garbe_fnmr
    assert rates["fmr_bounded"].tolist() == (rates["fmr"] == 0).tolist()
    assert rates["fnmr_bounded"].tolist() == (rates["fnmr"] == 0).tolist()


def test_identical_groups_are_perfectly_fair_and_a_zero_rate_group_is_bounded():
    same = table_of({"a": ([3, 2], [1, 0]), "b": ([3, 2], [1, 0])})
    out = quiet(bf.outcome_fairness, same, threshold=1.0)
    assert (out.garbe_fmr, out.garbe_fnmr, out.inequity_fmr, out.inequity_fnmr) == (0.0, 0.0, 1.0, 1.0)
    # b makes no false match among 3 non-mated: its FMR is bounded by 1 - 0.05^(1/3) = 0.63,
    # above a's 1/2: IN = bound / sqrt(bound / 2)
    table = table_of({"a": ([3, 2], [1, 0]), "b": ([3, 2], [0, 0, -1])})
    out = quiet(bf.outcome_fairness, table, threshold=1.0)
    bound = float(exact_bound(3))
    assert out.inequity_fmr == pytest.approx(bound / (0.5 * bound) ** 0.5, rel=1e-14)
    assert out.garbe_fmr == 1.0  # one group holds every false match


def test_outcome_fairness_zero_raise_names_the_groups_and_rates():
    """zero='raise' said '1 group rate(s) are zero (use zero='upper_bound' with counts)': not
    which groups, not which rate (FNMR zeros were not even counted) and advice about counts
    that outcome_fairness does not take."""
    table = table_of({"a": ([3, 2], [1, 0, 2]), "b": ([3, 1], [0, -1])})
    message = ("inequity is undefined: 3 group rates are zero (FMR of groups ['b'], FNMR of groups ['a', 'b']); "
               "zero='upper_bound' replaces each by its one-sided 95% upper bound 1 - 0.05^(1/n), n its comparisons")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        bf.outcome_fairness(table, threshold=1.0, zero="raise")


def test_outcome_fairness_warning_lists_only_the_rates_that_were_replaced():
    """'FMR of groups [], FNMR of groups ['a', 'b']' named an empty list."""
    table = table_of({"a": ([3, 2], [1, 0]), "b": ([3, 2], [1, 0])})
    with pytest.warns(bf.UndefinedRateWarning, match=r"^zero rates replaced by their 95% upper bound: "
                                                     r"FNMR of groups \['a', 'b'\]$"):
        bf.outcome_fairness(table, threshold=1.0)


# ---------------------------------------------------------------------------------------------
# outcome_fairness: each group's rates marked resolved by the rule of three
# ---------------------------------------------------------------------------------------------

counted_groups = st.dictionaries(  # per group: (comparisons, errors) of each kind, errors rare or not
    st.sampled_from(["a", "b", "c"]),
    st.tuples(*[st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, min(n, 6)) | st.integers(0, n)))
                for _ in ("mated", "nonmated")]),
    min_size=2, max_size=3,
)


@FAST
@given(groups=counted_groups, target=st.sampled_from([None, None, 1e-3, 0.01, 0.05, 1.0]))
def test_outcome_fairness_marks_a_group_rate_resolved_by_its_errors_or_the_rate_asked(groups, target):
    """Resolved iff the group has 3 errors or more, or the rate asked about (the target FMR, the
    pooled FMR at a given threshold; the pooled FNMR) allows 3 among its comparisons (3/n <= it,
    as SPEC section 1's float rule), counted from the scores by loops."""
    scores = {g: ([-1.0] * misses + [1.0] * (n - misses), [1.0] * matches + [-1.0] * (m - matches))
              for g, ((n, misses), (m, matches)) in groups.items()}
    table = table_of(scores)
    if target is None:
        out = quiet(bf.outcome_fairness, table, threshold=0.0)
    else:
        try:
            out = quiet(bf.outcome_fairness, table, fmr=target)
        except ValueError as error:  # every score 1.0 (no miss, every non-mated a match): refused
            assert "every score" in str(error)
            return
    rates = out.rates.set_index("group")
    false_matches = {g: sum(s >= out.threshold for s in nonmated) for g, (_, nonmated) in scores.items()}
    misses = {g: sum(s < out.threshold for s in mated) for g, (mated, _) in scores.items()}
    pooled_fmr = sum(false_matches.values()) / sum(len(nonmated) for _, nonmated in scores.values())
    pooled_fnmr = sum(misses.values()) / sum(len(mated) for mated, _ in scores.values())
    for name, (mated, nonmated) in scores.items():
        asked = pooled_fmr if target is None else target
        assert rates.loc[name, "fmr_resolved"] == (false_matches[name] >= 3 or 3 / len(nonmated) <= asked)
        assert rates.loc[name, "fnmr_resolved"] == (misses[name] >= 3 or 3 / len(mated) <= pooled_fnmr)


def test_outcome_fairness_resolution_by_hand_and_as_the_differential_report():
    """At FMR 0.05 (threshold 4: c's 10 false matches of 460, pooled FMR 1/46), a's 40
    non-mated comparisons allow 2 false matches and it makes 0: unresolved; b's 400 allow 20:
    resolved although it makes 0; c makes 10 in 20: resolved by its own errors. At the
    threshold 4 given, the rate asked about is the pooled FMR, 1/46: b's 400 allow 8, a's 40
    none. FNMR: pooled 10 of 140 = 1/14; a's 20 mated allow 1 and it misses 0: unresolved; b
    misses 10 in 20: resolved; c's 100 allow 7: resolved although it misses none. The
    differential report, which counts its own errors, marks the same groups."""
    nonmated = {"a": np.full(40, -5.0), "b": np.full(400, -5.0), "c": np.r_[np.full(10, 4.0), np.full(10, -5.0)]}
    mated = {"a": np.full(20, 5.0), "b": np.r_[np.full(10, -6.0), np.full(10, 5.0)], "c": np.full(100, 5.0)}
    table = table_of({g: (mated[g], nonmated[g]) for g in "abc"})
    table["subject"] = np.arange(len(table))
    for options in ({"fmr": 0.05}, {"threshold": 4.0}):
        out = quiet(bf.outcome_fairness, table, **options)
        assert out.threshold == 4.0 and out.k == 10
        rates = out.rates.set_index("group")
        assert rates["fmr_resolved"].tolist() == [False, True, True]
        assert rates["fnmr_resolved"].tolist() == [False, True, True]
        report = quiet(bf.differential_report, table, **options, n_resamples=100, rng=0)
        marked = report.groups.pivot(index="group", columns="rate", values="resolved")
        assert marked["fmr"].tolist() == rates["fmr_resolved"].tolist()
        assert marked["fnmr"].tolist() == rates["fnmr_resolved"].tolist()


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_outcome_fairness_intervals_and_precision_are_the_differential_reports_and_scipys(confidence):
    """Each group's rates carry the Clopper-Pearson interval of the differential layout (scipy's
    exact binomial test) and its rule of thirty: at FMR 0.05 (threshold 4), b's 800 non-mated
    comparisons allow 40 false matches: precise although it makes none; c makes 30 of 40: precise
    by its own errors; a's 40 allow 2: neither resolved nor precise. FNMR, pooled 10 of 620: a's
    100 mated comparisons allow 1.6 and it misses none: neither; b's 20 allow 0.3, and it misses
    10: resolved, not precise; c's 500 allow 8: resolved, not precise. Before, the table had no
    interval and no precise mark."""
    nonmated = {"a": np.full(40, -5.0), "b": np.full(800, -5.0), "c": np.r_[np.full(30, 4.0), np.full(10, -5.0)]}
    mated = {"a": np.full(100, 5.0), "b": np.r_[np.full(10, -6.0), np.full(10, 5.0)], "c": np.full(500, 5.0)}
    table = table_of({g: (mated[g], nonmated[g]) for g in "abc"})
    out = quiet(bf.outcome_fairness, table, fmr=0.05, confidence=confidence)
    rates = out.rates.set_index("group")
    assert out.threshold == 4.0
    assert rates["fmr_precise"].tolist() == [False, True, True]
    assert rates["fnmr_resolved"].tolist() == [False, True, True] and not rates["fnmr_precise"].any()
    for rate, errors, n in (("fmr", "false_matches", "n_nonmated"), ("fnmr", "false_non_matches", "n_mated")):
        for name, row in rates.iterrows():
            exact = stats.binomtest(int(row[errors]), int(row[n])).proportion_ci(confidence, method="exact")
            assert row[f"{rate}_cp_low"] == pytest.approx(exact.low, rel=1e-9, abs=1e-15), (rate, name)
            assert row[f"{rate}_cp_high"] == pytest.approx(exact.high, rel=1e-9, abs=1e-15), (rate, name)
    report = quiet(bf.differential_report, table.assign(subject=np.arange(len(table))), fmr=0.05, n_resamples=100,
                   confidence=confidence, rng=0).groups.set_index(["rate", "group"])
    for rate in ("fmr", "fnmr"):
        differential = report.loc[rate].loc[rates.index]
        assert differential["cp_low"].tolist() == rates[f"{rate}_cp_low"].tolist()
        assert differential["cp_high"].tolist() == rates[f"{rate}_cp_high"].tolist()
        assert differential["precise"].tolist() == rates[f"{rate}_precise"].tolist()
