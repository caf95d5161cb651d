"""Oracles for three resampling functions that the suite tested only for seeding and shapes.

- ``bf.subsample_coverage``: its docstring does not say how the subsamples are drawn from
  ``rng``, so the draws are not reproduced; instead, cases whose possible subsamples can be
  listed (leave-one-out) or whose rows follow from ``k`` alone (a threshold the subsample
  resolves) are checked row by row, and the law of the draws against exact binomial and
  hypergeometric acceptance regions. Every column except the fit itself is computed here.
  Hypothesis then checks its bounds and its invariance to a strictly increasing map of the
  scores (exact for every column under a power of two; for the order-only columns otherwise).
- ``bf.partitions.poisson_bootstrap``: its docstring documents the draws (one child of
  ``rng`` per partition, ``Generator.spawn``; a Poisson(1) weight per comparison and
  resample), so an in-memory implementation reproduces them and the intervals.
- ``bf.bootstrap`` of the EER with ``method="bca"``: the interval against Efron's formulas
  written out, and its coverage of the closed-form EER of two normals, ``Phi(-d'/2)``.

Every statistical assertion states its false-alarm probability: the chance that it fails
although the code does what its docstring says.
"""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import biofair as bf
from biofair import partitions as bp

#: False-alarm probability of each statistical assertion of this file.
FALSE_ALARM = 1e-5


def acceptance_region(pmf: np.ndarray, false_alarm: float = FALSE_ALARM) -> tuple[int, int]:
    """The values ``s`` (indices of ``pmf``) a two-sided test keeps: those with
    ``P(S <= s) > false_alarm/2`` and ``P(S >= s) > false_alarm/2``. Each side rejects with
    probability at most ``false_alarm/2`` (``P(F(S) <= u) <= u`` for any discrete law)."""
    cdf = np.cumsum(pmf)
    sf = np.cumsum(pmf[::-1])[::-1]
    kept = np.flatnonzero((cdf > false_alarm / 2) & (sf > false_alarm / 2))
    return int(kept[0]), int(kept[-1])


def binomial_region(n: int, p: float, false_alarm: float = FALSE_ALARM) -> tuple[int, int]:
    return acceptance_region(stats.binom.pmf(np.arange(n + 1), n, p), false_alarm)


def type7_percentiles(values: np.ndarray, levels) -> np.ndarray:
    """Percentiles by linear interpolation between order statistics (Hyndman and Fan's
    type 7), of the finite values only."""
    x = np.sort(values[np.isfinite(values)])
    h = (x.size - 1) * np.asarray(levels, dtype=float)
    below = np.floor(h).astype(int)
    above = np.minimum(below + 1, x.size - 1)
    return x[below] + (h - below) * (x[above] - x[below])


def clopper_pearson_holds(low: float, high: float, k: int, n: int, confidence: float) -> None:
    """The Clopper-Pearson ends by their definition: ``P(X >= k | low) = P(X <= k | high) = (1 -
    confidence)/2`` for ``X ~ Binomial(n, p)``, with ``low = 0`` at ``k = 0`` and ``high = 1`` at ``k = n``."""
    tail = (1 - confidence) / 2
    if k == 0:
        assert low == 0.0
    else:
        assert stats.binom.sf(k - 1, n, low) == pytest.approx(tail, rel=1e-9)
    if k == n:
        assert high == 1.0
    else:
        assert stats.binom.cdf(k, n, high) == pytest.approx(tail, rel=1e-9)


def check_columns_of_the_full_data(runs: pd.DataFrame, scores: np.ndarray, threshold: float, n: int) -> None:
    """The columns that do not depend on the fit: n, full_fmr (SPEC 1: share of scores >=
    threshold), resolved (rule of three: full_fmr · n >= 3, in exact integers) and covered."""
    n_scores, at_or_above = scores.size, int(np.count_nonzero(scores >= threshold))
    assert list(runs.columns) == ["n", "k", "resolved", "estimate", "low", "high", "full_fmr", "covered"]
    assert (runs["n"] == n).all()
    assert (runs["full_fmr"] == at_or_above / n_scores).all()
    assert (runs["resolved"] == (at_or_above * n >= 3 * n_scores)).all()
    full = at_or_above / n_scores
    assert runs["covered"].tolist() == [bool(lo <= full <= hi) for lo, hi in zip(runs["low"], runs["high"])]


