"""``biofair report --layout differential`` end to end: HTML and JSON that follows the schema."""

from __future__ import annotations

import hashlib
import html
import json
from importlib.resources import files
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair import cli
from biofair._differential_html import render
from test_differentials import AUDIT, counted_table  # the audit's table of exact counts

SCHEMA = json.loads((files("biofair") / "data" / "differential_report.schema.json").read_text())


def run(*args) -> int:
    try:
        return cli.main(["report", *map(str, args)])
    except SystemExit as stop:
        return stop.code


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    folder = tmp_path_factory.mktemp("audit")
    table = bf.synthetic.demographic_scores(rng=0)
    table["reference_group"] = table["reference_group"].replace({"c": "<b>c & d</b>"})
    table["probe_group"] = table["probe_group"].replace({"c": "<b>c & d</b>"})
    path = folder / "scores.csv"
    table.to_csv(path, index=False)
    status = run(path, "--layout", "differential", "--operating-fmr", "0.01", "-n", "100", "--seed", "1",
                 "-o", folder / "out")
    return status, folder / "out", table


def test_writes_exactly_the_html_and_the_json(audit):
    status, out, _ = audit
    assert status == 0
    assert sorted(p.name for p in out.iterdir()) == ["differential.json", "report.html"]
    assert not any(p.name.startswith(".") for p in out.parent.iterdir())  # the work folder is gone


def test_json_follows_the_schema_and_equals_the_direct_call(audit):
    _, out, table = audit
    document = json.loads((out / "differential.json").read_text())
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    direct = bf.differential_report(table, fmr=0.01, n_resamples=100, rng=1)
    expected = json.loads(direct.to_json())
    assert document["groups"] == expected["groups"] and document["differentials"] == expected["differentials"]
    assert document["settings"]["threshold_source"] == "fmr"
    unresolved = [g for g in document["groups"] if g["status"] == "unresolved"]
    assert unresolved and all(g["estimate"] is None for g in unresolved)
    assert expected["source"] is None  # a report made in Python names no file


def test_the_report_names_the_file_it_was_made_from(audit):
    """Neither the page nor the JSON named the score file, so a report could not be tied to
    the data it describes (a helper's audit, as an auditor would file it). The path is
    absolute, as in summary.json of the standard layout, even when given relative."""
    _, out, _ = audit
    scores = out.parent / "scores.csv"
    source = json.loads((out / "differential.json").read_text())["source"]
    assert source == {"path": str(scores), "bytes": scores.stat().st_size,
                      "sha256": hashlib.sha256(scores.read_bytes()).hexdigest()}
    assert f"<code>{source['sha256']}</code>" in (out / "report.html").read_text()


def test_the_report_records_the_seed_of_its_intervals(audit):
    """Neither differential.json nor the page said which --seed drew the bootstrap's resamples
    (--seed 1 here): an auditor who reran the report with the default seed 0 got other intervals
    (and possibly other verdicts) with nothing to say why. The page also names the interval's
    method (percentiles of the resamples)."""
    _, out, table = audit
    settings = json.loads((out / "differential.json").read_text())["settings"]
    assert settings["seed"] == 1 and settings["n_resamples"] == 100
    page = " ".join((out / "report.html").read_text().split())
    assert "Its intervals are percentiles of 100 bootstrap resamples, seed 1." in page
    assert "biofair " + bf.__version__ + "; 100 bootstrap resamples, seed 1." in page
    # in Python: an integer seed is recorded, a Generator's is not known, and the page says so
    assert bf.differential_report(table, fmr=0.01, n_resamples=40, rng=np.int64(5)).seed == 5
    drawn = bf.differential_report(table, fmr=0.01, n_resamples=40, rng=np.random.default_rng(5))
    assert drawn.seed is None and drawn.to_dict()["settings"]["seed"] is None
    jsonschema.validate(drawn.to_dict(), SCHEMA, cls=jsonschema.Draft202012Validator)
    assert "a generator whose seed the report does not know" in render(drawn)


