"""DFI, CEI and CEIᴬ against an independent reimplementation of the paper and SPEC 5.

The oracle below uses ``np.histogram`` on ``np.histogram_bin_edges`` of the pooled scores,
``np.percentile`` for the splits, ``np.mean``/``np.std`` for the N-sigma rule and a Python loop
for every KL divergence. Found by this audit and fixed: identical groups scored
0.9999999999999999 from ten groups on, disjoint groups -2.2e-16 (seven groups), the indices and
CEIᴬ's tail weight changed in the last digits with the order of the groups, a ``Fraction``
option made CEI's divergences Python objects and broke CEIᴬ, and a split falling on a tie at a
group's extreme score did not say which percentile would work.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import biofair as bf

# ----------------------------------------------------------------------------------------------
# The oracle
# ----------------------------------------------------------------------------------------------


def kl_bits(p, q):
    return sum(a * math.log2(a / b) for a, b in zip(p, q) if a > 0)


def pmf(values, edges):
    counts = np.histogram(values, bins=edges)[0].astype(float)
    return counts / counts.sum()


def indices(divergences):
    k = len(divergences)
    return 1 - sum(divergences) / (k * math.log2(k)), 1 - max(divergences) / math.log2(k)


def divergences_from_mean(parts, bins):
    edges = np.histogram_bin_edges(np.concatenate(parts), bins=bins)
    pmfs = [pmf(part, edges) for part in parts]
    mean = sum(pmfs) / len(pmfs)
    return [kl_bits(p, mean) for p in pmfs]


def oracle_dfi(groups, bins, combine):
    """groups: list of (mated, nonmated); common bins over every score of every group."""
    edges = np.histogram_bin_edges(np.concatenate([np.r_[m, n] for m, n in groups]), bins=bins)
    if combine == "pooled":
        pmfs = [pmf(np.r_[m, n], edges) for m, n in groups]
    else:
        pmfs = [(pmf(m, edges) + pmf(n, edges)) / 2 for m, n in groups]
    mean = sum(pmfs) / len(pmfs)
    return indices([kl_bits(p, mean) for p in pmfs])


def oracle_cei(samples, kind, percentiles, tail_weight, bins):
    tails, centres = [], []
    for values, percentile in zip(samples, percentiles):
        if kind == "nonmated":
            tail = values >= np.percentile(values, percentile)
        else:
            tail = values <= np.percentile(values, 100 - percentile)
        tails.append(values[tail])
        centres.append(values[~tail])
    t, c = divergences_from_mean(tails, bins), divergences_from_mean(centres, bins)
    return indices([tail_weight * a + (1 - tail_weight) * b for a, b in zip(t, c)])


def oracle_automatic(samples, kind, n_std, bins):
    percentiles, shares = [], []
    for values in samples:
        mu, sigma = values.mean(), values.std()
        beyond = np.mean(values > mu + n_std * sigma) if kind == "nonmated" else np.mean(values < mu - n_std * sigma)
        percentiles.append(100 * (1 - beyond))
        shares.append(1 / (1 + math.exp(-beyond / norm.sf(n_std))) * (1 - beyond))
    tail_weight = sum(shares) / len(shares)
    return oracle_cei(samples, kind, percentiles, tail_weight, bins), tail_weight, percentiles


def make_table(groups):
    frames = [pd.DataFrame({"score": np.r_[m, n], "mated": np.repeat([True, False], [len(m), len(n)]), "group": name})
              for name, (m, n) in groups.items()]
    return pd.concat(frames, ignore_index=True)


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # coarse histograms and empty CEIᴬ tails: checked elsewhere
        return function(*args, **kwargs)


def hand_made():
    rng = np.random.default_rng(5)
    return {
        "sizes 5 to 2000": {"a": (rng.normal(2, 1, 5), rng.normal(0, 1, 7)),
                            "b": (rng.normal(2.5, 1, 300), rng.normal(0.2, 1, 2000)),
                            "c": (rng.normal(2, 0.5, 40), rng.normal(0, 2, 90))},
        "shifted": {"a": (np.arange(20.0) + 10, np.arange(30.0)), "b": (np.arange(20.0) + 12, np.arange(30.0) + 3)},
        "one score repeated": {"a": (np.r_[np.full(10, 5.0), 6, 7], np.r_[np.full(30, 1.0), np.arange(10.0)]),
                               "b": (np.array([4, 5, 6, 7, 8.0]), np.arange(40.0) / 4)},
        "integers": {"a": (np.arange(3, 13), np.arange(40) % 7), "b": (np.arange(5, 15), np.arange(50) % 9)},
        "2-3 scores": {"a": (np.array([3.0, 4.0]), np.array([0.0, 1.0])),
                       "b": (np.array([2.5, 2.6]), np.array([0.5, 0.7, 2.0])),
                       "c": (np.array([3.0, 3.5, 9.0]), np.array([1.0, 1.2]))},
    }


CASES = hand_made()

# ----------------------------------------------------------------------------------------------
# Values against the oracle
# ----------------------------------------------------------------------------------------------


def test_dfi_closed_form_on_two_bins():
    """p_a = (1, 0), p_b = (1/2, 1/2), m = (3/4, 1/4): S_a = 2 - log2 3, S_b = 1 - log2(3)/2."""
    table = make_table({"a": (np.array([0.1, 0.2]), np.array([0.0, 0.3])), "b": (np.array([0.0, 1.0]), np.array([0.2, 0.9]))})
    index = bf.distribution_fairness_index(table, bins=2)
    log3 = math.log2(3)
    assert index.divergences.to_dict() == pytest.approx({"a": 2 - log3, "b": 1 - log3 / 2}, abs=1e-15)
    assert index.normal == pytest.approx(0.75 * log3 - 0.5, abs=1e-15)
    assert index.extreme == pytest.approx(log3 - 1, abs=1e-15)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("bins", [1, 3, 10, 100])
def test_indices_equal_the_oracle(case, bins):
    groups = CASES[case]
    table, names = make_table(groups), sorted(groups)
    for combine in ("pooled", "equal"):
        dfi = quiet(bf.distribution_fairness_index, table, bins=bins, combine=combine)
        expected = oracle_dfi([tuple(np.asarray(x, float) for x in groups[n]) for n in names], bins, combine)
        assert (dfi.normal, dfi.extreme) == pytest.approx(expected, abs=1e-12)
    for kind, side in (("mated", 0), ("nonmated", 1)):
        samples = [np.sort(np.asarray(groups[n][side], float)) for n in names]
        for percentile, weight in ((95.0, 0.8), (80.0, 0.3), (60.0, 1.0), (99.9, 0.0)):
            cei = quiet(bf.comprehensive_equity_index, table, kind=kind, percentile=percentile, tail_weight=weight,
                        bins=bins)
            expected = oracle_cei(samples, kind, [percentile] * len(names), weight, bins)
            assert (cei.normal, cei.extreme) == pytest.approx(expected, abs=1e-12), (kind, percentile)
        for n_std in (0.5, 1.0, 2.0, 3.0):
            automatic = quiet(bf.automatic_comprehensive_equity_index, table, kind=kind, n_std=n_std, bins=bins)
            expected, weight, percentiles = oracle_automatic(samples, kind, n_std, bins)
            assert automatic.parameters["tail_weight"] == pytest.approx(weight, abs=1e-12)
            assert list(automatic.parameters["percentiles"].values()) == pytest.approx(percentiles, abs=1e-12)
            assert (automatic.normal, automatic.extreme) == pytest.approx(expected, abs=1e-12), (kind, n_std)


@pytest.mark.parametrize("exponent", [996, -996])
def test_extreme_magnitudes_equal_the_oracle_on_the_unscaled_scores(exponent):
    """Scores near 1e300 or 1e-300: the N-sigma rule's squares overflow or underflow in a naive
    mean and std (the oracle's percentiles are all 100, or near 50); biofair's agree with the
    oracle's on the scores scaled back by the same power of two, and so do the indices."""
    groups = CASES["sizes 5 to 2000"]
    names = sorted(groups)
    table = make_table({n: (np.ldexp(m, exponent), np.ldexp(v, exponent)) for n, (m, v) in groups.items()})
    for kind, side in (("mated", 0), ("nonmated", 1)):
        samples = [np.sort(groups[n][side]) for n in names]
        expected, weight, percentiles = oracle_automatic(samples, kind, 1.5, 20)
        automatic = quiet(bf.automatic_comprehensive_equity_index, table, kind=kind, n_std=1.5, bins=20)
        assert list(automatic.parameters["percentiles"].values()) == pytest.approx(percentiles, abs=1e-12)
        assert automatic.parameters["tail_weight"] == pytest.approx(weight, abs=1e-12)
        assert (automatic.normal, automatic.extreme) == pytest.approx(expected, abs=1e-12)
        cei = quiet(bf.comprehensive_equity_index, table, kind=kind, bins=20)
        assert (cei.normal, cei.extreme) == pytest.approx(oracle_cei(samples, kind, [95] * 3, 0.8, 20), abs=1e-12)


# ----------------------------------------------------------------------------------------------
# The bounds, exactly: identical groups 1, disjoint groups 0
# ----------------------------------------------------------------------------------------------


def every_index(table, bins):
    values = {}
    for combine in ("pooled", "equal"):
        values[f"DFI {combine}"] = bf.distribution_fairness_index(table, bins=bins, combine=combine)
    for kind in ("mated", "nonmated"):
        values[f"CEI {kind}"] = bf.comprehensive_equity_index(table, kind=kind, bins=bins, percentile=70)
        values[f"CEI^A {kind}"] = bf.automatic_comprehensive_equity_index(table, kind=kind, bins=bins, n_std=0.5)
    return values


@pytest.mark.parametrize("k", range(2, 13))
def test_identical_groups_are_exactly_fair_for_any_number_of_groups(k):
    """The mean of K equal pmfs rounded off them (0.05 ten times, over ten): ten groups gave
    DFI 0.9999999999999999 and three a divergence of -1.6e-17 bits."""
    table = make_table({f"g{i:02d}": (np.arange(10.0) + 3, np.arange(10.0) + 0.5) for i in range(k)})
    for name, index in every_index(table, bins=7).items():
        assert (index.normal, index.extreme) == (1.0, 1.0), name
        assert (index.divergences == 0.0).all(), name


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_extreme_variant_lies_one_to_k_times_as_far_from_1_as_the_normal_one(case):
    """1 - E = max_i S_i / log2 K and 1 - N = mean_i S_i / log2 K, so (1 - E) / (1 - N) lies in
    [1, K] for any scores: the CEI paper's "greater sensitivity" of its extreme variants is built
    into their formulas, which the chapter "Audit two real speaker verifiers" says (two groups:
    between once and twice as far from 1)."""
    table = make_table(CASES[case])
    k = len(CASES[case])
    for name, index in quiet(every_index, table, bins=10).items():
        shortfall_normal, shortfall_extreme = 1 - index.normal, 1 - index.extreme
        assert shortfall_normal - 1e-12 <= shortfall_extreme <= k * shortfall_normal + 1e-12, name


@pytest.mark.parametrize("k", range(2, 12))
def test_disjoint_groups_are_exactly_unfair_and_never_below_zero(k):
    """Each group alone in its bins: S_i = log2 K, which rounding put an ulp above (seven groups
    gave DFI_N and DFI_E -2.2e-16, outside the documented [0, 1]); an ulp below is left as it is."""
    table = make_table({f"g{i:02d}": (10.0 * i + np.array([1.0, 2, 3]), 10.0 * i + 0.1 * np.arange(7)) for i in range(k)})
    for combine in ("pooled", "equal"):
        index = quiet(bf.distribution_fairness_index, table, bins=10 * k, combine=combine)
        assert 0.0 <= index.extreme <= index.normal <= 1e-15, combine
        assert index.divergences.max() <= np.log2(k)
        assert index.divergences.to_numpy() == pytest.approx(np.full(k, np.log2(k)), abs=1e-15)
    cei = quiet(bf.comprehensive_equity_index, table, kind="nonmated", bins=10 * k, percentile=60)
    assert 0.0 <= cei.extreme <= cei.normal <= 1e-15


# ----------------------------------------------------------------------------------------------
# The order of the groups
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [32, 33, 36, 37, 39])
def test_the_order_of_the_groups_changes_no_digit(seed):
    """Relabelling the groups (so that they come in another order) changed the indices, the
    divergences and CEIᴬ's tail weight in their last digits (these seeds; up to 8.9e-16)."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 6))
    groups = {f"g{i}": (rng.normal(2 + rng.normal(), 1, rng.integers(20, 200)),
                        rng.normal(rng.normal(), 1, rng.integers(50, 500))) for i in range(k)}
    table = make_table(groups)
    permutation = rng.permutation(k)
    relabel = {f"g{i}": f"h{permutation[i]}" for i in range(k)}
    moved = table.assign(group=table["group"].map(relabel))
    back = {new: old for old, new in relabel.items()}
    runs = (
        lambda t: bf.distribution_fairness_index(t, bins=30),
        lambda t: bf.distribution_fairness_index(t, bins=30, combine="equal"),
        lambda t: bf.comprehensive_equity_index(t, kind="nonmated", bins=30, percentile=90),
        lambda t: bf.comprehensive_equity_index(t, kind="mated", bins=30, percentile=90),
        lambda t: bf.comprehensive_equity_index(t, kind="mated", bins=30, percentile=90, mean_tail="split_mean"),
        lambda t: bf.automatic_comprehensive_equity_index(t, kind="mated", bins=30, n_std=1),
        lambda t: bf.automatic_comprehensive_equity_index(t, kind="nonmated", bins=30, n_std=1),
    )
    for run in runs:
        a, b = quiet(run, table), quiet(run, moved)
        assert (a.normal, a.extreme) == (b.normal, b.extreme)
        assert a.divergences.to_dict() == b.divergences.rename(index=back).to_dict()
        assert a.parameters.get("tail_weight") == b.parameters.get("tail_weight")


# ----------------------------------------------------------------------------------------------
# Options given as other kinds of numbers
# ----------------------------------------------------------------------------------------------


def test_fractions_and_numpy_scalars_as_options_give_float_results():
    """A Fraction is a number that the options' check accepts: CEI's divergences became an
    object Series of Fractions and its parameters kept them; CEIᴬ failed inside SciPy with
    "ufunc 'isnan' not supported"."""
    table = make_table(CASES["sizes 5 to 2000"])
    plain = bf.comprehensive_equity_index(table, percentile=95, tail_weight=0.8)
    for percentile, weight in ((Fraction(95), Fraction(4, 5)), (np.float64(95), np.float32(0.5) + np.float32(0.3))):
        index = bf.comprehensive_equity_index(table, percentile=percentile, tail_weight=weight)
        assert index.divergences.dtype == np.float64
        assert type(index.parameters["percentile"]) is float and type(index.parameters["tail_weight"]) is float
        assert index.normal == pytest.approx(plain.normal, abs=1e-7)
    fraction = bf.comprehensive_equity_index(table, percentile=Fraction(95), tail_weight=Fraction(4, 5))
    assert (fraction.normal, fraction.extreme) == (plain.normal, plain.extreme)
    automatic = quiet(bf.automatic_comprehensive_equity_index, table, n_std=Fraction(2))
    expected = quiet(bf.automatic_comprehensive_equity_index, table, n_std=2.0)
    assert (automatic.normal, automatic.extreme) == (expected.normal, expected.extreme)
    assert type(automatic.parameters["n_std"]) is float


# ----------------------------------------------------------------------------------------------
# A split on a tie at the group's extreme score
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["nonmated", "mated"])
@pytest.mark.parametrize("n, tied", [(100, 96), (101, 96), (1000, 951), (40, 39)])
def test_a_split_on_a_tie_at_the_extreme_names_the_percentile_that_works(kind, n, tied):
    """``tied`` of ``n`` non-mated scores at the group's lowest value (mated: highest): the 95th
    percentile is that value once (tied - 1)/(n - 1) >= 0.95, every score is in the tail and
    SPEC 5's centre ("the rest") is empty. The error named neither the tie nor a way out; the
    percentile it now gives, 100 (tied - 1)/(n - 1), is refused and any above it splits the
    tie off as the centre."""
    scores = np.r_[np.zeros(tied), np.arange(1.0, n - tied + 1)]
    if kind == "mated":
        scores = -scores
    other = np.linspace(-3, 3, 50)
    table = make_table({"a": (scores, scores), "b": (other, other)})
    bound = 100 * (tied - 1) / (n - 1)
    end = "lowest" if kind == "nonmated" else "highest"
    with pytest.raises(bf.SchemaError, match=(
            rf"^group 'a': all {n:,} {kind} scores fall in the tail at percentile 95; the centre is empty \(too few or "
            rf"tied scores\): {tied} of them share its {end} score, -?0\.0, where the split falls; use a percentile "
            rf"above {bound:.6g} \(the tied scores then form the centre\)")):
        bf.comprehensive_equity_index(table, kind=kind)
    with pytest.raises(bf.SchemaError, match="the centre is empty"):
        bf.comprehensive_equity_index(table, kind=kind, percentile=bound)
    above = bound + 1e-9
    index = quiet(bf.comprehensive_equity_index, table, kind=kind, percentile=above)
    samples = [np.sort(scores), other]
    assert (index.normal, index.extreme) == pytest.approx(oracle_cei(samples, kind, [above] * 2, 0.8, 100), abs=1e-12)
    centre = scores[scores > np.percentile(scores, 100 - above)] if kind == "mated" else (
        scores[scores < np.percentile(scores, above)])
    assert centre.size == tied and (centre == 0).all()


def test_an_all_equal_group_keeps_its_message():
    """All of a group's scores equal: no percentile splits them (the message is unchanged)."""
    table = make_table({"a": (np.full(10, 5.0), np.full(10, 1.0)), "b": (np.arange(10.0), np.arange(10.0))})
    for kind in ("mated", "nonmated"):
        with pytest.raises(bf.SchemaError, match=rf"^group 'a': all 10 {kind} scores fall in the tail at percentile "
                           r"95; the centre is empty \(too few or tied scores\)$"):
            bf.comprehensive_equity_index(table, kind=kind)
        with pytest.raises(bf.SchemaError, match=r"at percentile 100; the centre is empty \(too few or tied scores\)$"):
            quiet(bf.automatic_comprehensive_equity_index, table, kind=kind)  # after warning of its empty tail


