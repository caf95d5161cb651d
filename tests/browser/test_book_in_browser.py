"""The built book as readers see it: every page in headless Chromium, offline.

Needs Debian's Chromium (``apt-get install chromium``; ``.ci/run`` installs it) and the
built book (``make book``; ``make test`` builds it first). Screenshots are saved to
``_build/screenshots/`` as test artifacts.
"""

from __future__ import annotations

import shutil
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from browser.book_site import (CHAPTERS, CHROMIUM, DESKTOP, GROUPS_TABLE, HTML, PAGES, PHONE, ROOT, TABLET, first_scrolling,
                               open_page, serve)
from bs4 import BeautifulSoup

SCREENSHOTS = ROOT / "_build" / "screenshots"

if not CHROMIUM.exists():
    pytest.skip("Chromium is not installed (apt-get install chromium); browser tests skipped",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api")


def inspect_page(browser, url: str, screenshot: Path | None = None) -> dict:
    """Load a page and return what a reader would notice: errors, leaks, figures, math, links."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, outside = [], []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))

    def route(request_route):
        host = urlparse(request_route.request.url).hostname
        if host not in ("127.0.0.1", None) and not request_route.request.url.startswith("data:"):
            outside.append(request_route.request.url)
            return request_route.abort()
        return request_route.continue_()

    page.route("**/*", route)
    response = page.goto(url, wait_until="load")
    page.wait_for_timeout(300)
    has_math = page.locator(".math").count() > 0
    if has_math:
        page.wait_for_function("document.querySelectorAll('mjx-container').length > 0", timeout=15_000)
    images = page.eval_on_selector_all(
        "article img", "els => els.map(e => ({src: e.getAttribute('src'), width: e.naturalWidth}))"
    )
    links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    sidebar = page.eval_on_selector_all("nav.bd-links a[href]", "els => els.map(e => e.href)")
    text = page.inner_text("article")
    if screenshot is not None:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        # the API reference is over 100,000 px tall: on a busy machine its full-page
        # screenshot takes longer than Playwright's default 30 s
        page.screenshot(path=str(screenshot), full_page=True, timeout=180_000)
    page.close()
    return {
        "status": response.status if response else None,
        "errors": errors,
        "outside": outside,
        "broken_images": [i["src"] for i in images if i["width"] == 0],
        "n_images": len(images),
        "has_math": has_math,
        "raw_math": "\\(" in text or "\\[" in text,
        "links": links,
        "sidebar": sidebar,
    }


def broken_internal_links(links: list[str], site: str) -> list[str]:
    broken = []
    for link in sorted({l.split("#")[0] for l in links if l.startswith(site)}):
        try:
            with urllib.request.urlopen(link) as answer:
                if answer.status != 200:
                    broken.append(link)
        except urllib.error.HTTPError:
            broken.append(link)
    return broken


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_offline(browser, site, page):
    name = page.replace("/", "_")
    report = inspect_page(browser, urljoin(site, f"{page}.html"), SCREENSHOTS / f"{name}.png")
    assert report["status"] == 200
    assert report["errors"] == [], report["errors"]
    assert report["outside"] == [], f"requests leaving 127.0.0.1: {report['outside']}"
    assert report["broken_images"] == [], report["broken_images"]
    assert not report["raw_math"], "unrendered math"
    assert broken_internal_links(report["links"], site) == []
    listed = {urlparse(link).path.lstrip("/") for link in report["sidebar"]}
    missing = [p for p in PAGES[1:] if f"{p}.html" not in listed]
    assert missing == [], f"sidebar misses {missing}"


def test_chapters_have_figures_and_math(browser, site):
    report = inspect_page(browser, urljoin(site, "book/chapters/03_set_one_threshold_for_everyone.html"))
    assert report["n_images"] >= 3 and report["has_math"]


@pytest.mark.parametrize("page", CHAPTERS)
def test_every_figure_opens_at_full_size_and_glued_numbers_keep_to_one_line(browser, site, page):
    """On a phone a figure shrinks to the column (its tick labels to about 10 px); a tap on it opens
    the image itself, which the reader can zoom. A number quoted from the code broke after
    its minus sign ("4.6e-" at the end of one line, "02" on the next). A word wider than its
    line (chapter 13's SHA-256 of the score file, 64 characters) must break, or the page
    would scroll sideways: every word that fits on a line keeps to one."""
    tab = open_page(browser, site, page, PHONE)
    broken = tab.eval_on_selector_all(
        ".bd-article span.pasted-text",
        "els => els.filter(e => !/\\s/.test(e.textContent.trim()) && e.getClientRects().length > 1)"
        ".filter(e => { const line = e.closest('p, li, td, th, div').clientWidth; e.style.whiteSpace = 'nowrap';"
        " const width = e.getBoundingClientRect().width; e.style.whiteSpace = ''; return width <= line; })"
        ".map(e => e.textContent)")
    assert broken == []
    assert tab.locator(".bd-article span.glued-number").count() > 0
    figures = tab.eval_on_selector_all(
        ".bd-article .cell_output img",
        "els => els.map(e => ({src: e.src, link: e.closest('a') ? e.closest('a').href : null,"
        " title: e.closest('a') ? e.closest('a').title : null}))")
    assert figures, "a chapter without figures"
    for figure in figures:
        assert figure["link"] == figure["src"] and figure["title"] == "Open the figure at full size", figure
    answer = tab.request.get(figures[0]["link"])
    assert answer.ok and answer.headers["content-type"] == "image/png"
    tab.close()


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("page", CHAPTERS)
def test_numbers_in_tables_keep_to_one_line(browser, site, page, width):
    """Chapter 3's rate tables squeezed their columns until a rate broke after its exponent's
    minus sign, "1.000e-" over "4", which reads as two values: 27 cells on a phone, 18 on a
    desktop. A table scrolls sideways instead (its box shows that it goes on)."""
    tab = open_page(browser, site, page, width)
    lines = tab.eval_on_selector_all(
        ".bd-article table td",
        """cells => cells.filter(c => /^[-+\u2212]?(\\d[\\d,]*(\\.\\d*)?|\\.\\d+)(e[-+\u2212]?\\d+)?%?$/i.test(c.textContent.trim()))
                .map(c => { const r = document.createRange(); r.selectNodeContents(c);
                            const tops = new Set([...r.getClientRects()].filter(b => b.width > 0).map(b => Math.round(b.top)));
                            return [c.textContent.trim(), tops.size]; })""")
    tab.close()
    if page == "book/chapters/03_set_one_threshold_for_everyone":
        assert sum(text.endswith("e-4") for text, _ in lines) >= 6, "chapter 3's rate tables are gone"
    assert [text for text, n in lines if n > 1] == []


# The one-word cells of a page's tables (labels, column names, values) that the browser broke
# over two lines or more: text lines are told apart by their tops, 4 px or more apart.
ONE_WORD_CELLS_BROKEN = """cells => cells.filter(c => { const s = c.textContent.trim();
        return s && s.length <= 30 && !/\\s/.test(s) && !c.querySelector('.visually-hidden') && c.checkVisibility(); })
    .map(c => { const tops = [], walk = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
            const r = document.createRange(); r.selectNodeContents(n);
            for (const b of r.getClientRects()) if (b.width > 0) tops.push(b.top); }
        tops.sort((a, b) => a - b);
        return [c.textContent.trim(), tops.filter((top, i) => i === 0 || top - tops[i - 1] >= 4).length]; })
    .filter(([, lines]) => lines > 1).map(([text]) => text)"""
# The hyphenated words of a page's labels ("1e-3", "ROC-AUC" in "FMR group 0 @ 1e-3") that the
# browser broke over two lines.
LABEL_WORDS_BROKEN = """labels => labels.flatMap(label => {
        const broken = [], walk = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode())
            for (const word of n.data.matchAll(/\\S+-\\S+/g)) {
                const r = document.createRange(); r.setStart(n, word.index); r.setEnd(n, word.index + word[0].length);
                const tops = [...r.getClientRects()].filter(b => b.width > 0).map(b => b.top).sort((a, b) => a - b);
                if (tops.length && tops[tops.length - 1] - tops[0] >= 4) broken.push(word[0]); }
        return broken; })"""


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("page", PAGES)
def test_labels_and_column_names_keep_to_one_line(browser, site, page, width):
    """Chapter 2's row label "tmr_at_fmr_1e-3" broke at its hyphen on a phone, "tmr_at_fmr_1e-"
    over "3", as did chapter 1's column "non-mated", 6's "N-Sigma", 7's "p-value" and 10's
    "clopper-pearson": a one-word cell keeps to one line, as numbers do, and its table scrolls.
    Longer labels broke inside a word too: chapter 3's "FMR group 0 @ 1e-3" as "1e-" over "3" on
    a desktop, chapter 9's "ROC-AUC - TMR at FMR 1e-3" at both hyphens on a phone."""
    tab = open_page(browser, site, page, width)
    broken = tab.eval_on_selector_all(".bd-article table :is(td, th)", ONE_WORD_CELLS_BROKEN)
    broken_words = tab.eval_on_selector_all(".bd-article table th", LABEL_WORDS_BROKEN)
    tab.close()
    assert broken == [] and broken_words == []


