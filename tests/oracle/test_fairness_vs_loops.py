"""Fairness indices against direct loops, scipy's relative entropy and worked values."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import rel_entr

import biofair as bf
from biofair.distribution_fairness import _kl_divergence_bits
from exact import split_mean_divergences


@pytest.fixture(scope="module")
def table():
    """Three groups of different sizes and shifts, with ties, and per-side groups."""
    rng = np.random.default_rng(11)
    frames = []
    for name, shift, n_mated, n_nonmated in (("a", 0.0, 300, 3000), ("b", 0.3, 200, 2500), ("c", -0.2, 250, 4000)):
        frames.append(pd.DataFrame({
            "score": np.round(np.concatenate([rng.normal(2 + shift, 1, n_mated), rng.normal(shift, 1, n_nonmated)]), 2),
            "mated": np.repeat([True, False], [n_mated, n_nonmated]),
            "reference_group": name,
            "probe_group": name,
        }))
    # Cross-group non-mated pairs: excluded from per-group FMR, shown in cross_group_fmr.
    frames.append(pd.DataFrame({"score": np.round(rng.normal(-0.5, 1, 900), 2), "mated": False,
                                "reference_group": np.repeat(["a", "b", "c"], 300),
                                "probe_group": np.repeat(["b", "c", "a"], 300)}))
    return pd.concat(frames, ignore_index=True)


def loop_group_rates(table, threshold):
    rows = {}
    for name in sorted(set(table["reference_group"])):
        homogeneous = (table["reference_group"] == name) & (table["probe_group"] == name)
        nonmated = [s for s, m, h in zip(table["score"], table["mated"], homogeneous) if h and not m]
        mated = [s for s, m, h in zip(table["score"], table["mated"], homogeneous) if h and m]
        rows[name] = (sum(s >= threshold for s in nonmated) / len(nonmated), sum(s < threshold for s in mated) / len(mated))
    return rows


def test_rates_by_group_equal_loops(table):
    thresholds = [0.5, 1.5, 2.57, 3.0]
    rates = bf.rates_by_group(table, thresholds)
    for threshold in thresholds:
        expected = loop_group_rates(table, threshold)
        got = rates[rates["threshold"] == threshold].set_index("group")
        for name, (fmr, fnmr) in expected.items():
            assert (got.loc[name, "fmr"], got.loc[name, "fnmr"]) == (fmr, fnmr)


def test_cross_group_fmr_equals_loop(table):
    cross = bf.cross_group_fmr(table, 1.0)
    nonmated = table[~table["mated"]]
    for (ref, probe), cell in nonmated.groupby(["reference_group", "probe_group"]):
        assert cross.loc[ref, probe] == np.mean(cell["score"].to_numpy() >= 1.0)
    assert np.isnan(cross.loc["a", "c"])  # no a x c pairs: NaN, not 0


def test_fdr_equals_loop_over_group_pairs(table):
    targets = [0.1, 0.01, 0.001]
    fdr = bf.fairness_discrepancy_rate(table, fmr_targets=targets, alpha=0.3)
    homogeneous = table["reference_group"] == table["probe_group"]
    pooled = table.loc[homogeneous & ~table["mated"], "score"].to_numpy()
    for row in fdr.itertuples():
        assert row.threshold == bf.threshold_at_fmr(pooled, row.fmr_target)
        rates = loop_group_rates(table, row.threshold)
        a = max(abs(rates[i][0] - rates[j][0]) for i, j in itertools.product(rates, rates))
        b = max(abs(rates[i][1] - rates[j][1]) for i, j in itertools.product(rates, rates))
        assert (row.A, row.B) == (a, b)
        assert row.fdr == pytest.approx(1 - (0.3 * a + 0.7 * b), abs=1e-15)
    assert fdr["optimistic"].all()


@pytest.mark.parametrize("fmr", [0.1, 1e-3, 4e-4, 1e-4])  # 9,500 pooled: precise, resolved twice, unresolved
def test_outcome_fairness_counts_and_resolution_equal_loops(table, fmr):
    homogeneous = table["reference_group"] == table["probe_group"]
    pooled = table.loc[homogeneous & ~table["mated"], "score"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        warnings.simplefilter("ignore", bf.UndefinedRateWarning)  # tied tails: no group reaches the threshold
        outcome = bf.outcome_fairness(table, fmr=fmr)
        threshold = bf.threshold_at_fmr(pooled, fmr)
    assert outcome.threshold == threshold and outcome.fmr_target == fmr
    assert outcome.k == sum(s >= threshold for s in pooled)
    allowed = fmr * pooled.size  # 950, 9.5, 3.8 and 0.95 false matches
    assert (outcome.resolved, outcome.precise) == (allowed >= 3, allowed >= 30)
    for row in outcome.rates.itertuples():
        cell = table[homogeneous & (table["reference_group"] == row.group)]
        nonmated, mated = cell.loc[~cell["mated"], "score"], cell.loc[cell["mated"], "score"]
        assert (row.false_matches, row.n_nonmated) == (sum(s >= threshold for s in nonmated), len(nonmated))
        assert (row.false_non_matches, row.n_mated) == (sum(s < threshold for s in mated), len(mated))
        assert (row.fmr, row.fnmr) == (row.false_matches / row.n_nonmated, row.false_non_matches / row.n_mated)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.UndefinedRateWarning)
        at_threshold = bf.outcome_fairness(table, threshold=threshold)
    assert np.isnan(at_threshold.fmr_target) and at_threshold.k == outcome.k
    assert at_threshold.resolved is None and at_threshold.precise is None


def test_area_under_fdr_reference_values():
    fdr = [0.80145, 0.5065, 0.50205, 0.50085, 0.5004, 0.50005]
    targets = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]
    assert bf.area_under_fdr(fdr, targets) == pytest.approx(0.63898, abs=5e-6)
    assert bf.area_under_fdr(fdr, targets, scale="log10") == pytest.approx(0.53211, abs=5e-6)
    # The order in which targets are given does not matter.
    assert bf.area_under_fdr(fdr[::-1], targets[::-1]) == bf.area_under_fdr(fdr, targets)


def loop_garbe(x, correction):
    k = len(x)
    total = sum(abs(a - b) for a in x for b in x)
    mean = sum(x) / k
    value = total / (2 * k * k * mean)
    return value * k / (k - 1) if correction else value


@pytest.mark.parametrize("rates", [[0.1, 0.2, 0.3], [0.001, 0.0005, 0.002, 0.0001], [0.5, 0.5], [0.0, 0.3]])
@pytest.mark.parametrize("correction", [True, False])
def test_garbe_equals_double_loop(rates, correction):
    assert bf.garbe(rates, correction=correction) == pytest.approx(loop_garbe(rates, correction), abs=1e-15)


@pytest.mark.parametrize("k", range(2, 13))
@pytest.mark.parametrize("rate", [0.1, 0.3, 1e-5, 0.7, 2.0**-1074])
def test_garbe_of_one_group_holding_every_error_is_at_most_its_bound(k, rate):
    """[0.1, 0, 0, 0] gave 1.0000000000000002 (rounding), beyond GARBE's range [0, 1]."""
    rates = [0.0] * (k - 1) + [rate]
    assert bf.garbe(rates) == pytest.approx(1.0, abs=1e-15) and bf.garbe(rates) <= 1.0
    assert bf.garbe(rates, correction=False) <= (k - 1) / k


