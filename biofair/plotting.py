"""Figures: score distributions, DET on probit axes, ROC on a log FMR axis, and one style.

Each plot function draws on ``ax`` (a new one if omitted) and returns it; nothing is written
to disk. :func:`use_style` is the one call that gives every figure and table of the book its
look, and :func:`group_styles` gives each demographic group one colour and line style for
all figures.
Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import decimal
import functools
import math
import numbers
import re
import textwrap
import weakref
from collections.abc import Hashable, Iterable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.colors import LogNorm
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.textpath import text_to_path
from matplotlib.ticker import FuncFormatter, Locator, NullLocator
from numpy.typing import ArrayLike
from scipy.special import ndtr, ndtri

from biofair._counts import error_counts
from biofair._validation import (
    as_count,
    as_number,
    as_scores,
    as_threshold,
    as_thresholds,
    check_bins,
    check_flag,
    is_real_dtype,
    is_real_number,
    power_of_two_exponent,
    quoted,
)
from biofair.rates import fmr_fnmr

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

#: Colour-blind-safe colours (Okabe-Ito), used in this order: the five that stand out on white
#: (contrast 3:1 or more, as WCAG asks of lines and markers) first; orange, sky blue and yellow
#: (2.3, 2.3 and 1.3:1) only from the sixth group on.
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#E69F00", "#56B4E9", "#F0E442")
#: Line styles, varied with the colours so that curves differ in print and for every reader.
LINESTYLES = ("-", "--", "-.", ":")
#: A plot function draws a legend for at most this many labelled curves on one axes.
MAX_LEGEND_ENTRIES = 20
_LEGEND_ROWS = 10  # entries per legend column
_LABEL_WIDTH = 40  # characters on a line of a legend entry or axis label
_TICK_LABEL_WIDTH = 20  # characters on a line of a heatmap's tick label
_LABEL_LINES = 3  # lines of a label at most

# Probit ticks a DET axis may show, in the order they are kept when labels would collide.
_DET_TICKS = (1e-2, 1e-4, 1e-6, 0.5, 1e-3, 1e-5, 0.1, 0.9, 0.99, 0.2, 0.05, 0.8, 0.95, 0.02, 0.3, 0.7)
_LABELLED_CELLS = 400  # plot_cross_group_fmr labels its cells up to this many
# the count of labelled curves and the note in place of a dropped legend
_legend_notes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def use_style(*, retina: bool = True, tables: bool = True) -> None:
    """Give every following figure and table the book's look.

    Figures: seaborn's "whitegrid" look (matplotlib's copy of it, so seaborn need not be
    installed), the :data:`COLORS` cycle with :data:`LINESTYLES`, a layout that keeps labels
    inside the figure, no legend frame, and, in a Jupyter notebook, figures rendered at twice
    their pixel density (sharp on high-resolution screens, shown at their normal size).
    Figures are 5.2 by 3.3 inches with 11-point text: a phone shrinks a figure to its column
    (about 340 px), and the text stays at about 10 px (at 6.4 inches and 10 points it fell to 7).

    Tables: pandas prints every float that is a whole number without decimals (a count stored
    as a float reads 275488, not 275488.000000) and every other float to four significant
    digits (0.9594, 1.234e-5: a small rate never shows as 0.0000; exponents as the book's
    prose writes them, see :func:`format_rate`), or with up to six where four would write it
    as a whole number: a TMR of 0.99996 shows as 0.99996, not as the 1 of a TMR of exactly 1,
    1234.56 as 1234.6, not as the count 1235, and 380.999999999998 (a sum's rounding) as
    381.000. In a Jupyter notebook a
    table's missing value (NaN, ``<NA>``, None) is an empty cell: in a tidy summary it marks
    a column that does not apply to the row (no interval, no target FMR), and a column of
    "NaN" would read as a failed computation. Only the display changes, never a value.

    Parameters
    ----------
    retina : bool, default True
        In IPython/Jupyter, render inline figures as retina PNGs. Outside IPython this does
        nothing.
    tables : bool, default True
        Set pandas' ``display.float_format`` option to the format above (pandas'
        ``reset_option`` undoes it) and, in IPython/Jupyter, show DataFrames as HTML with
        missing values left empty.

    Returns
    -------
    None
        The settings are matplotlib's ``rcParams``, IPython's figure formats and HTML
        formatter for DataFrames, and pandas' display options.

    Raises
    ------
    TypeError
        When ``retina`` or ``tables`` is not True or False (checked before any setting
        changes).

    See Also
    --------
    group_styles : The colour and line style of each group.

    References
    ----------
    M. Okabe and K. Ito, "Color Universal Design (CUD): how to make figures and
    presentations that are friendly to colorblind people", J*Fly, 2008 (the colour set).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.plotting.use_style()
    >>> import matplotlib.pyplot as plt
    >>> plt.rcParams["axes.prop_cycle"].by_key()["color"][0] == bf.plotting.COLORS[0]
    True
    >>> import pandas as pd
    >>> pd.DataFrame({"comparisons": [275488.0, 2400.0], "fmr": [1.2345e-05, 0.95937]})
       comparisons      fmr
    0       275488 1.234e-5
    1         2400   0.9594
    >>> pd.reset_option("display.float_format")
    """
    retina, tables = check_flag(retina, "retina"), check_flag(tables, "tables")  # any text once counted as True
    plt.style.use("seaborn-v0_8-whitegrid")
    n = len(COLORS) * len(LINESTYLES)
    plt.rcParams.update({
        "axes.prop_cycle": cycler(color=[COLORS[i % len(COLORS)] for i in range(n)])
        + cycler(linestyle=[LINESTYLES[i // len(COLORS)] for i in range(n)]),
        "figure.figsize": (5.2, 3.3),
        "font.size": 11,
        "figure.dpi": 100,
        "savefig.dpi": 200,
        "figure.constrained_layout.use": True,
        "legend.frameon": False,
        "axes.titlesize": "medium",
        "axes.labelsize": "medium",
    })
    shell = _ipython()
    if retina and shell is not None:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("retina")
    if tables:
        pd.set_option("display.float_format", _table_number)
        if shell is not None:
            shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, _html_table)


def _table_number(value: float) -> str:
    """A float as a table cell: whole numbers without decimals, others to 4 significant digits,
    or up to 6 where fewer write them as a whole number, and with 6 and their trailing zeros
    where those do too (380.999999999998, a sum's rounding, is 381.000). An exponent is written
    as the book's prose writes it (:func:`format_rate`): 1.234e-5, not Python's 1.234e-05."""
    if abs(value) < 1e15 and value == round(value):
        return f"{value + 0.0:.0f}"  # + 0.0: -0.0 reads 0, not -0
    # 0.99996 to 4 digits read "1", as a TMR of exactly 1 does (and 1234.56 "1235", as a count)
    text = next((text for digits in (4, 5, 6) if not (text := f"{value:.{digits}g}").lstrip("-").isdigit()),
                f"{value:#.6g}")
    return _BOOK_EXPONENT.sub(lambda found: "e" + found[1].replace("+", "") + found[2], text)


#: Python's exponent (``e-05``, ``e+06``), to be written without a plus sign or leading zeros.
_BOOK_EXPONENT = re.compile(r"e([+-])0*(\d)")


def format_rate(rate: float, *, digits: int = 2, trim: bool = False) -> str:
    """A rate in e-notation as the book writes it: ``1.5e-4``, not Python's ``1.5e-04``.

    The rate is rounded once, from the exact value it holds, to ``digits`` significant digits
    (half to even; for a float, ``format(rate, f".{digits - 1}e")``), and its exponent written
    without a sign for positive powers or leading zeros: 1e-3, 2.5e-3, 1.234e-5. Zero is
    written ``0``, and only zero: a ``Fraction`` or long double below float64's range keeps
    its digits (``Fraction(1, 10**400)`` is 1.0e-400). The book uses it for rates in prose,
    table cells and figure labels.

    Parameters
    ----------
    rate : float
        The value to write; any finite real number (rates, gaps and their intervals), a
        Python integer, ``Fraction`` or NumPy long double beyond float64's range included.
    digits : int, default 2
        Significant digits, at least 1. One digit rounds a target such as 2.5e-3 to 3e-3 (and
        1.5e-3 to 2e-3): give two for such a target.
    trim : bool, default False
        Drop the mantissa's trailing zeros: 2e-4 rather than 2.0e-4. Keep them (the default)
        where the values of a column should show one precision.

    Returns
    -------
    str
        The rate, e.g. ``"1.5e-4"``; ``"0"`` for zero.

    Raises
    ------
    ValueError
        When ``rate`` is NaN or infinite (a missing rate is not a number to print), or
        ``digits`` is below 1.
    TypeError
        When ``rate`` is not a real number (text, a boolean, an array), ``digits`` is not an
        integer, or ``trim`` is not True or False.

    See Also
    --------
    use_style : How tables show floats (four significant digits, 1.234e-5).

    References
    ----------
    Python's format specification mini-language, presentation type ``"e"``
    (https://docs.python.org/3/library/string.html#format-specification-mini-language).

    Examples
    --------
    >>> from biofair.plotting import format_rate
    >>> format_rate(1.5e-4), format_rate(0.001, digits=1), format_rate(2e-4, trim=True), format_rate(0.0)
    ('1.5e-4', '1e-3', '2e-4', '0')
    """
    if not is_real_number(rate):
        raise TypeError(f"rate must be a real number, got {rate!r}")
    digits = as_count(digits, "digits")
    trim = check_flag(trim, "trim")  # "False" from a config file trimmed, as any text did
    exact = _exact_fraction(rate)
    if exact is None:
        raise ValueError(f"rate must be finite, got {rate!r}")
    if exact == 0:
        return "0"
    # rounded once, from the exact value: through float(rate), a Fraction or long double
    # below float64's range read "0.0e0", one above it was refused, and a Fraction's digits
    # beyond the 17th were its float's
    context = decimal.Context(prec=digits, rounding=decimal.ROUND_HALF_EVEN, Emin=decimal.MIN_EMIN,
                              Emax=decimal.MAX_EMAX)
    rounded = context.divide(decimal.Decimal(exact.numerator), decimal.Decimal(exact.denominator))
    mantissa, exponent = f"{rounded:.{digits - 1}e}".split("e")
    if trim and "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def _exact_fraction(rate: numbers.Real) -> Fraction | None:
    """A real number as the fraction it holds exactly (a float's binary value, a long double's
    too, an integer beyond float64's range), or None when it is NaN or infinite."""
    if isinstance(rate, numbers.Rational):  # int, NumPy integers, Fraction: always finite
        return Fraction(int(rate.numerator), int(rate.denominator))
    if not np.isfinite(rate):
        return None
    return Fraction(*rate.as_integer_ratio()) if hasattr(rate, "as_integer_ratio") else Fraction(float(rate))


def _html_table(frame: pd.DataFrame) -> str | None:
    """A DataFrame as Jupyter shows it (pandas' display options: none when
    ``display.notebook_repr_html`` is off; a table longer than ``display.max_rows`` cut to
    ``display.min_rows``), with its missing values (NaN, None, pandas' ``<NA>``) left empty:
    in the cells by ``na_rep``; in a table shown whole, also in the row labels and in nullable
    columns, which a copy for the display relabels and converts to objects. A longer table
    keeps pandas' marks there: the copy would cost the whole table to show a few of its rows.
    The table is in a block MathJax skips, so that a ``$`` in a label starts no formula."""
    if not pd.get_option("display.notebook_repr_html"):
        return None
    max_rows, min_rows = pd.get_option("display.max_rows"), pd.get_option("display.min_rows")
    if not max_rows or len(frame) <= max_rows:
        labels = frame.index.to_frame(index=False)
        if labels.isna().any(axis=None):
            labels = labels.astype(object).where(labels.notna(), "")
            frame = frame.set_axis(pd.MultiIndex.from_frame(labels) if labels.shape[1] > 1
                                   else pd.Index(labels.iloc[:, 0], name=frame.index.name), axis="index")
        nullable = [i for i, dtype in enumerate(frame.dtypes) if getattr(dtype, "na_value", None) is pd.NA]
        if nullable:
            frame = frame.copy()
            for i in nullable:
                column = frame.iloc[:, i]
                frame.isetitem(i, column.astype(object).where(column.notna(), np.nan))
    elif min_rows:
        max_rows = min(min_rows, max_rows)
    table = frame.to_html(
        na_rep="", notebook=True, bold_rows=True, max_rows=max_rows, max_cols=pd.get_option("display.max_columns"),
        show_dimensions=pd.get_option("display.show_dimensions"),
    )
    return table.replace("<div>", f'<div class="{_NOT_MATH}">', 1)  # pandas' own block


#: The classes MathJax 2 and 3 leave alone: a label "$50k-$100k" in a table is text, not math
#: (matplotlib's labels are kept from math text by :func:`_plain`).
_NOT_MATH = "tex2jax_ignore mathjax_ignore"


def _ipython() -> InteractiveShell | None:
    """The running IPython shell, or None outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is part of every notebook install
        return None
    return get_ipython()


def group_styles(groups: Iterable[Hashable]) -> dict[Hashable, dict[str, str]]:
    """One colour and line style per group, the same in every figure that uses the mapping.

    Groups are sorted as text (labels written alike, such as ``1`` and ``"1"``, by the name
    of their type); the ``i``-th takes colour ``COLORS[i % 8]`` and line style
    ``LINESTYLES[(i + i // 8) % 4]``. Up to four groups differ in both colour and line style,
    so a reader who cannot tell the colours apart (or a grey print) still tells the curves
    apart; 32 groups get 32 distinct pairs, and from the 33rd the pairs repeat. Call it once
    with every group of a data set and pass the result to every figure of it.

    Parameters
    ----------
    groups : iterable of hashable
        Group labels; repeats are ignored.

    Returns
    -------
    dict
        ``{group: {"color": ..., "linestyle": ...}}``: unpack one entry into a plot call
        (``**styles[g]``), or pass ``{g: s["color"] for g, s in styles.items()}`` as
        seaborn's ``palette``.

    Raises
    ------
    TypeError
        When ``groups`` is one string (its letters would be the groups), is not a collection
        (a number, None), or holds a label that cannot key a dictionary (a list).

    See Also
    --------
    use_style : The colour cycle for figures without groups.

    References
    ----------
    M. Okabe and K. Ito, "Color Universal Design (CUD): how to make figures and
    presentations that are friendly to colorblind people", J*Fly, 2008 (the colour set).

    Examples
    --------
    >>> styles = group_styles(["b", "a", "b"])
    >>> styles["a"] == {"color": COLORS[0], "linestyle": "-"}, styles["b"] == {"color": COLORS[1], "linestyle": "--"}
    (True, True)
    """
    if isinstance(groups, (str, bytes)) or not isinstance(groups, Iterable):  # a string's letters would be the groups
        raise TypeError(f"groups must be a collection of group labels, e.g. ['a', 'b'], got {quoted(groups)}")
    labels = set()
    for group in groups:
        try:
            labels.add(group)
        except TypeError:  # Python's "unhashable type: 'list'" named neither the argument nor the label
            raise TypeError(f"groups must hold group labels (a text or a number each), got {quoted(group)} among "
                            "them") from None
    # labels written alike (1 and "1") in the order of their types: not of their hashes, which change between runs
    ordered = sorted(labels, key=lambda group: (str(group), type(group).__qualname__))
    return {
        group: {
            "color": COLORS[i % len(COLORS)],
            "linestyle": LINESTYLES[(i + i // len(COLORS)) % len(LINESTYLES)],
        }
        for i, group in enumerate(ordered)
    }


def _axes(ax: Axes | None) -> Axes:
    """The axes to draw on: ``ax``, or those of a new figure when it is None; a TypeError naming
    ``ax`` and what it is when it is neither (matplotlib's AttributeError said only that a
    ``str`` has no attribute ``hist``)."""
    if ax is None:
        return plt.subplots()[1]
    if not isinstance(ax, Axes):
        shown = f" {quoted(ax)}" if isinstance(ax, str) else ""
        several = (": plt.subplots(n) returns an array of them, pass one, e.g. ax=axes[0]"
                   if isinstance(ax, np.ndarray) and ax.size and all(isinstance(one, Axes) for one in ax.flat) else "")
        raise TypeError(f"ax must be matplotlib Axes (e.g. fig, ax = plt.subplots()), or None for a new figure, "
                        f"got {type(ax).__name__}{shown}{several}")
    return ax


def _plain(label: Hashable, *, width: int = _LABEL_WIDTH) -> str:
    """A label drawn as written: ``$`` does not start math text, and an empty or blank label
    (a group named ``""`` or ``" "``), which would show as nothing, is drawn quoted: ``''``.
    A line longer than ``width`` characters is wrapped at spaces (or, without one, inside a
    word); a label of more than ``_LABEL_LINES`` lines keeps its first lines and its last one,
    with "…" where lines are left out: a group named with 300 characters
    ran off the figure, and the figure's layout collapsed."""
    text = str(label)
    if not text.strip():
        return repr(text)
    lines = [part for line in text.split("\n")
             for part in (textwrap.wrap(line, width) if len(line) > width else [line])]
    if len(lines) > _LABEL_LINES:
        lines = [*lines[: _LABEL_LINES - 1], "\u2026" + lines[-1]]
    return "\n".join(lines).replace("$", r"\$")


def _shown(label: str | None) -> str | None:
    """A legend label drawn as written (see :func:`_plain`); a leading ``_`` (which matplotlib
    reads as "leave out of the legend") is kept behind a zero-width space."""
    if label is None:
        return None
    text = _plain(label)
    return "\u200b" + text if text.startswith("_") else text


def _cell_values(table: pd.DataFrame, name: str) -> np.ndarray:
    """A table's cells as float64, or a TypeError naming ``name`` when a column does not hold
    real numbers (text that reads as numbers, booleans: drawn as rates of 1 and 0, and read
    without a word)."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(table).__name__}")
    other = [(column, dtype) for column, dtype in table.dtypes.items() if not is_real_dtype(dtype)]
    if other:
        column, dtype = other[0]
        raise TypeError(f"{name} must hold numbers: column {column!r} has dtype {dtype}")
    return table.to_numpy(dtype=float, na_value=np.nan)


def _legend(ax: Axes, label: str | None, *, entries: int = 1) -> None:
    """Keep the legend of labelled curves while there are few enough to read it.

    While the axes holds at most ``MAX_LEGEND_ENTRIES`` labelled curves (counted on the
    axes, as ``ax.legend()`` lists them, so that curves cleared by ``ax.cla()`` or removed
    are not counted: a count kept beside the axes dropped the legend of 10 groups drawn
    after clearing 15), each call draws a legend over all of them. With more, the legend is
    removed and not drawn again, and a note in its corner says why it is missing and how
    many curves there are; later calls add their ``entries`` to that count without counting
    the axes again, so that plotting many groups stays linear in their number (a legend or a
    count per curve is quadratic: 400 groups took 30 s); a curve removed from then on stays
    counted. Clearing the axes (which removes the note) starts the count afresh. Entries fill
    columns of at most ``_LEGEND_ROWS``, so that the legend fits in the book's figures instead
    of running off their edge.
    """
    if label is None:
        return
    dropped = _legend_notes.get(ax)
    if dropped is not None and dropped[1].axes is ax:  # the legend was dropped and the axes not cleared since
        count, note = dropped[0] + entries, dropped[1]
    else:
        count, note = len(ax.get_legend_handles_labels()[0]), None
    if count <= MAX_LEGEND_ENTRIES:
        ax.legend(frameon=False, ncols=-(-count // _LEGEND_ROWS))
        return
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    if note is None:
        note = ax.text(0.99, 0.99, "", transform=ax.transAxes, ha="right", va="top", fontsize="small", color="0.3")
    _legend_notes[ax] = (count, note)
    note.set_text(f"{count} labelled curves: too many for a legend (ax.legend() draws one)")


def plot_score_distributions(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    thresholds: Mapping[str, float] | None = None,
    bins: int = 60,
    ax: Axes | None = None,
) -> Axes:
    """Draw the histograms (densities) of mated and non-mated scores, thresholds as lines.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated, nonmated : array_like
        Scores of mated (genuine) and non-mated (impostor) comparisons.
    thresholds : mapping of str to float, optional
        Label (e.g. ``"FMR = 1e-3"``) to threshold; each is drawn as a vertical line. NaN
        is an error; ``+inf`` (no score matches) is drawn on the right edge of the axes and
        ``-inf`` (every score matches) on the left edge, beyond every score, and so is a finite
        threshold that the scores' units (see Returns) put beyond float64's range.
    bins : int, default 60
        Number of equal-width bins over the range of both classes (at most 1,000,000).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's if omitted.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on, with a legend in columns of at most 10 entries (labels wrapped
        as in :func:`plot_det`). Scores whose largest magnitude lies outside [``2**-500``,
        ``2**500``] (about 3e-151 to 3e150), which matplotlib cannot scale, are drawn divided
        by the power of two ``2**e`` that brings it into [0.5, 1), thresholds too; the x
        label then reads ``score / 2^e``.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; when a threshold is
        NaN or not a float64 number; when ``bins`` is below 1 or above 1,000,000; or when the
        scores span a range too narrow for ``bins`` distinct float64 bin edges (e.g. 0.5 and
        the next float64 above it): pass fewer bins, or subtract a constant from the scores
        and thresholds.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), ``thresholds`` is not a mapping of labels to numbers,
        ``bins`` is not an integer, or ``ax`` is neither None nor matplotlib Axes.

    See Also
    --------
    biofair.plotting.plot_det : The error trade-off of the same scores.
    biofair.threshold_at_fmr : Thresholds to mark.

    References
    ----------
    ISO/IEC 19795-1:2021 (score distributions of mated and non-mated comparisons).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> ax = plot_score_distributions(rng.normal(2, 1, 500), rng.normal(0, 1, 5_000),
    ...                               thresholds={"t": 1.5})
    >>> ax.get_xlabel()
    'score'
    """
    bins = check_bins(bins)
    mated, nonmated = as_scores(mated, "mated"), as_scores(nonmated, "nonmated")
    if thresholds is not None and not isinstance(thresholds, Mapping):  # a line is drawn with its label
        raise TypeError(f"thresholds must map a label to each threshold, e.g. {{'FMR = 1e-3': 2.1}}, got {thresholds!r}")
    marks = {label: as_threshold(value, f"thresholds[{label!r}]") for label, value in (thresholds or {}).items()}
    exponent = power_of_two_exponent(mated, nonmated)  # exact: the same histogram, in units matplotlib can draw
    mated, nonmated = np.ldexp(mated, -exponent), np.ldexp(nonmated, -exponent)
    scores = np.concatenate([mated, nonmated])
    try:
        edges = np.histogram_bin_edges(scores, bins=bins)
    except ValueError:  # numpy: "Too many bins for data range"
        low, high = (float(np.ldexp(v, exponent)) for v in (scores.min(), scores.max()))
        raise ValueError(
            f"mated and nonmated span only [{low!r}, {high!r}]: too narrow for {bins} equal-width bins "
            f"at float64 precision; pass fewer bins, or subtract a constant (e.g. {low!r}) from the scores "
            "and the thresholds"
        ) from None
    ax = _axes(ax)
    for values, label, color in ((nonmated, "non-mated", COLORS[1]), (mated, "mated", COLORS[0])):
        ax.hist(values, bins=edges, density=True, histtype="stepfilled", alpha=0.35, color=color)
        ax.hist(values, bins=edges, density=True, histtype="step", color=color, label=label)
    for i, (label, value) in enumerate(marks.items()):
        style = {"color": "0.2", "linestyle": LINESTYLES[i % len(LINESTYLES)], "label": _shown(label)}
        with np.errstate(over="ignore"):  # 1e10 in units of 2**-995 (scores near 1e-300) is beyond float64
            at = float(np.ldexp(value, -exponent))
        if math.isinf(at):  # at x = inf matplotlib drew nothing, and the legend named the line
            edge = float(at > 0)
            ax.plot([edge, edge], [0.0, 1.0], transform=ax.transAxes, clip_on=False, **style)
        else:
            ax.axvline(at, **style)
    ax.set_xlabel("score" if exponent == 0 else f"score / 2^{exponent}")
    ax.set_ylabel("density")
    entries = 2 + len(marks)  # in columns, as _legend draws them: 30 thresholds in one ran off the figure
    ax.legend(frameon=False, ncols=-(-entries // _LEGEND_ROWS))
    return ax


def _percent(rate: float) -> str:
    """A probit tick's label: the rate in percent, without float noise (1e-06 -> "0.0001")."""
    return f"{float(f'{100 * rate:.6g}'):g}"


@functools.lru_cache(maxsize=256)
def _label_width(text: str, size: float, family: tuple[str, ...]) -> float:
    """Width of a tick label in points."""
    font = FontProperties(size=size, family=list(family))
    width, _, _ = text_to_path.get_text_width_height_descent(text, font, ismath=False)
    return width


class _ProbitTicks(Locator):
    """Probit ticks whose labels never overlap, whatever the axes' size when it is drawn.

    Candidate rates are taken in the order of ``_DET_TICKS`` and kept when their label keeps
    a gap of half the font size from every kept label (label widths on x, heights on y) and,
    on y, stays above the axes' bottom, where the first x label sits;
    the decision is made at draw time from the axes' size in pixels and the tick labels'
    font. ``lowest`` and ``upper`` are the axis range the curves drawn so far need.
    """

    def __init__(self, lowest: float, upper: float):
        self.lowest, self.upper = lowest, upper

    def __call__(self):
        return self.tick_values(*self.axis.get_view_interval())

    def tick_values(self, vmin: float, vmax: float):
        vmin, vmax = sorted((vmin, vmax))
        rates = [r for r in _DET_TICKS if vmin <= ndtri(r) <= vmax]
        if not rates:
            return np.array([])
        axis: Axis = self.axis
        horizontal = axis.axis_name == "x"
        box = axis.axes.bbox
        length = box.width if horizontal else box.height
        per_unit = length / (vmax - vmin) if vmax > vmin else np.inf
        tick = axis.get_major_ticks(1)[0].label1
        size, family = tick.get_fontsize(), tuple(tick.get_fontfamily())
        points_to_pixels = axis.axes.figure.dpi / 72

        def extent(rate: float) -> float:
            if not horizontal:
                return size * points_to_pixels
            return _label_width(_percent(rate), size, family) * points_to_pixels

        gap = 0.5 * size * points_to_pixels
        kept: list[float] = []
        for rate in rates:
            position = ndtri(rate) * per_unit
            # on y, no label reaches below the axes: there it would run into the x axis' first label
            below_axes = not horizontal and (ndtri(rate) - vmin) * per_unit < extent(rate) / 2
            apart = all(abs(position - ndtri(other) * per_unit) >= (extent(rate) + extent(other)) / 2 + gap
                        for other in kept)
            if apart and not below_axes:
                kept.append(rate)
        return ndtri(np.sort(kept))


def _corners(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Which points of a polyline to draw: all but those inside a horizontal or vertical run
    (three points in a row with equal ``x``, or equal ``y``), which lie on the segment its
    neighbours draw. On any axes whose scales are monotone (log, probit) the line is the same:
    a ROC or DET curve of 1e7 distinct scores drew every one (10 s, 644 MB held by the figure)."""
    keep = np.ones(x.size, dtype=bool)
    if x.size > 2:
        same_x, same_y = x[1:] == x[:-1], y[1:] == y[:-1]
        keep[1:-1] = ~((same_x[:-1] & same_x[1:]) | (same_y[:-1] & same_y[1:]))
    return keep


def _through_box(x: np.ndarray, y: np.ndarray, xlim: tuple[float, float], ylim: tuple[float, float]) -> bool:
    """Whether the polyline through ``(x, y)`` runs through the inside of the box ``xlim`` by
    ``ylim``, not only along or beyond its edges: each segment is cut to the box at once
    (Liang-Barsky), as the part ``enter < t < leave`` of ``start + t * step``, t in [0, 1]."""
    enter, leave = np.zeros(x.size - 1), np.ones(x.size - 1)
    for values, (low, high) in ((x, sorted(xlim)), (y, sorted(ylim))):
        start, step = values[:-1], np.diff(values)
        with np.errstate(divide="ignore", invalid="ignore"):
            at_low, at_high = (low - start) / step, (high - start) / step
        within = (low < start) & (start < high)  # a segment parallel to these edges: inside for every t or none
        enter = np.maximum(enter, np.where(step == 0, np.where(within, 0.0, np.inf), np.minimum(at_low, at_high)))
        leave = np.minimum(leave, np.where(step == 0, np.where(within, 1.0, -np.inf), np.maximum(at_low, at_high)))
    return bool(np.any(leave - enter > 1e-9))  # more than a touch of a corner (rounding of its crossing)


def _probit_axis(ax: Axes, axis: str, n_comparisons: int, upper: float) -> None:
    """Probit axis from the data's resolution (1/n, as a decade, at least 1e-6) to ``upper``.

    A further curve on the same axes widens the range to the lower of the two resolutions;
    when the range does not change the axis is left as it is (many curves stay cheap).
    """
    target = ax.xaxis if axis == "x" else ax.yaxis
    lowest = max(10.0 ** np.floor(np.log10(min(1.0 / n_comparisons, upper / 10))), min(_DET_TICKS))
    previous = target.get_major_locator()
    if isinstance(previous, _ProbitTicks):
        if previous.lowest <= lowest and previous.upper >= upper:
            return
        lowest, upper = min(lowest, previous.lowest), max(upper, previous.upper)
    target.set_major_locator(_ProbitTicks(lowest, upper))
    target.set_major_formatter(FuncFormatter(lambda value, _: _percent(ndtr(value))))
    target.set_minor_locator(NullLocator())
    (ax.set_xlim if axis == "x" else ax.set_ylim)(ndtri(lowest), ndtri(upper))


class _OperatingPoints(Line2D):
    """Operating points on probit axes: a dot where a point lies within the axes' range, an
    open circle on the edge or corner it lies beyond otherwise (a rate of 0: left or bottom; a
    rate of 1, or one above the axes' upper end: right or top). The points are placed again
    each time the figure is drawn, so that a point a later, wider range brings into view is a
    dot at its place: one placed once in axes units stayed on the old edge, and one placed in
    data units beyond the range floated outside the frame (FMR 0.7 on axes ending at 0.5).
    """

    def __init__(self, ax: Axes, fmr: np.ndarray, fnmr: np.ndarray, **style):
        self._probit = ndtri(fmr), ndtri(fnmr)  # -inf for a rate of 0, +inf for 1
        super().__init__([], [], linestyle="none", marker="o", clip_on=False, **style)
        self.axes = ax
        self.set_data(*self.placed()[:2])

    def placed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Probit positions clipped to the axes' range, and which points the clipping moved."""
        x, y = self._probit
        on_x, on_y = np.clip(x, *sorted(self.axes.get_xlim())), np.clip(y, *sorted(self.axes.get_ylim()))
        return on_x, on_y, (on_x != x) | (on_y != y)

    def draw(self, renderer) -> None:
        x, y, beyond = self.placed()
        face = self.get_markerfacecolor()
        for shown, fill in ((~beyond, face), (beyond, "none")):
            if shown.any():
                self.set_data(x[shown], y[shown])
                self.set_markerfacecolor(fill)
                super().draw(renderer)
        self.set_data(x, y)
        self.set_markerfacecolor(face)
        self.stale = False


def plot_det(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    label: str | None = None,
    thresholds: ArrayLike | None = None,
    max_rate: float = 0.95,
    ax: Axes | None = None,
    **line_kwargs,
) -> Axes:
    """Draw the DET curve (FNMR against FMR) on probit axes, i.e. normal deviates.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated, nonmated : array_like
        Scores of mated (genuine) and non-mated (impostor) comparisons.
    label : str, optional
        Legend entry of the curve. When no part of the curve as drawn lies inside the axes (a
        group of a few comparisons: with 2 mated ones FNMR is 0, 0.5 or 1), the entry says so
        and gives the group's counts: ``"A (off the axes: 2 mated, 3 non-mated)"``.
    thresholds : array_like, optional
        Thresholds whose operating points (FMR, FNMR) are marked on the curve with a dot of
        the curve's colour, e.g. one threshold shared by every group. A point the axes'
        range does not hold is an open circle on the edge (or corner) it lies beyond: a rate
        of 0 (e.g. no false match of a small group at a strict threshold), which probit axes
        cannot show, on the left or bottom; a rate of 1, or one above the axes' upper end
        (FMR 0.7 with ``max_rate=0.5``), on the right or top. The points are placed when the
        figure is drawn: one that a later curve's wider range holds is a dot at its place.
    max_rate : float, default 0.95
        Upper end of both axes, in (1e-6, 1 - 1e-6): above the lowest rate the axes show, and
        below the place of rates of 1 (drawn at 1 - 5e-7, beyond the axes).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's if omitted.
    **line_kwargs
        Passed to ``Axes.plot`` (e.g. ``color`` and ``linestyle``, or one group's entry of
        ``group_styles``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        When ``max_rate`` lies outside (1e-6, 1 - 1e-6); when ``mated`` or ``nonmated`` is empty, is
        not one-dimensional, or holds a NaN or infinite score, a masked value or an integer
        beyond ``±2**53``; or when ``thresholds`` is empty, not flat, or holds a NaN or a value
        float64 does not hold exactly.
    TypeError
        When ``max_rate`` is not a number, ``mated`` or ``nonmated`` does not hold real
        numbers (booleans, text and complex numbers are refused), ``thresholds`` does not
        hold numbers, or ``ax`` is neither None nor matplotlib Axes.

    See Also
    --------
    biofair.det_curve : The points it draws.
    biofair.plotting.plot_roc : The ROC on a log FMR axis.

    Notes
    -----
    Each axis starts at the decade at or below what its class can resolve (1/N for FMR, 1/M
    for FNMR; never below 1e-6) and ends at ``max_rate``; further curves on the same axes
    widen it to theirs. Rates of 0 or 1 cannot be shown on probit axes; they are drawn beyond
    the edge of any range the axes can take, so that a later curve's wider range does not
    bring them into view. When a threshold separates the classes perfectly (FMR = FNMR = 0
    there), every point of the curve has a rate of 0 or 1 and lies beyond the axes: a dot of
    the curve's colour is drawn in the lower-left corner instead, and the legend shows that
    dot for the curve. Whether any part of the line lies
    inside the axes (for the legend's note; a line between two points beyond them may cross
    them) is decided with the range they have when the curve is drawn. Tick labels (in percent)
    are thinned when the figure is drawn so that they never overlap. A labelled curve
    enters the legend while the axes holds at most ``MAX_LEGEND_ENTRIES`` labelled curves,
    in columns of at most 10; with more, no legend is drawn, and a note in the corner says so
    (call ``ax.legend()`` to force one). A label is wrapped at 40 characters a line, and one
    of more than 3 lines keeps its first two and its last, after "…", so that it stays
    inside the figure. Further keyword arguments go to ``Axes.plot``.

    References
    ----------
    A. Martin et al., "The DET curve in assessment of detection task performance",
    Eurospeech 1997.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> ax = plot_det(rng.normal(2, 1, 500), rng.normal(0, 1, 5_000), label="A")
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['A']
    """
    max_rate = as_number(max_rate, "max_rate", low=min(_DET_TICKS), high=1.0, open_low=True, open_high=True)
    if max_rate >= 1 - min(_DET_TICKS):
        raise ValueError(f"max_rate must lie below 1 - 1e-6 = 0.999999, got {max_rate!r}: rates of 1 are drawn at "
                         "1 - 5e-7, beyond the axes, and axes reaching above 0.999999 would show them as rates")
    counts = error_counts(mated, nonmated)  # checked before a figure is made: none is left open
    points = None if thresholds is None else fmr_fnmr(mated, nonmated, as_thresholds(thresholds, flat=True))
    ax = _axes(ax)
    first = not isinstance(ax.xaxis.get_major_locator(), _ProbitTicks)
    _probit_axis(ax, "x", counts.n_nonmated, max_rate)
    _probit_axis(ax, "y", counts.n_mated, max_rate)
    # Rates of 0 and 1 sit below every axis this or a later curve can set (never below 1e-6).
    clip = min(_DET_TICKS) / 2
    drawn = _corners(counts.false_matches, counts.false_non_matches)
    separated = np.any((counts.false_matches == 0) & (counts.false_non_matches == 0))
    x, y = ndtri(np.clip(counts.fmr[drawn], clip, 1 - clip)), ndtri(np.clip(counts.fnmr[drawn], clip, 1 - clip))
    if label is not None and not separated and not _through_box(x, y, ax.get_xlim(), ax.get_ylim()):
        # a few comparisons (2 mated: FNMR 0, 0.5 or 1) leave the curve beyond or on the frame
        label = f"{label} (off the axes: {counts.n_mated:,} mated, {counts.n_nonmated:,} non-mated)"
    (line,) = ax.plot(x, y, label=None if separated else _shown(label), **line_kwargs)
    if points is not None:
        ax.add_line(_OperatingPoints(ax, np.ravel(points.fmr), np.ravel(points.fnmr), color=line.get_color(),
                                     zorder=line.get_zorder() + 1))
    if separated:  # every point has a rate of 0, beyond the axes: a dot in the corner instead, in the legend too
        ax.plot([0.0], [0.0], transform=ax.transAxes, clip_on=False, linestyle="none", marker="o",
                color=line.get_color(), zorder=line.get_zorder() + 1, label=_shown(label))
    if first:
        ax.set_xlabel("false match rate (%)")
        ax.set_ylabel("false non-match rate (%)")
        ax.grid(True, alpha=0.3)
    _legend(ax, label)
    return ax


def plot_roc(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    label: str | None = None,
    ax: Axes | None = None,
    **line_kwargs,
) -> Axes:
    """Draw the ROC curve with FMR on a log10 axis, so that the low-FMR region is visible.

    Read more in the chapter "Compute error rates from scores".

    Parameters
    ----------
    mated, nonmated : array_like
        Scores of mated (genuine) and non-mated (impostor) comparisons.
    label : str, optional
        Legend entry of the curve.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's if omitted.
    **line_kwargs
        Passed to ``Axes.plot``.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), or ``ax`` is neither None nor matplotlib Axes.

    See Also
    --------
    biofair.roc_curve : The points it draws.
    biofair.plotting.plot_det : The DET on probit axes.

    Notes
    -----
    The FMR axis starts at ``1/N``, the smallest non-zero FMR the data can show, or at 0.1
    when that is lower (fewer than 10 non-mated scores: a single one's only such FMR is 1, and
    a log axis needs a range), or lower still, to keep another ROC's range (what was drawn on
    a linear x axis before is not kept). Points
    of FMR 0 cannot be shown on the log axis and are left out; when a single point remains
    (e.g. every non-mated score ties, so that FMR is 0 or 1) it is drawn as a dot. The TMR
    axis reaches a little beyond 0 and 1, so that a curve at TMR = 1 (a perfectly separated
    group) is not hidden under the frame. A labelled curve enters the legend as in
    :func:`plot_det`.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification (ROC
    on a log FMR axis).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> ax = plot_roc(rng.normal(2, 1, 500), rng.normal(0, 1, 5_000))
    >>> ax.get_xscale(), float(ax.get_xlim()[0])
    ('log', 0.0002)
    """
    counts = error_counts(mated, nonmated)  # checked before a figure is made: none is left open
    ax = _axes(ax)
    fmr, tmr = counts.fmr[::-1], counts.tmr[::-1]
    left = min(1.0 / counts.n_nonmated, 0.1)  # one non-mated score: FMR 1 alone, and a log axis needs a range
    if ax.has_data() and ax.get_xscale() == "log":  # another curve is there: keep its range too
        left = min(left, ax.get_xlim()[0])
    shown = fmr > 0
    fmr, tmr = fmr[shown], tmr[shown]
    drawn = _corners(fmr, tmr)
    point = {"marker": "o"} if fmr.size == 1 else {}  # a line of one vertex draws nothing
    ax.plot(fmr[drawn], tmr[drawn], label=_shown(label), **{**point, **line_kwargs})
    ax.set_xscale("log")
    ax.set_xlim(left, 1.0)
    ax.set_ylim(-0.02, 1.02)  # a TMR of 1 (or 0) is not hidden under the top (bottom) spine
    ax.set_xlabel("false match rate")
    ax.set_ylabel("true match rate")
    ax.grid(True, which="both", alpha=0.3)
    _legend(ax, label)
    return ax


def plot_bayes_error(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    prior_log_odds: ArrayLike | None = None,
    label: str | None = None,
    ax: Axes | None = None,
    **line_kwargs,
) -> Axes:
    """Draw the normalised Bayes error-rate plot: actual (solid) and minimum (dotted) DCF.

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    mated, nonmated : array_like
        Scores of mated and non-mated comparisons, read as natural-log likelihood ratios.
    prior_log_odds : array_like, optional
        The x axis, ``ln(p / (1 - p))``, in any order (the curves join the priors from left
        to right); :func:`biofair.bayes_error_rates`' default if omitted.
    label : str, optional
        Legend entry of the actual-DCF curve (the minimum curve gets "min" appended).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's if omitted.
    **line_kwargs
        Passed to ``Axes.plot`` for both curves (e.g. ``color``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN, a
        masked value or an integer beyond ``±2**53`` (``±inf`` is allowed: infinite evidence);
        or when ``prior_log_odds`` is empty or not one-dimensional, holds a NaN or infinite
        value, or gives a prior that rounds to 0 or 1 (``x`` outside about [-709, 36]).
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), ``prior_log_odds`` does not hold real numbers, or ``ax`` is
        neither None nor matplotlib Axes.

    See Also
    --------
    biofair.bayes_error_rates : The numbers it draws.
    plot_reliability : Calibration seen as predicted against observed probability.

    Notes
    -----
    The vertical gap between the two curves at a prior is the calibration loss there; a
    horizontal line at 1 is the cost of the better trivial decision (accept or reject all).
    The y axis ends at 1.2, or just above the highest actual DCF of the curves on the axes
    up to 2; a curve that rises higher (a badly calibrated system) leaves through the top
    edge. A label's two curves are two legend entries; the legend is drawn as in
    :func:`plot_det` while the axes holds at most ``MAX_LEGEND_ENTRIES`` of them.

    References
    ----------
    N. Brümmer and J. du Preez, "Application-independent evaluation of speaker detection",
    Computer Speech and Language, 2006 (APE plot); D. van Leeuwen and N. Brümmer, "An
    introduction to application-independent evaluation of speaker recognition systems", 2007.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> ax = plot_bayes_error(rng.normal(2, 2, 500), rng.normal(-2, 2, 500))
    >>> len(ax.get_lines()), ax.get_xlabel()
    (3, 'prior log-odds ln(p / (1 - p))')
    """
    from biofair.calibration import bayes_error_rates

    table = bayes_error_rates(mated, nonmated, prior_log_odds=prior_log_odds)  # before a figure is made
    ax = _axes(ax)
    table = table.sort_values("prior_log_odds", kind="stable")  # joined left to right, not as given
    top = max(1.2, min(2.0, float(np.nanmax(table["actual_dcf"])) * 1.05))
    if ax.has_data():  # curves drawn before keep their range
        top = max(top, ax.get_ylim()[1])
    x = table["prior_log_odds"]
    (line,) = ax.plot(x, table["actual_dcf"], label=_shown(label), **{"linestyle": "-", **line_kwargs})
    minimum = {**line_kwargs, "color": line.get_color(), "linestyle": ":"}
    ax.plot(x, table["min_dcf"], label=None if label is None else _shown(f"{label} (min)"), **minimum)
    ax.axhline(1.0, color="0.6", linewidth=0.8)
    ax.set_ylim(0.0, top)
    ax.set_xlabel("prior log-odds ln(p / (1 - p))")
    ax.set_ylabel("normalised DCF")
    _legend(ax, label, entries=2)
    return ax


def plot_reliability(
    mated: ArrayLike,
    nonmated: ArrayLike,
    *,
    bins: int = 10,
    label: str | None = None,
    ax: Axes | None = None,
    **line_kwargs,
) -> Axes:
    """Draw a reliability diagram: predicted against observed probability of a mated pair.

    Read more in the chapter "Calibration: from scores to evidence".

    Parameters
    ----------
    mated, nonmated : array_like
        Scores of mated and non-mated comparisons, read as natural-log likelihood ratios.
    bins : int, default 10
        Bins of equal count over the predicted probability; tied predictions share a bin,
        so bins holding ties hold more. More bins than comparisons give each distinct
        prediction a point of its own.
    label : str, optional
        Legend entry of the curve.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's if omitted.
    **line_kwargs
        Passed to ``Axes.plot``.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        When ``mated`` or ``nonmated`` is empty, is not one-dimensional, or holds a NaN or
        infinite score, a masked value or an integer beyond ``±2**53``; or when ``bins`` is
        below 1.
    TypeError
        When ``mated`` or ``nonmated`` does not hold real numbers (booleans, text and complex
        numbers are refused), ``bins`` is not an integer, or ``ax`` is neither None nor
        matplotlib Axes.

    See Also
    --------
    plot_bayes_error : Calibration over operating points.

    Notes
    -----
    The predicted probability is ``sigmoid(llr + ln(M / N))``, the posterior at the data's
    own proportion of mated pairs; the observed one is the share of mated pairs in each bin.
    Calibrated scores lie on the diagonal.

    References
    ----------
    M. H. DeGroot and S. E. Fienberg, "The comparison and evaluation of forecasters",
    The Statistician, 1983 (reliability diagrams).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> ax = plot_reliability(rng.normal(2, 2, 500), rng.normal(-2, 2, 500), bins=5)
    >>> len(ax.get_lines()[0].get_xdata())
    5
    """
    from scipy.special import expit

    from biofair._validation import as_count

    m, n = as_scores(mated, "mated"), as_scores(nonmated, "nonmated")
    # more bins than rows put each distinct prediction in a bin of its own, as that many do
    # (and ``start * count`` stays within int64: bins=2**62 gave negative bins)
    count = min(as_count(bins, "bins"), m.size + n.size)
    ax = _axes(ax)
    predicted = expit(np.concatenate([m, n]) + np.log(m.size / n.size))
    values, inverse = np.unique(predicted, return_inverse=True)
    rows = np.bincount(inverse)
    mated_rows = np.bincount(inverse[: m.size], minlength=values.size)
    # each distinct prediction goes whole to the bin of its first row: equal-count bins that
    # never split a tie (a split put a tie's mated rows in one bin, its non-mated in the next)
    bin_of = (np.cumsum(rows) - rows) * count // predicted.size
    in_bin = np.bincount(bin_of, weights=rows)
    shown = in_bin > 0
    x = (np.bincount(bin_of, weights=values * rows) / np.where(shown, in_bin, 1))[shown]
    y = (np.bincount(bin_of, weights=mated_rows) / np.where(shown, in_bin, 1))[shown]
    # rates of 0 and 1 lie on the frame: their markers drawn whole, not cut in half
    ax.plot(x, y, marker="o", label=_shown(label), **{"clip_on": False, **line_kwargs})
    ax.add_line(Line2D([0, 1], [0, 1], color="0.6", linewidth=0.8))  # not ax.plot: takes no style of the cycle
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("predicted probability of a mated pair")
    ax.set_ylabel("observed share of mated pairs")
    _legend(ax, label)
    return ax


def _text_colour_on(background: tuple[float, ...]) -> str:
    """Black or white, whichever contrasts more with an sRGB ``background`` (WCAG 2.1).

    Relative luminance ``L = 0.2126 R + 0.7152 G + 0.0722 B`` of the linearised channels;
    the contrast ratio with black is ``(L + 0.05) / 0.05`` and with white
    ``1.05 / (L + 0.05)``, equal at ``L = 0.179``. The better of the two is at least 4.58:1.
    """
    channels = np.asarray(background[:3], dtype=float)
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    luminance = float(np.dot([0.2126, 0.7152, 0.0722], linear))
    return "black" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "white"


def plot_cross_group_fmr(
    fmr: pd.DataFrame,
    *,
    pairs: pd.DataFrame | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Draw a reference group x probe group FMR table as a heatmap on a log10 colour scale.

    Read more in the chapter "Set one threshold for everyone".

    Parameters
    ----------
    fmr : pandas.DataFrame
        FMR per cell, rows the reference (enrolment) groups and columns the probe groups, as
        :func:`biofair.cross_group_fmr` returns it; NaN where a cell has no pairs.
    pairs : pandas.DataFrame, optional
        Non-mated pairs per cell, with the same rows and columns (e.g. a ``pd.crosstab`` of
        the non-mated pairs' two group columns). With it each cell also shows the count of
        false matches behind its rate, ``k / n``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure's if omitted.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on, with a colour bar.

    Raises
    ------
    TypeError
        When ``fmr`` or ``pairs`` is not a DataFrame of numbers (a column of text, even of
        numbers written as text, or of booleans), or ``ax`` is neither None nor matplotlib Axes.
    ValueError
        When ``fmr`` has no cells or a rate outside [0, 1] (``±inf`` included); when ``pairs``
        has other rows or columns than ``fmr``, or a cell with a rate whose count of pairs is
        not a whole number of at least 1, or whose rate times that count is not a whole
        number of false matches (to the precision of the rates' dtype: float32 rates are
        ``k / n`` to about 1e-7).

    See Also
    --------
    biofair.cross_group_fmr : The table it draws.
    biofair.synthetic.fdr_cross_group_system : Synthetic scores with cross-group pairs.

    Notes
    -----
    Colours follow log10(FMR), as in NIST's FRTE demographic reports, so that rates a
    decade apart are equally far apart in colour. The scale ends at the largest rate and
    starts at the smallest positive one, at ``1/n`` of the largest cell when ``pairs`` is
    given, and at least a decade lower than it ends (a rate of 1 beside zeros spanned 1 to
    10, rates no cell can have). A zero rate cannot sit on a log scale: it takes the colour
    of the scale's start and its label reads 0. Cells without pairs stay blank. Cells carry labels
    while the table has at most 400 cells (20 groups a side); with more, colours only:
    the labels would not fit, and 200 groups a side took 15 s to label. A group's tick label
    is wrapped at 20 characters a line, and one of more than 3 lines keeps its first two and
    its last, after "…": labels of 300 characters left no room for the cells.

    References
    ----------
    P. Grother, M. Ngan and K. Hanaoka, "Face Recognition Vendor Test (FRVT) Part 3:
    Demographic Effects", NIST IR 8280, 2019 (cross-demographic FMR heatmaps on a log scale).

    Examples
    --------
    >>> import pandas as pd
    >>> fmr = pd.DataFrame([[1e-3, 1e-5], [0.0, 2e-3]], index=["a", "b"], columns=["a", "b"])
    >>> pairs = pd.DataFrame(100_000, index=["a", "b"], columns=["a", "b"])
    >>> ax = plot_cross_group_fmr(fmr, pairs=pairs)
    >>> [text.get_text() for text in ax.texts]
    ['1.0e-3\\n100 / 100,000', '1.0e-5\\n1 / 100,000', '0\\n0 / 100,000', '2.0e-3\\n200 / 100,000']
    """
    values = _cell_values(fmr, "fmr")
    if values.size == 0:
        raise ValueError(f"fmr has no cells (shape {fmr.shape}): at least one reference and one probe group are needed")
    rated = ~np.isnan(values)

    def cell(mask: np.ndarray) -> str:
        i, j = np.argwhere(mask)[0]
        return f"[{fmr.index[i]!r}, {fmr.columns[j]!r}]"

    outside = rated & ~((values >= 0) & (values <= 1))
    if outside.any():
        raise ValueError(
            f"fmr must hold rates in [0, 1] (NaN: no pairs), got {float(values[outside][0])!r} at {cell(outside)}"
        )
    counts = None
    if pairs is not None:
        counts = _cell_values(pairs, "pairs")
        if not (pairs.index.equals(fmr.index) and pairs.columns.equals(fmr.columns)):
            raise ValueError("pairs must have the same rows and columns as fmr, in the same order")
        with np.errstate(invalid="ignore"):
            bad = rated & ~((counts >= 1) & (counts == np.round(counts)) & np.isfinite(counts))
            if bad.any():
                raise ValueError(f"pairs must hold a whole number of at least 1 pair in each cell with a rate, "
                                 f"got {float(counts[bad][0])!r} at {cell(bad)}")
            matches = values * counts
            # k / n held in float32 is k / n to float32's precision (1 / 1000 times 1000 is 1.00000005):
            # the slack is the rates' own, and far above float64's rounding
            slack = max([1e-9, *(float(np.finfo(np.dtype(getattr(dtype, "numpy_dtype", dtype))).eps)
                                 for dtype in fmr.dtypes if dtype.kind == "f")])
            off = rated & (np.abs(matches - np.round(matches)) > slack * np.maximum(matches, 1.0))
        if off.any():
            raise ValueError(
                f"fmr {float(values[off][0])!r} at {cell(off)} is not a whole number of false matches out of "
                f"{counts[off][0]:,.0f} pairs ({matches[off][0]:g}): pass the pairs the rates come from"
            )
    ax = _axes(ax)
    finite = values[rated]
    positive = finite[finite > 0]
    floor = positive.min() if positive.size else 1e-6
    if counts is not None and rated.any():
        floor = min(floor, 1.0 / counts[rated].max())
    ceiling = positive.max() if positive.size else 1.0
    floor = min(floor, ceiling / 10)  # at least a decade of colours, none above the largest rate (at most 1)
    shown = np.where(np.isnan(values) | (values > 0), values, floor)  # zeros at the floor, NaN stays NaN
    norm = LogNorm(vmin=floor, vmax=ceiling)
    cmap = plt.get_cmap("viridis")
    image = ax.imshow(np.ma.masked_invalid(shown), norm=norm, cmap=cmap, aspect="auto")
    labelled = ~np.isnan(values) if values.size <= _LABELLED_CELLS else np.zeros(values.shape, dtype=bool)
    for i, j in np.argwhere(labelled):
        value = values[i, j]
        text = format_rate(value)  # 1.0e-3, as the book writes rates
        if counts is not None:
            n = int(counts[i, j])
            text += f"\n{round(value * n):,} / {n:,}"
        ax.text(j, i, text, ha="center", va="center", fontsize="small", color=_text_colour_on(cmap(norm(shown[i, j]))))
    ax.set_xticks(range(values.shape[1]), [_plain(c, width=_TICK_LABEL_WIDTH) for c in fmr.columns])
    ax.set_yticks(range(values.shape[0]), [_plain(r, width=_TICK_LABEL_WIDTH) for r in fmr.index])
    sides = (("reference", fmr.index.name, ax.set_ylabel), ("probe", fmr.columns.name, ax.set_xlabel))
    for side, name, set_label in sides:
        # "reference_gender" -> "gender"; "reference_gender / reference_age" -> "gender / age"
        attribute = " / ".join(part.removeprefix(f"{side}_") for part in str(name or "").split(" / "))
        set_label(f"{side} group" if attribute in ("", "group") else f"{side} group ({_plain(attribute)})")
    ax.grid(False)
    ax.figure.colorbar(image, ax=ax, label="false match rate (log10 scale)")
    return ax


__all__ = [
    "COLORS",
    "LINESTYLES",
    "MAX_LEGEND_ENTRIES",
    "format_rate",
    "group_styles",
    "plot_bayes_error",
    "plot_cross_group_fmr",
    "plot_det",
    "plot_reliability",
    "plot_roc",
    "plot_score_distributions",
    "use_style",
]