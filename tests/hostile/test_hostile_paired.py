"""Hostile inputs to the bootstrap's subject clusters, ``paired_bootstrap`` and ``ranking_flips``:
two systems that are not row by row the same trials, a single subject, subjects missing,
and orientations that name no compared metric are refused instead of giving an interval."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from hostile import example

BOTH_RESAMPLERS = {
    "bootstrap": lambda table, **kw: bf.bootstrap(bf.roc_auc, table, n_resamples=40, rng=0, **kw),
    "paired_bootstrap": lambda table, **kw: bf.paired_bootstrap(
        bf.roc_auc, table, table.assign(score=2 * table["score"]), n_resamples=40, rng=0, **kw),
}


def swapped(table: pd.DataFrame, columns: list[str], i: int = 6, j: int = -1) -> pd.DataFrame:
    """``table`` with the values of ``columns`` of rows ``i`` and ``j`` (two non-mated rows) swapped."""
    out = table.copy()
    rows = [i, j % len(table)]
    for column in columns:
        out.iloc[rows, out.columns.get_loc(column)] = out.iloc[rows[::-1], out.columns.get_loc(column)].to_numpy()
    return out


def test_paired_systems_on_misaligned_trials_are_refused():
    """System B's rows 6 (A00 vs A34) and 7919 (C39 vs C25) traded places; both non-mated, so
    the labels still agreed and each was resampled with the wrong partner of system A, without a
    word. With B's rows shuffled within each class, the subject interval of the ROC-AUC
    difference (200 resamples, seed 0) widened from [-0.0238, -0.0173] to [-0.0298, -0.0114]."""
    a = example()
    b = swapped(a.assign(score=a["score"] + 0.5 * a["mated"]), ["reference_subject", "probe_subject", "score"])
    message = ("scores_a and scores_b must hold the same trials in the same order: column 'reference_subject' "
               "differs in 2 rows (first at position 6: 'A00' vs 'C39'); order both tables the same way")
    for unit in ("pair", "subject"):
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            bf.paired_bootstrap(bf.roc_auc, a, b, n_resamples=40, rng=0, unit=unit)


def test_paired_systems_with_different_subject_clusters_are_refused():
    """Only system A's clusters were read: B's subject column was ignored."""
    base = example()
    a = base[["score", "mated"]].assign(speaker=base["reference_subject"])
    b = swapped(a, ["speaker"])
    message = ("scores_a and scores_b must hold the same trials in the same order: column 'speaker' "
               "differs in 2 rows (first at position 6: 'A00' vs 'C39'); order both tables the same way")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        bf.paired_bootstrap(bf.roc_auc, a, b, n_resamples=40, rng=0, unit="subject", cluster="speaker")
    bf.paired_bootstrap(bf.roc_auc, a, b, n_resamples=40, rng=0)  # pairs: the speaker column plays no part


@pytest.mark.parametrize("resampler", BOTH_RESAMPLERS)
def test_one_subject_is_no_subject_bootstrap(resampler):
    """One subject gave every resample the full data: the interval [0.975, 0.975] of the ROC
    AUC (bootstrap) and a 'significant' difference of width 0 (paired_bootstrap)."""
    table = example().query("reference_subject == 'A00'")
    message = ("unit='subject' needs at least 2 subjects: column 'reference_subject' holds only 'A00', so every "
               "resample would repeat the data (an interval of width 0); use unit='pair'")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        BOTH_RESAMPLERS[resampler](table, unit="subject")


@pytest.mark.parametrize("resampler", BOTH_RESAMPLERS)
def test_missing_subjects_are_refused(resampler):
    """pd.factorize coded the 66 rows of the missing subject -1, which indexed the last
    cluster: they were resampled with subject C39's comparisons."""
    table = example()
    table["speaker"] = table["reference_subject"].where(table["reference_subject"] != "A00")
    message = ("unit='subject' needs a subject in every row: column 'speaker' has 66 missing values; "
               "fill them (a subject each) or use unit='pair'")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        BOTH_RESAMPLERS[resampler](table, unit="subject", cluster="speaker")


def paired(difference: float, low: float, high: float) -> bf.PairedResult:
    return bf.PairedResult(difference, low, high, 0.5, 0.95, 10, "pair", "percentile", np.zeros(10))


def test_a_flip_reads_the_side_of_its_interval():
    """x's interval [0.01, 0.02] says A is better, y's [-0.02, -0.005] says B is: a flip. The
    sign was read from the estimates, and x's estimate 0 (outside its percentile interval)
    counted as 'B is better': no flip reported."""
    comparisons = {"x": paired(0.0, 0.01, 0.02), "y": paired(-0.01, -0.02, -0.005)}
    assert bf.ranking_flips(comparisons) == [("x", "y")]
    assert bf.ranking_flips(comparisons, higher_is_better={"y": False}) == []


