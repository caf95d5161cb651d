"""Permutation nulls when a small group, its subjects shuffled as a whole, leaves some
arrangements that an index cannot score: they are drawn again (the null of the arrangements
that can be scored, as the observed one can), counted and said; too many refuse the null."""

from __future__ import annotations

import numpy as np
import pytest

import biofair as bf
from biofair.permutation import _shuffle_plan

#: Three subjects in group b: a shuffle that gives b three subjects of a, seldom compared with
#: each other, leaves b one or no non-mated comparison, too few for CEI at percentile 95.
SMALL = bf.synthetic.demographic_scores(groups={"a": (30, 2.0, 1.0), "b": (3, 1.5, 1.0)}, rng=2)


def cei(table):
    return bf.comprehensive_equity_index(table, kind="nonmated").extreme


def scored_by_hand(statistic, table, n_permutations, seed):
    """The null drawn by hand with the same shuffles: arrangements whose statistic raises
    ValueError are skipped, and counted."""
    rng, shuffled = np.random.default_rng(seed), _shuffle_plan(table, "group", "reference_subject")
    null, skipped = [], 0
    while len(null) < n_permutations:
        try:
            null.append(statistic(shuffled.draw(rng)[0]))
        except ValueError:
            skipped += 1
    return np.array(null), skipped


def test_an_arrangement_an_index_cannot_score_is_drawn_again_and_counted():
    """It stopped the whole null (and `biofair report` on such a file) with an error about a
    group of the permuted table, 'group b: all 1 nonmated scores fall in the tail', which the
    file's group b, of 53 such scores, does not have."""
    expected, skipped = scored_by_hand(cei, SMALL, 60, seed=5)
    assert skipped > 0  # the data make the case
    with pytest.warns(UserWarning, match=rf"^{skipped} of {skipped + 60} shuffled arrangements of the groups could "
                                         rf"not be scored and {'was' if skipped == 1 else 'were'} drawn again "
                                         r"\(the first: group '.*': .* falls? in the "
                                         r"tail at percentile 95; .*\): the permutation null is that of the "
                                         r"arrangements that can be scored, as the observed one can$"):
        result = bf.permutation_null(cei, SMALL, n_permutations=60, rng=5)
    assert result.n_redrawn == skipped and result.n_permutations == 60
    np.testing.assert_array_equal(result.null, expected)
    observed = cei(SMALL)
    assert result.observed == observed
    assert result.p_value == (1 + np.sum(expected <= observed + 100 * np.finfo(float).eps * abs(observed))) / 61


def test_a_null_without_a_redraw_says_none():
    table = bf.read_scores(bf.datasets.example_scores_path())
    result = bf.permutation_null(cei, table, n_permutations=5, rng=0)
    assert result.n_redrawn == 0 and bf.PermutationNull(0.8, np.array([0.9]), 0.5, 1, "less").n_redrawn == 0


def test_groups_too_small_to_shuffle_are_refused_with_the_first_reason():
    calls = []

    def observed_only(table):  # scores the observed table, and no arrangement
        calls.append(1)
        if len(calls) > 1:
            raise ValueError("group 'b' has too few scores")
        return 0.5

    with pytest.raises(ValueError, match=r"^the permutation null cannot be drawn: 91 of 91 shuffled arrangements of "
                                         r"the groups could not be scored \(the first: group 'b' has too few scores\); the "
                                         r"groups are too small to shuffle \(merge the smallest with others, or leave "
                                         r"them out\)$"):
        bf.permutation_null(observed_only, SMALL, n_permutations=10, rng=0)
    assert len(calls) == 1 + 91  # nine redraws per permutation are allowed, the 91st is refused


def test_only_a_value_error_is_drawn_again():
    """A statistic that fails otherwise (a bug, not a group too small) stops at once."""
    calls = []

    def broken(table):
        calls.append(1)
        if len(calls) > 1:
            raise KeyError("no such column")
        return 0.5

    with pytest.raises(KeyError, match="no such column"):
        bf.permutation_null(broken, SMALL, n_permutations=10, rng=0)
    assert len(calls) == 2


def test_fairness_summary_reads_its_nulls_on_the_arrangements_it_can_score():
    """The summary (and so `biofair report`) failed on a file whose smallest group has three
    subjects; the null rows now say how many arrangements were drawn again."""
    with pytest.warns(UserWarning) as caught:
        summary = bf.fairness_summary(SMALL, n_resamples=40, n_permutations=60, rng=4, progress_bar=False)
    redrawn = [str(w.message) for w in caught if "drawn again" in str(w.message)]
    assert len(redrawn) == 1
    count = int(redrawn[0].split(" of ")[0])
    assert count > 0
    nulls = summary[summary["metric"].str.endswith(("_null_mean", "_p_value"))]
    assert len(nulls) == 6 and nulls["value"].notna().all()
    assert nulls["parameters"].str.startswith(f"n_permutations=60, unit=subject, redrawn={count}").all()
    assert (nulls.loc[nulls["metric"].str.endswith("_p_value"), "value"] >= 1 / 61).all()


def test_fairness_summary_leaves_out_the_nulls_of_groups_too_small_to_shuffle():
    """Two subjects beside 200: almost every shuffle leaves the small group without a
    non-mated comparison within it. The summary (and `biofair report`) stopped; it now gives
    the indices without their null rows, and says why."""
    table = bf.synthetic.demographic_scores(groups={"a": (200, 2.0, 1.0), "b": (2, 1.5, 1.0)}, rng=2)
    with pytest.warns(UserWarning) as caught:
        summary = bf.fairness_summary(table, n_resamples=40, n_permutations=20, rng=0, progress_bar=False)
    said = [str(w.message) for w in caught if "cannot be drawn" in str(w.message)]
    assert len(said) == 1 and said[0].startswith("the permutation null cannot be drawn: 181 of ")
    assert said[0].endswith("the groups are too small to shuffle (merge the smallest with others, or leave them "
                            "out): the FDR area and CEI are given without their null rows")
    metrics = set(summary["metric"])
    assert {"area_under_fdr_log10", "cei_extreme_mated", "cei_extreme_nonmated"} <= metrics
    assert not any(name.endswith(("_null_mean", "_p_value")) for name in metrics)
    assert summary["value"].notna().all()
    expected = bf.comprehensive_equity_index(table, kind="mated").extreme
    assert summary.set_index("metric").loc["cei_extreme_mated", "value"] == expected


def test_one_arrangement_drawn_again_is_counted_in_the_singular():
    expected, skipped = scored_by_hand(cei, SMALL, 10, seed=2)
    assert skipped == 1  # the data make the case
    with pytest.warns(UserWarning, match=r"^1 of 11 shuffled arrangements of the groups could not be scored and was "
                                         r"drawn again \(the first: "):
        result = bf.permutation_null(cei, SMALL, n_permutations=10, rng=2)
    assert result.n_redrawn == 1
    np.testing.assert_array_equal(result.null, expected)
