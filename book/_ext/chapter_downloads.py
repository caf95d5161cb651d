"""Offer each chapter's MyST Markdown source next to its executed notebook.

The chapters are built from the executed copies in ``book/chapters/*.ipynb``, so the theme's
download menu offers only the ``.ipynb``. Students who edit a chapter as text (Jupytext) want
the source in ``notebooks/``: this extension copies it next to the notebook in ``_sources/``
and adds a ``.md`` entry to the menu. Both files are served by the site itself, offline.
"""

from __future__ import annotations

import shutil
from pathlib import Path

CHAPTERS = "book/chapters/"


def _source(app, pagename: str) -> Path | None:
    if not pagename.startswith(CHAPTERS):
        return None
    path = Path(app.srcdir) / "notebooks" / f"{pagename.removeprefix(CHAPTERS)}.md"
    return path if path.is_file() else None


def add_markdown_button(app, pagename, templatename, context, doctree):
    if _source(app, pagename) is None:
        return
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"].insert(1, {
                "type": "link",
                "url": f"{context['pathto']('_sources', 1)}/{pagename}.md",
                "text": ".md",
                "tooltip": "Download the notebook as MyST Markdown (open it with Jupytext)",
                "icon": "fas fa-file-code",
                "label": "download-markdown-button",
            })


def copy_sources(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for pagename in app.env.found_docs:
        source = _source(app, pagename)
        if source is not None:
            target = Path(app.outdir) / "_sources" / f"{pagename}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def setup(app):
    app.connect("html-page-context", add_markdown_button, priority=600)
    app.connect("build-finished", copy_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
