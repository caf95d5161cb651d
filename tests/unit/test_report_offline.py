"""report.html of both layouts requests nothing when opened, and its formulas are drawn in it.

Auditors read reports on air-gapped machines or under policies that forbid a report to contact
the internet. nbconvert's lab page loaded require.js and MathJax from a CDN: offline, the
report's formula showed as raw TeX; online, opening the report made requests to third parties.
"""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pandas as pd
import pytest

import biofair as bf
from biofair import _report_markdown

ROOT = Path(__file__).resolve().parents[2]
FAST = ["-n", "40", "--n-permutations", "10", "--seed", "3"]
#: Group labels that read as formulas, markup or a link if they reach the page unescaped.
HOSTILE = {"A": "$5$", "B": "<img src=http://example.invalid/b.png>", "C": "\\(x\\) $\\foo$"}
#: Attributes whose value the browser fetches (or navigates a frame to) when the page is opened.
FETCHED = {"src", "href", "srcset", "data", "poster", "action", "formaction", "background", "xlink:href",
           "ping", "manifest", "codebase", "archive", "longdesc", "lowsrc", "dynsrc"}
#: Elements that run code or embed another document: a self-contained report has none.
EMBEDDING = {"script", "iframe", "frame", "embed", "object", "applet", "base", "portal"}
CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)|@import", re.S)


class PageParts(HTMLParser):
    """Every tag, attribute and style sheet of a page, and its text outside formulas."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        self.tags.append((tag, attributes))
        self.styles.append(attributes.get("style", ""))
        if tag not in {"meta", "link", "img", "br", "hr", "input", "path", "source", "wbr"}:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, {name: value or "" for name, value in attrs}))
        self.styles.append(dict(attrs).get("style") or "")

    def handle_endtag(self, tag):
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag):]

    def handle_data(self, data):
        if self.open and self.open[-1] == "style":
            self.styles.append(data)
        elif not {"svg", "script", "style", "title"} & set(self.open):
            self.text.append(data)


def parts(page: str) -> PageParts:
    parser = PageParts()
    parser.feed(page)
    parser.close()
    return parser


def outside_references(page: str) -> list[str]:
    """What the page would fetch when opened: every fetched attribute and CSS url() that is not a
    data: URI or an in-page #fragment, every @import, and every element that embeds or runs code.
    Plain <a href> links are followed only when clicked."""
    found = []
    parsed = parts(page)
    for tag, attributes in parsed.tags:
        if tag in EMBEDDING:
            found.append(f"<{tag}>")
        if tag == "meta" and attributes.get("http-equiv", "").lower() == "refresh":
            found.append("<meta http-equiv=refresh>")
        for name, value in attributes.items():
            if name in FETCHED and tag != "a" and not value.strip().lower().startswith(("data:", "#")):
                found.append(f"<{tag} {name}={value[:80]}>")
    for sheet in parsed.styles:
        for match in CSS_URL.finditer(re.sub(r"/\*.*?\*/", "", sheet, flags=re.S)):
            target = match.group(2)
            if target is None or not target.strip().lower().startswith(("data:", "#")):
                found.append(f"css {match.group(0)[:80]}")
    return found


def policy(page: str) -> str:
    """The page's Content-Security-Policy (empty when it has none)."""
    return next((a.get("content", "") for tag, a in parts(page).tags
                 if tag == "meta" and a.get("http-equiv", "").lower() == "content-security-policy"), "")


def formulas(page: str) -> list[str]:
    """The TeX of each formula drawn as SVG, in page order."""
    return [a["aria-label"] for tag, a in parts(page).tags if tag == "svg" and "formula" in a.get("class", "").split()]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """The standard (notebook) and the differential layout of the example whose group labels are hostile."""
    folder = tmp_path_factory.mktemp("offline")
    table = pd.read_csv(bf.datasets.example_scores_path())
    scores = folder / "hostile.csv"
    table.assign(group=table["group"].map(HOSTILE)).to_csv(scores, index=False)
    biofair = str(Path(sys.executable).with_name("biofair"))
    pages = {}
    for layout, options in {"standard": FAST, "differential": ["--operating-fmr", "0.01", "-n", "40", "--seed", "3"]}.items():
        run = subprocess.run([biofair, "report", str(scores), "--layout", layout, *options, "-o", str(folder / layout)],
                             capture_output=True, text=True, cwd=ROOT)
        assert run.returncode == 0, run.stderr[-2000:]
        pages[layout] = (folder / layout / "report.html").read_text()
    return pages


@pytest.mark.parametrize("layout", ["standard", "differential"])
def test_report_html_requests_nothing_outside_itself(reports, layout):
    page = reports[layout]
    assert outside_references(page) == []
    # and the browser is told to load nothing else, whatever a later edit adds
    assert policy(page).startswith("default-src 'none';")
    # the hostile labels are text: the one that spells an <img> tag is neither an image nor a link
    assert "example.invalid" in "".join(parts(page).text)
    assert not any("example.invalid" in value for _, attributes in parts(page).tags for value in attributes.values())


