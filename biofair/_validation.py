"""Checks shared by every metric: arrays of scores, rates in [0, 1] and scalar options.

Every check raises an error that names the argument it was given, so that a user reads
biofair's message, never numpy's or pandas'.
"""

from __future__ import annotations

import json
import math
import numbers
import re
import shlex
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

#: Integers of larger magnitude cannot all be held exactly by float64: distinct scores
#: would become ties.
EXACT_INTEGER_LIMIT = 2**53


def inexact_integers(values: NDArray) -> NDArray[np.bool_]:
    """Mask of integer values that float64 cannot represent exactly (beyond ±2⁵³)."""
    if not np.issubdtype(values.dtype, np.integer):
        return np.zeros(values.shape, dtype=bool)
    if np.issubdtype(values.dtype, np.unsignedinteger):
        return values > EXACT_INTEGER_LIMIT
    return (values > EXACT_INTEGER_LIMIT) | (values < -EXACT_INTEGER_LIMIT)


def is_real_dtype(dtype: np.dtype | pd.api.extensions.ExtensionDtype) -> bool:
    """Whether an array or a table column of ``dtype`` (NumPy's, or pandas' own such as
    ``Float64``) holds real numbers: not booleans, text, objects, complex numbers (whose
    imaginary part a float64 cast would drop) or durations (NumPy counts timedelta64 among
    its integers, pandas does not: their values would depend on the unit)."""
    types = pd.api.types
    return types.is_numeric_dtype(dtype) and not types.is_bool_dtype(dtype) and not types.is_complex_dtype(dtype)


def unmasked(values: ArrayLike, name: str) -> NDArray:
    """``values`` as an array, refusing a masked array with masked entries, and numbers of a
    nullable dtype with missing ones (<NA>).

    ``np.asarray`` drops a mask and keeps whatever the masked entries hold, so a metric
    would count values the caller meant to leave out.
    """
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.array
    nullable = (isinstance(values, pd.api.extensions.ExtensionArray)
                and not isinstance(values, pd.arrays.NumpyExtensionArray))
    if nullable and values.dtype.kind in "iufb" and values.isna().any():
        # numbers of a nullable dtype (pandas' or Arrow's): NumPy reads their <NA> as NaN, or as masked
        raise ValueError(f"{name} holds {how_many(int(values.isna().sum()), 'missing value')} (<NA>): leave them out "
                         "(.dropna()) or fill them")
    if np.ma.is_masked(values):
        n_masked = int(np.ma.count_masked(values))
        raise ValueError(
            f"{name} is a masked array with {how_many(n_masked, 'masked value')}, which NumPy would pass on "
            "without their mask and a metric would count: leave them out (.compressed()) or fill them"
        )
    return np.asarray(values)


def as_scores(
    values: ArrayLike, name: str, *, keep_float32: bool = False, finite: bool = True, noun: str = "score",
    empty: bool = False,
) -> NDArray[np.floating]:
    """Return ``values`` as a 1-D float64 array of finite scores, or raise naming ``name``.

    With ``keep_float32``, float32 scores stay float32 (for metrics that only compare
    scores: half the memory, and the same results as on the same values in float64). With
    ``finite=False`` the scores may still hold NaN or infinities: the caller checks them
    with :func:`check_finite` (after sorting, a look at both ends suffices). ``noun`` names
    one of the values in the messages (``"performance value"``: values that are not
    comparison scores; plural with an "s"). With ``empty``, no values are returned as an empty
    array: the caller, which needs more than one, says how many.
    """
    array = unmasked(values, name)
    if array.dtype == object and array.ndim == 0:  # None, a set, a dict, a generator: NumPy holds it whole
        raise TypeError(f"{name} must be a sequence of {noun}s (a list, an array or a Series), got "
                        f"{type(values).__name__}" + ("; make it a list first, e.g. list(values)"
                                                      if isinstance(values, (set, frozenset, Iterator)) else ""))
    if not is_real_dtype(array.dtype):
        hint = ("; numbers held as Python objects are converted by numpy.asarray(values, dtype=float), text such as "
                "'0.5' by pandas.to_numeric" if array.dtype == object else "")
        raise TypeError(f"{name} must hold numeric {noun}s, got dtype {array.dtype}{hint}")
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size == 0 and not empty:
        raise ValueError(f"{name} is empty: at least one {'comparison score' if noun == 'score' else noun} is needed")
    inexact = inexact_integers(array)
    if inexact.any():
        raise ValueError(
            f"{name} has {how_many(int(inexact.sum()), f'integer {noun}')} beyond ±2^53 (e.g. {array[inexact][0]}) "
            f"that float64 cannot hold exactly: distinct {noun}s would become ties"
        )
    if problem := long_double_problem(array, name):
        raise ValueError(problem)
    array = array.astype(np.float32 if keep_float32 and array.dtype == np.float32 else np.float64, copy=False)
    return check_finite(array, name) if finite else array


