"""Score files nobody cleaned, read with the package's readers: every row and group arrives
intact (counted independently with the csv module), or the file is refused with a message
naming the file, the data row and the repair."""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import os
import re
import subprocess
import sys
import zipfile
from collections import Counter

import pandas as pd
import pytest

import biofair as bf

ROWS = [("0.9", "1", "NA"), ("0.2", "0", "NA"), ("0.8", "1", "01"), ("0.1", "0", "01"),
        ("0.7", "yes", "1"), ("0.3", "no", "1"), ("0.6", "TRUE", "None, or null"), ("0.4", "false", "None, or null")]


def counted(text: str) -> tuple[int, Counter]:
    """Data rows and rows per group of a comma-separated text, by the csv module."""
    header, *rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    return len(rows), Counter(row[header.index("group")] for row in rows)


def as_csv(rows, *, eol: str = "\n") -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator=eol).writerows([("score", "mated", "group"), *rows])
    return out.getvalue()


@pytest.mark.parametrize("encode", [
    pytest.param(lambda text: text.encode(), id="utf-8"),
    pytest.param(lambda text: ("\ufeff" + text).encode(), id="bom"),
    pytest.param(lambda text: text.replace("\n", "\r\n").encode(), id="crlf"),
    pytest.param(lambda text: (text + "\n\n").encode(), id="trailing blank lines"),
    pytest.param(lambda text: gzip.compress(text.encode()), id="gzip"),
    pytest.param(lambda text: bz2.compress(("\ufeff" + text.replace("\n", "\r\n")).encode()), id="bz2 bom crlf"),
])
def test_labels_pandas_would_drop_arrive_intact(tmp_path, encode):
    """'NA', 'None, or null' (quoted, with the separator), '01' beside '1': each a group, no row lost."""
    text = as_csv(ROWS)
    path = tmp_path / "scores.csv"
    path.write_bytes(encode(text))
    with pytest.warns(UserWarning) as told:
        table = bf.read_grouped_scores(path)
    assert any("differ only by how a number is written" in str(w.message) for w in told)  # '01' and '1', kept apart
    n, groups = counted(text)
    assert len(table) == n and Counter(table["group"]) == groups
    assert table["score"].tolist() == [float(row[0]) for row in ROWS]


def test_lines_ending_in_two_carriage_returns_are_refused_with_a_conversion_that_reads(tmp_path):
    """Python's csv module on Windows, writing to a file opened without newline='', ends each line
    with \\r\\r\\n. pandas read each line as a row and an empty row: the file was read with a warning
    that 9 data rows, one per line, were "empty in every column (the first is data row 1; a
    spreadsheet's trailing rows?)", and an error named data row 6 for the score on the third."""
    rows = [*ROWS[:2], ("oops", "1", "01"), *ROWS[3:]]
    path = tmp_path / "windows.csv"
    path.write_text(as_csv(rows, eol="\r\r\n"), newline="")
    with pytest.raises(bf.SchemaError, match=r"^" + re.escape(
            f"{path} ends 9 lines with two carriage returns (\\r\\r\\n; the first is line 1), as Python's csv module "
            "writes on Windows to a file opened without newline='': each such line would read as a row and an empty "
            "row. Convert them, e.g. "
            "python -c \"")) as refused:
        bf.read_grouped_scores(path)
    (tmp_path / "windows.csv.gz").write_bytes(gzip.compress(path.read_bytes()))
    with pytest.raises(bf.SchemaError, match="ends 9 lines with two carriage returns"):  # compressed alike
        bf.read_grouped_scores(tmp_path / "windows.csv.gz")
    command = str(refused.value).split(", e.g. ", 1)[1]  # run as given, with this Python as python
    subprocess.run(command.replace("old.csv", str(path)).replace("new.csv", str(tmp_path / "fixed.csv")), shell=True,
                   check=True, env={"PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin"})
    assert (tmp_path / "fixed.csv").read_bytes() == as_csv(rows, eol="\r\n").encode()
    with pytest.raises(bf.SchemaError, match=r"1 value is not a number \(e\.g\. 'oops'; first in data row 3\)"):
        bf.read_grouped_scores(tmp_path / "fixed.csv")


