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
