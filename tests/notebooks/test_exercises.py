"""Every chapter ends with exercises whose solutions run, and a wrong solution stops the build."""

from __future__ import annotations

import ast
import os
import re
import subprocess
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks").glob("*.md"))
REPORT_TEMPLATE = ROOT / "notebooks" / "13_analyse_your_own_system.md"


def exercise_cells(source: Path) -> list:
    """The cells from the chapter's "## Exercises" heading to the closing versions cell."""
    cells = jupytext.read(source).cells
    start = next(i for i, cell in enumerate(cells) if cell.source.startswith("## Exercises")
                 or "\n## Exercises" in cell.source)
    assert "bf.show_versions()" in cells[-1].source, f"{source.stem}: the versions cell closes the chapter"
    return cells[start:-1]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_chapter_ends_with_two_to_four_exercises_and_checked_solutions(source):
    cells = exercise_cells(source)
    text = "\n".join(cell.source for cell in cells)
    exercises = re.findall(r":::\{exercise\}\n:label: (\S+)", text)
    assert 2 <= len(exercises) <= 4, f"{source.stem}: {len(exercises)} exercises"
    assert all(label.startswith(f"ex-{source.stem[:2]}-") for label in exercises), exercises
    # each solution is a collapsed gated block for its own exercise, holding asserting code
    blocks = re.findall(r":::\{solution-start\} (\S+)\n:class: dropdown\n:::(.*?):::\{solution-end\}", text, re.S)
    assert [label for label, _ in blocks] == exercises
    for label in exercises:
        start = next(i for i, cell in enumerate(cells) if f"{{solution-start}} {label}\n" in cell.source)
        end = next(i for i in range(start + 1, len(cells)) if "{solution-end}" in cells[i].source)
        code = [cell.source for cell in cells[start + 1 : end] if cell.cell_type == "code"]
        assert sum(checks(c) for c in code), f"{label}: the solution asserts nothing"


def checks(code: str) -> int:
    """The checks a piece of code makes: ``assert`` statements and calls of ``assert_*``
    functions (``np.testing.assert_allclose``); an "assert" in a comment or a string is none."""
    def name(call: ast.Call) -> str:
        return getattr(call.func, "attr", getattr(call.func, "id", ""))

    return sum(isinstance(node, ast.Assert) or isinstance(node, ast.Call) and name(node).startswith("assert")
               for node in ast.walk(ast.parse(code)))


def test_a_check_is_a_statement_not_a_word():
    assert checks("usa = None  # assert usa") == 0 and checks("'assert x'") == 0
    assert checks("assert x == 1") == 1 and checks("np.testing.assert_allclose(a, b)") == 1


def test_report_template_tags_every_exercise_cell():
    """`biofair report` drops cells tagged "exercise": the whole section must carry the tag."""
    for cell in exercise_cells(REPORT_TEMPLATE):
        assert "exercise" in cell.metadata.get("tags", []), cell.source[:80]


def test_a_wrong_solution_fails_the_build(tmp_path):
    """Break one solution's assertion and run the Makefile's own rule on the chapter."""
    for name in ("Makefile", "requirements.txt", "requirements-nodeps.txt", "pyproject.toml", ".venv", "biofair", "data"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "notebooks").mkdir()
    chapter = "01_compute_error_rates"
    text = (ROOT / "notebooks" / f"{chapter}.md").read_text()
    correct = "assert answer.fmr[0] == 2 / 5"
    assert correct in text
    (tmp_path / "notebooks" / f"{chapter}.md").write_text(text.replace(correct, "assert answer.fmr[0] == 3 / 5"))
    run = subprocess.run(
        ["make", "--no-print-directory", f"book/chapters/{chapter}.ipynb"],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "MAKEFLAGS": ""},
    )
    assert run.returncode != 0
    assert "AssertionError" in run.stdout + run.stderr
    assert "answer.fmr[0] == 3 / 5" in run.stdout + run.stderr
    assert not (tmp_path / "book" / "chapters" / f"{chapter}.ipynb").exists()
