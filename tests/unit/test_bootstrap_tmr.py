"""The fast path of the bootstrap of TMR at a target FMR: exact laws and exact jackknife.

The pair thresholds are checked against the law of the pair bootstrap enumerated over every
resample of a few scores; the leave-one-out values against leaving each comparison (or
cluster) out and calling ``bf.tmr_at_fmr``; the BCa interval against scipy's.
"""

from __future__ import annotations

import itertools
import warnings
from math import factorial

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.stats import norm

import biofair as bf
from biofair._fast_tmr import pair_jackknife, pair_thresholds, tmr_at_fmr_jackknife
from biofair.areas import _roc_auc_jackknife
from memory import peak_memory


def compositions(n: int, parts: int):
    """Every way to write n as an ordered sum of ``parts`` counts >= 0."""
    for bars in itertools.combinations(range(n + parts - 1), parts - 1):
        yield np.diff((-1, *bars, n + parts - 1)) - 1


def enumerated_threshold_law(nonmated: np.ndarray, fmr: float) -> dict[float, float]:
    """P(threshold = t) over all N^N pair resamples, grouped by how often each score is drawn."""
    n, law = nonmated.size, {}
    for drawn in compositions(n, n):
        probability = factorial(n) / np.prod([factorial(int(k)) for k in drawn]) / n**n
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
            t = float(bf.threshold_at_fmr(np.repeat(nonmated, drawn), fmr))
        law[t] = law.get(t, 0.0) + probability
    return law


@pytest.mark.parametrize(("nonmated", "fmr"), [
    ([0.1, 0.5, 0.5, 0.9, 1.2, 1.2, 3.0], 0.3),  # ties
    ([0.0, 1, 2, 3, 4, 5, 6], 0.15),  # one false match allowed
    ([1.0, 1, 1, 2, 2, 3], 0.0),  # none allowed: just above the largest drawn
    ([1.0, 1, 1, 2, 2, 3], 1.0),  # all allowed: the smallest drawn
    ([1.0, 2, 2, 3, 5, 8], 0.5),
    ([4.0, 4, 4, 4, 4, 4], 0.4),  # all tied
    ([2.5], 0.5),  # one score
])
def test_pair_thresholds_have_the_enumerated_law_of_the_pair_bootstrap(nonmated, fmr):
    nonmated = np.array(nonmated)
    law = enumerated_threshold_law(nonmated, fmr)
    drawn = pair_thresholds(nonmated, fmr, 100_000, np.random.default_rng(0))
    values = sorted(law)
    observed = np.array([np.sum(drawn == t) for t in values])
    assert observed.sum() == drawn.size  # every drawn threshold is one the rule can give
    if len(values) > 1:
        expected = np.array([law[t] for t in values]) * drawn.size
        assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_pair_thresholds_at_scale_agree_with_resampling_and_sorting():
    """At N = 20,000 (with ties) the thresholds' quantiles match those of real resamples."""
    rng = np.random.default_rng(1)
    nonmated = np.round(rng.normal(0, 1, 20_000), 2)
    fast = pair_thresholds(nonmated, 1e-3, 4000, np.random.default_rng(2))
    resampled = np.array([bf.threshold_at_fmr(rng.choice(nonmated, nonmated.size), 1e-3) for _ in range(2000)])
    assert stats.ks_2samp(fast, resampled).pvalue > 1e-3
    assert np.isin(fast, np.unique(nonmated)).all()  # 20 allowed: always a score of the data


