"""Cohort normalisation against exact arithmetic and loops over rows (an audit of biofair.normalisation).

The oracles: exact fractions (a mean and a population variance of binary floats are
rationals; the square root is taken in 60-digit decimals), and Python's ``statistics`` module
row by row for Z-, T- and S-norm.
"""

from __future__ import annotations

import re
import statistics
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from biofair.normalisation import cohort_scores, cohort_statistics, normalise_scores


def exact_mean_and_std(values) -> tuple[float, float]:
    """Mean and population standard deviation of ``values``, each rounded once."""
    exact = [Fraction(float(v)) for v in values]
    mean = sum(exact) / len(exact)
    variance = sum((v - mean) ** 2 for v in exact) / len(exact)
    getcontext().prec = 60
    return float(mean), float((Decimal(variance.numerator) / Decimal(variance.denominator)).sqrt())


# -- cohort_statistics: every digit --------------------------------------------------------------------

@pytest.mark.parametrize("scores", [
    [1e9 - 1, 1e9, 1e9 + 1] * 3,  # std was 0.8164965819416217, not 0.816496580927726
    [0.3 + k * 1e-9 for k in range(10)],  # std was off in its 8th digit
    [1e15 + k for k in range(10)],
    [-2.5e300, 1e300, 3e300, 7e299],
    [1e-300 * k for k in (1, 2, 5, 7)],
], ids=["1e9+-1", "0.3+k*1e-9", "1e15+k", "1e300", "1e-300"])
def test_cohort_statistics_equal_exact_arithmetic(scores):
    """The std came from a one-pass variance: a spread small beside the scores' magnitude lost
    digits (8 of 16 for cosine-like scores 0.3 + k * 1e-9)."""
    got = cohort_statistics(pd.DataFrame({"subject": "a", "score": scores}), min_size=2).loc["a"]
    mean, std = exact_mean_and_std(scores)
    assert got["mean"] == pytest.approx(mean, rel=2e-16, abs=0)
    assert got["std"] == pytest.approx(std, rel=4e-16, abs=0)
    assert got["n"] == len(scores)


def test_cohort_statistics_on_random_cohorts_equal_exact_arithmetic():
    rng = np.random.default_rng(11)
    for _ in range(40):
        centre = rng.choice([0.0, 0.7, -3e8, 1e12])
        spread = rng.choice([1e-6, 1e-2, 1.0]) * max(abs(centre), 1.0)
        n = rng.integers(2, 30, size=3)
        cohort = pd.DataFrame({"subject": np.repeat(["b", "c", "a"], n),
                               "score": centre + spread * rng.normal(size=n.sum())})
        got = cohort_statistics(cohort, min_size=2)
        assert got.index.tolist() == ["a", "b", "c"]
        for subject, scores in cohort.groupby("subject")["score"]:
            mean, std = exact_mean_and_std(scores)
            assert got.loc[subject, "mean"] == pytest.approx(mean, rel=1e-15, abs=1e-15 * std)
            assert got.loc[subject, "std"] == pytest.approx(std, rel=1e-15, abs=0)


def test_cohort_statistics_and_normalised_scores_do_not_depend_on_row_order():
    """Reversing twelve cohort scores moved the last digits of their mean and std, and with
    them every normalised score of that subject."""
    scores = [0.335, 0.382, 0.333, 0.17, 0.391, 0.345, 0.246, 0.358, 0.336, 0.329, 0.303, 0.355]
    cohort = pd.DataFrame({"subject": ["a"] * 12 + ["b"] * 12, "score": scores + [s / 2 for s in scores]})
    expected = cohort_statistics(cohort, min_size=2)
    trials = pd.DataFrame({"score": [0.9, 0.4, 0.2], "mated": [True, False, False],
                           "reference_subject": ["a", "a", "b"], "probe_subject": ["a", "b", "a"]})
    rng = np.random.default_rng(0)
    for order in [np.arange(24)[::-1], *(rng.permutation(24) for _ in range(10))]:
        got = cohort_statistics(cohort.iloc[order], min_size=2)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        for method in "zts":
            assert (normalise_scores(trials, got, method=method)["score"].tolist()
                    == normalise_scores(trials, expected, method=method)["score"].tolist())


