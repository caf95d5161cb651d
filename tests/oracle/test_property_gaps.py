"""Gaps an audit of the standard left: each test is an independent computation written from
SPEC.md and the docstrings (loops over every candidate threshold, exact fractions, scipy) or a
hypothesis property (bounds, order of rows and groups, monotone maps, identical groups), on
small drawn inputs with many ties. Rates at a target FMR and the fairness indices first."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import biofair as bf
from biofair import partitions as bp
from biofair.exceptions import SchemaError
from test_more_metrics_vs_definitions import increasing, quiet  # a strictly increasing map, not affine
from test_outcome_fairness_audit import exact_garbe

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Small integer grids: many ties within and across the classes, the hard case for every rule.
small_ints = st.lists(st.integers(-4, 4), min_size=1, max_size=12)
targets = st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.2, 1 / 3, 0.5, 0.7, 1.0]) | st.floats(0.0, 1.0),
                   min_size=1, max_size=5)
tiny_groups = st.dictionaries(
    st.sampled_from(["a", "b", "c", "d"]),
    st.tuples(st.lists(st.integers(-3, 3), min_size=1, max_size=6),
              st.lists(st.integers(-3, 3), min_size=1, max_size=8)),
    min_size=2, max_size=4,
)


def table_of(groups: dict) -> pd.DataFrame:
    """A score table from {group: (mated scores, non-mated scores)}."""
    rows = [(float(s), True, g) for g, (mated, _) in groups.items() for s in mated]
    rows += [(float(s), False, g) for g, (_, nonmated) in groups.items() for s in nonmated]
    return pd.DataFrame(rows, columns=["score", "mated", "group"])


def loop_threshold(nonmated, target) -> float:
    """SPEC 1: the smallest candidate (distinct non-mated scores, nextafter(max)) with
    #{nonmated >= t} / N <= target, by trying every candidate."""
    nonmated = [float(s) for s in nonmated]
    candidates = sorted(set(nonmated)) + [float(np.nextafter(max(nonmated), np.inf))]
    return min(t for t in candidates if sum(s >= t for s in nonmated) / len(nonmated) <= target)


def loop_inequity(rates, counts) -> float:
    """IN = max / geometric mean; a zero rate replaced by 1 - 0.05^(1/n) (SPEC 4)."""
    x = [r if r > 0 else -math.expm1(math.log(0.05) / n) for r, n in zip(rates, counts)]
    return max(x) / math.exp(sum(math.log(v) for v in x) / len(x))


# =============================================================================================
# 1. Rates at a target FMR
# =============================================================================================


@FAST
@given(mated=small_ints, nonmated=small_ints, wanted=targets)
def test_threshold_tmr_and_operating_point_at_targets_equal_a_loop_over_candidates(mated, nonmated, wanted):
    """threshold_at_fmr, tmr_at_fmr (array of targets, unsorted) and operating_point equal the
    definition evaluated by trying every candidate threshold, on tiny tied grids."""
    m, n = np.array(mated, dtype=float), np.array(nonmated, dtype=float)
    thresholds = np.atleast_1d(quiet(bf.threshold_at_fmr, n, np.array(wanted)))
    tmrs = np.atleast_1d(quiet(bf.tmr_at_fmr, m, n, np.array(wanted)))
    for target, threshold, tmr in zip(wanted, thresholds, tmrs):
        t = loop_threshold(nonmated, target)
        assert threshold == t
        assert tmr == sum(s >= t for s in mated) / len(mated)
        point = quiet(bf.operating_point, m, n, fmr=target)
        false_matches, misses = sum(s >= t for s in nonmated), sum(s < t for s in mated)
        assert point.threshold == t
        assert (point.false_matches, point.false_non_matches) == (false_matches, misses)
        assert (point.fmr, point.fnmr) == (false_matches / len(nonmated), misses / len(mated))
        assert point.fmr <= target and 0.0 <= tmr <= 1.0


@FAST
@given(mated=small_ints, nonmated=small_ints, wanted=targets,
       thresholds=st.lists(st.integers(-5, 5).map(lambda k: k / 2), min_size=1, max_size=6),
       seed=st.integers(0, 2**32 - 1))
def test_rates_at_thresholds_and_targets_ignore_row_order(mated, nonmated, wanted, thresholds, seed):
    """Shuffling the mated and the non-mated scores changes no threshold, TMR, FMR or FNMR, to
    the last bit (the threshold rules sort; the tests so far shuffled only the areas)."""
    m, n = np.array(mated, dtype=float), np.array(nonmated, dtype=float)
    rng = np.random.default_rng(seed)
    pm, pn = rng.permutation(m), rng.permutation(n)
    w, t = np.array(wanted), np.array(thresholds)
    np.testing.assert_array_equal(quiet(bf.threshold_at_fmr, pn, w), quiet(bf.threshold_at_fmr, n, w))
    np.testing.assert_array_equal(quiet(bf.tmr_at_fmr, pm, pn, w), quiet(bf.tmr_at_fmr, m, n, w))
    before, after = bf.fmr_fnmr(m, n, t), bf.fmr_fnmr(pm, pn, t)
    np.testing.assert_array_equal(after.fmr, before.fmr)
    np.testing.assert_array_equal(after.fnmr, before.fnmr)
    for target in wanted:
        assert quiet(bf.operating_point, pm, pn, fmr=target) == quiet(bf.operating_point, m, n, fmr=target)


