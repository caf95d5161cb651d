"""Stratified bootstrap: each group resampled among its own comparisons or subjects."""

import numpy as np
import pandas as pd
import pytest

import biofair as bf


def subjects_table(per_group: dict[str, int], *, seed: int = 0) -> pd.DataFrame:
    """Each subject: one mated and two non-mated comparisons, all in its group."""
    rng = np.random.default_rng(seed)
    rows = []
    for group, n_subjects in per_group.items():
        for s in range(n_subjects):
            subject = f"{group}{s}"
            rows += [(rng.normal(2, 1), True, group, subject)]
            rows += [(rng.normal(0, 1), False, group, subject) for _ in range(2)]
    return pd.DataFrame(rows, columns=["score", "mated", "group", "reference_subject"])


def group_a_mated_mean(table: pd.DataFrame) -> float:
    """The mean mated score of group a (as ``table.query("group == 'a' and mated")``, 50x faster:
    the bootstraps below call it thousands of times)."""
    rows = (table["group"].to_numpy() == "a") & table["mated"].to_numpy()
    return table["score"].to_numpy()[rows].mean()


def cell_counts(table: pd.DataFrame) -> tuple:
    return tuple(table.groupby(["group", "mated"]).size().items())


@pytest.mark.parametrize("unit", ["pair", "subject"])
def test_every_resample_keeps_each_groups_counts(unit):
    table = subjects_table({"a": 30, "b": 3, "c": 1})
    expected = cell_counts(table)
    seen = []

    def statistic(resample: pd.DataFrame) -> float:
        seen.append(cell_counts(resample))
        return resample["score"].mean()

    bf.bootstrap(statistic, table, data="table", unit=unit, strata="group", n_resamples=50, rng=0)
    assert len(seen) == 51 and all(counts == expected for counts in seen)


def test_without_strata_a_small_group_loses_its_mated_comparisons():
    """What strata prevent: a one-subject group is absent from about a third of the resamples."""
    table = subjects_table({"a": 30, "b": 1})
    missing = []

    def statistic(resample: pd.DataFrame) -> float:
        missing.append("b" not in set(resample["group"]))
        return 0.0

    bf.bootstrap(statistic, table, data="table", unit="subject", n_resamples=300, rng=0)
    assert 0.25 < np.mean(missing[1:]) < 0.45  # (1 - 1/31)**31 = 0.36


@pytest.mark.parametrize("unit", ["pair", "subject"])
def test_a_groups_mean_has_the_bootstrap_variance_of_its_own_sample(unit):
    """Within a stratum the draws are those of a plain bootstrap of that group: the variance
    of a group's mean mated score over the resamples is its plug-in variance / n."""
    table = subjects_table({"a": 40, "b": 200})
    a = table.query("group == 'a' and mated")["score"].to_numpy()
    result = bf.bootstrap(group_a_mated_mean, table, data="table", unit=unit, strata="group", n_resamples=4000, rng=1)
    assert result.replicates.mean() == pytest.approx(a.mean(), abs=0.02)
    assert result.replicates.var() == pytest.approx(a.var() / a.size, rel=0.1)


def homogeneous(table: pd.DataFrame) -> pd.DataFrame:
    """The pairs within one group, with that group as ``group``."""
    same = table[table["reference_group"] == table["probe_group"]]
    return same.assign(group=same["reference_group"].to_numpy())


def test_a_subject_in_two_groups_is_two_clusters_and_cross_group_pairs_a_stratum():
    table = pd.DataFrame({
        "score": [2.0, 1.5, 0.1, 0.3, -0.2, 0.4, 2.2, 0.0],
        "mated": [True, True, False, False, False, False, True, False],
        "reference_group": ["a", "b", "a", "b", "a", "b", "a", "b"],
        "probe_group": ["a", "b", "a", "b", "b", "a", "a", "b"],
        "reference_subject": ["s", "s", "s", "s", "s", "t", "u", "t"],
    })
    sample = bf._resampling.Sample(table, data="table", cluster="reference_subject", strata="group")
    # 2 * (group + 1) + mated: 0 cross-group pairs, 2/3 group a non-mated/mated, 4/5 group b
    assert sample.strata.tolist() == [3, 5, 2, 4, 0, 0, 3, 4]
    # clusters numbered stratum by stratum: (0,s) (0,t) | (2,s) | (3,s) (3,u) | (4,s) (4,t) | (5,s)
    assert sample.clusters.tolist() == [3, 7, 2, 5, 0, 1, 4, 6]
    rng = np.random.default_rng(0)
    for rows in bf._resampling.resample_rows(sample, "subject", 200, rng):
        drawn = table.iloc[rows]
        # each stratum keeps its number of clusters: cross-group rows come from (0, s) and (0, t)
        assert drawn["reference_group"].ne(drawn["probe_group"]).sum() == 2
        # and each group's class its own (one row per cluster here)
        assert cell_counts(homogeneous(drawn)) == cell_counts(homogeneous(table))


def test_strata_need_a_table():
    mated, nonmated = np.array([1.0, 2.0]), np.array([0.0, 0.5])
    with pytest.raises(TypeError, match="strata need scores given as a table"):
        bf.bootstrap(bf.roc_auc, (mated, nonmated), strata="group", n_resamples=40)


