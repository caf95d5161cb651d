"""Turn the executed report notebook's MyST markdown into plain Markdown before HTML export.

The report template is a book chapter written in MyST: its prose quotes numbers with
``{glue:text}`` roles, links functions with ``{func}``, terms with ``{term}``, figures with
``{numref}``, and closes with an admonition. Jupyter Book renders these; nbconvert, which writes
``report.html``, does not, and would show the raw roles. :func:`plain_markdown` replaces each of
them by what the book shows:

- ``{glue:text}`key:spec``` by the glued value formatted with ``spec`` (as myst-nb formats it),
  escaped so that Markdown and HTML show it as the literal text the book shows (a group label
  such as ``<img onerror=...>`` or ``*a*_b_`` from the scored file is text, not markup);
- ``{func}`~biofair.x``` by ``x`` as code, ``{term}`text <target>``` by ``text``;
- ``{numref}`fig-...``` by "Figure N", N counting the notebook's figures in order, and each
  figure's caption is written under its output as "**Figure N.** caption";
- a ``:::{admonition} Title`` block by a block quote headed by the title in bold.

A role the report template does not use is an error (``ValueError``), so that a new one added
to the chapter fails the report tests instead of reaching an auditor raw.

:func:`export_html` writes ``report.html`` from that Markdown: a page that requests nothing when
it is opened (auditors read reports on air-gapped machines, or under policies that forbid a
report to contact the internet). nbconvert's lab page loads require.js and MathJax from a CDN;
the template ``templates/report.html.j2`` leaves those scripts out, and each formula that
nbconvert's Markdown parser finds (``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``) is drawn
when the page is written, by matplotlib's mathtext, as an inline SVG (:func:`formula_svg`). A
formula mathtext cannot read, or a LaTeX environment, is an error (``ValueError``), never raw TeX
on the page.
"""

from __future__ import annotations

import html
import re
import unicodedata
from importlib.resources import as_file, files

import nbformat
from jinja2 import pass_context
from jinja2.runtime import Context
from matplotlib.font_manager import FontProperties
from matplotlib.path import Path
from matplotlib.textpath import text_to_path
from myst_nb.core.variables import format_plain_text
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.preprocessors import TagRemovePreprocessor

_GLUE_MIME = "application/papermill.record/text/plain"
_ROLE = re.compile(r"\{([a-z:-]+)\}`([^`]+)`")
#: Characters that Markdown (with nbconvert's math and its bare-URL links, which need "://") would
#: read as markup in a glued value; and line breaks (a label "x\n1. y" from a Parquet file broke
#: the paragraph into a numbered list, "\n\n" into two paragraphs, two spaces before one into <br>).
_MARKUP = re.compile(r"[&<>\\`*_{}\[\]#!|~$:\n\r]")
#: The bidirectional classes of a character that can reorder the prose around a glued value: right-to-left
#: letters (the digits and punctuation beside them join their run) and the explicit embeddings,
#: overrides and isolates (U+202E reversed the rest of the paragraph).
_RIGHT_TO_LEFT = frozenset({"R", "AL", "RLE", "LRE", "RLO", "LRO", "PDF", "RLI", "LRI", "FSI", "PDI"})
#: What opens a block where a line starts (after up to three spaces): a list item ("1." or "1)" of up to nine
#: digits, "-" or "+", then white space or the line's end) or a setext heading's underline ("---", "===").
#: The other block markers ("#", ">", "*", "<", "`", "~") are in _MARKUP.
_BLOCK_START = re.compile(r"(\d{1,9}[.)]|[-+])(\s|$)|[-=]+\s*$")
_FENCE = re.compile(r"^:::\{admonition\}\s*(.*)$")
_PAGE = files("biofair") / "templates" / "report.html.j2"  # nbconvert's lab page without CDN scripts
#: The font size (points) at which a formula is laid out: text_to_path's, in whose units it gives
#: a formula's outline whatever the font's size (its layout is rounded to whole points: 0.01 em).
_FORMULA_POINTS = text_to_path.FONT_SCALE
#: Computer Modern, the font of TeX and of the formulas the book shows.
_FORMULA_FONT = FontProperties(size=_FORMULA_POINTS, math_fontfamily="cm")
#: Computer Modern's x-height in em (TeX's fontdimen5 of cmmi10). A formula is sized in ``ex`` of the
#: text around it, so that its lowercase letters stand as tall as the text's (as MathJax matches them).
_X_HEIGHT = 0.430555
_SVG_COMMANDS = {Path.MOVETO: "M", Path.LINETO: "L", Path.CURVE3: "Q", Path.CURVE4: "C"}


