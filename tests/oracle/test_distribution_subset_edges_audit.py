"""DFI, CEI, CEIᴬ, the subset measures and d' at numerical edges, against independent computations.

Each oracle here is written from the definitions (SPEC 2, 5 and 6) with exact fractions where
the float one is what is in question: which scores lie beyond ``mu ± N·sigma`` is decided on
``Fraction`` means and variances, histograms are ``np.histogram``'s, divergences SciPy's
``entropy`` in base 2.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.stats import entropy, norm

import biofair as bf
from exact import split_mean_divergences

ULP = 2.0**-52  # of scores in [1, 2)


def beyond_exactly(counts: np.ndarray, n_std: int) -> np.ndarray:
    """Whether each integer is more than ``n_std`` population standard deviations above the
    integers' mean, decided on fractions: ``x - mu > 0`` and ``(x - mu)² > N² var``."""
    values = [Fraction(int(x)) for x in counts]
    mean = sum(values) / len(values)
    variance = sum((x - mean) ** 2 for x in values) / len(values)
    return np.array([x > mean and (x - mean) ** 2 > n_std**2 * variance for x in values])


def divergences_from_mean(parts: list[np.ndarray], bins: int) -> np.ndarray:
    """KL(p_i || mean of the p) in bits, the parts binned on common edges over their union."""
    edges = np.histogram_bin_edges(np.concatenate(parts), bins=bins)
    pmfs = [np.histogram(part, bins=edges)[0] / part.size for part in parts]
    mean = np.mean(pmfs, axis=0)
    return np.array([entropy(p, mean, base=2) for p in pmfs])


#: Integers x of two groups' scores 1 ± x·2^-52 (exact). Group a's two highest, 9620 and 9621,
#: straddle mu + 3·sigma: one score lies beyond, P_a = 100·1001/1002.
CLOSE_AT_THE_SPLIT = {"a": np.r_[np.arange(0, 7000, 7), 9620, 9621],
                      "b": np.r_[np.arange(0, 7000, 5), 12000, 12001, 12003]}


def close_at_the_split(kind: str) -> tuple[dict[str, np.ndarray], pd.DataFrame]:
    """The scores of :data:`CLOSE_AT_THE_SPLIT` with their error tail on ``kind``'s side (right
    for non-mated, left for mated), and a table of them (two scores of the other class each)."""
    sign = 1.0 if kind == "nonmated" else -1.0
    scores = {name: 1.0 + sign * x * ULP for name, x in CLOSE_AT_THE_SPLIT.items()}
    other = np.array([2.0, 2.1]) if kind == "nonmated" else np.array([0.0, 0.1])  # not read
    table = pd.concat([pd.DataFrame({"score": np.r_[scores[name], other], "group": name,
                                     "mated": np.repeat([kind == "mated", kind != "mated"], [scores[name].size, 2])})
                       for name in scores], ignore_index=True)
    return scores, table


@pytest.mark.parametrize("kind", ["nonmated", "mated"])
def test_automatic_cei_tail_holds_the_scores_beyond_mu_n_sigma_when_the_split_falls_between_close_scores(kind):
    # The percentile's value, v[1000] + (v[1001] - v[1000])·(1/1002), rounded back onto v[1000]
    # (one ulp apart), and group a's tail took both scores (CEI_N 0.24791 instead of 0.24779).
    n_std, bins = 3, 10
    counts = CLOSE_AT_THE_SPLIT
    scores, table = close_at_the_split(kind)

    beyond = {name: beyond_exactly(x, n_std) for name, x in counts.items()}
    assert [int(b.sum()) for b in beyond.values()] == [1, 3]
    shares = np.array([b.mean() for b in beyond.values()])
    tail_weight = np.mean(expit(shares / norm.sf(n_std)) * (1 - shares))
    tails = [np.sort(scores[name][beyond[name]]) for name in counts]
    centres = [np.sort(scores[name][~beyond[name]]) for name in counts]
    divergences = (tail_weight * divergences_from_mean(tails, bins)
                   + (1 - tail_weight) * divergences_from_mean(centres, bins))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every group has a score beyond: no warning
        index = bf.automatic_comprehensive_equity_index(table, kind=kind, n_std=n_std, bins=bins)
    assert index.parameters["percentiles"] == pytest.approx({"a": 100 * 1001 / 1002, "b": 100 * 1400 / 1403})
    assert index.parameters["tail_weight"] == pytest.approx(tail_weight, rel=1e-15)
    assert index.divergences.to_numpy() == pytest.approx(divergences, rel=1e-12)
    assert index.normal == pytest.approx(1 - divergences.sum() / 2, rel=1e-12)
    assert index.extreme == pytest.approx(1 - divergences.max(), rel=1e-12)


@pytest.mark.parametrize("kind", ["nonmated", "mated"])
def test_automatic_cei_out_of_core_splits_close_scores_as_in_memory(kind):
    # Out of core the split was read at the same rounded percentile: 0.24791 for 0.24779.
    dd = pytest.importorskip("dask.dataframe")
    import dask

    from biofair import partitions as bp

    _, table = close_at_the_split(kind)
    with dask.config.set(scheduler="synchronous"):
        found = bp.automatic_comprehensive_equity_index(dd.from_pandas(table, npartitions=3), kind=kind, bins=10)
    expected = bf.automatic_comprehensive_equity_index(table, kind=kind, bins=10)
    assert found.parameters == expected.parameters
    assert (found.normal, found.extreme) == (expected.normal, expected.extreme)
    assert found.divergences.equals(expected.divergences)


