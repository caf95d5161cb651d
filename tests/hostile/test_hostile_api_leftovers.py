"""Leftovers of the API audits: inputs of the identification and calibration functions that
reached NumPy's or pandas' own errors, or were read silently, now refused by name.

Correct results are checked against counts written out by hand or a loop over the probes.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf

MATRIX = np.array([[0.9, 0.2], [0.3, 0.8], [0.9, 0.5], [0.1, 0.2], [0.2, 0.1], [0.0, 0.1]])
SEARCH = {"probe_subjects": ["a", "b", "b", "z", "w", "v"], "gallery_subjects": ["a", "b"],
          "probe_groups": ["x", "y", "y", "x", "y", "x"]}
MEASURES = ["cllr", "min_cllr", "calibration_loss", "actual_dcf", "min_dcf"]


def outcomes() -> pd.DataFrame:
    return bf.probe_outcomes_from_matrix(MATRIX, **SEARCH)


def rates_by_hand(table: pd.DataFrame, rank: int) -> dict[str, float]:
    """The share of each group's enrolled probes whose mate is at ``rank`` or better, by a loop."""
    shares = {}
    for name, group in table.groupby("group"):
        ranks = group.loc[group["mated"], "rank"].tolist()
        shares[name] = sum(1 for r in ranks if r <= rank) / len(ranks)
    return shares


@pytest.mark.parametrize("max_rank", [10**20, 2**63 - 1, 1_000_001])
def test_cmc_refuses_a_max_rank_beyond_its_bound_naming_the_whole_curve(max_rank):
    """10**20 was NumPy's "Maximum allowed size exceeded", 2**63 - 1 an empty curve (np.arange
    overflowed) and 10**9 took the machine's memory: the worst rank here is 2 (probe 2's mate is
    behind 0.9), so max_rank=2 is the whole curve."""
    table = outcomes()
    assert table.loc[table["mated"], "rank"].max() == 2
    with pytest.raises(ValueError, match=re.escape(
            f"max_rank must be at most 1,000,000 (one row per rank), got {max_rank:,}: the curve is 1 in every "
            "group from rank 2, the worst rank of a mate in outcomes, on; max_rank=2 gives the whole curve")):
        bf.cmc(table, max_rank=max_rank)


def test_cmc_keeps_ranks_beyond_the_gallery_up_to_the_bound():
    """A common axis for several systems: ranks above the gallery are kept, their rates 1."""
    table = outcomes()
    curve = bf.cmc(table, max_rank=1_000_000)
    assert curve.shape == (1_000_000, 2) and curve.index[-1] == 1_000_000
    for rank in (1, 2, 3, 1_000_000):
        assert curve.loc[rank].to_dict() == rates_by_hand(table, rank)
    assert rates_by_hand(table, 1) == {"x": 1.0, "y": 0.5}


def test_cmc_bound_is_the_worst_rank_when_it_is_beyond_a_million():
    """A gallery of millions: its whole curve can be asked for, one rank more cannot."""
    worst = 1_200_000
    table = pd.DataFrame({"probe_id": range(4), "group": ["x", "x", "y", "y"], "mated": True,
                          "score": [0.9, 0.8, 0.7, 0.6], "rank": [1, worst, 3, 4],
                          "top_nonmated": [0.5] * 4})
    curve = bf.cmc(table, max_rank=worst)
    assert curve.shape == (worst, 2)
    for rank in (1, 3, 4, worst - 1, worst):
        assert curve.loc[rank].to_dict() == rates_by_hand(table, rank)
    with pytest.raises(ValueError, match=re.escape(f"max_rank must be at most {worst:,} (one row per rank), got "
                                                   f"{worst + 1:,}: the curve is 1 in every group from rank {worst:,}")):
        bf.cmc(table, max_rank=worst + 1)


def test_rank_n_differential_takes_any_rank():
    """One rank is one number: a rank beyond the gallery is every mate found (a gap of 0)."""
    assert bf.rank_n_differential(outcomes(), rank=10**20) == 0.0
    assert bf.rank_n_differential(outcomes(), rank=1) == 0.5  # x: 2 of 2 at rank 1, y: 1 of 2


