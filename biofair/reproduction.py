"""Reproduction ledgers: the papers' published values beside the book's, each with a verdict.

The papers' values live in ``biofair/data/paper_values.csv``, one row per published number:
``paper`` (cei, fdr, beyond_auc, nsigma), ``table``, ``quantity``, ``paper_value``,
``tolerance``, ``expected`` (the verdict the book asserts), ``reason`` (one line for every
deviation) and ``reference`` (the value that means "no effect", used for the direction of a
deviation; empty when none applies). Read more on the book's page "Reproductions".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from importlib.resources import files

import numpy as np
import pandas as pd

from biofair._validation import float_or_infinite, how_many, is_real_number, quoted

#: The verdicts a ledger row can carry: the number reproduced, no effect in book and paper alike
#: (the number itself is then a sampling floor), or a deviation, from mild to worst.
_VERDICTS = ("reproduced", "no effect in both", "same direction", "differs")
#: The verdicts that are no deviation (every other one needs a reason).
_AGREEMENTS = ("reproduced", "no effect in both")
_COLUMNS = ("paper", "table", "quantity", "paper_value", "tolerance", "expected", "reason", "reference")


def _paper_values() -> pd.DataFrame:
    """The papers' published values: ``biofair/data/paper_values.csv`` of the installed package."""
    with files("biofair").joinpath("data/paper_values.csv").open("r", encoding="utf-8") as handle:
        values = pd.read_csv(handle, dtype={"reason": str}, keep_default_na=False,
                             na_values={"paper_value": [""], "tolerance": [""], "reference": [""]})
    return values


def _within(a: float, b: float, tolerance: float) -> bool:
    """``|a - b| <= tolerance`` for decimal values read as floats: a difference that exceeds
    the tolerance by less than 1e-9 of itself (1 - 0.98 is 0.020000000000000018) is within.
    False when a value is NaN."""
    return abs(a - b) <= tolerance or math.isclose(abs(a - b), tolerance, rel_tol=1e-9, abs_tol=0.0)


def _verdict(paper: float, book: float, tolerance: float, reference: float) -> str:
    """The verdict of one row (see :func:`reproduction_ledger`)."""
    if _within(paper, reference, tolerance) and (_within(book, reference, tolerance) or _within(book, paper, tolerance)):
        return "no effect in both"
    if _within(book, paper, tolerance):
        return "reproduced"
    if (not np.isnan(reference) and np.sign(paper - reference) == np.sign(book - reference) != 0
            and not _within(paper, reference, tolerance) and not _within(book, reference, tolerance)):
        return "same direction"
    return "differs"


