"""Valid but varied score files through ``biofair report --layout differential``: what the page
and differential.json say must agree, and a verdict must not hide a group it left out."""

from __future__ import annotations

import json
import re
from importlib.resources import files

import jsonschema
import numpy as np
import pandas as pd

from hostile import FAST_DIFFERENTIAL

SCHEMA = json.loads((files("biofair") / "data" / "differential_report.schema.json").read_text())


def _groups(rng: np.random.Generator, sizes: dict[str, tuple[int, int]], *, shift: dict[str, float],
            subjects: int = 200) -> pd.DataFrame:
    """Pair-level groups: (non-mated, mated) comparisons each, non-mated N(shift, 1), mated N(3, 1)."""
    parts = []
    for name, (n_nonmated, n_mated) in sizes.items():
        parts.append(pd.DataFrame({
            "score": np.r_[rng.normal(shift.get(name, 0.0), 1, n_nonmated), rng.normal(3, 1, n_mated)],
            "mated": np.r_[np.zeros(n_nonmated, bool), np.ones(n_mated, bool)],
            "group": name,
            "reference_subject": [f"{name}-{i % subjects}" for i in range(n_nonmated + n_mated)]}))
    return pd.concat(parts, ignore_index=True)


def test_the_page_shows_the_threshold_the_json_holds(run_main, tmp_path):
    """Scores near 10^6 (a vendor's scale): --threshold 1000002.5 and --threshold 1000000 were
    both printed "Threshold 1e+06" (6 significant digits), so the page named neither threshold
    the counts were made at; differential.json held 1000002.5."""
    table = _groups(np.random.default_rng(0), {"a": (1500, 300), "b": (1500, 300)}, shift={})
    table["score"] += 1e6
    path = tmp_path / "scores.csv"
    table.to_csv(path, index=False)
    shown = {}
    for threshold in ("1000002.5", "1000000"):
        out = tmp_path / threshold
        status, err = run_main(path, "--layout", "differential", "--threshold", threshold, *FAST_DIFFERENTIAL, "-o", out)
        assert status == 0, err
        document = json.loads((out / "differential.json").read_text())
        assert document["settings"]["threshold"] == float(threshold)
        page = (out / "report.html").read_text()
        shown[threshold] = re.search(r"Threshold <b>([^<]*)</b>", page).group(1)
        assert float(shown[threshold]) == float(threshold), f"page shows {shown[threshold]}, JSON {threshold}"
    assert shown["1000002.5"] != shown["1000000"]


def test_a_group_without_false_matches_is_not_hidden_behind_a_verdict_within_tolerance(run_main, tmp_path):
    """Group b has 0 false matches in 20,000 non-mated comparisons (Clopper-Pearson upper end
    1.8e-4), a and c about 2.2 % each: b's FMR is at least 100 times lower than theirs. The FMR
    row said "within tolerance" (max/min 1.02 over a and c), b being "left out of the
    differentials: a rate of 0" in a note: an auditor reading the verdict sees no differential."""
    table = _groups(np.random.default_rng(0), {g: (20_000, 2_000) for g in "abc"}, shift={"b": -20.0})
    path = tmp_path / "scores.csv"
    table.to_csv(path, index=False)
    status, err = run_main(path, "--layout", "differential", "--threshold", "2", "-n", "200", "--seed", "0",
                           "-o", tmp_path / "out")
    assert status == 0, err
    document = json.loads((tmp_path / "out" / "differential.json").read_text())
    jsonschema.validate(document, SCHEMA, cls=jsonschema.Draft202012Validator)
    rows = {(g["group"], g["rate"]): g for g in document["groups"]}
    nonmated = ~table["mated"].to_numpy()
    scores, groups = table["score"].to_numpy(), table["group"].to_numpy()
    for name in "abc":  # the counts, by hand
        own = nonmated & (groups == name)
        assert (rows[name, "fmr"]["errors"], rows[name, "fmr"]["comparisons"]) == (int((scores[own] >= 2).sum()),
                                                                                   int(own.sum()))
    b, a = rows["b", "fmr"], rows["a", "fmr"]
    assert b["status"] == "resolved" and b["errors"] == 0 and b["cp_high"] < 2e-4
    assert a["cp_low"] / b["cp_high"] > 50 * document["settings"]["tolerance"]  # a differential beyond doubt
    fmr = next(d for d in document["differentials"] if d["rate"] == "fmr")
    assert fmr["verdict"] != "within tolerance", fmr
