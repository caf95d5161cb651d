"""Score tables: validation, splitting and every reader."""

from __future__ import annotations

import gzip
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf


@pytest.fixture
def table():
    return pd.DataFrame(
        {
            "score": [0.9, 0.8, 0.3, 0.1, 0.4],
            "mated": [True, True, False, False, False],
            "reference_subject": ["a", "b", "a", "b", "c"],
            "probe_subject": ["a", "b", "b", "c", "a"],
            "group": ["x", "y", "x", "y", "x"],
        }
    )


def test_valid_table_passes_and_splits(table):
    assert bf.validate_scores(table) is table
    mated, nonmated = bf.split_scores(table)
    np.testing.assert_array_equal(mated, [0.9, 0.8])
    np.testing.assert_array_equal(nonmated, [0.3, 0.1, 0.4])


def test_one_error_lists_every_problem(table):
    bad = table.assign(score=[0.9, np.nan, np.inf, 0.1, 0.4])
    bad.loc[2, "mated"] = True  # a and b differ: contradicts the subject ids
    bad.loc[0, "group"] = None
    with pytest.raises(bf.SchemaError) as error:
        bf.validate_scores(bad)
    lines = str(error.value).splitlines()
    assert lines == [
        "invalid score table:",
        "- column 'score' has 1 NaN and 1 infinite value (first in row 1)",
        "- 1 row has 'mated' contradicting reference_subject == probe_subject, e.g. row 2 (mated True, subjects 'a' "
        "and 'b')",
        "- column 'group' has 1 missing value (first in row 0); those comparisons would have no group. Give them a "
        "group of their own, '(missing)', with read_grouped_scores(..., missing_groups='group') (biofair report "
        "--missing-groups group), or fill them yourself, e.g. scores.fillna({'group': 'unknown'})",
    ]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.drop(columns=["score", "mated"]), "missing column(s): score, mated"),
        (lambda t: t.iloc[:0], "the table has no rows"),
        (lambda t: t.assign(mated=[1, 1, 0, 0, 0]), "column 'mated' must be boolean"),
        (lambda t: t.assign(score=list("abcde")), "column 'score' must be numeric"),
        (lambda t: t[t["mated"]], "no non-mated comparisons"),
        (lambda t: t[~t["mated"]], "no mated comparisons"),
    ],
)
def test_each_problem_is_named(table, change, message):
    with pytest.raises(bf.SchemaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        bf.validate_scores(change(table))


def test_split_validates(table):
    with pytest.raises(bf.SchemaError, match="no mated comparisons"):
        bf.split_scores(table[~table["mated"]])


def test_not_a_dataframe():
    with pytest.raises(TypeError, match="scores must be a pandas DataFrame"):
        bf.validate_scores({"score": [1.0]})


def test_read_csv_with_mapping_and_word_labels(tmp_path):
    path = tmp_path / "s.csv"
    pd.DataFrame({"sc": [0.9, 0.2, 0.4], "lab": ["target", "nontarget", "Impostor"]}).to_csv(path, index=False)
    table = bf.read_scores(path, columns={"sc": "score", "lab": "mated"})
    assert table["mated"].tolist() == [True, False, False]
    assert table["score"].dtype == np.float64
    # the words of spreadsheets and database exports (PostgreSQL writes booleans as t and f)
    words = {"Yes": True, "no": False, "Y": True, "n": False, "t": True, "F": False, "non_mated": False,
             "Imposter": False, "MATED": True}
    scores = [0.9 if mated else 0.1 for mated in words.values()]
    pd.DataFrame({"score": scores, "mated": list(words)}).to_csv(path, index=False)
    assert bf.read_scores(path)["mated"].tolist() == list(words.values())


def test_read_parquet_and_distances(tmp_path):
    path = tmp_path / "s.parquet"
    pd.DataFrame({"score": [0.1, 0.8, 0.7], "mated": [1, 0, 0]}).to_parquet(path)
    table = bf.read_scores(path, greater_is_match=False)
    assert table["score"].tolist() == [-0.1, -0.8, -0.7]
    assert table["mated"].tolist() == [True, False, False]
    # Negating distances keeps the metric of the similarity view.
    assert bf.roc_auc(*bf.split_scores(table)) == 1.0


def test_one_class_groups_keep_reads_a_group_without_one_class_and_still_needs_two_groups(tmp_path):
    table = bf.read_scores(bf.datasets.example_scores_path())
    lacking = table[~((table["group"] == "C") & table["mated"])]
    lacking.to_csv(tmp_path / "lacking.csv", index=False)
    with pytest.raises(bf.SchemaError, match="group 'C' has 0 mated and"):
        bf.read_grouped_scores(tmp_path / "lacking.csv")
    kept = bf.read_grouped_scores(tmp_path / "lacking.csv", one_class_groups="keep")
    assert len(kept) == len(lacking) and sorted(kept["group"].unique()) == ["A", "B", "C"]
    table[table["group"] == "A"].to_csv(tmp_path / "one.csv", index=False)
    with pytest.raises(bf.SchemaError, match="fairness needs at least two groups"):
        bf.read_grouped_scores(tmp_path / "one.csv", one_class_groups="keep")


def test_parquet_integer_labels_with_missing_values_stay_integers(tmp_path):
    """pandas reads an integer column with nulls as floats: the labels were "1.0" and "2.0"
    (and an id beyond 2**53 lost its last digits)."""
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({
        "sim": [0.9, 0.1, 0.8, 0.2, 0.3, 0.7, 0.6, 0.5],
        "mated": [True, False, True, False, False, True, False, True],
        "group": pa.array([1, 1, 2, 2, None, 1, 2, None], pa.int64()),
        "session": pa.array([2**63 + 5, 1, 3, 4, None, 6, 7, 8], pa.uint64()),  # not a canonical column
    }), path)
    table = bf.read_grouped_scores(path, columns={"sim": "score"}, missing_groups="group")
    assert table["group"].tolist() == ["1", "1", "2", "2", "(missing)", "1", "2", "(missing)"]
    assert table["session"][0] == str(2**63 + 5) and pd.isna(table["session"][4])
    assert table["score"].tolist() == [0.9, 0.1, 0.8, 0.2, 0.3, 0.7, 0.6, 0.5]
    # written by pandas with a named index: the index is restored as the row labels, and is a column too
    indexed = tmp_path / "indexed.parquet"
    pd.read_parquet(path).assign(group=lambda t: t["group"].astype("Int64")).set_axis(
        pd.Index(range(10, 18), name="row")).to_parquet(indexed)
    again = bf.read_grouped_scores(indexed, columns={"sim": "score"}, missing_groups="group")
    assert again["group"].tolist() == table["group"].tolist() and again.index.tolist() == list(range(10, 18))
    assert again["row"].tolist() == [str(row) for row in range(10, 18)]


