"""Hostile score files: each is read correctly, or refused with a message naming the fault.

Every case builds its file in ``tmp_path`` and is tried twice: through
``bf.read_grouped_scores`` (the correct table, or the error), and through ``biofair report``
in this process (exit 2 with one line naming the fault and no OUTDIR, or the up-front
analysis passes).
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import re
import subprocess
import sys
import warnings
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair import cli

from hostile import EXAMPLE, example


@dataclass
class Case:
    """A file, how it is read, and what must come out."""

    path: Path | tuple[Path, Path]
    options: dict = field(default_factory=dict)  # keyword arguments of read_grouped_scores
    error: str | None = None  # a regex the message must match: it names the column, option or value
    # asserts the correct table, or returns whether it is (a lambda's bool, asserted by test_reader)
    check: Callable[[pd.DataFrame], bool | None] | None = None
    warns: str | None = None  # a regex of the warning expected (a UserWarning the command shows)
    report_error: str | None = None  # read correctly, but refused by the report's up-front analysis


def written_labels(path: Path, column: str) -> Counter:
    """How often each label is written in a CSV column (the empty cell excluded)."""
    with open(path, newline="") as handle:
        return Counter(row[column] for row in csv.DictReader(handle) if row[column] != "")


def group_counts(table: pd.DataFrame, by="group") -> Counter:
    sizes = bf.group_sizes(table, by=by).drop(index="(cross-group)", errors="ignore")
    return Counter((sizes["n_mated"] + sizes["n_nonmated"]).to_dict())


def labelled(tmp_path, name: str, labels) -> Path:
    """The example with its group column replaced, written as CSV."""
    path = tmp_path / name
    example().assign(group=labels).to_csv(path, index=False)
    return path


def mixed_types(tmp_path) -> Case:
    # ints first, then text; "1" written both as int 1 and as text "1": one label, as written
    copies = [example().assign(score=example()["score"] + copy * 1e-6) for copy in range(8)]  # no copied rows
    table = pd.concat(copies, ignore_index=True)
    n = len(table)
    labels = np.where(np.arange(n) < n // 2, (np.arange(n) % 2 + 1), 0).astype(object)
    labels[n // 2 :] = np.where(np.arange(n - n // 2) % 2, "x", "1")
    path = tmp_path / "mixed.csv"
    table.assign(group=labels).to_csv(path, index=False)
    written = written_labels(path, "group")

    def check(read):
        assert group_counts(read) == written  # every row in the group written in its cell
        assert set(read["group"]) == {"1", "2", "x"}

    # labels drawn row by row: each subject has all three, which the report's CEI nulls (a
    # shuffle by subject) cannot keep; refused up front (the notebook failed on it before)
    return Case(path, check=check, report_error=r"^biofair report: error: 120 subjects have comparisons with "
                                                r"different labels in column\(s\) \['group'\]")


def leading_zeros(tmp_path) -> Case:
    path = labelled(tmp_path, "zeros.csv", example()["group"].map({"A": "01", "B": "1", "C": "001"}))

    def check(read):
        assert group_counts(read) == written_labels(path, "group") == Counter({"01": 2640, "1": 2640, "001": 2640})

    return Case(path, check=check, warns=r"column\(s\) \['group'\] hold labels that differ only by how a number is "
                                         r"written \(1, 1.0 and 01\): '001', '01', '1'; they are kept as separate groups")


def separators_inside_labels(tmp_path) -> Case:
    table = example()
    a = table["group"].map({"A": "a / b", "B": "a", "C": "a"})
    b = table["group"].map({"A": "c", "B": "b / c", "C": "c"})
    path = tmp_path / "composite.csv"
    table.assign(a=a, b=b).to_csv(path, index=False)

    def check(read):
        counts = group_counts(read, by=["a", "b"])
        assert counts == Counter({"'a / b' / 'c'": 2640, "'a' / 'b / c'": 2640, "'a' / 'c'": 2640})

    return Case(path, {"by": ["a", "b"]}, check=check)


def missing_label(tmp_path, label: str = "", **options) -> Case:
    """An empty label, or one of spaces (it made a group shown with a blank name)."""
    table = example()
    blank = table["reference_subject"].isin(["C10", "C11"])  # 2 subjects, 132 rows
    path = tmp_path / "blank.csv"
    table.assign(group=table["group"].where(~blank, label)).to_csv(path, index=False)
    if not options:
        return Case(path, error=r"column 'group' has 132 missing values.*--missing-groups group")

    def check(read):
        assert group_counts(read) == Counter({"A": 2640, "B": 2640, "C": 2508, "(missing)": 132})
        assert read.attrs["missing_groups"] == {"group": 132}

    return Case(path, options, check=check)


def bob_header(tmp_path) -> Case:
    """A header line on a bob file with a subject file: the subject join failed first, on
    subjects "claimed" and "real", before any check could name the header."""
    bob, people = subjects_files(tmp_path, {"A": "f", "B": "m", "C": "m"})
    bob.write_text("claimed real test score\n" + bob.read_text())
    return Case(bob, {"by": "gender", "subjects": people}, error=(
        r"scores-dev: its first line \('claimed real test score'\) is a header, which a bob score file does not have "
        r"\(its columns are reference_subject, probe_subject, probe_id, score, in that order\): delete that line, "
        r"or start it with '#'$"))


def bob_first_score_mistyped(tmp_path) -> Case:
    """A letter O in the first score was taken for a header line."""
    bob, people = subjects_files(tmp_path, {"A": "f", "B": "m", "C": "m"})
    lines = bob.read_text().splitlines()
    bob.write_text("\n".join([lines[0].rsplit(" ", 1)[0] + " 1.83O5", *lines[1:]]) + "\n")
    return Case(bob, {"by": "gender", "subjects": people},
                error=r"column 'score' must be numeric; 1 value is not a number \(e.g. '1.83O5'; first in comparison 1\)")


def na_is_a_label(tmp_path) -> Case:
    path = labelled(tmp_path, "na.csv", example()["group"].map({"A": "NA", "B": "None", "C": "null"}))
    return Case(path, check=lambda read: set(read["group"]) == {"NA", "None", "null"})


def subjects_files(tmp_path, gender: dict) -> tuple[Path, Path]:
    """A bob file of the example and a subject file with a gender per subject."""
    table = example()
    bob = tmp_path / "scores-dev"
    probe_ids = table["probe_subject"] + "/s" + table.index.astype(str)
    bob.write_text("\n".join(f"{r} {p} {i} {s}" for r, p, i, s in zip(
        table["reference_subject"], table["probe_subject"], probe_ids, table["score"])) + "\n")
    people = tmp_path / "people.csv"
    subjects = sorted(set(table["reference_subject"]) | set(table["probe_subject"]))
    pd.DataFrame({"subject": subjects, "gender": [gender.get(s[0], "") for s in subjects]}).to_csv(people, index=False)
    return bob, people


def missing_attribute(tmp_path, **options) -> Case:
    bob, people = subjects_files(tmp_path, {"A": "f", "B": "m"})  # C's subjects have no gender
    options = {"by": "gender", "subjects": people, **options}
    if "missing_groups" not in options:
        return Case(bob, options, error=r"the subject file \S+people\.csv gives no 'gender' for 40 subjects of the score "
                    r"file \('C00', 'C01', 'C02', 'C03', 'C04', \.\.\.\), in 2,640 comparisons; those comparisons would")

    def check(read):
        sizes = bf.group_sizes(read, by="gender")
        assert sizes.loc["(missing)", "n_mated"] == 240 and sizes.loc["(missing)", "n_nonmated"] == 2400
        assert sizes["n_mated"].sum() == 720 and sizes["n_nonmated"].sum() == 7200

    return Case(bob, options, check=check)


def mated_sides_differ(tmp_path) -> Case:
    table = example()
    side = table["group"].copy()
    side.iloc[0] = "B"  # a mated row of subject A00 whose probe side says B
    path = tmp_path / "sides.csv"
    table.drop(columns="group").assign(reference_group=table["group"], probe_group=side).to_csv(path, index=False)
    return Case(path, error=r"1 mated comparison has reference_group different from probe_group")


def score_list_with_ids(tmp_path) -> Case:
    mated, nonmated = tmp_path / "genuine.txt", tmp_path / "impostor.txt"
    mated.write_text("id1 0.9\nid2 0.8\n")
    nonmated.write_text("0.1\n0.3\n")
    return Case((mated, nonmated), error=r"mated score list .*genuine.txt must hold one score per line.*2 fields \('id1', '0.9'\)")


def empty_score_list(tmp_path) -> Case:
    mated, nonmated = tmp_path / "genuine.txt", tmp_path / "impostor.txt"
    mated.write_text("0.9\n0.8\n")
    nonmated.write_text("")
    return Case((mated, nonmated), error=r"impostor.txt is empty")


def text_score_list(tmp_path) -> Case:
    mated, nonmated = tmp_path / "genuine.txt", tmp_path / "impostor.txt"
    mated.write_text("0.9\nhigh\n")
    nonmated.write_text("0.1\n")
    return Case((mated, nonmated), error=r"genuine.txt must be numeric; 1 value is not a number \(e.g. 'high'; first in score number 2\)$")


def duplicate_columns(tmp_path) -> Case:
    path = tmp_path / "dup.csv"
    path.write_text("score,mated,group,score\n0.9,1,A,0.1\n0.2,0,A,0.8\n")
    return Case(path, error=r"duplicate column name\(s\) \['score'\]")


def gzipped(tmp_path) -> Case:
    path = tmp_path / "scores.csv.gz"
    with gzip.open(path, "wt") as handle:
        example().to_csv(handle, index=False)
    return Case(path, check=lambda read: pd.testing.assert_frame_equal(
        read.drop(columns="mated"), example().drop(columns="mated").astype({"group": "str"}), check_dtype=False))


def csv_named_txt(tmp_path) -> Case:
    path = tmp_path / "scores.txt"
    example().to_csv(path, index=False)
    return Case(path, check=lambda read: len(read) == len(example()))


def three_columns_named_txt(tmp_path) -> Case:
    path = tmp_path / "scores.txt"
    path.write_text("a b 0.1\na a 0.9\n")
    return Case(path, error=r"read as a bob score file .* 4 or 5 whitespace-separated columns, this one has 3\. If it is "
                            r"a table and its fields are separated by spaces, convert it to CSV, e.g\. .*"
                            r"pd\.read_csv\('.*/scores\.txt', sep=r'\\s\+'\)\.to_csv\('scores-table\.csv', index=False\)")


def quoted_decimal_commas(tmp_path) -> Case:
    """"0,5" in quotes in a comma-separated file: not numbers, with no word of why."""
    path = tmp_path / "commas.csv"
    table = example()
    table.assign(score=[f"{x:.3f}".replace(".", ",") for x in table["score"]]).to_csv(path, index=False)
    return Case(path, error=r"column 'score' must be numeric; 7,920 values are not numbers .*; they read as numbers with "
                            r"a decimal comma, in a file that also separates its fields with commas: write them with a "
                            r"decimal point, or separate the fields with ';' and read the file with "
                            r"biofair\.read_scores\(path, decimal=','\) or biofair report --decimal ,$")


def capitalised_group_header(tmp_path) -> Case:
    """"no group column for 'group'" with the column list: no word that names are case-sensitive."""
    path = tmp_path / "capitals.csv"
    example().rename(columns={"group": "Group"}).to_csv(path, index=False)
    return Case(path, error=r"no group column for 'group': .* \(the table has 'Group': names are case- and space-sensitive; "
                            r"rename them, e\.g\. scores\.rename\(columns=\{'Group': 'group'\}\) "
                            r"\(biofair report --columns 'Group=group'\)\)$")


def space_separated_read_as_csv(tmp_path) -> Case:
    """format='csv' read a table separated by spaces as one column ('group score mated'), and the
    error was of a missing group column."""
    path = tmp_path / "scores.txt"
    path.write_text("group score mated\nA 0.5 1\n")
    return Case(path, {"format": "csv"}, error=r"scores\.txt has no comma or tab in its first line \('group score mated'\): "
                                              r"if its fields are separated by spaces, convert it to CSV")


def renamed_onto_existing(tmp_path) -> Case:
    path = tmp_path / "sim.csv"
    example().assign(sim=example()["score"]).to_csv(path, index=False)
    return Case(path, {"columns": {"sim": "score"}}, error=r"columns maps 'sim' to 'score', but the file already has a column 'score'")


def two_onto_one(tmp_path) -> Case:
    path = tmp_path / "two.csv"
    example().rename(columns={"score": "s1"}).assign(s2=1.0).to_csv(path, index=False)
    return Case(path, {"columns": {"s1": "score", "s2": "score"}}, error=r"columns maps \['s1', 's2'\] all to 'score'")


def nul_bytes(tmp_path) -> Case:
    path = tmp_path / "zeros.csv"
    with open(path, "wb") as handle:
        handle.truncate(2 * 1024**3)  # 2 GB of NUL bytes (sparse: no disk used)
    return Case(path, error=r"zeros.csv is not a text score file: byte 0 is a NUL byte")


def overlong_line(tmp_path) -> Case:
    path = tmp_path / "long.csv"
    path.write_bytes(b"score," + b"x" * (2 << 20) + b"\n")
    return Case(path, error=r"long.csv is not a score file: its first line is longer than 1,048,576 bytes")


def parquet_categorical(tmp_path) -> Case:
    table = example()
    path = tmp_path / "cat.parquet"
    table.assign(group=pd.Categorical(table["group"].map({"A": 1, "B": 10, "C": 2})),
                 reference_subject=pd.Categorical(table["reference_subject"])).to_parquet(path)

    def check(read):
        assert group_counts(read) == Counter({"1": 2640, "10": 2640, "2": 2640})
        assert read["reference_subject"].tolist() == example()["reference_subject"].tolist()

    return Case(path, check=check)


def parquet_integer_labels(tmp_path) -> Case:
    path = tmp_path / "int.parquet"
    example().assign(group=example()["group"].map({"A": 1, "B": 2, "C": 3})).to_parquet(path)
    return Case(path, check=lambda read: group_counts(read) == Counter({"1": 2640, "2": 2640, "3": 2640}))


def parquet_missing_label(tmp_path) -> Case:
    path = tmp_path / "missing.parquet"
    example().assign(group=example()["group"].where(example()["reference_subject"] != "A00")).to_parquet(path)
    return Case(path, error=r"column 'group' has 66 missing values \(first in data row 1\)")


def parquet_integer_labels_with_missing(tmp_path) -> Case:
    """pandas reads an integer column with nulls as floats: the labels were "1.0", "2.0", "3.0"
    (in a file written without pandas' metadata, as other tools write Parquet)."""
    pa, pq = pytest.importorskip("pyarrow"), pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "int-missing.parquet"
    labels = example()["group"].map({"A": 1, "B": 2, "C": 3}).where(example()["reference_subject"] != "A00")
    written = pa.Table.from_pandas(example().assign(group=labels.astype("Int64")), preserve_index=False)
    pq.write_table(written.replace_schema_metadata(None), path)
    return Case(path, {"missing_groups": "group"},
                check=lambda read: group_counts(read) == Counter({"1": 2574, "2": 2640, "3": 2640, "(missing)": 66}))


def missing_labels_of_nonmated_rows_only(tmp_path) -> Case:
    """Their group has no mated comparison: the advice was to make it a group of its own,
    which then failed without a word on what to do."""
    table = example()
    blank = ~table["mated"] & (table["reference_subject"] == "C10")
    path = tmp_path / "blank-nonmated.csv"
    table.assign(group=table["group"].where(~blank, "")).to_csv(path, index=False)
    return Case(path, {"missing_groups": "group"},
                error=r"group '\(missing\)' has 0 mated and \d+ homogeneous non-mated comparisons; both are needed "
                      r"\(it holds the comparisons without a label: fill in their labels, or remove those rows")


def a_subject_with_two_labels(tmp_path) -> Case:
    """Read as written, but the report's CEI nulls shuffle labels by subject: the notebook failed
    after seconds (exit 1), advising an option the command does not have (cluster=None)."""
    table = example()
    row = table.index[(table["reference_subject"] == "A00") & ~table["mated"]][0]
    table.loc[row, "group"] = "B"
    path = tmp_path / "two-labels.csv"
    table.to_csv(path, index=False)
    return Case(path, check=lambda read: len(read) == 7920 and group_counts(read)["B"] == 2641,
                report_error=r"1 subject has comparisons with different labels in column\(s\) \['group'\] "
                             r"\('A00': \['A', 'B'\]\); a shuffle by subject gives each subject one label: correct the labels$")


def utf16_text(tmp_path) -> Case:
    """Excel's 'Unicode text': it was refused as a binary file with a NUL byte."""
    path = tmp_path / "utf16.csv"
    path.write_bytes(example().to_csv(index=False).encode("utf-16"))
    return Case(path, error=r"utf16.csv is UTF-16 text \(Excel's 'Unicode text'\), not UTF-8: save it as UTF-8 "
                            r"\(in Excel: 'CSV UTF-8'\), or convert it, e.g. iconv -f UTF-16 -t UTF-8$")


def latin1_text(tmp_path) -> Case:
    """A label written in Latin-1: the message was Python's codec error."""
    path = tmp_path / "latin1.csv"
    path.write_bytes(example().assign(group=example()["group"].map({"A": "café", "B": "B", "C": "C"}))
                     .to_csv(index=False).encode("latin-1"))
    return Case(path, error=r"latin1.csv is not UTF-8 text: UTF-8 cannot read its byte 0xe9 on line 2 "
                            r"\('A00,A00,caf\ufffd,1.8305,True'\) \(Latin-1 or Windows-1252 text\?\): save it as UTF-8 "
                            r".* iconv -f WINDOWS-1252 -t UTF-8$")


def huge_integers(tmp_path) -> Case:
    path = tmp_path / "ints.csv"
    table = example()
    ranks = table["score"].rank(method="first").astype(np.int64)
    table.assign(score=2**60 + ranks).to_csv(path, index=False)  # distinct, but not in float64
    return Case(path, error=r"column 'score' has 7,920 integer values beyond ±2\^53 \(e.g. 11529215046068\d+\)")


def boolean_scores(tmp_path) -> Case:
    path = tmp_path / "bool.csv"
    example().assign(score=example()["mated"]).to_csv(path, index=False)
    return Case(path, error=r"column 'score' holds booleans")


def word_scores(tmp_path) -> Case:
    path = tmp_path / "words.csv"
    example().assign(score=np.where(np.arange(7920) == 5, "abc", example()["score"].astype(str))).to_csv(path, index=False)
    return Case(path, error=r"column 'score' must be numeric; 1 value is not a number \(e.g. 'abc'; first in data row 6\)")


def unicode_minus(tmp_path) -> Case:
    """'−0.5' with U+2212 MINUS SIGN reads as '-0.5': the message showed the value alone, and no row."""
    path = tmp_path / "minus.csv"
    example().assign(score=np.where(np.arange(7920) == 400, "\u22120.5", example()["score"].astype(str))).to_csv(path, index=False)
    return Case(path, error=r"column 'score' must be numeric; 1 value is not a number \(e.g. '\u22120.5' \(U\+2212 MINUS "
                            r"SIGN\); first in data row 401\)")


def nan_words(tmp_path) -> Case:
    path = tmp_path / "nan.csv"
    example().assign(score=np.where(np.arange(7920) % 1000 == 0, "nan", example()["score"].astype(str))).to_csv(path, index=False)
    return Case(path, error=r"column 'score' has 8 NaN and 0 infinite values \(first in data row 1\)")


def distances_read_as_similarities(tmp_path) -> Case:
    path = tmp_path / "distances.csv"
    example().assign(score=1 - example()["score"]).to_csv(path, index=False)
    return Case(path, warns=r"ROC AUC = 0.041 < 0.5\); the scores may be distances: .*greater_is_match=False \(biofair report --distance\)",
                check=lambda read: len(read) == 7920)


def similarities_read_as_distances(tmp_path) -> Case:
    path = tmp_path / "similarities.csv"
    example().to_csv(path, index=False)
    return Case(path, {"greater_is_match": False}, check=lambda read: len(read) == 7920,
                warns=r"the scores may be similarities: .*without --distance")


def byte_order_mark(tmp_path) -> Case:
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + example().rename(columns={"score": "sim"}).to_csv(index=False).encode())
    return Case(path, {"columns": {"sim": "score"}}, check=lambda read: read["score"].tolist() == example()["score"].tolist())


