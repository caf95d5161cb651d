"""Identification metrics against explicit per-probe sorting and loops, ties included."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import biofair as bf


def small_test(seed: int, *, n_gallery: int = 6, n_enrolled_probes: int = 14, n_open: int = 10):
    """A probes x gallery matrix of small integers (many ties) with two groups."""
    rng = np.random.default_rng(seed)
    gallery_subjects = np.arange(n_gallery) * 10
    probe_subjects = np.concatenate([rng.choice(gallery_subjects, n_enrolled_probes), 1000 + np.arange(n_open)])
    matrix = rng.integers(0, 6, size=(probe_subjects.size, n_gallery)).astype(float)
    groups = np.where(rng.random(probe_subjects.size) < 0.5, "a", "b")
    groups[:2], groups[-2:] = ["a", "b"], ["a", "b"]  # both groups have both kinds of probe
    return matrix, probe_subjects, gallery_subjects, groups


def brute_rank(row, mate, ties):
    """Rank of the mate by sorting the gallery: ties put the non-mates first or last."""
    is_mate = np.arange(row.size) == mate
    tie_break = is_mate if ties == "pessimistic" else ~is_mate
    order = sorted(range(row.size), key=lambda j: (-row[j], tie_break[j]))
    return order.index(mate) + 1


def brute_outcomes(matrix, probe_subjects, gallery_subjects, ties):
    rows = []
    for i, subject in enumerate(probe_subjects):
        mates = np.flatnonzero(gallery_subjects == subject)
        nonmated = np.delete(matrix[i], mates)
        if mates.size:
            rows.append((True, matrix[i, mates[0]], brute_rank(matrix[i], mates[0], ties)))
        else:
            rows.append((False, nonmated.max(), 0))
    return rows


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_outcomes_equal_explicit_sorting(seed, ties):
    matrix, probes, gallery, groups = small_test(seed)
    outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=probes, gallery_subjects=gallery,
                                             probe_groups=groups, block_size=4, ties=ties)
    expected = brute_outcomes(matrix, probes, gallery, ties)
    assert list(zip(outcomes["mated"], outcomes["score"], outcomes["rank"])) == expected


@pytest.mark.parametrize("seed", range(3))
def test_long_table_and_matrix_agree(seed):
    matrix, probes, gallery, groups = small_test(seed)
    long = pd.DataFrame({
        "probe_id": np.repeat(np.arange(len(probes)), len(gallery)),
        "reference_id": np.tile(gallery, len(probes)),
        "score": matrix.ravel(),
        "mated": (probes[:, None] == gallery[None, :]).ravel(),
        "probe_group": np.repeat(groups, len(gallery)),
    }).sample(frac=1.0, random_state=seed)  # row order must not matter
    from_long = bf.probe_outcomes(long).sort_values("probe_id", ignore_index=True)
    from_matrix = bf.probe_outcomes_from_matrix(matrix, probe_subjects=probes, gallery_subjects=gallery,
                                                probe_groups=groups)
    pd.testing.assert_frame_equal(from_long, from_matrix, check_dtype=False)


def loop_rates(outcomes, t, rank):
    rates = {}
    for name, group in outcomes.groupby("group"):
        enrolled = [r for r in group.itertuples() if r.mated]
        open_set = [r for r in group.itertuples() if not r.mated]
        dir_ = sum(1 for r in enrolled if r.rank <= rank and r.score >= t) / len(enrolled)
        fpir = sum(1 for r in open_set if r.score >= t) / len(open_set)
        rates[name] = (dir_, fpir)
    return rates


@pytest.mark.parametrize("seed", range(4))
def test_cmc_dir_fpir_and_differentials_equal_loops(seed):
    matrix, probes, gallery, groups = small_test(seed)
    outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=probes, gallery_subjects=gallery,
                                             probe_groups=groups)
    curve = bf.cmc(outcomes, max_rank=len(gallery))
    for name, group in outcomes.groupby("group"):
        ranks = group.loc[group["mated"], "rank"].to_numpy()
        for n in range(1, len(gallery) + 1):
            assert curve.loc[n, name] == sum(1 for r in ranks if r <= n) / ranks.size
    for n in (1, 2, 3):
        gaps = [abs(curve.loc[n, a] - curve.loc[n, b]) for a, b in itertools.combinations(curve.columns, 2)]
        assert bf.rank_n_differential(outcomes, rank=n) == max(gaps)
    thresholds = np.array([-1.0, 0.0, 2.0, 3.0, 4.5, 5.0, 6.0])
    for rank in (1, 2):
        table = bf.identification_rates(outcomes, thresholds, rank=rank).set_index(["group", "threshold"])
        for t in thresholds:
            for name, (dir_, fpir) in loop_rates(outcomes, t, rank).items():
                assert (table.loc[(name, t), "dir"], table.loc[(name, t), "fpir"]) == (dir_, fpir)


def brute_threshold(open_scores, target):
    candidates = np.append(np.unique(open_scores), np.nextafter(open_scores.max(), np.inf))
    return min(t for t in candidates if np.mean(open_scores >= t) <= target)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
def test_fdr_prime_equals_loop_with_dev_thresholds(seed, alpha):
    matrix, probes, gallery, groups = small_test(seed)
    evaluation = bf.probe_outcomes_from_matrix(matrix, probe_subjects=probes, gallery_subjects=gallery,
                                               probe_groups=groups)
    dev_matrix, dev_probes, _, dev_groups = small_test(seed + 100)
    dev = bf.probe_outcomes_from_matrix(dev_matrix, probe_subjects=dev_probes, gallery_subjects=gallery,
                                        probe_groups=dev_groups)
    targets = [0.5, 0.2, 0.1]
    # 10 non-enrolled dev probes: 0.2 and 0.1 allow fewer than 3 false alarms (rule of three)
    with pytest.warns(bf.InsufficientComparisonsWarning, match=r"targets FPIR 0.1, 0.2 are below 3/N .*N = 10 non-enrolled.*: each allows fewer than 3"):
        result = bf.identification_discrepancy_rate(evaluation, dev=dev, fpir_targets=targets, alpha=alpha)
    assert result["resolved"].tolist() == [True, False, False]
    open_dev = dev.loc[~dev["mated"], "score"].to_numpy()
    for row, target in zip(result.itertuples(), targets):
        t = brute_threshold(open_dev, target)
        assert row.threshold == t
        rates = loop_rates(evaluation, t, 1)
        gap_fpir = max(abs(rates[a][1] - rates[b][1]) for a, b in itertools.combinations(rates, 2))
        gap_dir = max(abs(rates[a][0] - rates[b][0]) for a, b in itertools.combinations(rates, 2))
        assert row.A == gap_fpir and row.B == gap_dir
        assert row.fdr == pytest.approx(1 - (alpha * gap_fpir + (1 - alpha) * gap_dir), abs=1e-15)
        assert row.k == int(np.sum(open_dev >= t))  # the false alarms behind the threshold
        assert row.resolved == (target >= 3 / open_dev.size) and not row.optimistic  # rule of three
        assert row.precise == (target >= 30 / open_dev.size)
