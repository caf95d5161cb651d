"""The metrics an audit of the suite found without an independent oracle or a property test:
each against its definition (SPEC.md and the docstrings, written out here), scipy,
scikit-learn or a loop, and hypothesis properties (bounds, order, monotone maps, identical
groups). Partitioned metrics against brute force, whatever the partitioning.
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import optimize, stats
from scipy.special import rel_entr
from sklearn.isotonic import IsotonicRegression

import biofair as bf
from biofair import partitions as bp

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
score_arrays = arrays(np.float64, st.integers(1, 30), elements=st.integers(-8, 8).map(float))


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        warnings.simplefilter("ignore", bf.UndefinedRateWarning)
        warnings.simplefilter("ignore", bf.CoarseHistogramWarning)
        return call(*args, **kwargs)


def increasing(x):
    return np.exp(np.asarray(x, dtype=float) / 7.0) * 3 - 1


def group_table(seed, n_groups=3, n_mated=60, n_nonmated=300, decimals=1, shifts=None):
    rng = np.random.default_rng(seed)
    frames = []
    for i in range(n_groups):
        s = (shifts[i] if shifts is not None else rng.uniform(-0.7, 0.7))
        frames.append(pd.DataFrame({
            "score": np.round(np.r_[rng.normal(2 + s, 1, n_mated), rng.normal(s, 1, n_nonmated)], decimals),
            "mated": np.repeat([True, False], [n_mated, n_nonmated]),
            "group": f"g{i}",
        }))
    return pd.concat(frames, ignore_index=True)


def pmf(values, edges):
    counts = np.histogram(values, bins=edges)[0].astype(float)
    return counts / counts.sum()


def kl_bits(p, m):
    return rel_entr(p, m).sum() / np.log(2)


# =============================================================================================
# 1. Distribution fairness: DFI combine="equal", CEI on the mated side, CEI^A's final value
# =============================================================================================


@pytest.mark.parametrize("seed", range(3))
def test_dfi_equal_combine_from_scratch(seed):
    """SPEC 5: combine="equal" averages each group's mated and non-mated pmfs (common bins over
    the pooled range). The existing oracle test_dfi_from_scratch covers "pooled" only."""
    table = group_table(seed)
    edges = np.linspace(table["score"].min(), table["score"].max(), 26)
    p = {}
    for name, g in table.groupby("group"):
        p[name] = (pmf(g.loc[g["mated"], "score"], edges) + pmf(g.loc[~g["mated"], "score"], edges)) / 2
    mean = sum(p.values()) / len(p)
    s = {n: kl_bits(v, mean) for n, v in p.items()}
    k = len(p)
    dfi = bf.distribution_fairness_index(table, bins=25, combine="equal")
    assert dfi.normal == pytest.approx(1 - sum(s.values()) / (k * np.log2(k)), abs=1e-12)
    assert dfi.extreme == pytest.approx(1 - max(s.values()) / np.log2(k), abs=1e-12)


def cei_from_spec(table, kind, percentile, tail_weight, bins, percentiles=None):
    """SPEC 5, CEI: per group a tail (non-mated: >= its P-th percentile; mated: <= its
    (100-P)-th percentile) and a centre; tails share bins over the union of tail ranges,
    centres over the union of centre ranges; S'_i = w_t KL(t_i||m_t) + w_c KL(c_i||m_c)."""
    part = table[table["mated"] == (kind == "mated")]
    tails, centres = {}, {}
    for name, g in part.groupby("group"):
        v = g["score"].to_numpy()
        p = percentile if percentiles is None else percentiles[name]
        if kind == "nonmated":
            tail = v >= np.percentile(v, p)
        else:
            tail = v <= np.percentile(v, 100 - p)
        tails[name], centres[name] = v[tail], v[~tail]

    def divergences(parts):
        values = np.concatenate(list(parts.values()))
        edges = np.linspace(values.min(), values.max(), bins + 1)
        pmfs = {n: pmf(v, edges) for n, v in parts.items()}
        mean = sum(pmfs.values()) / len(pmfs)
        return {n: kl_bits(v, mean) for n, v in pmfs.items()}

    t, c = divergences(tails), divergences(centres)
    s = {n: tail_weight * t[n] + (1 - tail_weight) * c[n] for n in t}
    k = len(s)
    return 1 - sum(s.values()) / (k * np.log2(k)), 1 - max(s.values()) / np.log2(k), s


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("percentile, tail_weight", [(95.0, 0.8), (80.0, 0.6)])
def test_cei_mated_left_tail_from_scratch(seed, percentile, tail_weight):
    """The existing from-scratch CEI test covers kind="nonmated" only; the mated side's left
    tail (scores <= the (100 - P)-th percentile) had no independent oracle."""
    table = group_table(seed, decimals=2)
    normal, extreme, s = cei_from_spec(table, "mated", percentile, tail_weight, 20)
    cei = bf.comprehensive_equity_index(table, kind="mated", percentile=percentile, tail_weight=tail_weight, bins=20)
    assert cei.normal == pytest.approx(normal, abs=1e-12)
    assert cei.extreme == pytest.approx(extreme, abs=1e-12)
    for name in s:
        assert cei.divergences[name] == pytest.approx(s[name], abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["mated", "nonmated"])
