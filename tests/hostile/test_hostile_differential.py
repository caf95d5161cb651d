"""Hostile inputs to the demographic differential report (API and ``--layout differential``):
no interval narrower than the data allow, no group lost, every option's error named."""

from __future__ import annotations

import json
import re
from importlib.resources import files

import jsonschema
import numpy as np
import pandas as pd
import pytest

import biofair as bf
from hostile import FAST_DIFFERENTIAL

SCHEMA = json.loads((files("biofair") / "data" / "differential_report.schema.json").read_text())


def groups_table(sizes: dict, *, subjects: int = 20, mated_share: float = 0.2, seed: int = 1) -> pd.DataFrame:
    """Pair-level groups: ``sizes`` comparisons each, spread over ``subjects`` subjects."""
    rng = np.random.default_rng(seed)
    parts = []
    for name, n in sizes.items():
        mated = rng.random(n) < mated_share
        parts.append(pd.DataFrame({"score": np.where(mated, rng.normal(2, 1, n), rng.normal(0, 1, n)), "mated": mated,
                                   "group": name, "reference_subject": [f"{name}-{i % subjects}" for i in range(n)]}))
    return pd.concat(parts, ignore_index=True)


def report(table: pd.DataFrame, **options) -> bf.DifferentialReport:
    defaults = {"fmr": None if "threshold" in options else 1e-2, "n_resamples": 400, "rng": 0}
    result = bf.differential_report(table, **(defaults | options))
    jsonschema.validate(json.loads(result.to_json()), SCHEMA)
    return result


def test_an_unbounded_ratio_is_never_within_tolerance():
    """Group b has 1 false match in 300: in about e^-1 of the binomial resamples it has none and
    the ratio to it is infinite. Those resamples were dropped, giving a finite upper end."""
    rng = np.random.default_rng(3)
    nonmated = {"a": np.r_[np.full(6, 5.0), rng.normal(-3, 1, 294)], "b": np.r_[5.0, rng.normal(-3, 1, 299)]}
    table = pd.concat([pd.DataFrame({"score": np.r_[s, rng.normal(3, 1, 100)], "mated": np.r_[np.zeros(300, bool), np.ones(100, bool)],
                                     "group": g}) for g, s in nonmated.items()], ignore_index=True)
    result = report(table, threshold=4.0)
    fmr = result.differentials.set_index("rate").loc["fmr"]
    assert fmr["max_min"] == 6.0  # 6/300 over 1/300
    zero_share = np.mean(np.random.default_rng(0).binomial(300, 1 / 300, 100_000) == 0)
    assert zero_share > 0.3  # so the 97.5th percentile of the ratio is infinite
    assert fmr["max_min_high"] == np.inf and fmr["verdict"] != "within tolerance"
    assert any(note.startswith("unbounded intervals") and "FMR max_min" in note for note in result.notes)
    assert json.loads(result.to_json())["differentials"][0]["max_min_high"] is None


def test_a_group_of_one_subject_gives_no_clustered_interval():
    """Resampling one subject always returns it: the interval was a point, and ratios to the
    group were 'within tolerance' with certainty."""
    table = groups_table({"a": 400, "b": 400})
    single = groups_table({"c": 300}, seed=2).assign(reference_subject="only")
    result = report(pd.concat([table, single], ignore_index=True))
    c = result.groups.set_index(["group", "rate"]).loc[("c", "fnmr")]
    assert c["status"] == "resolved" and np.isnan(c["bootstrap_low"]) and c["ratio_verdict"] == "not assessable"
    assert "c" not in result.differentials.set_index("rate").loc["fnmr", "highest_group":"lowest_group"].tolist()
    assert "FNMR: left out of the differentials: one subject (a subject-clustered interval needs two or more): 'c'" \
        in result.notes
    assert sum("'c'" in note for note in result.notes if note.startswith("FNMR")) == 1  # named once, not twice


