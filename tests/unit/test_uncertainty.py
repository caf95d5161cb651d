"""Bootstrap intervals, paired comparisons and permutation nulls."""

from __future__ import annotations

import warnings
from contextlib import nullcontext

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.stats import norm

import biofair as bf
from biofair._counts import mated_counts_sorted
from biofair._fast_tmr import subject_replicates
from biofair._resampling import Sample
from biofair.areas import _roc_auc_from_counts
from biofair.equal_error_rate import _rocch_eer_value
from biofair.summaries import _eer_value
from biofair.synthetic import beta_scenario


def test_fast_tmr_path_has_the_law_of_the_plain_bootstrap():
    rng = np.random.default_rng(0)
    mated, nonmated = np.round(rng.normal(2.5, 1, 2000), 2), np.round(rng.normal(0, 1, 20000), 2)
    fast = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(1e-2,), n_resamples=3000, rng=1)
    plain = bf.bootstrap(lambda m, n: bf.tmr_at_fmr(m, n, 1e-2), (mated, nonmated), n_resamples=3000, rng=2)
    assert fast.estimate == plain.estimate == bf.tmr_at_fmr(mated, nonmated, 1e-2)
    assert fast.low == pytest.approx(plain.low, abs=0.004)
    assert fast.high == pytest.approx(plain.high, abs=0.004)
    assert fast.replicates.std() == pytest.approx(plain.replicates.std(), rel=0.08)
    assert stats.ks_2samp(fast.replicates, plain.replicates).pvalue > 1e-3


@settings(max_examples=200, deadline=None)
@given(
    mated=st.lists(st.integers(0, 6), min_size=1, max_size=12),
    nonmated=st.lists(st.integers(0, 6), min_size=1, max_size=12),
    data=st.data(),
)
def test_weighted_counts_are_the_counts_of_the_repeated_scores(mated, nonmated, data):
    """A resample that repeats each sorted score w times: its area and ROCCH EER read from
    cumulative weights equal those of the repeated scores themselves (ties, weights of 0)."""
    mated, nonmated = np.sort(np.array(mated, float) / 4), np.sort(np.array(nonmated, float) / 4)
    weights = [np.array(data.draw(st.lists(st.integers(0, 3), min_size=scores.size, max_size=scores.size)
                                  .filter(lambda w: sum(w) > 0))) for scores in (mated, nonmated)]
    counts = mated_counts_sorted(mated, nonmated).weighted(*weights)
    repeated = [np.repeat(scores, w) for scores, w in zip((mated, nonmated), weights)]
    assert _roc_auc_from_counts(counts) == bf.roc_auc(*repeated)
    assert _rocch_eer_value(counts) == pytest.approx(bf.eer(*repeated).eer, abs=1e-12)


@pytest.mark.parametrize("unit", ["pair", "subject"])
def test_fast_roc_paths_give_the_plain_replicates_of_the_same_seed(unit, monkeypatch):
    """roc_auc and the summary's EER declare a fast path with the plain path's draws: the
    same seed gives the same replicates (tied scores)."""
    table = clustered_table(np.random.default_rng(4), n_subjects=30)
    table["score"] = table["score"].round(1)
    plain_replicates = Sample.replicates
    for statistic in (bf.roc_auc, _eer_value):
        plain = bf.bootstrap(lambda m, n, statistic=statistic: statistic(m, n), table, unit=unit, n_resamples=100, rng=7)
        with monkeypatch.context() as patch:  # the fast path evaluates no resample
            patch.setattr(Sample, "replicates", lambda *args, **kwargs: pytest.fail("the plain path was taken"))
            fast = bf.bootstrap(statistic, table, unit=unit, n_resamples=100, rng=7)
        assert Sample.replicates is plain_replicates
        np.testing.assert_allclose(fast.replicates, plain.replicates, rtol=0, atol=1e-14)
        assert np.unique(fast.replicates).size > 10 and (fast.low, fast.high) == (plain.low, plain.high)


def test_fast_roc_path_says_when_a_cluster_resample_draws_no_comparison_of_a_class():
    table = pd.DataFrame({"score": [0.9, 0.8, 0.1, 0.2, 0.3, 0.7], "mated": [True, True, False, False, False, True],
                          "reference_subject": ["a", "a", "b", "b", "b", "c"]})
    with pytest.raises(ValueError, match="a cluster resample drew no non-mated comparison; use unit='pair'"):
        bf.bootstrap(bf.roc_auc, table, unit="subject", n_resamples=40, rng=0)


def test_fast_tmr_path_at_small_n_takes_every_score_in_the_top_block():
    rng = np.random.default_rng(5)
    mated, nonmated = rng.normal(1, 1, 50), rng.normal(0, 1, 60)
    result = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(0.1,), n_resamples=500, rng=3)
    plain = bf.bootstrap(lambda m, n: bf.tmr_at_fmr(m, n, 0.1), (mated, nonmated), n_resamples=500, rng=3)
    assert abs(result.replicates.mean() - plain.replicates.mean()) < 0.02


@pytest.mark.parametrize("fmr", [1e-1, 1e-2])
def test_tmr_interval_coverage(fmr):
    """95% intervals cover the closed-form TMR in roughly 90-98% of repetitions."""
    shift = 2.0
    truth = norm.sf(norm.isf(fmr) - shift)  # TMR of N(2, 1) against N(0, 1) at FMR = fmr
    rng = np.random.default_rng(42)
    covered = []
    for _ in range(300):
        mated, nonmated = rng.normal(shift, 1, 400), rng.normal(0, 1, 4000)
        result = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(fmr,), n_resamples=400, rng=rng)
        covered.append(result.low <= truth <= result.high)
    assert 0.90 <= np.mean(covered) <= 0.98


def test_auc_interval_coverage_by_the_plain_path():
    truth = norm.cdf(1.0 / np.sqrt(2))  # AUC of N(1, 1) against N(0, 1)
    rng = np.random.default_rng(7)
    covered = []
    for _ in range(150):
        mated, nonmated = rng.normal(1, 1, 60), rng.normal(0, 1, 200)
        result = bf.bootstrap(bf.roc_auc, (mated, nonmated), n_resamples=200, rng=rng)
        covered.append(result.low <= truth <= result.high)
    assert 0.88 <= np.mean(covered) <= 0.99


def clustered_table(rng, n_subjects=60, effect=1.0):
    """Each subject shifts all its scores by a random effect: pairs are not independent."""
    rows = []
    for subject in range(n_subjects):
        offset = rng.normal(0, effect)
        for _ in range(10):
            rows.append((offset + rng.normal(2, 0.5), True, subject, subject))
        for other in rng.choice(np.delete(np.arange(n_subjects), subject), 40):
            rows.append((offset + rng.normal(0, 0.5), False, subject, int(other)))
    return pd.DataFrame(rows, columns=["score", "mated", "reference_subject", "probe_subject"])


