"""Identification metrics against explicit per-probe sorting and loops, ties included."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


# ---------------------------------------------------------------------------------------------
# Drawn searches: every public function against loops straight from the definitions, on the
# cases the fixed tests above leave out together: scores rounded to one decimal (ties with the
# mate and at the thresholds), a gallery of one entry, probes without a mate, groups of one
# probe of a kind, ranks beyond the gallery, both input forms and both tie rules.
# ---------------------------------------------------------------------------------------------

@st.composite
def searches(draw):
    """A probes x gallery matrix of scores rounded to 0.1, the probes' subjects (some not
    enrolled) and groups; every group has an enrolled and a non-enrolled probe."""
    n_gallery = draw(st.integers(1, 5))
    n_groups = draw(st.integers(2, 3))
    extra = draw(st.lists(st.tuples(st.integers(0, n_groups - 1), st.integers(-1, n_gallery - 1)), max_size=12))
    # one enrolled (mate drawn) and one non-enrolled probe (-1) per group first, then the drawn ones
    base = [(g, draw(st.integers(0, n_gallery - 1))) for g in range(n_groups)] + [(g, -1) for g in range(n_groups)]
    probes = base + extra
    subjects = np.array([f"s{mate}" if mate >= 0 else f"u{i}" for i, (_, mate) in enumerate(probes)], dtype=object)
    groups = np.array([f"g{g}" for g, _ in probes], dtype=object)
    seed = draw(st.integers(0, 2**32 - 1))
    matrix = np.round(np.random.default_rng(seed).random((len(probes), n_gallery)), 1)
    return matrix, subjects, np.array([f"s{j}" for j in range(n_gallery)], dtype=object), groups


def loop_outcomes(matrix, subjects, gallery, groups, ties):
    """(group, enrolled, decisive score, rank) of each probe, by comparing its mate with each other entry."""
    rows = []
    for i in range(len(subjects)):
        mate = next((j for j in range(len(gallery)) if gallery[j] == subjects[i]), None)
        if mate is None:
            rows.append((groups[i], False, max(matrix[i]), 0))
            continue
        ahead = 0
        for j in range(len(gallery)):
            if j == mate:
                continue
            ahead += matrix[i, j] >= matrix[i, mate] if ties == "pessimistic" else matrix[i, j] > matrix[i, mate]
        rows.append((groups[i], True, matrix[i, mate], 1 + ahead))
    return rows


def loop_dir_fpir(rows, group, t, rank):
    enrolled = [r for r in rows if r[0] == group and r[1]]
    open_set = [r for r in rows if r[0] == group and not r[1]]
    found = sum(1 for r in enrolled if r[3] <= rank and r[2] >= t)
    return found / len(enrolled), sum(1 for r in open_set if r[2] >= t) / len(open_set)


def largest_gap(values):
    return max(abs(a - b) for a, b in itertools.combinations(values, 2))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(searches(), st.sampled_from(["pessimistic", "optimistic"]), st.sampled_from([0.0, 0.3, 1.0]))
def test_every_identification_function_equals_loops_on_drawn_tied_searches(search, ties, alpha):
    matrix, subjects, gallery, groups = search
    n_probes, n_gallery = matrix.shape
    rows = loop_outcomes(matrix, subjects, gallery, groups, ties)
    outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=subjects, gallery_subjects=gallery,
                                             probe_groups=groups, ties=ties, block_size=3)
    assert list(zip(outcomes["group"], outcomes["mated"], outcomes["score"], outcomes["rank"])) == rows
    long = pd.DataFrame({
        "probe_id": np.repeat(np.arange(n_probes), n_gallery), "reference_id": np.tile(gallery, n_probes),
        "reference_subject": np.tile(gallery, n_probes), "probe_subject": np.repeat(subjects, n_gallery),
        "score": matrix.ravel(), "mated": (subjects[:, None] == gallery[None, :]).ravel(),
        "probe_group": np.repeat(groups, n_gallery),
    }).iloc[::-1]  # the last probe first
    from_long = bf.probe_outcomes(long, ties=ties).sort_values("probe_id")
    assert list(zip(from_long["group"], from_long["mated"], from_long["score"], from_long["rank"])) == rows
    names = sorted(set(groups))
    ranks = range(1, n_gallery + 3)  # beyond the gallery too
    curve = bf.cmc(outcomes, max_rank=n_gallery + 2)
    for n in ranks:
        expected = {}
        for g in names:
            enrolled_ranks = [r[3] for r in rows if r[0] == g and r[1]]
            expected[g] = sum(1 for rank in enrolled_ranks if rank <= n) / len(enrolled_ranks)
        assert curve.loc[n].to_dict() == expected
        assert bf.rank_n_differential(outcomes, rank=n) == largest_gap(expected.values())
    thresholds = np.unique(np.r_[matrix.ravel(), -np.inf, np.inf, 0.05])  # every score a threshold
    for rank in (1, 2, n_gallery + 2):
        table = bf.identification_rates(outcomes, thresholds, rank=rank)
        expected = [loop_dir_fpir(rows, g, t, rank) for g in names for t in thresholds]
        assert list(zip(table["dir"], table["fpir"])) == expected
    open_scores = [r[2] for r in rows if not r[1]]
    targets = [0.0, 0.25, 0.5, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # a handful of open-set probes
        fdr = bf.identification_discrepancy_rate(outcomes, fpir_targets=targets, alpha=alpha, rank=2)
        assert fdr["threshold"].tolist() == [bf.threshold_at_fpir(outcomes, target) for target in targets]
    for row, target in zip(fdr.itertuples(), targets):
        candidates = sorted(set(open_scores)) + [np.nextafter(max(open_scores), np.inf)]
        t = min(c for c in candidates if sum(1 for s in open_scores if s >= c) / len(open_scores) <= target)
        rates = [loop_dir_fpir(rows, g, t, 2) for g in names]
        gap_fpir, gap_dir = largest_gap([f for _, f in rates]), largest_gap([d for d, _ in rates])
        assert (row.threshold, row.A, row.B, row.k) == (t, gap_fpir, gap_dir, sum(1 for s in open_scores if s >= t))
        assert row.fdr == pytest.approx(1 - (alpha * gap_fpir + (1 - alpha) * gap_dir), abs=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_repeated_probe_ids_count_once_per_row(seed):
    """Outcome tables do not refuse a repeated probe_id (the functions' Notes say why): two
    tables of probe_outcomes_from_matrix joined together reuse the ids 0, 1, ..., and a
    bootstrap resample lists a drawn probe as often as it is drawn. Each row then counts as one
    probe, exactly: every function equals the loops over the rows, and a table listing every
    probe twice has the rates, gaps and thresholds of the table once."""
    matrix, probes, gallery, groups = small_test(seed)
    once = bf.probe_outcomes_from_matrix(matrix, probe_subjects=probes, gallery_subjects=gallery, probe_groups=groups)
    other_matrix, other_probes, _, other_groups = small_test(seed + 50)  # another session, the same gallery
    other = bf.probe_outcomes_from_matrix(other_matrix, probe_subjects=other_probes, gallery_subjects=gallery,
                                          probe_groups=other_groups)
    joined = pd.concat([once, other], ignore_index=True)
    drawn = once.iloc[np.random.default_rng(seed).integers(0, len(once), len(once))]  # as a resample draws them
    drawn = pd.concat([drawn, once.iloc[:2], once.iloc[-2:]], ignore_index=True)  # every group keeps both kinds
    assert joined["probe_id"].duplicated().any() and drawn["probe_id"].duplicated().any()
    thresholds = np.array([0.0, 2.0, 3.0, 4.5, 6.0])
    for table in (joined, drawn):
        curve = bf.cmc(table, max_rank=len(gallery))
        for name, group in table.groupby("group"):
            ranks = group.loc[group["mated"], "rank"].to_numpy()
            for n in range(1, len(gallery) + 1):
                assert curve.loc[n, name] == sum(1 for r in ranks if r <= n) / ranks.size
        assert bf.rank_n_differential(table) == max(
            abs(curve.loc[1, a] - curve.loc[1, b]) for a, b in itertools.combinations(curve.columns, 2))
        rates = bf.identification_rates(table, thresholds).set_index(["group", "threshold"])
        for t in thresholds:
            for name, (dir_, fpir) in loop_rates(table, t, 1).items():
                assert (rates.loc[(name, t), "dir"], rates.loc[(name, t), "fpir"]) == (dir_, fpir)
        open_scores = table.loc[~table["mated"], "score"].to_numpy()
        assert bf.threshold_at_fpir(table, 0.3) == brute_threshold(open_scores, 0.3)
    doubled = pd.concat([once, once], ignore_index=True)
    pd.testing.assert_frame_equal(bf.cmc(doubled, max_rank=len(gallery)), bf.cmc(once, max_rank=len(gallery)))
    rates_doubled, rates_once = bf.identification_rates(doubled, thresholds), bf.identification_rates(once, thresholds)
    counts = [c for c in rates_once.columns if c.startswith("n_")]
    assert counts and (rates_doubled[counts] == 2 * rates_once[counts]).all().all()
    pd.testing.assert_frame_equal(rates_doubled.drop(columns=counts), rates_once.drop(columns=counts))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # 10 or 20 non-enrolled probes
        fdr_once = bf.identification_discrepancy_rate(once, fpir_targets=[0.5, 0.3])
        fdr_doubled = bf.identification_discrepancy_rate(doubled, fpir_targets=[0.5, 0.3])
    columns = ["threshold", "A", "B", "fdr"]
    pd.testing.assert_frame_equal(fdr_doubled[columns], fdr_once[columns])
    assert (fdr_doubled["k"] == 2 * fdr_once["k"]).all()
