"""Second audit of biofair.plotting and biofair.curves at numerical edges: what a printed or
drawn number claims, checked against exact arithmetic (fractions, integer rounding) and
against the curves' own points."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import re
import warnings
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr

import biofair as bf
from biofair import plotting


pytestmark = pytest.mark.usefixtures("close_figures")  # tests/conftest.py


def e_notation(value: Fraction, digits: int) -> str:
    """``value`` to ``digits`` significant digits, half to even, in the book's e-notation,
    by integer arithmetic on the exact fraction."""
    if value == 0:
        return "0"
    sign, value = ("-" if value < 0 else ""), abs(value)
    exponent = (value.numerator.bit_length() - value.denominator.bit_length()) * 3 // 10  # about log10, then exact:
    while value >= Fraction(10) ** (exponent + 1):
        exponent += 1
    while value < Fraction(10) ** exponent:
        exponent -= 1
    mantissa = round(value / Fraction(10) ** (exponent - digits + 1))  # Fraction rounds half to even
    if mantissa == 10 ** digits:
        mantissa, exponent = mantissa // 10, exponent + 1
    text = str(mantissa)
    return f"{sign}{text[0]}{'.' + text[1:] if digits > 1 else ''}e{exponent}"


@pytest.mark.parametrize("digits", [1, 2, 4])
@pytest.mark.parametrize("rate", [1.5e-4, 0.00095, 0.0095, 0.995, 1 - 1e-16, 5e-324, 2.5e-3, -3e-4, 123.0])
def test_the_e_notation_oracle_agrees_with_format_rate_on_floats(rate, digits):
    """The oracle below is Python's (correctly rounded) e-notation on ordinary floats."""
    assert plotting.format_rate(rate, digits=digits) == e_notation(Fraction(rate), digits)


@pytest.mark.parametrize("digits", [1, 2, 3])
@pytest.mark.parametrize("rate", [
    Fraction(1, 10**400),  # a positive rate below the smallest float64: was "0.0e0"
    Fraction(-7, 3 * 10**330),
    np.longdouble(2) ** -16000,  # a long double below float64's range: was "0.0e0"
    np.longdouble(2) ** 16000,  # a finite long double above it: was "rate must be finite"
    10**400,  # was OverflowError: int too large to convert to float
    Fraction(1, 3),
    Fraction(3, 4) - Fraction(1, 10**30),  # float() rounded it to 0.75, and 0.75 to "8e-1": twice
    np.longdouble(0.75) - np.longdouble(2) ** -62,
])
def test_format_rate_writes_rates_float64_cannot_hold_as_they_are(rate, digits):
    """format_rate went through float(rate): a positive rate below 2**-1075 (a Fraction, a long
    double) was written "0.0e0", a rate of zero to a reader (the book writes zero "0"), and a
    finite one above the float64 range was refused as infinite or raised OverflowError."""
    exact = Fraction(*rate.as_integer_ratio()) if isinstance(rate, np.floating) else Fraction(rate)
    assert plotting.format_rate(rate, digits=digits) == e_notation(exact, digits)


def test_format_rate_of_a_fraction_has_the_digits_asked_for():
    """With more digits than float64 holds, a Fraction's digits were those of its float."""
    assert plotting.format_rate(Fraction(1, 3), digits=25) == "3." + "3" * 24 + "e-1"  # was 3.333333333333333148296163e-1


@pytest.mark.parametrize("rate", [np.longdouble("inf"), np.longdouble("nan"), np.float16("inf")])
def test_format_rate_still_refuses_what_is_not_finite(rate):
    with pytest.raises(ValueError, match="^rate must be finite, got "):
        plotting.format_rate(rate)


def table_cell(value: float) -> str:
    """A float as use_style makes pandas print it."""
    plotting.use_style(retina=False, tables=True)
    return pd.get_option("display.float_format")(value)


@pytest.fixture(autouse=True)
def pandas_display_restored():
    yield
    pd.reset_option("display.float_format")


