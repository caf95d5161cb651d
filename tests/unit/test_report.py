"""operating_report agrees with the individual metrics and is fast."""

from __future__ import annotations

import time

import numpy as np
import pytest
from scipy.stats import norm

import biofair as bf


def test_report_rows_equal_individual_metrics(scores):
    mated, nonmated = scores
    report = bf.operating_report(
        mated, nonmated, fmr_targets=[0.1, 0.01], pauc_bounds=[0.1, 0.01], min_fmr=0.01
    )
    value = report.set_index(["metric", "fmr"])["value"]
    nan = np.nan
    assert value[("roc_auc", nan)] == bf.roc_auc(mated, nonmated)
    for b in (0.1, 0.01):
        pauc = bf.partial_auc(mated, nonmated, max_fmr=b)
        assert value[("partial_auc", b)] == pauc
        assert value[("overstatement", b)] == bf.roc_auc(mated, nonmated) - pauc
        assert value[("tmr_at_fmr", b)] == bf.tmr_at_fmr(mated, nonmated, b)
        point = bf.operating_point(mated, nonmated, fmr=b)
        assert value[("fnmr_at_fmr", b)] == point.fnmr
        assert report.query("metric == 'tmr_at_fmr' and fmr == @b")["threshold"].item() == point.threshold
    assert value[("log_fmr_auc", 0.01)] == bf.log_fmr_auc(mated, nonmated, min_fmr=0.01)
    assert value[("min_dcf", nan)] == bf.min_dcf(mated, nonmated)
    assert value[("eer", nan)] == bf.eer(mated, nonmated).eer
    # Same formula; the report sums the sorted scores, so the last bits may differ.
    assert value[("decidability", nan)] == pytest.approx(bf.decidability(mated, nonmated), rel=1e-13)
    assert value[("pr_auc", nan)] == bf.pr_auc(mated, nonmated)
    assert value[("mated_nonmated_ratio", nan)] == mated.size / nonmated.size
    assert value[("n_mated", nan)] == mated.size
    assert value[("n_nonmated", nan)] == nonmated.size
    assert value[("fmr_resolution", nan)] == 1 / nonmated.size
    assert report["resolved"].all()
    assert list(report.columns) == ["metric", "fmr", "value", "threshold", "resolved"]


def test_report_on_millions_of_scores_takes_seconds():
    rng = np.random.default_rng(7)
    mated, nonmated = rng.normal(2, 1, 1_000_000), rng.normal(0, 1, 10_000_000)
    start = time.perf_counter()
    np.sort(np.concatenate([mated, nonmated]))
    floor = time.perf_counter() - start
    start = time.perf_counter()
    report = bf.operating_report(mated, nonmated)
    elapsed = time.perf_counter() - start
    # "a few seconds" on 2 cores; the ratio to one sort is the benchmark's business.
    assert elapsed < 10.0, f"operating_report took {elapsed:.1f} s (one sort: {floor:.2f} s)"
    assert report["resolved"].all()
    # Normal classes 2 standard deviations apart: AUC = Phi(2 / sqrt(2)).
    expected = norm.cdf(2 / np.sqrt(2))
    assert report.set_index("metric").loc["roc_auc", "value"] == pytest.approx(expected, abs=2e-3)
