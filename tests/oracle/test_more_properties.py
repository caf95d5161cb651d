"""Properties a function-by-function audit of the test standard found missing: every rate-based
metric is unchanged when every score is copied the same number of times (rates are shares, not
counts), and the cross-group FMR table transposes when the two sides of every pair swap."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import biofair as bf
from biofair.exceptions import SchemaError
from test_more_metrics_vs_definitions import quiet  # the resolution warnings depend on the counts, which copying changes
from test_property_gaps import table_of

MODEST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Small integer grids: many ties within and across the classes (as tests/unit/test_properties.py).
tied = st.lists(st.integers(-6, 6), min_size=1, max_size=20)


TARGETS = np.array([1.0, 0.5, 0.3, 0.1, 0.05, 0.0])
SINGLE = {
    "roc_auc": lambda m, n: bf.roc_auc(m, n),
    "partial_auc": lambda m, n: bf.partial_auc(m, n, max_fmr=0.3),
    "partial_auc_std": lambda m, n: bf.partial_auc(m, n, max_fmr=0.3, standardized=True),
    "log_fmr_auc": lambda m, n: bf.log_fmr_auc(m, n, min_fmr=0.05),
    "pr_auc": lambda m, n: bf.pr_auc(m, n),
    "eer_rocch": lambda m, n: tuple(bf.eer(m, n))[:4],
    "eer_midpoint": lambda m, n: tuple(bf.eer(m, n, method="midpoint"))[:4],
    "eer_interval": lambda m, n: tuple(bf.eer(m, n, method="interval"))[:4],
    "min_dcf": lambda m, n: bf.min_dcf(m, n, p_target=0.3, c_miss=2.0),
    "threshold_at_fmr": lambda m, n: tuple(quiet(bf.threshold_at_fmr, n, TARGETS)),
    "tmr_at_fmr": lambda m, n: tuple(quiet(bf.tmr_at_fmr, m, n, TARGETS)),
    "fmr_fnmr": lambda m, n: tuple(np.r_[bf.fmr_fnmr(m, n, np.arange(-7.0, 8.0, 0.5))[:2]].ravel()),
    "operating_point": lambda m, n: tuple(quiet(bf.operating_point, m, n, fmr=0.1)[:3]),
    "roc_curve": lambda m, n: tuple(np.r_[tuple(bf.roc_curve(m, n))].ravel()),
    "det_curve": lambda m, n: tuple(np.r_[tuple(bf.det_curve(m, n))].ravel()),
    "decidability": lambda m, n: bf.decidability(m, n) if np.ptp(np.r_[m]) or np.ptp(np.r_[n]) else 0.0,
    "cllr": lambda m, n: bf.cllr(m / 4, n / 4),
    "min_cllr": lambda m, n: bf.min_cllr(m / 4, n / 4),
    "actual_dcf": lambda m, n: bf.actual_dcf(m / 4, n / 4, p_target=0.2),
    "bayes_error_rates": lambda m, n: tuple(
        bf.bayes_error_rates(m / 4, n / 4, prior_log_odds=[-1.5, 0.0, 2.0]).to_numpy().ravel()),
}


@pytest.mark.parametrize("name", sorted(SINGLE))
@MODEST
@given(mated=tied, nonmated=tied, copies=st.integers(2, 3))
def test_copying_every_score_changes_no_rate_based_metric(name, mated, nonmated, copies):
    """Every mated and every non-mated score copied the same number of times: each FMR and FNMR
    is the same share, so each curve, area, threshold, EER, DCF and Cllr is the same; d' uses
    population variances (SPEC 2), which copying keeps too."""
    m, n = np.array(mated, dtype=float), np.array(nonmated, dtype=float)
    metric = SINGLE[name]
    value = metric(m, n)
    copied = metric(np.repeat(m, copies), np.tile(n, copies))
    np.testing.assert_allclose(np.array(copied, dtype=float), np.array(value, dtype=float), rtol=1e-12, atol=1e-15)


tiny_groups = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.tuples(st.lists(st.integers(-4, 4), min_size=2, max_size=10),
              st.lists(st.integers(-4, 4), min_size=3, max_size=20)),
    min_size=2, max_size=3,
)


def assert_same_indices(before: dict[str, object], after: dict[str, object]) -> None:
    """The same indices, each to 1e-12 (a label, such as a group's name, only as text)."""
    assert before.keys() == after.keys()
    for name, value in before.items():
        if isinstance(value, str):
            assert isinstance(after[name], str), name
        else:
            np.testing.assert_allclose(np.array(after[name], dtype=float), np.array(value, dtype=float),
                                       rtol=1e-12, atol=1e-15, err_msg=name)


def group_indices(table: pd.DataFrame, threshold: float) -> dict[str, object]:
    fdr = quiet(bf.fairness_discrepancy_rate, table, fmr_targets=[1.0, 0.5, 0.2, 0.05])
    values: dict[str, object] = {"fdr": fdr[["threshold", "A", "B", "fdr"]].to_numpy()}
    for options in ({"threshold": threshold}, {"fmr": 0.2}):
        out = quiet(bf.outcome_fairness, table, **options)
        key = next(iter(options))
        values[f"garbe_{key}"] = (out.garbe_fmr, out.garbe_fnmr, out.garbe)
        values[f"rates_{key}"] = out.rates[["fmr", "fnmr"]].to_numpy()
        # Inequity's zero-rate bound 1 - 0.05^(1/n) depends on n by design: compare it only without zeros
        if (out.rates["fmr"] > 0).all():
            values[f"inequity_fmr_{key}"] = out.inequity_fmr
        if (out.rates["fnmr"] > 0).all():
            values[f"inequity_fnmr_{key}"] = out.inequity_fnmr
    for combine in ("pooled", "equal"):
        dfi = quiet(bf.distribution_fairness_index, table, bins=7, combine=combine)
        values[f"dfi_{combine}"] = (dfi.normal, dfi.extreme)
    for kind in ("mated", "nonmated"):
        try:
            auto = quiet(bf.automatic_comprehensive_equity_index, table, kind=kind, bins=7, n_std=1.0)
        except SchemaError as error:  # documented: a group with nothing beyond mu ± N·sigma, or no centre
            values[f"ceia_{kind}"] = str(error)
        else:
            values[f"ceia_{kind}"] = (auto.normal, auto.extreme, auto.parameters["tail_weight"],
                                      *auto.parameters["percentiles"].values())
    return values


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups=tiny_groups, copies=st.integers(2, 3), threshold=st.integers(-8, 8).map(lambda v: v / 2))
def test_copying_every_row_changes_no_group_index(groups, copies, threshold):
    """Every row of the table copied: FDR (pooled thresholds at shares of the pooled scores),
    GARBE and the per-group rates at a threshold and at a target FMR, Inequity where no rate is
    zero, DFI (normalised histograms) and CEIᴬ (its split is a share of the group's scores
    beyond mu ± N·sigma, population moments) are unchanged. CEI is not in this list: its split
    is NumPy's linearly interpolated percentile (SPEC 5), which copying moves between two
    scores."""
    table = table_of(groups)
    assume(table["score"].nunique() > 1)
    before = group_indices(table, threshold)
    after = group_indices(pd.concat([table] * copies, ignore_index=True), threshold)
    assert_same_indices(before, after)


