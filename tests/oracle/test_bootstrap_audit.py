"""Audit of ``bf.bootstrap``, ``bf.paired_bootstrap`` and ``bf.ranking_flips`` against
brute force: the documented draws replayed with the same generator, Efron and Tibshirani's
BCa (eq. 14.14-14.15) written out, a coverage check on simulated data, and the hostile
inputs that gave an obscure error, a silent bar or an interval that moved with the rows'
order.

Every statistical assertion states its false-alarm probability: the chance that it fails
although the code does what its docstring says.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import biofair as bf
from biofair._resampling import interval

#: False-alarm probability of each statistical assertion of this file.
FALSE_ALARM = 1e-5


def mean_difference(mated, nonmated) -> float:
    return float(np.mean(mated) - np.mean(nonmated))


def mean_of_mated(mated, nonmated) -> float:
    return float(np.mean(mated))


def subject_table(rng: np.random.Generator, n_subjects: int = 8, per_subject: int = 6, decimals: int | None = None):
    """Each subject: 2 mated comparisons and ``per_subject - 2`` non-mated ones as reference,
    against the next subjects as probes; subject ids that do not sort as they appear."""
    subjects = np.repeat(np.arange(n_subjects), per_subject)
    mated = np.tile([True, True] + [False] * (per_subject - 2), n_subjects)
    probes = np.where(mated, subjects, (subjects + 1 + np.tile(np.arange(per_subject), n_subjects)) % n_subjects)
    score = rng.normal(size=subjects.size) + 1.5 * mated
    ids = (n_subjects - subjects) * 7  # reversed order: the clusters are numbered in sorted order
    return pd.DataFrame({"score": score if decimals is None else np.round(score, decimals), "mated": mated,
                         "reference_subject": ids, "probe_subject": (n_subjects - probes) * 7})


def bca_by_hand(replicates, estimate, leave_one_out, confidence):
    """Efron and Tibshirani's BCa ends: z0 = Phi^-1(share below the estimate, a tie counting
    one half), a = sum_j sum_i U^3/n_j^3 / (6 (sum_j sum_i U^2/n_j^2)^1.5) with U = (n_j - 1)
    (mean - theta_ji) per independently resampled sample j (a single sample: their eq.
    14.15), ends at type-7 percentiles, in exact-enough float arithmetic on values near 1."""
    z0 = stats.norm.ppf(np.mean(replicates < estimate) + np.mean(replicates == estimate) / 2)
    cubes = squares = 0.0
    for values in leave_one_out:
        n = len(values)
        u = (n - 1) * (np.mean(values) - np.asarray(values))
        cubes += np.sum(u**3) / n**3
        squares += np.sum(u**2) / n**2
    a = cubes / (6 * squares**1.5)
    z = stats.norm.ppf([(1 - confidence) / 2, (1 + confidence) / 2])
    return np.percentile(replicates, 100 * stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z))))


# =============================================================================================
# Fixes
# =============================================================================================


@pytest.mark.parametrize("exponent", [-1000, -600, -300, 300, 600, 1000])
def test_bca_of_tiny_or_huge_statistics_is_the_scaled_interval(exponent):
    """BCa is invariant to the scale of the statistic. The acceleration summed u^2 and u^3 as
    they came: leave-one-out values of 2^-600 squared to 0 ("the statistic takes the same
    value whichever unit is left out", which it does not), those of 2^600 overflowed (a
    RuntimeWarning, an interval of NaN). Scaling by a power of two is exact, so the interval
    is the scaled one, which Efron's formulas give on values near 1."""
    mated, nonmated = np.array([1.0, 2.0, 7.0, 3.0, 2.5]), np.arange(8.0)
    unscaled = bf.bootstrap(mean_of_mated, (mated, nonmated), method="bca", n_resamples=199, rng=0)
    leave_one_out = [[np.mean(np.delete(mated, i)) for i in range(mated.size)], [np.mean(mated)] * nonmated.size]
    np.testing.assert_allclose([unscaled.low, unscaled.high],
                               bca_by_hand(unscaled.replicates, unscaled.estimate, leave_one_out, 0.95), rtol=1e-13)
    scaled = bf.bootstrap(mean_of_mated, (np.ldexp(mated, exponent), nonmated), method="bca", n_resamples=199, rng=0)
    np.testing.assert_array_equal(scaled.replicates, np.ldexp(unscaled.replicates, exponent))
    np.testing.assert_allclose([scaled.low, scaled.high], np.ldexp([unscaled.low, unscaled.high], exponent),
                               rtol=1e-13)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_jackknife_value_that_is_no_finite_number_is_named(bad):
    """The statistic NaN (or infinite) with one comparison left out, finite on all the data and
    on every resample: the acceleration was NaN and numpy said "Percentiles must be in the
    range [0, 100]" (or warned of an invalid subtraction)."""
    mated, nonmated = np.arange(10.0), np.arange(12.0) - 3

    def statistic(m, n):
        return bad if m.size == 9 and 9.0 not in m else float(np.mean(m))

    with pytest.raises(ValueError, match=r"^method='bca' needs the statistic with each unit left out \(the "
                                         r"jackknife\), but it is NaN or infinite on 1 of 22 of these evaluations; "
                                         r"make it defined and finite on them, or use method='percentile'$"):
        bf.bootstrap(statistic, (mated, nonmated), method="bca", n_resamples=40, rng=0)


