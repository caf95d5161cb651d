"""Hostile inputs given to the mitigation and normalisation API: a correct result or biofair's error.

Correct results are checked against a hand-worked value or the same data at another
power-of-two scale, which a normalisation must ignore exactly.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair import mitigation, normalisation


def subjects_table(n_per_group: int = 5) -> pd.DataFrame:
    """Groups a and b of ``n_per_group`` subjects each: one mated comparison per subject, one
    non-mated comparison with the next subject of its group."""
    rows = []
    for group in "ab":
        for i in range(n_per_group):
            me, other = f"{group}{i}", f"{group}{(i + 1) % n_per_group}"
            rows += [(1.0 + i, True, group, me, me), (0.1 * i, False, group, me, other)]
    return pd.DataFrame(rows, columns=["score", "mated", "group", "reference_subject", "probe_subject"])


@pytest.mark.parametrize("seed", range(5))
def test_split_keeps_a_subject_on_each_side(seed):
    """0.99 of 10 subjects rounded to 10: every comparison in development, none in evaluation;
    0.1 of each group of 5 rounded to 0: both groups missing from development (silently)."""
    table = subjects_table()
    split = mitigation.subject_disjoint_split(table, dev_fraction=0.99, rng=seed)
    assert (len(split.dev_subjects), len(split.eval_subjects)) == (9, 1)
    split = mitigation.subject_disjoint_split(table, dev_fraction=0.1, stratify="group", rng=seed)
    for group in "ab":
        assert sum(s.startswith(group) for s in split.dev_subjects) == 1
        assert sum(s.startswith(group) for s in split.eval_subjects) == 4
    assert set(split.dev["group"]) == {"a", "b"}  # the mated comparison of each development subject


def test_split_of_fewer_than_two_subjects():
    one = subjects_table().iloc[:1]  # a0 with itself
    for table, n in ((one, 1), (one.iloc[:0], 0)):
        with pytest.raises(ValueError, match=f"^a split by subject needs at least two subjects; the scores have {n}$"):
            mitigation.subject_disjoint_split(table, rng=0)


def test_thresholds_keyed_by_numbers_for_text_groups():
    """Group labels are read as text: thresholds {1: ..., 2: ...} for groups 1 and 2 said only
    "no threshold for the groups ['1', '2']", as if none had been given."""
    table = subjects_table().assign(group=lambda t: t["group"].map({"a": 1, "b": 2}))
    with pytest.raises(ValueError, match="^" + re.escape(
            "no threshold for the groups ['1', '2']; thresholds are given for [1, 2], which the scores do not have "
            "(group names are text, as group_thresholds returns them)") + "$"):
        mitigation.rates_at_group_thresholds(table, {1: 0.5, 2: 0.5})


def test_calibration_with_a_nan_scale():
    """Was "a_g·s + b_g overflows float64 for 10 comparisons: these scores are not on the
    scale the calibrations were fitted on", an error about the scores."""
    maps = {"a": bf.LogisticCalibration(float("nan"), 0.0, 0.5), "b": bf.LogisticCalibration(1.0, 0.0, 0.5)}
    with pytest.raises(ValueError, match="^" + re.escape(
            "calibrations with a non-finite scale or offset: {'a': (nan, 0.0)}; refit them (fit_group_calibration)")
            + "$"):
        mitigation.apply_group_calibration(subjects_table(), maps)


def test_pareto_front_names_the_column_of_a_nan_or_a_name_given_twice():
    """Were "objective columns must not hold NaN" (which, how many?) and "'DataFrame' object has no
    attribute 'dtype'"."""
    points = pd.DataFrame({"x": [1.0, np.nan, np.nan], "y": [0.5, 0.2, 0.1]})
    with pytest.raises(ValueError, match="^" + re.escape("objective columns hold NaN (column: count): {'x': 2}; a point "
                                                         "without a value cannot be compared") + "$"):
        mitigation.pareto_front(points, {"x": "min", "y": "max"})
    twice = pd.DataFrame([[1.0, 2.0], [2.0, 1.0]], columns=["x", "x"])
    with pytest.raises(ValueError, match="^" + re.escape("the points hold more than one column named 'x'; name each "
                                                         "objective once") + "$"):
        mitigation.pareto_front(twice, {"x": "min"})


@pytest.mark.parametrize(("points", "objectives", "message"), [
    (pd.DataFrame({"x": [1.0]}), ["x"],
     "objectives must map each column to 'min' or 'max', e.g. {'min_dcf': 'min'}, got ['x']"),
    (pd.DataFrame({"x": ["0.1", "0.2"]}, dtype=object), {"x": "min"},
     "objective columns must be numeric; ['x'] are not (dtypes ['object'])"),
])
def test_pareto_front_of_what_is_not_an_objective(points, objectives, message):
    """Were "'list' object has no attribute 'items'" and "could not convert string to float"."""
    with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
        mitigation.pareto_front(points, objectives)


COHORT = pd.DataFrame({"subject": ["x"] * 4 + ["y"] * 4,
                       "score": [0.1, 0.3, 0.2, 0.25, 0.0, 0.5, 0.25, 0.375]})
TRIALS = pd.DataFrame({"score": [0.4, 0.05, 0.3], "mated": [True, False, False],
                       "reference_subject": ["x", "x", "y"], "probe_subject": ["x", "y", "x"]})


