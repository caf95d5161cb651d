"""Out-of-core building blocks and metrics on small, heavily tied data: exact, by construction
of random cases (hypothesis) against NumPy and the in-memory functions."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import biofair as bf
from biofair.exceptions import SchemaError

# These tests compare values; CEIᴬ's warning of an empty tail, the same in both, is compared
# by test_automatic_cei_warns_of_an_empty_tail_as_in_memory.
pytestmark = pytest.mark.filterwarnings("ignore:CEIᴬ. no :biofair.InsufficientComparisonsWarning")

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
from biofair import partitions as bp  # noqa: E402
from biofair.distribution_fairness import _range_edges  # noqa: E402
from biofair.groups import _pooled_threshold  # noqa: E402
from biofair.partitions._order_statistics import bins_of, by_class, order_statistics  # noqa: E402
from biofair.groups import _factorize_categories  # noqa: E402
from biofair.partitions.census import _add, _locating_bins, _SparseCounts  # noqa: E402
from biofair.partitions.thresholds import _at_or_below  # noqa: E402
from biofair.distribution_fairness import _percentile_between, _percentile_rank  # noqa: E402
from exact import exact_beyond  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def table(seed: int, n: int, *, decimals: int, groups: int = 3) -> pd.DataFrame:
    """``groups`` groups, each with mated and non-mated scores, rounded to ``decimals``."""
    rng = np.random.default_rng(seed)
    group = np.arange(n) % groups
    mated = (np.arange(n) // groups) % 4 == 0
    score = np.round(rng.normal(np.where(mated, 1.5, 0.0) + 0.3 * group, 1.0), decimals)
    return pd.DataFrame({"score": score, "mated": mated, "group": np.array(["a", "b", "c", "d"])[group]})


def frame(scores: pd.DataFrame, parts: int):
    return dd.from_pandas(scores, npartitions=parts)


@SETTINGS
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=200), st.integers(2, 300),
       st.sampled_from([1.0, 1e300, 1e-300, 1e-307, 1e-312]))
def test_bins_match_numpy_histogram(values, n_bins, scale):
    """Also on ranges so narrow that bins per unit of score overflow (1e-307: the bins were
    INT_MIN, an IndexError in every histogram pass) and subnormal ones. A range of distinct
    scores that NumPy cannot cut into equal widths is refused, as documented: every range
    holding fewer than ``n_bins + 1`` floats (hypothesis found [-5.0, -4.999999999999999] in
    2 bins), and a few subnormal ones whose edges round onto each other."""
    values = np.array(values) * scale
    low, high = values.min(), values.max()
    floats = [low]
    while floats[-1] < high and len(floats) <= n_bins:
        floats.append(np.nextafter(floats[-1], np.inf))
    if low < high:
        try:
            np.histogram_bin_edges(np.array([low, high]), bins=n_bins)
        except ValueError:  # "Too many bins for data range"
            with pytest.raises(SchemaError, match="cannot cut that range into"):
                _range_edges(low, high, n_bins)
            return
        assert len(floats) > n_bins  # fewer floats than edges: NumPy refused them above
    edges = _range_edges(low, high, n_bins)
    probes = np.concatenate([values, edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)])
    probes = probes[(probes >= edges[0]) & (probes <= edges[-1])]
    counts = np.bincount(bins_of(probes, edges), minlength=n_bins)
    np.testing.assert_array_equal(counts, np.histogram(probes, edges)[0])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False), min_size=1, max_size=200), st.booleans())
def test_locating_bins_keep_the_order_of_the_scores(values, single):
    """a <= b gives bin(a) <= bin(b), float64 or float32, with -0.0, ties and infinities;
    equal scores share a bin, and a float32 score binned as float64 lands in the same bin."""
    with np.errstate(over="ignore"):  # beyond float32: infinite
        values = np.array(values + [0.0, -0.0], dtype=np.float32 if single else np.float64)
    order = np.argsort(values, kind="stable")
    bins = _locating_bins(values)[order]
    assert np.all(np.diff(bins) >= 0)
    ranked = values[order]
    assert np.all((ranked[1:] != ranked[:-1]) | (bins[1:] == bins[:-1]))
    if single:
        np.testing.assert_array_equal(_locating_bins(values.astype(np.float64)), _locating_bins(values))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-4, 4, width=32), min_size=1, max_size=300),
       st.lists(st.one_of(st.floats(-5, 5), st.floats(-4, 4, width=32), st.sampled_from(
           [0.0, -0.0, 1.5, 1e39, -1e39, np.inf, -np.inf, np.nan])), max_size=40),
       st.booleans())
def test_thresholds_at_or_below_each_score_equal_searchsorted(values, thresholds, single):
    """Counting by comparisons equals a search among the thresholds: ties, scores equal to a
    threshold, thresholds between two float32 or beyond their range, infinite and NaN
    thresholds, float32 and float64 scores, few thresholds and many."""
    with np.errstate(over="ignore"):
        values = np.array(values + thresholds[:2], dtype=np.float32 if single else np.float64)
    values = values[np.isfinite(values)]
    ascending = np.sort(np.array(thresholds, dtype=np.float64))
    np.testing.assert_array_equal(_at_or_below(ascending, values), np.searchsorted(ascending, values, side="right"))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "1", None]), min_size=1, max_size=50), st.booleans())
def test_categories_factorize_as_pandas(labels, unused):
    """The codes of a categorical column name the same labels as pd.factorize's."""
    column = pd.Series(pd.Categorical(labels, categories=["b", "a", "1", *(["unused"] if unused else [])]))
    codes, values = _factorize_categories(column)
    expected_codes, expected_values = pd.factorize(column)
    found = [values[code] if code >= 0 else None for code in codes]
    expected = [expected_values[code] if code >= 0 else None for code in expected_codes]
    assert found == expected
    assert sorted(map(str, values)) == sorted(map(str, expected_values)) and values.dtype == expected_values.dtype


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=12, max_size=12), min_size=1, max_size=9))
def test_sparse_histograms_add_up_as_the_dense_ones(parts):
    """A partition's locating histogram leaves its task as its non-zero bins: summed (as the
    workers sum eight at a time, with the census's lists beside them) and made dense, it is
    the sum of the dense histograms; an all-zero histogram has no bins and keeps its shape."""
    dense = [np.array(part, dtype=np.int64).reshape(2, 6) for part in parts]
    total = _add(*[([{"part": i}], _SparseCounts.of(d)) for i, d in enumerate(dense)])
    assert total[0] == [{"part": i} for i in range(len(parts))]
    np.testing.assert_array_equal(total[1].dense(), np.sum(dense, axis=0))
    assert total[1].dense().dtype == np.int64 and total[1].dense().shape == (2, 6)
    empty = _SparseCounts.of(np.zeros((1, 6), dtype=np.int64))
    assert empty.index.size == 0 and empty.dense().shape == (1, 6)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.integers(-3, 3), st.floats(-1e3, 1e3)), min_size=1, max_size=60),
       st.floats(0, 100))
