"""Second edge audit of calibration, detection costs, cohort normalisation and the permutation
null: each test fails on the module before its fix, and checks a number against an independent
computation or a refusal against its message."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.exceptions import SchemaError
from biofair.normalisation import cohort_scores, cohort_statistics, normalise_scores


@pytest.mark.parametrize("p", [1e-310, 2.0**-1023])
def test_logistic_fit_refuses_a_subnormal_training_prior(p):
    """At p_target = 1e-310 the non-mated weight (1 - p)/N times 2**1030 overflowed to inf: the loss
    was NaN and the fit came back as (0.647, 1.17), where the priors 1e-300 to 2.3e-308 give
    slopes of 461 to 473; at 1e-320 or 5e-324 Newton's damping loop never ended. Such a prior
    is refused, as min_dcf refuses a weighted cost below 2**-1022."""
    rng = np.random.default_rng(0)
    mated, nonmated = rng.normal(1, 1, 50), rng.normal(-1, 1, 60)
    with pytest.raises(ValueError, match=re.escape(f"p_target = {p!r} is below 2**-1022")):
        bf.fit_logistic_calibration(mated, nonmated, p_target=p)



def test_cohort_statistics_keep_true_and_1_apart_or_refuse_them():
    """Cohort keys True, True, 1, 1 (an object column): pandas hashes True as 1, so the four
    scores made one key True with mean 6.5 and std 5.72 (scores 0, 2, 10, 14), where True's own
    scores have mean 1 and 1's mean 12. Refused, as group_labels refuses True beside 1."""
    cohort = pd.DataFrame({"subject": pd.Series([True, True, 1, 1], dtype=object), "score": [0.0, 2.0, 10.0, 14.0]})
    with pytest.raises(SchemaError, match=r"cohort\['subject'\] holds subject ids that are booleans and other "
                                          r"numbers \(True and 1\)"):
        cohort_statistics(cohort, min_size=2)
    # booleans alone are ids like any other: by hand, True: 0 and 2, False: 10 and 14
    alone = cohort.assign(subject=[True, True, False, False])
    assert cohort_statistics(alone, min_size=2).to_dict("index") == {
        False: {"mean": 12.0, "std": 2.0, "n": 2}, True: {"mean": 1.0, "std": 1.0, "n": 2}}


def test_cohort_scores_do_not_read_subject_1_as_cohort_subject_true():
    """cohort_subjects={True} against integer subject ids: isin matched subject 1 to True and
    gave the comparison (1, 5) as subject 5's cohort score, silently; and the reverse (boolean
    ids, a cohort {1})."""
    cross = pd.DataFrame({"score": [0.1, 0.3, 0.5], "mated": [False] * 3,
                          "reference_subject": [1, 5, 2], "probe_subject": [5, 0, 5]})
    message = r"subject ids are booleans in cohort_subjects \(bool\) but other numbers in cross\['reference_subject'\]"
    with pytest.raises(SchemaError, match=message):
        cohort_scores(cross, {True})
    booleans = cross.assign(reference_subject=[True, False, True], probe_subject=[False, False, False])
    with pytest.raises(SchemaError, match=r"subject ids are booleans in cross\['reference_subject'\] \(bool\), "
                                          r"cross\['probe_subject'\] \(bool\) but other numbers in cohort_subjects"):
        cohort_scores(booleans, {1})