def test_one_word_cells_broken_over_lines_are_caught(browser, site):
    """The check above finds a label squeezed until it breaks at its hyphen."""
    tab = open_page(browser, site, "book/chapters/02_put_an_interval_on_every_number", PHONE)
    labels = tab.locator(".bd-article table th", has_text="tmr_at_fmr_1e-3")
    assert labels.count() > 0
    labels.first.evaluate("c => { c.style.whiteSpace = 'normal'; c.style.width = '4ch'; c.style.maxWidth = '4ch'; }")
    broken = tab.eval_on_selector_all(".bd-article table :is(td, th)", ONE_WORD_CELLS_BROKEN)
    tab.close()
    assert "tmr_at_fmr_1e-3" in broken


# Each ledger of a page (a table with a verdict column) once scrolled to its right end: whether
# it is still laid out as a table; for each row of values, by how much it is taller than the text
# of its label and values (its cells of fewer than 60 characters) needs; and each reason, with
# whether its text lies inside the box that scrolls and whether it has its row's colour.
LEDGERS = """boxes => boxes.filter(b => [...b.querySelectorAll('thead th')].some(c => c.textContent.trim() === 'verdict'))
    .map(b => { b.scrollLeft = b.scrollWidth;
        const table = b.querySelector('table'), edge = b.getBoundingClientRect();
        const left = edge.left + b.clientLeft, right = left + b.clientWidth;
        const textHeight = (cell) => { const r = document.createRange(); r.selectNodeContents(cell);
                                       return r.getBoundingClientRect().height; };
        return {display: getComputedStyle(table).display,
                slack: Math.max(...[...table.querySelectorAll('tbody tr:not(.prose-row)')].map(r =>
                    r.getBoundingClientRect().height -
                    Math.max(...[...r.children].filter(c => c.textContent.trim().length <= 60).map(textHeight)))),
                reasons: [...table.querySelectorAll('tbody tr.prose-row')].map(r => {
                    const text = r.querySelector('td > div').getBoundingClientRect();
                    const colour = (row) => getComputedStyle(row).backgroundColor;
                    return [r.textContent.trim(), text.left >= left - 0.5 && text.right <= right + 0.5,
                            colour(r) === colour(r.previousElementSibling)]; })}; })"""


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("page", ["book/reproductions", "book/chapters/04_find_bias_in_the_tails"])
def test_a_ledgers_reasons_read_under_their_rows_in_lines_its_box_shows(browser, site, page, width):
    """A ledger's reason, squeezed to a short line beside the numbers, made rows up to 371 px tall
    on a phone, their label and values floating in the middle. Each reason now reads under its
    row, every one of them, in lines no wider than the table's box wherever it is scrolled to, and
    the ledger is still a table, each row of values as tall as its label and values make it."""
    raw = BeautifulSoup((HTML / f"{page}.html").read_text(), "html.parser")
    written = [" ".join(row.find_all("td")[-1].get_text().split())
               for table in raw.select(".bd-article table.dataframe") if table.find("th", string="verdict")
               for row in table.select("tbody tr") if row.find_all("td")[-1].get_text().strip()]
    tab = open_page(browser, site, page, width)
    ledgers = tab.eval_on_selector_all(".bd-article div.output.text_html", LEDGERS)
    tab.close()
    assert ledgers and len(written) >= 3
    shown = [reason for ledger in ledgers for reason, _, _ in ledger["reasons"]]
    assert [" ".join(reason.split()) for reason in shown] == [f"reason: {reason}" for reason in written]
    for ledger in ledgers:
        assert ledger["display"] == "table"
        assert ledger["slack"] < 30, ledger["slack"]  # its padding; a reason beside it: 110 to 347 px
        assert all(inside and striped for _, inside, striped in ledger["reasons"]), ledger["reasons"]