@pytest.mark.parametrize("values", [[["A"], ["B"]] * 3, [{"name": "A"}, {"name": "B"}] * 3])
def test_a_parquet_column_of_lists_or_records_is_refused_as_labels(tmp_path, values):
    """A group column of lists was read as groups "['A']" and "['B']" (a hostile-input audit of the CLI)."""
    table = pd.DataFrame({"score": [0.9, 0.2, 0.8, 0.1, 0.7, 0.3], "mated": [True, False] * 3, "group": values})
    table.to_parquet(tmp_path / "nested.parquet")
    with pytest.raises(bf.SchemaError, match=r"nested\.parquet: column 'group' holds values of type (list|struct)<.*> "
                                             r"\(lists or records\), not one label per row"):
        bf.read_scores(tmp_path / "nested.parquet")
    table.assign(group=[v[0] if isinstance(v, list) else v["name"] for v in values]).to_parquet(tmp_path / "flat.parquet")
    assert bf.group_labels(bf.read_scores(tmp_path / "flat.parquet")).tolist() == ["A", "B"] * 3


def test_columns_that_pandas_stored_as_the_index_of_a_parquet_file_are_read(tmp_path):
    """``table.set_index(["system", "reference_subject"]).to_parquet(path)``: both columns were
    lost without a word; the rows of two systems were pooled, and the bootstrap went by pair."""
    table = bf.synthetic.demographic_scores(rng=0)
    table["system"] = "A"
    table.set_index(["system", "reference_subject"]).to_parquet(tmp_path / "a.parquet")
    read = bf.read_scores(tmp_path / "a.parquet")
    pd.testing.assert_frame_equal(read[table.columns].reset_index(drop=True), table, check_dtype=False)
    assert read.index.names == [None, None]  # row labels, never a second "system"
    two = pd.concat([table, table.assign(system="B", score=table["score"] + 1)])
    two.set_index(["system", "reference_subject"]).to_parquet(tmp_path / "two.parquet")
    with pytest.raises(bf.SchemaError, match="the table holds 2 score sets in column 'system'"):
        bf.fairness_discrepancy_rate(bf.read_scores(tmp_path / "two.parquet"), fmr_targets=[0.01])