@FAST
@given(mated=st.lists(st.integers(-20, 20), min_size=1, max_size=30),
       nonmated=st.lists(st.integers(-20, 20), min_size=1, max_size=30), wanted=targets,
       thresholds=st.lists(st.integers(-21, 21), min_size=1, max_size=6))
def test_fmr_fnmr_and_threshold_move_with_a_strictly_increasing_map(mated, nonmated, wanted, thresholds):
    """A strictly increasing map f of every score and threshold keeps FMR(f(t)) and FNMR(f(t));
    the threshold at a target FMR becomes f(threshold) (or nextafter of the new maximum)."""
    m, n, t = (np.array(v, dtype=float) for v in (mated, nonmated, thresholds))
    before, after = bf.fmr_fnmr(m, n, t), bf.fmr_fnmr(increasing(m), increasing(n), increasing(t))
    np.testing.assert_array_equal(after.fmr, before.fmr)
    np.testing.assert_array_equal(after.fnmr, before.fnmr)
    for target in wanted:
        old = quiet(bf.threshold_at_fmr, n, target)
        new = quiet(bf.threshold_at_fmr, increasing(n), target)
        if old <= n.max():
            assert new == float(increasing(old))
        else:
            assert new == np.nextafter(increasing(n).max(), np.inf)


@FAST
@given(groups=tiny_groups, target=st.sampled_from([0.0, 0.05, 0.1, 0.25, 0.5, 0.8, 1.0]),
       alpha=st.sampled_from([0.0, 0.3, 0.5, 1.0]), correction=st.booleans())
def test_outcome_fairness_at_a_target_fmr_equals_loops(groups, target, alpha, correction):
    """outcome_fairness(fmr=...): the threshold is the loop threshold of the pooled homogeneous
    non-mated scores, each group's rates are counted at it, GARBE is the exact Gini double sum
    and Inequity the max over the geometric mean with zero rates bounded (SPEC 4)."""
    table = table_of(groups)
    pooled = [s for _, non in groups.values() for s in non]
    try:
        out = quiet(bf.outcome_fairness, table, fmr=target, alpha=alpha, correction=correction)
    except ValueError as error:  # every score one value: the table cannot tell the classes apart
        assert len({*pooled, *(s for mat, _ in groups.values() for s in mat)}) == 1, error
        return
    t = loop_threshold(pooled, target)
    assert out.threshold == t and out.k == sum(s >= t for s in pooled)
    names = sorted(groups)
    fmr = [sum(s >= t for s in groups[g][1]) / len(groups[g][1]) for g in names]
    fnmr = [sum(s < t for s in groups[g][0]) / len(groups[g][0]) for g in names]
    rates = out.rates.set_index("group").loc[names]
    assert rates["fmr"].tolist() == fmr and rates["fnmr"].tolist() == fnmr
    g_fmr, g_fnmr = float(exact_garbe(fmr, correction)), float(exact_garbe(fnmr, correction))
    assert out.garbe_fmr == pytest.approx(g_fmr, abs=1e-15)
    assert out.garbe_fnmr == pytest.approx(g_fnmr, abs=1e-15)
    assert out.garbe == pytest.approx(alpha * g_fmr + (1 - alpha) * g_fnmr, abs=1e-15)
    assert out.inequity_fmr == pytest.approx(loop_inequity(fmr, [len(groups[g][1]) for g in names]), rel=1e-12)
    assert out.inequity_fnmr == pytest.approx(loop_inequity(fnmr, [len(groups[g][0]) for g in names]), rel=1e-12)
    assert 0.0 <= out.garbe <= 1.0 and out.inequity_fmr >= 1.0 - 1e-12 and out.inequity_fnmr >= 1.0 - 1e-12


# =============================================================================================
# 2. Identical groups are perfectly fair, on drawn tied scores
# =============================================================================================

base_groups = st.tuples(st.lists(st.integers(-5, 5), min_size=4, max_size=15),
                        st.lists(st.integers(-5, 5), min_size=6, max_size=30)).filter(
    lambda g: len(set(g[0]) | set(g[1])) > 1)


@SLOW
@given(base=base_groups, k=st.integers(2, 4), threshold=st.integers(-6, 6).map(lambda v: v / 2),
       target=st.sampled_from([0.0, 0.1, 0.3, 0.5, 1.0]), percentile=st.sampled_from([50.0, 80.0, 95.0]),
       n_std=st.sampled_from([0.5, 1.0, 2.0]), bins=st.sampled_from([3, 10, 30]))
