"""The built HTML as text: citations, bibliography, TeX artefacts and chapter numbers.

These checks read ``_build/html`` (``make book``) and need no browser.
"""

from __future__ import annotations

import re

import pybtex.database
import pytest
from browser.book_site import HTML, PAGES, ROOT
from bs4 import BeautifulSoup

BIB = pybtex.database.parse_file(ROOT / "book" / "references.bib")
NOTEBOOKS = sorted(path.stem for path in (ROOT / "notebooks").glob("*.md"))


def soup(page: str) -> BeautifulSoup:
    path = HTML / f"{page}.html"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make book` first")
    return BeautifulSoup(path.read_text(), "html.parser")


def prose(page: str) -> str:
    """What a reader reads on the page: the article without code, math or rendered outputs' code."""
    article = soup(page).find("article")
    for element in article.select("div.highlight, pre, code, .math, mjx-container, script, style"):
        element.decompose()
    return article.get_text(" ")


@pytest.mark.parametrize("page", PAGES)
def test_no_tex_artefacts(page):
    html = (HTML / f"{page}.html").read_text()
    assert "textasciicircum" not in html
    text = prose(page)
    carets = re.findall(r"\S*\^\S*", text)
    assert carets == [], f"literal carets in the text of {page}: {carets}"
    assert not re.search(r"\\(frac|mathrm|text|sum|emph|textbf)\b", text), "raw TeX in the text"


@pytest.mark.parametrize("page", PAGES)
def test_a_paragraph_writes_its_small_rates_one_way(page):
    """Rates in prose are written as format_rate writes them (1e-3). Chapter 3 compared "group
    0's FMR of 0.002" with a bound "3e-4" in one sentence, and chapter 10 put true rates of
    "0.017" and "0.008" and an interval "0.009 to 0.063" beside "FMR = 1e-2": a glued number
    in e-notation and another below 0.01 written with decimals may not share a paragraph (a
    glued sentence, such as chapter 13's "1/201 ≈ 0.004975" for a p-value, is not read)."""
    mixed = []
    for paragraph in soup(page).select("article p"):
        numbers = [value.get_text() for value in paragraph.select("span.pasted-text")]
        e_notation = [n for n in numbers if re.fullmatch(r"\d(\.\d+)?e-?\d+", n)]
        decimals = [n for n in numbers if re.fullmatch(r"0\.00\d*", n)]
        if e_notation and decimals:
            mixed.append((e_notation, decimals))
    assert mixed == [], f"{page} writes small rates two ways in one paragraph: {mixed}"


@pytest.mark.parametrize("page", PAGES)
def test_every_figure_says_what_it_shows_to_a_screen_reader(page):
    """A figure's alt text describes it: myst-nb's default is the image's file path, which a
    screen reader reads out ("link, ../../_images/98174e....png")."""
    for image in soup(page).select("article img"):
        alt = image.get("alt", "")
        assert len(alt.split()) >= 5 and not re.search(r"\.(png|svg|jpe?g)$|/", alt), (page, image.get("src"), alt)


@pytest.mark.parametrize("page", PAGES)
def test_no_id_is_given_twice(page):
    """sphinx-exercise named every exercise's content "exercise-content" (book/_ext/unique_ids.py)."""
    ids = [element["id"] for element in soup(page).select("[id]")]
    assert sorted({i for i in ids if ids.count(i) > 1}) == [], page


def citations(page: str) -> list[str]:
    """Texts of the links that point at a bibliography entry."""
    return [a.get_text(" ", strip=True) for a in soup(page).select("article a[href]")
            if re.search(r"references\.html#id\d+$", a["href"]) or a["href"].startswith("#id")
            and a.find_parent(class_="bibtex")]


@pytest.mark.parametrize("page", PAGES)
def test_citations_show_authors_and_years_never_keys(page):
    text = prose(page)
    for key in BIB.entries:
        assert f"[{key}]" not in text and f"{{cite}}`{key}`" not in text, f"bare key {key} in {page}"
    for citation in citations(page):
        assert re.search(r"\b(19|20)\d\d[a-z]?\b", citation), f"citation without a year: {citation!r}"
        assert citation not in BIB.entries, f"citation shown as its key: {citation!r}"


def test_every_bibliography_entry_has_authors_a_year_a_title_and_a_venue():
    venues = ("journal", "booktitle", "howpublished", "institution", "publisher")
    for key, entry in BIB.entries.items():
        assert entry.persons.get("author"), f"{key} has no author"
        assert re.fullmatch(r"(19|20)\d\d", entry.fields.get("year", "")), f"{key} has no year"
        assert entry.fields.get("title"), f"{key} has no title"
        assert any(entry.fields.get(field) for field in venues), f"{key} has no venue"


def test_the_bibliography_page_lists_each_entry_labelled_by_author_and_year():
    entries = soup("book/references").select("div.citation")
    assert len(entries) == len(BIB.entries)
    for entry in entries:
        label = entry.select_one("span.label").get_text(strip=True)
        body = entry.get_text(" ", strip=True)
        assert re.fullmatch(r"\[[^\[\]]+, (19|20)\d\d[a-z]?\]", label), label
        year = re.search(r"(19|20)\d\d", label).group()
        assert year in body.removeprefix(label)


def chapter_numbers(names: list[str]) -> dict[str, int]:
    """The number each chapter must carry: its file prefix once the files are numbered 01, 02, ...
    without a gap; until then (while reserved numbers have no file yet) its place in notebooks/."""
    prefixes = [int(name.split("_", 1)[0]) for name in names]
    if prefixes == list(range(1, len(names) + 1)):
        return dict(zip(names, prefixes))
    return {name: position for position, name in enumerate(names, start=1)}


def test_chapter_numbers_follow_the_file_prefix_once_no_number_is_missing():
    assert chapter_numbers(["01_a", "02_b", "03_c"]) == {"01_a": 1, "02_b": 2, "03_c": 3}
    assert chapter_numbers(["01_a", "02_b", "13_c"]) == {"01_a": 1, "02_b": 2, "13_c": 3}
    assert all(int(name[:2]) == number for name, number in chapter_numbers(NOTEBOOKS).items()) == (
        [int(name[:2]) for name in NOTEBOOKS] == list(range(1, len(NOTEBOOKS) + 1)))


def test_chapters_are_numbered_in_file_order_everywhere():
    """The number of each chapter, in its title and in the sidebar, follows its file (see
    chapter_numbers)."""
    toc_chapters = [page.removeprefix("book/chapters/") for page in PAGES if page.startswith("book/chapters/")]
    assert toc_chapters == NOTEBOOKS, "the table of contents lists the chapters out of file order"
    sidebar = {a["href"].split("/")[-1].removesuffix(".html"): a.get_text(" ", strip=True)
               for a in soup("book/intro").select("nav.bd-links a[href]")}
    for name, position in chapter_numbers(NOTEBOOKS).items():
        title = soup(f"book/chapters/{name}").select_one("article h1 .section-number")
        assert title is not None and title.get_text(strip=True) == f"{position}.", name
        assert sidebar[name].startswith(f"{position}. "), sidebar[name]


def test_the_teaching_page_numbers_chapters_as_the_table_of_contents():
    text = prose("book/teaching")
    mentioned = re.findall(r"[Cc]hapters?\s+(\d+)", text)
    assert mentioned, "the teaching page names no chapter by number"
    rows = [row.get_text(" ", strip=True) for row in soup("book/teaching").select("article table tbody tr")]
    numbered = [row for row in rows if re.match(r"\d+ \. ", row)]
    for name, position in chapter_numbers(NOTEBOOKS).items():
        title = soup(f"book/chapters/{name}").select_one("article h1").get_text(" ", strip=True)
        title = title.removesuffix("#").strip().split(" ", 1)[1]
        assert any(row.startswith(f"{position} . {title}") for row in numbered), (position, title)


def test_the_landing_page_says_who_and_where_to_start_with_a_figure_and_the_install_line():
    page = soup("book/intro")
    text = page.find("article").get_text(" ")
    for path in ("Auditor", "Researcher", "Student", "I have a score file"):
        assert path in text
    assert re.search(r"pip\s+install", text)
    figures = page.select("article figure img")
    assert len(figures) == 1 and figures[0]["src"].endswith(".png")


def test_glossary_defines_every_metric_of_the_book():
    terms = {dt.get_text(" ", strip=True).removesuffix("#").strip()
             for dt in soup("book/glossary").select("dl.glossary dt")}
    for term in ("FMR", "FNMR", "TMR", "EER", "ROC curve", "DET curve", "ROC-AUC", "pAUC", "Log-FMR AUC",
                 "minDCF", "d′", "PR-AUC", "Overstatement", "FDR", "Area under FDR", "GARBE", "Inequity",
                 "DFI", "CEI", "Automatic CEI", "N-Sigma", "T-test similarity", "SP", "EOP", "CMC", "DIR",
                 "FPIR", "FDR′", "Mated comparison", "Non-mated comparison", "Resolution", "Bootstrap interval",
                 "Paired bootstrap", "Ranking flip", "Permutation null", "Homogeneous pair"):
        assert term in terms, term


def test_the_api_pages_chapter_pointers_link_to_their_chapters():
    """Each docstring's 'Read more in the chapter "..."' is a link to that chapter on the API
    page (book/_ext/chapter_pointers.py); it was plain text."""
    page = soup("book/api")
    pointers = [p for p in page.find_all("p") if "Read more in the chapter" in p.get_text()]
    assert len(pointers) >= 100
    titles = {(HTML / "book" / "chapters" / f"{name}.html").resolve(): name for name in NOTEBOOKS}
    for pointer in pointers:
        links = [a for a in pointer.find_all("a") if "chapters/" in a.get("href", "")]
        assert links, pointer.get_text()
        for link in links:
            target = (HTML / "book" / link["href"].split("#")[0]).resolve()
            assert target in titles and target.exists(), link["href"]