def missing_label_word_collision(tmp_path) -> Case:
    path = labelled(tmp_path, "collide.csv", example()["group"].map({"A": "(missing)", "B": "", "C": "C"}))
    return Case(path, {"missing_groups": "group"}, error=r"column 'group' has missing values and also the label '\(missing\)'")


def all_equal_scores(tmp_path) -> Case:
    path = tmp_path / "equal.csv"
    example().assign(score=0.5).to_csv(path, index=False)
    return Case(path, check=lambda read: (read["score"] == 0.5).all(),
                report_error=r"decidability is undefined: mated and nonmated both have zero variance \(every mated "
                             r"score is 0.5 and every non-mated score 0.5\)$")


def one_score_group(tmp_path) -> Case:
    path = tmp_path / "one.csv"
    extra = pd.DataFrame({"reference_subject": ["Z0", "Z0"], "probe_subject": ["Z0", "Z1"], "group": ["Z", "Z"],
                          "score": [3.0, 0.0], "mated": [True, False]})
    pd.concat([example(), extra]).to_csv(path, index=False)
    return Case(path, check=lambda read: group_counts(read)["Z"] == 2,
                report_error=r"the comprehensive equity index \(CEI, CEI\^A\) cannot be computed: group 'Z': its one "
                             r"mated score falls in the tail at percentile 95; .*; --layout differential reports each "
                             r"group's rates with intervals without it$")


