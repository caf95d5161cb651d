"""Order, symmetry and monotonicity properties of the metrics called directly: operating
points monotone in the threshold and the target and unchanged by an increasing transform;
class swaps that mirror EER, minDCF, Cllr and d'; GARBE, Inequity and the subset indices
bounded, symmetric and free of scale; group fairness unchanged by an increasing transform;
the paired bootstrap antisymmetric in its two systems."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import biofair as bf
from biofair.mitigation import group_thresholds, rates_at_group_thresholds

from test_fairness_properties import group_tables  # 2-4 groups on a coarse grid (ties)

# Small integer grids give many ties, the hard case for every threshold rule (as tests/unit/test_properties.py).
score_arrays = arrays(np.float64, st.integers(1, 40), elements=st.integers(-20, 20).map(float))
targets = st.lists(st.sampled_from([1.0, 0.7, 0.5, 0.25, 0.1, 0.05, 0.01]), min_size=1, max_size=7)


def increasing(x):
    """A strictly increasing, non-affine transform (exact on the integer grid up to rounding)."""
    return np.exp(np.asarray(x, dtype=float) / 7.0) * 3 - 1


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        warnings.simplefilter("ignore", bf.UndefinedRateWarning)
        return call(*args, **kwargs)


# -- 1. operating points: monotone in threshold / target, depend only on the order of the scores --------


@given(mated=score_arrays, nonmated=score_arrays, wanted=targets,
       thresholds=st.lists(st.integers(-25, 25).map(float), min_size=1, max_size=10))
@settings(max_examples=150, deadline=None)
def test_operating_points_are_monotone_and_depend_only_on_order(mated, nonmated, wanted, thresholds):
    # FMR non-increasing and FNMR non-decreasing in the threshold (SPEC section 1)
    t = np.sort(np.array(thresholds))
    rates = bf.fmr_fnmr(mated, nonmated, t)
    assert np.all(np.diff(rates.fmr) <= 0) and np.all(np.diff(rates.fnmr) >= 0)
    assert np.all((0 <= rates.fmr) & (rates.fmr <= 1) & (0 <= rates.fnmr) & (rates.fnmr <= 1))
    # TMR at FMR non-decreasing in the target; each target met
    fmr_targets = np.sort(np.array(wanted))
    tmr = np.atleast_1d(quiet(bf.tmr_at_fmr, mated, nonmated, fmr_targets))
    assert np.all(np.diff(tmr) >= 0)
    # a strictly increasing transform keeps every rate; thresholds that are scores move with it
    fm, fn = increasing(mated), increasing(nonmated)
    assert np.array_equal(np.atleast_1d(quiet(bf.tmr_at_fmr, fm, fn, fmr_targets)), tmr)
    for target in fmr_targets:
        before = quiet(bf.operating_point, mated, nonmated, fmr=target)
        after = quiet(bf.operating_point, fm, fn, fmr=target)
        assert (after.fmr, after.fnmr) == (before.fmr, before.fnmr)
        assert (after.false_matches, after.false_non_matches) == (before.false_matches, before.false_non_matches)
        if before.threshold <= nonmated.max():  # a non-mated score, not nextafter(max)
            assert after.threshold == pytest.approx(float(increasing(before.threshold)), rel=1e-15)


# -- 2. swapping the classes (and negating the scores) -------------------------------------------------


@given(mated=score_arrays, nonmated=score_arrays, p=st.sampled_from([0.01, 0.2, 0.5, 0.8]),
       costs=st.sampled_from([(1.0, 1.0), (10.0, 1.0), (1.0, 3.0)]),
       scale=st.sampled_from([0.5, 3.0, 1e3]), shift=st.sampled_from([-7.0, 0.0, 2.5]))
@settings(max_examples=150, deadline=None)
def test_swapping_classes_mirrors_eer_dcf_d_prime_and_cllr(mated, nonmated, p, costs, scale, shift):
    c_miss, c_fa = costs
    # negated non-mated scores become the mated ones: the same ROC mirrored about the diagonal,
    # and the ROCCH crossing, an exact fraction rounded once, the same to the last bit
    assert bf.eer(-nonmated, -mated).eer == bf.eer(mated, nonmated).eer
    # detection cost: a miss becomes a false alarm, p_target becomes 1 - p_target
    assert bf.min_dcf(-nonmated, -mated, p_target=1 - p, c_miss=c_fa, c_fa=c_miss) == pytest.approx(
        bf.min_dcf(mated, nonmated, p_target=p, c_miss=c_miss, c_fa=c_fa), abs=1e-12)
    # calibration: negated LLRs of the other class give the same cost (Cllr is symmetric by definition)
    llr_m, llr_n = mated / 10, nonmated / 10
    assert bf.cllr(-llr_n, -llr_m) == pytest.approx(bf.cllr(llr_m, llr_n), rel=1e-12)
    assert bf.min_cllr(-llr_n, -llr_m) == pytest.approx(bf.min_cllr(llr_m, llr_n), abs=1e-12)
    assert bf.cllr(llr_m, llr_n) >= 0
    # d': symmetric in the classes, >= 0, invariant to a positive affine transform
    if np.ptp(mated) > 0 or np.ptp(nonmated) > 0:
        d = bf.decidability(mated, nonmated)
        assert d >= 0 and bf.decidability(nonmated, mated) == pytest.approx(d, rel=1e-12)
        assert bf.decidability(scale * mated + shift, scale * nonmated + shift) == pytest.approx(d, rel=1e-9, abs=1e-12)


# -- 3. the indices of rates and subset values, called directly --------------------------------------


rate_lists = st.lists(st.floats(1e-4, 1.0), min_size=2, max_size=8)
subset_values = st.lists(st.integers(0, 100).map(lambda k: k / 100), min_size=2, max_size=20)  # a grid: an affine map cannot absorb a difference


@given(rates=rate_lists, seed=st.integers(0, 2**32 - 1), factor=st.floats(0.01, 1.0),
       a=subset_values, b=subset_values)
@settings(max_examples=200, deadline=None)
def test_garbe_inequity_and_subset_bias_are_bounded_symmetric_and_scale_free(rates, seed, factor, a, b):
    x = np.array(rates)
    perm = np.random.default_rng(seed).permutation(x)
    k = x.size
    g = bf.garbe(x)
    assert 0.0 <= g <= 1.0
    assert bf.garbe(perm) == pytest.approx(g, abs=1e-12)
    assert bf.garbe(factor * x) == pytest.approx(g, abs=1e-12)  # a ratio of rates: no unit
    assert bf.garbe(x, correction=False) == pytest.approx(g * (k - 1) / k, abs=1e-12)
    assert bf.garbe(np.full(k, x[0])) == 0.0
    inq = bf.inequity(x)
    assert inq >= 1.0 - 1e-12
    assert bf.inequity(perm) == pytest.approx(inq, rel=1e-12)
    assert bf.inequity(factor * x) == pytest.approx(inq, rel=1e-9)
    assert bf.inequity(np.full(k, x[0])) == pytest.approx(1.0, abs=1e-12)
    # subset-bias indices (SPEC section 6): symmetric in the two groups, in range
    if len(a) != len(b):  # SP and EOP pair subsets k by k
        b = (b * len(a))[: len(a)]
    va, vb = np.array(a), np.array(b)
    assume(np.ptp(va) > 0 or np.ptp(vb) > 0)
    ns = bf.n_sigma(va, vb)
    assert ns >= 0 and bf.n_sigma(vb, va) == pytest.approx(ns, rel=1e-12)
    assert bf.n_sigma(3 * va + 1, 3 * vb + 1) == pytest.approx(ns, rel=1e-9)
    w = bf.welch_similarity(va, vb)
    assert 0.0 <= w <= 1.0 and bf.welch_similarity(vb, va) == pytest.approx(w, rel=1e-12)
    for index in (bf.statistical_parity, bf.equal_opportunity):
        s = index(va, vb)
        assert 0.0 <= s <= 1.0 and index(vb, va) == pytest.approx(s, abs=1e-15)
        assert index(va, va) == 1.0


# -- 4. group fairness depends only on the order of the scores, not their scale ----------------------


@pytest.mark.filterwarnings("ignore::biofair.UndefinedRateWarning")
@pytest.mark.filterwarnings("ignore::biofair.InsufficientComparisonsWarning")
@given(drawn=group_tables())
@settings(max_examples=25, deadline=None)
def test_outcome_fairness_is_invariant_to_strictly_increasing_transforms(drawn):
    table, _ = drawn
    moved = table.assign(score=increasing(table["score"]))
    fmr_targets = [0.3, 0.1, 0.01]
    before = bf.fairness_discrepancy_rate(table, fmr_targets=fmr_targets)
    after = bf.fairness_discrepancy_rate(moved, fmr_targets=fmr_targets)
    for column in ("A", "B", "fdr"):
        np.testing.assert_array_equal(after[column].to_numpy(), before[column].to_numpy(), err_msg=column)
    assert bf.area_under_fdr(after["fdr"], fmr_targets) == bf.area_under_fdr(before["fdr"], fmr_targets)
    of_before, of_after = bf.outcome_fairness(table, fmr=0.05), bf.outcome_fairness(moved, fmr=0.05)
    for name in ("garbe_fmr", "garbe_fnmr", "inequity_fmr", "inequity_fnmr"):
        assert getattr(of_after, name) == pytest.approx(getattr(of_before, name), abs=1e-12), name
    # per-group thresholds (mitigation): each group's rates at its own threshold are unchanged
    rates_before = rates_at_group_thresholds(table, group_thresholds(table, fmr=0.05))
    rates_after = rates_at_group_thresholds(moved, group_thresholds(moved, fmr=0.05))
    for column in ("fmr", "fnmr"):
        np.testing.assert_array_equal(rates_after[column].to_numpy(), rates_before[column].to_numpy(), err_msg=column)
    assert (rates_before["fmr"] <= 0.05).all()


# -- 5. paired comparisons: swapping the systems negates everything ---------------------------------


@given(seed=st.integers(0, 2**16), shift=st.floats(-1.0, 1.0), decimals=st.sampled_from([0, 1, 3]),
       method=st.sampled_from(["percentile", "bca"]), unit=st.sampled_from(["pair", "subject"]))
@settings(max_examples=20, deadline=None)
def test_paired_bootstrap_is_antisymmetric_and_bootstrap_estimates_the_full_sample(seed, shift, decimals, method, unit):
    """SPEC section 3: delta = m(A) - m(B) on the same resampled indices, so swapping A and B
    must negate the difference, every replicate and the interval, and p(A > B) + p(B > A) +
    p(tie) = 1; a single-system bootstrap's estimate is the metric of the full sample."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(40):  # one mated and six non-mated comparisons per reference subject
        rows.append((rng.normal(2, 1), True, s, s))
        rows += [(rng.normal(0, 1), False, s, (s + 1 + k) % 40) for k in range(6)]
    a = pd.DataFrame(rows, columns=["score", "mated", "reference_subject", "probe_subject"])
    a["score"] = np.round(a["score"], decimals)
    b = a.assign(score=np.round(a["score"] + rng.normal(shift, 0.7, len(a)), decimals))
    for statistic, args in ((bf.roc_auc, ()), (bf.tmr_at_fmr, (0.1,))):
        options = dict(args=args, n_resamples=200, rng=seed, method=method, unit=unit)
        ab = quiet(bf.paired_bootstrap, statistic, a, b, **options)
        ba = quiet(bf.paired_bootstrap, statistic, b, a, **options)
        assert ba.difference == -ab.difference
        np.testing.assert_allclose(ba.replicates, -ab.replicates, rtol=0, atol=1e-15)
        assert (ba.low, ba.high) == pytest.approx((-ab.high, -ab.low), abs=1e-12)
        assert ab.p_greater + ba.p_greater + np.mean(ab.replicates == 0) == pytest.approx(1.0, abs=1e-12)
        assert ab.significant == ba.significant
        single = quiet(bf.bootstrap, statistic, a, **options)
        assert single.estimate == quiet(statistic, *bf.split_scores(a), *args)
        assert 0.0 <= single.low <= single.high <= 1.0
