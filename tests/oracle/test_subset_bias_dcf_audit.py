"""Audit of the subset-bias measures (SPEC section 6), d' and minDCF (SPEC section 2) against
hand formulas, scipy and brute-force loops, with the cases the other suites leave out: sets
that are permutations of each other, tied group means, one subset per group, tables of the
wrong kind, and the resolution warning of the subsets' TMRs."""

from __future__ import annotations

import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import biofair as bf
from biofair.exceptions import SchemaError


def performance_table(values: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([(g, k, v) for g, vs in values.items() for k, v in enumerate(vs)],
                        columns=["group", "subset", "value"])


# -- N-Sigma and the Welch T-test do not depend on the order of the values -----------------------


@pytest.mark.parametrize("values", [[0.84, 0.18, 0.09], [0.1, 0.2, 0.3]])
def test_a_set_against_a_permutation_of_itself_is_identical(values):
    """SPEC 6: N-Sigma is 0 and the T-test similarity 1 for identical groups. The mean of
    [0.84, 0.18, 0.09] summed in the two orders differed by an ulp: N-Sigma 1.7e-16, not 0."""
    a = np.array(values)
    assert bf.n_sigma(a, a[::-1]) == 0.0
    assert bf.welch_similarity(a, a[::-1]) == 1.0


def test_n_sigma_and_welch_do_not_depend_on_the_order_of_either_set():
    rng = np.random.default_rng(11)
    for _ in range(200):
        a, b = rng.uniform(0, 0.3, rng.integers(2, 40)), rng.uniform(0, 0.3, rng.integers(2, 40))
        first = (bf.n_sigma(a, b), bf.welch_similarity(a, b))
        assert (bf.n_sigma(rng.permutation(a), rng.permutation(b)),
                bf.welch_similarity(rng.permutation(a), rng.permutation(b))) == first
        # and still the hand formula (ddof=1) and scipy's Welch test
        expected = abs(a.mean() - b.mean()) / math.sqrt(a.var(ddof=1) + b.var(ddof=1))
        assert first[0] == pytest.approx(expected, rel=1e-12)
        assert first[1] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-9)


# -- subset_bias --------------------------------------------------------------------------------


def test_tied_means_choose_the_first_group_in_sorted_order():
    """The same subset values in another order have the same mean: np.mean made 'a' 0.2 + 1 ulp
    and 'b' 0.2 - 1 ulp, so 'b' became the reference of an exact tie."""
    bias = bf.subset_bias(performance_table({"a": [0.1, 0.2, 0.3], "b": [0.3, 0.2, 0.1]})).set_index("group")
    assert (bias["reference"] == "a").all()
    assert bias.loc["a", "mean"] == bias.loc["b", "mean"] == math.fsum([0.1, 0.2, 0.3]) / 3
    assert bias.loc["b", "parity"] == pytest.approx(1 - 0.4 / 3, abs=1e-15)
    assert (bias.loc["b", "n_sigma"], bias.loc["b", "welch_similarity"]) == (0.0, 1.0)


def test_one_subset_per_group_is_refused_with_what_to_do():
    with pytest.raises(ValueError, match=r"1 subset value.*at least two per group.*n_subsets >= 2"):
        bf.subset_bias(performance_table({"a": [0.1], "b": [0.3]}))


def test_a_performance_table_of_the_wrong_kind_is_named():
    with pytest.raises(TypeError, match=r"^performance must be a pandas DataFrame .* got dict$"):
        bf.subset_bias({"group": ["a", "b"], "subset": [0, 0], "value": [0.1, 0.2]})


