"""``alpha``, the weight of the first differential, is used as the float it was checked to
be: given as a Fraction, the FDR tables held it, and the FDR computed with it, as Python
objects (an object column, which ``describe()`` leaves out), and ``alpha=1`` made an integer
column beside the float one of ``alpha=0.5``. (outcome_fairness already returned floats.)"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.synthetic import fdr_canonical_rates

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
from biofair import partitions as bp  # noqa: E402

SCORES = bf.synthetic.demographic_scores(rng=0)
OUTCOMES = bf.probe_outcomes_from_matrix(
    np.linspace(0.0, 1.0, 48).reshape(8, 6)[:, [5, 0, 3, 1, 4, 2]],
    probe_subjects=[f"s{i % 6}" if i < 6 else "x" for i in range(8)],
    gallery_subjects=[f"s{i}" for i in range(6)],
    probe_groups=list("abababab"),
)


def in_memory(alpha):
    return bf.fairness_discrepancy_rate(SCORES, fmr_targets=[1e-2, 1e-1], alpha=alpha)


def out_of_core(alpha):
    with dask.config.set(scheduler="synchronous"):
        return bp.fairness_discrepancy_rate(dd.from_pandas(SCORES, npartitions=3), fmr_targets=[1e-2, 1e-1],
                                            alpha=alpha)


def identification(alpha):
    return bf.identification_discrepancy_rate(OUTCOMES, fpir_targets=[0.5], alpha=alpha)


def canonical(alpha):
    return fdr_canonical_rates(fmr_targets=[1e-3], alpha=alpha)


@pytest.mark.filterwarnings("ignore::biofair.exceptions.InsufficientComparisonsWarning")
@pytest.mark.parametrize("table", [in_memory, out_of_core, identification, canonical])
@pytest.mark.parametrize(("given", "value"), [(Fraction(1, 3), 1 / 3), (np.int64(1), 1.0), (1, 1.0)])
def test_a_table_holds_alpha_and_its_fdr_as_floats(table, given, value):
    found, expected = table(given), table(value)
    assert (found.filter(["fdr", "alpha"]).dtypes == np.float64).all()
    pd.testing.assert_frame_equal(found, expected, check_exact=True)