def test_percentile_from_two_order_statistics_equals_numpy(values, percentile):
    values = np.sort(np.array(values, dtype=np.float64))
    k = _percentile_rank(values.size, percentile)
    found = _percentile_between(values[k], values[min(k + 1, values.size - 1)], values.size, percentile)
    assert found == np.percentile(values, percentile)


@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 6), st.integers(0, 2))
def test_order_statistics_and_neighbours_are_exact(seed, parts, decimals):
    scores = table(seed, 400, decimals=decimals)
    nonmated = np.sort(scores.loc[~scores["mated"], "score"].to_numpy())
    ranks = np.unique(np.random.default_rng(seed).integers(0, nonmated.size, 5))
    windows = order_statistics(frame(scores, parts), by_class, (), 2, lambda sizes: [ranks, []])
    distinct = np.unique(nonmated)
    for rank in ranks:
        value = windows.kth(0, int(rank))
        assert value == nonmated[rank]
        above, below = distinct[distinct > value], distinct[distinct < value]
        assert windows.above(0, value) == (above[0] if above.size else None)
        assert windows.below(0, value) == (below[-1] if below.size else None)
        assert windows.counts_below(0, np.array([value]))[0] == np.searchsorted(nonmated, value)


@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 5), st.integers(0, 2))
def test_thresholds_tmr_and_eer_equal_the_in_memory_functions(seed, parts, decimals):
    scores = table(seed, 600, decimals=decimals)
    data = frame(scores, parts)
    mated, nonmated = bf.split_scores(scores)
    targets = [1.0, 0.5, 0.1, 0.03, 0.01, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        np.testing.assert_array_equal(bp.tmr_at_fmr(data, targets), bf.tmr_at_fmr(mated, nonmated, targets))
        np.testing.assert_array_equal(bp.pooled_thresholds(data, targets),
                                      _pooled_threshold(bf.scores_by_group(scores), targets))
    for method in ("midpoint", "interval", "rocch"):
        assert bp.eer(data, method=method) == bf.eer(mated, nonmated, method=method), method


@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 5), st.integers(1, 3),
       st.sampled_from(["mated", "nonmated"]), st.sampled_from(["groups", "split_mean"]),
       st.sampled_from([50.0, 80.0, 95.0]))