def test_intervals_on_few_subjects_are_named_in_the_notes():
    """A compared group of a few subjects (4 in an audit) got a subject-bootstrap interval, and
    ratios from it, with no word that a bootstrap over so few subjects understates the
    uncertainty. Groups of fewer than 10 subjects are now named, with their counts, per rate;
    10 is enough."""
    table = pd.concat([groups_table({"a": 2000, "b": 2000}), groups_table({"c": 2000}, subjects=9, seed=2),
                       groups_table({"d": 2000}, subjects=10, seed=3)], ignore_index=True)
    assert table.groupby("group")["reference_subject"].nunique().to_dict() == {"a": 20, "b": 20, "c": 9, "d": 10}
    result = report(table)
    assert (result.groups["status"] == "resolved").all() and (result.groups["ratio"].notna()).all()  # all compared
    said = [note for note in result.notes if "subject-bootstrap intervals" in note]
    assert said == [f"{rate}: subject-bootstrap intervals on fewer than 10 subjects: 'c' (9 subjects); a bootstrap "
                    "that resamples so few subjects understates the uncertainty, and so do the ratios and verdicts "
                    "that rest on it: read each group's Clopper-Pearson interval too, which does not depend on the "
                    "subjects (but takes the comparisons as independent)" for rate in ("FMR", "FNMR")]
    assert not any("subject-bootstrap intervals" in note for note in report(table, unit="pair").notes)  # no subjects


@pytest.mark.parametrize("cluster, error, message", [
    ("speaker", bf.SchemaError, r"^cluster='speaker' names no column; the table has \["),
    (3, TypeError, r"^cluster must be a column name, got 3"),
    (None, TypeError, r"^cluster must be a column name, got None \(to take comparisons as the units, give unit='pair'\)"),
], ids=["typo", "int", "none"])
def test_a_cluster_column_that_is_not_there_is_an_error(cluster, error, message):
    """A misspelt cluster column silently resampled comparisons (narrower intervals: the FMR
    verdict went from 'inconclusive' to 'exceeds tolerance')."""
    with pytest.raises(error, match=message):
        report(groups_table({"a": 400, "b": 400}), cluster=cluster)


def test_without_the_default_subject_column_the_report_says_so():
    result = report(groups_table({"a": 400, "b": 400}).drop(columns="reference_subject"))
    assert result.cluster is None
    assert any(note.startswith("no column 'reference_subject': the bootstrap resamples comparisons") for note in result.notes)


def test_unit_says_what_the_bootstrap_resamples():
    """The same spelling as bootstrap, fairness_summary and permutation_null: unit="pair"
    resamples comparisons of a table that has subjects (no note: it was asked for);
    unit="subject" without the subject column is an error, not a fallback."""
    table = groups_table({"a": 400, "b": 400})
    pairs = report(table, unit="pair")
    assert pairs.cluster is None and not any(note.startswith("no column") for note in pairs.notes)
    assert report(table, unit="subject").cluster == "reference_subject" == report(table).cluster
    with pytest.raises(bf.SchemaError, match=r"^unit='subject' needs a score table with a 'reference_subject' column"):
        report(table.drop(columns="reference_subject"), unit="subject")
    with pytest.raises(ValueError, match=r"^unit must be 'pair', 'subject' or None, got 'speaker'"):
        report(table, unit="speaker")
    with pytest.raises(TypeError, match=r"^cluster must be a column name, got None$"):  # no advice to give unit='pair'
        report(table, unit="pair", cluster=None)
    for resample in (bf.bootstrap, lambda statistic, t, **options: bf.paired_bootstrap(statistic, t, t, **options)):
        for unit, advice in (("subject", " (to take comparisons as the units, give unit='pair')"), ("pair", "")):
            with pytest.raises(TypeError, match=re.escape(f"cluster must be a column name, got None{advice}") + "$"):
                resample(bf.eer, table, unit=unit, cluster=None)  # an AttributeError deep inside, or silently pairs


@pytest.mark.parametrize("value", ["no", 0, None])
def test_extrapolate_is_true_or_false(value):
    with pytest.raises(TypeError, match=rf"^extrapolate must be True or False, got {value!r}"):
        report(groups_table({"a": 400, "b": 400}), extrapolate=value)


@pytest.mark.parametrize("labels, names", [
    ([1, "x"], ["1", "x"]),  # crashed in numpy's sort (DTypePromotionError)
    ([1.5, "x"], ["1.5", "x"]),
    ([True, "x"], ["True", "x"]),
], ids=["int and str", "float and str", "bool and str"])
def test_mixed_type_labels_keep_every_row(labels, names):
    table = groups_table({"a": 400, "b": 400})
    table["group"] = pd.Series(np.where(table["group"] == "a", 0, 1), dtype=object).map(dict(enumerate(labels)))
    result = report(table)
    assert sorted(result.groups["group"].unique()) == names
    assert result.groups["comparisons"].sum() == len(table)