@pytest.mark.parametrize("n_std", [1.0, 2.0])
def test_automatic_cei_value_from_scratch(seed, kind, n_std):
    """SPEC 5, CEI^A: t_i = mu_i -/+ N sigma_i, P_i = 100 * share on the centre side,
    Delta_i = share beyond / (1 - Phi(N)), w_t = mean sigmoid(Delta_i) P_i / 100; then CEI
    with each group's own P_i. The existing test checks the parameters only, not the index."""
    table = group_table(seed, n_mated=200, n_nonmated=400, decimals=3)
    part = table[table["mated"] == (kind == "mated")]
    percentiles, shares = {}, []
    for name, g in part.groupby("group"):
        v = g["score"].to_numpy()
        mu, sigma = v.mean(), v.std()
        beyond = np.mean(v < mu - n_std * sigma) if kind == "mated" else np.mean(v > mu + n_std * sigma)
        assert beyond > 0  # the tables here always have a non-empty tail
        percentiles[name] = 100 * (1 - beyond)
        delta = beyond / stats.norm.sf(n_std)
        shares.append(1 / (1 + np.exp(-delta)) * (1 - beyond))
    w_t = float(np.mean(shares))
    normal, extreme, _ = cei_from_spec(table, kind, None, w_t, 30, percentiles=percentiles)
    auto = bf.automatic_comprehensive_equity_index(table, kind=kind, n_std=n_std, bins=30)
    assert auto.parameters["tail_weight"] == pytest.approx(w_t, rel=1e-9)
    assert auto.normal == pytest.approx(normal, abs=1e-9)
    assert auto.extreme == pytest.approx(extreme, abs=1e-9)


@FAST
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["mated", "nonmated"]),
       exponent=st.sampled_from([-3, 2, 5]))
def test_distribution_indices_invariant_to_power_of_two_scaling(seed, kind, exponent):
    """Histograms on equal-width bins over the data's own range: scaling every score by a
    power of two scales every edge and percentile exactly, so DFI and CEI cannot change.
    (A general affine map is not exact: a score can round onto a bin edge; seed 2370 with
    4x + 1 moves one score onto an edge and changes CEI_N by 1.6e-5 -- a property of binning,
    not a bug.)"""
    table = group_table(seed % 1000, decimals=3)
    moved = table.assign(score=np.ldexp(table["score"].to_numpy(), exponent))
    for f in (lambda t: bf.distribution_fairness_index(t, bins=20),
              lambda t: bf.comprehensive_equity_index(t, kind=kind, bins=20)):
        a, b = quiet(f, table), quiet(f, moved)
        assert (a.normal, a.extreme) == (b.normal, b.extreme)


# =============================================================================================
# 2. Outcome fairness: the GARBE / Inequity fields from loop rates
# =============================================================================================


