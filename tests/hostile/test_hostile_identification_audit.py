"""Bad input to the identification API found by an audit of chapter 07 and its module: each
was a wrong or silent result, or another library's error, before biofair named it."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf

MATRIX = np.array([[0.9, 0.2], [0.3, 0.8], [0.4, 0.5], [0.7, 0.1]])
SEARCH = {"probe_subjects": ["a", "b", "y", "z"], "gallery_subjects": ["a", "b"], "probe_groups": ["x", "y", "y", "x"]}
LONG = pd.DataFrame({"probe_id": ["p", "p", "p", "q", "q", "q"], "reference_id": ["a", "b", "c"] * 2,
                     "score": [0.9, 0.95, 0.1, 0.3, 0.2, 0.6], "mated": [True, False, False, False, False, False],
                     "group": ["x", "x", "x", "y", "y", "y"]})


@pytest.mark.parametrize(("by", "error", "message"), [
    ([], ValueError, "by must name at least one column"),  # was IndexError: list index out of range
    (["group", "group"], ValueError, "by names a column more than once: ['group', 'group']"),  # was group 'x / x'
    (1, TypeError, "by must be a column name or a list of column names, got 1"),  # 'int' object is not iterable
    (None, TypeError, "by must be a column name or a list of column names, got None"),
])
def test_long_table_by_that_names_no_attribute(by, error, message):
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        bf.probe_outcomes(LONG, by=by)


@pytest.mark.parametrize(("options", "message"), [
    # NumPy wrote the list as ['1', '2', 'y', 'z'] and probe 2 found the gallery's '2' (1 != '1'),
    # while the same ids in an object array or a Series were refused
    ({"probe_subjects": [1, 2, "y", "z"], "gallery_subjects": [1, "2"]},
     "probe_subjects holds subject ids of several types, e.g. 1 (int), 'y' (str): 1 and '1' would be two subjects"),
    # the probe ids came back as the text '1', '3', '4' (probe_outcomes refuses a probe_id column like it)
    ({"probe_ids": [1, "b", 3, 4]}, "probe_ids holds probe ids of several types, e.g. 1 (int), 'b' (str): 1 and '1' "
                                    "would be two probes"),
])
def test_lists_that_mix_numbers_and_text_are_refused(options, message):
    with pytest.raises(bf.SchemaError, match="^" + re.escape(message)):
        bf.probe_outcomes_from_matrix(MATRIX, **{**SEARCH, **options})


@pytest.mark.parametrize(("options", "message"), [
    # NumPy wrote [True, True, 1, 1] as [1, 1, 1, 1]: group True merged into group '1' in silence
    ({"probe_groups": [True, True, 1, 1]}, "column(s) ['probe_groups'] hold equal labels written differently: True "
                                           "(bool), 1 (int)"),
    ({"probe_groups": [1, 1.0, 2, 2]}, "column(s) ['probe_groups'] hold equal labels written differently: 1 (int), "
                                       "1.0 (float)"),
    # the probe whose subject is True was taken as the gallery's subject 1
    ({"probe_subjects": [True, 2, 8, 9], "gallery_subjects": [1, 2]},
     "probe_subjects holds subject ids of several types, e.g. True (bool), 2 (int)"),
])
def test_lists_that_mix_bools_ints_and_floats_are_refused(options, message):
    """As the same labels in an object array or a Series are."""
    for given in (options, {name: pd.Series(values, dtype=object) for name, values in options.items()}):
        with pytest.raises(bf.SchemaError, match="^" + re.escape(message)):
            bf.probe_outcomes_from_matrix(MATRIX, **{**SEARCH, **given})


def test_a_list_of_one_kind_of_id_still_finds_its_mates():
    numbers = bf.probe_outcomes_from_matrix(MATRIX, probe_subjects=[1, 2, 8, 9], gallery_subjects=[1, 2],
                                            probe_groups=SEARCH["probe_groups"], probe_ids=["p", "q", "r", "s"])
    text = bf.probe_outcomes_from_matrix(MATRIX, **SEARCH, probe_ids=("p", "q", "r", "s"))
    pd.testing.assert_frame_equal(numbers, text)
    assert numbers["mated"].tolist() == [True, True, False, False] and numbers["probe_id"].tolist() == ["p", "q", "r", "s"]


def test_missing_probe_ids_are_refused():
    """A None probe id came back as NaN, where probe_outcomes refuses a missing probe_id."""
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "invalid identification data:\n- probe_ids has 1 missing value: each row of the matrix is one probe's "
            "search and needs its own id") + "$"):
        bf.probe_outcomes_from_matrix(MATRIX, **SEARCH, probe_ids=["p", None, "q", "r"])


def test_complex_scores_are_refused():
    """Were read as their real parts, with NumPy's ComplexWarning."""
    with pytest.raises(bf.SchemaError, match=r"^block 0:4 holds complex numbers \(dtype complex128\), not comparison "
                                             r"scores$"):
        bf.probe_outcomes_from_matrix(MATRIX + 1j, **SEARCH)