@pytest.mark.parametrize("rates", [[0.1, 0.2, 0.3], [0.001, 0.0005, 0.002, 0.0001], [0.5, 0.5]])
def test_inequity_equals_loop(rates):
    product = 1.0
    for x in rates:
        product *= x
    assert bf.inequity(rates) == pytest.approx(max(rates) / product ** (1 / len(rates)), rel=1e-12)


def test_inequity_bounds_zero_rates_and_names_them():
    with pytest.warns(bf.UndefinedRateWarning, match=r": 1 rate at position 1$"):
        value = bf.inequity([0.01, 0.0], counts=[1000, 300])
    bound = 1 - 0.05 ** (1 / 300)
    assert value == pytest.approx(0.01 / np.sqrt(0.01 * bound), rel=1e-13)


def test_kl_divergence_equals_scipy():
    rng = np.random.default_rng(3)
    p = rng.random((5, 30))
    p[:, ::4] = 0
    p /= p.sum(axis=1, keepdims=True)
    m = p.mean(axis=0)
    expected = rel_entr(p, m).sum(axis=1) / np.log(2)
    np.testing.assert_allclose(_kl_divergence_bits(p, m), expected, rtol=1e-12, atol=1e-15)


def _pmf(values, edges):
    counts = np.histogram(values, bins=edges)[0].astype(float)
    return counts / counts.sum()


def test_dfi_from_scratch(table):
    homogeneous = table[table["reference_group"] == table["probe_group"]]
    by_group = {n: g["score"].to_numpy() for n, g in homogeneous.groupby("reference_group")}
    edges = np.linspace(homogeneous["score"].min(), homogeneous["score"].max(), 41)
    pmfs = {n: _pmf(v, edges) for n, v in by_group.items()}
    mean = sum(pmfs.values()) / 3
    s = {n: rel_entr(p, mean).sum() / np.log(2) for n, p in pmfs.items()}
    dfi = bf.distribution_fairness_index(table, bins=40)
    assert dfi.normal == pytest.approx(1 - sum(s.values()) / (3 * np.log2(3)), abs=1e-12)
    assert dfi.extreme == pytest.approx(1 - max(s.values()) / np.log2(3), abs=1e-12)
    assert dfi.parameters == {"bins": 40, "combine": "pooled"}