@pytest.mark.parametrize(("value", "text"), [
    (0.99996, "0.99996"),  # was "1": a TMR below 1 read as the whole number 1
    (0.9999999999999999, "1.00000"),  # six digits at most, then their trailing zeros
    (380.999999999998, "381.000"),
    (5745.00000000002, "5745.00"),
    (0.999999, "0.999999"),
    (2.00004, "2.00004"),
    (-0.99996, "-0.99996"),
    (99.996, "99.996"),
    (1234.56, "1234.6"),  # was "1235", as the count 1235 is written
    (1441.75, "1441.8"),
    (-0.0, "0"),  # was "-0"
])
def test_a_table_never_writes_a_value_that_is_not_whole_as_a_whole_number(value, text):
    """use_style's tables write whole numbers without decimals (a count reads 275488) and other
    floats to four significant digits; '%.4g' drops trailing zeros, so a value that rounds to a
    whole number read exactly as one: TMR 0.99996 was "1", as a TMR of exactly 1 is. Such a
    value now takes the fewest more digits that tell it from a whole number."""
    assert table_cell(value) == text
    if value != round(value):  # the fewest digits from 4 to 6 that do not read as a whole number, else 6 and zeros
        digits = min(len(text.lstrip("-0.").replace(".", "")), 6)
        assert text in (f"{value:.{digits}g}", f"{value:#.6g}")
        assert digits == 4 or float(f"{value:.{digits - 1}g}").is_integer()


@pytest.mark.parametrize("value", [0.5, 2.0, 275488.0, 0.9594, 1.2345e-05, 123456.7, 0.12345, 1e15, -3.0, 12.5])
def test_a_table_writes_ordinary_values_as_before(value):
    """As before, but for the exponents, now written as the prose writes them (1.234e-5, 1e15)."""
    python = re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", f"{value:.4g}")  # 1.234e-05 and 1.235e+05: e-5 and e5
    assert table_cell(value) == (f"{value:.0f}" if abs(value) < 1e15 and value == round(value) else python)


def test_a_non_whole_value_is_never_written_like_a_whole_one():
    """Against exact arithmetic: a cell reads as a whole number (no point, no exponent) exactly
    when the value is a whole number."""
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.integers(-20_000, 20_000, 300) + rng.choice([0.0, 1e-5, 0.4, 0.5, -3e-5], 300),
                             1 - 10.0 ** -rng.uniform(4, 16, 100)])
    for value in values:
        text = table_cell(float(value))
        reads_whole = re.fullmatch(r"-?\d+", text) is not None
        assert reads_whole == (Fraction(float(value)).denominator == 1), (value, text)


