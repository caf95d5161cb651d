"""The reproduction ledger: the shipped papers' values are well formed, verdicts follow the
documented rule, and a flipped verdict fails the check, naming the row."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biofair as bf
from biofair.reproduction import _paper_values


def values(**columns):
    base = {"paper": "cei", "table": "Table 3", "quantity": ["a", "b", "c"],
            "paper_value": [0.98, 0.30, 1.50], "tolerance": [0.01, 0.05, 0.1],
            "expected": ["reproduced", "same direction", "differs"],
            "reason": ["", "fewer scores", "other data"], "reference": [1.0, 0.0, 1.0]}
    return pd.DataFrame({**base, **columns})


def test_shipped_values_are_well_formed():
    shipped = _paper_values()
    assert list(shipped.columns) == ["paper", "table", "quantity", "paper_value", "tolerance",
                                     "expected", "reason", "reference"]
    assert set(shipped["paper"]) <= {"cei", "fdr", "beyond_auc", "nsigma"}
    assert not shipped.duplicated(["paper", "table", "quantity"]).any()
    assert set(shipped["expected"]) <= {"reproduced", "no effect in both", "same direction", "differs"}
    assert shipped["paper_value"].notna().all() and (shipped["tolerance"] >= 0).all()
    # a reason for every deviation, none for an agreement
    deviates = ~shipped["expected"].isin(["reproduced", "no effect in both"])
    assert (shipped.loc[deviates, "reason"].str.len() > 0).all()
    assert (shipped.loc[~deviates, "reason"] == "").all()
    assert {"Table 3", "Table 4"} <= set(shipped.loc[shipped["paper"] == "cei", "table"])


def test_verdicts_by_hand():
    # a: |0.985 - 0.98| = 0.005 <= 0.01; b: 0.6 and 0.3 both above reference 0;
    # c: 0.9 below reference 1, paper 1.5 above it
    ledger = bf.reproduction_ledger("cei", "Table 3", {"a": 0.985, "b": 0.6, "c": 0.9}, values=values())
    assert ledger["verdict"].tolist() == ["reproduced", "same direction", "differs"]
    assert list(ledger.columns) == ["quantity", "paper", "book", "tolerance", "reference",
                                    "verdict", "expected", "reason"]
    assert ledger["book"].tolist() == [0.985, 0.6, 0.9]


def test_perturbed_book_value_fails_the_check_and_names_the_row():
    book = {"a": 0.985, "b": 0.6, "c": 0.9}
    bf.reproduction_ledger("cei", "Table 3", book, values=values())  # all as expected
    perturbed = {**book, "a": 0.985 - 0.02}  # beyond the tolerance of 0.01
    with pytest.raises(AssertionError, match=r"^cei Table 3: 1 verdict differs from the expected: a: paper 0.98, book 0.965.*"
                                             r"same direction, expected reproduced"):
        bf.reproduction_ledger("cei", "Table 3", perturbed, values=values())
    ledger = bf.reproduction_ledger("cei", "Table 3", perturbed, values=values(), check=False)
    assert ledger.loc[ledger["verdict"] != ledger["expected"], "quantity"].tolist() == ["a"]


def test_no_effect_in_both_is_not_called_a_reproduction():
    # q: the paper's 0.005 and the book's 0.049 both lie within 0.05 of GARBE's "no effect" (0):
    # the row confirms no effect, not the paper's number; so does t, whose 0.07 lies within 0.05
    # of the paper's 0.03. r: 0.08 departs from no effect, where the paper's 0.005 shows none:
    # they differ (same direction needs an effect in both).
    # s: the paper's 0.06 departs from no effect, and the book's 0.045 lies within 0.05 of it.
    table = values(quantity=["q", "t", "r", "s"], paper_value=[0.005, 0.03, 0.005, 0.06], tolerance=[0.05] * 4,
                   reference=[0.0] * 4,
                   expected=["no effect in both", "no effect in both", "differs", "reproduced"],
                   reason=["", "", "an effect the paper does not show", ""])
    book = {"q": 0.049, "t": 0.07, "r": 0.08, "s": 0.045}
    ledger = bf.reproduction_ledger("cei", "Table 3", book, values=table)
    assert ledger["verdict"].tolist() == ["no effect in both", "no effect in both", "differs", "reproduced"]
    with pytest.raises(ValueError, match=r"needs a reason: \['r'\]"):  # no effect needs none; a deviation does
        bf.reproduction_ledger("cei", "Table 3", book, values=table.assign(reason=[""] * 4))


def test_a_difference_of_exactly_the_tolerance_is_within_it():
    """1 - 0.98 is 0.020000000000000018 in floating point: FDR Table III's unfair area at
    alpha = 1 (0.98, tolerance 0.02, reference 1) was not "no effect" because of it."""
    assert abs(0.98 - 1.0) > 0.02
    table = values(quantity=["q", "r"], paper_value=[0.98, 0.7], tolerance=[0.02, 0.1], reference=[1.0, 0.0],
                   expected=["no effect in both", "reproduced"], reason=["", ""])
    ledger = bf.reproduction_ledger("cei", "Table 3", {"q": 0.96, "r": 0.8}, values=table)
    assert ledger["verdict"].tolist() == ["no effect in both", "reproduced"]  # 0.96 - 0.98, 0.8 - 0.7
    assert abs(0.8 - 0.7) > 0.1


def test_no_reference_means_a_deviation_differs():
    table = values(reference=[math.nan] * 3, expected=["reproduced", "differs", "differs"])
    ledger = bf.reproduction_ledger("cei", "Table 3", {"a": 0.99, "b": 0.6, "c": 2.0}, values=table)
    assert ledger["verdict"].tolist() == ["reproduced", "differs", "differs"]


def test_bad_ledgers_are_named():
    with pytest.raises(KeyError, match="no values of 'cei' 'Table 9'"):
        bf.reproduction_ledger("cei", "Table 9", {}, values=values())
    with pytest.raises(KeyError, match=r"missing for \['c'\], not in the paper: \['d'\]"):
        bf.reproduction_ledger("cei", "Table 3", {"a": 1, "b": 1, "d": 1}, values=values())
    with pytest.raises(ValueError, match=r"needs a reason: \['b'\]"):
        bf.reproduction_ledger("cei", "Table 3", {"a": 1, "b": 1, "c": 1},
                               values=values(reason=["", "", "x"]))
    with pytest.raises(ValueError, match="expected verdicts must be among"):
        bf.reproduction_ledger("cei", "Table 3", {"a": 1, "b": 1, "c": 1},
                               values=values(expected=["reproduced", "close", "differs"]))


finite = st.floats(-10, 10, allow_nan=False)


@settings(max_examples=100, deadline=None)  # a ledger builds small DataFrames: ms, not µs
@given(paper=finite, book=finite, tolerance=st.floats(0, 5), reference=finite)
def test_verdict_rule(paper, book, tolerance, reference):
    table = values(quantity=["q"], paper_value=[paper], tolerance=[tolerance], reference=[reference],
                   expected=["differs"], reason=["any"])
    verdict = bf.reproduction_ledger("cei", "Table 3", {"q": book}, values=table, check=False)["verdict"][0]
    def within(a, b):  # at the printed values' precision: 1 - 0.98 is 0.020000000000000018
        return abs(a - b) <= tolerance or math.isclose(abs(a - b), tolerance, rel_tol=1e-9, abs_tol=0)

    if within(paper, reference) and (within(book, reference) or within(book, paper)):
        assert verdict == "no effect in both"
    elif within(book, paper):
        assert verdict == "reproduced"
    elif (reference not in (paper, book) and (paper > reference) == (book > reference)
          and not within(paper, reference) and not within(book, reference)):
        assert verdict == "same direction"
    else:
        assert verdict == "differs"


@pytest.mark.parametrize(("paper", "book"), [(1.004, 1.5), (1.5, 1.004)], ids=["paper at no effect", "book at no effect"])
def test_same_direction_needs_an_effect_in_both(paper, book):
    """A paper within the tolerance of no effect beside a book far from it read 'same
    direction', as if both showed one effect."""
    table = values(quantity=["q"], paper_value=[paper], tolerance=[0.1], reference=[1.0], expected=["differs"],
                   reason=["any"])
    assert bf.reproduction_ledger("cei", "Table 3", {"q": book}, values=table)["verdict"].tolist() == ["differs"]