def test_read_bob_four_and_five_columns(tmp_path):
    four = tmp_path / "scores-dev"
    four.write_text("s1 s1 s1/a.wav 0.9\ns1 s2 s2/b.wav 0.3\ns2 s2 s2/c.wav 0.7\n")
    table = bf.read_scores(four)
    assert table["mated"].tolist() == [True, False, True]
    assert table["probe_subject"].tolist() == ["s1", "s2", "s2"]
    five = tmp_path / "scores.txt"
    five.write_text("s1 m1 s1 p1 0.9\ns1 m1 s2 p2 0.3\n")
    table = bf.read_scores(five)
    assert table.columns.tolist() == ["reference_subject", "reference_id", "probe_subject", "probe_id", "score", "mated"]
    assert table["score"].tolist() == [0.9, 0.3]


def test_read_bob_hash_inside_a_field_is_part_of_it(tmp_path):
    """bob's readers skip a line whose first non-blank character is '#'; a '#' inside an id
    ("probe#2") is the id's, not a comment (it was cut there: a line of 3 fields, an error),
    and the lines after a comment keep their numbers in errors."""
    scores = tmp_path / "scores-dev"
    scores.write_text("# a comment\ns1 s1 probe#2 0.9\n  # indented\ns1 s2 p#3 0.1\ns2 s2 p4 0.8\n")
    table = bf.read_scores(scores)
    assert table["probe_id"].tolist() == ["probe#2", "p#3", "p4"]
    assert table["score"].tolist() == [0.9, 0.1, 0.8]
    gz = tmp_path / "scores-dev.gz"
    gz.write_bytes(gzip.compress(scores.read_bytes()))
    assert bf.read_scores(gz, format="bob")["probe_id"].tolist() == ["probe#2", "p#3", "p4"]
    scores.write_text("# a comment\ns1 s1 p1 0.9\n# another\ns1 s2 p2 extra 0.1\n")
    with pytest.raises(bf.SchemaError, match="line 4 has 5 fields, the lines before it 4"):
        bf.read_scores(scores)


def test_read_pair_of_plain_files(tmp_path):
    mated, nonmated = tmp_path / "gen.txt", tmp_path / "imp.txt"
    mated.write_text("0.9\n0.8\n")
    nonmated.write_text("0.1\n0.2\n0.3\n")
    table = bf.read_scores((mated, nonmated))
    assert table["mated"].tolist() == [True, True, False, False, False]


