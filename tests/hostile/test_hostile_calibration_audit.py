"""Hostile inputs to calibration_fairness found by an audit of chapter 11: tables of several
calibration_by_group calls stacked (as the chapter stacks its two systems) were read as one
table, their pooled rows compared as groups, without a word."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biofair as bf

RNG = np.random.default_rng(11)
BY_GROUP = bf.calibration_by_group(pd.DataFrame({
    "score": np.round(np.r_[RNG.normal(1.0, 1.5, 40), RNG.normal(-1.0, 1.5, 80)], 1),
    "mated": np.repeat([True, False], [40, 80]),
    "group": np.tile(["a", "b"], 60),
}), p_target=0.5)


@pytest.mark.parametrize("table, error, message", [
    (pd.concat({"one": BY_GROUP, "two": BY_GROUP}, names=["system", "group"]), ValueError,
     r"^by_group has 2 index levels \['system', 'group'\]: give the table of one calibration_by_group call"),
    (pd.concat([BY_GROUP, BY_GROUP]), ValueError,
     r"^by_group has more than one row for the group\(s\) \['a', 'b', '\(all\)'\]: give the table of one"),
    (BY_GROUP.rename(index={"b": "a"}), ValueError, r"^by_group has more than one row for the group\(s\) \['a'\]"),
    (BY_GROUP.to_dict(), TypeError, r"^by_group must be the DataFrame of calibration_by_group, got dict$"),
], ids=["systems stacked", "tables concatenated", "a label twice", "not a DataFrame"])
def test_calibration_fairness_refuses_tables_stacked(table, error, message):
    """Stacked, GARBE and Inequity came out of all six rows, the two pooled ones among them, as
    of six groups; a dict raised AttributeError: 'dict' object has no attribute 'columns'."""
    with pytest.raises(error, match=message):
        bf.calibration_fairness(table)


def test_one_system_of_a_stack_is_its_own_table():
    stacked = pd.concat({"one": BY_GROUP, "two": BY_GROUP}, names=["system", "group"])
    pd.testing.assert_frame_equal(bf.calibration_fairness(stacked.loc["one"]), bf.calibration_fairness(BY_GROUP))
    assert np.isfinite(bf.calibration_fairness(BY_GROUP).to_numpy()).all()