# =============================================================================================
# 1. subsample_coverage
# =============================================================================================


def test_subsample_coverage_leave_one_out_rows_are_fits_of_drawn_subsamples():
    """31 distinct scores, fraction 30/31: every possible subsample leaves one score out, so
    the 31 of them are listed here and each row must be one of them (its k and its fit from
    the same subsample), drawn uniformly: each class of identical rows appears as often as
    a Binomial(R, class size / 31), checked for every class at FALSE_ALARM / classes."""
    scores = np.random.default_rng(11).normal(size=31)
    ranked = np.sort(scores)
    threshold = float((ranked[-3] + ranked[-4]) / 2)  # three scores at or above it (resolved in all 31)
    kwargs = dict(tail_fraction=0.1, min_tail=20, confidence=0.9)
    runs = bf.subsample_coverage(scores, threshold, fraction=30 / 31, n_repeats=60, rng=4, progress_bar=False, **kwargs)
    check_columns_of_the_full_data(runs, scores, threshold, 30)
    possible = []
    for left_out in range(scores.size):
        drawn = np.delete(scores, left_out)
        tail = bf.extrapolated_fmr(drawn, threshold, **kwargs)
        possible.append((int(np.count_nonzero(drawn >= threshold)), tail.estimate, tail.low, tail.high))
    classes = pd.Series(possible).value_counts()  # identical rows: leaving out any score below the tail
    rows = list(runs[["k", "estimate", "low", "high"]].itertuples(index=False, name=None))
    assert set(rows) <= set(classes.index)  # exactly: a fit on the same scores in another order
    counts = pd.Series(rows).value_counts().reindex(classes.index, fill_value=0)
    for row, size in classes.items():
        low, high = binomial_region(len(rows), size / scores.size, FALSE_ALARM / classes.size)
        assert low <= counts[row] <= high, (row, counts[row], size)
    assert classes.max() == 31 - 21  # the 10 scores below the tail of 20 and its start


def test_subsample_coverage_rows_that_resolve_the_threshold_and_the_law_of_k():
    """At a threshold the subsample resolves (more than n_u drawn scores reach it), each row
    is the empirical FMR k/n with its Clopper-Pearson interval. Drawn without replacement, k is
    hypergeometric: the sum of k over the repetitions lies in the exact acceptance region of
    the sum of R independent hypergeometric draws (their convolution), and the rows with k at
    or below the law's median are a Binomial(R, P(k <= median)) count (each at FALSE_ALARM / 2)."""
    scores = np.random.default_rng(3).normal(size=2_000)
    threshold, n, repeats, confidence = 0.0, 200, 100, 0.9
    runs = bf.subsample_coverage(scores, threshold, fraction=0.1, n_repeats=repeats, confidence=confidence, rng=8,
                                 progress_bar=False)
    check_columns_of_the_full_data(runs, scores, threshold, n)
    at_or_above = int(np.count_nonzero(scores >= threshold))
    law = stats.hypergeom(scores.size, at_or_above, n)
    tail = max(50, round(0.1 * n))  # n_u of each fit
    assert law.cdf(tail) < 1e-9  # so every row below reads the data, not the fit
    for row in runs.itertuples():
        assert row.k > tail
        assert row.estimate == row.k / n
        clopper_pearson_holds(row.low, row.high, row.k, n, confidence)
    single = law.pmf(np.arange(n + 1))
    support = np.flatnonzero(single > 1e-30)
    single = single[support[0] : support[-1] + 1]
    total = np.ones(1)
    for _ in range(repeats):
        total = np.convolve(total, single)
    low, high = acceptance_region(total, FALSE_ALARM / 2)
    assert low <= runs["k"].sum() - repeats * support[0] <= high
    split = int(law.median())  # and k varies as it should: rows at or below the median of its law
    low, high = binomial_region(repeats, law.cdf(split), FALSE_ALARM / 2)
    assert low <= np.count_nonzero(runs["k"] <= split) <= high


