"""Curves and areas against scikit-learn on random data with and without heavy ties."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics

import biofair as bf


def labelled(mated, nonmated):
    y = np.concatenate([np.ones(mated.size), np.zeros(nonmated.size)])
    return y, np.concatenate([mated, nonmated])


def test_roc_curve_equals_sklearn(scores):
    mated, nonmated = scores
    fpr, tpr, thr = metrics.roc_curve(*labelled(mated, nonmated), drop_intermediate=False)
    curve = bf.roc_curve(mated, nonmated)
    np.testing.assert_array_equal(curve.fmr, fpr)
    np.testing.assert_array_equal(curve.tmr, tpr)
    # scikit-learn's first threshold is +inf; ours is the next float above the maximum.
    np.testing.assert_array_equal(curve.thresholds[1:], thr[1:])
    assert curve.thresholds[0] == np.nextafter(max(mated.max(), nonmated.max()), np.inf)


def test_det_curve_contains_sklearn_points(scores):
    mated, nonmated = scores
    fpr, fnr, thr = metrics.det_curve(*labelled(mated, nonmated))
    curve = bf.det_curve(mated, nonmated)
    at = np.searchsorted(curve.thresholds, thr)
    np.testing.assert_array_equal(curve.thresholds[at], thr)
    np.testing.assert_allclose(curve.fmr[at], fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(curve.fnmr[at], fnr, rtol=0, atol=1e-15)


def test_roc_auc_equals_sklearn(scores):
    mated, nonmated = scores
    expected = metrics.roc_auc_score(*labelled(mated, nonmated))
    assert bf.roc_auc(mated, nonmated) == pytest.approx(expected, abs=1e-12)


def test_roc_auc_equals_mann_whitney(scores):
    mated, nonmated = scores
    wins = (mated[:, None] > nonmated[None, :]).sum() + 0.5 * (mated[:, None] == nonmated[None, :]).sum()
    assert bf.roc_auc(mated, nonmated) == pytest.approx(wins / (mated.size * nonmated.size), abs=1e-12)


@pytest.mark.parametrize("bound", [1.0, 0.3, 0.1, 0.01, 0.002])
def test_partial_auc_standardized_equals_sklearn(scores, bound):
    mated, nonmated = scores
    y, s = labelled(mated, nonmated)
    expected = metrics.roc_auc_score(y, s) if bound == 1.0 else metrics.roc_auc_score(y, s, max_fpr=bound)
    got = bf.partial_auc(mated, nonmated, max_fmr=bound, standardized=True)
    assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("bound", [0.3, 0.1, 0.01, 0.002])
def test_partial_auc_normalised_inverts_mcclish(scores, bound):
    mated, nonmated = scores
    standardized = metrics.roc_auc_score(*labelled(mated, nonmated), max_fpr=bound)
    min_area, max_area = bound**2 / 2, bound
    raw_area = min_area + (2 * standardized - 1) * (max_area - min_area)
    got = bf.partial_auc(mated, nonmated, max_fmr=bound)
    assert got == pytest.approx(raw_area / bound, abs=1e-11)


def test_pr_auc_equals_average_precision(scores):
    mated, nonmated = scores
    expected = metrics.average_precision_score(*labelled(mated, nonmated))
    assert bf.pr_auc(mated, nonmated) == pytest.approx(expected, abs=1e-12)
