"""Audit of biofair/groups.py: the group of every comparison, the counts per group and the
per-group and cross-group rates, against loops over the rows of small random and
hand-made tables (pair-level and per-side columns, several attributes, labels holding the
separator, ties at the thresholds); and the joins of add_subject_attributes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biofair as bf

# -- loops over rows ----------------------------------------------------------------------------


def sides_of(table: pd.DataFrame, attributes: list[str]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The labels (as text) of the reference and of the probe side of every row."""
    rows = []
    for i in range(len(table)):
        row = table.iloc[i]
        reference = tuple(str(row[a] if a in table.columns else row[f"reference_{a}"]) for a in attributes)
        probe = tuple(str(row[a] if a in table.columns else row[f"probe_{a}"]) for a in attributes)
        rows.append((reference, probe))
    return rows


def namer(combinations: set[tuple[str, ...]]):
    """How group_labels names a combination: labels joined by " / ", every one quoted when
    one of the named combinations holds a "/"."""
    quote = any(len(c) > 1 and "/" in label for c in combinations for label in c)
    return lambda combination: " / ".join(repr(label) if quote else label for label in combination)


def loop_groups(table: pd.DataFrame, attributes: list[str]) -> tuple[list[str | None], list[str]]:
    """The group of every row (None: a heterogeneous pair) and the names of all groups: every
    label, or combination of labels, that either side of a row has (one seen only in
    heterogeneous pairs is a group without comparisons of its own)."""
    sides = sides_of(table, attributes)
    combinations = {c for pair in sides for c in pair}
    name = namer(combinations)
    return [name(r) if r == p else None for r, p in sides], sorted(map(name, combinations))


def random_table(rng: np.random.Generator, labels: list[str], n_attributes: int, *, pair_level_first: bool
                 ) -> tuple[pd.DataFrame, list[str]]:
    """Scores on a grid of five values (ties at every threshold below), a third mated, per-side
    attributes whose sides differ in some non-mated rows; the first attribute pair-level if told."""
    n = int(rng.integers(12, 40))
    mated = rng.random(n) < 0.35
    table = pd.DataFrame({"score": rng.integers(0, 5, n) / 4, "mated": mated})
    subjects = rng.integers(0, 6, n)
    table["reference_subject"] = [f"s{s}" for s in subjects]
    table["probe_subject"] = [f"s{s}" for s in np.where(mated, subjects, (subjects + 1 + rng.integers(0, 5, n)) % 6)]
    attributes = [f"a{k}" for k in range(n_attributes)]
    for k, attribute in enumerate(attributes):
        reference = rng.choice(labels, n)
        if k == 0 and pair_level_first:
            table[attribute] = reference
            continue
        table[f"reference_{attribute}"] = reference
        table[f"probe_{attribute}"] = np.where(mated | (rng.random(n) < 0.7), reference, rng.choice(labels, n))
    return table, attributes


LABELS = [["x", "y"], ["a/b", "a", "b"], ["1", "2", "x / y"], ["f", "m", "f / m"]]
CASES = [(seed, labels, n_attributes, pair_level_first) for seed in range(6) for labels in LABELS
         for n_attributes in (1, 2, 3) for pair_level_first in (False, True)]