@pytest.mark.parametrize(("scores", "options", "message"), [
    ([[0.9, 0.2], [0.3], [0.9, 0.5], [0.1, 0.2], [0.2, 0.1], [0.0, 0.1]], {},
     "scores is ragged: its rows are of 2 lengths (1 value, 2 values), e.g. row 0 holds 2 values and row 1 1 value; "
     "give each probe one row of 2 scores, one per gallery entry"),
    ([[0.9, 0.2], 0.3, [0.9, 0.5], [0.1, 0.2], [0.2, 0.1], [0.0, 0.1]], {},
     "scores is ragged: its rows are of 2 lengths (a single value, 2 values), e.g. row 0 holds 2 values and row 1 "
     "a single value; give each probe one row of 2 scores, one per gallery entry"),
    ([[0.9, [0.2]], [0.3, 0.8], [0.9, 0.5], [0.1, 0.2], [0.2, 0.1], [0.0, 0.1]], {},
     "scores is ragged: its rows hold nested lists where single values should be; give each probe one row of 2 "
     "scores, one per gallery entry"),
    (lambda start, stop: [[0.9, 0.2, 0.1]] + MATRIX[start + 1:stop].tolist(), {},
     "block 0:6 is ragged: its rows are of 2 lengths (2 values, 3 values), e.g. row 0 holds 3 values and row 1 "
     "2 values; give each probe one row of 2 scores, one per gallery entry"),
    (MATRIX, {"probe_subjects": [["a"], ["b", "c"], "b", "z", "w", "v"]},
     "probe_subjects is ragged: its rows are of 3 lengths (a single value, 1 value, 2 values), e.g. row 0 holds "
     "1 value and row 1 2 values; give one id per item, a flat sequence"),
    (MATRIX, {"probe_ids": [[1], [2, 3], [4], [5], [6], [7]]},
     "probe_ids is ragged: its rows are of 2 lengths (1 value, 2 values), e.g. row 0 holds 1 value and row 1 "
     "2 values; give one id per item, a flat sequence"),
])
def test_ragged_lists_are_refused_by_name_with_their_row_lengths(scores, options, message):
    """NumPy's "inhomogeneous shape" named neither the argument nor the rows."""
    with pytest.raises(bf.SchemaError, match=re.escape(message)):
        bf.probe_outcomes_from_matrix(scores, **{**SEARCH, **options})


def test_a_list_of_equal_rows_is_still_a_matrix():
    table = bf.probe_outcomes_from_matrix(MATRIX.tolist(), **SEARCH)
    # by hand: a's mate 0.9 leads; b's 0.8 leads; the second b's 0.5 is behind 0.9; z, w, v are not enrolled
    assert table["rank"].tolist() == [1, 1, 2, 0, 0, 0]
    assert table["score"].tolist() == [0.9, 0.8, 0.5, 0.2, 0.2, 0.1]


def test_masked_identities_are_refused():
    """np.asarray dropped the mask: the masked identity was searched as written."""
    masked = np.ma.masked_array(SEARCH["probe_subjects"], mask=[True, False, False, False, False, False])
    with pytest.raises(ValueError, match=re.escape("probe_subjects is a masked array with 1 masked value")):
        bf.probe_outcomes_from_matrix(MATRIX, **{**SEARCH, "probe_subjects": masked})


@pytest.mark.parametrize("fpir", [0.5, [0.5], [[0.5]], [[0.25], [0.5]], np.full((2, 1, 2), 0.4), [], [[]],
                                  "0.5", [[True]], 2.0])
def test_threshold_at_fpir_answers_every_target_shape_as_threshold_at_fmr(fpir):
    """A 2-D target gives a 2-D array in both (a float only for a scalar); refusals are worded alike."""
    table = outcomes()
    open_set = table.loc[~table["mated"], "score"].to_numpy()  # the best scores of z, w, v: 0.2, 0.2, 0.1

    def answer(function, argument):
        with warnings.catch_warnings():  # 3 non-enrolled probes: every target below 1 is unresolved
            warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
            try:
                result = function(argument, fpir)
            except (TypeError, ValueError) as error:
                return type(error), str(error).replace("fmr", "RATE").replace("fpir", "RATE")
        return type(result), np.shape(result), np.asarray(result).tolist()

    assert answer(bf.threshold_at_fpir, table) == answer(bf.threshold_at_fmr, open_set)