def test_cei_from_scratch(table):
    homogeneous = table[(table["reference_group"] == table["probe_group"]) & ~table["mated"]]
    by_group = {n: g["score"].to_numpy() for n, g in homogeneous.groupby("reference_group")}
    tails = {n: v[v >= np.percentile(v, 90)] for n, v in by_group.items()}
    centres = {n: v[v < np.percentile(v, 90)] for n, v in by_group.items()}

    def divergences(parts):
        values = np.concatenate(list(parts.values()))
        edges = np.linspace(values.min(), values.max(), 21)
        pmfs = {n: _pmf(v, edges) for n, v in parts.items()}
        mean = sum(pmfs.values()) / len(pmfs)
        return {n: rel_entr(p, mean).sum() / np.log(2) for n, p in pmfs.items()}

    tail, centre = divergences(tails), divergences(centres)
    s = {n: 0.7 * tail[n] + 0.3 * centre[n] for n in by_group}
    cei = bf.comprehensive_equity_index(table, kind="nonmated", percentile=90, tail_weight=0.7, bins=20)
    assert cei.normal == pytest.approx(1 - sum(s.values()) / (3 * np.log2(3)), abs=1e-12)
    assert cei.extreme == pytest.approx(1 - max(s.values()) / np.log2(3), abs=1e-12)
    for name in s:
        assert cei.divergences[name] == pytest.approx(s[name], abs=1e-12)


def test_automatic_cei_parameters_by_hand(table):
    homogeneous = table[(table["reference_group"] == table["probe_group"]) & table["mated"]]
    cei = bf.automatic_comprehensive_equity_index(table, kind="mated", n_std=2)
    shares = []
    for name, group in homogeneous.groupby("reference_group"):
        v = group["score"].to_numpy()
        cut = v.mean() - 2 * v.std()
        beyond = np.mean(v < cut)
        assert cei.parameters["percentiles"][name] == pytest.approx(100 * (1 - beyond))
        ratio = beyond / (1 - 0.9772498680518208)  # 1 - Phi(2)
        shares.append(1 / (1 + np.exp(-ratio)) * (1 - beyond))
    assert cei.parameters["tail_weight"] == pytest.approx(np.mean(shares), rel=1e-9)
    assert cei.parameters["n_std"] == 2


def test_n_sigma_and_welch_equal_formulas():
    from scipy import stats
    a, b = [0.1, 0.15, 0.12, 0.2], [0.3, 0.25, 0.28]
    expected = abs(np.mean(a) - np.mean(b)) / np.sqrt(np.var(a, ddof=1) + np.var(b, ddof=1))
    assert bf.n_sigma(a, b) == pytest.approx(expected, rel=1e-12)
    # Welch's t by hand, p-value from the t distribution with Welch-Satterthwaite df
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    t = (np.mean(a) - np.mean(b)) / np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    assert bf.welch_similarity(a, b) == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-10)
    assert bf.statistical_parity([0.1, 0.2, 0.3], [0.2, 0.2, 0.1]) == pytest.approx(1 - 0.1, rel=1e-15)
    assert bf.equal_opportunity([0.9, 0.95], [0.8, 0.95]) == pytest.approx(0.95, rel=1e-15)


def test_cei_split_mean_reading_from_scratch(table):
    """The paper's other reading: the mean distribution split at its own percentile."""
    homogeneous = table[(table["reference_group"] == table["probe_group"]) & table["mated"]]
    by_group = {n: g["score"].to_numpy() for n, g in homogeneous.groupby("reference_group")}
    edges = np.linspace(homogeneous["score"].min(), homogeneous["score"].max(), 31)
    smooth = 1e-6

    def pmf(values):
        counts = np.histogram(values, bins=edges)[0] + 0.0
        counts /= counts.sum()
        return (counts + smooth) / (counts + smooth).sum()

    mean = sum(np.histogram(v, bins=edges)[0] / v.size for v in by_group.values()) / 3
    split_bin = np.searchsorted(np.cumsum(mean), 0.10)  # mated: left tail of 10% of the mass
    tail_bins = np.arange(30) <= split_bin
    mean_tail = np.where(tail_bins, mean, 0) / mean[tail_bins].sum()
    mean_centre = np.where(tail_bins, 0, mean) / mean[~tail_bins].sum()
    mean_tail = (mean_tail + smooth) / (mean_tail + smooth).sum()
    mean_centre = (mean_centre + smooth) / (mean_centre + smooth).sum()
    s = {}
    for name, v in by_group.items():
        low = v <= np.percentile(v, 10)
        s[name] = (0.8 * rel_entr(pmf(v[low]), mean_tail).sum() + 0.2 * rel_entr(pmf(v[~low]), mean_centre).sum()) / np.log(2)
    cei = bf.comprehensive_equity_index(table, kind="mated", percentile=90, bins=30, mean_tail="split_mean")
    assert cei.extreme == pytest.approx(1 - max(s.values()) / np.log2(3), abs=1e-9)
    assert cei.parameters["mean_tail"] == "split_mean" and cei.parameters["smoothing"] == 1e-6