def reproduction_ledger(
    paper: str,
    table: str,
    book_values: Mapping[str, float] | pd.Series,
    *,
    values: pd.DataFrame | None = None,
    check: bool = True,
) -> pd.DataFrame:
    """One table of a paper beside the book's values, with a verdict per published number.

    Read more on the book's page "Reproductions". Each chapter that redoes a paper's table
    builds its ledger with this function, so that a change which breaks a reproduction fails
    the chapter.

    Parameters
    ----------
    paper : {"cei", "fdr", "beyond_auc", "nsigma"}
        The paper, as named in the ``paper`` column of the values.
    table : str
        The table or figure of that paper, as named in the ``table`` column (e.g. "Table 3").
    book_values : mapping or pandas.Series
        The book's value of every quantity of that table, by the names of the ``quantity``
        column. A quantity the paper lists and the book does not give is an error, and so is
        a book value the paper does not list.
    values : pandas.DataFrame, optional
        The papers' values (default: ``biofair/data/paper_values.csv``, read with
        ``importlib.resources``); columns ``paper``, ``table``, ``quantity``,
        ``paper_value``, ``tolerance``, ``expected``, ``reason`` and ``reference``.
    check : bool, default True
        Raise if any verdict differs from the ``expected`` one.

    Returns
    -------
    pandas.DataFrame
        One row per quantity, in the order of the values, with columns ``quantity``,
        ``paper``, ``book``, ``tolerance``, ``reference``, ``verdict``, ``expected`` and
        ``reason``.

    Raises
    ------
    AssertionError
        With ``check=True``, when a verdict is not the expected one; the message names every
        row that flipped, with both values.
    KeyError
        When the paper's table is unknown, or the book's values and the paper's quantities
        differ.
    TypeError
        When a book value is not a number (a boolean or numeric text included).
    ValueError
        When a book value is missing, NaN or infinite (an integer beyond the largest float
        included) or given twice, the values lack a column, a quantity of the table is listed
        twice, a paper value, tolerance or reference is not a number (a boolean included;
        numeric text is read), a paper value or tolerance is missing, NaN, infinite or (the
        tolerance) negative, a reference is infinite, an expected verdict is unknown, or an
        expected deviation has no reason.

    See Also
    --------
    biofair.comprehensive_equity_index : The index of the CEI paper's Tables 3-5.
    biofair.fairness_discrepancy_rate : The index of the FDR paper's Tables I-III.

    Notes
    -----
    With paper value ``p``, book value ``b``, tolerance ``tol`` and reference ``r`` (the
    quantity's value when there is no effect: 1 for DFI and CEI, 0 for GARBE, 1 for
    Inequity; empty when no such value applies):

    - ``no effect in both`` iff ``r`` is given, ``|p - r| <= tol`` and
      ``min(|b - r|, |b - p|) <= tol``: the paper's value is within the tolerance of "no
      effect", so the row can confirm the absence of an effect (the book's value lies within
      the tolerance of "no effect" or of the paper's) but not the paper's number, which, like
      the book's, is then mostly the noise of its sample sizes. The verdict depends on the
      paper's value and the tolerance, not on where the book's value falls within them;
    - otherwise ``reproduced`` iff ``|b - p| <= tol``;
    - otherwise ``same direction`` iff ``r`` is given, ``sign(p - r) == sign(b - r) != 0``,
      ``|p - r| > tol`` and ``|b - r| > tol``: book and paper both depart from "no effect",
      on the same side (a paper at no effect beside a book with one, or the reverse, differs);
    - otherwise ``differs``.

    The values are printed decimals read as floats, so ``<=`` allows for their rounding: a
    difference that exceeds the tolerance by less than 1e-9 of itself (``1 - 0.98`` is
    0.020000000000000018 against 0.02) is within it.

    References
    ----------
    The four papers of the book: CEI (Tables 3-4), FDR (Tables I-III), Beyond ROC-AUC and
    N-Sigma; their values are in ``biofair/data/paper_values.csv``.

    Examples
    --------
    >>> import pandas as pd
    >>> from biofair.reproduction import reproduction_ledger
    >>> values = pd.DataFrame({
    ...     "paper": "cei", "table": "Table 3", "quantity": ["DFI_N, BG", "GARBE_FMR, BI"],
    ...     "paper_value": [0.9983, 0.2950], "tolerance": [0.001, 0.05],
    ...     "expected": ["reproduced", "same direction"], "reason": ["", "fewer errors per group"],
    ...     "reference": [1.0, 0.0]})
    >>> ledger = reproduction_ledger("cei", "Table 3", {"DFI_N, BG": 0.998, "GARBE_FMR, BI": 0.61},
    ...                              values=values)
    >>> ledger["verdict"].tolist()
    ['reproduced', 'same direction']
    >>> reproduction_ledger("cei", "Table 3", {"DFI_N, BG": 0.9, "GARBE_FMR, BI": 0.61},
    ...                     values=values)
    Traceback (most recent call last):
    ...
    AssertionError: cei Table 3: 1 verdict differs from the expected: DFI_N, BG: paper 0.9983, book 0.9, tolerance 0.001: same direction, expected reproduced
    """
    values = _paper_values() if values is None else values
    missing_columns = [c for c in _COLUMNS if c not in values.columns]
    if missing_columns:
        raise ValueError(f"the papers' values lack the columns {missing_columns}; they need {list(_COLUMNS)}")
    rows = values[(values["paper"] == paper) & (values["table"] == table)]
    if rows.empty:
        raise KeyError(f"no values of {paper!r} {table!r} in the papers' values")
    given = pd.Series(book_values, dtype=object)
    # a boolean or numeric text is no number the book computed (pandas read True as 1.0 and "0.998" as 0.998);
    # a missing value (None, pd.NA) is a NaN, refused below
    not_numbers = {name: value for name, value in given.items()
                   if not (is_real_number(value) or value is None or value is pd.NA)}
    if not_numbers:
        shown = ", ".join(f"{quoted(name)}: {quoted(value)}" for name, value in list(not_numbers.items())[:3])
        raise TypeError(f"{paper} {table}: book values must be numbers (not booleans or text), got {shown}")
    # beyond the largest float (10**400) as infinite, refused below with the NaN (it raised OverflowError)
    book = given.map(lambda value: math.nan if value is None or value is pd.NA
                     else float_or_infinite(value)).astype(float)
    missing = sorted(set(rows["quantity"]) - set(book.index))
    extra = sorted(set(book.index) - set(rows["quantity"]))
    if missing or extra:
        raise KeyError(f"{paper} {table}: book values missing for {missing}, not in the paper: {extra}")
    unusable = book[~np.isfinite(book.to_numpy())]
    if len(unusable) or book.index.has_duplicates:
        problem = (f"not finite for {how_many(len(unusable), 'quantity', plural='quantities')}, "
                   f"e.g. {dict(list(unusable.items())[:3])}" if len(unusable)
                   else f"given twice for {sorted(set(book.index[book.index.duplicated()]))}")
        raise ValueError(f"{paper} {table}: book values {problem}; a value the book could not compute is no deviation")
    for column in ("paper_value", "tolerance", "reference"):
        # numbers or numeric text (a table read as text); a boolean is none (a tolerance of True read 1.0)
        needed = f"{paper} {table}: the papers' values must hold numbers in {column!r}"
        booleans = rows[column].map(lambda value: isinstance(value, (bool, np.bool_)))
        if booleans.any():
            first = rows.loc[booleans].iloc[0]
            raise ValueError(f"{needed}, not a boolean ({quoted(first[column])} for {quoted(first['quantity'])})")
        try:
            rows = rows.assign(**{column: pd.to_numeric(rows[column], errors="raise").astype(float)})
        except (TypeError, ValueError) as error:
            raise ValueError(f"{needed} ({error})") from None
    # a NaN paper value or tolerance, or a negative one, makes every row "differs" (an expected
    # deviation then passed unseen); a reference is optional (NaN) but never infinite
    malformed = ~np.isfinite(rows["paper_value"]) | ~(np.isfinite(rows["tolerance"]) & (rows["tolerance"] >= 0)) \
        | np.isinf(rows["reference"])
    if malformed.any():
        raise ValueError(
            f"{paper} {table}: every row needs a finite paper_value, a finite tolerance >= 0 and a finite or "
            f"empty reference; not so for {rows.loc[malformed, 'quantity'].tolist()}: correct the papers' values"
        )
    if rows["quantity"].duplicated().any():
        raise ValueError(f"{paper} {table}: the papers' values list "
                         f"{sorted(set(rows.loc[rows['quantity'].duplicated(), 'quantity']))} more than once")
    unknown = sorted(set(rows["expected"]) - set(_VERDICTS))
    if unknown:
        raise ValueError(f"expected verdicts must be among {_VERDICTS}, got {unknown}")
    deviations = ~rows["expected"].isin(_AGREEMENTS)
    unexplained = rows.loc[deviations & (rows["reason"].fillna("") == ""), "quantity"]
    if not unexplained.empty:
        raise ValueError(f"{paper} {table}: every expected deviation needs a reason: {unexplained.tolist()}")
    ledger = pd.DataFrame({
        "quantity": rows["quantity"].to_numpy(),
        "paper": rows["paper_value"].to_numpy(),
        "book": book.loc[rows["quantity"]].to_numpy(),
        "tolerance": rows["tolerance"].to_numpy(),
        "reference": rows["reference"].to_numpy(),
    })
    ledger["verdict"] = [
        _verdict(*row) for row in ledger[["paper", "book", "tolerance", "reference"]].itertuples(index=False)
    ]
    ledger["expected"] = rows["expected"].to_numpy()
    ledger["reason"] = rows["reason"].fillna("").to_numpy()
    if check:
        flipped = ledger[ledger["verdict"] != ledger["expected"]]
        if not flipped.empty:
            lines = [
                # every digit: a book value rounded for the message can read as within the tolerance
                f"{r.quantity}: paper {float(r.paper)!r}, book {float(r.book)!r}, tolerance {float(r.tolerance)!r}: "
                f"{r.verdict}, expected {r.expected}"
                for r in flipped.itertuples(index=False)
            ]
            differ = how_many(len(flipped), "verdict", verbs=("differs", "differ"))
            raise AssertionError(f"{paper} {table}: {differ} from the expected: " + "; ".join(lines))
    return ledger