@pytest.mark.parametrize("orientation, error, message", [
    ({"EER": False}, ValueError, "higher_is_better names metrics that were not compared: ['EER']; "
                                 "the comparisons are ['tmr', 'eer']"),
    ({"eer": "False"}, TypeError, "higher_is_better must map each metric to True or False, got {'eer': 'False'}"),
], ids=["unknown name", "text"])
def test_an_orientation_that_cannot_apply_is_refused(orientation, error, message):
    """Both were read as 'higher is better' for eer: its significant drop (A better, lower EER)
    and tmr's rise were reported as the flip [('tmr', 'eer')]."""
    comparisons = {"tmr": paired(0.05, 0.02, 0.08), "eer": paired(-0.01, -0.02, -0.005)}
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        bf.ranking_flips(comparisons, higher_is_better=orientation)


def defined_without_repeats(mated, nonmated) -> float:
    """ROC AUC, undefined (NaN) where a mated score repeats: on the 20 distinct mated scores
    of the full data it is defined; a resample of 20 keeps them all distinct with
    probability 20!/20^20 (2e-8), so it is NaN on every one."""
    return float("nan") if np.unique(mated).size < np.size(mated) else bf.roc_auc(mated, nonmated)


NAN_RESAMPLERS = {
    "bootstrap": (lambda table: bf.bootstrap(defined_without_repeats, table, n_resamples=50, rng=0),
                  " (strata= keeps every group in each resample)"),
    "paired_bootstrap": (lambda table: bf.paired_bootstrap(
        defined_without_repeats, table, table.assign(score=table["score"] ** 3), n_resamples=50, rng=0), ""),
}


@pytest.mark.parametrize("resampler", NAN_RESAMPLERS)
def test_a_statistic_undefined_on_resamples_gives_no_interval(resampler):
    """The interval was [nan, nan] without a word, and paired_bootstrap reported p(A > B) = 0.0
    and 'not significant' from 50 NaN differences."""
    table = bf.synthetic.gaussian_scores(n_mated=20, n_nonmated=200, rng=0)
    run, hint = NAN_RESAMPLERS[resampler]
    message = ("the statistic is NaN on 50 of 50 resamples, so no interval can be read from them; "
               f"make it defined and finite on every resample{hint}")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        run(table)


@pytest.mark.parametrize("resampler", ["bootstrap", "paired_bootstrap"])
def test_a_statistic_that_returns_no_number_is_named(resampler):
    """It was Python's 'float() argument must be a string or a real number, not 'EqualErrorRate''."""
    table = bf.synthetic.gaussian_scores(n_mated=20, n_nonmated=200, rng=0)
    run = {"bootstrap": lambda: bf.bootstrap(bf.eer, table, n_resamples=40, rng=0),
           "paired_bootstrap": lambda: bf.paired_bootstrap(bf.eer, table, table, n_resamples=40, rng=0)}[resampler]
    message = ("the statistic must return a number, got EqualErrorRate: wrap it to pick one, "
               "e.g. lambda mated, nonmated: bf.eer(mated, nonmated).eer")
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        run()


@pytest.mark.parametrize("call", [
    lambda table, **kw: bf.bootstrap(bf.roc_auc, table, rng=0, **kw),
    lambda table, **kw: bf.paired_bootstrap(bf.roc_auc, table, table.assign(score=2 * table["score"]), rng=0, **kw),
    lambda table, **kw: bf.fairness_summary(table, by="group", unit="pair", n_permutations=10, rng=0, **kw),
], ids=["bootstrap", "paired_bootstrap", "fairness_summary"])
def test_too_few_resamples_for_the_interval_are_refused(call):
    """One resample gave an interval of zero width that excluded its own estimate (0.9283 to
    0.9283 around a ROC-AUC of 0.9393); differential_report already refused it."""
    table = bf.synthetic.gaussian_scores(n_mated=300, n_nonmated=3_000, rng=0).assign(
        group=lambda t: np.where(np.arange(len(t)) % 2 == 0, "a", "b"))
    for n_resamples, confidence, fewest, shown in ((1, 0.95, 40, "95"), (39, 0.95, 40, "95"), (19, 0.9, 20, "90")):
        with pytest.raises(ValueError, match=rf"^n_resamples={n_resamples} is too few for {shown}% intervals: "
                                             rf"give at least {fewest}, so that each interval has a resample beyond"):
            call(table, n_resamples=n_resamples, confidence=confidence)
    call(table, n_resamples=40, confidence=0.95)
