"""DFI, CEI and CEIᴬ bin scores in equal-width bins over their pooled range (SPEC section 5).

One extreme score (a sentinel such as 999) stretched that range: the rest fell in one bin,
every group looked alike, and the index rose toward 1 without a word. The index still follows
the specification; a CoarseHistogramWarning now names the histogram, its bins and its range.
"""

from __future__ import annotations

import warnings
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import biofair as bf


def two_groups(n: int = 2_000, seed: int = 0) -> pd.DataFrame:
    """Group b's mated scores half a standard deviation above a's; the same non-mated ones."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "score": np.r_[rng.normal(3, 1, n), rng.normal(3.5, 1, n), rng.normal(0, 1, 2 * n)],
        "mated": np.r_[np.ones(2 * n, bool), np.zeros(2 * n, bool)],
        "group": np.r_[np.repeat(["a", "b"], n), np.tile(["a", "b"], n)],
    })


def with_score(table: pd.DataFrame, row: int, value: float) -> pd.DataFrame:
    table = table.copy()
    table.loc[row, "score"] = value
    return table


def coarse(call) -> list[str]:
    """The CoarseHistogramWarning messages of ``call()``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, bf.CoarseHistogramWarning)]


INDICES = {
    "DFI": lambda t: bf.distribution_fairness_index(t),
    "DFI equal": lambda t: bf.distribution_fairness_index(t, combine="equal"),
    "CEI mated": lambda t: bf.comprehensive_equity_index(t, kind="mated"),
    "CEI non-mated": lambda t: bf.comprehensive_equity_index(t, kind="nonmated"),
    "CEI split_mean": lambda t: bf.comprehensive_equity_index(t, kind="nonmated", mean_tail="split_mean"),
    "CEI^A mated": lambda t: bf.automatic_comprehensive_equity_index(t, kind="mated"),
    "CEI^A non-mated": lambda t: bf.automatic_comprehensive_equity_index(t, kind="nonmated"),
}


@pytest.mark.parametrize("name", INDICES)
def test_normal_scores_give_no_warning(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error", bf.CoarseHistogramWarning)
        INDICES[name](two_groups())


def three_groups(mated: np.ndarray, nonmated: np.ndarray, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"score": np.r_[mated, nonmated], "mated": np.r_[np.ones(mated.size, bool), np.zeros(nonmated.size, bool)],
                         "group": rng.choice(["a", "b", "c"], mated.size + nonmated.size)})


_RNG = np.random.default_rng(1)
SCORE_SCALES = {  # scores of real systems: none squeezes its bulk into a few bins
    "integers, 70% of impostors at 0 (fingerprint)": three_groups(
        _RNG.poisson(60, 2_000).astype(float), np.where(_RNG.random(20_000) < 0.7, 0, _RNG.poisson(8, 20_000)).astype(float)),
    "log-likelihood ratios": three_groups(_RNG.normal(8, 4, 2_000), _RNG.normal(-12, 6, 20_000)),
    "negated Hamming distances (iris)": three_groups(-_RNG.normal(0.2, 0.05, 2_000), -_RNG.normal(0.45, 0.02, 20_000)),
    "cosines, five failures stored as -1": three_groups(np.r_[_RNG.normal(0.7, 0.1, 2_000), -np.ones(5)],
                                                          _RNG.normal(0.1, 0.1, 20_000)),
}


@pytest.mark.parametrize("name", SCORE_SCALES)
def test_real_score_scales_give_no_warning(name):
    table = SCORE_SCALES[name]
    assert coarse(lambda: [INDICES[index](table) for index in INDICES if "split_mean" not in index]) == []


def test_a_long_tail_squeezes_the_bulk_too():
    """Lognormal similarities (log-scale sd 1.5): their largest is about 30 times their 95th
    percentile, so the central 90% fall in 4 of the 100 bins (np.histogram's bins of the
    5th and 95th percentiles), which the warning says."""
    rng = np.random.default_rng(2)
    table = three_groups(rng.lognormal(1, 1.5, 2_000), rng.lognormal(0, 1.5, 20_000))
    values = table["score"].to_numpy()
    edges = np.histogram_bin_edges(values, 100)
    span = int(np.diff(np.digitize(np.quantile(values, [0.05, 0.95]), edges))[0]) + 1
    messages = coarse(lambda: bf.distribution_fairness_index(table))
    assert span == 4 and len(messages) == 1
    assert f"in {span} of its 100 equal-width bins" in messages[0] and "a long tail?" in messages[0]


def test_one_sentinel_score_is_named_and_explains_the_rise_toward_one():
    table = two_groups()
    clean = bf.distribution_fairness_index(table)
    with pytest.warns(bf.CoarseHistogramWarning) as caught:
        stretched = bf.distribution_fairness_index(with_score(table, 0, 999.0))
    assert clean.normal < 0.98 and stretched.normal > 0.999  # the groups' difference all but vanished
    (message,) = [str(w.message) for w in caught]
    low = table["score"].min()
    assert message.startswith("DFI's histogram barely resolves the scores: the central 90% of them fall in 1 of its "
                              "100 equal-width bins")
    assert f"while the range is [{low:.4g}, 999]" in message


