"""What ``biofair report`` writes, read as an auditor reads it: on the shipped example, every number
of report.html, of the executed notebook and of the JSON is the public API's for the same input and
options, and the formats agree with each other (same rows, same order, same labels, one rounding
rule: four significant digits in the tables, every digit in the JSON and in each threshold)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import subprocess
import sys
import warnings
from importlib.resources import files
from pathlib import Path

import jsonschema
import jupytext
import nbformat
import numpy as np
import pytest
from bs4 import BeautifulSoup
from scipy import stats

import biofair as bf
from biofair import cli
from biofair.plotting import _table_number

EXAMPLE = bf.datasets.example_scores_path()
CHAPTER = Path(__file__).resolve().parents[2] / "notebooks" / "13_analyse_your_own_system.md"
SCHEMA = json.loads((files("biofair") / "data" / "summary.schema.json").read_text())
SEED, B, P = 3, 40, 10


def run(*args) -> None:
    assert cli.main(["report", str(EXAMPLE), *map(str, args)]) == 0


@pytest.fixture(scope="module")
def standard(tmp_path_factory):
    out = tmp_path_factory.mktemp("standard") / "out"
    run("-o", out, "-n", B, "--n-permutations", P, "--seed", SEED)
    return out


@pytest.fixture(scope="module")
def differential(tmp_path_factory):
    out = tmp_path_factory.mktemp("differential") / "out"
    run("--layout", "differential", "-n", B, "--seed", SEED, "-o", out)
    return out


def within_groups_only():
    """Three groups of 20, 20 and 12 subjects, labels per side, only the non-mated pairs within
    a group kept; c's non-mated scores lie lower (no false match at FMR 1e-2)."""
    table = bf.synthetic.demographic_scores(groups={"a": (20, 2.0, 1.0), "b": (20, 2.0, 1.0), "c": (12, 5.0, 0.0)},
                                            rng=0)
    return table[table["reference_group"] == table["probe_group"]].reset_index(drop=True)


@pytest.fixture(scope="module")
def warned(tmp_path_factory):
    """A report that warns three times over: its strictest target, 1e-4, is below 3/N of its
    non-mated comparisons (InsufficientComparisonsWarning, on stderr and on the page), its label
    shuffles leave about half of them within groups (PermutationNullWarning, on the page), and
    c's FMR at the operating threshold is 0 (UndefinedRateWarning: Inequity reads its upper
    bound; on stderr only, the page marks it fmr_bounded). Returns the folder and stderr."""
    folder = tmp_path_factory.mktemp("warned")
    within_groups_only().to_csv(folder / "within.csv", index=False)
    with contextlib.redirect_stderr(io.StringIO()) as stderr:
        assert cli.main(["report", str(folder / "within.csv"), "--fmr-targets", "1e-1,1e-2,1e-4", "-n", str(B),
                         "--n-permutations", str(P), "--seed", str(SEED), "-o", str(folder / "out")]) == 0
    return folder / "out", stderr.getvalue()


#: The rows of the groups' table at the operating threshold, named in words on the page (a row per
#: key of summary.json's operating_point.groups, in its order): keys as labels made the table 21 px
#: wider than its 334 px box on a 390 px phone, with three groups ("false_non_matches" is one word).
#: The words wrap; none is wider than the book's 16 px bold "non-mated" (its "comparisons" and
#: "non-matches", kept whole, left the book's table 13 px too wide).
IN_WORDS = {"fmr": "FMR", "fmr_cp_low": "FMR 95% CI low", "fmr_cp_high": "FMR 95% CI high", "fnmr": "FNMR",
            "fnmr_cp_low": "FNMR 95% CI low", "fnmr_cp_high": "FNMR 95% CI high", "false_matches": "FMR errors",
            "n_nonmated": "non-mated pairs", "false_non_matches": "FNMR errors",
            "n_mated": "mated pairs", "fmr_resolved": "FMR resolved", "fnmr_resolved": "FNMR resolved",
            "fmr_precise": "FMR precise", "fnmr_precise": "FNMR precise", "fmr_bounded": "FMR bounded",
            "fnmr_bounded": "FNMR bounded"}


