"""Subject ids and group labels that look equal but are not, in memory: tables read from
CSV by pandas and joined, where one table's ids are numbers and another's text, or one
column holds both. Each is refused with a message naming the columns, or kept apart as
biofair's other functions keep it; never silently merged, split or dropped."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair import mitigation

AS_TEXT = ("Read the ids as text in every table, e.g. pd.read_csv(path, dtype={'reference_subject': str, "
           "'probe_subject': str}), which keeps ids such as '007' as written, or convert them one way "
           "(table[column].astype(str))")


def trials(subjects: list, groups: list | None = None) -> pd.DataFrame:
    """One mated comparison per subject and one non-mated with the next subject; ids kept as
    given (an object column when they mix types)."""
    rows = []
    for i, me in enumerate(subjects):
        other = subjects[(i + 1) % len(subjects)]
        rows += [(1.0 + i, True, me, me), (0.1 * i, False, me, other)]
    table = pd.DataFrame(rows, columns=["score", "mated", "reference_subject", "probe_subject"])
    for column in ("reference_subject", "probe_subject"):
        table[column] = pd.Series(list(table[column]), dtype=object if _mixed(subjects) else None)
    if groups is not None:
        table["group"] = pd.Series([g for g in groups for _ in range(2)], dtype=object)
    return table


def _mixed(values: list) -> bool:
    return len({type(v) for v in values}) > 1


# -- 1. two tables, one read with integer ids and one with text ids -------------------------------


def test_a_leak_check_refuses_numbers_against_text():
    """Subject 1 is in both tables, read as 1 in dev and "1" in eval: the check passed
    (1 != "1"), reporting the tables disjoint although the same person is in both."""
    dev, evaluation = trials([1, 2, 3]), trials(["1", "4", "5"])
    message = ("subject ids are numbers in dev['reference_subject'] (int64), dev['probe_subject'] (int64) but text "
               f"in evaluation['reference_subject'] ({evaluation['reference_subject'].dtype}), evaluation['probe_subject'] "
               f"({evaluation['probe_subject'].dtype}): a subject written 1 in one and '1' in the other would be two "
               f"subjects. {AS_TEXT}")
    with pytest.raises(bf.SchemaError, match="^" + re.escape(message) + "$"):
        mitigation.check_subject_disjoint(dev, evaluation)
    read_as_text = dev.astype({"reference_subject": str, "probe_subject": str})
    with pytest.raises(ValueError, match=r"^1 evaluation subject also in the development split, e\.g\. '1'$"):
        mitigation.check_subject_disjoint(read_as_text, evaluation)


def test_a_leak_check_compares_numbers_with_numbers_and_text_with_text():
    """Ids of one kind in any dtype are compared as they are: 1 and 1.0 are one subject, object
    text and pandas' string dtype agree, categories are read as their values."""
    with pytest.raises(ValueError, match=r"^1 evaluation subject also in the development split, e\.g\. 1(\.0)?$"):
        mitigation.check_subject_disjoint(trials([1, 2]), trials([1.0, 7.0]))
    text = trials(["a", "b"])
    strings = trials(["a", "c"]).astype({"reference_subject": "string", "probe_subject": "string"})
    categories = trials(["b", "d"]).astype({"reference_subject": "category", "probe_subject": "category"})
    for other, shared in ((strings, "a"), (categories, "b")):
        with pytest.raises(ValueError, match=f"e\\.g\\. '{shared}'$"):
            mitigation.check_subject_disjoint(text, other)
    mitigation.check_subject_disjoint(text, trials(["x", "y"]).astype({"reference_subject": "category"}))


def test_a_leak_check_refuses_one_table_of_two_kinds():
    """Reference ids read as numbers, probe ids as text, in the development table."""
    dev = trials([1, 2]).astype({"probe_subject": str})
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "subject ids are numbers in dev['reference_subject'] (int64) but text in "
            f"dev['probe_subject'] ({dev['probe_subject'].dtype}): ")):
        mitigation.check_subject_disjoint(dev, trials([3, 4]))


# -- one column of integer and text ids (pandas' read_csv with mixed chunks, or a concat) ----------


