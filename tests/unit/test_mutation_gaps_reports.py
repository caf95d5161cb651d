"""Gaps that a third round of mutation testing found in the tests of the differential report, the
summaries, normalisation, mitigation, extrapolation and the partitioned reducers: each test here
kills a mutant (an off-by-one, a < for a <=, a swapped side) that every other test let pass, and
checks the behaviour against a hand-worked example or a brute-force count."""

from __future__ import annotations

import re
from fractions import Fraction
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.mitigation import subject_disjoint_split
from biofair.normalisation import cohort_statistics, normalise_scores
from biofair.differentials import _EXCEEDS, _INCONCLUSIVE, _WITHIN, _max_t_bands, _verdict
from biofair.summaries import _LOWER_SHARE, _eer_value, _sorted_classes_and_decidability


@pytest.mark.parametrize(("low", "high", "verdict"), [
    (2.0, 3.0, _INCONCLUSIVE),    # touches the band at its top: not wholly outside it
    (0.25, 0.5, _INCONCLUSIVE),   # touches it at its bottom, 1/tolerance
    (0.5, 2.0, _WITHIN),          # the band itself, both ends included
    (0.5, 0.5, _WITHIN),
    (2.0, 2.0, _WITHIN),
    (2.0000000000000004, 3.0, _EXCEEDS),  # one ulp above the band
    (0.25, 0.49999999999999994, _EXCEEDS),  # one ulp below it
])
def test_verdict_reads_the_tolerance_band_as_closed(low, high, verdict):
    """The decision rule of differential_report: "within tolerance" when the interval lies in
    [1/tolerance, tolerance], "exceeds tolerance" when it lies wholly outside, else
    "inconclusive". An interval whose end is the band's end touches the band (tolerance 2, so
    that 1/tolerance = 0.5 exactly): ``low >= tolerance`` for ``low > tolerance`` called
    [2, 3] "exceeds", and ``1/tolerance < low`` called [0.5, 2] "inconclusive"."""
    assert _verdict(low, high, 2.0) == verdict


def _tied_table(decimals: int | None) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    nonmated, mated = rng.normal(0, 1, 800), rng.normal(3, 1, 200)
    if decimals is not None:
        nonmated, mated = np.round(nonmated, decimals), np.round(mated, decimals)
    return pd.DataFrame({"score": np.r_[nonmated, mated], "mated": np.r_[np.zeros(800, bool), np.ones(200, bool)],
                         "group": np.r_[np.tile(["a", "b"], 400), np.tile(["a", "b"], 100)]})


def test_the_tied_scores_note_counts_the_false_matches_at_and_below_the_threshold():
    """With scores to one decimal, the threshold at FMR 0.01 of 800 non-mated scores accepts
    fewer than the 8 allowed: the note gives the false matches at the threshold (scores at or
    above it) and at the next lower non-mated score, counted here by a loop. Counting the scores
    strictly above the threshold (searchsorted side="right") said 6 were 2 fewer."""
    table = _tied_table(1)
    report = bf.differential_report(table, fmr=0.01, n_resamples=100, rng=0)
    nonmated = table.loc[~table["mated"], "score"].to_numpy()
    accepted = sum(score >= report.threshold for score in nonmated)
    next_lower = max(score for score in nonmated if score < report.threshold)
    next_accepted = sum(score >= next_lower for score in nonmated)
    assert accepted < 8 < next_accepted  # the example has the ties it is about
    (note,) = [note for note in report.notes if note.startswith("tied scores")]
    assert re.search(rf"\b{accepted} of 800 non-mated comparisons are false matches", note)
    assert "fewer than the 8 the target allows" in note
    assert re.search(rf"would accept {next_accepted} \(FMR", note)
    assert report.overall["false_matches"] == accepted


@pytest.mark.parametrize(("fmr", "allowed"), [(0.01, 8), (0.0137, 10)])
def test_no_tied_scores_note_when_the_threshold_accepts_what_the_target_allows(fmr, allowed):
    """Distinct scores: the threshold at a target FMR accepts exactly floor(fmr * 800) of the 800
    non-mated scores (8 at 0.01; 10 at 0.0137, 10.96 of them), and no note speaks of ties.
    Counting the scores above the threshold (7 of 8) made one up, and so did allowing
    ceil(10.96) = 11."""
    table = _tied_table(None)
    report = bf.differential_report(table, fmr=fmr, n_resamples=100, rng=0)
    nonmated = table.loc[~table["mated"], "score"].to_numpy()
    assert sum(score >= report.threshold for score in nonmated) == allowed == report.overall["false_matches"]
    assert not [note for note in report.notes if "tied" in note]


