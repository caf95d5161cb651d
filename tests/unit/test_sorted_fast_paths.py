"""The fairness indices read every statistic from the groups' sorted scores; each shortcut
equals the plain computation it replaces, bit for bit."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from fractions import Fraction
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import biofair as bf
from biofair._counts import searchsorted_ascending
from biofair._thresholds import threshold_at_fmr_runs, threshold_at_fmr_sorted
from biofair.distribution_fairness import _count_beyond, _lerp, _sorted_percentile
from biofair.groups import (_ascending, _factorize_sorted, _factorized, _ordered_for_grouping, _pooled_threshold,
                            _split_by_key)
from exact import exact_beyond

# Few distinct values (ties), float32 values, signed zeros, subnormals and the float range's ends.
_SPECIAL = [0.0, -0.0, 5e-324, -5e-324, 1e-310, 1.7e308, -1.7e308, 0.5, 0.5, 1.0, -1.0]
scores = st.one_of(
    st.sampled_from(_SPECIAL),
    st.floats(-3, 3, width=32),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-3, 3).map(float),
)
runs = st.lists(st.lists(scores, min_size=1, max_size=40), min_size=1, max_size=5)
targets = st.lists(st.one_of(st.sampled_from([0.0, 1.0, 1e-1, 1e-3, 1e-6]), st.floats(0, 1)), min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(runs, targets)
def test_threshold_selected_from_runs_equals_threshold_on_merged_scores(values, fmr):
    sorted_runs = [np.sort(np.array(v, dtype=np.float64)) for v in values]
    fmr = np.array(fmr)
    merged = np.sort(np.concatenate(sorted_runs))
    # no errstate: above the largest float both give +inf without an overflow warning
    np.testing.assert_array_equal(threshold_at_fmr_runs(sorted_runs, fmr), threshold_at_fmr_sorted(merged, fmr))


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 7, 1000, None]), targets)
def test_threshold_selected_from_long_runs_with_long_ties_equals_threshold_on_merged_scores(n_runs, seed, distinct,
                                                                                            fmr):
    """Runs of up to 6,000 scores, sampled every s-th score (s up to about 70), and integer
    scores of 1, 2 or 7 values whose ties run far longer than s."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6000, n_runs)
    values = [rng.integers(0, distinct, size) if distinct else rng.normal(size=size) for size in sizes]
    sorted_runs = [np.sort(v.astype(np.float64)) for v in values]
    fmr = np.array(fmr)
    merged = np.sort(np.concatenate(sorted_runs))
    np.testing.assert_array_equal(threshold_at_fmr_runs(sorted_runs, fmr), threshold_at_fmr_sorted(merged, fmr))


@pytest.mark.filterwarnings("ignore::biofair.exceptions.InsufficientComparisonsWarning")  # 1e-6 of 2,000 scores
@pytest.mark.parametrize(("n_groups", "largest"), [(400, 6), (400, 40), (20, 400), (3, 40)])  # merged, then not
@pytest.mark.parametrize("distinct", [3, None])
def test_pooled_threshold_of_many_small_groups_equals_threshold_on_merged_scores(n_groups, largest, distinct):
    """With more groups than the square root of their scores the pooled threshold is selected
    from their concatenation (10,000 groups took seconds across the groups), else across the
    groups: both give the rule's threshold on the merged scores, ties included."""
    rng = np.random.default_rng(n_groups + largest)
    groups = {}
    for g in range(n_groups):
        size = int(rng.integers(1, largest + 1))
        nonmated = rng.integers(0, distinct, size).astype(float) if distinct else rng.normal(size=size)
        groups[f"g{g}"] = bf.GroupScores(np.sort(rng.normal(2.0, 1.0, 2)), np.sort(nonmated))
    merged = np.sort(np.concatenate([g.nonmated for g in groups.values()]))
    fmr = np.array([0.0, 1e-6, 1e-3, 0.01, 0.1, 1 / 3, 0.5, 1.0])
    np.testing.assert_array_equal(_pooled_threshold(bf.ScoresByGroup(groups, by="group"), fmr),
                                  threshold_at_fmr_sorted(merged, fmr))


def test_threshold_from_runs_with_one_score_each_and_all_ties():
    one_each = [np.array([0.3]), np.array([0.1]), np.array([0.2])]
    fmr = np.array([0.0, 0.3, 0.34, 0.67, 1.0])
    np.testing.assert_array_equal(threshold_at_fmr_runs(one_each, fmr),
                                  threshold_at_fmr_sorted(np.array([0.1, 0.2, 0.3]), fmr))
    tied = [np.full(5, 0.7), np.full(3, 0.7)]
    assert threshold_at_fmr_runs(tied, np.array([0.5, 1.0])).tolist() == [np.nextafter(0.7, 1), 0.7]


