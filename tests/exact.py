"""Exact rational oracles shared by the tests: d', the square root it ends with, the scores
beyond ``mu ± N·sigma`` (CEIᴬ) and CEI's split_mean divergences."""

from __future__ import annotations

import math
from fractions import Fraction


def exact_sqrt(ratio: Fraction) -> float:
    """The square root of a positive Fraction, rounded only at the end (inf beyond the float range)."""
    half = (ratio.numerator.bit_length() - ratio.denominator.bit_length()) // 2
    try:
        return math.ldexp(math.sqrt(ratio / Fraction(2) ** (2 * half)), half)
    except OverflowError:
        return math.inf


def exact_decidability(mated, nonmated) -> float:
    """d' of the float scores in exact rational arithmetic (population variances), rounded only
    by the final square root; ZeroDivisionError where both classes are constant."""
    mated, nonmated = [Fraction(float(x)) for x in mated], [Fraction(float(x)) for x in nonmated]
    mean_m, mean_n = sum(mated) / len(mated), sum(nonmated) / len(nonmated)
    spread = (sum((x - mean_m) ** 2 for x in mated) / len(mated)
              + sum((x - mean_n) ** 2 for x in nonmated) / len(nonmated)) / 2
    return exact_sqrt((mean_m - mean_n) ** 2 / spread)


def exact_beyond(values, kind: str, n_std: float) -> tuple[list[bool], list[Fraction]]:
    """Which scores lie beyond ``mu + N·sigma`` (non-mated) or ``mu - N·sigma`` (mated), in exact
    rational arithmetic, and each one's distance to that limit, ``sign·(v - mu) - N·sigma``
    (sigma rounded there: the distance only tells which scores float arithmetic cannot decide)."""
    exact = [Fraction(float(v)) for v in values]
    mean = sum(exact) / len(exact)
    variance = sum((v - mean) ** 2 for v in exact) / len(exact)
    sign, n = (1 if kind == "nonmated" else -1), Fraction(n_std)
    deviations = [sign * (v - mean) for v in exact]
    beyond = [d > 0 and d * d > n * n * variance for d in deviations]
    sigma = Fraction(exact_sqrt(variance)) if variance else Fraction(0)
    return beyond, [d - n * sigma for d in deviations]


def split_mean_divergences(groups, kind: str, percentile: float, bins: int, smoothing: float) -> list[float]:
    """S'_i of CEI's split_mean reading (w_t = 0.8): bin masses, the mean's split and each group's
    percentile in exact fractions; only the smoothing and the logarithms round (each as
    log2 p - log2 q, finite where p / q would overflow)."""
    values = [[Fraction(float(x)) for x in group] for group in groups]
    low, high = min(map(min, values)), max(map(max, values))
    width = (high - low) / bins

    def pmf(part):  # np.histogram's bins: half-open, the last one closed
        counts = [0] * bins
        for x in part:
            counts[min(int((x - low) / width), bins - 1)] += 1
        return [Fraction(c, len(part)) for c in counts]

    def smoothed(p):
        p = [float(x) + smoothing for x in p]
        return [x / sum(p) for x in p]

    def kl_bits(p, q):
        return sum(x * (math.log2(x) - math.log2(y)) for x, y in zip(p, q) if x > 0)

    share = 1 - Fraction(percentile) / 100
    mean = [sum(column) / len(values) for column in zip(*(pmf(v) for v in values))]
    tail_bins, mass = set(), Fraction(0)  # the fewest bins, from the error tail in, holding the share
    for k in range(bins) if kind == "mated" else reversed(range(bins)):
        if mass >= share:
            break
        tail_bins.add(k)
        mass += mean[k]
    mean_tail = smoothed([m / mass if k in tail_bins else 0 for k, m in enumerate(mean)])
    mean_centre = smoothed([0 if k in tail_bins else m / (1 - mass) for k, m in enumerate(mean)])
    divergences = []
    for v in values:
        ordered = sorted(v)
        at = (share if kind == "mated" else 1 - share) * (len(v) - 1)  # np.percentile's linear rule
        i = int(at)
        cut = ordered[i] + (at - i) * (ordered[min(i + 1, len(v) - 1)] - ordered[i])
        in_tail = [(x <= cut if kind == "mated" else x >= cut) for x in v]
        tail = [x for x, t in zip(v, in_tail) if t]
        centre = [x for x, t in zip(v, in_tail) if not t]
        divergences.append(0.8 * kl_bits(smoothed(pmf(tail)), mean_tail)
                           + 0.2 * kl_bits(smoothed(pmf(centre)), mean_centre))
    return divergences