def loop_garbe(x, correction=True):
    k = len(x)
    value = sum(abs(a - b) for a in x for b in x) / (2 * k * k * (sum(x) / k))
    return value * k / (k - 1) if correction else value


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alpha", [0.5, 0.2])
def test_outcome_fairness_indices_from_loop_rates(seed, alpha):
    """The existing oracle checks the counts behind outcome_fairness; here GARBE, Inequity and
    their alpha-combinations are recomputed from loop rates (SPEC 4), zero rates replaced by
    1 - 0.05^(1/n_i)."""
    table = group_table(seed, decimals=2)
    threshold = 1.3
    fmrs, fnmrs, n_non, n_mat = [], [], [], []
    for _, g in sorted(table.groupby("group")):
        non, mat = g.loc[~g["mated"], "score"].to_numpy(), g.loc[g["mated"], "score"].to_numpy()
        fmrs.append(sum(s >= threshold for s in non) / non.size)
        fnmrs.append(sum(s < threshold for s in mat) / mat.size)
        n_non.append(non.size)
        n_mat.append(mat.size)

    def inequity(x, n):
        x = [r if r > 0 else 1 - 0.05 ** (1 / ni) for r, ni in zip(x, n)]
        return max(x) / math.prod(x) ** (1 / len(x))

    out = quiet(bf.outcome_fairness, table, threshold=threshold, alpha=alpha)
    assert out.garbe_fmr == pytest.approx(loop_garbe(fmrs), abs=1e-12)
    assert out.garbe_fnmr == pytest.approx(loop_garbe(fnmrs), abs=1e-12)
    assert out.inequity_fmr == pytest.approx(inequity(fmrs, n_non), rel=1e-12)
    assert out.inequity_fnmr == pytest.approx(inequity(fnmrs, n_mat), rel=1e-12)
    assert out.garbe == pytest.approx(alpha * loop_garbe(fmrs) + (1 - alpha) * loop_garbe(fnmrs), abs=1e-12)


@FAST
@given(seed=st.integers(0, 2**32 - 1))
def test_fdr_with_a_development_split_equals_loops(seed):
    """SPEC 4: thresholds from the pooled homogeneous non-mated scores of the dev split, rates on
    the evaluation split. The loop oracle in the suite covers the same-split case only."""
    evaluation = group_table(seed % 10_000, decimals=2)
    dev = group_table(seed % 10_000 + 1, decimals=2, n_nonmated=500)
    targets = [0.3, 0.1, 0.02]
    fdr = bf.fairness_discrepancy_rate(evaluation, dev=dev, fmr_targets=targets, alpha=0.4)
    pooled = dev.loc[~dev["mated"], "score"].to_numpy()
    candidates = np.append(np.unique(pooled), np.nextafter(pooled.max(), np.inf))
    for row, target in zip(fdr.itertuples(), targets):
        t = min(c for c in candidates if np.sum(pooled >= c) / pooled.size <= target)
        assert row.threshold == t
        rates = {}
        for name, g in evaluation.groupby("group"):
            non, mat = g.loc[~g["mated"], "score"], g.loc[g["mated"], "score"]
            rates[name] = (np.mean(non >= t), np.mean(mat < t))
        a = max(abs(rates[i][0] - rates[j][0]) for i, j in itertools.product(rates, rates))
        b = max(abs(rates[i][1] - rates[j][1]) for i, j in itertools.product(rates, rates))
        assert row.A == pytest.approx(a, abs=1e-15) and row.B == pytest.approx(b, abs=1e-15)
        assert row.fdr == pytest.approx(1 - (0.4 * a + 0.6 * b), abs=1e-15)
        assert not row.optimistic


@FAST
@given(fdr=st.lists(st.floats(0, 1), min_size=2, max_size=6), seed=st.integers(0, 2**32 - 1),
       scale=st.sampled_from(["linear", "log10"]))
def test_area_under_fdr_bounds_constant_and_order(fdr, seed, scale):
    """Properties of area_under_fdr (only reference values were tested): an FDR that is constant
    c gives area c; the area lies between min and max FDR; the order of the pairs is free."""
    targets = 10.0 ** -np.arange(1, len(fdr) + 1)
    area = bf.area_under_fdr(fdr, targets, scale=scale)
    assert min(fdr) - 1e-12 <= area <= max(fdr) + 1e-12
    perm = np.random.default_rng(seed).permutation(len(fdr))
    assert bf.area_under_fdr(np.array(fdr)[perm], targets[perm], scale=scale) == pytest.approx(area, abs=1e-15)
    assert bf.area_under_fdr([fdr[0]] * len(fdr), targets, scale=scale) == pytest.approx(fdr[0], abs=1e-12)


@pytest.mark.parametrize("scale", ["linear", "log10"])
def test_area_under_fdr_from_the_definition(scale):
    """Trapezoid over the targets min-max scaled to [0, 1] (linear) or over log10 targets."""
    fdr = np.array([0.9, 0.7, 0.75, 0.4])
    targets = np.array([0.2, 0.05, 0.01, 1e-4])
    x = targets if scale == "linear" else np.log10(targets)
    order = np.argsort(x)
    x, y = x[order], fdr[order]
    x = (x - x.min()) / (x.max() - x.min())
    expected = float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2))
    assert bf.area_under_fdr(fdr, targets, scale=scale) == pytest.approx(expected, abs=1e-12)