@pytest.mark.parametrize("value", [0.1, 1 / 3, 0.7, 1e9 + 0.1, -123.456, 1e-310, 1.7e308])
@pytest.mark.parametrize("n", [2, 3, 7, 10, 101])
def test_identical_cohort_scores_have_no_statistics(value, n):
    """No spread: the key is left out (a std of 1e-17 from rounding a mean would blow its
    scores up to 1e16). A guard: the statistics now treat a cohort without spread apart."""
    cohort = pd.DataFrame({"subject": ["a"] * n + ["b"] * 3, "score": [value] * n + [0.0, 1.0, 2.0]})
    got = cohort_statistics(cohort, min_size=2)
    assert got.index.tolist() == ["b"]
    trials = pd.DataFrame({"score": [0.5, 0.1], "mated": [True, False],
                           "reference_subject": ["b", "a"], "probe_subject": ["b", "b"]})
    assert normalise_scores(trials, got, method="t")["score"].tolist() == [(0.5 - 1) / np.sqrt(2 / 3),
                                                                            (0.1 - 1) / np.sqrt(2 / 3)]


def test_a_key_that_isin_matches_but_the_statistics_lack_is_named():
    """pandas' isin matches the key 1 to a statistics row labelled True, which reindex does
    not: the two probe sides read NaN statistics, reported as "2 normalised scores overflow
    float64" (a normalisation audit). Since the second calibration audit, keys of booleans
    and of other numbers are refused as such, before any lookup (reindex reads the integer key 1
    with True's statistics in an object or integer index); it was "2 comparisons have no cohort
    statistics for their probe_subject (e.g. 1); drop them or enlarge the cohort"."""
    trials = pd.DataFrame({"score": [3.0, 0.0], "mated": [False, True],
                           "reference_subject": [0, 1], "probe_subject": [1, 1]})
    statistics_by_flag = pd.DataFrame({"mean": [0.0, 1.0], "std": [1.0, 2.0]}, index=[False, True])
    with pytest.raises(ValueError, match=r"^subject ids are booleans in the statistics' index \(bool\) but other "
                                         r"numbers in scores\['probe_subject'\] \(int64\)"):
        normalise_scores(trials, statistics_by_flag, method="t")


@pytest.mark.parametrize("blank", ["", "   "])
def test_cohort_scores_of_a_blank_key_are_refused_as_missing_ones(blank):
    """A key of spaces names no one, as an empty cell (the readers take it as missing): it got
    statistics of its own (a normalisation audit)."""
    cohort = pd.DataFrame({"subject": ["a", blank, "a", blank, "a"], "score": [1.0, 2.0, 3.0, 4.0, 5.0]})
    with pytest.raises(ValueError, match="^" + re.escape("column 'subject' has 2 missing or blank values: those cohort "
                                                         "scores belong to no one") + "$"):
        cohort_statistics(cohort, min_size=2)