def test_a_class_of_one_comparison_adds_nothing_to_the_acceleration_and_is_not_left_out():
    """A sample of one unit has U = (1 - 1)(...) = 0: it adds nothing to a, and leaving it out
    handed the statistic an empty class (numpy's "Mean of empty slice", NaN, then "Percentiles
    must be in the range"). The interval is Efron's with the non-mated jackknife only."""
    mated, nonmated = np.array([1.5]), np.random.default_rng(3).gamma(2.0, 1.0, 30)
    result = bf.bootstrap(mean_difference, (mated, nonmated), method="bca", n_resamples=400, rng=2)
    leave_one_out = [[mean_difference(mated, np.delete(nonmated, i)) for i in range(nonmated.size)]]
    np.testing.assert_allclose([result.low, result.high],
                               bca_by_hand(result.replicates, result.estimate, leave_one_out, 0.95), rtol=1e-12)


def test_a_stratum_of_one_subject_is_not_left_out():
    """With strata, a group whose mated comparisons come from one subject: that stratum's only
    cluster is not left out (its U is 0); the other clusters are, stratum by stratum."""
    rng = np.random.default_rng(8)
    lone = pd.DataFrame({"reference_subject": 1, "probe_subject": 1, "mated": True, "group": "a",
                         "score": rng.normal(2.0, 1.0, 3)})
    others = subject_table(rng, n_subjects=6, per_subject=4).assign(group="b")
    table = pd.concat([lone, others], ignore_index=True)

    def groups_gap(t):
        return float(t.loc[t["group"] == "a", "score"].mean() - t.loc[t["group"] == "b", "score"].mean())

    result = bf.bootstrap(groups_gap, table, data="table", strata="group", unit="subject", method="bca",
                          n_resamples=300, rng=4)
    leave_one_out = []
    for mated in (True, False):  # group b's strata; group a has one stratum of one cluster
        rows = table[(table["group"] == "b") & (table["mated"] == mated)]
        subjects = sorted(rows["reference_subject"].unique())
        leave_one_out.append([groups_gap(table.drop(rows.index[rows["reference_subject"] == s])) for s in subjects])
    np.testing.assert_allclose([result.low, result.high],
                               bca_by_hand(result.replicates, result.estimate, leave_one_out, 0.95), rtol=1e-12)


def test_bca_of_a_subject_resample_does_not_depend_on_the_rows_order():
    """Subject resamples draw the same subjects whatever the rows' order, but a mean sums their
    scores in that order: a replicate that equals the estimate in exact arithmetic fell 1 ulp
    above or below it, and z0 counted it below, above or half: the BCa ends moved in the third
    digit (-0.15538 against -0.15388) with a shuffle of the rows. A replicate within a
    relative 100 ulp of the estimate counts as equal."""
    table = subject_table(np.random.default_rng(0), n_subjects=6, per_subject=4, decimals=1)
    found = [bf.bootstrap(mean_difference, table.sample(frac=1.0, random_state=seed), method="bca",
                          n_resamples=200, rng=1) for seed in range(3)]
    assert found[0].unit == "subject"
    assert any(np.sum(r.replicates == r.estimate) != np.sum(found[0].replicates == found[0].estimate) for r in found)
    for result in found[1:]:
        np.testing.assert_allclose([result.low, result.high], [found[0].low, found[0].high], rtol=1e-13)