def test_subsample_coverage_of_all_the_scores_is_the_fit_on_all_of_them():
    """fraction=1 draws every score once: each row is extrapolated_fmr on all the scores, k
    the full count, whatever the seed."""
    scores = np.random.default_rng(5).normal(size=400)
    threshold = float(np.sort(scores)[-3])  # the fewest scores at or above it that resolve it
    runs = bf.subsample_coverage(scores, threshold, fraction=1.0, n_repeats=2, rng=0, progress_bar=False)
    check_columns_of_the_full_data(runs, scores, threshold, 400)
    tail = bf.extrapolated_fmr(scores, threshold)
    assert tail.extrapolated
    assert (runs["k"] == np.count_nonzero(scores >= threshold)).all()
    for column in ("estimate", "low", "high"):
        assert (runs[column] == getattr(tail, column)).all()


@pytest.mark.parametrize("above", [0, 1, 2, 3])
def test_subsample_coverage_needs_a_resolved_full_fmr(above):
    """The full data's FMR stands for the truth only when resolved (at least 3 scores at or
    above the threshold, the rule of three): below that an interval from 0 counted as
    covering a full FMR of 0 (20 of 20 "covered" at an FMR near 1e-9). Below 3 it raises
    and names the count; at 3 the table is computed."""
    scores = np.random.default_rng(6).normal(size=400)
    ordered = np.sort(scores)
    threshold = float(ordered[-above]) if above else float(ordered[-1]) + 1.0
    assert np.count_nonzero(scores >= threshold) == above
    if above < 3:
        with pytest.raises(ValueError, match=f"only {above} of the 400 scores .* unresolved"):
            bf.subsample_coverage(scores, threshold, fraction=1.0, n_repeats=2, rng=0, progress_bar=False)
        return
    runs = bf.subsample_coverage(scores, threshold, fraction=1.0, n_repeats=2, rng=0, progress_bar=False)
    check_columns_of_the_full_data(runs, scores, threshold, 400)
    assert (runs["full_fmr"] == 3 / 400).all() and runs["resolved"].all()


def test_subsample_coverage_at_the_smallest_subsample():
    """The docstring: a fraction that draws no more than min_tail scores raises. One more
    score is the smallest that runs: u is then the lowest drawn score, and a threshold below
    every score gives k = n, estimate 1 and the Clopper-Pearson interval [(a/2)^(1/n), 1]."""
    scores = np.arange(100.0)
    refused = r"fraction=0\.2 draws 20 of 100 scores; a tail of min_tail=20 needs at least 21"
    with pytest.raises(ValueError, match=refused):
        bf.subsample_coverage(scores, 50.0, fraction=0.2, min_tail=20, n_repeats=1, rng=0)
    runs = bf.subsample_coverage(scores, -1.0, fraction=0.21, min_tail=20, n_repeats=3, rng=0, progress_bar=False)
    check_columns_of_the_full_data(runs, scores, -1.0, 21)
    assert (runs["k"] == 21).all() and (runs["estimate"] == 1.0).all() and (runs["high"] == 1.0).all()
    np.testing.assert_allclose(runs["low"], 0.025 ** (1 / 21), rtol=1e-12)
    assert runs["covered"].all() and runs["resolved"].all()


@pytest.mark.parametrize("at_or_above, resolved", [(4, True), (3, False)])
def test_subsample_coverage_rule_of_three_at_its_boundary(at_or_above, resolved):
    """40 scores, 30 drawn: 4 at or above the threshold give full_fmr · n = 3 exactly (resolved,
    SPEC 1: fmr · N >= 3); 3 give 2.25."""
    scores = np.arange(40.0)
    runs = bf.subsample_coverage(scores, 40.0 - at_or_above, fraction=0.75, min_tail=20, n_repeats=2, rng=1,
                                 progress_bar=False)
    check_columns_of_the_full_data(runs, scores, 40.0 - at_or_above, 30)
    assert (runs["resolved"] == resolved).all()


def test_subsample_coverage_refuses_a_tail_of_tied_scores():
    """The docstring: a subsample whose tail ties leave too few scores above its start raises.
    At most 5 of the 100 drawn scores lie below the tied 100s, so u is 100 and nothing is above it."""
    scores = np.r_[np.arange(5.0), np.full(195, 100.0)]
    with pytest.raises(ValueError, match="too few to fit a tail"):
        bf.subsample_coverage(scores, 100.0, fraction=0.5, n_repeats=1, rng=0)