def test_a_split_refuses_a_column_of_numbers_and_text():
    """Subjects 1 and "1" (and 2 and "2") were two subjects each, and the seed-0 split put 1
    and 2 in development, "1" and "2" in evaluation: the same people on both sides."""
    table = trials([1, "1", 2, "2", 3, "3"])
    message = ("scores['reference_subject'] holds subject ids of several types, e.g. 1 (int), '1' (str): 1 and '1' "
               f"would be two subjects. {AS_TEXT}")
    with pytest.raises(bf.SchemaError, match="^" + re.escape(message) + "$"):
        mitigation.subject_disjoint_split(table, rng=0)
    with pytest.raises(bf.SchemaError, match=re.escape("dev['reference_subject'] holds subject ids of several")):
        mitigation.check_subject_disjoint(table, trials(["x", "y"]))


def test_a_subject_bootstrap_refuses_a_column_of_numbers_and_text():
    """1 and "1" were two clusters: a subject's comparisons drawn as if from two subjects."""
    table = trials([1, "1", 2, "2"])
    message = ("column 'reference_subject' holds subject ids of several types, e.g. 1 (int), '1' (str): 1 and '1' "
               f"would be two subjects. {AS_TEXT}")
    with pytest.raises(bf.SchemaError, match="^" + re.escape(message) + "$"):
        bf.bootstrap(bf.roc_auc, table, unit="subject", n_resamples=40, rng=0)


# -- 2. a split stratified on labels that disagree within a subject -------------------------------


def test_a_stratified_split_refuses_a_subject_with_two_labels():
    """Subject a had group x on its mated row and y on its non-mated row: it was drawn in
    stratum x, whichever row came first, and nothing said so."""
    table = trials(["a", "b", "c", "d", "e", "f"], ["x", "y", "x", "y", "x", "y"])
    table.loc[1, "group"] = "y"  # a's non-mated comparison
    table.loc[9, "group"] = "z"  # e's
    message = ("stratify='group': 2 subjects have comparisons with different labels in column 'group' "
               "('a': ['x', 'y']; 'e': ['x', 'z']); a subject belongs to one stratum: correct the labels")
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        mitigation.subject_disjoint_split(table, stratify="group", rng=0)


def test_a_subject_with_one_label_and_missing_ones_keeps_its_label():
    """A missing label on some of a subject's rows is no disagreement (as before)."""
    table = trials(["a", "b", "c", "d"], ["x", "x", "y", "y"])
    table.loc[1, "group"] = None
    for seed, dev in ((0, ["b", "d"]), (1, ["a", "d"]), (2, ["b", "c"])):  # one of a, b and one of c, d
        split = mitigation.subject_disjoint_split(table, stratify="group", rng=seed)
        assert sorted(split.dev_subjects) == dev


@pytest.mark.parametrize(("labels", "message"), [
    ([1, "1", 1, "1"], "column(s) ['group'] hold distinct labels that read the same: 1 (int), '1' (str)"),
    ([True, 1, True, 1], "column(s) ['group'] hold equal labels written differently: True (bool), 1 (int)"),
], ids=["1 and '1'", "True and 1"])
def test_a_stratified_split_reads_labels_as_the_groups_do(labels, message):
    """1 and "1" were two strata (group_labels refuses them), True and 1 one stratum."""
    with pytest.raises(bf.SchemaError, match="^" + re.escape(message)):
        mitigation.subject_disjoint_split(trials(["a", "b", "c", "d"], labels), stratify="group", rng=0)


# -- 3. equal labels of different types in one group column ----------------------------------------


def grouped(labels: list, *, per_side: bool = False) -> pd.DataFrame:
    """Per label, 20 mated and 20 non-mated comparisons; group k scores k higher."""
    rng = np.random.default_rng(3)
    k = np.repeat(np.arange(len(labels)), 40)
    mated = np.tile(np.arange(40) < 20, len(labels))
    table = pd.DataFrame({"score": np.round(rng.normal(np.where(mated, 2.0, 0.0) + k, 1.0), 3), "mated": mated})
    column = pd.Series([label for label in labels for _ in range(40)], dtype=object)
    if per_side:
        return table.assign(reference_group=column, probe_group=column)
    return table.assign(group=column)


