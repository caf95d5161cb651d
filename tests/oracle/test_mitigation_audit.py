"""Mitigation and normalisation against loops written from their definitions (an audit of chapter 12).

Each public function's result is recomputed here one comparison, one group or one pair of
points at a time: the Pareto front by comparing every pair of points in the points' own
type, group thresholds by trying every candidate of SPEC section 1, calibration of a pair
across two groups by the mean of its two sides' maps, and cohort statistics by key.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biofair as bf
from biofair.mitigation import (
    apply_group_calibration,
    group_thresholds,
    pareto_front,
    rates_at_group_thresholds,
    subject_disjoint_split,
)
from biofair.normalisation import cohort_scores, cohort_statistics


def _front_by_loop(rows: list[tuple], directions: list[str]) -> list[bool]:
    """Whether each point is dominated by none: every pair compared with Python's own <, ==."""
    def better_or_equal(q, p, d):
        return q <= p if d == "min" else q >= p

    def better(q, p, d):
        return q < p if d == "min" else q > p

    return [not any(all(better_or_equal(qq, pp, d) for pp, qq, d in zip(p, q, directions))
                    and any(better(qq, pp, d) for pp, qq, d in zip(p, q, directions))
                    for j, q in enumerate(rows) if j != i)
            for i, p in enumerate(rows)]


def test_pareto_front_compares_integers_exactly():
    """2**53 and 2**53 + 1 were both cast to the float 2**53: a tie, so the larger cost was on
    the front beside the smaller one."""
    points = pd.DataFrame({"cost": np.array([2**53, 2**53 + 1, 2**53 + 1], dtype=np.int64),
                           "gain": np.array([0, 0, 1], dtype=np.uint64)})
    objectives = {"cost": "min", "gain": "max"}
    got = pareto_front(points, objectives)
    assert got.tolist() == _front_by_loop([(2**53, 0), (2**53 + 1, 0), (2**53 + 1, 1)], ["min", "max"])
    assert got.tolist() == [True, False, True]


_REALS = st.sampled_from([-np.inf, -1.5, -0.0, 0.0, 0.25, 1.0, 2.0, 1e300, np.inf])


@given(st.lists(st.tuples(_REALS, st.integers(-3, 3), st.booleans()), min_size=1, max_size=12),
       st.sampled_from(list(itertools.product(["min", "max"], repeat=3))))
@settings(max_examples=200, deadline=None)
def test_pareto_front_of_floats_integers_and_booleans_equals_a_loop(rows, directions):
    """Three objectives of three dtypes, with infinities, signed zeros and ties."""
    points = pd.DataFrame(rows, columns=["x", "y", "z"]).astype({"x": float, "y": np.int64, "z": bool})
    got = pareto_front(points, dict(zip(["x", "y", "z"], directions)))
    assert got.tolist() == _front_by_loop(rows, list(directions))


def test_pareto_front_of_one_point_and_of_equal_points():
    assert pareto_front(pd.DataFrame({"x": [3.0]}), {"x": "max"}).tolist() == [True]
    assert pareto_front(pd.DataFrame({"x": [1.0] * 4, "y": [2] * 4}), {"x": "min", "y": "max"}).all()


# -- group thresholds: SPEC section 1 by trying every candidate -------------------------------------

def _threshold_by_loop(nonmated: np.ndarray, fmr: float) -> float:
    candidates = sorted(set(nonmated.tolist())) + [float(np.nextafter(nonmated.max(), np.inf))]
    return min(t for t in candidates if np.sum(nonmated >= t) <= fmr * nonmated.size)


@pytest.mark.parametrize("fmr", [0.0, 0.1, 0.3, 0.5, 1.0])
def test_group_thresholds_with_ties_and_a_group_of_equal_scores(fmr):
    """Group b's non-mated scores are all equal; group a's are on a grid of five values."""
    rng = np.random.default_rng(3)
    a_nonmated = rng.integers(0, 5, 40) / 4
    b_nonmated = np.full(10, 0.7)
    table = pd.DataFrame({
        "score": np.concatenate([rng.integers(0, 5, 12) / 4, a_nonmated, [0.7, 0.9, 0.2], b_nonmated]),
        "mated": [True] * 12 + [False] * 40 + [True] * 3 + [False] * 10,
        "group": ["a"] * 52 + ["b"] * 13,
    })
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        thresholds = group_thresholds(table, fmr=fmr)
    rates = rates_at_group_thresholds(table, thresholds)
    for group, nonmated in (("a", a_nonmated), ("b", b_nonmated)):
        mated = table.loc[(table["group"] == group) & table["mated"], "score"].to_numpy()
        expected = _threshold_by_loop(nonmated, fmr)
        assert thresholds.loc[group, "threshold"] == expected
        assert thresholds.loc[group, "k"] == sum(s >= expected for s in nonmated)
        assert rates.loc[group, "fmr"] == sum(s >= expected for s in nonmated) / nonmated.size
        assert rates.loc[group, "fnmr"] == sum(s < expected for s in mated) / mated.size
        assert (rates.loc[group, "n_mated"], rates.loc[group, "n_nonmated"]) == (mated.size, nonmated.size)