def test_a_resolved_rate_below_the_rule_of_thirty_is_marked_not_precise(audit):
    """SPEC section 1: a rate is precise from 30 errors on. differential.json said which rates
    were not ("precise": false), the page never did: an FMR of 24 false matches in 2,400 showed
    as firmly as one of 100 in 53,104. Each shown rate that is not precise is marked so."""
    _, out, _ = audit
    groups = json.loads((out / "differential.json").read_text())["groups"]
    page = (out / "report.html").read_text()
    assert "the rule of thirty" in page
    marked = {}
    for rate, heading in (("fmr", "False match rate"), ("fnmr", "False non-match rate")):
        body = page.split(f"<h2>{heading}", 1)[1].split("</table>", 1)[0]
        for row in body.split("<tr>")[2:]:
            label, value = (cell.split(">", 1)[1] for cell in row.split("</td>")[:2])
            marked[(html.unescape(label), rate)] = "not precise" in value
    expected = {(g["group"], g["rate"]): g["status"] == "resolved" and not g["precise"] for g in groups}
    assert marked == expected and any(expected.values()) and not all(expected.values())


def test_an_unresolved_rate_writes_its_counts_as_the_counts_column_does():
    """VoxCeleb1-H by nationality: "not resolved: 0 of 1256" beside "0 / 1,256" in the next
    cell, one count written two ways on one row."""
    rng = np.random.default_rng(0)
    table = pd.DataFrame({
        "score": np.concatenate([rng.normal(3, 1, 200), rng.normal(0, 1, 5000), rng.normal(3, 1, 200),
                                 rng.normal(-3, 0.1, 1256)]),
        "mated": np.repeat([True, False, True, False], [200, 5000, 200, 1256]),
        "group": np.repeat(["a", "a", "b", "b"], [200, 5000, 200, 1256])})
    report = bf.differential_report(table, fmr=1e-3, n_resamples=40, rng=0)
    b = report.groups.set_index(["group", "rate"]).loc[("b", "fmr")]
    assert (b["status"], b["errors"], b["comparisons"]) == ("unresolved", 0, 1256)
    assert "not resolved: 0 of 1,256</span></td><td>0 / 1,256</td>" in render(report)


def test_a_score_file_given_by_a_relative_path_is_named_by_its_absolute_one(audit, tmp_path, monkeypatch):
    """differential.json named the file as given ("scores.csv"), summary.json by its absolute
    path: the same file, named two ways by the two layouts."""
    _, out, _ = audit
    monkeypatch.chdir(out.parent)
    assert run("scores.csv", "--layout", "differential", "--operating-fmr", "0.01", "-n", "100", "--seed", "1",
               "-o", tmp_path / "out") == 0
    source = json.loads((tmp_path / "out" / "differential.json").read_text())["source"]
    assert source["path"] == str(out.parent / "scores.csv") and Path(source["path"]).is_absolute()


def test_html_says_what_every_number_is_and_escapes_labels(audit):
    _, out, _ = audit
    page = (out / "report.html").read_text()
    assert "&lt;b&gt;c &amp; d&lt;/b&gt;" in page and "<b>c & d</b>" not in page
    for phrase in ("How to read this report", "rule of three", "design effect", "not resolved",
                   "Cross-group false matches", "four-fifths rule", "errors / comparisons"):
        assert phrase in page


def test_only_the_fmr_table_has_an_extrapolated_column(audit):
    """Before: the FNMR table carried an "extrapolated FMR (GPD tail)" column, a dash in every
    row (only an FMR is extrapolated, from the non-mated scores' tail)."""
    _, out, _ = audit
    page = (out / "report.html").read_text()
    tables = {rate: page.split(f"<h2>{heading}", 1)[1].split("</table>", 1)[0]
              for rate, heading in (("fmr", "False match rate"), ("fnmr", "False non-match rate"))}
    assert "extrapolated FMR (GPD tail)" in tables["fmr"] and "extrapolated" not in tables["fnmr"]
    for body in tables.values():  # every row as many cells as its header names
        head, *rows = body.split("<tr>")[1:]
        assert all(row.count("<td") == head.count("<th") for row in rows)


