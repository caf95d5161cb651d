"""summary.json keeps a warning's message as the page shows it, control characters included.

The notebook writes each warning to stderr as "Category: message\\n", and ``biofair report``
read that text back with ``str.splitlines``, which also ends a line at a form feed, the
separators \\x1c-\\x1e, NEL (\\x85) and U+2028/U+2029. A group label 'c\\x0cd' in a Parquet file
makes matplotlib warn "Glyph 12 (\\x0c) missing from font(s) DejaVu Sans." as it draws the
label; summary.json recorded "Glyph 12 (\\n) missing ...", and text after such a character that
reads "SomeWarning: ..." would have been a warning of its own.
"""

from __future__ import annotations

import nbformat
import pytest

from biofair.cli import _page_warnings


def notebook_with_stderr(text: str):
    cell = nbformat.v4.new_code_cell("pass")
    cell.outputs = [nbformat.v4.new_output("stream", name="stderr", text=text)]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("## Figures"), cell])


@pytest.mark.parametrize("mark", ["\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\x0b"])
def test_a_line_break_other_than_newline_stays_in_the_message(mark):
    text = (f"UserWarning: Glyph {ord(mark)} ({mark}) missing from font(s) DejaVu Sans.\n"
            f"UserWarning: label 'a{mark}InsufficientComparisonsWarning: b' drawn\n")
    assert _page_warnings(notebook_with_stderr(text)) == [
        {"category": "UserWarning", "message": f"Glyph {ord(mark)} ({mark}) missing from font(s) DejaVu Sans.",
         "section": "Figures", "cell": 1},
        {"category": "UserWarning", "message": f"label 'a{mark}InsufficientComparisonsWarning: b' drawn",
         "section": "Figures", "cell": 1},
    ]


def test_newlines_still_separate_warnings_and_continue_messages():
    text = "UserWarning: first\nsecond line\n\nPermutationNullWarning: other\n"
    assert [(w["category"], w["message"]) for w in _page_warnings(notebook_with_stderr(text))] == [
        ("UserWarning", "first\nsecond line\n"), ("PermutationNullWarning", "other")]