# ----------------------------------------------------------------------------------------------
# Invariance: which transforms of the scores leave the indices alone
# ----------------------------------------------------------------------------------------------


def test_only_exact_rescaling_leaves_the_indices_unchanged_and_monotone_maps_do_not():
    """Equal-width histograms over the scores' own range (DFI, CEI) follow increasing affine maps
    exactly when they are exact in floating point (powers of two, integer shifts of integers);
    the N-sigma rule (CEIᴬ) too. A monotone but non-affine map (exp) moves every index: none of
    the three is rank-based, by definition."""
    groups = CASES["integers"]
    table = make_table({n: (np.asarray(m, float), np.asarray(v, float)) for n, (m, v) in groups.items()})
    base = every_index(table, bins=10)
    for transform in (lambda s: 4.0 * s, lambda s: s - 1024.0, lambda s: 0.25 * s + 8.0):
        moved = every_index(table.assign(score=transform(table["score"])), bins=10)
        for name, index in base.items():
            assert (moved[name].normal, moved[name].extreme) == (index.normal, index.extreme), name
    table = make_table(CASES["sizes 5 to 2000"])  # distinct scores (integers each in a bin of their own do not move)
    base = quiet(every_index, table, bins=10)
    moved = quiet(every_index, table.assign(score=np.exp(table["score"] / 4)), bins=10)
    assert {n: abs(moved[n].normal - index.normal) > 1e-3 for n, index in base.items()} == dict.fromkeys(base, True)


