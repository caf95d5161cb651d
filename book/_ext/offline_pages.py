"""Keep the built pages offline-clean: no Thebe (live code needs a server on the internet).

Jupyter Book 1 always loads sphinx-thebe, which injects its configuration script twice per
page (a console error, "THEBE_JS_URL has already been declared") and points at a CDN. The
book has no live code, so its scripts and stylesheet are dropped from every page.
"""

from __future__ import annotations


def _is_thebe(asset) -> bool:
    text = f"{getattr(asset, 'filename', '') or ''} {getattr(asset, 'attributes', {}).get('body', '')}"
    return "thebe" in text.lower()


def drop_thebe(app, pagename, templatename, context, doctree):
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [asset for asset in context[key] if not _is_thebe(asset)]


def setup(app):
    app.connect("html-page-context", drop_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