def whole_float_range(tmp_path) -> Case:
    path = tmp_path / "huge.csv"
    scores = example()["score"].to_numpy()
    huge = np.ldexp(scores, 1024 - int(np.ceil(np.log2(np.abs(scores).max()))))  # spans about ±1.5e308
    example().assign(score=huge).to_csv(path, index=False)
    return Case(path, check=lambda read: read["score"].tolist() == huge.tolist())


def semicolons(tmp_path) -> Case:
    """A spreadsheet's CSV where the decimal mark is a comma: it was one column, 'score;mated;...'."""
    path = tmp_path / "semicolons.csv"
    example().to_csv(path, sep=";", decimal=",", index=False)
    return Case(path, error=r"semicolons\.csv separates its fields with ';' \(first line 'reference_subject;probe_subject;"
                            r"group;score;mated'\), as spreadsheets do where the decimal mark is a comma: read it with "
                            r"biofair\.read_scores\('.*/semicolons\.csv', decimal=','\) or biofair report --decimal , "
                            r"\(scores such as 0,83 are read as numbers; every other column stays text, as written\)$")


def capitalised_header(tmp_path) -> Case:
    path = tmp_path / "caps.csv"
    example().rename(columns={"score": "Score", "mated": " mated"}).to_csv(path, index=False)
    return Case(path, error=r"missing column\(s\): score, mated \(the table has 'Score', ' mated': names are case- and "
                            r"space-sensitive; rename them, e.g. read_scores\(path, columns=\{'Score': 'score', ' mated': "
                            r"'mated'\}\) or biofair report --columns 'Score=score, mated=mated'\)$")