def test_copies_of_one_group_are_perfectly_fair(base, k, threshold, target, percentile, n_std, bins):
    """K copies of one group's scores: FDR 1 at every target (its area 1), GARBE 0, Inequity 1
    at a threshold and at a target FMR, equal rates, and DFI, CEI and CEI^A at 1 (their no-bias
    value), whenever CEI's split leaves a centre."""
    table = table_of({f"g{i}": base for i in range(k)})
    fdr = quiet(bf.fairness_discrepancy_rate, table, fmr_targets=[1.0, 0.5, 0.2, 0.05, 0.0])
    assert (fdr["A"] == 0).all() and (fdr["B"] == 0).all() and (fdr["fdr"] == 1.0).all()
    for scale in ("linear", "log10"):
        assert bf.area_under_fdr(fdr["fdr"][:4], [1.0, 0.5, 0.2, 0.05], scale=scale) == pytest.approx(1.0, abs=1e-15)
    for options in ({"threshold": threshold}, {"fmr": target}):
        out = quiet(bf.outcome_fairness, table, **options)
        assert (out.garbe_fmr, out.garbe_fnmr, out.garbe) == (0.0, 0.0, 0.0)
        assert out.inequity_fmr == pytest.approx(1.0, abs=1e-15) and out.inequity_fnmr == pytest.approx(1.0, abs=1e-15)
    rates = bf.rates_by_group(table, [threshold])
    assert rates["fmr"].nunique() == 1 and rates["fnmr"].nunique() == 1
    for combine in ("pooled", "equal"):
        dfi = quiet(bf.distribution_fairness_index, table, bins=bins, combine=combine)
        assert (dfi.normal, dfi.extreme) == (1.0, 1.0), combine
    for kind in ("mated", "nonmated"):
        for index, option in ((bf.comprehensive_equity_index, {"percentile": percentile}),
                              (bf.automatic_comprehensive_equity_index, {"n_std": n_std})):
            try:
                value = quiet(index, table, kind=kind, bins=bins, **option)
            except SchemaError as error:  # documented: every score of the class falls in its tail
                assert "tail" in str(error), error
                continue
            assert (value.normal, value.extreme) == (1.0, 1.0), (index.__name__, kind)


@SLOW
@given(base=base_groups, repeat=st.integers(2, 3), threshold=st.integers(-6, 6).map(lambda v: v / 2),
       bins=st.sampled_from([3, 10, 30]))
def test_groups_of_one_distribution_at_different_sizes_are_fair(base, repeat, threshold, bins):
    """Group b holds every score of group a `repeat` times: the same distribution, so the same
    rates (FDR 1, GARBE 0, Inequity 1 where no rate is zero) and the same pmfs (DFI 1)."""
    mated, nonmated = base
    table = table_of({"a": base, "b": (mated * repeat, nonmated * repeat)})
    fdr = quiet(bf.fairness_discrepancy_rate, table, fmr_targets=[1.0, 0.5, 0.2, 0.0])
    assert (fdr["fdr"] == 1.0).all()
    out = quiet(bf.outcome_fairness, table, threshold=threshold)
    assert (out.garbe_fmr, out.garbe_fnmr) == (0.0, 0.0)
    if (out.rates["fmr"] > 0).all():
        assert out.inequity_fmr == pytest.approx(1.0, abs=1e-15)
    if (out.rates["fnmr"] > 0).all():
        assert out.inequity_fnmr == pytest.approx(1.0, abs=1e-15)
    for combine in ("pooled", "equal"):
        dfi = quiet(bf.distribution_fairness_index, table, bins=bins, combine=combine)
        assert dfi.normal == pytest.approx(1.0, abs=1e-12) and dfi.extreme == pytest.approx(1.0, abs=1e-12)


# =============================================================================================
# 3. DFI, CEI and CEI^A against SPEC 5 on drawn tied groups
# =============================================================================================


def pmf(values, edges):
    counts = np.histogram(values, bins=edges)[0].astype(float)
    return counts / counts.sum()


def kl_bits(p, q):
    return sum(a * math.log2(a / b) for a, b in zip(p, q) if a > 0)


def spec_indices(divergences):
    k = len(divergences)
    return 1 - sum(divergences) / (k * math.log2(k)), 1 - max(divergences) / math.log2(k)


def spec_divergences(parts, bins):
    """Common equal-width bins over the pooled range of the parts, each part a pmf, KL to the mean."""
    values = np.concatenate(parts)
    edges = np.linspace(values.min(), values.max(), bins + 1) if np.ptp(values) > 0 else \
        np.histogram_bin_edges(values, bins=bins)
    pmfs = [pmf(p, edges) for p in parts]
    mean = sum(pmfs) / len(pmfs)
    return [kl_bits(p, mean) for p in pmfs]


def spec_cei(samples, kind, percentiles, tail_weight, bins):
    """None when a group's centre is empty (the documented error)."""
    tails, centres = [], []
    for v, p in zip(samples, percentiles):
        tail = v >= np.percentile(v, p) if kind == "nonmated" else v <= np.percentile(v, 100 - p)
        if tail.all():
            return None
        tails.append(v[tail])
        centres.append(v[~tail])
    t, c = spec_divergences(tails, bins), spec_divergences(centres, bins)
    return spec_indices([tail_weight * a + (1 - tail_weight) * b for a, b in zip(t, c)])


drawn_groups = st.lists(
    st.tuples(st.lists(st.integers(-4, 12).map(lambda v: v / 2), min_size=5, max_size=40),
              st.lists(st.integers(-12, 4).map(lambda v: v / 2), min_size=5, max_size=60)),
    min_size=2, max_size=3,
)


@SLOW
@given(groups=drawn_groups, bins=st.sampled_from([1, 4, 10]), percentile=st.sampled_from([60.0, 90.0]),
       tail_weight=st.sampled_from([0.0, 0.8]), n_std=st.sampled_from([0.5, 1.5]))
