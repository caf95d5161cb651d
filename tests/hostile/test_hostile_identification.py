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
            "block 0:4 has 1 integer score beyond ±2^53 (e.g. 9007199254740993) that float64 cannot hold "
            "exactly: distinct scores would become ties")):
        bf.probe_outcomes_from_matrix(matrix, **SEARCH)
    exact = np.array([[2**53, 2**53 - 1], [1, 2], [1, 2], [1, 2]], dtype=np.int64)  # representable: kept
    assert bf.probe_outcomes_from_matrix(exact, **SEARCH)["rank"].tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize(("matrix", "options", "problem"), [
    (np.zeros((0, 2)), {"probe_subjects": [], "probe_groups": []}, "probe_subjects is empty: there is no probe to search"),
    (np.zeros((4, 0)), {"gallery_subjects": []}, "gallery_subjects is empty: a search needs at least one gallery entry"),
    (MATRIX, {"probe_ids": ["p", "q"]}, "probe_ids has shape (2,) for 4 probes"),
    # two searches under one id: probe_outcomes treats rows of one probe_id as one probe
    (MATRIX, {"probe_ids": ["p", "q", "p", "r"]}, "probe_ids repeats 1 id, e.g. 'p': each row of the matrix is "
                                                  "one probe's search and needs its own id"),
    (MATRIX, {"block_size": 2.5}, "block_size must be an integer of at least 1, got 2.5"),
    (MATRIX, {"block_size": "2"}, "block_size must be an integer of at least 1, got '2'"),
    (MATRIX, {"probe_subjects": [["a", "b"], ["y", "z"]]}, "probe_subjects must be one-dimensional, got shape (2, 2)"),
    # a string is one value, not one id per probe: no knock-on "probe_groups has 4 values for 1 probes"
    (MATRIX, {"probe_subjects": "abyz"}, "probe_subjects must be one-dimensional, got the single value 'abyz'"),
    (MATRIX, {"probe_groups": "f"}, "probe_groups must be one-dimensional, got the single value 'f'"),
    # a probe without identity was a non-enrolled probe (its mate's 0.8 a false alarm)
    (MATRIX, {"probe_subjects": ["a", None, "y", "z"]},
     "probe_subjects has 1 missing identity: a probe without one cannot be told enrolled or not"),
    (MATRIX, {"gallery_subjects": pd.Series(["a", None])}, "gallery_subjects has 1 missing identity: give every entry one "
                                                  "(a distractor an identity of its own)"),
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


def test_masked_matrix_is_refused():
    """The masked 0.99 was read as a score: probe 'b' ranked 2 where its mate is alone."""
    masked = np.ma.masked_array([[0.9, 0.2], [0.99, 0.8], [0.4, 0.5], [0.7, 0.1]], mask=[[0, 0], [1, 0], [0, 0], [0, 0]])
    with pytest.raises(ValueError, match=r"^block 0:4 is a masked array with 1 masked value"):
        bf.probe_outcomes_from_matrix(masked, **SEARCH)
    assert bf.probe_outcomes_from_matrix(masked.filled(0.0), **SEARCH)["rank"].tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize(("column", "values", "problem"), [
    ("probe_id", ["p", "p", "p", None, None, None], "column 'probe_id' has 3 missing values"),
    ("reference_id", ["a", "b", None] * 2, "column 'reference_id' has 2 missing values"),
    ("mated", pd.array([True, False, None, False, False, False], dtype="boolean"),
     "column 'mated' has 1 missing value (first in row 2): every comparison is mated or not; fill them in, or drop "
     "those rows (table.dropna(subset=['mated']))"),
    # labels as categories (a dictionary-encoded Parquet column): it said only "got dtype category"
    ("mated", pd.Categorical(["genuine"] + ["impostor"] * 5),
     "column 'mated' must be boolean, got text ('genuine', 'impostor') (dtype category): convert it, table['mated'] "
     "= table['mated'].eq(<the label of mated comparisons>) (read_scores reads the usual labels of a file, such as "
     "yes/no or genuine/impostor)"),
    # was "missing group labels ... with read_grouped_scores(..., missing_groups='group') (biofair report
    # --missing-groups group)": a verification reader (which refuses a group without mated comparisons) and command
    ("group", ["x", "x", "x", "", "", " "], "column 'group' has 3 blank labels (empty or white space only), e.g. in "
                                            "row 3: every probe needs its group"),
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


def outcomes() -> pd.DataFrame:
    """Per group x and y: one enrolled probe found at rank 1 and one non-enrolled probe."""
    return bf.probe_outcomes_from_matrix(MATRIX, **SEARCH)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda o: bf.cmc(o, max_rank=2.5), TypeError, "max_rank must be an integer, got 2.5"),
    (lambda o: bf.cmc(o, max_rank=True), TypeError, "max_rank must be an integer, got True"),
    (lambda o: bf.rank_n_differential(o, rank=float("nan")), TypeError, "rank must be an integer, got nan"),
    (lambda o: bf.rank_n_differential(o, rank=1.5), TypeError, "rank must be an integer, got 1.5"),
    (lambda o: bf.identification_rates(o, [0.6], rank=1.5), TypeError, "rank must be an integer, got 1.5"),
    (lambda o: bf.identification_discrepancy_rate(o, fpir_targets=[0.5], rank=np.nan), TypeError,
     "rank must be an integer, got nan"),
])
def test_ranks_must_be_integers(call, error, message):
    """cmc(max_rank=2.5) had the ranks 1.0, 2.0, 3.0 (one more than asked); n=nan passed the
    check ``n < 1`` and gave a differential of 0.0; rank=1.5 counted as rank 1."""
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        call(outcomes())


@pytest.mark.parametrize(("thresholds", "error", "message"), [
    ([np.nan, 0.6], ValueError, "thresholds has 1 NaN value: no probe can be decided against it"),
    (np.nan, ValueError, "thresholds has 1 NaN value: no probe can be decided against it"),
    ([], ValueError, "thresholds must be one number or a non-empty, flat sequence, got shape (0,)"),
    ([[0.6, 0.7]], ValueError, "thresholds must be one number or a non-empty, flat sequence, got shape (1, 2)"),
    (["0.6"], TypeError, "thresholds must be numbers, got ['0.6']"),
])
def test_identification_rates_at_thresholds_that_decide_nothing(thresholds, error, message):
    """A NaN threshold gave DIR 0 and FPIR 0 in every group (no score is >= NaN), no
    threshold an empty table, a 2-D list pandas' "Per-column arrays must each be 1-dimensional"."""
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        bf.identification_rates(outcomes(), thresholds)


def test_identification_rates_at_infinite_thresholds():
    rates = bf.identification_rates(outcomes(), [np.inf, -np.inf])
    assert rates[["dir", "fpir"]].to_numpy().tolist() == [[0.0, 0.0], [1.0, 1.0]] * 2


@pytest.mark.parametrize(("change", "problem"), [
    (lambda o: pd.concat([o, o.assign(group=np.nan, probe_id=o["probe_id"] + 4)], ignore_index=True),
     "column 'group' has 4 missing values: every probe needs its group"),
    (lambda o: o.assign(mated=o["mated"].astype(int)),
     "column 'mated' must be boolean, got 0 and 1 (dtype int64): convert it, table['mated'] = table['mated'].eq(1), "
     "if 1 marks a mated comparison"),
    (lambda o: o.assign(mated=pd.Categorical(o["mated"].map({True: "true", False: "false"}))),
     "column 'mated' must be boolean, got text ('false', 'true') (dtype category): convert it, table['mated'] = "
     "table['mated'].eq(<the label of mated comparisons>) (read_scores reads the usual labels of a file, such as "
     "yes/no or genuine/impostor)"),
    (lambda o: o.assign(score=[0.9, 0.8, np.nan, 0.7]), "column 'score' has 1 NaN and 0 infinite values (first in row 2)"),
    # a NaN rank was never a hit (the curve stayed below 1), -5 one at rank 1, text a TypeError from
    # numpy's sort (a helper's audit)
    (lambda o: o.assign(rank=o["rank"].astype(float).where(o.index != 0)),
     "column 'rank' has 1 value that is not a rank (a whole number, at least 1 for an enrolled probe, 0 for a "
     "probe not enrolled): e.g. nan in row 0 (enrolled)"),
    (lambda o: o.assign(rank=o["rank"].where(o.index != 0, -5)),
     "column 'rank' has 1 value that is not a rank (a whole number, at least 1 for an enrolled probe, 0 for a "
     "probe not enrolled): e.g. -5 in row 0 (enrolled)"),
    # text, or numbers in an object column: named by the dtype (it read "'1' in row 0 (enrolled)
    # is not a rank", quoting a valid rank)
    (lambda o: o.assign(rank=o["rank"].astype(str)),
     "column 'rank' must hold whole numbers, got dtype str; convert it, e.g. outcomes['rank'].astype('int64')"),
    (lambda o: o.assign(rank=o["rank"].astype(object)),
     "column 'rank' must hold whole numbers, got dtype object; convert it, e.g. outcomes['rank'].astype('int64')"),
    # complex ranks were read with a ComplexWarning, their imaginary parts dropped (2+0.5j as rank 2)
    (lambda o: o.assign(rank=o["rank"] + 0.5j),
     "column 'rank' must hold whole numbers, got dtype complex128; convert it, e.g. outcomes['rank'].astype('int64')"),
])
@pytest.mark.parametrize("measure", [
    lambda o: bf.cmc(o, max_rank=1),
    lambda o: bf.identification_rates(o, [0.6]),
    lambda o: bf.threshold_at_fpir(o, 0.5),
    lambda o: bf.identification_discrepancy_rate(o, fpir_targets=[0.5]),
])
def test_outcome_tables_that_hide_probes(change, problem, measure):
    """Outcome tables are public (resampled, or written by hand): a probe without a group
    was dropped with its group (cmc of 4 more probes in a third, unnamed group showed x and y
    only), integer 'mated' was pandas' "KeyError: '[1] not in index'", and a NaN score made
    threshold_at_fpir(0.5) NaN."""
    with pytest.raises(bf.SchemaError, match="^" + re.escape("outcomes is not a valid probe outcome table:\n- "
                                                             + problem) + "$"):
        measure(change(outcomes()))


def test_outcome_tables_without_their_columns():
    """Were pandas' KeyError 'mated' and KeyError 'score'."""
    table = outcomes()
    with pytest.raises(bf.SchemaError, match=r"^outcomes is not a probe outcome table \(see probe_outcomes\): "
                                             r"missing mated$"):
        bf.threshold_at_fpir(table.drop(columns="mated"), 0.5)
    with pytest.raises(bf.SchemaError, match=r"^dev is not a probe outcome table \(see probe_outcomes\): "
                                             r"missing score$"):
        bf.identification_discrepancy_rate(table, fpir_targets=[0.5], dev=table.drop(columns="score"))
    with pytest.raises(TypeError, match=r"^outcomes must be a pandas DataFrame of probe outcomes "
                                        r"\(see probe_outcomes\), got ndarray$"):
        bf.threshold_at_fpir(table.to_numpy(), 0.5)


@pytest.mark.parametrize(("targets", "error", "message"), [
    (0.5, TypeError, "fpir_targets must be a sequence of rates, e.g. [0.01], got 0.5"),
    ([], ValueError, "fpir_targets must be a non-empty, flat sequence of rates, got []"),
])
def test_fdr_prime_targets_as_fdr_takes_them(targets, error, message):
    """A scalar was Python's "'float' object is not iterable", no target an empty table;
    fairness_discrepancy_rate gives these messages for fmr_targets."""
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        bf.identification_discrepancy_rate(outcomes(), fpir_targets=targets)


@pytest.mark.filterwarnings("ignore::biofair.InsufficientComparisonsWarning")  # a tiny table: its rows unresolved
def test_a_development_set_without_an_evaluation_group_is_named():
    """FDR' set its thresholds on dev's open-set probes without that group's, without a word
    (as verification FDR did); the warning then spoke of comparisons and non-mated scores."""
    table = outcomes()
    open_set = table[~table["mated"]]
    partial = table[table["mated"] | (table["group"] == open_set["group"].iloc[0])]
    missing = sorted(set(open_set["group"]) - {open_set["group"].iloc[0]})
    with pytest.warns(UserWarning, match=re.escape(
            f"the development scores have no non-enrolled probes of {len(missing)} of the {table['group'].nunique()} "
            f"evaluation groups ({', '.join(repr(g) for g in missing)}): the thresholds are set on the other "
            "groups' non-enrolled probes' best scores only")):
        bf.identification_discrepancy_rate(table, fpir_targets=[0.5], dev=partial)


def test_probe_and_reference_ids_of_two_types_are_refused():
    """Probe 1 and probe "1" were two probes (a helper's audit), while the other ways in refuse
    such ids: 1 != "1"."""
    table = pd.DataFrame({"probe_id": [1, 1, "1", "1"], "reference_id": ["a", "b", "a", "b"],
                          "score": [0.9, 0.1, 0.8, 0.2], "mated": [True, False, True, False], "group": "x"})
    with pytest.raises(bf.SchemaError, match=r"^scores\['probe_id'\] holds probe ids of several types, e\.g\. 1 \(int\), "
                                             r"'1' \(str\): 1 and '1' would be two probes"):
        bf.probe_outcomes(table)
    mixed = table.assign(probe_id=["p", "p", "q", "q"], reference_id=[1, "b", 1, "b"])
    with pytest.raises(bf.SchemaError, match=r"^scores\['reference_id'\] holds reference ids of several types"):
        bf.probe_outcomes(mixed)


@pytest.mark.filterwarnings("ignore::biofair.InsufficientComparisonsWarning")  # a tiny table: its rows unresolved
def test_development_labels_that_write_the_evaluations_numbers_are_pointed_out():
    """dev read back with its groups 1, 2 as floats: FDR' warned that dev had no probes of '1'
    and '2' and held the other groups '1.0' and '2.0', without saying why (labels are compared
    as text, as every table of biofair names its groups). The warning now says it; the numbers,
    set on the same pooled probes, are those of dev=outcomes. Verification FDR warns alike."""
    table = outcomes().assign(group=lambda t: t["group"].map({"x": 1, "y": 2}))
    floats = table.assign(group=table["group"].astype(float))
    with pytest.warns(UserWarning) as caught:
        found = bf.identification_discrepancy_rate(table, fpir_targets=[0.5], dev=floats)
        bf.fairness_discrepancy_rate(pd.DataFrame({"score": table["score"], "mated": table["mated"], "group": table["group"]}),
                                     fmr_targets=[0.5], dev=pd.DataFrame({"score": table["score"], "mated": table["mated"],
                                                                          "group": floats["group"]}))
    hint = ("Labels are compared as text, and the development scores' '1.0', '2.0' write the same numbers as the "
            "evaluation's '1', '2'. Write each number one way (for whole numbers: table[column] = "
            "pd.to_numeric(table[column]).astype(int).astype(str)) in both tables")
    missing = [str(w.message) for w in caught if str(w.message).startswith("the development scores have no")]
    assert missing == [f"the development scores have no {held} of 2 of the 2 evaluation groups ('1', '2'): the "
                       f"thresholds are set on the other groups' {on} only. {hint}"
                       for held, on in (("non-enrolled probes", "non-enrolled probes' best scores"),
                                        ("comparisons", "non-mated scores"))]
    same = bf.identification_discrepancy_rate(table, fpir_targets=[0.5], dev=table.copy())
    pd.testing.assert_frame_equal(found.drop(columns="optimistic"), same.drop(columns="optimistic"))


@pytest.mark.filterwarnings("ignore::biofair.InsufficientComparisonsWarning")  # a tiny table: its rows unresolved
def test_a_development_zero_with_a_sign_is_the_evaluations_zero(recwarn):
    """Groups are named as text, zeros without their sign ('0.0', as pandas makes one group of
    -0.0 and 0.0, and as verification FDR names them): FDR' named dev's -0.0 as written, warned
    that dev lacked the group '0.0' and held another, '-0.0', and called a copy of the outcomes
    not optimistic."""
    table = outcomes().assign(group=lambda t: t["group"].map({"x": 0.0, "y": 1.0}))
    signed = table.assign(group=table["group"].map({0.0: -0.0, 1.0: 1.0}))
    assert str(signed["group"].iloc[0]) == "-0.0"
    found = bf.identification_discrepancy_rate(table, fpir_targets=[0.5], dev=signed)
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)
                and not issubclass(w.category, bf.InsufficientComparisonsWarning)]
    assert found["optimistic"].tolist() == [True]