def brute_force_jackknife(mated, nonmated, fmr):
    """TMR at FMR with each mated, then each non-mated comparison left out."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        return (np.array([bf.tmr_at_fmr(np.delete(mated, i), nonmated, fmr) for i in range(mated.size)]),
                np.array([bf.tmr_at_fmr(mated, np.delete(nonmated, i), fmr) for i in range(nonmated.size)]))


def grouped(values, counts):
    """Distinct values and how many units give each."""
    distinct, which = np.unique(values, return_inverse=True)
    return distinct, np.bincount(which, weights=counts).astype(np.int64)


@given(seed=st.integers(0, 2**32 - 1), decimals=st.sampled_from([0, 1, 3, 12]),
       fmr=st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.2, 0.5, 0.9, 1.0]))
@settings(max_examples=300, deadline=None)
def test_pair_jackknife_equals_leaving_each_comparison_out(seed, decimals, fmr):
    rng = np.random.default_rng(seed)
    mated = np.round(rng.normal(1, 1, int(rng.integers(2, 15))), decimals)
    nonmated = np.round(rng.normal(0, 1, int(rng.integers(2, 40))), decimals)
    for (values, counts), expected in zip(pair_jackknife(mated, nonmated, fmr),
                                          brute_force_jackknife(mated, nonmated, fmr), strict=True):
        distinct, how_many = np.unique(expected, return_counts=True)
        got_distinct, got_counts = grouped(values, counts)
        np.testing.assert_array_equal(got_distinct, distinct)  # the same floats, bit for bit
        np.testing.assert_array_equal(got_counts, how_many)


@pytest.mark.filterwarnings("ignore::biofair.InsufficientComparisonsWarning")  # 9 non-mated left: 0.3 < 3/9
def test_pair_jackknife_leaves_out_no_class_of_one_comparison():
    """A class of one comparison adds nothing to the acceleration and is not left out (as in
    the plain jackknife, see bootstrap's notes): only the non-mated values come back, and
    bootstrap says what the plain path says (here TMR stays 0 whichever is left out)."""
    mated, nonmated = np.array([1.0]), np.arange(10.0)
    [(values, counts)] = pair_jackknife(mated, nonmated, 0.3)
    expected = [bf.tmr_at_fmr(mated, np.delete(nonmated, j), 0.3) for j in range(nonmated.size)]
    np.testing.assert_array_equal(np.repeat(values, counts), expected)  # all 0, in one group
    for statistic in (bf.tmr_at_fmr, lambda m, n, fmr: float(bf.tmr_at_fmr(m, n, fmr))):
        with pytest.raises(ValueError, match="the statistic takes the same value whichever unit is left out"):
            bf.bootstrap(statistic, (mated, nonmated), args=(0.3,), method="bca", rng=0)


def test_subject_jackknife_equals_leaving_each_cluster_out():
    rng = np.random.default_rng(3)
    n_subjects = 12
    mated_clusters, nonmated_clusters = rng.integers(0, n_subjects, 80), rng.integers(0, n_subjects, 600)
    mated = np.round(rng.normal(1.5, 1, 80) + 0.1 * mated_clusters, 1)
    nonmated = np.round(rng.normal(0, 1, 600) + 0.1 * nonmated_clusters, 1)
    [(values, counts)] = tmr_at_fmr_jackknife(mated, nonmated, 0.05, clusters=(mated_clusters, nonmated_clusters))
    expected = [bf.tmr_at_fmr(mated[mated_clusters != c], nonmated[nonmated_clusters != c], 0.05)
                for c in range(n_subjects)]
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(counts, np.ones(n_subjects))


def scipy_bca(data, statistic, replicates, confidence):
    """scipy.stats.bootstrap's BCa interval of our bootstrap distribution (its own jackknife)."""

    class Previous:
        bootstrap_distribution = replicates

    result = stats.bootstrap(data, statistic, n_resamples=0, bootstrap_result=Previous(), method="BCa",
                             confidence_level=confidence, vectorized=False)
    return result.confidence_interval.low, result.confidence_interval.high


@pytest.mark.parametrize(("decimals", "fmr"), [(2, 0.05), (6, 0.01), (1, 0.2)])
def test_bca_of_tmr_equals_scipy_for_pairs(decimals, fmr):
    rng = np.random.default_rng(decimals)
    mated, nonmated = np.round(rng.normal(2, 1, 150), decimals), np.round(rng.normal(0, 1, 600), decimals)
    result = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(fmr,), method="bca", n_resamples=999,
                          confidence=0.9, rng=5)
    low, high = scipy_bca((mated, nonmated), lambda m, n: bf.tmr_at_fmr(m, n, fmr), result.replicates, 0.9)
    assert (result.low, result.high) == pytest.approx((low, high), rel=1e-12)
    percentile = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(fmr,), n_resamples=999, confidence=0.9, rng=5)
    np.testing.assert_array_equal(percentile.replicates, result.replicates)