def other_header(tmp_path) -> Case:
    """Before: "missing column(s): score, mated (the table has 'sim', 'label', 'group')", with
    no word of how to name them."""
    path = tmp_path / "other_names.csv"
    example().rename(columns={"score": "sim", "mated": "label"}).to_csv(path, index=False)
    return Case(path, error=r"missing column\(s\): score, mated \(the table has .*'sim', 'label'; map its names "
                            r"to biofair's, e\.g\. read_scores\(path, columns=\{'<score column>': 'score', '<mated column>': "
                            r"'mated'\}\) or biofair report --columns '<score column>=score,<mated column>=mated'\)$")


def other_group_column(tmp_path, *, columns: tuple[str, ...], attributes: str, by: str) -> Case:
    """Before: "no group column for 'group' ... (the table has [...])", with no word of the
    option that names the attribute to compare."""
    path = tmp_path / "gender.csv"
    table = example()
    table.assign(**{c: table["group"] for c in columns}).drop(columns="group").to_csv(path, index=False)
    return Case(path, error=rf"no group column for 'group': .*; to compare the groups of {attributes}, pass "
                            rf"by='{by}' \(biofair report --by {by}\)\)$")


def capitalised_header_renamed(tmp_path) -> Case:
    path = capitalised_header(tmp_path).path
    return Case(path, {"columns": {"Score": "score", " mated": "mated"}},
                check=lambda read: read["score"].tolist() == example()["score"].tolist())


