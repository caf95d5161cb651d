"""Audit of biofair.rates and biofair.summaries against loops over every candidate threshold.

SPEC section 1: the threshold at a target FMR is the smallest of the distinct non-mated scores
and ``nextafter(max, +inf)`` whose FMR (match iff ``score >= t``) does not exceed the target;
every rate at a target carries ``k``, the non-mated scores at or above its threshold, and is
resolved iff the target allows 3 false matches, precise iff 30. The oracles below read every
candidate one by one and count every score by direct comparison.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair import summaries


def candidates(nonmated):
    """The thresholds SPEC section 1 chooses from, ascending."""
    values = sorted(set(np.asarray(nonmated, dtype=float).tolist()))
    return values + [float(np.nextafter(values[-1], np.inf))]


def brute_threshold(nonmated, target):
    """The first candidate, ascending, whose FMR meets the target (the rule compares the FMR
    as a float with the target, as the package does: a target of 2/3 admits 2 of 3)."""
    nonmated = np.asarray(nonmated, dtype=float)
    return next(t for t in candidates(nonmated) if int(np.sum(nonmated >= t)) / nonmated.size <= target)


def allowed(target, n):
    """Largest count c with c / n <= target, counted up one by one."""
    c = 0
    while c < n and (c + 1) / n <= target:
        c += 1
    return c


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize("seed", range(40))
def test_array_targets_in_any_order_equal_a_loop_over_every_candidate(seed):
    """Targets unsorted and repeated, 0, 1, below 1/N, exactly k/N and 3/N, on scores with
    ties within and across the classes: every threshold, TMR and count equals the loop's, in
    the targets' order and shape, and equals the same target asked alone."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 50)), int(rng.integers(1, 15))
    levels = int(rng.integers(1, 6))
    nonmated = rng.integers(-levels, levels + 1, n).astype(float)
    mated = rng.integers(-levels, levels + 1, m).astype(float) + 1
    targets = np.array([0.5, 0.0, 1.0, 0.5, 0.5 / n, 1 / n, min(3 / n, 1.0), 0.0,
                        int(rng.integers(0, n + 1)) / n, rng.random(), rng.random()])
    rng.shuffle(targets)
    thresholds = quiet(bf.threshold_at_fmr, nonmated, targets.reshape(1, -1))
    tmr = quiet(bf.tmr_at_fmr, mated, nonmated, targets.reshape(1, -1))
    assert thresholds.shape == tmr.shape == (1, targets.size)
    for target, threshold, rate in zip(targets, thresholds[0], tmr[0]):
        expected = brute_threshold(nonmated, target)
        assert threshold == expected
        # TMR at the target: the most any candidate meeting the target gives (TMR falls as t rises)
        best = max(np.sum(mated >= t) / m for t in candidates(nonmated) if np.sum(nonmated >= t) / n <= target)
        assert rate == np.sum(mated >= expected) / m == best
        assert quiet(bf.threshold_at_fmr, nonmated, float(target)) == expected
        assert quiet(bf.tmr_at_fmr, mated, nonmated, float(target)) == rate
        point = quiet(bf.operating_point, mated, nonmated, fmr=float(target))
        assert point == (expected, np.sum(nonmated >= expected) / n, np.sum(mated < expected) / m,
                         np.sum(nonmated >= expected), np.sum(mated < expected), m, n)
        assert point.false_matches <= allowed(target, n)  # never above the target


def test_the_threshold_is_set_on_the_non_mated_scores_alone():
    """Hand-worked: non-mated 0 and 10, mated 5, target 0.5. The candidates are 0 (FMR 1),
    10 (FMR 1/2) and just above 10 (FMR 0): the threshold is 10 and the TMR 0, although a
    threshold of 5, which no candidate is, would also meet the target with TMR 1."""
    assert quiet(bf.threshold_at_fmr, [0.0, 10.0], 0.5) == 10.0
    assert quiet(bf.tmr_at_fmr, [5.0], [0.0, 10.0], 0.5) == 0.0
    assert bf.fmr_fnmr([5.0], [0.0, 10.0], 5.0) == (0.5, 0.0)