def test_rates_at_group_thresholds_count_only_homogeneous_impostors():
    """A non-mated pair across two groups is in neither group's FMR (SPEC section 4)."""
    table = pd.DataFrame({
        "score": [0.9, 0.8, 0.1, 0.9, 0.2, 0.95],
        "mated": [True, False, False, True, False, False],
        "reference_group": ["a", "a", "a", "b", "b", "a"],
        "probe_group": ["a", "a", "a", "b", "b", "b"],
    })
    rates = rates_at_group_thresholds(table, {"a": 0.5, "b": 0.1})
    assert rates.loc["a", ["false_matches", "n_nonmated"]].tolist() == [1, 2]
    assert rates.loc["b", ["false_matches", "n_nonmated"]].tolist() == [1, 1]


# -- group calibration: a pair across two groups ----------------------------------------------------

def test_group_calibration_of_pairs_across_groups_is_the_mean_of_both_sides():
    rng = np.random.default_rng(5)
    n = 50
    table = pd.DataFrame({
        "score": rng.normal(size=n), "mated": rng.random(n) < 0.3,
        "reference_group": rng.choice(["a", "b", "c"], n), "probe_group": rng.choice(["a", "b", "c"], n),
    })
    maps = {"a": bf.LogisticCalibration(2.0, -1.0, 0.5), "b": bf.LogisticCalibration(0.5, 3.0, 0.5),
            "c": bf.LogisticCalibration(-1.0, 0.25, 0.5)}
    got = apply_group_calibration(table, maps)["score"].to_numpy()
    for k, row in enumerate(table.itertuples()):
        sides = [maps[row.reference_group], maps[row.probe_group]]
        assert got[k] == pytest.approx(np.mean([m.scale * row.score + m.offset for m in sides]), rel=1e-15)


# -- the split: every stratum's share, by counting -------------------------------------------------

@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.7])
def test_stratified_split_draws_the_rounded_share_of_every_stratum(fraction):
    sizes = {"a": 2, "b": 5, "c": 11}
    rows = [(0.5, True, g, f"{g}{i}", f"{g}{i}") for g, n in sizes.items() for i in range(n)]
    table = pd.DataFrame(rows, columns=["score", "mated", "group", "reference_subject", "probe_subject"])
    split = subject_disjoint_split(table, dev_fraction=fraction, stratify="group", rng=0)
    for group, n in sizes.items():
        expected = min(max(round(fraction * n), 1), n - 1)
        assert sum(s.startswith(group) for s in split.dev_subjects) == expected
    assert split.dev_subjects | split.eval_subjects == set(table["reference_subject"])
    assert len(split.dev) + len(split.eval) == len(table) and split.cross.empty


# -- normalisation: the cohort and its statistics, by key -------------------------------------------

def test_cohort_scores_and_statistics_equal_a_loop():
    rng = np.random.default_rng(7)
    subjects = [f"s{i}" for i in range(8)]
    cohort_ids = {"s0", "s1", "s2"}
    pairs = [(r, p) for r in subjects for p in subjects if r != p] * 2
    cross = pd.DataFrame({"reference_subject": [r for r, _ in pairs], "probe_subject": [p for _, p in pairs],
                          "score": rng.normal(size=len(pairs)), "mated": False})
    got = cohort_scores(cross, cohort_ids)
    expected = [(p if r in cohort_ids else r, s) for r, p, s in cross[["reference_subject", "probe_subject",
                                                                       "score"]].itertuples(index=False)
                if (r in cohort_ids) != (p in cohort_ids)]
    assert list(zip(got["subject"], got["score"])) == expected
    got = got.assign(score=lambda t: np.where(t["subject"] == "s7", 1.5, t["score"]))  # s7: no spread
    statistics = cohort_statistics(got, min_size=10)
    for subject in sorted(set(subjects) - cohort_ids):
        mine = got.loc[got["subject"] == subject, "score"].to_numpy()
        if subject == "s7":
            assert subject not in statistics.index
            continue
        assert statistics.loc[subject, "n"] == mine.size == 12
        assert statistics.loc[subject, "mean"] == pytest.approx(np.mean(mine), rel=1e-13)
        assert statistics.loc[subject, "std"] == pytest.approx(np.std(mine), rel=1e-13)
    assert cohort_statistics(got, min_size=13).empty  # 12 cohort scores each: below the minimum