def test_extrapolated_fmr_at_the_tail_start_is_the_empirical_fmr():
    """A threshold at or below the tail start u is inside the data: the FMR is the share of
    scores at or above it, not extrapolated. At u itself (a score: ties at u stay below the
    tail) the tail would give n_u/N, which leaves out the scores equal to u; the empirical
    count, by a loop, holds them."""
    rng = np.random.default_rng(5)
    nonmated = np.round(rng.normal(0, 1, 2_000), 2)
    start = bf.extrapolated_fmr(nonmated, float(nonmated.max())).tail_start
    at_start = bf.extrapolated_fmr(nonmated, start)
    k = sum(score >= start for score in nonmated)
    assert k > at_start.n_tail  # ties at u: the tail holds fewer
    assert not at_start.extrapolated
    assert at_start.estimate == k / nonmated.size
    assert at_start.low < at_start.estimate < at_start.high


def test_cohort_statistics_leave_out_keys_with_fewer_than_ten_scores_by_default():
    """min_size defaults to 10: a key with 9 cohort scores has no statistics, one with 10 has."""
    rng = np.random.default_rng(2)
    cohort = pd.DataFrame({"subject": ["nine"] * 9 + ["ten"] * 10, "score": rng.normal(size=19)})
    statistics = cohort_statistics(cohort)
    assert statistics.index.tolist() == ["ten"]
    assert statistics.loc["ten", "n"] == 10
    assert cohort_statistics(cohort, min_size=9).index.tolist() == ["nine", "ten"]


def test_two_thread_sort_of_the_operating_summary_sorts_every_score():
    """From IN_TWO_THREADS_FROM non-mated scores operating_summary sorts them in two threads:
    a partition at k = 0.45 N, then each thread sorts one side. Sorting the lower side but its
    last score (``[:k - 1]``) passed the test of one table: after np.partition the score at
    k - 1 is nearly always the largest of the lower side already, and out of place in about 1
    array in 300. On 3,000 arrays, tied and distinct, float64 and float32, the result is np.sort's."""
    rng = np.random.default_rng(0)
    mated = rng.normal(2, 1, 50)
    with ThreadPoolExecutor(max_workers=1) as pool:
        for i in range(3_000):
            n = int(rng.integers(3, 5_000))
            nonmated = rng.normal(size=n)
            nonmated = (np.round(nonmated, 1), nonmated.astype(np.float32), nonmated)[i % 3]
            if int(n * _LOWER_SHARE) < 1:
                continue
            mated_sorted, nonmated_sorted, d_prime = _sorted_classes_and_decidability(mated, nonmated.copy(), pool)
            np.testing.assert_array_equal(nonmated_sorted, np.sort(nonmated), err_msg=f"array {i} of {n} scores")
            np.testing.assert_array_equal(mated_sorted, np.sort(mated))
            assert d_prime == bf.decidability(mated, nonmated)


def test_cohort_statistics_refuse_a_min_size_below_two():
    """A standard deviation needs two scores: min_size=1 is refused, as the docstring says, not
    read as 2 (a key of one score has a std of 0 and would be left out anyway)."""
    cohort = pd.DataFrame({"subject": ["a", "a", "b"], "score": [0.1, 0.2, 0.3]})
    with pytest.raises(ValueError, match="min_size"):
        cohort_statistics(cohort, min_size=1)
    assert cohort_statistics(cohort, min_size=2).index.tolist() == ["a"]


def test_extrapolated_fmr_interval_reaching_below_the_profile_grid_starts_at_zero():
    """The profile runs over log10 S from -14 up; an accepted range that reaches its bottom end
    has the lower end 0, not n_u/N · 1e-14 (a ``<`` for the ``<=`` gave 1e-15). Normal scores,
    2,000 of them, a threshold at 4: an estimate above 0 with a lower end of 0."""
    nonmated = np.random.default_rng(1).normal(0, 1, 2_000)
    tail = bf.extrapolated_fmr(nonmated, 4.0)
    assert tail.extrapolated
    assert tail.estimate > 0
    assert tail.low == 0.0
    assert tail.high > tail.estimate


