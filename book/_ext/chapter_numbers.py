"""A role that prints a chapter's number as the table of contents shows it.

``{chapter}`02_put_an_interval_on_every_number``` renders as "2", linked to that chapter (its
title in the link's tooltip, and a tap target larger than the digit: see biofair.css).
Prose that says "chapter {chapter}`...`" then never disagrees with the numbered table of
contents, however the chapters are reordered. The number comes from Sphinx's own section
numbers (``_toc.yml`` parts with ``numbered: true``); a chapter without one is an error.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.errors import ExtensionError

CHAPTERS = "book/chapters/"


class chapter_number(nodes.Inline, nodes.TextElement):
    """Placeholder until the section numbers are known."""


def chapter_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    node = chapter_number(rawtext, "", target=CHAPTERS + text.strip())
    node.line = lineno
    return [node], []


def resolve(app, doctree, docname):
    env = app.env
    for node in list(doctree.findall(chapter_number)):
        target = node["target"]
        numbers = env.toc_secnumbers.get(target, {}).get("")
        if not numbers:
            raise ExtensionError(f"{docname}: {target} has no chapter number (is it in a numbered part of _toc.yml?)")
        number = ".".join(map(str, numbers))
        title = env.titles[target].astext() if target in env.titles else ""
        link = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(docname, target),
                               reftitle=f"Chapter {number}: {title}", classes=["chapter-number"])
        link += nodes.Text(number)
        node.replace_self(link)


def setup(app):
    app.add_node(chapter_number)
    app.add_role("chapter", chapter_role)
    app.connect("doctree-resolved", resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