def tables(markup: str) -> list[dict]:
    """Each pandas table of a page: its column names, index names and rows (index labels, cells)
    as text, the row labels a rowspan leaves out filled in from the rows above."""
    found = []
    for table in BeautifulSoup(markup, "html.parser").find_all("table", class_="dataframe"):
        head = table.find("thead").find_all("tr")
        columns = [th.get_text(strip=True) for th in head[0].find_all("th")]
        names = [th.get_text(strip=True) for th in head[1].find_all("th")] if len(head) > 1 else []
        levels = sum(1 for name in names if name)
        rows, above = [], []
        for tr in table.find("tbody").find_all("tr"):
            labels = [th.get_text(strip=True) for th in tr.find_all("th")]
            labels = above[:levels - len(labels)] + labels
            above = labels
            rows.append((tuple(labels), [td.get_text(strip=True) for td in tr.find_all("td")]))
        found.append({"columns": columns[levels:], "index": names[:levels], "rows": rows})
    return found


def cell(value) -> str:
    """A value as the report's tables show it (``bf.plotting.use_style``)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    return _table_number(float(value))


def test_the_page_shows_the_notebooks_tables(standard):
    page = tables((standard / "report.html").read_text())
    notebook = json.loads((standard / "report.ipynb").read_text())
    shown = [table for c in notebook["cells"] if c["cell_type"] == "code" for output in c.get("outputs", [])
             if "text/html" in output.get("data", {}) for table in tables("".join(output["data"]["text/html"]))]
    assert page == shown and len(page) == 6  # sizes, system, fairness, settings, operating point, calibration


def test_summary_json_is_the_apis_summary(standard):
    written = json.loads((standard / "summary.json").read_text())
    assert written["warnings"] == []  # the example warns of nothing: an empty list, not a missing key
    table = bf.read_grouped_scores(EXAMPLE)
    direct = bf.fairness_summary(table, fmr_targets=[1e-1, 1e-2, 1e-3], operating_fmr=1e-2, alpha=0.5,
                                 n_resamples=B, n_permutations=P, unit="subject", confidence=0.95,
                                 rng=np.random.default_rng(SEED))
    expected = direct.astype(object).where(direct.notna(), None).to_dict(orient="records")
    assert written["metrics"] == json.loads(json.dumps(expected))  # every row and digit, None where missing
    assert (written["seed"], written["intervals"]) == (SEED, {"method": "percentile bootstrap", "confidence": 0.95,
                                                              "n_resamples": B, "unit": "subject", "n_permutations": P})
    operating = bf.outcome_fairness(table, fmr=1e-2, alpha=0.5)
    point = written["operating_point"]
    assert (point["threshold"], point["k"], point["resolved"], point["precise"]) == (
        operating.threshold, operating.k, operating.resolved, operating.precise)
    assert point["groups"] == json.loads(json.dumps(operating.rates.astype(object).to_dict(orient="records")))
    rates = bf.rates_by_group(table, operating.threshold)
    for group, row in zip(point["groups"], rates.itertuples()):
        assert (group["group"], group["fmr"], group["fnmr"], group["false_matches"], group["n_nonmated"],
                group["false_non_matches"], group["n_mated"]) == (row.group, row.fmr, row.fnmr, row.false_matches,
                                                                  row.n_nonmated, row.false_non_matches, row.n_mated)
    sizes = bf.group_sizes(table)
    assert written["rows"]["groups"] == sizes[["n_mated", "n_nonmated"]].astype(int).to_dict("index")


def test_every_number_of_the_page_is_the_jsons(standard):
    """The tables' cells are the JSON's values to four significant digits, each threshold with every
    digit (2.3752, which four digits showed as 2.375: a threshold that decides other comparisons),
    in the JSON's row order."""
    written = json.loads((standard / "summary.json").read_text())
    sizes, system, fairness, settings, operating, calibration = tables((standard / "report.html").read_text())
    metrics = written["metrics"]
    for shown, rows in ((system, [r for r in metrics if r["attribute"] is None]),
                        (fairness, [r for r in metrics if r["attribute"] is not None])):
        assert [label[0] for label, _ in shown["rows"]] == [row["metric"] for row in rows]
        assert [label[1] for label, _ in shown["rows"]] == [cell(row["fmr_target"]) for row in rows]
        for (_, cells), row in zip(shown["rows"], rows):
            for name, text in zip(shown["columns"], cells):
                if name == "threshold":  # every digit: it reads back as the threshold itself
                    assert (float(text) if text else None) == row["threshold"]
                elif name in ("unit", "attribute"):
                    assert text == (row[name] or "")
                else:
                    assert text == cell(row[name]), (row["metric"], name)
    assert "threshold" in system["columns"] and "threshold" in fairness["columns"]
    assert {label[0]: cells[0] for label, cells in settings["rows"]} == {
        r["metric"]: r["parameters"] for r in written["metrics"] if r["parameters"]}
    groups = written["operating_point"]["groups"]  # a column per group, a row per key of the JSON, in words
    assert operating["columns"] == ["group", *(g["group"] for g in groups)]  # the corner names the columns
    keys = [name for name in groups[0] if name != "group"]
    assert [label[0] for label, _ in operating["rows"]] == [IN_WORDS[key] for key in keys]
    for key, (_, cells) in zip(keys, operating["rows"], strict=True):
        assert cells == [cell(group[key]) for group in groups]
    assert [label[0] for label, _ in sizes["rows"]] == list(written["rows"]["groups"])
    for (label, cells), counts in zip(sizes["rows"], written["rows"]["groups"].values()):
        assert [cells[sizes["columns"].index(name)] for name in ("n_mated", "n_nonmated")] == [
            str(counts["n_mated"]), str(counts["n_nonmated"])]
    kept = written["calibration"]["groups"]
    assert [label for label, _ in calibration["rows"]] == [(g["scores"], g["group"]) for g in kept]
    for (_, cells), group in zip(calibration["rows"], kept):
        assert cells == [cell(group[name]) for name in calibration["columns"]]


