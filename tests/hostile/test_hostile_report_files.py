"""Valid score files of the kinds auditors hand in, given to the standard ``biofair report``:
every group of the file must be reported, in every table of the report."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from hostile import example


def test_a_group_whose_subjects_all_fall_in_the_development_half_keeps_its_calibration_row(tmp_path, run_main):
    """A group of two subjects (X0, X1) whose non-mated comparisons are X0 against X1: the
    subject split of the calibration section can put both subjects in the development half
    (seed 1 does), and the group was left out of the calibration table and summary.json
    without a word, while the prose says each group keeps both classes in both halves."""
    rng = np.random.default_rng(0)
    small = pd.DataFrame({
        "reference_subject": ["X0"] * 10 + ["X1"] * 10 + ["X0"] * 20,
        "probe_subject": ["X0"] * 10 + ["X1"] * 10 + ["X1"] * 20,
        "group": "X",
        "score": np.r_[rng.normal(3, 1, 20), rng.normal(0, 1, 20)],
        "mated": [True] * 20 + [False] * 20,
    })
    table = pd.concat([example(), small], ignore_index=True)
    table.to_csv(tmp_path / "two_subjects.csv", index=False)
    status, err = run_main(tmp_path / "two_subjects.csv", "-o", tmp_path / "out", "-n", "40",
                           "--n-permutations", "10", "--seed", "1")
    assert status == 0, err
    calibration = json.loads((tmp_path / "out" / "summary.json").read_text())["calibration"]
    reported = {(row["scores"], row["group"]) for row in calibration["groups"]}
    expected_groups = {*table["group"].unique(), "(all)"}
    for scores in {row["scores"] for row in calibration["groups"]}:
        assert {group for kind, group in reported if kind == scores} == expected_groups, (scores, calibration["fitted_on"])
    assert calibration["fitted_on"] == "the comparisons it is measured on (optimistic)"  # and says so
