"""Oracles a function-by-function audit of the test standard found missing: each metric against
an independent computation (scikit-learn, exact fractions, a loop over the rows) on small drawn
inputs with many ties and groups of unequal sizes, where the suite had only a fixed fixture, a
hand-worked pair of examples or biofair compared with itself."""

from __future__ import annotations

import math
from fractions import Fraction

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn import metrics

import biofair as bf
from biofair import partitions as bp
from test_more_metrics_vs_definitions import cei_from_spec, quiet
from test_outcome_fairness_audit import exact_garbe
from test_property_gaps import kl_bits, loop_inequity, loop_threshold, pmf, spec_cei, spec_indices, table_of
from test_vs_bruteforce import exact_eer_rules, exact_rocch_eer

FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Small integer grids: many ties within and across the classes, and classes of unequal sizes.
tied = st.lists(st.integers(-4, 4), min_size=1, max_size=15)


def labelled(mated, nonmated):
    y = np.r_[np.ones(len(mated)), np.zeros(len(nonmated))]
    return y, np.r_[np.asarray(mated, dtype=float), np.asarray(nonmated, dtype=float)]


@FAST
@given(mated=tied, nonmated=tied)
def test_pr_auc_and_curves_equal_sklearn_on_tiny_tied_classes(mated, nonmated):
    """pr_auc, roc_curve and det_curve were compared with scikit-learn only on the 150/600-score
    fixture; tiny tied classes (a single score, all scores equal, every mated score tied with a
    non-mated one) are where average precision's step rule and the curve ends differ."""
    m, n = np.array(mated, dtype=float), np.array(nonmated, dtype=float)
    y, s = labelled(m, n)
    assert bf.pr_auc(m, n) == pytest.approx(metrics.average_precision_score(y, s), abs=1e-12)
    fpr, tpr, thr = metrics.roc_curve(y, s, drop_intermediate=False)
    roc = bf.roc_curve(m, n)
    np.testing.assert_array_equal(roc.fmr, fpr)
    np.testing.assert_array_equal(roc.tmr, tpr)
    np.testing.assert_array_equal(roc.thresholds[1:], thr[1:])
    if m.size and n.size and len(set(s)) > 1:
        fpr, fnr, thr = metrics.det_curve(y, s)
        thr = np.where(np.isinf(thr), np.nextafter(s.max(), np.inf), thr)  # scikit-learn's end: +inf
        det = bf.det_curve(m, n)
        at = np.searchsorted(det.thresholds, thr)
        np.testing.assert_array_equal(det.thresholds[at], thr)
        np.testing.assert_allclose(det.fmr[at], fpr, rtol=0, atol=1e-15)
        np.testing.assert_allclose(det.fnmr[at], fnr, rtol=0, atol=1e-15)


def exact_decidability_squared(mated, nonmated) -> Fraction:
    """d'^2 = (mean_m - mean_n)^2 / ((var_m + var_n) / 2), population variances, in fractions."""
    def mean(v):
        return Fraction(sum(v), len(v))

    def pvar(v):
        mu = mean(v)
        return sum((Fraction(x) - mu) ** 2 for x in v) / len(v)

    return (mean(mated) - mean(nonmated)) ** 2 / ((pvar(mated) + pvar(nonmated)) / 2)


@FAST
@given(mated=st.lists(st.integers(-6, 6), min_size=1, max_size=20),
       nonmated=st.lists(st.integers(-6, 6), min_size=1, max_size=40),
       scale=st.sampled_from([1, 4, 1 / 8]))
def test_decidability_equals_exact_fractions_on_drawn_tied_classes(mated, nonmated, scale):
    """d' had two hand-worked pairs and properties; here the SPEC's formula in exact rational
    arithmetic (population variances) on drawn tied classes of unequal sizes."""
    assume(len(set(mated)) > 1 or len(set(nonmated)) > 1)
    m = [Fraction(x) * Fraction(scale) for x in mated]
    n = [Fraction(x) * Fraction(scale) for x in nonmated]
    expected = float(exact_decidability_squared(m, n)) ** 0.5
    got = bf.decidability(np.array(m, dtype=float), np.array(n, dtype=float))
    assert got == pytest.approx(expected, rel=1e-13, abs=1e-15)


