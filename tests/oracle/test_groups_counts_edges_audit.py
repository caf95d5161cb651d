"""Edge numerics of the score table's checks, the grouping and the counts behind them,
each against an independent computation (exact decimals, loops over the rows)."""

from __future__ import annotations

import decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import biofair as bf
from biofair.exceptions import SchemaError

D = decimal.Decimal


def decimal_table(mated: list[str], nonmated: list[str], stored: pa.DataType) -> pd.DataFrame:
    """A score table whose scores are Arrow decimals (``pd.read_parquet(..., dtype_backend="pyarrow")``
    of a SQL or Spark export)."""
    values = pa.array([D(v) for v in mated + nonmated], stored)
    return pd.DataFrame({"score": pd.Series(pd.arrays.ArrowExtensionArray(values)),
                         "mated": [True] * len(mated) + [False] * len(nonmated)})


def test_arrow_decimals_that_float64_would_tie_are_refused():
    """Before: accepted, and split into float64 scores where the mated 1.00000000000000000001
    and the non-mated 1 are both 1.0, so roc_auc gave 0.875 where every mated score is above every
    non-mated one (1.0, compared as decimals); Python Decimal objects were refused already."""
    table = decimal_table(["1.00000000000000000001", "2"], ["1", "0.5"], pa.decimal128(38, 20))
    mated, nonmated = ([D(v) for v in table["score"][table["mated"] == m].astype(str)] for m in (True, False))
    exact_auc = sum((m > n) + (m == n) / 2 for m in mated for n in nonmated) / (len(mated) * len(nonmated))
    assert exact_auc == 1.0
    with pytest.raises(SchemaError, match=r"column 'score' has 1 pair of distinct decimals .*decimal128\(38, 20\).* "
                                          r"that float64 cannot tell apart \(e\.g\. 1\.00000000000000000000 and "
                                          r"1\.00000000000000000001, both 1\.0\): distinct scores would become ties"):
        bf.validate_scores(table)


def test_arrow_decimals_that_float64_keeps_apart_are_accepted_as_their_nearest_floats():
    """A wide decimal type holding short values (a SQL export's DECIMAL(38, 20) of 0.83) ties
    nothing: accepted, each score the float nearest its decimal, as read_scores converts them."""
    written = ["0.83", "0.1", "0.30000000000000004", "0.3", "1E-20"]
    table = decimal_table(written[:2], written[2:], pa.decimal128(38, 20))
    mated, nonmated = bf.split_scores(bf.validate_scores(table))
    assert mated.tolist() + nonmated.tolist() == [float(D(v)) for v in written]


def test_a_scores_by_group_of_long_doubles_that_float64_cannot_hold_is_refused():
    """Before: accepted, and the pooled threshold at FMR 0.25 of the four non-mated scores
    0, 1 + 2**-60 (group a), 0, 1 (group b) came out 1.0, the float64 rounding of 1 + 2**-60,
    where 2 scores (FMR 0.5 > 0.25) match; by the rule (smallest score with FMR <= 0.25) it is
    1 + 2**-60, which 1 score reaches. A table's long doubles were refused already."""
    tiny = np.longdouble(2) ** -60
    if np.longdouble(1) + tiny == 1:
        pytest.skip("long double is float64 on this platform")
    pooled = np.array([0, 1 + tiny, 0, 1], dtype=np.longdouble)
    exact = min(t for t in pooled if np.count_nonzero(pooled >= t) / pooled.size <= 0.25)
    assert exact == 1 + tiny and float(exact) == 1.0
    groups = {"a": bf.GroupScores(np.array([2, 3], dtype=np.longdouble), np.sort(pooled[:2])),
              "b": bf.GroupScores(np.array([2, 3], dtype=np.longdouble), np.sort(pooled[2:]))}
    with pytest.raises(SchemaError, match=r"group 'a': nonmated scores has 1 long double score .* that float64 "
                                          r"cannot hold exactly"):
        bf.ScoresByGroup(groups, by="group")
    # long doubles that float64 holds are the same scores: accepted
    held = {name: bf.GroupScores(*(v.astype(np.float64).astype(np.longdouble) for v in g)) for name, g in groups.items()}
    assert list(bf.ScoresByGroup(held, by="group")) == ["a", "b"]


def small_groups_table() -> pd.DataFrame:
    """Group a: 3 mated and 4 non-mated comparisons of 2 subjects; group b: 1 and 1, of 1."""
    return pd.DataFrame({"score": np.linspace(0, 1, 9), "mated": [True] * 3 + [False] * 4 + [True, False],
                         "group": ["a"] * 7 + ["b"] * 2,
                         "reference_subject": ["s1", "s1", "s2", "s1", "s1", "s2", "s2", "s3", "s3"],
                         "probe_subject": ["s1", "s1", "s2", "x", "y", "x", "y", "s3", "z"]})


def test_group_sizes_flags_exactly_the_groups_below_each_floor():
    """A group is small iff one of its counts, from a loop over the rows, is below its floor
    (0 flags none; a floor equal to a count does not flag it)."""
    table = small_groups_table()
    counts = {name: (sum(rows["mated"]), sum(~rows["mated"]), rows["reference_subject"].nunique())
              for name, rows in table.groupby("group")}
    for floors in [(0, 0, 0), (3, 4, 2), (4, 4, 2), (3, 5, 2), (3, 4, 3), (1, 1, 1), (2, 1, 1), (np.int64(2), 1, 1)]:
        sizes = bf.group_sizes(table, min_mated=floors[0], min_nonmated=floors[1], min_subjects=floors[2])
        expected = {name: any(c < f for c, f in zip(count, floors)) for name, count in counts.items()}
        assert sizes["small"].to_dict() == expected, floors
