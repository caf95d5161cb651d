"""summary.json records the warning that names a file whose name holds a line break once.

The notebook writes each warning to stderr as "Category: message", and ``biofair report``
reads a line that starts so as a new warning. The warning on a CSV's empty rows put the
file's name in as written: a name such as "scores\\nUserWarning: old.csv" made one warning
three in summary.json (the command's own, whole, with no section, and the page's, cut in two:
"3 data rows of scores" and "old.csv are empty in every column ..."), and a name holding an
ANSI escape code coloured the terminal and report.html. The name is now quoted as every label
and id of a message is (its repr: "\\n", "\\x1b").
"""

from __future__ import annotations

import json

import jsonschema
import pytest

import biofair as bf
from hostile import EXAMPLE, FAST, ROOT


@pytest.fixture
def with_empty_rows(tmp_path):
    """The example, with a spreadsheet's empty row inside it and two at its end."""
    lines = EXAMPLE.read_text().splitlines()
    return "\n".join([*lines[:100], ",,,,", *lines[100:], ",,,,", ",,,,"]) + "\n"


@pytest.mark.parametrize("name", ["scores\nUserWarning: old.csv", "scores\x1b[31m.csv"])
def test_the_empty_rows_warning_quotes_the_file_name(name, with_empty_rows, tmp_path):
    path = tmp_path / name
    path.write_text(with_empty_rows)
    with pytest.warns(UserWarning) as caught:
        bf.read_scores(path)
    assert [str(w.message) for w in caught] == [
        f"3 data rows of {name!r} are empty in every column (the first is data row 100; a spreadsheet's trailing "
        "rows?): they hold no comparison and are left out"
    ]
    assert "\n" not in str(caught[0].message) and "\x1b" not in str(caught[0].message)


def test_summary_json_records_it_once(with_empty_rows, tmp_path, run_main):
    name = "scores\nUserWarning: old.csv"
    path = tmp_path / name
    path.write_text(with_empty_rows)
    status, lines = run_main(path, "-o", tmp_path / "out", *FAST)
    assert status == 0, lines
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    jsonschema.validate(summary, json.loads((ROOT / "biofair" / "data" / "summary.schema.json").read_text()))
    message = (f"3 data rows of {name!r} are empty in every column (the first is data row 100; a spreadsheet's "
               "trailing rows?): they hold no comparison and are left out")
    assert [(w["category"], w["message"]) for w in summary["warnings"]] == [("UserWarning", message)]
    assert summary["warnings"][0]["section"] == "The scores and their groups"
    assert f"biofair report: warning: {message}" in lines
    assert summary["rows"]["n_rows"] == len(EXAMPLE.read_text().splitlines()) - 1  # every comparison, no empty row
    assert summary["source"]["path"] == str(path)  # the file, by its name as it is
