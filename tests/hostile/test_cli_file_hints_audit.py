"""Score files an auditor may well be given, and the messages ``biofair report`` answers them
with: each names what is wrong where it is (the line, the file), and a proposed conversion
runs and yields a file the report reads.

Each test says what the message was before.
"""

from __future__ import annotations

import pytest

import biofair as bf
from hostile import FAST_DIFFERENTIAL, example
from test_cli_hints import bob_file, refused, run, run_the_command


@pytest.mark.parametrize("titles, sep, suffix", [(["Scores exported 2024-01-01"], ",", "csv"),
                                                 (["Scores", "run 3 of 4"], "\t", "tsv")])
def test_a_title_above_the_header_is_named_with_the_lines_to_skip(tmp_path, capsys, titles, sep, suffix):
    """Was: "has no comma or tab in its first line ('Scores exported 2024-01-01'): if its fields
    are separated by spaces, convert it to CSV" (which read the title as the header); a title
    of one word was read as the one column of a CSV file."""
    path = tmp_path / f"titled.{suffix}"
    path.write_text("\n".join(titles) + "\n" + example().to_csv(index=False, sep=sep))
    message = refused(capsys, tmp_path, path)
    header = sep.join(example().columns)
    line = len(titles) + 1
    assert message.startswith(f"{path} has no comma or tab in its first line ({titles[0]!r}), but line {line} has "
                              f"({header!r}): a title above the header? Delete the line{'s' * (line > 2)} above the "
                              "header, e.g. python -c")
    run_the_command(message, tmp_path)
    converted = bf.read_grouped_scores(tmp_path / "titled-table.csv")
    assert converted[["score", "group"]].values.tolist() == example()[["score", "group"]].values.tolist()


def test_semicolons_with_decimal_points_are_converted_at_once(tmp_path, capsys):
    """Was: "separates its fields with ';' ... read it with decimal=','" (biofair report
    --decimal ,), which then refused every score: they have a decimal point."""
    path = tmp_path / "points.csv"
    example().to_csv(path, index=False, sep=";")
    message = refused(capsys, tmp_path, path)
    assert message.startswith(f"{path} separates its fields with ';' (first line ")
    assert "but its numbers have a decimal point (e.g. line 2, " in message
    assert "--decimal" not in message
    run_the_command(message, tmp_path)
    assert bf.read_grouped_scores(tmp_path / "points-comma.csv")["score"].tolist() == example()["score"].tolist()
    comma = tmp_path / "commas.csv"  # decimal commas: the advice stays --decimal ,
    example().to_csv(comma, index=False, sep=";", decimal=",")
    assert refused(capsys, tmp_path, comma).endswith("or biofair report --decimal , (scores such as 0,83 are read as "
                                                     "numbers; every other column stays text, as written)")


@pytest.mark.parametrize("first, then, where, cause", [
    (4, 5, "line 3 has 5 fields, the lines before it 4", "Two score files of different kinds joined?"),
    (5, 4, "comparison 3 (not counting blank lines and comments) has 4 fields, the lines before it 5",
     "Two score files of different kinds joined?"),
    (4, 6, "line 3 has 6 fields, the lines before it 4", "An id with a space in it?"),
    (5, 3, "comparison 3 (not counting blank lines and comments) has 3 fields, the lines before it 5",
     "A field left out?"),
])
def test_a_bob_file_of_lines_of_different_lengths_names_the_first(tmp_path, capsys, first, then, where, cause):
    """Was: "could not read ... as a score file: Error tokenizing data. C error: Expected 4
    fields in line 3, saw 5" (pandas' words); and lines of 4 fields after lines of 5 were read
    with a missing score, refused as "column 'score' has 1 NaN"."""
    path = bob_file(tmp_path, columns=first)
    lines = path.read_text().splitlines()
    fields = lines[2].split()
    lines[2] = " ".join(fields[:then] if then < first else [*fields[:-1], *["x"] * (then - first), fields[-1]])
    path.write_text("\n".join(lines) + "\n")
    message = refused(capsys, tmp_path, path, "--format", "bob")
    assert message.startswith(f"{path}: {where}: a bob score file has the same fields on every line, 4 "
                              "(reference_subject probe_subject probe_id score) or 5 (reference_subject reference_id "
                              f"probe_subject probe_id score). {cause}")