def test_extrapolated_threshold_refuses_a_target_equal_to_the_tail_share():
    """fmr = n_u/N is resolved by the data (the tail start itself): refused, as one above it is.
    1,000 distinct scores, a tail of 100: the share is 0.1 exactly."""
    nonmated = np.random.default_rng(3).normal(0, 1, 1_000)
    with pytest.raises(ValueError, match="not below the tail share"):
        bf.extrapolated_threshold(nonmated, 0.1)
    assert bf.extrapolated_threshold(nonmated, 0.0999).extrapolated


def test_normalise_scores_refuse_statistics_with_a_std_of_zero():
    """A std of 0 would divide by zero: the statistics are refused, naming the key."""
    scores = pd.DataFrame({"score": [0.9, 0.2], "mated": [True, False], "reference_subject": ["a", "a"],
                           "probe_subject": ["a", "b"]})
    statistics = pd.DataFrame({"mean": [0.1, 0.2], "std": [0.0, 0.5]}, index=pd.Index(["a", "b"], name="subject"))
    with pytest.raises(ValueError, match="statistics of 'a'.*std positive"):
        normalise_scores(scores, statistics, method="z")


def test_cohort_means_lie_within_two_ulp_of_the_exact_mean():
    """The mean is corrected by the mean deviation from the first one: within 1.8 ulp of the
    exact mean (fractions) on 3,000 random cohorts; without the correction, 3.6 ulp."""
    rng = np.random.default_rng(0)
    for _ in range(3_000):
        n = int(rng.integers(2, 60))
        scores = rng.choice([0.7, 1e6, -3.0, 1e12]) + rng.normal(size=n) * rng.choice([1e-9, 1e-3, 1])
        statistics = cohort_statistics(pd.DataFrame({"subject": "a", "score": scores}), min_size=2)
        if statistics.empty:  # 1e12 + 1e-9 x: every score the same float, no spread, no row
            continue
        mean = statistics.loc["a", "mean"]
        exact = sum(Fraction(float(score)) for score in scores) / n
        assert abs(Fraction(float(mean)) - exact) <= 2 * Fraction(abs(float(np.spacing(float(exact))))), (n, scores[:3])


def test_the_summary_eer_statistic_is_the_eer():
    """fairness_summary bootstraps its EER row with a statistic whose fast path gives the
    replicates; its own value is the bootstrap's estimate, which must be the EER (the threshold
    passed every test: the percentile interval reads only the replicates)."""
    table = bf.synthetic.gaussian_scores(n_mated=300, n_nonmated=3_000, rng=0)
    mated, nonmated = bf.split_scores(table)
    result = bf.bootstrap(_eer_value, table, n_resamples=40, rng=0)
    assert result.estimate == bf.eer(mated, nonmated).eer == _eer_value(mated, nonmated)


def test_subsample_coverage_refuses_a_subsample_no_larger_than_min_tail():
    """A subsample of min_tail scores cannot hold a tail of min_tail and a start below it: it is
    refused by subsample_coverage itself, with the fraction that drew it."""
    nonmated = np.random.default_rng(0).normal(0, 1, 5_000)
    with pytest.raises(ValueError, match=r"fraction=0\.01 draws 50 of 5000 scores; a tail of min_tail=50"):
        bf.subsample_coverage(nonmated, 2.0, fraction=0.01, min_tail=50, n_repeats=2, rng=0)


def test_the_summary_null_mean_rows_are_the_means_of_the_permutation_nulls(monkeypatch):
    """Each ``<index>_null_mean`` row is the mean of that index's permutation null (its
    median passed every test); the nulls are caught as fairness_summary computes them."""
    import biofair.summaries as summaries

    caught = {}

    def nulls(*args, **kwargs):
        caught.update(real(*args, **kwargs))
        return caught

    real = summaries._nulls
    monkeypatch.setattr(summaries, "_nulls", nulls)
    table = bf.synthetic.demographic_scores(rng=0)
    summary = bf.fairness_summary(table, n_resamples=40, n_permutations=15, rng=5).set_index("metric")
    assert caught
    for name, null in caught.items():
        values = np.asarray(null.null, dtype=np.float64)
        assert np.mean(values) != np.median(values)  # the example tells them apart
        assert summary.loc[f"{name}_null_mean", "value"] == pytest.approx(values.mean(), rel=1e-12)