def test_z0_counts_replicates_within_rounding_of_the_estimate_as_ties():
    """Efron's z0 from a written-out distribution: replicates 1 and 2 ulp below the estimate
    count one half each, as the estimate itself; one 1,000 ulp away (a real difference) counts
    as below. The acceleration is 0 (a symmetric jackknife), so the levels are Phi(2 z0 + z).
    Counted as below, the two near-ties gave z0 = Phi^-1(11/16) instead of Phi^-1(9/16)."""
    estimate = 0.3
    near = [np.nextafter(0.3, 0.0), np.nextafter(np.nextafter(0.3, 0.0), 0.0)]
    replicates = np.array([0.1, 0.2, *near, 0.3, 0.3 - 1000 * 2**-54 * 0.3, 0.4, 0.5] * 5)
    low, high = interval(replicates, estimate, lambda: [(np.array([1.0, 2.0, 3.0]), None)], method="bca",
                         confidence=0.8)
    z0 = stats.norm.ppf((3 + 3 / 2) / 8)  # below: 0.1, 0.2, 0.3 - 1000 ulp; ties: 0.3 and the two near it
    expected = np.percentile(replicates, 100 * stats.norm.cdf(2 * z0 + stats.norm.ppf([0.1, 0.9])))
    np.testing.assert_allclose([low, high], expected, rtol=1e-15)


@pytest.mark.parametrize("call", ["bootstrap", "paired_bootstrap"])
def test_progress_bar_is_true_false_or_none(call, capsys):
    """progress_bar="no" is a true string: it showed a bar. It is refused, by its name, also for
    a statistic whose fast path shows none (bf.tmr_at_fmr). True shows a bar, False and None
    (not a terminal) do not."""
    scores = (np.arange(30.0), np.arange(60.0) - 10)
    run = {"bootstrap": lambda **kw: bf.bootstrap(mean_difference, scores, n_resamples=40, rng=0, **kw),
           "paired_bootstrap": lambda **kw: bf.paired_bootstrap(mean_difference, scores, scores, n_resamples=40,
                                                                rng=0, **kw)}[call]
    for bad in ("no", 0, 1, "False"):
        with pytest.raises(TypeError, match=r"^progress_bar must be True, False or None \(a bar only on an "
                                            rf"interactive terminal\), got {bad!r}$"):
            run(progress_bar=bad)
    with pytest.raises(TypeError, match="^progress_bar must be True, False or None"):
        bf.bootstrap(bf.tmr_at_fmr, scores, args=(0.1,), n_resamples=40, rng=0, progress_bar="no")
    capsys.readouterr()
    for show, shown in ((None, False), (False, False), (np.False_, False), (True, True), (np.True_, True)):
        run(progress_bar=show)
        assert ("/40 " in capsys.readouterr().err) == shown, show


@pytest.mark.parametrize("args", [1e-3, "ab", None, {"fmr": 1e-3}])
def test_args_that_are_no_tuple_are_named(args):
    """args=1e-3 failed as "Value after * must be an iterable, not float"; "ab" passed two
    arguments "a" and "b"; a dict passed its keys."""
    with pytest.raises(TypeError, match=r"^args must be a tuple of the statistic's further arguments, "
                                        r"e\.g\. args=\(1e-3,\), got "):
        bf.bootstrap(bf.tmr_at_fmr, (np.arange(30.0), np.arange(60.0)), args=args, n_resamples=40, rng=0)
    with pytest.raises(TypeError, match=r"^args must be a tuple"):
        bf.paired_bootstrap(bf.tmr_at_fmr, (np.arange(30.0), np.arange(60.0)), (np.arange(30.0), np.arange(60.0)),
                            args=args, n_resamples=40, rng=0)
    listed = bf.bootstrap(bf.tmr_at_fmr, (np.arange(30.0), np.arange(60.0)), args=[0.1], n_resamples=40, rng=0)
    assert listed == bf.bootstrap(bf.tmr_at_fmr, (np.arange(30.0), np.arange(60.0)), args=(0.1,), n_resamples=40,
                                  rng=0)[:7] + (listed.replicates,)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_an_error_on_a_resample_says_which(method):
    """A statistic that works on all the data and raises on one resample (here: a resample
    without a subject's comparisons it indexes) gave its bare error; it now carries a note of
    the evaluation it came from, the message itself unchanged."""
    calls = []

    def statistic(m, n):
        calls.append(1)
        if len(calls) == 6:
            raise KeyError("subject 7")
        return mean_difference(m, n)

    with pytest.raises(KeyError, match="subject 7") as raised:
        bf.bootstrap(statistic, (np.arange(10.0), np.arange(12.0)), method=method, n_resamples=40, rng=0)
    assert raised.value.__notes__ == ["raised by the statistic on bootstrap evaluation 5 of 40 (it gave a number on "
                                      "all the data: a resample can lack a class or a group that all the data have)"]
    calls.clear()
    scores = (np.arange(10.0), np.arange(12.0))
    with pytest.raises(KeyError) as raised:  # evaluations: A, B on all the data, then A, B per resample
        bf.paired_bootstrap(statistic, scores, scores, n_resamples=40, rng=0)
    assert raised.value.__notes__[0].startswith("raised by the statistic on paired bootstrap evaluation 2 of 40")


