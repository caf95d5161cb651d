"""Hostile inputs to the bootstrap's subject clusters: a single subject and subjects missing
are refused instead of giving an interval."""

from __future__ import annotations

import re

import pytest

import biofair as bf
from hostile import example

BOTH_RESAMPLERS = {
    "bootstrap": lambda table, **kw: bf.bootstrap(bf.roc_auc, table, n_resamples=20, rng=0, **kw),
    "paired_bootstrap": lambda table, **kw: bf.paired_bootstrap(bf.roc_auc, table, table.assign(score=2 * table["score"]),
                                                                n_resamples=20, rng=0, **kw),
}


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