def outcomes() -> pd.DataFrame:
    return bf.probe_outcomes_from_matrix(MATRIX, **SEARCH)


@pytest.mark.parametrize(("groups", "problem"), [
    # cmc had two columns both named 1, identification_rates two rows of group 1
    ([1, "1", "1", 1], "column(s) ['group'] hold distinct labels that read the same: 1 (int), '1' (str); store the "
                       "labels as text (biofair.read_scores reads them as written) or relabel them"),
    # a group named '' (and one named ' ') that group_labels refuses
    (["", "y", "y", " "], "column 'group' has 2 blank labels (empty or white space only), e.g. in row 0: every probe "
                          "needs its group"),
])
@pytest.mark.parametrize("measure", [
    lambda o: bf.cmc(o, max_rank=1),
    lambda o: bf.rank_n_differential(o),
    lambda o: bf.identification_rates(o, [0.6]),
    lambda o: bf.threshold_at_fpir(o, 0.5),
    lambda o: bf.identification_discrepancy_rate(o, fpir_targets=[0.5]),
])
def test_outcome_groups_that_name_no_group_or_two_as_one(groups, problem, measure):
    with pytest.raises(bf.SchemaError, match="^" + re.escape("outcomes is not a valid probe outcome table:\n- "
                                                             + problem) + "$"):
        measure(outcomes().assign(group=groups))


def test_numeric_outcome_groups_are_kept():
    rates = bf.identification_rates(outcomes().assign(group=[1, 2, 2, 1]), [0.6])
    assert rates["group"].tolist() == [1, 2] and rates["fpir"].tolist() == [1.0, 0.0]


def test_a_development_set_without_non_enrolled_probes_is_named():
    """Was a warning that dev lacked both groups, then "the outcomes have no non-enrolled probe",
    naming the evaluation outcomes, which have them."""
    table = outcomes()
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "dev has no non-enrolled probe: FPIR needs open-set probes (probes whose identity is not in the "
            "gallery)") + "$"):
        bf.identification_discrepancy_rate(table, fpir_targets=[0.5], dev=table[table["mated"]])
    with pytest.raises(bf.SchemaError, match="^outcomes has no non-enrolled probe"):
        bf.threshold_at_fpir(table[table["mated"]], 0.5)


@pytest.mark.parametrize(("groups", "message"), [
    # was TypeError: unhashable type: 'list', from pandas
    ([["x"], ["y", "z"], "y", "x"], "probe_groups is ragged: its rows are of 3 lengths (a single value, 1 value, "
                                    "2 values), e.g. row 0 holds 1 value and row 1 2 values; give one group label "
                                    "per probe, a flat sequence"),
    # was flattened without a word, where probe_subjects of this shape is refused
    ([["x"], ["y"], ["y"], ["x"]], "invalid identification data:\n- probe_groups must be one-dimensional, "
                                   "got shape (4, 1)"),
    # was "missing group labels ... with read_grouped_scores(..., missing_groups='group') ... or fill them
    # yourself, e.g. scores.replace(...)": a reader of score files, and a matrix has no such column
    (["x", "", "y", " "], "invalid identification data:\n- probe_groups has 2 blank labels (empty or white space "
                          "only), e.g. at position 1: every probe needs its group"),
])
def test_probe_groups_that_are_not_one_label_per_probe(groups, message):
    with pytest.raises(bf.SchemaError, match="^" + re.escape(message) + "$"):
        bf.probe_outcomes_from_matrix(MATRIX, **{**SEARCH, "probe_groups": groups})


def test_probe_groups_keep_one_and_one_as_text_apart():
    """Group 1 and group '1' read the same and are refused; the ragged-list check must keep
    both types (NumPy's own array of the list holds '1' twice)."""
    with pytest.raises(bf.SchemaError, match=re.escape("1 (int), '1' (str)")):
        bf.probe_outcomes_from_matrix(MATRIX, **{**SEARCH, "probe_groups": [1, "1", 1, "1"]})


def test_a_development_set_equal_to_the_evaluation_set_is_flagged_optimistic():
    """An equal copy (or the same rows shuffled) was flagged optimistic=False: only `dev is
    outcomes` was checked, where fairness_discrepancy_rate compares contents."""
    evaluation = bf.probe_outcomes_from_matrix(MATRIX, **SEARCH)
    copies = [bf.probe_outcomes_from_matrix(MATRIX, **SEARCH), evaluation.sample(frac=1, random_state=1)]
    other = evaluation.assign(score=evaluation["score"] + 1e-9)
    with pytest.warns(bf.InsufficientComparisonsWarning):
        flags = [bf.identification_discrepancy_rate(evaluation, fpir_targets=[0.5], dev=dev)["optimistic"].item()
                 for dev in (*copies, other)]
    assert flags == [True, True, False]


