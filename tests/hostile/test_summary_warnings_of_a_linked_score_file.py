"""A score file given through a symbolic link has each of its warnings once in summary.json.

The report's notebook reads the file by its real path (summary.json names it so), and the
command's checks read it as given. The warning on a CSV's empty rows names the file: through
a link 'latest.csv' to 'scores-2026-12.csv' it was two warnings in summary.json, "3 data rows
of 'latest.csv' ..." (section null: the page seemed not to show it) and "3 data rows of
'scores-2026-12.csv' ..." (the page's). The checks now read the file the notebook reads.
"""

from __future__ import annotations

import json

import jsonschema

from hostile import EXAMPLE, FAST, ROOT


def test_a_linked_file_with_empty_rows_has_one_warning(tmp_path, run_main):
    lines = EXAMPLE.read_text().splitlines()
    real = tmp_path / "scores-2026-12.csv"
    real.write_text("\n".join([*lines[:100], ",,,,", *lines[100:], ",,,,", ",,,,"]) + "\n")
    link = tmp_path / "latest.csv"
    link.symlink_to(real.name)  # relative, as ln -s makes it
    status, err = run_main(link, "-o", tmp_path / "out", *FAST)
    assert status == 0, err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    jsonschema.validate(summary, json.loads((ROOT / "biofair" / "data" / "summary.schema.json").read_text()))
    message = ("3 data rows of 'scores-2026-12.csv' are empty in every column (the first is data row 100; a "
               "spreadsheet's trailing rows?): they hold no comparison and are left out")
    assert [(w["category"], w["message"], w["section"]) for w in summary["warnings"]] == [
        ("UserWarning", message, "The scores and their groups")]
    assert summary["source"]["path"] == str(real)  # the file read, which the warning names
    assert [line for line in err if "warning:" in line] == [f"biofair report: warning: {message}"]
    assert summary["rows"]["n_rows"] == len(lines) - 1
