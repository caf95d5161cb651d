"""The report's MyST prose becomes plain Markdown before nbconvert writes report.html."""

import nbformat
import pytest
from myst_nb.core.variables import format_plain_text

from biofair._report_markdown import export_html, plain_markdown


def glue_output(name: str, text: str) -> dict:
    return nbformat.v4.new_output(
        "display_data", data={"application/papermill.record/text/plain": text},
        metadata={"scrapbook": {"name": name, "mime_prefix": "application/papermill.record/"}},
    )


def notebook(*markdown: str) -> nbformat.NotebookNode:
    code = nbformat.v4.new_code_cell("glue(...)", outputs=[glue_output("n", "1260000"), glue_output("p", "0.019607")])
    figure = nbformat.v4.new_code_cell("plot()", metadata={"mystnb": {"figure": {"name": "fig-13-det", "caption": "DET of each group."}}})
    return nbformat.v4.new_notebook(cells=[code, figure, *map(nbformat.v4.new_markdown_cell, markdown)])


def markdown_of(converted: nbformat.NotebookNode) -> list[str]:
    return [cell.source for cell in converted.cells if cell.cell_type == "markdown"]


def test_roles_become_what_the_book_shows():
    source = ("{glue:text}`n:,` rows, p >= {glue:text}`p:.3f`; {func}`~biofair.fairness_summary`, "
              "{func}`bf.eer\n<biofair.eer>`, {term}`CEIᴬ <automatic CEI>`, {term}`FDR`; {numref}`fig-13-det`.")
    caption, prose = markdown_of(plain_markdown(notebook(source)))
    assert caption == "**Figure 1.** DET of each group."
    assert prose == "1,260,000 rows, p >= 0.020; `fairness_summary`, `bf.eer`, CEIᴬ, FDR; Figure 1."
    # the same formatting as myst-nb's glue role in the book
    assert format_plain_text("1260000", ",") == "1,260,000"


def test_admonition_becomes_a_block_quote_and_glue_outputs_are_dropped():
    converted = plain_markdown(notebook("Before\n\n:::{admonition} Takeaway\n:class: tip\n\n- one\n:::\nAfter"))
    assert markdown_of(converted)[1] == "Before\n\n> **Takeaway**\n>\n>\n> - one\nAfter"
    assert converted.cells[0].outputs == []


@pytest.mark.parametrize(("source", "message"), [
    ("{glue:text}`missing:.2f`", "never glued"),
    ("{numref}`fig-13-none`", "not one of its figures"),
    ("{doc}`chapter`", "cannot render"),
])
def test_unknown_keys_figures_and_roles_raise(source, message):
    with pytest.raises(ValueError, match=message):
        plain_markdown(notebook(source))


def test_the_input_notebook_is_left_unchanged():
    original = notebook("{glue:text}`n`")
    plain_markdown(original)
    assert original.cells[2].source == "{glue:text}`n`" and len(original.cells[0].outputs) == 2


def test_glued_text_is_shown_literally_never_as_markup():
    """A group label from the scored file reached report.html as live HTML (an auditor's
    '<img src=x onerror=alert(1)>' ran its script) and as Markdown ('*em*' in italics); a
    value holding "$" is no formula."""
    label = "<img src=x onerror=alert(1)>*em*_u_ [a](http://x) `c` & | ~~s~~ # {b} \\[y\\]"
    code = nbformat.v4.new_code_cell("glue(...)", outputs=[glue_output("g", label), glue_output("d", "$1 and $2")])
    prose = nbformat.v4.new_markdown_cell("The smallest group, {glue:text}`g`, costs {glue:text}`d`.")
    html = export_html(nbformat.v4.new_notebook(cells=[code, prose]))
    paragraph = html[html.index("<p>The smallest group"):]
    paragraph = paragraph[:paragraph.index("</p>") + 4]
    escaped = label.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert paragraph == f"<p>The smallest group, {escaped}, costs $1 and $2.</p>"  # no formula either
    assert "<img" not in html and "<em>" not in paragraph
    # a value without markup stays as it was
    assert markdown_of(plain_markdown(notebook("{glue:text}`n:,`")))[1] == "1,260,000"


def test_labels_with_characters_that_print_as_nothing_are_written_out():
    """A group label holding NUL, a form feed, ESC, a C1 control or a directional override
    reached report.html raw: 'a\\x00b' showed as 'ab' (another group's label), U+202E reversed
    the text after it. As the differential page does (repr), each such character is now written
    as Python writes it, in the tables, the warnings and the glued prose; line breaks stay."""
    labels = ["a\x00b", "c\x0cd", "e\x1bf", "g\x85h", "i\u202ej", "k\u200bl", "m\xa0n"]
    table = "".join(f"<tr><th>{label}</th><td>0.1</td></tr>\n" for label in labels)
    code = nbformat.v4.new_code_cell("table", outputs=[
        glue_output("g", labels[0]),
        nbformat.v4.new_output("execute_result", data={"text/html": f"<table>\n{table}</table>",
                                                        "text/plain": "\n".join(labels)}, execution_count=1),
        nbformat.v4.new_output("stream", name="stderr", text=f"UserWarning: group {labels[2]}\n"),
    ])
    prose = nbformat.v4.new_markdown_cell("The smallest group, {glue:text}`g`.")
    html = export_html(nbformat.v4.new_notebook(cells=[code, prose]))
    assert [c for c in html if not c.isprintable() and c not in "\n\r\t"] == []
    for written in (r"a\x00b", r"c\x0cd", r"e\x1bf", r"g\x85h", r"i\u202ej", r"k\u200bl", r"m\xa0n"):
        assert f"<th>{written}</th>" in html
    assert r"UserWarning: group e\x1bf" in html
    assert r"<p>The smallest group, a\x00b.</p>" in html
    assert html.count("<td>0.1</td>") == len(labels)  # the rest of the table as it was