def test_bca_of_tmr_equals_scipy_for_subjects():
    rng = np.random.default_rng(6)
    n_subjects = 20
    reference = np.repeat(np.arange(n_subjects), 40)
    mated = np.arange(reference.size) % 8 == 0
    offset = rng.normal(0, 0.5, n_subjects)[reference]
    table = pd.DataFrame({"score": np.round(offset + np.where(mated, rng.normal(2, 1, reference.size),
                                                               rng.normal(0, 1, reference.size)), 2),
                          "mated": mated, "reference_subject": reference})
    result = bf.bootstrap(bf.tmr_at_fmr, table, args=(0.05,), unit="subject", method="bca", n_resamples=500, rng=2)

    def on_subjects(codes):  # TMR at FMR of the comparisons of these subjects
        picked = table[np.isin(table["reference_subject"], codes)]
        return float(bf.tmr_at_fmr(*bf.split_scores(picked), 0.05))

    low, high = scipy_bca((np.arange(n_subjects),), on_subjects, result.replicates, 0.95)
    assert (result.low, result.high) == pytest.approx((low, high), rel=1e-12)


def test_bca_of_tmr_is_fast_at_a_million_scores():
    """The jackknife is closed-form: 1.1e6 scores would take 1.1e6 evaluations by the plain path."""
    rng = np.random.default_rng(7)
    mated, nonmated = rng.normal(2.5, 1, 100_000), rng.normal(0, 1, 1_000_000)
    result = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(1e-3,), method="bca", n_resamples=1000, rng=0)
    assert result.low < result.estimate < result.high


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_tmr_interval_coverage_of_both_methods(method):
    """95% intervals cover the closed-form TMR at FMR = 1e-2 in roughly 90-98% of repetitions."""
    shift, fmr = 2.0, 1e-2
    truth = norm.sf(norm.isf(fmr) - shift)  # TMR of N(2, 1) against N(0, 1)
    rng = np.random.default_rng(43)
    covered = []
    for _ in range(400):
        mated, nonmated = rng.normal(shift, 1, 400), rng.normal(0, 1, 4000)
        result = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(fmr,), method=method, n_resamples=400, rng=rng)
        covered.append(result.low <= truth <= result.high)
    assert 0.90 <= np.mean(covered) <= 0.98


@given(seed=st.integers(0, 2**32 - 1), n_nonmated=st.integers(2_000, 20_000),
       fmr=st.sampled_from([1e-2, 3e-2, 1e-1]), method=st.sampled_from(["percentile", "bca"]))
@settings(max_examples=40, deadline=None)
def test_interval_contains_the_estimate_in_typical_cases(seed, n_nonmated, fmr, method):
    """Continuous scores, at least 20 false matches allowed and 200 mated scores."""
    rng = np.random.default_rng(seed)
    mated, nonmated = rng.normal(2, 1, n_nonmated // 10), rng.normal(0, 1, n_nonmated)
    result = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(fmr,), method=method, n_resamples=500, rng=seed)
    assert result.low <= result.estimate <= result.high


def test_float32_scores_give_the_float64_replicates_of_the_same_values():
    rng = np.random.default_rng(8)
    mated, nonmated = rng.normal(2, 1, 300).astype(np.float32), rng.normal(0, 1, 3000).astype(np.float32)
    single = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(0.01,), method="bca", n_resamples=200, rng=1)
    double = bf.bootstrap(bf.tmr_at_fmr, (mated.astype(np.float64), nonmated.astype(np.float64)), args=(0.01,),
                          method="bca", n_resamples=200, rng=1)
    np.testing.assert_array_equal(single.replicates, double.replicates)
    assert (single.low, single.high) == (double.low, double.high)