@pytest.mark.parametrize("start", [(1 << 20) - 3, (1 << 20) - 2, (1 << 20) - 1, 1 << 20, (1 << 21) + 5])
@pytest.mark.parametrize("compress", [False, True])
def test_lines_ending_in_two_carriage_returns_after_the_first_mib_are_refused(tmp_path, start, compress):
    """Was: only the first MiB was searched for \\r\\r\\n; a file whose first such line came later
    was read with a warning of a row "empty in every column" after each (every later row's
    number off by one more), or, with one such line, of a spreadsheet's trailing row. The
    \\r\\r\\n starts at byte ``start``: before, across and after the reader's 1 MiB blocks."""
    row = "0.123456789,1,a\n"
    head = as_csv([]) + row * ((start - 40) // len(row))
    padded = "0.5,0," + "b" * (start - len(head) - len("0.5,0,"))  # this line's \\r\\r\\n starts at byte start
    data = (head + padded + "\r\r\n" + row * 1000).encode()
    assert data.index(b"\r\r\n") == start and data.count(b"\r\r\n") == 1
    line = data.count(b"\n", 0, start) + 1
    path = tmp_path / ("late.csv.gz" if compress else "late.csv")
    path.write_bytes(gzip.compress(data) if compress else data)
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            f"{path} ends 1 line with two carriage returns (\\r\\r\\n; the first is line {line:,}), as Python's csv "
            "module writes on Windows")):
        bf.read_scores(path)
    assert data.split(b"\n")[line - 1] == padded.encode() + b"\r\r"  # the line named


def ending_late_in_two_carriage_returns(lines: list[str]) -> bytes:
    """``lines`` as a file: \\n after those in its first 1 MiB and 32 KiB, \\r\\r\\n after the rest
    (the readers search the first MiB, which they refuse with any \\r\\r\\n, on their own)."""
    text = "\n".join(lines) + "\n"
    cut = text.index("\n", (1 << 20) + (1 << 15)) + 1
    return (text[:cut] + text[cut:].replace("\n", "\r\r\n")).encode()


def refused_for_its_line_endings(path, data: bytes) -> str:
    """The start of the message refusing the file at ``path`` that holds ``data``."""
    first, count = data.count(b"\n", 0, data.index(b"\r\r\n")) + 1, data.count(b"\r\r\n")
    return (f"{path} ends {count:,} lines with two carriage returns (\\r\\r\\n; the "
            f"first is line {first:,}), as Python's csv module writes on Windows")


@pytest.mark.parametrize(("bad", "named"), [
    ("0.5,0,b,x", "data row 90,000 (line 90,001) has 4 fields"),
    ("0.5,0", "data row 90,000 (line 90,001) has 2 fields where the header has 3"),
    ("# second session", "data row 90,000 is a comment line"),
])
def test_a_late_row_of_a_file_ending_lines_in_two_carriage_returns_is_not_misnumbered(tmp_path, bad, named):
    """Was: the \\r\\r\\n after the first MiB were looked for only after every other check, which
    named a bad row counting each such line twice: "data row 112,416 (line 112,417)" for the row
    on line 90,001 (an extra field; a short row and a comment line alike). Now the file is refused
    for its line endings first; without them, the row is named by its line."""
    lines = ["score,mated,group", *["0.123456789,1,a"] * 100_000]
    lines[90_000] = bad
    data = ending_late_in_two_carriage_returns(lines)
    path = tmp_path / "late.csv"
    path.write_bytes(data)
    with pytest.raises(bf.SchemaError, match="^" + re.escape(refused_for_its_line_endings(path, data))):
        bf.read_scores(path)
    path.write_bytes(data.replace(b"\r\r\n", b"\n"))
    with pytest.raises(bf.SchemaError, match=re.escape(f"{path}: {named}")):
        bf.read_scores(path)


def test_a_bob_file_ending_lines_late_in_two_carriage_returns(tmp_path):
    """Read as written: every comparison once (pandas skips the empty line each \\r\\r\\n makes).
    A line of 5 fields after lines of 4 was named by pandas' count, which counts each such line
    twice: "line 126,969" for line 90,001; now the file is refused for its line endings."""
    lines = [f"s{i % 50} s{i * 7 % 50} p{i} 0.{i % 997:03d}" for i in range(100_000)]
    data = ending_late_in_two_carriage_returns(lines)
    path = tmp_path / "late.txt"
    path.write_bytes(data)
    with pytest.warns(bf.ScoreDirectionWarning):
        table = bf.read_scores(path, format="bob")
    assert table["probe_id"].tolist() == [line.split()[2] for line in lines]
    assert table["score"].tolist() == [float(line.split()[3]) for line in lines]
    lines[90_000] = "s1 s2 p90000 0.5 extra"
    data = ending_late_in_two_carriage_returns(lines)
    path.write_bytes(data)
    with pytest.raises(bf.SchemaError, match="^" + re.escape(refused_for_its_line_endings(path, data))):
        bf.read_scores(path, format="bob")
    path.write_bytes(data.replace(b"\r\r\n", b"\n"))
    with pytest.raises(bf.SchemaError, match=re.escape(f"{path}: line 90,001 has 5 fields, the lines before it 4")):
        bf.read_scores(path, format="bob")


