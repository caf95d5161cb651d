"""Hostile numbers and options given to the Python API: a correct result or biofair's error.

Correct results are checked against an independent computation (exact decimal arithmetic,
or the same data at another power-of-two scale, which every index must ignore exactly).
"""

from __future__ import annotations

import warnings
from decimal import Decimal, getcontext

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from hostile import EXAMPLE, example

RNG = np.random.default_rng(19)
MATED, NONMATED = RNG.normal(2.0, 1.0, 200), RNG.normal(0.0, 1.3, 800)


def decimal_decidability(mated, nonmated) -> float:
    """d' in 60-digit decimal arithmetic from the exact values of the floats."""
    getcontext().prec = 60

    def moments(values):
        exact = [Decimal(float(v)) for v in values]
        mean = sum(exact) / len(exact)
        return mean, sum((v - mean) ** 2 for v in exact) / len(exact)

    (mean_m, var_m), (mean_n, var_n) = moments(mated), moments(nonmated)
    return float(abs(mean_m - mean_n) / ((var_m + var_n) / 2).sqrt())


@pytest.mark.parametrize("scale", [1.0, 1e300, 2.0**1000, 1e-300, 1e-310, 2.0**-1060])
def test_decidability_at_any_scale(scale):
    """Near 1e300 squares overflow and near 1e-310 they underflow; d' must not notice."""
    mated, nonmated = MATED * scale, NONMATED * scale
    assert bf.decidability(mated, nonmated) == pytest.approx(decimal_decidability(mated, nonmated), rel=1e-13)
    if np.log2(scale) == int(np.log2(scale)) and scale > 2.0**-1022:  # exact scaling
        assert bf.decidability(mated, nonmated) == bf.decidability(MATED, NONMATED)


def test_subnormal_scores_have_a_variance():
    assert bf.decidability([1e-310, 3e-310], [-1e-310, 1e-310]) == pytest.approx(2.0, rel=1e-9)


def every_number(table: pd.DataFrame) -> dict[str, float]:
    """Every index of the report, at the same settings, on one table."""
    mated, nonmated = bf.split_scores(table)
    numbers = {"roc_auc": bf.roc_auc(mated, nonmated), "eer": bf.eer(mated, nonmated).eer,
               "decidability": bf.decidability(mated, nonmated),
               "dfi": bf.distribution_fairness_index(table).extreme,
               "garbe": bf.outcome_fairness(table, fmr=1e-2).garbe}
    for kind in ("mated", "nonmated"):
        numbers[f"cei_{kind}"] = bf.comprehensive_equity_index(table, kind=kind).extreme
        with warnings.catch_warnings(record=True) as caught:  # the example's mated tails are empty
            warnings.simplefilter("always")
            numbers[f"cei_auto_{kind}"] = bf.automatic_comprehensive_equity_index(table, kind=kind).extreme
        numbers[f"cei_auto_{kind} warnings"] = [str(w.message) for w in caught]
    fdr = bf.fairness_discrepancy_rate(table, fmr_targets=[1e-1, 1e-2, 1e-3])
    numbers |= {f"fdr {t:g}": v for t, v in zip(fdr["fmr_target"], fdr["fdr"])}
    report = bf.operating_summary(mated, nonmated, fmr_targets=[0.1, 0.01], pauc_bounds=[0.1, 0.01], min_fmr=0.01)
    numbers |= {f"{m} {f:g}": v for m, f, v in zip(report["metric"], report["fmr_target"], report["value"])}
    return numbers


def test_scores_spanning_the_whole_float_range():
    """Scores from -9e307 to 1.5e308: their range overflows; every index is the one of the
    same scores at ordinary scale (multiplying by a power of two changes none of them)."""
    table = example()
    k = 1024 - int(np.ceil(np.log2(table["score"].abs().max())))
    huge = table.assign(score=np.ldexp(table["score"].to_numpy(), k))
    assert float(huge["score"].max()) - float(huge["score"].min()) == float("inf")
    assert every_number(huge) == every_number(table)


def test_integers_beyond_two_to_the_53():
    exact = np.array([2**53, 2**53 - 1], dtype=np.int64)
    assert bf.roc_auc(exact, exact - 2) == 1.0  # representable: kept exactly
    with pytest.raises(ValueError, match=r"^mated has 2 integer scores beyond ±2\^53 \(e.g. 9007199254740993\)"):
        bf.roc_auc(np.array([2**53 + 1, 2**53 + 3]), np.array([2**53 + 2]))
    with pytest.raises(bf.SchemaError, match=r"column 'score' has 2 integer values beyond ±2\^53"):
        bf.validate_scores(pd.DataFrame({"score": [2**62 + 1, 2**62], "mated": [True, False]}))


