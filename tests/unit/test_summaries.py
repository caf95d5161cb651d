"""The summaries agree with the individual metrics, carry the resolution of every target, and are fast."""

from __future__ import annotations

import re
import time
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import biofair as bf
from biofair import summaries
from biofair._thresholds import allowed_false_matches, resolution
from biofair.permutation import _shuffle_plan


def test_report_rows_equal_individual_metrics(scores):
    mated, nonmated = scores
    report = bf.operating_summary(
        mated, nonmated, fmr_targets=[0.1, 0.01], pauc_bounds=[0.1, 0.01], min_fmr=0.01
    )
    value = report.set_index(["metric", "fmr_target"])["value"]
    nan = np.nan
    assert value[("roc_auc", nan)] == bf.roc_auc(mated, nonmated)
    for b in (0.1, 0.01):
        pauc = bf.partial_auc(mated, nonmated, max_fmr=b)
        assert value[("partial_auc", b)] == pauc
        assert value[("overstatement", b)] == bf.roc_auc(mated, nonmated) - pauc
        assert value[("tmr_at_fmr", b)] == bf.tmr_at_fmr(mated, nonmated, b)
        point = bf.operating_point(mated, nonmated, fmr=b)
        assert value[("fnmr_at_fmr", b)] == point.fnmr
        row = report.query("metric == 'tmr_at_fmr' and fmr_target == @b")
        assert row["threshold"].item() == point.threshold
        assert row["k"].item() == point.false_matches  # the count behind the rate
    assert value[("log_fmr_auc", 0.01)] == bf.log_fmr_auc(mated, nonmated, min_fmr=0.01)
    assert value[("min_dcf", nan)] == bf.min_dcf(mated, nonmated)
    assert value[("eer", nan)] == bf.eer(mated, nonmated).eer
    assert value[("decidability", nan)] == bf.decidability(mated, nonmated)  # the scores as given, summed alike
    assert value[("pr_auc", nan)] == bf.pr_auc(mated, nonmated)
    assert value[("mated_nonmated_ratio", nan)] == mated.size / nonmated.size
    assert value[("n_mated", nan)] == mated.size
    assert value[("n_nonmated", nan)] == nonmated.size
    assert value[("fmr_resolution", nan)] == 1 / nonmated.size
    assert report["resolved"].all()
    assert list(report.columns) == ["metric", "fmr_target", "value", "threshold", "k", "resolved", "precise"]