def test_labels_that_read_the_same_are_refused():
    table = groups_table({"a": 400, "b": 400})
    table["group"] = pd.Series(np.where(table["group"] == "a", 0, 1), dtype=object).map({0: 1, 1: "1"})
    with pytest.raises(bf.SchemaError, match=r"distinct labels that read the same: 1 \(int\), '1' \(str\)"):
        report(table)


# -- the command line, on a file it did not write -------------------------------------------------

def messy_file(folder) -> tuple:
    """A CSV whose group labels are hostile: look-alike numbers, padded text, markup, TeX."""
    table = groups_table({"1": 400, "01": 400, " x": 400, "<b>y</b> & $\\alpha$": 400})
    table["reference_subject"] = table["reference_subject"].str.replace("<", "&lt;")
    path = folder / "messy.csv"
    table.to_csv(path, index=False)
    return path, table


def test_the_differential_layout_keeps_every_label_as_written(tmp_path, run_main):
    path, table = messy_file(tmp_path)
    status, err = run_main(path, "-o", tmp_path / "out", "--layout", "differential", *FAST_DIFFERENTIAL)
    assert status == 0, err
    written = json.loads((tmp_path / "out" / "differential.json").read_text())
    jsonschema.validate(written, SCHEMA)
    assert sorted({g["group"] for g in written["groups"]}) == sorted(table["group"].unique())
    assert sum(g["comparisons"] for g in written["groups"]) == len(table)
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<b>y</b>" not in html and "&lt;b&gt;y&lt;/b&gt; &amp; $\\alpha$" in html


@pytest.mark.parametrize("options, message", [
    (["--reference", "z"], r"--reference 'z' names no group of --by group; the groups are \[' x', '01', '1', "
                           r"'<b>y</b> & \$\\\\alpha\$'\]"),
    (["--reference", "x"], r"--reference 'x' names no group of --by group"),  # ' x' is another label
], ids=["absent", "unpadded"])
def test_a_reference_group_that_does_not_exist(options, message, tmp_path, run_main):
    path, _ = messy_file(tmp_path)
    status, err = run_main(path, "-o", tmp_path / "out", "--layout", "differential", *FAST_DIFFERENTIAL, *options)
    assert status == 2 and not (tmp_path / "out").exists()  # found when the file is read, before any work
    *warned, error = err  # first the labels that differ only by how a number is written (1, 1.0 and 01)
    assert re.search(message, error), err
    assert len(warned) == 1 and warned[0].startswith("biofair report: warning: column(s) ['group'] hold labels that "
                                                     "differ only by how a number is written (1, 1.0 and 01)"), err



def test_a_threshold_outside_the_scores_is_refused(tmp_path, run_main):
    """Scores in (0, 1) and "--threshold 70" (a percentage): FNMR 1 in every group, ratios of
    1, and every FNMR verdict "within tolerance", with no warning."""
    table = groups_table({"a": 200, "b": 200})
    low, high = float(table["score"].min()), float(table["score"].max())
    for threshold, where in ((high + 1, f"above every score (the largest is {high!r}): no comparison in any group"),
                             (low, f"at or below every score (the smallest is {low!r}): every comparison in every group")):
        with pytest.raises(ValueError, match=re.escape(
                f"threshold={float(threshold)!r} is {where} would be a match, which shows no differential. Is it in the "
                "scores' unit (0.7, not 70)?")):
            bf.differential_report(table, threshold=threshold, n_resamples=40, rng=0)
    assert bf.differential_report(table, threshold=np.nextafter(low, np.inf), n_resamples=40, rng=0).overall["fmr"] < 1
    assert bf.differential_report(table, threshold=high, n_resamples=40, rng=0).overall["fnmr"] < 1
    path = tmp_path / "distances.csv"
    table.assign(score=-table["score"]).to_csv(path, index=False)
    for threshold, where in (("70", f"at or above every distance of the file (the largest is {-low!r}): every "
                                    "comparison in every group"),
                             (repr(float(np.nextafter(-high, -np.inf))), f"below every distance of the file (the smallest "
                                                                  f"is {-high!r}): no comparison in any group")):
        status, err = run_main(path, "--distance", "--threshold", threshold, "-o", tmp_path / "out", "--layout",
                               "differential", *FAST_DIFFERENTIAL)
        assert status == 2 and not (tmp_path / "out").exists()
        assert err == [f"biofair report: error: --threshold {float(threshold)!r} is {where} would be a match, which "
                       "shows no differential. Is it in the file's unit (0.7, not 70)?"], err


