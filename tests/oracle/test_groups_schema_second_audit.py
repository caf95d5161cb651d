"""Second audit of biofair/groups.py and biofair/schema.py at their edges: group and id
columns of pandas' nullable and Arrow dtypes (<NA>, which has no truth value, and NaN kept
apart from it), equal decimal labels written differently, a ScoresByGroup asked for its
grouping spelled otherwise, add_subject_attributes given other tables, and missing scores of
nullable dtypes. Every expectation is worked by hand, by a loop over the rows, or by the same
labels in an object or float64 column."""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.exceptions import SchemaError

pa = pytest.importorskip("pyarrow")

# -- a pair-level column beside both per-side columns, with missing labels -----------------------


def _three_columns(pair: list, reference: list, probe: list, dtype: str) -> pd.DataFrame:
    """Five comparisons grouped by 'gender', given three times: pair-level and per side."""
    return pd.DataFrame({
        "score": [0.9, 0.2, 0.8, 0.3, 0.5], "mated": [True, False, True, False, False],
        "gender": pd.array(pair, dtype=dtype), "reference_gender": pd.array(reference, dtype=dtype),
        "probe_gender": pd.array(probe, dtype=dtype),
    })


@pytest.mark.parametrize("dtype", ["string", "string[pyarrow]", "object"])
@pytest.mark.parametrize("call", [
    lambda table: bf.group_labels(table, by="gender"),
    lambda table: bf.scores_by_group(table, by="gender"),
    lambda table: bf.group_sizes(table, by="gender"),
    lambda table: bf.rates_by_group(table, 0.5, by="gender"),
])
def test_a_missing_pair_level_label_beside_labelled_sides_is_a_disagreement_in_every_dtype(dtype, call):
    """Row 4 has no pair-level label but sides 'f' / 'm': the columns disagree in 1 row, as an
    object column says. With a string column the comparison of <NA> with 'f' has no truth
    value, and every grouping failed with pandas' "TypeError: boolean value of NA is
    ambiguous" instead of naming the columns and the row."""
    table = _three_columns(["f", "f", "m", "m", None], ["f", "f", "m", "m", "f"], ["f", "f", "m", "m", "m"], dtype)
    with pytest.raises(SchemaError, match=r"disagree in 1 row \(first in row 4: (nan|<NA>) against 'f' / 'm'\)"):
        call(table)


@pytest.mark.parametrize("dtype", ["string", "string[pyarrow]", "object"])
def test_missing_side_labels_beside_a_labelled_pair_are_a_disagreement_in_every_dtype(dtype):
    table = _three_columns(["f", "f", "m", "m", "f"], ["f", "f", "m", "m", None], ["f", "f", "m", "m", None], dtype)
    with pytest.raises(SchemaError, match=r"disagree in 1 row \(first in row 4: 'f' against (nan|<NA>) / (nan|<NA>)\)"):
        bf.group_labels(table, by="gender")


@pytest.mark.parametrize("dtype", ["Int64", "string", "object"])
def test_a_row_missing_in_all_three_columns_is_a_missing_label_not_a_disagreement(dtype):
    labels = [1, 1, 2, 2, None] if dtype == "Int64" else ["1", "1", "2", "2", None]
    table = _three_columns(labels, labels, labels, dtype)
    with pytest.raises(SchemaError, match=r"missing group labels: column 'gender' has 1 missing value \(first in row 4\)"):
        bf.group_labels(table, by="gender")


@pytest.mark.parametrize("dtype", ["Int64", "string[pyarrow]"])
def test_three_agreeing_nullable_columns_group_as_an_object_column_does(dtype):
    labels = [1, 1, 2, 2, 1] if dtype == "Int64" else ["1", "1", "2", "2", "1"]
    table = _three_columns(labels, labels, labels, dtype)
    expected = bf.rates_by_group(table.astype({c: object for c in ("gender", "reference_gender", "probe_gender")}),
                                 0.5, by="gender")
    assert bf.rates_by_group(table, 0.5, by="gender").equals(expected)
    # by hand: group '1' has mated 0.9 and non-mated 0.2, 0.5; group '2' mated 0.8, non-mated 0.3
    assert expected[["group", "fmr", "fnmr"]].to_numpy().tolist() == [["1", 0.5, 0.0], ["2", 0.0, 0.0]]


