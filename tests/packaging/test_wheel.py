"""The package as users install it: a wheel, installed non-editable into a fresh venv.

Builds the wheel from this checkout, checks what it holds, installs it (with the report
extra, versions pinned by requirements.txt) into a new virtual environment, imports every
module there with no source checkout on the path, and runs ``biofair report`` on the
example score file the wheel ships.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "notebooks" / "13_analyse_your_own_system.md"


def run(command, **options):
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, **options)
    assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Built from a copy of the checkout without build folders: pip builds in the source
    tree, and setuptools reuses a ``build/lib`` whose files look newer than the sources (a
    helper's copied tree shipped 20 stale modules that way)."""
    source = tmp_path_factory.mktemp("source") / "biofair"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "_build", "build", "*.egg-info",
                                                                "__pycache__", ".hypothesis"))
    dist = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "pip", "wheel", source, "--no-deps", "--quiet", "--wheel-dir", dist])
    (built,) = dist.glob("biofair-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel) -> Path:
    folder = tmp_path_factory.mktemp("venv") / "fresh"
    run([sys.executable, "-m", "venv", folder])
    # without PYTHONPATH: a checkout on it with a biofair.egg-info (left by a build in place) is an
    # installed biofair to pip, which then installed the dependencies only
    run([folder / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-compile", f"{wheel}[report]",
         "--constraint", ROOT / "requirements.txt"],
        env={key: value for key, value in os.environ.items() if not key.startswith("PYTHON")})
    return folder


def isolated_environment(home: Path, venv: Path) -> dict[str, str]:
    """No PYTHONPATH, a fresh HOME (no user Jupyter kernels or config), the venv first on PATH."""
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith(("PYTHON", "JUPYTER", "VIRTUAL_ENV"))}
    environment.update(HOME=str(home), PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
                       MPLBACKEND="Agg")
    return environment


def test_the_wheel_holds_every_module_and_the_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = {str(p.relative_to(ROOT)) for p in (ROOT / "biofair").rglob("*.py")}
    assert sources <= names, f"modules missing from the wheel: {sorted(sources - names)}"
    with zipfile.ZipFile(wheel) as archive:  # as they are now, not as some earlier build left them
        stale = sorted(name for name in sources if archive.read(name) != (ROOT / name).read_bytes())
    assert not stale, f"modules in the wheel that differ from the sources: {stale}"
    shipped = sorted(p for p in (ROOT / "biofair" / "data").iterdir() if p.is_file())
    assert {"example_scores.csv", "paper_values.csv", "differential_report.schema.json", "summary.schema.json"} <= {
        p.name for p in shipped}
    for data in ("biofair/py.typed", "biofair/report_template.md", "biofair/templates/report.html.j2",
                 "biofair/templates/stack_on_phone.css"):
        assert data in names, data
    with zipfile.ZipFile(wheel) as archive:
        # the template is a symlink in the source tree; the wheel holds the chapter itself
        assert archive.read("biofair/report_template.md") == CHAPTER.read_bytes()
        for path in shipped:  # every data file, byte for byte
            name = str(path.relative_to(ROOT))
            assert name in names, f"{name} is missing from the wheel"
            assert archive.read(name) == path.read_bytes(), name


def test_every_module_imports_from_the_installed_wheel(venv, tmp_path):
    check = """
import importlib, pkgutil, sys
import biofair
from biofair import partitions
modules = ["biofair"] + [m.name for m in pkgutil.walk_packages(biofair.__path__, "biofair.")]
for name in modules:
    importlib.import_module(name)
print(biofair.__file__)
print(len(modules))
print(biofair.datasets.example_scores_path())
"""
    result = run([venv / "bin" / "python", "-I", "-c", check], cwd=tmp_path,
                 env=isolated_environment(tmp_path, venv))
    location, n_modules, example = result.stdout.split()
    assert Path(location).is_relative_to(venv), location  # the installed copy, not the checkout
    assert not Path(location).is_relative_to(ROOT)
    assert int(n_modules) == len(list((ROOT / "biofair").rglob("*.py")))
    assert Path(example).is_relative_to(venv) and Path(example).is_file()


def test_biofair_report_runs_from_the_installed_wheel_on_the_shipped_example(venv, tmp_path):
    environment = isolated_environment(tmp_path, venv)
    python = venv / "bin" / "python"
    example = run([python, "-I", "-c", "import biofair; print(biofair.datasets.example_scores_path())"],
                  cwd=tmp_path, env=environment).stdout.strip()
    out = tmp_path / "report"
    result = run([venv / "bin" / "biofair", "report", example, "-o", out, "-n", "40", "--n-permutations", "10"],
                 cwd=tmp_path, env=environment)
    assert "wrote" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.ipynb", "summary.json"]
    summary = json.loads((out / "summary.json").read_text())
    metrics = {row["metric"] for row in summary["metrics"]}
    assert {"roc_auc", "tmr_at_fmr", "fdr", "cei_extreme_mated", "garbe_fmr"} <= metrics
    # the kernel ran the installed biofair: the notebook names no path of this checkout
    assert str(ROOT) not in (out / "report.ipynb").read_text()
