"""Identification fairness: invariants, the fair/unfair generator, intervals and bad input."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biofair as bf
from biofair.exceptions import SchemaError


def outcomes_of(data, **options):
    return bf.probe_outcomes_from_matrix(data.scores, probe_subjects=data.probe_subjects,
                                         gallery_subjects=data.gallery_subjects,
                                         probe_groups=data.probe_groups, **options)


@pytest.fixture(scope="module")
def systems():
    return {fair: outcomes_of(bf.synthetic.identification_embeddings(fair=fair, rng=5)) for fair in (True, False)}


matrices = st.integers(0, 10_000).map(lambda seed: np.random.default_rng(seed)).map(
    lambda rng: (rng.integers(0, 8, size=(30, 8)).astype(float), rng)
)


def random_outcomes(matrix, rng, *, ties="pessimistic"):
    gallery = np.arange(8)
    probes = np.concatenate([rng.choice(gallery, 20), 100 + np.arange(10)])
    groups = np.tile(["a", "b"], 15)
    return bf.probe_outcomes_from_matrix(matrix, probe_subjects=probes, gallery_subjects=gallery,
                                         probe_groups=groups, ties=ties)


@settings(max_examples=40, deadline=None)
@given(matrices)
def test_identical_groups_are_perfectly_fair(data):
    matrix, rng = data
    outcomes = random_outcomes(matrix, rng)
    copies = pd.concat([outcomes.assign(group=name) for name in ("x", "y", "z")], ignore_index=True)
    for n in (1, 3):
        assert bf.rank_n_differential(copies, rank=n) == 0.0
    fdr = bf.identification_discrepancy_rate(copies, fpir_targets=[0.9, 0.5, 0.1])
    assert (fdr["fdr"] == 1.0).all() and (fdr["A"] == 0).all() and (fdr["B"] == 0).all()


def test_thresholds_set_on_the_evaluation_outcomes_are_flagged_optimistic():
    """dev=outcomes was not flagged, while fairness_discrepancy_rate(dev=scores) was."""
    matrix = np.random.default_rng(4).normal(size=(40, 5))
    outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=[f"s{i % 8}" for i in range(40)],
                                             gallery_subjects=["s0", "s1", "s2", "s3", "s4"],
                                             probe_groups=["x", "y"] * 20)
    flags = {name: bf.identification_discrepancy_rate(outcomes, fpir_targets=[0.2], dev=dev)["optimistic"].tolist()
             for name, dev in (("none", None), ("itself", outcomes), ("a copy", outcomes.copy()))}
    # a copy holds the same outcomes: set on them, as fairness_discrepancy_rate(dev=scores.copy()) is flagged
    assert flags == {"none": [True], "itself": [True], "a copy": [True]}


@settings(max_examples=40, deadline=None)
@given(matrices)
def test_bounds_monotone_cmc_and_optimistic_ties(data):
    matrix, rng = data
    outcomes = random_outcomes(matrix, rng)
    optimistic = random_outcomes(matrix, np.random.default_rng(0), ties="optimistic")
    curve = bf.cmc(outcomes, max_rank=8)
    assert ((curve >= 0) & (curve <= 1)).all().all()
    assert (curve.diff().dropna() >= 0).all().all() and (curve.loc[8] == 1.0).all()
    assert 0.0 <= bf.rank_n_differential(outcomes) <= 1.0
    with pytest.warns(bf.InsufficientComparisonsWarning, match="0.2 is below 3/N"):  # 10 open-set probes
        fdr = bf.identification_discrepancy_rate(outcomes, fpir_targets=[0.5, 0.2], alpha=0.3)
    assert fdr["fdr"].between(0, 1).all()
    rates = bf.identification_rates(outcomes, [-1.0, 3.0, 9.0], rank=2)
    assert rates[["dir", "fpir"]].stack().between(0, 1).all()
    same_probes = random_outcomes(matrix, np.random.default_rng(0))
    assert (optimistic["rank"] <= same_probes["rank"]).all()


@settings(max_examples=30, deadline=None)
@given(matrices, st.sampled_from([np.exp, lambda x: 3 * x - 7, np.cbrt]))
def test_strictly_increasing_transforms_change_nothing_but_thresholds(data, transform):
    matrix, rng = data
    state = rng.bit_generator.state
    before = random_outcomes(matrix, rng)
    rng.bit_generator.state = state
    after = random_outcomes(transform(matrix), rng)
    pd.testing.assert_series_equal(before["rank"], after["rank"])
    targets = [0.5, 0.2]
    with pytest.warns(bf.InsufficientComparisonsWarning, match="N = 10 non-enrolled"):  # 0.2 allows 2
        left = bf.identification_discrepancy_rate(before, fpir_targets=targets)
    with pytest.warns(bf.InsufficientComparisonsWarning, match="N = 10 non-enrolled"):
        right = bf.identification_discrepancy_rate(after, fpir_targets=targets)
    pd.testing.assert_series_equal(left["fdr"], right["fdr"])
    pd.testing.assert_series_equal(left["k"], right["k"])


def test_block_size_and_row_order_do_not_matter(systems):
    data = bf.synthetic.identification_embeddings(n_enrolled=60, n_nonenrolled=40, rng=2)
    reference = outcomes_of(data)
    for block_size in (1, 7, 10_000):
        pd.testing.assert_frame_equal(outcomes_of(data, block_size=block_size), reference)
    relabelled = reference.assign(group=reference["group"].map({"0": "q", "1": "r", "2": "p"}))
    assert bf.rank_n_differential(relabelled) == bf.rank_n_differential(reference)


def test_memmap_matrix_is_read_in_blocks(tmp_path):
    data = bf.synthetic.identification_embeddings(n_enrolled=50, n_nonenrolled=30, rng=3)
    path = tmp_path / "scores.f8"
    matrix = np.memmap(path, dtype=np.float64, mode="w+", shape=(len(data.probes), len(data.gallery)))
    matrix[:] = data.scores(0, len(data.probes))
    matrix.flush()
    on_disk = np.memmap(path, dtype=np.float64, mode="r", shape=matrix.shape)
    outcomes = bf.probe_outcomes_from_matrix(on_disk, probe_subjects=data.probe_subjects,
                                             gallery_subjects=data.gallery_subjects,
                                             probe_groups=data.probe_groups, block_size=16)
    pd.testing.assert_frame_equal(outcomes, outcomes_of(data))


def test_unfair_generator_is_detected_at_every_target(systems):
    targets = [1e-1, 3e-2, 1e-2, 3e-3]
    fair = bf.identification_discrepancy_rate(systems[True], fpir_targets=targets)
    unfair = bf.identification_discrepancy_rate(systems[False], fpir_targets=targets)
    assert (unfair["fdr"] < fair["fdr"]).all()
    for target in targets:  # below what shuffling the probes' groups gives, at every target
        def fdr_prime(outcomes, target=target):
            return bf.identification_discrepancy_rate(outcomes, fpir_targets=[target])["fdr"].item()

        null = bf.permutation_null(fdr_prime, systems[False], n_permutations=99, rng=1)
        assert null.p_value == 0.01, target
    assert bf.rank_n_differential(systems[False]) > 3 * bf.rank_n_differential(systems[True])
    # the groups the generator made worse are the ones measured worse
    rank1 = bf.cmc(systems[False], max_rank=1).loc[1]
    assert rank1["2"] < rank1["1"] < rank1["0"]
    rates = bf.identification_rates(systems[False], unfair["threshold"][:1]).set_index("group")
    assert rates.loc["2", "fpir"] == rates["fpir"].max()


def test_bootstrap_interval_over_probes_separates_fair_from_unfair(systems):
    def fdr_at_1e1(outcomes):
        return bf.identification_discrepancy_rate(outcomes, fpir_targets=[1e-1])["fdr"].item()

    fair, unfair = (bf.bootstrap(fdr_at_1e1, systems[f], data="table", n_resamples=100, rng=1) for f in (True, False))
    assert unfair.high < fair.low
    assert fair.low <= fair.estimate <= fair.high and unfair.low <= unfair.estimate <= unfair.high


def long_table():
    return pd.DataFrame({
        "probe_id": ["p", "p", "p", "q", "q", "q", "r", "r", "r"],
        "reference_id": ["a", "b", "c"] * 3,
        "score": [0.9, 0.5, 0.1, 0.3, 0.2, 0.6, 0.2, 0.8, 0.4],
        "mated": [True, False, False, False, False, False, False, True, False],
        "group": ["x"] * 3 + ["y"] * 3 + ["y"] * 3,
    })


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.drop(columns="reference_id"), "missing column(s): reference_id"),
        (lambda t: t.drop(columns="group"), "expected 'probe_group' or 'group'"),
        (lambda t: t.assign(score=t["score"].where(t.index != 2)), "1 NaN"),
        (lambda t: t.assign(mated=t["mated"].astype(int)), "column 'mated' must be boolean"),
        (lambda t: pd.concat([t, t.iloc[[0]]]), "1 repeated (probe_id, reference_id) pairs"),
        (lambda t: t.assign(mated=t.index.isin([0, 1, 7])), "1 probe has several mated entries"),
        (lambda t: t.assign(group=np.where(t.index == 8, "x", t["group"])), "1 probe belongs to several groups"),
        (lambda t: t.drop(index=5), "1 probe was not compared with all 3 gallery entries"),
    ],
)
def test_bad_identification_tables_are_named(change, message):
    with pytest.raises(SchemaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        bf.probe_outcomes(change(long_table()))


def test_groups_without_the_probes_a_measure_needs_are_named():
    outcomes = bf.probe_outcomes(long_table())
    with pytest.raises(SchemaError, match="group 'x' has 1 enrolled and 0 non-enrolled probes"):
        bf.identification_discrepancy_rate(outcomes, fpir_targets=[0.5])
    with pytest.raises(SchemaError, match="at least two groups"):
        bf.cmc(outcomes.assign(group="x"))
    with pytest.raises(SchemaError, match="not a probe outcome table"):
        bf.cmc(long_table())
    with pytest.raises(SchemaError, match="no non-enrolled probe"):
        bf.threshold_at_fpir(outcomes[outcomes["mated"]], 0.1)


def test_bad_matrices_and_options_are_named():
    data = bf.synthetic.identification_embeddings(n_enrolled=5, n_nonenrolled=5, rng=0)
    matrix = data.scores(0, len(data.probes))
    options = dict(probe_subjects=data.probe_subjects, gallery_subjects=data.gallery_subjects,
                   probe_groups=data.probe_groups)
    with pytest.raises(SchemaError, match=r"^the score matrix has shape \(30, 14\), expected \(30, 15\)$"):
        bf.probe_outcomes_from_matrix(matrix[:, :-1], **options)
    broken = matrix.copy()
    broken[3, 2] = np.nan
    with pytest.raises(SchemaError, match="block 0:30 has 1 non-finite score$"):
        bf.probe_outcomes_from_matrix(broken, **options)
    with pytest.raises(SchemaError, match="repeats an identity"):
        bf.probe_outcomes_from_matrix(matrix, **{**options, "gallery_subjects": np.zeros(15, int)})
    with pytest.raises(SchemaError, match="probe_groups has 29 values for 30 probes"):
        bf.probe_outcomes_from_matrix(matrix, **{**options, "probe_groups": data.probe_groups[:-1]})
    with pytest.raises(ValueError, match="ties must be"):
        bf.probe_outcomes_from_matrix(matrix, **options, ties="random")
    outcomes = bf.probe_outcomes_from_matrix(matrix, **options)
    for call, message in ((functools.partial(bf.cmc, max_rank=0), r"^max_rank must be at least 1, got 0$"),
                          (functools.partial(bf.rank_n_differential, rank=0), r"^rank must be at least 1, got 0$"),
                          (functools.partial(bf.identification_rates, thresholds=[0.5], rank=0),
                           r"^rank must be at least 1, got 0$"),
                          (functools.partial(bf.identification_discrepancy_rate, alpha=1.5),
                           r"^alpha must lie in \[0, 1\], got 1\.5$")):
        with pytest.raises(ValueError, match=message):
            call(outcomes)


@settings(max_examples=40, deadline=None)
@given(matrices, st.lists(st.integers(-1, 9).map(float), min_size=1, max_size=6))
def test_dir_grows_with_rank_and_falls_with_threshold_and_fpir_ignores_rank(data, drawn):
    """DIR(t, R) is non-decreasing in R and non-increasing in t; FPIR(t) is non-increasing in
    t and the same at every rank (a false alarm is any candidate above the threshold)."""
    matrix, rng = data
    outcomes = random_outcomes(matrix, rng)
    thresholds = np.unique(drawn)  # integer scores: thresholds on the scores themselves
    tables = [bf.identification_rates(outcomes, thresholds, rank=rank).set_index(["group", "threshold"])
              for rank in (1, 2, 3, 8, 9)]
    for lower, higher in itertools.pairwise(tables):
        assert (higher["dir"] >= lower["dir"]).all()
        pd.testing.assert_series_equal(higher["fpir"], lower["fpir"])
    for table in tables:
        for _, rows in table.groupby(level="group"):
            assert (np.diff(rows["dir"].to_numpy()) <= 0).all() and (np.diff(rows["fpir"].to_numpy()) <= 0).all()
        assert table[["dir", "fpir"]].stack().between(0, 1).all()
    pd.testing.assert_frame_equal(tables[-2], tables[-1])  # rank 8 is the whole gallery: nothing more to find
