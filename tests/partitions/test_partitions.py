"""Out-of-core metrics on a 2-worker Dask cluster equal the in-memory functions exactly."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.exceptions import SchemaError
from biofair.groups import _pooled_threshold

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
from biofair import partitions as bp  # noqa: E402

N_ROWS = 10_000_000
GROUPS = np.array(["a", "b", "c", "d", "e"])


def generate(n_rows: int, seed: int) -> pd.DataFrame:
    """Five groups with shifted scores, per-side groups (some cross-group impostor pairs),
    scores rounded to 3 decimals (many ties)."""
    rng = np.random.default_rng(seed)
    reference = rng.integers(0, GROUPS.size, n_rows)
    mated = rng.random(n_rows) < 0.1
    cross = ~mated & (rng.random(n_rows) < 0.05)
    probe = np.where(cross, (reference + 1) % GROUPS.size, reference)
    score = np.round(rng.normal(np.where(mated, 2.5, 0.0) + 0.1 * reference, 1.0 + 0.05 * reference), 3)
    return pd.DataFrame({"score": score, "mated": mated, "reference_group": GROUPS[reference],
                         "probe_group": GROUPS[probe]})


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0",
                                  processes=True) as local, distributed.Client(local) as client:
        yield client


@pytest.fixture(scope="module")
def data(tmp_path_factory, cluster):
    folder = tmp_path_factory.mktemp("scores")
    table = generate(N_ROWS, seed=1)
    for i, part in enumerate(np.array_split(np.arange(N_ROWS), 8)):
        table.iloc[part].to_parquet(folder / f"part-{i}.parquet", index=False)
    dev = generate(N_ROWS // 10, seed=2)
    dev.to_parquet(folder / "dev.parquet", index=False)
    return table, str(folder / "part-*.parquet"), dev, str(folder / "dev.parquet")


TARGETS = [1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7]


def test_census_counts_every_group_and_class(data):
    table, path, _, _ = data
    census = bf.partitions.census(path)
    sizes = bf.group_sizes(table)
    assert census.names == list(GROUPS) and census.n_partitions == 8
    assert census.n_mated.tolist() == sizes.loc[census.names, "n_mated"].tolist()
    assert census.n_nonmated.tolist() == sizes.loc[census.names, "n_nonmated"].tolist()
    assert census.n_cross == sizes.loc["(cross-group)", "n_nonmated"]


def test_thresholds_at_fmr_are_exact(data):
    table, path, _, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # 1e-7 < 3/N
        expected = _pooled_threshold(bf.scores_by_group(table), TARGETS)
        found = bp.pooled_thresholds(path, TARGETS)
    np.testing.assert_array_equal(found, expected)


def test_rates_fdr_garbe_inequity_and_dfi_are_exact(data):
    table, path, dev, dev_path = data
    thresholds = [-1.0, 0.0, 1.234, 2.5, 3.0, 4.0]
    pd.testing.assert_frame_equal(bp.rates_by_group(path, thresholds), bf.rates_by_group(table, thresholds))
    targets = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5]  # the development set resolves down to 1e-5
    fdr = bp.fairness_discrepancy_rate(path, dev=dev_path, fmr_targets=targets)
    in_memory = bf.fairness_discrepancy_rate(table, dev=dev, fmr_targets=targets)
    pd.testing.assert_frame_equal(fdr, in_memory)
    assert bf.area_under_fdr(fdr["fdr"], targets, scale="log10") == bf.area_under_fdr(
        in_memory["fdr"], targets, scale="log10")
    for options in ({"fmr": 1e-3}, {"threshold": 2.0}):
        here, there = bp.outcome_fairness(path, **options), bf.outcome_fairness(table, **options)
        assert here[:6] == there[:6]
        pd.testing.assert_frame_equal(here.rates, there.rates)
        np.testing.assert_equal(here[7:], there[7:])  # the target (NaN with a threshold), k, resolved, precise
    for combine in ("pooled", "equal"):
        here, there = bp.distribution_fairness_index(path, combine=combine), bf.distribution_fairness_index(table, combine=combine)
        assert (here.normal, here.extreme) == (there.normal, there.extreme)
        np.testing.assert_array_equal(here.divergences, there.divergences)


def test_cross_group_fmr_matches_the_pairs_left_out(data):
    table, path, _, _ = data
    _, cross = bp.group_rates_at(path, [1.0, 2.0])
    heterogeneous = table[table["reference_group"] != table["probe_group"]]["score"].to_numpy()
    assert cross.tolist() == [np.mean(heterogeneous >= 1.0), np.mean(heterogeneous >= 2.0)]


def test_roc_auc_lies_within_its_stated_bound(data):
    table, path, _, _ = data
    exact = bf.roc_auc(*bf.split_scores(table))
    for bins in (64, 4096, bp.AREA_BINS):
        bounded = bp.roc_auc(path, bins=bins)
        assert bounded.low <= exact <= bounded.high
        assert bounded.high - bounded.low < 0.05
    coarse, fine = bp.roc_auc(path, bins=64), bp.roc_auc(path, bins=4096)
    assert fine.high - fine.low < (coarse.high - coarse.low) / 10


def test_tmr_at_fmr_over_all_pairs_is_exact(data):
    table, path, _, _ = data
    mated, nonmated = bf.split_scores(table)  # every pair, cross-group ones included
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # 1e-7 < 1/N
        np.testing.assert_array_equal(bp.tmr_at_fmr(path, TARGETS), bf.tmr_at_fmr(mated, nonmated, TARGETS))


def test_cei_and_automatic_cei_are_exact(data):
    table, path, _, _ = data
    shared, groups = bp.partitioned(path), bf.scores_by_group(table)
    for options in ({"kind": "mated"}, {"kind": "nonmated", "percentile": 99.0, "mean_tail": "split_mean"}):
        here, there = bp.comprehensive_equity_index(shared, **options), bf.comprehensive_equity_index(groups, **options)
        assert (here.normal, here.extreme, here.parameters) == (there.normal, there.extreme, there.parameters)
        pd.testing.assert_series_equal(here.divergences, there.divergences)
    for kind in ("mated", "nonmated"):
        here = bp.automatic_comprehensive_equity_index(shared, kind=kind)
        there = bf.automatic_comprehensive_equity_index(groups, kind=kind)
        assert (here.normal, here.extreme, here.parameters) == (there.normal, there.extreme, there.parameters)


def test_eer_is_exact_and_partial_auc_within_its_bound(data):
    table, path, _, _ = data
    mated, nonmated = bf.split_scores(table)
    for method in ("midpoint", "interval", "rocch"):
        assert bp.eer(path, method=method) == bf.eer(mated, nonmated, method=method)
    exact = bf.partial_auc(mated, nonmated, max_fmr=1e-3)
    coarse, fine = (bp.partial_auc(path, max_fmr=1e-3, bins=bins) for bins in (64, bp.AREA_BINS))
    assert coarse.low <= exact <= coarse.high and fine.low <= exact <= fine.high
    assert fine.high - fine.low < (coarse.high - coarse.low) / 10


def test_poisson_bootstrap_covers_the_estimate_and_is_seeded(data, tmp_path):
    table, _, _, _ = data
    for i, part in enumerate(np.array_split(np.arange(1_000_000), 4)):
        table.iloc[part].to_parquet(tmp_path / f"small-{i}.parquet", index=False)
    small = str(tmp_path / "small-*.parquet")
    first = bp.poisson_bootstrap(small, [1.0, 2.5], n_resamples=40, rng=3)
    again = bp.poisson_bootstrap(small, [1.0, 2.5], n_resamples=40, rng=3)
    pd.testing.assert_frame_equal(first, again)
    assert ((first["low"] <= first["value"]) & (first["value"] <= first["high"])).all()
    exact = bf.rates_by_group(table.iloc[:1_000_000], [1.0, 2.5])
    fmr = first[first["metric"] == "fmr"].reset_index(drop=True)
    np.testing.assert_array_equal(fmr["value"], exact["fmr"])
    # the interval width follows the binomial standard error of each rate
    width = (fmr["high"] - fmr["low"]).to_numpy()
    se = np.sqrt(exact["fmr"] * (1 - exact["fmr"]) / exact["n_nonmated"]).to_numpy()
    assert np.all((width > 2.5 * se) & (width < 5.5 * se))


def test_bad_partitions_are_named(tmp_path, cluster):
    good = generate(20_000, seed=4)
    good.to_parquet(tmp_path / "p0.parquet", index=False)
    broken = good.copy()
    broken.loc[[3, 8], "score"] = np.nan
    broken.loc[9, "score"] = -np.inf
    broken.to_parquet(tmp_path / "p1.parquet", index=False)
    with pytest.raises(SchemaError, match="partition 1: column 'score' has 2 NaN and 1 infinite value"):
        bp.census(str(tmp_path / "p*.parquet"))
    with pytest.raises(SchemaError, match=r"^column 'mated' marks 0 mated and \d+ non-mated comparisons; both"):
        bp.eer(dd.from_pandas(good[~good["mated"]], npartitions=2))
    with pytest.raises(SchemaError, match="no group column for 'gender'"):
        bp.census(str(tmp_path / "p0.parquet"), by="gender")
    no_mated_e = good[~((good["reference_group"] == "e") & good["mated"])]
    with pytest.raises(SchemaError, match="group 'e' has 0 mated"):
        bp.fairness_discrepancy_rate(dd.from_pandas(no_mated_e, npartitions=2))
    with pytest.raises(SchemaError, match=r"^missing column\(s\): score \(the table has '"):  # before any pass
        bp.census(dd.from_pandas(good.rename(columns={"score": "similarity"}), npartitions=2)
                  .assign(reference_group="a", probe_group="a"))
    with pytest.raises(TypeError, match="dask DataFrame or a Parquet path"):
        bp.census(good)
    # one file stores integer labels as float64: the error names each file's type
    numbered = good.assign(reference_group=good["reference_group"].map({g: i for i, g in enumerate(GROUPS)}),
                           probe_group=good["probe_group"].map({g: i for i, g in enumerate(GROUPS)}))
    numbered.to_parquet(tmp_path / "n0.parquet", index=False)
    numbered.astype({"reference_group": float, "probe_group": float}).to_parquet(tmp_path / "n1.parquet", index=False)
    files = [str(tmp_path / name) for name in ("n0.parquet", "n1.parquet")]
    with pytest.raises(SchemaError, match=re.escape(f"group column 'reference_group' is stored with different types "
                                                    f"in the Parquet files: int64 in 1 file ({files[0]}); "
                                                    f"double in 1 file ({files[1]})")):
        bp.census(str(tmp_path / "n*.parquet"))


def test_a_scheduler_address_runs_every_pass_on_that_cluster(tmp_path, cluster):
    """``partitioned(..., scheduler=address)``: every later call runs on that cluster (not on
    the default client of this module), reuses what earlier calls found, and stays exact."""
    from biofair.partitions.census import _PASSES, _context

    table = generate(200_000, seed=6)
    for i, part in enumerate(np.array_split(np.arange(len(table)), 3)):
        table.iloc[part].to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as other:
        data = bp.partitioned(str(tmp_path / "part-*.parquet"), scheduler=other.scheduler_address)
        targets = [1e-1, 1e-2, 1e-3]
        before = _PASSES[0]
        np.testing.assert_array_equal(bp.pooled_thresholds(data, targets),
                                      _pooled_threshold(bf.scores_by_group(table), targets))
        assert _PASSES[0] - before == 1  # refine: the census located the order statistics
        fdr = bp.fairness_discrepancy_rate(data, fmr_targets=targets)
        assert _PASSES[0] - before == 2  # the thresholds are reused: one counting pass
        pd.testing.assert_frame_equal(fdr, bf.fairness_discrepancy_rate(table, fmr_targets=targets))
        mated, nonmated = bf.split_scores(table)
        assert bp.eer(data) == bf.eer(mated, nonmated)
        assert _PASSES[0] - before == 2  # the thresholds' pass collected what the EER refines
        ran_there = {prefix.lstrip("_") for prefix in other.scheduler.task_prefixes}  # dask drops the "_"
        client = _context(data.frame).scheduler
        del data  # the client biofair made for the address closes with the data
        assert client.status == "closed"
    assert {"census_part", "distinct_part", "counts_at_part"} <= ran_there
