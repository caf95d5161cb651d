"""A reader who copies the code they see, in order, can run it: visible cells alone execute.

Hidden cells (tagged ``remove-cell`` or ``remove-input``: the reader never sees their code)
may only format, glue or assert. This test drops them from each chapter, keeps every cell a
reader sees (the parameters cell and the exercise solutions included), and executes the rest
with papermill, as the Makefile does; any error (a NameError for a name that only a hidden
cell defines, say) fails it.

What is checked is that the code runs, not the chapter's numbers (nbval and the hidden asserts
of the executed chapters check those), so each chapter runs on small sizes injected after its
parameters cell, as a reader would set them to try the code quickly. The sizes keep every
visible assert meaningful (they are met at the small sizes too). Each chapter is its own test
(tests/conftest.py tells pytest-xdist to spread them, while the tests of any other file stay
together), so two workers share the chapters.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks").glob("*.md"))
HIDDEN = {"remove-cell", "remove-input"}
# Small sizes per chapter (file prefix), injected by papermill after the parameters cell; a
# chapter not listed runs with its own parameters.
SMALL = {
    "01": {"n_mated": 1_000, "n_nonmated": 50_000},
    "02": {"n_subjects": 100, "n_resamples": 100},
    "03": {"n_mated": 2_000, "n_nonmated": 100_000},
    # 04: its ledger asserts the paper's verdicts, which hold at the chapter's own sizes only.
    "05": {"n_mated": 2_000, "n_nonmated": 10_000, "n_permutations": 20},
    # 06: its exercise on the reference group needs the chapter's own subset sizes (and runs fast).
    # 40 resamples: the fewest that give 95% intervals a resample beyond each end.
    "07": {"n_enrolled": 200, "n_nonenrolled": 200, "n_resamples": 40, "n_permutations": 19},
    # 08: its exercise asserts that some, not all, paired intervals hold 0 (checked at the
    # chapter's seed with 40 resamples).
    "08": {"n_resamples": 40, "n_permutations": 10},
    "09": {"n_resamples": 40},
    "10": {"n_resamples": 100, "coverage_repeats": 50, "tail_repeats": 50},
    "13": {"n_resamples": 40, "n_permutations": 20},
    "14": {"n_rows": 200_000, "n_resamples": 40},
}


def hidden(cell) -> bool:
    return cell.cell_type == "code" and bool(HIDDEN & set(cell.metadata.get("tags", [])))


def visible_notebook(source: Path) -> nbformat.NotebookNode:
    notebook = jupytext.read(source)
    notebook.cells = [cell for cell in notebook.cells if not hidden(cell)]
    return notebook


def run(notebook: nbformat.NotebookNode, folder: Path, parameters: dict | None = None) -> subprocess.CompletedProcess:
    path = folder / "visible.ipynb"
    nbformat.write(notebook, path)
    papermill = Path(sys.executable).parent / "papermill"
    return subprocess.run(
        [papermill, path, folder / "executed.ipynb", "--cwd", ROOT / "notebooks", "--kernel", "python3",
         "--no-progress-bar", "--parameters_yaml", json.dumps(parameters or {})],
        capture_output=True, text=True,
    )


def test_chapters_use_only_tags_whose_visibility_is_known():
    """A new tag that hides code would escape this test: every tag must be one it knows."""
    shown = {"parameters", "exercise", "hide-input", "hide-output", "hide-cell", "remove-output", "remove-stderr",
             "stack-on-phone"}  # a table's layout on a phone (biofair/templates/stack_on_phone.css)
    for source in SOURCES:
        for cell in jupytext.read(source).cells:
            tags = set(cell.metadata.get("tags", []))
            assert tags <= HIDDEN | shown, (source.stem, tags - HIDDEN - shown)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_visible_cells_run_on_their_own(source, tmp_path):
    notebook = visible_notebook(source)
    parameters = next(cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", []))
    small = SMALL.get(source.stem[:2], {})
    assert all(re.search(rf"^{name} = ", parameters.source, re.MULTILINE) for name in small), (
        "every small size must replace a parameter the chapter has")
    result = run(notebook, tmp_path, small)
    assert result.returncode == 0, f"{source.stem}, visible cells only:\n{result.stderr[-3000:]}"
    if small:  # the small sizes were in force: papermill ran them right after the parameters cell
        executed = nbformat.read(tmp_path / "executed.ipynb", as_version=4)
        position = next(i for i, cell in enumerate(executed.cells) if "injected-parameters" in cell.metadata.get("tags", []))
        assert "parameters" in executed.cells[position - 1].metadata.get("tags", [])
        assert all(f"{name} = {value!r}" in executed.cells[position].source for name, value in small.items())


def test_a_name_defined_only_in_a_hidden_cell_fails_the_check(tmp_path):
    """The check itself: a visible cell that needs a hidden cell's name does not run alone."""
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("seed = 1", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("rng = seed + 1", metadata={"tags": ["remove-cell"]}),
        nbformat.v4.new_code_cell("rng * 2"),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "source.md"
    jupytext.write(notebook, path, fmt="md:myst")
    result = run(visible_notebook(path), tmp_path)
    assert result.returncode != 0 and "NameError" in result.stderr