def test_cei_and_automatic_cei_equal_the_in_memory_functions(seed, parts, decimals, kind, mean_tail, percentile):
    scores = table(seed, 3000, decimals=decimals)
    data = frame(scores, parts)
    options = {"kind": kind, "bins": 20}
    try:
        expected = bf.comprehensive_equity_index(scores, mean_tail=mean_tail, percentile=percentile, **options)
    except SchemaError as error:  # an empty centre or mean tail: the same error out of core
        with pytest.raises(SchemaError, match=re.escape(str(error))):
            bp.comprehensive_equity_index(data, mean_tail=mean_tail, percentile=percentile, **options)
        return
    found = bp.comprehensive_equity_index(data, mean_tail=mean_tail, percentile=percentile, **options)
    assert found.parameters == expected.parameters
    pd.testing.assert_series_equal(found.divergences, expected.divergences)
    assert (found.normal, found.extreme) == (expected.normal, expected.extreme)
    found, expected = (module.automatic_comprehensive_equity_index(scores if module is bf else data, **options)
                       for module in (bp, bf))
    assert found.parameters == expected.parameters
    assert (found.normal, found.extreme) == (expected.normal, expected.extreme)


@pytest.mark.filterwarnings("error")
def test_automatic_cei_warns_of_an_empty_tail_as_in_memory():
    """No mated score of the example's groups lies below mu - 3 sigma: each is split at its
    100th percentile, its tail its lowest score, and both functions say so alike."""
    scores = bf.read_scores(bf.datasets.example_scores_path())
    messages = []
    for compute in (bf.automatic_comprehensive_equity_index, bp.automatic_comprehensive_equity_index):
        with pytest.warns(bf.InsufficientComparisonsWarning, match=r"^CEIᴬ: no mated score of group\(s\) 'A', 'B', "
                          r"'C' lies below mu - N·sigma \(N = n_std = 3; a normal tail holds 0.00135 of the scores\), "
                          r"so each is split at its 100th percentile") as caught:
            index = compute(scores if compute is bf.automatic_comprehensive_equity_index else frame(scores, 3))
        messages.append([str(w.message) for w in caught])
        assert set(index.parameters["percentiles"].values()) == {100.0}
    assert messages[0] == messages[1] and len(messages[0]) == 1


@pytest.mark.parametrize("n_std", [0.5, 1.0])
def test_automatic_cei_of_scores_a_few_ulps_apart_splits_where_exact_arithmetic_does(n_std):
    """Group a's mated scores are 0.5 + k ulps, k in 0..3: merged from partitions about one of
    its scores, mu - N·sigma splits them as exact arithmetic does, in memory and out of core
    alike: 48.75 % beyond mu - 0.5 sigma and 21.5 % beyond mu - sigma. With means summed
    directly, out of core put 0 % beyond both (in memory 21.5 % and 0 %)."""
    rng = np.random.default_rng(1)
    close = 0.5 + rng.integers(0, 4, 400) * np.spacing(0.5)
    scores = pd.DataFrame({"score": np.r_[close, rng.random(1200)], "group": np.repeat(["a", "b", "a", "b"], 400),
                           "mated": np.repeat([True, True, False, False], 400)}).sample(frac=1, random_state=0)
    beyond, _ = exact_beyond(close, "mated", n_std)
    for found in (bp.automatic_comprehensive_equity_index(frame(scores, 4), n_std=n_std, bins=20),
                  bf.automatic_comprehensive_equity_index(scores, n_std=n_std, bins=20)):
        assert found.parameters["percentiles"]["a"] == 100.0 * (1.0 - sum(beyond) / len(beyond))
    assert 0 < sum(beyond) < len(beyond)


@SETTINGS
@given(st.integers(0, 10_000), st.integers(0, 2), st.sampled_from([1.0, 0.3, 0.05, 0.004]),
       st.booleans(), st.sampled_from([8, 256, 65536]))