@MODEST
@given(rows=st.lists(st.tuples(st.integers(-4, 4), st.sampled_from(["a", "b", "c"]), st.sampled_from(["a", "b", "c"])),
                     min_size=1, max_size=30),
       threshold=st.integers(-5, 5).map(float))
def test_cross_group_fmr_transposes_when_the_sides_swap(rows, threshold):
    """Reference and probe groups swapped in every non-mated pair: the enrolment x probe table is
    transposed, cell for cell (NaN where a cell has no pairs), and no cell moves otherwise."""
    names = sorted({g for _, r, p in rows for g in (r, p)})
    # every group needs mated and homogeneous non-mated pairs to be compared
    base = [(0.0, True, g, g) for g in names] + [(0.0, False, g, g) for g in names]
    table = pd.DataFrame(base + [(float(s), False, r, p) for s, r, p in rows],
                         columns=["score", "mated", "reference_group", "probe_group"])
    assume(len(names) >= 2)
    swapped = table.rename(columns={"reference_group": "probe_group", "probe_group": "reference_group"})
    forward, backward = bf.cross_group_fmr(table, threshold), bf.cross_group_fmr(swapped, threshold)
    np.testing.assert_array_equal(backward.to_numpy(), forward.to_numpy().T)
    assert list(backward.index) == list(forward.columns) and list(backward.columns) == list(forward.index)


def cohort_case(draw_scores, draw_cohort):
    subjects = [f"s{i}" for i in range(len(draw_cohort))]
    cohort = pd.DataFrame({"subject": np.repeat(subjects, [len(c) for c in draw_cohort]),
                           "score": np.concatenate(draw_cohort).astype(float)})
    rows = [(float(s), i % 2 == 0, subjects[i % len(subjects)], subjects[(i + i % 2) % len(subjects)])
            for i, s in enumerate(draw_scores)]  # mated rows: one subject on both sides
    table = pd.DataFrame(rows, columns=["score", "mated", "reference_subject", "probe_subject"])
    return cohort, table