def test_dfi_cei_and_automatic_cei_equal_the_spec_on_drawn_tied_groups(groups, bins, percentile, tail_weight, n_std):
    """SPEC 5 written out (np.histogram, np.percentile, a KL loop in bits) on drawn groups of
    half-integer scores, ties at every split; the suite's oracle saw five hand-made tables."""
    names = [f"g{i}" for i in range(len(groups))]
    table = table_of(dict(zip(names, groups)))
    arrays = [(np.array(m, dtype=float), np.array(n, dtype=float)) for m, n in groups]
    for combine in ("pooled", "equal"):
        everything = np.concatenate([np.r_[m, n] for m, n in arrays])
        edges = np.linspace(everything.min(), everything.max(), bins + 1)
        if combine == "pooled":
            pmfs = [pmf(np.r_[m, n], edges) for m, n in arrays]
        else:
            pmfs = [(pmf(m, edges) + pmf(n, edges)) / 2 for m, n in arrays]
        mean = sum(pmfs) / len(pmfs)
        expected = spec_indices([kl_bits(p, mean) for p in pmfs])
        dfi = quiet(bf.distribution_fairness_index, table, bins=bins, combine=combine)
        assert (dfi.normal, dfi.extreme) == pytest.approx(expected, abs=1e-12), combine
        assert 0.0 <= dfi.extreme <= dfi.normal <= 1.0
    for kind, side in (("mated", 0), ("nonmated", 1)):
        samples = [a[side] for a in arrays]
        expected = spec_cei(samples, kind, [percentile] * len(samples), tail_weight, bins)
        if expected is None:
            with pytest.raises(SchemaError, match="tail"):
                quiet(bf.comprehensive_equity_index, table, kind=kind, percentile=percentile,
                      tail_weight=tail_weight, bins=bins)
        else:
            cei = quiet(bf.comprehensive_equity_index, table, kind=kind, percentile=percentile,
                        tail_weight=tail_weight, bins=bins)
            assert (cei.normal, cei.extreme) == pytest.approx(expected, abs=1e-12), kind
            assert 0.0 <= cei.extreme <= cei.normal <= 1.0
        # CEI^A: t_i = mu_i -/+ N sigma_i, P_i = 100 * share on the centre side,
        # w_t = mean sigmoid(share beyond / (1 - Phi(N))) * P_i / 100
        shares, percentiles = [], []
        for v in samples:
            mu, sigma = v.mean(), v.std()
            beyond = np.mean(v < mu - n_std * sigma) if kind == "mated" else np.mean(v > mu + n_std * sigma)
            percentiles.append(100 * (1 - beyond))
            shares.append((1 - beyond) / (1 + math.exp(-beyond / stats.norm.sf(n_std))))
        weight = sum(shares) / len(shares)
        expected = spec_cei(samples, kind, percentiles, weight, bins)
        if expected is None:
            with pytest.raises(SchemaError, match="tail"):
                quiet(bf.automatic_comprehensive_equity_index, table, kind=kind, n_std=n_std, bins=bins)
            continue
        auto = quiet(bf.automatic_comprehensive_equity_index, table, kind=kind, n_std=n_std, bins=bins)
        assert auto.parameters["tail_weight"] == pytest.approx(weight, abs=1e-12)
        assert (auto.normal, auto.extreme) == pytest.approx(expected, abs=1e-12), kind


@FAST
@given(groups=drawn_groups, bins=st.sampled_from([1, 4, 10, 50]))
def test_dfi_does_not_depend_on_which_class_is_which(groups, bins):
    """DFI pools (or averages) the two classes' histograms of each group: swapping the mated
    flag of every row changes neither DFI_N nor DFI_E."""
    table = table_of({f"g{i}": g for i, g in enumerate(groups)})
    swapped = table.assign(mated=~table["mated"])
    for combine in ("pooled", "equal"):
        a = quiet(bf.distribution_fairness_index, table, bins=bins, combine=combine)
        b = quiet(bf.distribution_fairness_index, swapped, bins=bins, combine=combine)
        assert (b.normal, b.extreme) == pytest.approx((a.normal, a.extreme), abs=1e-15), combine


# =============================================================================================
# 4. Indices of rates and of subset values, called directly
# =============================================================================================


@FAST
@given(rates=st.lists(st.floats(1e-6, 1.0), min_size=2, max_size=8),
       zeros=st.lists(st.booleans(), min_size=8, max_size=8),
       counts=st.lists(st.integers(1, 10**6), min_size=8, max_size=8))
def test_inequity_equals_scipy_gmean_and_stays_within_its_bounds(rates, zeros, counts):
    """IN = max / scipy.stats.gmean and 1 <= IN <= (max/min)^((K-1)/K); with zero rates and
    counts, each zero replaced by 1 - 0.05^(1/n_i) (drawn counts, not three hand-picked)."""
    x = np.array(rates)
    k = x.size
    value = bf.inequity(x)
    assert value == pytest.approx(x.max() / stats.gmean(x), rel=1e-12)
    assert 1.0 - 1e-12 <= value <= (x.max() / x.min()) ** ((k - 1) / k) * (1 + 1e-12)
    with_zeros = np.where(np.array(zeros[:k]), 0.0, x)
    n = counts[:k]
    assume((with_zeros == 0).any())
    value = quiet(bf.inequity, with_zeros, counts=n)
    assert value == pytest.approx(loop_inequity(with_zeros, n), rel=1e-12)
    assert value >= 1.0 - 1e-12


