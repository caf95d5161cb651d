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
"""

from __future__ import annotations

import re

import nbformat
from myst_nb.core.variables import format_plain_text

_GLUE_MIME = "application/papermill.record/text/plain"
_ROLE = re.compile(r"\{([a-z:-]+)\}`([^`]+)`")
#: Characters that Markdown (with nbconvert's math) would read as markup in a glued value.
_MARKUP = re.compile(r"[&<>\\`*_{}\[\]#!|~$]")
_FENCE = re.compile(r"^:::\{admonition\}\s*(.*)$")


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
            cell.outputs = [output for output in cell.get("outputs", []) if "scrapbook" not in output.get("metadata", {})]
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
        return _literal(format_plain_text(glued[key], spec))
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


def _literal(text: str) -> str:
    """``text`` as Markdown that renders as ``text``: each markup character as a numeric
    character reference, which Markdown shows and never reads as markup (a backslash escape
    would not do: nbconvert reads ``\\[`` as the start of a formula), and text holding a
    formula's delimiter (``$``, ``\\``) in a span MathJax skips (its ``tex2jax_ignore`` class)."""
    escaped = _MARKUP.sub(lambda match: f"&#{ord(match.group())};", text)
    return f'<span class="tex2jax_ignore">{escaped}</span>' if "$" in text or "\\" in text else escaped


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