# =============================================================================================
# 3. Group rates and sizes
# =============================================================================================


@FAST
@given(seed=st.integers(0, 2**32 - 1), thresholds=st.lists(st.integers(-30, 40).map(lambda k: k / 10),
                                                           min_size=1, max_size=6, unique=True))
def test_rates_by_group_monotone_order_free_and_invariant_to_increasing_maps(seed, thresholds):
    table = group_table(seed % 10_000)
    t = np.sort(thresholds)
    rates = bf.rates_by_group(table, t)
    for _, g in rates.groupby("group"):
        g = g.sort_values("threshold")
        assert (np.diff(g["fmr"]) <= 0).all() and (np.diff(g["fnmr"]) >= 0).all()
        assert g[["fmr", "fnmr"]].stack().between(0, 1).all()
    shuffled = table.sample(frac=1.0, random_state=seed % 2**31).reset_index(drop=True)
    again = bf.rates_by_group(shuffled, t)
    key = ["group", "threshold"]
    pd.testing.assert_frame_equal(rates.sort_values(key, ignore_index=True)[["fmr", "fnmr"]],
                                  again.sort_values(key, ignore_index=True)[["fmr", "fnmr"]])
    moved = bf.rates_by_group(table.assign(score=increasing(table["score"])), increasing(t))
    np.testing.assert_array_equal(moved.sort_values(key)["fmr"], rates.sort_values(key)["fmr"])
    np.testing.assert_array_equal(moved.sort_values(key)["fnmr"], rates.sort_values(key)["fnmr"])


@pytest.mark.parametrize("seed", range(3))
def test_group_sizes_equal_loops(seed):
    rng = np.random.default_rng(seed)
    n = 900
    ref = rng.choice(["a", "b", "c"], n)
    probe = np.where(rng.random(n) < 0.2, rng.choice(["a", "b", "c"], n), ref)
    mated = (rng.random(n) < 0.2) & (probe == ref)
    table = pd.DataFrame({"score": rng.normal(size=n), "mated": mated, "reference_group": ref,
                          "probe_group": probe, "reference_subject": rng.integers(0, 40, n).astype(str)})
    sizes = bf.group_sizes(table, min_mated=50, min_nonmated=200, min_subjects=5)
    for name in "abc":
        own = (ref == name) & (probe == name)
        n_mat, n_non = int(np.sum(own & mated)), int(np.sum(own & ~mated))
        assert sizes.loc[name, "n_mated"] == n_mat and sizes.loc[name, "n_nonmated"] == n_non
        assert sizes.loc[name, "fmr_resolution"] == 1 / n_non
        # n_subjects counts the reference subjects of the group's own comparisons (those its rates
        # read): a subject seen only in cross-group pairs is not counted (seed 0: 39, not 40)
        subjects = len(set(table.loc[own, "reference_subject"]))
        assert sizes.loc[name, "n_subjects"] == subjects
        assert sizes.loc[name, "small"] == (n_mat < 50 or n_non < 200 or subjects < 5)
    assert sizes.loc["(cross-group)", "n_nonmated"] == int(np.sum(ref != probe))


@FAST
@given(seed=st.integers(0, 2**32 - 1), threshold=st.integers(-20, 30).map(lambda k: k / 10))
def test_cross_group_fmr_diagonal_is_the_homogeneous_fmr_and_invariant(seed, threshold):
    rng = np.random.default_rng(seed)
    n = 600
    ref = rng.choice(["a", "b"], n)
    probe = np.where(rng.random(n) < 0.5, rng.choice(["a", "b"], n), ref)
    mated = (rng.random(n) < 0.15) & (probe == ref)
    table = pd.DataFrame({"score": np.round(rng.normal(np.where(mated, 2, 0)), 1), "mated": mated,
                          "reference_group": ref, "probe_group": probe})
    cross = bf.cross_group_fmr(table, threshold)
    rates = bf.rates_by_group(table, [threshold]).set_index("group")
    for g in ("a", "b"):
        assert cross.loc[g, g] == rates.loc[g, "fmr"]
        for h in ("a", "b"):
            cell = table[(table["reference_group"] == g) & (table["probe_group"] == h) & ~table["mated"]]
            assert cross.loc[g, h] == pytest.approx(np.mean(cell["score"] >= threshold), abs=0)
    moved = bf.cross_group_fmr(table.assign(score=increasing(table["score"])), float(increasing(threshold)))
    pd.testing.assert_frame_equal(moved, cross)