@pytest.mark.parametrize("page", CHAPTERS)
def test_printed_text_wraps_in_its_box_on_a_phone(browser, site, page):
    """Chapters 8 and 10 printed notes wrapped at 72 characters, and others printed longer lines
    (a warning, the versions of the packages): on a phone each scrolled sideways, a few words
    in view. Printed text wraps at the width of its box."""
    tab = open_page(browser, site, page, PHONE)
    wide = tab.eval_on_selector_all(
        ".bd-article div.cell_output div.output:is(.stream, .text_plain)",
        "outputs => outputs.filter(o => [o.closest('.cell_output'), o, ...o.querySelectorAll('*')]"
        ".some(e => e.scrollWidth > e.clientWidth + 1)).map(o => o.textContent.slice(0, 60))")
    printed = tab.locator(".bd-article div.cell_output div.output.stream").count()
    tab.close()
    assert printed > 0 and wide == []


@pytest.mark.parametrize("page", ["book/intro", *CHAPTERS])
def test_figures_keep_their_text_readable_on_a_phone(browser, site, page):
    """Figures 6.5 inches wide with 10-point text shrank to 0.53 of their size on a phone, their
    text to about 7 px. At 5.2 inches and 11 points (bf.plotting.use_style) a phone shows them at
    0.66 and their text at about 10 px. 11-point text is 15.3 px at 100 dpi: no figure may shrink
    it below 9 px, a scale of 0.588 (its PNG is drawn at twice the size a desktop shows it at)."""
    tab = open_page(browser, site, page, PHONE)
    shrunk = tab.eval_on_selector_all(
        ".bd-article .cell_output img",
        "els => els.map(e => [e.getAttribute('src').split('/').pop(), e.clientWidth / (e.naturalWidth / 2)])")
    assert shrunk, "a chapter without figures"
    assert [(src, round(scale, 3)) for src, scale in shrunk if scale * 11 / 72 * 100 < 9] == []
    tab.close()