@pytest.mark.parametrize("decimals", [2, None], ids=["ties", "distinct"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_report_is_the_same_whether_a_second_thread_sorts_or_not(monkeypatch, dtype, decimals):
    """From biofair.summaries.IN_TWO_THREADS_FROM non-mated scores two threads share the sort (a
    partition, then each sorts one side), the search and the metrics: the same table, to the
    bit, as the one-thread computation."""
    rng = np.random.default_rng(3)
    mated, nonmated = rng.normal(2, 1, 3_000), rng.normal(0, 1, 30_000)
    if decimals is not None:
        mated, nonmated = np.round(mated, decimals), np.round(nonmated, decimals)
    mated, nonmated = mated.astype(dtype), nonmated.astype(dtype)
    tables = {}
    for name, start in (("one thread", 10**9), ("two threads", 0)):
        monkeypatch.setattr("biofair.summaries.IN_TWO_THREADS_FROM", start)
        tables[name] = bf.operating_summary(mated, nonmated, eer_method="rocch")
    pd.testing.assert_frame_equal(tables["one thread"], tables["two threads"], check_exact=True)
    monkeypatch.setattr("biofair.summaries.IN_TWO_THREADS_FROM", 0)
    with pytest.raises(ValueError, match="nonmated contains 1 NaN"):  # checked while the other thread sorts
        bf.operating_summary(mated, np.append(nonmated, np.nan))
    with pytest.raises(ValueError, match="nonmated contains 0 NaN and 2 infinite"):  # at both ends
        bf.operating_summary(mated, np.concatenate([[np.inf], nonmated, [-np.inf]]))


def test_report_on_millions_of_scores_takes_a_few_sorts():
    rng = np.random.default_rng(7)
    mated, nonmated = rng.normal(2, 1, 1_000_000), rng.normal(0, 1, 10_000_000)

    def seconds(task, repeats):  # best of a few: the least disturbed by other processes
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            result = task()
            times.append(time.perf_counter() - start)
        return min(times), result

    # A reference measured in the same run, on the same machine under the same load: one
    # sort of all the scores. The benchmark records the ratio; 8x catches a return to the
    # all-thresholds computation (10x) without failing on a busy machine.
    floor, _ = seconds(lambda: np.sort(np.concatenate([mated, nonmated])), 3)
    elapsed, report = seconds(lambda: bf.operating_summary(mated, nonmated), 2)
    assert elapsed < 8 * floor, f"operating_summary took {elapsed:.2f} s, {elapsed / floor:.1f}x one sort ({floor:.2f} s)"
    assert report["resolved"].all()
    # Normal classes 2 standard deviations apart: AUC = Phi(2 / sqrt(2)).
    expected = norm.cdf(2 / np.sqrt(2))
    assert report.set_index("metric").loc["roc_auc", "value"] == pytest.approx(expected, abs=2e-3)


# -- SPEC section 1: resolution of a target FMR ---------------------------------------------------
#
# The rule, as biofair evaluates it: a target ``fmr`` allows ``c`` false matches, the largest
# count with ``c / N <= fmr`` computed in IEEE double precision (the comparison the threshold
# rule makes between an achieved FMR and its target). Resolved iff ``c >= 3``, precise iff
# ``c >= 30``. For real numbers that is ``fmr·N >= 3`` and ``>= 30``; evaluated as ``3/N <= fmr``
# it does not depend on how the product ``fmr·N`` rounds.


def tmr_rows(nonmated_size: int, targets) -> pd.DataFrame:
    nonmated = np.arange(nonmated_size, dtype=float)  # distinct scores: k is the allowed count
    table = bf.operating_summary(np.array([nonmated_size / 2]), nonmated, fmr_targets=targets,
                                 pauc_bounds=[1.0], min_fmr=0.5)
    return table[table["metric"] == "tmr_at_fmr"].reset_index(drop=True)


@pytest.mark.parametrize("n", [100, 1000, 7200, 10_000, 123_457])
def test_rule_of_three_and_of_thirty_at_the_edges(n):
    targets = [2.9 / n, 3 / n, 29.9 / n, 30 / n]
    with pytest.warns(bf.InsufficientComparisonsWarning, match=rf"below 3/N .*\(N = {n} non-mated") as caught:
        rows = tmr_rows(n, targets)
    assert len(caught) == 1 and f"{2.9 / n:g}" in str(caught[0].message)  # only 2.9/N warns
    assert rows["resolved"].tolist() == [False, True, True, True]
    assert rows["precise"].tolist() == [False, False, False, True]
    assert rows["k"].tolist() == [2, 3, 29, 30]


def test_the_rule_does_not_depend_on_how_fmr_times_n_rounds():
    n, target = 10_000, 3e-4
    assert target * n < 3  # 2.9999999999999996 in floating point ...
    rows = tmr_rows(n, [target])  # ... yet 3e-4 is the FMR of 3 false matches: no warning
    assert rows["resolved"].item() and rows["k"].item() == 3
    below = np.nextafter(3 / n, 0)
    with pytest.warns(bf.InsufficientComparisonsWarning,
                      match=r"\(N = 10000 non-mated comparisons\): it allows fewer than 3 false matches"):
        assert not tmr_rows(n, [below])["resolved"].item()


@given(st.integers(3, 10**7))
@settings(max_examples=300, deadline=None)
def test_resolution_matches_exact_counting(n):
    for count in (3, 30):
        at = count / n  # the FMR of `count` false matches, in floating point
        resolved, precise = resolution([at, np.nextafter(at, 0)], n)
        flags = resolved if count == 3 else precise
        assert flags.tolist() == [True, False]
        # the allowed count agrees with exact rational arithmetic on the float target
        allowed = allowed_false_matches(np.array([at]), n)[0]
        assert Fraction(int(allowed), n) <= Fraction(at) < Fraction(int(allowed) + 1, n) or allowed / n <= at


def test_every_table_at_targets_carries_k_resolved_and_precise():
    table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=500, n_nonmated=1_000, rng=3)
    targets = [1e-1, 1e-2, 1e-3]  # 3,000 pooled non-mated scores: 300, 30 and 3 false matches
    fdr = bf.fairness_discrepancy_rate(table, fmr_targets=targets)
    pooled = np.sort(table.loc[~table["mated"], "score"].to_numpy())
    for row in fdr.itertuples():
        assert row.k == sum(score >= row.threshold for score in pooled)  # counted one by one
    assert fdr["k"].tolist() == [300, 30, 3]
    assert fdr["resolved"].all() and fdr["precise"].tolist() == [True, True, False]
    with pytest.warns(bf.InsufficientComparisonsWarning, match="N = 3000"):
        below = bf.fairness_discrepancy_rate(table, fmr_targets=[9e-4])
    assert below[["k", "resolved", "precise"]].values.tolist() == [[2, False, False]]


# -- fairness_summary -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def example():
    table = bf.read_grouped_scores(bf.datasets.example_scores_path())
    return table, bf.fairness_summary(table, n_resamples=40, n_permutations=12, rng=5)


def test_fairness_summary_rows_equal_the_individual_functions(example):
    table, summary = example
    mated, nonmated = bf.split_scores(table)
    one = summary.set_index(["metric", "fmr_target"], drop=False)
    nan = np.nan
    assert one.loc[("roc_auc", nan), "value"] == bf.roc_auc(mated, nonmated)
    assert one.loc[("eer", nan), "value"] == bf.eer(mated, nonmated).eer
    for target in (1e-1, 1e-2, 1e-3):
        assert one.loc[("tmr_at_fmr", target), "value"] == bf.tmr_at_fmr(mated, nonmated, target)
    fdr = bf.fairness_discrepancy_rate(table, fmr_targets=[1e-1, 1e-2, 1e-3])
    rows = summary[summary["metric"] == "fdr"]
    assert rows["value"].tolist() == fdr["fdr"].tolist()
    assert rows[["k", "resolved", "precise"]].values.tolist() == fdr[["k", "resolved", "precise"]].values.tolist()
    outcome = bf.outcome_fairness(table, fmr=1e-2)
    assert one.loc[("garbe_fnmr", 1e-2), "value"] == outcome.garbe_fnmr
    assert one.loc[("inequity_fmr", 1e-2), "threshold"] == outcome.threshold
    assert one.loc[("dfi_extreme", nan), "value"] == bf.distribution_fairness_index(table).extreme
    assert one.loc[("cei_auto_extreme_nonmated", nan), "value"] == bf.automatic_comprehensive_equity_index(
        table, kind="nonmated").extreme
    assert one.loc[("cei_extreme_mated", nan), "value"] == bf.comprehensive_equity_index(table).extreme
    assert list(summary.columns) == ["metric", "attribute", "fmr_target", "value", "low", "high", "unit",
                                     "n_resamples", "threshold", "k", "resolved", "precise", "parameters"]


def test_the_fdr_area_is_marked_as_its_least_resolved_target(example):
    """SPEC section 1 (mark unresolved rows in every table): the FDR area ran over an
    unresolved target with its resolved mark empty (an audit of the report). It is resolved
    (precise) only when every target's FDR row is: on the example 1e-3 is resolved but not
    precise, 1e-4 neither."""
    table, summary = example
    fdr = summary[summary["metric"] == "fdr"]
    area = summary.set_index("metric").loc["area_under_fdr_log10"]
    assert fdr["resolved"].all() and not fdr["precise"].all()
    assert [area["resolved"], area["precise"]] == [True, False]  # NA (the old empty mark) equals neither
    n_nonmated = int((~table["mated"]).sum())
    with pytest.warns(bf.InsufficientComparisonsWarning, match=rf"^target FMR 0\.0001 is below 3/N = {3 / n_nonmated:.3g} "
                                                              rf"\(N = {n_nonmated} non-mated comparisons\)"):
        stricter = bf.fairness_summary(table, fmr_targets=[1e-1, 1e-4], n_resamples=40, n_permutations=12, rng=5)
    fdr = stricter[stricter["metric"] == "fdr"].set_index("fmr_target")
    assert fdr.loc[1e-1, "resolved"] and not fdr.loc[1e-4, "resolved"]
    area = stricter.set_index("metric").loc["area_under_fdr_log10"]
    assert [area["resolved"], area["precise"]] == [False, False]


def test_fairness_summary_names_the_settings_of_every_index(example):
    """SPEC sections 4 and 5: the FDR area's FMR range, and every parameter of DFI, CEI and
    CEIᴬ (bins, split percentiles, weights, N), stand next to the value (a helper's audit
    found none in the table)."""
    table, summary = example
    settings = summary.set_index("metric")["parameters"]
    targets = summary.loc[summary["metric"] == "fdr", "fmr_target"]
    assert settings["area_under_fdr_log10"] == (f"fmr_range={targets.min():g} ... {targets.max():g}, scale=log10, "
                                                "alpha=0.5, optimistic=True")
    assert settings["cei_extreme_mated"] == "percentile=95, tail_weight=0.8, bins=100, mean_tail=groups"
    assert settings["dfi_extreme"] == "bins=100, combine=pooled"
    automatic = bf.automatic_comprehensive_equity_index(table, kind="nonmated").parameters
    shown = ", ".join(f"{group}: {value:.4g}" for group, value in automatic["percentiles"].items())
    assert settings["cei_auto_extreme_nonmated"] == (f"n_std=3, bins=100, percentiles=({shown}), "
                                                     f"tail_weight={automatic['tail_weight']:.4g}")
    assert settings["eer"] == "method=rocch" and settings["min_dcf"] == "p_target=0.01, c_miss=1, c_fa=1"
    assert settings["cei_extreme_mated_p_value"] == "n_permutations=12, unit=subject, alternative=less"
    assert settings["roc_auc"] == "" and (settings["tmr_at_fmr"] == "").all()
    assert (settings["fdr"] == "alpha=0.5, optimistic=True").all()


def test_fairness_summary_flags_its_fdr_rows_optimistic(example):
    """SPEC section 4: FDR's thresholds are set on the development split and its rates read
    on the evaluation split, "same split when there is none, flagged as optimistic". The
    summary has no development split: its thresholds are the ones
    ``fairness_discrepancy_rate(table)`` sets on the table itself, whose ``optimistic``
    column is True on every row; the summary's FDR rows and their area said only
    ``alpha=0.5``, so nothing in the table (or in ``biofair report``) told the reader."""
    table, summary = example
    targets = summary.loc[summary["metric"] == "fdr", "fmr_target"].to_numpy()
    same_scores = bf.fairness_discrepancy_rate(table, fmr_targets=targets)
    assert same_scores["optimistic"].all()
    fdr = summary[summary["metric"] == "fdr"]
    np.testing.assert_array_equal(fdr["threshold"], same_scores["threshold"])  # the very thresholds flagged there
    for metric in ("fdr", "area_under_fdr_log10"):
        settings = summary.loc[summary["metric"] == metric, "parameters"]
        assert settings.str.split(", ").map(lambda parts: "optimistic=True" in parts).all(), (metric, settings)


def test_fairness_summary_names_the_groups_whose_zero_rates_inequity_replaced():
    """SPEC section 4, Inequity: a zero rate is replaced by its 95% upper bound, "Report which
    groups were replaced". The summary's rows said only ``zero=upper_bound`` (the names were in
    a warning alone). By a loop: at the one threshold for FMR = 0.01, every group of this
    system has FNMR 0 and a non-zero FMR, so the FNMR row names all three and the FMR row none."""
    table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=300, n_nonmated=2_000, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.UndefinedRateWarning)
        summary = bf.fairness_summary(table, n_resamples=40, n_permutations=10, rng=0)
    rows = summary.set_index("metric")
    threshold = rows.loc["inequity_fnmr", "threshold"]
    zero = {"fmr": [], "fnmr": []}
    for name, group in table.groupby("group", observed=True):
        mated, nonmated = group.loc[group["mated"], "score"], group.loc[~group["mated"], "score"]
        if not (nonmated >= threshold).any():
            zero["fmr"].append(str(name))
        if not (mated < threshold).any():
            zero["fnmr"].append(str(name))
    assert zero == {"fmr": [], "fnmr": ["0", "1", "2"]}
    assert rows.loc["inequity_fnmr", "parameters"] == "zero=upper_bound, replaced=(0, 1, 2)"
    assert rows.loc["inequity_fmr", "parameters"] == "zero=upper_bound"