def all_equal():
    return example().assign(score=0.5)


def one_score_group():
    extra = pd.DataFrame({"reference_subject": ["Z0", "Z0"], "probe_subject": ["Z0", "Z1"], "group": ["Z", "Z"],
                          "score": [3.0, 0.0], "mated": [True, False]})
    return pd.concat([example(), extra], ignore_index=True)


TABLE = example()
CASES = {
    # degenerate data: a correct value, or an error naming the value or group at fault
    "all-equal scores: AUC": (lambda: bf.roc_auc(*bf.split_scores(all_equal())), 0.5),
    "all-equal scores: EER": (lambda: bf.eer(*bf.split_scores(all_equal())).eer, 0.5),
    "all-equal scores: DFI": (lambda: bf.distribution_fairness_index(all_equal()).extreme, 1.0),
    "all-equal scores: d'": (lambda: bf.decidability(*bf.split_scores(all_equal())),
                             (ValueError, r"decidability is undefined: mated and nonmated both have zero variance")),
    "all-equal scores: CEI": (lambda: bf.comprehensive_equity_index(all_equal()),
                              (bf.SchemaError, r"group 'A': all 240 mated scores fall in the tail .* tied scores")),
    "a group with one score: CEI": (lambda: bf.comprehensive_equity_index(one_score_group()),
                                    (bf.SchemaError, r"group 'Z': its one mated score falls in the tail")),
    "boolean score column": (lambda: bf.validate_scores(TABLE.assign(score=TABLE["mated"])),
                             (bf.SchemaError, r"column 'score' holds booleans \(dtype bool\)")),
    "duplicate column names": (lambda: bf.validate_scores(pd.concat([TABLE, TABLE[["score"]]], axis=1)),
                               (bf.SchemaError, r"duplicate column name\(s\): \['score'\]")),
    # options of the wrong type or value
    "outcome_fairness(threshold=nan)": (lambda: bf.outcome_fairness(TABLE, threshold=float("nan")),
                                        (ValueError, r"^threshold is NaN")),
    "outcome_fairness(threshold='0.5')": (lambda: bf.outcome_fairness(TABLE, threshold="0.5"),
                                          (TypeError, r"^threshold must be a number, got '0.5'")),
    "outcome_fairness(fmr=nan)": (lambda: bf.outcome_fairness(TABLE, fmr=float("nan")),
                                  (ValueError, r"^fmr must lie in \[0, 1\]")),
    "outcome_fairness(fmr=[0.1])": (lambda: bf.outcome_fairness(TABLE, fmr=[0.1]),  # was numpy's "only 0-dimensional arrays"
                                    (TypeError, r"^fmr must be one target FMR, got \[0.1\]$")),
    "fmr_targets=0.1": (lambda: bf.fairness_discrepancy_rate(TABLE, fmr_targets=0.1),
                        (TypeError, r"^fmr_targets must be a sequence of rates, e.g. \[0.01\], got 0.1")),
    "fmr_targets=[[]]": (lambda: bf.fairness_discrepancy_rate(TABLE, fmr_targets=[[]]),
                         (ValueError, r"^fmr_targets must be a non-empty, flat sequence of rates, got \[\[\]\]")),
    "fmr_targets=['0.1']": (lambda: bf.fairness_discrepancy_rate(TABLE, fmr_targets=["0.1"]),
                            (TypeError, r"^fmr_targets must be a rate or an array of rates")),
    "operating_summary fmr_targets=0.1": (lambda: bf.operating_summary(MATED, NONMATED, fmr_targets=0.1),
                                         (TypeError, r"^fmr_targets must be a sequence")),
    "by=None": (lambda: bf.fairness_discrepancy_rate(TABLE, by=None),
                (TypeError, r"^by must be a column name or a list of column names, got None")),
    "by=[]": (lambda: bf.scores_by_group(TABLE, by=[]), (ValueError, r"^by must name at least one column")),
    "by=['group', 'group']": (lambda: bf.group_sizes(TABLE, by=["group", "group"]),
                              (ValueError, r"^by names a column more than once")),
    "by=[1]": (lambda: bf.group_labels(TABLE, by=[1]), (TypeError, r"^by must hold column names")),
    "cross_group_fmr by=None": (lambda: bf.cross_group_fmr(TABLE, 0.5, by=None), (TypeError, r"^by must be a column name or a list")),
    "alpha='0.5'": (lambda: bf.fairness_discrepancy_rate(TABLE, alpha="0.5"), (TypeError, r"^alpha must be a number, got '0.5'")),
    "alpha=nan": (lambda: bf.outcome_fairness(TABLE, fmr=0.1, alpha=float("nan")), (ValueError, r"^alpha must lie in \[0, 1\], got nan")),
    "alpha=2": (lambda: bf.fairness_discrepancy_rate(TABLE, alpha=2), (ValueError, r"^alpha must lie in \[0, 1\], got 2")),
    "rng=-1": (lambda: bf.bootstrap(bf.roc_auc, (MATED, NONMATED), n_resamples=40, rng=-1),
               (ValueError, r"^rng must be a non-negative integer seed \(or a numpy Generator, or None\), got -1")),
    "rng='seed'": (lambda: bf.permutation_null(lambda t: 1.0, TABLE, n_permutations=2, rng="seed"), (TypeError, r"^rng must be")),
    "rng=1.5": (lambda: bf.subset_performance(TABLE, size=50, rng=1.5), (TypeError, r"^rng must be")),
    "n_resamples='10'": (lambda: bf.bootstrap(bf.roc_auc, (MATED, NONMATED), n_resamples="10"),
                         (TypeError, r"^n_resamples must be an integer, got '10'")),
    "n_resamples=0": (lambda: bf.bootstrap(bf.roc_auc, (MATED, NONMATED), n_resamples=0),
                      (ValueError, r"^n_resamples must be at least 1, got 0")),
    "confidence=95": (lambda: bf.bootstrap(bf.roc_auc, (MATED, NONMATED), confidence=95),
                      (ValueError, r"^confidence must lie in \(0, 1\), got 95")),
    "n_permutations=2.0": (lambda: bf.permutation_null(lambda t: 1.0, TABLE, n_permutations=2.0),
                           (TypeError, r"^n_permutations must be an integer, got 2.0")),
    # fairness_summary's nulls no longer go through permutation_null, whose check this was
    "fairness_summary n_permutations=0": (lambda: bf.fairness_summary(TABLE, n_resamples=40, n_permutations=0),
                                          (ValueError, r"^n_permutations must be at least 1, got 0")),
    "bins=10**9": (lambda: bf.distribution_fairness_index(TABLE, bins=10**9),
                   (ValueError, r"^bins must be at most 1,000,000, got 1,000,000,000")),
    "bins=0": (lambda: bf.comprehensive_equity_index(TABLE, bins=0), (ValueError, r"^bins must be at least 1, got 0")),
    "bins=10.5": (lambda: bf.automatic_comprehensive_equity_index(TABLE, bins=10.5), (TypeError, r"^bins must be an integer")),
    "percentile=nan": (lambda: bf.comprehensive_equity_index(TABLE, percentile=float("nan")),
                       (ValueError, r"^percentile must lie in \(0, 100\), got nan")),
    "tail_weight='0.8'": (lambda: bf.comprehensive_equity_index(TABLE, tail_weight="0.8"), (TypeError, r"^tail_weight must be a number")),
    "n_std=inf": (lambda: bf.automatic_comprehensive_equity_index(TABLE, n_std=float("inf")),
                  (ValueError, r"^n_std must lie in \(0, inf\), got inf")),
    "greater_is_match='False'": (lambda: bf.read_scores("x.csv", greater_is_match="False"),
                                 (TypeError, r"^greater_is_match must be True or False, got 'False'")),
    "format='xml'": (lambda: bf.read_scores(EXAMPLE, format="xml"), (ValueError, r"format must be 'auto', 'csv', 'parquet' or 'bob', got 'xml'")),
    "missing_groups='drop'": (lambda: bf.read_grouped_scores(EXAMPLE, missing_groups="drop"),
                              (ValueError, r"^missing_groups must be 'raise' or 'group', got 'drop'")),
    "one_class_groups='drop'": (lambda: bf.read_grouped_scores(EXAMPLE, one_class_groups="drop"),
                                (ValueError, r"^one_class_groups must be 'raise' or 'keep', got 'drop'")),
    "columns=['score']": (lambda: bf.read_scores(EXAMPLE, columns=["score"]), (TypeError, r"^columns must map file column names")),
    "a pair of three files": (lambda: bf.read_scores((EXAMPLE, EXAMPLE, EXAMPLE)),
                              (ValueError, r"^path must be one file or a \(mated_file, nonmated_file\) pair, got 3 files")),
    # found by a review of the API with hostile options (each gave a number before, or numpy's message)
    "rates_by_group thresholds=[nan]": (lambda: bf.rates_by_group(TABLE, [float("nan")]),  # was: FMR 0, FNMR 1
                                        (ValueError, r"^thresholds has 1 NaN value: no comparison can be decided")),
    "rates_by_group thresholds=[None]": (lambda: bf.rates_by_group(TABLE, [None]),
                                         (TypeError, r"^thresholds must be numbers, got \[None\]")),
    "rates_by_group thresholds=[]": (lambda: bf.rates_by_group(TABLE, []),  # was: a table with no rows
                                     (ValueError, r"^thresholds must be one number or a non-empty, flat sequence, got shape \(0,\)")),
    "rates_by_group thresholds=[[0.5, 1.5]]": (lambda: bf.rates_by_group(TABLE, [[0.5, 1.5]]),
                                               (ValueError, r"^thresholds must be one number or a non-empty, flat sequence, got shape \(1, 2\)")),
    "fmr_fnmr thresholds=True": (lambda: bf.fmr_fnmr(MATED, NONMATED, True), (TypeError, r"^thresholds must be numbers, got True")),
    "fmr_fnmr thresholds='0.1'": (lambda: bf.fmr_fnmr(MATED, NONMATED, "0.1"), (TypeError, r"^thresholds must be numbers, got '0.1'")),
    "operating_point threshold='0.5'": (lambda: bf.operating_point(MATED, NONMATED, threshold="0.5"),
                                        (TypeError, r"^threshold must be a number, got '0.5'")),
    "operating_point fmr=[0.1, 0.2]": (lambda: bf.operating_point(MATED, NONMATED, fmr=[0.1, 0.2]),
                                       (TypeError, r"^fmr must be one target FMR, got \[0.1, 0.2\]")),
    "complex scores": (lambda: bf.eer(np.array([1 + 5j, 2]), NONMATED),  # was: the imaginary part dropped
                       (TypeError, r"^mated must hold numeric scores, got dtype complex128")),
    "complex score column": (lambda: bf.validate_scores(TABLE.assign(score=TABLE["score"] + 1j)),
                             (bf.SchemaError, r"column 'score' holds complex numbers \(dtype complex128\)")),
    "masked scores": (lambda: bf.eer(MATED, np.ma.masked_array(NONMATED, mask=NONMATED > 2)),  # was: masked values counted
                      (ValueError, r"^nonmated is a masked array with \d+ masked values, which NumPy would pass on")),
    "masked thresholds": (lambda: bf.fmr_fnmr(MATED, NONMATED, np.ma.masked_array([0.0, 1.0], mask=[0, 1])),
                          (ValueError, r"^thresholds is a masked array with 1 masked value")),
    "masked inequity counts": (lambda: bf.inequity([0.01, 0.1], counts=np.ma.masked_array([10, 20], mask=[0, 1])),
                               (ValueError, r"^counts is a masked array with 1 masked value")),
    "complex rates": (lambda: bf.garbe(np.array([0.1, 0.2 + 0j])), (TypeError, r"^rates must be a rate or an array of rates")),
    "garbe of a 2-D array": (lambda: bf.garbe([[0.1, 0.2], [0.3, 0.4]]),  # was: four groups
                             (ValueError, r"^rates must hold one rate per group, shape \(K,\), got shape \(2, 2\)")),
    "inequity counts=[nan, 10]": (lambda: bf.inequity([0.0, 0.1], counts=[float("nan"), 10]),  # was: nan
                                  (ValueError, r"^counts must be whole, positive numbers of comparisons; 1 count is not: \[nan\]")),
    "inequity counts=[2.5, 10]": (lambda: bf.inequity([0.0, 0.1], counts=[2.5, 10]),
                                  (ValueError, r"^counts must be whole, positive numbers of comparisons; 1 count is not: \[2.5\]")),
    "inequity counts=[10]": (lambda: bf.inequity([0.01, 0.1], counts=[10]),
                             (ValueError, r"^counts must give one number of comparisons per rate, shape \(2,\), got shape \(1,\)")),
    "inequity counts=['a', 20]": (lambda: bf.inequity([0.01, 0.1], counts=["a", 20]), (TypeError, r"^counts must be numbers")),
    "statistical_parity of a rate 1.5": (lambda: bf.statistical_parity([1.5], [0.2]),  # was: -0.3
                                         (ValueError, r"^a must lie in \[0, 1\]; 1 value does not")),
    "equal_opportunity of a rate -3": (lambda: bf.equal_opportunity([0.5], [-3]), (ValueError, r"^b must lie in \[0, 1\]")),
    "min_dcf c_miss=inf": (lambda: bf.min_dcf(MATED, NONMATED, c_miss=float("inf")),  # was: inf
                           (ValueError, r"^c_miss must lie in \(0, inf\), got inf")),
    "min_dcf p_target='0.5'": (lambda: bf.min_dcf(MATED, NONMATED, p_target="0.5"), (TypeError, r"^p_target must be a number")),
    "log_fmr_auc min_fmr=1e-320": (lambda: bf.log_fmr_auc(MATED, NONMATED, min_fmr=1e-320),  # was: nan
                                   (ValueError, r"^min_fmr must lie in \[2\*\*-1022, 1\], got 1e-320: 2\*\*-1022 = 2.2250738585072014e-308 is "
                                                r"the smallest normal float")),
    "partial_auc max_fmr=5e-324": (lambda: bf.partial_auc(MATED, NONMATED, max_fmr=5e-324),  # was: 0
                                   (ValueError, r"^max_fmr must lie in \[2\*\*-1022, 1\], got 5e-324: ")),
    "operating_summary pauc_bounds=[1e-310]": (lambda: bf.operating_summary(MATED, NONMATED, pauc_bounds=[1e-310]),
                                               (ValueError, r"^pauc_bounds must lie in \[2\*\*-1022, 1\], got 1e-310: ")),
    "operating_summary pauc_bounds=[0.0]": (lambda: bf.operating_summary(MATED, NONMATED, pauc_bounds=[0.0]),
                                            (ValueError, r"^pauc_bounds must lie in \[2\*\*-1022, 1\], got 0.0$")),
}


