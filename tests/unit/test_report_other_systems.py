"""`biofair report` (chapter 13) on well-formed systems unlike the shipped example: the prose
must stay true of them, and the chapter, exercises included, must run on them.

Each case read false or failed before the chapter glued its wording: identical groups named
one target for an FDR that every target shares; a lowest FDR at a target the data do not
resolve was quoted as a number; a group whose scores one threshold separates has no DET curve,
only a corner dot, which the page did not mention; and the distance exercise asserted that
`1 - score` changes no number (decidability, DFI and CEI read the rounded values) and that
it changes Cllr (0 either way when the classes lie far apart).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import numpy as np
import pandas as pd

import biofair as bf

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "notebooks" / "13_analyse_your_own_system.md"
FAST = ["-n", "40", "--n-permutations", "10", "--seed", "3"]


def subjects_table(groups: dict, *, mated_per: int = 5, nonmated_per: int = 40, seed: int = 0) -> pd.DataFrame:
    """Per group ``(subjects, mated mean, non-mated mean)``, unit variance; non-mated pairs within groups."""
    rng = np.random.default_rng(seed)
    rows = []
    for group, (n, mated_mean, nonmated_mean) in groups.items():
        for i in range(n):
            subject = f"{group}{i:02d}"
            rows += [(subject, subject, group, rng.normal(mated_mean, 1), True) for _ in range(mated_per)]
            rows += [(subject, f"{group}{(i + 1 + j % (n - 1)) % n:02d}", group, rng.normal(nonmated_mean, 1), False)
                     for j in range(nonmated_per)]
    table = pd.DataFrame(rows, columns=["reference_subject", "probe_subject", "group", "score", "mated"])
    return table.assign(score=table["score"].round(4))


def report_text(table: pd.DataFrame, folder: Path) -> str:
    """The report's HTML of ``table``, its white space collapsed."""
    table.to_csv(folder / "scores.csv", index=False)
    command = [str(Path(sys.executable).with_name("biofair")), "report", str(folder / "scores.csv"),
               "-o", str(folder / "out"), *FAST]
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    return " ".join((folder / "out" / "report.html").read_text().split())


def test_identical_groups_have_the_lowest_fdr_at_every_target(tmp_path):
    """FDR is 1 at every target: the report named the first target alone."""
    example = pd.read_csv(bf.datasets.example_scores_path())
    first = example[example["group"] == "A"]
    twins = pd.concat([first, first.assign(group="A2", reference_subject=first["reference_subject"] + "'",
                                           probe_subject=first["probe_subject"] + "'")])
    text = report_text(twins, tmp_path)
    assert "The lowest FDR, 1.0000, comes at the threshold for FMR = 1e-1, and the same at FMR = 1e-2 and 1e-3." in text


def test_a_lowest_fdr_at_an_unresolved_target_is_not_read_as_a_number(tmp_path):
    """1,000 pooled non-mated scores do not resolve FMR = 1e-3, where the FNMR gap is widest."""
    rng = np.random.default_rng(5)
    table = pd.concat([pd.DataFrame({"score": np.r_[rng.normal(mated_mean, 1, 200), rng.normal(0, 1, 500)].round(4),
                                     "mated": np.repeat([True, False], [200, 500]), "group": group})
                       for group, mated_mean in (("A", 4.0), ("B", 3.0))])
    text = report_text(table, tmp_path)
    assert ('comes at the threshold for FMR = 1e-3, a target the data do not resolve: read it as '
            '"the data cannot tell".') in text


def test_a_group_whose_scores_do_not_overlap_is_named_as_the_corner_dot(tmp_path):
    """Group A's mated scores all lie above its non-mated ones: its DET curve is a dot."""
    table = subjects_table({"A": (20, 12.0, 0.0), "B": (20, 3.0, 0.0)})
    text = report_text(table, tmp_path)
    assert "its curve is a dot in the lower-left corner (here A)." in text


def test_the_chapter_and_its_exercises_run_on_scores_far_apart(tmp_path):
    """Scores at about ±60: in the distance exercise, `1 - score`, rounded, moved the non-mated
    CEI (its assert that no number changes failed), and Cllr was 0 before and after, which the
    exercise asserted could not be."""
    table = subjects_table({"A": (20, 60.0, -60.0), "B": (20, 62.0, -61.0)}, seed=42)
    table.to_csv(tmp_path / "scores.csv", index=False)
    notebook = jupytext.read(CHAPTER)
    nbformat.write(notebook, tmp_path / "chapter.ipynb")
    parameters = {"scores_path": str(tmp_path / "scores.csv"), "n_resamples": 40, "n_permutations": 20}
    papermill = Path(sys.executable).parent / "papermill"
    run = subprocess.run(
        [papermill, tmp_path / "chapter.ipynb", tmp_path / "executed.ipynb", "--cwd", ROOT / "notebooks",
         "--kernel", "python3", "--no-progress-bar", "--parameters_yaml", json.dumps(parameters)],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    executed = (tmp_path / "executed.ipynb").read_text()
    assert "here A and B, one dot over another" in executed


def test_a_null_of_labels_given_per_side_says_its_groups_keep_fewer_impostor_pairs(tmp_path):
    """Labels per side (reference_group, probe_group), every non-mated pair within its group: the
    subject shuffle turns the pairs whose two subjects draw different labels cross-group, and the
    non-mated nulls compare smaller groups than the file's. The page read such a null as any other
    (on VoxCeleb1-H by nationality: non-mated CEI 0.343, its null mean 0.018, p = 1)."""
    table = subjects_table({"A": (20, 3.0, 0.0), "B": (20, 3.5, 0.5)})
    per_side = table.rename(columns={"group": "reference_group"}).assign(probe_group=lambda t: t["reference_group"])
    text = report_text(per_side, tmp_path)
    match = re.search(r"Shuffled, about (\d+)% of the non-mated comparisons stay within groups, against 100% in the "
                      r"file, so the nulls of the indices that read non-mated scores", text)
    assert match is not None, text[text.find("permutation"):][:2000]
    assert 35 <= int(match.group(1)) <= 65  # two groups of 20 subjects: about half the pairs stay
    assert "p = " in text[match.end():][:600]
    # the share is the package's, over the null's own shuffles (the page dealt labels out 20 times of its own),
    # as the null rows' settings give it and the package's warning says it
    shares = set(re.findall(r"nonmated_within=\(table: 1, shuffled: (0\.\d+)\)", text))
    assert len(shares) == 1 and f"{float(shares.pop()):.0%}" == f"{match.group(1)}%"
    assert "PermutationNullWarning: the shuffles of the labels leave" in text
    (tmp_path / "pair-level").mkdir()
    pair_level = report_text(table, tmp_path / "pair-level")  # one label per comparison: no such sentence
    assert "stay within groups" not in pair_level