MERGED = {
    "True and 1": ([True, 1, 2], "True (bool), 1 (int)"),
    "False and 0": ([0, False, 2], "0 (int), False (bool)"),
    "1 and 1.0": ([1, 1.0, 2], "1 (int), 1.0 (float)"),
}


@pytest.mark.parametrize("case", MERGED)
@pytest.mark.parametrize("per_side", [False, True], ids=["pair level", "per side"])
def test_equal_labels_of_different_types_are_refused(case, per_side):
    """pd.factorize made one group of True and 1 (equal in Python), named after the first row:
    scores_by_group gave {'True': 40 mated, '2': 20} for three labels, and after
    pd.concat([booleans, integers]) the FDR compared two groups instead of three."""
    labels, values = MERGED[case]
    table = grouped(labels, per_side=per_side)
    columns = ["reference_group", "probe_group"] if per_side else ["group"]
    message = (f"column(s) {columns} hold equal labels written differently: {values}; pandas would make them one "
               "group, named after whichever comes first. Store the labels as text (biofair.read_scores reads them "
               "as written) or relabel them")
    for call in (bf.scores_by_group, bf.group_labels, bf.group_sizes,
                 lambda t: bf.fairness_discrepancy_rate(t, fmr_targets=[0.1])):
        with pytest.raises(bf.SchemaError, match="^" + re.escape(message) + "$"):
            call(table)


def test_equal_labels_of_one_type_stay_one_group():
    """NumPy and Python integers are one label written one way: no error."""
    table = grouped([np.int64(1), 1, 2])
    groups = bf.scores_by_group(table)
    assert {name: (g.mated.size, g.nonmated.size) for name, g in groups.items()} == {"1": (40, 40), "2": (20, 20)}


def test_the_census_refuses_true_and_1_in_one_partition():
    """In one partition the census merged them as memory did (one group named 'True')."""
    dd = pytest.importorskip("dask.dataframe")
    import dask

    from biofair import partitions as bp

    with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
        frame = dd.from_pandas(grouped([True, 1, 2]), npartitions=1, sort=False)
        with pytest.raises(bf.SchemaError, match=re.escape(
                "column(s) ['group'] hold equal labels written differently: True (bool), 1 (int)")):
            bp.census(frame)


# -- 4. a missing label in the canonical group column ------------------------------------------------


def test_a_missing_group_label_in_memory_says_how_to_fill_it():
    """validate_scores said only "column 'group' has 2 missing values", where any other grouping
    column said which row and how to give those comparisons a group."""
    table = grouped(["a", "b"])
    table.loc[[5, 50], "group"] = None
    line = ("- column 'group' has 2 missing values (first in row 5); those comparisons would have no group. Give them "
            "a group of their own, '(missing)', with read_grouped_scores(..., missing_groups='group') (biofair "
            "report --missing-groups group), or fill them yourself, e.g. scores.fillna({'group': 'unknown'})")
    for call in (bf.validate_scores, bf.scores_by_group):
        with pytest.raises(bf.SchemaError) as error:
            call(table)
        assert str(error.value).splitlines() == ["invalid score table:", line]
    other = table.rename(columns={"group": "gender"})
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "missing group labels: column 'gender' has 2 missing values (first in row 5); those comparisons would "
            "have no group. Give them a group of their own, '(missing)', ") + ".*" + re.escape(
            "scores.fillna({'gender': 'unknown'})") + "$"):
        bf.scores_by_group(other, by="gender")


# -- cohort normalisation: the cohort's ids and the trials' ids ----------------------------------------


