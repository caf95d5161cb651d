"""Keep glossary terms (and every other index entry) in the search index of an incremental build.

Search ranks a page's index entries, among them every glossary term, above plain text: that is
what puts book/glossary first for "EER". Sphinx 7.4 writes into ``searchindex.js`` only the
index entries of the documents it read in this build, so after an incremental build in which
the glossary did not change its terms vanish from search (a fresh build is fine). Reading the
few documents that hold index entries again keeps them.
"""

from __future__ import annotations


def documents_with_index_entries(app, env, added, changed, removed):
    entries = env.get_domain("index").entries
    return sorted(doc for doc, found in entries.items() if found and doc not in removed)


def setup(app):
    app.connect("env-get-outdated", documents_with_index_entries)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
