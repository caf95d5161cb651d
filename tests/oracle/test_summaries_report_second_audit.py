"""Second audit of the summaries, the default ``biofair report`` and the reproduction ledger at
their edges: each test names what the package gave and checks it against what is right."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair._report_markdown import export_html


def _glued_prose(value: str) -> nbformat.NotebookNode:
    """A notebook that glues ``value`` under the key ``g`` and quotes it in one sentence."""
    output = nbformat.v4.new_output(
        "display_data", data={"application/papermill.record/text/plain": repr(value)},
        metadata={"scrapbook": {"name": "g", "mime_prefix": "application/papermill.record/"}})
    code = nbformat.v4.new_code_cell("glue(...)", outputs=[output])
    return nbformat.v4.new_notebook(cells=[code, nbformat.v4.new_markdown_cell(
        "The smallest group, {glue:text}`g`, has 2,400\nnon-mated comparisons.")])


def _paragraph(page: str) -> str:
    start = page.index("<p>The smallest group")
    return page[start:page.index("</p>", start) + 4]


@pytest.mark.parametrize("label", ["x\n1. y", "x\n- y", "x\n\ny", "x  \ny", "x\r\n1. y"])
def test_a_label_with_a_line_break_stays_in_its_sentence(label):
    """A Parquet file may hold group labels with line breaks (a CSV reader refuses them): the label
    'x\\n1. y' cut report.html's sentence "The smallest group, x (tied with ...)" into a paragraph
    and a numbered list ("<ol><li>y ..."), 'x\\n\\ny' into two paragraphs, 'x  \\ny' put a <br/> in it.
    The book shows a glued text as text: a line break is white space within the sentence."""
    page = export_html(_glued_prose(label))
    paragraph = _paragraph(page)
    assert paragraph.endswith("non-mated comparisons.</p>")  # one paragraph, to the sentence's end
    assert not re.search(r"<(ol|ul|li|br|h\d)\b", paragraph)
    words = re.sub(r"&#1[03];|\s+", " ", paragraph)  # the line breaks, as the browser shows them
    assert " ".join(words.split()) == f"<p>The smallest group, {' '.join(label.split())}, has 2,400 non-mated comparisons.</p>"


@pytest.mark.parametrize("label", ["a\u202eb", "\u05d0\u05d1", "\u0645\u0635\u0631 2", "x\u2067y"])
def test_a_right_to_left_label_is_isolated_from_the_prose(label):
    """A label holding U+202E (right-to-left override) reversed the display of the rest of its
    paragraph in report.html (", has 2,400 non-mated comparisons" read backwards); a Hebrew or
    Arabic label took the digits and commas beside it into its run. Such a value is isolated in
    <bdi> (HTML's bidirectional isolate), an ASCII one is not wrapped; a directional control,
    which prints as nothing ('a\u202eb' showed as 'ab' in <bdi>), is written out as repr writes it."""
    paragraph = _paragraph(export_html(_glued_prose(label)))
    shown = f"<bdi>{label}</bdi>" if label.isprintable() else repr(label)[1:-1]
    assert paragraph == f"<p>The smallest group, {shown}, has 2,400\nnon-mated comparisons.</p>"
    assert "<bdi>" not in _paragraph(export_html(_glued_prose("A (tied with B)")))


# ---------------------------------------------------------------------------------------------
# The standard report's prose on a small file: every number it prints must not cross its claim.

ROOT = Path(__file__).resolve().parents[2]


def _report(folder: Path, table: pd.DataFrame, *options: str) -> str:
    """``biofair report`` of ``table`` (this checkout's package, in a process of its own), its prose
    as report.html's text without tags."""
    table.to_csv(folder / "scores.csv", index=False)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}  # the kernel imports this checkout's biofair too
    done = subprocess.run([sys.executable, "-m", "biofair.cli", "report", str(folder / "scores.csv"), "-o",
                           str(folder / "out"), "-n", "40", *options], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    page = (folder / "out" / "report.html").read_text()
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _small_two_groups(offset: float) -> pd.DataFrame:
    """Two groups of 40 mated and 76 non-mated comparisons (distinct scores), shifted by ``offset``:
    152 pooled non-mated scores, so that FMR 1e-2 allows one false match."""
    rng = np.random.default_rng(3)
    mated = np.repeat([True, False], [40, 76])
    return pd.concat([pd.DataFrame({"score": offset + rng.normal(np.where(mated, 2.0, 0.0), 1.0), "mated": mated,
                                    "group": group}) for group in ("A", "B")], ignore_index=True)


@pytest.fixture(scope="module")
def offset_report(tmp_path_factory) -> tuple[pd.DataFrame, str]:
    table = _small_two_groups(1e6)
    return table, _report(tmp_path_factory.mktemp("offset"), table, "--n-permutations", "5")


def test_the_operating_threshold_is_printed_in_full(offset_report):
    """Scores near 1e6: the prose printed the operating threshold to 6 significant digits, '1e+06 in
    the file's units, a match being score >= threshold', at which every comparison of the file
    matches (the threshold is 1000002.55...). Every digit now, and a match is then decided as the
    package decides it."""
    table, prose = offset_report
    with warnings.catch_warnings():  # 1e-2 of 152 scores allows one false match; a group has none
        warnings.simplefilter("ignore", (bf.InsufficientComparisonsWarning, bf.UndefinedRateWarning))
        threshold = bf.outcome_fairness(table, fmr=1e-2).threshold
    assert threshold > 1e6 + 1  # the file's scores spread over a few units above 1e6
    assert f"FMR = 1e-2 on the non-mated comparisons within groups: {threshold!r} in the file's units" in prose
    assert "groups: 1e+06 in the file's units" not in prose


def test_rounded_bounds_in_the_prose_never_cross_its_claims(offset_report):
    """With 5 permutations the prose said 'no p-value can be smaller than 0.1667', yet the smallest
    p-value is 1/6 = 0.16666..., below it (and the file's non-mated CEI has it). The smallest group,
    76 non-mated comparisons, 'resolves targets only from 3/N = 3.9e-2 on': 3/76 = 0.0394..., so a
    target of 3.9e-2 allows fewer than 3 false matches. Each bound is now written as its fraction,
    with '≈' where the decimal is rounded."""
    _, prose = offset_report
    assert Fraction(1, 6) < Fraction("0.1667") and Fraction("3.9e-2") * 76 < 3 and Fraction("3.9e-1") * 76 < 30
    assert "no p-value can be smaller than 1/6 ≈ 0.1667: a p-value of that size" in prose
    assert "its FMR resolves targets only from 3/N = 3/76 ≈ 3.9e-2 on, and is precise from 30/N = 30/76 ≈ 3.9e-1." in prose


def test_counts_in_the_prose_agree_with_their_nouns(offset_report, tmp_path):
    """152 pooled non-mated scores at FMR 1e-2: the threshold 'rests on 1 pooled false matches'; and
    with one permutation, 'With 1 permutations no p-value can be smaller than 0.5'."""
    table, prose = offset_report
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (bf.InsufficientComparisonsWarning, bf.UndefinedRateWarning))
        assert bf.outcome_fairness(table, fmr=1e-2).k == 1
    assert "The threshold rests on 1 pooled false match: the target is not resolved" in prose
    assert "With 5 permutations no p-value" in prose
    once = _report(tmp_path, _small_two_groups(0.0), "--n-permutations", "1")
    assert "With 1 permutation no p-value can be smaller than 1/2 = 0.5: a p-value" in once


# ---------------------------------------------------------------------------------------------
# The reproduction ledger's book values.

def _ledger_values() -> pd.DataFrame:
    return pd.DataFrame({"paper": "cei", "table": "Table 3", "quantity": ["a", "b"], "paper_value": [0.9983, 0.295],
                         "tolerance": [0.001, 0.05], "expected": ["reproduced", "same direction"],
                         "reason": ["", "fewer errors per group"], "reference": [1.0, 0.0]})


@pytest.mark.parametrize("value", [True, np.True_, "0.998", b"1"], ids=["True", "np.True_", "text", "bytes"])
def test_a_book_value_that_is_no_number_is_refused(value):
    """The docstring promises a TypeError when a book value is not a number; pandas read True as
    1.0 (a verdict 'differs' on a boolean) and the text '0.998' as 0.998 ('reproduced')."""
    with pytest.raises(TypeError, match=r"^cei Table 3: book values must be numbers \(not booleans or text\), got 'a': "):
        bf.reproduction_ledger("cei", "Table 3", {"a": value, "b": 0.61}, values=_ledger_values(), check=False)


def test_a_book_value_beyond_the_float_range_is_named_as_not_finite():
    """An integer of 10**400 raised Python's 'OverflowError: int too large to convert to float';
    one non-finite value was counted '1 quantities'."""
    for value in (10**400, -(10**400), float("nan"), None):
        with pytest.raises(ValueError, match=r"^cei Table 3: book values not finite for 1 quantity, e\.g\. \{'b': "):
            bf.reproduction_ledger("cei", "Table 3", {"a": 0.998, "b": value}, values=_ledger_values())
    exact = bf.reproduction_ledger("cei", "Table 3", {"a": np.float32(0.998), "b": 1}, values=_ledger_values(), check=False)
    assert exact["book"].tolist() == [float(np.float32(0.998)), 1.0]  # numbers of other types read as floats


# ---------------------------------------------------------------------------------------------
# fairness_summary's settings column.

def test_a_split_percentile_below_100_is_never_shown_as_100():
    """CEIᴬ on a group of 30,000 light-tailed non-mated scores and one beyond mu + 3 sigma: its split
    percentile is 99.99667 (the row is resolved), and the parameters column showed it as 'B: 100',
    the percentile of a group without a tail that the report's prose tells the reader to look for.
    A number is shown to 4 significant digits unless they read as a whole number it is not."""
    rng = np.random.default_rng(1)
    nonmated = {"A": rng.normal(0, 1, 3000), "B": np.r_[rng.uniform(-1, 1, 30_000), 5.0]}
    table = pd.concat([pd.DataFrame({"score": np.r_[rng.normal(2, 1, 300), scores], "group": group,
                                     "mated": np.repeat([True, False], [300, scores.size])})
                       for group, scores in nonmated.items()], ignore_index=True)
    summary = bf.fairness_summary(table, n_resamples=40, n_permutations=2, rng=0).set_index("metric")
    percentile = bf.automatic_comprehensive_equity_index(table, kind="nonmated").parameters["percentiles"]["B"]
    assert percentile == 100 * 30_000 / 30_001  # every score but the outlier on the centre side
    row = summary.loc["cei_auto_extreme_nonmated"]
    assert row["resolved"]
    shown = re.search(r"percentiles=\(A: [\d.]+, B: ([\d.]+)\)", row["parameters"]).group(1)
    assert shown == "99.997" and float(shown) < 100
    # ordinary settings read as before
    assert summary.loc["cei_extreme_nonmated", "parameters"] == "percentile=95, tail_weight=0.8, bins=100, mean_tail=groups"


@pytest.mark.parametrize(("column", "value", "message"), [
    ("tolerance", True, r"in 'tolerance', not a boolean \(True for 'a'\)$"),
    ("paper_value", np.True_, r"in 'paper_value', not a boolean \(True for 'a'\)$"),
    ("reference", "no effect", r"in 'reference' \(Unable to parse string"),
])
def test_a_papers_value_that_is_no_number_is_refused(column, value, message):
    """A values table with a tolerance of True gave 'no effect in both' (read as a tolerance of
    1.0), a paper value of True 'differs' (1.0); text that is no number raised pandas' 'Unable to
    parse string' without the column. Numeric text still reads as its number."""
    values = _ledger_values()
    values[column] = values[column].astype(object)
    values.loc[0, column] = value
    with pytest.raises(ValueError, match=r"^cei Table 3: the papers' values must hold numbers " + message):
        bf.reproduction_ledger("cei", "Table 3", {"a": 0.998, "b": 0.61}, values=values, check=False)
    as_text = _ledger_values().astype({"paper_value": str, "tolerance": str})
    ledger = bf.reproduction_ledger("cei", "Table 3", {"a": 0.998, "b": 0.61}, values=as_text)
    assert ledger["tolerance"].tolist() == [0.001, 0.05] and ledger["verdict"].tolist() == ["reproduced", "same direction"]


@pytest.mark.parametrize(("p_target", "error", "message"), [
    (1e-320, ValueError, r"^c_miss·p_target = 9\.99989e-321 and c_fa·\(1 - p_target\) = 1 must both be at least 2\*\*-1022"),
    (0.0, ValueError, r"^p_target must lie in \(0, 1\), got 0\.0$"),
    ("0.01", TypeError, r"^p_target must be a number, got '0\.01'$"),
])
def test_operating_summary_checks_its_prior_before_any_work(monkeypatch, p_target, error, message):
    """operating_summary read p_target only when it came to the minDCF, after sorting both classes
    and counting (minutes on 10**8 scores), and its docstring gave the prior's range as (0, 1),
    which holds priors it refuses (1e-320: c_miss·p_target is no normal float)."""
    def counted(*args, **kwargs):
        raise AssertionError("the scores were counted before p_target was checked")

    monkeypatch.setattr("biofair.summaries.mated_counts_sorted", counted)
    with pytest.raises(error, match=message):
        bf.operating_summary([1.0, 2.0, 3.0], [0.0, 1.0, 2.0], p_target=p_target)
    assert "``p_target`` lies outside [2**-1022, 1)" in " ".join(bf.operating_summary.__doc__.split())


def test_the_lowest_fdr_is_never_printed_as_perfect_when_it_is_not(tmp_path):
    """Two groups with the same scores but for one of 20,000 mated scores, moved below every
    threshold: FDR = 1 - 0.5 · 1/20,000 = 0.999975 at every target, which the prose printed
    'The lowest FDR, 1.0000', the value of perfectly fair groups."""
    rng = np.random.default_rng(4)
    mated, nonmated = np.sort(rng.normal(3, 1, 20_000)), rng.normal(0, 1, 3000)
    moved = mated.copy()
    moved[-1] = -10.0  # the highest mated score of group B: a false non-match at every threshold
    table = pd.concat([pd.DataFrame({"score": np.r_[scores, nonmated], "group": group,
                                     "mated": np.repeat([True, False], [20_000, 3000])})
                       for group, scores in (("A", mated), ("B", moved))], ignore_index=True)
    fdr = bf.fairness_discrepancy_rate(table, fmr_targets=[1e-1, 1e-2, 1e-3])["fdr"]
    assert np.allclose(fdr, 1 - 0.5 / 20_000, rtol=0, atol=1e-15)  # the FNMR gap, 1/20,000, in floating point
    prose = _report(tmp_path, table, "--n-permutations", "2")
    assert re.search(r"The lowest FDR, 0\.9999[78], comes at the threshold", prose)