def test_score_distributions_draw_a_threshold_beyond_the_scaled_range_on_the_edge():
    """Scores near 1e-300 are drawn in units of 2**-995; a threshold of 1e10 is 2**995 * 1e10 in
    them, beyond float64: NumPy warned of an overflow and axvline at inf drew nothing, while
    the legend named the line. It is above every score: drawn on the right edge, as +inf is
    (and -1e10 on the left edge)."""
    mated, nonmated = np.array([1e-300, 2e-300]), np.array([0.0, 1e-300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plotting.plot_score_distributions(mated, nonmated, thresholds={"high": 1e10, "low": -1e10, "t": 1.5e-300})
    lines = {line.get_label(): line for line in ax.lines}
    for label, edge in (("high", 1.0), ("low", 0.0)):
        assert lines[label].get_transform() is ax.transAxes
        assert list(lines[label].get_xdata()) == [edge, edge]
    assert lines["t"].get_xdata()[0] == np.ldexp(1.5e-300, 995) and ax.get_xlabel() == "score / 2^-995"


MATED, NONMATED = np.array([0.0, 1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 1.5, 2.5, 4.0])


@pytest.mark.parametrize("max_rate", [0.9999999, 1 - 2**-53, 0.999999])
def test_det_refuses_a_max_rate_where_rates_of_1_would_show(max_rate):
    """Rates of 1 are drawn at 1 - 5e-7, beyond the axes; max_rate=0.9999999 was accepted and
    put them inside: the DET of MATED, NONMATED showed a point at FMR 0.2, FNMR 0.9999995 that
    no threshold gives (FNMR 1 there), and FMR 1 at 0.9999995."""
    message = f"max_rate must lie below 1 - 1e-6 = 0.999999, got {max_rate!r}: rates of 1 are drawn at 1 - 5e-7"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        plotting.plot_det(MATED, NONMATED, max_rate=max_rate)
    assert plt.get_fignums() == []


@pytest.mark.parametrize("max_rate", [0.5, 0.95, 0.999998])
def test_det_draws_inside_its_axes_only_points_of_the_curve(max_rate):
    """Every vertex drawn inside the axes is a point of det_curve (rates in (0, 1))."""
    ax = plotting.plot_det(MATED, NONMATED, max_rate=max_rate)
    curve = bf.det_curve(MATED, NONMATED)
    truth = {(f, m) for f, m in zip(curve.fmr.tolist(), curve.fnmr.tolist())}
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    for x, y in ax.lines[0].get_xydata():
        if x0 <= x <= x1 and y0 <= y <= y1:
            assert any(abs(ndtr(x) - f) < 1e-12 and abs(ndtr(y) - m) < 1e-12 for f, m in truth), (ndtr(x), ndtr(y))


FALSE_MATCHES = np.array([[1, 7], [0, 333]])
PAIRS = np.array([[1_000, 3_000], [2_000, 99_991]])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, "Float32"])
def test_cross_group_heatmap_reads_rates_held_in_float32_as_the_counts_they_are(dtype):
    """A float32 table of k / n with its pairs was refused: "fmr 0.0010000000474974513 at [0, 0]
    is not a whole number of false matches out of 1,000 pairs (1)", though it is 1 / 1000 (the
    check allowed float64's rounding only). The labels give the counts of exact arithmetic."""
    fmr = pd.DataFrame(FALSE_MATCHES / PAIRS).astype(dtype)
    ax = plotting.plot_cross_group_fmr(fmr, pairs=pd.DataFrame(PAIRS))
    expected = [f"{plotting.format_rate(float(rate))}\n{k:,} / {n:,}"
                for rate, k, n in zip(fmr.to_numpy(dtype=float).ravel(), FALSE_MATCHES.ravel(), PAIRS.ravel())]
    assert [text.get_text() for text in ax.texts] == expected


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cross_group_heatmap_still_refuses_a_rate_no_count_of_the_pairs_gives(dtype):
    fmr = pd.DataFrame(FALSE_MATCHES / PAIRS).astype(dtype)
    fmr.iloc[0, 0] = 1.5 / 1_000
    with pytest.raises(ValueError, match=r"at \[0, 0\] is not a whole number of false matches out of 1,000 pairs"):
        plotting.plot_cross_group_fmr(fmr, pairs=pd.DataFrame(PAIRS))


def drawn_inside(ax, line) -> bool:
    """Whether some of ``line`` as drawn lies strictly inside the axes' limits: 10,001 points on
    each of its segments, tested one by one."""
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    vertices = line.get_xydata()
    t = np.linspace(0.0, 1.0, 10_001)[:, None]
    for start, end in zip(vertices[:-1], vertices[1:]):
        x, y = (start + t * (end - start)).T
        if np.any((x0 < x) & (x < x1) & (y0 < y) & (y < y1)):
            return True
    return False


@pytest.mark.parametrize(("mated", "nonmated", "max_rate"), [
    ([0.0, 0.0], [0.0, 0.0, 0.0], 0.95),  # all tied: the line from (FMR 1, FNMR 0) to (0, 1) crosses the axes
    ([0.0, 3.0, 3.0], [0.0], 0.95),  # a tie's diagonal from (100 %, 0) to (0, 33 %) across the axes
    ([0.0, 0.0], [0.0, 0.0, 0.0], 0.5),  # the same line only touches the corner (50 %, 50 %)
    ([1.0, 2.0], [0.5, 1.5, 2.5], 0.5),  # along the top edge and beyond it
])
def test_det_legend_says_off_the_axes_exactly_when_no_part_of_the_line_is_inside(mated, nonmated, max_rate):
    """The note was decided by the vertices alone: all-tied scores draw a straight line from
    FMR 100 %, FNMR 0 to FMR 0, FNMR 100 %, across the middle of the axes, and the legend said
    'A (off the axes: 2 mated, 3 non-mated)' beside it."""
    ax = plotting.plot_det(mated, nonmated, label="A", max_rate=max_rate)
    inside = drawn_inside(ax, ax.lines[0])
    note = f"A (off the axes: {len(mated)} mated, {len(nonmated)} non-mated)"
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["A" if inside else plotting._plain(note)]
    assert inside == (max_rate == 0.95)