def long_double_problem(values: NDArray, name: str) -> str:
    """What is wrong with long double scores in ``values`` that float64 does not hold exactly
    (more digits, or beyond its largest number), named ``name``; "" when there are none (and
    for any other dtype)."""
    if values.dtype.kind != "f" or values.dtype.itemsize <= 8:
        return ""
    inexact = _rounded_by_float64(values)
    if not inexact.any():
        return ""
    return (f"{name} has {how_many(int(inexact.sum()), 'long double score')} (e.g. {values[inexact][0]!r}) that "
            "float64 cannot hold exactly: distinct scores would become ties, or overflow; round them to float64 "
            "yourself if that is what you mean")


def check_finite(array: NDArray[np.floating], name: str) -> NDArray[np.floating]:
    """``array`` if every score is finite, else a ValueError counting NaN and infinities."""
    finite = np.isfinite(array)
    if not finite.all():
        n_nan = int(np.isnan(array).sum())
        n_inf = int((~finite).sum()) - n_nan
        raise ValueError(f"{name} contains {n_nan:,} NaN and {how_many(n_inf, 'infinite value')}: leave out the "
                         "comparisons without a finite score, or decide how to count them (as errors, a failure to produce "
                         "a score), before computing a metric")
    return array


def check_values_finite(array: NDArray[np.floating], name: str, *, advice: str) -> NDArray[np.floating]:
    """``array`` if every value is finite, else a ValueError naming the first that is not and
    ending with ``advice``: for values other than comparison scores (prior log-odds, per-subset
    performance values), which :func:`check_finite`'s advice on comparisons would mislead."""
    finite = np.isfinite(array)
    if not finite.all():
        bad = array[~finite]
        raise ValueError(f"{name} has {how_many(bad.size, 'value', verbs=('that is', 'that are'))} not finite "
                         f"(e.g. {quoted(bad[0])}): {advice}")
    return array


#: Whether each element of an array is text (str or bytes, NumPy's too).
_is_text = np.frompyfunc(lambda value: isinstance(value, (str, bytes)), 1, 1)

def is_real_number(value: object) -> bool:
    """Whether ``value`` is one real number: not a boolean (a Real to Python), a duration (an
    integer to NumPy), text, None or an array."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_, np.timedelta64))


#: Whether each element of an object array is a real number (not a boolean, None or text).
_is_real_number = np.frompyfunc(is_real_number, 1, 1)


def text_mask(values: NDArray) -> NDArray[np.bool_]:
    """Which elements of ``values`` are text (``"0.2"``, which ``astype(float)`` would read as a
    number); all False for an array of numbers."""
    if values.dtype.kind not in "OSU":
        return np.zeros(values.shape, dtype=bool)
    return np.asarray(_is_text(values), dtype=bool)


def as_rates(values: ArrayLike, name: str) -> NDArray[np.float64]:
    """Return ``values`` as a float64 array (any shape) of rates in [0, 1], or raise."""
    raw = unmasked(values, name)
    if (text := raw[text_mask(raw)]).size:
        # '0.01' is a number to float() (astype below), not to the scores' checks: refused alike
        raise TypeError(f"{name} must be a rate or an array of rates, got text (e.g. {text[:1].tolist()[0]!r}): "
                        "convert it to numbers first, e.g. with pandas.to_numeric")
    if not (is_real_dtype(raw.dtype) or raw.dtype == object):
        raise TypeError(f"{name} must be a rate or an array of rates, got {values!r}")
    if raw.dtype == object and (other := raw[~np.asarray(_is_real_number(raw), dtype=bool)]).size:
        # astype(float) reads None as NaN (refused as "not in [0, 1]") and True as the rate 1
        raise TypeError(f"{name} must be a rate or an array of rates, got {other[:1].tolist()[0]!r}"
                        + (" among them" if raw.ndim else ""))
    try:
        array = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a rate or an array of rates, got {values!r}") from None
    except OverflowError:  # a Python integer beyond the largest float64
        raise ValueError(f"{name} must lie in [0, 1], got an integer beyond the largest float64") from None
    bad = ~((array >= 0.0) & (array <= 1.0))  # also catches NaN
    if bad.any():
        raise ValueError(
            f"{name} must lie in [0, 1]; {how_many(int(bad.sum()), 'value', verbs=('does', 'do'))} not: "
            f"{array[bad][:5]}"
        )
    return array


def as_target(value: float, name: str = "fmr") -> NDArray[np.float64]:
    """One target rate as a 1-element float64 array, or raise (a sequence is a TypeError)."""
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be one target FMR, got {value!r}")
    return as_rates(value, name).reshape(1)


def as_targets(values: Sequence[float], name: str) -> NDArray[np.float64]:
    """Return a non-empty sequence of target rates as a 1-D float64 array, or raise."""
    if np.ndim(values) == 0 or isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of rates, e.g. [0.01], got {values!r}")
    array = as_rates(values, name)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty, flat sequence of rates, got {values!r}")
    return array


def _as_float(value: numbers.Real, name: str, interval: str) -> float:
    """``float(value)`` of a real number, or a ValueError naming ``name`` and its ``interval``
    for a Python integer beyond the largest float64 (Python's "int too large to convert to
    float" names neither)."""
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} must lie in {interval}, got an integer beyond the largest float64") from None