# -- equal decimal labels written differently ---------------------------------------------------


@pytest.mark.parametrize("first", [Decimal("1"), Decimal("1.0")])
def test_equal_decimal_labels_written_differently_are_refused_as_true_and_1_are(first):
    """Decimal('1') == Decimal('1.0'): pandas made one group of them, named '1' or '1.0' after
    whichever row came first (group_labels gave ['1', '1', '2', '2'] for one order and
    ['1.0', '1.0', '2', '2'] for the other), where its docstring promises a SchemaError for
    equal labels written differently."""
    other = Decimal("1.0") if str(first) == "1" else Decimal("1")
    table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3], "mated": [True, False, True, False],
                          "group": [first, other, Decimal("2"), Decimal("2")]})
    with pytest.raises(SchemaError, match=r"equal labels written differently: Decimal\('1(\.0)?'\) \(Decimal\), "
                                          r"Decimal\('1(\.0)?'\) \(Decimal\)"):
        bf.group_labels(table)
    with pytest.raises(SchemaError, match="equal labels written differently"):
        bf.scores_by_group(table)


def test_per_side_decimal_columns_of_different_scales_are_refused():
    """reference_group of scale 1 and probe_group of scale 2: Decimal('1.0') and Decimal('1.00')
    were one group, named after the reference side's writing."""
    table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3], "mated": [True, False, True, False],
                          "reference_group": [Decimal("1.0"), Decimal("1.0"), Decimal("2.0"), Decimal("2.0")],
                          "probe_group": [Decimal("1.00"), Decimal("1.00"), Decimal("2.00"), Decimal("2.00")]})
    with pytest.raises(SchemaError, match="equal labels written differently"):
        bf.group_labels(table)


def test_decimal_labels_written_one_way_group_as_their_text():
    """One writing per label: groups '1.5' and '2.5' (by hand), in any row order; -0.0 and 0.0
    are one group '0.0', as for floats."""
    table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3, 0.7, 0.1], "mated": [True, False] * 3,
                          "group": [Decimal("2.5"), Decimal("2.5"), Decimal("1.5"), Decimal("1.5"),
                                    Decimal("-0.0"), Decimal("0.0")]})
    assert bf.group_labels(table).tolist() == ["2.5", "2.5", "1.5", "1.5", "0.0", "0.0"]
    assert bf.group_labels(table.iloc[::-1]).tolist() == ["0.0", "0.0", "1.5", "1.5", "2.5", "2.5"]


# -- NaN that Arrow and pandas' nullable floats keep apart from <NA> ------------------------------


def _nan_apart(values: list[float], dtype: str) -> pd.api.extensions.ExtensionArray:
    """Floats whose NaN stay NaN, not <NA> (as pd.read_parquet(..., dtype_backend='pyarrow')
    reads a float column holding NaN): ``isna`` is False there."""
    if dtype == "Float64":
        return pd.arrays.FloatingArray(np.array(values), np.zeros(len(values), dtype=bool))
    return pd.array(pa.array(values, from_pandas=False), dtype=pd.ArrowDtype(pa.float64()))