@pytest.mark.parametrize("convert", [
    lambda x: pd.Series(x, index=np.zeros(x.size, dtype=int)),  # a repeated index
    lambda x: pd.array(x.astype(int), dtype="Int64"),
    lambda x: pd.Categorical(x.astype(int)),
    lambda x: x.astype(np.int8),
    lambda x: x.astype(np.float32),
    lambda x: x[::-1].tolist(),
], ids=["series", "Int64", "categorical", "int8", "float32", "list"])
def test_the_rates_of_other_containers_and_dtypes_are_those_of_float64(convert):
    mated, nonmated = np.array([3.0, 5, 5, 8, 9]), np.array([0.0, 1, 1, 2, 5, 5, 5, 7, 7, 9])
    targets = [0.0, 0.1, 0.2, 0.3, 0.5, 1.0]
    expected = [brute_threshold(nonmated, t) for t in targets]
    got = quiet(bf.threshold_at_fmr, convert(nonmated), targets)
    assert got.tolist() == expected == [9.000000000000002, 9.0, 9.0, 7.0, 7.0, 0.0]  # 7 has 3 at or above it
    tmr = quiet(bf.tmr_at_fmr, convert(mated), convert(nonmated), targets)
    assert tmr.tolist() == [np.sum(mated >= t) / 5 for t in expected]
    rates = bf.fmr_fnmr(convert(mated), convert(nonmated), expected)
    assert rates.fmr.tolist() == [np.sum(nonmated >= t) / 10 for t in expected]


@pytest.mark.parametrize("scale, offset", [(1.0, 0.0), (1e300, 0.0), (1e-300, 0.0), (1e-320, 0.0), (1.0, 1e9),
                                           (-1.0, 0.0)])
def test_operating_summary_rows_at_targets_equal_loops(scale, offset):
    """Targets unsorted, repeated, 0, 1, below 1/N and exactly 3/N; the rows at targets keep
    the targets' order, and threshold, k, TMR, FNMR, resolved and precise equal the loops."""
    rng = np.random.default_rng(1)
    nonmated = rng.integers(0, 6, 40) * scale + offset
    mated = rng.integers(3, 9, 12) * scale + offset
    if scale < 0:
        mated, nonmated = -nonmated, -mated  # the higher score is still the more similar
    n, m = nonmated.size, mated.size
    targets = [0.5, 0.0, 1.0, 0.5, 1e-9, 3 / n, 0.8]
    with pytest.warns(bf.InsufficientComparisonsWarning, match="targets FMR 0, 1e-09 are below 3/N"):
        table = bf.operating_summary(mated, nonmated, fmr_targets=targets, pauc_bounds=[1.0], min_fmr=0.5)
    for metric in ("tmr_at_fmr", "fnmr_at_fmr"):
        rows = table[table["metric"] == metric]
        assert rows["fmr_target"].tolist() == targets
        for row, target in zip(rows.itertuples(), targets):
            t = brute_threshold(nonmated, target)
            assert row.threshold == t and row.k == np.sum(nonmated >= t)
            assert row.value == (np.sum(mated >= t) if metric == "tmr_at_fmr" else np.sum(mated < t)) / m
            assert (row.resolved, row.precise) == (allowed(target, n) >= 3, allowed(target, n) >= 30)


def test_operating_summary_names_eer_method_in_its_own_words():
    """The message named a ``method`` that operating_summary does not have, and was given
    only after both classes were sorted and searched."""
    with pytest.raises(ValueError, match=r"^eer_method must be 'rocch', 'midpoint' or 'interval', got 'hull'"):
        bf.operating_summary([1.0, 2.0, 3.0], [0.0, 1.5, 2.5], eer_method="hull")


# -- fairness_summary ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def crossed():
    """Three groups of 3, 5 and 2 subjects, every pair of subjects compared (cross-group
    non-mated pairs too), integer scores with many ties."""
    rng = np.random.default_rng(7)
    subjects = [(g, f"{g}{i}") for g, size in {"a": 3, "b": 5, "c": 2}.items() for i in range(size)]
    rows = []
    for (g1, s1), (g2, s2) in itertools.product(subjects, subjects):
        mated = s1 == s2
        for _ in range(4 if mated else 3):
            score = rng.integers(4, 10) + (g1 == "c") if mated else rng.integers(0, 7) + (g1 == g2 == "b")
            rows.append((s1, s2, g1, g2, float(score), mated))
    return pd.DataFrame(rows, columns=["reference_subject", "probe_subject", "reference_group", "probe_group",
                                       "score", "mated"])