# =============================================================================================
# 4. Subset bias
# =============================================================================================


@pytest.mark.parametrize("seed", range(4))
def test_subset_bias_columns_equal_scipy_and_the_formulas(seed):
    """subset_bias against scipy.stats.ttest_ind(equal_var=False), N-Sigma's formula (ddof=1)
    and 1 - mean|a_k - b_k|; reference = lowest mean. The suite only hand-checks parity."""
    rng = np.random.default_rng(seed)
    values = {g: np.clip(rng.normal(m, 0.02, 12), 0, 1) for g, m in (("a", 0.1), ("b", 0.12), ("c", 0.15))}
    perf = pd.DataFrame([(g, k, v) for g, vs in values.items() for k, v in enumerate(vs)],
                        columns=["group", "subset", "value"])
    bias = bf.subset_bias(perf).set_index("group")
    reference = min(values, key=lambda g: values[g].mean())
    base = values[reference]
    for g, v in values.items():
        row = bias.loc[g]
        assert row["reference"] == reference
        assert row["mean"] == pytest.approx(v.mean(), rel=1e-12)
        assert row["parity"] == pytest.approx(1 - np.mean(np.abs(base - v)), abs=1e-12)
        ns = abs(base.mean() - v.mean()) / np.sqrt(base.var(ddof=1) + v.var(ddof=1))
        assert row["n_sigma"] == pytest.approx(ns, rel=1e-10, abs=1e-15)
        p = stats.ttest_ind(base, v, equal_var=False).pvalue
        assert row["welch_similarity"] == pytest.approx(1.0 if g == reference else p, rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), metric=st.sampled_from(["eer", "tmr"]))
def test_subset_performance_invariant_to_increasing_maps_and_bounded(seed, metric):
    """Every subset is drawn by position, so a strictly increasing map of the scores (same seed)
    draws the same comparisons, and EER / TMR depend only on the order of the scores."""
    table = group_table(seed % 10_000, n_groups=2, n_mated=100, n_nonmated=600)
    options = dict(n_subsets=4, size=400, metric=metric, rng=seed)
    before = quiet(bf.subset_performance, table, **options)
    after = quiet(bf.subset_performance, table.assign(score=increasing(table["score"])), **options)
    pd.testing.assert_frame_equal(before, after)
    assert before["value"].between(0, 1).all()


def test_subset_performance_degenerate_groups_give_known_values():
    """Perfectly separated classes: every subset's EER is 0 and TMR at 0.01 is 1; classes with
    the same constant score: EER 0.5 (chance)."""
    sep = pd.DataFrame({"score": np.r_[np.linspace(5, 6, 50), np.linspace(0, 1, 400)] ,
                        "mated": np.repeat([True, False], [50, 400])})
    same = sep.assign(score=0.3)
    table = pd.concat([sep.assign(group="sep"), same.assign(group="same")], ignore_index=True)
    eer = bf.subset_performance(table, n_subsets=5, size=300, metric="eer", rng=1).groupby("group")["value"]
    assert (eer.get_group("sep") == 0).all() and (eer.get_group("same") == 0.5).all()
    tmr = bf.subset_performance(table, n_subsets=5, size=400, metric="tmr", rng=1).groupby("group")["value"]
    assert (tmr.get_group("sep") == 1).all()


# =============================================================================================
# 5. Calibration
# =============================================================================================

cal_scores = arrays(np.float64, st.integers(1, 30), elements=st.floats(-5, 5).map(lambda x: round(x, 1)))


def loop_cllr(mated, nonmated):
    miss = sum(float(np.logaddexp(0, -s)) for s in mated) / len(mated) / math.log(2)
    fa = sum(float(np.logaddexp(0, s)) for s in nonmated) / len(nonmated) / math.log(2)
    return (miss + fa) / 2


