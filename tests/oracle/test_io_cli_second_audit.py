"""Second audit of the readers (biofair.io) and ``biofair report`` (biofair.cli) at their
numerical and textual edges: every value is compared with what the file holds, read
independently (Python's int and float, the csv module), or the file is refused naming
the row."""

from __future__ import annotations

import re
import warnings

import pytest

import biofair as bf

BEYOND = 2**53 + 1  # the smallest integer float64 does not hold: it reads 2**53


def quiet_read(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the example scores read as distances: not the point here
        return bf.read_scores(path, **options)


@pytest.mark.parametrize("scores, shown, row", [
    pytest.param(["99999999999999999999", "1", "2", "3"], "99999999999999999999", 1, id="beyond int64"),
    pytest.param(["1", "2", "-99999999999999999999", "3"], "-99999999999999999999", 3, id="below int64"),
    pytest.param(["18446744073709551615", "-1", "2", "3"], "18446744073709551615", 1, id="uint64 and negative"),
])
def test_csv_integer_scores_beyond_int64_are_refused_as_beyond_2_53(tmp_path, scores, shown, row):
    """Pandas keeps integers beyond int64 as Python ints: the reader failed with AttributeError
    ("Can only use .str accessor with string values, not integer"), naming no row, where a
    column of 9007199254740993 was refused as beyond 2^53. int(text) != float(text) is the oracle."""
    assert all((int(s) != float(s)) == (s == shown) for s in scores)
    path = tmp_path / "big.csv"
    path.write_text("score,mated,group\n" + "".join(
        f"{s},{m},{g}\n" for s, m, g in zip(scores, ["true", "false"] * 2, "AABB")))
    with pytest.raises(bf.SchemaError, match=re.escape(
            f"column 'score' has 1 integer value beyond ±2^53 (e.g. {shown}; first in data row {row}) that float64 "
            "cannot hold exactly: distinct scores would become ties")):
        quiet_read(path)


def test_text_integer_scores_beyond_2_53_are_refused_in_every_text_reader(tmp_path):
    """A bob file and a pair of score lists read their scores as text: 99999999999999999999 and
    99999999999999999998 both became 1e20 (a tie, without a word), 9007199254740993 became
    9007199254740992 among decimals, while a CSV column of 9007199254740993 was refused; a
    decimal-comma file of integers beyond int64 failed with AttributeError. Values float64
    holds (2**53 exactly, and below) are read exactly."""
    far, near = "99999999999999999999", "99999999999999999998"
    assert float(far) == float(near) and int(far) != int(near)
    bob = tmp_path / "scores.txt"
    bob.write_text(f"a a p1 {far}\na b p2 {near}\nb b p3 2\nb a p4 1\n")
    with pytest.raises(bf.SchemaError, match=re.escape(
            f"column 'score' has 2 integer values beyond ±2^53 (e.g. {far}; first in comparison 1)")):
        quiet_read(bob, format="bob")
    mated, nonmated = tmp_path / "mated.txt", tmp_path / "nonmated.txt"
    mated.write_text(f"0.5\n{BEYOND}\n")
    nonmated.write_text("0.25\n")
    with pytest.raises(bf.SchemaError, match=re.escape(
            f"the mated score list {mated} has 1 integer value beyond ±2^53 (e.g. {BEYOND}; first in score number 2)")):
        quiet_read((mated, nonmated))
    mated.write_text("0.5\nNA\n")  # the other problems of a list still name the N-th score
    with pytest.raises(bf.SchemaError, match=re.escape(f"{mated} has 1 NaN and 0 infinite values (first in score number 2)")):
        quiet_read((mated, nonmated))
    semicolons = tmp_path / "comma.csv"
    semicolons.write_text(f"score;mated;group\n5;true;A\n-{far};false;A\n2;true;B\n1;false;B\n")
    with pytest.raises(bf.SchemaError, match=re.escape(f"(e.g. -{far}; first in data row 2)")):
        quiet_read(semicolons, decimal=",")
    # at the edge: 2**53 and its neighbours below are float64 numbers, read exactly
    exact = [2**53, -(2**53), 2**53 - 1, 1]
    bob.write_text("".join(f"{r} {p} x {s}\n" for (r, p), s in zip([("a", "a"), ("a", "b"), ("b", "b"), ("b", "a")],
                                                                  [f" +{exact[0]}", *map(str, exact[1:])])))
    assert quiet_read(bob, format="bob")["score"].tolist() == [float(v) for v in exact]


@pytest.mark.parametrize("word", ["NA", "null", "None", "nan", "N/A", "NaN", "n/a"])
def test_bob_ids_that_pandas_reads_as_missing_are_kept_as_written(tmp_path, word):
    """A bob file's ids were read with pandas' default missing words: subject 'NA' (Namibia's
    code, or a pseudonym) was refused as a missing id, and a probe id 'null' became NaN without
    a word; a CSV file keeps such labels as written. The fields are compared with str.split."""
    path = tmp_path / "scores.txt"
    lines = [f"{word} {word} {word} 0.9", f"{word} b p2 0.1", "b b p3 0.8", f"b {word} {word} 0.2"]
    path.write_text("\n".join(lines) + "\n")
    table = bf.read_scores(path, format="bob")
    fields = [line.split() for line in lines]
    assert table["reference_subject"].tolist() == [f[0] for f in fields]
    assert table["probe_subject"].tolist() == [f[1] for f in fields]
    assert table["probe_id"].tolist() == [f[2] for f in fields]
    assert table["mated"].tolist() == [f[0] == f[1] for f in fields]
    assert table["score"].tolist() == [float(f[3]) for f in fields]
    people = tmp_path / "people.csv"
    people.write_text(f"subject,group\n{word},x\nb,y\n")
    grouped = bf.read_grouped_scores(path, format="bob", subjects=people, one_class_groups="keep")
    assert grouped["reference_group"].tolist() == ["x", "x", "y", "y"]
    assert grouped["probe_group"].tolist() == ["x", "y", "y", "x"]


def test_bob_scores_written_as_missing_words_are_still_named_as_nan(tmp_path):
    """Keeping a bob file's ids as written keeps its score words: 'NA' is no number, named by
    its comparison (as before)."""
    path = tmp_path / "scores.txt"
    path.write_text("a a p1 NA\na b p2 0.1\nb b p3 0.8\nb a p4 0.2\n")
    with pytest.raises(bf.SchemaError, match=re.escape("column 'score' has 1 NaN and 0 infinite values "
                                                       "(first in comparison 1)")):
        bf.read_scores(path, format="bob")


@pytest.mark.parametrize("error", ["#DIV/0!", "#N/A", "#VALUE!", "#NUM!", "#REF!", "#NAME?", "#NULL!"])
def test_a_spreadsheet_error_in_a_first_score_column_is_no_comment_line(tmp_path, error):
    """With the score as the first column, a spreadsheet's error value in a score cell (its row
    has its label and group) was called a comment line, to delete with grep -v '^#' (one
    comparison lost, on the package's advice); with the score in another column the same cell
    is named as a score that is not a number. It is now named so in both orders."""
    rows = [("0.9", "true", "A"), (error, "false", "A"), ("0.8", "true", "B"), ("0.2", "false", "B")]
    for order in ((0, 1, 2), (2, 0, 1)):
        path = tmp_path / f"order{order[0]}.csv"
        names = ("score", "mated", "group")
        path.write_text("\n".join(",".join(row[i] for i in order) for row in [names, *rows]) + "\n")
        with pytest.raises(bf.SchemaError, match=re.escape(
                f"column 'score' must be numeric; 1 value is not a number (e.g. {error!r}; first in data row 2)")):
            bf.read_scores(path)


@pytest.mark.parametrize("error", ["#N/A", "#DIV/0!", " #VALUE! "])
def test_a_spreadsheet_error_in_a_score_list_is_not_dropped_as_a_comment(tmp_path, error):
    """A score list's '#' starts a comment, so a spreadsheet's error value alone on a line
    (a comparison that got no score) was dropped without a word: 2 mated scores read where
    the list holds 3 comparisons (an FNMR over the wrong count). It is refused naming its line;
    comment lines are still left out. The lines are counted by str.splitlines."""
    mated, nonmated = tmp_path / "mated.txt", tmp_path / "nonmated.txt"
    lines = ["# scores of session 2", "0.5", error, "0.7"]
    mated.write_text("\n".join(lines) + "\n")
    nonmated.write_text("0.1\n0.2\n")
    line = next(number for number, text in enumerate(mated.read_text().splitlines(), 1) if text.strip() == error.strip())
    with pytest.raises(bf.SchemaError, match=re.escape(
            f"the mated score list {mated}: line {line} holds {error.strip()!r}, a spreadsheet's error value")):
        bf.read_scores((mated, nonmated))
    mated.write_text("\n".join(lines[:2] + lines[3:]) + "\n")  # without it: the comment line is left out
    assert bf.read_scores((mated, nonmated))["score"].tolist() == [0.5, 0.7, 0.1, 0.2]