def comment_footer(tmp_path) -> Case:
    """A '# ...' line after the table: its row is named as a comment line (the message gave only
    the value, nan; then an empty cell in the column 'mated')."""
    path = tmp_path / "footer.csv"
    path.write_text(example().to_csv(index=False) + "# 7920 comparisons\n")
    return Case(path, error=r"footer.csv: data row 7,921 is a comment line \('# 7920 comparisons'\)")


def two_systems(tmp_path) -> Case:
    """Two systems' scores in one file, told apart by the canonical column 'system': every
    metric pooled them. Read as they are; the report refuses them."""
    path = tmp_path / "systems.csv"
    pd.concat([example().assign(system="A"), example().assign(system="B", score=example()["score"] / 2)]).to_csv(path, index=False)
    return Case(path, check=lambda read: read["system"].value_counts().to_dict() == {"A": 7920, "B": 7920},
                report_error=r"systems\.csv holds 2 score sets in column 'system' \('A', 'B'\): the rows of several "
                             r"systems, which no metric pools, and biofair report analyses one\. Give it a file of one "
                             r"system's rows, e\.g\. python -c")


def stray_quote(tmp_path) -> Case:
    """A free-text column whose field opens with a quote that closes 19 lines later, written
    without quoting: pandas read those lines as one row, and a group lost 19 mated
    comparisons without a word (a helper's audit: 861 rows for 880)."""
    path = tmp_path / "stray.csv"
    lines = example().assign(note="ok").to_csv(index=False).splitlines()
    lines[11] = lines[11].removesuffix(",ok") + ',"blurry'
    lines[30] = lines[30].removesuffix(",ok") + ',see "ticket"'
    path.write_text("\n".join(lines) + "\n")
    return Case(path, error=r"stray.csv: column 'note' of data row 11 holds a line break \('blurry\\n.*A label or id "
                            r"may not span lines: .* a stray quote \(\"\) opened a field there .*: remove it")


