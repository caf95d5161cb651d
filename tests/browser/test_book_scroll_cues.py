"""Wide tables and formulas on a phone (book/_static/biofair.js and biofair.css): a table whose
row labels are a pandas MultiIndex keeps them in view as it scrolls sideways, unless they would
fill the box; a formula or table wider than its box shows a shadow on each side where more of
it is hidden."""

from __future__ import annotations

import pytest
from browser.book_site import CHROMIUM, DESKTOP, PHONE, first_scrolling, open_page

if not CHROMIUM.exists():
    pytest.skip("Chromium is not installed (apt-get install chromium); browser tests skipped",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api")

LABELS_SHARE = 2 / 3  # biofair.js: the widest label block that is pinned, as a share of its box

# Each table with row labels in a scrolling box: how wide its labels are, whether they are
# pinned, and how far the box scrolls.
LABEL_TABLES = """() => [...document.querySelectorAll('.bd-article table:is(.multi-index, .sticky-index)')]
    .map((table, index) => {
        const box = table.closest('div.output.text_html'), edge = box.getBoundingClientRect();
        const origin = edge.left + box.clientLeft - box.scrollLeft;
        const right = Math.max(...[...table.querySelectorAll('tbody th')].map(c => c.getBoundingClientRect().right));
        return {index, multi: table.classList.contains('multi-index'),
                pinned: table.classList.contains('pinned-labels'),
                share: (right - origin) / edge.width, hidden: box.scrollWidth - box.clientWidth};
    })"""

# Where each row label, each header cell above them and the first row's values are, and
# whether a label is what shows at its own centre (nothing scrolled over it).
POSITIONS = """table => {
    const at = c => { const b = c.getBoundingClientRect(); return Math.round(b.left * 10) / 10; };
    const shows = c => { const b = c.getBoundingClientRect(), y = b.top + b.height / 2;
        if (y < 0 || y > innerHeight) return true;  // below the window (a tall table): nothing to hit there
        return c.contains(document.elementFromPoint(b.left + b.width / 2, y)); };
    const labels = [...table.querySelectorAll('tbody th, thead .pinned-label')];
    return {labels: labels.map(at), shown: labels.map(shows),
            opaque: labels.every(c => !/rgba\\(.*, 0\\)|transparent/.test(getComputedStyle(c).backgroundColor)),
            values: [...table.querySelector('tbody tr').querySelectorAll('td')].map(at)};
}"""


def label_tables(tab) -> list[dict]:
    """Measured once the page and its fonts have loaded (biofair.js measures again then)."""
    tab.wait_for_function("document.readyState === 'complete'", timeout=15_000)
    tab.evaluate("document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))))")
    return tab.evaluate(LABEL_TABLES)


@pytest.mark.parametrize("page, width", [("book/chapters/12_mitigate_and_measure_the_price", PHONE),
                                         ("book/chapters/09_report_beyond_roc_auc", PHONE),
                                         ("book/chapters/05_choose_cei_parameters", PHONE)])
def test_a_multiindex_table_keeps_its_row_labels_in_view_as_it_scrolls(browser, site, page, width):
    """Chapter 12's trade-off tables by model and target, chapter 9's and chapter 5's tables with
    two levels of row labels: scrolled sideways, every row label (the outer ones spanning rows
    too) and the index names above them stay where they were, opaque, with values passing
    under them; the values move."""
    tab = open_page(browser, site, page, width)
    tables = [t for t in label_tables(tab) if t["multi"] and t["pinned"] and t["hidden"] >= 50]
    assert tables, label_tables(tab)
    table = tab.locator(".bd-article table:is(.multi-index, .sticky-index)").nth(tables[0]["index"])
    box = table.locator("xpath=ancestor::div[contains(@class, 'text_html')][1]")
    box.scroll_into_view_if_needed()
    before = table.evaluate(POSITIONS)
    assert table.locator("tbody tr").first.locator("th").count() >= 2
    assert table.locator(".pinned-label.last-label").count() >= table.locator("tbody tr").count()
    box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
    scrolled = box.evaluate("b => b.scrollLeft")
    assert scrolled >= 50
    after = table.evaluate(POSITIONS)
    assert after["labels"] == pytest.approx(before["labels"], abs=1)
    assert all(after["shown"]) and after["opaque"], after
    assert after["values"] == pytest.approx([x - scrolled for x in before["values"]], abs=1)
    # the shadow the labels cast on the values, once some have scrolled under them
    assert box.evaluate("b => b.classList.contains('more-left')")
    shadow = table.locator(".last-label").first.evaluate("c => getComputedStyle(c, '::before').boxShadow")
    assert shadow.count("px") >= 8, shadow  # the line and the shadow
    tab.close()


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_row_labels_too_wide_for_the_box_are_not_pinned(browser, site, width):
    """Chapter 13's summary by metric and FMR target: its labels fill 320 of a phone's 358 px;
    pinned, they would hide every value. There they scroll away with the values; on a desktop
    they take 42 % of the box, and stay. So does a single label as wide (its table of reasons)."""
    tab = open_page(browser, site, "book/chapters/13_analyse_your_own_system", width)
    tables = label_tables(tab)
    assert [t for t in tables if t["pinned"] != (t["share"] <= LABELS_SHARE)] == []
    summary = tab.locator(".bd-article table.multi-index").first
    assert summary.locator("tbody th").first.inner_text() == "roc_auc"
    share = next(t for t in tables if t["multi"])["share"]
    assert (share > 0.8) if width == PHONE else (share < 0.5)
    assert summary.evaluate("t => t.classList.contains('pinned-labels')") == (width == DESKTOP)
    box = summary.locator("xpath=ancestor::div[contains(@class, 'text_html')][1]")
    box.scroll_into_view_if_needed()
    label = summary.locator("tbody th").first
    before = label.bounding_box()["x"]
    box.evaluate("b => { b.scrollLeft = 100; }")
    assert label.bounding_box()["x"] == pytest.approx(before - 100 if width == PHONE else before, abs=1)
    if width == PHONE:
        assert any(t["share"] > LABELS_SHARE and not t["multi"] and not t["pinned"] for t in tables)
    tab.close()


CUES = """e => ({classes: [...e.classList].filter(c => /^(scroll-cue|more-left|more-right)$/.test(c)).sort(),
                  background: getComputedStyle(e).backgroundImage})"""


def gradients(cue: dict) -> int:
    return cue["background"].count("linear-gradient")


@pytest.mark.parametrize("page, selector", [
    ("book/chapters/01_compute_error_rates", ".bd-article mjx-container:not([display='true'])"),  # minDCF, 1.6
])
def test_a_formula_wider_than_its_box_shows_that_it_goes_on(browser, site, page, selector):
    """A formula cut on a phone (chapter 11's Cllr stopped at "1/N" until it was split into
    lines): a shadow, behind the math, on its right edge; scrolled to its end, on its left edge
    only. A desktop's formulas fit, and have none."""
    tab = open_page(browser, site, page, PHONE)
    tab.wait_for_function("document.querySelector('.bd-article mjx-container.scroll-cue')", timeout=5_000)
    formula = tab.locator(f"{selector}.scroll-cue").first
    formula.scroll_into_view_if_needed()
    cue = formula.evaluate(CUES)
    assert cue["classes"] == ["more-right", "scroll-cue"] and gradients(cue) == 1, cue
    formula.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    tab.wait_for_function("e => e.classList.contains('more-left')", arg=formula.element_handle(), timeout=5_000)
    cue = formula.evaluate(CUES)
    assert cue["classes"] == ["more-left", "scroll-cue"] and gradients(cue) == 1, cue
    formula.evaluate("e => { e.scrollLeft = 20; }")
    tab.wait_for_function("e => e.classList.contains('more-right')", arg=formula.element_handle(), timeout=5_000)
    assert gradients(formula.evaluate(CUES)) == 2
    tab.set_viewport_size({"width": DESKTOP, "height": 800})
    tab.wait_for_function("!document.querySelector('.bd-article mjx-container.scroll-cue')", timeout=5_000)
    assert tab.evaluate("[...document.querySelectorAll('.bd-article mjx-container')]"
                        ".filter(e => getComputedStyle(e).backgroundImage !== 'none').length") == 0
    tab.close()


@pytest.mark.parametrize("page", ["book/chapters/14_outgrow_one_machine"])
def test_a_formula_in_an_opened_solution_shows_the_cue(browser, site, page):
    """Inline formulas in the exercises' solutions (chapter 14's) show the cue once their
    solution is open."""
    tab = open_page(browser, site, page, PHONE)
    for title in tab.locator(".bd-article .solution.dropdown > .admonition-title").all():
        title.click()
    formula = tab.locator(".bd-article .solution mjx-container.more-right").first
    formula.wait_for(state="visible", timeout=5_000)
    assert formula.evaluate("e => e.scrollWidth > e.clientWidth")
    assert gradients(formula.evaluate(CUES)) == 1
    tab.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_table_wider_than_its_box_shows_that_it_goes_on(browser, site, scheme):
    """The shadow falls in a strip of the box outside the table's rows (they are opaque), so it
    never covers a number; light on a dark page, dark on a light one. Chapter 13's summary, its
    labels not pinned on a phone, has one on each side once scrolled; chapter 11's table, its
    labels pinned, has its left one cast by the labels."""
    context = browser.new_context(viewport={"width": PHONE, "height": 800}, color_scheme=scheme)
    tab = context.new_page()
    tab.goto(f"{site}book/chapters/13_analyse_your_own_system.html")
    tab.evaluate(f"localStorage.setItem('mode', '{scheme}')")  # the theme's own store of the mode
    tab.reload()
    tab.wait_for_function(f"document.documentElement.dataset.theme === '{scheme}'", timeout=5_000)
    box = tab.locator(".bd-article div.output.text_html:has(table.multi-index)").first
    box.scroll_into_view_if_needed()
    tab.wait_for_function("b => b.classList.contains('scroll-cue')", arg=box.element_handle(), timeout=5_000)
    cue = box.evaluate(CUES)
    assert cue["classes"] == ["more-right", "scroll-cue"] and gradients(cue) == 1, cue
    strip = box.evaluate("""b => { const s = getComputedStyle(b), t = b.querySelector('table').getBoundingClientRect();
        return {left: parseFloat(s.borderLeftWidth), right: parseFloat(s.borderRightWidth),
                clip: s.backgroundClip, size: s.backgroundSize, inside: b.getBoundingClientRect().right - parseFloat(s.borderRightWidth)}; }""")
    assert strip["right"] >= 4 and strip["size"].startswith(f"{strip['right']:g}px"), strip
    # the shadow's colour: the text's, which is dark on a light page and light on a dark one
    shade = tab.evaluate("""b => { const probe = document.createElement('div'); probe.style.color = getComputedStyle(b).getPropertyValue('--cue');
        document.body.append(probe); const c = getComputedStyle(probe).color; probe.remove(); return c; }""", box.element_handle())
    channels = [float(x) for x in shade[shade.index("(") + 1:shade.index(")")].replace("/", " ").replace(",", " ").split()[-4:-1]]
    assert (max(channels) > 0.5 or max(channels) > 128) == (scheme == "dark"), shade
    box.evaluate("b => { b.scrollLeft = 60; }")
    tab.wait_for_function("b => b.classList.contains('more-left')", arg=box.element_handle(), timeout=5_000)
    assert gradients(box.evaluate(CUES)) == 2
    box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
    tab.wait_for_function("b => !b.classList.contains('more-right')", arg=box.element_handle(), timeout=5_000)
    assert gradients(box.evaluate(CUES)) == 1
    context.close()


def test_a_table_with_pinned_labels_casts_its_left_shadow_from_them(browser, site):
    tab = open_page(browser, site, "book/chapters/10_audit_demographic_differentials", PHONE)
    box = first_scrolling(tab.locator(".bd-article div.output.text_html:has(table.pinned-labels)"))
    box.scroll_into_view_if_needed()
    assert box.evaluate("b => parseFloat(getComputedStyle(b).borderLeftWidth)") == 0  # labels at the edge
    last = box.locator(".last-label").first
    shadow = "c => getComputedStyle(c, '::before').boxShadow"
    assert last.evaluate(shadow).count("px") == 4  # the line alone
    box.evaluate("b => { b.scrollLeft = 200; }")
    tab.wait_for_function("b => b.classList.contains('more-left')", arg=box.element_handle(), timeout=5_000)
    assert last.evaluate(shadow).count("px") >= 8
    assert gradients(box.evaluate(CUES)) == 1  # the right one: no strip on the left
    tab.close()