def test_a_score_list_ending_lines_late_in_two_carriage_returns(tmp_path):
    """Read as written: every score once. A spreadsheet's '#N/A' on such a line ('#N/A\\r\\r')
    escaped the check for it and was read as a comment: 199,999 mated scores of 200,000, without
    a word; a line of two scores was named by pandas' count ("line 225523" for line 190,001)."""
    scores = [f"0.{i % 9973:04d}" for i in range(200_000)]
    mated, nonmated = tmp_path / "mated.txt", tmp_path / "nonmated.txt"
    nonmated.write_text("0.1\n0.2\n")
    mated.write_bytes(ending_late_in_two_carriage_returns(scores))
    table = bf.read_scores([mated, nonmated])
    assert table.loc[table["mated"], "score"].tolist() == [float(score) for score in scores]
    data = ending_late_in_two_carriage_returns([*scores[:190_000], "#N/A", *scores[190_001:]])
    mated.write_bytes(data)
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            f"the mated score list {mated}: line 190,001 holds '#N/A', a spreadsheet's error value, not a score")):
        bf.read_scores([mated, nonmated])
    data = ending_late_in_two_carriage_returns([*scores[:190_000], "0.5 0.6", *scores[190_001:]])
    mated.write_bytes(data)
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            f"the mated score list {mated}: {refused_for_its_line_endings(mated, data)}")):
        bf.read_scores([mated, nonmated])


def test_a_zipped_file_arrives_intact(tmp_path):
    text = as_csv(ROWS, eol="\r\n")
    path = tmp_path / "scores.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("scores.csv", text)
    n, groups = counted(text)
    with pytest.warns(UserWarning, match="differ only by how a number is written"):
        table = bf.read_grouped_scores(path)
    assert len(table) == n and Counter(table["group"]) == groups


def test_a_comment_line_among_the_rows_is_named_as_one(tmp_path):
    """Was: "column 'mated' has 1 values that are not a mated/non-mated label (e.g. an empty cell;
    first in data row 3)", with no word of the comment line that made the row."""
    path = tmp_path / "noted.csv"
    path.write_text(as_csv(ROWS[:2]) + "# second session\n" + as_csv(ROWS[2:]).split("\n", 1)[1])
    with pytest.raises(bf.SchemaError, match=re.escape(
            f"{path}: data row 3 is a comment line ('# second session'), 1 in all: a score file's rows are "
            "comparisons. Delete the comment lines, e.g. grep -v '^#' old.csv > new.csv")):
        bf.read_scores(path)


def test_a_label_starting_with_a_hash_and_scored_is_data(tmp_path):
    """A first column of labels such as '#1' with their scores is no comment line."""
    path = tmp_path / "hashes.csv"
    text = "group,score,mated\n#1,0.9,1\n#1,0.2,0\n#2,0.8,1\n#2,0.1,0\n"
    path.write_text(text)
    assert Counter(bf.read_grouped_scores(path)["group"]) == counted(text)[1]


@pytest.mark.parametrize(("text", "row", "line"), [
    ("score,mated,group\n0.9,1,a\n0,2,0,a\n0.8,1,b\n0.1,0,b\n", 2, 3),  # an unquoted decimal comma
    # a quoted line break before: records are counted, and the row starts a line later (it was
    # named "data row 3" only, which an editor shows on line 4, a row of 3 fields)
    ('score,mated,group\n0.9,1,"a\nx"\n0.2,0,a\n0.8,1,b,\n', 3, 5),
    ('score,mated,group\n\n"0.9",1,"a\nx\ny"\n0.2,0,a\n0.8,1,b,\n0.1,0,b\n', 4, 7),  # and a blank line: a row
])
def test_a_row_with_an_extra_field_is_named_by_its_data_row_and_line(tmp_path, text, row, line):
    """Was: "could not read ... as a score file: Error tokenizing data. C error: Expected 3 fields
    in line 3, saw 4": pandas' record number (header included), and no repair."""
    path = tmp_path / "extra.csv"
    path.write_text(text)
    with pytest.raises(bf.SchemaError, match=re.escape(
            f"{path}: data row {row} (line {line}) has 4 fields, the header 3: look for a comma unquoted in a field (a "
            "decimal comma, '0,83'? a label such as 'Smith, J'?) or at the end of the row: quote such fields")):
        bf.read_scores(path)
    records = list(csv.reader(io.StringIO(text, newline="")))
    assert len(records[row]) == 4  # the csv module agrees
    assert text.split("\n")[line - 1] == ",".join(records[row])  # the line named is that row


