"""Identification metrics recomputed from the score matrix itself, not from probe outcomes:
scikit-learn's top-k accuracy for the CMC, and loops over the matrix for ranks, DIR, FPIR,
counts and the FPIR threshold, on the cases the other oracle tests leave out (a gallery of
one entry, every score tied, a group of one probe of each kind, three groups, two attributes)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import top_k_accuracy_score

import biofair as bf


@pytest.mark.parametrize("seed", range(4))
def test_cmc_equals_scikit_learn_top_k_accuracy_per_group(seed):
    """Closed set, continuous scores (no ties): rank-n of a group is the top-n accuracy of its
    probes, the mate's gallery column being the true label."""
    rng = np.random.default_rng(seed)
    n_gallery, n_probes = 12, 90
    mates = rng.integers(0, n_gallery, n_probes)
    matrix = rng.normal(size=(n_probes, n_gallery))
    matrix[np.arange(n_probes), mates] += rng.uniform(0, 2.5, n_probes)  # mates ahead, often not first
    groups = np.array(["a", "b", "c"])[rng.integers(0, 3, n_probes)]
    outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=mates, gallery_subjects=np.arange(n_gallery),
                                             probe_groups=groups, block_size=7)
    curve = bf.cmc(outcomes, max_rank=n_gallery - 1)  # scikit-learn refuses k >= the number of labels
    for group in "abc":
        rows = groups == group
        for n in curve.index:
            expected = top_k_accuracy_score(mates[rows], matrix[rows], k=n, labels=np.arange(n_gallery))
            assert curve.loc[n, group] == pytest.approx(expected, abs=1e-15), (group, n)


def matrix_rates(matrix, probe_subjects, gallery_subjects, groups, t, rank, ties):
    """DIR, FPIR and the counts per group by a loop over the rows of the matrix."""
    result = {}
    for group in sorted(set(groups)):
        found = open_alarms = n_enrolled = n_open = 0
        for i in np.flatnonzero(groups == group):
            row = matrix[i]
            if probe_subjects[i] in gallery_subjects:
                mate = list(gallery_subjects).index(probe_subjects[i])
                others = np.delete(row, mate)
                ahead = sum(1 for s in others if (s >= row[mate] if ties == "pessimistic" else s > row[mate]))
                n_enrolled += 1
                found += 1 + ahead <= rank and row[mate] >= t
            else:
                n_open += 1
                open_alarms += max(row) >= t
        result[group] = (found / n_enrolled, open_alarms / n_open, n_enrolled, n_open)
    return result


def cases():
    rng = np.random.default_rng(7)
    coarse = rng.integers(0, 4, size=(13, 5)).astype(float)  # many ties, also at the thresholds
    subjects = np.array([0, 1, 2, 3, 4, 0, 1, 2, 90, 91, 92, 93, 94])
    three = np.array(["a", "b", "c", "a", "b", "a", "b", "a", "c", "a", "b", "a", "b"])  # "c": one of each kind
    yield "ties, a group of one probe of each kind", coarse, subjects, np.arange(5), three
    yield "every score tied", np.full((13, 5), 0.5), subjects, np.arange(5), three
    one = rng.normal(size=(6, 1))
    yield "a gallery of one entry", one, np.array([0, 0, 0, 5, 6, 7]), np.array([0]), np.array(["a", "b"] * 3)


@pytest.mark.parametrize(("name", "matrix", "probes", "gallery", "groups"), list(cases()))
@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_dir_fpir_and_counts_equal_a_loop_over_the_matrix(name, matrix, probes, gallery, groups, ties):
    outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=probes, gallery_subjects=gallery,
                                             probe_groups=groups, ties=ties)
    thresholds = np.unique(np.r_[matrix.ravel(), -np.inf, np.inf, matrix.min() - 1])  # every score is a threshold
    for rank in range(1, matrix.shape[1] + 2):
        table = bf.identification_rates(outcomes, thresholds, rank=rank).set_index(["group", "threshold"])
        for t in thresholds:
            for group, expected in matrix_rates(matrix, probes, gallery, groups, t, rank, ties).items():
                row = table.loc[(group, t)]
                assert (row["dir"], row["fpir"], row["n_enrolled"], row["n_nonenrolled"]) == expected, (name, rank, t)


@pytest.mark.parametrize("seed", range(5))
def test_threshold_at_fpir_is_the_smallest_threshold_meeting_the_target(seed):
    """Over the best scores of the non-enrolled probes of all groups, ties included: the
    smallest candidate threshold (an open-set score, or just above the largest) whose share
    of alarms does not exceed the target."""
    rng = np.random.default_rng(seed)
    n_open = 40
    best = rng.integers(0, 8, n_open) / 4  # tied best scores
    outcomes = pd.DataFrame({"probe_id": np.arange(n_open + 4), "group": ["x", "y"] * (n_open // 2 + 2),
                             "mated": np.r_[np.zeros(n_open, bool), np.ones(4, bool)],
                             "score": np.r_[best, [9.0, 9.0, 9.0, 9.0]],  # enrolled probes do not count
                             "rank": np.r_[np.zeros(n_open, int), [1, 1, 1, 1]],
                             "top_nonmated": np.r_[best, [0.0] * 4]})
    candidates = np.append(np.unique(best), np.nextafter(best.max(), np.inf))
    targets = [0.0, 3 / n_open, 0.1, 0.25, 0.5, 0.99, 1.0]
    with pytest.warns(bf.InsufficientComparisonsWarning, match="N = 40 non-enrolled probes"):  # 0 allows no false alarm
        array = bf.threshold_at_fpir(outcomes, targets)
    for target, threshold in zip(targets, array):
        expected = min(t for t in candidates if np.mean(best >= t) <= target)
        assert threshold == expected
        scalar = bf.threshold_at_fpir(outcomes, target) if target >= 3 / n_open else threshold
        assert isinstance(scalar, float) and scalar == expected


def test_groups_of_two_attributes_equal_a_loop_over_a_long_table():
    """probe_outcomes(by=[...]) names a probe's group by its two labels; each group's rank-1
    rate is a count over its probes."""
    rng = np.random.default_rng(3)
    n_probes, gallery = 24, ["g0", "g1", "g2", "g3"]
    subjects = rng.choice(gallery, n_probes)
    sex, age = rng.choice(["f", "m"], n_probes), rng.choice(["old", "young"], n_probes)
    matrix = rng.normal(size=(n_probes, len(gallery)))
    long = pd.DataFrame({
        "probe_id": np.repeat([f"p{i}" for i in range(n_probes)], len(gallery)),
        "reference_id": np.tile(gallery, n_probes),
        "score": matrix.ravel(),
        "mated": (subjects[:, None] == np.array(gallery)[None, :]).ravel(),
        "probe_sex": np.repeat(sex, len(gallery)),
        "age": np.repeat(age, len(gallery)),
    })
    rates = bf.cmc(bf.probe_outcomes(long, by=["sex", "age"]), max_rank=1).loc[1]
    expected = {}
    for i in range(n_probes):
        mate = gallery.index(subjects[i])
        first = all(matrix[i, j] < matrix[i, mate] for j in range(len(gallery)) if j != mate)
        expected.setdefault(f"{sex[i]} / {age[i]}", []).append(first)
    assert rates.to_dict() == {group: sum(hits) / len(hits) for group, hits in expected.items()}