def test_fairness_summary_resamples_subjects_and_marks_what_it_resampled(example):
    table, summary = example
    resampled = summary.dropna(subset=["low"])
    # the FDR area and CEI are read against their permutation nulls, never given a
    # (downward-biased) bootstrap interval
    assert set(resampled["metric"]) == {"roc_auc", "eer", "tmr_at_fmr"}
    indices = ["area_under_fdr_log10", "cei_extreme_mated", "cei_extreme_nonmated"]
    unresampled = summary.set_index("metric").loc[indices]
    assert unresampled["low"].isna().all() and unresampled["value"].notna().all()
    nulls = summary.set_index("metric").loc[[f"{name}_{row}" for name in indices for row in ("null_mean", "p_value")]]
    assert nulls["value"].between(0, 1).all()
    assert set(resampled["unit"]) == {"subject"} and (resampled["n_resamples"] == 40).all()
    assert (resampled["low"] <= resampled["high"]).all()
    assert summary.loc[summary["low"].isna(), ["unit", "n_resamples"]].isna().all().all()
    system = summary[summary["attribute"].isna()]
    assert set(summary["attribute"].dropna()) == {"group"}
    assert system["metric"].tolist() == bf.operating_summary(
        *bf.split_scores(table), fmr_targets=[1e-1, 1e-2, 1e-3], pauc_bounds=[1e-1, 1e-2, 1e-3],
        min_fmr=1e-3)["metric"].tolist()


