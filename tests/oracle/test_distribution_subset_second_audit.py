"""DFI, CEI, CEIᴬ, the subset measures and d' at numerical edges (second audit), against
independent computations: exact fractions where float rounding is what is in question,
``np.histogram`` and SciPy's ``entropy`` in base 2 for the histograms and divergences.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy

import biofair as bf

#: 2^50 (about 1.1e15), where the float64 scores lie 1/4 apart: scores 2^50 + x/4 are exact.
OFFSET, STEP = 2.0**50, 0.25
#: Integers x of two groups' scores OFFSET ± x·STEP (adjacent floats in group a).
ADJACENT = {"a": np.arange(1000), "b": np.arange(0, 3000, 3)}


def divergences_from_mean(parts: list[np.ndarray], bins: int) -> np.ndarray:
    """KL(p_i || mean of the p) in bits, the parts binned on common edges over their union."""
    edges = np.histogram_bin_edges(np.concatenate(parts), bins=bins)
    pmfs = [np.histogram(part, bins=edges)[0] / part.size for part in parts]
    mean = np.mean(pmfs, axis=0)
    return np.array([entropy(p, mean, base=2) for p in pmfs])


def exact_tail(values: np.ndarray, kind: str, percentile: float) -> np.ndarray:
    """Which ascending scores form CEI's tail (SPEC 5), with the percentile (NumPy's linear
    reading, its virtual index ``(n - 1)·q``) interpolated in exact fractions: non-mated, the
    scores at or above the ``percentile``-th; mated, those at or below the ``(100 - percentile)``-th."""
    q = percentile if kind == "nonmated" else 100.0 - percentile
    virtual = (values.size - 1) * np.true_divide(q, 100)  # as np.percentile
    k = int(np.floor(virtual))
    lower, upper = Fraction(float(values[k])), Fraction(float(values[min(k + 1, values.size - 1)]))
    split = lower + (upper - lower) * (Fraction(float(virtual)) - k)
    exact = [Fraction(float(v)) for v in values]
    return np.array([v >= split if kind == "nonmated" else v <= split for v in exact])


@pytest.mark.parametrize("percentile", [95.0, 99.0])
@pytest.mark.parametrize("kind", ["nonmated", "mated"])
def test_cei_tail_of_adjacent_floats_is_the_scores_beyond_the_exact_percentile(kind, percentile):
    # Group a's scores 2^50 ± x/4 are adjacent floats. At P = 99 its percentile lies 0.01 of an
    # ulp above v[989] (non-mated) or 0.99 of one above v[9] (mated, its 1st percentile); NumPy's
    # interpolation rounds it onto v[989] or v[10], and the tail took that score: 11 scores where
    # the definition gives 10 (S_a 0.91362 for 0.91350, mated at P = 95).
    sign = 1.0 if kind == "nonmated" else -1.0
    bins, tail_weight = 20, 0.8
    scores = {name: np.sort(OFFSET + sign * x * STEP) for name, x in ADJACENT.items()}
    in_tail = {name: exact_tail(v, kind, percentile) for name, v in scores.items()}
    assert int(in_tail["a"].sum()) == {95.0: 50, 99.0: 10}[percentile]
    tails = [v[in_tail[name]] for name, v in scores.items()]
    centres = [v[~in_tail[name]] for name, v in scores.items()]
    divergences = (tail_weight * divergences_from_mean(tails, bins)
                   + (1 - tail_weight) * divergences_from_mean(centres, bins))

    other = np.array([0.0, 1.0])  # two scores of the other class per group, not read
    table = pd.concat([pd.DataFrame({"score": np.r_[v, other], "group": name,
                                     "mated": np.repeat([kind == "mated", kind != "mated"], [v.size, 2])})
                       for name, v in scores.items()], ignore_index=True)
    index = bf.comprehensive_equity_index(table, kind=kind, percentile=percentile, tail_weight=tail_weight,
                                          bins=bins)
    assert index.divergences.to_numpy() == pytest.approx(divergences, rel=1e-12)
    assert index.normal == pytest.approx(1 - divergences.sum() / 2, rel=1e-12)
    assert index.extreme == pytest.approx(1 - divergences.max(), rel=1e-12)


def exactly_beyond(values: np.ndarray, kind: str, n_std: float) -> int:
    """How many scores lie strictly beyond ``mu + N·sigma`` (non-mated) or ``mu - N·sigma``
    (mated), population sigma, decided on fractions: ``sign·(x - mu) > 0`` and
    ``(x - mu)² > N²·var``."""
    exact = [Fraction(float(x)) for x in values]
    mean = sum(exact) / len(exact)
    variance = sum((x - mean) ** 2 for x in exact) / len(exact)
    sign, n = (1 if kind == "nonmated" else -1), Fraction(n_std)
    return sum(sign * (x - mean) > 0 and (x - mean) ** 2 > n * n * variance for x in exact)


#: Two values, the one on the error side 1/N² as frequent as the other: it lies exactly at
#: mu ± N·sigma (10 zeros among 100 mated scores of 0 and 1 at N = 3: mu = 0.9, sigma = 0.3).
AT_THE_LIMIT = [(n_std, pair, rare) for n_std in (1, 2, 3) for pair in ((0.0, 1.0), (0.1, 0.9), (0.2, 0.3),
                                                                        (-3.0, -2.9), (1.0, 2.0))
                for rare in (1, 5, 10, 100)]


@pytest.mark.parametrize("kind", ["nonmated", "mated"])
def test_automatic_cei_counts_no_score_exactly_at_mu_n_sigma_as_beyond(kind):
    # Float rounding of the mean and of sqrt(variance) put such scores beyond the limit in 31 of
    # these 120 groups (both kinds): 10 mated zeros among 90 ones at N = 3 gave P = 90 and
    # Delta = 74 (s = 0.9) where no score lies beyond (P = 100, Delta = 0, s = 0.5, and a warning).
    from biofair.distribution_fairness import _count_beyond

    found, expected = [], []
    for n_std, (low, high), rare in AT_THE_LIMIT:
        error_side, other = (high, low) if kind == "nonmated" else (low, high)
        values = np.sort(np.r_[np.full(rare, error_side), np.full(rare * n_std**2, other)])
        found.append(_count_beyond(values, kind, float(n_std)))
        expected.append(exactly_beyond(values, kind, n_std))
    assert expected == [0] * len(AT_THE_LIMIT)
    assert found == expected

    mated = {"a": np.r_[np.zeros(10), np.ones(90)], "b": np.linspace(0.0, 1.0, 100)}
    table = pd.concat([pd.DataFrame({"score": np.r_[v, 0.0, 1.0], "group": name,
                                     "mated": np.arange(v.size + 2) < v.size})
                       for name, v in mated.items()], ignore_index=True)
    if kind == "nonmated":  # the same scores mirrored: the error side on the right
        table = table.assign(score=1.0 - table["score"], mated=~table["mated"])
    with pytest.warns(bf.InsufficientComparisonsWarning, match="'a'"):
        index = bf.automatic_comprehensive_equity_index(table, kind=kind)
    assert index.parameters["percentiles"]["a"] == 100.0
    assert index.parameters["tail_mass_ratio"]["a"] == 0.0
