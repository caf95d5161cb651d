"""`biofair report` end to end: outputs agree with direct calls; bad files write nothing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import biofair as bf

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = bf.datasets.example_scores_path()
FAST = ["-n", "40", "--n-permutations", "10", "--seed", "3"]


def biofair_command(*args):
    command = [str(Path(sys.executable).with_name("biofair")), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT)


def summary_values(folder: Path) -> pd.DataFrame:
    summary = json.loads((folder / "summary.json").read_text())
    return pd.DataFrame(summary["metrics"])


def value(summary, metric, fmr=None):
    rows = summary[(summary["metric"] == metric) & ((summary["fmr_target"] == fmr) if fmr else summary["fmr_target"].isna())]
    assert len(rows) == 1, (metric, fmr)
    return rows["value"].item()


@pytest.fixture(scope="module")
def example_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report") / "out"
    run = biofair_command("report", EXAMPLE, "-o", folder, *FAST)
    assert run.returncode == 0, run.stderr[-2000:]
    return folder


def test_example_report_matches_direct_calls(example_report):
    assert sorted(p.name for p in example_report.iterdir()) == ["report.html", "report.ipynb", "summary.json"]
    html = (example_report / "report.html").read_text()
    assert "data:image/png;base64" in html and "How fair is it?" in html
    # the chapter's MyST roles are rendered as the book renders them, never shown raw
    assert not re.search(r"\{(glue|func|term|numref|admonition)[a-z:]*\}|^:::", html, flags=re.M)
    assert "<strong>Figure 1.</strong>" in html
    assert f"holds {len(pd.read_csv(EXAMPLE)):,} comparisons" in html
    # the template is a book chapter; its exercises stay in the book
    assert "Exercises" not in html and "solution-start" not in (example_report / "report.ipynb").read_text()
    summary = summary_values(example_report)
    table = pd.read_csv(EXAMPLE)
    mated, nonmated = bf.split_scores(table)
    assert value(summary, "roc_auc") == bf.roc_auc(mated, nonmated)
    assert value(summary, "eer") == bf.eer(mated, nonmated).eer
    assert value(summary, "tmr_at_fmr", 0.01) == bf.tmr_at_fmr(mated, nonmated, 0.01)
    at_target = summary[(summary["metric"] == "tmr_at_fmr") & (summary["fmr_target"] == 0.01)]
    assert at_target["threshold"].item() == bf.threshold_at_fmr(nonmated, 0.01)
    written = json.loads((example_report / "summary.json").read_text())
    assert (written["match"], written["biofair"]) == ("score >= threshold", bf.__version__)
    fdr = bf.fairness_discrepancy_rate(table, fmr_targets=[1e-1, 1e-2, 1e-3])
    for row in fdr.itertuples():
        assert value(summary, "fdr", row.fmr_target) == row.fdr
    outcome = bf.outcome_fairness(table, fmr=1e-2)
    assert value(summary, "garbe_fnmr", 0.01) == outcome.garbe_fnmr
    assert value(summary, "dfi_extreme") == bf.distribution_fairness_index(table).extreme
    resampled = summary.dropna(subset=["low"])
    assert set(resampled["unit"]) == {"subject"} and (resampled["n_resamples"] == 40).all()


def test_example_report_states_the_range_of_the_fdr_area(example_report):
    """SPEC §4: an area under FDR is reported with its x range (here the FMR targets)."""
    header = json.loads((example_report / "summary.json").read_text())
    assert header["fmr_targets"] == [0.1, 0.01, 0.001] and header["operating_fmr"] == 0.01
    table = pd.read_csv(EXAMPLE)
    fdr = bf.fairness_discrepancy_rate(table, fmr_targets=header["fmr_targets"])
    expected = bf.area_under_fdr(fdr["fdr"], fdr["fmr_target"], scale="log10")
    assert value(summary_values(example_report), "area_under_fdr_log10") == expected
    html = " ".join(re.sub(r"<[^>]+>", "", (example_report / "report.html").read_text()).split())
    assert "integrates FDR from FMR = 1e-3 to 1e-1 on a log10 axis" in html


def test_bob_file_with_subject_attributes(tmp_path):
    table = pd.read_csv(EXAMPLE)
    bob = tmp_path / "scores-dev"
    probe_ids = table["probe_subject"] + "/sample" + table.index.astype(str)
    bob.write_text("\n".join(f"{r} {p} {i} {s}" for r, p, i, s in zip(
        table["reference_subject"], table["probe_subject"], probe_ids, table["score"])) + "\n")
    subjects = tmp_path / "people.csv"
    people = table[["reference_subject", "group"]].rename(columns={"reference_subject": "subject"}).drop_duplicates()
    people.to_csv(subjects, index=False)
    run = biofair_command("report", bob, "--subjects", subjects, "-o", tmp_path / "out", *FAST)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Executing" not in run.stderr  # stderr is no terminal: no progress unless asked
    summary = summary_values(tmp_path / "out")
    assert value(summary, "roc_auc") == bf.roc_auc(*bf.split_scores(table))
    assert value(summary, "fdr", 0.01) == bf.fairness_discrepancy_rate(table, fmr_targets=[0.01])["fdr"].item()


def test_distance_file(tmp_path):
    table = pd.read_csv(EXAMPLE)
    distances = tmp_path / "distances.csv"
    table.assign(dist=-table["score"]).drop(columns="score").rename(columns={"mated": "genuine"}).to_csv(distances, index=False)
    run = biofair_command("report", distances, "--columns", "dist=score,genuine=mated", "--distance",
                          "-o", tmp_path / "out", "--progress", *FAST)
    assert run.returncode == 0, run.stderr[-2000:]
    assert re.search(r"Executing: 100%\|.*\| (\d+)/\1 \[", run.stderr), run.stderr[-2000:]  # asked for, in a log
    summary = summary_values(tmp_path / "out")
    assert value(summary, "roc_auc") == bf.roc_auc(*bf.split_scores(table))
    # thresholds in the file's units (they were the negated distances): a match is a distance at or below
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["match"] == "distance <= threshold"
    at_target = summary[(summary["metric"] == "tmr_at_fmr") & (summary["fmr_target"] == 0.01)]
    mated, nonmated = bf.split_scores(table)
    threshold = at_target["threshold"].item()
    assert threshold == -bf.threshold_at_fmr(nonmated, 0.01)
    assert np.mean(-mated <= threshold) == at_target["value"].item()  # TMR counted on the distances


def bad_files(tmp_path):
    table = pd.read_csv(EXAMPLE).head(400)
    files = {}
    files["missing column"] = tmp_path / "no_mated.csv"
    table.drop(columns="mated").to_csv(files["missing column"], index=False)
    files["NaN scores"] = tmp_path / "nan.csv"
    table.assign(score=np.where(np.arange(len(table)) % 50 == 0, np.nan, table["score"])).to_csv(files["NaN scores"], index=False)
    files["single group"] = tmp_path / "one_group.csv"
    table.assign(group="A").to_csv(files["single group"], index=False)
    files["unreadable"] = tmp_path / "broken.parquet"
    files["unreadable"].write_bytes(b"\x00not a parquet file")
    return files


@pytest.mark.parametrize("case, message", [
    ("missing column", "missing column(s): mated"),
    ("NaN scores", "column 'score' has 8 NaN"),
    ("single group", "at least two groups"),
    ("unreadable", "could not read"),
])
def test_bad_files_exit_non_zero_with_one_line_and_write_nothing(tmp_path, case, message):
    path = bad_files(tmp_path)[case]
    out = tmp_path / "out"
    run = biofair_command("report", path, "-o", out, *FAST)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("biofair report: error:") and message in lines[0], run.stderr
    assert not out.exists()


def test_help_documents_every_option():
    run = biofair_command("report", "--help")
    assert run.returncode == 0
    for option in ("--columns", "--by", "--missing-groups", "--subjects", "--distance", "--format", "--decimal",
                   "--fmr-targets", "--operating-fmr", "--alpha", "--n-resamples", "--n-permutations", "--seed",
                   "--progress", "--layout", "--threshold", "--reference", "--tolerance", "examples:"):
        assert option in run.stdout


def test_the_first_example_of_the_help_runs_as_copied_with_no_python_on_the_path(tmp_path):
    """Was: biofair report "$(python -c 'import biofair; print(...)')" -o report, which needs the
    environment activated: with biofair called by its path, 'python' was another Python or none,
    the substitution printed nothing, and the run said "argument scores: . is a folder, not a
    file". The example names the file; an empty name is named so."""
    run = biofair_command("report", "--help")
    example = next(line.strip() for line in run.stdout.splitlines() if line.strip().startswith("biofair report "))
    assert example.endswith(" -o report")
    commands = tmp_path / "bin"  # biofair alone: no python beside it
    commands.mkdir()
    (commands / "biofair").symlink_to(Path(sys.executable).with_name("biofair"))
    environment = {"PATH": f"{commands}:/nonexistent", "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    copied = subprocess.run(example.replace(" -o report", " -o out --layout differential -n 40"), shell=True,
                            capture_output=True, text=True, cwd=tmp_path, env=environment)
    assert copied.returncode == 0, copied.stderr
    report = json.loads((tmp_path / "out" / "differential.json").read_text())
    assert report["source"]["path"] == str(bf.datasets.example_scores_path())
    empty = biofair_command("report", "", "-o", tmp_path / "never")
    assert empty.returncode == 2 and empty.stderr.strip().splitlines()[-1] == (
        'biofair report: error: argument scores: the file name is empty (a command substitution, "$(...)", that '
        "printed nothing? run it alone to see why); give a file")


