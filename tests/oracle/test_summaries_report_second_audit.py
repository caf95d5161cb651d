"""Second audit of the summaries, the default ``biofair report`` and the reproduction ledger at
their edges: each test names what the package gave and checks it against what is right."""

from __future__ import annotations

import re

import nbformat
import pytest

from biofair._report_markdown import export_html


def _glued_prose(value: str) -> nbformat.NotebookNode:
    """A notebook that glues ``value`` under the key ``g`` and quotes it in one sentence."""
    output = nbformat.v4.new_output(
        "display_data", data={"application/papermill.record/text/plain": repr(value)},
        metadata={"scrapbook": {"name": "g", "mime_prefix": "application/papermill.record/"}})
    code = nbformat.v4.new_code_cell("glue(...)", outputs=[output])
    return nbformat.v4.new_notebook(cells=[code, nbformat.v4.new_markdown_cell(
        "The smallest group, {glue:text}`g`, has 2,400\nnon-mated comparisons.")])


def _paragraph(page: str) -> str:
    start = page.index("<p>The smallest group")
    return page[start:page.index("</p>", start) + 4]


@pytest.mark.parametrize("label", ["x\n1. y", "x\n- y", "x\n\ny", "x  \ny", "x\r\n1. y"])
def test_a_label_with_a_line_break_stays_in_its_sentence(label):
    """A Parquet file may hold group labels with line breaks (a CSV reader refuses them): the label
    'x\\n1. y' cut report.html's sentence "The smallest group, x (tied with ...)" into a paragraph
    and a numbered list ("<ol><li>y ..."), 'x\\n\\ny' into two paragraphs, 'x  \\ny' put a <br/> in it.
    The book shows a glued text as text: a line break is white space within the sentence."""
    page = export_html(_glued_prose(label))
    paragraph = _paragraph(page)
    assert paragraph.endswith("non-mated comparisons.</p>")  # one paragraph, to the sentence's end
    assert not re.search(r"<(ol|ul|li|br|h\d)\b", paragraph)
    words = re.sub(r"&#1[03];|\s+", " ", paragraph)  # the line breaks, as the browser shows them
    assert " ".join(words.split()) == f"<p>The smallest group, {' '.join(label.split())}, has 2,400 non-mated comparisons.</p>"


@pytest.mark.parametrize("label", ["a\u202eb", "\u05d0\u05d1", "\u0645\u0635\u0631 2", "x\u2067y"])
def test_a_right_to_left_label_is_isolated_from_the_prose(label):
    """A label holding U+202E (right-to-left override) reversed the display of the rest of its
    paragraph in report.html (", has 2,400 non-mated comparisons" read backwards); a Hebrew or
    Arabic label took the digits and commas beside it into its run. Such a value is isolated in
    <bdi> (HTML's bidirectional isolate), an ASCII one is not wrapped."""
    paragraph = _paragraph(export_html(_glued_prose(label)))
    assert paragraph == f"<p>The smallest group, <bdi>{label}</bdi>, has 2,400\nnon-mated comparisons.</p>"
    assert "<bdi>" not in _paragraph(export_html(_glued_prose("A (tied with B)")))