@pytest.mark.parametrize("k", [-1000, -600, -520, 520, 600, 1000, 1023])
def test_cohort_normalisation_at_any_scale(k):
    """(s - mu) / sigma does not depend on the unit of the scores. At 2^-600 every squared
    deviation underflowed: std 0, every subject dropped from the statistics, and
    normalise_scores found none; at 2^600 they overflowed: std inf."""
    statistics = normalisation.cohort_statistics(COHORT, min_size=2)
    scaled = normalisation.cohort_statistics(COHORT.assign(score=np.ldexp(COHORT["score"], k)), min_size=2)
    assert scaled.index.tolist() == ["x", "y"]
    assert (scaled["mean"] == np.ldexp(statistics["mean"], k)).all()
    assert (scaled["std"] == np.ldexp(statistics["std"], k)).all()
    assert (scaled["n"] == 4).all()
    for method in "zts":
        expected = normalisation.normalise_scores(TRIALS, statistics, method=method)
        got = normalisation.normalise_scores(TRIALS.assign(score=np.ldexp(TRIALS["score"], k)), scaled, method=method)
        assert got["score"].tolist() == expected["score"].tolist()


def test_cohort_scores_that_are_not_there():
    """A string cohort was read as its letters ({'c', '1'}) and no comparison touching the
    cohort gave "score is empty: at least one comparison score is needed"; a missing
    column was pandas' KeyError."""
    cross = pd.DataFrame({"score": [0.1, 0.3], "mated": [False, False],
                          "reference_subject": ["c1", "x"], "probe_subject": ["x", "c2"]})
    with pytest.raises(TypeError, match=r"^cohort_subjects must be a collection of subjects, e\.g\. \{'c1', 'c2'\}, "
                                        r"got 'c1'$"):
        normalisation.cohort_scores(cross, "c1")
    with pytest.raises(ValueError, match=r"^no comparison of cross has exactly one side among the 1 cohort subject: "
                                         r"there is no cohort score \(is cross the table of cross comparisons of the "
                                         r"split\?\)$"):
        normalisation.cohort_scores(cross, {"z"})
    with pytest.raises(ValueError, match=r"^cross lacks the column\(s\) \['probe_subject'\]: give non-mated "
                                         r"comparisons with both subjects$"):
        normalisation.cohort_scores(cross.drop(columns="probe_subject"), {"c1"})
    # labels cast with astype(bool): "no" was a mated comparison, None a non-mated one (a helper's audit)
    # (and categories, "got dtype category", without their labels)
    for labels, problem in (
            (pd.Series(["no", "no"]), "must be boolean, got text ('no') (dtype str): convert it, table['mated'] = "
                                      "table['mated'].eq(<the label of mated comparisons>)"),
            (pd.Categorical(["impostor", "impostor"]), "must be boolean, got text ('impostor') (dtype category): "
                                                       "convert it, table['mated'] = table['mated'].eq("),
            (pd.Series([None, False], dtype=object), "has 1 missing value (first in row 0): every comparison is mated "
                                                     "or not")):
        with pytest.raises(ValueError, match="^" + re.escape(f"cross's column 'mated' {problem}")):
            normalisation.cohort_scores(cross.assign(mated=labels), {"c1", "c2"})
    with pytest.raises(ValueError, match=r"^a cohort holds impostors only: cross has 1 mated comparison$"):
        normalisation.cohort_scores(cross.assign(mated=[True, False]), {"c1", "c2"})


def test_thresholds_and_calibrations_of_the_wrong_kind():
    """Were "'list' object has no attribute 'keys'" and "'int' object has no attribute 'scale'"."""
    table = subjects_table()
    with pytest.raises(TypeError, match=r"^thresholds must map each group to its threshold \(or be the table of "
                                        r"group_thresholds\), got list$"):
        mitigation.rates_at_group_thresholds(table, [0.5, 0.6])
    with pytest.raises(TypeError, match=r"^calibrations must map each group to its LogisticCalibration \(as "
                                        r"fit_group_calibration returns them\); got \{'a': 'int'\}$"):
        mitigation.apply_group_calibration(table, {"a": 1, "b": bf.LogisticCalibration(1.0, 0.0, 0.5)})


def test_group_calibration_names_the_group_it_cannot_fit():
    """The error of fit_logistic_calibration came without the group: "all 10 scores equal
    1.0: they hold no evidence to calibrate", for one group of two."""
    table = subjects_table().assign(score=lambda t: np.where(t["group"] == "b", 1.0, t["score"]))
    table.loc[table["group"] == "a", "score"] = [0.5, 0.0, 0.2, 0.4, 0.3, 0.1, 0.4, 0.2, 0.3, 0.3]  # overlapping
    with pytest.raises(ValueError, match=r"^group 'b': all 10 scores equal 1\.0: they hold no evidence to calibrate$"):
        mitigation.fit_group_calibration(table)
    with pytest.raises(ValueError, match=r"^group 'a': one threshold separates mated and non-mated scores"):
        mitigation.fit_group_calibration(subjects_table())  # mated 1 ... 5 above non-mated 0 ... 0.4


def test_calibrations_keyed_by_numbers_for_text_groups():
    """As for thresholds: "no calibration for the groups ['1', '2']" and nothing more."""
    table = subjects_table().assign(group=lambda t: t["group"].map({"a": 1, "b": 2}))
    maps = {1: bf.LogisticCalibration(1.0, 0.0, 0.5), 2: bf.LogisticCalibration(1.0, 0.0, 0.5)}
    with pytest.raises(ValueError, match="^" + re.escape(
            "no calibration for the groups ['1', '2']; calibrations are given for [1, 2], which the scores do not "
            "have (group names are text, as fit_group_calibration returns them)") + "$"):
        mitigation.apply_group_calibration(table, maps)