def test_too_few_resamples_for_the_intervals_are_refused():
    """With one resample every interval had zero width: a group of ratio 1.56 was "within
    tolerance" 1.25 from the interval [1.22, 1.22], which excludes its own estimate."""
    table = groups_table({"a": 200, "b": 200})
    for n_resamples, confidence, fewest, shown in ((1, 0.95, 40, "95"), (39, 0.95, 40, "95"), (19, 0.9, 20, "90"),
                                                   (199, 0.99, 200, "99"), (1999, 0.999, 2000, "99.9")):
        with pytest.raises(ValueError, match=rf"^n_resamples={n_resamples} is too few for {shown}% intervals: "
                                             rf"give at least {fewest}, so that each interval has a resample beyond"):
            bf.differential_report(table, fmr=1e-2, n_resamples=n_resamples, confidence=confidence, rng=0)
        report = bf.differential_report(table, fmr=1e-2, n_resamples=fewest, confidence=confidence, rng=0)
        assert report.n_resamples == fewest


def test_a_file_whose_scores_are_all_equal_is_refused(tmp_path, run_main):
    """It reported FMR 0 and FNMR 1 for every group, without a word (the standard layout
    refuses the same file, as d' is undefined)."""
    table = groups_table({"a": 200, "b": 200}).assign(score=0.5)
    with pytest.raises(ValueError, match=r"every score is 0\.5: equal scores cannot tell mated from non-mated"):
        bf.differential_report(table, fmr=1e-2, n_resamples=40, rng=0)
    path = tmp_path / "constant.csv"
    table.to_csv(path, index=False)
    status, err = run_main(path, "-o", tmp_path / "out", "--layout", "differential", *FAST_DIFFERENTIAL)
    assert status == 2 and not (tmp_path / "out").exists()
    assert len(err) == 1 and "every score is 0.5" in err[0], err
    table.loc[0, "score"] = 0.6  # one different score is a (poor) system, reported as usual
    assert not table.loc[0, "mated"]  # a non-mated score above every other: ROC AUC (N - 1) / 2N, below 0.5
    n_nonmated = int((~table["mated"]).sum())
    with pytest.warns(bf.ScoreDirectionWarning, match=rf"\(ROC AUC = {(n_nonmated - 1) / (2 * n_nonmated):.3f} < 0\.5\)"):
        assert len(bf.differential_report(table, fmr=1e-2, n_resamples=40, rng=0).groups) == 4


def test_a_rate_no_group_resolves_has_its_missing_reference_said_in_words():
    """The page read "(per rate: None for FMR, b for FNMR)"."""
    from biofair._differential_html import render

    with pytest.warns(bf.InsufficientComparisonsWarning, match=r"^target FMR 0\.001 is below 3/N "):
        audit = bf.differential_report(groups_table({"a": 200, "b": 200}), fmr=1e-3, n_resamples=40, rng=0)
    assert audit.to_dict()["settings"]["reference"] == {"fmr": None, "fnmr": "b"}
    page = render(audit)
    assert "(for FMR, none: no group resolves this rate; for FNMR, b)" in " ".join(page.split()) and "None" not in page


@pytest.mark.parametrize("n_small", [2, 40])
def test_groups_too_small_for_a_tail_share_one_note_when_they_are_many(n_small):
    """300 groups gave 300 near-identical "not extrapolated" notes (a helper's audit): past a
    few, one note names them all, with the reason for the first."""
    small = {f"s{i:02d}": 40 for i in range(n_small)}  # about 32 non-mated each: FMR 1e-3 unresolved, no tail
    result = report(groups_table({"big1": 4000, "big2": 4000, **small}), fmr=1e-3)
    notes = [note for note in result.notes if "not extrapolated" in note]
    if n_small == 2:
        assert [note.split(" not")[0] for note in notes] == ["FMR of 's00'", "FMR of 's01'"]
    else:
        assert len(notes) == 1 and notes[0].startswith(f"FMR of {n_small} groups not extrapolated ('s00', 's01', ")
        assert "; for 's00': nonmated has " in notes[0]