def test_a_tab_separated_row_with_an_extra_field_names_the_tab(tmp_path):
    path = tmp_path / "extra.tsv"
    path.write_text("score\tmated\tgroup\n0.9\t1\ta\n0.2\t0\ta\tx\n")
    with pytest.raises(bf.SchemaError, match=re.escape(f"{path}: data row 2 (line 3) has 4 fields, the header 3: look "
                                                       "for a tab in a field or at the end of the row")):
        bf.read_scores(path)


def test_a_first_row_with_an_extra_field_also_names_an_unquoted_comma(tmp_path):
    """Only the first data row longer ('1,5' unquoted): the message blamed separators at the end
    of every row."""
    path = tmp_path / "first.csv"
    path.write_text("score,mated,group\n0,9,1,a\n0.2,0,a\n0.8,1,b\n0.1,0,b\n")
    with pytest.raises(bf.SchemaError, match=re.escape("; if only some rows have more fields, the cause is a comma "
                                                       "unquoted in a field (a decimal comma, '0,83'?")):
        bf.read_scores(path)


@pytest.mark.parametrize(("text", "row", "line", "fields", "short"), [
    ("score,mated,group,subject,site\n0.9,1,a,s1,x\n0.1,0,a,s2,x\n0.8,1,b,s3\n0.2,0,b,s4,x\n", 3, 4, 4, 1),
    ("score,mated,group\n0.9,1,a\n0.1,0,a\n0.8\n0.2,0,b\n0.3,1,\n\n0.4,0", 3, 4, 1, 2),  # the last cut short
    ('score,mated,group\n0.9,1,a\n"0.1\n",0,a\n0.8,1\n0.2,0,b\n', 3, 5, 2, 1),  # a quoted line break before
])
def test_a_row_with_fewer_fields_than_the_header_is_named_by_its_row_and_line(tmp_path, text, row, line, fields,
                                                                               short):
    """Was: pandas filled the missing fields with empty cells, and the error was of "an empty
    cell" in 'mated' or of a missing group, or (a trailing column) none at all."""
    path = tmp_path / "short.csv"
    path.write_text(text)
    header = text.split("\n", 1)[0].split(",")
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            f"{path}: data row {row} (line {line}) has {fields} field{'s' if fields > 1 else ''} where the header "
            f"has {len(header)} ({', '.join(header)}), and its missing fields would be read as empty cells; "
            f"{short} data row{' is' if short == 1 else 's are'} short in all. A row cut short (the file truncated? "
            f"a field left out?): give every row all {len(header)} fields, an empty one (two separators in a row) "
            "where a value is missing") + "$"):
        bf.read_scores(path)
    records = list(csv.reader(io.StringIO(text, newline="")))
    assert len(records[row]) == fields  # the csv module agrees
    assert sum(0 < len(record) < len(header) for record in records) == short
    assert text.split("\n")[line - 1].startswith(",".join(records[row]))


def test_a_short_row_is_refused_not_grouped_as_missing(tmp_path, run_main):
    """Was: with missing_groups='group' (--missing-groups group) the row that lacks its group
    joined the group '(missing)' without a word."""
    path = tmp_path / "short.csv"
    path.write_text("score,mated,group\n0.9,1,a\n0.1,0,a\n0.8,1,b\n0.2,0,b\n0.7,1\n0.3,0,b\n")
    with pytest.raises(bf.SchemaError, match=re.escape(f"{path}: data row 5 (line 6) has 2 fields where the header "
                                                       "has 3")):
        bf.read_grouped_scores(path, missing_groups="group")
    status, err = run_main(path, "--by", "group", "--missing-groups", "group", "-o", tmp_path / "report.html")
    assert status == 2, err
    assert err[-1].startswith(f"biofair report: error: {path}: data row 5 (line 6) has 2 fields where the header has 3")
    assert not (tmp_path / "report.html").exists()