@pytest.mark.parametrize(("seed", "labels", "n_attributes", "pair_level_first"), CASES)
def test_groups_sizes_and_cross_group_fmr_equal_loops(seed, labels, n_attributes, pair_level_first):
    rng = np.random.default_rng(seed)
    table, attributes = random_table(rng, labels, n_attributes, pair_level_first=pair_level_first)
    by = attributes if n_attributes > 1 else attributes[0]
    of_row, names = loop_groups(table, attributes)

    got = bf.group_labels(table, by=by)
    assert [None if label is np.nan else label for label in got] == of_row
    assert got.index.equals(table.index)

    sizes = bf.group_sizes(table, by=by, min_mated=1, min_nonmated=1, min_subjects=1)
    n_cross = of_row.count(None)
    assert sorted(sizes.index) == sorted(names + (["(cross-group)"] if n_cross else []))
    for name in names:
        rows = [i for i, group in enumerate(of_row) if group == name]
        assert sizes.loc[name, "n_mated"] == sum(bool(table["mated"].iloc[i]) for i in rows)
        assert sizes.loc[name, "n_nonmated"] == sum(not table["mated"].iloc[i] for i in rows)
        assert sizes.loc[name, "n_subjects"] == len({table["reference_subject"].iloc[i] for i in rows})
    if n_cross:
        assert sizes.loc["(cross-group)", "n_nonmated"] == n_cross
    assert sizes["n_mated"].sum() + sizes["n_nonmated"].sum() == len(table)  # every row counted once

    if pair_level_first:
        return
    threshold = float(rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]))  # on the grid: ties at the threshold
    matrix = bf.cross_group_fmr(table, threshold, by=by)
    sides = sides_of(table, attributes)
    name = namer({c for pair in sides for c in pair})
    all_names = [name(c) for c in sorted({c for pair in sides for c in pair})]  # by labels, not by name
    assert list(matrix.index) == list(matrix.columns) == all_names
    cells: dict[tuple[str, str], list[bool]] = {}
    for (reference, probe), score, mated in zip(sides, table["score"], table["mated"]):
        if not mated:
            cells.setdefault((name(reference), name(probe)), []).append(score >= threshold)
    for reference in all_names:
        for probe in all_names:
            accepted = cells.get((reference, probe))
            if accepted is None:
                assert np.isnan(matrix.loc[reference, probe])
            else:
                assert matrix.loc[reference, probe] == sum(accepted) / len(accepted)