def test_perfectly_shifted_groups_get_no_credit_for_their_shape():
    """Two groups of the same shape, one shifted past the other: DFI sees no overlap (0), while
    CEI compares each part over the union of the parts' ranges and finds them disjoint too."""
    a = np.arange(20.0)
    table = make_table({"a": (a + 100, a), "b": (a + 200, a + 50)})
    assert quiet(bf.distribution_fairness_index, table, bins=40).normal == 0.0
    for kind in ("mated", "nonmated"):
        assert quiet(bf.comprehensive_equity_index, table, kind=kind, bins=40).normal == 0.0


def test_rows_in_any_order_give_the_same_digits():
    table = make_table(CASES["sizes 5 to 2000"])
    base = quiet(every_index, table, bins=25)
    for seed in range(3):
        shuffled = table.sample(frac=1.0, random_state=seed)
        for name, index in quiet(every_index, shuffled, bins=25).items():
            assert (index.normal, index.extreme) == (base[name].normal, base[name].extreme), name


@pytest.mark.parametrize("seed", range(20))
def test_float32_scores_by_group_are_binned_as_their_float64_values(seed):
    """A ScoresByGroup of float32 arrays got float32 bin edges: 0.7f and 0.9f fell into the bin
    below, and DFI was 0.547 where the same values as float64 (or a float32 table column) give
    0.801; CEIᴬ moved by up to 0.16 on random groupings."""
    rng = np.random.default_rng(seed)
    groups = {name: (np.round(rng.uniform(0, 1, rng.integers(8, 30)), 1), np.round(rng.uniform(0, 1, 40), 1))
                for name in "abc"}

    def grouped(dtype):
        return bf.ScoresByGroup({name: bf.GroupScores(np.sort(m.astype(np.float32)).astype(dtype),
                                                      np.sort(n.astype(np.float32)).astype(dtype))
                                 for name, (m, n) in groups.items()}, by="group")

    def same(found, expected):
        assert (found.normal, found.extreme) == (expected.normal, expected.extreme)
        pd.testing.assert_series_equal(found.divergences, expected.divergences, rtol=0, atol=0)

    single, double = grouped(np.float32), grouped(np.float64)
    assert single["a"].mated.dtype == np.float32  # the case under test
    same(quiet(bf.distribution_fairness_index, single, bins=8), quiet(bf.distribution_fairness_index, double, bins=8))
    for kind in ("nonmated", "mated"):
        for index in (bf.comprehensive_equity_index, bf.automatic_comprehensive_equity_index):
            same(quiet(index, single, kind=kind, bins=8), quiet(index, double, kind=kind, bins=8))