@FAST
@given(cal_scores, cal_scores)
def test_min_cllr_is_cllr_of_isotonic_llrs(mated, nonmated):
    """min_cllr = Cllr after PAV; PAV from scikit-learn's isotonic regression, Cllr by a loop
    (the suite checks min_cllr only by bounds and invariance)."""
    x = np.concatenate([mated, nonmated])
    y = np.concatenate([np.ones(mated.size), np.zeros(nonmated.size)])
    post = IsotonicRegression().fit(x, y).predict(x)
    with np.errstate(divide="ignore"):
        llr = np.log(post) - np.log1p(-post) - np.log(mated.size / nonmated.size)
    expected = min(loop_cllr(llr[: mated.size], llr[mated.size:]), 1.0)
    assert bf.min_cllr(mated, nonmated) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_calibration_by_group_loops_and_calibration_fairness_from_formulas(seed):
    table = group_table(seed % 10_000, n_groups=3, n_mated=40, n_nonmated=120, decimals=1)
    table["score"] = table["score"] - 1.0
    by_group = bf.calibration_by_group(table, p_target=0.2)
    for name, g in table.groupby("group"):
        mat, non = g.loc[g["mated"], "score"].to_numpy(), g.loc[~g["mated"], "score"].to_numpy()
        assert by_group.loc[name, "cllr"] == pytest.approx(loop_cllr(mat, non), rel=1e-12)
        eta = math.log(0.8 / 0.2)
        dcf = (0.2 * np.mean(mat < eta) + 0.8 * np.mean(non >= eta)) / 0.2
        assert by_group.loc[name, "actual_dcf"] == pytest.approx(dcf, rel=1e-12)
        assert by_group.loc[name, "n_mated"] == mat.size and by_group.loc[name, "n_nonmated"] == non.size
    fair = quiet(bf.calibration_fairness, by_group)
    groups = by_group.drop(index="(all)")
    for measure in ("cllr", "min_cllr", "actual_dcf"):
        v = groups[measure].to_numpy()
        if v.min() == 0:
            continue
        assert fair.loc[measure, "max_gap"] == pytest.approx(v.max() - v.min(), abs=1e-12)
        assert fair.loc[measure, "ratio"] == pytest.approx(v.max() / v.min(), rel=1e-12)
        assert fair.loc[measure, "garbe"] == pytest.approx(loop_garbe(list(v)), abs=1e-12)
        assert fair.loc[measure, "inequity"] == pytest.approx(v.max() / stats.gmean(v), rel=1e-12)


def test_calibration_fairness_of_identical_groups_is_perfect():
    base = group_table(0, n_groups=1)
    table = pd.concat([base.assign(group=g) for g in ("a", "b", "c")], ignore_index=True)
    fair = bf.calibration_fairness(bf.calibration_by_group(table))
    assert (fair["max_gap"] == 0).all() and (fair["garbe"] == 0).all()
    assert np.allclose(fair["ratio"], 1) and np.allclose(fair["inequity"], 1)


@FAST
@given(cal_scores, cal_scores, st.floats(0.5, 3.0))
def test_cllr_decreases_for_separating_shift_and_bayes_rates_dominate(mated, nonmated, shift):
    """Cllr: moving mated LLRs up and non-mated down lowers the cost; at every prior, the
    actual DCF of bayes_error_rates is at least its minimum DCF."""
    assert bf.cllr(mated + shift, nonmated - shift) <= bf.cllr(mated, nonmated) + 1e-12
    table = bf.bayes_error_rates(mated, nonmated, prior_log_odds=[-2.0, 0.0, 1.5])
    assert (table["actual_dcf"] >= table["min_dcf"] - 1e-12).all()
    assert (table["pav_dcf"] >= table["min_dcf"] - 1e-9).all()


# =============================================================================================
# 6. Identification: threshold_at_fpir, called directly
# =============================================================================================


