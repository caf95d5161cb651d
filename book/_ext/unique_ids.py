"""Give each exercise's and each solution's content an id of its own.

sphinx-exercise gives the content of every exercise the id ``exercise-content`` and that of
every solution ``solution-content``: a chapter with four exercises repeats each id four
times, which HTML forbids (a link to the fragment, or an ARIA reference, finds the first
only). Each content section is named after its exercise instead: ``ex-01-by-hand-content``
and ``ex-01-by-hand-solution-content``.
"""

from __future__ import annotations

from docutils import nodes

SHARED_IDS = {"exercise-content": "{label}-content", "solution-content": "{target_label}-solution-content"}


def unique_content_ids(app, doctree: nodes.document, docname: str) -> None:
    for section in doctree.findall(nodes.section):
        for shared, pattern in SHARED_IDS.items():
            if shared in section["ids"] and section.parent is not None:
                unique = nodes.make_id(pattern.format(label=section.parent.get("label", ""),
                                                      target_label=section.parent.get("target_label", "")))
                section["ids"] = [unique if name == shared else name for name in section["ids"]]


def setup(app):
    app.connect("doctree-resolved", unique_content_ids)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