def test_fairness_summary_reads_one_set_of_permutations_for_its_three_nulls(example, monkeypatch):
    """The three nulls (the FDR area, both CEIs) read the same permutations, each permuted table
    grouped once (a null each shuffled and grouped three times as often): each null is the one
    permutation_null gives its statistic alone, with the same seed. The permuted tables come
    from the table ordered by score, labels as categories, which is grouped without a sort or a
    factorization (5x faster per permutation at 1.1e6 rows). Shuffled by subject (the example
    has subjects), the nulls are those of the table as it is, to the bit."""
    table, summary = example
    real, seen = summaries._nulls, []

    def spy(statistics, shuffled, observed, **options):
        seen.append((statistics, observed, options))
        return real(statistics, shuffled, observed, **options)

    monkeypatch.setattr(summaries, "_nulls", spy)
    pd.testing.assert_frame_equal(bf.fairness_summary(table, n_resamples=40, n_permutations=12, rng=5), summary)
    (statistics, observed, options), = seen
    assert list(statistics) == ["area_under_fdr_log10", "cei_extreme_mated", "cei_extreme_nonmated"]
    for name in statistics:  # the observed values are the summary's estimates, not computed again
        assert observed[name] == summary.set_index("metric").loc[name, "value"]
    ordered = summaries._ordered_for_grouping(table, "group")
    assert ordered["score"].is_monotonic_increasing and isinstance(ordered["group"].dtype, pd.CategoricalDtype)
    assert sorted(ordered.index) == list(table.index)
    plan = _shuffle_plan(ordered, "group", "reference_subject")
    shared = real(statistics, plan.read_as(bf.scores_by_group), observed,
                  **{**options, "rng": np.random.default_rng(7)})
    for name, statistic in statistics.items():
        for source in (ordered, table):
            alone = bf.permutation_null(lambda t: statistic(bf.scores_by_group(t)), source, n_permutations=12, rng=7)
            np.testing.assert_array_equal(alone.null, shared[name].null)
    # and the whole summary is the one of the table as it is
    monkeypatch.setattr(summaries, "_ordered_for_grouping", lambda scores, by: scores)
    pd.testing.assert_frame_equal(bf.fairness_summary(table, n_resamples=40, n_permutations=12, rng=5), summary)


