"""Checks of the tables and groups the public functions take: blank group labels, a
ScoresByGroup changed after construction, inputs that are no pandas DataFrame, and the
messages of a ``mated`` or ``score`` column of the wrong kind (found by an audit of the API)."""

from __future__ import annotations

import copy
import pickle
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import biofair as bf
import biofair.mitigation as mitigation
from biofair.groups import _factorized

# -- blank group labels: missing, as the file readers read them --------------------------------

#: Rows 0-299; subject i // 6 has the label of (i // 6) % 3: "a", "b" or a blank one. A fifth
#: of each subject's rows are mated.
N_ROWS = 300
SUBJECT = np.arange(N_ROWS) // 6
MATED = np.arange(N_ROWS) % 5 == 0
BLANK = SUBJECT % 3 == 2
N_BLANK, FIRST_BLANK = int(np.count_nonzero(BLANK)), int(np.flatnonzero(BLANK)[0])  # 96, row 12


def table_with(blank: str, dtype: str) -> pd.DataFrame:
    """A score table whose group label is ``blank`` on every third subject's rows."""
    rng = np.random.default_rng(0)
    labels = pd.Series(np.array(["a", "b", blank], dtype=object)[SUBJECT % 3]).astype(dtype)
    return pd.DataFrame({
        "score": rng.normal(size=N_ROWS) + 2 * MATED, "mated": MATED, "group": labels,
        "reference_subject": SUBJECT.astype(str),
        "probe_subject": np.where(MATED, SUBJECT, SUBJECT + 1000).astype(str),
    })