def test_help_names_the_layout_of_each_layout_only_option():
    """The options one layout refuses say which layout they belong to: --alpha and
    --n-permutations did not, and --operating-fmr described its standard meaning only."""
    from biofair import cli

    report = cli._build_parser()._subparsers._group_actions[0].choices["report"]
    helps = {action.dest: action.help for action in report._actions}
    for name in cli._STANDARD_ONLY:
        assert helps[name].startswith("standard layout: "), name
    assert "standard layout's notebook cells" in helps["progress"]  # and the stages of either layout
    for name in ("threshold", "reference", "tolerance"):
        assert helps[name].startswith("differential layout: "), name
    assert "standard layout" in helps["operating_fmr"] and "differential layout" in helps["operating_fmr"]
    assert "(default: standard)" in helps["layout"]


def test_the_report_resamples_as_often_as_the_library_by_default(tmp_path):
    """SPEC section 3: B = 1000 by default, in the command as in fairness_summary and
    differential_report (the command used 200, and 100 permutations where the library uses 200)."""
    import inspect

    from biofair import cli

    defaults = {name: parameter.default for function in (bf.fairness_summary, bf.differential_report)
                for name, parameter in inspect.signature(function).parameters.items()
                if name in ("n_resamples", "n_permutations")}
    args = cli._parse(["report", str(EXAMPLE), "-o", str(tmp_path / "out")])
    assert defaults == {"n_resamples": 1000, "n_permutations": 200}
    assert (args.n_resamples, args.n_permutations) == (defaults["n_resamples"], defaults["n_permutations"])
    template = (ROOT / "notebooks" / "13_analyse_your_own_system.md").read_text()
    assert "n_resamples = 1000\nn_permutations = 200\n" in template