# -- partitions.group_rates_at: its per-group rates had no oracle (only its cross-group FMR did) -----


@pytest.fixture
def synchronous_dask():
    with dask.config.set(scheduler="synchronous"):
        yield


side_groups = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.tuples(st.lists(st.integers(-3, 3), min_size=1, max_size=6),
              st.lists(st.integers(-3, 3), min_size=1, max_size=9)),
    min_size=2, max_size=3,
)
cross_rows = st.lists(st.tuples(st.integers(-4, 4), st.sampled_from(["a", "b", "c"]),
                                st.sampled_from(["a", "b", "c"])), max_size=8)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(groups=side_groups, cross=cross_rows, parts=st.integers(1, 3), seed=st.integers(0, 2**31 - 1),
       thresholds=st.lists(st.integers(-4, 5).map(float), min_size=1, max_size=4))
def test_partitioned_group_rates_at_equal_a_loop_over_rows(synchronous_dask, groups, cross, parts, seed, thresholds):
    """bp.group_rates_at: each group's FMR (homogeneous non-mated pairs only) and FNMR, their
    counts, and the FMR of the pairs whose sides differ, at thresholds that are scores (ties),
    by a loop over the rows of a shuffled, partitioned table."""
    rows = [(float(s), True, g, g) for g, (mated, _) in groups.items() for s in mated]
    rows += [(float(s), False, g, g) for g, (_, nonmated) in groups.items() for s in nonmated]
    rows += [(float(s), False, r, p) for s, r, p in cross if r != p and r in groups and p in groups]
    table = pd.DataFrame(rows, columns=["score", "mated", "reference_group", "probe_group"])
    table = table.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    rates, cross_fmr = bp.group_rates_at(dd.from_pandas(table, npartitions=parts), thresholds)
    names = sorted(groups)  # rows in the order of the groups' labels, as rates_by_group lists them
    assert rates.fmr.shape == rates.fnmr.shape == (len(names), len(thresholds))
    for i, g in enumerate(names):
        same = [(s, m) for s, m, r, p in rows if r == g and p == g]
        nonmated = [s for s, m in same if not m]
        mated = [s for s, m in same if m]
        assert (rates.n_mated[i, 0], rates.n_nonmated[i, 0]) == (len(mated), len(nonmated))
        for j, t in enumerate(thresholds):
            false_matches, false_non_matches = sum(s >= t for s in nonmated), sum(s < t for s in mated)
            assert (rates.false_matches[i, j], rates.false_non_matches[i, j]) == (false_matches, false_non_matches)
            assert rates.fmr[i, j] == false_matches / len(nonmated)
            assert rates.fnmr[i, j] == false_non_matches / len(mated)
    heterogeneous = [s for s, m, r, p in rows if r != p]
    if heterogeneous:
        assert list(cross_fmr) == [sum(s >= t for s in heterogeneous) / len(heterogeneous) for t in thresholds]
    else:
        assert cross_fmr is None


# -- partitions: EER, pooled thresholds and CEI were compared only with the in-memory functions -----

part_groups = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.tuples(st.lists(st.integers(-3, 4), min_size=2, max_size=8),
              st.lists(st.integers(-4, 3), min_size=4, max_size=16)),
    min_size=2, max_size=3,
)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(groups=part_groups, parts=st.integers(1, 3), seed=st.integers(0, 2**31 - 1),
       wanted=st.lists(st.sampled_from([1.0, 0.5, 0.3, 0.1, 0.05, 0.0]), min_size=1, max_size=4),
       percentile=st.sampled_from([50.0, 75.0]))