def test_normalise_scores_do_not_read_key_1_with_the_statistics_of_true():
    """Statistics indexed True (mean 0, std 1) and 2 (mean 1, std 2) in an object index, keys 1
    and 2: reindex read key 1 with True's statistics and Z-normalised silently ([1.0, 0.5]). With
    a boolean index and integer keys, the comparisons were said to lack statistics, with the
    advice to enlarge the cohort."""
    table = pd.DataFrame({"score": [1.0, 2.0], "mated": [True, False], "reference_subject": [1, 2],
                          "probe_subject": [1, 1]})
    statistics = pd.DataFrame({"mean": [0.0, 1.0], "std": [1.0, 2.0]}, index=pd.Index([True, 2], dtype=object))
    with pytest.raises(SchemaError, match=r"the statistics' index holds subject ids that are booleans and other numbers"):
        normalise_scores(table, statistics, method="z")
    by_boolean = pd.DataFrame({"mean": [0.0, 1.0], "std": [1.0, 2.0]}, index=[True, False])
    with pytest.raises(SchemaError, match=r"subject ids are booleans in the statistics' index \(bool\) but other "
                                          r"numbers in scores\['reference_subject'\] \(int64\)"):
        normalise_scores(table, by_boolean, method="z")
    by_integer = pd.DataFrame({"mean": [0.0, 1.0], "std": [1.0, 2.0]}, index=[1, 0])  # read for True, False
    with pytest.raises(SchemaError, match=r"subject ids are booleans in scores\['reference_subject'\] \(bool\)"):
        normalise_scores(table.assign(reference_subject=[True, False]), by_integer, method="z")
    # boolean keys against a boolean index: (1 - 0)/1 and (2 - 1)/2, by hand
    booleans = table.assign(reference_subject=[True, False], probe_subject=[True, True])
    assert normalise_scores(booleans, by_boolean, method="z")["score"].tolist() == [1.0, 0.5]


def _homogeneous_trials(n_subjects: int = 12) -> pd.DataFrame:
    """Every pair of subjects of one group (a: the first half, b: the rest), mated on the diagonal."""
    rng = np.random.default_rng(1)
    subjects = [f"s{i}" for i in range(n_subjects)]
    group = {s: "a" if i < n_subjects // 2 else "b" for i, s in enumerate(subjects)}
    rows = [(r, p, r == p, rng.normal(2.0 if r == p else 0.0)) for r in subjects for p in subjects if group[r] == group[p]]
    table = pd.DataFrame(rows, columns=["reference_subject", "probe_subject", "mated", "score"])
    return table.assign(group=table["reference_subject"].map(group))


@pytest.mark.parametrize("unit", ["subject", "pair"])
def test_permutation_null_moves_agreeing_per_side_columns_with_the_pair_level_one(unit):
    """A table with a pair-level 'group' and per-side columns that agree with it on every row
    (group_labels reads it): only 'group' was shuffled, every permuted table then had the two
    disagree, and all 181 arrangements were refused as 'groups too small to shuffle'. The null
    must be that of the same table without the per-side columns, draw for draw (same seed)."""
    table = _homogeneous_trials()
    with_sides = table.assign(reference_group=table["group"], probe_group=table["group"])

    def mean_of_a(scores):
        return float(scores["score"][(bf.group_labels(scores) == "a").to_numpy()].mean())

    expected = bf.permutation_null(mean_of_a, table, n_permutations=30, unit=unit, rng=0)
    result = bf.permutation_null(mean_of_a, with_sides, n_permutations=30, unit=unit, rng=0)
    assert result.n_redrawn == 0
    assert result.observed == expected.observed
    np.testing.assert_array_equal(result.null, expected.null)
    assert result.p_value == expected.p_value


def test_subject_ids_that_are_booleans_in_one_column_and_numbers_in_another_are_refused():
    """True == 1 in Python and in pandas' hashing, so subject True of one column was subject 1
    of another wherever ids of two columns are matched (checked for normalisation's keys first,
    now wherever ids of several columns are compared: a permutation by subject, paired tables,
    mitigation's splits). Each column alone is of one type, which the check of one column did
    not see."""
    rng = np.random.default_rng(0)
    n = 200
    reference, probe = rng.random(n) < 0.5, rng.integers(0, 2, n)
    table = pd.DataFrame({"score": rng.normal(size=n), "mated": reference == probe, "reference_subject": reference,
                          "probe_subject": probe, "reference_group": np.where(reference, "a", "b"),
                          "probe_group": np.where(probe == 1, "a", "b")})
    with pytest.raises(SchemaError, match=r"booleans in column 'reference_subject' \(bool\) but other numbers in "
                                          r"column 'probe_subject' \(int64\): True == 1"):
        bf.permutation_null(lambda t: 0.0, table, by="group", unit="subject", n_permutations=10, rng=0)
    with pytest.raises(SchemaError, match="True == 1"):
        bf.mitigation.check_subject_disjoint(table, table.assign(reference_subject=probe))