def test_min_size_leaves_out_the_keys_below_it_and_says_so_downstream():
    """The error said "drop them or enlarge the cohort", not why the statistics lacked them."""
    cohort = pd.DataFrame({"subject": ["a"] * 3 + ["b"] * 4, "score": [0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 3.0]})
    assert cohort_statistics(cohort, min_size=3).index.tolist() == ["a", "b"]
    assert cohort_statistics(cohort, min_size=4).index.tolist() == ["b"]
    assert cohort_statistics(cohort, min_size=5).empty
    trials = pd.DataFrame({"score": [0.5, 0.1], "mated": [True, False],
                           "reference_subject": ["b", "b"], "probe_subject": ["b", "a"]})
    with pytest.raises(ValueError, match=r"^1 comparison has no cohort statistics for their probe_subject "
                                         r"\(e\.g\. 'a'\); drop them or enlarge the cohort \(cohort_statistics "
                                         r"leaves out the keys with fewer than min_size cohort scores"):
        normalise_scores(trials, cohort_statistics(cohort, min_size=4))
    with pytest.raises(ValueError, match=r"^1 comparison has no cohort statistics for their reference_subject "
                                         r"\(e\.g\. 'c'\).*fewer than min_size cohort scores, or whose cohort "
                                         r"scores are all equal\)$"):  # c: no spread
        normalise_scores(trials.assign(reference_subject=["b", "c"]),
                         cohort_statistics(pd.concat([cohort, pd.DataFrame({"subject": "c", "score": [0.5] * 9})]),
                                           min_size=4),
                         method="z")


# -- normalise_scores: a loop over rows ----------------------------------------------------------------

def test_group_cohort_normalisation_equals_a_loop_and_keeps_every_row_in_place():
    """Group-aware S-norm (the mitigation chapter's gender cohort), on categorical group
    columns, an unsorted duplicated index and float32 scores."""
    rng = np.random.default_rng(4)
    cohort = pd.DataFrame({"gender": rng.choice(["f", "m"], 60), "score": rng.normal(0.2, 0.1, 60)})
    stats = cohort_statistics(cohort, key="gender", min_size=5)
    n = 12
    reference = rng.choice([f"s{i}" for i in range(5)], n)
    probe = np.where(rng.random(n) < 0.4, reference, rng.choice([f"s{i}" for i in range(5, 9)], n))
    table = pd.DataFrame({
        "score": rng.normal(size=n).astype(np.float32), "mated": reference == probe,
        "reference_subject": reference, "probe_subject": probe,
        "reference_gender": pd.Categorical(rng.choice(["f", "m"], n)),
        "probe_gender": pd.Categorical(rng.choice(["m", "f"], n)),
    }, index=[7, 3, 3, 9, 0, 1, 1, 5, 2, 8, 4, 6])
    by_gender = {g: cohort.loc[cohort["gender"] == g, "score"].tolist() for g in ("f", "m")}
    for method in "zts":
        got = normalise_scores(table, stats, method=method, reference_key="reference_gender",
                               probe_key="probe_gender")
        pd.testing.assert_frame_equal(got.drop(columns="score"), table.drop(columns="score"))
        for k, row in enumerate(table.itertuples()):
            sides = {"z": [row.reference_gender], "t": [row.probe_gender],
                     "s": [row.reference_gender, row.probe_gender]}[method]
            expected = statistics.fmean((float(row.score) - statistics.fmean(by_gender[g]))
                                        / statistics.pstdev(by_gender[g]) for g in sides)
            assert got["score"].iloc[k] == pytest.approx(expected, rel=1e-14, abs=1e-15)


# -- cohort_scores: ids ----------------------------------------------------------------------------------

CROSS = pd.DataFrame({"score": [0.1, 0.3, 0.5], "mated": [False, False, False],
                      "reference_subject": ["c1", "x", "y"], "probe_subject": ["x", "c2", "c1"]}, index=[3, 3, 1])


def test_cohort_scores_refuse_missing_subject_ids():
    """A comparison with no probe id was left out without a word (was its probe in the
    cohort?), and a cohort holding None took every such comparison as a cohort score."""
    cross = CROSS.assign(probe_subject=["x", None, "c1"])
    assert cohort_scores(CROSS, {"c1", "c2"}).to_dict("list") == {"subject": ["x", "x", "y"], "score": [0.1, 0.3, 0.5]}
    with pytest.raises(ValueError, match=re.escape(
            "cross['probe_subject'] has 1 missing subject id (first in row 3): whether that side is in the cohort "
            "is unknown; fill them in or drop those comparisons")):
        cohort_scores(cross, {"c1", "c2"})
    with pytest.raises(ValueError, match=r"^cohort_subjects holds a missing subject id \(None or NaN\)"):
        cohort_scores(CROSS.assign(probe_subject=["x", None, "c1"]), {"c1", None})
    with pytest.raises(ValueError, match=r"^cohort_subjects holds a missing subject id \(None or NaN\)"):
        cohort_scores(CROSS, {"c1", np.nan})


