"""report.html of both layouts in headless Chromium with the network cut: nothing is requested,
nothing is refused, and the formula is drawn on the text's baseline at a phone's and a desktop's width.

Needs Debian's Chromium (``apt-get install chromium``); not the built book.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from browser.book_site import CHROMIUM, DESKTOP, GROUPS_TABLE, PHONE, ROOT

import biofair as bf

if not CHROMIUM.exists():
    pytest.skip("Chromium is not installed (apt-get install chromium); browser tests skipped",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api")

FAST = ["-n", "40", "--n-permutations", "10", "--seed", "3"]
#: Marks the text's baseline after each formula (an empty inline-block sits on it) and measures 1ex.
PROBE = """() => [...document.querySelectorAll('svg.formula')].map(svg => {
    const baseline = document.createElement('span'), ex = document.createElement('span');
    baseline.style.cssText = 'display:inline-block;width:0;height:0';
    ex.style.cssText = 'display:inline-block;width:0;height:1ex';
    svg.after(baseline, ex);
    const box = svg.getBoundingClientRect();
    const answer = {tex: svg.getAttribute('aria-label'), x: box.x, y: box.y + scrollY, width: box.width,
                    height: box.height, baseline: baseline.getBoundingClientRect().bottom + scrollY,
                    ex: ex.getBoundingClientRect().height, style: svg.getAttribute('style')};
    baseline.remove(); ex.remove();
    return answer;
})"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    from biofair._differential_html import render

    folder = tmp_path_factory.mktemp("offline")
    run = subprocess.run([str(Path(sys.executable).with_name("biofair")), "report", str(bf.datasets.example_scores_path()),
                          "-o", str(folder / "standard"), *FAST], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    differential = folder / "differential.html"
    differential.write_text(render(bf.differential_report(bf.synthetic.demographic_scores(rng=0), fmr=0.01,
                                                          n_resamples=40, rng=0)))
    return {"standard": folder / "standard" / "report.html", "differential": differential}


def open_offline(browser, path, width: int):
    """A tab on ``path`` with the network cut, and what it saw: the requests the page asked for
    outside file: and data: (also those its policy then blocked), those that reached the network
    (refused there), and the console's errors."""
    tab = browser.new_page(viewport={"width": width, "height": 800}, device_scale_factor=2)
    seen = {"asked": [], "sent": [], "errors": []}
    tab.on("console", lambda message: seen["errors"].append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda error: seen["errors"].append(str(error)))
    tab.on("request", lambda request: None if request.url.startswith(("file:", "data:")) else seen["asked"].append(request.url))

    def cut(route):
        if route.request.url.startswith("file:"):
            return route.continue_()
        seen["sent"].append(route.request.url)
        return route.abort()

    tab.route("**/*", cut)
    tab.goto(path.as_uri(), wait_until="load")
    tab.wait_for_timeout(500)  # a script loaded late would ask now
    return tab, seen


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("layout", ["standard", "differential"])
def test_the_page_asks_for_nothing_and_nothing_is_refused(browser, pages, layout, width):
    tab, seen = open_offline(browser, pages[layout], width)
    # a request the page's policy blocks, or one that fails, is logged as an error
    assert seen == {"asked": [], "sent": [], "errors": []}
    # and the page's policy blocks what a later edit might add, before it reaches the network
    blocked = tab.evaluate("""() => new Promise(done => {
        document.addEventListener('securitypolicyviolation', event => done(event.blockedURI));
        document.body.insertAdjacentHTML('beforeend', '<img src="https://example.invalid/added.png">');
        setTimeout(() => done(null), 2000);
    })""")
    assert (blocked, seen["sent"]) == ("https://example.invalid/added.png", [])
    tab.close()


def ink_rows(tab, box: dict) -> np.ndarray:
    """The page rows (CSS px, at the device scale of 2) of the dark pixels within ``box``."""
    from PIL import Image

    shot = tab.screenshot(full_page=True, clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"]})
    pixels = np.asarray(Image.open(io.BytesIO(shot)).convert("L"))
    return box["y"] + np.nonzero((pixels < 128).any(axis=1))[0] / 2


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_formula_is_drawn_on_the_text_s_baseline(browser, pages, width):
    tab, _ = open_offline(browser, pages["standard"], width)
    formulas = {formula["tex"]: formula for formula in tab.evaluate(PROBE)}
    assert set(formulas) == {"1 - 0.05^{1/n}", "n"}
    for formula in formulas.values():
        declared = dict(part.split(":") for part in formula["style"].split(";"))
        assert formula["height"] == pytest.approx(float(declared["height"].removesuffix("ex")) * formula["ex"], abs=0.5)
        # the box reaches below the baseline by the formula's depth
        depth = -float(declared["vertical-align"].removesuffix("ex")) * formula["ex"]
        assert formula["y"] + formula["height"] - formula["baseline"] == pytest.approx(depth, abs=0.5)
    # the ink: "n" stands on the baseline and is 1 ex tall (Computer Modern's n: 0.43 em); the
    # whole formula's ink spans from above "1" to the descent of "/" (its box, within a pixel)
    n, whole = formulas["n"], formulas["1 - 0.05^{1/n}"]
    rows = ink_rows(tab, {"x": n["x"], "y": n["y"] - 4, "width": n["width"], "height": n["height"] + 8})
    assert rows.max() + 0.5 == pytest.approx(n["baseline"], abs=1)
    assert rows.max() - rows.min() + 0.5 == pytest.approx(n["ex"], abs=1.5)
    rows = ink_rows(tab, {"x": whole["x"], "y": whole["y"] - 4, "width": whole["width"], "height": whole["height"] + 8})
    assert rows.min() == pytest.approx(whole["y"], abs=1.5)
    assert rows.max() + 0.5 == pytest.approx(whole["y"] + whole["height"], abs=1.5)
    tab.close()


def test_a_wide_table_of_the_standard_report_scrolls_on_a_phone_with_its_labels_in_view(browser, pages):
    """nbconvert's page lays an output out as a table row: a table wider than a phone was cut at
    the screen's edge, its last columns out of reach (no scrolling). Now its output box scrolls,
    the row labels stay in view, and a line above it says that it scrolls. Scrolled to its end,
    the last column shows whole: the box (100% of its row's width, plus a margin and padding)
    reached 30 px past its row, which clipped them, so that the last 30 px stayed out of reach."""
    phone = browser.new_context(viewport={"width": PHONE, "height": 800}, is_mobile=True)
    tab = phone.new_page()
    tab.goto(pages["standard"].as_uri())
    measured = tab.evaluate("""() => [...document.querySelectorAll('table.dataframe')].map(table => {
        const box = table.closest('.jp-OutputArea-output');
        const label = table.querySelector('tbody tr > th + th') ? null : table.querySelector('tbody th');
        const hint = getComputedStyle(box, '::before').content;
        const wide = table.scrollWidth > box.clientWidth;
        const before = label && label.getBoundingClientRect().left;
        box.scrollLeft = box.scrollWidth;
        return {wide, scrolled: box.scrollLeft, hint, labelled: Boolean(label),
                pinned: Boolean(label) && Math.abs(label.getBoundingClientRect().left - before) <= 1,
                end: box.scrollLeft + box.clientWidth >= table.scrollWidth,
                clipped: table.getBoundingClientRect().right - box.parentElement.getBoundingClientRect().right};
    })""")
    wide = [table for table in measured if table["wide"]]
    assert wide, "no table wider than a phone: the check checks nothing"
    assert any(table["labelled"] for table in wide)  # a table of one label per row among them
    for table in wide:  # each reaches its last column, keeps its one label per row, and says it scrolls
        assert table["scrolled"] > 0 and table["end"] and table["pinned"] == table["labelled"], table
        assert table["clipped"] <= 0.5, table  # its row (overflow hidden) shows the table's right edge
        assert table["hint"] == '"If it is wider than the screen, the table scrolls sideways."', table
    phone.close()


def test_printed_text_of_the_standard_report_wraps_between_words_on_a_phone(browser, pages):
    """nbconvert's page breaks printed text and warnings at any letter ('subj|ect' on a phone).
    Now a line breaks between words, or at a hyphen; only a word wider than the line is cut."""
    phone = browser.new_context(viewport={"width": PHONE, "height": 800}, is_mobile=True)
    tab = phone.new_page()
    tab.goto(pages["standard"].as_uri())
    cut = tab.evaluate("""() => [...document.querySelectorAll('.jp-OutputArea-output pre')].flatMap(pre => {
        const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT), cut = [];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const piece of node.data.matchAll(/[^\\s-]+-?/g)) {  // a word, or its part up to a hyphen
                const range = document.createRange();
                range.setStart(node, piece.index);
                range.setEnd(node, piece.index + piece[0].length);
                const lines = new Set([...range.getClientRects()].map(rect => Math.round(rect.top)));
                if (lines.size > 1 && range.getBoundingClientRect().width < pre.clientWidth) cut.push(piece[0]);
            }
        }
        return cut;
    })""")
    words = tab.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output pre')]"
                         ".map(pre => pre.textContent).join(' ').split(/\\s+/).length")
    assert words > 20, "hardly any printed text: the check checks nothing"
    assert cut == []
    phone.close()


SETTINGS = """rows => rows.map(row => {
    const label = row.querySelector('th').getBoundingClientRect(), text = row.querySelector('td').getBoundingClientRect();
    const box = row.closest('.jp-OutputArea-output');
    return {metric: row.querySelector('th').textContent.trim(), below: text.top >= label.bottom - 0.5,
            beside: text.left >= label.right - 0.5, slack: box.clientWidth - text.width, tall: text.height,
            scrolls: box.scrollWidth > box.clientWidth,
            hint: getComputedStyle(row.closest('.jp-RenderedHTMLCommon'), '::before').content};
})"""


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_standard_reports_settings_read_as_a_list_on_a_phone_and_a_table_on_a_desktop(browser, pages, width):
    """The table of each index's settings, from the cell tagged stack-on-phone, which the book
    stacks on a phone: report.html did not (its page had no such rule). On a 390 px phone the
    table was 399 px wide in its 334 px box, its settings a narrow column, rows up to 83 px
    tall, and the line above it said that it scrolls. Now, by the book's rule (one file, shipped
    with the package), each metric stands over its settings, which take the box's width, and
    nothing says it scrolls; on a desktop it is still a table, the settings beside their metric."""
    tab, _ = open_offline(browser, pages["standard"], width)
    rows = tab.eval_on_selector_all(".jp-Cell.celltag_stack-on-phone table.dataframe tbody tr", SETTINGS)
    tab.close()
    assert {"eer", "min_dcf", "cei_auto_extreme_nonmated"} <= {row["metric"] for row in rows}, rows
    assert not any(row["scrolls"] for row in rows), rows
    if width == PHONE:
        assert all(row["below"] and row["slack"] < 40 and row["tall"] < 60 and row["hint"] == "none"
                   for row in rows), rows
    else:
        assert all(row["beside"] for row in rows), rows



@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_groups_rates_at_the_operating_threshold_fit_a_phone(browser, pages, width):
    """The groups' rates at the operating threshold, a column per group, a row per key of
    summary.json's groups: with the keys as row labels ("false_non_matches", one word of 146 px)
    the table was 355 px wide in its 334 px box on a 390 px phone, with the example's three
    groups, and scrolled 21 px sideways. Its rows are now named in words ("FMR 95% CI low"),
    which wrap between words, and it fits; the line above it, "The table scrolls sideways.", no
    longer says that it scrolls, only that it would if it were wider than the screen."""
    tab, _ = open_offline(browser, pages["standard"], width)
    table = tab.evaluate(GROUPS_TABLE)
    tab.close()
    assert table["groups"] == 3 and len(table["labels"]) == 16, table
    assert table["over"] <= 0, table
    assert table["hint"] == ('"If it is wider than the screen, the table scrolls sideways."' if width == PHONE else "none"), table