@pytest.mark.parametrize(("undefined", "bounded"), [(4, True), (5, False)])
def test_a_contrast_undefined_in_one_minus_confidence_of_the_resamples_is_unbounded(undefined, bounded):
    """_max_t_bands: a contrast whose replicate is undefined (NaN: t infinite) in 1 - confidence
    of the resamples or more gets an unbounded band of its own (the "higher" quantile of its t),
    and the other contrasts keep theirs. At 95 % of 100 resamples: 5 undefined is unbounded, 4
    is not. The "lower" quantile kept the contrast with 5 among the bounded ones, whose shared
    q it made infinite: every band unbounded."""
    rng = np.random.default_rng(0)
    unstable, stable = rng.normal(0.0, 0.1, 100), rng.normal(0.0, 0.1, 100)
    unstable[:undefined] = np.nan
    bands = _max_t_bands(np.array([0.0, 0.0]), [unstable, stable], 100, 0.95)
    assert np.isfinite(bands[0]) == bounded
    assert np.isfinite(bands[1])


def test_the_tail_holds_the_rounded_share_of_the_scores():
    """tail_fraction=0.1 of 1,006 scores is 100.6: the tail holds the 101 highest (rounded),
    not 100 (truncated)."""
    nonmated = np.random.default_rng(0).normal(0, 1, 1_006)
    tail = bf.extrapolated_fmr(nonmated, 5.0)
    assert tail.n_tail == 101
    assert tail.tail_start == np.sort(nonmated)[-102]


def test_subsample_coverage_takes_a_threshold_with_three_scores_at_or_above_it():
    """The full data's FMR is resolved with 3 false matches (the rule of three): a threshold
    with exactly 3 scores at or above it is taken as the truth; with 2, refused."""
    nonmated = np.random.default_rng(0).normal(0, 1, 4_000)
    third = np.sort(nonmated)[-3]
    table = bf.subsample_coverage(nonmated, third, fraction=0.5, n_repeats=2, rng=0)
    assert (table["full_fmr"] == 3 / 4_000).all()
    with pytest.raises(ValueError, match="only 2 of the 4,000 scores"):
        bf.subsample_coverage(nonmated, np.sort(nonmated)[-2], fraction=0.5, n_repeats=2, rng=0)


def test_cross_group_cells_are_resolved_by_the_fmr_target():
    """A cross-group cell is a set of non-mated comparisons: resolved when the FMR target allows
    3 false matches in it (target·n >= 3) or it has 3, as a group's FMR. Held to the table's
    FNMR instead (0.05 here, 5 in a cell of 100 where the target allows 1), every cell of 100
    was resolved: a loop over the cells says which are."""
    rng = np.random.default_rng(4)
    cells = [("a", "a", 400), ("b", "b", 400), ("a", "b", 100), ("b", "a", 100)]
    nonmated = pd.DataFrame({
        "reference_group": np.repeat([c[0] for c in cells], [c[2] for c in cells]),
        "probe_group": np.repeat([c[1] for c in cells], [c[2] for c in cells]),
        "score": rng.normal(0, 1, 1_000), "mated": False})
    mated = pd.DataFrame({"reference_group": np.repeat(["a", "b"], 200), "probe_group": np.repeat(["a", "b"], 200),
                          "score": rng.normal(4, 1, 400), "mated": True})
    table = pd.concat([nonmated, mated], ignore_index=True)
    report = bf.differential_report(table, fmr=0.01, n_resamples=100, rng=0)
    assert report.overall["fnmr"] * 100 >= 3  # the table's FNMR would resolve every cell of 100
    cross = report.cross_group.set_index(["reference", "probe"])
    unresolved_cell = False
    for reference, probe, n in cells:
        in_cell = nonmated[(nonmated["reference_group"] == reference) & (nonmated["probe_group"] == probe)]
        k = int((in_cell["score"] >= report.threshold).sum())
        assert cross.loc[(reference, probe), ["false_matches", "comparisons"]].tolist() == [k, n]
        expected = 0.01 * n >= 3 or k >= 3
        unresolved_cell |= not expected
        assert bool(cross.loc[(reference, probe), "resolved"]) == expected, (reference, probe, k, n)
    assert unresolved_cell  # some cell of 100 with fewer than 3 false matches: unresolved


