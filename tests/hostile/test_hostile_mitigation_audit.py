"""Hostile inputs to chapter 12's functions found by its audits: biofair's error, not a wrong result."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair import mitigation
from biofair.exceptions import SchemaError


def test_pareto_front_of_points_that_are_not_a_table():
    """Was pandas' "'dict' object has no attribute 'columns'"."""
    with pytest.raises(TypeError, match="^" + re.escape(
            "points must be a DataFrame with one column per objective, got dict") + "$"):
        mitigation.pareto_front({"x": [1.0, 2.0]}, {"x": "min"})


def test_pareto_front_of_complex_objectives():
    """Complex numbers were cast to float64 with a ComplexWarning and compared by their real part:
    1+5j and 1 were a tie."""
    points = pd.DataFrame({"x": [1 + 5j, 1 + 0j], "y": [0.0, 1.0]})
    with pytest.raises(TypeError, match="^" + re.escape(
            "objective columns must hold real numbers; ['x'] hold complex ones, which have no order: give their "
            "real part or modulus") + "$"):
        mitigation.pareto_front(points, {"x": "min", "y": "min"})


# -- the split, the calibration's group columns, thresholds and statistics (a later audit) ---------

def one_subject_per_gender(n_subjects: int) -> pd.DataFrame:
    """Mated and non-mated comparisons of ``n_subjects`` subjects, each of a gender of its own."""
    subjects = [f"s{i}" for i in range(n_subjects)]
    pairs = [(a, b) for a in subjects for b in subjects]
    return pd.DataFrame({"score": np.linspace(0, 1, len(pairs)), "mated": [a == b for a, b in pairs],
                         "reference_subject": [a for a, _ in pairs], "probe_subject": [b for _, b in pairs],
                         "reference_gender": [f"g{a}" for a, _ in pairs], "probe_gender": [f"g{b}" for _, b in pairs]})


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.8])
@pytest.mark.parametrize("n_subjects", [2, 3, 7])
def test_a_split_stratified_by_groups_of_one_subject_keeps_both_sides(fraction, n_subjects):
    """Each group of one subject went to the side its own rounding of one gave, the same for
    all of them: every subject in evaluation at 0.5 or below, all in development above,
    leaving the other side empty without a word. They are now drawn together."""
    table = one_subject_per_gender(n_subjects)
    for seed in range(5):
        split = mitigation.subject_disjoint_split(table, dev_fraction=fraction, stratify="gender", rng=seed)
        assert split.dev_subjects and split.eval_subjects
        assert len(split.dev_subjects) == min(max(round(fraction * n_subjects), 1), n_subjects - 1)
        assert len(split.dev) + len(split.eval) + len(split.cross) == len(table)


def test_a_split_refuses_a_mated_comparison_of_two_subjects():
    """A mated row of subjects a and b went into ``cross``, which its docstring says holds no
    mated comparison; validate_scores refuses the same table."""
    table = one_subject_per_gender(3)
    table.loc[1, "mated"] = True  # s0 against s1
    message = ("invalid score table:\n- 1 row has 'mated' contradicting reference_subject == probe_subject, "
               "e.g. row 1 (mated True, subjects 's0' and 's1')")
    with pytest.raises(SchemaError, match="^" + re.escape(message) + "$"):
        mitigation.subject_disjoint_split(table, rng=0)
    with pytest.raises(SchemaError, match="^" + re.escape(message) + "$"):
        bf.validate_scores(table)


@pytest.mark.parametrize("labels", ["booleans", "0/1"])
def test_a_split_checks_mated_whatever_its_labels(labels):
    """With ``mated`` as 0/1 the check above was skipped: the mated row of s0 and s1 went into
    ``cross`` without a word (4 dev, 1 eval and 4 cross rows of 9 at rng=0, one of them mated).
    ``mated`` is now read as everywhere in the package: booleans are checked; 0/1 are refused
    with their conversion, after which the contradiction is found as for booleans."""
    table = one_subject_per_gender(3)
    table.loc[1, "mated"] = True  # s0 against s1
    contradiction = ("invalid score table:\n- 1 row has 'mated' contradicting reference_subject == probe_subject, "
                     "e.g. row 1 (mated True, subjects 's0' and 's1')")
    if labels == "0/1":
        table["mated"] = table["mated"].astype(int)
        with pytest.raises(SchemaError, match="^" + re.escape(
                "invalid score table:\n- column 'mated' must be boolean, got 0 and 1 (dtype int64): convert it, "
                "table['mated'] = table['mated'].eq(1), if 1 marks a mated comparison") + "$"):
            mitigation.subject_disjoint_split(table, rng=0)
        table["mated"] = table["mated"].eq(1)  # the conversion the message gives
    with pytest.raises(SchemaError, match="^" + re.escape(contradiction) + "$"):
        mitigation.subject_disjoint_split(table, rng=0)
    table.loc[1, "mated"] = False  # consistent: split, every row kept
    split = mitigation.subject_disjoint_split(table, rng=0)
    assert len(split.dev) + len(split.eval) + len(split.cross) == len(table)
    assert not split.cross["mated"].any()