def test_cohort_statistics_refuse_a_key_of_numbers_and_text():
    """Subject 1's eight cohort scores, half stored as 1 and half as "1", gave two rows of
    statistics (1: mean 0.2, n 2 ... "1": mean 0.225, n 2), each from half its scores."""
    cohort = pd.DataFrame({"subject": pd.Series([1, 1, "1", "1", 2, 2, "2", "2"], dtype=object),
                           "score": [0.1, 0.3, 0.2, 0.25, 0.0, 0.5, 0.25, 0.375]})
    message = ("cohort['subject'] holds subject ids of several types, e.g. 1 (int), '1' (str): 1 and '1' would be "
               f"two subjects. {AS_TEXT}")
    with pytest.raises(bf.SchemaError, match="^" + re.escape(message) + "$"):
        bf.normalisation.cohort_statistics(cohort, min_size=2)
    with pytest.raises(bf.SchemaError, match=re.escape("cohort['group'] holds group ids of several types")):
        bf.normalisation.cohort_statistics(cohort.rename(columns={"subject": "group"}), key="group", min_size=2)


def test_cohort_scores_refuse_a_cohort_of_numbers_for_text_ids():
    """The cohort {"c1", 2} (2 read as a number elsewhere) did not find "2" in cross: x kept
    1 of its 2 cohort scores, and nothing said so."""
    cross = pd.DataFrame({"score": [0.1, 0.2, 0.3], "mated": [False] * 3,
                          "reference_subject": ["c1", "x", "y"], "probe_subject": ["x", "2", "z"]})
    with pytest.raises(bf.SchemaError, match=r"^cohort_subjects holds subject ids of several types, e\.g\. "
                                             r"('c1' \(str\), 2 \(int\)|2 \(int\), 'c1' \(str\)): "):
        bf.normalisation.cohort_scores(cross, {"c1", 2})
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "subject ids are numbers in cohort_subjects (int64) but text in cross['reference_subject'] "
            f"({cross['reference_subject'].dtype}), cross['probe_subject'] ({cross['probe_subject'].dtype}): ")):
        bf.normalisation.cohort_scores(cross, {2})
    assert bf.normalisation.cohort_scores(cross, {"c1", "2"})["subject"].tolist() == ["x", "x"]


def test_normalisation_says_why_text_ids_have_no_statistics_kept_under_numbers():
    """Was "3 comparisons have no cohort statistics for their reference_subject (e.g. '1')",
    with statistics for subject 1 right there."""
    cohort = pd.DataFrame({"subject": [1] * 4 + [2] * 4, "score": [0.1, 0.3, 0.2, 0.25, 0.0, 0.5, 0.25, 0.375]})
    statistics = bf.normalisation.cohort_statistics(cohort, min_size=2)
    table = pd.DataFrame({"score": [0.4, 0.05, 0.3], "mated": [True, False, False],
                          "reference_subject": ["1", "1", "2"], "probe_subject": ["1", "2", "1"]})
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "subject ids are numbers in the statistics' index (int64) but text in scores['reference_subject'] "
            f"({table['reference_subject'].dtype}): a subject written 1 in one and '1' in the other would be two "
            f"subjects. {AS_TEXT}") + "$"):
        bf.normalisation.normalise_scores(table, statistics, method="z")


# -- a permutation null that shuffles groups between subjects ----------------------------------------


def fdr_at_half(table: pd.DataFrame) -> float:
    return float(bf.fairness_discrepancy_rate(table, fmr_targets=[0.5])["fdr"].iloc[0])


def test_a_permutation_by_subject_refuses_a_subject_with_two_labels():
    """Subject a: group x on its mated row, y on its non-mated row. Each permuted table gave a
    one label (its first, x), so every permuted table had 6 rows in x and 6 in y where the
    observed one had 5 and 7: no permutation could look like the data it was the null of."""
    table = trials(["a", "b", "c", "d", "e", "f"], ["x", "x", "x", "y", "y", "y"])
    table.loc[1, "group"] = "y"
    with pytest.raises(ValueError, match="^" + re.escape(
            "1 subject has comparisons with different labels in column(s) ['group'] ('a': ['x', 'y']); a shuffle "
            "by subject gives each subject one label: correct the labels or shuffle comparisons instead "
            "(unit='pair')") + "$"):
        bf.permutation_null(fdr_at_half, table, n_permutations=5, rng=0)
    of = dict(zip("abcdef", "xxxyyy"))
    per_side = table.drop(columns="group").assign(reference_group=table["reference_subject"].map(of),
                                                  probe_group=table["probe_subject"].map(of))
    per_side.loc[1, "reference_group"] = "y"  # a as the reference of its non-mated pair
    per_side.loc[3, "probe_group"] = "y"  # c as the probe of b's non-mated pair
    with pytest.raises(ValueError, match="^" + re.escape(
            "2 subjects have comparisons with different labels in column(s) ['reference_group', 'probe_group'] "
            "('a': ['x', 'y']; 'c': ['x', 'y']); a shuffle by subject gives each subject one label: correct the "
            "labels") + "$"):
        bf.permutation_null(fdr_at_half, per_side, n_permutations=5, rng=0)