def test_each_groups_rates_at_the_operating_threshold_carry_an_interval_and_precision(standard):
    """SPEC section 1: a rate carries its count and resolution. The per-group FMR and FNMR at the
    operating threshold had counts and the rule of three, but no interval and no rule of thirty,
    which the differential layout has: now each has its 95% Clopper-Pearson interval (scipy's
    exact binomial test here) and a precise mark (30 errors, or 30 expected at the rate asked
    about), in summary.json (new keys; the old ones kept) and in the page's table, the same."""
    written = json.loads((standard / "summary.json").read_text())
    groups = written["operating_point"]["groups"]
    *_, operating, _ = tables((standard / "report.html").read_text())
    pooled_fnmr = sum(g["false_non_matches"] for g in groups) / sum(g["n_mated"] for g in groups)
    old_keys = {"group", "fmr", "fnmr", "false_matches", "n_nonmated", "false_non_matches", "n_mated", "fmr_resolved",
                "fnmr_resolved", "fmr_bounded", "fnmr_bounded"}
    assert operating["columns"] == ["group", *(g["group"] for g in groups)]  # a column per group
    keys = {words: key for key, words in IN_WORDS.items()}
    page = {keys[label[0]]: cells for label, cells in operating["rows"]}
    for column, group in enumerate(groups):
        assert old_keys < set(group)
        shown = {key: cells[column] for key, cells in page.items()}
        for rate, errors, n, asked in (("fmr", "false_matches", "n_nonmated", 1e-2),
                                       ("fnmr", "false_non_matches", "n_mated", pooled_fnmr)):
            exact = stats.binomtest(group[errors], group[n]).proportion_ci(0.95, method="exact")
            assert group[f"{rate}_cp_low"] == pytest.approx(exact.low, rel=1e-9, abs=1e-15)
            assert group[f"{rate}_cp_high"] == pytest.approx(exact.high, rel=1e-9, abs=1e-15)
            assert group[f"{rate}_cp_low"] <= group[rate] <= group[f"{rate}_cp_high"]
            assert group[f"{rate}_precise"] == (group[errors] >= 30 or asked * group[n] >= 30)
            for key in (f"{rate}_cp_low", f"{rate}_cp_high", f"{rate}_precise"):
                assert shown[key] == cell(group[key])
    # on the example every group's FMR rests on 22 to 26 false matches of 2,400: resolved, not precise
    assert [(g["false_matches"], g["fmr_resolved"], g["fmr_precise"]) for g in groups] == [
        (24, True, False), (22, True, False), (26, True, False)]
    assert all(g["fnmr_precise"] for g in groups)
    text = " ".join(BeautifulSoup((standard / "report.html").read_text(), "html.parser").get_text(" ").split())
    assert ("here the FMR of A (24 of 2,400), the FMR of B (22 of 2,400) and the FMR of C (26 of 2,400) "
            "are not precise.") in text


