"""summary.json and differential.json are strict JSON (RFC 8259) whatever the scores.

A file whose largest non-mated scores are the largest float64 puts the operating threshold
beyond it: ``nextafter(max, +inf)`` is +inf. The standard layout wrote ``"threshold": Infinity``
in summary.json (11 times on this file), which jq and JavaScript's JSON.parse refuse; the
differential layout stopped with a traceback (``ValueError: Out of range float values are not
JSON compliant: inf``) and wrote nothing. Both now write the string "Infinity", as their schemas
say, and the writer refuses (``allow_nan=False``) any other non-finite number.
"""

from __future__ import annotations

import csv
import json
import math

import jsonschema
import numpy as np
import pytest

from biofair._validation import strict_json
from hostile import FAST, FAST_DIFFERENTIAL, ROOT

LARGEST = float(np.finfo(np.float64).max)


def strict(text: str):
    """Parse like a strict parser: the bare tokens NaN, Infinity and -Infinity are errors."""

    def refuse(token: str):
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture
def scores_up_to_the_largest_float(tmp_path):
    """Two groups of 30 subjects, every 50th non-mated score the largest float64."""
    rng = np.random.default_rng(5)
    path = tmp_path / "scores.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["reference_subject", "probe_subject", "group", "score", "mated"])
        count = 0
        for group in "AB":
            subjects = [f"{group}{i:02d}" for i in range(30)]
            for reference in subjects:
                writer.writerow([reference, reference, group, repr(LARGEST * rng.uniform(0.5, 1)), True])
                for probe in subjects:
                    if probe != reference:
                        count += 1
                        score = LARGEST if count % 50 == 0 else LARGEST * rng.uniform(0, 0.9)
                        writer.writerow([reference, probe, group, repr(score), False])
    return path


def test_the_standard_summary_is_strict_json_with_an_infinite_threshold(tmp_path, run_main,
                                                                      scores_up_to_the_largest_float):
    status, err = run_main(scores_up_to_the_largest_float, "--by", "group", "-o", tmp_path / "out", *FAST)
    assert status == 0, err
    summary = strict((tmp_path / "out" / "summary.json").read_text())
    jsonschema.validate(summary, json.loads((ROOT / "biofair" / "data" / "summary.schema.json").read_text()))
    assert summary["operating_point"]["threshold"] == "Infinity"
    assert float(summary["operating_point"]["threshold"]) == math.inf


def test_the_differential_report_is_strict_json_with_an_infinite_threshold(tmp_path, run_main,
                                                                         scores_up_to_the_largest_float):
    status, err = run_main(scores_up_to_the_largest_float, "--layout", "differential", "--by", "group",
                           "--operating-fmr", "1e-4", "-o", tmp_path / "out", *FAST_DIFFERENTIAL)
    assert status == 0, err
    report = strict((tmp_path / "out" / "differential.json").read_text())
    jsonschema.validate(report, json.loads(
        (ROOT / "biofair" / "data" / "differential_report.schema.json").read_text()))
    assert report["settings"]["threshold"] == "Infinity"


def test_the_writer_maps_every_non_finite_number():
    document = {"a": [math.nan, np.float64(-math.inf), (math.inf, 1.5)], "b": {"c": np.nan, "d": 2}}
    assert strict(strict_json(document, indent=1)) == {
        "a": [None, "-Infinity", ["Infinity", 1.5]], "b": {"c": None, "d": 2}}