def test_without_strata_the_seeded_stream_is_unchanged():
    """Strata are opt-in: a seed gives the replicates it gave before they existed."""
    table = subjects_table({"a": 30, "b": 10})
    for unit in ("pair", "subject"):
        sample = bf._resampling.Sample(table, data="table", cluster="reference_subject" if unit == "subject" else None)
        rng, again = np.random.default_rng(3), np.random.default_rng(3)
        plan = list(bf._resampling.resample_rows(sample, unit, 5, rng))
        if unit == "pair":
            mated, nonmated = np.flatnonzero(sample.mated), np.flatnonzero(~sample.mated)
            old = [np.concatenate([again.choice(mated, mated.size), again.choice(nonmated, nonmated.size)]) for _ in range(5)]
        else:
            weights = bf._resampling.cluster_weights(int(sample.clusters.max()) + 1, 5, again)
            old = [np.repeat(np.arange(len(table)), drawn[sample.clusters]) for drawn in weights]
        assert all(np.array_equal(p, o) for p, o in zip(plan, old))


def test_bca_with_strata_leaves_out_one_comparison_per_cell():
    """For a group's mean (nearly unbiased, little skew) BCa lies close to the percentile interval."""
    table = subjects_table({"a": 60, "b": 5})
    kwargs = dict(data="table", strata="group", n_resamples=2000, rng=4)
    bca = bf.bootstrap(group_a_mated_mean, table, method="bca", **kwargs)
    percentile = bf.bootstrap(group_a_mated_mean, table, **kwargs)
    width = percentile.high - percentile.low
    assert bca.low < bca.estimate < bca.high
    assert abs(bca.low - percentile.low) < 0.1 * width and abs(bca.high - percentile.high) < 0.1 * width


def test_strata_keep_a_group_of_two_subjects_in_every_resample():
    """Group c: two subjects, only one of them with mated comparisons. Resampling subjects
    over the whole table drops c's mated comparisons from about a third of the resamples (the
    FDR area is then undefined); within c's own classes it never does."""
    rng = np.random.default_rng(5)
    c = pd.DataFrame({"score": np.r_[rng.normal(2, 1, 40), rng.normal(0, 1, 80)],
                      "mated": np.repeat([True, False], [40, 80]), "group": "c",
                      "reference_subject": ["c0"] * 80 + ["c1"] * 40})
    table = pd.concat([subjects_table({"a": 60, "b": 60}, seed=5), c], ignore_index=True)
    def area(t):
        values = bf.fairness_discrepancy_rate(t, fmr_targets=[0.1, 0.05])
        return bf.area_under_fdr(values["fdr"], values["fmr_target"], scale="log10")

    result = bf.bootstrap(area, table, data="table", unit="subject", strata="group", n_resamples=100, rng=0)
    assert result.unit == "subject" and np.isfinite(result.replicates).all() and result.low <= result.high
    subjects = bf._resampling.Sample(table, data="table", cluster="reference_subject")
    lost = [not table.iloc[rows].query("group == 'c' and mated").size
            for rows in bf._resampling.resample_rows(subjects, "subject", 300, np.random.default_rng(0))]
    assert 0.25 < np.mean(lost) < 0.5  # (1 - 1/122)**122 = 0.37


def left_out(plans, n_rows: int) -> list[list[tuple[int, ...]]]:
    """What each leave-one-out plan leaves out, per independently resampled sample, sorted."""
    return sorted(sorted(tuple(sorted(set(range(n_rows)) - set(rows.tolist()))) for rows in plan) for plan in plans)


def test_subject_bca_with_strata_leaves_out_clusters_stratum_by_stratum():
    """Each stratum's clusters are resampled among their own, so they are a sample of their own
    for the BCa acceleration, as each cell's comparisons are for unit="pair". With one comparison
    per subject the two units resample alike, and so must leave out alike."""
    rng = np.random.default_rng(8)
    sizes = {("a", True): 7, ("a", False): 9, ("b", True): 2, ("b", False): 3}
    table = pd.DataFrame([(rng.gamma(1.0 + mated), mated, group) for (group, mated), n in sizes.items()
                          for _ in range(n)], columns=["score", "mated", "group"])
    table["reference_subject"] = [f"s{i:02d}" for i in range(len(table))]  # clusters in row order
    pair = bf._resampling.Sample(table, data="table", strata="group")
    subject = bf._resampling.Sample(table, data="table", cluster="reference_subject", strata="group")
    expected = left_out(bf._resampling.jackknife_rows(pair, "pair"), len(table))
    assert len(expected) == 4  # one sample per group and class
    assert left_out(bf._resampling.jackknife_rows(subject, "subject"), len(table)) == expected

    def statistic(t: pd.DataFrame) -> float:  # skewed: the acceleration matters
        return t.loc[t["mated"] & (t["group"] == "b"), "score"].max() - t.loc[~t["mated"], "score"].mean()

    result = bf.bootstrap(statistic, table, data="table", unit="subject", strata="group", method="bca",
                          n_resamples=400, rng=3)
    jackknife = [(np.array([pair.evaluate(statistic, (), rows) for rows in plan]), None)
                 for plan in bf._resampling.jackknife_rows(pair, "pair")]
    assert (result.low, result.high) == bf._resampling.interval(
        result.replicates, result.estimate, lambda: jackknife, method="bca", confidence=0.95)