def per_side(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(reference_group=table["group"], probe_group=table["group"]).drop(columns="group")


#: Every public function that groups a table, on a table with a blank label.
GROUPING_CALLS = {
    "scores_by_group": bf.scores_by_group,
    "group_labels": bf.group_labels,
    "group_sizes": bf.group_sizes,
    "rates_by_group": lambda t: bf.rates_by_group(t, 0.0),
    "fairness_discrepancy_rate": lambda t: bf.fairness_discrepancy_rate(t, fmr_targets=[0.1]),
    "outcome_fairness": lambda t: bf.outcome_fairness(t, fmr=0.1),
    "distribution_fairness_index": bf.distribution_fairness_index,
    "comprehensive_equity_index": bf.comprehensive_equity_index,
    "automatic_comprehensive_equity_index": bf.automatic_comprehensive_equity_index,
    "calibration_by_group": bf.calibration_by_group,
    "differential_report": lambda t: bf.differential_report(t, fmr=0.1, n_resamples=40, rng=0),
    "fairness_summary": lambda t: bf.fairness_summary(t, n_resamples=40, n_permutations=5, rng=0),
    "bootstrap(strata=)": lambda t: bf.bootstrap(bf.roc_auc, t, strata="group", n_resamples=40, rng=0),
    "permutation_null": lambda t: bf.permutation_null(lambda s: 0.0, t, n_permutations=5, rng=0),
    "subset_performance": lambda t: bf.subset_performance(t, n_subsets=3, size=10, rng=0),
    "fit_group_calibration": mitigation.fit_group_calibration,
    "group_thresholds": lambda t: mitigation.group_thresholds(t, 0.1),
    "apply_group_calibration": lambda t: mitigation.apply_group_calibration(
        t, {name: bf.LogisticCalibration(1.0, 0.0, 0.5) for name in pd.unique(t["group"].astype(str))}),
}
DTYPES = ["object", "str", "string[pyarrow]", "category"]


def blank_error(column: str, n: int, first: int) -> str:
    return re.escape(f"missing group labels: column {column!r} has {n} missing values (first in row {first}), "
                     f"{n} of them blank (empty or white space only); those comparisons would have no group")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("call", GROUPING_CALLS)
def test_every_grouping_refuses_blank_labels(call, dtype):
    """Before: "" (e.g. after .fillna("")) formed a group '' of its own in every index."""
    table = table_with("", dtype)
    with pytest.raises(bf.SchemaError, match=blank_error("group", N_BLANK, FIRST_BLANK)):
        GROUPING_CALLS[call](table)


@pytest.mark.parametrize("blank", ["", " ", "\t", "  \n"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_white_space_only_labels_are_blank_too(blank, dtype):
    with pytest.raises(bf.SchemaError, match=blank_error("group", N_BLANK, FIRST_BLANK)):
        bf.scores_by_group(table_with(blank, dtype))


@pytest.mark.parametrize("call", ["group_labels", "group_sizes", "cross_group_fmr", "differential_report"])
def test_per_side_labels_are_checked_on_each_side(call):
    table = per_side(table_with(" ", "str"))
    table["probe_group"] = table["probe_group"].replace(" ", "a")  # blank on the reference side only
    calls = {**GROUPING_CALLS, "cross_group_fmr": lambda t: bf.cross_group_fmr(t, 0.0)}
    # every call counts the whole column (cross_group_fmr counted its non-mated rows only, and refused the others too)
    n, first = int(np.count_nonzero(BLANK)), int(np.flatnonzero(BLANK)[0])
    with pytest.raises(bf.SchemaError, match=blank_error("reference_group", n, first)):
        calls[call](table)


def test_the_fix_names_the_column_without_labels():
    """Blank on the probe side only: the fix named reference_group, which has every label."""
    table = per_side(table_with("", "object"))
    table["reference_group"] = table["reference_group"].replace("", "a")
    with pytest.raises(bf.SchemaError) as error:
        bf.group_sizes(table)
    assert str(error.value).endswith("e.g. scores.replace({'probe_group': r'^\\s*$'}, 'unknown', "
                                     "regex=True).fillna({'probe_group': 'unknown'})")


def test_missing_and_blank_labels_are_counted_together_with_a_fix_that_works():
    """In a column that is no canonical group column (validate_scores refuses missing values
    in those first, and counts only them)."""
    table = table_with("", "str").rename(columns={"group": "gender"})
    table.loc[[3, 7], "gender"] = None
    with pytest.raises(bf.SchemaError) as error:
        bf.scores_by_group(table, by="gender")
    message = str(error.value)
    assert message.startswith(f"missing group labels: column 'gender' has {N_BLANK + 2} missing values (first in "
                              f"row 3), {N_BLANK} of them blank (empty or white space only); those comparisons")
    fix = "scores.replace({'gender': r'^\\s*$'}, 'unknown', regex=True).fillna({'gender': 'unknown'})"
    assert message.endswith(f"or fill them yourself, e.g. {fix}")
    fixed = eval(fix, {"scores": table})  # the advice, as the message gives it
    groups = bf.scores_by_group(fixed, by="gender")
    unknown = BLANK | np.isin(np.arange(N_ROWS), [3, 7])
    assert list(groups) == ["a", "b", "unknown"]
    np.testing.assert_array_equal(groups["unknown"].mated, np.sort(table["score"][unknown & MATED]))
    np.testing.assert_array_equal(groups["unknown"].nonmated, np.sort(table["score"][unknown & ~MATED]))


def test_the_data_frame_path_counts_what_the_file_reader_counts(tmp_path):
    """The reader reads blank labels as missing: an error, or the group '(missing)'."""
    table = table_with("  ", "object")
    path = tmp_path / "scores.csv"
    table.to_csv(path, index=False)
    with pytest.raises(bf.SchemaError, match=rf"column 'group' has {N_BLANK} missing values \(first in data row "
                                             rf"{FIRST_BLANK + 1}\)"):
        bf.read_grouped_scores(path)
    read = bf.read_grouped_scores(path, missing_groups="group")
    assert read.attrs["missing_groups"] == {"group": N_BLANK}
    with pytest.raises(bf.SchemaError, match=blank_error("group", N_BLANK, FIRST_BLANK)):
        bf.scores_by_group(table)
    relabelled = table.replace({"group": r"^\s*$"}, "(missing)", regex=True)
    for name, scores in bf.scores_by_group(relabelled).items():
        np.testing.assert_array_equal(scores.mated, bf.scores_by_group(read)[name].mated)


def test_an_unused_blank_category_forms_no_group_and_is_no_error():
    table = table_with("b", "str").astype({"group": pd.CategoricalDtype(["", "a", "b"])})
    assert list(bf.scores_by_group(table)) == ["a", "b"]


def test_a_blank_label_is_a_missing_one_for_the_strata_of_a_subject_split():
    """subject_disjoint_split(stratify=) puts the subjects without a label in a stratum of their
    own: those with a blank label are among them, as they are missing."""
    blank, missing = table_with(" ", "object"), table_with("", "object")
    missing.loc[SUBJECT % 3 == 2, "group"] = None
    missing.loc[SUBJECT == 2, "group"] = "  "  # one subject blank, the others missing: one stratum
    for table in (blank, missing):
        split = mitigation.subject_disjoint_split(table, stratify="group", rng=0)
        reference = mitigation.subject_disjoint_split(table.assign(group=table["group"].where(
            table["group"].str.strip().ne(""))), stratify="group", rng=0)
        assert split.dev_subjects == reference.dev_subjects


def test_labels_of_mixed_types_keep_missing_rows_missing():
    """Labels of several types (1 and "x") are ordered by their text; a missing label was
    given the code of the last label instead of -1 (subject_disjoint_split's strata)."""
    codes, names = _factorized(pd.Series([1, "x", None, "x", " ", 1]), ["c"])
    assert names == ["1", "x"]
    np.testing.assert_array_equal(codes, [0, 1, -1, 1, -1, 0])


# -- a ScoresByGroup cannot change after construction --------------------------------------------

A, B = np.array([0.6, 0.8, 0.9]), np.array([0.1, 0.3, 0.7])


def three_groups() -> bf.ScoresByGroup:
    return bf.ScoresByGroup({"a": bf.GroupScores(A, B), "b": bf.GroupScores(A - 0.1, B + 0.1),
                             "c": bf.GroupScores(A, B)}, by="group")


CHANGES = {
    "setitem": lambda g: g.__setitem__("c", bf.GroupScores(A[::-1], B)),
    "delitem": lambda g: g.__delitem__("b"),
    "update": lambda g: g.update(c=(A, B)),
    "pop": lambda g: g.pop("a"),
    "popitem": lambda g: g.popitem(),
    "clear": lambda g: g.clear(),
    "setdefault": lambda g: g.setdefault("d", (A, B)),
    "|=": lambda g: g.__ior__({"d": (A, B)}),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_score_by_group_cannot_change(change):
    """Before: an unsorted group added later gave FDR 0.8333 for 1.0, a plain tuple an
    AttributeError deep inside, and pooled_nonmated went stale."""
    groups = three_groups()
    pooled = groups.pooled_nonmated.copy()
    with pytest.raises(TypeError, match=r"^a ScoresByGroup cannot be changed: .* Make another one, e\.g\. "
                                        r"bf\.scores_by_group\(table\[\.\.\.\], by=\.\.\.\) or bf\.ScoresByGroup\("):
        CHANGES[change](groups)
    assert list(groups) == ["a", "b", "c"]
    np.testing.assert_array_equal(groups.pooled_nonmated, pooled)
    np.testing.assert_array_equal(np.sort(np.r_[B, B + 0.1, B]), pooled)
    assert bf.fairness_discrepancy_rate(groups, fmr_targets=[0.34])["fdr"].item() == 1.0
    with pytest.raises(AttributeError, match=r"^property 'by' of 'ScoresByGroup' object has no setter$"):
        groups.by = "gender"
    assert groups.by == "group"


def test_a_score_by_group_is_copied_and_pickled_whole():
    groups = three_groups()
    for copied in (copy.copy(groups), copy.deepcopy(groups), pickle.loads(pickle.dumps(groups))):
        assert type(copied) is bf.ScoresByGroup and copied.by == "group" and list(copied) == ["a", "b", "c"]
        for name in groups:
            np.testing.assert_array_equal(copied[name].mated, groups[name].mated)
            np.testing.assert_array_equal(copied[name].nonmated, groups[name].nonmated)
        np.testing.assert_array_equal(copied.pooled_nonmated, groups.pooled_nonmated)


@pytest.mark.parametrize(("value", "found"), [
    ((A, B), "group 'c': expected a GroupScores(np.sort(mated), np.sort(nonmated)) of float arrays, got a tuple of 2"),
    ([A, B], "group 'c': expected a GroupScores(np.sort(mated), np.sort(nonmated)) of float arrays, got a list of 2"),
    (bf.GroupScores(np.array([1, 2, 3]), B),
     "group 'c': mated scores must be a 1-D float array (np.sort(np.asarray(scores, dtype=float))), got a 1-D "
     "int64 array"),
    (bf.GroupScores(A, [0.1, 0.2]),
     "group 'c': nonmated scores must be a 1-D float array (np.sort(np.asarray(scores, dtype=float))), got a list "
     "of 2"),
    (bf.GroupScores(A[None], B),
     "group 'c': mated scores must be a 1-D float array (np.sort(np.asarray(scores, dtype=float))), got a 2-D "
     "float64 array"),
])
def test_groups_built_by_hand_say_what_they_hold(value, found):
    """Before: a tuple was "got NoneType", an array of integers "got ndarray"."""
    with pytest.raises(bf.SchemaError) as error:
        bf.ScoresByGroup({"a": bf.GroupScores(A, B), "b": bf.GroupScores(A, B), "c": value}, by="group")
    assert str(error.value) == f"cannot compare groups:\n- {found}"


# -- tables that are no pandas DataFrame, or whose columns share a name --------------------------

TABLE = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3], "mated": [True, False, True, False], "group": ["a", "a", "b", "b"]})


class FakePolarsFrame:
    """Stands for a polars DataFrame (not installed here): named as polars names its class."""

    __module__ = "polars.dataframe.frame"
    __qualname__ = "DataFrame"

    def to_pandas(self) -> pd.DataFrame:
        return TABLE


@pytest.mark.parametrize("function", [bf.group_labels, bf.scores_by_group, bf.group_sizes, bf.validate_scores])
@pytest.mark.parametrize(("scores", "error", "message"), [
    (pd.concat([TABLE, TABLE[["group"]]], axis=1), bf.SchemaError,
     "invalid score table:\n- duplicate column name(s): ['group']"),
    (pa.Table.from_pandas(TABLE), TypeError,
     "scores must be a pandas DataFrame, got pyarrow.Table: convert it with scores.to_pandas()"),
    (FakePolarsFrame(), TypeError,
     "scores must be a pandas DataFrame, got polars.DataFrame: convert it with scores.to_pandas()"),
    (TABLE.to_dict("list"), TypeError, "scores must be a pandas DataFrame, got dict: make one with pd.DataFrame(scores)"),
    (TABLE.to_numpy(), TypeError, "scores must be a pandas DataFrame, got numpy.ndarray"),
])
def test_what_is_no_score_table_is_named_with_the_way_to_one(function, scores, error, message):
    """Before: group_labels raised pandas' AttributeError for duplicate columns and a dict, and
    TypeError unhashable for a pyarrow Table; the others said "got DataFrame" of polars'."""
    if function is bf.scores_by_group:  # which takes a ScoresByGroup too
        message = message.replace("a pandas DataFrame", "a pandas DataFrame or a biofair.ScoresByGroup")
    with pytest.raises(error) as raised:
        function(scores)
    assert str(raised.value) == message
    if hasattr(scores, "to_pandas"):
        pd.testing.assert_series_equal(bf.group_labels(scores.to_pandas()), TABLE["group"])


@pytest.mark.parametrize(("call", "message"), [
    (lambda bad: bf.mitigation.group_thresholds(bad, 0.1), "dev must be a pandas DataFrame or a biofair.ScoresByGroup"),
    (lambda bad: bf.mitigation.fit_group_calibration(bad), "dev must be a pandas DataFrame or a biofair.ScoresByGroup"),
    (lambda bad: bf.fairness_discrepancy_rate(TABLE, dev=bad),
     "dev must be a pandas DataFrame or a biofair.ScoresByGroup"),
    (lambda bad: bf.fairness_discrepancy_rate(bad), "scores must be a pandas DataFrame or a biofair.ScoresByGroup"),
    (lambda bad: bf.differential_report(bad, by="group"), "table must be a pandas DataFrame"),
])
def test_what_is_no_table_is_called_by_its_argument_name(call, message):
    """Before: every one of these said "scores must be a pandas DataFrame", of a ``dev`` or a
    ``table``, and not that a ScoresByGroup is taken where it is."""
    with pytest.raises(TypeError) as raised:
        call(TABLE.to_dict("list"))
    assert str(raised.value) == f"{message}, got dict: make one with pd.DataFrame({message.split()[0]})"


# -- a 'mated' or 'score' column of the wrong kind: what it holds, and how to convert it ---------


def only_problem(table: pd.DataFrame) -> str:
    with pytest.raises(bf.SchemaError) as error:
        bf.validate_scores(table)
    head, problem = str(error.value).split("\n- ")
    assert head == "invalid score table:"
    return problem


@pytest.mark.parametrize(("mated", "problem", "converted"), [
    (pd.array([pd.NA, False, True, pd.NA], dtype="boolean"),
     "column 'mated' has 2 missing values (first in row 0): every comparison is mated or not; fill them in, or "
     "drop those rows (table.dropna(subset=['mated']))",
     lambda t: t.dropna(subset=["mated"]).astype({"mated": bool})),
    (["yes", "no", "yes", "no"],
     "column 'mated' must be boolean, got text ('no', 'yes') (dtype str): convert it, table['mated'] = "
     "table['mated'].eq(<the label of mated comparisons>) (read_scores reads the usual labels of a file, such as "
     "yes/no or genuine/impostor)",
     lambda t: t.assign(mated=t["mated"].eq("yes"))),
    ([1, 0, 1, 0],
     "column 'mated' must be boolean, got 0 and 1 (dtype int64): convert it, table['mated'] = table['mated'].eq(1), "
     "if 1 marks a mated comparison",
     lambda t: t.assign(mated=t["mated"].eq(1))),
    ([1.0, 0.0, 1.0, 0.0],
     "column 'mated' must be boolean, got 0 and 1 (dtype float64): convert it, table['mated'] = "
     "table['mated'].eq(1), if 1 marks a mated comparison",
     lambda t: t.assign(mated=t["mated"].eq(1))),
    (pd.Series([True, False, True, False], dtype=object),
     "column 'mated' must be boolean, got Python booleans (dtype object): convert it, table['mated'] = "
     "table['mated'].astype(bool)",
     lambda t: t.assign(mated=t["mated"].astype(bool))),
    ([2, 0, 1, 0], "column 'mated' must be boolean, got dtype int64", None),
    # categories (pandas' read of a dictionary-encoded Parquet column): named by their labels, as text
    # or numbers are (it was only "got dtype category")
    (pd.Categorical(["genuine", "impostor", "genuine", "impostor"]),
     "column 'mated' must be boolean, got text ('genuine', 'impostor') (dtype category): convert it, table['mated'] = "
     "table['mated'].eq(<the label of mated comparisons>) (read_scores reads the usual labels of a file, such as "
     "yes/no or genuine/impostor)",
     lambda t: t.assign(mated=t["mated"].eq("genuine"))),
    (pd.Categorical(["true", "false", "true", "false"]),
     "column 'mated' must be boolean, got text ('false', 'true') (dtype category): convert it, table['mated'] = "
     "table['mated'].eq(<the label of mated comparisons>) (read_scores reads the usual labels of a file, such as "
     "yes/no or genuine/impostor)",
     lambda t: t.assign(mated=t["mated"].eq("true"))),
    (pd.Categorical([1, 0, 1, 0]),
     "column 'mated' must be boolean, got 0 and 1 (dtype category): convert it, table['mated'] = "
     "table['mated'].eq(1), if 1 marks a mated comparison",
     lambda t: t.assign(mated=t["mated"].eq(1))),
    (pd.Categorical([2, 0, 1, 0]), "column 'mated' must be boolean, got dtype category", None),
])
def test_a_mated_column_of_another_kind_is_named_with_its_conversion(mated, problem, converted):
    """Before: each was "column 'mated' must be boolean with no missing values, got dtype ..."."""
    table = TABLE.assign(mated=mated)
    assert only_problem(table) == problem
    if converted is not None:  # the advice makes a valid table of the intended labels
        fixed = converted(table)
        assert bf.validate_scores(fixed) is fixed
        np.testing.assert_array_equal(fixed["mated"], TABLE["mated"][fixed.index])


@pytest.mark.parametrize(("score", "problem"), [
    (["0.9", "0.2", "0.8", "0.3"],
     "column 'score' must be numeric, got numbers written as text (dtype str): convert it, table['score'] = "
     "pd.to_numeric(table['score'])"),
    (pd.Series([0.9, None, 0.8, 0.3], dtype=object),
     "column 'score' must be numeric, got numbers as Python objects (dtype object), 1 of them missing (first in "
     "row 1): convert it, table['score'] = pd.to_numeric(table['score']), and drop the rows without a score or give "
     "them one"),
    (pd.Series(["0.9", 0.2, None, None], dtype=object),
     "column 'score' must be numeric, got numbers, some written as text (dtype object), 2 of them missing (first "
     "in row 2): convert it, table['score'] = pd.to_numeric(table['score']), and drop the rows without a score or "
     "give them one"),
    (pd.Series([None] * 4, dtype=object), "column 'score' must be numeric, got only missing values (dtype object)"),
])
def test_a_score_column_of_numbers_that_is_not_numeric_says_how_to_convert_it(score, problem):
    """Before: "column 'score' must be numeric, got dtype ...", with no count of the missing scores."""
    table = TABLE.assign(score=score)
    assert only_problem(table) == problem
    if "pd.to_numeric" in problem:
        converted = table.assign(score=pd.to_numeric(table["score"]))
        np.testing.assert_array_equal(converted["score"].dropna(), TABLE["score"][converted["score"].notna()])