def as_number(
    value: float,
    name: str,
    *,
    low: float = -np.inf,
    high: float = np.inf,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """Return a real, finite ``value`` within the interval, or raise naming ``name``."""
    if not is_real_number(value):
        raise TypeError(f"{name} must be a number, got {value!r}")
    # the value must be finite: an infinite end of the interval is an open one
    interval = f"{'(' if open_low or low == -np.inf else '['}{low:g}, {high:g}{')' if open_high or high == np.inf else ']'}"
    number = _as_float(value, name, interval)
    inside = (low < number if open_low else low <= number) and (
        number < high if open_high else number <= high
    )
    if not (np.isfinite(number) and inside):
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return number


#: Why a threshold that float64 does not hold exactly is refused (SPEC 1: match iff score >= threshold).
_ROUNDED_THRESHOLD = ("a comparison whose score lies between the two would be decided otherwise; give the "
                      "threshold as a float64 number")


def float_or_infinite(value: numbers.Real) -> float:
    """``float(value)``, or ``±inf`` for a number beyond the largest float64 that Python's
    ``float`` refuses (an integer or a fraction: "int too large to convert to float")."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def as_threshold(value: float, name: str = "threshold") -> float:
    """Return a decision threshold: a real number, ``±inf`` allowed, never NaN, and held
    exactly by float64 (an integer beyond 2**53 or a long double or fraction with more digits
    would be decided as its rounding; an integer beyond the largest float is above or below
    every score, as ``±inf``). A 0-d array is its one number, as for a target."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not is_real_number(value):
        raise TypeError(f"{name} must be a number, got {quoted(value)}")
    threshold = float_or_infinite(value)  # an integer beyond the largest float64: every score is below (or above) it
    if math.isnan(threshold):
        raise ValueError(f"{name} is NaN: no comparison can be decided against it")
    if math.isfinite(threshold) and threshold != value:  # an exact comparison (Python's and NumPy's)
        raise ValueError(f"{name}={quoted(value)} is not a float64 number: float64 holds it as {threshold!r}, and "
                         + _ROUNDED_THRESHOLD)
    return threshold


def as_thresholds(thresholds: ArrayLike, *, flat: bool = False, decided: str = "comparison") -> NDArray[np.float64]:
    """Decision thresholds as float64 (``±inf`` allowed, never NaN), or raise.

    With ``flat``, for the functions that give a row per threshold, one number or a
    non-empty, flat sequence, returned 1-D. ``decided``: what the NaN message says cannot
    be decided against a NaN threshold (a comparison, or a probe).
    """
    raw = unmasked(thresholds, "thresholds")
    if not is_real_dtype(raw.dtype):
        raise TypeError(f"thresholds must be numbers, got {thresholds!r}")
    if flat and (raw.ndim > 1 or raw.size == 0):
        raise ValueError(f"thresholds must be one number or a non-empty, flat sequence, got shape {raw.shape}")
    with np.errstate(over="ignore"):  # a long double beyond the largest float64: inf, refused below
        values = np.atleast_1d(raw.astype(np.float64)) if flat else raw.astype(np.float64)
    n_nan = int(np.isnan(values).sum())
    if n_nan:
        raise ValueError(f"thresholds has {how_many(n_nan, 'NaN value')}: no {decided} can be decided against "
                         + ("it" if n_nan == 1 else "them"))
    inexact = np.atleast_1d(_rounded_by_float64(raw))
    if inexact.any():
        first = np.atleast_1d(raw)[inexact][0]
        raise ValueError(f"thresholds has {how_many(int(inexact.sum()), 'value')} that float64 does not hold exactly "
                         f"(e.g. {quoted(first)}, held as {float(first)!r}): " + _ROUNDED_THRESHOLD)
    return values


def _rounded_by_float64(raw: NDArray) -> NDArray[np.bool_]:
    """Which values of ``raw`` float64 does not hold exactly: integers beyond ±2**53 that are
    not multiples of its spacing there (compared in Python: NumPy would compare them as
    floats), long doubles with more digits or beyond the largest float64."""
    if raw.dtype.kind in "iu":
        beyond = np.atleast_1d(inexact_integers(raw))
        beyond[beyond] = [int(v) != float(v) for v in np.atleast_1d(raw)[beyond].tolist()]
        return beyond.reshape(raw.shape)
    if raw.dtype.kind == "f" and raw.dtype.itemsize > 8:
        with np.errstate(over="ignore"):
            return np.isfinite(raw) & (raw.astype(np.float64) != raw)
    return np.zeros(raw.shape, dtype=bool)


def as_count(value: int, name: str, *, minimum: int = 1) -> int:
    """Return an integer ``value >= minimum``, or raise naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def as_rng(rng: np.random.Generator | int | None, name: str = "rng") -> np.random.Generator:
    """A numpy Generator from a Generator, a non-negative integer seed or None: a TypeError
    for anything else, a ValueError for a negative seed."""
    if rng is None or isinstance(rng, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)):
        return np.random.default_rng(rng)
    if not isinstance(rng, numbers.Integral) or isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"{name} must be a numpy Generator, a non-negative integer seed or None, got {rng!r}")
    if rng < 0:
        raise ValueError(f"{name} must be a non-negative integer seed (or a numpy Generator, or None), got {rng}")
    return np.random.default_rng(int(rng))


def power_of_two_exponent(*arrays: NDArray[np.float64]) -> int:
    """The exponent ``e`` that :func:`power_of_two_scaled` divides by (``2^e``); 0 for none."""
    largest = max(max(float(a.max()), -float(a.min())) for a in arrays)
    return int(power_of_two_exponents(np.array([largest]))[0])


def power_of_two_exponents(largest: NDArray[np.float64]) -> NDArray[np.int64]:
    """For each largest magnitude, the exponent that brings it into ``[0.5, 1)`` when it lies
    outside ``[2^-500, 2^500]``, else 0 (as for 0): the rule of :func:`power_of_two_exponent`,
    value by value (per group, out of core)."""
    inside = (largest == 0.0) | ((largest >= 2.0**-500) & (largest <= 2.0**500))
    return np.where(inside, 0, np.frexp(largest)[1]).astype(np.int64)


def power_of_two_scaled(*arrays: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    """The arrays times one power of two that brings their largest magnitude into [0.5, 1),
    when it lies outside [2^-500, 2^500]; otherwise the arrays themselves.

    Scaling by a power of two is exact, so statistics that are invariant to scale (d',
    standardised tails) come out the same, and squares of scores near ±1.8e308 do not
    overflow nor those of subnormal scores (1e-310) vanish.
    """
    exponent = power_of_two_exponent(*arrays)
    if exponent == 0:
        return arrays
    return tuple(np.ldexp(a, -exponent) for a in arrays)


def scalar_or_array(values: NDArray, like: ArrayLike) -> float | NDArray:
    """Return a Python float when the request ``like`` was a scalar, else the array."""
    return float(values) if np.ndim(like) == 0 else values


#: The smallest FMR bound the areas take: the smallest normal float, 2**-1022. Below it,
#: the ratios of FMRs the log-FMR area takes overflow and the products the partial area
#: takes lose digits (and no score set resolves such an FMR).
SMALLEST_BOUND = float(np.finfo(np.float64).smallest_normal)


def check_bound(value: float, name: str) -> float:
    """``value`` as a float, if it is an FMR bound in [2**-1022, 1] (see :data:`SMALLEST_BOUND`)."""
    if not is_real_number(value):
        raise TypeError(f"{name} must be a number, got {value!r}")
    bound = _as_float(value, name, "[2**-1022, 1]")
    if not SMALLEST_BOUND <= bound <= 1.0:  # NaN included
        why = (f": 2**-1022 = {SMALLEST_BOUND!r} is the smallest normal float, the areas divide by the bound, and "
               "no score set resolves a smaller FMR" if 0.0 < bound < SMALLEST_BOUND else "")
        raise ValueError(f"{name} must lie in [2**-1022, 1], got {value!r}{why}")
    return bound


def check_alpha(alpha: float) -> float:
    """``alpha``, the weight of the first differential, if it is a number in [0, 1]."""
    return as_number(alpha, "alpha", low=0.0, high=1.0)


#: More bins than this holds one count per bin and group for no gain in resolution: a
#: score histogram of ten million comparisons has at most ten million non-empty bins.
MAX_BINS = 1_000_000


def check_bins(bins: int) -> int:
    """``bins`` as an int, if it is an integer in [1, MAX_BINS]."""
    count = as_count(bins, "bins")
    if count > MAX_BINS:
        raise ValueError(
            f"bins must be at most {MAX_BINS:,}, got {count:,}: every group holds one count per bin"
        )
    return count


def check_column_name(value: str, name: str) -> str:
    """``value``, if it is a column name (a string): a list or None would fail inside pandas,
    with a message (such as "unhashable type: 'list'") that names no argument."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a column name, got {value!r}")
    return value


