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