def test_read_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no score file"):
        bf.read_scores(tmp_path / "missing.csv")
    bad_bob = tmp_path / "three-columns"
    bad_bob.write_text("a b 0.1\n")
    with pytest.raises(bf.SchemaError, match="4 or 5 whitespace-separated columns"):
        bf.read_scores(bad_bob)
    csv = tmp_path / "s.csv"
    csv.write_text("score,mated\n0.5,maybe\n0.1,false\n")
    with pytest.raises(bf.SchemaError, match=r"1 value that is not a mated/non-mated label \(e.g. 'maybe'; first in data row 1\)"):
        bf.read_scores(csv)
    with pytest.raises(bf.SchemaError, match=r"columns \['sc'\] named in the mapping are not in the file \(it has "
                                             r"\['score', 'mated'\]\)$"):
        bf.read_scores(csv, columns={"sc": "score"})
    (tmp_path / "sim.csv").write_text("sim,label\n0.5,1\n0.1,0\n")  # the README's example had it backwards
    with pytest.raises(bf.SchemaError, match=re.escape(
            "a mapping goes from the file's names to biofair's: columns={'sim': 'score', 'label': 'mated'} "
            "(biofair report --columns sim=score,label=mated)")):
        bf.read_scores(tmp_path / "sim.csv", columns={"score": "sim", "mated": "label"})
    with pytest.raises(bf.SchemaError, match=re.escape(  # half backwards: the other pair is kept
            "columns={'sim': 'score', 'label': 'mated'} (biofair report --columns sim=score,label=mated)")):
        bf.read_scores(tmp_path / "sim.csv", columns={"score": "sim", "label": "mated"})
    nan_csv = tmp_path / "nan.csv"
    nan_csv.write_text("score,mated\n0.5,true\n,false\n")
    with pytest.raises(bf.SchemaError, match="column 'score' has 1 NaN"):
        bf.read_scores(nan_csv)
    garbage = tmp_path / "g.parquet"
    garbage.write_bytes(b"not parquet")
    with pytest.raises(bf.SchemaError, match="could not read"):
        bf.read_scores(garbage)


@pytest.mark.parametrize("column, values", [("system", ["A", "B"]), ("split", ["dev", "eval"])])
def test_a_metric_refuses_to_pool_systems_or_splits(column, values):
    """'system' and 'split' are canonical columns, and every metric pooled their values
    (FDR with thresholds and rates on development and evaluation rows together)."""
    table = pd.read_csv(bf.datasets.example_scores_path())
    both = table.assign(**{column: np.where(np.arange(len(table)) % 2, *values)})
    assert bf.validate_scores(both) is both  # a table may hold both; a metric on all its rows may not
    message = rf"^the table holds 2 score sets in column '{column}' \('{values[1]}', '{values[0]}'\), whose rows a metric would pool: "
    for metric in (bf.split_scores, bf.scores_by_group, bf.group_sizes, lambda t: bf.cross_group_fmr(t, threshold=0.5),
                   lambda t: bf.fairness_discrepancy_rate(t, fmr_targets=[0.1]), lambda t: bf.bootstrap(bf.eer, t),
                   lambda t: bf.differential_report(t, threshold=0.5),
                   lambda t: bf.permutation_null(lambda s: 0.0, t, unit="pair")):
        with pytest.raises(bf.SchemaError, match=message):
            metric(both)
    one = both[both[column] == values[0]]
    assert bf.split_scores(one)[0].size == one["mated"].sum()
    pd.testing.assert_frame_equal(bf.fairness_discrepancy_rate(both[both[column] == values[1]], fmr_targets=[0.1]),
                                  bf.fairness_discrepancy_rate(table.iloc[0::2], fmr_targets=[0.1]))


def test_subject_ids_stored_as_categoricals_of_other_categories_are_compared_as_values():
    """Dictionary-encoded subject columns (a Parquet file's) with different categories: the
    check of 'mated' against the ids raised pandas' "Categoricals can only be compared if
    'categories' are the same"."""
    table = pd.DataFrame({"score": [0.9, 0.1, 0.8], "mated": [True, False, False],
                          "reference_subject": pd.Categorical(["a", "b", "c"]),
                          "probe_subject": pd.Categorical(["a", "d", "c"])})
    with pytest.raises(bf.SchemaError, match="1 row has 'mated' contradicting reference_subject == probe_subject"):
        bf.validate_scores(table)
    assert bf.validate_scores(table.assign(mated=[True, False, True])) is not None


def test_a_count_of_contradicting_rows_has_thousands_separators():
    """The count was written as Python prints an int (1500), unlike every other count of the messages."""
    table = pd.DataFrame({"score": np.linspace(0, 1, 1_500), "mated": True,
                          "reference_subject": "a", "probe_subject": "b"})
    with pytest.raises(bf.SchemaError, match="1,500 rows have 'mated' contradicting reference_subject == probe_subject"):
        bf.validate_scores(table)