def test_partial_auc_lies_within_its_bound(seed, decimals, max_fmr, standardized, bins):
    scores = table(seed, 800, decimals=decimals)
    exact = bf.partial_auc(*bf.split_scores(scores), max_fmr=max_fmr, standardized=standardized)
    bounded = bp.partial_auc(frame(scores, 3), max_fmr=max_fmr, standardized=standardized, bins=bins)
    assert bounded.low <= exact <= bounded.high
    assert bounded.low <= bounded <= bounded.high


def test_the_rocch_eer_of_a_straight_hull_edge_is_the_in_memory_one_to_the_last_bit():
    """Before: 0.11570247933884296 out of core, ...298 in memory: the two hulls kept other
    points of one straight edge, and rounded rates interpolated 1 ulp apart."""
    mated = np.array([20, 22, 23, 24, 24, 27, 28, 29, 30, 30, 30, 30, 31, 31, 31, 32, 33, 33, 34, 35, 36, 36, 38, 38,
                      39, 39, 40, 41, 42.0])
    nonmated = np.repeat(np.arange(38.0), [1, 1, 1, 5, 2, 1, 1, 1, 4, 1, 1, 3, 4, 4, 3, 5, 3, 3, 2, 2, 1, 2, 2, 2, 1,
                                           2, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1])
    scores = pd.DataFrame({"score": np.r_[mated, nonmated], "mated": np.r_[np.ones(29, bool), np.zeros(63, bool)]})
    for parts in (1, 3):
        assert bp.eer(frame(scores, parts)) == bf.eer(mated, nonmated)
    assert bf.eer(mated, nonmated).eer == 0.11570247933884298  # the exact 14/121, rounded once


def test_the_rocch_bound_before_refinement_contains_the_eer():
    scores = table(7, 20_000, decimals=3)
    exact = bf.eer(*bf.split_scores(scores)).eer
    coarse = bp.eer(frame(scores, 4), max_passes=0)
    assert coarse.low <= exact <= coarse.high and coarse.low < coarse.high
    assert bp.eer(frame(scores, 4)).low == bp.eer(frame(scores, 4)).high == exact


def test_bad_input_is_named():
    scores = table(1, 300, decimals=1)
    broken = scores.copy()
    broken.loc[5, "score"] = np.inf
    with pytest.raises(SchemaError, match="partition 0: column 'score' has 0 NaN and 1 infinite value"):
        bp.eer(frame(broken, 2))
    with pytest.raises(SchemaError, match="0 mated and 225 non-mated"):
        bp.tmr_at_fmr(frame(scores[~scores["mated"]], 2), 0.1)
    with pytest.raises(ValueError, match="^method must be 'rocch', 'midpoint' or 'interval', got 'bosaris'$"):
        bp.eer(frame(scores, 2), method="bosaris")
    with pytest.raises(ValueError, match="max_fmr must lie in"):
        bp.partial_auc(frame(scores, 2), max_fmr=0.0)
    with pytest.raises(ValueError, match="kind must be"):
        bp.comprehensive_equity_index(frame(scores, 2), kind="genuine")
    with pytest.raises(ValueError, match=r"^n_std must lie in \(0, inf\), got 0$"):
        bp.automatic_comprehensive_equity_index(frame(scores, 2), n_std=0)
    tied = scores.assign(score=np.where(scores["group"] == "b", 1.0, scores["score"]))
    with pytest.raises(SchemaError, match="group 'b': all 25 mated scores fall in the tail"):
        bp.comprehensive_equity_index(frame(tied, 2))
    with pytest.raises(SchemaError, match="group 'b': all 25 mated scores fall in the tail"):
        bf.comprehensive_equity_index(tied)


def composite_table(seed: int, n: int) -> pd.DataFrame:
    """Per-side gender and pair-level age: composite groups, some cross-gender impostor pairs."""
    rng = np.random.default_rng(seed)
    reference = rng.choice(["f", "m"], n)
    mated = rng.random(n) < 0.3
    probe = np.where(~mated & (rng.random(n) < 0.2), np.where(reference == "f", "m", "f"), reference)
    age = rng.choice(["old", "young"], n)
    score = np.round(rng.normal(np.where(mated, 1.5, 0.0) + 0.2 * (reference == "m") + 0.1 * (age == "old"), 1), 2)
    return pd.DataFrame({"score": score, "mated": mated, "reference_gender": reference, "probe_gender": probe,
                         "age": age})


