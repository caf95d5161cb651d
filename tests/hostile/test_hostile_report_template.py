"""Hostile files given to the standard ``biofair report``: the sections that landed with
calibration (chapter 13 is the report's template) must not fail the run or write non-JSON."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from hostile import FAST, example


def test_the_standard_report_of_scores_spanning_the_float_range_has_finite_calibration(tmp_path, run_main):
    """Cllr summed costs near 1.5e308 and wrote Infinity into summary.json (not JSON)."""
    table = example()
    k = 1024 - int(np.ceil(np.log2(table["score"].abs().max())))
    table["score"] = np.ldexp(table["score"].to_numpy(), k)
    table.to_csv(tmp_path / "huge.csv", index=False)
    status, err = run_main(tmp_path / "huge.csv", "-o", tmp_path / "out", *FAST)
    assert status == 0, err

    def refuse(constant):
        raise ValueError(f"summary.json holds {constant}")

    summary = json.loads((tmp_path / "out" / "summary.json").read_text(), parse_constant=refuse)
    rows = pd.DataFrame(summary["calibration"]["groups"])
    assert set(rows["scores"]) == {"as read", "calibrated"} and summary["calibration"]["skipped"] == []
    as_read = rows[rows["scores"] == "as read"]
    assert np.isfinite(as_read["cllr"]).all() and (as_read["cllr"] > 1e305).all()


def test_a_calibration_the_scores_cannot_have_is_named_in_summary_json(tmp_path, run_main):
    """Subnormal scores (about 1e-310): no logistic calibration maps them to LLRs, and the
    "calibrated" rows were missing from summary.json without a word (the HTML said why)."""
    table = example()
    table["score"] = table["score"] * 1e-310
    table.to_csv(tmp_path / "tiny.csv", index=False)
    status, err = run_main(tmp_path / "tiny.csv", "-o", tmp_path / "out", *FAST)
    assert status == 0, err
    calibration = json.loads((tmp_path / "out" / "summary.json").read_text())["calibration"]
    assert {row["scores"] for row in calibration["groups"]} == {"as read"}
    assert len(calibration["skipped"]) == 1
    assert calibration["skipped"][0].startswith("no logistic calibration: the calibration's slope ")
    assert calibration["skipped"][0].endswith("are too small to map to LLRs; rescale them")



def test_a_group_too_small_for_cei_in_some_resamples_does_not_fail_the_report(tmp_path, run_main):
    """A hidden cell bootstraps CEI only to quote a share in the prose; when a subject
    resample left a small group one non-mated score, it failed the whole report
    (VoxCeleb1-H, 40,000 comparisons: group 'Italy')."""
    rng = np.random.default_rng(7)
    rows = []
    for s in range(5):  # group D: 5 speakers, one holds 30 of its 34 non-mated comparisons
        name = f"D{s}"
        rows += [dict(reference_subject=name, probe_subject=name, group="D", score=rng.normal(3, 1), mated=True)
                 for _ in range(10)]
        rows += [dict(reference_subject=name, probe_subject=f"D{(s + 1 + i % 4) % 5}", group="D",
                      score=rng.normal(0, 1), mated=False) for i in range(30 if s == 4 else 1)]
    pd.concat([example(), pd.DataFrame(rows)], ignore_index=True).to_csv(tmp_path / "small.csv", index=False)
    status, err = run_main(tmp_path / "small.csv", "-o", tmp_path / "out", *FAST)
    assert status == 0, err
    notebook = (tmp_path / "out" / "report.ipynb").read_text()
    assert "some resamples cannot even be scored (group 'D': its one nonmated score falls in the tail" in notebook