def random_outcomes(seed):
    rng = np.random.default_rng(seed)
    n_gallery, n_probes = 6, 40
    gallery = np.arange(n_gallery) * 10
    probes = np.concatenate([rng.choice(gallery, 20), 1000 + np.arange(n_probes - 20)])
    matrix = rng.integers(0, 8, size=(n_probes, n_gallery)).astype(float)
    groups = np.tile(["a", "b"], n_probes // 2)
    return bf.probe_outcomes_from_matrix(matrix, probe_subjects=probes, gallery_subjects=gallery, probe_groups=groups)


@FAST
@given(seed=st.integers(0, 2**32 - 1), target=st.sampled_from([1.0, 0.5, 0.3, 0.15, 0.05, 0.0]))
def test_threshold_at_fpir_is_the_brute_force_threshold_and_invariant(seed, target):
    outcomes = random_outcomes(seed)
    open_scores = outcomes.loc[~outcomes["mated"], "score"].to_numpy()
    candidates = np.append(np.unique(open_scores), np.nextafter(open_scores.max(), np.inf))
    expected = min(c for c in candidates if np.mean(open_scores >= c) <= target)
    got = quiet(bf.threshold_at_fpir, outcomes, target)
    assert got == expected
    shuffled = outcomes.sample(frac=1.0, random_state=seed % 2**31)
    assert quiet(bf.threshold_at_fpir, shuffled, target) == got


# =============================================================================================
# 7. Extrapolation: the point estimate against an independent GPD maximum likelihood fit
# =============================================================================================


def gpd_negloglik(params, y):
    xi, log_sigma = params
    sigma = math.exp(log_sigma)
    z = 1 + xi * y / sigma
    if np.any(z <= 0):
        return np.inf
    if abs(xi) < 1e-12:
        return y.size * log_sigma + y.sum() / sigma
    return y.size * log_sigma + (1 + 1 / xi) * np.log(z).sum()


@pytest.mark.parametrize("seed, shape", [(0, 0.1), (1, -0.2), (2, 0.0), (3, 0.3)])
def test_extrapolated_fmr_and_threshold_from_an_independent_fit(seed, shape):
    """SPEC/docstring: u = the highest score below the top n_u = max(min_tail, round(0.1 N))
    scores, excesses over u fitted by maximum likelihood, FMR(t) = (n_u/N) S(t - u). The fit
    is redone with scipy.optimize on a hand-written GPD likelihood (not genpareto.fit)."""
    rng = np.random.default_rng(seed)
    scores = stats.genpareto.rvs(shape, scale=1.0, size=3000, random_state=rng) + 5
    s = np.sort(scores)
    n = s.size
    n_u = max(50, round(0.1 * n))
    u = s[n - n_u - 1]
    y = s[s > u] - u
    best = optimize.minimize(gpd_negloglik, [0.1, math.log(y.mean())], args=(y,), method="Nelder-Mead",
                             options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20_000})
    xi, sigma = best.x[0], math.exp(best.x[1])
    threshold = s[-1] + 0.5
    tail = bf.extrapolated_fmr(scores, threshold)
    assert tail.tail_start == u and tail.n_tail == y.size and tail.extrapolated
    # biofair's fit is at least as likely as ours
    assert gpd_negloglik([tail.shape, math.log(tail.scale)], y) <= best.fun + 1e-6
    assert tail.shape == pytest.approx(xi, abs=2e-3) and tail.scale == pytest.approx(sigma, rel=2e-3)
    survival = (1 + tail.shape * (threshold - u) / tail.scale) ** (-1 / tail.shape) if tail.shape != 0 \
        else math.exp(-(threshold - u) / tail.scale)
    assert tail.estimate == pytest.approx(y.size / n * survival, rel=1e-9)
    assert tail.low <= tail.estimate <= tail.high
    target = 1e-5
    at = bf.extrapolated_threshold(scores, target)
    q = target * n / y.size
    distance = tail.scale / tail.shape * (q ** (-tail.shape) - 1) if tail.shape != 0 else -tail.scale * math.log(q)
    assert at.estimate == pytest.approx(u + distance, rel=1e-9)
    assert at.low <= at.estimate <= at.high


@pytest.mark.filterwarnings("ignore:extrapolated_fmr:UserWarning")  # a tail ending below the threshold: [0, 0], warned
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16), t1=st.floats(3.0, 4.5), dt=st.floats(0.05, 1.0))
def test_extrapolated_fmr_decreases_with_the_threshold_and_ignores_order(seed, t1, dt):
    scores = np.random.default_rng(seed).normal(size=2000)
    a, b = bf.extrapolated_fmr(scores, t1), bf.extrapolated_fmr(scores, t1 + dt)
    assert b.estimate <= a.estimate
    assert 0 <= a.estimate <= 1
    shuffled = bf.extrapolated_fmr(np.random.default_rng(seed + 1).permutation(scores), t1)
    assert (shuffled.estimate, shuffled.low, shuffled.high) == (a.estimate, a.low, a.high)


# =============================================================================================
# 8. Permutation null: p-value from its own null distribution
# =============================================================================================


@pytest.mark.parametrize("alternative", ["less", "greater"])
def test_permutation_null_p_value_from_its_null(alternative):
    table = group_table(3, n_groups=2, n_mated=40, n_nonmated=160, shifts=[0.0, 0.2])
    statistic = (lambda t: bf.distribution_fairness_index(t, bins=10).extreme) if alternative == "less" else (
        lambda t: quiet(bf.outcome_fairness, t, threshold=1.0).garbe_fmr)
    null = bf.permutation_null(statistic, table, n_permutations=30, alternative=alternative, rng=2)
    assert null.observed == statistic(table)
    extreme = null.null <= null.observed if alternative == "less" else null.null >= null.observed
    assert null.p_value == pytest.approx((1 + np.sum(extreme)) / 31, abs=1e-12)
    assert 0 < null.p_value <= 1


