"""Hostile group labels that are kept as groups: labels that differ only by surrounding spaces
are warned about once per computation on the full data, not once more per resample; an empty
or blank label keeps its legend entry."""

from __future__ import annotations

import re
import warnings

import pandas as pd
import pytest

import biofair as bf
from hostile import example


def spaced() -> pd.DataFrame:
    """The example with group C relabelled 'A ' (A and 'A ' stay two groups)."""
    table = example()
    return table.assign(group=table["group"].replace({"C": "A "}))


def fdr_at_10_percent(table: pd.DataFrame) -> float:
    return float(bf.fairness_discrepancy_rate(table, fmr_targets=[0.1])["fdr"].iloc[0])


def cei_mated(table: pd.DataFrame) -> float:
    return bf.comprehensive_equity_index(table, kind="mated").extreme


def spaces_warnings(run) -> int:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return sum("differ only by surrounding spaces: 'A', 'A '" in str(w.message) for w in caught)


@pytest.mark.parametrize("n", [40, 200])
def test_a_bootstrap_warns_about_spaced_labels_once(n):
    """It warned once per resample too, under the default filters as well (each resample's
    catch_warnings reset Python's record of shown warnings): 41 copies for 40 resamples."""
    assert spaces_warnings(lambda: bf.bootstrap(fdr_at_10_percent, spaced(), data="table", n_resamples=n, rng=0)) == 1


@pytest.mark.parametrize("n", [5, 40])
def test_a_permutation_null_warns_about_spaced_labels_once_per_pass(n):
    """Once for the observed value, once for the shuffle plan; it was 2 + n."""
    table = spaced()
    assert spaces_warnings(lambda: bf.permutation_null(cei_mated, table, n_permutations=n, rng=0)) == 2


