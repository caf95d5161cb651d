"""Hostile group labels on the identification and out-of-core paths: two distinct groups keep
two names (those of :func:`biofair.group_labels`), or the call fails naming the column."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
from biofair import partitions as bp  # noqa: E402

# "01" and "1" stay two groups, which is what this file checks; the warning that they write one
# number differently is checked in test_hostile_group_labels
pytestmark = pytest.mark.filterwarnings("ignore:.*differ only by how a number is written:UserWarning")

# Each case: the label columns of group X and of group Y, their names, and the in-memory order.
DISTINCT = {
    "separator inside labels": ({"a": "a / b", "b": "c"}, {"a": "a", "b": "b / c"},
                                "'a / b' / 'c'", "'a' / 'b / c'", ["'a' / 'b / c'", "'a / b' / 'c'"]),
    "leading zero": ({"group": "01"}, {"group": "1"}, "01", "1", ["01", "1"]),
    "labels that look quoted": ({"a": "'a'", "b": "'b / c'"}, {"a": "a", "b": "b / c"},
                                "\"'a'\" / \"'b / c'\"", "'a' / 'b / c'", ["\"'a'\" / \"'b / c'\"", "'a' / 'b / c'"]),
    "integers": ({"group": 10}, {"group": 2}, "10", "2", ["2", "10"]),  # ordered as numbers, as in memory
}
MIXED_TYPES = ({"group": 1}, {"group": "1"})  # int 1 and str "1" in one object column


# -- identification: probe_outcomes, then rank-n, DIR and FPIR per group ----------------------------


def identification_table(x: dict, y: dict) -> pd.DataFrame:
    """4 gallery identities; per group 2 enrolled and 2 non-enrolled probes, built so that
    group X finds every mate at rank 1 with score 0.9 and its strangers score 0.95, while
    group Y finds every mate at rank 2 with score 0.6 and its strangers score at most 0.3."""
    rows = []
    for labels, mates, strangers in ((x, ["g0", "g1"], ["sx0", "sx1"]), (y, ["g2", "g3"], ["sy0", "sy1"])):
        rank_one = labels is x
        for probe in mates + strangers:
            for k, entry in enumerate(["g0", "g1", "g2", "g3"]):
                if probe == entry:
                    score = 0.9 if rank_one else 0.6
                elif probe in strangers:
                    score = (0.95 if rank_one else 0.3) if k == 0 else 0.1
                else:
                    score = 0.8 if (not rank_one and k == 0) else 0.1
                rows.append({"probe_id": f"p{probe}", "reference_id": entry, "score": score,
                             "mated": probe == entry, **labels})
    table = pd.DataFrame(rows)
    for column in x:
        table[column] = pd.Series(list(table[column]), dtype=object)
    return table


@pytest.mark.parametrize("case", DISTINCT)
def test_identification_keeps_both_groups(case):
    x, y, name_x, name_y, names = DISTINCT[case]
    by = list(x)
    outcomes = bf.probe_outcomes(identification_table(x, y), by=by)
    assert sorted(outcomes["group"].unique()) == sorted(names)
    curve = bf.cmc(outcomes, max_rank=2)
    assert sorted(curve.columns) == sorted(names)
    assert curve.loc[1, name_x] == 1.0 and curve.loc[1, name_y] == 0.0
    assert curve.loc[2, name_x] == curve.loc[2, name_y] == 1.0
    rates = bf.identification_rates(outcomes, [0.5]).set_index("group")
    assert sorted(rates.index) == sorted(names)
    assert (rates.loc[name_x, "dir"], rates.loc[name_x, "fpir"]) == (1.0, 1.0)
    assert (rates.loc[name_y, "dir"], rates.loc[name_y, "fpir"]) == (0.0, 0.0)
    assert bf.rank_n_differential(outcomes, rank=1) == 1.0


def test_identification_refuses_labels_that_differ_only_in_type():
    with pytest.raises(bf.SchemaError, match=re.escape("column(s) ['group'] hold distinct labels that read "
                                                       "the same: 1 (int), '1' (str)")):
        bf.probe_outcomes(identification_table(*MIXED_TYPES))


@pytest.mark.parametrize("groups", [[1, "1", 1, "1"], np.array([1, "1", 1, "1"], dtype=object)], ids=["list", "object"])
def test_identification_from_a_matrix_refuses_labels_that_differ_only_in_type(groups):
    matrix = np.array([[0.9, 0.2], [0.3, 0.8], [0.4, 0.5], [0.7, 0.1]])
    with pytest.raises(bf.SchemaError, match=re.escape("column(s) ['probe_groups'] hold distinct labels")):
        bf.probe_outcomes_from_matrix(matrix, probe_subjects=["a", "b", "y", "z"], gallery_subjects=["a", "b"],
                                      probe_groups=groups)


def test_identification_from_a_matrix_keeps_leading_zeros():
    matrix = np.array([[0.9, 0.2], [0.3, 0.8], [0.4, 0.5], [0.7, 0.1]])
    outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=["a", "b", "y", "z"], gallery_subjects=["a", "b"],
                                             probe_groups=["01", "1", "1", "01"])
    assert outcomes["group"].tolist() == ["01", "1", "1", "01"]


# -- out of core: the census names the groups as the in-memory functions do ------------------------


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def score_table(x: dict, y: dict, *, per_side: tuple[str, ...] = (), n: int = 400) -> pd.DataFrame:
    """Half the rows in group X, half in Y, a quarter of each mated; ``per_side`` splits those
    attributes into reference_ and probe_ columns, with one cross-group non-mated pair (its
    probe in Y)."""
    rng = np.random.default_rng(19)
    in_y = np.arange(n) >= n // 2
    mated = np.arange(n) % 4 == 0
    table = pd.DataFrame({"score": np.round(rng.normal(np.where(mated, 1.5, 0.0) + 0.5 * in_y, 1.0), 2),
                          "mated": mated})
    for column in x:
        table[column] = pd.Series([y[column] if i else x[column] for i in in_y], dtype=object)
    for attribute in per_side:
        table[f"reference_{attribute}"] = table[attribute]
        table[f"probe_{attribute}"] = table.pop(attribute)
        table.loc[1, f"probe_{attribute}"] = y[attribute]  # row 1 is non-mated, in X
    return table


def partitioned_frame(table: pd.DataFrame, parts: int = 3):
    with dask.config.set({"dataframe.convert-string": False}):  # keep object columns as they are
        return dd.from_pandas(table, npartitions=parts, sort=False)


CENSUS_CASES = [(case, ()) for case in DISTINCT] + [("separator inside labels", ("a", "b")),
                                                    ("leading zero", ("group",))]


@pytest.mark.parametrize(("case", "per_side"), CENSUS_CASES)
def test_census_names_equal_the_in_memory_names(case, per_side):
    x, y, _, _, names = DISTINCT[case]
    table = score_table(x, y, per_side=per_side)
    by = list(x)
    data = bp.partitioned(partitioned_frame(table), by=by)
    assert data.census.names == list(bf.scores_by_group(table, by=by)) == names
    sizes = bf.group_sizes(table, by=by)
    assert data.census.n_mated.tolist() == sizes.loc[names, "n_mated"].tolist() == [50, 50]
    assert data.census.n_nonmated.tolist() == sizes.loc[names, "n_nonmated"].tolist()
    assert data.census.n_cross == (1 if per_side else 0)
    thresholds = [-0.5, 0.5, 1.5]
    pd.testing.assert_frame_equal(bp.rates_by_group(data, thresholds, by=by),
                                  bf.rates_by_group(table, thresholds, by=by))


def test_a_combination_seen_only_in_a_cross_group_pair_is_a_group_without_comparisons():
    """The probe of row 1 is 'a' / 'c' (a per-side, b pair-level): a group of no comparison of
    its own, refused by name in memory and out of core alike, as a label of one attribute seen
    only in cross-group pairs is (it was left out without a word)."""
    x, y, *_ = DISTINCT["separator inside labels"]
    table = score_table(x, y, per_side=("a",))
    message = re.escape("cannot compare groups:\n- group \"'a' / 'c'\" has 0 mated and 0 homogeneous non-mated "
                        "comparisons; both are needed")
    with pytest.raises(bf.SchemaError, match=message):
        bf.rates_by_group(table, [0.5], by=["a", "b"])
    with pytest.raises(bf.SchemaError, match=message):
        bp.partitioned(partitioned_frame(table), by=["a", "b"])
    sizes = bf.group_sizes(table, by=["a", "b"])
    assert sizes.loc["'a' / 'c'", ["n_mated", "n_nonmated"]].tolist() == [0, 0]
    assert sizes.loc["(cross-group)", "n_nonmated"] == 1


@pytest.mark.parametrize("parts", [1, 2], ids=["one partition", "1 and '1' in two partitions"])
def test_census_refuses_labels_that_differ_only_in_type(parts):
    table = score_table(*MIXED_TYPES)
    with pytest.raises(bf.SchemaError, match=re.escape("column(s) ['group'] hold distinct labels that read "
                                                       "the same: 1 (int), '1' (str)")):
        bp.census(partitioned_frame(table, parts))


def test_census_refuses_mixed_types_across_the_two_sides():
    table = score_table(*MIXED_TYPES, per_side=("group",))
    with pytest.raises(bf.SchemaError, match=re.escape("column(s) ['reference_group', 'probe_group'] hold "
                                                       "distinct labels")):
        bp.census(partitioned_frame(table))


def test_census_refuses_equal_labels_written_differently_in_two_partitions():
    """1 and 1.0 are one label in memory; written "1" and "1.0" they would be two groups."""
    table = score_table({"group": 1}, {"group": 1.0})
    with pytest.raises(bf.SchemaError, match=re.escape("column(s) ['group'] hold equal labels written differently")):
        bp.census(partitioned_frame(table, 2))