@settings(max_examples=300, deadline=None)
@given(st.lists(scores, min_size=1, max_size=120), st.lists(scores, min_size=1, max_size=120), st.integers(1, 40),
       st.booleans(), st.booleans())
def test_search_of_ascending_keys_chunk_by_chunk_equals_numpy_searchsorted(values, keys, chunk, threads, single):
    """Chunks of 1 to 40 keys (4,096 in use), ties within and across chunks, signed zeros,
    float32 values and keys; with a pool, the chunks shared between two threads."""
    dtype = np.float32 if single else np.float64
    with np.errstate(over="ignore"):
        sorted_values, sorted_keys = np.sort(np.array(values, dtype=dtype)), np.sort(np.array(keys, dtype=dtype))
    with ThreadPoolExecutor(max_workers=1) if threads else nullcontext() as pool:
        positions = searchsorted_ascending(sorted_values, sorted_keys, pool=pool, chunk=chunk)
    np.testing.assert_array_equal(positions, np.searchsorted(sorted_values, sorted_keys))


@settings(max_examples=300, deadline=None)
@given(st.lists(scores, min_size=1, max_size=60), st.floats(0, 100, exclude_min=True, exclude_max=True))
def test_percentile_of_sorted_scores_equals_numpy_percentile(values, percentile):
    ascending = np.sort(np.array(values, dtype=np.float64))
    for q in (percentile, 100.0 - percentile, 95.0, 5.0):
        with np.errstate(invalid="ignore", over="ignore"):  # b - a overflows at the float range's ends
            expected = np.percentile(ascending, q)
            if not np.isfinite(expected):  # NumPy's ±inf there; at half scale it interpolates exactly
                expected = 2.0 * np.percentile(ascending / 2.0, q)
        found = _sorted_percentile(ascending, q)
        np.testing.assert_array_equal(found, expected)
        assert ascending[0] <= found <= ascending[-1]


@settings(max_examples=1000, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False, allow_infinity=False),
       st.one_of(st.floats(0, 1, exclude_max=True),
                 st.sampled_from([0.0, 0.5, np.nextafter(0.5, 0), np.nextafter(1, 0)])))
def test_interpolation_equals_numpy_quantile_of_the_pair(a, b, gamma):
    """The percentiles' interpolation is np.quantile's to the bit (signed zeros, subnormals,
    magnitudes up to the float range where the difference does not overflow)."""
    lower, upper = min(a, b), max(a, b)
    assume(np.isfinite(upper - lower))
    expected = np.quantile(np.array([lower, upper]), np.float64(gamma))
    found = _lerp(lower, upper, gamma)
    assert found == expected and np.signbit(found) == np.signbit(expected)


def test_percentile_between_the_float_ranges_ends_lies_between_them():
    """b - a overflowed: NumPy's interpolation gave +inf (beyond the scores) and a
    RuntimeWarning, an error under the suite's filterwarnings (hypothesis found it)."""
    ends = np.array([-1.7e308, 1.7e308])
    exact = Fraction(-1.7e308) + Fraction(0.01) * 2 * Fraction(1.7e308)  # gamma = 0.01 as NumPy rounds it
    assert math.isclose(_sorted_percentile(ends, 1.0), float(exact), rel_tol=4 * np.finfo(float).eps)
    assert _sorted_percentile(ends, 50.0) == 0.0


@settings(max_examples=300, deadline=None)
@given(st.lists(scores, min_size=1, max_size=60), st.sampled_from(["mated", "nonmated"]),
       st.sampled_from([0.5, 1.0, 2.0, 3.0]))
def test_count_beyond_by_bisection_equals_the_exact_count(values, kind, n_std):
    """The bisection against exact arithmetic, wherever no score lies within rounding
    (1e-9 of the range) of the limit, where float arithmetic cannot decide."""
    ascending = np.sort(np.array(values, dtype=np.float64))
    beyond, margins = exact_beyond(list(ascending), kind, n_std)
    span = Fraction(float(ascending[-1])) - Fraction(float(ascending[0]))
    assume(all(abs(margin) > span / 10**9 for margin in margins))
    assert _count_beyond(ascending, kind, n_std) == sum(beyond)


