"""Inputs to the subset-bias measures found by an audit: biofair's error or the documented
value, where a raw error, a message about scores or two rows that print alike came out."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.exceptions import SchemaError


@pytest.mark.parametrize(("a", "b", "error", "message"), [
    ([0.1, np.nan], [0.1, 0.2], ValueError, "a must lie in [0, 1]; 1 value does not: [nan]"),
    ([], [], ValueError, "a and b are empty: parity needs the values of at least one subset"),
    ([0.1, 0.2], [0.1], ValueError, "a and b must pair value by value; got 2 and 1 values"),
    ([[0.1, 0.2]], [[0.1, 0.2]], ValueError,
     "a and b must be one-dimensional, one value per subset; got shapes (1, 2) and (1, 2)"),
    (["0.1", "0.2"], [0.1, 0.2], TypeError, "a must be a rate or an array of rates, got text (e.g. '0.1'): convert it "
                                            "to numbers first, e.g. with pandas.to_numeric"),
])
def test_parity_names_rates_not_scores(a, b, error, message):
    """A NaN was "leave out the comparisons without a finite score", no value "at least one
    comparison score is needed": messages about scores, where parity reads rates."""
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        bf.statistical_parity(a, b)


def test_parity_reads_rates_held_as_python_objects_as_garbe_does():
    """An object array of floats was refused by parity and read by garbe."""
    rates = np.array([0.1, 0.2], dtype=object)
    assert bf.statistical_parity(rates, [0.1, 0.4]) == bf.statistical_parity([0.1, 0.2], [0.1, 0.4]) == 0.9


@pytest.mark.parametrize(("rates", "shown"), [(None, "None"), ({0.1, 0.2}, "{0.1, 0.2}")])
def test_rates_that_are_no_array(rates, shown):
    """Was "got None among them" for a single None."""
    message = f"rates must be a rate or an array of rates, got {shown}"
    with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
        bf.garbe(rates)


def test_subset_bias_refuses_two_group_labels_that_read_the_same():
    """Groups 1 and "1" were two rows both printed as group 1, and the reference column could
    not say which; subset_performance refuses the same labels."""
    performance = pd.DataFrame({"group": [1, 1, "1", "1"], "subset": [0, 1, 0, 1], "value": [0.1, 0.2, 0.3, 0.5]})
    with pytest.raises(SchemaError, match=re.escape("hold distinct labels that read the same: 1 (int), '1' (str)")):
        bf.subset_bias(performance)


def test_subset_bias_names_groups_as_text_and_reads_a_number_as_its_name():
    performance = pd.DataFrame({"group": [1, 1, 2, 2], "subset": [0, 1, 0, 1], "value": [0.1, 0.2, 0.3, 0.5]})
    by_number, by_name = bf.subset_bias(performance, reference=2), bf.subset_bias(performance, reference="2")
    pd.testing.assert_frame_equal(by_number, by_name)
    assert by_name["group"].tolist() == ["1", "2"] and set(by_name["reference"]) == {"2"}
    with pytest.raises(TypeError, match=r"^reference must name one group, got list \['1'\]$"):  # was a raw TypeError
        bf.subset_bias(performance, reference=["1"])


def test_subset_bias_breaks_a_tie_of_means_by_name_whatever_the_categories_order():
    """A categorical group column gave the tie to its first category, not the first name."""
    values = {"subset": [0, 1, 0, 1], "value": [0.1, 0.2, 0.2, 0.1]}
    categorical = pd.DataFrame({"group": pd.Categorical(["B", "B", "A", "A"], categories=["B", "A"]), **values})
    plain = pd.DataFrame({"group": ["B", "B", "A", "A"], **values})
    assert set(bf.subset_bias(categorical)["reference"]) == set(bf.subset_bias(plain)["reference"]) == {"A"}


def test_inequity_beyond_the_float_range_is_inf_without_numpys_warning():
    """The quotient (about 1e320) is past the largest float: inf, with NumPy's "overflow
    encountered in exp" as the only word."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert bf.inequity([1.0] + [5e-324] * 100) == math.inf


def test_inequity_refuses_series_of_rates_and_counts_in_different_orders():
    """They paired by position: 1.609 where the groups' own counts give 5.78."""
    rates = pd.Series([0.0, 0.1], index=["g2", "g1"])
    counts = pd.Series([10, 1000], index=["g1", "g2"])
    with pytest.raises(ValueError, match=re.escape("align them first: counts.reindex(rates.index)")):
        bf.inequity(rates, counts=counts)
    with pytest.warns(bf.UndefinedRateWarning):
        aligned = bf.inequity(rates, counts=counts.reindex(rates.index))
    assert aligned == pytest.approx(0.1 / math.sqrt(0.1 * -math.expm1(math.log(0.05) / 1000)), rel=1e-12)
