"""``biofair report --layout differential`` end to end: HTML and JSON that follows the schema."""

from __future__ import annotations

import json
from importlib.resources import files

import jsonschema
import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair import cli

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


def test_html_says_what_every_number_is_and_escapes_labels(audit):
    _, out, _ = audit
    page = (out / "report.html").read_text()
    assert "&lt;b&gt;c &amp; d&lt;/b&gt;" in page and "<b>c & d</b>" not in page
    for phrase in ("How to read this report", "rule of three", "design effect", "not resolved",
                   "Cross-group false matches", "four-fifths rule", "errors / comparisons"):
        assert phrase in page


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
    assert "reference='zz' names no group" in capsys.readouterr().err
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