def quoted_line_break(tmp_path) -> Case:
    """A label with a line break, quoted as CSV allows (pandas writes it so): refused, and the
    message said only that a quote was stray, which this one is not."""
    path = tmp_path / "multiline.csv"
    example().assign(group=lambda t: t["group"].replace({"A": "Black\nAfrican"})).to_csv(path, index=False)
    return Case(path, error=r"column 'group' of data row 1 holds a line break \('Black\\nAfrican'\.\.\.\)\. A label "
                            r"or id may not span lines: if the file meant one, replace the line breaks")


def trailing_separators(tmp_path) -> Case:
    """Data rows ending in ',' under a header that does not: pandas made the first column the
    index, and the error blamed the labels of the shifted 'mated' column."""
    path = tmp_path / "trailing.csv"
    header, *rows = example().to_csv(index=False).splitlines()
    path.write_text("\n".join([header, *(row + "," for row in rows)]) + "\n")
    return Case(path, error=r"trailing.csv: its data rows have more fields than its header \(5: .*\), so every "
                            r"value would shift by a column; a separator at the end of each data row does this")


def utf16_without_mark(tmp_path) -> Case:
    """UTF-16 without its byte-order mark: it was called a binary file, with a Parquet hint."""
    path = tmp_path / "u16.csv"
    path.write_bytes(example().to_csv(index=False).encode("utf-16-le"))
    return Case(path, error=r"u16.csv is UTF-16 text without a byte-order mark, not UTF-8: .*iconv -f UTF-16LE -t UTF-8$")


def carriage_returns_alone(tmp_path) -> Case:
    """Classic Mac OS line ends: the csv module's 'new-line character seen in unquoted field'."""
    path = tmp_path / "cr.csv"
    path.write_bytes(example().to_csv(index=False).replace("\n", "\r").encode())
    return Case(path, error=r"cr.csv ends its lines with a carriage return alone \(classic Mac OS text\).*tr '\\r' '\\n'")


def excel_separator_line(tmp_path) -> Case:
    """Excel's 'sep=;' first line: it was read as the header, and the error blamed trailing separators."""
    path = tmp_path / "sep.csv"
    path.write_text("sep=,\n" + example().to_csv(index=False))
    return Case(path, error=r"sep.csv starts with 'sep=,', Excel's hint of its separator, not a header: delete that first line")


def excel_workbook(tmp_path) -> Case:
    """An .xlsx file (a zip of XML parts): it was 'a zip archive of 3 files'."""
    path = tmp_path / "book.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        for part in ("[Content_Types].xml", "xl/workbook.xml", "xl/worksheets/sheet1.xml"):
            archive.writestr(part, "<x/>")
    # the conversion writes a new file: it suggested book.csv, which may exist, or be the workbook itself
    return Case(path, error=r"book.xlsx is an Excel workbook, not a score file: save its sheet as 'CSV UTF-8' in Excel.*"
                            r"\.to_csv\('.*/book-sheet\.csv', index=False\)")