def plain_markdown(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``notebook`` whose markdown cells hold plain Markdown (see module docstring).

    The glue outputs, which carry the quoted values and display nothing, are left out of the copy.

    Raises
    ------
    ValueError
        If a role names a glue key the notebook did not glue, a figure it does not have, or is
        of a kind this module does not know.
    """
    notebook = nbformat.from_dict(notebook)
    glued = {
        output["metadata"]["scrapbook"]["name"]: output["data"][_GLUE_MIME]
        for cell in notebook.cells if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if "scrapbook" in output.get("metadata", {}) and _GLUE_MIME in output.get("data", {})
    }
    figures: dict[str, int] = {}
    cells = []
    for cell in notebook.cells:
        cells.append(cell)
        if cell.cell_type == "code":  # glued values are quoted in the prose, not shown
            cell.outputs = [_visible_output(output) for output in cell.get("outputs", [])
                            if "scrapbook" not in output.get("metadata", {})]
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure")
        if cell.cell_type == "code" and figure:
            figures[figure["name"]] = number = len(figures) + 1
            cells.append(nbformat.v4.new_markdown_cell(f"**Figure {number}.** {figure.get('caption', '')}"))
    notebook.cells = cells
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = _admonitions(_ROLE.sub(lambda match: _replace(match, glued, figures), cell.source))
    return notebook


def _replace(match: re.Match, glued: dict[str, str], figures: dict[str, int]) -> str:
    role, content = match.group(1), " ".join(match.group(2).split())
    if role in ("glue", "glue:text"):
        key, _, spec = content.partition(":")
        if key not in glued:
            raise ValueError(f"the report quotes {key!r}, which it never glued")
        before, after = match.string[:match.start()], match.string[match.end():]
        return _literal(_visible(format_plain_text(glued[key], spec)), line_start=not before.rpartition("\n")[2].strip(),
                        rest_of_line=after.partition("\n")[0])
    text, _, target = content.partition(" <")
    if role == "func":
        return f"`{text[1:].rsplit('.', 1)[-1]}`" if text.startswith("~") else f"`{text}`"
    if role == "term":
        return text
    if role == "numref":
        if content not in figures:
            raise ValueError(f"the report refers to {content!r}, which is not one of its figures")
        return f"Figure {figures[content]}"
    raise ValueError(f"the report uses the MyST role {{{role}}}, which its HTML export cannot render")


#: The text outputs of a code cell in which :func:`_visible` writes out what prints as nothing.
_TEXT_OUTPUTS = ("text/plain", "text/html", "text/markdown")


def _visible(text: str) -> str:
    """``text`` with each character that prints as nothing or moves the text around it (not
    :meth:`str.isprintable`: NUL, a form feed, ESC and the other C0 and C1 controls, the
    directional marks and overrides, a zero-width or a no-break space) written as Python's
    ``repr`` writes it (``\\x00``, ``\\u202e``), as the differential page shows such a group label
    (a label 'a\\x00b' showed as 'ab', another group's label). Line breaks and tabs, which lay
    out the outputs, stay."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in "\n\r\t" else repr(c)[1:-1] for c in text)


def _visible_output(output: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A code cell's output with its text (a table of groups, a warning) :func:`_visible`."""
    if output.get("output_type") == "stream":
        output["text"] = _visible(output["text"])
    for mime in _TEXT_OUTPUTS:
        if mime in output.get("data", {}):
            output["data"][mime] = _visible(output["data"][mime])
    return output


def _literal(text: str, *, line_start: bool = False, rest_of_line: str = "") -> str:
    """``text`` as Markdown that renders as ``text``: each markup character as a numeric
    character reference, which Markdown shows and never reads as markup (a backslash escape
    would not do: nbconvert reads ``\\[`` as the start of a formula). With ``line_start``, where
    ``text`` begins a line that ``rest_of_line`` ends, its first character too when the line would
    open a block (a glued count of 1 before ". With" began a numbered list). Text with right-to-left
    letters or directional controls is isolated in ``<bdi>``, so that it reorders neither itself
    with the prose around it nor that prose (a label holding U+202E reversed the rest of its
    paragraph)."""
    literal = _MARKUP.sub(lambda match: f"&#{ord(match.group())};", text)
    if any(unicodedata.bidirectional(character) in _RIGHT_TO_LEFT for character in text):
        return f"<bdi>{literal}</bdi>"  # an inline tag: no Markdown block starts with it
    if line_start and literal and _BLOCK_START.match(literal + rest_of_line):
        return f"&#{ord(literal[0])};{literal[1:]}"
    return literal


def _admonitions(source: str) -> str:
    """``:::{admonition} Title`` ... ``:::`` as a block quote headed by **Title**."""
    lines, quoting = [], False
    for line in source.splitlines():
        opening = _FENCE.match(line)
        if opening:
            lines.append(f"> **{opening.group(1)}**\n>")
            quoting = True
        elif quoting and line.strip() == ":::":
            quoting = False
        elif quoting and not line.startswith(":class:"):
            lines.append(f"> {line}".rstrip())
        elif not quoting:
            lines.append(line)
    return "\n".join(lines)


def formula_svg(tex: str, *, display: bool = False) -> str:
    """The formula ``tex`` (TeX, without its ``$``) as an inline SVG drawn by matplotlib's mathtext.

    The SVG is sized in ``ex`` of the surrounding text (its x-height matches the text's), its
    baseline on the text's baseline, filled with the text's colour, and labelled with ``tex`` for
    screen readers. With ``display``, it is a centred block of its own, as ``$$...$$`` is in TeX.

    Raises
    ------
    ValueError
        If mathtext cannot read ``tex`` (a command it does not know, an unbalanced brace).
    """
    try:
        width, height, depth = text_to_path.get_text_width_height_descent(f"${tex}$", _FORMULA_FONT, ismath=True)
        outline = Path(*text_to_path.get_text_path(_FORMULA_FONT, f"${tex}$", ismath=True))
    except ValueError as error:
        raise ValueError(f"the report's formula ${tex}$ cannot be drawn ({' '.join(str(error).split())}): "
                         "write it in the TeX that matplotlib's mathtext reads") from None
    commands = [  # the SVG's y axis points down
        "Z" if code == Path.CLOSEPOLY else
        _SVG_COMMANDS[code] + " ".join(f"{x:.1f} {-y:.1f}" for x, y in points.reshape(-1, 2))
        for points, code in outline.iter_segments(curves=True, simplify=False)
    ]
    ex = _FORMULA_POINTS * _X_HEIGHT
    place = "display:block;margin:0.5em auto" if display else f"vertical-align:{-depth / ex:.3f}ex"
    return (f'<svg class="formula" role="img" aria-label="{html.escape(tex)}" fill="currentColor" '
            f'viewBox="0 {depth - height:.1f} {width:.1f} {height:.1f}" '
            f'style="width:{width / ex:.3f}ex;height:{height / ex:.3f}ex;overflow:visible;{place}">'
            f'<path d="{"".join(commands)}"/></svg>')


class _FormulaRenderer(IPythonRenderer):
    """nbconvert's Markdown renderer, with each formula its parser finds drawn by :func:`formula_svg`
    where nbconvert leaves the TeX for MathJax."""

    def inline_math(self, body: str) -> str:
        return formula_svg(body)

    def block_math(self, body: str) -> str:
        return formula_svg(body, display=True)

    def latex_environment(self, name: str, body: str) -> str:
        raise ValueError(f"the report's Markdown holds a LaTeX environment, \\begin{{{name}}}, which report.html "
                         "cannot draw: write the formula as $$...$$")


class _ReportExporter(HTMLExporter):
    """nbconvert's HTML exporter with :class:`_FormulaRenderer` for the Markdown of cells and outputs."""

    @pass_context
    def markdown2html(self, context: Context, source: str) -> str:  # nbconvert's filter, with the renderer replaced
        renderer = _FormulaRenderer(
            escape=False, attachments=context.get("cell", {}).get("attachments", {}), embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text, exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options,
        )
        return MarkdownWithMath(renderer=renderer).render(source)


def export_html(notebook: nbformat.NotebookNode) -> str:
    """``report.html`` of the executed report ``notebook``: its outputs and :func:`plain_markdown`
    prose, without code or cells tagged ``remove-cell``, on a page that requests nothing.

    Raises
    ------
    ValueError
        As :func:`plain_markdown` does, and if a formula cannot be drawn (see :func:`formula_svg`)
        or is a LaTeX environment.
    """
    with as_file(_PAGE) as page:
        exporter = _ReportExporter(template_file=str(page), exclude_input=True, exclude_input_prompt=True,
                                   exclude_output_prompt=True)
        exporter.register_preprocessor(TagRemovePreprocessor(remove_cell_tags={"remove-cell"}), enabled=True)
        return exporter.from_notebook_node(plain_markdown(notebook))[0]