def test_report_has_a_calibration_section_matching_direct_calls(example_report):
    html = (example_report / "report.html").read_text()
    assert "Are the scores evidence?" in html
    calibration = json.loads((example_report / "summary.json").read_text())["calibration"]
    assert calibration["fitted_on"].startswith("half of the subjects")
    rows = pd.DataFrame(calibration["groups"]).set_index(["scores", "group"])
    table = pd.read_csv(EXAMPLE)
    halves = bf.mitigation.subject_disjoint_split(table, rng=3)  # the report's seed (FAST)
    bf.mitigation.check_subject_disjoint(halves.dev, halves.eval)
    as_read = bf.calibration_by_group(halves.eval, p_target=calibration["p_target"])
    for group, row in as_read.iterrows():
        assert rows.loc[("as read", group), "cllr"] == row["cllr"]
        assert rows.loc[("as read", group), "min_cllr"] == row["min_cllr"]
    fit = bf.fit_logistic_calibration(*bf.split_scores(halves.dev))
    calibrated = bf.calibration_by_group(halves.eval.assign(score=fit.transform(halves.eval["score"])),
                                         p_target=calibration["p_target"])
    assert np.allclose(rows.loc["calibrated", "actual_dcf"].loc[calibrated.index], calibrated["actual_dcf"])


def test_the_warnings_of_the_page_are_read_by_category_section_and_cell():
    """What summary.json's "warnings" holds, from a notebook built by hand: each "Category:
    message" line of a shown cell's stderr, a message of two lines whole, under the last heading
    above it (its closing '#' left out; not a '#' comment of a code block in the prose); a cell the page leaves out
    (remove-cell) only checks, and its warnings are not the page's; stdout is not a warning; the
    same warning twice in one cell is kept once, in another cell again."""
    import nbformat

    from biofair.cli import _page_warnings

    def code(*streams, tags=()):
        cell = nbformat.v4.new_code_cell("pass", metadata={"tags": list(tags)})
        cell.outputs = [nbformat.v4.new_output("stream", name=name, text=text) for name, text in streams]
        return cell

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title\n\n## Reading\n\n```bash\n# not a heading\n```"),
        code(("stdout", "UserWarning: printed, not warned\n"), ("stderr", "noise before any warning\n"),
             ("stderr", "InsufficientComparisonsWarning: target FMR 0.0001 is below 3/N\n"),
             ("stderr", "UserWarning: first line\nsecond line\n"),
             ("stderr", "InsufficientComparisonsWarning: target FMR 0.0001 is below 3/N\n")),
        code(("stderr", "PermutationNullWarning: hidden\n"), tags=["remove-cell"]),
        nbformat.v4.new_markdown_cell("Prose.\n\n### Fairness ###"),
        code(("stderr", "InsufficientComparisonsWarning: target FMR 0.0001 is below 3/N\n")),
        code(),
    ])
    assert _page_warnings(notebook) == [
        {"category": "InsufficientComparisonsWarning", "message": "target FMR 0.0001 is below 3/N", "section": "Reading",
         "cell": 1},
        {"category": "UserWarning", "message": "first line\nsecond line", "section": "Reading", "cell": 1},
        {"category": "InsufficientComparisonsWarning", "message": "target FMR 0.0001 is below 3/N",
         "section": "Fairness", "cell": 4},
    ]