@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 4))
def test_composite_groups_equal_the_in_memory_functions(seed, parts):
    scores = composite_table(seed, 3000)
    data = frame(scores, parts)
    by = ["gender", "age"]
    census = bp.census(data, by=by)
    sizes = bf.group_sizes(scores, by=by)
    assert census.names == ["f / old", "f / young", "m / old", "m / young"]
    assert census.n_mated.tolist() == sizes.loc[census.names, "n_mated"].tolist()
    assert census.n_cross == sizes.loc["(cross-group)", "n_nonmated"]
    thresholds = [-0.5, 0.5, 1.5]
    pd.testing.assert_frame_equal(bp.rates_by_group(data, thresholds, by=by),
                                  bf.rates_by_group(scores, thresholds, by=by))
    pd.testing.assert_frame_equal(bp.fairness_discrepancy_rate(data, by=by, fmr_targets=[0.1, 0.01]),
                                  bf.fairness_discrepancy_rate(scores, by=by, fmr_targets=[0.1, 0.01]))
    assert bp.distribution_fairness_index(data, by=by).extreme == bf.distribution_fairness_index(scores, by=by).extreme


@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(0, 2), st.booleans())
def test_the_audit_sequence_reuses_and_speculates_exactly(seed, parts, decimals, cross):
    """On one Partitioned: the census locates, the thresholds take one pass (that also refines
    the EER's bins), the rates one (that also counts at the pooled thresholds), FDR and the
    EER's midpoint and interval none; every result equals the in-memory one, with and without
    cross-group pairs (then the thresholds and the EER refine different streams in one pass)."""
    from biofair.partitions.census import _PASSES

    scores = table(seed, 900, decimals=decimals)
    if cross:
        scores = scores.rename(columns={"group": "reference_group"}).assign(probe_group=scores["group"])
        flip = (~scores["mated"]) & (np.arange(len(scores)) % 7 == 0)
        scores.loc[flip, "probe_group"] = scores.loc[flip, "reference_group"].map({"a": "b", "b": "c", "c": "a"})
    passes = [_PASSES[0]]
    data = bp.partitioned(frame(scores, parts))
    passes.append(_PASSES[0])
    targets, fixed = [0.3, 0.1, 0.01], [-0.5, 0.5, 1.5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        thresholds = [bp.pooled_thresholds(data, targets), passes.append(_PASSES[0])][0]
        rates = [bp.rates_by_group(data, fixed), passes.append(_PASSES[0])][0]
        fdr = [bp.fairness_discrepancy_rate(data, fmr_targets=targets), passes.append(_PASSES[0])][0]
        expected_fdr = bf.fairness_discrepancy_rate(scores, fmr_targets=targets)
    mated, nonmated = bf.split_scores(scores)
    for method in ("midpoint", "interval"):
        assert bp.eer(data, method=method) == bf.eer(mated, nonmated, method=method)
    passes.append(_PASSES[0])
    assert np.diff(passes).tolist() == [1, 1, 1, 0, 0]
    assert bp.eer(data) == bf.eer(mated, nonmated)
    np.testing.assert_array_equal(thresholds, expected_fdr["threshold"])
    pd.testing.assert_frame_equal(rates, bf.rates_by_group(scores, fixed))
    pd.testing.assert_frame_equal(fdr, expected_fdr)


@SETTINGS
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(0, 2), st.sampled_from(["mated", "nonmated"]))
def test_cei_takes_three_passes_and_automatic_cei_five_less_what_it_reuses(seed, parts, decimals, kind):
    """As the docstrings and chapter 14 say: CEI locates each group's split (a histogram row
    per group), refines it and counts tails and centres; CEIᴬ merges moments and counts beyond
    mu ± N·sigma first. The group histograms of a class, once made, serve later calls."""
    from biofair.partitions.census import _PASSES

    data = bp.partitioned(frame(table(seed, 900, decimals=decimals), parts))

    def passes_of(call) -> int:
        before = _PASSES[0]
        call()
        return _PASSES[0] - before

    assert passes_of(lambda: bp.automatic_comprehensive_equity_index(data, kind=kind, bins=20)) == 5
    assert passes_of(lambda: bp.comprehensive_equity_index(data, kind=kind, percentile=90.0, bins=20)) == 2
    other = "nonmated" if kind == "mated" else "mated"
    assert passes_of(lambda: bp.comprehensive_equity_index(data, kind=other, bins=20)) == 3
    assert passes_of(lambda: bp.automatic_comprehensive_equity_index(data, kind=other, bins=20)) == 4