def check_flag(value: bool, name: str) -> bool:
    """``value`` as a bool if it is one (NumPy's too), else a TypeError naming the option."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_choice(value: str | None, name: str, choices: tuple[str | None, ...]) -> str | None:
    """``value`` if it is one of ``choices``, else a ValueError naming the option."""
    # an array of one choice passed ``in`` (NumPy compares it element-wise): kind=np.array(["mated"]) then
    # failed as "attribute name must be string", and several choices as NumPy's "truth value ... is ambiguous"
    if not (value is None or isinstance(value, str)) or value not in choices:
        listed = ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}"
        raise ValueError(f"{name} must be {listed}, got {value!r}")
    return value


def fewest_resamples(confidence: float) -> int:
    """The fewest bootstrap resamples ``B`` whose percentile interval at ``confidence`` has a
    resample beyond each end: ``B·(1 - confidence)/2 >= 1`` (40 at 95 %). With fewer, an end
    is the most extreme resample, and one resample gives an interval of zero width that can
    exclude its own estimate."""
    # in the decimal the user wrote: 1 - 0.95 is 0.050000000000000044, and 0.9999 asked for 20,001
    return math.ceil(2 / (1 - Fraction(repr(float(confidence)))))


def too_few_resamples(n_resamples: int, confidence: float) -> str:
    """Why ``n_resamples`` are too few for intervals at ``confidence`` ("" when they are not)."""
    fewest = fewest_resamples(confidence)
    if n_resamples >= fewest:
        return ""
    return (f"too few for {percent(confidence)} intervals: give at least {fewest}, so that each "
            "interval has a resample beyond each end (1,000 or more for ends that change little from seed to seed)")


def percent(share: float) -> str:
    """``share`` as a percentage with the digits it has: ``"95%"``, ``"99.9%"`` (not ``"100%"``, as
    format ``".0%"`` writes it), ``"0.1%"`` for ``1 - 0.999`` (not ``"0%"``)."""
    return f"{round(100 * share, 10):g}%"


def check_resamples(n_resamples: int, confidence: float) -> None:
    """Raise a ValueError naming ``n_resamples`` when they are too few for intervals at
    ``confidence`` (:func:`too_few_resamples`)."""
    if too_few := too_few_resamples(n_resamples, confidence):
        raise ValueError(f"n_resamples={n_resamples} is {too_few}")


def is_blank(value: object) -> bool:
    """Whether a label or an id is text that is empty or white space only: it names nothing, as
    an empty cell, which pandas reads from a file as missing (but keeps as "" in a DataFrame)."""
    return isinstance(value, str) and not value.strip()


def how_many(count: int, noun: str, *, plural: str | None = None, verbs: tuple[str, str] | None = None) -> str:
    """``count`` and ``noun`` as a message writes them: the noun (its ``plural``, by default
    with an "s", unless the count is 1), the count with thousands separators, then the first of
    ``verbs`` for 1 and the second otherwise (``"1 missing value"``, ``"1,234 missing values"``;
    with ``verbs=("has", "have")``, ``"1 subject has"``, ``"2 subjects have"``)."""
    one = count == 1
    words = f"{count:,} {noun if one else plural or noun + 's'}"
    return words if verbs is None else f"{words} {verbs[0] if one else verbs[1]}"


def shell_option(option: str, value: object) -> str:
    """``option value`` as a message suggests it for a command line: the value quoted where a
    shell would split or expand it (``--by 'age group'``), and joined by ``=`` where it starts
    with a dash (``--by=--by``), which argparse would read as an option of its own."""
    value = shlex.quote(str(value))
    return f"{option}={value}" if value.startswith("-") else f"{option} {value}"


#: What a shell expands or ends inside double quotes: ", $, a backtick, ! (bash's history) and a
#: backslash before one of them, another, or the end.
_DOUBLE_QUOTED_SPECIAL = re.compile(r'["$`!]|\\(?=[\\"$`\n]|$)')


def python_command(code: str) -> str:
    """``python -c`` with ``code`` as a message suggests it for a shell: in double quotes
    (``python -c "import pandas as pd; ..."``, its Python strings in single quotes, paths and
    names written with ``repr``), or, if the code holds a character a shell would expand or end
    there (a path's ``"``, ``$``, backtick, ``!`` or backslash), quoted whole by :func:`shlex.quote`."""
    return f"python -c {shlex.quote(code)}" if _DOUBLE_QUOTED_SPECIAL.search(code) else f'python -c "{code}"'


def quoted(value: object, *, written: Callable[[object], str] = repr) -> str:
    """``value`` as a message quotes it (``written(value)``, by default its ``repr``): text of
    more than 60 characters by its first 60, an ellipsis and its length (``'xxx…' (2,097,152
    characters)``), so that one label or id of a file cannot fill a message. A NumPy scalar
    is quoted as the Python value it holds (``315``, not ``np.int64(315)``)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str) and len(value) > 60:
        return f"{written(value[:60] + '…')} ({len(value):,} characters)"
    return written(value)


def check_subject_in_every_row(subjects: pd.Series, cluster: str, *, instead: str | None = "unit='pair'") -> None:
    """Raise a ValueError when the subject column ``cluster``, whose comparisons a resampling
    or a shuffle keeps together, has missing values: ``pd.factorize`` codes them -1, which
    would be rows of the last subject, or a negative count to ``np.bincount``. Ids that are
    text, empty or white space only, name no subject either (a file's empty cell is read as
    missing): they would be one subject of every such row. ``instead``: the option that takes
    comparisons as the units, which the message suggests (None where the caller has none)."""
    missing = int(subjects.isna().sum())
    blank = 0
    if subjects.dtype.kind not in "biufcmM":  # ids that can be text: object, pandas' str, categories
        blanks = [value for value in subjects.dropna().unique() if is_blank(value)]
        blank = int(subjects.isin(blanks).sum()) if blanks else 0
    if missing or blank:
        raise ValueError(
            f"unit='subject' needs a subject in every row: column {cluster!r} has {missing + blank} missing "
            "values" + (f" ({blank} of them blank: empty or white space only)" if blank else "")
            + "; fill them (a subject each)" + (f" or use {instead}" if instead else "")
        )


def strict_json(document: object, *, indent: int) -> str:
    """``document`` as strictly valid JSON (RFC 8259): NaN as ``null`` (missing), ±inf as the
    strings ``"Infinity"`` and ``"-Infinity"`` (``float()`` in Python and ``Number()`` in
    JavaScript read them back), in dicts, lists and tuples at any depth, NumPy floats
    included. ``json.dumps`` with ``allow_nan=False`` writes it, so a non-finite number that
    escapes this mapping raises ValueError instead of writing ``Infinity`` or ``NaN``, which
    no strict parser (jq, ``JSON.parse``) reads."""

    def ready(value: object) -> object:
        if isinstance(value, dict):
            return {key: ready(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [ready(item) for item in value]
        if isinstance(value, (float, np.floating)) and not math.isfinite(value):
            return None if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return value

    return json.dumps(ready(document), indent=indent, allow_nan=False)