def test_calibration_is_applied_to_the_groups_it_was_fitted_on():
    """With a pair-level 'group' and reference_group/probe_group, the fit read the pair-level
    column (as group_labels does) and the application the two sides: a comparison of pair group
    'a' whose probe side says 'b' got the mean of both maps. Columns that disagree are now
    refused by both; columns that agree give one answer, whichever is read."""
    table = pd.DataFrame({"score": [1.0, 1.0, 1.0], "mated": [True, False, False], "group": ["a", "a", "a"],
                          "reference_group": ["a", "a", "a"], "probe_group": ["a", "a", "b"]})
    maps = {"a": bf.LogisticCalibration(2.0, 0.0, 0.5), "b": bf.LogisticCalibration(1.0, -1.0, 0.5)}
    with pytest.raises(SchemaError, match="disagree in 1 row "):
        mitigation.apply_group_calibration(table, maps)
    sides = table.drop(columns="group")  # the sides alone: the mean of both maps across groups
    assert mitigation.apply_group_calibration(sides, maps)["score"].tolist() == [2.0, 2.0, 1.0]
    agreeing = table.iloc[:2]
    assert (mitigation.apply_group_calibration(agreeing, maps)["score"].tolist()
            == mitigation.apply_group_calibration(agreeing.drop(columns="group"), maps)["score"].tolist() == [2.0, 2.0])


def test_calibration_by_a_pair_level_and_a_per_side_attribute():
    """'no calibration for the groups ['(missing)']' for a pair whose sides differ in age, where
    the docstring promises the mean of the two groups' LLRs."""
    table = pd.DataFrame({"score": [1.0, 1.0], "mated": [True, False], "group": ["a", "a"],
                          "reference_age": ["young", "young"], "probe_age": ["young", "old"]})
    maps = {"a / young": bf.LogisticCalibration(2.0, 0.0, 0.5), "a / old": bf.LogisticCalibration(1.0, -1.0, 0.5)}
    assert mitigation.apply_group_calibration(table, maps, by=["group", "age"])["score"].tolist() == [2.0, 1.0]


def test_calibration_names_the_column_and_row_of_a_missing_side_label():
    """Was "column 'gender' has 1 missing values (first in row 4)", a column and a row the
    table does not have, with a fillna that changed nothing."""
    table = pd.DataFrame({"score": [1.0, 1.0, 0.5], "mated": [True, False, False],
                          "reference_gender": ["f", "f", "m"], "probe_gender": ["f", None, "m"]},
                         index=["t1", "t2", "t3"])
    maps = {"f": bf.LogisticCalibration(2.0, 0.0, 0.5), "m": bf.LogisticCalibration(1.0, -1.0, 0.5)}
    with pytest.raises(SchemaError, match=re.escape("column 'probe_gender' has 1 missing value (first in row 't2')")):
        mitigation.apply_group_calibration(table, maps, by="gender")


def test_thresholds_that_name_a_group_twice():
    """Was "the threshold of group 'a' must be a number, got a 0.5 / a 0.6"."""
    table = pd.DataFrame({"score": [0.9, 0.1, 0.8, 0.2], "mated": [True, False] * 2, "group": ["a", "a", "b", "b"]})
    with pytest.raises(ValueError, match="^" + re.escape(
            "thresholds name the group(s) 'a' more than once: give each group one threshold") + "$"):
        mitigation.rates_at_group_thresholds(table, pd.Series([0.5, 0.6, 0.5], index=["a", "a", "b"]))


def test_cohort_statistics_with_a_multiindex():
    """Was pyarrow's "Expected bytes, got a 'int' object"."""
    statistics = pd.DataFrame({"mean": [0.0, 1.0], "std": [1.0, 2.0]},
                              index=pd.MultiIndex.from_tuples([("a", 1), ("b", 1)]))
    table = pd.DataFrame({"score": [3.0, 0.0], "mated": [False, True], "reference_subject": ["a", "b"],
                          "probe_subject": ["b", "b"]})
    with pytest.raises(ValueError, match="^" + re.escape(
            "statistics has a MultiIndex of 2 levels; its index must hold one key per row, as cohort_statistics "
            "gives it") + "$"):
        bf.normalisation.normalise_scores(table, statistics, method="s")


def test_subject_checks_of_what_is_not_a_table():
    """Was "'dict' object has no attribute 'columns'"; a blank shared id read "e.g.  "."""
    ids = {"reference_subject": ["a"], "probe_subject": ["b"]}
    with pytest.raises(TypeError, match="^dev must be a pandas DataFrame, got dict$"):
        mitigation.check_subject_disjoint(ids, ids)
    with pytest.raises(TypeError, match="^scores must be a pandas DataFrame, got dict$"):
        mitigation.subject_disjoint_split(ids)
    blank = pd.DataFrame({"reference_subject": [" "], "probe_subject": ["a"]})
    with pytest.raises(ValueError, match="^" + re.escape(
            "1 evaluation subject also in the development split, e.g. ' '") + "$"):
        mitigation.check_subject_disjoint(blank, blank.replace({"a": "b"}))