def test_numeric_subject_ids_are_quoted_as_numbers():
    """Integer ids were quoted as NumPy writes them: "subjects np.int64(315) and np.int64(315)"."""
    table = pd.DataFrame({"score": [0.9, 0.1], "mated": [True, False],
                          "reference_subject": np.array([1, 315]), "probe_subject": np.array([1, 315])})
    with pytest.raises(bf.SchemaError, match=re.escape("e.g. row 1 (mated False, subjects 315 and 315)")):
        bf.validate_scores(table)


def test_contradictions_made_by_spaces_around_an_id_are_named(table):
    """"s2 " and "s2" are two ids as written: a mated pair typed so was refused as a
    contradiction without a word on why."""
    padded = table.assign(reference_subject=["a", "b ", "a", "b", "c"], probe_subject=["a", "b", "b", "c", " a"],
                          mated=[True, True, False, False, True])
    with pytest.raises(bf.SchemaError) as error:
        bf.validate_scores(padded)
    assert str(error.value).splitlines()[1] == (
        "- 2 rows have 'mated' contradicting reference_subject == probe_subject, e.g. row 4 (mated True, subjects "
        "'c' and ' a') (1 of them only because of spaces "
        "around an id, e.g. row 1: 'b ' and 'b'; strip the ids, table[column].str.strip(), if they name one subject)"
    )
    other = table.assign(mated=[True, True, True, False, False])  # a real contradiction: no advice
    with pytest.raises(bf.SchemaError, match=r"1 row has 'mated' contradicting reference_subject == probe_subject, "
                                             r"e.g. row 2 \(mated True, subjects 'a' and 'b'\)$"):
        bf.validate_scores(other)


def test_reading_warns_of_subject_ids_that_differ_only_by_spaces(tmp_path):
    """A subject written "s2" in one row and "s2 " in another is two subjects to a bootstrap by
    subject: read without a word, its comparisons were resampled as two people's."""
    text = ("score,mated,reference_subject,probe_subject\n0.9,1,s1,s1\n0.2,0,s1,s2\n0.8,1,s2 ,s2 \n"
            "0.1,0,s2,s1\n0.7,1,s3,s3\n0.3,0,s3, s1\n0.6,1,s4 ,s4 \n")
    (tmp_path / "padded.csv").write_text(text)
    with pytest.warns(UserWarning) as caught:
        read = bf.read_scores(tmp_path / "padded.csv")
    assert [str(w.message) for w in caught] == [
        "column(s) ['reference_subject', 'probe_subject'] hold subject ids that differ only by surrounding spaces "
        "(2 such set(s) of ids: 's1', ' s1'; 's2 ', 's2'): each is kept as a subject of its own, so a bootstrap or "
        "permutation by subject treats their comparisons as different people's. Strip them "
        "(table[column].str.strip()) if they name one subject"
    ]
    assert read["reference_subject"].tolist()[2] == "s2 "  # kept as written
    (tmp_path / "clean.csv").write_text(text.replace(" ,", ",").replace(" \n", "\n").replace(", ", ","))
    (tmp_path / "one.csv").write_text("score,mated,reference_subject,probe_subject\n0.9,1,s4 ,s4 \n0.2,0,s4 ,s5\n")
    for name in ("clean.csv", "one.csv"):  # "s4 " written alike everywhere is one subject: no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            bf.read_scores(tmp_path / name)


def test_a_folder_or_a_pipe_is_named_as_such(tmp_path):
    """A folder or a named pipe given as the score file was "no score file at ...", though the
    path exists (and reading a pipe would wait for a writer)."""
    import os

    (tmp_path / "scores.csv").mkdir()
    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(bf.SchemaError, match=r"scores\.csv is a folder, not a score file$"):
        bf.read_scores(tmp_path / "scores.csv")
    with pytest.raises(bf.SchemaError, match=r"pipe\.csv is not a regular file \(a pipe, socket or device\?\)"):
        bf.read_scores(tmp_path / "pipe.csv")
    with pytest.raises(bf.SchemaError, match=r"scores\.csv is a folder, not a mated score list$"):
        bf.read_scores((tmp_path / "scores.csv", tmp_path / "pipe.csv"))
    with pytest.raises(FileNotFoundError, match=r"no score file at .*absent\.csv$"):
        bf.read_scores(tmp_path / "absent.csv")
    with pytest.raises(bf.SchemaError, match=r"scores\.csv is a folder, not a subject attribute file$"):
        bf.read_grouped_scores(bf.datasets.example_scores_path(), subjects=tmp_path / "scores.csv")