def test_a_file_joined_to_itself_with_its_byte_order_mark_is_named_and_repaired(tmp_path, capsys):
    """Was: "column 'score' must be numeric; 1 values are not numbers (e.g. 'score'; ...); 1 row
    has 'mated' contradicting ... (subjects '\\ufeffreference_subject' and ...)": the second
    file's header, behind its byte-order mark, was not seen as a header."""
    text = "\ufeff" + example().to_csv(index=False)
    path = tmp_path / "twice.csv"
    path.write_bytes((text + text).encode())
    message = refused(capsys, tmp_path, path)
    assert message.startswith(f"{path}: data row {len(example()) + 1} repeats the header line (")
    assert "(cat a.csv b.csv) do, the second with its byte-order mark; 1 data row in all. Delete it, e.g." in message
    run_the_command(message, tmp_path)
    with pytest.warns(UserWarning, match="repeat earlier rows in every column"):  # the file, twice
        once = bf.read_grouped_scores(tmp_path / "twice-once.csv")
    assert once["score"].tolist() == [*example()["score"]] * 2


def test_a_byte_that_is_not_utf8_is_named_with_its_line(tmp_path, capsys):
    """Was: "is not UTF-8 text: UTF-8 cannot read its byte 0xe9 (Latin-1 ...)", without where."""
    lines = example().to_csv(index=False).splitlines()
    lines[300] = lines[300].replace(",", ",Jos\u00e9 ", 1)
    path = tmp_path / "latin1.csv"
    path.write_bytes("\n".join(lines).encode("latin-1"))
    message = refused(capsys, tmp_path, path)
    assert message.startswith(f"{path} is not UTF-8 text: UTF-8 cannot read its byte 0xe9 on line 301 "
                              f"({lines[300].replace('é', chr(0xfffd))!r}) (Latin-1 or Windows-1252 text?)")


def test_a_subject_without_its_attribute_is_named_in_the_subject_file(tmp_path, capsys):
    """Was: "column 'reference_group' has N missing values (first in comparison ...) ... fill
    them yourself, e.g. scores.fillna({'reference_group': 'unknown'})": columns of a table the
    user never wrote, for one empty cell of the subject file."""
    path = bob_file(tmp_path)
    people = example()[["reference_subject", "group"]].drop_duplicates().rename(columns={"reference_subject": "subject"})
    people.iloc[[1, 4], 1] = ["", "  "]
    people.to_csv(tmp_path / "people.csv", index=False)
    table = example()
    unlabelled = people["subject"].iloc[[1, 4]].tolist()
    rows = table["reference_subject"].isin(unlabelled) | table["probe_subject"].isin(unlabelled)
    message = refused(capsys, tmp_path, path, "--subjects", tmp_path / "people.csv")
    assert message == (
        f"missing group labels: the subject file {tmp_path / 'people.csv'} gives no 'group' for 2 subjects of the "
        f"score file ({unlabelled[0]!r}, {unlabelled[1]!r}), in {rows.sum():,} comparisons; those comparisons would "
        "have no group. Fill in their 'group' in people.csv, or give them a group of their own, '(missing)', with "
        "read_grouped_scores(..., missing_groups='group') (biofair report --missing-groups group)")
    read = bf.read_grouped_scores(path, subjects=tmp_path / "people.csv", missing_groups="group")
    assert read.attrs["missing_groups"] == {"reference_group": int(table["reference_subject"].isin(unlabelled).sum()),
                                            "probe_group": int(table["probe_subject"].isin(unlabelled).sum())}


def test_a_warning_about_the_labels_is_shown_with_the_error_it_explains(tmp_path, capsys):
    """Was: only the error ("group 'B ' has 0 mated ... comparisons"); the warning that 'B' and
    'B ' differ by a space only was recorded for the report and lost with it."""
    table = example()
    table.loc[table.index[(table["group"] == "B") & ~table["mated"]][:5], "group"] = "B "
    path = tmp_path / "spaced.csv"
    table.to_csv(path, index=False)
    status, out, err = run(capsys, path, "-o", tmp_path / "out", *FAST_DIFFERENTIAL)
    assert status == 2 and out == [] and not (tmp_path / "out").exists()
    assert [line.split(": ")[1] for line in err] == ["warning", "error"], err
    assert "hold labels that differ only by surrounding spaces: 'B', 'B '" in err[0]
    assert "group 'B ' has 0 mated and 5 homogeneous non-mated comparisons" in err[1]


@pytest.mark.parametrize("values, expected", [
    (1, "column 'score' must be numeric; 1 value is not a number (e.g. 'n/a?'"),
    (2, "column 'score' must be numeric; 2 values are not numbers (e.g. 'n/a?'"),
])
def test_counts_agree_with_their_nouns(tmp_path, capsys, values, expected):
    """Was: "1 values are not numbers" (and "1 missing values", "1 subject(s) have", ...)."""
    table = example().astype({"score": str})
    table.loc[:values - 1, "score"] = "n/a?"
    path = tmp_path / "one.csv"
    table.to_csv(path, index=False)
    assert expected in refused(capsys, tmp_path, path)