@pytest.mark.parametrize("dtype", ["double[pyarrow]", "Float64"])
@pytest.mark.parametrize("column", ["reference_subject", "probe_subject", "group", "system", "split"])
def test_nan_ids_and_labels_of_nullable_floats_are_missing_values_as_in_a_float64_column(dtype, column):
    """Rows 2 and 5 have no value: a float64 column says '2 missing values (first in row 2)';
    NaN of double[pyarrow] or Float64, which isna does not count, passed validate_scores."""
    values = [1.0, 1.0, np.nan, 2.0, 2.0, np.nan]
    table = pd.DataFrame({"score": np.arange(6.0), "mated": [True, False] * 3})
    table[column] = values
    with pytest.raises(SchemaError, match=rf"column '{column}' has 2 missing values \(first in row 2\)"):
        bf.validate_scores(table)
    table[column] = _nan_apart(values, dtype)
    assert not table[column].isna().any()  # what the old check read
    with pytest.raises(SchemaError, match=rf"column '{column}' has 2 missing values \(first in row 2; NaN, which a "
                                          rf"{re.escape(str(table[column].dtype))} column keeps apart from <NA>"):
        bf.validate_scores(table)
    assert bf.validate_scores(table.astype({column: float}).dropna()) is not None  # the advised conversion works


@pytest.mark.parametrize("dtype", ["double[pyarrow]", "Float64"])
def test_a_bootstrap_by_subject_refuses_comparisons_without_a_subject_id_in_every_float_dtype(dtype):
    """The 30 comparisons without a subject id (NaN in a double[pyarrow] column) were one
    subject of the resampling, and an interval was computed (0.704 to 0.831 here), where a
    float64 column of the same ids is refused."""
    rng = np.random.default_rng(0)
    subjects = rng.integers(0, 20, 200).astype(float)
    subjects[:30] = np.nan
    table = pd.DataFrame({"score": rng.normal(size=200) + np.r_[np.ones(60), np.zeros(140)],
                          "mated": np.r_[np.ones(60, dtype=bool), np.zeros(140, dtype=bool)],
                          "reference_subject": _nan_apart(subjects.tolist(), dtype)})
    with pytest.raises(SchemaError, match="column 'reference_subject' has 30 missing values"):
        bf.bootstrap(bf.roc_auc, table, unit="subject", n_resamples=50, rng=0)


def test_nan_labels_of_arrow_floats_are_not_called_blank():
    """NaN labels of a double[pyarrow] attribute are missing, not 'blank (empty or white space
    only)' as they were called; a blank text label still is."""
    table = pd.DataFrame({"score": np.arange(6.0), "mated": [True, False] * 3,
                          "age": _nan_apart([1.0, 1.0, np.nan, 2.0, 2.0, np.nan], "double[pyarrow]")})
    with pytest.raises(SchemaError, match=r"column 'age' has 2 missing values \(first in row 2; NaN, which") as error:
        bf.group_labels(table, by="age")
    assert "blank" not in str(error.value)
    table["age"] = ["a", "a", " ", "b", "b", None]
    with pytest.raises(SchemaError, match=r"2 missing values \(first in row 2\), 1 of them blank"):
        bf.group_labels(table, by="age")


# -- a ScoresByGroup asked for the same grouping spelled otherwise -------------------------------


@pytest.mark.parametrize(("formed", "asked"), [("group", ["group"]), (["group"], "group"), (("group", "age"), ["group", "age"]),
                                               (["group", "age"], ("group", "age"))])
def test_a_scores_by_group_is_read_for_its_grouping_however_by_is_spelled(formed, asked):
    """by='group' and by=['group'] (or a tuple and a list of the same attributes) form the same
    groups with the same names; a ScoresByGroup formed with one was refused for the other
    ("these groups were formed with by='group', not by=['group']"). The rates equal those of
    the table grouped with the spelling asked."""
    table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3], "mated": [True, False, True, False],
                          "group": ["a", "a", "b", "b"], "age": ["x", "x", "x", "x"]})
    groups = bf.scores_by_group(table, by=formed)
    assert bf.rates_by_group(groups, 0.5, by=asked).equals(bf.rates_by_group(table, 0.5, by=asked))


