"""The built book's pages, served locally, and how the browser tests open them."""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path
from urllib.parse import urljoin

import yaml

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
CHROMIUM = Path("/usr/bin/chromium")
PHONE, TABLET, DESKTOP = 390, 820, 1366


def toc_pages() -> list[str]:
    """Every document of _toc.yml, in order, as paths without suffix."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]]
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        pages += [chapter["file"] for chapter in part["chapters"]]
    return pages


PAGES = toc_pages()
CHAPTERS = [p for p in PAGES if p.startswith("book/chapters/")]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # a tab closed mid-download is no error
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def serve(folder: Path):
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def open_page(browser, site, page: str, width: int):
    """A tab on a page at a width, once its formulas are typeset."""
    tab = browser.new_page(viewport={"width": width, "height": 800})
    tab.goto(urljoin(site, f"{page}.html"))
    if tab.locator(".math").count() > 0:
        tab.wait_for_function("document.querySelectorAll('mjx-container').length > 0", timeout=15_000)
    tab.wait_for_timeout(200)
    return tab


def first_scrolling(boxes, by: int = 100):
    """The first of the located boxes whose content is wider than the box by more than ``by`` px."""
    return next(boxes.nth(i) for i in range(boxes.count())
                if boxes.nth(i).evaluate("(b, by) => b.scrollWidth > b.clientWidth + by", by))


#: Chapter 13's table of the groups' rates at the operating threshold (a column per group), in
#: the book or in report.html: how many groups, its row labels, by how much it is wider than its
#: box (0 or less: it fits), and the line report.html writes above it.
GROUPS_TABLE = """() => {
    const table = [...document.querySelectorAll('table.dataframe')]
        .find(t => t.querySelector('tbody th')?.textContent.trim().toLowerCase() === 'fmr');  // its first row
    const box = table.closest('.jp-OutputArea-output, div.output.text_html');
    return {groups: table.querySelectorAll('thead th').length - 1, over: box.scrollWidth - box.clientWidth,
            labels: [...table.querySelectorAll('tbody th')].map(th => th.textContent.trim()),
            hint: getComputedStyle(box, '::before').content};
}"""