#: Draws of scores for the properties: a seed, a law, a size, how many scores reach the
#: threshold and the share drawn (always more than min_tail=20 scores).
COVERAGE_CASES = st.tuples(st.integers(0, 2**32 - 1), st.sampled_from(["normal", "t3", "uniform", "exponential"]),
                           st.integers(60, 300), st.integers(3, 15), st.floats(0.4, 1.0))


def coverage_case(case) -> tuple[np.ndarray, float, float]:
    """The scores, the threshold (the m-th highest score) and the fraction of a case."""
    seed, law, size, m, fraction = case
    rng = np.random.default_rng(seed)
    scores = {"normal": rng.normal, "t3": lambda n: rng.standard_t(3, n), "uniform": rng.random,
              "exponential": rng.exponential}[law](size)
    assume(np.unique(scores).size == size)  # continuous laws: ties are all but impossible
    return scores, float(np.sort(scores)[-m]), fraction


def coverage(scores: np.ndarray, threshold: float, fraction: float) -> pd.DataFrame:
    return bf.subsample_coverage(scores, threshold, fraction=fraction, min_tail=20, n_repeats=2, rng=9,
                                 progress_bar=False)


@settings(max_examples=40)
@given(COVERAGE_CASES)
def test_subsample_coverage_bounds(case):
    """Whatever the scores: the columns read from the full data as defined, ``n`` the rounded
    share, ``0 <= k <= n``, and each row's estimate inside its interval, inside [0, 1]."""
    scores, threshold, fraction = coverage_case(case)
    runs = coverage(scores, threshold, fraction)
    check_columns_of_the_full_data(runs, scores, threshold, int(round(fraction * scores.size)))
    assert runs["k"].between(0, runs["n"]).all()
    assert ((0 <= runs["low"]) & (runs["low"] <= runs["estimate"]) & (runs["estimate"] <= runs["high"])
            & (runs["high"] <= 1)).all()


@settings(max_examples=25)
@given(COVERAGE_CASES, st.integers(-20, 20), st.sampled_from(["exp", "cube", "affine", "arctan"]))
def test_subsample_coverage_under_a_monotone_transform(case, exponent, transform):
    """The subsamples are drawn by position (``rng.choice`` of the scores, the same seed), so
    scores and threshold under one strictly increasing map give the same ``n``, ``k``,
    ``resolved`` and ``full_fmr``: they read only the scores' order. The fit is another matter:
    a tail fitted to exp(scores) is another tail; but scores times a power of two give the same
    fit bit for bit (the fit works in units of the mean excess), so the whole table is equal."""
    scores, threshold, fraction = coverage_case(case)
    runs = coverage(scores, threshold, fraction)
    scaled = coverage(np.ldexp(scores, exponent), float(np.ldexp(threshold, exponent)), fraction)
    pd.testing.assert_frame_equal(scaled, runs, check_exact=True)
    increasing = {"exp": np.exp, "cube": lambda x: x ** 3, "affine": lambda x: 3.0 * x - 7.0,
                  "arctan": np.arctan}[transform]
    mapped = increasing(scores)
    assume(np.unique(mapped).size == scores.size)  # a map that rounds two scores to one is not strict
    moved = coverage(mapped, float(increasing(np.array([threshold]))[0]), fraction)
    columns = ["n", "k", "resolved", "full_fmr"]
    pd.testing.assert_frame_equal(moved[columns], runs[columns], check_exact=True)

# =============================================================================================
# 2. partitions.poisson_bootstrap
# =============================================================================================