@pytest.mark.parametrize("seed", range(8))
def test_rates_by_group_equal_loops_at_unsorted_repeated_and_tied_thresholds(seed):
    rng = np.random.default_rng(100 + seed)
    n = 60
    table = pd.DataFrame({"score": rng.integers(0, 5, n) / 4, "mated": np.arange(n) % 3 == 0,
                          "group": np.array(["b", "a / c", "a"])[np.arange(n) % 9 // 3]})
    table = table.sample(frac=1, random_state=seed).set_axis(np.zeros(n, dtype=int))  # a duplicated index
    thresholds = [0.5, -1.0, 0.25, 0.5, 2.0, 0.0, 1.0]
    rates = bf.rates_by_group(table, thresholds)
    assert rates["threshold"].tolist() == thresholds * 3  # each group, the thresholds as given
    for row in rates.itertuples():
        mask = (table["group"] == row.group).to_numpy()
        mated = table["score"][mask & table["mated"].to_numpy()].tolist()
        nonmated = table["score"][mask & ~table["mated"].to_numpy()].tolist()
        assert (row.n_mated, row.n_nonmated) == (len(mated), len(nonmated))
        assert row.false_matches == sum(s >= row.threshold for s in nonmated)
        assert row.false_non_matches == sum(s < row.threshold for s in mated)
        assert row.fmr == row.false_matches / len(nonmated) and row.fnmr == row.false_non_matches / len(mated)


def test_rates_by_group_decide_float32_scores_at_their_stored_values():
    scores = np.array([0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2], dtype=np.float32)
    table = pd.DataFrame({"score": scores, "mated": [True, False] * 4, "group": list("aabbaabb")})
    rates = bf.rates_by_group(table, [0.1, float(np.float32(0.1)), 0.2]).set_index(["group", "threshold"])
    for threshold in (0.1, float(np.float32(0.1)), 0.2):
        nonmated = scores[1::2].astype(float)
        assert rates.loc[("a", threshold), "false_matches"] == sum(float(s) >= threshold for s in nonmated[[0, 2]])


# -- findings -----------------------------------------------------------------------------------


def test_group_sizes_count_the_subjects_of_a_group_seen_only_in_cross_group_pairs():
    """Before: pandas' "Length of values (2) does not match length of index (3)" (the subjects
    were counted per group present, and group 'b' had no homogeneous comparison)."""
    table = pd.DataFrame({"score": [0.9, 0.8, 0.2, 0.3, 0.4, 0.1], "mated": [True, True, False, False, False, False],
                          "reference_group": ["a", "c", "a", "c", "a", "b"],
                          "probe_group": ["a", "c", "a", "c", "b", "c"],
                          "reference_subject": ["s1", "s2", "s1", "s2", "s1", "s3"],
                          "probe_subject": ["s1", "s2", "s4", "s5", "s3", "s2"]})
    sizes = bf.group_sizes(table, min_mated=1, min_nonmated=1, min_subjects=1)
    assert sizes.loc[["a", "b", "c"], "n_subjects"].tolist() == [1, 0, 1]
    assert sizes.loc[["a", "b", "c"], "n_mated"].tolist() == [1, 0, 1]
    assert sizes.loc["b", "small"]
    assert sizes.loc["(cross-group)", "n_nonmated"] == 2


def test_cross_group_fmr_names_the_groups_of_one_attribute_as_they_are_written():
    """Before: a label of one attribute holding "/" was quoted as if joined to another
    ("'a/b'"), every label with it, and the mated groups added unquoted: a matrix of four rows
    and columns, two of them NaN, for two groups."""
    table = pd.DataFrame({"score": [0.9, 0.8, 0.2, 0.3, 0.4], "mated": [True, True, False, False, False],
                          "reference_group": ["a/b", "c", "a/b", "c", "a/b"],
                          "probe_group": ["a/b", "c", "a/b", "c", "c"]})
    matrix = bf.cross_group_fmr(table, 0.25)
    assert list(matrix.index) == list(matrix.columns) == sorted(bf.group_labels(table).dropna().unique()) == ["a/b", "c"]
    np.testing.assert_array_equal(matrix.to_numpy(), [[0.0, 1.0], [np.nan, 1.0]])


def test_cross_group_fmr_orders_number_labels_by_value_as_rates_by_group_does():
    """Before: rows and columns were sorted by their names as text (10, 2, 9), while
    rates_by_group and group_sizes list the groups by value (2, 9, 10)."""
    table = pd.DataFrame({"score": [0.9, 0.6, 0.2, 0.7, 0.3, 0.4, 0.8, 0.95, 0.1],
                          "mated": [True, False, False, False, False, False, True, True, False],
                          "reference_group": [10, 10, 10, 2, 9, 2, 2, 9, 2],
                          "probe_group": [10, 10, 2, 10, 9, 9, 2, 9, 2]})
    matrix = bf.cross_group_fmr(table, 0.5)
    names = ["2", "9", "10"]
    assert list(matrix.index) == list(matrix.columns) == list(bf.rates_by_group(table, 0.5)["group"]) == names
    # reference 2: probes 2 (0.1), 9 (0.4) and 10 (0.7); reference 9: probe 9 (0.3); reference 10: 10 (0.6), 2 (0.2)
    np.testing.assert_array_equal(matrix.to_numpy(), [[0.0, 0.0, 1.0], [np.nan, 0.0, np.nan], [0.0, np.nan, 1.0]])


def test_cross_group_fmr_names_a_group_of_mated_comparisons_alone_as_the_others():
    """Before: the group of mated comparisons alone was named from the mated rows, without
    the quotes that a "/" in a non-mated row's label calls for: rows and columns "a / u" and
    "b / u" of NaN beside "'a' / 'u'" and "'b' / 'u'"."""
    table = pd.DataFrame({"score": [0.9, 0.8, 0.2, 0.3, 0.4], "mated": [True, True, False, False, False],
                          "reference_g": ["a", "b", "a", "a/x", "a"], "probe_g": ["a", "b", "a", "a/x", "b"],
                          "reference_h": ["u"] * 5, "probe_h": ["u"] * 5})
    matrix = bf.cross_group_fmr(table, 0.25, by=["g", "h"])
    names = ["'a' / 'u'", "'a/x' / 'u'", "'b' / 'u'"]
    assert list(matrix.index) == list(matrix.columns) == names
    assert set(bf.group_labels(table, by=["g", "h"]).dropna()) <= set(names)
    expected = pd.DataFrame([[0.0, np.nan, 1.0], [np.nan, 1.0, np.nan], [np.nan] * 3], index=names, columns=names)
    np.testing.assert_array_equal(matrix.to_numpy(), expected.to_numpy())


def test_cross_group_fmr_reads_the_per_side_columns_beside_a_pair_level_one():
    """Before: the mated comparisons' groups were read from the pair-level column g (F, M),
    which added rows and columns of NaN beside the per-side groups and missed group c, whose
    only comparison is mated."""
    table = pd.DataFrame({"score": [0.9, 0.8, 0.2, 0.3, 0.4], "mated": [True, True, False, False, False],
                          "reference_g": ["a", "c", "a", "b", "a"], "probe_g": ["a", "c", "a", "b", "b"],
                          "g": ["F", "M", "F", "M", "F"]})
    matrix = bf.cross_group_fmr(table, 0.25, by="g")
    assert list(matrix.index) == list(matrix.columns) == ["a", "b", "c"]
    np.testing.assert_array_equal(matrix.to_numpy(), [[0.0, 1.0, np.nan], [np.nan, 1.0, np.nan], [np.nan] * 3])


SUBJECT_SCORES = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.3, 0.7, 0.1], "mated": [True, False] * 3,
                               "reference_subject": [1, 1, 2, 2, 3, 3], "probe_subject": [1, 2, 2, 1, 3, 2]})