def test_a_small_group_with_errors_of_its_own_is_shown_and_compared(tmp_path):
    """The audit's case on the page: "Other" (5 false non-matches in 40, on 4 subjects) read "not
    resolved: 5 of 40" beside a smallest resolved rate of 0.075, and the FNMR verdict
    "inconclusive". Its rate, its ratio and the verdict are shown now, with the caveat that
    its bootstrap rests on 4 subjects."""
    path = tmp_path / "scores.csv"
    counted_table(AUDIT).to_csv(path, index=False)
    assert run(path, "--layout", "differential", "--threshold", "0.5", "-n", "400", "--seed", "1",
               "-o", tmp_path / "out") == 0
    document = json.loads((tmp_path / "out" / "differential.json").read_text())
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    other = next(g for g in document["groups"] if g["group"] == "Other" and g["rate"] == "fnmr")
    assert (other["status"], other["estimate"], other["ratio_verdict"]) == ("resolved", 5 / 40, "exceeds tolerance")
    assert other["ratio"] == pytest.approx((5 / 40) / (12 / 800), rel=1e-15)
    fnmr = next(d for d in document["differentials"] if d["rate"] == "fnmr")
    assert (fnmr["groups_compared"], fnmr["highest_group"], fnmr["verdict"]) == (4, "Other", "exceeds tolerance")
    page = (tmp_path / "out" / "report.html").read_text()
    assert "not resolved: 5 of 40" not in page and ('<td class="text">Other</td><td>0.125<br><small class="unresolved">not precise</small></td>' in page)
    assert "or when the group has at least 3 errors of its own" in " ".join(page.split())
    assert "subject-bootstrap intervals on fewer than 10 subjects: &#x27;Other&#x27; (4 subjects)" in page


def test_a_given_threshold_reference_and_tolerance(tmp_path):
    table = bf.synthetic.demographic_scores(rng=0)
    path = tmp_path / "scores.csv"
    table.to_csv(path, index=False)
    status = run(path, "--layout", "differential", "--threshold", "2.5", "--reference", "b", "--tolerance", "2",
                 "-n", "50", "-o", tmp_path / "out")
    assert status == 0
    document = json.loads((tmp_path / "out" / "differential.json").read_text())
    settings = document["settings"]
    assert (settings["threshold"], settings["threshold_source"], settings["tolerance"]) == (2.5, "given", 2.0)
    assert settings["reference"] == {"fmr": "b", "fnmr": "b"}


def test_an_unknown_reference_is_a_usage_error_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    bf.synthetic.demographic_scores(rng=0).to_csv(path, index=False)
    assert run(path, "--layout", "differential", "--reference", "zz", "-o", tmp_path / "out") == 2
    assert "--reference 'zz' names no group of --by group; the groups are" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_pair_level_groups_without_subjects(tmp_path):
    table = bf.synthetic.gaussian_scores(n_mated=300, n_nonmated=3_000, rng=0)
    table["group"] = np.where(np.arange(len(table)) % 3 == 0, "x", "y")
    path = tmp_path / "scores.csv"
    pd.DataFrame(table).to_csv(path, index=False)
    assert run(path, "--layout", "differential", "-n", "50", "-o", tmp_path / "out") == 0
    document = json.loads((tmp_path / "out" / "differential.json").read_text())
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert document["cross_group"] is None and document["settings"]["cluster"] is None