def test_threshold_at_fpir_of_a_2d_target_is_a_2d_array_of_the_rule():
    """By hand: 0.5 of 3 non-enrolled probes allows 1 alarm; the two best scores 0.2 are 2, so
    the threshold is the next float above 0.2 (no alarm); 1 allows all 3: the lowest, 0.1."""
    with pytest.warns(bf.InsufficientComparisonsWarning, match="below 3/N"):
        thresholds = bf.threshold_at_fpir(outcomes(), [[0.5], [1.0]])
    assert isinstance(thresholds, np.ndarray) and thresholds.shape == (2, 1)
    assert thresholds.tolist() == [[np.nextafter(0.2, np.inf)], [0.1]]


def calibration_table() -> pd.DataFrame:
    return pd.DataFrame({"cllr": [0.2, 0.4], "min_cllr": [0.1, 0.1], "calibration_loss": [0.1, 0.3],
                         "actual_dcf": [0.3, 0.6], "min_dcf": [0.2, 0.3]}, index=["a", "b"])


@pytest.mark.parametrize("column", [["0.2", "0.4"], pd.array(["0.2", "0.4"], dtype="string"),
                                    pd.Categorical(["0.2", "0.4"]), [0.2, "0.4"]])
def test_calibration_fairness_refuses_numbers_written_as_text(column):
    """"0.2" was read as 0.2 by to_numpy(dtype=float), where every other function refuses text."""
    table = calibration_table().assign(cllr=column, min_dcf=column)
    example = "'0.4' in group 'b'" if isinstance(column, list) and column[0] == 0.2 else "'0.2' in group 'a'"
    with pytest.raises(TypeError, match=re.escape(
            f"by_group holds text in the column(s) 'cllr' (e.g. {example}), 'min_dcf' (e.g. {example}): convert "
            "them to numbers first, e.g. by_group[['cllr', 'min_dcf']] = by_group[['cllr', 'min_dcf']]"
            ".apply(pandas.to_numeric)")):
        bf.calibration_fairness(table)
    converted = table.copy()
    converted[["cllr", "min_dcf"]] = converted[["cllr", "min_dcf"]].apply(pd.to_numeric)  # the advice works
    assert bf.calibration_fairness(converted).loc["cllr", ["max_gap", "ratio"]].tolist() == [0.4 - 0.2, 0.4 / 0.2]


@pytest.mark.parametrize(("column", "dtype"), [([True, False], "bool"), (pd.array([True, False], dtype="boolean"),
                                                                      "boolean"),
                                              ([0.2 + 0j, 0.4 + 0j], "complex128"),
                                              (np.array([1, 2], dtype="m8[s]"), "timedelta64[s]")])
def test_calibration_fairness_refuses_values_that_are_not_real_numbers(column, dtype):
    """Booleans were read as costs 1 and 0 (a ratio of inf with a warning); complex numbers
    lost their imaginary part with NumPy's ComplexWarning; durations failed in NumPy."""
    with pytest.raises(TypeError, match="^" + re.escape(
            f"by_group's column(s) 'min_dcf' ({dtype}) must hold real numbers: give the table of "
            "calibration_by_group, whose measures are costs") + "$"):
        bf.calibration_fairness(calibration_table().assign(min_dcf=column))


@pytest.mark.parametrize(("value", "shown"), [(True, "True"), (1j, "1j"), (pd.NA, "<NA>")])
def test_calibration_fairness_refuses_objects_that_are_not_real_numbers(value, shown):
    """In an object column a boolean was read as the cost 1 (a ratio of 10), and <NA> or a complex
    number was Python's "float() argument must be a string or a real number" (a calibration
    audit); the group is named."""
    table = calibration_table().assign(cllr=np.array([0.2, value], dtype=object))
    with pytest.raises(TypeError, match="^" + re.escape(
            f"by_group's column(s) 'cllr' (e.g. {shown} in group {table.index[1]!r}) must hold real numbers") + ": "):
        bf.calibration_fairness(table)