def grouped_table(rng: np.random.Generator, sizes: dict[str, tuple[int, int]], cross: int = 0) -> pd.DataFrame:
    """Rounded normal scores per group (mated N(2, 1), non-mated N(0, 1)), shuffled, and
    ``cross`` non-mated pairs between two different groups."""
    names = list(sizes)
    frames = [pd.DataFrame({"score": np.r_[rng.normal(2, 1, m), rng.normal(0, 1, n)],
                            "mated": np.repeat([True, False], [m, n]), "reference_group": name, "probe_group": name})
              for name, (m, n) in sizes.items()]
    reference = rng.integers(0, len(names), cross)
    probe = (reference + 1 + rng.integers(0, len(names) - 1, cross)) % len(names)
    frames.append(pd.DataFrame({"score": rng.normal(0, 1, cross), "mated": False,
                                "reference_group": np.array(names)[reference], "probe_group": np.array(names)[probe]}))
    table = pd.concat(frames, ignore_index=True)
    table["score"] = table["score"].round(1)  # ties at the thresholds
    return table.iloc[rng.permutation(len(table))].reset_index(drop=True)


def poisson_oracle(parts: list[pd.DataFrame], children: list[np.random.Generator], thresholds: np.ndarray, *,
                   n_resamples: int, alpha: float, confidence: float) -> tuple[pd.DataFrame, int]:
    """The Poisson bootstrap in memory, from the docstring: in each partition, resample after
    resample, a Poisson(1) weight for each comparison that enters a rate (both sides in one
    group), drawn from that partition's child generator; weighted FMR = weight at or above t /
    weight of the group's non-mated comparisons, FNMR = weight below t / weight of its mated
    ones, FDR = 1 - (alpha·A + (1 - alpha)·B) of the largest gaps; type-7 percentiles of the
    resamples where every rate is defined. Returns the table and the number of resamples
    that weigh some group's class 0."""
    every = pd.concat(parts)
    names = sorted(every["reference_group"].unique())
    cells = np.arange(2 * len(names))  # 2·group + mated
    totals = np.zeros((n_resamples, cells.size))
    errors = np.zeros((n_resamples, cells.size, thresholds.size))
    for part, child in zip(parts, children):
        part = part[part["reference_group"] == part["probe_group"]]
        weights = np.stack([child.poisson(1.0, len(part)) for _ in range(n_resamples)]).astype(float)
        cell = 2 * pd.Index(names).get_indexer(part["reference_group"]) + part["mated"].to_numpy()
        member = (cell[:, None] == cells).astype(float)  # (rows, cells)
        scores, mated = part["score"].to_numpy()[:, None], part["mated"].to_numpy()[:, None]
        error = np.where(mated, scores < thresholds, scores >= thresholds).astype(float)  # (rows, thresholds)
        totals += weights @ member
        errors += np.einsum("br,rc,rt->bct", weights, member, error)
    with np.errstate(invalid="ignore"):
        rates = errors / totals[:, :, None]  # (B, cells, T): NaN where a class weighs 0
    homogeneous = every[every["reference_group"] == every["probe_group"]]
    exact = np.empty((2, len(names), thresholds.size))  # (fmr, fnmr), group, threshold: on all data
    for k, name in enumerate(names):
        group = homogeneous[homogeneous["reference_group"] == name]
        nonmated, mated = (group.loc[group["mated"] == m, "score"].to_numpy()[:, None] for m in (False, True))
        exact[0, k] = np.count_nonzero(nonmated >= thresholds, axis=0) / nonmated.shape[0]
        exact[1, k] = np.count_nonzero(mated < thresholds, axis=0) / mated.shape[0]
    levels = [(1 - confidence) / 2, (1 + confidence) / 2]
    rows = [(name, t, metric, exact[m, k, j], *type7_percentiles(rates[:, 2 * k + m, j], levels))
            for m, metric in enumerate(("fmr", "fnmr")) for k, name in enumerate(names)
            for j, t in enumerate(thresholds)]
    gaps = np.ptp(rates[:, 0::2], axis=1), np.ptp(rates[:, 1::2], axis=1)  # (B, T), NaN where a rate is
    fdr = 1 - (alpha * gaps[0] + (1 - alpha) * gaps[1])
    exact_fdr = 1 - (alpha * np.ptp(exact[0], axis=0) + (1 - alpha) * np.ptp(exact[1], axis=0))
    rows += [("FDR", t, "fdr", exact_fdr[j], *type7_percentiles(fdr[:, j], levels)) for j, t in enumerate(thresholds)]
    table = pd.DataFrame(rows, columns=["group", "threshold", "metric", "value", "low", "high"])
    return table, int((totals == 0).any(axis=1).sum())