def test_a_spreadsheets_empty_rows_are_left_out_with_a_warning_and_a_comment_header_is_named(tmp_path):
    """Excel saves rows it once formatted as ",,,,": they were refused as "'mated' has 2 values
    that are not a mated/non-mated label (e.g. nan ...)". A comment line before the header was
    blamed on "a separator at the end of each data row"."""
    text = bf.datasets.example_scores_path().read_text()
    (tmp_path / "excel.csv").write_text(text + ",,,,\n,,,,\n")
    with pytest.warns(UserWarning) as caught:
        read = bf.read_scores(tmp_path / "excel.csv")
    assert [str(w.message) for w in caught] == [
        "2 data rows of 'excel.csv' are empty in every column (the first is data row 7921; a spreadsheet's "
        "trailing rows?): they hold no comparison and are left out"
    ]
    pd.testing.assert_frame_equal(read, bf.read_scores(bf.datasets.example_scores_path()))
    lines = text.splitlines()  # a blank line and a line of spaces, read as rows (they keep the rows' numbers)
    (tmp_path / "gaps.csv").write_text("\n".join([*lines[:3], "", "   ", *lines[3:]]) + "\n")
    with pytest.warns(UserWarning, match=r"^2 data rows of 'gaps\.csv' are empty in every column \(the first is data row 3;"):
        gaps = bf.read_scores(tmp_path / "gaps.csv")
    assert gaps["score"].tolist() == read["score"].tolist()
    (tmp_path / "comment.csv").write_text("# exported on Monday\n" + text)
    with pytest.raises(bf.SchemaError, match=r"comment\.csv starts with a comment line \('# exported on Monday'\), "
                                             r"not with the header of its columns: delete the comment lines$"):
        bf.read_scores(tmp_path / "comment.csv")
    (tmp_path / "hole.csv").write_text(text.replace("\n", "\n,,,,True\n", 1))  # not empty: its mated label
    with pytest.raises(bf.SchemaError, match=r"column 'score' has 1 NaN"):
        bf.read_scores(tmp_path / "hole.csv")
    (tmp_path / "unlabelled.csv").write_text(text.replace("\n", "\n,,,0.5,\n", 1))
    with pytest.raises(bf.SchemaError, match=r"not a mated/non-mated label \(e\.g\. an empty cell; first in data row 1\)"):
        bf.read_scores(tmp_path / "unlabelled.csv")


def test_system_split_and_subject_columns_named_otherwise_are_refused(tmp_path):
    """A 'System' column (capital S) was ignored, and two systems pooled without a word, where
    'system' is refused; 'Reference Subject' made a bootstrap by subject one by pair. A column
    the grouping reads, or a system column of one value, is no such column."""
    table = bf.read_scores(bf.datasets.example_scores_path())
    misnamed = table.rename(columns={"reference_subject": "Reference Subject"}).assign(System=["a", "b"] * 3960)
    misnamed.to_csv(tmp_path / "s.csv", index=False)
    with pytest.raises(bf.SchemaError) as error:
        bf.read_scores(tmp_path / "s.csv")
    assert str(error.value) == (
        "column(s) 'Reference Subject', 'System' would be ignored, as only the name(s) 'reference_subject', "
        "'system' are read: comparisons would be resampled one by one, not by subject; the rows of several "
        "systems would be pooled. Rename them, e.g. columns={'Reference Subject': 'reference_subject', 'System': "
        "'system'} (biofair report --columns 'Reference Subject=reference_subject,System=system')")
    renamed = bf.read_scores(tmp_path / "s.csv", columns={"System": "system", "Reference Subject": "reference_subject"})
    assert set(renamed["system"]) == {"a", "b"}
    unlinked = table.drop(columns=["reference_subject", "probe_subject"])
    for name in (" split", "PROBE-SUBJECT", "probe  subject"):
        unlinked.assign(**{name: ["x", "y"] * 3960}).to_csv(tmp_path / "u.csv", index=False)
        with pytest.raises(bf.SchemaError, match=f"^column\\(s\\) {name!r} would be ignored"):
            bf.read_scores(tmp_path / "u.csv")
    table.assign(System="a", system="a").to_csv(tmp_path / "both.csv", index=False)  # the canonical column: read
    table.assign(System="vendor v1.2").to_csv(tmp_path / "one.csv", index=False)  # one system: nothing to pool
    table.assign(Split=table["group"]).to_csv(tmp_path / "by.csv", index=False)  # what the grouping reads
    for path, by in (("both.csv", "group"), ("one.csv", "group"), ("by.csv", "Split")):
        assert len(bf.read_grouped_scores(tmp_path / path, by=by)) == len(table)
    bf.validate_scores(misnamed)  # a table in memory: its columns are named as its maker chose