def test_tables_that_scroll_outside_cells_are_reached_by_keyboard(browser, site):
    """The Reproductions page's glued tables scroll sideways in boxes of their own: each is a
    named region in the tab order, as the theme makes cell outputs."""
    tab = open_page(browser, site, "book/reproductions", PHONE)
    boxes = tab.eval_on_selector_all(
        ".bd-article div.output.text_html",
        "els => els.filter(e => !e.closest('.cell_output'))"
        ".map(e => [e.tabIndex, e.getAttribute('role'), e.getAttribute('aria-label')])")
    assert len(boxes) >= 5
    assert all(tab_index == 0 and role == "region" and label for tab_index, role, label in boxes), boxes
    tab.close()



# How a table looks: its frame, the line between two columns, the header band and the colours
# of its first two rows (cell outputs get these from the theme), a ledger's reason rows aside.
TABLE_LOOK = """table => {
    const style = (element) => getComputedStyle(element), rows = table.querySelectorAll('tbody tr:not(.prose-row)');
    return {frame: style(table).border, column_line: style(rows[0].children[1]).borderLeft,
            header: style(table.querySelector('thead tr')).backgroundColor + ' ' + style(table.querySelector('thead tr')).borderBottom,
            stripes: [style(rows[0]).backgroundColor, style(rows[1]).backgroundColor]};
}"""


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_tables_glued_outside_cells_look_like_the_chapters_tables(browser, site, width):
    """The theme styles tables in a cell's output only: the Reproductions page's ledgers had no
    line between columns, no row stripes and no header band, only pandas' outset frame, so a
    value sat 2 px from the next ("0.99740.9991") and a row made tall by its reason did not
    lead from label to value. They now look like the same ledgers in chapters 3 to 6 and 9."""
    tab = open_page(browser, site, "book/chapters/04_find_bias_in_the_tails", width)
    chapter = tab.locator(".bd-article .cell_output table.dataframe").first.evaluate(TABLE_LOOK)
    tab.close()
    tab = open_page(browser, site, "book/reproductions", width)
    tables = tab.locator(".bd-article section > div.output.text_html table.dataframe")
    assert tables.count() >= 5
    looks = [tables.nth(i).evaluate(TABLE_LOOK) for i in range(tables.count())]
    tab.close()
    assert chapter["stripes"][0] != chapter["stripes"][1] and chapter["column_line"].startswith("1px solid")
    assert all(look == chapter for look in looks), (chapter, looks)

def search_hits(browser, site, query: str) -> list[str]:
    page = browser.new_page()
    page.goto(urljoin(site, f"search.html?q={query}"))
    page.wait_for_selector("#search-results li a", timeout=20_000)
    page.wait_for_function(  # the result list grows while the search runs; wait until it stops
        "() => { const n = document.querySelectorAll('#search-results li').length;"
        " const same = n === window.__hits; window.__hits = n; return same; }",
        polling=300, timeout=20_000,
    )
    hits = page.eval_on_selector_all("#search-results li a", "els => els.map(e => e.href)")
    page.close()
    return hits