def test_calibration_fairness_keeps_numbers_held_as_objects():
    """Python floats in an object column are numbers, not text."""
    table = calibration_table().assign(cllr=np.array([0.2, 0.4], dtype=object))
    fairness = bf.calibration_fairness(table)
    assert fairness.loc["cllr", ["max_gap", "ratio"]].tolist() == [0.4 - 0.2, 0.4 / 0.2]
    assert fairness.loc["min_cllr", ["max_gap", "ratio"]].tolist() == [0.0, 1.0]


def test_ids_of_two_types_get_a_repair_that_fits_where_they_came_from():
    """Probe ids given as a list, or probe_id columns, were told to read 'reference_subject'
    and 'probe_subject' as text with pd.read_csv: advice about other columns of another input."""
    with pytest.raises(bf.SchemaError) as error:
        bf.probe_outcomes_from_matrix(MATRIX, **SEARCH, probe_ids=[1, "1", 2, 3, 4, 5])
    assert str(error.value).endswith("Give every id as text or every id as a number, e.g. [str(i) for i in ids]")
    with pytest.raises(bf.SchemaError) as error:
        bf.probe_outcomes_from_matrix(MATRIX, **{**SEARCH, "probe_subjects": [1, "b", "b", "z", "w", "v"]})
    assert "reference_subject" not in str(error.value) and "[str(i) for i in ids]" in str(error.value)
    table = pd.DataFrame({"probe_id": [1, 1, "2", "2"], "reference_id": ["a", "b", "a", "b"],
                          "score": [0.9, 0.1, 0.8, 0.2], "mated": [True, False, True, False], "group": "x"})
    with pytest.raises(bf.SchemaError) as error:
        bf.probe_outcomes(table)
    assert str(error.value).endswith("Read the ids as text, e.g. pd.read_csv(path, dtype={'probe_id': str, "
                                     "'reference_id': str}), or convert them one way (scores[column].astype(str))")


def test_api_counts_agree_with_their_nouns():
    """Were: "1 integer scores beyond ±2^53", "1 missing identities", "1 mated comparisons",
    "1 normalised scores overflow", and "subject ids are missing: {'reference_subject': 1} rows
    of the scores, 0 rows of the attributes' 'subject' column"."""
    with pytest.raises(ValueError, match=r"^mated has 1 integer score beyond ±2\^53 \(e.g. 9007199254740993\)"):
        bf.tmr_at_fmr(np.array([2**53 + 1, 0]), np.array([0, 1]), 0.5)
    outcomes = dict(probe_subjects=["a", None, None], gallery_subjects=["a", "b"], probe_groups=["x", "x", "y"])
    with pytest.raises(bf.SchemaError, match="probe_subjects has 2 missing identities: "):
        bf.probe_outcomes_from_matrix(np.zeros((3, 2)), **outcomes)
    with pytest.raises(ValueError, match="^counts must be whole, positive numbers of comparisons; 1 count is not: "):
        bf.inequity([0.1, 0.2], counts=[10, 0.5])
    cross = pd.DataFrame({"score": [0.1, 0.2], "mated": [True, False], "reference_subject": ["x", "x"],
                          "probe_subject": ["c1", "c1"]})
    with pytest.raises(ValueError, match="^a cohort holds impostors only: cross has 1 mated comparison$"):
        bf.normalisation.cohort_scores(cross, {"c1"})
    scores = pd.DataFrame({"score": [0.9, 0.1], "mated": [True, False], "reference_subject": ["a", None],
                           "probe_subject": [None, None]})
    attributes = pd.DataFrame({"subject": ["a", None], "gender": ["f", "m"]})
    with pytest.raises(bf.SchemaError, match=r"^subject ids are missing: in 1 row of the scores' 'reference_subject' "
                                             r"column, in 2 rows of the scores' 'probe_subject' column, in 1 row of "
                                             r"the attributes' 'subject' column$"):
        bf.add_subject_attributes(scores, attributes)