def test_a_group_named_by_an_empty_or_blank_label_keeps_its_legend_entry():
    """A group named '' was drawn without a legend entry (matplotlib leaves empty labels out),
    and one named '   ' got an entry without text: the legend read ['A', '   '] for three curves."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from biofair.plotting import plot_det

    _, ax = plt.subplots()
    try:
        for label in ["A", "", "   "]:
            plot_det([2.0, 3.0, 4.0], [0.0, 1.0, 2.5], label=label, ax=ax)
        assert [text.get_text() for text in ax.get_legend().get_texts()] == ["A", "''", "'   '"]
    finally:
        plt.close("all")


def test_a_grouping_by_a_column_of_ids_names_ten_groups_and_counts_the_rest():
    """`biofair report --by score` printed one line of about 110 kB: every one-row group. (by
    'score' is now refused outright; a column of ids, here one per score, makes the case.)"""
    table = example()
    table["trial"] = table["score"].astype(str)
    with pytest.raises(bf.SchemaError) as error:
        bf.scores_by_group(table, by="trial")
    lines = str(error.value).splitlines()
    classes = table.groupby("trial")["mated"].nunique()
    n_groups, n_lacking = len(classes), int((classes < 2).sum())  # groups without one of the classes
    assert lines[0] == "cannot compare groups:" and len(lines) == 12
    assert all(" homogeneous non-mated comparisons; both are needed" in line for line in lines[1:11])
    assert lines[11] == (f"- and {n_lacking - 10:,} more such groups, of {n_groups:,} in all "
                         "(is by='trial' the grouping you meant?)")


@pytest.mark.parametrize("labels, shown", [
    ({"A": "Female", "B": "female"}, "'Female', 'female'"),
    ({"A": "H\u00e9l\u00e8ne", "B": "He\u0301le\u0300ne"}, r"'He\u0301le\u0300ne', 'Hélène'"),  # composed or not
    ({"A": "ﬁ", "B": "fi "}, "'fi ', 'ﬁ'"),  # a ligature, and a space
])
def test_labels_that_differ_only_by_case_or_unicode_form_stay_apart_with_a_warning(labels, shown):
    """They print alike (or nearly) in every report, and were split without a word (a helper's
    audit: NFC and NFD 'Hélène' gave two identical legend entries); now the warning names both,
    with their code points where they would print alike, and every row stays in its group."""
    table = example()
    table = table.assign(group=table["group"].replace(labels))
    with pytest.warns(UserWarning, match=r"hold labels that differ only by letter case or Unicode form .*: "
                                         + re.escape(shown) + "; they are kept as separate groups"):
        groups = bf.scores_by_group(table)
    assert sorted(groups) == sorted([*labels.values(), "C"])
    assert sum(g.mated.size + g.nonmated.size for g in groups.values()) == len(table)


@pytest.mark.parametrize("labels, shown", [
    ({"A": "1", "B": "1.0", "C": "01"}, "'01', '1', '1.0'"),  # a spreadsheet's and pandas' floats
    ({"A": "2", "B": "2e0", "C": "3"}, "'2', '2e0'"),
])
def test_labels_that_write_one_number_differently_stay_apart_with_a_warning(labels, shown, tmp_path):
    """Group 1 written "1" in some rows and "1.0" or "01" in others (files merged from two
    exports): three groups, without a word, where spaces and case got a warning."""
    table = example()
    table = table.assign(group=table["group"].replace(labels))
    path = tmp_path / "numbers.csv"
    table.to_csv(path, index=False)
    with pytest.warns(UserWarning) as caught:
        groups = bf.scores_by_group(bf.read_scores(path))
    assert [str(w.message) for w in caught] == [
        f"column(s) ['group'] hold labels that differ only by how a number is written (1, 1.0 and 01): {shown}; "
        "they are kept as separate groups. Write each number one way (for whole numbers: table[column] = "
        "pd.to_numeric(table[column]).astype(int).astype(str)) if they are one group"
    ]
    assert sorted(groups) == sorted(labels.values())
    assert sum(g.mated.size + g.nonmated.size for g in groups.values()) == len(table)


def test_numbers_that_float64_cannot_tell_apart_are_not_called_alike():
    """Two 17-digit labels are one float64, but two numbers: no warning."""
    table = example()
    table = table.assign(group=table["group"].replace({"A": "12345678901234567", "B": "12345678901234568"}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        groups = bf.scores_by_group(table)
    assert sorted(groups) == ["12345678901234567", "12345678901234568", "C"]


def both_kinds_of_group_column() -> pd.DataFrame:
    """Per-side groups with pairs across them, and a pair-level 'group' copied from the
    reference side, as a user might add it."""
    table = pd.DataFrame({"score": [0.9, 0.8, 0.1, 0.2, 0.3, 0.7, 0.2, 0.1],
                          "mated": [True, True] + [False] * 4 + [True, False],
                          "reference_group": ["a", "a", "a", "a", "a", "b", "b", "b"],
                          "probe_group": ["a", "a", "a", "b", "b", "b", "b", "b"]})
    return table.assign(group=table["reference_group"])


def test_a_pair_level_column_that_contradicts_the_sides_is_refused():
    """The pair-level column was read and the sides ignored, without a word: the two pairs of
    a against b counted as non-mated pairs of group a (in an audit's table, FDR 0.94 where the
    sides give 0.995)."""
    message = ("column 'group' and the columns 'reference_group' / 'probe_group' both give the groups of 'group' and "
               "disagree in 2 rows (first in row 3: 'a' against 'a' / 'b'). The pair-level column would be read and "
               "the sides ignored, so a pair across groups would count in one group. Keep one: "
               "table.drop(columns=['group']) to group by the sides, or "
               "table.drop(columns=['reference_group', 'probe_group'])")
    table = both_kinds_of_group_column()
    for call in (bf.group_labels, bf.scores_by_group, bf.group_sizes):
        with pytest.raises(bf.SchemaError, match="^" + re.escape(message) + "$"):
            call(table)
    pytest.importorskip("dask")
    import dask.dataframe as dd

    from biofair import partitions as bp
    with pytest.raises(bf.SchemaError, match="^" + re.escape(f"invalid score partitions:\n- partition 0: {message}") + "$"):
        bp.census(dd.from_pandas(table, npartitions=1))


def test_each_kind_of_group_column_alone_or_both_in_agreement_is_read():
    table = both_kinds_of_group_column()
    sides = bf.group_labels(table.drop(columns="group"))
    assert sides.isna().tolist() == [False] * 3 + [True] * 2 + [False] * 3  # the pairs of a against b
    assert sides.dropna().tolist() == list("aaabbb")
    agreeing = table[sides.notna().to_numpy()]  # no pair across groups: the columns agree
    assert bf.group_labels(agreeing).tolist() == bf.group_labels(agreeing.drop(columns="group")).tolist()
    assert bf.group_labels(table.drop(columns=["reference_group", "probe_group"])).tolist() == list("aaaaabbb")