# =============================================================================================
# Oracles: draws replayed, BCa written out, ranking flips enumerated, coverage
# =============================================================================================


@pytest.mark.parametrize("data", ["arrays", "table"])
def test_paired_bootstrap_resamples_the_same_rows_for_both_systems(data):
    """Unit "pair": each class's positions drawn as rng.integers(0, n, n), mated then
    non-mated, the same for A and B; unit "subject": clusters drawn with replacement in their
    sorted order, every row of a drawn subject kept as often as it was drawn. The replicates,
    p(A > B) and the type-7 percentile ends, replayed with a generator of the same seed."""
    rng = np.random.default_rng(11)
    a = subject_table(rng)
    b = a.assign(score=a["score"] + rng.normal(0.0, 0.5, len(a)))
    if data == "arrays":
        statistic = mean_difference
    else:
        def statistic(t):
            return mean_difference(*bf.split_scores(t))
    (ma, na), (mb, nb) = bf.split_scores(a), bf.split_scores(b)
    codes = np.searchsorted(np.sort(a["reference_subject"].unique()), a["reference_subject"])
    for unit in ("pair", "subject"):
        result = bf.paired_bootstrap(statistic, a, b, data=data, unit=unit, n_resamples=60, rng=5)
        draws, expected = np.random.default_rng(5), []
        for _ in range(60):
            if unit == "pair":
                i, j = draws.integers(0, ma.size, ma.size), draws.integers(0, na.size, na.size)
                expected.append(mean_difference(ma[i], na[j]) - mean_difference(mb[i], nb[j]))
            else:
                counts = np.bincount(draws.integers(0, 8, 8), minlength=8)
                rows = np.repeat(np.arange(len(a)), counts[codes])
                expected.append(mean_difference(*bf.split_scores(a.iloc[rows]))
                                - mean_difference(*bf.split_scores(b.iloc[rows])))
        np.testing.assert_allclose(result.replicates, expected, rtol=1e-13, atol=1e-15)
        assert result.p_greater == np.mean(np.array(expected) > 0)
        np.testing.assert_allclose([result.low, result.high], np.percentile(expected, [2.5, 97.5]), rtol=1e-12)
        assert result.difference == mean_difference(ma, na) - mean_difference(mb, nb)
        assert result.significant == (result.low > 0 or result.high < 0)


def test_paired_bca_by_its_definition():
    """The BCa interval of a paired difference: the jackknife leaves one comparison of a class
    out of both systems at once (units "pair"), or one subject (units "subject")."""
    rng = np.random.default_rng(12)
    a = subject_table(rng, n_subjects=10)
    b = a.assign(score=a["score"] * 1.3 + rng.gamma(1.0, 0.3, len(a)))

    def difference(rows):
        return mean_difference(*bf.split_scores(a.loc[rows])) - mean_difference(*bf.split_scores(b.loc[rows]))

    for unit in ("pair", "subject"):
        result = bf.paired_bootstrap(mean_difference, a, b, unit=unit, method="bca", n_resamples=300, rng=6,
                                     confidence=0.9)
        if unit == "pair":
            leave_one_out = [[difference(a.index.drop(i)) for i in a.index[a["mated"] == mated]]
                             for mated in (True, False)]
        else:
            leave_one_out = [[difference(a.index[a["reference_subject"] != s])
                              for s in np.sort(a["reference_subject"].unique())]]
        np.testing.assert_allclose([result.low, result.high],
                                   bca_by_hand(result.replicates, result.difference, leave_one_out, 0.9), rtol=1e-12)