def exact_mean_and_sample_variance(values):
    """Mean (a Fraction) and sample variance (ddof=1) of the exact binary values, no cancellation."""
    x = [Fraction(v) for v in values]
    mean = sum(x) / len(x)
    return mean, sum((v - mean) ** 2 for v in x) / (len(x) - 1)


grid_sets = st.lists(st.integers(0, 100).map(lambda v: v / 100), min_size=2, max_size=15)


@FAST
@given(a=grid_sets, b=grid_sets, seed=st.integers(0, 2**32 - 1))
def test_n_sigma_and_welch_similarity_equal_scipy_on_drawn_sets(a, b, seed):
    """N-Sigma = |mean_a - mean_b| / sqrt(s_a^2 + s_b^2) (ddof=1) and the Welch similarity =
    scipy's Welch p-value (ttest_ind_from_stats of exact means and variances), on drawn sets
    (one hand example so far); neither depends on the order within a set."""
    va, vb = np.array(a), np.array(b)
    rng = np.random.default_rng(seed)
    ns, w = bf.n_sigma(va, vb), bf.welch_similarity(va, vb)
    assert bf.n_sigma(rng.permutation(va), rng.permutation(vb)) == pytest.approx(ns, rel=1e-12, abs=1e-15)
    assert bf.welch_similarity(rng.permutation(va), rng.permutation(vb)) == pytest.approx(w, rel=1e-12, abs=1e-15)
    mean_a, var_a = exact_mean_and_sample_variance(a)
    mean_b, var_b = exact_mean_and_sample_variance(b)
    gap = abs(mean_a - mean_b)
    if var_a + var_b == 0:  # both sets constant (docstrings): 0 and 1 if equal, inf and 0 if not
        assert (ns, w) == ((0.0, 1.0) if gap == 0 else (math.inf, 0.0))
        return
    assert ns == pytest.approx(float(gap) / math.sqrt(var_a + var_b), rel=1e-12, abs=1e-15)
    welch = stats.ttest_ind_from_stats(float(mean_a), math.sqrt(var_a), len(a), float(mean_b), math.sqrt(var_b),
                                       len(b), equal_var=False).pvalue
    assert w == pytest.approx(welch, rel=1e-9, abs=1e-15)
    assert 0.0 <= w <= 1.0


@FAST
@given(pairs=st.lists(st.tuples(st.integers(0, 100), st.integers(0, 100)), min_size=1, max_size=20),
       seed=st.integers(0, 2**32 - 1))
def test_statistical_parity_and_equal_opportunity_equal_a_loop_over_subsets(pairs, seed):
    """SP = EOP = 1 - mean_k |a_k - b_k| in exact fractions; subsets reordered together, the
    value is unchanged; in [0, 1]."""
    a = np.array([p[0] / 100 for p in pairs])
    b = np.array([p[1] / 100 for p in pairs])
    expected = 1 - sum(abs(Fraction(x) - Fraction(y)) for x, y in zip(a, b)) / len(pairs)
    order = np.random.default_rng(seed).permutation(len(pairs))
    for index in (bf.statistical_parity, bf.equal_opportunity):
        value = index(a, b)
        assert value == pytest.approx(float(expected), abs=1e-15)
        assert index(a[order], b[order]) == pytest.approx(value, abs=1e-15)
        assert 0.0 <= value <= 1.0


MEASURES = ["cllr", "min_cllr", "calibration_loss", "actual_dcf", "min_dcf"]


@FAST
@given(values=st.lists(st.lists(st.floats(0.01, 3.0), min_size=5, max_size=5), min_size=2, max_size=5),
       seed=st.integers(0, 2**32 - 1))
def test_calibration_fairness_equals_its_formulas_and_ignores_group_order(values, seed):
    """Per measure: max_gap = max - min, ratio = max / min, GARBE of the values over their
    maximum (exact Gini), Inequity = max / gmean; the "(all)" row is left out; rows in any
    order give the same table; ratio and Inequity >= 1, GARBE in [0, 1]."""
    names = [f"g{i}" for i in range(len(values))]
    by_group = pd.DataFrame(values, columns=MEASURES, index=names)
    with_all = pd.concat([by_group, pd.DataFrame([[9.0, 0.001, 7.0, 5.0, 0.002]], columns=MEASURES,
                                                 index=["(all)"])])
    fair = quiet(bf.calibration_fairness, with_all)
    for measure in MEASURES:
        v = by_group[measure].to_numpy()
        row = fair.loc[measure]
        assert row["max_gap"] == pytest.approx(v.max() - v.min(), abs=1e-12)
        assert row["ratio"] == pytest.approx(v.max() / v.min(), rel=1e-12)
        assert row["garbe"] == pytest.approx(float(exact_garbe(v / v.max())), abs=1e-12)
        assert row["inequity"] == pytest.approx(v.max() / stats.gmean(v), rel=1e-12)
        assert row["ratio"] >= 1.0 and row["inequity"] >= 1.0 - 1e-12 and 0.0 <= row["garbe"] <= 1.0
    shuffled = with_all.iloc[np.random.default_rng(seed).permutation(len(with_all))]
    again = quiet(bf.calibration_fairness, shuffled)
    pd.testing.assert_frame_equal(again.loc[fair.index], fair, rtol=1e-13, atol=1e-15)


@FAST
@given(fdr=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=6),
       raise_by=st.lists(st.floats(0.0, 1.0), min_size=6, max_size=6), scale=st.sampled_from(["linear", "log10"]))
