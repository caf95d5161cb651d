"""Edge numerics of biofair.partitions against independent computations (exact fractions,
brute-force loops) and the in-memory functions: bounds that must hold, exact values that
must be equal, at the edges of the options' intervals and of floating point."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import biofair as bf

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
from biofair import partitions as bp  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize("max_fmr", [2.0**-1022, 1e-307, 1e-306, 1e-300])
@pytest.mark.parametrize("standardized", [False, True])
def test_partial_auc_bounds_hold_the_area_at_the_smallest_bounds_allowed(max_fmr, standardized):
    """One mated score of 1,000 above every non-mated one: TMR is 1/1000 all along FMR in
    [0, 1/500), so the mean TMR below any smaller bound is exactly 1/1000. The bounds were
    summed as areas (span x TMR, about 1e-309 at max_fmr=1e-306: subnormal, a few bits
    short) and then divided by max_fmr: [0.0010000000000000009, 0.0010000000000000026]."""
    mated = np.concatenate([[10.0], np.linspace(0.0, 1.0, 999)])
    nonmated = np.linspace(-1.0, 2.0, 500)
    scores = pd.DataFrame({"score": np.concatenate([mated, nonmated]),
                           "mated": np.arange(1_500) < 1_000})
    mean = Fraction(1, 1_000)
    b = Fraction(max_fmr)
    exact = float((1 + (mean - b / 2) / (1 - b / 2)) / 2) if standardized else float(mean)
    found = bp.partial_auc(dd.from_pandas(scores, npartitions=2), max_fmr, standardized=standardized, bins=64)
    assert found.low <= exact <= found.high
    assert found.low <= bf.partial_auc(mated, nonmated, max_fmr, standardized=standardized) <= found.high


def subnormal_multiples(*, spread: float, n: int = 600) -> pd.DataFrame:
    """Three groups of scores that are whole multiples of the smallest subnormal (-5 ... 9 of
    them at ``spread=2``)."""
    rng = np.random.default_rng(5)
    group = np.arange(n) % 3
    mated = (np.arange(n) // 3) % 4 == 0
    steps = np.round(spread * rng.normal(np.where(mated, 1.5, 0.0) + 0.3 * group, 1.0))
    return pd.DataFrame({"score": steps * 5e-324, "mated": mated, "group": np.array(["a", "b", "c"])[group]})


def test_bins_of_edges_of_unequal_widths_follow_the_edges():
    """14 subnormal steps cut into 10 bins: NumPy's edges are -5, -4, ..., 4, 9 steps (the
    widths round to 1 step, the last takes 5). The arithmetic bin was corrected by one bin at
    most, and a score 5 steps up landed in bin 8 where it lies in bin 9: 62 scores in bin 3
    where np.histogram counts 16."""
    from biofair.distribution_fairness import _range_edges
    from biofair.partitions._order_statistics import bins_of

    steps = np.arange(-5, 10)
    edges = _range_edges(-5 * 5e-324, 9 * 5e-324, 10)
    expected = [int(np.sum((edges[:-1] <= s) & ((s < edges[1:]) | (np.arange(10) == 9)))) for s in steps * 5e-324]
    assert expected == [1] * 15  # every score in exactly one bin (a brute-force check, not np.histogram)
    looped = [int(np.flatnonzero((edges[:-1] <= s) & ((s < edges[1:]) | (np.arange(10) == 9)))[0])
              for s in steps * 5e-324]
    assert bins_of(steps * 5e-324, edges).tolist() == looped


@pytest.mark.parametrize(("spread", "kind", "bins"), [(2, "dfi", 10), (10, "nonmated", 10), (10, "mated", 30)])
def test_indices_of_subnormal_scores_equal_memory(spread, kind, bins):
    """DFI of scores a few subnormal steps apart: {'a': 0.0633, 'b': 0.0133, 'c': 0.0687} out
    of core, {'a': 0.0780, 'b': 0.0126, 'c': 0.0988} in memory (np.histogram on the same edges,
    whose binning the test above checks by a loop); CEI's tails and centres likewise."""
    scores = subnormal_multiples(spread=spread)
    data = dd.from_pandas(scores, npartitions=4)
    if kind == "dfi":
        found, expected = bp.distribution_fairness_index(data, bins=bins), bf.distribution_fairness_index(scores, bins=bins)
    else:
        found = bp.comprehensive_equity_index(data, kind=kind, bins=bins, percentile=80.0)
        expected = bf.comprehensive_equity_index(scores, kind=kind, bins=bins, percentile=80.0)
    assert found.divergences.equals(expected.divergences)


@pytest.mark.filterwarnings("ignore::biofair.InsufficientComparisonsWarning")
@pytest.mark.filterwarnings("ignore::biofair.UndefinedRateWarning")  # zero FNMRs, in both
def test_a_threshold_at_a_zero_score_is_positive_zero_as_in_memory():
    """Non-mated scores of -0.0 and 0.0, -0.0 read first: every threshold at them was -0.0
    out of core (pooled_thresholds, FDR's and outcome_fairness's threshold), 0.0 in memory,
    which writes -0.0 and 0.0 as 0.0 whichever sorted first (equal, but not bit for bit, and
    printed '-0.0')."""
    scores = pd.DataFrame({"score": [-0.0, 0.0, 0.0, -0.0, 1.0, 2.0, 1.0, 3.0, -0.0, 0.0],
                           "mated": [False] * 4 + [True] * 4 + [False] * 2, "group": list("abababab") + ["a", "b"]})
    data = dd.from_pandas(scores, npartitions=2)
    found = [bp.pooled_thresholds(data, [1.0])[0],
             bp.fairness_discrepancy_rate(data, fmr_targets=[1.0])["threshold"].iloc[0],
             bp.outcome_fairness(data, fmr=1.0).threshold]
    expected = [bf.fairness_discrepancy_rate(scores, fmr_targets=[1.0])["threshold"].iloc[0],
                bf.outcome_fairness(scores, fmr=1.0).threshold]
    assert [np.signbit(value) for value in found + expected] == [False] * 5
    assert found == [0.0] * 3


@pytest.mark.parametrize("start", [1.0, 0.0, -1e300, 2.0**-1022])
def test_bins_of_ranges_a_few_ulps_wide_count_as_np_histogram(start):
    """Every range from ``start`` to 2 ... 150 floats above it that NumPy can cut into 3, 7, 10
    or 33 bins: the counts of every float of the range equal np.histogram's (before the fix,
    not from 0.0 or 2**-1022, where floats are evenly spaced and the edges' widths differ)."""
    from biofair.distribution_fairness import _range_edges
    from biofair.exceptions import SchemaError
    from biofair.partitions._order_statistics import bins_of

    floats = [start]
    for _ in range(150):
        floats.append(np.nextafter(floats[-1], np.inf))
    floats = np.array(floats)
    for stop in range(2, floats.size):
        for bins in (3, 7, 10, 33):
            try:
                edges = _range_edges(floats[0], floats[stop], bins)
            except SchemaError:  # fewer floats than bins + 1
                continue
            values = floats[: stop + 1]
            np.testing.assert_array_equal(np.bincount(bins_of(values, edges), minlength=bins),
                                          np.histogram(values, edges)[0])