@pytest.mark.parametrize("query, defining", [
    ("EER", "01_compute_error_rates"),
    ("FDR", "03_set_one_threshold_for_everyone"),
    ("CEI", "04_find_bias_in_the_tails"),
    ("GARBE", "04_find_bias_in_the_tails"),
    ("N-Sigma", "06_measure_bias_over_subsets"),
])
def test_search_lands_on_the_definition_first(browser, site, query, defining):
    """The first hit is the term's glossary entry (which links to its chapter) or the chapter."""
    first = search_hits(browser, site, query)[0]
    path = urlparse(first).path
    glossary_entry = path.endswith("book/glossary.html") and urlparse(first).fragment.lower() == f"term-{query.lower()}"
    assert glossary_entry or path.endswith(f"book/chapters/{defining}.html"), first


def test_search_finds_the_fdr_chapter(browser, site):
    page = browser.new_page()
    page.goto(urljoin(site, "search.html?q=Fairness+Discrepancy+Rate"))
    page.wait_for_selector("#search-results li a", timeout=20_000)
    hits = page.eval_on_selector_all("#search-results li a", "els => els.map(e => e.href)")
    page.close()
    assert any("03_set_one_threshold_for_everyone" in hit for hit in hits), hits


def test_a_broken_link_or_figure_is_caught(browser, tmp_path):
    """The checks themselves fail on a page with a dead link and a missing figure."""
    shutil.copytree(HTML, tmp_path / "html")
    page = tmp_path / "html" / "book" / "chapters" / "03_set_one_threshold_for_everyone.html"
    source = page.read_text()
    opening = source.index(">", source.index("<article")) + 1
    broken = '<a href="no-such-page.html">dead</a><img src="no-such-figure.png" alt="missing">'
    page.write_text(source[:opening] + broken + source[opening:])
    server = serve(tmp_path / "html")
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        report = inspect_page(browser, urljoin(base, "book/chapters/03_set_one_threshold_for_everyone.html"))
        assert report["broken_images"] == ["no-such-figure.png"]
        assert broken_internal_links(report["links"], base) == [urljoin(base, "book/chapters/no-such-page.html")]
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("page", CHAPTERS)
def test_chapter_downloads_work_offline(browser, site, page):
    """The download menu offers the executed notebook and its MyST source, served by the site."""
    tab = browser.new_page()
    tab.goto(urljoin(site, f"{page}.html"))
    menu = tab.eval_on_selector_all(".dropdown-download-buttons a[href]",
                                    "els => els.map(e => [e.innerText.trim(), e.href])")
    tab.close()
    offered = dict(menu)
    assert set(offered) >= {".ipynb", ".md"}, menu
    with urllib.request.urlopen(offered[".ipynb"]) as answer:
        assert '"cells"' in answer.read().decode()
    with urllib.request.urlopen(offered[".md"]) as answer:
        text = answer.read().decode()
    assert text.startswith("---\njupytext:") and "bf.show_versions()" in text
    assert text == (ROOT / "notebooks" / f"{Path(page).name}.md").read_text()


def test_metric_chooser_links_resolve_and_quote_computed_findings(browser, site):
    tab = browser.new_page()
    tab.goto(urljoin(site, "book/metric_chooser.html"))
    rows = tab.eval_on_selector_all(
        "article table tbody tr",
        "rows => rows.map(r => ({links: [...r.querySelectorAll('a[href]')].map(a => a.href), text: r.innerText}))",
    )
    tab.close()
    assert len(rows) >= 12
    chapters = {urljoin(site, f"{p}.html") for p in CHAPTERS}
    for row in rows:
        assert any(link.split("#")[0] in chapters for link in row["links"]), row["text"][:80]
        assert "glue" not in row["text"] and "::" not in row["text"], row["text"][:80]
        assert broken_internal_links(row["links"], site) == []


def drawer_opens_and_closes(tab, toggle: str, dialog: str, content: str) -> None:
    """Click the visible toggle; the drawer must show its content on screen, then close on Escape."""
    buttons = [b for b in tab.locator(toggle).all() if b.is_visible()]
    assert len(buttons) == 1, f"{len(buttons)} visible {toggle} buttons"
    buttons[0].click()
    tab.wait_for_function(f"document.querySelector('{dialog}').open", timeout=5_000)
    inside = tab.locator(f"{dialog} {content}").first
    inside.wait_for(state="visible", timeout=5_000)
    box = inside.bounding_box()
    viewport = tab.viewport_size
    assert box["width"] > 100 and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 1, box
    tab.keyboard.press("Escape")
    tab.wait_for_function(f"!document.querySelector('{dialog}').open", timeout=5_000)
    # the drawer may still be sliding out when the dialog reports closed (slow on a busy machine)
    inside.wait_for(state="hidden", timeout=5_000)


def has_page_contents(tab) -> bool:
    return tab.locator("#pst-page-toc-nav").count() > 0


