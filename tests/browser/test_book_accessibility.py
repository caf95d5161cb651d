"""Every page of the book passes axe-core's WCAG 2.2 A/AA and best-practice rules, and a
keyboard user sees where the focus is.

axe-core comes from the pinned ``axe-playwright-python`` package (its ``axe.min.js``). The
rules it found when first run on the book, each fixed in ``book/_static/biofair.js`` or
``biofair.css``: pandas' empty header cells (421), identical names of the table regions
(every box "Table; ..."), the references' deprecated ``doc-biblioentry`` role in a list
(critical), the site title outside any landmark, controls named otherwise than they read.
"""

from __future__ import annotations

import io
from importlib.resources import files

import numpy as np
import pytest
from PIL import Image
from browser.book_site import CHAPTERS, CHROMIUM, DESKTOP, PAGES, PHONE, open_page

if not CHROMIUM.exists():
    pytest.skip("Chromium is not installed (apt-get install chromium); browser tests skipped",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api")

AXE = files("axe_playwright_python").joinpath("axe.min.js").read_text()
RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa",
                                               "best-practice"]},
         "resultTypes": ["violations"]}
# The API reference is Sphinx's autodoc markup and the theme's, which every other page shares:
# axe takes 50 to 80 s on its 100,000 px (against 2 to 10 s on a chapter), so it is checked
# at one width, and only the parts the book's own files change (header, sidebar, search).
API = "book/api"


def violations(tab, context: str | dict = "document") -> list[str]:
    tab.evaluate(AXE)
    found = tab.evaluate(f"axe.run({context}, {RULES!r})".replace("True", "true"))["violations"]
    return [f"{v['id']} ({v['impact']}, {len(v['nodes'])}x): {v['nodes'][0]['target']} {v['help']}" for v in found]


@pytest.mark.parametrize("page", [p for p in PAGES if p != API])
def test_every_page_passes_axe_on_a_phone(browser, site, page):
    tab = open_page(browser, site, page, PHONE)
    assert violations(tab) == []
    tab.close()


@pytest.mark.parametrize("page", ["book/intro", CHAPTERS[2], "book/references"])
def test_pages_pass_axe_on_a_desktop(browser, site, page):
    """The sidebars show on a desktop: the site title in the primary one was in no landmark."""
    tab = open_page(browser, site, page, DESKTOP)
    assert violations(tab) == []
    tab.close()


def test_the_api_page_frame_passes_axe(browser, site):
    tab = open_page(browser, site, API, DESKTOP)
    assert violations(tab, "{exclude: ['.bd-article']}") == []
    tab.close()


def focus_ring_pixels(tab, selector: str) -> int:
    """How many pixels around an element change when it takes the keyboard's focus."""
    element = tab.locator(selector).first
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    clip = {"x": max(box["x"] - 8, 0), "y": max(box["y"] - 8, 0), "width": box["width"] + 16, "height": box["height"] + 16}
    element.evaluate("e => e.blur()")
    blurred = Image.open(io.BytesIO(tab.screenshot(clip=clip))).convert("RGB")
    element.focus()
    tab.keyboard.press("Shift")  # a keyboard event: :focus-visible applies as it does after Tab
    focused = Image.open(io.BytesIO(tab.screenshot(clip=clip))).convert("RGB")
    return int(np.any(np.asarray(blurred) != np.asarray(focused), axis=-1).sum())


@pytest.mark.parametrize("selector", [
    ".bd-header-article button.primary-toggle",  # the theme removed its ring
    ".cell_output div.output.text_html[role=region]",  # the scrolling output clipped it
    # a formula's ring: test_book_keyboard_and_phone (only formulas that scroll take the focus)
])
def test_keyboard_focus_is_visible(browser, site, selector):
    tab = open_page(browser, site, CHAPTERS[2], PHONE)
    assert focus_ring_pixels(tab, selector) > 50, selector  # 104 to 5,636 with a ring, 0 to 20 without
    tab.close()


@pytest.mark.parametrize("toggle, dialog", [(".primary-toggle", "#pst-primary-sidebar-modal"),
                                            (".secondary-toggle", "#pst-secondary-sidebar-modal")])
def test_a_drawer_closed_by_escape_gives_the_focus_back_to_its_button(browser, site, toggle, dialog):
    """The focus fell to the page's body, and the next Tab started again from the top."""
    tab = open_page(browser, site, CHAPTERS[0], PHONE)
    button = next(b for b in tab.locator(toggle).all() if b.is_visible())
    button.focus()
    tab.keyboard.press("Enter")
    tab.wait_for_function(f"document.querySelector('{dialog}').open")
    tab.keyboard.press("Escape")
    tab.wait_for_function(f"!document.querySelector('{dialog}').open")
    # the dialog's close event, which hands the focus back, comes a task after it closes
    tab.wait_for_function("b => b === document.activeElement", arg=button.element_handle(), timeout=5_000)
    tab.close()
