"""Messages of ``bf.paired_bootstrap`` at numerical edges: an error names what is wrong."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import biofair as bf


def test_a_paired_difference_beyond_the_largest_float_is_named():
    """m(A) = 1.5e308 and m(B) = -1e308 are finite, their difference 2.5e308 is not: the
    message said "the statistic is infinite on 40 of 40 resamples", which it is on none."""
    a = (np.array([1e308, 1.5e308, 1.2e308]), np.array([0.0, 1.0]))
    b = (np.array([-1e308, -1.5e308, -1.2e308]), np.array([0.0, 1.0]))
    assert math.isinf(1.5e308 - -1e308)
    with pytest.raises(ValueError, match=r"^the difference m\(A\) - m\(B\) = 1\.5e\+308 - -1e\+308 is beyond the "
                                         r"largest float \(±1\.8e\+308\)"):
        bf.paired_bootstrap(lambda m, n: float(np.max(m)), a, b, n_resamples=40, rng=0)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_a_confidence_given_as_a_fraction_is_the_number_it_names(method):
    """confidence=Fraction(19, 20), a real number the check accepted, reached NumPy as an object
    array: "ufunc 'isnan' not supported for the input types" (ndtri for BCa). It is 0.95, and
    gives 0.95's interval; an n_resamples of a NumPy integer type comes back as an int."""
    table = bf.synthetic.gaussian_scores(n_mated=50, n_nonmated=200, rng=0)
    b = table.assign(score=table["score"] * 0.5 + 0.3 * table["mated"])
    for run in (lambda **kw: bf.bootstrap(bf.roc_auc, table, method=method, rng=0, **kw),
                lambda **kw: bf.paired_bootstrap(bf.roc_auc, table, b, method=method, rng=0, **kw)):
        expected = run(confidence=0.95, n_resamples=100)
        got = run(confidence=Fraction(19, 20), n_resamples=np.uint8(100))
        assert (got.low, got.high) == (expected.low, expected.high)
        assert type(got.confidence) is float and got.confidence == 0.95
        assert type(got.n_resamples) is int and got.n_resamples == 100


def test_a_complex_statistic_is_refused_not_cut_to_its_real_part():
    """A statistic that returns a NumPy complex number (here 0.5 + 0.25j) was read by float():
    its imaginary part dropped, with one ComplexWarning, and an interval of real parts came
    back. It is no real number: a TypeError, as for text, for both resamplers."""
    table = bf.synthetic.gaussian_scores(n_mated=30, n_nonmated=60, rng=0).assign(group=lambda t: ["a", "b"] * 45)

    def complex_auc(mated, nonmated):
        return np.complex128(bf.roc_auc(mated, nonmated) + 0.25j)

    message = r"^the statistic must return a number, got complex128: wrap it to pick one"
    with pytest.raises(TypeError, match=message):
        bf.bootstrap(complex_auc, table, n_resamples=40, rng=0)
    with pytest.raises(TypeError, match=message):
        bf.permutation_null(lambda t: np.complex128(0.5 + 0.25j), table, n_permutations=20, rng=0)


@pytest.mark.parametrize("unit", [None, "pair", "subject"])
def test_a_cluster_given_with_arrays_is_refused_by_name(unit):
    """Was: cluster='subjet' (a misspelling) with (mated, nonmated) arrays went unread, and the
    bootstrap resampled comparisons without a word (a table refuses a name it lacks)."""
    rng = np.random.default_rng(0)
    scores = (rng.normal(2, 1, 50), rng.normal(0, 1, 200))
    message = ("cluster='subjet' names a column of a score table, but the scores are (mated, nonmated) arrays, which "
               "hold no subject ids: give the table to resample its subjects (unit='subject'), or leave cluster out")
    with pytest.raises(ValueError) as refused:
        bf.bootstrap(bf.roc_auc, scores, n_resamples=40, rng=0, unit=unit, cluster="subjet")
    assert str(refused.value) == message
    with pytest.raises(ValueError) as refused:
        bf.paired_bootstrap(bf.roc_auc, scores, (scores[0] + 0.1, scores[1]), n_resamples=40, rng=0, unit=unit,
                            cluster="subjet")
    assert str(refused.value) == message
    if unit != "subject":  # the default column, named or not, is the default: arrays resample comparisons
        named = bf.bootstrap(bf.roc_auc, scores, n_resamples=40, rng=0, unit=unit, cluster="reference_subject")
        default = bf.bootstrap(bf.roc_auc, scores, n_resamples=40, rng=0, unit=unit)
        np.testing.assert_array_equal(named.replicates, default.replicates)
        assert named.unit == default.unit == "pair"