def test_whole_files_are_read_in_one_task_each_unless_dask_must_read_them(tmp_path):
    from biofair.partitions.census import _whole_files

    scores = table(3, 400, decimals=2)
    for i, part in enumerate(np.array_split(np.arange(len(scores)), 3)):
        scores.iloc[part].to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    whole = dd.read_parquet(str(tmp_path / "*.parquet"))
    assert _whole_files(whole) == [str(tmp_path / f"part-{i}.parquet") for i in range(3)]
    for other in (whole[["score", "mated"]], whole[whole["score"] > 0], frame(scores, 3),
                  dd.read_parquet(str(tmp_path / "*.parquet"), filters=[("score", ">", 0.0)])):
        assert _whole_files(other) is None
    assert bp.eer(whole) == bp.eer(frame(scores, 3)) == bf.eer(*bf.split_scores(scores))


@pytest.mark.parametrize(("seed", "max_fmr", "bins"), [(3255, 0.004, 256), (2821, 0.004, 65536)])
def test_partial_auc_bounds_hold_the_in_memory_value_where_they_round_differently(seed, max_fmr, bins):
    """Inputs where both bounds rounded an ulp above the in-memory value before the bounds
    were rounded outward (hypothesis found the first, a random search the second)."""
    scores = table(seed, 800, decimals=2)
    exact = bf.partial_auc(*bf.split_scores(scores), max_fmr=max_fmr)
    bounded = bp.partial_auc(frame(scores, 3), max_fmr=max_fmr, bins=bins)
    assert bounded.low <= exact <= bounded.high
    assert bounded.high - bounded.low <= 8 * np.spacing(exact)  # and no wider than the rounding


@SETTINGS
@given(st.lists(st.integers(0, 60), min_size=1, max_size=40), st.lists(st.integers(0, 60), min_size=1, max_size=40),
       st.integers(1, 3))
def test_roc_auc_bounds_hold_the_in_memory_value_to_the_last_bit(mated, nonmated, parts):
    """Where the bins separate every pair the bounds meet, and they are the in-memory value: as
    float sums of rates they were an ulp off (0.6666666666666667 for 4/6, on both bounds)."""
    scores = pd.DataFrame({"score": np.array(mated + nonmated, dtype=float),
                           "mated": np.repeat([True, False], [len(mated), len(nonmated)])})
    exact = bf.roc_auc(mated, nonmated)
    bounded = bp.roc_auc(frame(scores, parts))
    assert bounded.low <= exact <= bounded.high
    if bounded.exact:
        assert bounded.low == exact
    # integer scores in 65,536 bins: one score per bin, so D counts the pairs ordered and S the
    # pairs tied, and the bounds are D / MN and (D + S) / MN exactly
    ordered = sum(m > n for m in mated for n in nonmated)
    assert bounded.low == ordered / (len(mated) * len(nonmated))
    assert bounded.high == (ordered + sum(m == n for m in mated for n in nonmated)) / (len(mated) * len(nonmated))


@pytest.mark.parametrize("spread", [1e-16, 1e-13, 1e-9])
def test_area_bounds_of_scores_a_few_ulps_apart_hold_the_in_memory_value(spread):
    """Scores within ~1,000 ulps of 0.5 hold fewer floats than 65,536 bins: NumPy refused the
    edges ("Too many bins for data range"); the bins are halved until they can be cut."""
    rng = np.random.default_rng(7)
    n = 2_000
    scores = pd.DataFrame({"score": 0.5 + rng.integers(0, 1_000, n) * spread, "mated": np.arange(n) % 5 == 0,
                           "group": np.where(np.arange(n) % 2, "a", "b")})
    mated, nonmated = bf.split_scores(scores)
    bounded = bp.roc_auc(frame(scores, 3))
    assert bounded.low <= bf.roc_auc(mated, nonmated) <= bounded.high
    bounded = bp.partial_auc(frame(scores, 3), max_fmr=0.1)
    assert bounded.low <= bf.partial_auc(mated, nonmated, max_fmr=0.1) <= bounded.high


