"""The differential report and the files that show it, at numerical edges (an audit of
differentials.py, _differential_html.py and _report_markdown.py).

Oracles: exact fractions for the ratios of two rates, the page's text read back, and
nbconvert's own Markdown renderer.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import biofair as bf

TOLERANCE = 1.25


def rates_per_subject(spec: dict, *, subjects: int = 12) -> pd.DataFrame:
    """``{group: (false non-matches, mated comparisons)}`` on average over ``subjects`` subjects,
    each also with 20 non-mated comparisons and 2 false matches on average: the subjects'
    counts alternate one above and one below the average (the last of an odd number at it), so
    a group's rates are the exact fractions k/n and 2/20, and resamples of subjects vary them.
    (Were every subject's rate the same, no resample would vary it: such a group has no ratio.)"""
    rows = []
    for group, (k, n) in spec.items():
        for s in range(subjects):
            shift = 0 if s == subjects - 1 and subjects % 2 else (-1) ** s
            rows += [{"score": 0.0 if j < k + shift else 1.0, "mated": True, "group": group,
                      "reference_subject": f"{group}{s}"} for j in range(n)]
            rows += [{"score": 1.0 if j < 2 + shift else 0.0, "mated": False, "group": group,
                      "reference_subject": f"{group}{s}"} for j in range(20)]
    return pd.DataFrame(rows)


def quiet_report(table: pd.DataFrame, **options) -> bf.DifferentialReport:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bf.differential_report(table, **{"threshold": None if "fmr" in options else 0.5, "n_resamples": 200,
                                                "rng": 0, **options})


def test_a_ratio_at_the_tolerance_gets_one_verdict_as_a_ratio_and_as_max_min():
    """Rates 4/50 and 5/50: the ratio is exactly 5/4, the tolerance. max/min was computed as
    exp(|log 0.1 - log 0.08|) = 1.2500000000000004: with every subject at the group's rate
    (no resample varies it: an interval of one point, as such groups had then) it "exceeded"
    the tolerance while the same ratio, group b to the reference a, read 1.25 "within
    tolerance". Both are one quotient now, with the same interval and verdict."""
    report = quiet_report(rates_per_subject({"a": (4, 50), "b": (5, 50)}))
    exact = float(Fraction(5, 50) / Fraction(4, 50))
    assert exact == TOLERANCE
    fnmr = report.differentials.set_index("rate").loc["fnmr"]
    b = report.groups.set_index(["group", "rate"]).loc[("b", "fnmr")]
    assert fnmr["max_min"] == b["ratio"] == exact
    assert (fnmr["max_min_low"], fnmr["max_min_high"]) == (max(b["ratio_low"], 1.0), b["ratio_high"])
    assert fnmr["max_min_low"] < exact < fnmr["max_min_high"]  # resamples vary the rates
    assert fnmr["verdict"] == b["ratio_verdict"] == "inconclusive"


def test_a_ratio_below_1_at_the_tolerance_gets_the_verdict_of_its_pair():
    """With reference="b", group a's ratio is 4/50 over 5/50, exactly 4/5 = 1/1.25, the lower
    end of the band: it was 0.08 / 0.1 = 0.7999999999999999, below it. It is now the reciprocal
    of its pair's max/min, its interval the reciprocals of the pair's ends, and its verdict the
    pair's (the docstring: no ratio's verdict exceeds the tolerance unless max_min's does)."""
    report = quiet_report(rates_per_subject({"a": (4, 50), "b": (5, 50)}), reference="b")
    exact = float(Fraction(4, 50) / Fraction(5, 50))
    assert exact == 1 / TOLERANCE
    a = report.groups.set_index(["group", "rate"]).loc[("a", "fnmr")]
    fnmr = report.differentials.set_index("rate").loc["fnmr"]
    assert a["ratio"] == exact == 1 / fnmr["max_min"]
    pair_interval = 1 / fnmr["max_min_high"], 1 / fnmr["max_min_low"]  # the reciprocals, up to their rounding
    assert (a["ratio_low"], a["ratio_high"]) == pytest.approx(pair_interval, rel=1e-15, abs=0)
    assert a["ratio_verdict"] == fnmr["verdict"] == "inconclusive"


@pytest.mark.parametrize("seed", range(4))
def test_ratios_and_max_min_are_the_quotients_of_the_estimates(seed):
    """A ratio is one division of two estimates, correctly rounded: it was exp(log(r_i / r_ref))
    (3/200 over 1/200 gave 3.0000000000000004), and max/min exp(log r_max - log r_min)."""
    rng = np.random.default_rng(seed)
    spec = {g: (int(rng.integers(3, 30)), int(rng.integers(40, 90))) for g in "abcd"}
    report = quiet_report(rates_per_subject(spec, subjects=int(rng.integers(10, 14))))
    for rate in ("fmr", "fnmr"):
        part = report.groups[(report.groups["rate"] == rate) & report.groups["ratio"].notna()]
        reference = part.set_index("group").loc[report.reference[rate], "estimate"]
        assert (part["ratio"] == part["estimate"] / reference).all()
        summary = report.differentials.set_index("rate").loc[rate]
        if summary["groups_compared"] >= 2:
            assert summary["max_min"] == part["estimate"].max() / part["estimate"].min()


# -- report.html of the standard layout: a glued number that starts a line -----------------------

def glued_notebook(prose: str, **values: str):
    import nbformat

    outputs = [nbformat.v4.new_output(
        "display_data", data={"application/papermill.record/text/plain": text},
        metadata={"scrapbook": {"name": name, "mime_prefix": "application/papermill.record/"}})
        for name, text in values.items()]
    code = nbformat.v4.new_code_cell("glue(...)", outputs=outputs)
    return nbformat.v4.new_notebook(cells=[code, nbformat.v4.new_markdown_cell(prose)])


@pytest.mark.parametrize("before, value, after", [
    # the report template's "Comparisons with an empty group label:\n{glue}`nb13_n_missing:,`. With"
    ("Comparisons with an empty group label:\n", "1", ". With the rest."),
    ("Comparisons with an empty group label:\n", "1", ") of them."),
    ("A paragraph of its own:\n\n", "12", ". With the rest."),
    ("The group named\n", "'-'", " x is the smallest."),
    ("The group named\n", "'+'", " x is the smallest."),
])
def test_a_glued_value_that_starts_a_line_never_opens_a_list(before, value, after):
    """One comparison with an empty group label made report.html read "Comparisons with an
    empty group label:" and then a numbered list, "1." its marker, not the count: the glued 1
    began a line, and "1. " there opens an ordered list in Markdown (nbconvert's too)."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    from biofair._report_markdown import export_html, plain_markdown

    prose = f"{before}{{glue:text}}`n`{after}"
    shown = value.strip("'")
    source = plain_markdown(glued_notebook(prose, n=value)).cells[1].source
    rendered = MarkdownWithMath(renderer=IPythonRenderer(escape=False)).render(source)
    paragraphs = [f"<p>{part}</p>\n" for part in f"{before}{shown}{after}".split("\n\n")]
    assert rendered == "".join(paragraphs)
    page = export_html(glued_notebook(prose, n=value))
    assert "<ol" not in page and "<ul" not in page and "<li>" not in page


# -- the page of --layout differential: settings printed with the digits they have ---------------

def two_groups(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for group in ("a", "b"):
        mated = rng.random(n) < 0.3
        parts.append(pd.DataFrame({"score": np.where(mated, rng.normal(2, 1, n), rng.normal(0, 1, n)), "mated": mated,
                                   "group": group, "reference_subject": [f"{group}-{i % 40}" for i in range(n)]}))
    return pd.concat(parts, ignore_index=True)


def page_text(report: bf.DifferentialReport) -> str:
    """The page as a reader sees it: tags dropped, references decoded, white space collapsed."""
    import html
    import re

    from biofair._differential_html import render

    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", render(report))).split())


def test_the_page_and_the_notes_print_the_confidence_as_given():
    """99.9 % intervals were headed "100% intervals" (format ".0%"), and the note on unbounded
    intervals said a group had no errors "in at least 0% of the resamples"."""
    table = two_groups()
    table.loc[(table["group"] == "b") & ~table["mated"], "score"] -= 1  # b: 1 false match of 2,118
    report = quiet_report(table, fmr=2e-3, n_resamples=2000, confidence=0.999, extrapolate=False)
    text = page_text(report)
    assert "100%" not in text and "99.9% intervals" in text and "99.9% Clopper-Pearson" in text
    unbounded = [note for note in report.notes if note.startswith("unbounded intervals")]
    assert unbounded and "in at least 0.1% of the resamples" in unbounded[0], report.notes


def test_the_page_prints_the_tolerance_the_verdicts_use():
    """--tolerance 1.2500001 was printed "1.25" (format "g"): a band [1/1.25, 1.25] beside an
    interval end the page prints as 1.25000005 "within tolerance"."""
    report = quiet_report(two_groups(), fmr=0.05, tolerance=1.2500001)
    text = page_text(report)
    assert "within [1/1.2500001, 1.2500001]" in text and "Tolerance 1.2500001 " in text
    default = page_text(quiet_report(two_groups(), fmr=0.05))
    assert "within [1/1.25, 1.25]" in default and "Tolerance 1.25 " in default


def test_the_page_prints_the_target_fmr_the_threshold_was_set_at():
    """A target FMR of 0.012345678 was printed "0.0123457" (format "g")."""
    text = page_text(quiet_report(two_groups(), fmr=0.012345678))
    assert "set at a target FMR of 0.012345678 on all" in text
    assert "set at a target FMR of 0.05 on all" in page_text(quiet_report(two_groups(), fmr=0.05))


def test_the_page_lists_each_group_left_out_on_its_own_line():
    """The "left out" cell printed the JSON's names joined by "; ": groups ' x' and 'z' read as
    " x; z", as one group 'x; z' would, and ' x', which the page quotes elsewhere, was written
    bare. Each name is now the page's label, one per line."""
    import re

    from biofair._differential_html import render

    table = two_groups()
    table["group"] = table["group"].map({"a": "x; y", "b": "w"})
    small = pd.DataFrame({"score": [0.0, 2.0, 3.0] * 2, "mated": [False, True, True] * 2,
                          "group": ["z"] * 3 + [" x"] * 3, "reference_subject": ["z-0", "z-1", "z-1", "x0", "x1", "x1"]})
    report = quiet_report(pd.concat([table, small], ignore_index=True), fmr=0.05)
    for rate in ("fmr", "fnmr"):
        cell = re.search(rf'<td class="text">{rate.upper()}</td>.*?<td class="text">([^<]*(?:<br>[^<]*)*)</td></tr>',
                         render(report)).group(1)
        assert report.differentials.set_index("rate").loc[rate, "excluded"] == " x; z"
        assert cell.split("<br>") == ["&#x27; x&#x27;", "z"], (rate, cell)


def test_the_page_gives_no_smallest_resolved_rate_above_1():
    """3 / comparisons is no rate for a group of 1 or 2 comparisons: the page printed 3 and 1.5."""
    small = pd.DataFrame({"score": [0.0, 2.0, 3.0], "mated": [False, True, True], "group": "z",
                          "reference_subject": ["z-0", "z-1", "z-1"]})
    report = quiet_report(pd.concat([two_groups(), small], ignore_index=True), fmr=0.05)
    z = report.groups.set_index(["group", "rate"]).loc["z", "smallest_resolved"]
    assert z.tolist() == [3.0, 1.5]  # the table keeps 3/n (documented as such)
    text = page_text(report)
    for rate in ("False match rate (FMR)", "False non-match rate (FNMR)"):
        section = text[text.index(rate):]
        row = section[section.index(" z "):section.index(" not assessable")]  # the design effect, 3/n, the ratio
        assert row.endswith("] – none: fewer than 3 comparisons –") and " 1.5 " not in row, row


def test_labels_that_a_browser_would_show_alike_are_told_apart_on_the_page():
    """Groups ' x' and 'x', 'a  b' and 'a b' (and 'a b' with a no-break space) are five groups,
    in the JSON and the notes (which quote them); the page wrote each as escaped text, which a
    browser shows with its white space collapsed: two rows 'x', three rows 'a b', in every table.
    Each label the page shows now reads back as exactly one group (quoted as Python writes it
    where the text alone would not)."""
    import ast
    import html
    import re

    from biofair._differential_html import render

    names = [" x", "x", "a  b", "a b", "a\u00a0b"]
    table = pd.concat([two_groups(n=800, seed=i).query("group == 'a'").assign(group=name)
                       for i, name in enumerate(names)], ignore_index=True)
    table["reference_subject"] = table["group"] + "|" + table["reference_subject"]
    report = quiet_report(table, fmr=0.05)
    page = render(report)
    for rate in ("False match rate", "False non-match rate"):
        section = page[page.index(f"<h2>{rate}"):]
        section = section[:section.index("</table>")]
        cells = re.findall(r'<tr><td class="text">(.*?)</td>', section)
        shown = [" ".join(html.unescape(cell).replace("\u00a0", " ").split()) for cell in cells]  # as a browser shows it
        assert len(set(shown)) == len(names), shown
        read_back = [ast.literal_eval(text) if text[:1] in "'\"" else text for text in map(html.unescape, cells)]
        assert sorted(read_back) == sorted(names)


def test_a_rate_below_1_is_never_printed_as_1():
    """FNMR 2,499 / 2,500 = 0.9996 was printed "1" (3 significant digits), as a rate of 1 is, on
    a page that says a group with an error in every comparison has no ratio, beside that group's
    ratio; the whole table's FNMR 2,549 / 2,600 = 0.98 is printed as before."""
    def scores(errors: int, n: int, value: float) -> list:
        return [value] * errors + [1.0 - value] * (n - errors)

    table = pd.DataFrame({
        "score": scores(2499, 2500, 0.0) + scores(10, 100, 1.0) + scores(50, 100, 0.0) + scores(20, 100, 1.0),
        "mated": [True] * 2500 + [False] * 100 + [True] * 100 + [False] * 100,
        "group": ["a"] * 2600 + ["b"] * 200})
    report = quiet_report(table)
    a = report.groups.set_index(["group", "rate"]).loc[("a", "fnmr")]
    assert a["estimate"] == 2499 / 2500 and not np.isnan(a["ratio"])
    text = page_text(report)
    section = text[text.index("False non-match rate (FNMR)"):]
    assert " a 0.9996 2,499 / 2,500 " in section, section[:400]
    assert f"FNMR {2549 / 2600:.3g} (2,549 of 2,600 mated comparisons)" in text


def test_a_ratio_near_the_tolerance_is_printed_inside_its_printed_interval():
    """A ratio of 1.2504 with the interval [1.2501, 1.2507], "exceeds tolerance", was printed
    "1.25 [1.2501, 1.251]": the point outside its own interval, and on the band's edge (its
    ends took the digits that tell them from the tolerance, the point 3 digits). max/min alike."""
    import re

    from biofair._differential_html import render

    report = quiet_report(two_groups(), fmr=0.05)
    groups, differentials = report.groups.copy(), report.differentials.copy()
    row = groups.index[(groups["rate"] == "fnmr") & (groups["ratio_verdict"] != "reference")][0]
    groups.loc[row, ["ratio", "ratio_low", "ratio_high", "ratio_verdict"]] = 1.2504, 1.2501, 1.2507, "exceeds tolerance"
    differentials.loc[differentials["rate"] == "fnmr", ["max_min", "max_min_low", "max_min_high", "verdict"]] = (
        1.2504, 1.2501, 1.2507, "exceeds tolerance")
    page = render(report._replace(groups=groups, differentials=differentials))
    assert re.search(r"<td>1\.2504 \[1\.2501, 1\.251\]</td><td class=\"text exceeds\">", page)
    assert re.search(r"<td class=\"text\">FNMR</td>.*?<td>1\.2504 \[1\.2501, 1\.251\]</td>", page)


def test_labels_the_page_need_not_quote_are_written_as_they_are():
    """A combination of labels is named with its values quoted where one holds "/" ("'f' /
    'a/b'"): the page writes it as it is, not quoted again."""
    from biofair._differential_html import render

    names = ["'f' / 'a/b'", "m"]
    table = pd.concat([two_groups(n=800, seed=i).query("group == 'a'").assign(group=name)
                       for i, name in enumerate(names)], ignore_index=True)
    table["reference_subject"] = table["group"] + "|" + table["reference_subject"]
    page = render(quiet_report(table, fmr=0.05))
    assert page.count('<tr><td class="text">&#x27;f&#x27; / &#x27;a/b&#x27;</td>') == 2  # FMR and FNMR
