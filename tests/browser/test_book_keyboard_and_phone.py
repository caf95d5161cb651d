"""The colour mode button's name, formulas in the tab order only where they scroll, and the
heat map at its own size on a phone (book/_static/biofair.js and biofair.css, _config.yml's
mathjax3_config)."""

from __future__ import annotations

from importlib.resources import files

import pytest
from browser.book_site import CHROMIUM, DESKTOP, PHONE, open_page
from browser.test_book_accessibility import focus_ring_pixels

if not CHROMIUM.exists():
    pytest.skip("Chromium is not installed (apt-get install chromium); browser tests skipped",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api")

AXE = files("axe_playwright_python").joinpath("axe.min.js").read_text()


def axe_rule(tab, rule: str) -> list:
    """The elements that fail one axe-core rule, run by name (some are off under the tags)."""
    tab.evaluate(AXE)
    found = tab.evaluate(f"axe.run(document, {{runOnly: {{type: 'rule', values: ['{rule}']}}}})")
    return [node["target"] for violation in found["violations"] for node in violation["nodes"]]


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("scheme, cycle", [("light", ["auto", "dark", "light"]),
                                           ("dark", ["auto", "light", "dark"])])
def test_the_colour_mode_button_says_the_mode_and_what_a_press_does(browser, site, width, scheme, cycle):
    """It showed one icon, titled "Light", "Dark" or "System Settings", and was named "Color
    mode" (axe: label-content-name-mismatch, WCAG 2.5.3). Its name starts with its tooltip, holds
    the shown icon's title, names the mode a press switches to, and follows each press."""
    titles = {"light": "Light", "dark": "Dark", "auto": "System Settings"}
    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)
    tab = context.new_page()
    tab.goto(f"{site}book/intro.html")
    button = tab.locator(".theme-switch-button")
    button.wait_for(state="visible")
    for _ in range(len(cycle) + 1):
        mode = tab.evaluate("document.documentElement.dataset.mode")
        shown = button.evaluate("""b => [...b.querySelectorAll('.theme-switch')]
            .filter(i => getComputedStyle(i).display !== 'none')
            .map(i => i.getAttribute('title') || i.querySelector('title').textContent)""")
        assert shown == [titles[mode]]
        following = cycle[(cycle.index(mode) + 1) % len(cycle)]
        now = f" (now {scheme})" if mode == "auto" else ""
        name = f"Color mode: {titles[mode]}{now}; switch to {titles[following]}"
        assert button.get_attribute("aria-label") == name
        assert tab.get_by_role("button", name=name, exact=True).count() == 1  # Chromium's own name
        assert axe_rule(tab, "label-content-name-mismatch") == []
        button.click()
        tab.wait_for_function("m => document.documentElement.dataset.mode === m", arg=following)
    context.close()


FORMULAS = """() => [...document.querySelectorAll('.bd-article mjx-container')].map(e => ({
    text: e.textContent.slice(0, 40), tabindex: e.getAttribute('tabindex'),
    scrolls: e.scrollWidth > e.clientWidth}))"""


@pytest.mark.parametrize("page", ["book/chapters/01_compute_error_rates"])
def test_only_formulas_that_scroll_are_in_the_tab_order(browser, site, page):
    """MathJax put every formula in the tab order (23 Tab presses through chapter 1's, about
    300 in the book): none is there now but those wider than their box, which a keyboard
    scrolls (an inline one in chapter 1 at 390 px; chapters 5 and 14 have some in closed
    solutions). A desktop has none; widening the phone's window to a desktop's takes them out
    again."""
    tab = open_page(browser, site, page, PHONE)
    assert tab.evaluate("MathJax.config.options.menuOptions.settings.inTabOrder") is False
    tab.evaluate("MathJax.startup.promise.then(() => true)")  # biofair.js checks them once typeset
    tab.wait_for_function("document.querySelector('.bd-article mjx-container[tabindex]')", timeout=5_000)
    formulas = tab.evaluate(FORMULAS)
    assert any(f["scrolls"] for f in formulas), "no formula wider than a phone's column here"
    assert [f for f in formulas if (f["tabindex"] == "0") != f["scrolls"]] == []
    assert axe_rule(tab, "scrollable-region-focusable") == []
    scrolling = tab.locator(".bd-article mjx-container[tabindex='0']").first
    scrolling.focus()
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function("e => e.scrollLeft > 0", arg=scrolling.element_handle(), timeout=5_000)
    tab.set_viewport_size({"width": DESKTOP, "height": 800})
    tab.wait_for_function("!document.querySelector('.bd-article mjx-container[tabindex]')", timeout=5_000)
    assert not any(f["scrolls"] for f in tab.evaluate(FORMULAS))
    tab.close()


def test_a_formula_that_scrolls_shows_the_focus(browser, site):
    """Its ring is drawn inside: the box it scrolls in clips anything outside."""
    tab = open_page(browser, site, "book/chapters/01_compute_error_rates", PHONE)
    tab.wait_for_function("document.querySelector('.bd-article p mjx-container[tabindex]')", timeout=5_000)
    assert focus_ring_pixels(tab, ".bd-article p mjx-container[tabindex='0']") > 50
    tab.close()


HEAT_MAP = ".bd-article img[alt^='Heat map']"


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_heat_map_keeps_its_size_on_a_phone(browser, site, width):
    """Fig. 3.4's cells hold its numbers in matplotlib's "small" type, 9.2 pt: 12.7 px at the
    figure's size, 8.9 px shrunk to a phone's column (0.70 of it). It kept its size and
    scrolled sideways inside its link on a phone, its colour bar out of view; drawn narrower
    (331 px), it now fits a phone's column at its own size, caption and colour bar in view, and
    a heat map wider than the column would still keep its size and scroll (biofair.css)."""
    tab = open_page(browser, site, "book/chapters/03_set_one_threshold_for_everyone", width)
    image = tab.locator(HEAT_MAP)
    assert image.count() == 1
    image.scroll_into_view_if_needed()
    scale = image.evaluate("e => e.clientWidth / (e.naturalWidth / 2)")
    box = image.evaluate("""e => { const a = e.closest('a'), c = e.closest('figure').querySelector('figcaption');
        return {scrolls: a.scrollWidth > a.clientWidth + 1, right: a.getBoundingClientRect().right,
                caption: c.getBoundingClientRect().right, view: document.documentElement.clientWidth}; }""")
    assert scale == pytest.approx(1, abs=0.01)
    assert box["right"] <= box["view"] and box["caption"] <= box["view"], box
    assert not box["scrolls"], box
    tab.close()