@pytest.mark.parametrize("scale", [1e-200, 1e-307, 1e-310, 1e160, 1e300, "group a at 1e-200"])
def test_scores_of_extreme_magnitudes_give_the_in_memory_values(scale):
    """At 1e-307 (normal floats) and 1e-310 (subnormal) every histogram pass raised IndexError
    (bins per unit of score overflowed), where the in-memory functions give numbers. CEI^A's
    merged moments lost the spread of scores of 1e-200 (squares below the smallest float) and
    overflowed at 1e160: percentiles of 46-52 or 100 where memory finds 100 and 99.3."""
    scores = table(3, 600, decimals=6)
    if isinstance(scale, str):  # one group far smaller than the others: scaled on its own
        scores.loc[scores["group"] == "a", "score"] *= 1e-200
    else:
        scores["score"] *= scale
    data = frame(scores, 3)
    for kind in ("mated", "nonmated"):
        for name in ("comprehensive_equity_index", "automatic_comprehensive_equity_index"):
            found, expected = (getattr(module, name)(scores if module is bf else data, kind=kind) for module in (bp, bf))
            assert found.parameters == expected.parameters
            assert (found.normal, found.extreme) == (expected.normal, expected.extreme)
    found, expected = bp.distribution_fairness_index(data), bf.distribution_fairness_index(scores)
    assert (found.normal, found.extreme) == (expected.normal, expected.extreme)
    exact = bf.roc_auc(*bf.split_scores(scores))
    bounded = bp.roc_auc(data, bins=256)
    assert bounded.low <= exact <= bounded.high