def test_development_groups_read_back_as_numbers_are_the_evaluation_groups():
    """dev's groups 1 and 2 (a CSV read back) were said to lack the evaluation groups '1' and
    '2': a spurious warning, as the thresholds pool every development probe anyway."""
    evaluation = bf.probe_outcomes_from_matrix(MATRIX, **{**SEARCH, "probe_groups": [1, 2, 2, 1]})
    dev = evaluation.assign(group=evaluation["group"].astype(int), score=evaluation["score"] / 2)
    with pytest.warns(bf.InsufficientComparisonsWarning) as caught:
        bf.identification_discrepancy_rate(evaluation, fpir_targets=[0.5], dev=dev)
    assert [type(w.message) for w in caught] == [bf.InsufficientComparisonsWarning]


def test_subject_columns_that_contradict_mated_are_refused_as_validate_scores_refuses_them():
    """Probe p's own mate, marked mated=False, counted as a false alarm of a non-enrolled probe."""
    table = pd.DataFrame({"probe_id": ["p", "p", "q", "q"], "reference_id": ["a", "b"] * 2,
                          "reference_subject": ["A", "B"] * 2, "probe_subject": ["A", "A", "B", "B"],
                          "score": [0.9, 0.2, 0.3, 0.8], "mated": [False, False, False, True],
                          "group": ["x", "x", "y", "y"]})
    message = "1 row has 'mated' contradicting reference_subject == probe_subject, e.g. row 0 (mated False, subjects 'A' and 'A')"
    with pytest.raises(bf.SchemaError, match=re.escape(message)):
        bf.validate_scores(table)
    with pytest.raises(bf.SchemaError, match="^" + re.escape("invalid identification table:\n- " + message) + "$"):
        bf.probe_outcomes(table)
    fixed = bf.probe_outcomes(table.assign(mated=table["reference_subject"] == table["probe_subject"]))
    assert fixed["mated"].tolist() == [True, True] and fixed["rank"].tolist() == [1, 1]


def test_a_repeated_mated_row_is_one_problem_not_a_second_mate():
    """The repeated row also read as 'several mated entries; fuse the gallery', wrong advice."""
    repeated = pd.concat([LONG, LONG.iloc[[0]]])
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "invalid identification table:\n- 1 repeated (probe_id, reference_id) pairs") + "$"):
        bf.probe_outcomes(repeated)


def test_a_long_table_gallery_of_one_identity_twice_is_refused_as_the_matrix_gallery_is():
    """Subject B enrolled twice (entries b1, b2) ranked probe p's mate 3rd behind both, where
    by identity it is 2nd; probe_outcomes_from_matrix refuses the same gallery. An entry named
    by two subjects was taken too."""
    table = pd.DataFrame({"probe_id": ["p"] * 3 + ["q"] * 3, "reference_id": ["a", "b1", "b2"] * 2,
                          "reference_subject": ["A", "B", "B"] * 2, "probe_subject": ["A"] * 3 + ["Z"] * 3,
                          "score": [0.5, 0.9, 0.9, 0.1, 0.2, 0.3], "group": ["x"] * 3 + ["y"] * 3})
    table["mated"] = table["reference_subject"] == table["probe_subject"]
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "invalid identification table:\n- 1 reference subject has several gallery entries, e.g. 'B' "
            "(reference_id 'b1' and 'b2'): each entry would count as a non-mate of its own in the ranks of other "
            "subjects' mates; fuse each subject's entries into one first (one entry per identity)") + "$"):
        bf.probe_outcomes(table)
    with pytest.raises(bf.SchemaError, match="gallery_subjects repeats an identity"):
        bf.probe_outcomes_from_matrix(np.array([[0.5, 0.9, 0.9], [0.1, 0.2, 0.3]]), probe_subjects=["A", "Z"],
                                      gallery_subjects=["A", "B", "B"], probe_groups=["x", "y"])
    fused = table[table["reference_id"] != "b2"]  # one entry per identity: the mate is 2nd
    assert bf.probe_outcomes(fused)["rank"].tolist() == [2, 0]
    two_names = table.assign(reference_subject=["A", "B", "C", "A", "B", "D"])
    two_names["mated"] = two_names["reference_subject"] == two_names["probe_subject"]
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "invalid identification table:\n- 1 reference_id names several reference subjects, e.g. 'b2' ('C' and "
            "'D'): a gallery entry is one identity: give it the same reference_subject in every row") + "$"):
        bf.probe_outcomes(two_names)
    assert bf.probe_outcomes(table.drop(columns=["reference_subject", "probe_subject"]))["rank"].tolist() == [3, 0]