def test_fairness_summary_is_seeded(example):
    table, summary = example
    again = bf.fairness_summary(table, n_resamples=40, n_permutations=12, rng=5)
    pd.testing.assert_frame_equal(summary, again)


def test_fairness_summary_with_one_target_and_pair_unit():
    table = bf.synthetic.fdr_canonical_system(fair=False, n_mated=300, n_nonmated=3_000, rng=1)
    with pytest.warns(bf.UndefinedRateWarning, match=r"FNMR of groups \['0', '1', '2'\]"):  # no false non-match
        summary = bf.fairness_summary(table, fmr_targets=[1e-2], n_resamples=40, n_permutations=5, rng=0)
    assert "area_under_fdr_log10" not in set(summary["metric"])  # an area needs two targets
    assert set(summary["unit"].dropna()) == {"pair"}  # no subject column


def test_identical_groups_have_a_perfect_fdr_area_and_nothing_to_reject():
    """Three copies of one group (each with its own subjects): the area is 1, and its
    bootstrap interval was [0.917, 0.973], which excludes it."""
    one = bf.read_grouped_scores(bf.datasets.example_scores_path()).query("group == group.iloc[0]")
    copies = pd.concat([one.assign(group=name, reference_subject=name + one["reference_subject"].astype(str),
                                   probe_subject=name + one["probe_subject"].astype(str)) for name in "xyz"],
                       ignore_index=True)
    summary = bf.fairness_summary(copies, fmr_targets=[1e-1, 1e-2], n_resamples=40, n_permutations=20, rng=0)
    rows = summary.set_index("metric")
    assert rows.loc["area_under_fdr_log10", "value"] == 1.0 and np.isnan(rows.loc["area_under_fdr_log10", "low"])
    assert rows.loc["area_under_fdr_log10_null_mean", "value"] <= 1.0
    assert rows.loc["area_under_fdr_log10_p_value", "value"] == 1.0  # no permutation is fairer than identical