def test_subject_clustered_interval_is_wider_with_subject_effects():
    table = clustered_table(np.random.default_rng(3))
    pair = bf.bootstrap(bf.roc_auc, table, n_resamples=400, unit="pair", rng=1)
    subject = bf.bootstrap(bf.roc_auc, table, n_resamples=400, unit="subject", rng=1)
    assert pair.estimate == subject.estimate
    assert subject.high - subject.low > 1.5 * (pair.high - pair.low)
    assert (subject.unit, pair.unit) == ("subject", "pair")
    # a table that names its subjects is resampled by subject unless told otherwise (pairs,
    # taken as independent, gave 95% intervals that held the truth in 62-69% of simulations)
    by_default = bf.bootstrap(bf.roc_auc, table, n_resamples=400, rng=1)
    assert by_default.unit == "subject" and np.array_equal(by_default.replicates, subject.replicates)
    without_subjects = bf.bootstrap(bf.roc_auc, table.drop(columns="reference_subject"), n_resamples=400, rng=1)
    assert without_subjects.unit == "pair" and np.array_equal(without_subjects.replicates, pair.replicates)
    assert bf.bootstrap(bf.roc_auc, bf.split_scores(table), n_resamples=40, rng=1).unit == "pair"
    paired = bf.paired_bootstrap(bf.roc_auc, table, table.assign(score=table["score"] * 2), n_resamples=40, rng=1)
    assert paired.unit == "subject"


def test_seeded_runs_are_bit_for_bit_reproducible():
    table = clustered_table(np.random.default_rng(4), n_subjects=20)
    for kwargs in ({}, {"unit": "subject"}):
        first = bf.bootstrap(bf.roc_auc, table, n_resamples=50, rng=9, **kwargs)
        second = bf.bootstrap(bf.roc_auc, table, n_resamples=50, rng=9, **kwargs)
        np.testing.assert_array_equal(first.replicates, second.replicates)
    mated, nonmated = bf.split_scores(table)
    fast = [bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(0.05,), n_resamples=50, rng=9).replicates
            for _ in range(2)]
    np.testing.assert_array_equal(*fast)
    paired = [bf.paired_bootstrap(bf.roc_auc, table, table.assign(score=table["score"] ** 3), n_resamples=40, rng=2).replicates for _ in range(2)]
    np.testing.assert_array_equal(*paired)