def test_a_file_s_rows_are_named_as_the_file_numbers_them(tmp_path):
    """Messages about a table just read named its first data row "row 0", where the reader's
    own messages said "data row 1". Rows left out (empty in every column) keep their numbers;
    a Parquet file's stored index is named by its labels; the table returned carries no trace."""
    table = bf.read_scores(bf.datasets.example_scores_path())
    lines = bf.datasets.example_scores_path().read_text().splitlines()
    lines[5] = lines[5].replace(",True", ",maybe").replace(",False", ",maybe")  # data row 5
    lines[3] = ",,,,"  # data row 3, left out with a warning
    (tmp_path / "s.csv").write_text("\n".join(lines) + "\n")
    with pytest.warns(UserWarning, match="it is data row 3"):
        with pytest.raises(bf.SchemaError, match=r"e\.g\. 'maybe'; first in data row 5\)"):
            bf.read_scores(tmp_path / "s.csv")
    holed = table.assign(group=table["group"].where(table.index != 41))
    holed.to_parquet(tmp_path / "s.parquet")
    with pytest.raises(bf.SchemaError, match=r"'group' has 1 missing value \(first in data row 42\)"):
        bf.read_grouped_scores(tmp_path / "s.parquet")
    holed.set_axis([f"t{i}" for i in range(len(holed))]).rename_axis("trial").to_parquet(tmp_path / "i.parquet")
    with pytest.raises(bf.SchemaError, match=r"'group' has 1 missing value \(first in row 't41'\)"):
        bf.read_grouped_scores(tmp_path / "i.parquet")
    for read in (table, bf.read_grouped_scores(bf.datasets.example_scores_path())):
        assert set(read.attrs) <= {"score_dtype", "missing_groups"}
    with pytest.raises(bf.SchemaError, match=r"\(first in row 41\)"):  # in memory: the row label
        bf.validate_scores(holed)
    with pytest.raises(bf.SchemaError, match=r"\(first in row 41\)"):  # a NumPy label, not "np.int64(41)"
        bf.validate_scores(holed.set_axis(holed.index.to_numpy(dtype=np.int64)))  # an Index, not a RangeIndex
    blank = lines[:5] + ["", ""] + lines[5:]  # blank lines were not counted: data row 5 was called 3
    (tmp_path / "blank.csv").write_text("\n".join(blank) + "\n")
    with pytest.warns(UserWarning, match=r"^3 data rows of 'blank\.csv' are empty"):  # with the ",,,," row above
        with pytest.raises(bf.SchemaError, match=r"first in data row 7\)"):
            bf.read_scores(tmp_path / "blank.csv")
    rows = [f"{r} {p} {p}/{i} {s}" for i, (r, p, s) in enumerate(zip(table["reference_subject"], table["probe_subject"],
                                                                     table["score"].astype(str)))]
    rows[9] = rows[9].rsplit(" ", 1)[0] + " abc"
    (tmp_path / "scores-dev").write_text("# a bob file\n" + "\n".join(rows[:5]) + "\n\n" + "\n".join(rows[5:]) + "\n")
    with pytest.raises(bf.SchemaError, match=r"first in comparison 10\)"):  # its comment and blank lines left out
        bf.read_scores(tmp_path / "scores-dev")
    first = table.groupby(["group", "mated"]).head(5)  # 30 rows of each group and class
    copied = pd.concat([first, first])  # data rows 31-60 repeat 1-30
    text = copied.to_csv(index=False).splitlines()
    (tmp_path / "copied.csv").write_text("\n".join(text[:3] + [",,,,"] + text[3:]) + "\n")
    with pytest.warns(UserWarning) as caught:
        bf.read_grouped_scores(tmp_path / "copied.csv")
    assert any(str(w.message).startswith("30 rows, from data row 32 on, repeat earlier rows in every column and "
                                         "in the same order (from data row 1 on)") for w in caught), [str(w.message) for w in caught]