def split_mean_cei_normal(groups, kind: str, percentile: float, bins: int, smoothing: float = 1e-6) -> float:
    """CEI_N of the split_mean reading (w_t = 0.8), from exact divergences (tests/exact.py)."""
    divergences = split_mean_divergences(groups, kind, percentile, bins, smoothing)
    return 1 - sum(divergences) / (len(groups) * math.log2(len(groups)))


def test_cei_split_mean_reading_splits_an_exact_share_one_way_on_both_sides():
    """Each group's lowest mated score (1 of 20) fills the first of 10 bins: the mean's first
    bin holds exactly 5%, the left tail at P = 95. ``1 - 95/100`` rounds above 0.05, and the
    tail took a second bin (CEI_N -0.33 at P = 95, 0.96 at P = 95 + 1e-9). The non-mated side
    split the mirrored scores elsewhere (from the bin where the cumulative share reached 95%).
    Found by an independent reimplementation in exact fractions."""
    a, b = np.r_[0.0, np.linspace(5, 10, 19)], np.r_[0.0, np.linspace(3, 10, 19)]
    mated = pd.DataFrame({"score": np.r_[a, b, [0, 1, 0, 1]], "mated": [True] * 40 + [False] * 4,
                          "group": ["a"] * 20 + ["b"] * 20 + ["a", "a", "b", "b"]})
    nonmated = mated.assign(score=-mated["score"], mated=~mated["mated"])

    def cei(table, kind, percentile):
        return bf.comprehensive_equity_index(table, kind=kind, percentile=percentile, bins=10, mean_tail="split_mean")

    at_95 = cei(mated, "mated", 95)
    assert at_95.normal == cei(mated, "mated", 95 + 1e-9).normal == pytest.approx(0.9634475229, abs=1e-9)
    assert cei(mated, "mated", 95 - 1e-9).normal == pytest.approx(-0.3290866574, abs=1e-9)  # a 5% - 1e-11 tail: 2 bins
    mirrored = cei(nonmated, "nonmated", 95)
    # what the exact-fraction reimplementation gives; not the mated value, as scores such as 5 sit on
    # bin edges, and np.histogram's half-open bins put 5 and -5 in bins that are not mirror images
    assert mirrored.normal == pytest.approx(0.9770792551, abs=1e-9)
    # the three values from the exact-fraction oracle above
    for found, groups, kind, percentile in ((at_95, [a, b], "mated", 95), (mirrored, [-a, -b], "nonmated", 95)):
        assert found.normal == pytest.approx(split_mean_cei_normal(groups, kind, percentile, 10), abs=1e-14)
    assert cei(mated, "mated", 95 - 1e-9).normal == pytest.approx(split_mean_cei_normal([a, b], "mated", 95 - 1e-9, 10),
                                                                  abs=1e-14)
    assert cei(nonmated, "nonmated", 95 + 1e-9).normal == mirrored.normal


def test_cei_split_mean_reading_can_leave_the_unit_interval():
    rng = np.random.default_rng(1)
    far_apart = pd.DataFrame({
        "score": np.concatenate([rng.normal(0, 1, 500), rng.normal(-5, 1, 500), rng.normal(20, 1, 500), rng.normal(-5, 1, 500)]),
        "mated": np.tile(np.repeat([True, False], 500), 2),
        "group": np.repeat(["a", "b"], 1000),
    })
    groups_reading = bf.comprehensive_equity_index(far_apart, kind="mated")
    split_reading = bf.comprehensive_equity_index(far_apart, kind="mated", mean_tail="split_mean")
    assert 0 <= groups_reading.extreme <= 1
    assert split_reading.extreme < 0
    with pytest.raises(ValueError, match="mean_tail must be"):
        bf.comprehensive_equity_index(far_apart, mean_tail="mean")