@pytest.mark.filterwarnings("error")
def test_cei_auto_rows_are_unresolved_when_a_group_tail_is_empty():
    """The example's mated scores: no group has one below mu - 3 sigma, so CEIᴬ compares each
    group's lowest score alone. The row says so (resolved=False) instead of warning; the
    non-mated tails hold scores (resolved=True)."""
    table = bf.read_scores(bf.datasets.example_scores_path())
    summary = bf.fairness_summary(table, n_resamples=40, n_permutations=10, rng=0).set_index("metric")
    assert summary.loc[["cei_auto_extreme_mated", "cei_auto_extreme_nonmated"], "resolved"].tolist() == [False, True]
    with pytest.warns(bf.InsufficientComparisonsWarning, match="CEIᴬ: no mated score"):
        direct = bf.automatic_comprehensive_equity_index(table, kind="mated")
    assert summary.loc["cei_auto_extreme_mated", "value"] == direct.extreme


@pytest.mark.parametrize("options, error, message", [
    ({"by": 3}, TypeError, "by must be a column name"),
    ({"by": "gender"}, bf.SchemaError, "no group column for 'gender'"),
    ({"alpha": 2}, ValueError, r"alpha must lie in \[0, 1\]"),
    ({"operating_fmr": 1.5}, ValueError, r"operating_fmr must lie in \[0, 1\]"),
])
def test_fairness_summary_checks_its_options_before_any_bootstrap(monkeypatch, options, error, message):
    """by=3 gave Python's 'can only join an iterable', and a wrong alpha or operating_fmr (named
    'fmr') was found only after the bootstraps, minutes into a large table."""
    import biofair.summaries

    def no_bootstrap(*args, **kwargs):
        raise AssertionError("a bootstrap ran before the options were checked")

    monkeypatch.setattr(biofair.summaries, "bootstrap", no_bootstrap)
    table = bf.read_scores(bf.datasets.example_scores_path())
    with pytest.raises(error, match=message):
        bf.fairness_summary(table, n_resamples=40, n_permutations=10, **options)
    with pytest.raises(TypeError, match="scores must be a score table"):
        bf.fairness_summary(table.to_dict("list"))


def test_fairness_summary_checks_that_its_nulls_can_shuffle_the_labels_before_any_bootstrap(monkeypatch):
    """Per-side group labels without subjects (or with unit='pair'), and a subject with two
    labels, stopped the nulls at the end, after every bootstrap (9 s at 70,000 comparisons)."""
    import biofair.summaries

    def no_bootstrap(*args, **kwargs):
        raise AssertionError("a bootstrap ran before the labels were checked")

    monkeypatch.setattr(biofair.summaries, "bootstrap", no_bootstrap)
    per_side = "per-side group columns ['reference_group'] can only be shuffled by subject"
    without_subjects = bf.synthetic.fdr_cross_group_system(n_mated=200, n_nonmated=2_000, rng=0)
    with pytest.raises(ValueError, match="^" + re.escape(per_side)):
        bf.fairness_summary(without_subjects, n_resamples=40, n_permutations=10)
    demographic = bf.synthetic.demographic_scores(rng=0)
    with pytest.raises(ValueError, match="^" + re.escape(per_side)):
        bf.fairness_summary(demographic, unit="pair", n_resamples=40, n_permutations=10)
    table = bf.read_scores(bf.datasets.example_scores_path())
    subject = table["reference_subject"].iloc[0]
    torn = table.assign(group=table["group"].where(
        (table["reference_subject"] != subject) | (np.arange(len(table)) % 2 == 0),
        np.where(table["group"] == "A", "B", "A")))
    with pytest.raises(ValueError, match="^1 subject has comparisons with different labels in column"):
        bf.fairness_summary(torn, n_resamples=40, n_permutations=10)


