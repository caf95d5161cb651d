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
    for name in ("np.sort (floor)", "operating_report", "fairness report, 8 groups",
                 "bootstrap TMR@1e-3, B=1000", "scikit-learn", "pyeer"):
        assert name in text