def test_fairness_summary_group_rows_equal_each_group_computed_alone(crossed):
    """FDR, its log10 area, GARBE and Inequity from each group's own rates at a threshold set
    by the loop on the pooled homogeneous non-mated scores; the system rows on all of them."""
    targets = [0.2, 0.05, 0.01]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        warnings.simplefilter("ignore", bf.UndefinedRateWarning)
        summary = bf.fairness_summary(crossed, fmr_targets=targets, operating_fmr=0.05, n_resamples=40,
                                      n_permutations=2, rng=1)
    homogeneous = crossed[crossed["reference_group"] == crossed["probe_group"]]
    pooled = homogeneous.loc[~homogeneous["mated"], "score"].to_numpy()
    groups = {g: (d.loc[d["mated"], "score"].to_numpy(), d.loc[~d["mated"], "score"].to_numpy())
              for g, d in homogeneous.groupby("reference_group")}

    def group_rates(t):
        fmr = np.array([np.mean(non >= t) for _, non in groups.values()])
        fnmr = np.array([np.mean(mat < t) for mat, _ in groups.values()])
        return fmr, fnmr

    fdr = summary[summary["metric"] == "fdr"]
    expected_fdr = []
    for row, target in zip(fdr.itertuples(), targets):
        t = brute_threshold(pooled, target)
        fmr, fnmr = group_rates(t)
        expected_fdr.append(1 - (0.5 * np.ptp(fmr) + 0.5 * np.ptp(fnmr)))
        assert (row.fmr_target, row.threshold, row.k) == (target, t, np.sum(pooled >= t))
        assert row.value == pytest.approx(expected_fdr[-1], abs=1e-15)
        assert (row.resolved, row.precise) == (allowed(target, pooled.size) >= 3, allowed(target, pooled.size) >= 30)
    x = np.log10(targets)
    area = np.trapezoid(expected_fdr[::-1], (x[::-1] - x.min()) / np.ptp(x))
    assert summary.loc[summary["metric"] == "area_under_fdr_log10", "value"].item() == pytest.approx(area, abs=1e-15)

    t = brute_threshold(pooled, 0.05)
    fmr, fnmr = group_rates(t)
    sizes = {"fmr": [non.size for _, non in groups.values()], "fnmr": [mat.size for mat, _ in groups.values()]}

    def garbe(x):
        k = x.size
        return 0.0 if x.mean() == 0 else k / (k - 1) * np.abs(x[:, None] - x[None, :]).sum() / (2 * k * k * x.mean())

    def inequity(x, n):
        x = np.where(x > 0, x, 1 - 0.05 ** (1 / np.array(n)))
        return x.max() / np.exp(np.log(x).mean())

    expected = {"garbe_fmr": garbe(fmr), "garbe_fnmr": garbe(fnmr),
                "inequity_fmr": inequity(fmr, sizes["fmr"]), "inequity_fnmr": inequity(fnmr, sizes["fnmr"])}
    for name, value in expected.items():
        row = summary[summary["metric"] == name].iloc[0]
        assert row["value"] == pytest.approx(value, rel=1e-14), name
        assert (row["fmr_target"], row["threshold"], row["k"]) == (0.05, t, np.sum(pooled >= t))

    mated, nonmated = crossed.loc[crossed["mated"], "score"], crossed.loc[~crossed["mated"], "score"].to_numpy()
    rows = summary[summary["metric"] == "tmr_at_fmr"]
    for row, target in zip(rows.itertuples(), targets):
        t = brute_threshold(nonmated, target)  # every non-mated pair, cross-group ones too
        assert (row.threshold, row.k, row.value) == (t, np.sum(nonmated >= t), np.mean(mated >= t))


@pytest.mark.parametrize("targets, message", [
    ([0.0, 0.1], r"^fmr_targets must be at least 2\*\*-1022 = .* here, got 0\.0: they are also the bounds of"),
    ([1e-320, 0.1], r"^fmr_targets must be at least 2\*\*-1022 = .* here, got 1e-320"),
    ([1.0, 1.0], r"^fmr_targets must hold a target below 1, got only 1\.0: .*log-FMR area, which runs from it"),
])
def test_fairness_summary_refuses_targets_its_areas_cannot_take_before_any_bootstrap(monkeypatch, targets, message):
    """Its docstring allowed targets in [0, 1]; 0 and 1 alone failed after the bootstraps with
    the words of operating_summary's pauc_bounds and min_fmr, which the caller never gave."""
    def no_bootstrap(*args, **kwargs):
        raise AssertionError("a bootstrap ran before fmr_targets was checked")

    monkeypatch.setattr(summaries, "bootstrap", no_bootstrap)
    table = bf.read_grouped_scores(bf.datasets.example_scores_path())
    with pytest.raises(ValueError, match=message):
        bf.fairness_summary(table, fmr_targets=targets, n_resamples=40, n_permutations=2)
