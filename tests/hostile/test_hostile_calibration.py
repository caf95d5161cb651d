"""Hostile inputs to calibration, mitigation, normalisation and tail extrapolation: a correct
result (checked against a hand formula or the same data at another scale) or biofair's error
naming the argument, column or value at fault; never inf, NaN or a silently dropped row."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import biofair as bf

RNG = np.random.default_rng(24)
MATED, NONMATED = RNG.normal(1.0, 1.0, 300), RNG.normal(-1.0, 1.2, 900)
TWO_GROUPS = pd.DataFrame({"score": [2.0, -1.0, 0.5, 1.0, -3.0, 0.0],
                           "mated": [True, False, True, True, False, False],
                           "group": ["a", "a", "a", "b", "b", "b"]})


# -- Cllr: LLRs near the largest float ----------------------------------------------------------

@pytest.mark.parametrize("mated, nonmated, expected", [
    # one misleading LLR each: mean(ln(1+e^x)) = x/2 to double precision
    ([-1e300, 1.0], [1e300, -1.0], (1e300 / 2 + math.log1p(math.exp(-1.0)) / 2) / math.log(2)),
    # the sum of the two costs 1.7e308 + 1.7e308 overflows; their mean does not
    ([-1.7e308, -1.7e308], [-5.0], (1.7e308 + math.log1p(math.exp(-5.0))) / (2 * math.log(2))),
    # confident, right LLRs: costs of 1e-300 keep their digits (no scaling where none is needed)
    ([690.0], [-690.0], math.log1p(math.exp(-690.0)) / math.log(2)),
], ids=["1e300", "two 1.7e308", "costs of 1e-300"])
def test_cllr_of_huge_llrs_is_finite_and_right(mated, nonmated, expected):
    assert bf.cllr(mated, nonmated) == pytest.approx(expected, rel=1e-15)


def test_cllr_beyond_the_largest_float_is_an_error_not_inf():
    with pytest.raises(OverflowError, match=r"^Cllr exceeds the largest float64: LLRs of magnitude up to 1.7e\+308"):
        bf.cllr([-1.7e308, -1.7e308], [1.7e308, 1.7e308])
    table = TWO_GROUPS.assign(score=[-1.7e308, 1.7e308, 0.5, 1.0, -3.0, 0.0])
    with pytest.raises(OverflowError, match="Cllr exceeds the largest float64"):
        bf.calibration_by_group(table, p_target=0.5)  # was inf in group a, 8e307 pooled


# -- options of the DCFs --------------------------------------------------------------------------

@pytest.mark.parametrize("options, error, message", [
    ({"c_fa": np.inf}, ValueError, r"c_fa must lie in \(0, inf\), got inf"),  # was NaN
    ({"c_miss": np.nan}, ValueError, r"c_miss must lie in \(0, inf\), got nan"),
    ({"c_miss": 0.0}, ValueError, r"c_miss must lie in \(0, inf\), got 0.0"),
    ({"p_target": "0.5"}, TypeError, r"p_target must be a number, got '0.5'"),  # was numpy's '<' message
    ({"p_target": 1.0}, ValueError, r"p_target must lie in \(0, 1\), got 1.0"),
], ids=["c_fa inf", "c_miss nan", "c_miss 0", "p_target str", "p_target 1"])
def test_dcf_options_are_checked(options, error, message):
    with pytest.raises(error, match=message):
        bf.actual_dcf([1.0, 2.0], [0.0], **options)


@pytest.mark.parametrize("x", [40.0, 1000.0, -1000.0])
def test_prior_log_odds_whose_prior_rounds_to_0_or_1_are_named(x):
    with pytest.raises(ValueError, match=rf"^prior_log_odds must give a prior strictly between 0 and 1 .* got {x!r}"):
        bf.bayes_error_rates([1.0, 2.0], [0.0], prior_log_odds=[0.0, x])


# -- logistic calibration -----------------------------------------------------------------------

@pytest.mark.parametrize("factor", [2.0**1000, 1e300, 1e-300, 2.0**-1000, 3.0, 1 / 3],
                         ids=["2^1000", "1e300", "1e-300", "2^-1000", "3", "1/3"])
def test_logistic_calibration_at_any_scale(factor):
    """The LLR of a score does not depend on the unit it is written in; near 1e308 the mean of
    the scores overflowed, near 1e-310 their spread was 0 and Newton did not converge. The fit
    runs to the end of Newton's convergence: at 1e300 it stopped 1e-8 off on an AVX-512 CPU
    (its last step, which changed the loss by less than the loss's rounding, was halved away)."""
    reference = bf.fit_logistic_calibration(MATED, NONMATED)
    fit = bf.fit_logistic_calibration(MATED * factor, NONMATED * factor)
    assert fit.scale * factor == pytest.approx(reference.scale, rel=1e-12)
    assert fit.offset == pytest.approx(reference.offset, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(fit.transform(MATED * factor), reference.transform(MATED), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mated, nonmated, options, error, message", [
    ([1.0, 1.0], [1.0, 1.0], {}, ValueError, r"^all 4 scores equal 1.0: they hold no evidence"),  # was "separates"
    (MATED * 1e-310, NONMATED * 1e-310, {}, ValueError, r"slope .* exceeds the largest float64: scores of magnitude"),
    (MATED, NONMATED, {"max_iter": 0}, ValueError, r"^max_iter must be at least 1, got 0"),
    (MATED, NONMATED, {"max_iter": -1}, ValueError, r"^max_iter must be at least 1, got -1"),
    (MATED, NONMATED, {"max_iter": 1.5}, TypeError, r"^max_iter must be an integer, got 1.5"),
], ids=["all equal", "subnormal", "max_iter 0", "max_iter -1", "max_iter 1.5"])
def test_logistic_calibration_refuses(mated, nonmated, options, error, message):
    with pytest.raises(error, match=message):
        bf.fit_logistic_calibration(mated, nonmated, **options)


def test_a_calibration_that_overflows_is_an_error():
    with pytest.raises(OverflowError, match=r"overflows float64 for 1 score \(scale 1e\+300"):
        bf.LogisticCalibration(1e300, 0.0, 0.5).transform([1.0, 1e10])


# -- per-group calibration and its fairness -----------------------------------------------------

def test_a_group_named_like_the_pooled_row_is_refused():
    """It was overwritten by the pooled row: one group fewer, without a word."""
    with pytest.raises(bf.SchemaError, match=r"a group is labelled '\(all\)', the name of the row of all groups pooled"):
        bf.calibration_by_group(TWO_GROUPS.replace({"a": "(all)"}), p_target=0.5)


@pytest.mark.parametrize("labels", [[1, 1, 1, "x", "x", "x"], [2, 2, 2, 10, 10, 10]], ids=["int and str", "ints"])
def test_mixed_type_labels_form_their_groups(labels):
    """1 and "x" in one column crashed inside numpy's sort (DTypePromotionError)."""
    table = TWO_GROUPS.assign(group=pd.Series(labels, dtype=object))
    by_group = bf.calibration_by_group(table, p_target=0.5)
    expected = bf.calibration_by_group(TWO_GROUPS, p_target=0.5)
    names = [str(labels[0]), str(labels[3])]
    np.testing.assert_array_equal(by_group.loc[names, "cllr"], expected.loc[["a", "b"], "cllr"])
    assert by_group.loc[names, ["n_mated", "n_nonmated"]].to_numpy().sum() == len(table)


def test_labels_that_read_the_same_are_refused():
    table = TWO_GROUPS.assign(group=pd.Series([1, 1, 1, "1", "1", "1"], dtype=object))
    with pytest.raises(bf.SchemaError, match=r"distinct labels that read the same: 1 \(int\), '1' \(str\)"):
        bf.calibration_by_group(table)


def by_group_table(**columns) -> pd.DataFrame:
    table = pd.DataFrame({"cllr": [0.2, 0.4], "min_cllr": [0.1, 0.1], "calibration_loss": [0.1, 0.3],
                          "actual_dcf": [0.3, 0.6], "min_dcf": [0.2, 0.3]}, index=["a", "b"])
    return table.assign(**columns)


@pytest.mark.parametrize("table, message", [
    (by_group_table(cllr=[np.nan, 0.4]), r"^cllr must be finite and non-negative in every group; it is not in 'a': nan"),
    (by_group_table(cllr=[np.inf, 0.4]), r"^cllr must be finite and non-negative .* 'a': inf"),
    (by_group_table(min_cllr=[-0.1, 0.1]), r"^min_cllr must be finite and non-negative .* 'a': -0.1"),
    (by_group_table().drop(columns="min_dcf"), r"^by_group lacks the column\(s\) \['min_dcf'\]"),
    (by_group_table().iloc[:1], r"^calibration fairness compares groups: by_group has 1 besides '\(all\)'"),
    (by_group_table().iloc[:0], r"^calibration fairness compares groups: by_group has 0"),
], ids=["nan", "inf", "negative", "missing column", "one group", "no group"])
def test_calibration_fairness_names_the_measure_and_group(table, message):
    """NaN and inf were reported as rates outside [0, 1]; an empty table as numpy's reduction error."""
    with pytest.raises(ValueError, match=message):
        bf.calibration_fairness(table)


def test_calibration_fairness_of_a_zero_value_is_infinite_and_named():
    """A perfectly separated group (minDCF 0) raised, which withheld the gap and GARBE too."""
    with pytest.warns(bf.UndefinedRateWarning, match=r"^min_dcf is 0 in 'b': 0.0: its ratio and inequity"):
        fairness = bf.calibration_fairness(by_group_table(min_dcf=[0.3, 0.0]))
    assert fairness.loc["min_dcf"].to_dict() == {"max_gap": 0.3, "ratio": np.inf, "garbe": 1.0, "inequity": np.inf}
    assert fairness.loc["cllr", "ratio"] == 2.0  # the other measures as before


def test_calibration_fairness_of_all_zero_values_is_perfect():
    fairness = bf.calibration_fairness(by_group_table(min_dcf=[0.0, 0.0]))  # no warning (filterwarnings=error)
    assert fairness.loc["min_dcf"].to_dict() == {"max_gap": 0.0, "ratio": 1.0, "garbe": 0.0, "inequity": 1.0}


# -- mitigation ---------------------------------------------------------------------------------

DEMOGRAPHIC = bf.synthetic.demographic_scores(rng=0)


@pytest.mark.parametrize("thresholds, error, message", [
    ({"a": np.nan, "b": 0.0, "c": 0.0}, ValueError, r"^the threshold of group 'a' is NaN"),  # was FMR 0, FNMR 1
    ({"a": "x", "b": 0.0, "c": 0.0}, TypeError, r"^the threshold of group 'a' must be a number, got 'x'"),
    ({"a": 0.0, "b": 0.0}, ValueError, r"^no threshold for the groups \['c'\]"),
    ({"a": 0.0, "b": 0.0, "c": 0.0, "C": 0.0}, ValueError,
     r"^thresholds for groups that the scores do not have: \['C'\] \(groups: \['a', 'b', 'c'\]\)"),
], ids=["nan", "str", "missing", "unused"])
def test_group_thresholds_are_checked(thresholds, error, message):
    with pytest.raises(error, match=message):
        bf.mitigation.rates_at_group_thresholds(DEMOGRAPHIC, thresholds)


def test_one_target_per_call_of_group_thresholds():
    """A list of targets returned the thresholds of the first one only."""
    with pytest.raises(TypeError, match=r"^fmr must be one target FMR, got \[0.01, 0.001\]"):
        bf.mitigation.group_thresholds(DEMOGRAPHIC, fmr=[1e-2, 1e-3])


@pytest.mark.parametrize("column", ["reference_subject", "probe_subject"])
def test_a_split_by_subject_refuses_missing_subjects(column):
    table = DEMOGRAPHIC.assign(**{column: DEMOGRAPHIC[column].where(DEMOGRAPHIC.index % 5 > 0)})
    with pytest.raises(ValueError, match=rf"^column '{column}' has 2,241 missing subjects \(first in row 0\)"):
        bf.mitigation.subject_disjoint_split(table, rng=0)


@pytest.mark.parametrize("second", ["p", "p, q", "p / q"])
def test_per_side_composite_groups_are_calibrated_under_their_names(second):
    """Per-side labels were joined with ", " while the fitted groups are named with " / ":
    every composite group was 'without calibration' (and "p, q" could collide)."""
    table = DEMOGRAPHIC.assign(reference_x=np.where(DEMOGRAPHIC.index % 2, second, "r"))
    table["probe_x"] = table["reference_x"]
    fits = bf.mitigation.fit_group_calibration(table, by=["group", "x"])
    calibrated = bf.mitigation.apply_group_calibration(table, fits, by=["group", "x"])
    # independent: the pair-level composite label of each row, then its map
    names = bf.group_labels(pd.DataFrame({"group": table["reference_group"], "x": table["reference_x"]}), by=["group", "x"])
    homogeneous = (table["reference_group"] == table["probe_group"]).to_numpy()
    expected = [fits[n].scale * s + fits[n].offset for n, s in zip(names[homogeneous], table["score"][homogeneous])]
    np.testing.assert_allclose(calibrated["score"][homogeneous], expected, rtol=1e-15)


def test_group_calibration_that_overflows_is_an_error():
    fits = bf.mitigation.fit_group_calibration(DEMOGRAPHIC)
    with pytest.raises(OverflowError, match=r"overflows float64 for [\d,]+ comparisons"):
        bf.mitigation.apply_group_calibration(DEMOGRAPHIC.assign(score=DEMOGRAPHIC["score"] * 1e307), fits)


def test_pareto_front_names_a_missing_objective():
    with pytest.raises(ValueError, match=r"^no objective column \['b'\] among \['a'\]"):
        bf.mitigation.pareto_front(pd.DataFrame({"a": [1.0, 2.0]}), {"b": "min"})


# -- normalisation ------------------------------------------------------------------------------

COHORT = pd.DataFrame({"subject": ["x"] * 20 + ["y"] * 20, "score": RNG.normal(size=40)})


@pytest.mark.parametrize("cohort, options, error, message", [
    (pd.concat([COHORT, pd.DataFrame({"subject": [None] * 5, "score": 0.0})]), {}, ValueError,
     r"^column 'subject' has 5 missing or blank values: those cohort scores belong to no one$"),  # were dropped by groupby
    (COHORT.assign(score=COHORT["score"].where(COHORT.index > 0)), {}, ValueError,
     r"^score contains 1 NaN and 0 infinite values"),  # was skipped by the mean
    (COHORT, {"min_size": -1}, ValueError, r"^min_size must be at least 2, got -1"),
    (COHORT, {"min_size": np.nan}, TypeError, r"^min_size must be an integer, got nan"),  # gave an empty table
    (COHORT, {"key": "speaker"}, ValueError, r"^the cohort needs the columns 'score' and 'speaker'"),
], ids=["missing key", "nan score", "min_size -1", "min_size nan", "no key column"])
def test_cohort_statistics_refuse(cohort, options, error, message):
    with pytest.raises(error, match=message):
        bf.normalisation.cohort_statistics(cohort, **options)


PAIRS = pd.DataFrame({"score": [3.0, 0.0], "mated": [False, True],
                      "reference_subject": ["a", "b"], "probe_subject": ["b", "b"]})
STATS = pd.DataFrame({"mean": [0.0, 1.0], "std": [1.0, 2.0]}, index=["a", "b"])


@pytest.mark.parametrize("scores, statistics, error, message", [
    (PAIRS, STATS.assign(std=[1.0, 0.0]), ValueError, r"^statistics of 'b' \(mean 1.0, std 0.0\)"),  # was ±inf
    (PAIRS, STATS.assign(std=[1.0, np.nan]), ValueError, r"^statistics of 'b' \(mean 1.0, std nan\)"),  # was NaN
    (PAIRS, STATS.drop(columns="std"), ValueError, r"^statistics lacks the column\(s\) \['std'\]"),
    (PAIRS, pd.concat([STATS, STATS]), ValueError, r"^statistics has several rows for 'a'"),
    (PAIRS.drop(columns="probe_subject"), STATS, ValueError, r"^no column 'probe_subject' names the cohort"),
    (PAIRS.assign(score=[1.7e308, -1.7e308]), STATS.assign(mean=[-1.7e308, 1.7e308], std=[0.5, 0.5]), OverflowError,
     r"^2 normalised scores overflow float64"),  # +-6.8e308 (Z and T scores alike)
], ids=["std 0", "std nan", "no std", "duplicate key", "no probe column", "overflow"])
def test_normalise_scores_refuses(scores, statistics, error, message):
    with pytest.raises(error, match=message):
        bf.normalisation.normalise_scores(scores, statistics)


# -- tail extrapolation -------------------------------------------------------------------------

TAIL = np.random.default_rng(10).normal(size=2000)


@pytest.mark.parametrize("factor", [2.0**1000, 1e307, 1e-310, 2.0**-1030], ids=["2^1000", "1e307", "1e-310", "2^-1030"])
def test_extrapolated_fmr_at_any_scale(factor):
    """At 1e307 the mean excess overflowed (FMR 0.1 instead of 6e-6, scale inf); at 1e-310 the
    interval [5.6e-4, 5.6e-4] did not hold its own estimate."""
    reference = bf.extrapolated_fmr(TAIL, 3.5)
    tail = bf.extrapolated_fmr(TAIL * factor, 3.5 * factor)
    assert tail.estimate == pytest.approx(reference.estimate, rel=1e-8)
    assert tail.high == pytest.approx(reference.high, rel=1e-6)
    assert tail.low <= tail.estimate <= tail.high
    assert tail.scale / factor == pytest.approx(reference.scale, rel=1e-8)


@pytest.mark.parametrize("factor", [1e300, 1e-310], ids=["1e300", "1e-310"])
def test_extrapolated_threshold_at_any_scale(factor):
    reference = bf.extrapolated_threshold(TAIL, 1e-5)
    tail = bf.extrapolated_threshold(TAIL * factor, 1e-5)
    for field in ("estimate", "low", "high", "tail_start"):
        assert getattr(tail, field) / factor == pytest.approx(getattr(reference, field), rel=1e-6)


def test_subsample_coverage_names_a_fraction_too_small():
    """It said 'nonmated is empty: at least one comparison score is needed'."""
    with pytest.raises(ValueError, match=r"^fraction=1e-06 draws 0 of 2000 scores; a tail of min_tail=50 needs at least 51"):
        bf.subsample_coverage(TAIL, 2.5, fraction=1e-6, n_repeats=2, rng=0)


# -- reproduction ledger ------------------------------------------------------------------------

def paper_rows(paper: str = "cei", table: str = "Table 4") -> pd.DataFrame:
    from biofair.reproduction import _paper_values

    values = _paper_values()
    return values[(values["paper"] == paper) & (values["table"] == table)]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
def test_a_book_value_the_book_could_not_compute_is_no_deviation(bad):
    """A NaN book value passed wherever the paper's row expects 'differs' (cei Table 4)."""
    rows = paper_rows()
    assert (rows["expected"] == "differs").any()
    book = dict(zip(rows["quantity"], rows["paper_value"].astype(float)))
    quantity = rows.loc[rows["expected"] == "differs", "quantity"].iloc[0]
    book[quantity] = bad
    with pytest.raises(ValueError, match=rf"^cei Table 4: book values not finite for 1 quantity, e.g. \{{'{quantity}': {bad!r}\}}"):
        bf.reproduction_ledger("cei", "Table 4", book)


def test_a_book_value_given_twice_is_refused():
    rows = paper_rows()
    book = pd.Series(rows["paper_value"].astype(float).to_numpy(), index=rows["quantity"].to_numpy())
    with pytest.raises(ValueError, match=r"book values given twice for \["):
        bf.reproduction_ledger("cei", "Table 4", pd.concat([book, book.iloc[:1]]))


def test_infinite_llrs_are_evidence_and_nan_is_not():
    """pav_llrs' own example gives [0, inf] and [-inf, 0]: cllr, actual_dcf and
    bayes_error_rates refused them as non-finite scores, though min_cllr is their Cllr."""
    mated, nonmated = bf.pav_llrs([0.6, 0.9], [0.1, 0.7])
    assert np.isinf(mated).any() and np.isinf(nonmated).any()
    assert bf.cllr(mated, nonmated) == bf.min_cllr([0.6, 0.9], [0.1, 0.7]) == 0.5
    assert bf.actual_dcf(mated, nonmated, p_target=0.5) == 0.5
    assert bf.bayes_error_rates(mated, nonmated, prior_log_odds=[0.0])["actual_dcf"].tolist() == [0.5]
    with pytest.raises(ValueError, match=r"^Cllr is infinite: a mated LLR is -inf, infinite evidence for the wrong answer$"):
        bf.cllr([-np.inf, 1.0], [0.0])
    with pytest.raises(ValueError, match=r"^Cllr is infinite: a non-mated LLR is \+inf"):
        bf.cllr([1.0], [0.0, np.inf])
    for call in (bf.cllr, bf.actual_dcf):
        with pytest.raises(ValueError, match=r"^nonmated contains 1 NaN value: leave out the comparisons without a "
                                             r"score, or decide how to count them, before computing a metric$"):
            call([1.0], [0.0, np.nan])


def test_prior_log_odds_of_text_or_one_value_are_named_as_such():
    """Text said "prior_log_odds must hold numeric scores", one number "must be a sequence of
    scores": they are not comparison scores."""
    with pytest.raises(TypeError, match=r"^prior_log_odds must hold numeric prior log-odds values, got dtype <U1$"):
        bf.bayes_error_rates([1.0, 2.0], [0.0, -1.0], prior_log_odds=["a"])
    with pytest.raises(TypeError, match=r"^prior_log_odds must be a sequence of prior log-odds values \(a list, an "
                                        r"array or a Series\), got set; make it a list first"):
        bf.bayes_error_rates([1.0, 2.0], [0.0, -1.0], prior_log_odds={0.0})


def test_no_prior_log_odds_is_named_as_such():
    """[] said "at least one comparison score is needed"."""
    with pytest.raises(ValueError, match=r"^prior_log_odds is empty: give at least one operating point's prior log-odds$"):
        bf.bayes_error_rates([1.0, 2.0], [0.0, -1.0], prior_log_odds=[])