@pytest.mark.parametrize("kind", ["mated", "nonmated"])
@pytest.mark.parametrize("n_std", [0.5, 1.0, 3.0])
def test_count_beyond_of_scores_a_few_ulps_apart_equals_that_of_their_ulp_counts(kind, n_std):
    """Scores 0.5 + k ulps, k in 0..3, and k itself have the same count beyond (mu ± N·sigma
    shifts and scales with the scores, exactly here); with np.mean the mean rounded onto a
    score and 0 of them lay beyond mu - sigma, not 25.8 %. A constant group has none beyond:
    with np.mean 11 copies of 0.6342052851328924 were all beyond mu + 0.5 sigma."""
    counts = np.sort(np.random.default_rng(0).integers(0, 4, 1000)).astype(np.float64)
    close = 0.5 + counts * np.spacing(0.5)
    assert _count_beyond(close, kind, n_std) == _count_beyond(counts, kind, n_std)
    beyond, _ = exact_beyond(list(counts), kind, n_std)
    assert _count_beyond(counts, kind, n_std) == sum(beyond)
    assert _count_beyond(np.full(11, 0.6342052851328924), kind, n_std) == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 140), st.integers(0, 2**32 - 1), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_scores_by_group_equals_a_loop_over_groups(n_groups, seed, per_side, categorical, threads, presorted):
    """Past 62 groups the group-class keys need 16 bits; per-side labels add cross-group pairs;
    categorical labels are read from their codes (categories in shuffled order, one unused):
    the groups come in the categories' order. The groups' arrays sorted in two threads (as
    from 2**18 scores) or in one give the same arrays. A table ordered by score is split
    into sorted arrays without a sort."""
    rng = np.random.default_rng(seed)
    n = 6 * n_groups
    mated = np.arange(n) % 3 == 0
    mated[:2 * n_groups] = np.repeat([True, False], n_groups)  # every group has both classes
    groups = np.concatenate([np.arange(n_groups), np.arange(n_groups), rng.integers(0, n_groups, n - 2 * n_groups)])
    labels = np.array([f"g{i:03d}" for i in range(n_groups)], dtype=object)
    order = rng.permutation(labels) if categorical else sorted(labels)
    as_labels = (lambda codes: pd.Categorical(labels[codes], categories=[*order, "unused"])) if categorical else (
        lambda codes: labels[codes])
    values = np.round(rng.normal(size=n), 1).astype(np.float32).astype(np.float64)  # ties, float32 values
    table = pd.DataFrame({"score": values, "mated": mated})
    probe = groups.copy()
    if per_side:
        cross = ~mated & (rng.random(n) < 0.3)
        cross[:2 * n_groups] = False
        probe[cross] = (groups[cross] + 1) % n_groups
        table["reference_group"], table["probe_group"] = as_labels(groups), as_labels(probe)
    else:
        table["group"] = as_labels(groups)
    unsorted = nullcontext()
    if presorted:
        order_by_score = np.argsort(values, kind="stable")
        table, values, mated, groups, probe = (table.iloc[order_by_score], values[order_by_score],
                                               mated[order_by_score], groups[order_by_score], probe[order_by_score])
        unsorted = mock.patch("biofair.groups._sort_in_place", side_effect=AssertionError("sorted again"))
    with mock.patch("biofair.groups.IN_TWO_THREADS_FROM", 0 if threads else 2**62), unsorted:
        result = bf.scores_by_group(table)
    assert list(result) == list(order)
    homogeneous = groups == probe
    for code, name in enumerate(labels):
        mine = groups == code
        np.testing.assert_array_equal(result[name].mated, np.sort(values[mine & mated]))
        np.testing.assert_array_equal(result[name].nonmated, np.sort(values[mine & ~mated & homogeneous]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 2.0]), max_size=40), st.integers(1, 8))
def test_ascending_is_checked_block_by_block(values, block):
    values = np.array(values)
    with mock.patch("biofair.groups._ASCENDING_BLOCK", block):
        assert _ascending(values) == bool(np.all(np.diff(values) >= 0))