def test_a_tail_of_every_score_is_refused_with_the_number_it_needs():
    """50 scores and min_tail=50: the tail would be every score, with no start below it; the
    message says a tail of 50 needs 51 scores (fitting it anyway failed later, as "only 0
    scores above the tail start")."""
    nonmated = np.random.default_rng(0).normal(0, 1, 50)
    with pytest.raises(ValueError, match="nonmated has 50 scores: a tail of 50 needs at least 51"):
        bf.extrapolated_fmr(nonmated, 5.0)
    assert bf.extrapolated_fmr(np.append(nonmated, -10.0), -10.0).n_tail == 50  # 51: the tail and its start


def uniform_tail_table() -> tuple[np.ndarray, pd.DataFrame]:
    """Group c's 2,000 uniform non-mated scores (a bounded tail) and the table around them: groups
    a and b with 3,000 normal non-mated scores each, 300 mated scores in each of the three."""
    rng = np.random.default_rng(1)
    uniform = rng.uniform(0, 1, 2_000)
    return uniform, pd.concat([
        pd.DataFrame({"group": "c", "score": uniform, "mated": False}),
        pd.DataFrame({"group": np.repeat(["a", "b"], 3_000), "score": rng.normal(0, 0.3, 6_000), "mated": False}),
        pd.DataFrame({"group": np.repeat(["a", "b", "c"], 300), "score": rng.normal(2, 0.5, 900), "mated": True}),
    ], ignore_index=True)


def test_a_tail_estimate_of_zero_with_an_interval_above_it_is_reported():
    """An unresolved group whose fitted tail ends below the threshold has an extrapolated FMR of
    0, but its interval [0, high] reaches above 0: the report gives it (only [0, 0] is refused,
    with a note). Refusing every estimate of 0 passed every test. Group c: 2,000 uniform
    non-mated scores, the threshold just above the largest."""
    uniform, table = uniform_tail_table()
    threshold = float(uniform.max() * 1.0001)
    tail = bf.extrapolated_fmr(uniform, threshold)
    assert tail.estimate == 0.0 < tail.high
    report = bf.differential_report(table, threshold=threshold, n_resamples=100, rng=0)
    row = report.groups.set_index(["group", "rate"]).loc[("c", "fmr")]
    assert row["status"] == "unresolved"
    assert row[["extrapolated", "extrapolated_low", "extrapolated_high"]].tolist() == [tail.estimate, tail.low, tail.high]
    assert not [note for note in report.notes if note.startswith("FMR of 'c' not extrapolated")]


def test_subsample_coverage_counts_the_drawn_scores_at_or_above_the_threshold():
    """Each row's k is the number of drawn scores at or above the threshold (a loop over a
    redraw of the same subsample); with scores to two decimals, some lie on the threshold."""
    nonmated = np.round(np.random.default_rng(0).normal(0, 1, 4_000), 2)
    threshold = 2.0
    assert (nonmated == threshold).any()
    table = bf.subsample_coverage(nonmated, threshold, fraction=0.5, n_repeats=3, rng=7)
    rng = np.random.default_rng(7)
    for k in table["k"]:
        drawn = rng.choice(nonmated, 2_000, replace=False)
        assert k == sum(score >= threshold for score in drawn)


def test_subject_disjoint_split_gives_half_the_subjects_to_development_by_default():
    """dev_fraction defaults to 0.5: 20 of 40 subjects."""
    subjects = [f"s{i}" for i in range(40)]
    scores = pd.DataFrame({"reference_subject": subjects, "probe_subject": subjects, "score": 1.0, "mated": True})
    split = subject_disjoint_split(scores, rng=0)
    assert len(split.dev_subjects) == 20 == len(split.eval_subjects)


def test_group_sizes_defaults_resolution_and_order():
    """group_sizes: by default a group is small below 100 mated or 1,000 non-mated comparisons
    (or 10 subjects); fmr_resolution is 1/n_nonmated; the rows run from the most non-mated
    comparisons down, ties by mated ones. Counted by hand: a has 500 non-mated, b 2,000, c 2,000."""
    rows = []
    for group, n_mated, n_nonmated in (("a", 150, 500), ("b", 120, 2_000), ("c", 130, 2_000)):
        rows.append(pd.DataFrame({"group": group, "mated": np.r_[np.ones(n_mated, bool), np.zeros(n_nonmated, bool)],
                                  "score": 0.5}))
    sizes = bf.group_sizes(pd.concat(rows, ignore_index=True))
    assert sizes.index.tolist() == ["c", "b", "a"]
    assert sizes["small"].tolist() == [False, False, True]
    assert sizes["fmr_resolution"].tolist() == [1 / 2_000, 1 / 2_000, 1 / 500]