@MODEST
@given(draw_scores=st.lists(st.integers(-20, 20), min_size=2, max_size=12),
       draw_cohort=st.lists(st.lists(st.integers(-20, 20), min_size=3, max_size=12).filter(lambda v: len(set(v)) > 1),
                            min_size=2, max_size=5),
       scale=st.sampled_from([0.25, 3.0, 1e3]), shift=st.sampled_from([-7.0, 0.0, 1e4]),
       method=st.sampled_from(["z", "t", "s"]))
def test_normalised_scores_are_free_of_the_scores_unit_and_s_norm_of_their_sides(draw_scores, draw_cohort, scale,
                                                                                   shift, method):
    """Z-, T- and S-norm give scores without unit: the same normalised scores after every score
    and cohort score goes through one positive affine map; S-norm, the mean of both sides'
    z-scores, does not change when the reference and probe sides swap."""
    from biofair.normalisation import cohort_statistics, normalise_scores

    cohort, table = cohort_case(draw_scores, draw_cohort)
    assume(table["mated"].any() and not table["mated"].all())
    statistics = cohort_statistics(cohort, min_size=3)
    normalised = normalise_scores(table, statistics, method=method)["score"].to_numpy()
    moved = normalise_scores(table.assign(score=table["score"] * scale + shift),
                             cohort_statistics(cohort.assign(score=cohort["score"] * scale + shift), min_size=3),
                             method=method)["score"].to_numpy()
    np.testing.assert_allclose(moved, normalised, rtol=1e-9, atol=1e-9)
    if method == "s":
        swapped = table.rename(columns={"reference_subject": "probe_subject", "probe_subject": "reference_subject"})
        np.testing.assert_allclose(normalise_scores(swapped, statistics, method="s")["score"].to_numpy(), normalised,
                                   rtol=1e-15, atol=0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups=tiny_groups, copies=st.integers(2, 4), threshold=st.integers(-8, 8).map(lambda v: v / 2),
       data=st.data())
def test_copying_one_groups_rows_changes_no_index_at_a_fixed_threshold(groups, copies, threshold, data):
    """Each group counts once, whatever its size: at a fixed threshold its rates, GARBE and
    Inequity (without zero rates, whose bound depends on n by design) do not change when one
    group's rows are copied; DFI and CEIᴬ neither (the mean pmf m is the plain mean of the K
    group pmfs, SPEC 5), nor the per-group Cllr, minCllr and DCFs and their fairness indices.
    A mean pmf or a calibration index weighted by group size would fail here."""
    table = table_of(groups)
    assume(table["score"].nunique() > 1)
    heavy = data.draw(st.sampled_from(sorted(groups)))
    copied = pd.concat([table] + [table[table["group"] == heavy]] * (copies - 1), ignore_index=True)
    before, after = {}, {}
    for values, t in ((before, table), (after, copied)):
        out = quiet(bf.outcome_fairness, t, threshold=threshold)
        values["rates"] = out.rates[["fmr", "fnmr"]].to_numpy()
        values["garbe"] = (out.garbe_fmr, out.garbe_fnmr, out.garbe)
        if (out.rates["fmr"] > 0).all():
            values["inequity_fmr"] = out.inequity_fmr
        if (out.rates["fnmr"] > 0).all():
            values["inequity_fnmr"] = out.inequity_fnmr
        for combine in ("pooled", "equal"):
            dfi = quiet(bf.distribution_fairness_index, t, bins=7, combine=combine)
            values[f"dfi_{combine}"] = (dfi.normal, dfi.extreme, *dfi.divergences)
        for kind in ("mated", "nonmated"):
            try:
                auto = quiet(bf.automatic_comprehensive_equity_index, t, kind=kind, bins=7, n_std=1.0)
            except SchemaError as error:  # documented: a group with an empty centre or tail
                values[f"ceia_{kind}"] = str(error)
            else:
                values[f"ceia_{kind}"] = (auto.normal, auto.extreme, *auto.divergences)
        by_group = bf.calibration_by_group(t.assign(score=t["score"] / 4), p_target=0.2)
        values["calibration"] = by_group.drop(index="(all)", columns=["n_mated", "n_nonmated"]).to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bf.UndefinedRateWarning)  # a group of minDCF 0: infinite ratios
            # not the two losses: a group's Cllr and its copy's may differ in the last bit (NumPy's
            # pairwise mean), which a loss near 0 (Cllr - minCllr) turns into a GARBE of 3e-14
            fairness = bf.calibration_fairness(by_group)
            values["calibration_fairness"] = fairness.loc[["cllr", "min_cllr", "actual_dcf", "min_dcf"]].to_numpy()
    assert_same_indices(before, after)