@pytest.mark.parametrize("name", CASES)
def test_hostile_call(name):
    call, expected = CASES[name]
    if isinstance(expected, tuple):
        error, message = expected
        with pytest.raises(error, match=message):
            call()
    else:
        assert call() == expected


def test_composite_labels_never_merge():
    table = pd.DataFrame({"score": [0.9, 0.1, 0.8, 0.2], "mated": [True, False, True, False],
                          "a": ["x / y", "x / y", "x", "x"], "b": ["z", "z", "y / z", "y / z"]})
    groups = bf.scores_by_group(table, by=["a", "b"])
    assert list(groups) == ["'x' / 'y / z'", "'x / y' / 'z'"]
    assert [g.mated.tolist() for g in groups.values()] == [[0.8], [0.9]]


@pytest.mark.parametrize("resample", ["bootstrap", "permutation_null"])
def test_a_resampled_index_warns_once_about_resolution(resample):
    """The estimate warns that FMR 1e-4 is below 3/N; its hundreds of resamples stay quiet."""
    table = example().iloc[::4]

    def index(t):
        return float(bf.fairness_discrepancy_rate(t, fmr_targets=[1e-1, 1e-4])["fdr"].min())

    with pytest.warns(bf.InsufficientComparisonsWarning, match=r"target FMR 0.0001 is below 3/N") as caught:
        if resample == "bootstrap":
            bf.bootstrap(index, table, data="table", n_resamples=40, rng=0)
        else:
            bf.permutation_null(index, table, n_permutations=20, rng=0)
    assert len(caught) == 1


@pytest.mark.parametrize("call", [
    lambda: bf.garbe([0.1, 0.2], correction="no"),
    lambda: bf.outcome_fairness(TABLE, fmr=0.1, correction="no"),
])
def test_a_correction_that_is_not_a_bool_is_refused(call):
    """correction="no" applied the K/(K-1) correction (a non-empty string is true)."""
    with pytest.raises(TypeError, match=r"^correction must be True or False, got 'no'$"):
        call()
