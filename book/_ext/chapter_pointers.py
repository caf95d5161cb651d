"""Turn the docstrings' chapter pointers into links on the API page.

Every public docstring says where the book teaches it: ``Read more in the chapter "Identify
fairly".`` In the API reference each quoted chapter title becomes a link to that chapter. The
titles are the first heading of each ``notebooks/*.md``; a quoted title after "Read more in
the chapter(s)" that names no chapter is an error, so a renamed chapter cannot leave a stale
pointer behind.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.errors import ExtensionError

CHAPTERS = "/book/chapters/"
POINTER = re.compile(r'Read more in the chapters? ((?:"[^"]+"(?:,? and |, )?)+)')
QUOTED = re.compile(r'"([^"]+)"')


def chapter_titles(notebooks: Path) -> dict[str, str]:
    """Each chapter's title (its first ``# `` heading) and its document name."""
    titles = {}
    for path in sorted(notebooks.glob("*.md")):
        heading = next(line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("# "))
        titles[heading[2:].strip()] = CHAPTERS + path.stem
    return titles


def link_pointers(app, what, name, obj, options, lines):
    titles = app.env.biofair_chapter_titles

    def link(match: re.Match) -> str:
        title = match.group(1)
        if title not in titles:
            raise ExtensionError(f"{name}: 'Read more in the chapter \"{title}\"' names no chapter of notebooks/")
        return f'":doc:`{title} <{titles[title]}>`"'

    for i, line in enumerate(lines):
        lines[i] = POINTER.sub(lambda pointer: pointer.group(0).replace(
            pointer.group(1), QUOTED.sub(link, pointer.group(1))), line)


def load_titles(app):
    app.env.biofair_chapter_titles = chapter_titles(Path(app.srcdir) / "notebooks")


def setup(app):
    app.connect("builder-inited", load_titles)
    app.connect("autodoc-process-docstring", link_pointers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