def test_a_target_given_twice_is_bootstrapped_once(monkeypatch):
    """Targets may repeat (a row each, in the order given), but the TMR at 0.1 of [0.1, 0.01,
    0.1] was bootstrapped twice and one interval kept for both rows (a summaries audit)."""
    import biofair.summaries

    calls = []

    def counted(statistic, *args, **kwargs):
        calls.append((statistic.__name__, kwargs.get("args")))
        return bf.bootstrap(statistic, *args, **kwargs)

    monkeypatch.setattr(biofair.summaries, "bootstrap", counted)
    table = bf.read_scores(bf.datasets.example_scores_path())
    summary = bf.fairness_summary(table, fmr_targets=[0.1, 0.01, 0.1], n_resamples=40, n_permutations=5, rng=0)
    assert calls == [("roc_auc", None), ("_eer_value", None), ("tmr_at_fmr", (0.1,)), ("tmr_at_fmr", (0.01,))]
    tmr = summary[summary["metric"] == "tmr_at_fmr"]
    assert tmr["fmr_target"].tolist() == [0.1, 0.01, 0.1]
    assert tmr.iloc[0][["value", "low", "high"]].tolist() == tmr.iloc[2][["value", "low", "high"]].tolist()


def test_operating_summary_refuses_min_fmr_of_one_in_its_own_words():
    """The message named a max_fmr that operating_summary does not have."""
    mated, nonmated = np.array([1.0, 2.0, 3.0]), np.array([0.0, 0.5, 1.5, 2.5])
    with pytest.raises(ValueError, match=r"^min_fmr must be below 1: the log-FMR area runs from min_fmr to FMR = 1"):
        bf.operating_summary(mated, nonmated, fmr_targets=[0.5], pauc_bounds=[0.5], min_fmr=1)


def test_the_null_rows_say_how_many_nonmated_pairs_the_shuffles_kept_within_groups():
    """Labels per side, every non-mated pair within its group: the nulls' shuffles turn about
    half of them cross-group, which the null rows' settings say (the shares of the nulls, one set
    of permutations for the three) and a PermutationNullWarning too; chapter 13 computed the
    shares by hand. With one label per comparison both are 1 and the settings leave them out."""
    table = bf.synthetic.demographic_scores(groups={"a": (20, 2.0, 1.0), "b": (20, 2.5, 1.0)}, rng=0)
    table = table[table["reference_group"] == table["probe_group"]]
    with pytest.warns(bf.PermutationNullWarning, match="against 100.0% in the table") as caught:
        summary = bf.fairness_summary(table, fmr_targets=[0.1, 0.01], n_resamples=40, n_permutations=12, rng=0,
                                      progress_bar=False)
    assert sum(issubclass(w.category, bf.PermutationNullWarning) for w in caught) == 1  # once for the three nulls
    nulls = summary[summary["metric"].str.endswith(("_null_mean", "_p_value"))]
    assert len(nulls) == 6
    shares = nulls["parameters"].str.extract(r"nonmated_within=\(table: ([\d.]+), shuffled: ([\d.]+)\)").astype(float)
    assert (shares[0] == 1).all() and shares[1].nunique() == 1 and 0.4 < shares[1].iloc[0] < 0.6
    said = re.search(r"leave ([\d.]+)% of", str(caught[0].message)).group(1)
    assert float(said) == pytest.approx(100 * shares[1].iloc[0], abs=0.05)
    pair_level = table.drop(columns="probe_group").rename(columns={"reference_group": "group"})
    with warnings.catch_warnings():
        warnings.simplefilter("error", bf.PermutationNullWarning)
        again = bf.fairness_summary(pair_level, fmr_targets=[0.1, 0.01], n_resamples=40, n_permutations=12, rng=0,
                                    progress_bar=False)
    assert not again["parameters"].str.contains("nonmated_within").any()
    null_rows = again["metric"].str.endswith("_null_mean")
    assert again.loc[null_rows, "parameters"].eq("n_permutations=12, unit=subject").all()
