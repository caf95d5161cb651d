"""Valid but awkward score files, as an auditor hands them in uncleaned, given to
``biofair report`` (both layouts) and to the functions behind it: a report must complete and
say what the file cannot measure, and nothing it states may be false for that file."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from hostile import FAST_DIFFERENTIAL


def two_groups_one_without_errors(n_nonmated_b: int = 53) -> pd.DataFrame:
    """Group 'a': 200 mated and 2,000 non-mated comparisons; group 'b': 40 mated ones and
    ``n_nonmated_b`` non-mated ones, all far below every threshold (so its FMR is 0 of them,
    unresolved at a target of 1e-2 when ``n_nonmated_b < 300``)."""
    rng = np.random.default_rng(4)
    return pd.DataFrame({
        "score": np.r_[rng.normal(2, 1, 200), rng.normal(0, 1, 2_000), rng.normal(1.5, 1, 40),
                       rng.normal(-6, 0.5, n_nonmated_b)],
        "mated": np.r_[np.ones(200, bool), np.zeros(2_000, bool), np.ones(40, bool), np.zeros(n_nonmated_b, bool)],
        "group": ["a"] * 2_200 + ["b"] * (40 + n_nonmated_b),
    })


def test_a_rate_compared_in_one_group_names_no_highest_group_and_the_page_prints_no_nan(tmp_path, run_main):
    """When one rate has a single compared group (the other left out, unresolved), it has no
    highest or lowest group: the differentials table held NaN there (pandas reads a column of
    names as text), which the page printed as "nan / nan"; the other rate's names are kept."""
    table = two_groups_one_without_errors()
    report = bf.differential_report(table, by="group", fmr=1e-2, n_resamples=40, rng=0)
    rows = report.differentials.set_index("rate")
    assert rows.loc["fmr", "groups_compared"] == 1  # 'b' has no false match in 53: unresolved, left out
    assert rows.loc["fmr", "highest_group"] is None and rows.loc["fmr", "lowest_group"] is None
    fnmr = report.groups.query("rate == 'fnmr'").set_index("group")["estimate"]
    assert rows.loc["fnmr", "highest_group"] == fnmr.idxmax() and rows.loc["fnmr", "lowest_group"] == fnmr.idxmin()
    assert json.loads(report.to_json())["differentials"][0]["highest_group"] is None

    table.to_csv(tmp_path / "scores.csv", index=False)
    status, err = run_main(tmp_path / "scores.csv", "-o", tmp_path / "out", "--layout", "differential",
                           *FAST_DIFFERENTIAL)
    assert status == 0, err
    page = (tmp_path / "out" / "report.html").read_text()
    assert not re.search(r"\bnan\b", page, flags=re.IGNORECASE)