# =============================================================================================
# 9. Partitions: against brute force directly, and free of row order and partitioning
# =============================================================================================



@pytest.fixture(autouse=True)
def synchronous_dask():
    with dask.config.set(scheduler="synchronous"):
        yield


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), parts=st.integers(1, 4))
@example(seed=4453, parts=1)  # FMR 1/5 and FNMR 9/50 beside 17/100 and 19/100: equal gaps, unequal in floats
def test_partitions_equal_brute_force_and_ignore_partitioning(seed, parts):
    table = group_table(seed % 10_000, n_groups=2, n_mated=50, n_nonmated=200, decimals=1)
    data = dd.from_pandas(table.sample(frac=1.0, random_state=seed % 2**31), npartitions=parts)
    mated, nonmated = table.loc[table["mated"], "score"].to_numpy(), table.loc[~table["mated"], "score"].to_numpy()
    # TMR at FMR over every pair
    candidates = np.append(np.unique(nonmated), np.nextafter(nonmated.max(), np.inf))
    targets = [0.5, 0.1, 0.02]
    expected = [np.mean(mated >= min(c for c in candidates if np.mean(nonmated >= c) <= f)) for f in targets]
    np.testing.assert_array_equal(quiet(bp.tmr_at_fmr, data, targets), expected)
    # per-group rates
    rates = bp.rates_by_group(data, [0.5, 1.5]).set_index(["group", "threshold"])
    for (name, t), row in rates.iterrows():
        g = table[table["group"] == name]
        assert row["fmr"] == np.mean(g.loc[~g["mated"], "score"] >= t)
        assert row["fnmr"] == np.mean(g.loc[g["mated"], "score"] < t)
    # ROC-AUC bound contains Mann-Whitney
    wins = ((mated[:, None] > nonmated[None, :]).sum() + 0.5 * (mated[:, None] == nonmated[None, :]).sum())
    auc = wins / (mated.size * nonmated.size)
    bounded = bp.roc_auc(data, bins=256)
    assert bounded.low - 1e-15 <= auc <= bounded.high + 1e-15
    # midpoint EER by a loop over every threshold
    values = np.unique(np.r_[mated, nonmated])
    ts = np.append(values, np.nextafter(values[-1], np.inf))
    # gaps compared exactly: in floats |0.2 - 0.18| > |0.17 - 0.19|, and a tie broke the wrong way
    rows = [(abs(Fraction(int((nonmated >= t).sum()), nonmated.size) - Fraction(int((mated < t).sum()), mated.size)),
             t, np.mean(nonmated >= t), np.mean(mated < t)) for t in ts]
    _, t_best, f_best, g_best = min(rows, key=lambda r: (r[0], r[1]))
    mid = bp.eer(data, method="midpoint")
    assert mid.threshold == t_best and mid.eer == pytest.approx((f_best + g_best) / 2, abs=1e-15)
    # DFI/FDR: the same whatever the partitioning
    one = dd.from_pandas(table, npartitions=1)
    a, b = bp.distribution_fairness_index(data, bins=20), bp.distribution_fairness_index(one, bins=20)
    assert (a.normal, a.extreme) == (b.normal, b.extreme)
    pd.testing.assert_frame_equal(quiet(bp.fairness_discrepancy_rate, data, fmr_targets=[0.1, 0.01]),
                                  quiet(bp.fairness_discrepancy_rate, one, fmr_targets=[0.1, 0.01]))


def test_partitions_identical_groups_are_perfectly_fair():
    base = group_table(5, n_groups=1, n_mated=100, n_nonmated=800, decimals=2)
    table = pd.concat([base.assign(group=g) for g in ("a", "b", "c")], ignore_index=True)
    data = dd.from_pandas(table, npartitions=3)
    fdr = quiet(bp.fairness_discrepancy_rate, data, fmr_targets=[0.1, 0.01])
    assert (fdr["fdr"] == 1.0).all()
    assert bp.distribution_fairness_index(data, bins=20).extreme == 1.0
    assert bp.comprehensive_equity_index(data, kind="nonmated", bins=20).extreme == 1.0
    out = quiet(bp.outcome_fairness, data, fmr=0.05)
    assert out.garbe_fmr == 0.0 and out.garbe_fnmr == 0.0
