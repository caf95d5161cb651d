"""Hostile inputs given to the identification API: a correct result or biofair's error.

Correct results are checked against a brute-force loop over the probes or a hand-worked value.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf

MATRIX = np.array([[0.9, 0.2], [0.3, 0.8], [0.4, 0.5], [0.7, 0.1]])
SEARCH = {"probe_subjects": ["a", "b", "y", "z"], "gallery_subjects": ["a", "b"], "probe_groups": ["x", "y", "y", "x"]}
LONG = pd.DataFrame({"probe_id": ["p", "p", "p", "q", "q", "q"], "reference_id": ["a", "b", "c"] * 2,
                     "score": [0.9, 0.95, 0.1, 0.3, 0.2, 0.6], "mated": [True, False, False, False, False, False],
                     "group": ["x", "x", "x", "y", "y", "y"]})


def test_matrix_integers_beyond_two_to_the_53_are_refused():
    """2^53 + 1 and 2^53 are one float64: the mate scoring 2^53 + 1 above a non-mated 2^53
    was ranked 2 (a tie) where its rank is 1."""
    matrix = np.array([[2**53 + 1, 2**53], [1, 2], [1, 2], [1, 2]], dtype=np.int64)
    with pytest.raises(bf.SchemaError, match=re.escape(
            "block 0:4 has 1 integer scores beyond ±2^53 (e.g. 9007199254740993) that float64 cannot hold "
            "exactly: distinct scores would become ties")):
        bf.probe_outcomes_from_matrix(matrix, **SEARCH)
    exact = np.array([[2**53, 2**53 - 1], [1, 2], [1, 2], [1, 2]], dtype=np.int64)  # representable: kept
    assert bf.probe_outcomes_from_matrix(exact, **SEARCH)["rank"].tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize(("matrix", "options", "problem"), [
    (np.zeros((0, 2)), {"probe_subjects": [], "probe_groups": []}, "probe_subjects is empty: there is no probe to search"),
    (np.zeros((4, 0)), {"gallery_subjects": []}, "gallery_subjects is empty: a search needs at least one gallery entry"),
    (MATRIX, {"probe_ids": ["p", "q"]}, "probe_ids has shape (2,) for 4 probes"),
    (MATRIX, {"block_size": 2.5}, "block_size must be an integer of at least 1, got 2.5"),
    (MATRIX, {"block_size": "2"}, "block_size must be an integer of at least 1, got '2'"),
    (MATRIX, {"probe_subjects": [["a", "b"], ["y", "z"]]}, "probe_subjects must be one-dimensional, got shape (2, 2)"),
])
def test_matrix_search_that_cannot_run(matrix, options, problem):
    """Each was numpy's or pandas' error ("not enough values to unpack", "zero-size array to
    reduction operation maximum", "All arrays must be of the same length", ...)."""
    with pytest.raises(bf.SchemaError, match="^" + re.escape("invalid identification data:\n- " + problem) + "$"):
        bf.probe_outcomes_from_matrix(matrix, **{**SEARCH, **options})


@pytest.mark.parametrize("dtype", [object, str])
def test_matrix_of_non_numbers(dtype):
    with pytest.raises(bf.SchemaError, match=r"^block 0:4 must hold numeric scores, got dtype (object|<U32)$"):
        bf.probe_outcomes_from_matrix(MATRIX.astype(dtype), **SEARCH)


@pytest.mark.parametrize(("column", "values", "problem"), [
    ("probe_id", ["p", "p", "p", None, None, None], "column 'probe_id' has 3 missing values"),
    ("reference_id", ["a", "b", None] * 2, "column 'reference_id' has 2 missing values"),
    ("mated", pd.array([True, False, None, False, False, False], dtype="boolean"),
     "column 'mated' must be boolean with no missing values, got dtype boolean"),
])
def test_long_table_with_missing_ids_or_labels(column, values, problem):
    """A missing probe id was numpy's "'list' argument must have no negative elements", a
    missing entry id "1 repeated (probe_id, reference_id) pairs", a missing label pandas'
    "cannot convert to 'bool'-dtype NumPy array with missing values"."""
    with pytest.raises(bf.SchemaError, match="^" + re.escape("invalid identification table:\n- " + problem) + "$"):
        bf.probe_outcomes(LONG.assign(**{column: values}))


def test_long_table_without_rows():
    """Was an empty outcome table, later "fairness needs at least two groups; the outcomes have 0"."""
    with pytest.raises(bf.SchemaError, match=r"^invalid identification table: it has no rows; every probe needs "
                                             r"its scores against the whole gallery$"):
        bf.probe_outcomes(LONG.iloc[:0])