def test_partitioned_eer_thresholds_and_cei_equal_independent_computations(synchronous_dask, groups, parts, seed,
                                                                         wanted, percentile):
    """bp.eer (rocch, midpoint, interval) against the exact-fraction hull and rules of
    test_vs_bruteforce; bp.pooled_thresholds against a loop over candidate thresholds of the
    pooled homogeneous non-mated scores; bp.comprehensive_equity_index against SPEC 5 written
    out (test_more_metrics_vs_definitions.cei_from_spec), on tiny tied shuffled partitions."""
    table = table_of(groups)
    assume(table["score"].nunique() > 1)
    data = dd.from_pandas(table.sample(frac=1.0, random_state=seed).reset_index(drop=True), npartitions=parts)
    mated = table.loc[table["mated"], "score"].to_numpy()
    nonmated = table.loc[~table["mated"], "score"].to_numpy()
    assert bp.eer(data).eer == float(exact_rocch_eer(mated, nonmated))
    for method, (threshold, low, high) in zip(("midpoint", "interval"), exact_eer_rules(mated, nonmated)):
        found = bp.eer(data, method=method)
        assert (found.threshold, found.low, found.high) == (threshold, float(low), float(high)), method
    found = quiet(bp.pooled_thresholds, data, wanted)
    assert list(found) == [loop_threshold(nonmated, target) for target in wanted]
    for kind in ("mated", "nonmated"):
        try:
            cei = quiet(bp.comprehensive_equity_index, data, kind=kind, percentile=percentile, tail_weight=0.8, bins=5)
        except bf.SchemaError as error:  # documented: a group whose every score falls in its tail
            assert "tail" in str(error), error
            continue
        normal, extreme, _ = cei_from_spec(table, kind, percentile, 0.8, 5)
        assert cei.normal == pytest.approx(normal, abs=1e-12), kind
        assert cei.extreme == pytest.approx(extreme, abs=1e-12), kind


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(groups=part_groups, parts=st.integers(1, 3), seed=st.integers(0, 2**31 - 1),
       target=st.sampled_from([1.0, 0.5, 0.2, 0.05, 0.0]), n_std=st.sampled_from([0.5, 1.0]),
       bins=st.sampled_from([1, 4, 10]))
@example(groups={"a": ([0, 1], [0, 0, 0, 0]), "b": ([-2, -3, 1, 3, -3], [0, 0, 0, 0])}, parts=1, seed=0, target=1.0,
         n_std=0.5, bins=1)  # a mated score exactly at mu - N sigma (found by a fresh clone's run)