def parquet_decimal_scores(tmp_path, precision: int = 10) -> Case:
    """Scores stored as SQL decimals (Spark, database exports): refused as 'dtype object'.
    Read as the text of the same numbers reads (Arrow's own cast to float64 is off by an ulp
    for about one score in seven: 0.20400000000000001 for 0.204); too wide to stay distinct
    as float64, refused."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "decimal.parquet"
    written = [f"{x:.3f}" for x in example()["score"]]
    table = pa.Table.from_pandas(example(), preserve_index=False)
    scores = pa.array(written).cast(pa.decimal128(precision, 3))
    pq.write_table(table.set_column(table.schema.get_field_index("score"), "score", scores), path)
    if precision > 15:
        return Case(path, error=rf"decimal.parquet: column 'score' holds decimals of {precision} digits "
                                rf"\(decimal128\({precision}, 3\)\), more than float64 keeps apart \(15\)")
    return Case(path, check=lambda read: read["score"].tolist() == [float(x) for x in written])


CASES = {
    "mixed int and str labels": mixed_types,
    "01 and 1": leading_zeros,
    "separators inside composite labels": separators_inside_labels,
    "missing label": missing_label,
    "missing label as its own group": lambda p: missing_label(p, missing_groups="group"),
    "label of spaces": lambda p: missing_label(p, label="  "),
    "label of white space as its own group": lambda p: missing_label(p, label=" \t ", missing_groups="group"),
    "NA is a label": na_is_a_label,
    "missing subject attribute": missing_attribute,
    "missing subject attribute as its own group": lambda p: missing_attribute(p, missing_groups="group"),
    "mated pair across groups": mated_sides_differ,
    "two-column score list": score_list_with_ids,
    "empty file in a pair": empty_score_list,
    "text in a score list": text_score_list,
    "duplicate column name": duplicate_columns,
    ".csv.gz": gzipped,
    "CSV named .txt": csv_named_txt,
    "3 columns named .txt": three_columns_named_txt,
    "separated by spaces, read as CSV": space_separated_read_as_csv,
    "group header capitalised": capitalised_group_header,
    "decimal commas in quotes": quoted_decimal_commas,
    "--columns sim=score onto score": renamed_onto_existing,
    "two columns onto score": two_onto_one,
    "2 GB of NUL bytes": nul_bytes,
    "overlong line": overlong_line,
    "Parquet categoricals": parquet_categorical,
    "Parquet integer labels": parquet_integer_labels,
    "Parquet missing label": parquet_missing_label,
    "Parquet integer labels, some missing, as their own group": parquet_integer_labels_with_missing,
    "missing labels of non-mated rows only, as their own group": missing_labels_of_nonmated_rows_only,
    "a subject with two labels": a_subject_with_two_labels,
    "UTF-16 text": utf16_text,
    "Latin-1 text": latin1_text,
    "integers above 2^53": huge_integers,
    "boolean scores": boolean_scores,
    "a word among scores": word_scores,
    "a minus sign that is not a hyphen": unicode_minus,
    "nan words": nan_words,
    "distances read as similarities": distances_read_as_similarities,
    "similarities read as distances": similarities_read_as_distances,
    "byte order mark": byte_order_mark,
    "'(missing)' already a label": missing_label_word_collision,
    "all-equal scores": all_equal_scores,
    "a group with one score": one_score_group,
    "scores spanning ±1.5e308": whole_float_range,
    "semicolons and decimal commas": semicolons,
    "capitalised header": capitalised_header,
    "capitalised header, renamed": capitalised_header_renamed,
    "other header": other_header,
    "a gender column, no group column": lambda p: other_group_column(p, columns=("gender",), attributes="'gender'", by="gender"),
    "reference_ and probe_ columns of gender": lambda p: other_group_column(
        p, columns=("reference_gender", "probe_gender"), attributes="'gender'", by="gender"),
    "two other columns": lambda p: other_group_column(
        p, columns=("gender", "age"), attributes="'gender' or 'age'", by="<column>"),
    "a comment line after the table": comment_footer,
    "a bob file with a header line, with subjects": bob_header,
    "a bob file whose first score is mistyped": bob_first_score_mistyped,
    "two systems in one file": two_systems,
    "a stray quote in a text column": stray_quote,
    "a quoted label with a line break": quoted_line_break,
    "separators at the end of the data rows": trailing_separators,
    "UTF-16 without a byte-order mark": utf16_without_mark,
    "carriage returns alone": carriage_returns_alone,
    "Excel's separator line": excel_separator_line,
    "an Excel workbook": excel_workbook,
    "Parquet decimal scores": parquet_decimal_scores,
    "Parquet decimals wider than float64 keeps apart": lambda p: parquet_decimal_scores(p, precision=20),
}


@pytest.mark.parametrize("name", CASES)
def test_reader(name, tmp_path):
    case = CASES[name](tmp_path)
    with pytest.warns(UserWarning, match=case.warns) if case.warns else contextlib.nullcontext():
        if case.error:
            with pytest.raises((bf.SchemaError, FileNotFoundError), match=case.error):
                bf.read_grouped_scores(case.path, **case.options)
            return
        table = bf.read_grouped_scores(case.path, **case.options)
        assert case.check(table) is not False  # a check that returns False fails (it was ignored)


def cli_arguments(case: Case) -> list[str]:
    options = dict(case.options)
    arguments = [case.path]
    by = options.pop("by", None)
    if by is not None:
        arguments += ["--by", *([by] if isinstance(by, str) else by)]
    if "subjects" in options:
        arguments += ["--subjects", options.pop("subjects")]
    if "missing_groups" in options:
        arguments += ["--missing-groups", options.pop("missing_groups")]
    if "columns" in options:
        arguments += ["--columns", ",".join(f"{k}={v}" for k, v in options.pop("columns").items())]
    if options.pop("greater_is_match", True) is False:
        arguments.append("--distance")
    if "format" in options:
        arguments += ["--format", options.pop("format")]
    assert not options, options
    return arguments


API_ONLY = ("two-column score list", "empty file in a pair", "text in a score list",  # the CLI reads one file
            "two columns onto score")  # refused by the option parser: see test_hostile_cli


@pytest.mark.parametrize("name", [n for n in CASES if n not in API_ONLY])
def test_report_checks_the_file_first(name, tmp_path, run_main, monkeypatch):
    """Refused: exit 2, one line naming the fault, no OUTDIR. Accepted: every estimate computes."""
    case = CASES[name](tmp_path)
    arguments = cli_arguments(case)
    if case.error is None and case.report_error is None:
        args = cli._parse(["report", *map(str, arguments), "-o", str(tmp_path / "never")])
        messages = cli._check_analysis(args)
        assert all(re.search(case.warns, m) for m in messages) if case.warns else messages == []
        return
    monkeypatch.setattr(cli, "_execute", _must_not_run)
    status, lines = run_main(*arguments, "-o", tmp_path / "new" / "out")
    assert status == 2
    *warned, error = lines  # the warnings of what was read before it failed, then the error
    assert error.startswith("biofair report: error: ") and re.search(case.error or case.report_error, error), lines
    assert all(line.startswith("biofair report: warning: ") for line in warned), lines
    assert not (tmp_path / "new").exists()  # nor OUTDIR, its work folder or the folder made for it


def test_the_reading_a_semicolon_file_is_given_reads_it_as_the_original(tmp_path):
    """The call the message gives, made as given, reads the file as the original is read (the
    pandas conversion it gave before made the group '01' 1.0 and 'NA' missing)."""
    case = semicolons(tmp_path)
    with pytest.raises(bf.SchemaError) as error:
        bf.read_grouped_scores(case.path)
    call = re.search(r"read it with (biofair\.read_scores\(.*?\)) or", str(error.value)).group(1)
    expected = bf.read_scores(EXAMPLE)
    pd.testing.assert_frame_equal(eval(call, {"biofair": bf}), expected, check_exact=True)
    pd.testing.assert_frame_equal(bf.read_grouped_scores(case.path, decimal=","), bf.read_grouped_scores(EXAMPLE),
                                  check_exact=True)


def _must_not_run(*args):
    raise AssertionError("the notebook must not start for a refused file")


def test_in_memory_labels_that_differ_only_in_type():
    table = example().assign(group=example()["group"].map({"A": 1, "B": "1", "C": 2}).astype(object))
    with pytest.raises(bf.SchemaError, match=r"column\(s\) \['group'\] hold distinct labels that read the same: 1 \(int\), '1' \(str\)"):
        bf.scores_by_group(table)


def test_labels_that_differ_only_by_surrounding_spaces_stay_apart_with_a_warning():
    table = example().assign(group=example()["group"].map({"A": "A", "B": "A ", "C": "C"}))
    with pytest.warns(UserWarning, match=r"column\(s\) \['group'\] hold labels that differ only by surrounding spaces: 'A', 'A '; they are kept as separate groups"):
        sizes = bf.group_sizes(table)
    assert sizes.index.tolist() == ["A", "A ", "C"]


def test_rows_repeated_in_every_column_are_counted_with_a_warning(tmp_path):
    """A file appended to itself in part: 100 comparisons counted twice without a word (a
    helper's audit). They are kept (a comparison may be made twice) but named, by the reader
    and on the command line; equal rows that form no copied run of ten are not."""
    doubled = tmp_path / "doubled.csv"
    pd.concat([example(), example().iloc[:100]]).to_csv(doubled, index=False)
    with pytest.warns(UserWarning, match=r"^100 rows, from data row 7921 on, repeat earlier rows in every column "
                                         r"and in the same order \(from data row 1 on\): a file appended to itself\? "
                                         r"In all, 100 rows repeat an earlier row. "
                                         r"Each row counts as a comparison of its own.*drop_duplicates\(\)$"):
        table = bf.read_grouped_scores(doubled)
    assert len(table) == len(example()) + 100
    # a file that held equal rows before it was appended to itself: the longest copied run breaks
    # at them, and the warning gave only its length (675 of 9,900 appended rows, a helper's audit)
    twice = tmp_path / "twice.csv"
    held = pd.concat([example(), example().iloc[:50]])  # 7,970 rows, the last 50 equal to the first
    pd.concat([held, held]).to_csv(twice, index=False)
    with pytest.warns(UserWarning, match=r"^7,920 rows, from data row 7971 on, .* In all, 8,020 rows repeat an earlier row"):
        bf.read_grouped_scores(twice)
    args = cli._parse(["report", str(doubled), "-o", str(tmp_path / "never")])
    assert any(m.startswith("100 rows, from data row 7921 on, repeat") for m in cli._check_analysis(args))
    # equal rows that are no copied run: subject-level ids with rounded scores, 9 rows copied
    equal = tmp_path / "equal.csv"
    pd.concat([example().assign(score=example()["score"].round(0)), example().iloc[:9]]).to_csv(equal, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bf.read_grouped_scores(equal)


def test_a_group_named_like_the_cross_group_row():
    table = example().drop(columns="group").assign(
        reference_group=example()["group"].map({"A": "(cross-group)", "B": "B", "C": "C"}),
        probe_group=example()["group"].map({"A": "(cross-group)", "B": "B", "C": "C"}))
    table.loc[6, "probe_group"] = "B"  # one non-mated pair across groups
    with pytest.raises(bf.SchemaError, match=r"a group is labelled '\(cross-group\)'"):
        bf.group_sizes(table)


def test_two_gigabytes_of_nul_bytes_are_refused_in_little_memory(tmp_path):
    """The file is sniffed, not parsed: peak memory grows by far less than its 2 GB."""
    path = nul_bytes(tmp_path).path
    script = (
        "import resource, sys, biofair as bf\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n    bf.read_scores(sys.argv[1])\nexcept bf.SchemaError as error:\n    print(error)\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)\n"
    )
    run = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120)
    message, grown_mib = run.stdout.strip().splitlines()
    assert "is not a text score file: byte 0 is a NUL byte" in message
    assert int(grown_mib) < 50, f"reading grew the process by {grown_mib} MiB"