def by_key(table: pd.DataFrame) -> pd.DataFrame:
    return table.set_index(["group", "metric", "threshold"]).sort_index()


def run_poisson_bootstrap(table: pd.DataFrame, npartitions: int, thresholds, seed, **kwargs):
    with dask.config.set(scheduler="synchronous"):
        frame = dd.from_pandas(table, npartitions=npartitions)
        parts = [part.compute() for part in frame.partitions]
        return bp.poisson_bootstrap(frame, thresholds, rng=seed, **kwargs), parts


@pytest.mark.parametrize("cross", [0, 150])
def test_poisson_bootstrap_reproduces_the_documented_draws(cross):
    """Seed 11 and a Generator: one child per partition (``spawn``), each comparison of a group
    a Poisson(1) weight per resample; the intervals (alpha 0.3, 90%) equal the in-memory ones.
    Cross-group pairs enter no rate and draw no weight."""
    table = grouped_table(np.random.default_rng(1), {"a": (60, 250), "b": (40, 300), "c": (80, 200)}, cross=cross)
    thresholds = np.array([0.5, 1.0, 2.0])
    kwargs = dict(n_resamples=60, alpha=0.3, confidence=0.9)
    for seed, children in ((11, lambda n: np.random.default_rng(11).spawn(n)),
                           (np.random.default_rng(7), lambda n: np.random.default_rng(7).spawn(n))):
        got, parts = run_poisson_bootstrap(table, 3, thresholds, seed, **kwargs)
        assert len(parts) == 3 and all(len(part) for part in parts)
        expected, empty = poisson_oracle(parts, children(len(parts)), thresholds, **kwargs)
        assert empty == 0
        got, expected = by_key(got), by_key(expected)
        assert got.index.equals(expected.index)
        np.testing.assert_array_equal(got["value"], expected["value"])
        np.testing.assert_allclose(got[["low", "high"]], expected[["low", "high"]], rtol=1e-12, atol=1e-15)


def test_poisson_bootstrap_leaves_out_resamples_that_weigh_a_class_zero():
    """A group with 2 non-mated comparisons: about e^-2 of the resamples weigh both 0. Those
    are left out of its FMR's and of FDR's percentiles, and the warning counts them."""
    table = grouped_table(np.random.default_rng(2), {"a": (50, 200), "b": (30, 2)})
    thresholds = np.array([0.0, 1.5])
    kwargs = dict(n_resamples=200, alpha=0.5, confidence=0.95)
    with pytest.warns(bf.UndefinedRateWarning) as caught:
        got, parts = run_poisson_bootstrap(table, 2, thresholds, 3, **kwargs)
    expected, empty = poisson_oracle(parts, np.random.default_rng(3).spawn(len(parts)), thresholds, **kwargs)
    low, high = binomial_region(200, np.exp(-2.0))
    assert low <= empty <= high
    assert str(caught[0].message).startswith(f"{empty} of 200 Poisson resamples weigh every comparison")
    got, expected = by_key(got), by_key(expected)
    np.testing.assert_array_equal(got["value"], expected["value"])
    np.testing.assert_allclose(got[["low", "high"]], expected[["low", "high"]], rtol=1e-12, atol=1e-15)


def test_poisson_bootstrap_coverage_of_fixed_threshold_rates():
    """300 groups, each 100 mated N(2, 1) and 200 non-mated N(0, 1) scores: at fixed thresholds
    the true FMR is Phi(-t) and FNMR Phi(t - 2). Each group's interval depends on its own
    scores and weights only, so the covered groups of one metric and threshold are a
    Binomial(300, coverage) count, which must lie in the acceptance region of 95% (each of the
    4 counts at FALSE_ALARM / 4)."""
    rng = np.random.default_rng(20)
    n_groups, thresholds = 300, np.array([1.0, 1.5])
    frames = [pd.DataFrame({"score": np.r_[rng.normal(2, 1, 100), rng.normal(0, 1, 200)],
                            "mated": np.repeat([True, False], [100, 200]), "group": f"g{g:03d}"})
              for g in range(n_groups)]
    got, _ = run_poisson_bootstrap(pd.concat(frames, ignore_index=True), 2, thresholds, 9, n_resamples=199)
    truth = {"fmr": stats.norm.sf(thresholds), "fnmr": stats.norm.cdf(thresholds - 2)}
    low, high = binomial_region(n_groups, 0.95, FALSE_ALARM / 4)
    for metric in ("fmr", "fnmr"):
        for j, t in enumerate(thresholds):
            rows = got[(got["metric"] == metric) & (got["threshold"] == t)]
            assert len(rows) == n_groups
            covered = int(((rows["low"] <= truth[metric][j]) & (truth[metric][j] <= rows["high"])).sum())
            assert low <= covered <= high, (metric, t, covered, (low, high))


