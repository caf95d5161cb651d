"""Invariants that every operating-point metric must satisfy, on generated inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import biofair as bf

# Small integer grids give many ties, the hard case for every threshold rule.
score_arrays = arrays(
    np.float64,
    st.integers(1, 40),
    elements=st.integers(-20, 20).map(float),
)
targets = st.sampled_from([1.0, 0.5, 0.25, 0.1, 0.05])

AREAS = {
    "roc_auc": lambda m, n: bf.roc_auc(m, n),
    "partial_auc": lambda m, n: bf.partial_auc(m, n, max_fmr=0.3),
    "partial_auc_std": lambda m, n: bf.partial_auc(m, n, max_fmr=0.3, standardized=True),
    "log_fmr_auc": lambda m, n: bf.log_fmr_auc(m, n, min_fmr=0.05),
    "pr_auc": lambda m, n: bf.pr_auc(m, n),
    "eer": lambda m, n: bf.eer(m, n).eer,
    "eer_midpoint": lambda m, n: bf.eer(m, n, method="midpoint").eer,
    "eer_interval": lambda m, n: bf.eer(m, n, method="interval").eer,
    "min_dcf": lambda m, n: bf.min_dcf(m, n, p_target=0.3),
}


@pytest.mark.parametrize("name", sorted(AREAS))
@given(mated=score_arrays, nonmated=score_arrays, seed=st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_invariant_to_order_and_monotone_transforms(name, mated, nonmated, seed):
    metric = AREAS[name]
    value = metric(mated, nonmated)
    rng = np.random.default_rng(seed)
    assert metric(rng.permutation(mated), rng.permutation(nonmated)) == value
    # A strictly increasing transform keeps every rank, so every rate and area.
    transformed = metric(np.exp(mated / 7.0) * 3 - 1, np.exp(nonmated / 7.0) * 3 - 1)
    assert transformed == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("name", sorted(AREAS))
@given(mated=score_arrays, nonmated=score_arrays)
@settings(max_examples=60, deadline=None)
def test_bounds(name, mated, nonmated):
    value = AREAS[name](mated, nonmated)
    assert 0.0 <= value <= 1.0 + 1e-12


@given(mated=score_arrays, nonmated=score_arrays)
@settings(max_examples=100, deadline=None)
def test_swapping_classes_mirrors_auc(mated, nonmated):
    # Negating all scores and swapping the classes gives the same ranking problem.
    assert bf.roc_auc(-nonmated, -mated) == pytest.approx(bf.roc_auc(mated, nonmated), abs=1e-12)
    assert bf.roc_auc(nonmated, mated) == pytest.approx(1 - bf.roc_auc(mated, nonmated), abs=1e-12)


@pytest.mark.filterwarnings("ignore::biofair.InsufficientComparisonsWarning")
@given(nonmated=score_arrays, target=targets)
@settings(max_examples=200, deadline=None)
def test_threshold_at_fmr_is_minimal_and_meets_target(nonmated, target):
    threshold = bf.threshold_at_fmr(nonmated, target)
    assert np.mean(nonmated >= threshold) <= target
    smaller = np.unique(nonmated)
    smaller = smaller[smaller < threshold]
    if smaller.size:  # the next achievable threshold below would exceed the target
        assert np.mean(nonmated >= smaller[-1]) > target


@given(mated=score_arrays, nonmated=score_arrays)
@settings(max_examples=100, deadline=None)
def test_curves_are_monotone_and_span_the_square(mated, nonmated):
    roc = bf.roc_curve(mated, nonmated)
    assert np.all(np.diff(roc.fmr) >= 0) and np.all(np.diff(roc.tmr) >= 0)
    assert (roc.fmr[0], roc.tmr[0], roc.fmr[-1], roc.tmr[-1]) == (0.0, 0.0, 1.0, 1.0)
    det = bf.det_curve(mated, nonmated)
    assert np.all(np.diff(det.fmr) <= 0) and np.all(np.diff(det.fnmr) >= 0)


@given(mated=score_arrays, nonmated=score_arrays)
@settings(max_examples=100, deadline=None)
def test_partial_auc_at_one_is_full_auc(mated, nonmated):
    assert bf.partial_auc(mated, nonmated, max_fmr=1.0) == pytest.approx(bf.roc_auc(mated, nonmated), abs=1e-12)
    assert bf.log_fmr_auc(mated, nonmated, min_fmr=0.5, max_fmr=1.0) <= 1.0 + 1e-12


@given(scores=score_arrays)
@settings(max_examples=50, deadline=None)
def test_identical_classes_are_chance(scores):
    assert bf.roc_auc(scores, scores) == 0.5
    assert bf.eer(scores, scores).eer == pytest.approx(0.5)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=2, max_size=40), st.integers(0, 2**32 - 1))
def test_lower_hull_ignores_repeated_points(points, seed):
    from biofair.equal_error_rate import _lower_hull

    x, y = np.array(points, dtype=np.float64).T / 20
    order = np.lexsort((-y, x))
    x, y = x[order], y[order]
    once = np.unique(np.stack([x, -y], axis=1), axis=0)  # the same order, each point once
    repeats = np.random.default_rng(seed).integers(1, 4, once.shape[0])
    twice = np.repeat(once, repeats, axis=0)
    hull_once = once[_lower_hull(once[:, 0], -once[:, 1])]
    hull_twice = twice[_lower_hull(twice[:, 0], -twice[:, 1])]
    np.testing.assert_array_equal(hull_once, hull_twice)