def test_area_under_fdr_is_a_trapezoid_and_grows_with_the_fdr(fdr, raise_by, scale):
    """SPEC 4: the trapezoid over targets (or log10 targets) min-max scaled to [0, 1], drawn
    FDR vectors; raising any FDR value never lowers the area."""
    k = len(fdr)
    targets = 10.0 ** -np.arange(1, k + 1)
    y = np.array(fdr)
    x = targets if scale == "linear" else np.log10(targets)
    order = np.argsort(x)
    xs, ys = (x[order] - x.min()) / (x.max() - x.min()), y[order]
    expected = float(np.sum(np.diff(xs) * (ys[1:] + ys[:-1]) / 2))
    area = bf.area_under_fdr(y, targets, scale=scale)
    assert area == pytest.approx(expected, abs=1e-12)
    higher = np.minimum(y + np.array(raise_by[:k]), 1.0)
    assert bf.area_under_fdr(higher, targets, scale=scale) >= area - 1e-15


# =============================================================================================
# 5. Metrics that read score values: row order, and d' from its formula
# =============================================================================================

llr_arrays = st.lists(st.integers(-40, 40).map(lambda v: v / 10), min_size=1, max_size=25)


@FAST
@given(mated=llr_arrays, nonmated=llr_arrays, seed=st.integers(0, 2**32 - 1),
       p=st.sampled_from([0.01, 0.3, 0.5, 0.9]))
def test_calibration_metrics_and_d_prime_ignore_row_order(mated, nonmated, seed, p):
    """Cllr, minCllr, actual DCF, the Bayes error rates, PAV's LLRs and d' are functions of the
    two sets of scores: shuffling either changes nothing; d' equals its population formula."""
    m, n = np.array(mated), np.array(nonmated)
    rng = np.random.default_rng(seed)
    pm, pn = rng.permutation(m), rng.permutation(n)
    assert bf.cllr(pm, pn) == pytest.approx(bf.cllr(m, n), rel=1e-13)
    assert bf.min_cllr(pm, pn) == pytest.approx(bf.min_cllr(m, n), rel=1e-13, abs=1e-15)
    assert bf.actual_dcf(pm, pn, p_target=p) == bf.actual_dcf(m, n, p_target=p)
    for got, want in zip(bf.pav_llrs(pm, pn), bf.pav_llrs(m, n)):
        np.testing.assert_array_equal(got, want)
    prior = [-2.0, 0.0, 1.0]
    pd.testing.assert_frame_equal(bf.bayes_error_rates(pm, pn, prior_log_odds=prior),
                                  bf.bayes_error_rates(m, n, prior_log_odds=prior), rtol=1e-13, atol=1e-15)
    if np.ptp(m) > 0 or np.ptp(n) > 0:
        d = bf.decidability(m, n)
        assert bf.decidability(pm, pn) == pytest.approx(d, rel=1e-13)
        mean_gap = abs(Fraction(sum(map(Fraction, mated)), len(mated)) - Fraction(sum(map(Fraction, nonmated)), len(nonmated)))
        pooled = (np.var(m) + np.var(n)) / 2
        assert d == pytest.approx(float(mean_gap) / math.sqrt(pooled), rel=1e-9)


# =============================================================================================
# 6. The log-FMR area from exact segment integrals
# =============================================================================================


@FAST
@given(mated=st.lists(st.integers(-3, 3), min_size=1, max_size=12),
       nonmated=st.lists(st.integers(-3, 3), min_size=1, max_size=40),
       bounds=st.sampled_from([(1e-3, 1.0), (0.05, 0.5), (0.1, 1.0), (0.02, 0.3)]))
def test_log_fmr_auc_equals_exact_segment_integrals(mated, nonmated, bounds):
    """SPEC 2: on the piecewise-linear ROC (vertices counted at every distinct score), a segment
    T(u) = c + s u integrates against d log10 u to c log10(u1/u0) + s (u1 - u0) / ln 10; the sum
    over [a, b] over log10(b / a) (only a numerical integral on one fixture so far)."""
    m, n = np.array(mated, dtype=float), np.array(nonmated, dtype=float)
    low, high = bounds
    thresholds = np.unique(np.r_[m, n])
    thresholds = np.append(thresholds, np.nextafter(thresholds[-1], np.inf))[::-1]
    roc = [(Fraction(int(np.sum(n >= t)), n.size), Fraction(int(np.sum(m >= t)), m.size)) for t in thresholds]
    a, b = Fraction(low), Fraction(high)
    total = 0.0
    for (u0, t0), (u1, t1) in zip(roc[:-1], roc[1:]):
        lo, hi = max(u0, a), min(u1, b)
        if u1 == u0 or hi <= lo:
            continue
        s = (t1 - t0) / (u1 - u0)
        c = t0 - s * u0
        total += float(c) * math.log10(float(hi) / float(lo)) + float(s * (hi - lo)) / math.log(10)
    expected = total / math.log10(high / low)
    got = bf.log_fmr_auc(m, n, min_fmr=low, max_fmr=high)
    assert got == pytest.approx(expected, abs=1e-12)
    assert 0.0 <= got <= 1.0