def test_a_subject_torn_by_the_missing_group_is_told_to_fill_in_its_label():
    """biofair report's advice for empty group cells, --missing-groups group, led to this
    refusal without a word on why (a helper's audit): the empty cell of a subject labelled
    elsewhere is an omission, not a group."""
    table = trials(["a", "b", "c", "d", "e", "f"], ["x", "x", "x", "y", "y", "y"])
    table.loc[1, "group"] = "(missing)"
    with pytest.raises(ValueError, match="^" + re.escape(
            "1 subject has comparisons with different labels in column(s) ['group'] ('a': ['(missing)', 'x']); "
            "a shuffle by subject gives each subject one label: correct the labels or shuffle comparisons instead "
            "(unit='pair') ('(missing)' is the label missing_groups='group' gives empty cells: where a subject has "
            "its label in other rows, the empty cells are omissions, so fill them in with that label)") + "$"):
        bf.permutation_null(fdr_at_half, table, n_permutations=5, rng=0)


def test_a_permutation_by_subject_refuses_ids_of_numbers_and_text():
    """1 and "1" were two subjects, each given a group of its own in every permutation."""
    table = trials([1, "1", 2, "2", 3, "3"], ["x", "x", "x", "y", "y", "y"])
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "column 'reference_subject' holds subject ids of several types, e.g. 1 (int), '1' (str): ")):
        bf.permutation_null(fdr_at_half, table, n_permutations=5, rng=0)


def test_a_permutation_by_a_subject_column_the_table_lacks_is_refused():
    """cluster='subject_id' (a misspelling) silently shuffled comparisons instead of subjects,
    a null too narrow where subjects recur (the default column, when absent, still falls
    back to comparisons, as documented)."""
    table = trials(["a", "b", "c", "d", "e", "f"], ["x", "x", "x", "y", "y", "y"])
    with pytest.raises(bf.SchemaError, match=r"^cluster='subject_id' names no column; the table has \['score'"):
        bf.permutation_null(fdr_at_half, table, n_permutations=5, rng=0, cluster="subject_id")
    with pytest.raises(TypeError, match=r"^cluster must be a column name, got 3$"):
        bf.permutation_null(fdr_at_half, table, n_permutations=5, rng=0, cluster=3)
    with pytest.raises(TypeError, match=r"^cluster must be a column name, got None \(to take comparisons as the units, "
                                        r"give unit='pair'\)$"):
        bf.permutation_null(fdr_at_half, table, n_permutations=5, rng=0, cluster=None)
    with pytest.raises(bf.SchemaError, match=r"^unit='subject' needs a score table with a 'reference_subject' column"):
        bf.permutation_null(fdr_at_half, table.drop(columns="reference_subject"), n_permutations=5, rng=0,
                            unit="subject")
    by_comparison = bf.permutation_null(fdr_at_half, table, n_permutations=5, rng=0, unit="pair")
    without_default = bf.permutation_null(fdr_at_half, table.drop(columns="reference_subject"), n_permutations=5, rng=0)
    np.testing.assert_array_equal(without_default.null, by_comparison.null)
    with pytest.raises(bf.SchemaError, match=r"^cluster='subject_id' names no column"):  # it fell back to pairs
        bf.fairness_summary(table, cluster="subject_id", n_resamples=40, n_permutations=5, rng=0)


# -- identification from a matrix: probe identities against gallery identities ---------------------------