def test_bca_undefined_cases_by_their_definition():
    """Every replicate strictly on one side of the estimate: z0 = -inf or +inf; every replicate
    equal to it: z0 = 0, and then only the acceleration decides (a jackknife that does not vary
    has none)."""
    constant_jackknife = lambda: [(np.array([2.0, 2.0, 2.0]), None)]  # noqa: E731
    varying = lambda: [(np.array([1.0, 2.0, 4.0]), None)]  # noqa: E731
    for replicates in (np.full(40, 1.0), np.full(40, 3.0)):
        with pytest.raises(ValueError, match="every replicate lies on one side of the estimate"):
            interval(replicates, 2.0, varying, method="bca", confidence=0.95)
    with pytest.raises(ValueError, match="the statistic takes the same value whichever unit is left out"):
        interval(np.full(40, 2.0), 2.0, constant_jackknife, method="bca", confidence=0.95)
    assert interval(np.full(40, 2.0), 2.0, varying, method="bca", confidence=0.95) == (2.0, 2.0)


def test_int_seed_and_generator_give_the_same_intervals():
    scores = (np.random.default_rng(1).normal(1, 1, 40), np.random.default_rng(2).normal(0, 1, 70))
    for method in ("percentile", "bca"):
        results = [bf.bootstrap(mean_difference, scores, method=method, n_resamples=100, rng=rng)
                   for rng in (7, np.int64(7), np.random.default_rng(7), np.random.default_rng(7))]
        for result in results[1:]:
            np.testing.assert_array_equal(result.replicates, results[0].replicates)
            assert result[:3] == results[0][:3]
    generator = np.random.default_rng(7)
    first = bf.bootstrap(mean_difference, scores, n_resamples=100, rng=generator)
    second = bf.bootstrap(mean_difference, scores, n_resamples=100, rng=generator)  # the stream goes on
    assert not np.array_equal(first.replicates, second.replicates)


def test_ranking_flips_equal_an_enumeration():
    """Every ordered pair (metric preferring A, metric preferring B) among significant
    differences, each metric's preference from the side of 0 its interval lies on and its
    orientation, in the order of the mapping; against random intervals touching 0 or not."""
    rng = np.random.default_rng(0)
    for _ in range(400):
        comparisons, orientation = {}, {}
        for k in range(int(rng.integers(0, 6))):
            low = float(rng.choice([-2.0, -1.0, 0.0, 1.0]))
            high = low + float(rng.choice([0.0, 1.0, 2.0, 3.0]))
            comparisons[f"m{k}"] = bf.PairedResult(float(rng.normal()), low, high, 0.5, 0.95, 40, "pair",
                                                   "percentile", np.zeros(40))
            if rng.random() < 0.5:
                orientation[f"m{k}"] = bool(rng.random() < 0.5)

        def prefers(name):
            r = comparisons[name]
            if not (r.low > 0 or r.high < 0):
                return None
            return "A" if (r.low > 0) == orientation.get(name, True) else "B"

        expected = [(x, y) for x, y in itertools.product(comparisons, repeat=2)
                    if prefers(x) == "A" and prefers(y) == "B"]
        assert bf.ranking_flips(comparisons, higher_is_better=orientation) == expected



def paired(low: float, high: float) -> bf.PairedResult:
    """A paired difference with the interval [low, high] (its other fields do not matter)."""
    return bf.PairedResult((low + high) / 2, low, high, 0.5, 0.95, 40, "pair", "percentile", np.zeros(40))


#: Intervals of a difference: either side of 0, across it, or touching it.
INTERVALS = st.tuples(st.sampled_from([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0]),
                      st.sampled_from([0.0, 0.5, 1.0, 3.0])).map(lambda e: (e[0], e[0] + e[1]))
#: Metrics: each name's interval and, optionally, its orientation.
METRICS = st.lists(st.tuples(INTERVALS, st.sampled_from([None, True, False])), max_size=7)


def comparisons_of(metrics) -> tuple[dict, dict]:
    names = [f"m{i}" for i in range(len(metrics))]
    return ({name: paired(*ends) for name, (ends, _) in zip(names, metrics)},
            {name: up for name, (_, up) in zip(names, metrics) if up is not None})