# =============================================================================================
# 3. bootstrap(method="bca") of the EER, against its definition and in coverage
# =============================================================================================


def bca_by_definition(statistic, mated, nonmated, replicates, estimate, confidence):
    """Efron and Tibshirani (1993) eq. 14.10 and 14.15 for two independently resampled
    samples: z0 from the share of replicates below the estimate, replicates equal to it
    counting one half (scipy.stats.bootstrap's rule; the book's ``#{theta* < theta}/B``
    leaves ties out), the acceleration from each class's leave-one-out values in influence
    form (as scipy), ``a = sum_j sum_i U_ji^3 / n_j^3 / (6 (sum_j sum_i U_ji^2 / n_j^2)^1.5)``,
    ``U_ji = (n_j - 1)(mean_i theta_ji - theta_ji)``; ends at type-7 percentiles."""
    z0 = stats.norm.ppf(np.mean(replicates < estimate) + np.mean(replicates == estimate) / 2)
    leave_one_out = [np.array([statistic(np.delete(mated, i), nonmated) for i in range(mated.size)]),
                     np.array([statistic(mated, np.delete(nonmated, i)) for i in range(nonmated.size)])]
    cubes, squares = 0.0, 0.0
    for values in leave_one_out:
        n = values.size
        u = (n - 1) * (values.mean() - values)
        cubes += np.sum(u**3) / n**3
        squares += np.sum(u**2) / n**2
    acceleration = cubes / (6 * squares**1.5)
    z = stats.norm.ppf([(1 - confidence) / 2, (1 + confidence) / 2])
    levels = stats.norm.cdf(z0 + (z0 + z) / (1 - acceleration * (z0 + z)))
    return type7_percentiles(replicates, levels)


@pytest.mark.parametrize("method", ["rocch", "midpoint"])
def test_bca_interval_of_the_eer_by_its_definition(method):
    """The same seed gives the same replicates for both interval methods; the percentile ends
    are their type-7 percentiles, the BCa ends Efron's formulas with a jackknife written out
    (the midpoint EER takes few values: some replicates equal the estimate)."""
    rng = np.random.default_rng(31)
    mated, nonmated = rng.normal(2, 1, 45), rng.normal(0, 1, 70)
    statistic = lambda m, n: bf.eer(m, n, method=method).eer  # noqa: E731
    bca = bf.bootstrap(statistic, (mated, nonmated), method="bca", n_resamples=399, confidence=0.9, rng=5)
    percentile = bf.bootstrap(statistic, (mated, nonmated), n_resamples=399, confidence=0.9, rng=5)
    np.testing.assert_array_equal(bca.replicates, percentile.replicates)
    assert bca.estimate == statistic(mated, nonmated)
    np.testing.assert_allclose([percentile.low, percentile.high],
                               type7_percentiles(percentile.replicates, [0.05, 0.95]), rtol=1e-13)
    assert np.any(bca.replicates == bca.estimate) == (method == "midpoint")  # the rule for ties is exercised
    expected = bca_by_definition(statistic, mated, nonmated, bca.replicates, bca.estimate, 0.9)
    np.testing.assert_allclose([bca.low, bca.high], expected, rtol=1e-12)


def bca_outcome(statistic, scores) -> tuple[float, float] | str:
    try:
        result = bf.bootstrap(statistic, scores, method="bca", n_resamples=999, rng=0)
    except ValueError as error:
        return str(error)
    return result.low, result.high