@pytest.mark.parametrize(("formed", "asked"), [("group", "age"), (["group", "age"], ["age", "group"]), ("group", ["group", "age"])])
def test_a_scores_by_group_is_refused_for_another_grouping(formed, asked):
    table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3], "mated": [True, False, True, False],
                          "group": ["a", "a", "b", "b"], "age": ["x", "x", "y", "y"]})
    with pytest.raises(ValueError, match="these groups were formed with by="):
        bf.rates_by_group(bf.scores_by_group(table, by=formed), 0.5, by=asked)


# -- add_subject_attributes given other tables ---------------------------------------------------

_SCORES = pd.DataFrame({"score": [0.9, 0.2], "mated": [True, False], "reference_subject": ["s1", "s1"],
                        "probe_subject": ["s1", "s2"]})
_PEOPLE = pd.DataFrame({"subject": ["s1", "s2"], "gender": ["f", "m"]})


@pytest.mark.parametrize(("scores", "attributes", "name", "kind"), [
    (_SCORES, _PEOPLE.to_dict("list"), "attributes", "dict"),
    (_SCORES, _PEOPLE.set_index("subject")["gender"], "attributes", "pandas.Series"),
    (_SCORES.to_dict("list"), _PEOPLE, "scores", "dict"),
])
def test_subject_attributes_name_a_table_that_is_not_a_dataframe(scores, attributes, name, kind):
    """Each was an AttributeError ("'dict' object has no attribute 'columns'")."""
    with pytest.raises(TypeError, match=rf"^{name} must be a pandas DataFrame, got {kind}"):
        bf.add_subject_attributes(scores, attributes)


def test_subject_attributes_name_a_subject_column_given_twice():
    """A repeated subject column (of either table) was pandas' "TypeError: int() argument must
    be a string, a bytes-like object or a real number, not 'Series'"."""
    with pytest.raises(SchemaError, match=r"more than one column named \['subject'\]"):
        bf.add_subject_attributes(_SCORES, pd.concat([_PEOPLE, _PEOPLE[["subject"]]], axis=1))
    with pytest.raises(SchemaError, match=r"duplicate column name\(s\): \['probe_subject'\]"):
        bf.add_subject_attributes(pd.concat([_SCORES, _SCORES[["probe_subject"]]], axis=1), _PEOPLE)


def test_subject_attributes_of_two_tables_equal_a_lookup_by_hand():
    joined = bf.add_subject_attributes(_SCORES, _PEOPLE)
    assert joined[["reference_gender", "probe_gender"]].to_numpy().tolist() == [["f", "f"], ["f", "m"]]


# -- scores of nullable and Arrow dtypes without a value ----------------------------------------


@pytest.mark.parametrize("dtype", ["Float64", "Int64", "int64[pyarrow]", "double[pyarrow]"])
def test_missing_scores_of_nullable_dtypes_are_named_missing_not_nan(dtype):
    """Row 1 holds <NA>, no NaN: validate_scores said 'has 1 NaN and 0 infinite values'."""
    table = pd.DataFrame({"score": pd.array([5, None, 2, 3], dtype=dtype), "mated": [True, False, True, False]})
    with pytest.raises(SchemaError, match=re.escape("column 'score' has 1 missing value (<NA>), 0 NaN and 0 infinite "
                                                    "values (first in row 1)")):
        bf.validate_scores(table)


def test_missing_nan_and_infinite_scores_are_counted_apart():
    """<NA>, NaN and inf in one Arrow column, each once; a float64 column (NaN for <NA>) as before."""
    values = [0.5, np.nan, np.inf, None]
    arrow = pd.DataFrame({"score": pd.array(pa.array(values, from_pandas=False), dtype=pd.ArrowDtype(pa.float64())),
                          "mated": [True, False, True, False]})
    with pytest.raises(SchemaError, match=re.escape("has 1 missing value (<NA>), 1 NaN and 1 infinite value (first in row 1)")):
        bf.validate_scores(arrow)
    with pytest.raises(SchemaError, match=re.escape("column 'score' has 2 NaN and 1 infinite value (first in row 1)")):
        bf.validate_scores(arrow.astype({"score": float}))