OVERFLOW = """() => {
  // elements reaching past the viewport that no scrolling box of their own contains
  const W = document.documentElement.clientWidth, wide = [];
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  for (const e of document.querySelectorAll('body *')) {
    const box = e.getBoundingClientRect();
    if (box.width === 0 || box.right <= W + 1 || e.closest('dialog:not([open])')
        || getComputedStyle(e).visibility === 'hidden') continue;  // e.g. a closed off-canvas sidebar
    let p = e.parentElement, held = false;
    for (; p; p = p.parentElement) if (scrolls(p) && p.getBoundingClientRect().right <= W + 1) { held = true; break; }
    if (!held) wide.push(`${e.tagName.toLowerCase()}.${String(e.className).slice(0, 40)} reaches ${Math.round(box.right)} px`);
  }
  return {document: document.documentElement.scrollWidth, viewport: W, wide: wide.slice(0, 5)};
}"""


def visible_search_controls(tab) -> int:
    return sum(e.is_visible() for e in tab.locator(
        "input[type=search], .search-button-field, .search-button, form.bd-search").all())


@pytest.mark.parametrize("page", PAGES + ["genindex", "search"])  # the index was 558 px wide at 390
def test_phone_reader_can_navigate_and_nothing_is_wider_than_the_screen(browser, site, page):
    """At 390 px: both drawers open and close, one search control, no horizontal overflow."""
    tab = open_page(browser, site, page, PHONE)
    overflow = tab.evaluate(OVERFLOW)
    assert overflow["document"] <= overflow["viewport"], overflow
    assert overflow["wide"] == [], overflow["wide"]
    assert visible_search_controls(tab) == (1 if page != "search" else 3)  # the search page adds its own form
    drawer_opens_and_closes(tab, ".primary-toggle", "#pst-primary-sidebar-modal", "nav.bd-links a")
    if page.startswith("book/chapters/"):
        assert has_page_contents(tab), "a chapter without page contents"
    if has_page_contents(tab):
        drawer_opens_and_closes(tab, ".secondary-toggle", "#pst-secondary-sidebar-modal", "nav.page-toc a")
    tab.close()


@pytest.mark.parametrize("distance", [False, True])
def test_the_differential_report_fits_a_phone(browser, tmp_path, distance):
    """biofair report --layout differential's page: its wide tables scroll inside themselves
    (the page was 1,130 px wide at 390 px), and its threshold says which way a match lies."""
    import biofair as bf
    from biofair._differential_html import render

    report = bf.differential_report(bf.synthetic.demographic_scores(rng=0), fmr=0.01, n_resamples=40, rng=0)
    path = tmp_path / "report.html"
    path.write_text(render(report.in_distance_units() if distance else report))
    phone = browser.new_context(viewport={"width": PHONE, "height": 800}, is_mobile=True)
    tab = phone.new_page()
    tab.goto(path.as_uri())
    # a phone's browser lays a page without a viewport tag out at 980 px and shrinks it (text of 6 px)
    assert tab.evaluate("window.innerWidth") == PHONE
    overflow = tab.evaluate(OVERFLOW)
    assert overflow["document"] <= overflow["viewport"] and overflow["wide"] == [], overflow
    rule = "its distance is at or below it" if distance else "its score is at or above it"
    assert rule in " ".join(tab.inner_text("body").split())
    # the wide tables say that they scroll, and keep each row's label in view when they do
    assert tab.locator(".scroll-hint").count() == 4 and tab.locator(".scroll-hint").first.is_visible()
    scrolled, before, after = tab.evaluate("""() => {
        const table = document.querySelectorAll('table')[1], label = table.querySelector('td');
        const before = label.getBoundingClientRect().left;
        table.scrollLeft = 300;
        return [table.scrollLeft, before, label.getBoundingClientRect().left]; }""")
    assert scrolled > 0 and abs(after - before) <= 1  # pinned (to the sub-pixel the sticky cell rounds to)
    phone.close()


@pytest.mark.parametrize("page", ["book/intro", "book/chapters/01_compute_error_rates", "book/metric_chooser"])
def test_tablet_reader_can_navigate(browser, site, page):
    tab = open_page(browser, site, page, TABLET)
    assert tab.evaluate(OVERFLOW)["wide"] == []
    drawer_opens_and_closes(tab, ".primary-toggle", "#pst-primary-sidebar-modal", "nav.bd-links a")
    drawer_opens_and_closes(tab, ".secondary-toggle", "#pst-secondary-sidebar-modal", "nav.page-toc a")
    tab.close()