@pytest.mark.parametrize("n_small", [5, 6])
def test_up_to_five_groups_whose_tail_cannot_be_fitted_get_a_note_each(n_small):
    """Notes of one kind are listed one by one up to five, merged into one from six: five small
    groups (30 non-mated scores, too few for a tail) give five notes, six give one naming all."""
    rng = np.random.default_rng(8)
    small = [f"g{i}" for i in range(n_small)]
    table = pd.concat([
        pd.DataFrame({"group": np.repeat(["a", "b"], 3_000), "score": rng.normal(0, 1, 6_000), "mated": False}),
        pd.DataFrame({"group": np.repeat(small, 30), "score": rng.normal(0, 1, 30 * n_small), "mated": False}),
        pd.DataFrame({"group": np.repeat(["a", "b", *small], 100), "score": rng.normal(3, 1, 100 * (n_small + 2)),
                      "mated": True}),
    ], ignore_index=True)
    report = bf.differential_report(table, fmr=0.01, n_resamples=100, rng=0)
    fmr_rows = report.groups[report.groups["rate"] == "fmr"].set_index("group")
    assert (fmr_rows.loc[small, "status"] == "unresolved").all()
    notes = [note for note in report.notes if "not extrapolated" in note]
    if n_small == 5:
        assert sorted(note.split("'")[1] for note in notes) == small
    else:
        (note,) = notes
        assert note.startswith(f"FMR of {n_small} groups not extrapolated ({', '.join(map(repr, small))})")


def test_a_contrast_whose_replicates_mostly_equal_its_estimate_has_a_band_of_zero():
    """_max_t_bands: 97 of 100 replicates equal to the estimate, 3 off: the 16th to 84th
    percentile spread is 0, and t is 0 where the replicate equals the estimate (infinite for
    the 3 others, fewer than 5 %): the 95 % band is 0 wide. Dividing 0 by the spread of 0
    there made every t undefined and the band unbounded. The divisions by the spread of 0 are
    the helper's own: they showed a reader numpy's "divide by zero" RuntimeWarning (an error
    here, as pyproject's filterwarnings makes every warning)."""
    replicate = np.zeros(100)
    replicate[:3] = 0.5
    assert _max_t_bands(np.array([0.0]), [replicate], 100, 0.95).tolist() == [0.0]


def test_a_tail_that_ends_below_the_threshold_is_refused_with_that_reason():
    """An unresolved group whose fitted tail ends below the threshold and whose interval is [0, 0]
    is not extrapolated, and the note says the tail ends below the threshold (not that the FMR
    underflows float64)."""
    uniform, table = uniform_tail_table()
    threshold = float(uniform.max() + 0.01)
    report = bf.differential_report(table, threshold=threshold, n_resamples=100, rng=0)
    assert np.isnan(report.groups.set_index(["group", "rate"]).loc[("c", "fmr"), "extrapolated"])
    (note,) = [note for note in report.notes if note.startswith("FMR of 'c' not extrapolated")]
    assert "ends below the threshold, where the model gives 0" in note


@pytest.mark.parametrize("n_thresholds", [5, 40])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_partition_counts_at_or_above_thresholds_that_are_scores(n_thresholds, dtype):
    """The partitioned reducers count, per key, the scores at or above each threshold: by a
    loop of comparisons up to 32 thresholds, by one search beyond. With thresholds drawn from
    the scores themselves, a score equal to a threshold passes it; the search counted it only
    above (side="left") and no test had more than 32 thresholds on the scores."""
    from biofair.partitions.thresholds import _at_or_above_each

    rng = np.random.default_rng(n_thresholds)
    values = np.round(rng.normal(size=3_000), 1).astype(dtype)
    key = rng.integers(0, 3, values.size)
    thresholds = rng.choice(values, n_thresholds).astype(np.float64)
    got = _at_or_above_each(values, key, 3, thresholds)
    expected = [[sum(1 for v, g in zip(values, key) if g == k and v >= t) for t in thresholds] for k in range(3)]
    assert got.tolist() == expected
