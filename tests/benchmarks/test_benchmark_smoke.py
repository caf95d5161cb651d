"""The benchmark script runs at small sizes and its agreement checks pass (CI smoke test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_benchmark_runs_and_agrees_with_peers(tmp_path):
    output = tmp_path / "results.md"
    run = subprocess.run(
        [sys.executable, ROOT / "benchmarks" / "run.py", "--sizes", "1e5,1e6", "--output", output],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    text = output.read_text()
    assert "Agreement checks: all passed" in text
    for name in ("np.sort (floor)", "operating_summary", "fairness report, 8 groups", "categorical labels",
                 "bootstrap TMR@1e-3, B=1000", "bootstrap TMR@1e-3, B=1000, BCa", "scikit-learn", "pyeer"):
        assert name in text


def test_identification_benchmark_runs_and_agrees_with_sorting(tmp_path):
    output = tmp_path / "results.md"
    output.write_text("# Benchmark results\n\nearlier table\n")
    run = subprocess.run(
        [sys.executable, ROOT / "benchmarks" / "identification.py", "--probes", "600", "--gallery", "3000",
         "--output", output],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    text = output.read_text()
    assert text.startswith("# Benchmark results\n\nearlier table\n")  # the section is added, not replacing
    assert "Agreement check (ranks of the first 64 probes against a sort per probe): passed" in text
    for name in ("score blocks only (floor)", "probe_outcomes_from_matrix", "CMC + C + FDR' at 3 targets"):
        assert name in text