def test_log_fmr_auc_keeps_its_digits_on_narrow_ranges_and_steep_tied_segments():
    """Each segment was integrated as c ln(stop/start) + s (stop - start), c the value of its
    line at FMR 0: on a steep tied segment far from FMR 0 the two terms cancel, and a ratio near
    1 loses digits in the logarithm (the normaliser ln(b/a) too). T(u) = u on [0.3, 0.3 + 1 ulp]
    gave 0.25, outside the range of T there; one mated score tied with the middle of 1e7
    non-mated ones was 5.7e-10 off, of 1e6 ones 1e-11 (an areas audit). References in 50-digit
    decimals."""
    with localcontext() as context:
        context.prec = 50
        for high in (0.3000000000000001, 0.300000000003):  # ROC T(u) = u: the mean of u against d ln u
            a, b = Decimal(0.3), Decimal(high)
            expected = (b - a) / (b / a).ln()
            assert bf.log_fmr_auc([0.5], [0.5], min_fmr=0.3, max_fmr=high) == pytest.approx(float(expected), rel=1e-15)
        # T = 0 below a = (5e5 - 1)/1e6, rises linearly to 1 at b = 0.5 (the tie), then is 1 up to
        # FMR 1: (1 - a ln(b/a) / (b - a) + ln(1/b)) / ln(1/1e-3)
        a, b = Decimal(5 * 10**5 - 1) / 10**6, Decimal(1) / 2
        expected = (1 - a * (b / a).ln() / (b - a) + (1 / b).ln()) / Decimal(1000).ln()
    assert bf.log_fmr_auc([5e5], np.arange(1e6)) == pytest.approx(float(expected), rel=1e-14)


# =============================================================================================
# 7. The out-of-core indices equal the in-memory ones on drawn tied tables
# =============================================================================================