def test_the_checks_see_what_nbconvert_pages_load():
    """The parser above finds the CDN scripts of nbconvert's own lab page, which report.html had."""
    from nbconvert import HTMLExporter

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("$x$")])
    page = HTMLExporter().from_notebook_node(notebook)[0]
    found = outside_references(page)
    for library in ("require.js", "mathjax"):
        assert any(reference.startswith(f"<script src=https://cdnjs.cloudflare.com/ajax/libs/{library}/") for reference in found)
    assert policy(page) == "" and formulas(page) == []
    assert outside_references('<style>a { background: url( "http://x/y.png" ) }</style><p style="b: url(z.png)">') == [
        'css url( "http://x/y.png" )', "css url(z.png)"]
    assert outside_references('<a href="https://x">x</a><img src="data:image/png;base64,AA"><use href="#g"/>') == []


def test_the_formula_is_drawn_and_no_tex_is_left(reports):
    page = reports["standard"]
    paragraph = page[page.rindex("<p>", 0, page.index("for a group of")):]
    paragraph = paragraph[:paragraph.index("</p>")]
    assert formulas(paragraph) == ["1 - 0.05^{1/n}", "n"]  # the chapter's "$1 - 0.05^{1/n}$ ... $n$"
    assert "upper bound, for a group of comparisons" in " ".join("".join(parts(paragraph).text).split())
    # no TeX is left anywhere on the page but in the group labels, which are text
    text = "".join(parts(page).text)
    for label in HOSTILE.values():
        text = text.replace(label, "")
    assert not re.search(r"\$|\\\(|\\\[|\\begin\{", text)


def test_the_svg_is_mathtext_s_layout_in_ex_of_the_text():
    """Width, height and baseline of the SVG against mathtext's own layout at 1000 pt, in ex of
    Computer Modern (x-height 0.430555 em). The SVG's layout, at 100 pt, rounds width, height above
    and depth below the baseline up to whole points (1 point = 1/43 ex)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    svg = _report_markdown.formula_svg("1 - 0.05^{1/n}")
    size = {name: float(value) for name, value in re.findall(r"(width|height|vertical-align):(-?[\d.]+)ex", svg)}
    layout = MathTextParser("path").parse("$1 - 0.05^{1/n}$", dpi=72, prop=FontProperties(size=1000, math_fontfamily="cm"))
    ex, point = 0.430555 * 1000, 1 / (0.430555 * 100)
    assert size["width"] == pytest.approx(layout.width / ex, abs=point)  # 10.85 ex
    assert size["height"] == pytest.approx(layout.height / ex, abs=2 * point)  # with the depth: 2.23 ex
    assert size["vertical-align"] == pytest.approx(-layout.depth / ex, abs=point)  # the "/" descends 0.05 ex
    assert size["vertical-align"] < 0
    assert 'role="img" aria-label="1 - 0.05^{1/n}"' in svg and 'fill="currentColor"' in svg
    assert re.fullmatch(r'<svg [^>]*><path d="M[-\d. MLQCZ]+"/></svg>', svg)
    assert "display:block" in _report_markdown.formula_svg("x", display=True)


def notebook(markdown: str, **glued: str) -> nbformat.NotebookNode:
    outputs = [nbformat.v4.new_output("display_data", data={"application/papermill.record/text/plain": text},
                                      metadata={"scrapbook": {"name": name}}) for name, text in glued.items()]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("glue(...)", outputs=outputs),
                                           nbformat.v4.new_markdown_cell(markdown)])


def test_every_kind_of_formula_nbconvert_reads_is_drawn_and_code_is_not():
    markdown = "One $a_1$, \\\\(b\\\\), `$HOME$ \\(c\\)`, then\n\n$$d^2$$\n\nand \\\\[e\\\\]."
    page = _report_markdown.export_html(notebook(markdown))
    assert formulas(page) == ["a_1", "b", "d^2", "e"]
    assert "<code>$HOME$ \\(c\\)</code>" in page


@pytest.mark.parametrize(("markdown", "message"), [
    ("rate $\\foo$", r"the report's formula \$\\foo\$ cannot be drawn \(.*Unknown symbol: \\foo.*\)"),
    ("rate $x^{$", r"the report's formula \$x\^\{\$ cannot be drawn"),
    ("\\begin{equation}x\\end{equation}", r"Markdown holds a LaTeX environment, \\begin\{equation\}, .*: write the formula as \$\$"),
])
def test_a_formula_that_cannot_be_drawn_fails_the_export(markdown, message):
    with pytest.raises(ValueError, match=message):
        _report_markdown.export_html(notebook(markdown))


def test_glued_labels_stay_text_on_the_offline_page():
    """A group named "$5$" shows "$5$", not a formula; one that holds a URL is no link."""
    page = _report_markdown.export_html(notebook("Smallest: {glue:text}`a`, {glue:text}`b`, {glue:text}`c`.",
                                a="$5$", b="\\(x\\) $$y$$", c="<img src=http://example.invalid/b.png>"))
    paragraph = page[page.index("<p>Smallest"):]
    paragraph = paragraph[:paragraph.index("</p>") + 4]
    assert formulas(paragraph) == [] and "<a " not in paragraph and "<img" not in paragraph
    assert " ".join("".join(parts(paragraph).text).split()) == (
        "Smallest: $5$, \\(x\\) $$y$$, <img src=http://example.invalid/b.png>.")
    # its ":" is a character reference, which no bare-URL link matches
    markdown = _report_markdown.plain_markdown(notebook("{glue:text}`c`", c="http://example.invalid"))
    assert markdown.cells[1].source == "http&#58;//example.invalid"