def test_distances_keep_their_units_in_and_out(tmp_path):
    """A file of distances (10 - score) and its similarity twin give the same counts; the
    threshold is read and reported in the file's units (it was given and shown negated,
    so that --threshold 7.5 on distances matched nothing)."""
    table = bf.synthetic.demographic_scores(rng=0)
    table["score"] = table["score"].round(4)
    table.to_csv(tmp_path / "similarity.csv", index=False)
    table.assign(score=(10 - table["score"]).round(4)).to_csv(tmp_path / "distance.csv", index=False)
    counts = {}
    for name, options in (("similarity", ("--threshold", "2.5")), ("distance", ("--threshold", "7.5", "--distance")),
                          ("distance_at_fmr", ("--distance",)), ("similarity_at_fmr", ())):
        source = "distance.csv" if name.startswith("distance") else "similarity.csv"
        assert run(tmp_path / source, "--layout", "differential", *options, "-n", "40", "-o", tmp_path / name) == 0
        document = json.loads((tmp_path / name / "differential.json").read_text())
        jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
        counts[name] = [(g["group"], g["rate"], g["errors"], g["comparisons"]) for g in document["groups"]]
        settings = document["settings"]
        assert settings["match"] == ("distance <= threshold" if name.startswith("distance") else "score >= threshold")
        page = (tmp_path / name / "report.html").read_text()
        assert ("distance is at or below it" in page) == name.startswith("distance")
        if name == "distance":
            assert settings["threshold"] == 7.5
        if name.endswith("at_fmr"):
            counts[name].append(settings["threshold"])
    assert counts["distance"] == counts["similarity"]
    # at a target FMR the thresholds differ by the change of units: t_distance = 10 - t_similarity
    *rows, threshold = counts["distance_at_fmr"]
    *twin_rows, twin_threshold = counts["similarity_at_fmr"]
    assert rows == twin_rows and threshold == pytest.approx(10 - twin_threshold, abs=1e-12)
    # by hand: distances at or below 7.5 are matches
    distances = 10 - table["score"]
    mated = table["mated"].to_numpy()
    assert sum(e for _, rate, e, _ in counts["distance"] if rate == "fnmr") == int((distances[mated] > 7.5).sum())


def test_a_float32_parquet_file_and_its_text_twin_give_the_same_counts_at_a_typed_threshold(tmp_path):
    """Scores written as text ("0.7") and as float32 Parquet (float32(0.7), just below the
    float64 0.7) are the same scores: --threshold 0.7 accepted them in the text file only
    (a helper's audit: FNMR 25/40 against 15/40). The threshold is now rounded to the stored
    precision, as a float32 system compares; float64 Parquet stays exact."""
    table = bf.synthetic.demographic_scores(rng=0)
    table["score"] = table["score"].round(1)  # many scores equal to the typed threshold
    inexact = table["score"][table["score"].astype(np.float32).astype(np.float64) != table["score"]]
    typed = float(inexact.mode().iloc[0])  # the commonest score float32 cannot hold exactly
    table.to_csv(tmp_path / "text.csv", index=False)
    table.astype({"score": np.float32}).to_parquet(tmp_path / "single.parquet", index=False)
    table.to_parquet(tmp_path / "double.parquet", index=False)
    counts = {}
    for name in ("text.csv", "single.parquet", "double.parquet"):
        out = tmp_path / name.replace(".", "_")
        assert run(tmp_path / name, "--layout", "differential", "--threshold", typed, "-n", "40", "-o", out) == 0
        document = json.loads((out / "differential.json").read_text())
        counts[name] = [(g["group"], g["rate"], g["errors"], g["comparisons"]) for g in document["groups"]]
    assert counts["single.parquet"] == counts["text.csv"] == counts["double.parquet"]
    mated = table["mated"].to_numpy()  # by hand, on the scores as written
    assert sum(e for _, rate, e, _ in counts["text.csv"] if rate == "fnmr") == int((table["score"][mated] < typed).sum())
    assert (table["score"] == typed).sum() > 100  # the ties at the threshold decide it
    assert bf.read_scores(tmp_path / "single.parquet").attrs["score_dtype"] == "float32"
    assert bf.read_scores(tmp_path / "text.csv").attrs["score_dtype"] == "float64"