@pytest.mark.parametrize("page", [
    "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body>Not Found</body></html>\n",
    '<html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"></head></html>\n',
    "  <!doctype HTML>\n<html>\n<body>Sign in, then try again</body>\n</html>\n",
])
def test_a_web_page_saved_as_a_score_file_is_named(tmp_path, page):
    """A page saved in place of the file (a 404, a sign-in) got the advice of a file separated by
    spaces, of a decimal comma, or of a missing group column (a hostile-input audit of the CLI)."""
    (tmp_path / "scores.csv").write_text(page)
    with pytest.raises(bf.SchemaError, match=r"scores\.csv is a web page \(HTML, first line .*\), not a score file: "
                                             r".* Download the file itself$"):
        bf.read_scores(tmp_path / "scores.csv")


def test_files_of_other_kinds_are_named_and_pandas_index_columns_are_read(tmp_path):
    """Each was a raw exception or another fault's advice: JSON ("duplicate column names" by the
    thousand), a gzipped Parquet file ("Parquet magic bytes not found"), a CSV written with
    pandas' index (AttributeError: "Can only use .str accessor with string values")."""
    table = bf.read_scores(bf.datasets.example_scores_path())
    table.to_json(tmp_path / "s.json", orient="records")
    table.to_json(tmp_path / "s.jsonl", orient="records", lines=True)
    for name, lines in (("s.json", False), ("s.jsonl", True)):
        with pytest.raises(bf.SchemaError) as error:
            bf.read_scores(tmp_path / name)
        advice = f"python -c \"import pandas as pd; pd.read_json('{tmp_path / name}', lines={lines}).to_csv('s-table.csv', index=False)\""
        assert str(error.value).startswith(f"{tmp_path / name} holds JSON (first line ")
        assert str(error.value).endswith(f"which biofair does not read: convert it to CSV, e.g. {advice}")
    table.to_parquet(tmp_path / "s.parquet")
    with open(tmp_path / "s.parquet", "rb") as plain, gzip.open(tmp_path / "s.parquet.gz", "wb") as packed:
        packed.write(plain.read())
    with pytest.raises(bf.SchemaError, match=r"s\.parquet\.gz is a gzip-compressed file; a Parquet file is "
                                             r"compressed inside and is read as it is written: decompress it first$"):
        bf.read_scores(tmp_path / "s.parquet.gz")
    table.to_csv(tmp_path / "indexed.csv")  # pandas' default: the index as a first, unnamed column
    read = bf.read_scores(tmp_path / "indexed.csv")
    pd.testing.assert_frame_equal(read.drop(columns="Unnamed: 0"), table)
    assert read["Unnamed: 0"].tolist() == list(range(len(table)))


def test_a_parquet_column_that_arrow_cannot_convert_is_a_schema_error(tmp_path):
    """A struct column under pandas metadata that says text: Arrow's ArrowNotImplementedError
    came out raw ("Unsupported cast from struct<g: string> to large_utf8")."""
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    table = bf.read_scores(bf.datasets.example_scores_path())
    stored = pa.Table.from_pandas(table, preserve_index=False)
    where = stored.schema.get_field_index("group")
    stored = stored.set_column(where, "group", pa.array([{"g": g} for g in table["group"]]))
    pq.write_table(stored, tmp_path / "struct.parquet")
    with pytest.raises(bf.SchemaError, match=r"could not read .*struct\.parquet as a score file: Unsupported cast "
                                             r"from struct<g: string>"):
        bf.read_scores(tmp_path / "struct.parquet")