def page_text(path) -> str:
    """The words of an HTML page, its tags dropped and its spaces collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", path.read_text()).split())


def test_the_standard_report_names_group_rates_too_few_to_bound_and_the_redrawn_arrangements(tmp_path, run_main):
    """A group of 3 subjects with 3 mated comparisons and no false non-match: its FNMR (0 of 3)
    rests on fewer than 3 errors and the groups' pooled FNMR would not give 3 among 3, yet the
    page said only that the operating target was resolved, and GARBE_FNMR compared the rate as
    if measured. Its shuffled subjects also leave some arrangements unscorable; the page named
    the redrawn count only inside a settings string."""
    table = bf.synthetic.demographic_scores(groups={"a": (30, 4.0, 1.0), "b": (3, 6.0, 1.0)}, mated_per_subject=1,
                                            rng=2)
    table.to_csv(tmp_path / "scores.csv", index=False)
    status, err = run_main(tmp_path / "scores.csv", "-o", tmp_path / "out", "-n", "40", "--n-permutations", "10",
                           "--seed", "3")
    assert status == 0, err
    page = page_text(tmp_path / "out" / "report.html")

    # the operating threshold and each group's counts at it, from the file
    homogeneous = table["reference_group"] == table["probe_group"]
    nonmated = table[~table["mated"] & homogeneous]
    threshold = bf.threshold_at_fmr(nonmated["score"].to_numpy(), 1e-2)
    mated = table[table["mated"]]
    pooled_fnmr = np.mean(mated["score"] < threshold)
    short = []
    for rate, rows, errors, asked in (("FMR", nonmated, nonmated["score"] >= threshold, 1e-2),
                                      ("FNMR", mated, mated["score"] < threshold, pooled_fnmr)):
        for group in ("a", "b"):
            in_group = rows["reference_group"] == group
            k, n = int(errors[in_group].sum()), int(in_group.sum())
            if k < 3 and asked * n < 3:
                short.append(f"the {rate} of {group} ({k:,} of {n:,})")
    assert short == ["the FMR of b (0 of 64)", "the FNMR of b (0 of 3)"]  # the case this file is made for
    assert f"{short[0]} and {short[1]}: each rests on fewer than 3 errors" in page
    assert f"for FNMR the groups' pooled FNMR, {pooled_fnmr:.3g})" in page

    metrics = json.loads((tmp_path / "out" / "summary.json").read_text())["metrics"]
    settings = {row["parameters"] for row in metrics if row["metric"].endswith("_null_mean")}
    assert len(settings) == 1
    redrawn = int(re.search(r"redrawn=(\d+)", settings.pop()).group(1))
    assert f"On this file {redrawn:,} of {redrawn + 10:,} shuffled arrangements left some group too few scores" in page


def test_a_file_whose_groups_every_rate_resolves_says_so(tmp_path, run_main):
    """The same sentence on a file where every group's rates are resolved and no arrangement
    is redrawn: it must not name a group."""
    rng = np.random.default_rng(5)
    mated = np.arange(4_000) % 10 == 0
    table = pd.DataFrame({"score": rng.normal(np.where(mated, 2.0, 0.0), 1.0), "mated": mated,
                          "group": np.where(np.arange(4_000) % 3 == 0, "x", "y")})
    table.to_csv(tmp_path / "scores.csv", index=False)
    status, err = run_main(tmp_path / "scores.csv", "-o", tmp_path / "out", "-n", "40", "--n-permutations", "10")
    assert status == 0, err
    page = page_text(tmp_path / "out" / "report.html")
    assert "each group's rates rest on its own comparisons: every group's FMR and FNMR there rests on 3 errors" in page
    assert "No shuffle of this file had to be drawn again: each left every group scores enough for every index." in page



def test_a_decision_system_says_that_its_ties_leave_no_threshold_near_the_target(tmp_path, run_main):
    """Scores 0 (reject) and 1 (accept), 7 of every 100 non-mated comparisons accepted: no
    threshold gives an FMR between 0 and 0.07, so the target 1e-2 sets it above every score,
    where no comparison is a match. The report showed FNMR 1 and FMR 0 for every group, marked
    the target resolved, and said nothing of why (a given threshold there is refused); integer
    scores (FMR 0.0023 at a target of 0.01) got no word either."""
    n_mated, n_nonmated = 200, 1_000
    score = np.r_[np.arange(n_mated) % 5 != 0, np.arange(n_nonmated) % 100 < 7].astype(float)
    table = pd.DataFrame({"score": score, "mated": np.r_[np.ones(n_mated, bool), np.zeros(n_nonmated, bool)],
                          "group": np.where(np.arange(n_mated + n_nonmated) % 2 == 0, "a", "b")})
    report = bf.differential_report(table, by="group", fmr=1e-2, n_resamples=40, rng=0)
    assert report.threshold > 1 and report.overall["false_matches"] == 0
    accepted = int(np.sum(score[n_mated:] >= 1))  # the next lower threshold, 1: the system's own decisions
    assert accepted == 70
    tied = [note for note in report.notes if note.startswith("tied scores")]
    assert tied == [
        "tied scores: at the threshold set at the target FMR 0.01, 0 of 1,000 non-mated comparisons are false matches "
        "(FMR 0), fewer than the 10 the target allows; the next lower threshold, the next non-mated score, would "
        f"accept {accepted} (FMR 0.07, above the target), and no threshold lies between: the report gives the rates "
        "of the stricter one, where no comparison is a match"]

    table.to_csv(tmp_path / "decisions.csv", index=False)
    status, err = run_main(tmp_path / "decisions.csv", "-o", tmp_path / "out", "--layout", "differential",
                           *FAST_DIFFERENTIAL)
    assert status == 0, err
    assert f"biofair report: note: {tied[0]}" in err
    assert tied[0] in json.loads((tmp_path / "out" / "differential.json").read_text())["notes"]

    # integer scores with ties across classes: a threshold short of the target, not above every score
    integers = table.assign(score=np.r_[np.arange(n_mated) % 7 + 4, np.arange(n_nonmated) % 10 // 2 * 2])
    tied = [note for note in bf.differential_report(integers, by="group", fmr=1e-2, n_resamples=40, rng=0).notes
            if note.startswith("tied scores")]
    nonmated = integers["score"].to_numpy()[n_mated:]  # 0, 2, 4, 6, 8: 200 of each
    assert tied and "0 of 1,000" in tied[0] and "would accept 200 (FMR 0.2" in tied[0]
    assert np.sum(nonmated >= 8) == 200 and not tied[0].endswith("where no comparison is a match")


def test_a_target_met_by_distinct_scores_gets_no_note_of_ties():
    """Distinct non-mated scores reach floor(target·N) false matches exactly: no note."""
    table = two_groups_one_without_errors()
    report = bf.differential_report(table, by="group", fmr=1e-2, n_resamples=40, rng=0)
    n_nonmated = int((~table["mated"]).sum())
    assert report.overall["false_matches"] == int(np.floor(1e-2 * n_nonmated))
    assert not any(note.startswith("tied scores") for note in report.notes)


def test_an_extrapolation_to_zero_in_zero_is_left_out_with_a_note():
    """Group b, 3 subjects and 53 non-mated scores within it, had its FMR extrapolated to
    '0 [0, 0] (model)': a tail fitted to 50 of the 53 scores, bounded and ending below the
    threshold. The report now leaves it out, as a group too small for a tail, and says why."""
    table = bf.synthetic.demographic_scores(groups={"a": (30, 2.0, 1.0), "b": (3, 1.5, 1.0)}, rng=2)
    b = bf.scores_by_group(table)["b"].nonmated
    report = bf.differential_report(table, threshold=3.1592, n_resamples=40, rng=0)
    row = report.groups.query("group == 'b' and rate == 'fmr'").iloc[0]
    assert row["status"] == "unresolved" and pd.isna(row["extrapolated"]) and pd.isna(row["extrapolated_high"])
    with pytest.warns(UserWarning, match=r"^extrapolated_fmr: the generalised Pareto tail fitted"):
        tail = bf.extrapolated_fmr(b, 3.1592)  # what the report was given: [0, 0]
    assert (tail.estimate, tail.low, tail.high) == (0.0, 0.0, 0.0) and tail.n_nonmated == b.size == 53
    assert [note for note in report.notes if note.startswith("FMR of 'b'")] == [
        f"FMR of 'b' not extrapolated: the tail fitted to the top 50 of its 53 non-mated scores (shape "
        f"{tail.shape:.2f}) ends below the threshold, where the model gives 0 in [0, 0]: no certainty that the FMR "
        "is 0 (see biofair.extrapolated_fmr)"]


def test_an_extrapolated_fmr_below_the_smallest_float_is_left_out_with_its_own_note():
    """Group a's heavy tail (shape about 0.35, scores near 1e-300) reaches the pooled threshold
    with an FMR of about 10^-860, which float64 writes 0 in [0, 0]: the note said its tail "ends
    below the threshold", which a tail with no end does not, and extrapolated_fmr's warning of
    the underflow reached the caller (an extrapolation audit)."""
    import warnings

    from scipy import stats

    rng = np.random.default_rng(0)
    heavy = stats.genpareto.rvs(0.5, size=2_000, random_state=1) * 1e-300
    table = pd.DataFrame({"score": np.r_[heavy, rng.normal(size=2_000), rng.normal(3, 1, 400)],
                          "mated": np.r_[np.zeros(4_000, bool), np.ones(400, bool)],
                          "group": np.r_[["a"] * 2_000, ["b"] * 2_000, ["a", "b"] * 200]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        report = bf.differential_report(table, fmr=1e-3, n_resamples=40, rng=0)
    assert [note for note in report.notes if note.startswith("FMR of 'a'")] == [
        "FMR of 'a' not extrapolated: the tail fitted to the top 200 of its 2,000 non-mated scores (shape 0.35) "
        "reaches the threshold with an FMR below the smallest float64, written 0 in [0, 0]: no certainty that the "
        "FMR is 0 (see biofair.extrapolated_fmr)"]
