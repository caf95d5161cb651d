"""What the fourth round of mutation testing found no test for (of curves, the fast TMR path,
pairwise sums, dispersion, the score-direction warning, number formatting and the out-of-core
order statistics): each test checks against an independent computation (a loop, NumPy, Python's
own formatting, a hand-worked example) and fails on the mutant it names."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import biofair as bf
from biofair import _summation
from biofair._fast_tmr import pair_thresholds
from biofair.partitions._order_statistics import bins_of
from biofair.plotting import format_rate


def test_pairwise_sum_computes_at_most_part_values_at_a_time():
    """The bounded memory is the point of pairwise_sum: a recursion that passed the default
    part (2**16) to one half, not the caller's, gave the same sum from parts 512 times larger."""
    values = np.random.default_rng(0).random(5 * 128 + 77)
    sizes = []

    def part_values(items: range) -> np.ndarray:
        sizes.append(len(items))
        return values[items.start : items.stop]

    total = _summation.pairwise_sum(range(values.size), part_values, part=128)
    assert total == np.add.reduce(values)
    assert max(sizes) <= 128 and sum(sizes) == values.size


class _Draws:
    """A generator stub: every Beta draw is ``v`` and every uniform ``w``."""

    def __init__(self, v: float, w: float):
        self.v, self.w = v, w

    def beta(self, a: float, b: float, size: int) -> np.ndarray:
        return np.full(size, self.v)

    def random(self, size: int) -> np.ndarray:
        return np.full(size, self.w)


@pytest.mark.parametrize(("v", "w", "above_x"), [(0.55, 1 - 2.0**-53, 5.0), (0.5, 0.0, 9.0)])
def test_pair_thresholds_at_the_edges_of_the_uniform_draws(v, w, above_x):
    """N = 10 scores 9, 8, ..., 0 and FMR 0.4 (c = 4), with the Beta draw v and the uniform w.

    v = 0.55 puts X at position 5 (score 4, f = 5 scores above it), and w = 1 - 2**-53, the
    largest uniform, the highest of the other four draws just below f/N = 0.5, at position 4
    (score 5): y = 0.5 - 1.5e-17 rounds to 0.5 and floor(y·N) to 5, X's own position; without
    the clip to f - 1 the threshold was 4, which lets c + 1 = 5 resampled scores match.
    v = 0.5 puts X at position 5 too (f/N = v), and w = 0, a possible uniform, all four others
    at y = f/N - v = 0, position 0 (score 9): taking only y > 0 as a draw gave nextafter(4).
    Either way the resample these draws stand for (four draws at ``above_x``, X and five more
    at position 5) has the threshold ``above_x`` by the plain rule."""
    nonmated = np.arange(10.0)
    resample = np.array([above_x] * 4 + [4.0] * 6)
    expected = bf.threshold_at_fmr(resample, 0.4)
    assert expected == above_x
    np.testing.assert_array_equal(pair_thresholds(nonmated, 0.4, 3, _Draws(v, w)), [expected] * 3)


def test_inequity_refuses_a_count_of_zero_comparisons():
    """A rate from no comparison is no rate: a count of 0 would bound a zero rate by
    1 - 0.05^(1/0) = 1 and give a finite Inequity (here 1/sqrt(0.1) = 3.16) without a word."""
    with pytest.raises(ValueError, match=r"^counts must be whole, positive numbers of comparisons; 1 count is not: \[0\.\]"):
        bf.inequity([0.0, 0.1], counts=[0, 10])


@pytest.mark.parametrize(("rate", "digits", "text"), [
    (0.125, 2, "1.2e-1"),  # exactly 1/8: a tie, to the even 2
    (0.625, 2, "6.2e-1"),  # exactly 5/8: a tie, to the even 2
    (2.5, 1, "2e0"),
    (Fraction(1, 400), 1, "2e-3"),  # exactly 0.0025; the float 0.0025 lies above the tie: 3e-3
    (Fraction(-1, 40), 1, "-2e-2"),  # exactly -0.025
])
def test_format_rate_rounds_an_exact_tie_half_to_even(rate, digits, text):
    """Half to even, as documented and as Python's own e-format rounds a float's exact value:
    rounding a tie half up gave 1.3e-1, 6.3e-1, 3e0, 3e-3 and -3e-2 and no test failed (random
    floats are almost never ties)."""
    assert format_rate(rate, digits=digits) == text
    if isinstance(rate, float):
        mantissa, exponent = format(rate, f".{digits - 1}e").split("e")
        assert text == f"{mantissa}e{int(exponent)}"


def test_bins_of_puts_values_beyond_the_edges_in_the_end_bins():
    """As documented: a value below the first edge goes to the first bin and one above the last
    to the last bin (clipping the arithmetic and then stepping down from bin 0 gave bin -1)."""
    edges = np.linspace(0.0, 1.0, 11)
    values = np.array([-0.5, -1e-300, np.nextafter(0.0, -1.0), 1.0, np.nextafter(1.0, 2.0), 7.0])
    np.testing.assert_array_equal(bins_of(values, edges), [0, 0, 0, 9, 9, 9])
