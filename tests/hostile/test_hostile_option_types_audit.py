"""Number options given as another type of the same number, found by an audit: each call gives
exactly the result of the plain float or int call, or a TypeError or ValueError naming the
option. The defect class: a check whose result (the option as a Python float or int) was
dropped, the function computing on with the option as given, in float32, long double, Fraction
or NumPy-integer arithmetic."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import biofair as bf

#: The same numbers in other types: exact conversions of a float64 (float32 values are given
#: as the float64 of a float32, so that every type holds the same number).
OTHER_TYPES = [np.float32, np.longdouble, Fraction]


def same_number(value: float, kind: type) -> tuple[float, object]:
    """``value`` as a float64 that ``kind`` holds exactly, and as that ``kind``."""
    plain = float(np.float32(value)) if kind is np.float32 else value
    return plain, kind(plain)


@pytest.mark.parametrize("kind", OTHER_TYPES)
@pytest.mark.parametrize("option", ["p_target", "c_miss", "c_fa"])
def test_actual_dcf_costs_with_the_checked_prior_and_costs(option, kind):
    """The prior and costs were checked, then the normalised cost was computed with them as
    given, in float32 or long double arithmetic: p_target=np.float32(0.3) gave 0.4949494548116886
    where the same number as a float gives 0.4949494668530305, and each option as a long double
    0.49494949494949486 for 0.4949494949494948; also in calibration_by_group's actual_dcf
    column."""
    mated, nonmated = [0.7, 0.6, 1.1], [0.5, 0.3, -0.2]
    options = {"p_target": 0.3, "c_miss": 1.1, "c_fa": 0.7}
    plain, given = same_number(options[option], kind)
    expected = bf.actual_dcf(mated, nonmated, **{**options, option: plain})
    found = bf.actual_dcf(mated, nonmated, **{**options, option: given})
    assert type(found) is float and found == expected
    table = bf.synthetic.gaussian_scores(n_mated=3, n_nonmated=3, rng=0).assign(group="a")
    table.loc[:2, "score"], table.loc[3:, "score"] = mated, nonmated
    table = pd.concat([table, table.assign(group="b", score=table["score"] / 2)], ignore_index=True)
    pd.testing.assert_frame_equal(bf.calibration_by_group(table, **{**options, option: given}),
                                  bf.calibration_by_group(table, **{**options, option: plain}), check_exact=True)


@pytest.mark.parametrize("option", ["min_mated", "min_nonmated", "min_subjects"])
@pytest.mark.parametrize(("value", "error", "message"), [
    (float("nan"), TypeError, "must be an integer, got nan"),
    (None, TypeError, "must be an integer, got None"),
    (True, TypeError, "must be an integer, got True"),
    ("100", TypeError, "must be an integer, got '100'"),
    (2.5, TypeError, "must be an integer, got 2.5"),
    (-1, ValueError, "must be at least 0, got -1"),
])
def test_group_sizes_checks_its_minimum_sizes(option, value, error, message):
    """The minimum sizes were not checked at all: NaN flagged no group small (every comparison
    with NaN is False), True counted as 1, None (with one of the other two flagging a group)
    passed unread, and '100' failed inside pandas ("Invalid comparison between dtype=int64 and
    str")."""
    table = bf.synthetic.demographic_scores(rng=0)
    with pytest.raises(error, match=f"^{option} {message}$"):
        bf.group_sizes(table, **{option: value})


@pytest.mark.parametrize("kind", [np.int64, np.uint8, int])
def test_group_sizes_reads_numpy_integers_as_their_numbers(kind):
    table = bf.synthetic.demographic_scores(rng=0)
    sizes = {"min_mated": 100, "min_nonmated": 200, "min_subjects": 10}
    expected = bf.group_sizes(table, **sizes)
    assert expected["small"].tolist() == [False, False, True, False]  # the group of 9 subjects
    pd.testing.assert_frame_equal(bf.group_sizes(table, **{k: kind(v) for k, v in sizes.items()}), expected,
                                  check_exact=True)


def beta_bc(strength=0.7, n_groups=3):
    return bf.synthetic.beta_scenario("BC", strength=strength, n_groups=n_groups, n_mated=200, n_nonmated=200, rng=0)


def gaussian(tail_mean=2.7):
    return bf.synthetic.gaussian_scores(n_mated=20, n_nonmated=200, tail_share=0.5, tail_mean=tail_mean, rng=0)


def demographic(first=(10, 2.3, 0.3)):
    return bf.synthetic.demographic_scores(groups={"a": first, "b": (10, 1.7, -0.1)}, mated_per_subject=2,
                                           nonmated_per_subject=3, rng=0)


@pytest.mark.parametrize("kind", OTHER_TYPES)
@pytest.mark.parametrize(("draw", "value"), [
    (lambda strength: beta_bc(strength=strength), 0.7),
    (lambda mean: gaussian(tail_mean=mean), 2.7),
    (lambda mean: demographic(first=(10, mean, 0.3)), 2.3),
    (lambda mean: demographic(first=(10, 2.3, mean)), 0.3),
], ids=["beta_scenario strength", "gaussian_scores tail_mean", "demographic_scores mated mean",
        "demographic_scores non-mated mean"])
def test_synthetic_scores_draw_with_the_checked_numbers(draw, value, kind):
    """The options were checked, then used as given: BC's strength shifted the scores in float32
    (other scores than the float) or long double (a float128 score column);
    gaussian_scores' tail_mean as a Fraction or long double failed inside NumPy ("Cannot cast
    array data from dtype('O') to dtype('float64')"); a group's mean in demographic_scores as a
    Fraction failed the same way ("ufunc 'isfinite' not supported") and as a long double made
    a float128 score column."""
    plain, given = same_number(value, kind)
    pd.testing.assert_frame_equal(draw(given), draw(plain), check_exact=True)


def two_groups(subjects):
    return bf.synthetic.demographic_scores(groups={"a": (subjects, 2.3, 0.3), "b": (subjects, 1.7, -0.1)},
                                           mated_per_subject=1, nonmated_per_subject=1, rng=0)


@pytest.mark.parametrize("kind", [np.uint8, np.int8, np.int64])
@pytest.mark.parametrize(("draw", "value"), [(lambda n: beta_bc(n_groups=n), 3), (two_groups, 120)],
                         ids=["beta_scenario n_groups", "demographic_scores subjects"])
def test_synthetic_counts_as_numpy_integers(draw, value, kind):
    """n_groups and a group's subjects were checked, then used as given: n_groups as np.uint8 or
    np.int8 failed in the size check with 400 scores per group ("Python integer 400 out of
    bounds for uint8"; 4 groups of 200 wrapped around to 32 scores there, with a warning), and
    subjects as np.uint8 made the numbers of the subjects' ids floats (uint64 against int64):
    "Unknown format code 'd' for object of type 'float'"."""
    pd.testing.assert_frame_equal(draw(kind(value)), draw(value), check_exact=True)


#: 10,005 scores: a tenth of them is 1,000.5, whose rounding depends on the last digit.
TAIL_SCORES = np.random.default_rng(0).normal(size=10_005)


@pytest.mark.parametrize("kind", OTHER_TYPES)
@pytest.mark.parametrize("fit", [
    lambda fraction: bf.extrapolated_fmr(TAIL_SCORES, 3.0, tail_fraction=fraction),
    lambda fraction: bf.extrapolated_threshold(TAIL_SCORES, 1e-4, tail_fraction=fraction),
    lambda fraction: bf.subsample_coverage(TAIL_SCORES, 2.5, fraction=fraction, n_repeats=1, rng=0),
], ids=["extrapolated_fmr", "extrapolated_threshold", "subsample_coverage"])
def test_tail_sizes_are_rounded_from_the_checked_fraction(fit, kind):
    """The fraction was checked, then multiplied by the number of scores as given: 0.1 of 10,005
    scores is 1,000.5 in float64, rounded to 1,000, but 1,000.50000000000005 as a long double
    or Fraction of the same number (rounded to 1,001), and 1,000.5000149 as the float64 of
    np.float32(0.1) where float32 arithmetic gave 1,000.5 (1,000): another tail, another
    estimate; and subsample_coverage's fraction drew subsets of 1,001 or 1,000 scores alike."""
    plain, given = same_number(0.1, kind)
    expected, found = fit(plain), fit(given)
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(found, expected, check_exact=True)
    else:
        assert found == expected
        assert all(type(a) is type(b) for a, b in zip(found, expected))


@pytest.mark.parametrize("kind", OTHER_TYPES)
def test_fairness_summary_bootstraps_at_the_checked_confidence(kind):
    """The confidence went to the bootstraps as given: a Fraction failed inside np.percentile
    ("ufunc 'isnan' not supported"), and np.float32(0.9) moved the low ends of the intervals
    from those of the same number as a float (a long double can too). (biofair.bootstrap read
    it as given too: tests/oracle/test_bootstrap_edges_audit.py.)"""
    table = bf.synthetic.demographic_scores(groups={"a": (12, 3.0, 0.0), "b": (12, 2.5, 0.2)}, rng=0)
    plain, given = same_number(0.9, kind)

    def summary(confidence):
        return bf.fairness_summary(table, fmr_targets=[0.1], n_resamples=20, n_permutations=2, confidence=confidence,
                                   rng=0, progress_bar=False)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pd.testing.assert_frame_equal(summary(given), summary(plain), check_exact=True)


@pytest.mark.parametrize("kind", [np.uint8, np.int16, np.int64])
def test_probe_outcomes_from_matrix_counts_blocks_in_python_integers(kind):
    """block_size was checked to be an integer, then added to the block's start as given: as
    np.uint8(200), the second block of 300 probes ended at 200 + 200 = 400 wrapped to 144
    (SchemaError "block 200:144 has shape (0, 300), expected (200, 300)")."""
    n = 300
    matrix = np.random.default_rng(0).random((n, n))
    search = {"probe_subjects": np.arange(n), "gallery_subjects": np.arange(n), "probe_groups": np.arange(n) % 2}
    pd.testing.assert_frame_equal(bf.probe_outcomes_from_matrix(matrix, block_size=kind(200), **search),
                                  bf.probe_outcomes_from_matrix(matrix, block_size=200, **search), check_exact=True)


@pytest.mark.parametrize("kind", OTHER_TYPES)
@pytest.mark.parametrize(("option", "value"), [("tail_weight", 0.7), ("smoothing", 0.003), ("percentile", 90.0)])
def test_out_of_core_cei_reads_the_checked_options(option, value, kind):
    """The out-of-core CEI passed tail_weight and smoothing as given (the in-memory one reads
    the checked floats): tail_weight=Fraction(0.7) made the divergences Python objects, a long
    double changed ``extreme``, and smoothing=Fraction(0.003) failed in np.log2 ("loop of ufunc
    does not support argument 0 of type float which has no callable log2 method")."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    from biofair import partitions as bp

    table = bf.synthetic.demographic_scores(rng=0)
    plain, given = same_number(value, kind)

    def index(number):
        with dask.config.set(scheduler="synchronous"):
            return bp.comprehensive_equity_index(dd.from_pandas(table, npartitions=2), mean_tail="split_mean",
                                                 **{option: number})

    found, expected = index(given), index(plain)
    pd.testing.assert_series_equal(found.divergences, expected.divergences, check_exact=True)
    assert found.extreme == expected.extreme and found.normal == expected.normal
    assert found.parameters == expected.parameters