#: Integers x of two groups' scores 2^e·(1 ± x·2^-52), x < 1000 (exact).
_rng = np.random.default_rng(0)
TINY_AND_CLOSE = {"a": _rng.integers(0, 1000, 300), "b": _rng.integers(0, 700, 250)}


def tiny_and_close(kind: str, exponent: int) -> pd.DataFrame:
    """The scores of :data:`TINY_AND_CLOSE` at ``2^exponent``, their error tail on ``kind``'s side,
    with two scores of the other class per group."""
    sign = 1.0 if kind == "nonmated" else -1.0
    return pd.concat([pd.DataFrame({"score": np.ldexp(np.r_[1.0 + sign * x * ULP, 0.5, 2.0], exponent), "group": name,
                                    "mated": np.r_[np.full(x.size, kind == "mated"), [kind != "mated"] * 2]})
                      for name, x in TINY_AND_CLOSE.items()], ignore_index=True)


@pytest.mark.parametrize("exponent", [-499, -496, -490])
@pytest.mark.parametrize("kind", ["nonmated", "mated"])
def test_automatic_cei_of_tiny_scores_a_few_ulps_apart_keeps_their_spread(kind, exponent):
    # Scores 2^e·(1 + x·2^-52): their largest lies inside [2^-500, 2^500], so they are not
    # rescaled, and the squares of their deviations (below 2^-1060 at e = -499) vanished:
    # sigma was 0 and every score above the mean counted as beyond mu + sigma (51.3% of group
    # a, where 21.3% are). d' scales such deviations by a power of two of their own; so must CEIᴬ.
    shares = {name: beyond_exactly(x, 1).mean() for name, x in TINY_AND_CLOSE.items()}  # mated: the mirror image
    found = bf.automatic_comprehensive_equity_index(tiny_and_close(kind, exponent), kind=kind, n_std=1.0, bins=10)
    assert found.parameters["percentiles"] == {name: 100 * (1 - share) for name, share in shares.items()}
    assert 0.15 < min(shares.values()) < max(shares.values()) < 0.25  # about a fifth of each group beyond, not half
    at_one = bf.automatic_comprehensive_equity_index(tiny_and_close(kind, 0), kind=kind, n_std=1.0, bins=10)
    assert (found.normal, found.extreme) == (at_one.normal, at_one.extreme)  # a power of two changes nothing


@pytest.mark.parametrize("parts", [1, 3, 7])
@pytest.mark.parametrize("kind", ["nonmated", "mated"])
def test_automatic_cei_out_of_core_of_tiny_scores_a_few_ulps_apart_equals_memory(kind, parts):
    # Out of core, the partitions' squared deviations vanished as well (percentiles 48.67 and
    # 48.4 for 78.67 and 80.4); the rows are shuffled so that each partition holds part of each
    # group, with a spread of its own.
    dd = pytest.importorskip("dask.dataframe")
    import dask

    from biofair import partitions as bp

    table = tiny_and_close(kind, -499).sample(frac=1, random_state=1)
    with dask.config.set(scheduler="synchronous"):
        found = bp.automatic_comprehensive_equity_index(dd.from_pandas(table, npartitions=parts), kind=kind,
                                                        n_std=1.0, bins=10)
    expected = bf.automatic_comprehensive_equity_index(table, kind=kind, n_std=1.0, bins=10)
    assert expected.parameters["percentiles"] == bf.automatic_comprehensive_equity_index(
        tiny_and_close(kind, 0), kind=kind, n_std=1.0, bins=10).parameters["percentiles"]
    assert found.parameters == expected.parameters
    assert (found.normal, found.extreme) == (expected.normal, expected.extreme)


@pytest.mark.parametrize("smoothing", [1e-300, 1e-310, 5e-324])
@pytest.mark.parametrize("kind", ["mated", "nonmated"])
def test_cei_split_mean_with_the_smallest_smoothing_is_finite_and_equals_the_definition(kind, smoothing):
    # smoothing is any positive number. The mean's smoothed part holds about `smoothing` in the
    # bins it leaves empty, where a group's part has mass: p/q overflowed below about 1e-308,
    # and the divergence was inf (CEI_N -inf, with NumPy's RuntimeWarning) where it is about
    # 395 bits at 1e-310 (382 at 1e-300).
    rng = np.random.default_rng(3)
    groups = {"a": np.round(rng.normal(0.0, 1.0, 40), 2), "b": np.round(rng.normal(1.5, 0.5, 30), 2)}
    other = np.array([-9.0, 9.0])  # the other class: not read
    table = pd.concat([pd.DataFrame({"score": np.r_[v, other], "group": name,
                                     "mated": np.r_[np.full(v.size, kind == "mated"), [kind != "mated"] * 2]})
                       for name, v in groups.items()], ignore_index=True)
    expected = np.array(split_mean_divergences(list(groups.values()), kind, 90.0, 10, smoothing))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = bf.comprehensive_equity_index(table, kind=kind, percentile=90.0, bins=10, mean_tail="split_mean",
                                              smoothing=smoothing)
    assert found.divergences.to_numpy() == pytest.approx(expected, rel=1e-12)
    assert expected.max() > 50  # the bins the mean's part leaves empty: far beyond log2 K = 1
    assert (found.normal, found.extreme) == pytest.approx((1 - expected.sum() / 2, 1 - expected.max()), rel=1e-12)