def test_partitioned_fairness_indices_equal_loops_and_the_spec(synchronous_dask, groups, parts, seed, target, n_std,
                                                              bins):
    """bp.fairness_discrepancy_rate, bp.outcome_fairness (GARBE as the exact Gini double sum,
    Inequity with zero rates bounded), bp.distribution_fairness_index and
    bp.automatic_comprehensive_equity_index against SPEC 4 and 5 written out in
    test_property_gaps, not against the in-memory functions."""
    table = table_of(groups)
    assume(table["score"].nunique() > 1)
    data = dd.from_pandas(table.sample(frac=1.0, random_state=seed).reset_index(drop=True), npartitions=parts)
    names = sorted(groups)
    pooled = [s for g in names for s in groups[g][1]]
    wanted = [1.0, 0.5, 0.2, 0.05]
    fdr = quiet(bp.fairness_discrepancy_rate, data, fmr_targets=wanted)
    for row, x in zip(fdr.itertuples(), wanted):
        t = loop_threshold(pooled, x)
        fmr = [sum(s >= t for s in groups[g][1]) / len(groups[g][1]) for g in names]
        fnmr = [sum(s < t for s in groups[g][0]) / len(groups[g][0]) for g in names]
        a, b = max(fmr) - min(fmr), max(fnmr) - min(fnmr)
        assert (row.threshold, row.A, row.B) == (t, a, b)
        assert row.fdr == pytest.approx(1 - (0.5 * a + 0.5 * b), abs=1e-15)
    out = quiet(bp.outcome_fairness, data, fmr=target)
    t = loop_threshold(pooled, target)
    fmr = [sum(s >= t for s in groups[g][1]) / len(groups[g][1]) for g in names]
    fnmr = [sum(s < t for s in groups[g][0]) / len(groups[g][0]) for g in names]
    assert out.threshold == t
    assert out.garbe_fmr == pytest.approx(float(exact_garbe(fmr, True)), abs=1e-15)
    assert out.garbe_fnmr == pytest.approx(float(exact_garbe(fnmr, True)), abs=1e-15)
    assert out.inequity_fmr == pytest.approx(loop_inequity(fmr, [len(groups[g][1]) for g in names]), rel=1e-12)
    assert out.inequity_fnmr == pytest.approx(loop_inequity(fnmr, [len(groups[g][0]) for g in names]), rel=1e-12)
    arrays = [(np.array(groups[g][0], dtype=float), np.array(groups[g][1], dtype=float)) for g in names]
    for combine in ("pooled", "equal"):
        everything = np.concatenate([np.r_[m, n] for m, n in arrays])
        edges = np.linspace(everything.min(), everything.max(), bins + 1)
        pmfs = [pmf(np.r_[m, n], edges) if combine == "pooled" else (pmf(m, edges) + pmf(n, edges)) / 2
                for m, n in arrays]
        mean = sum(pmfs) / len(pmfs)
        dfi = quiet(bp.distribution_fairness_index, data, bins=bins, combine=combine)
        assert (dfi.normal, dfi.extreme) == pytest.approx(spec_indices([kl_bits(p, mean) for p in pmfs]), abs=1e-12)
    for kind, side in (("mated", 0), ("nonmated", 1)):
        samples = [a[side] for a in arrays]
        # SPEC 5, CEI^A: population moments, the share strictly beyond mu -/+ N sigma, decided exactly: with
        # x - mu of the error tail's sign, beyond when (x - mu)^2 > N^2 sigma^2 (integer scores, Fractions)
        edges = []
        for v in samples:
            exact = [Fraction(int(x)) for x in v]
            mu = sum(exact) / len(exact)
            var = sum((x - mu) ** 2 for x in exact) / len(exact)
            sign = -1 if kind == "mated" else 1
            edges.append([(sign * (x - mu) > 0, (x - mu) ** 2 - Fraction(n_std) ** 2 * var) for x in exact])
        if any(side_ok and gap == 0 for edge in edges for side_ok, gap in edge):
            # a score exactly at mu -/+ N sigma: the partitioned moments, merged from partitions, may round it to
            # either side (the function's Notes: equal to memory unless a score lies within that rounding;
            # {'a': ([0, 1], ...), 'b': ([-2, -3, 1, 3, -3], ...)} at N = 0.5: -2 = -0.8 - 0.5 * 2.4 counted beyond)
            continue
        shares, percentiles = [], []
        for edge in edges:
            beyond = sum(side_ok and gap > 0 for side_ok, gap in edge) / len(edge)
            percentiles.append(100 * (1 - beyond))
            shares.append((1 - beyond) / (1 + math.exp(-beyond / stats.norm.sf(n_std))))
        weight = sum(shares) / len(shares)
        expected = spec_cei(samples, kind, percentiles, weight, bins)
        if expected is None:
            with pytest.raises(bf.SchemaError, match="tail"):
                quiet(bp.automatic_comprehensive_equity_index, data, kind=kind, n_std=n_std, bins=bins)
            continue
        auto = quiet(bp.automatic_comprehensive_equity_index, data, kind=kind, n_std=n_std, bins=bins)
        assert auto.parameters["tail_weight"] == pytest.approx(weight, abs=1e-12)
        assert (auto.normal, auto.extreme) == pytest.approx(expected, abs=1e-12), kind