def test_labels_that_differ_only_by_spaces_are_named_on_the_terminal_and_in_the_report(tmp_path, capsys):
    """The library warned, but the command showed only two kinds of warning: ' x' and 'x'
    became two groups without a word. Then the terminal said it, but the report, which its
    reader may get without the terminal, did not (a helper's audit)."""
    table = bf.synthetic.gaussian_scores(n_mated=300, n_nonmated=3_000, rng=0)
    table["group"] = np.array(["x", " x", "y"])[np.arange(len(table)) % 3]
    path = tmp_path / "scores.csv"
    pd.DataFrame(table).to_csv(path, index=False)
    assert run(path, "--layout", "differential", "-n", "40", "-o", tmp_path / "out") == 0
    warning = "column(s) ['group'] hold labels that differ only by surrounding spaces: ' x', 'x'"
    assert f"biofair report: warning: {warning}" in capsys.readouterr().err
    notes = json.loads((tmp_path / "out" / "differential.json").read_text())["notes"]
    assert notes[0].startswith(f"warning: {warning}")
    assert "warning: column(s) [&#x27;group&#x27;] hold labels" in (tmp_path / "out" / "report.html").read_text()


def test_scores_that_look_like_distances_are_named_in_the_report(tmp_path, capsys):
    """Distances read as similarities: every FNMR 1, a zero-width interval and a green
    "within tolerance", with the warning on the terminal only (a helper's audit)."""
    table = bf.synthetic.demographic_scores(rng=0)
    table["score"] = -table["score"]
    path = tmp_path / "distances.csv"
    table.to_csv(path, index=False)
    assert run(path, "--layout", "differential", "-n", "40", "-o", tmp_path / "out") == 0
    err = capsys.readouterr().err
    assert "may be distances" in err
    notes = json.loads((tmp_path / "out" / "differential.json").read_text())["notes"]
    assert notes[0].startswith("warning: mated scores are mostly below non-mated ones")
    # said once, by the reader: differential_report, which also warns of a table of distances, says nothing more
    said = "mated scores are mostly below non-mated ones"
    assert err.count(said) == 1 and sum(said in note for note in notes) == 1
    assert (tmp_path / "out" / "report.html").read_text().count(said) == 1


def test_subject_ids_that_differ_only_by_spaces_are_named_on_the_terminal(tmp_path, capsys):
    """'a-000 ' and 'a-000' are two subjects to the report's bootstrap by subject: the library
    warns, and the command must show it."""
    table = bf.synthetic.demographic_scores(rng=0)
    nonmated = np.flatnonzero(~table["mated"].to_numpy())
    table.loc[nonmated[::2], "reference_subject"] += " "  # only non-mated rows: no contradiction
    path = tmp_path / "scores.csv"
    table.to_csv(path, index=False)
    assert run(path, "--layout", "differential", "-n", "40", "-o", tmp_path / "out") == 0
    err = capsys.readouterr().err
    assert "biofair report: warning: column(s) ['reference_subject', 'probe_subject'] hold subject ids that differ " \
           "only by surrounding spaces (" in err
    assert "such set(s) of ids: 'a-000', 'a-000 '; " in err


def test_a_fairness_index_the_data_cannot_give_is_named_and_the_differential_layout_runs(tmp_path, capsys):
    """Scores saturated at a ceiling (most of group b's mated scores at 1.0): the standard report
    stopped with "group 'b': all ... fall in the tail", naming neither the index nor a way on."""
    table = bf.synthetic.demographic_scores(rng=0)
    table["score"] = np.where(table["reference_group"] == "b", table["score"].clip(upper=1.0), table["score"])
    path = tmp_path / "clipped.csv"
    table.to_csv(path, index=False)
    assert run(path, "-n", "40", "-o", tmp_path / "standard") == 2
    assert "biofair report: error: the comprehensive equity index (CEI, CEI^A) cannot be computed: group 'b': all " \
           "600 mated scores fall in the tail" in capsys.readouterr().err
    assert not (tmp_path / "standard").exists()
    assert run(path, "--layout", "differential", "-n", "40", "-o", tmp_path / "out") == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["differential.json", "report.html"]