@pytest.mark.parametrize("page", ["book/intro", "book/chapters/01_compute_error_rates"])
def test_desktop_has_one_search_box_and_both_sidebars(browser, site, page):
    tab = open_page(browser, site, page, DESKTOP)
    assert visible_search_controls(tab) == 1
    assert tab.locator("#pst-primary-sidebar nav.bd-links").is_visible()
    assert tab.locator("#pst-secondary-sidebar nav.page-toc").is_visible()
    assert tab.evaluate(OVERFLOW)["wide"] == []
    tab.close()


def test_the_drawer_check_fails_when_the_toggle_does_nothing(browser, site):
    """The check itself catches the bug it guards against: a toggle without its handler."""
    tab = open_page(browser, site, "book/chapters/01_compute_error_rates", PHONE)
    tab.evaluate("""() => { const b = document.querySelector('.primary-toggle');
                            b.replaceWith(b.cloneNode(true)); }""")  # drops the theme's listener
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with pytest.raises(PlaywrightTimeout, match=r"^Page\.wait_for_function: Timeout 5000ms exceeded\.$"):  # never opens
        drawer_opens_and_closes(tab, ".primary-toggle", "#pst-primary-sidebar-modal", "nav.bd-links a")
    tab.close()


@pytest.mark.parametrize("width", [PHONE, TABLET, DESKTOP, 1920])
def test_metric_chooser_is_a_card_per_question_that_fits_its_box(browser, site, width):
    """One card per question at every width, each field labelled and as wide as its card. From
    1200 px the six columns were a table 1013 px wide in an article of 624 to 790 px: on a
    1366 px laptop its "Finding" column and most of "Learn it in" lay past the right edge
    (757 px shown), and "Learn it in" was 83 px wide, three letters a line."""
    tab = open_page(browser, site, "book/metric_chooser", width)
    cells = tab.eval_on_selector(
        ".metric-chooser tbody tr",
        "tr => [...tr.children].map(td => [getComputedStyle(td).display, td.getBoundingClientRect().width])")
    card = tab.eval_on_selector(".metric-chooser tbody tr", "tr => tr.getBoundingClientRect().width")
    overflowing = tab.eval_on_selector_all(
        ".metric-chooser table", "tables => tables.filter(t => t.parentElement.scrollWidth > t.parentElement.clientWidth).length")
    label = tab.evaluate("getComputedStyle(document.querySelector("
                         "'.metric-chooser tbody td:nth-child(2)'), '::before').content")
    tab.close()
    assert len(cells) == 6 and all(display == "block" for display, _ in cells), cells
    assert all(w > card - 30 for _, w in cells), (card, cells)
    assert overflowing == 0 and "Metric" in label


SETTINGS = """rows => rows.map((row) => {
  const label = row.querySelector("th").getBoundingClientRect(), text = row.querySelector("td").getBoundingClientRect();
  const box = row.closest("div.output.text_html");
  return {metric: row.querySelector("th").textContent.trim(), below: text.top >= label.bottom - 0.5,
          beside: text.left >= label.right - 0.5, slack: box.clientWidth - text.width, tall: text.height,
          scrolls: box.scrollWidth > box.clientWidth, name: box.getAttribute("aria-label")};
})"""


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_chapter_13s_settings_read_as_a_list_on_a_phone_and_a_table_on_a_desktop(browser, site, width):
    """Chapter 13's table of each index's settings: on a 390 px phone its metric names (up to 30
    characters, kept whole) left the settings a narrow column, the table 540 px wide in its
    342 px box, the settings past its right edge, rows 81 to 108 px tall. On a phone each metric
    now stands over its settings, which take the box's width (at most 3 lines); on a desktop it
    is still a table, the settings beside their metric."""
    tab = open_page(browser, site, "book/chapters/13_analyse_your_own_system", width)
    rows = tab.eval_on_selector_all(".bd-article div.cell.tag_stack-on-phone table.dataframe tbody tr", SETTINGS)
    tab.close()
    assert {"eer", "min_dcf", "cei_auto_extreme_nonmated"} <= {row["metric"] for row in rows}, rows
    assert not any(row["scrolls"] for row in rows), rows
    # named as a table, not as one to scroll sideways (the name every table's box had)
    assert all(row["name"].startswith("Table ") and "scroll" not in row["name"] for row in rows), rows
    if width == PHONE:
        assert all(row["below"] and row["slack"] < 40 and row["tall"] < 100 for row in rows), rows
    else:
        assert all(row["beside"] for row in rows), rows