@pytest.mark.parametrize("values", [pd.array([1, 2, pd.NA], dtype="Int64"), pd.array([True, False, pd.NA], dtype="boolean"),
                                    pd.Categorical(["f", "m", "m"], categories=["m", "f", "x"]),
                                    pd.array(["f", "m", pd.NA], dtype="string")],
                         ids=["Int64", "boolean", "category", "string"])
def test_subject_attributes_keep_their_dtype(values):
    """Before: a nullable integer attribute with a missing value came back as floats, so that
    its groups read '1.0' and '2.0' where the attribute table says 1 and 2; categories lost
    their order."""
    people = pd.DataFrame({"subject": [1, 2, 3], "attribute": values})
    joined = bf.add_subject_attributes(SUBJECT_SCORES, people)
    lookup = dict(zip(people["subject"], people["attribute"]))
    for side in ("reference", "probe"):
        column = joined[f"{side}_attribute"]
        assert column.dtype == people["attribute"].dtype
        expected = [lookup[s] for s in SUBJECT_SCORES[f"{side}_subject"]]
        assert [None if pd.isna(v) else v for v in column] == [None if pd.isna(v) else v for v in expected]


def test_subject_attributes_keep_nullable_integer_labels_as_written():
    people = pd.DataFrame({"subject": [1, 2, 3], "cohort": pd.array([1, 2, pd.NA], dtype="Int64")})
    joined = bf.add_subject_attributes(SUBJECT_SCORES, people).iloc[:4]  # the rows of subjects 1 and 2
    labels = bf.group_labels(joined, by="cohort")
    assert [None if label is np.nan else label for label in labels] == ["1", None, "2", None]  # 1-2, 2-1: cross


def test_subject_attributes_refuse_two_columns_of_one_name():
    """Before: pandas' "Cannot construct a Series from a DataFrame"."""
    people = pd.DataFrame([[1, "f", "x"], [2, "m", "y"], [3, "m", "y"]], columns=["subject", "gender", "gender"])
    with pytest.raises(bf.SchemaError, match=r"more than one column named \['gender'\]"):
        bf.add_subject_attributes(SUBJECT_SCORES, people)


def test_subject_attributes_equal_a_lookup_per_row_in_any_row_order():
    rng = np.random.default_rng(5)
    n = 50
    ids = np.array([f"p{i}" for i in range(8)])
    scores = pd.DataFrame({"score": rng.random(n), "mated": rng.random(n) < 0.3,
                           "reference_subject": rng.choice(ids, n), "probe_subject": rng.choice(ids, n)},
                          index=rng.integers(0, 3, n))  # a duplicated index
    people = pd.DataFrame({"subject": ids[::-1], "gender": rng.choice(["f", "m"], 8), "age": rng.integers(20, 60, 8)})
    joined = bf.add_subject_attributes(scores, people)
    table = {row.subject: row for row in people.itertuples()}
    assert joined.index.equals(scores.index)
    for i in range(n):
        for side in ("reference", "probe"):
            person = table[scores[f"{side}_subject"].iloc[i]]
            assert joined[f"{side}_gender"].iloc[i] == person.gender
            assert joined[f"{side}_age"].iloc[i] == person.age