def test_summary_json_records_the_warnings_the_run_shows(warned):
    """summary.json recorded none of the warnings of a run, which report.html and stderr show: a
    reader of the JSON alone did not learn that a target is below the rule of three, that the
    permutation nulls compare smaller groups than the data, or that Inequity read a zero rate's
    upper bound. Now its "warnings" list holds each warning stderr or the page shows: first
    those only stderr shows (section and cell null), then the page's, in its order, with the
    section and cell that show it; those of the summary's section are the ones the API raises
    for the same table and options."""
    folder, stderr = warned
    written = json.loads((folder / "summary.json").read_text())
    page = BeautifulSoup((folder / "report.html").read_text(), "html.parser")
    shown = [line for pre in page.select('[data-mime-type="application/vnd.jupyter.stderr"] pre')
             for line in pre.get_text().splitlines()]
    on_page = [w for w in written["warnings"] if w["cell"] is not None]
    assert [f"{w['category']}: {w['message']}" for w in on_page] == shown
    printed = [line.removeprefix("biofair report: warning: ") for line in stderr.splitlines()
               if line.startswith("biofair report: warning: ")]
    assert len(printed) == 2 and set(printed) <= {w["message"] for w in written["warnings"]}  # each one recorded
    only_printed = written["warnings"][:len(written["warnings"]) - len(on_page)]
    assert [(w["category"], w["section"], w["cell"]) for w in only_printed] == [("UndefinedRateWarning", None, None)]
    assert only_printed[0]["message"].startswith("zero rates replaced by their 95% upper bound") and "'c'" in (
        only_printed[0]["message"])
    assert {w["category"] for w in on_page} == {"InsufficientComparisonsWarning", "PermutationNullWarning"}
    notebook = json.loads((folder / "report.ipynb").read_text())
    for warning in on_page:  # the cell that shows it, under the section named
        cell = notebook["cells"][warning["cell"]]
        assert warning["message"] in "".join(part for output in cell["outputs"] for part in output.get("text", []))
        headings = [line.lstrip("#").strip() for c in notebook["cells"][:warning["cell"]] if c["cell_type"] == "markdown"
                    for line in "".join(c["source"]).splitlines() if line.startswith("## ")]
        assert warning["section"] == headings[-1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bf.fairness_summary(within_groups_only(), fmr_targets=[1e-1, 1e-2, 1e-4], operating_fmr=1e-2, alpha=0.5,
                            n_resamples=B, n_permutations=P, unit="subject", confidence=0.95,
                            rng=np.random.default_rng(SEED))
    raised = {(w.category.__name__, str(w.message)) for w in caught if w.category is not bf.UndefinedRateWarning}
    assert {(w["category"], w["message"]) for w in on_page if w["section"] == "How good is the system?"} == raised
    assert len(raised) == 2


def test_summary_json_follows_its_schema(standard, warned):
    """summary.json had no schema (differential.json has one): biofair/data/summary.schema.json
    describes every key, and the groups' rates at the operating threshold are the columns of
    outcome_fairness's table, in its order, so that the schema cannot fall behind the API."""
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for folder in (standard, warned[0]):
        jsonschema.validate(json.loads((folder / "summary.json").read_text()), SCHEMA,
                            cls=jsonschema.Draft202012Validator)
    rates = bf.outcome_fairness(bf.read_grouped_scores(EXAMPLE), fmr=1e-2).rates
    assert list(SCHEMA["properties"]["operating_point"]["properties"]["groups"]["items"]["properties"]) == list(rates.columns)
    assert list(SCHEMA["properties"]) == list(json.loads((standard / "summary.json").read_text()))
    written = json.loads((standard / "summary.json").read_text())
    with pytest.raises(jsonschema.ValidationError, match="'warnings' is a required property"):
        jsonschema.validate({key: value for key, value in written.items() if key != "warnings"}, SCHEMA,
                            cls=jsonschema.Draft202012Validator)


def chapter_alone(folder: Path, **parameters) -> dict:
    """summary.json as chapter 13 writes it when it runs on its own (papermill, as a reader reruns it),
    not through ``biofair report``, with the report's resampling settings."""
    nbformat.write(jupytext.read(CHAPTER), folder / "chapter.ipynb")
    parameters = {"n_resamples": B, "n_permutations": P, "seed": SEED, "summary_path": str(folder / "summary.json"),
                  **parameters}
    run = subprocess.run([Path(sys.executable).with_name("papermill"), folder / "chapter.ipynb", folder / "executed.ipynb",
                          "--cwd", CHAPTER.parent, "--kernel", "python3", "--no-progress-bar",
                          "--parameters_yaml", json.dumps(parameters)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads((folder / "summary.json").read_text())


def test_a_summary_the_chapter_writes_on_its_own_keeps_the_warnings_its_page_shows(warned, tmp_path):
    """Chapter 13 run on its own (papermill, not biofair report) wrote a summary.json without
    "warnings", which its schema requires: only the command added them, from the executed
    notebook's stderr. Now the page keeps each warning it shows, once, with section and cell
    null (it cannot tell where it shows them): on the file that warns twice on the page
    (InsufficientComparisonsWarning, PermutationNullWarning), the same two, in the same order, as
    the command's summary places on the page, neither lost nor doubled (the page's hidden checks
    showed a third in report.ipynb, "read the value returned for it as unresolved", and the
    first again); on the example, none. Both summaries follow the schema."""
    folder, _ = warned
    by_command = json.loads((folder / "summary.json").read_text())
    (tmp_path / "warned").mkdir()
    alone = chapter_alone(tmp_path / "warned", scores_path=str(folder.parent / "within.csv"),
                          fmr_targets=[1e-1, 1e-2, 1e-4])
    for written in (alone, by_command):
        jsonschema.validate(written, SCHEMA, cls=jsonschema.Draft202012Validator)
    on_page = [(w["category"], w["message"]) for w in by_command["warnings"] if w["cell"] is not None]
    assert [(w["category"], w["message"]) for w in alone["warnings"]] == on_page
    assert [w["category"] for w in alone["warnings"]] == ["InsufficientComparisonsWarning", "PermutationNullWarning"]
    assert all(w["section"] is None and w["cell"] is None for w in alone["warnings"])
    (tmp_path / "example").mkdir()
    quiet = chapter_alone(tmp_path / "example")
    jsonschema.validate(quiet, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert quiet["warnings"] == []


def test_the_prose_quotes_the_jsons_settings_and_file(standard):
    written = json.loads((standard / "summary.json").read_text())
    text = " ".join(BeautifulSoup((standard / "report.html").read_text(), "html.parser").get_text(" ").split())
    source = written["source"]
    assert f"The file, {source['path']} ({source['bytes']:,} bytes, SHA-256 {source['sha256']}), holds" in text
    assert f"95% percentile intervals of {B} bootstrap resamples by subject" in text
    assert f"drawn with seed {SEED}" in text
    point = written["operating_point"]
    assert f"{point['threshold']!r} in the file's units" in text
    assert f"The threshold rests on {point['k']} pooled false matches" in text
    # SPEC section 1: the operating point with its achieved FMR and FNMR and the counts behind them
    groups = written["operating_point"]["groups"]
    pooled = {name: sum(g[name] for g in groups) for name in ("false_matches", "n_nonmated", "false_non_matches", "n_mated")}
    assert {name: point[name] for name in (*pooled, "fmr", "fnmr")} == {
        **pooled, "fmr": pooled["false_matches"] / pooled["n_nonmated"],
        "fnmr": pooled["false_non_matches"] / pooled["n_mated"]}
    assert (f"have FMR {pooled['false_matches']}/{pooled['n_nonmated']:,} = 1e-2 and FNMR "
            f"{pooled['false_non_matches']}/{pooled['n_mated']} ≈ 3.57e-1. The threshold") in text


def test_differential_json_is_the_apis_report_and_the_page_its_numbers(differential):
    written = json.loads((differential / "differential.json").read_text())
    direct = json.loads(bf.differential_report(bf.read_grouped_scores(EXAMPLE), fmr=1e-2, n_resamples=B,
                                               rng=SEED).to_json())
    assert written.pop("source")["sha256"] and direct.pop("source") is None
    assert written == direct
    assert written["settings"]["seed"] == SEED
    page = BeautifulSoup((differential / "report.html").read_text(), "html.parser")
    fmr, fnmr = (table for table in page.find_all("table")[1:3])
    for shown, rate in ((fmr, "fmr"), (fnmr, "fnmr")):
        rows = [[td.get_text(" ", strip=True) for td in tr.find_all("td")] for tr in shown.find_all("tr")[1:]]
        groups = [g for g in written["groups"] if g["rate"] == rate]
        assert [row[0] for row in rows] == [g["group"] for g in groups]  # the JSON's order
        for row, group in zip(rows, groups):
            assert row[1].split(" ")[0] == f"{group['estimate']:.3g}"
            assert row[2] == f"{group['errors']:,} / {group['comparisons']:,}"
            assert row[4] == f"[{group['bootstrap_low']:.3g}, {group['bootstrap_high']:.3g}]"
            assert row[5] == f"[{group['cp_low']:.3g}, {group['cp_high']:.3g}]"
            assert row[10] == group["ratio_verdict"]


def test_tied_scores_that_keep_the_operating_fmr_below_its_target_are_said(tmp_path):
    """Four groups of 200, 80, 40 and 12 subjects, scores to one decimal: at the operating threshold
    set at FMR 1e-2, 60 of the 6,704 non-mated comparisons within groups are false matches (FMR
    8.95e-3), and neither the page nor summary.json said so (SPEC section 1: an operating point is
    reported with its achieved FMR and FNMR and their counts); the differential layout has a note.
    The counts group their thousands (VoxCeleb1-H's read "2754/275,406")."""
    table = bf.synthetic.demographic_scores(
        groups={"W": (200, 3.0, 0.0), "X": (80, 2.6, 0.2), "Y": (40, 2.3, 0.0), "Z": (12, 2.0, 0.3)}, mated_per_subject=10, rng=7)
    table["score"] = table["score"].round(1)
    path = tmp_path / "tied.csv"
    table.to_csv(path, index=False)
    assert cli.main(["report", str(path), "-o", str(tmp_path / "out"), "-n", "40", "--n-permutations", "10"]) == 0
    point = json.loads((tmp_path / "out" / "summary.json").read_text())["operating_point"]
    pooled = np.sort(bf.scores_by_group(bf.read_grouped_scores(path)).pooled_nonmated)
    accepted = np.count_nonzero(pooled >= point["threshold"])
    next_lower = np.count_nonzero(pooled >= pooled[pooled < point["threshold"]][-1])
    assert (point["false_matches"], point["n_nonmated"], accepted, next_lower) == (60, 6704, 60, 81)
    assert (point["false_non_matches"], point["n_mated"]) == (1003, 3320)
    assert point["fmr"] == 60 / 6704 < point["fmr_target"] == 0.01
    text = " ".join(BeautifulSoup((tmp_path / "out" / "report.html").read_text(), "html.parser").get_text(" ").split())
    assert ("have FMR 60/6,704 ≈ 8.95e-3 and FNMR 1,003/3,320 ≈ 3.02e-1; the FMR is below the target, which allows "
            "67 false matches, because the next lower threshold, the next score, would accept 81: tied scores.") in text
