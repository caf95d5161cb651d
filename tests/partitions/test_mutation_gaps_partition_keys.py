"""A mutation-testing gap of the partitioned group rates: the counting key's 16-bit width."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

import biofair as bf  # noqa: E402
from biofair import partitions as bp  # noqa: E402


def test_group_rates_past_the_sixteen_bit_counting_key_equal_the_in_memory_ones():
    """Each part counts by a key of (group, class) times (thresholds + 1), in 16 bits while that
    is below 2**15: 100 groups (202 keys) and 163 thresholds make 33,128, past it, where int16
    would wrap. Allowing it up to 2**16 passed every test (none had as many keys); the counts
    equal the in-memory function's."""
    rng = np.random.default_rng(0)
    groups = np.repeat([f"g{i:03d}" for i in range(100)], 40)
    scores = pd.DataFrame({"group": groups, "mated": np.tile([True] * 10 + [False] * 30, 100),
                           "score": np.round(rng.normal(size=groups.size), 1)})
    thresholds = np.round(np.linspace(-2, 2, 163), 3)
    assert 2 * (100 + 1) * (thresholds.size + 1) >= 2**15
    pd.testing.assert_frame_equal(bp.rates_by_group(dd.from_pandas(scores, npartitions=3), thresholds),
                                  bf.rates_by_group(scores, thresholds))