# -- mitigation: per-group thresholds had a hand-made tied table, not drawn groups ------------------


@FAST
@given(dev=part_groups, ev=part_groups, target=st.sampled_from([1.0, 0.5, 0.3, 0.1, 0.0]))
def test_group_thresholds_and_their_rates_equal_loops_on_drawn_tied_groups(dev, ev, target):
    """group_thresholds: each group's threshold is the loop threshold of its own homogeneous
    non-mated development scores, with k and the rule of three/thirty; rates_at_group_thresholds
    counts each evaluation group at its own threshold, groups of unequal sizes, ties at every
    threshold."""
    from biofair.mitigation import group_thresholds, rates_at_group_thresholds

    names = sorted(set(dev) & set(ev))
    assume(len(names) >= 2)
    dev, ev = {g: dev[g] for g in names}, {g: ev[g] for g in names}
    found = quiet(group_thresholds, table_of(dev), target)
    assert list(found.index) == names
    for g in names:
        nonmated = [float(s) for s in dev[g][1]]
        t = loop_threshold(nonmated, target)
        k = sum(s >= t for s in nonmated)
        assert (found.loc[g, "threshold"], found.loc[g, "k"], found.loc[g, "n_nonmated"]) == (t, k, len(nonmated))
        assert found.loc[g, "resolved"] == (target * len(nonmated) >= 3)
        assert found.loc[g, "precise"] == (target * len(nonmated) >= 30)
    rates = rates_at_group_thresholds(table_of(ev), found)
    for g in names:
        t = found.loc[g, "threshold"]
        mated, nonmated = ev[g]
        false_matches, false_non_matches = sum(s >= t for s in nonmated), sum(s < t for s in mated)
        row = rates.loc[g]
        assert (row["false_matches"], row["n_nonmated"], row["false_non_matches"], row["n_mated"]) == (
            false_matches, len(nonmated), false_non_matches, len(mated))
        assert (row["fmr"], row["fnmr"]) == (false_matches / len(nonmated), false_non_matches / len(mated))


# -- calibration: the actual DCF's decision threshold was never drawn on a tied score ---------------


@FAST
@given(mated=tied, nonmated=tied, cost=st.sampled_from([0.5, 1.0, 3.0]),
       priors=st.lists(st.integers(-5, 5).map(float), min_size=1, max_size=4))
def test_actual_dcf_and_bayes_error_rates_decide_llrs_at_their_threshold_as_matches(mated, nonmated, cost, priors):
    """The suite drew p_target as any float, so ln((1-p)/p) almost never equalled an LLR. Here
    p = 1/2 with equal costs (threshold 0) and integer prior log-odds x (threshold -x) on
    integer LLRs: every threshold is an LLR of both classes, and an LLR at it is a match
    (SPEC 1), counted by a loop."""
    m, n = np.array(mated, dtype=float), np.array(nonmated, dtype=float)

    def loop_dcf(eta, p):
        fnmr = sum(s < eta for s in mated) / len(mated)
        fmr = sum(s >= eta for s in nonmated) / len(nonmated)
        return (p * fnmr + (1 - p) * fmr) / min(p, 1 - p)

    # a tie decided the wrong way moves the cost by at least 1/n; equal costs of 3 may move it by
    # 1 ulp (1.5·0.8/1.5 = 0.8000000000000002), as min_dcf, whose arithmetic it shares
    assert bf.actual_dcf(m, n, p_target=0.5, c_miss=cost, c_fa=cost) == pytest.approx(loop_dcf(0.0, 0.5), rel=1e-12)
    table = bf.bayes_error_rates(m, n, prior_log_odds=priors)
    for row in table.itertuples():
        assert row.actual_dcf == pytest.approx(loop_dcf(-row.prior_log_odds, row.p_target), rel=1e-12)