_LABELS = {
    "text": lambda codes: np.array(["b", "a/x", "C", "é"], dtype=object)[codes],
    "Arrow text": lambda codes: pd.array(np.array(["b", "a", "c", "d"])[codes], dtype="string[pyarrow]"),
    "integers": lambda codes: np.array([10, 2, -1, 7])[codes],
    "booleans": lambda codes: codes % 2 == 0,
    "mixed types": lambda codes: np.array([1, "y", "x", 2.5], dtype=object)[codes],
    "categories": lambda codes: pd.Categorical(np.array(["b", "a", "c", "d"])[codes], categories=["d", "c", "b", "a"]),
}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_LABELS)), st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_a_table_ordered_for_grouping_gives_the_same_groups(kind, seed, per_side, two_attributes):
    """Ordered by score, text labels as categories: the same groups, names and sorted scores."""
    rng = np.random.default_rng(seed)
    n = 80
    codes = np.r_[np.arange(4), np.arange(4), rng.integers(0, 4, n - 8)]
    table = pd.DataFrame({"score": np.round(rng.normal(size=n), 1), "mated": np.r_[np.ones(4, bool), np.zeros(4, bool),
                                                                                   rng.random(n - 8) < 0.3]})
    if per_side:
        probe = np.where(~table["mated"] & (rng.random(n) < 0.2), (codes + 1) % 4, codes)
        probe[:8] = codes[:8]
        table["reference_group"], table["probe_group"] = _LABELS[kind](codes), _LABELS[kind](probe)
    else:
        table["group"] = _LABELS[kind](codes)
    by = ["group", "site"] if two_attributes else "group"
    if two_attributes:
        table["site"] = np.where(np.arange(n) % 2 == 0, "s1", "s2")
        table.loc[:15, "site"] = "s1"  # every group in both sites has both classes: the first 16 rows
        table.loc[np.r_[0:4, 8:12], "site"] = "s2"
    try:
        expected = bf.scores_by_group(table, by=by)
    except bf.SchemaError:  # an arrangement with a group of one class only: nothing to compare
        return
    ordered = _ordered_for_grouping(table, by)
    assert np.all(np.diff(ordered["score"].to_numpy()) >= 0)
    assert sorted(ordered.index) == list(table.index)
    if kind in ("text", "Arrow text") and not per_side:
        assert isinstance(ordered["group"].dtype, pd.CategoricalDtype)
    result = bf.scores_by_group(ordered, by=by)
    assert list(result) == list(expected)
    for name in expected:
        np.testing.assert_array_equal(result[name].mated, expected[name].mated)
        np.testing.assert_array_equal(result[name].nonmated, expected[name].nonmated)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 20), max_size=300), st.integers(1, 70), st.booleans())
def test_split_by_key_chunk_by_chunk_equals_one_stable_sort(keys, chunk, threads):
    """Splitting in chunks of any size gives each key's values in row order, as one stable
    argsort of all keys does; so do two threads taking half of the chunks each."""
    keys = np.array(keys, dtype=np.int8)
    values = np.arange(keys.size) * 0.5
    n_keys = 21
    expected = np.split(values[np.argsort(keys, kind="stable")], np.cumsum(np.bincount(keys, minlength=n_keys))[:-1])
    with mock.patch("biofair.groups.IN_TWO_THREADS_FROM", 0 if threads else 2**62):
        result = _split_by_key(values, keys, n_keys, chunk=chunk)
    assert len(result) == n_keys
    for got, want in zip(result, expected):
        np.testing.assert_array_equal(got, want)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=3), st.sampled_from(["a", "B", "é", "", "a\x00", "😀"])),
                max_size=60), st.sampled_from(["str", "string[pyarrow]", "large_string[pyarrow]", object]),
       st.integers(1, 4))
def test_text_factorized_in_two_halves_equals_pandas_factorize(labels, dtype, n_chunks):
    """Arrow-backed text factorized in two threads, one half each, gives pandas' codes and
    sorted labels: missing values, labels in one half only, empty and non-ASCII labels, a
    column of several Arrow chunks (a concatenation)."""
    pieces = np.array_split(np.array(labels, dtype=object), n_chunks)
    column = pd.concat([pd.Series(list(piece), dtype=dtype) for piece in pieces], ignore_index=True)
    with mock.patch("biofair.groups.IN_TWO_THREADS_FROM", 0):
        codes, uniques = _factorize_sorted(column)
    expected_codes, expected_uniques = pd.factorize(column, sort=True)
    np.testing.assert_array_equal(codes, expected_codes)
    assert codes.dtype == np.intp
    assert uniques.equals(expected_uniques) and uniques.dtype == expected_uniques.dtype


@pytest.mark.parametrize("categories", [["x", "m", "f", "unused"], ["x", "m", "f"]])
def test_categorical_labels_number_the_present_categories_as_pandas_factorize_does(categories):
    labels = pd.Series(pd.Categorical(["m", "f", "m", "x"], categories=categories))
    codes, names = _factorized(labels, ["gender"])
    expected_codes, expected_names = pd.factorize(labels, sort=True)
    np.testing.assert_array_equal(codes, expected_codes)
    assert codes.dtype == np.intp  # codes take part in arithmetic (combined attributes, strata)
    assert names == [str(name) for name in expected_names] == ["x", "m", "f"]
