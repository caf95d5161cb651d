"""Second audit of the bootstrap and the out-of-core metrics: messages that name the bad input."""

from __future__ import annotations

import numpy as np
import pytest

import biofair as bf


def test_a_paired_scores_b_without_the_cluster_column_is_named():
    """scores_a names its subjects, so unit='subject' is the default; scores_b, a table without
    that column or arrays, was refused as "unit='subject' needs a score table with a
    'reference_subject' column", which scores_a has and the caller never asked for."""
    a = bf.synthetic.gaussian_scores(n_mated=50, n_nonmated=200, rng=0)
    a["reference_subject"] = np.arange(len(a)) % 10
    for b in (a.drop(columns="reference_subject"), bf.split_scores(a)):
        with pytest.raises(ValueError, match=r"^unit='subject' \(the default, as scores_a has a 'reference_subject' "
                                             r"column\) needs scores_b to be a table with the 'reference_subject' "
                                             r"column too, with the same values row by row; add it to scores_b, or "
                                             r"pass unit='pair'$"):
            bf.paired_bootstrap(bf.roc_auc, a, b, n_resamples=40, rng=0)
        with pytest.raises(ValueError, match=r"^unit='subject' needs scores_b to be a table with the "):
            bf.paired_bootstrap(bf.roc_auc, a, b, unit="subject", n_resamples=40, rng=0)


def test_an_undefined_resample_with_strata_given_does_not_advise_strata():
    """A statistic NaN on one resample: the message advised "(strata= keeps every group in each
    resample)" to a caller who had passed strata='group'; without strata the advice stays."""
    table = bf.synthetic.gaussian_scores(n_mated=30, n_nonmated=100, rng=0)
    table["group"] = np.where(np.arange(len(table)) % 2, "a", "b")

    def nan_on_the_fourth_call():
        calls = iter(range(1000))
        return lambda rows: float("nan") if next(calls) == 3 else float(rows["score"].mean())

    message = "the statistic is NaN on 1 of 40 resamples, so no interval can be read from them; make it defined and "
    with pytest.raises(ValueError, match=rf"^{message}finite on every resample$"):
        bf.bootstrap(nan_on_the_fourth_call(), table, data="table", strata="group", n_resamples=40, rng=0)
    with pytest.raises(ValueError, match=rf"^{message}finite on every resample \(strata= keeps every group in each "):
        bf.bootstrap(nan_on_the_fourth_call(), table, data="table", n_resamples=40, rng=0)