def test_a_statistic_that_sorts_in_place_changes_neither_the_callers_arrays_nor_the_draws():
    """The statistic on all the data once got the caller's arrays (or the cached classes that
    resamples are drawn from): sorting them in place sorted the caller's scores and gave other
    replicates than the same statistic without the side effect."""
    def middle_gap(mated, nonmated):  # exact whatever the order, unlike a sum
        return float(np.sort(mated)[mated.size // 2] - np.sort(nonmated)[nonmated.size // 2])

    def sorting_middle_gap(mated, nonmated):
        mated.sort()
        nonmated.sort()
        return float(mated[mated.size // 2] - nonmated[nonmated.size // 2])

    table = clustered_table(np.random.default_rng(4), n_subjects=20)
    mated, nonmated = bf.split_scores(table)
    given = mated[::-1].copy(), nonmated[::-1].copy()
    for scores in (table, given):
        for method in ("percentile", "bca"):
            expected = bf.bootstrap(middle_gap, scores, unit="pair", method=method, n_resamples=40, rng=3)
            got = bf.bootstrap(sorting_middle_gap, scores, unit="pair", method=method, n_resamples=40, rng=3)
            np.testing.assert_array_equal(got.replicates, expected.replicates)
            assert (got.low, got.high) == (expected.low, expected.high)
    np.testing.assert_array_equal(given[0], mated[::-1])
    np.testing.assert_array_equal(given[1], nonmated[::-1])
    paired = [bf.paired_bootstrap(statistic, given, given, n_resamples=40, rng=3).replicates
              for statistic in (middle_gap, sorting_middle_gap)]
    np.testing.assert_array_equal(*paired)
    np.testing.assert_array_equal(given[0], mated[::-1])


def test_subject_resamples_do_not_depend_on_the_rows_order():
    """Subjects were numbered by first appearance: one seed drew other subjects when the same
    file came in another row order (CSV against Parquet), and every interval moved."""
    table = bf.synthetic.demographic_scores(rng=0)
    shuffled = table.sample(frac=1, random_state=3)
    for statistic, args in ((bf.tmr_at_fmr, (1e-2,)), (bf.roc_auc, ())):
        found = [bf.bootstrap(statistic, t, args=args, unit="subject", n_resamples=60, rng=9).replicates
                 for t in (table, shuffled)]
        np.testing.assert_array_equal(*found)
    audits = [bf.differential_report(t, by="group", fmr=1e-2, n_resamples=40, rng=9).to_frame()
              for t in (table, shuffled)]
    pd.testing.assert_frame_equal(*audits)

    def fdr(t):
        return bf.fairness_discrepancy_rate(t, by="group", fmr_targets=[1e-2])["fdr"].iloc[0]

    nulls = [bf.permutation_null(fdr, t, by="group", n_permutations=19, rng=9).null for t in (table, shuffled)]
    np.testing.assert_array_equal(*nulls)


def test_pair_resamples_read_by_class_are_the_rows_a_table_statistic_gets():
    """A statistic of arrays reads each pair resample as positions within the two classes,
    a statistic of tables as rows: the same draws, so the same replicates, for one system
    and for two (paired), and for arrays given as a table or as (mated, nonmated)."""
    table = clustered_table(np.random.default_rng(5), n_subjects=30).sample(frac=1.0, random_state=1)
    arrays = bf.split_scores(table)

    def auc_of_table(t):
        return bf.roc_auc(*bf.split_scores(t))

    rows = bf.bootstrap(auc_of_table, table, data="table", n_resamples=40, unit="pair", rng=3).replicates
    for scores in (table, arrays):
        np.testing.assert_array_equal(bf.bootstrap(bf.roc_auc, scores, n_resamples=40, unit="pair", rng=3).replicates,
                                      rows)
    other = table.assign(score=table["score"] + np.random.default_rng(6).normal(0, 0.5, len(table)))
    paired_rows = bf.paired_bootstrap(auc_of_table, table, other, data="table", n_resamples=40, unit="pair",
                                      rng=4).replicates
    paired = bf.paired_bootstrap(bf.roc_auc, table, other, n_resamples=40, unit="pair", rng=4).replicates
    np.testing.assert_array_equal(paired, paired_rows)
    assert np.ptp(paired) > 0


def test_table_metrics_and_confidence_levels():
    table = clustered_table(np.random.default_rng(6), n_subjects=15)
    metric = lambda t: bf.roc_auc(*bf.split_scores(t))  # noqa: E731 - a metric on a table
    narrow = bf.bootstrap(metric, table, data="table", n_resamples=300, confidence=0.5, rng=1)
    wide = bf.bootstrap(metric, table, data="table", n_resamples=300, confidence=0.99, rng=1)
    assert wide.low <= narrow.low <= narrow.estimate <= narrow.high <= wide.high
    assert (narrow.low, narrow.high) == tuple(np.percentile(narrow.replicates, [25, 75]))


def two_systems(seed=0, n_mated=2000, n_nonmated=40000):
    """A: normal scores. B: separates the classes more, but with look-alike impostors."""
    rng = np.random.default_rng(seed)
    labels = np.repeat([True, False], [n_mated, n_nonmated])
    a = np.concatenate([rng.normal(3.0, 1, n_mated), rng.normal(0, 1, n_nonmated)])
    tail = rng.random(n_nonmated) < 0.01
    b = np.concatenate([rng.normal(3.6, 1, n_mated), rng.normal(np.where(tail, 3.5, 0.0), 1)])
    return pd.DataFrame({"score": a, "mated": labels}), pd.DataFrame({"score": b, "mated": labels})


def test_paired_identical_systems_give_zero():
    a, _ = two_systems(n_nonmated=3000)
    result = bf.paired_bootstrap(bf.roc_auc, a, a.copy(), n_resamples=100, rng=0)
    assert (result.difference, result.low, result.high, result.p_greater) == (0.0, 0.0, 0.0, 0.0)
    assert not result.significant


def test_auc_and_low_fmr_tmr_disagree_as_a_ranking_flip():
    a, b = two_systems()
    comparisons = {
        "roc_auc": bf.paired_bootstrap(bf.roc_auc, a, b, n_resamples=200, rng=1),
        "tmr_at_fmr_1e-3": bf.paired_bootstrap(bf.tmr_at_fmr, a, b, args=(1e-3,), n_resamples=200, rng=1),
    }
    assert comparisons["roc_auc"].high < 0 and comparisons["roc_auc"].p_greater < 0.01
    assert comparisons["tmr_at_fmr_1e-3"].low > 0 and comparisons["tmr_at_fmr_1e-3"].p_greater > 0.99
    assert bf.ranking_flips(comparisons) == [("tmr_at_fmr_1e-3", "roc_auc")]
    # Orientation matters: B has the lower (better) EER, so EER prefers B as AUC does.
    eer = bf.paired_bootstrap(lambda m, n: bf.eer(m, n).eer, a, b, n_resamples=200, rng=1)
    assert eer.low > 0  # EER(A) - EER(B) > 0: A's EER is higher
    both = {"tmr": comparisons["tmr_at_fmr_1e-3"], "eer": eer}
    assert bf.ranking_flips(both, higher_is_better={"eer": False}) == [("tmr", "eer")]
    assert bf.ranking_flips(both) == []  # read as higher-is-better, the signs agree


def test_permutation_null_separates_bias_from_finite_sample_noise():
    index = lambda t: bf.comprehensive_equity_index(t, kind="mated").extreme  # noqa: E731
    balanced = beta_scenario("balanced", n_groups=3, n_mated=2000, n_nonmated=4000, rng=1)
    biased = beta_scenario("BG", n_groups=3, n_mated=2000, n_nonmated=4000, rng=1)
    fair = bf.permutation_null(index, balanced, n_permutations=60, rng=0)
    unfair = bf.permutation_null(index, biased, n_permutations=60, rng=0)
    assert fair.null.mean() < 1.0  # CEI is biased below 1 even without any group effect
    assert fair.p_value > 0.05
    assert unfair.p_value == 1 / 61 and unfair.observed < unfair.null.min()
    again = bf.permutation_null(index, biased, n_permutations=60, rng=0)
    np.testing.assert_array_equal(again.null, unfair.null)


def test_permutation_moves_whole_subjects():
    table = clustered_table(np.random.default_rng(8), n_subjects=12)
    subject_group = {s: "x" if s < 6 else "y" for s in range(12)}
    table["reference_group"] = table["reference_subject"].map(subject_group)
    table["probe_group"] = table["probe_subject"].map(subject_group)
    seen = []
    index = lambda t: seen.append(t) or bf.fairness_discrepancy_rate(t, fmr_targets=[0.1])["fdr"].item()  # noqa: E731
    bf.permutation_null(index, table, n_permutations=3, rng=0)
    for shuffled in seen[1:]:
        per_subject = shuffled.groupby("reference_subject")["reference_group"].nunique()
        assert (per_subject == 1).all()  # a subject's comparisons stay together
        # Every subject has 50 comparisons, so moving subjects keeps the group sizes.
        assert shuffled["reference_group"].value_counts().to_dict() == table["reference_group"].value_counts().to_dict()
        homogeneous = shuffled["reference_group"] == shuffled["probe_group"]
        assert homogeneous[shuffled["mated"]].all()  # mated pairs stay homogeneous
        # The probe side takes the new group of the probe subject, cross-group pairs included.
        new_group = shuffled.groupby("reference_subject")["reference_group"].first()
        assert (shuffled["probe_group"] == shuffled["probe_subject"].map(new_group)).all()
    with pytest.raises(ValueError, match="can only be shuffled by subject"):
        bf.permutation_null(index, table.drop(columns=["reference_subject"]), n_permutations=2)


def _probe_effect_trials(rng: np.random.Generator) -> pd.DataFrame:
    """40 subjects in two identical groups, each reference compared with 2 of its own images
    and 10 probes of its own group; a non-mated score carries its probe's effect (sd 1)."""
    n, groups = 40, np.repeat(["A", "B"], 20)
    effect = rng.normal(0, 1, n)
    mated_refs, nonmated_refs = np.repeat(np.arange(n), 2), np.repeat(np.arange(n), 10)
    probes = np.concatenate([rng.choice(np.flatnonzero((groups == groups[s]) & (np.arange(n) != s)), 10)
                             for s in range(n)])
    references, others = np.r_[mated_refs, nonmated_refs], np.r_[mated_refs, probes]
    return pd.DataFrame({
        "score": np.r_[2 + rng.normal(size=mated_refs.size), effect[probes] + rng.normal(size=probes.size)],
        "mated": np.repeat([True, False], [mated_refs.size, probes.size]),
        "reference_subject": references, "probe_subject": others,
        "reference_group": groups[references], "probe_group": groups[others],
    })


def _nonmated_mean_gap(table: pd.DataFrame, by) -> float:
    """|difference of the two groups' mean homogeneous non-mated score|."""
    sides = [by] if isinstance(by, str) else [f"reference_{by[0]}", f"probe_{by[0]}"]
    nonmated = table[~table["mated"]]
    means = [nonmated.loc[(nonmated[sides] == name).all(axis=1), "score"].mean() for name in ("A", "B")]
    return abs(means[0] - means[1])


def test_the_subject_null_is_too_narrow_with_pair_labels_and_probe_effects_and_valid_per_side():
    """permutation_null's Notes: with one label per comparison the label moves with the
    reference subject only, and a probe effect makes identical groups look different (a
    run of the audit that found it: 31-46% rejections at 5%); labels per side move with both subjects,
    and the shuffle turns about half the non-mated pairs, all within groups here, cross-group (said
    with a PermutationNullWarning: the test is valid, but its groups smaller than the table's)."""
    rng = np.random.default_rng(0)
    rejected = {"per comparison": 0, "per side": 0}
    for seed in range(100):
        trials = _probe_effect_trials(rng)
        pair_labels = trials.drop(columns=["probe_group"]).rename(columns={"reference_group": "group"})
        for name, table, by in (("per comparison", pair_labels, "group"), ("per side", trials, ["group"])):
            with pytest.warns(bf.PermutationNullWarning) if name == "per side" else nullcontext():
                null = bf.permutation_null(lambda t, by=by: _nonmated_mean_gap(t, by), table, by="group",
                                           unit="subject", n_permutations=39, alternative="greater", rng=seed)
            rejected[name] += null.p_value <= 0.05
    assert rejected["per comparison"] >= 20  # of 100 null data sets; 5 expected of a valid test
    assert rejected["per side"] <= 10


@pytest.mark.parametrize("dtype", ["category", "str", object])
@pytest.mark.parametrize(("per_side", "unit"), [(False, "pair"), (False, "subject"), (True, "subject")])  # per-side: by subject only
def test_permuted_tables_keep_the_labels_dtype_and_draw_the_same_labels(dtype, per_side, unit):
    """The labels are permuted as they are stored (categorical codes, Arrow text), which draws
    the same labels as permuting them as Python objects."""
    table = clustered_table(np.random.default_rng(5), n_subjects=12)
    subject_group = {s: "x" if s < 6 else "y" for s in range(12)}
    columns = ["reference_group", "probe_group"] if per_side else ["group"]
    for column, side in zip(columns, ["reference_subject", "probe_subject"]):
        table[column] = table[side].map(subject_group).astype(dtype)
    seen = []
    index = lambda t: seen.append(t) or bf.fairness_discrepancy_rate(t, fmr_targets=[0.1])["fdr"].item()  # noqa: E731
    stored = bf.permutation_null(index, table, n_permutations=4, rng=0, unit=unit)
    assert all(t[c].dtype == table[c].dtype for t in seen[1:] for c in columns)
    as_objects = table.astype({c: object for c in columns})
    objects = bf.permutation_null(index, as_objects, n_permutations=4, rng=0, unit=unit)
    np.testing.assert_array_equal(stored.null, objects.null)
    for kept, plain in zip(seen[1:5], seen[6:]):
        for c in columns:
            assert kept[c].astype(object).tolist() == plain[c].tolist()


def test_a_subject_seen_only_as_a_probe_swaps_labels_with_its_own_kind():
    """A pair-level attribute follows the reference subject, so a subject seen only as a
    probe has none to give: subjects are permuted among those with the same attributes, and
    no permuted table has a missing label (it had, and failed validation, when any subject
    could take any other's attributes)."""
    table = clustered_table(np.random.default_rng(6), n_subjects=12)
    nonmated = np.flatnonzero(~table["mated"].to_numpy())[:60]
    table.loc[nonmated, "probe_subject"] = 100 + np.arange(60) % 3  # three subjects seen only as probes
    table["group"] = np.where(table["reference_subject"] < 6, "x", "y")
    for side in ("reference", "probe"):
        table[f"{side}_age"] = np.where(table[f"{side}_subject"] % 2 == 0, "even", "odd")
    ghost_ages = sorted(table.loc[nonmated, ["probe_subject", "probe_age"]].drop_duplicates()["probe_age"])
    seen = []
    index = lambda t: seen.append(t) or bf.fairness_discrepancy_rate(  # noqa: E731
        t, by=["group", "age"], fmr_targets=[0.1])["fdr"].item()
    bf.permutation_null(index, table, by=["group", "age"], n_permutations=20, rng=0)
    for shuffled in seen[1:]:
        assert not shuffled[["group", "reference_age", "probe_age"]].isna().any().any()
        ghosts = shuffled.loc[shuffled["probe_subject"] >= 100, ["probe_subject", "probe_age"]].drop_duplicates()
        assert len(ghosts) == 3 and sorted(ghosts["probe_age"]) == ghost_ages  # the ghosts' ages, among them


def test_progress_bar_only_when_asked(capsys):
    mated, nonmated = np.arange(5.0), np.arange(10.0)
    bf.bootstrap(bf.roc_auc, (mated, nonmated), n_resamples=40, rng=0)
    assert capsys.readouterr().err == ""  # not a terminal: no bar
    bf.bootstrap(bf.roc_auc, (mated, nonmated), n_resamples=40, rng=0, progress_bar=True)
    assert "bootstrap" in capsys.readouterr().err
    scores = np.random.default_rng(0).normal(size=20_000)
    quiet = bf.subsample_coverage(scores, 2.5, fraction=0.05, n_repeats=3, rng=0)  # 30 s at 1e6 and 200 repeats
    assert capsys.readouterr().err == ""
    shown = bf.subsample_coverage(scores, 2.5, fraction=0.05, n_repeats=3, rng=0, progress_bar=True)
    assert "tail fits" in capsys.readouterr().err
    pd.testing.assert_frame_equal(quiet, shown)


def test_bad_input_is_named():
    data = (np.arange(5.0), np.arange(10.0))
    with pytest.raises(ValueError, match="^unit must be 'pair', 'subject' or None, got 'row'$"):
        bf.bootstrap(bf.roc_auc, data, unit="row", n_resamples=40)
    with pytest.raises(ValueError, match="confidence must lie in"):
        bf.bootstrap(bf.roc_auc, data, confidence=95)
    with pytest.raises(ValueError, match="n_resamples must be at least 1"):
        bf.bootstrap(bf.roc_auc, data, n_resamples=0)
    with pytest.raises(ValueError, match="needs a score table with a 'reference_subject' column"):
        bf.bootstrap(bf.roc_auc, data, unit="subject", n_resamples=40)
    with pytest.raises(TypeError, match="needs scores given as a table"):
        bf.bootstrap(lambda t: 0.0, data, data="table", n_resamples=40)
    with pytest.raises(ValueError, match="data must be 'arrays' or 'table'"):
        bf.bootstrap(bf.roc_auc, data, data="frame", n_resamples=40)
    with pytest.raises(ValueError, match="method must be 'percentile' or 'bca'"):
        bf.bootstrap(bf.roc_auc, data, method="basic", n_resamples=40)
    with pytest.raises(ValueError, match="same trials in the same order"):
        bf.paired_bootstrap(bf.roc_auc, data, (np.arange(4.0), np.arange(10.0)), n_resamples=40)
    with pytest.warns(bf.InsufficientComparisonsWarning,
                      match=r"^target FMR 0\.001 is below 3/N = 0\.3 \(N = 10 non-mated comparisons\)"):
        bf.bootstrap(bf.tmr_at_fmr, data, args=(1e-3,), n_resamples=40, rng=0)


# -- the fast-path protocol ------------------------------------------------------------------------


class DeclaredStatistic:
    """A statistic that declares the fast-path protocol and records how it was called."""

    def __init__(self):
        self.calls = []

    def __call__(self, mated, nonmated, shift=0.0):
        return float(np.mean(mated) - np.mean(nonmated) + shift)

    def bootstrap_replicates(self, mated, nonmated, shift=0.0, *, n_resamples, rng, clusters, progress_bar):
        self.calls.append((mated.size, nonmated.size, shift, n_resamples, clusters is None))
        return np.full(n_resamples, self(mated, nonmated, shift))


def test_a_declared_fast_path_is_taken_and_nothing_is_guessed():
    table = clustered_table(np.random.default_rng(2), n_subjects=10)
    statistic = DeclaredStatistic()
    result = bf.bootstrap(statistic, table, args=(1.0,), unit="pair", n_resamples=40, rng=0)
    assert statistic.calls == [(100, 400, 1.0, 40, True)]  # arrays in, its replicates out
    assert result.replicates.tolist() == [result.estimate] * 40
    bf.bootstrap(statistic, table, unit="subject", n_resamples=40, rng=0)
    assert statistic.calls[-1][-1] is False  # the clusters were passed on
    # A lambda around it declares nothing: the plain path resamples the rows.
    plain = bf.bootstrap(lambda m, n: statistic(m, n, 1.0), table, n_resamples=40, rng=0)
    assert len(statistic.calls) == 2 and np.unique(plain.replicates).size > 1
    # data="table" passes the table: no fast path applies.
    on_table = bf.bootstrap(lambda t: statistic(*bf.split_scores(t)), table, data="table", n_resamples=40, rng=0)
    assert len(statistic.calls) == 2 and on_table.replicates.size == 40


def brute_force_subject_tmr(mated, nonmated, fmr, clusters, weights):
    """TMR at FMR of each weighted resample, by repeating rows and calling bf.tmr_at_fmr."""
    values = []
    for w in weights:
        values.append(bf.tmr_at_fmr(np.repeat(mated, w[clusters[0]]), np.repeat(nonmated, w[clusters[1]]), fmr))
    return np.array(values)


@given(seed=st.integers(0, 2**32 - 1), decimals=st.sampled_from([1, 2, 6]),
       fmr=st.sampled_from([0.02, 0.05, 0.1, 0.3]))
@settings(max_examples=60, deadline=None)
def test_subject_fast_path_equals_repeating_the_drawn_subjects(seed, decimals, fmr):
    rng = np.random.default_rng(seed)
    n_subjects = int(rng.integers(5, 30))
    mated_clusters = rng.integers(0, n_subjects, int(rng.integers(20, 200)))
    nonmated_clusters = rng.integers(0, n_subjects, int(rng.integers(100, 1500)))
    mated = np.round(rng.normal(1.5, 1, mated_clusters.size) + 0.3 * mated_clusters / n_subjects, decimals)
    nonmated = np.round(rng.normal(0, 1, nonmated_clusters.size) + 0.5 * nonmated_clusters / n_subjects, decimals)
    weights = np.stack([np.bincount(rng.integers(0, n_subjects, n_subjects), minlength=n_subjects)
                        for _ in range(40)])
    clusters = (mated_clusters, nonmated_clusters)
    drawn = (weights[:, mated_clusters].sum(axis=1) > 0) & (weights[:, nonmated_clusters].sum(axis=1) > 0)
    weights = weights[drawn]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # small resamples
        expected = brute_force_subject_tmr(mated, nonmated, fmr, clusters, weights)
    np.testing.assert_array_equal(subject_replicates(mated, nonmated, fmr, clusters, weights), expected)


def test_subject_fast_path_has_the_law_of_the_plain_subject_bootstrap():
    table = clustered_table(np.random.default_rng(11), n_subjects=60)
    fast = bf.bootstrap(bf.tmr_at_fmr, table, args=(0.05,), unit="subject", n_resamples=2000, rng=1)
    plain = bf.bootstrap(lambda m, n: bf.tmr_at_fmr(m, n, 0.05), table, unit="subject", n_resamples=2000, rng=2)
    assert fast.estimate == plain.estimate
    assert stats.ks_2samp(fast.replicates, plain.replicates).pvalue > 1e-3
    assert fast.replicates.std() == pytest.approx(plain.replicates.std(), rel=0.1)
    # Both draw the clusters the same way: with one seed they see the same resamples.
    same = bf.bootstrap(lambda m, n: bf.tmr_at_fmr(m, n, 0.05), table, unit="subject", n_resamples=2000, rng=1)
    np.testing.assert_array_equal(fast.replicates, same.replicates)


# -- BCa ------------------------------------------------------------------------------------------


def scipy_interval(data, statistic, replicates, confidence, paired=False):
    """scipy.stats.bootstrap's BCa interval of our bootstrap distribution (no new resamples)."""

    class Previous:
        bootstrap_distribution = replicates

    result = stats.bootstrap(data, statistic, n_resamples=0, bootstrap_result=Previous(), method="BCa",
                             confidence_level=confidence, vectorized=False, paired=paired)
    return result.confidence_interval.low, result.confidence_interval.high


def test_bca_interval_equals_scipy_for_pairs():
    rng = np.random.default_rng(4)
    mated, nonmated = rng.gamma(2.0, 1.0, 80), rng.normal(0.0, 1.0, 120)
    statistic = lambda m, n: float(np.mean(m) - np.median(n))  # noqa: E731 - skewed, biased
    result = bf.bootstrap(statistic, (mated, nonmated), method="bca", n_resamples=500, confidence=0.9, rng=3)
    low, high = scipy_interval((mated, nonmated), statistic, result.replicates, 0.9)
    assert (result.low, result.high) == pytest.approx((low, high), rel=1e-12)
    percentile = bf.bootstrap(statistic, (mated, nonmated), n_resamples=500, confidence=0.9, rng=3)
    np.testing.assert_array_equal(percentile.replicates, result.replicates)
    assert (percentile.low, percentile.high) != (result.low, result.high)  # BCa moved the interval


def test_bca_interval_equals_scipy_for_subjects():
    table = clustered_table(np.random.default_rng(5), n_subjects=25)
    rows = {s: np.flatnonzero(pd.factorize(table["reference_subject"])[0] == s) for s in range(25)}
    result = bf.bootstrap(bf.roc_auc, table, unit="subject", method="bca", n_resamples=300, rng=2)

    def on_subjects(codes):  # the statistic of the comparisons of these subjects
        picked = table.iloc[np.concatenate([rows[int(c)] for c in codes])]
        return float(bf.roc_auc(*bf.split_scores(picked)))

    low, high = scipy_interval((np.arange(25),), on_subjects, result.replicates, 0.95)
    assert (result.low, result.high) == pytest.approx((low, high), rel=1e-12)


def test_bca_of_a_paired_difference_and_undefined_cases():
    a, b = two_systems(n_mated=200, n_nonmated=800)
    paired = bf.paired_bootstrap(bf.roc_auc, a, b, method="bca", n_resamples=200, rng=1)
    assert paired.low <= paired.difference <= paired.high and paired.method == "bca"
    constant = lambda m, n: 1.0  # noqa: E731
    with pytest.raises(ValueError, match="method='bca' is undefined"):
        bf.bootstrap(constant, (np.arange(5.0), np.arange(6.0)), method="bca", n_resamples=40, rng=0)


def test_ranking_flips_names_what_it_needs():
    """A list, or a BootstrapResult among the values, gave AttributeError ('list' has no 'items')."""
    paired = bf.PairedResult(0.01, 0.005, 0.02, 0.0, 0.95, 40, "pair", "percentile", np.zeros(40))
    single = bf.bootstrap(lambda m, n: float(np.mean(m)), (np.arange(5.0), np.arange(5.0)), n_resamples=40, rng=0)
    for comparisons, got in (([paired, paired], "list"), ({"a": paired, "b": single}, "a BootstrapResult")):
        with pytest.raises(TypeError, match=rf"^comparisons must map each metric's name to its biofair.paired_bootstrap "
                                            rf"result \(a PairedResult\), e.g. .*, got {got}$"):
            bf.ranking_flips(comparisons)


def test_a_permutation_null_of_a_statistic_without_a_number_is_refused():
    """A NaN statistic gave observed=nan and p = 1/(P+1), read as significant; None or text
    were raw Python errors or read as numbers."""
    table = bf.read_scores(bf.datasets.example_scores_path())
    with pytest.raises(ValueError, match=r"^the statistic is NaN on the observed table and 5 of 5 permutations, so no "
                                         r"p-value can be read"):
        bf.permutation_null(lambda t: float("nan"), table, n_permutations=5, rng=0)
    calls = []  # the observed table first, then the permutations

    def defined_once(t):
        calls.append(t)
        return 0.5 if len(calls) == 1 else float("nan")

    with pytest.raises(ValueError, match=r"^the statistic is NaN on 5 of 5 permutations, so no p-value can be read"):
        bf.permutation_null(defined_once, table, n_permutations=5, rng=0)
    for value in (None, "0.5"):
        with pytest.raises(TypeError, match=r"^the statistic must return a number, got (NoneType|str): wrap it to pick "
                                            r"one, e\.g\. lambda table: "):
            bf.permutation_null(lambda t, value=value: value, table, n_permutations=5, rng=0)


def test_an_estimate_that_is_no_finite_number_is_refused():
    """The replicates were checked, the estimate was not: a statistic NaN on all the data came
    back as estimate=nan beside a finite interval; an infinite one gave a permutation p of 1
    (a helper's audit)."""
    rng = np.random.default_rng(0)
    data = (rng.normal(2, 1, 50), rng.normal(0, 1, 200))
    for value, kind in ((float("nan"), "NaN"), (float("inf"), "infinite")):
        calls = []

        def first_only(mated, nonmated, value=value, calls=calls):
            calls.append(1)
            return value if len(calls) == 1 else float(np.mean(mated) - np.mean(nonmated))

        with pytest.raises(ValueError, match=rf"^the statistic is {kind} on all the data, so there is no estimate"):
            bf.bootstrap(first_only, data, n_resamples=40, rng=0)
        calls.clear()
        with pytest.raises(ValueError, match=rf"^the statistic is {kind} on system A's data"):
            bf.paired_bootstrap(first_only, data, data, n_resamples=40, rng=0)
    table = bf.read_scores(bf.datasets.example_scores_path())
    with pytest.raises(ValueError, match=r"^the statistic is infinite on the observed table, so no p-value"):
        bf.permutation_null(lambda t: float("inf"), table, n_permutations=5, rng=0)


def test_a_permuted_value_equal_to_the_observed_up_to_rounding_counts_as_extreme():
    """Scores on a grid of 0.1: the sum of a group's scores in another order is the same number
    in exact arithmetic but may differ in its last bit; such ties were not counted, and the
    p-value came out too small (0.555 for 0.564 in a helper's audit)."""
    rng = np.random.default_rng(1)
    n = 60
    table = pd.DataFrame({"score": rng.integers(0, 10, 2 * n) / 10, "mated": np.tile([True, False], n),
                          "group": np.repeat(["a", "b"], n)})

    def total(t):
        return float(t.loc[(t["group"] == "a") & ~t["mated"], "score"].sum())

    for alternative in ("less", "greater"):
        result = bf.permutation_null(total, table, n_permutations=300, alternative=alternative, unit="pair", rng=2)
        exact = np.round(result.null * 10).astype(int), round(result.observed * 10)  # sums of tenths, exactly
        extreme = exact[0] <= exact[1] if alternative == "less" else exact[0] >= exact[1]
        assert (exact[0] == exact[1]).sum() > 0  # ties occur
        assert result.p_value == (1 + extreme.sum()) / 301


@pytest.mark.parametrize("confidence, fewest", [(0.95, 40), (0.9, 20), (0.99, 200), (0.9996, 5_000),
                                                (0.9999, 20_000), (0.99999, 200_000)])
def test_the_fewest_resamples_follow_the_confidence_as_written(confidence, fewest):
    """2 / (1 - confidence) in floating point asked for 20,001 resamples at 0.9999 (a helper's audit)."""
    data = (np.arange(5.0), np.arange(10.0))
    with pytest.raises(ValueError, match=rf"^n_resamples={fewest - 1} is too few for .* intervals: give at least {fewest}, "):
        bf.bootstrap(bf.roc_auc, data, n_resamples=fewest - 1, confidence=confidence, rng=0)
    assert np.isfinite(bf.bootstrap(bf.roc_auc, data, n_resamples=fewest, confidence=confidence, rng=0).low)


def brute_grouped_bca(statistic, mated, nonmated, replicates, estimate, groups, confidence):
    """BCa with the grouped jackknife, written out: per class, the units in score order,
    shuffled by the permutation the module fixes (default_rng(0) for that many units), every
    G-th left out together; each group one unit of the acceleration."""
    numerator = denominator = 0.0
    for own, other, own_is_mated in ((mated, nonmated, True), (nonmated, mated, False)):
        ranked = np.argsort(own, kind="stable")[np.random.default_rng(0).permutation(own.size)]
        parts = [ranked[g::groups] for g in range(groups)] if own.size > groups else [[i] for i in range(own.size)]
        values = []
        for part in parts:
            kept = np.delete(own, part)
            values.append(statistic(kept, other) if own_is_mated else statistic(other, kept))
        values = np.array(values)
        n = values.size
        u = (n - 1) * (values.mean() - values)
        numerator += np.sum(u**3) / n**3
        denominator += np.sum(u**2) / n**2
    a = numerator / (6 * denominator**1.5)
    z0 = stats.norm.ppf((np.sum(replicates < estimate) + np.sum(replicates <= estimate)) / (2 * replicates.size))
    z = stats.norm.ppf([(1 - confidence) / 2, (1 + confidence) / 2])
    return tuple(np.percentile(replicates, 100 * stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))))


def test_bca_beyond_the_jackknife_limit_leaves_out_groups(monkeypatch):
    """BCa of a statistic without closed-form leave-one-out values evaluated it once per
    comparison: 10 s for the EER of 11,000 comparisons, about 17 minutes at 110,000."""
    rng = np.random.default_rng(8)
    mated, nonmated = rng.gamma(2.0, 1.0, 30), rng.normal(0.0, 1.0, 90)
    statistic = lambda m, n: float(np.mean(m) - np.median(n))  # noqa: E731 - skewed, biased
    monkeypatch.setattr(bf._resampling, "JACKKNIFE_GROUPS", 7)
    calls = []
    counted = lambda m, n: calls.append(1) or statistic(m, n)  # noqa: E731
    result = bf.bootstrap(counted, (mated, nonmated), method="bca", n_resamples=200, confidence=0.9, rng=3)
    assert len(calls) == 1 + 200 + 7 + 7  # the estimate, the resamples, 7 groups per class
    expected = brute_grouped_bca(statistic, mated, nonmated, result.replicates, result.estimate, 7, 0.9)
    assert (result.low, result.high) == pytest.approx(expected, rel=1e-12)


def test_the_grouped_acceleration_is_the_plain_jackknifes():
    """The acceleration of the mean of 20,000 exponential scores, from the plain jackknife in
    closed form (each score left out: (sum - x_i) / (n - 1)), is skewness / (6 sqrt(n)),
    0.0024 in theory. Groups of the ranks r, r + 1000, ... gave 0.0046 (leave-out values that
    hardly vary); random groups give the plain value within a few per cent (three data sets:
    0.0022-0.0023 against 0.0023)."""
    from biofair._resampling import _acceleration, _groups

    for seed in range(3):
        scores = np.random.default_rng(seed).exponential(size=20_000)
        n = scores.size
        plain = _acceleration([((scores.sum() - scores) / (n - 1), None)])
        assert plain == pytest.approx(2 / (6 * np.sqrt(n)), rel=0.15)  # the skewness of the exponential is 2
        groups = _groups(np.arange(n), scores)
        assert len(groups) == 1000 and np.array_equal(np.sort(np.concatenate(groups)), np.arange(n))
        grouped = _acceleration([(np.array([(scores.sum() - scores[g].sum()) / (n - g.size) for g in groups]), None)])
        assert grouped == pytest.approx(plain, rel=0.1)


def test_grouped_bca_is_close_to_the_exact_one(monkeypatch):
    table = bf.synthetic.gaussian_scores(n_mated=400, n_nonmated=4_000, rng=2)
    eer = lambda m, n: bf.eer(m, n).eer  # noqa: E731
    grouped = bf.bootstrap(eer, table, method="bca", n_resamples=200, rng=1)  # 4,000 non-mated: 1,000 groups
    monkeypatch.setattr(bf._resampling, "JACKKNIFE_GROUPS", 10**9)
    exact = bf.bootstrap(eer, table, method="bca", n_resamples=200, rng=1)
    np.testing.assert_array_equal(grouped.replicates, exact.replicates)
    width = exact.high - exact.low
    assert abs(grouped.low - exact.low) < 0.02 * width and abs(grouped.high - exact.high) < 0.02 * width


def test_eer_percentile_interval_undercovers_on_small_samples():
    """The statement of bootstrap's Notes: the ROCCH EER of 100 + 1,000 normal scores is
    biased low by a sizeable share of its standard error, and its 95% percentile interval
    covers about 87% (300 test sets: a Clopper-Pearson 95% band of about +-4%)."""
    truth = norm.cdf(-1.0)  # EER of N(2, 1) against N(0, 1)
    rng = np.random.default_rng(42)
    covered, errors = [], []
    for _ in range(300):
        mated, nonmated = rng.normal(2, 1, 100), rng.normal(0, 1, 1_000)
        result = bf.bootstrap(_eer_value, (mated, nonmated), n_resamples=400, rng=rng)
        covered.append(result.low <= truth <= result.high)
        errors.append(result.estimate - truth)
    assert 0.82 <= np.mean(covered) <= 0.92
    assert np.mean(errors) < -0.25 * np.std(errors)


def test_every_function_that_takes_a_unit_names_the_same_choices():
    """None (the default: by subject when the table has the cluster column) is a unit every
    one of them takes; bootstrap and paired_bootstrap named only 'pair' and 'subject'."""
    table = bf.synthetic.demographic_scores(rng=0, mated_per_subject=2, nonmated_per_subject=4)
    mean = lambda scores: float(scores["score"].mean())  # noqa: E731
    calls = {
        "bootstrap": lambda: bf.bootstrap(mean, table, data="table", unit="subjects", n_resamples=40),
        "paired_bootstrap": lambda: bf.paired_bootstrap(mean, table, table, data="table", unit="subjects",
                                                        n_resamples=40),
        "permutation_null": lambda: bf.permutation_null(mean, table, unit="subjects", n_permutations=5),
        "differential_report": lambda: bf.differential_report(table, fmr=0.1, unit="subjects", n_resamples=40),
        "fairness_summary": lambda: bf.fairness_summary(table, unit="subjects", n_resamples=40),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError) as raised:
            call()
        assert str(raised.value) == "unit must be 'pair', 'subject' or None, got 'subjects'", name


def _labelled_trials(rng: np.random.Generator, *, within_only: bool) -> pd.DataFrame:
    """30 subjects with a gender and a site each (labels per side), 3 mated and 12 non-mated
    comparisons each (probes of the reference's own gender and site only, or of any subject),
    and a pair-level ``batch``."""
    n = 30
    gender, site = rng.choice(["f", "m"], n), rng.choice(["p", "q", "r"], n)
    references = np.repeat(np.arange(n), 12)
    probes = np.concatenate([rng.choice(np.flatnonzero(((gender == gender[s]) & (site == site[s]) if within_only
                                                        else True) & (np.arange(n) != s)), 12) for s in range(n)])
    references, others = np.r_[np.repeat(np.arange(n), 3), references], np.r_[np.repeat(np.arange(n), 3), probes]
    return pd.DataFrame({
        "score": np.r_[rng.normal(2, 1, 3 * n), rng.normal(0, 1, 12 * n)], "mated": references == others,
        "reference_subject": references, "probe_subject": others,
        "reference_gender": gender[references], "probe_gender": gender[others],
        "reference_site": site[references], "probe_site": site[others], "batch": np.where(references % 2, "x", "y"),
    })


def _share_within_by_hand(table: pd.DataFrame, attributes: list[str]) -> float:
    """The share of non-mated rows whose two sides have the same label of every attribute given
    per side, row by row."""
    within = []
    for _, row in table[~table["mated"]].iterrows():
        within.append(all(row[f"reference_{a}"] == row[f"probe_{a}"] for a in attributes
                          if f"reference_{a}" in table.columns and a not in table.columns))
    return float(np.mean(within))


@pytest.mark.parametrize("by", [["gender"], ["gender", "site"], ["site", "batch"]])
@pytest.mark.parametrize("within_only", [False, True])
def test_the_share_of_nonmated_pairs_within_groups_is_read_from_the_permuted_tables(by, within_only):
    """``nonmated_within`` is the table's share of non-mated comparisons whose two sides have the
    same labels, ``nonmated_within_shuffled`` its mean over the permuted tables of the null, the
    arrangements drawn again left out (a loop over the rows of every table the statistic saw).
    Chapter 13 computed it by hand, the package did not say it: on VoxCeleb1-H by nationality
    about 49% of the non-mated pairs stayed within groups, against 100% in the file."""
    table = _labelled_trials(np.random.default_rng(4), within_only=within_only)
    scored = []

    def index(t):  # every third arrangement cannot be scored and is drawn again
        if len(scored) % 3 == 2:
            scored.append(None)
            raise ValueError("a group too small")
        scored.append(t)
        return float(t.loc[~t["mated"], "score"].mean())

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = bf.permutation_null(index, table, by=by, n_permutations=12, rng=3)
    kept = [t for t in scored[1:] if t is not None]  # the first table is the observed one
    assert len(kept) == result.n_permutations == 12 and result.n_redrawn > 0
    assert result.nonmated_within == pytest.approx(_share_within_by_hand(table, by), abs=1e-15)
    expected = np.mean([_share_within_by_hand(t, by) for t in kept])
    assert result.nonmated_within_shuffled == pytest.approx(expected, abs=1e-15)
    if within_only:
        assert result.nonmated_within == 1 and result.nonmated_within_shuffled < 0.9
    # the table's share is that of the grouping: its non-mated comparisons in a group
    assert result.nonmated_within == pytest.approx(bf.group_labels(table, by=by)[~table["mated"]].notna().mean())
    left = [w for w in caught if issubclass(w.category, bf.PermutationNullWarning)]
    assert len(left) == (result.nonmated_within_shuffled < 0.9 * result.nonmated_within)
    if left:
        assert f"leave {result.nonmated_within_shuffled:.1%} of the non-mated comparisons within groups" in str(
            left[0].message) and f"against {result.nonmated_within:.1%} in the table" in str(left[0].message)


def test_a_null_that_moves_nonmated_pairs_out_of_their_groups_warns_and_one_of_pair_labels_does_not():
    """Labels per side, every non-mated pair within its group: the subject shuffle leaves about
    half of them within groups, and the null of a non-mated index compares smaller groups than
    the table's (here CEI 0.645 against a null mean of 0.557, p = 0.75; with one label per
    comparison the null mean is 0.755 and p = 0.1). It warns; with one label per comparison,
    which moves with its reference subject, every pair keeps a group and it does not."""
    table = bf.synthetic.demographic_scores(groups={"a": (20, 2.0, 1.0), "b": (20, 2.0, 1.0)}, rng=0)
    table = table[table["reference_group"] == table["probe_group"]]
    index = lambda t: bf.comprehensive_equity_index(t, kind="nonmated", bins=10).extreme  # noqa: E731
    with pytest.warns(bf.PermutationNullWarning, match=r"leave 4\d\.\d% of the non-mated comparisons within groups "
                      r"on average, against 100\.0% in the table"):
        per_side = bf.permutation_null(index, table, n_permutations=19, rng=0)
    assert per_side.nonmated_within == 1 and 0.4 < per_side.nonmated_within_shuffled < 0.6
    assert (per_side.observed, per_side.null.mean(), per_side.p_value) == pytest.approx((0.645, 0.557, 0.75), abs=5e-4)
    pair_level = table.drop(columns="probe_group").rename(columns={"reference_group": "group"})
    with warnings.catch_warnings():
        warnings.simplefilter("error", bf.PermutationNullWarning)
        for unit in ("subject", "pair"):
            null = bf.permutation_null(index, pair_level, n_permutations=19, rng=0, unit=unit)
            assert (null.nonmated_within, null.nonmated_within_shuffled) == (1, 1)
            if unit == "subject":
                assert (null.null.mean(), null.p_value) == pytest.approx((0.755, 0.1), abs=5e-4)
    # a hand-built result says nothing of the shares
    assert np.isnan(bf.PermutationNull(0.8, np.array([0.9]), 0.5, 1, "less").nonmated_within_shuffled)
