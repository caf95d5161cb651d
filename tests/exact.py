"""Exact rational oracles shared by the tests: d' and the square root they end with."""

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