def test_a_probe_of_two_subjects_is_refused():
    """Probe 'p' was searched as subject 'A' against two entries and as 'Z' against the third
    (two presentations under one probe_id): its ranks were taken as one search's, without a word.
    Every such probe is counted, the first named with two of its subjects (a missing one too)."""
    table = pd.DataFrame({"probe_id": ["p"] * 3 + ["q"] * 3 + ["r"] * 3, "reference_id": ["a", "b", "c"] * 3,
                          "reference_subject": ["A", "B", "C"] * 3,
                          "probe_subject": ["A", "A", "Z", "Q", "Q", "Q", "R", None, "R"],
                          "score": [0.9, 0.2, 0.1, 0.3, 0.2, 0.6, 0.5, 0.4, 0.3],
                          "mated": [True] + [False] * 8, "group": ["x"] * 3 + ["y"] * 6})
    with pytest.raises(bf.SchemaError, match="^" + re.escape(
            "invalid identification table:\n- 2 probes have rows of several probe subjects, e.g. probe 'p': 'A' and "
            "'Z'; a probe is one presentation of one subject: give each presentation its own probe_id") + "$"):
        bf.probe_outcomes(table)
    only_r = table.assign(probe_subject=["A", "A", "A", "Q", "Q", "Q", "R", None, "R"])
    with pytest.raises(bf.SchemaError, match=re.escape("1 probe has rows of several probe subjects, e.g. probe 'r': "
                                                       "'R' and nan;")):
        bf.probe_outcomes(only_r)
    one_each = table.assign(probe_subject=["A"] * 3 + ["Q"] * 3 + ["R"] * 3)
    assert bf.probe_outcomes(one_each)["rank"].tolist() == [1, 0, 0]