@given(METRICS)
def test_ranking_flips_bounds(metrics):
    """A flip pairs two significant metrics that prefer different systems: never a metric with
    itself, never one whose interval holds 0, each pair once, and ``|A| · |B| <= m²/4`` of them
    in all (the metrics preferring A times those preferring B)."""
    comparisons, orientation = comparisons_of(metrics)
    flips = bf.ranking_flips(comparisons, higher_is_better=orientation)
    assert len(set(flips)) == len(flips) <= len(comparisons) ** 2 // 4
    significant = {name for name, r in comparisons.items() if r.low > 0 or r.high < 0}
    assert all(first != second and {first, second} <= significant for first, second in flips)
    firsts, seconds = {f for f, _ in flips}, {s for _, s in flips}
    assert not firsts & seconds and len(flips) == len(firsts) * len(seconds)


@given(METRICS)
def test_ranking_flips_of_the_systems_swapped_are_the_pairs_reversed(metrics):
    """``m(B) - m(A)`` (each interval negated: [-high, -low]) prefers the other system wherever
    ``m(A) - m(B)`` prefers one, and so does every metric's orientation reversed: the same flips,
    each pair reversed."""
    comparisons, orientation = comparisons_of(metrics)
    flips = bf.ranking_flips(comparisons, higher_is_better=orientation)
    swapped = {name: paired(-r.high, -r.low) for name, r in comparisons.items()}
    reversed_orientation = {name: not orientation.get(name, True) for name in comparisons}
    expected = sorted((second, first) for first, second in flips)
    assert sorted(bf.ranking_flips(swapped, higher_is_better=orientation)) == expected
    assert sorted(bf.ranking_flips(comparisons, higher_is_better=reversed_orientation)) == expected


@given(METRICS, st.randoms(use_true_random=False), st.lists(st.floats(0.01, 100.0), min_size=7, max_size=7))
def test_ranking_flips_follow_the_metrics_not_their_names_order_or_scale(metrics, random, factors):
    """Renaming the metrics renames the flips; listing them in another order gives the same
    pairs; a metric's interval times a positive factor (an increasing map that keeps 0: its
    difference in other units) keeps its side of 0, so the flips stay."""
    comparisons, orientation = comparisons_of(metrics)
    flips = set(bf.ranking_flips(comparisons, higher_is_better=orientation))
    names = list(comparisons)
    new_names = dict(zip(names, random.sample([f"metric {i}" for i in range(len(names))], len(names))))
    order = random.sample(names, len(names))
    renamed = {new_names[name]: comparisons[name] for name in order}
    assert set(bf.ranking_flips(renamed, higher_is_better={new_names[n]: v for n, v in orientation.items()})) == {
        (new_names[first], new_names[second]) for first, second in flips}
    scaled = {name: paired(r.low * f, r.high * f) for (name, r), f in zip(comparisons.items(), factors)}
    assert set(bf.ranking_flips(scaled, higher_is_better=orientation)) == flips


@given(INTERVALS, st.integers(0, 6), st.sampled_from([None, True, False]))
def test_ranking_flips_of_identical_metrics_are_none(ends, n_metrics, up):
    """Metrics that all say the same (one interval, one orientation) prefer one system, or
    none: no flip."""
    comparisons = {f"m{i}": paired(*ends) for i in range(n_metrics)}
    assert bf.ranking_flips(comparisons, higher_is_better=None if up is None else dict.fromkeys(comparisons, up)) == []

def test_percentile_interval_of_a_fixed_threshold_fmr_covers_at_the_nominal_level():
    """200 simulated sets of 400 non-mated N(0, 1) scores, the FMR at the fixed threshold
    Phi^-1(0.9) (true FMR 0.1): the 95% percentile interval (B = 400, pairs) holds 0.1 a number
    of times inside the acceptance region of Binomial(200, 0.95) at FALSE_ALARM."""
    threshold = stats.norm.ppf(0.9)
    rng = np.random.default_rng(7)
    covered = 0
    for seed in range(200):
        mated, nonmated = rng.normal(2.0, 1.0, 50), rng.normal(0.0, 1.0, 400)
        result = bf.bootstrap(lambda m, n: float(np.mean(n >= threshold)), (mated, nonmated), n_resamples=400, rng=seed)
        covered += result.low <= 0.1 <= result.high
    pmf = stats.binom.pmf(np.arange(201), 200, 0.95)
    kept = np.flatnonzero((np.cumsum(pmf) > FALSE_ALARM / 2) & (np.cumsum(pmf[::-1])[::-1] > FALSE_ALARM / 2))
    assert kept[0] <= covered <= kept[-1], (covered, kept[[0, -1]])