def test_subset_ids_of_mixed_kinds_are_named():
    """Ids 0, 1 in one group and "0", "1" in the other raised numpy's bare "'<' not supported"."""
    mixed = pd.DataFrame({"group": ["a", "a", "b", "b"], "subset": [0, 1, "0", "1"], "value": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(SchemaError, match=r"column 'subset' mixes kinds of subset id.*as an integer"):
        bf.subset_bias(mixed)


# -- subset_performance -------------------------------------------------------------------------


def scores_table(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for group, (m, n, shift) in {"b": (40, 400, 0.0), "a": (30, 500, 0.5)}.items():
        parts.append(pd.DataFrame({"score": np.r_[rng.normal(2 + shift, 1, m), np.round(rng.normal(0, 1, n), 1)],
                                   "mated": np.repeat([True, False], [m, n]), "group": group}))
    return pd.concat(parts, ignore_index=True)


def test_tmr_warning_names_the_group_and_its_rows_are_marked_unresolved():
    """SPEC section 1: below 3 allowed false matches, warn and mark the row unresolved in every
    table; the warning names the group and says that its rows are marked, and they are."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = bf.subset_performance(scores_table(0), n_subsets=2, size=100, metric="tmr", rng=0)
    messages = [str(w.message) for w in caught if issubclass(w.category, bf.InsufficientComparisonsWarning)]
    assert len(messages) == 2
    for name, message in zip(("a", "b"), messages):  # drawn in the names' order
        assert f"subset of group {name!r}" in message
        assert message.endswith("such rows are marked unresolved; raise size to resolve them")
    assert re.search(r"N = 94 non-mated", messages[0])  # 100 - round(100 * 30 / 530)
    assert not table["resolved"].any() and not table["precise"].any()


def test_subset_tmrs_replayed_by_hand_with_a_loop_over_thresholds():
    """Each subset: round(size * share) mated and the rest non-mated comparisons, drawn with
    replacement in the groups' sorted order; TMR at the smallest threshold among the distinct
    non-mated scores and just above the largest whose FMR is at most 0.01 (SPEC 1)."""
    table = scores_table(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        found = bf.subset_performance(table, n_subsets=3, size=120, metric="tmr", rng=5)
    rng, expected = np.random.default_rng(5), {}
    for name in ("a", "b"):
        rows = table[table["group"] == name]
        mated, nonmated = np.sort(rows["score"][rows["mated"]]), np.sort(rows["score"][~rows["mated"]])
        n_mated = round(120 * mated.size / len(rows))
        for k in range(3):
            m, n = rng.choice(mated, n_mated), rng.choice(nonmated, 120 - n_mated)
            candidates = sorted(set(n.tolist())) + [math.nextafter(n.max(), math.inf)]
            t = min(c for c in candidates if Fraction(int((n >= c).sum()), n.size) <= Fraction(1, 100))
            expected[(name, k)] = Fraction(int((m >= t).sum()), m.size)
    got = {(g, k): v for g, k, v in found[["group", "subset", "value"]].itertuples(index=False)}
    assert got == {key: float(v) for key, v in expected.items()}
    assert found["group"].tolist() == ["a"] * 3 + ["b"] * 3


@pytest.mark.parametrize("size", [120, 400])
def test_subset_tmrs_carry_k_and_their_resolution(size):
    """SPEC section 1: every rate at a target carries k, the non-mated scores at or above its
    threshold, and is marked resolved iff the target allows at least 3 false matches
    (``0.01·N >= 3``, N the subset's non-mated comparisons) and precise iff at least 30. The
    table held only group, subset and value (k and resolution of none of its TMRs).

    By hand: group a has 30 mated of 530, so a subset of 120 holds 120 - round(120·30/530) =
    113 non-mated (0.01·113 = 1.13 < 3: unresolved) and one of 400 holds 400 - 23 = 377
    (3.77: resolved, not precise); group b (40 of 440) 109 and 364, likewise."""
    table = scores_table(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        found = bf.subset_performance(table, n_subsets=3, size=size, metric="tmr", rng=5)
    rng, expected = np.random.default_rng(5), []
    for name in ("a", "b"):
        rows = table[table["group"] == name]
        mated, nonmated = np.sort(rows["score"][rows["mated"]]), np.sort(rows["score"][~rows["mated"]])
        n_mated = round(size * mated.size / len(rows))
        for _ in range(3):
            rng.choice(mated, n_mated)  # the subset's mated scores, drawn first as the package draws them
            n = rng.choice(nonmated, size - n_mated)
            candidates = sorted(set(n.tolist())) + [math.nextafter(n.max(), math.inf)]
            t = min(c for c in candidates if Fraction(int((n >= c).sum()), n.size) <= Fraction(1, 100))
            expected.append((int((n >= t).sum()), 100 * 3 <= n.size, 100 * 30 <= n.size))
    assert list(found[["k", "resolved", "precise"]].itertuples(index=False, name=None)) == expected
    assert found["resolved"].tolist() == [size == 400] * 6 and not found["precise"].any()
    assert "k" not in bf.subset_performance(table, n_subsets=2, size=size, rng=0).columns  # an EER has no target


# -- d' and minDCF ------------------------------------------------------------------------------


def exact_min_dcf(mated, nonmated, p, c_miss, c_fa):
    m, n = [Fraction(x) for x in mated], [Fraction(x) for x in nonmated]
    p, c_miss, c_fa = Fraction(p), Fraction(c_miss), Fraction(c_fa)
    costs = [c_fa * (1 - p)]  # threshold -inf: accept all (FNMR 0, FMR 1)
    for t in sorted(set(m + n)) + [None]:  # every distinct score, then +inf (reject all)
        fnmr = Fraction(len(m) if t is None else sum(x < t for x in m), len(m))
        fmr = Fraction(0 if t is None else sum(x >= t for x in n), len(n))
        costs.append(c_miss * p * fnmr + c_fa * (1 - p) * fmr)
    return min(costs) / min(c_miss * p, c_fa * (1 - p))


@pytest.mark.parametrize(("mated", "nonmated", "options"), [
    ([0.5, 0.5, 0.7], [0.5, 0.5, 0.1], {"p_target": 0.5}),  # ties across classes at the threshold
    ([0.0], [1.0], {"p_target": 0.3, "c_miss": 2.0, "c_fa": 5.0}),  # inverted: both trivial ends
    ([1e9 + 1, 1e9, 1e9 - 1], [1e9, 1e9 - 1, 1e9 - 2], {"p_target": 0.01, "c_miss": 10.0}),
    ([-1e300, 1e300], [-1e300, 5e-324], {"p_target": 0.9, "c_fa": 3.0}),
    ([3, 2, 2, 9], [2, 2, 1], {"p_target": 1e-3, "c_miss": 1e-300, "c_fa": 1e300}),  # integers, far costs
])
def test_min_dcf_equals_the_exact_minimum_including_both_trivial_ends(mated, nonmated, options):
    exact = exact_min_dcf(mated, nonmated, options.get("p_target", 0.01), options.get("c_miss", 1.0),
                          options.get("c_fa", 1.0))
    found = bf.min_dcf(mated, nonmated, **options)
    assert found == pytest.approx(float(exact), rel=1e-15, abs=0)
    assert bf.min_dcf(mated[::-1], nonmated[::-1], **options) == found  # tie-aware: order-free


@pytest.mark.parametrize("dtype", [np.int64, np.float32, "Int64"])
def test_decidability_uses_population_variances_for_every_numeric_dtype(dtype):
    """d' = |mu_m - mu_n| / sqrt((var_m + var_n)/2), ddof=0 (SPEC 2): 4 / sqrt((2.25 + 2)/2)."""
    mated = pd.array([2, 3, 5, 6], dtype=dtype) if dtype == "Int64" else np.array([2, 3, 5, 6], dtype=dtype)
    nonmated = [0, 0, 0, -2, 2, 0]  # mated: mean 4, population variance 5/2; nonmated: mean 0, variance 4/3
    expected = 4 / math.sqrt((Fraction(5, 2) + Fraction(4, 3)) / 2)  # 2.8893...
    assert bf.decidability(mated, nonmated) == pytest.approx(expected, rel=1e-15)
    assert bf.decidability(nonmated, mated) == bf.decidability(mated, nonmated)