def test_chapter_13s_groups_rates_at_the_operating_threshold_fit_a_phone(browser, site):
    """The groups' rates at the operating threshold, a column per group: with summary.json's keys as
    row labels ("false_non_matches", one word) the table scrolled 20 to 30 px sideways in its box on
    a 390 px phone, with the example's three groups. Its rows are now named in words, and it fits."""
    tab = open_page(browser, site, "book/chapters/13_analyse_your_own_system", PHONE)
    table = tab.evaluate(GROUPS_TABLE)
    tab.close()
    assert table["groups"] == 3 and len(table["labels"]) == 16, table
    assert table["over"] <= 0, table


def test_solutions_are_collapsed_until_opened(browser, site):
    tab = browser.new_page()
    tab.goto(urljoin(site, "book/chapters/01_compute_error_rates.html"))
    solution = tab.locator(".solution.dropdown").first
    body = solution.locator("section#ex-01-by-hand-solution-content")
    assert tab.locator(".exercise").count() >= 2 and not body.is_visible()
    solution.locator(".admonition-title").click()
    body.wait_for(state="visible", timeout=5_000)
    tab.close()


INLINE_MATH_THAT_SCROLLS = """() => [...document.querySelectorAll('.bd-article mjx-container:not([display="true"])')]
    .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.slice(0, 40))"""


@pytest.mark.parametrize("page", CHAPTERS)
def test_inline_formulas_fit_their_box_on_a_desktop(browser, site, page):
    """Inline math scrolls in its own box (for a long formula on a phone), and MathJax's copy of
    each formula for screen readers, clipped but as wide as the text it spells out, overflowed
    that box: 237 of 290 formulas showed a scrollbar wherever scrollbars are always visible."""
    tab = open_page(browser, site, page, DESKTOP)
    assert tab.evaluate(INLINE_MATH_THAT_SCROLLS) == []
    tab.close()


def test_a_tap_on_a_solution_title_opens_it_and_its_button_says_which(browser, site):
    """The link to the exercise in "Solution to Exercise 1.1" took half the title: a tap there
    scrolled up to the exercise and left the solution closed. Its button was "Toggle hidden
    content", like every other."""
    tab = open_page(browser, site, "book/chapters/01_compute_error_rates", PHONE)
    solution = tab.locator(".solution.dropdown").first
    link = solution.locator(".admonition-title a")
    assert link.inner_text().startswith("Exercise")  # its leading space was underlined
    assert solution.locator("button.toggle-button").get_attribute("aria-label") == "Solution to Exercise 1.1"
    body = solution.locator("section#ex-01-by-hand-solution-content")
    assert not body.is_visible()
    link.click(force=True)  # where a finger lands: on the link's text
    body.wait_for(state="visible", timeout=5_000)
    tab.close()


def test_a_wide_table_keeps_its_row_labels_in_view_as_it_scrolls(browser, site):
    tab = open_page(browser, site, "book/chapters/10_audit_demographic_differentials", PHONE)
    box = first_scrolling(tab.locator(".cell_output div.output.text_html:has(table.sticky-index)"))
    assert box.get_attribute("role") == "region"  # named, in cells too, and told that it scrolls
    assert box.get_attribute("aria-label").endswith("; scroll sideways to see every column")
    label = box.locator("tbody th").first
    before = label.bounding_box()["x"]
    box.evaluate("b => { b.scrollLeft = 300; }")
    assert box.evaluate("b => b.scrollLeft") >= 100
    assert label.bounding_box()["x"] == pytest.approx(before, abs=1)
    tab.close()


def test_chapter_numbers_in_prose_are_named_links_large_enough_to_tap(browser, site):
    """ "Chapters 1 (...), 3 (...)": each link was its digit alone, 10 x 19 px."""
    tab = open_page(browser, site, "book/intro", PHONE)
    links = tab.eval_on_selector_all(".bd-article a.chapter-number", """els => els.map(e => {
        const box = e.getBoundingClientRect(); return [e.textContent, e.title, box.width, box.height]; })""")
    assert len(links) >= 10
    for number, title, width, height in links:
        assert title.startswith(f"Chapter {number}: ") and len(title) > len(f"Chapter {number}: ") + 5
        assert width >= 24 and height >= 24, (number, width, height)
    tab.close()


def test_pages_declare_an_icon_that_loads(browser, site):
    """Without one, browsers asked for /favicon.ico and logged its 404 as a console error."""
    tab = open_page(browser, site, "book/intro", DESKTOP)
    icon = tab.eval_on_selector("link[rel~='icon']", "e => e.href")
    answer = tab.request.get(icon)
    assert answer.ok and answer.headers["content-type"].startswith("image/")
    tab.close()