@pytest.fixture(autouse=True)
def synchronous_dask():
    with dask.config.set(scheduler="synchronous"):
        yield


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(groups=tiny_groups, parts=st.integers(1, 3), seed=st.integers(0, 2**31 - 1),
       target=st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_partitioned_fairness_equals_in_memory_on_drawn_tiny_groups(groups, parts, seed, target):
    """biofair.partitions' FDR, outcome fairness at a target FMR, DFI (both combines), rates by
    group and TMR at FMR equal the in-memory functions value for value on tiny tied groups in
    shuffled partitions (the suite's comparisons use Gaussian tables of fixed seeds)."""
    table = table_of(groups)
    assume(table["score"].nunique() > 1)
    data = dd.from_pandas(table.sample(frac=1.0, random_state=seed).reset_index(drop=True), npartitions=parts)
    wanted = [1.0, 0.5, 0.1, 0.0]
    pd.testing.assert_frame_equal(quiet(bp.fairness_discrepancy_rate, data, fmr_targets=wanted),
                                  quiet(bf.fairness_discrepancy_rate, table, fmr_targets=wanted))
    found, expected = quiet(bp.outcome_fairness, data, fmr=target), quiet(bf.outcome_fairness, table, fmr=target)
    assert found[:6] == expected[:6] and (found.k, found.resolved) == (expected.k, expected.resolved)
    pd.testing.assert_frame_equal(found.rates, expected.rates)
    thresholds = [-1.0, 0.0, 2.5]
    pd.testing.assert_frame_equal(bp.rates_by_group(data, thresholds), bf.rates_by_group(table, thresholds))
    mated, nonmated = bf.split_scores(table)
    np.testing.assert_array_equal(quiet(bp.tmr_at_fmr, data, wanted), quiet(bf.tmr_at_fmr, mated, nonmated, wanted))
    for combine in ("pooled", "equal"):
        a = quiet(bp.distribution_fairness_index, data, bins=5, combine=combine)
        b = quiet(bf.distribution_fairness_index, table, bins=5, combine=combine)
        assert (a.normal, a.extreme) == (b.normal, b.extreme), combine


# =============================================================================================
# 8. Cross-group pairs touch no per-group index (SPEC 4: they are reported apart)
# =============================================================================================

cross_pairs = st.lists(st.tuples(st.integers(-8, 8), st.sampled_from(["a", "b", "c", "d"]),
                                 st.sampled_from(["a", "b", "c", "d"])), min_size=1, max_size=15)


def per_side(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(reference_group=table["group"], probe_group=table["group"]).drop(columns="group")


@SLOW
@given(groups=st.dictionaries(st.sampled_from(["a", "b", "c", "d"]),
                              st.tuples(st.lists(st.integers(-3, 5), min_size=3, max_size=12),
                                        st.lists(st.integers(-5, 3), min_size=3, max_size=20)),
                              min_size=2, max_size=4),
       cross=cross_pairs, target=st.sampled_from([0.0, 0.1, 0.3, 1.0]), threshold=st.integers(-4, 4))
def test_cross_group_pairs_change_no_per_group_index(groups, cross, target, threshold):
    """Adding non-mated pairs whose two sides differ in group (scores also beyond the groups'
    range) changes no FDR, outcome fairness, group rate, DFI or CEI; cross_group_fmr counts them
    off the diagonal (loop) and holds the homogeneous FMR on it."""
    homogeneous = per_side(table_of(groups))
    cross = [(float(s), r, p) for s, r, p in cross if r != p and r in groups and p in groups]
    assume(cross and homogeneous["score"].nunique() > 1)
    extra = pd.DataFrame([(s, False, r, p) for s, r, p in cross],
                         columns=["score", "mated", "reference_group", "probe_group"])
    both = pd.concat([homogeneous, extra], ignore_index=True)
    wanted = [1.0, 0.3, 0.1, 0.0]
    pd.testing.assert_frame_equal(quiet(bf.fairness_discrepancy_rate, both, fmr_targets=wanted),
                                  quiet(bf.fairness_discrepancy_rate, homogeneous, fmr_targets=wanted))
    a, b = quiet(bf.outcome_fairness, both, fmr=target), quiet(bf.outcome_fairness, homogeneous, fmr=target)
    assert a[:6] == b[:6] and a.k == b.k
    pd.testing.assert_frame_equal(a.rates, b.rates)
    rates = bf.rates_by_group(both, [float(threshold)])
    pd.testing.assert_frame_equal(rates, bf.rates_by_group(homogeneous, [float(threshold)]))
    for combine in ("pooled", "equal"):
        x = quiet(bf.distribution_fairness_index, both, bins=6, combine=combine)
        y = quiet(bf.distribution_fairness_index, homogeneous, bins=6, combine=combine)
        assert (x.normal, x.extreme) == (y.normal, y.extreme), combine
    for kind in ("mated", "nonmated"):
        try:
            y = quiet(bf.comprehensive_equity_index, homogeneous, kind=kind, percentile=70.0, bins=6)
        except SchemaError:
            continue
        x = quiet(bf.comprehensive_equity_index, both, kind=kind, percentile=70.0, bins=6)
        assert (x.normal, x.extreme) == (y.normal, y.extreme), kind
    matrix = bf.cross_group_fmr(both, float(threshold))
    for name, row in rates.set_index("group").iterrows():
        assert matrix.loc[name, name] == row["fmr"]
    for r in matrix.index:
        for p in matrix.columns:
            if r == p:
                continue
            cell = [s for s, rr, pp in cross if (rr, pp) == (r, p)]
            if cell:
                assert matrix.loc[r, p] == sum(s >= threshold for s in cell) / len(cell)
            else:
                assert np.isnan(matrix.loc[r, p])


# =============================================================================================
# 9. Identification: row order, group names and increasing maps
# =============================================================================================


def drawn_outcomes(seed, transform=lambda x: x):
    rng = np.random.default_rng(seed)
    gallery = np.arange(6) * 10
    probes = np.concatenate([rng.choice(gallery, 20), 1000 + np.arange(20)])
    matrix = rng.integers(0, 8, size=(40, 6)).astype(float)
    return bf.probe_outcomes_from_matrix(transform(matrix), probe_subjects=probes, gallery_subjects=gallery,
                                         probe_groups=np.tile(["a", "b"], 20))


@FAST
@given(seed=st.integers(0, 2**32 - 1), thresholds=st.lists(st.integers(-1, 8), min_size=1, max_size=4),
       wanted=st.lists(st.sampled_from([1.0, 0.5, 0.3, 0.15, 0.05]), min_size=1, max_size=3),
       rank=st.integers(1, 3))
def test_identification_metrics_ignore_row_order_and_move_with_increasing_maps(seed, thresholds, wanted, rank):
    """Outcomes shuffled and groups renamed: the same CMC, rank-n differential, DIR/FPIR and
    FDR'; a strictly increasing map of the matrix keeps DIR and FPIR at the mapped thresholds
    and maps the threshold at a target FPIR (the suite checks FDR' and ranks only)."""
    before = drawn_outcomes(seed)
    shuffled = before.sample(frac=1.0, random_state=seed % 2**31).assign(group=lambda t: t["group"].map({"a": "z", "b": "y"}))
    back = {"z": "a", "y": "b"}
    t = np.array(thresholds, dtype=float)
    curve, again = bf.cmc(before, max_rank=6), bf.cmc(shuffled, max_rank=6).rename(columns=back)
    pd.testing.assert_frame_equal(again[curve.columns], curve, check_names=False)
    assert bf.rank_n_differential(shuffled, rank=rank) == bf.rank_n_differential(before, rank=rank)
    key = ["group", "threshold"]
    rates = bf.identification_rates(before, t, rank=rank).sort_values(key, ignore_index=True)
    other = bf.identification_rates(shuffled, t, rank=rank).assign(group=lambda x: x["group"].map(back))
    pd.testing.assert_frame_equal(other.sort_values(key, ignore_index=True), rates)
    fdr = quiet(bf.identification_discrepancy_rate, before, fpir_targets=wanted, rank=rank)
    pd.testing.assert_frame_equal(quiet(bf.identification_discrepancy_rate, shuffled, fpir_targets=wanted, rank=rank), fdr)
    assert fdr["fdr"].between(0, 1).all()
    after = drawn_outcomes(seed, increasing)
    moved = bf.identification_rates(after, increasing(t), rank=rank).sort_values(key, ignore_index=True)
    np.testing.assert_array_equal(moved["dir"], rates["dir"])
    np.testing.assert_array_equal(moved["fpir"], rates["fpir"])
    open_scores = before.loc[~before["mated"], "score"].to_numpy()
    for target in wanted:
        old, new = quiet(bf.threshold_at_fpir, before, target), quiet(bf.threshold_at_fpir, after, target)
        if old <= open_scores.max():
            assert new == float(increasing(old))
        else:
            assert new == np.nextafter(increasing(open_scores).max(), np.inf)