def test_probes_read_as_text_against_a_gallery_read_as_numbers_are_refused():
    """Probes "1" and "2" are the gallery's 1 and 2: every probe was non-enrolled (mated
    [False, False, False, False] instead of [True, True, False, False]), so the two mates'
    scores counted as impostors' in FPIR and the rank-1 rates had no probe."""
    matrix = np.array([[0.9, 0.2], [0.3, 0.8], [0.4, 0.5], [0.7, 0.1]])
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "subject ids are numbers in gallery_subjects (int64) but text in probe_subjects (")):
        bf.probe_outcomes_from_matrix(matrix, probe_subjects=["1", "2", "y", "z"], gallery_subjects=[1, 2],
                                      probe_groups=["g", "g", "h", "h"])
    outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=[1, 2, 3, 4], gallery_subjects=[1, 2],
                                             probe_groups=["g", "g", "h", "h"])
    assert outcomes["mated"].tolist() == [True, True, False, False]


def test_group_sizes_refuse_to_count_1_and_text_1_as_two_subjects():
    """Three people, each with ids written 1 and "1" (2 and "2", 3 and "3"), were counted as
    n_subjects 6 in their group."""
    table = trials([1, "1", 2, "2", 3, "3"], ["x"] * 6)
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "column 'reference_subject' holds subject ids of several types, e.g. 1 (int), '1' (str): ")):
        bf.group_sizes(table, by="group")
    assert bf.group_sizes(trials([1, 2, 3], ["x"] * 3))["n_subjects"].tolist() == [3]


def test_ids_of_one_other_type_are_not_taken_for_mixed_ids():
    """Bytes or tuple ids are of one type: pandas' infer_dtype calls tuples "mixed", which alone
    must not refuse them."""
    for ids in ([b"a", b"b", b"c", b"d"], [(0, "a"), (0, "b"), (1, "a"), (1, "b")]):
        split = mitigation.subject_disjoint_split(trials(ids), rng=0)
        assert len(split.dev_subjects) == len(split.eval_subjects) == 2
        assert bf.group_sizes(trials(ids, ["x", "x", "y", "y"]), min_subjects=1)["n_subjects"].tolist() == [2, 2]


def test_paired_systems_with_ids_read_as_numbers_and_as_text_are_told_so():
    """System B's table read its subject ids as text, system A's as numbers: the same trials in
    the same order, refused before with "column 'reference_subject' differs in 12 rows (first at
    position 0: 1 vs '1'); order both tables the same way", which sends the user reordering rows."""
    a = trials(list(range(1, 7)))
    b = a.astype({"reference_subject": str, "probe_subject": str}).assign(score=a["score"] + 0.5 * a["mated"])
    message = (f"subject ids are numbers in scores_a['reference_subject'] (int64) but text in "
               f"scores_b['reference_subject'] ({b['reference_subject'].dtype}): a subject written 1 in one and "
               f"'1' in the other would be two subjects. {AS_TEXT}")
    with pytest.raises(bf.SchemaError, match="^" + re.escape(message) + "$"):
        bf.paired_bootstrap(bf.roc_auc, a, b, n_resamples=40, rng=0)
    same = bf.paired_bootstrap(bf.roc_auc, a.astype({"reference_subject": str, "probe_subject": str}), b,
                               n_resamples=40, rng=0)
    assert np.isfinite([same.low, same.high]).all()


def test_subject_attributes_name_the_subjects_given_twice():
    """'s1' has three rows: the message counted two subjects (the repeated rows) and named none."""
    people = pd.DataFrame({"subject": ["s1", "s1", "s2", "s1", "s3"], "gender": ["f", "m", "m", "f", "f"]})
    with pytest.raises(bf.SchemaError, match=re.escape(
            "1 subject has more than one row in the attributes, e.g. ['s1']: give each subject one row")):
        bf.add_subject_attributes(trials(["s1", "s2", "s3"]), people)


