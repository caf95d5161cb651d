"""Exact rational oracles shared by the tests: d', the square root it ends with, and the
scores beyond ``mu ± N·sigma`` (CEIᴬ)."""

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