@pytest.mark.parametrize("call, message", [
    (lambda: cohort_scores(CROSS, 3), "cohort_subjects must be a collection of subjects, e.g. {'c1', 'c2'}, got 3"),
    (lambda: cohort_scores(CROSS.to_dict("list"), {"c1"}), "cross must be a pandas DataFrame, got dict"),
    (lambda: cohort_statistics(CROSS.to_dict("list")), "cohort must be a pandas DataFrame, got dict"),
    (lambda: normalise_scores(CROSS.assign(mated=[False, False, True], probe_subject=["x", "c2", "y"]),
                              pd.Series([0.0, 1.0], index=["x", "y"])),
     "statistics must be a pandas DataFrame, got Series"),
], ids=["cohort an int", "cross a dict", "cohort a dict", "statistics a Series"])
def test_what_is_not_a_table_or_a_collection(call, message):
    """Were Python's "'int' object is not iterable" and "'dict' object has no attribute 'columns'"."""
    with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
        call()


@pytest.mark.parametrize("column, values, dtype", [
    ("std", ["1.0", "2.0"], "str"), ("std", [True, True], "bool"), ("mean", [0.0, 1.0], "object"),
])
def test_normalise_scores_refuse_statistics_that_are_not_numbers(column, values, dtype):
    """Text "2.0" was read as a std of 2, and True as a std of 1."""
    stats = pd.DataFrame({"mean": [0.0, 1.0], "std": [1.0, 2.0]}, index=["a", "b"])
    stats[column] = pd.Series(values, index=stats.index, dtype=object if dtype == "object" else None)
    table = pd.DataFrame({"score": [3.0, 0.0], "mated": [False, True],
                          "reference_subject": ["a", "b"], "probe_subject": ["b", "b"]})
    with pytest.raises(TypeError, match=rf"^statistics' column\(s\) \['{column}'\] must hold numbers, got dtype\(s\) "
                                        rf"\['{dtype}'\]: give the table of cohort_statistics$"):
        normalise_scores(table, stats)


@pytest.mark.parametrize("method", ["z", "t", "s"])
def test_a_finite_normalised_score_near_the_largest_float_is_given_not_refused(method):
    """s - mean beyond float64 (1.7e308 - -1e308), or S-norm's sum of Z and T beyond it, raised
    OverflowError although the normalised score is finite; it is now exact arithmetic's, rounded."""
    table = pd.DataFrame({"score": [1.7e308, -1.6e308, 0.5, -1.7e308], "mated": [False, False, True, False],
                          "reference_subject": ["a", "b", "a", "a"], "probe_subject": ["b", "a", "a", "b"]})
    stats = pd.DataFrame({"mean": [-1e308, 1.5e308], "std": [2.0, 4.0]}, index=["a", "b"])
    got = normalise_scores(table, stats, method=method)["score"].tolist()
    sides = {"z": ["reference_subject"], "t": ["probe_subject"], "s": ["reference_subject", "probe_subject"]}[method]
    expected = []
    for _, row in table.iterrows():
        parts = [(Fraction(row["score"]) - Fraction(stats.loc[row[side], "mean"])) / Fraction(stats.loc[row[side], "std"])
                 for side in sides]
        expected.append(float(sum(parts) / len(parts)))
    assert got == expected
    with np.errstate(over="ignore"):
        differences = [table["score"].to_numpy() - stats.loc[table[side], "mean"].to_numpy() for side in sides]
    assert np.isfinite(got).all() and not np.isfinite(differences).all()  # the case: s - mean alone overflows