def test_trailing_empty_fields_are_empty_cells_not_a_short_row(tmp_path):
    """A row with every field, its last ones empty, is read as written."""
    path = tmp_path / "empty.csv"
    path.write_text("score,mated,group,site\n0.9,1,a,\n0.1,0,a,x\n0.8,1,b,\n0.2,0,b,\n")
    table = bf.read_scores(path)
    assert len(table) == 4 and table["site"].isna().tolist() == [True, False, True, True]


@pytest.mark.parametrize(("text", "line"), [
    ('score,mated,group\n0.9,1,a\n0.2,0,a\n0.8,1,"b\n0.1,0,b\n', 4),
    ('score,mated,group\n0.9,1,"a\nx"\n0.2,0,a\n0.8,1,"b\n0.1,0,b\n', 5),  # a quoted line break before
])
def test_an_unclosed_quote_is_named_by_its_data_row_and_line(tmp_path, text, line):
    """Was: "Error tokenizing data. C error: EOF inside string starting at row 3"; then "data
    row 3" without its line, which a quoted line break before it moves."""
    path = tmp_path / "quote.csv"
    path.write_text(text)
    with pytest.raises(bf.SchemaError, match=re.escape(
            f"{path}: the quote (\") that opens a field of data row 3 (line {line}) is never closed, so the rest of the "
            "file would be one field: remove the stray quote")):
        bf.read_scores(path)
    assert text.split("\n")[line - 1] == '0.8,1,"b'


@pytest.mark.parametrize(("scores", "hint"), [
    (["1,200", "200", "1,100", "100"], "they read as numbers with a decimal comma (1,200 = 1.2) or with a thousands "
                                       "separator (1,200 = 1200), and nothing in the file says which"),
    (["1,200.5", "200", "1,100,000", "100"], "they read as numbers with thousands separators: remove the commas"),
    (["0,900", "0,2", "0,800", "0,1"], "they read as numbers with a decimal comma: read the file with "
                                       "biofair.read_scores(path, decimal=',') or biofair report --decimal ,"),
])
def test_numbers_with_a_comma_are_not_all_called_decimal_commas(tmp_path, scores, hint):
    """Was: "1,200" called a number with a decimal comma, and pd.read_csv(path, decimal=',') the
    way to read it: 1.2, where a thousands separator meant 1200."""
    path = tmp_path / "commas.tsv"
    path.write_text("score\tmated\tgroup\n" + "".join(f"{s}\t{m}\t{g}\n" for s, m, g in
                                                       zip(scores, [1, 0, 1, 0], "aabb")))
    with pytest.raises(bf.SchemaError, match=re.escape(hint)):
        bf.read_scores(path)


def test_a_missing_subject_id_is_named_by_its_row_with_a_repair(tmp_path):
    """Was: "column 'probe_subject' has 1 missing values", without the row or what to do."""
    path = tmp_path / "ids.csv"
    path.write_text("score,mated,group,reference_subject,probe_subject\n0.9,1,a,007,007\n0.2,0,a,007,\n"
                    "0.8,1,b,7,7\n0.1,0,b,7,007\n")
    with pytest.raises(bf.SchemaError, match=re.escape(
            "column 'probe_subject' has 1 missing value (first in data row 2); each comparison needs its subjects' "
            "ids: a resampling or a permutation by subject moves a subject's comparisons together: fill them in, or "
            "drop those rows (scores.dropna(subset=['probe_subject']))")):
        bf.read_scores(path)


def test_the_conversion_of_a_headerless_semicolon_file_keeps_the_labels_pandas_reads_as_missing(tmp_path):
    """Was: the proposed pd.read_csv(..., dtype={'group': str}) read the group 'NA' as missing, and
    the converted file was refused for missing group labels."""
    path = tmp_path / "excel.csv"
    rows = [("0,9", "1", "NA"), ("0,2", "0", "NA"), ("0,8", "1", "01"), ("0,1", "0", "01")]
    path.write_text("".join(";".join(row) + "\n" for row in rows))
    with pytest.raises(bf.SchemaError) as refused:
        bf.read_grouped_scores(path)
    command = re.search(r'python -c "(.*?)"( \(|$)', str(refused.value)).group(1)
    subprocess.run([sys.executable, "-c", command], cwd=tmp_path, check=True)
    table = bf.read_grouped_scores(tmp_path / "excel-comma.csv")
    assert Counter(table["group"]) == Counter(row[2] for row in rows)
    assert table["score"].tolist() == [float(row[0].replace(",", ".")) for row in rows]
    assert len(pd.read_csv(path, sep=";", header=None)) == len(table)
