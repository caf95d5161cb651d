"""What one partition's task computes part by part (in cache) equals the same computation on
whole arrays, whatever the part size; and the quick checks of a partition (min and max for
non-finite scores, codes for missing labels, bits for observed categories) count as the
direct ones do."""

from __future__ import annotations

import contextlib
import importlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dask")
from biofair.groups import _chunk_counts, _observed  # noqa: E402
from biofair.partitions import _order_statistics  # noqa: E402
from biofair.partitions.census import (  # noqa: E402
    _LOCATING_BITS,
    _census_histograms,
    _locating_bins,
    _n_missing,
    _n_not_finite,
)

N_BINS = 1 << _LOCATING_BITS
# the modules (biofair.partitions exports functions of the same names)
census, thresholds = (importlib.import_module(f"biofair.partitions.{name}") for name in ("census", "thresholds"))

scores = st.lists(st.one_of(st.floats(-4, 4, width=32), st.sampled_from([0.0, -0.0, 1.5, 1e39, -1e39])),
                  max_size=300)
parts = st.sampled_from([8, 16, 128, 1 << 16])  # several parts, and one


@contextlib.contextmanager
def part_size(module, part: int):
    """The module's part size set to ``part`` for one hypothesis example."""
    saved, module.PART = module.PART, part
    try:
        yield
    finally:
        module.PART = saved


def as_scores(values: list[float], single: bool) -> np.ndarray:
    with np.errstate(over="ignore"):  # beyond float32: infinite, binned in order
        return np.array(values, dtype=np.float32 if single else np.float64)


@settings(max_examples=200, deadline=None)
@given(scores, st.data(), st.booleans(), parts)
def test_census_histograms_part_by_part_equal_whole_bincounts(values, data, single, part):
    values = as_scores(values, single)
    mated = np.array(data.draw(st.lists(st.booleans(), min_size=values.size, max_size=values.size)), dtype=bool)
    homogeneous = np.array(data.draw(st.lists(st.booleans(), min_size=values.size, max_size=values.size)), dtype=bool)
    bins = _locating_bins(values)
    classes = np.stack([np.bincount(bins[~mated], minlength=N_BINS), np.bincount(bins[mated], minlength=N_BINS)])
    for kept in (None, homogeneous, np.ones(values.size, dtype=bool)):
        with part_size(census, part):
            found_classes, found_nonmated = _census_histograms(values, mated, kept)
        np.testing.assert_array_equal(found_classes.dense(), classes)
        rows = ~mated if kept is None else kept & ~mated
        np.testing.assert_array_equal(found_nonmated.dense(), np.bincount(bins[rows], minlength=N_BINS)[None])


@settings(max_examples=200, deadline=None)
@given(scores, st.data(), st.booleans(), parts)
def test_rows_in_marked_bins_part_by_part_equal_a_whole_lookup(values, data, single, part):
    values = as_scores(values, single)
    bins = _locating_bins(values)
    marked = np.zeros(N_BINS, dtype=bool)
    marked[data.draw(st.lists(st.sampled_from(bins.tolist() or [0]), max_size=5))] = True
    with part_size(_order_statistics, part):
        found = _order_statistics._rows_in_bins(values, marked)
    np.testing.assert_array_equal(found, np.flatnonzero(marked[bins]))
    assert found.dtype == np.intp


@settings(max_examples=200, deadline=None)
@given(scores, st.lists(st.floats(-5, 5, width=32), min_size=1, max_size=40), st.data(), st.booleans(), parts)
def test_counts_at_or_above_part_by_part_equal_brute_force(values, ascending, data, single, part):
    """Per key and threshold (in any order, with ties and more than 32 of them)."""
    values = as_scores(values, single)
    n_keys = data.draw(st.integers(1, 5))
    key = np.array(data.draw(st.lists(st.integers(0, n_keys - 1), min_size=values.size, max_size=values.size)),
                   dtype=np.int16)
    levels = np.array(data.draw(st.permutations(ascending)), dtype=np.float64)
    with part_size(thresholds, part):
        found = thresholds._at_or_above_each(values, key, n_keys, levels)
    expected = np.array([[np.count_nonzero(values[key == k] >= level) for level in levels] for k in range(n_keys)])
    np.testing.assert_array_equal(found, expected.reshape(n_keys, levels.size))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 150), st.data())
def test_observed_codes_equal_counted_ones(n_codes, data):
    """Up to 64 codes by the OR of their bits (8, 16, 32 and 64 of them at the edges), else counted."""
    codes = np.array(data.draw(st.lists(st.integers(0, n_codes - 1), max_size=200)),
                     dtype=np.int8 if n_codes < 128 else np.int16)
    found = _observed(codes, n_codes)
    assert found.dtype == bool
    np.testing.assert_array_equal(found, _chunk_counts(codes, n_codes).sum(axis=0) > 0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.floats(width=32), st.sampled_from([np.nan, np.inf, -np.inf, 0.0])), max_size=50),
       st.booleans())
def test_non_finite_scores_counted_as_a_mask_counts_them(values, single):
    values = np.array(values, dtype=np.float32 if single else np.float64)
    assert _n_not_finite(values) == np.count_nonzero(~np.isfinite(values))


@pytest.mark.parametrize("column", [
    pd.Series([True, False, True]),
    pd.Series([1, 2, 3], dtype=np.int8),
    pd.Series([True, None, False], dtype="boolean"),
    pd.Series([True, None, None], dtype="bool[pyarrow]"),
    pd.Series(pd.Categorical(["a", None, "b", None])),
    pd.Series(pd.Categorical(["a", "b", "b"])),
    pd.Series(pd.Categorical([], categories=["a"])),
    pd.Series(["a", None, "c"], dtype=object),
    pd.Series(["a", None, None], dtype="str"),
    pd.Series([1.0, np.nan, 2.0]),
])
def test_missing_values_counted_as_isna_counts_them(column):
    assert _n_missing(column) == int(column.isna().sum())