def test_bca_with_equal_leave_one_out_values_does_not_depend_on_their_rounding():
    """Every leave-one-out value equal (within each class): U_ji = 0 and the acceleration is
    0/0, whatever that value. The mean of three 0.1s is not 0.1 in floating point, that of
    three 0.125s is: both must give the same outcome (an error, or one interval), not an
    acceleration made of rounding errors (here 0.068). The midpoint EER of 60 + 90 normal
    scores has such a jackknife in about 1 data set in 10."""
    scores = (np.array([2.0, 3.0, 5.0]), np.array([0.0, 1.0, 4.0]))
    outcomes = [bca_outcome(lambda m, n, value=value: float(np.mean(m)) if m.size == 3 and n.size == 3 else value,
                            scores) for value in (0.125, 0.1)]
    assert outcomes[0] == outcomes[1]


def eer_coverage(method: str, n_sets: int, seed: int) -> dict[str, int]:
    """How many of ``n_sets`` data sets (60 mated N(2, 1), 90 non-mated N(0, 1) scores: d' = 2,
    EER = Phi(-1)) have a 95% interval (B = 199) that holds the true EER: BCa, and percentile
    read from the same replicates (what method="percentile" gives for the same seed, as
    test_bca_interval_of_the_eer_by_its_definition checks). A data set whose leave-one-out
    values are all equal has no BCa interval (``"undefined"`` counts them); its percentile
    interval comes from a call with the same seed."""
    truth = stats.norm.cdf(-1.0)
    statistic = lambda m, n: bf.eer(m, n, method=method).eer  # noqa: E731
    rng = np.random.default_rng(seed)
    covered = {"bca": 0, "percentile": 0, "undefined": 0}
    for _ in range(n_sets):
        mated, nonmated = rng.normal(2, 1, 60), rng.normal(0, 1, 90)
        draws = int(rng.integers(2**63))
        try:
            result = bf.bootstrap(statistic, (mated, nonmated), method="bca", n_resamples=199, rng=draws)
        except ValueError as error:
            assert "whichever unit is left out" in str(error)
            covered["undefined"] += 1
            result = bf.bootstrap(statistic, (mated, nonmated), n_resamples=199, rng=draws)
        else:
            covered["bca"] += bool(result.low <= truth <= result.high)
        low, high = type7_percentiles(result.replicates, [0.025, 0.975])
        covered["percentile"] += bool(low <= truth <= high)
    return covered


def test_eer_midpoint_intervals_cover_at_the_nominal_level():
    """200 data sets: the BCa 95% interval of the midpoint EER holds Phi(-1), on the data
    sets where it is defined, a number of times inside the acceptance region of
    Binomial(defined, 0.95), and the percentile interval on all of them inside that of
    Binomial(200, 0.95), each at FALSE_ALARM / 2 (the false alarm if the intervals covered
    exactly 95%). The midpoint EER takes few values: about 1 data set in 10 leaves every
    leave-one-out value equal, and has no BCa interval."""
    covered = eer_coverage("midpoint", 200, seed=2025)
    defined = 200 - covered["undefined"]
    assert 0 < covered["undefined"] < 60, covered
    low, high = binomial_region(defined, 0.95, FALSE_ALARM / 2)
    assert low <= covered["bca"] <= high, (covered, (low, high))
    low, high = binomial_region(200, 0.95, FALSE_ALARM / 2)
    assert low <= covered["percentile"] <= high, (covered, (low, high))


def test_eer_rocch_bca_interval_covers_near_the_nominal_level():
    """The default (ROCCH) EER: 200 data sets, the BCa 95% interval's count in the acceptance
    region of Binomial(200, 0.95) at FALSE_ALARM. With 200 sets the region starts at 87%: this
    catches a gross failure only: 1,000 data sets of this design (another seed) had 905
    covered, P(X <= 905) = 3e-9 for X ~ Binomial(1000, 0.95). bootstrap's Notes quantify only
    the percentile interval's shortfall, which the ROCCH EER's bias causes
    (tests/unit/test_uncertainty.py)."""
    covered = eer_coverage("rocch", 200, seed=2026)
    low, high = binomial_region(200, 0.95)
    assert low <= covered["bca"] <= high, (covered, (low, high))