def test_ids_that_differ_from_the_attributes_by_spaces_are_named_as_such():
    """'s1 ' in the scores and 's1' in the attributes: the join found no attributes for 's1 ',
    and the error showed the space only inside a quoted id."""
    people = pd.DataFrame({"subject": ["s1", "s2", "s3"], "gender": ["f", "m", "f"]})
    scores = trials(["s1", "s2", "s3"])
    padded = scores.assign(probe_subject=scores["probe_subject"].where(scores.index > 0, "s1 "))
    with pytest.raises(bf.SchemaError, match=re.escape(
            "1 subject of the score table has no attributes, e.g. ['s1 ']; 1 of them differs from a subject "
            "of the attributes only by surrounding spaces (e.g. 's1 ' and 's1'): strip the ids")):
        bf.add_subject_attributes(padded, people)
    spaced_people = people.assign(subject=["s1", " s2", "s3"])  # the space in the attributes' id: named too
    with pytest.raises(bf.SchemaError, match=re.escape(
            "1 subject of the score table has no attributes, e.g. ['s2']; 1 of them differs from a subject "
            "of the attributes only by surrounding spaces (e.g. 's2' and ' s2'): strip the ids")):
        bf.add_subject_attributes(scores, spaced_people)
    unknown = scores.assign(probe_subject=scores["probe_subject"].where(scores.index > 0, "s9"))
    with pytest.raises(bf.SchemaError, match=r"^1 subject of the score table has no attributes, e\.g\. \['s9'\]$"):
        bf.add_subject_attributes(unknown, people)


def test_subject_attributes_named_like_a_pair_level_column_are_named(tmp_path):
    """A score file with a 'gender' column and a subject file with a 'gender' attribute: the
    per-group rates read the file's column and the cross-group table the attributes, without
    a word (biofair report --subjects ... --by gender). Grouping by another attribute is fine."""
    people = pd.DataFrame({"subject": ["s1", "s2", "s3", "s4"], "gender": ["f", "f", "m", "m"],
                           "age": ["old", "old", "young", "young"]})
    scores = trials(["s1", "s2", "s3", "s4"]).assign(gender="m")
    with pytest.warns(UserWarning, match=re.escape(
            "the scores have a pair-level column named like the subject attribute(s) ['gender']: a grouping "
            "by='gender' reads that column, not the attribute; rename one of them to group by the other")):
        joined = bf.add_subject_attributes(scores, people)
    assert joined["reference_gender"].tolist() == people.set_index("subject").loc[joined["reference_subject"], "gender"].tolist()
    big = pd.concat([scores] * 20, ignore_index=True)
    big.to_csv(tmp_path / "scores.csv", index=False)
    people.to_csv(tmp_path / "people.csv", index=False)
    with pytest.raises(bf.SchemaError, match=re.escape(
            "the score file has a column 'gender' and the subject file an attribute of that name: by='gender' would "
            "read the score file's column, not the attribute. Rename the score file's, e.g. columns={'gender': "
            "'file_gender'} (biofair report --columns gender=file_gender)")):
        bf.read_grouped_scores(tmp_path / "scores.csv", by="gender", subjects=tmp_path / "people.csv")
    renamed = bf.read_grouped_scores(tmp_path / "scores.csv", by="gender", subjects=tmp_path / "people.csv",
                                     columns={"gender": "file_gender"})
    assert set(renamed["reference_gender"]) == {"f", "m"}
    with pytest.warns(UserWarning, match="a grouping by='gender' reads that column"):  # by age: read, and told
        by_age = bf.read_grouped_scores(tmp_path / "scores.csv", by="age", subjects=tmp_path / "people.csv")
    assert set(by_age["reference_age"]) == {"old", "young"}


def test_ids_written_as_other_numbers_in_the_attributes_are_named_as_such():
    """Ids 0, 1, ... in the scores and 0.0, 1.0, ... in the attributes: "no attributes, e.g.
    ['0', '1']", with no word on why."""
    people = pd.DataFrame({"subject": [1.0, 2.0, 3.0, 4.0], "gender": ["f", "f", "m", "m"]})
    with pytest.raises(bf.SchemaError, match=re.escape(
            "4 subjects of the score table have no attributes, e.g. ['1', '2', '3', '4']; 4 of them are the number "
            "of a subject of the attributes written otherwise (e.g. '1' and '1.0'): read the ids of both tables as "
            "text, or write them one way")):
        bf.add_subject_attributes(trials([1, 2, 3, 4]), people)