def test_grouped_leave_one_out_values_give_the_acceleration_of_the_repeated_ones():
    """Three million units: n**3 would overflow int64 if the counts were summed as integers."""
    from biofair._resampling import interval

    rng = np.random.default_rng(9)
    replicates, estimate = rng.normal(0.5, 0.01, 1000) ** 2, 0.25
    values, counts = np.array([0.2499, 0.25, 0.2502]), np.array([1_000_000, 1_500_000, 500_000])
    grouped_ends = interval(replicates, estimate, lambda: [(values, counts)], method="bca", confidence=0.9)
    repeated_ends = interval(replicates, estimate, lambda: [(np.repeat(values, counts), None)], method="bca",
                             confidence=0.9)
    assert grouped_ends == pytest.approx(repeated_ends, rel=1e-9)


def plain_tmr(mated, nonmated, fmr):
    """tmr_at_fmr without its fast path: the bootstrap resamples and recomputes."""
    return bf.tmr_at_fmr(mated, nonmated, fmr)


@pytest.mark.parametrize("fmr", [0.0, 0.125, 0.3, 0.875, 1.0])
def test_fast_pair_replicates_have_the_law_of_resampling_and_recomputing(fmr):
    """The whole fast path (two order statistics, then a Binomial TMR) against the plain path on
    tied scores, including FMR 0 (above every drawn score) and 1 (the smallest drawn)."""
    mated, nonmated = np.array([1.0, 1, 2, 2, 2, 3]), np.array([0.0, 1, 1, 1, 2, 2, 3, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # 8 non-mated scores
        fast = bf.bootstrap(bf.tmr_at_fmr, (mated, nonmated), args=(fmr,), n_resamples=20_000, rng=1).replicates
        plain = bf.bootstrap(plain_tmr, (mated, nonmated), args=(fmr,), n_resamples=20_000, rng=2).replicates
    values = np.union1d(fast, plain)
    assert set(values) <= {k / mated.size for k in range(mated.size + 1)}
    table = np.array([[np.sum(fast == v) for v in values], [np.sum(plain == v) for v in values]])
    assert stats.chi2_contingency(table).pvalue > 1e-3


@pytest.mark.parametrize("fmr", [0.0, 1e-3, 0.05, 0.5, 1.0])
def test_fast_subject_replicates_equal_the_plain_path_resample_by_resample(fmr):
    """Same seed, same cluster draws: each replicate of the fast path is the TMR of the resample
    the plain path draws (ties, a few large clusters), also where the threshold lies below the
    block of top scores the fast path reads first and it recomputes the resample in full (FMR 1)."""
    rng = np.random.default_rng(7)
    sizes = np.where(np.arange(40) % 7 == 0, 300, 20)
    reference = np.repeat(np.arange(40), sizes + 2)
    mated = np.concatenate([np.r_[True, True, np.zeros(s, bool)] for s in sizes])
    table = pd.DataFrame({"score": np.round(rng.normal(0, 1, reference.size) + 1.5 * mated
                                            + rng.normal(0, 0.5, 40)[reference], 1),
                          "mated": mated, "reference_subject": reference})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # FMR 0 and 1e-3
        fast = bf.bootstrap(bf.tmr_at_fmr, table, args=(fmr,), unit="subject", n_resamples=300, rng=5).replicates
        plain = bf.bootstrap(plain_tmr, table, args=(fmr,), unit="subject", n_resamples=300, rng=5).replicates
    np.testing.assert_array_equal(fast, plain)


def subject_table(n_nonmated: int, n_subjects: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_mated = n_nonmated // 10
    reference = rng.integers(0, n_subjects, n_mated + n_nonmated)
    probe = np.r_[reference[:n_mated], (reference[n_mated:] + rng.integers(1, n_subjects, n_nonmated)) % n_subjects]
    return pd.DataFrame({"score": np.r_[rng.normal(2, 1, n_mated), rng.normal(0, 1, n_nonmated)],
                         "mated": np.arange(n_mated + n_nonmated) < n_mated,
                         "reference_subject": reference, "probe_subject": probe})


def test_fast_subject_replicates_do_not_depend_on_the_batch_size(monkeypatch):
    """The resamples are taken in batches that bound the matrices' size: any batch size gives
    the same replicates."""
    table = subject_table(20_000, 200)
    whole = bf.bootstrap(bf.tmr_at_fmr, table, args=(0.1,), unit="subject", n_resamples=300, rng=3).replicates
    monkeypatch.setattr("biofair._fast_tmr._BATCH_ENTRIES", 50_000)  # 300 resamples in batches of 12
    np.testing.assert_array_equal(
        bf.bootstrap(bf.tmr_at_fmr, table, args=(0.1,), unit="subject", n_resamples=300, rng=3).replicates, whole)


def test_fast_subject_bootstrap_at_a_high_fmr_stays_in_little_memory():
    """At FMR 0.1 the block of top non-mated scores read holds 2 x 0.1 x N of them: batches of
    20 million entries peaked at 0.5 GB on 1e5 scores (B = 1000)."""
    table = subject_table(100_000, 1_000)
    _, peak = peak_memory(bf.bootstrap, bf.tmr_at_fmr, table, args=(0.1,), unit="subject", n_resamples=1_000, rng=1)
    assert peak < 150e6, f"{peak / 1e6:.0f} MB"


# -- the closed-form jackknife of ROC-AUC ----------------------------------------------------------

@given(seed=st.integers(0, 2**32 - 1), decimals=st.sampled_from([0, 1, 12]), n_clusters=st.integers(2, 6))
@settings(max_examples=200, deadline=None)
def test_roc_auc_jackknife_equals_leaving_each_unit_out(seed, decimals, n_clusters):
    """BCa of ROC-AUC evaluated the statistic once per comparison (or subject): 41 s at 3e4
    comparisons, quadratic. The closed form gives the same leave-one-out values."""
    rng = np.random.default_rng(seed)
    mated = np.round(rng.normal(1, 1, int(rng.integers(2, 15))), decimals)
    nonmated = np.round(rng.normal(0, 1, int(rng.integers(2, 30))), decimals)
    by_pair = _roc_auc_jackknife(mated, nonmated)
    expected = ([bf.roc_auc(np.delete(mated, i), nonmated) for i in range(mated.size)],
                [bf.roc_auc(mated, np.delete(nonmated, j)) for j in range(nonmated.size)])
    for (values, counts), plain in zip(by_pair, expected, strict=True):
        np.testing.assert_allclose(values, plain, rtol=0, atol=1e-15)
        np.testing.assert_array_equal(counts, np.ones(len(plain)))
    codes = rng.integers(0, n_clusters, mated.size + nonmated.size)
    codes = np.unique(codes, return_inverse=True)[1]  # every cluster present, as bootstrap numbers them
    clusters = (codes[: mated.size], codes[mated.size :])
    plain = [(mated[clusters[0] != c], nonmated[clusters[1] != c]) for c in range(codes.max() + 1)]
    if any(m.size == 0 or n.size == 0 for m, n in plain):
        with pytest.raises(ValueError, match="leaves no mated or no non-mated comparison"):
            _roc_auc_jackknife(mated, nonmated, clusters=clusters)
        return
    [(values, counts)] = _roc_auc_jackknife(mated, nonmated, clusters=clusters)
    np.testing.assert_allclose(values, [bf.roc_auc(m, n) for m, n in plain], rtol=0, atol=1e-15)


@pytest.mark.parametrize("unit", ["pair", "subject"])
def test_bca_of_roc_auc_by_its_fast_jackknife_equals_the_plain_one(unit, monkeypatch):
    table = bf.synthetic.demographic_scores(rng=0).iloc[::5]  # 2,241 comparisons of 249 subjects
    monkeypatch.setattr(bf._resampling, "JACKKNIFE_GROUPS", 10**9)  # the plain jackknife leaves out every comparison
    fast = bf.bootstrap(bf.roc_auc, table, method="bca", unit=unit, n_resamples=100, rng=1)
    plain = bf.bootstrap(lambda m, n: bf.roc_auc(m, n), table, method="bca", unit=unit, n_resamples=100, rng=1,
                         progress_bar=False)
    assert (fast.low, fast.high) == pytest.approx((plain.low, plain.high), rel=1e-12)