def test_each_histogram_of_the_cei_is_named():
    # the largest non-mated score of group a at 1e3: it stretches the non-mated tails' bins only
    table = two_groups()
    row = table.index[~table["mated"] & (table["group"] == "a")][0]
    table = with_score(table, row, 1e3)
    assert [m.split(" barely")[0] for m in coarse(lambda: INDICES["CEI non-mated"](table))] == [
        "CEI's histogram of the non-mated tails"]
    # the other reading then finds the mean's tail in the centre's bin (the other holds the 1e3): the
    # warning says why, the error what to do
    with (pytest.warns(bf.CoarseHistogramWarning, match="^CEI's histogram of the non-mated scores barely"),
          pytest.raises(bf.SchemaError, match="empty tail or centre at percentile 95: its mass fills 2 of 100 "
                        "bins; use more bins, or, if a few outlying scores stretch the pooled range, remove them")):
        INDICES["CEI split_mean"](table)
    assert coarse(lambda: INDICES["CEI mated"](table)) == []
    # a mated score of group b at -1e3: the mated tails (left) are stretched
    table = with_score(two_groups(), 2_000, -1e3)
    assert [m.split(" barely")[0] for m in coarse(lambda: INDICES["CEI mated"](table))] == [
        "CEI's histogram of the mated tails"]


def test_a_bulk_of_tied_scores_is_resolved():
    """Integer scores: 97% of each group's non-mated tail (its top 10%) are 2, the rest 3 or 4,
    in 20 bins over [2, 4]. The bulk's one bin holds one score: nothing is merged, nothing to
    say. (Out-of-core tests met such tails, hypothesis seed 624, before distinct scores were
    counted; the bins alone would warn, as the monkeypatched count shows.)"""
    nonmated = np.r_[[0.0] * 300, [1.0] * 300, [2.0] * 97, [3.0] * 2, [4.0]]
    table = pd.DataFrame({
        "score": np.tile(np.r_[[5.0] * 50, [6.0] * 50, nonmated], 3),
        "mated": np.tile(np.r_[np.ones(100, bool), np.zeros(nonmated.size, bool)], 3),
        "group": np.repeat(["a", "b", "c"], 100 + nonmated.size),
    })
    tails = lambda: bf.comprehensive_equity_index(table, kind="nonmated", percentile=90.0, bins=20)  # noqa: E731
    assert coarse(tails) == []
    with mock.patch("biofair.distribution_fairness.np.unique", lambda values: np.arange(values.size)):
        assert [m.split(" barely")[0] for m in coarse(tails)] == ["CEI's histogram of the non-mated tails"]


def test_a_sentinel_beside_tied_scores_merges_the_others_into_their_bin():
    """Integer scores, 70% of the impostors' 0, and one 999: the bins of the bulk, 10 wide,
    also hold the scores from 1 up, which they merge."""
    rng = np.random.default_rng(3)
    nonmated = np.r_[np.where(rng.random(20_000) < 0.7, 0, rng.poisson(3, 20_000)), 999].astype(float)
    table = three_groups(rng.poisson(60, 2_000).astype(float), nonmated)
    messages = coarse(lambda: bf.distribution_fairness_index(table))
    assert len(messages) == 1 and "while the range is [0, 999]" in messages[0]


def test_scores_all_in_one_bin_are_not_stretched():
    """All scores equal: nothing outside the bulk sets the range, so there is nothing to say."""
    table = pd.DataFrame({"score": 0.5, "mated": np.arange(40) % 2 == 0, "group": np.repeat(["a", "b"], 20)})
    assert coarse(lambda: bf.distribution_fairness_index(table)) == []


@settings(max_examples=60, deadline=None)
@given(n=st.integers(40, 400), share=st.floats(0.0, 0.04), factor=st.floats(20.0, 1e6), below=st.booleans(),
       bins=st.integers(20, 200))
def test_sentinels_far_beyond_the_bulk_always_warn_and_the_bulk_alone_never(n, share, factor, below, bins):
    """``n`` evenly spread scores fill every bin; up to 4% of them moved ``factor`` ranges away
    leave the central 90% in fewer than a tenth of the bins."""
    scores = np.linspace(0.0, 1.0, n)
    table = pd.DataFrame({"score": scores, "mated": np.arange(n) % 2 == 0, "group": np.where(np.arange(n) % 4 < 2, "a", "b")})
    assert coarse(lambda: bf.distribution_fairness_index(table, bins=bins)) == []
    moved = max(1, int(share * n))
    scores = scores.copy()
    scores[:moved] = -factor if below else 1.0 + factor
    assert len(coarse(lambda: bf.distribution_fairness_index(table.assign(score=scores), bins=bins))) == 1


def test_resamples_do_not_repeat_it():
    """The estimate warns once per histogram; the report's hundreds of resamples add nothing."""
    table = with_score(two_groups(500), 0, 999.0)
    messages = coarse(lambda: bf.fairness_summary(table, by="group", n_resamples=40, n_permutations=20, rng=0))
    assert len(messages) == len(set(messages)) >= 1
    assert sum(m.startswith("DFI's histogram") for m in messages) == 1
    # CEI's own (its estimate was computed under the resamples' silence, and its warning lost)
    assert set(coarse(lambda: bf.comprehensive_equity_index(table, by="group", kind="mated"))) <= set(messages)
