"""Identification and mitigation at numerical edges (an edge-numerics audit): each test
fails on the modules before its fix, and checks the numbers against a computation of its own
(a hand-worked example or a loop)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.exceptions import SchemaError

LONG_DOUBLE_IS_WIDER = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps
ROUNDED = "that float64 cannot hold exactly: distinct scores would become ties, or overflow"


@pytest.mark.skipif(not LONG_DOUBLE_IS_WIDER, reason="long double is float64 here")
def test_long_double_identification_scores_that_float64_cannot_hold_are_refused():
    """Each probe's mate scores 1 + 2**-60, its one non-mate 1: the mate is strictly ahead,
    rank 1 (by hand). Rounded to float64 silently, both scores were 1, a tie, and both probes
    were given rank 2 (rank-1 rate 0 where it is 1), from the matrix and from a long table; a
    mate score of 1e400 was reported as an infinite score. The verification metrics refuse
    such long doubles (as_scores) as they refuse integers beyond 2**53."""
    one = np.longdouble(1)
    ahead = one + np.longdouble(2) ** -60
    matrix = np.array([[ahead, one], [one, ahead]])
    options = dict(probe_subjects=["a", "b"], gallery_subjects=["a", "b"], probe_groups=["x", "y"])
    with pytest.raises(SchemaError, match=re.escape("block 0:2 has 2 long double scores (e.g. "
                                                    f"{ahead!r}) {ROUNDED}")):
        bf.probe_outcomes_from_matrix(matrix, **options)
    huge = np.array([[np.longdouble("1e400"), one], [one, np.longdouble(2)]])
    with pytest.raises(SchemaError, match=r"block 0:2 has 1 long double score \(e\.g\. np\.longdouble\('1e\+400'\)\)"):
        bf.probe_outcomes_from_matrix(huge, **options)
    table = pd.DataFrame({"probe_id": ["p", "p", "q", "q"], "reference_id": ["a", "b", "a", "b"],
                          "score": np.array([ahead, one, one, ahead]), "mated": [True, False, False, True],
                          "group": ["x", "x", "y", "y"]})
    with pytest.raises(SchemaError, match=re.escape(f"column 'score' has 2 long double scores (e.g. {ahead!r}) "
                                                    + ROUNDED)):
        bf.probe_outcomes(table)
    # long doubles that float64 holds exactly are read as they are: the same outcomes as float64
    exact = np.array([[2.5, 1.0], [1.0, 0.5]])
    assert bf.probe_outcomes_from_matrix(exact.astype(np.longdouble), **options).equals(
        bf.probe_outcomes_from_matrix(exact, **options))
    assert bf.probe_outcomes(table.assign(score=table["score"].astype(np.float64) + np.array([1.5, 0, 0, 1.5]))
                             .astype({"score": np.longdouble}))["rank"].tolist() == [1, 1]


@pytest.mark.skipif(not LONG_DOUBLE_IS_WIDER, reason="long double is float64 here")
def test_long_double_scores_of_a_table_are_refused_by_group_thresholds():
    """Non-mated scores 1 and 1 + 2**-60 in each group, FMR 0.5: one false match is allowed,
    the threshold is 1 + 2**-60 with k = 1 (by hand). Rounded to float64 the two tied, and
    group_thresholds gave nextafter(1, 2) with k = 0; float64 cannot hold the right threshold,
    so the scores are refused."""
    one = np.longdouble(1)
    ahead = one + np.longdouble(2) ** -60
    table = pd.DataFrame({"score": np.array([ahead + 1, one, ahead] * 2), "mated": [True, False, False] * 2,
                          "group": ["a"] * 3 + ["b"] * 3})
    with pytest.raises(SchemaError, match=re.escape("long double scores (e.g. ")):
        bf.mitigation.group_thresholds(table, 0.5)
    with pytest.raises(SchemaError, match=re.escape("long double scores (e.g. ")):
        bf.validate_scores(table)


def test_subject_ids_beyond_two_to_the_53_in_columns_of_two_integer_dtypes_stay_apart():
    """Subjects 2**62 + 0 ... 3 (64-bit ids, as hashes give), the reference column uint64 and
    the probe column int64: stacking the two columns made them float64, where all four are
    2**62. The split said "needs at least two subjects; the scores have 1" (there are 4: by
    hand), and check_subject_disjoint passed a development table whose subject 2**62 + 1,
    read as 2**62, is also an evaluation subject."""
    ids = 2**62 + np.arange(4)
    pairs = [(a, b) for a in ids for b in ids]
    table = pd.DataFrame({"reference_subject": np.array([a for a, _ in pairs], dtype=np.uint64),
                          "probe_subject": np.array([b for _, b in pairs], dtype=np.int64),
                          "score": np.arange(16.0), "mated": [a == b for a, b in pairs]})
    split = bf.mitigation.subject_disjoint_split(table, rng=0)
    assert split.dev_subjects | split.eval_subjects == set(ids.tolist())
    assert len(split.dev_subjects) == len(split.eval_subjects) == 2
    assert len(split.dev) == len(split.eval) == 4 and len(split.cross) == 8  # 2 x 2 pairs a side, by hand
    assert set(split.dev["reference_subject"].tolist()) == split.dev_subjects
    dev = table[(table["reference_subject"] == ids[1]) & (table["probe_subject"] == ids[1])]
    evaluation = table.astype({"reference_subject": np.int64})[lambda t: t["reference_subject"] == ids[1]]
    shared = f"1 evaluation subject also in the development split, e.g. {ids[1]}"
    with pytest.raises(ValueError, match=re.escape(shared)):
        bf.mitigation.check_subject_disjoint(dev, evaluation)


def test_pareto_front_refuses_a_nan_that_pandas_does_not_count_as_missing():
    """An Arrow-backed float column keeps NaN apart from its missing values (isna is False for
    it): the NaN was ranked above every number, so with "max" the point of cost NaN was the
    whole front ([False, True, False], where the points 1.0 and 2.0 give [False, False, True]
    by hand) and with "min" it was dominated. A NaN cannot be compared: refused, as a NumPy
    NaN is."""
    pa = pytest.importorskip("pyarrow")
    cost = pd.array(pa.array([1.0, np.nan, 2.0], from_pandas=False), dtype=pd.ArrowDtype(pa.float64()))
    points = pd.DataFrame({"cost": cost, "fairness": [0.5, 0.5, 0.5]})
    assert not points["cost"].isna().any()  # what the check read
    for direction in ("min", "max"):
        with pytest.raises(ValueError, match=re.escape("objective columns hold NaN (column: count): {'cost': 1}")):
            bf.mitigation.pareto_front(points, {"cost": direction, "fairness": "max"})
    numbers = points.iloc[[0, 2]]
    assert bf.mitigation.pareto_front(numbers, {"cost": "max", "fairness": "max"}).tolist() == [False, True]


def test_cohort_subjects_beyond_two_to_the_53_in_columns_of_two_integer_dtypes_stay_apart():
    """Subjects 2**62 + 1 and 2**62 + 2 (uint64 reference column) each compared with the cohort
    2**62 + 10 and 2**62 + 11 (int64 probe column): choosing each row's non-cohort side with
    np.where made the subjects float64, one subject 2**62, whose statistics were mean 0.5 and
    std 0.316 over all four scores where each subject has mean 0.2 or 0.8 and std 0.1 (by hand);
    normalise_scores then found no statistics for either subject."""
    base = 2**62
    cross = pd.DataFrame({"reference_subject": np.array([base + 1] * 2 + [base + 2] * 2, dtype=np.uint64),
                          "probe_subject": np.array([base + 10, base + 11] * 2, dtype=np.int64),
                          "score": [0.1, 0.3, 0.7, 0.9], "mated": False})
    cohort = bf.normalisation.cohort_scores(cross, cohort_subjects={base + 10, base + 11})
    assert cohort["subject"].tolist() == [base + 1, base + 1, base + 2, base + 2]
    statistics = bf.normalisation.cohort_statistics(cohort, min_size=2)
    assert statistics.index.tolist() == [base + 1, base + 2]
    assert statistics["mean"].to_numpy() == pytest.approx([0.2, 0.8], abs=1e-15)
    assert statistics["std"].to_numpy() == pytest.approx([0.1, 0.1], abs=1e-15)
    scores = pd.DataFrame({"reference_subject": np.array([base + 1, base + 2, base + 2], dtype=np.uint64),
                           "probe_subject": np.array([base + 2, base + 1, base + 2], dtype=np.int64),
                           "score": [0.5, 0.5, 1.0], "mated": [False, False, True]})
    normalised = bf.normalisation.normalise_scores(scores, statistics, method="z")["score"]
    assert normalised.to_numpy() == pytest.approx([3.0, -3.0, 2.0], rel=1e-12)  # (s - mean) / std of the reference


def test_group_calibration_takes_the_mean_of_two_large_llrs_without_overflow():
    """With the groups in per-side columns every comparison gets the mean of its two sides'
    LLRs, computed as (x + y) / 2: two LLRs of 1e308 overflowed in the sum, and the identity
    map on a score of 1e308 was "a_g·s + b_g overflows float64" although both LLRs and their
    mean are 1e308 (given in a pair-level column, the same table gave 1e308). Expected: 1e308
    by hand, and for sides a (identity) and b (scale 1.5) the mean 1.25e308, checked in exact
    fractions."""
    from fractions import Fraction

    table = pd.DataFrame({"score": [1e308, 1e308, 0.5], "mated": [True, False, False],
                          "reference_group": ["a", "a", "b"], "probe_group": ["a", "b", "a"]})
    maps = {"a": bf.LogisticCalibration(1.0, 0.0, 0.5), "b": bf.LogisticCalibration(1.5, 0.0, 0.5)}
    calibrated = bf.mitigation.apply_group_calibration(table, maps)["score"].tolist()
    exact = (Fraction(1e308) + Fraction(1.5 * 1e308)) / 2
    assert calibrated[0] == 1e308
    assert calibrated[1] == float(exact)
    assert calibrated[2] == (0.5 + 0.75) / 2  # away from the edge, as before