def test_fdr_flags_a_development_set_optimistic_as_in_memory(tmp_path):
    """bp flagged only ``dev=None``: the same files as ``dev``, or a development set sharing
    subjects with the evaluation set, were called unbiased where memory flags them."""
    scores = bf.synthetic.demographic_scores(rng=0)
    subjects = scores["reference_subject"].unique()
    on = [scores["reference_subject"].isin(half) & scores["probe_subject"].isin(half)
          for half in (subjects[::2], subjects[1::2])]
    dev, evaluation = scores[on[0]], scores[on[1]]
    cases = {"none": (evaluation, None), "itself": (evaluation, evaluation), "disjoint": (evaluation, dev),
             "sharing": (evaluation, pd.concat([dev, evaluation.iloc[:50]]))}
    for name, (here, there) in cases.items():
        paths = []
        for role, table in (("eval", here), ("dev", there)):
            if table is not None:
                paths.append(str(tmp_path / f"{name}-{role}.parquet"))
                table.to_parquet(paths[-1], index=False)
        dev_path = None if there is None else (paths[0] if there is here else paths[1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
            found = bp.fairness_discrepancy_rate(paths[0], dev=dev_path, fmr_targets=[1e-2])
            expected = bf.fairness_discrepancy_rate(here, dev=there, fmr_targets=[1e-2])
        assert found["optimistic"].tolist() == expected["optimistic"].tolist() == [name != "disjoint"], name
    # a missing subject id on both sides is no shared subject (pandas' isin matched NaN to NaN)
    with_gaps = [t.assign(reference_subject=t["reference_subject"].astype(object)) for t in (evaluation, dev)]
    for table in with_gaps:  # on a non-mated row: a mated one would contradict reference == probe
        table.iloc[int(np.argmin(table["mated"].to_numpy())), table.columns.get_loc("reference_subject")] = None
    gap_paths = [str(tmp_path / f"gap-{i}.parquet") for i in range(2)]
    for table, gap_path in zip(with_gaps, gap_paths):
        table.to_parquet(gap_path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        assert bp.fairness_discrepancy_rate(gap_paths[0], dev=gap_paths[1], fmr_targets=[1e-2])["optimistic"].tolist() == [False]
    data = bp.partitioned(paths[0])  # one Partitioned given twice is the same data
    assert bp.fairness_discrepancy_rate(data, dev=data, fmr_targets=[1e-2])["optimistic"].tolist() == [True]


@pytest.mark.parametrize("change", ["rewritten", "deleted"])
def test_files_that_change_after_the_census_are_refused(tmp_path, change):
    """A Partitioned kept the census and thresholds of files a pipeline then rewrote: later
    passes read the new rows and combined them with the old counts (negative error counts,
    an internal RuntimeError for a new target; a helper's audit). Every call now checks the
    files' size and modification time first."""
    for i, seed in enumerate((1, 2)):
        table(seed, 400, decimals=2).to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    data = bp.partitioned(str(tmp_path))
    frame = dd.read_parquet(str(tmp_path))
    before = bp.rates_by_group(data, [0.5])
    bp.census(frame)
    if change == "rewritten":
        table(3, 900, decimals=2).to_parquet(tmp_path / "part-1.parquet", index=False)
    else:
        (tmp_path / "part-1.parquet").unlink()
    stale = r"^1 Parquet file changed or vanished since this score set was first read: .*part-1\.parquet\. "
    for call in (lambda: bp.rates_by_group(data, [0.5]),  # counted before: nothing to read
                 lambda: bp.rates_by_group(data, [0.7]),  # a new pass
                 lambda: bp.tmr_at_fmr(data, 0.01), lambda: bp.partitioned(data), lambda: bp.census(frame)):
        with pytest.raises(SchemaError, match=stale):
            call()
    if change == "rewritten":  # read again, the files give what they now hold
        again = bp.rates_by_group(bp.partitioned(str(tmp_path)), [0.5])
        expected = bf.rates_by_group(pd.read_parquet(tmp_path), [0.5])
        assert again["false_matches"].tolist() == expected["false_matches"].tolist()
        assert again["false_matches"].tolist() != before["false_matches"].tolist()


def test_hive_folders_whose_values_read_as_one_number_are_named(tmp_path):
    """group=1/ and group=01/ (site codes): Dask failed with "Categorical categories must be
    unique", from deep inside its reader (a helper's audit)."""
    for folder, seed in (("group=1", 1), ("group=01", 2)):
        (tmp_path / folder).mkdir()
        table(seed, 200, decimals=2).drop(columns="group").to_parquet(tmp_path / folder / "part-0.parquet", index=False)
    with pytest.raises(SchemaError, match=r"hold values that read as the same number \(such as 1 and 01\)"):
        bp.census(str(tmp_path))


@pytest.mark.parametrize("read", [str, dd.read_parquet])
def test_a_hive_folder_of_missing_labels_is_named_with_its_rows(tmp_path, read):
    """Spark and Arrow write the rows of a missing group under group=__HIVE_DEFAULT_PARTITION__/:
    every function failed in its pass with Arrow's "No non-null segments were available for
    field 'group'; couldn't infer type", naming no folder, file or cause."""
    scores = table(0, 300, decimals=2)
    scores["group"] = scores["group"].where(np.arange(300) % 7 != 0)  # 43 rows without a group
    pq.write_to_dataset(pa.Table.from_pandas(scores, preserve_index=False), tmp_path, partition_cols=["group"])
    folder = tmp_path / "group=__HIVE_DEFAULT_PARTITION__"
    assert folder.is_dir()
    for function in (bp.census, bp.eer):
        with pytest.raises(SchemaError, match=re.escape(f"the folder {folder} (hive style, ") + ".* holds 43 rows "
                           "without a 'group' in 1 file, which Dask cannot read"):
            function(read(str(tmp_path)))


@pytest.mark.parametrize("threshold, error, message", [(float("nan"), ValueError, "threshold is NaN"),
                                                       ("3.5", TypeError, "threshold must be a number")])
def test_outcome_fairness_names_a_bad_threshold_as_in_memory(threshold, error, message):
    """Out of core said 'thresholds has 1 NaN values', naming an argument that does not exist."""
    scores = bf.read_scores(bf.datasets.example_scores_path())
    for compute, data in ((bf.outcome_fairness, scores), (bp.outcome_fairness, frame(scores, 2))):
        with pytest.raises(error, match=f"^{message}"):
            compute(data, threshold=threshold)


@pytest.mark.parametrize("option, error, message", [
    ({"correction": "no"}, TypeError, r"correction must be True or False, got 'no'$"),
    ({"zero": "bound"}, ValueError, r"zero must be 'upper_bound' or 'raise', got 'bound'$"),
    ({"confidence": 1.0}, ValueError, r"confidence must lie in \(0, 1\), got 1\.0$"),
    ({"confidence": "95%"}, TypeError, r"confidence must be a number, got '95%'$"),
])
def test_outcome_fairness_checks_its_options_before_reading(option, error, message):
    """correction="no" applied the correction; out of core, zero= was checked only after every
    pass over the data."""
    scores = bf.read_scores(bf.datasets.example_scores_path())
    for compute, data in ((bf.outcome_fairness, scores), (bp.outcome_fairness, frame(scores, 2))):
        with pytest.raises(error, match=f"^{message}"):
            compute(data, threshold=0.5, **option)
