"""Bootstrap intervals for any statistic, and paired comparisons of two systems.

Read more in the chapter "Put an interval on every number" (``notebooks/02``).

How a statistic takes its data is said by the caller (``data="arrays"`` or ``"table"``),
and a statistic takes a faster path only by declaring one: the *fast-path protocol*. A
callable that carries an attribute ``bootstrap_replicates`` is called, when
``data="arrays"``, as::

    statistic.bootstrap_replicates(mated, nonmated, *args, n_resamples=B, rng=rng,
                                   clusters=clusters, progress_bar=progress_bar)

with the validated score arrays (in table order), ``clusters=None`` for ``unit="pair"`` or
``(mated_clusters, nonmated_clusters)``, the integer cluster code of every comparison, for
``unit="subject"``, and the caller's ``progress_bar`` (None: a bar only on a terminal). It
returns ``B`` replicates whose law is that of the statistic on the resamples
:func:`biofair.bootstrap` would draw for the same unit. For ``method="bca"``, a
statistic may also carry ``jackknife_replicates``, called as::

    statistic.jackknife_replicates(mated, nonmated, *args, clusters=clusters)

It returns, per independently resampled sample (``"pair"``: the mated comparisons, then
the non-mated ones; ``"subject"``: the clusters), ``(values, counts)``: ``counts[i]`` of the
sample's units, each left out in turn, give the statistic ``values[i]``, exactly the
values of the plain jackknife, grouped. :func:`biofair.tmr_at_fmr` and :func:`biofair.roc_auc`
declare both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._resampling import (
    Sample,
    Scores,
    check_progress_bar,
    evaluated,
    interval,
    jackknife_rows,
    resample_rows,
)
from biofair._typing import By, IntervalMethod, Seed, StatisticData, Unit
from biofair._validation import as_count, as_number, as_rng, check_choice, check_resamples, how_many
from biofair.schema import _DEFAULT_CLUSTER, _check_cluster_name, _check_ids_of_one_kind, _resampled_cluster


class BootstrapResult(NamedTuple):
    """A statistic with its bootstrap interval.

    Returned by :func:`biofair.bootstrap`.

    Attributes
    ----------
    estimate : float
        The statistic on all the data.
    low : float
        Lower end of the interval.
    high : float
        Upper end of the interval.
    confidence : float
        Coverage the interval was made for.
    n_resamples : int
        Bootstrap resamples B.
    unit : str
        What was resampled: ``"pair"`` or ``"subject"``.
    method : str
        How the interval was read from the replicates: ``"percentile"`` or ``"bca"``.
    replicates : ndarray
        The statistic on each resample.

    See Also
    --------
    biofair.bootstrap : The function that returns it.
    biofair.PairedResult : The result of a paired comparison.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.gaussian_scores(n_mated=200, n_nonmated=2_000, rng=0)
    >>> result = bf.bootstrap(bf.roc_auc, table, n_resamples=200, rng=0)
    >>> bool(result.low <= result.estimate <= result.high), result.unit, result.method
    (True, 'pair', 'percentile')
    """

    estimate: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    unit: str
    method: str
    replicates: NDArray[np.float64]


class PairedResult(NamedTuple):
    """The difference ``m(A) - m(B)`` of two systems on one trial list, with its interval.

    Returned by :func:`biofair.paired_bootstrap`.

    Attributes
    ----------
    difference : float
        ``m(A) - m(B)`` on all the data.
    low : float
        Lower end of the interval of the difference.
    high : float
        Upper end of the interval of the difference.
    p_greater : float
        Share of resamples with ``m(A) > m(B)``.
    confidence : float
        Coverage the interval was made for.
    n_resamples : int
        Bootstrap resamples B.
    unit : str
        What was resampled: ``"pair"`` or ``"subject"``.
    method : str
        How the interval was read from the replicates: ``"percentile"`` or ``"bca"``.
    replicates : ndarray
        The difference on each resample.
    significant : bool
        True when the interval excludes 0.

    See Also
    --------
    biofair.paired_bootstrap : The function that returns it.
    biofair.ranking_flips : Reads several of them together.

    Examples
    --------
    >>> import biofair as bf
    >>> a = bf.synthetic.gaussian_scores(n_mated=200, n_nonmated=2_000, rng=0)
    >>> b = a.assign(score=a["score"] * 0.5)  # the same ranking of comparisons
    >>> result = bf.paired_bootstrap(bf.roc_auc, a, b, n_resamples=50, rng=0)
    >>> result.difference, result.significant
    (0.0, False)
    """

    difference: float
    low: float
    high: float
    p_greater: float
    confidence: float
    n_resamples: int
    unit: str
    method: str
    replicates: NDArray[np.float64]

    @property
    def significant(self) -> bool:
        """True when the interval excludes 0."""
        return self.low > 0 or self.high < 0


def _check(n_resamples: int, confidence: float, method: str, unit: str | None, cluster: object, args: object,
           progress_bar: object) -> tuple[int, float]:
    """Check the options; return ``n_resamples`` as an int and ``confidence`` as a float (a
    Fraction reached NumPy as an object array, which its functions refuse)."""
    if not isinstance(args, (tuple, list)):  # 1e-3 failed as "Value after * must be an iterable", "ab" gave 2
        raise TypeError(f"args must be a tuple of the statistic's further arguments, e.g. args=(1e-3,), got {args!r}")
    check_progress_bar(progress_bar)  # also where a fast path shows no bar
    n_resamples = as_count(n_resamples, "n_resamples")
    confidence = as_number(confidence, "confidence", low=0.0, high=1.0, open_low=True, open_high=True)
    check_choice(method, "method", ("percentile", "bca"))
    check_choice(unit, "unit", ("pair", "subject", None))  # worded as every function that takes a unit
    _check_cluster_name(cluster, unit)
    check_resamples(n_resamples, confidence)  # else an end would be the most extreme resample
    return n_resamples, confidence


def _unit(scores: Scores, unit: Unit | None, cluster: str) -> Unit:
    """The resampling unit: ``unit`` when given; by default ``"subject"`` when the scores are a
    table with the ``cluster`` column, else ``"pair"`` (arrays, or a table without subject ids).
    A ``cluster`` other than the default with arrays, which have no columns, is refused (a
    misspelt name went unread), as a table refuses one that names none of its columns."""
    if not isinstance(scores, pd.DataFrame) and cluster != _DEFAULT_CLUSTER:
        raise ValueError(
            f"cluster={cluster!r} names a column of a score table, but the scores are (mated, nonmated) arrays, "
            "which hold no subject ids: give the table to resample its subjects (unit='subject'), or leave cluster out"
        )
    if unit is not None or not isinstance(scores, pd.DataFrame):
        return unit or "pair"
    return "pair" if _resampled_cluster(scores, None, cluster) is None else "subject"


def _defined(replicates: NDArray[np.float64], hint: str = "") -> NDArray[np.float64]:
    """The replicates, if the statistic is defined and finite on every resample (an infinite
    value made an end of the interval NaN)."""
    undefined, infinite = int(np.isnan(replicates).sum()), int(np.isinf(replicates).sum())
    if undefined or infinite:
        what = " and ".join(f"{kind} on {count}" for kind, count in (("NaN", undefined), ("infinite", infinite)) if count)
        raise ValueError(
            f"the statistic is {what} of {replicates.size} resamples, so no interval can be read "
            f"from them; make it defined and finite on every resample{hint}"
        )
    return replicates


def _finite(estimate: float, where: str = "all the data") -> float:
    """The statistic's value on all the data, if it is a finite number (a NaN estimate came
    back beside a finite interval without a word)."""
    if not math.isfinite(estimate):
        kind = "NaN" if math.isnan(estimate) else "infinite"
        raise ValueError(f"the statistic is {kind} on {where}, so there is no estimate to put an interval on; "
                         "make it defined and finite")
    return estimate


def _fast_replicates(statistic: Callable, sample: Sample, args: tuple, n_resamples: int,
                     rng: np.random.Generator, progress_bar: bool | None) -> NDArray[np.float64] | None:
    """The replicates of a statistic that declares the fast-path protocol, else None."""
    fast = getattr(statistic, "bootstrap_replicates", None)
    if fast is None or sample.data != "arrays":
        return None
    return np.asarray(fast(*sample.classes(), *args, n_resamples=n_resamples, rng=rng, clusters=sample.class_clusters(),
                           progress_bar=progress_bar), dtype=np.float64)


def _fast_jackknife(statistic: Callable, sample: Sample, args: tuple) -> list[tuple[NDArray, NDArray]] | None:
    """The leave-one-out values of a statistic that declares ``jackknife_replicates``, else None."""
    fast = getattr(statistic, "jackknife_replicates", None)
    if fast is None or sample.data != "arrays":
        return None
    return [(np.asarray(values, dtype=np.float64), np.asarray(counts))
            for values, counts in fast(*sample.classes(), *args, clusters=sample.class_clusters())]


def bootstrap(
    statistic: Callable[..., float],
    scores: Scores,
    *,
    args: tuple = (),
    data: StatisticData = "arrays",
    method: IntervalMethod = "percentile",
    n_resamples: int = 1000,
    unit: Unit | None = None,
    cluster: str = "reference_subject",
    strata: By | None = None,
    confidence: float = 0.95,
    rng: Seed = None,
    progress_bar: bool | None = None,
) -> BootstrapResult:
    """Bootstrap interval of any statistic of the package.

    Read more in the chapter "Put an interval on every number".

    Parameters
    ----------
    statistic : callable
        Returns a float: ``statistic(mated, nonmated, *args)`` with ``data="arrays"``,
        ``statistic(table, *args)`` with ``data="table"``. A statistic that declares the
        fast-path protocol (see Notes), such as :func:`biofair.tmr_at_fmr`, takes it.
    scores : pandas.DataFrame or (mated, nonmated)
        The data; a table is required for ``unit="subject"`` and ``data="table"``.
    args : tuple, default ()
        Further positional arguments of the statistic, e.g. ``(1e-3,)`` for
        ``bf.tmr_at_fmr`` at FMR = 1e-3.
    data : {"arrays", "table"}, default "arrays"
        How the statistic takes its data: the mated and non-mated score arrays, or the
        (resampled) score table.
    method : {"percentile", "bca"}, default "percentile"
        ``"percentile"``: the ``(1-confidence)/2`` and ``(1+confidence)/2`` quantiles of the
        replicates. ``"bca"``: bias-corrected and accelerated quantiles (Efron), the
        acceleration from a jackknife over the resampling units; it evaluates the statistic
        once more per unit (every comparison for ``unit="pair"``, every cluster for
        ``"subject"``), unless the statistic declares its leave-one-out values (see Notes).
        Beyond 1,000 units of a class (or stratum) it leaves them out in 1,000 groups
        instead (the grouped jackknife), so that at most 1,000 evaluations per class are made.
    n_resamples : int, default 1000
        Bootstrap resamples B, at least ``2 / (1 - confidence)`` (40 at 95%), so that each
        end of the interval has a resample beyond it.
    unit : {"pair", "subject"}, optional
        ``"pair"`` resamples comparisons within each class; ``"subject"`` resamples the
        clusters of ``cluster`` with replacement and keeps all their comparisons
        (identity-clustered). By default ``"subject"`` when the scores are a table with the
        ``cluster`` column, else ``"pair"``. Resampling pairs assumes the comparisons are
        independent: when subjects recur in many of them, its interval is too narrow and
        covers far less than ``confidence`` (the chapter "Audit demographic differentials"
        measures how much).
    cluster : str, default "reference_subject"
        Column whose values define the clusters for ``unit="subject"``: every comparison,
        mated or not, belongs to the cluster of its reference subject.
    strata : str or sequence of str, optional
        Attribute(s) whose groups are resampled separately (groups as
        :func:`biofair.group_labels` forms them; cross-group non-mated pairs are a stratum of
        their own), and within each group its mated and its non-mated comparisons: each
        keeps its number of comparisons (``unit="pair"``) or of clusters (``"subject"``,
        where a cluster is then a subject's comparisons of one class in one group, so the
        tie between a subject's mated and non-mated scores is not kept). For statistics
        that compare groups: no resample loses a group, or a class of a small group. Needs
        a table.
    confidence : float, default 0.95
        Coverage of the interval.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed; the same seed gives the same result, bit for bit.
    progress_bar : bool, optional
        Show a progress bar; by default only on an interactive terminal.

    Returns
    -------
    BootstrapResult
        ``estimate`` (the statistic on all data), the interval ``[low, high]``,
        ``confidence``, ``n_resamples``, ``unit``, ``method`` and the ``replicates``.

    Raises
    ------
    ValueError
        When ``n_resamples`` is below ``2 / (1 - confidence)``, ``confidence`` lies outside
        (0, 1), or ``data``, ``method`` or ``unit`` is not one of its choices; when a score
        array is empty, is not one-dimensional, or holds a NaN or infinite score, a masked
        value or an integer beyond ``±2**53``, or a table is invalid (a ``SchemaError``, as
        from :func:`biofair.validate_scores`, also for a ``strata`` group column that is
        missing or incomplete); when the statistic is NaN or infinite on all the data or on
        some resample (no interval can be read), for ``method="bca"`` when it is so with a
        unit left out or when the interval is undefined (every replicate on one side of the
        estimate, a jackknife that does not vary, or ``1 - a (z0 + z) <= 0`` at an end, where
        the adjusted level wraps around), or for ``unit="subject"`` when the scores are not a
        table with the ``cluster`` column, the cluster column has missing values or a single
        subject, or mixes numbers and text (a ``SchemaError``: ``1`` and ``"1"`` would be two
        subjects), or a resample of subjects draws no mated or no non-mated comparison; when,
        ``unit`` left to its default, ``cluster`` (not the default) names no column of the table
        (a ``SchemaError``); when ``cluster`` (not the default) is given with arrays, which have
        no columns; or when ``rng`` is a negative seed.
    TypeError
        When ``scores`` is neither a DataFrame nor a ``(mated, nonmated)`` pair, a score array
        does not hold real numbers, ``data="table"`` or ``strata`` is given with arrays, the
        statistic is not callable or does not return a number, ``n_resamples`` is not an
        integer, ``confidence`` is not a number, ``cluster`` is not a column name, ``rng`` is
        neither a Generator, an integer seed nor None, ``args`` is not a tuple (or list), or
        ``progress_bar`` is not True, False or None.

    Warns
    -----
    InsufficientComparisonsWarning
        When the statistic on all the data warns for a target it cannot resolve; the
        resamples, which have as many comparisons or about as many, do not repeat it.

    See Also
    --------
    biofair.paired_bootstrap : The difference of a statistic between two systems.
    biofair.permutation_null : The value of a fairness index when groups do not matter.
    biofair.partitions.poisson_bootstrap : Intervals over a partitioned score set.

    Notes
    -----
    The options are explicit, as those of ``scipy.stats.bootstrap``: nothing is guessed.
    Fast path: a statistic that carries ``bootstrap_replicates`` (see the module notes for
    the protocol) gives the replicates itself when ``data="arrays"`` and no ``strata`` are given, from laws that equal
    the resampling plan's; nothing is inferred from its signature or type.
    ``bf.tmr_at_fmr`` draws them without re-sorting, for both units::

        bf.bootstrap(bf.tmr_at_fmr, table, args=(1e-3,), unit="subject")

    A lambda wrapping it has no such attribute and takes the plain path (same law, slower).
    For ``unit="pair"`` it draws two order statistics of the non-mated resample per
    replicate (earlier versions of the package counted every draw near the threshold): the
    same law, but a seed now gives other replicates than those versions did. Its BCa
    acceleration uses the exact leave-one-out values in closed form for pairs (two values
    for the mated scores, at most a few distinct thresholds for the non-mated ones) and one
    weighted pass per cluster for subjects, so ``method="bca"`` costs about as much as
    ``"percentile"``. ``bf.roc_auc`` sorts each class once and reads every resample's area
    from cumulative sums of how often each comparison was drawn, with the plain path's
    draws: a seed gives the plain path's replicates, faster (at 1.1 million comparisons and
    200 resamples on two cores, 7 times for pairs and 20 times for subjects; the gain grows
    with the resamples, as the sort is done once).
    Its leave-one-out values come in closed form from each score's Mann-Whitney credit, for
    both units: its BCa interval needs no evaluation per comparison, which made it
    quadratic (41 s at 30,000 comparisons). Any other statistic (the EER, minDCF)
    is evaluated once per left-out unit, or per left-out group beyond 1,000 units: the
    jackknife then leaves out 1,000 groups drawn at random (a permutation of the units' ranks
    in their class's score order, or of the clusters in their sorted order, fixed by their
    number: the same groups on every call), and each group counts as one unit in the
    acceleration, as in Efron and Narasimhan's grouped jackknife. Exact leave-one-out took
    10 s for the EER of 11,000 comparisons, and about 17 minutes at 110,000.

    Coverage is not guaranteed by the name of the interval. The ROCCH EER (the default of
    :func:`biofair.eer`) is biased low on small samples (the hull lies above the empirical
    ROC), and a percentile interval, which centres its replicates on the estimate, repeats
    the bias: for 100 mated and 1,000 non-mated normal scores (d' = 2), 95% percentile
    intervals held the true EER in about 87% of 300 simulated test sets
    (``tests/unit/test_uncertainty.py`` checks it); the bias shrinks as the sample grows.
    BCa's bias correction targets this shift, at the cost of a jackknife; it is no guarantee
    either: for 60 mated and 90 non-mated such scores its 95% interval held the true EER in
    905 of 1,000 simulated sets (the replicates sit about half the estimate's bias below it,
    so the correction sees half the bias), and for thresholds at a target FMR it did no
    better. BCa counts a replicate equal to the estimate as half below it (as
    ``scipy.stats.bootstrap``), and one within a relative 100 ulp of it as equal (the slack of
    :func:`biofair.permutation_null`: a mean of the same scores summed in another order); a
    statistic that takes the same value whichever unit is left out (the midpoint EER of a
    small sample, now and then) has no BCa interval. A class (or stratum) of one unit adds
    nothing to the acceleration (its ``u`` has the factor ``n - 1 = 0``) and is not left out.

    References
    ----------
    B. Efron and R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993
    (percentile and BCa intervals, eq. 14.10 and 14.15). B. Efron and B. Narasimhan, "The
    automatic construction of bootstrap confidence intervals", Journal of Computational and
    Graphical Statistics 29, 2020 (the grouped jackknife of their bcajack). Beyond ROC-AUC:
    Operating-Point Performance Reporting for Biometric Verification (intervals on every metric).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.gaussian_scores(n_mated=500, n_nonmated=5_000, rng=0)
    >>> result = bf.bootstrap(bf.tmr_at_fmr, table, args=(1e-2,), n_resamples=500, rng=1)
    >>> round(result.estimate, 3), round(result.low, 3), round(result.high, 3), result.unit
    (0.368, 0.292, 0.412, 'pair')
    """
    n_resamples, confidence = _check(n_resamples, confidence, method, unit, cluster, args, progress_bar)
    unit = _unit(scores, unit, cluster)
    rng = as_rng(rng)
    sample = Sample(scores, data=data, cluster=cluster if unit == "subject" else None, strata=strata)
    estimate = _finite(sample.evaluate(statistic, args))  # validates the data and the targets, and warns
    replicates = None if strata is not None else _fast_replicates(statistic, sample, args, n_resamples, rng, progress_bar)
    if replicates is None:
        plan = resample_rows(sample, unit, n_resamples, rng)
        replicates = sample.replicates(statistic, args, plan, total=n_resamples, desc="bootstrap", show=progress_bar)

    def jackknife() -> list[tuple[NDArray, NDArray | None]]:
        fast = None if strata is not None else _fast_jackknife(statistic, sample, args)
        if fast is not None:
            return fast
        return [(sample.replicates(statistic, args, plan, total=len(plan), desc="jackknife", show=progress_bar), None)
                for plan in jackknife_rows(sample, unit)]

    replicates = _defined(replicates, " (strata= keeps every group in each resample)" if strata is None else "")
    low, high = interval(replicates, estimate, jackknife, method=method, confidence=confidence)
    return BootstrapResult(estimate, low, high, confidence, n_resamples, unit, method, replicates)


#: Columns that name a trial: two systems scored on one trial list agree on them, row by row.
_TRIAL_COLUMNS = ("reference_subject", "probe_subject", "reference_id", "probe_id")


def _check_same_trials(a: Sample, b: Sample, clusters: list[str]) -> None:
    """Raise unless ``a`` and ``b`` hold the same trials in the same order: as many rows, the
    same labels, and the same values in the cluster column and the trial columns both tables have."""
    problem = None
    if len(a) != len(b):
        problem = f"got {len(a)} and {len(b)} rows"
    elif not np.array_equal(a.mated, b.mated):
        problem = f"{how_many(int(np.sum(a.mated != b.mated)), 'row', verbs=('is', 'are'))} mated in one and non-mated in the other"
    elif a.table is not None and b.table is not None:
        columns = dict.fromkeys([*clusters, *_TRIAL_COLUMNS])
        shared = [c for c in columns if c in a.table.columns and c in b.table.columns]
        for column in shared:  # 1 and "1" differ: say that the ids were read as numbers in one table, text in the other
            _check_ids_of_one_kind({f"scores_a[{column!r}]": a.table[column], f"scores_b[{column!r}]": b.table[column]},
                                   what="subject" if column.endswith("subject") else column)
            left, right = a.table[column].to_numpy(dtype=object), b.table[column].to_numpy(dtype=object)
            differ = (left != right) & ~(pd.isna(left) & pd.isna(right))
            if differ.any():
                row = int(differ.argmax())
                problem = (f"column {column!r} differs in {how_many(int(differ.sum()), 'row')} (first at position {row}: "
                           f"{left[row]!r} vs {right[row]!r}); order both tables the same way")
                break
    if problem is not None:
        raise ValueError(f"scores_a and scores_b must hold the same trials in the same order: {problem}")


def _difference(value_a: float, value_b: float, where: str = "") -> float:
    """``m(A) - m(B)``, or a ValueError naming both values when they are finite and their
    difference is not (it overflowed: a resample's was reported as the statistic being
    infinite there, which it was not); ``where`` names the evaluation in the message."""
    difference = value_a - value_b
    if math.isfinite(value_a) and math.isfinite(value_b) and not math.isfinite(difference):
        raise ValueError(f"the difference m(A) - m(B) = {value_a!r} - {value_b!r}{where} is beyond the largest float "
                         "(±1.8e+308); rescale the statistic, e.g. divide it by a power of two")
    return difference


def paired_bootstrap(
    statistic: Callable[..., float],
    scores_a: Scores,
    scores_b: Scores,
    *,
    args: tuple = (),
    data: StatisticData = "arrays",
    method: IntervalMethod = "percentile",
    n_resamples: int = 1000,
    unit: Unit | None = None,
    cluster: str = "reference_subject",
    confidence: float = 0.95,
    rng: Seed = None,
    progress_bar: bool | None = None,
) -> PairedResult:
    """Difference of a statistic between two systems scored on the same trial list.

    Read more in the chapter "Put an interval on every number".

    Parameters
    ----------
    statistic : callable
        As for :func:`biofair.bootstrap` (the fast path is not used: both systems need the
        same resampled rows).
    scores_a : pandas.DataFrame or (mated, nonmated)
        System A's scores.
    scores_b : pandas.DataFrame or (mated, nonmated)
        System B's scores, row by row for the same trials: same length and labels, and, for
        tables, the same values in every column of ``reference_subject``, ``probe_subject``,
        ``reference_id``, ``probe_id`` (and ``cluster`` for ``unit="subject"``) that both have.
    args : tuple, default ()
        Further positional arguments of the statistic.
    data : {"arrays", "table"}, default "arrays"
        How the statistic takes its data.
    method : {"percentile", "bca"}, default "percentile"
        How the interval is read from the replicates of the difference. BCa counts a
        replicate within 100 ulp of the larger of ``|m(A)|`` and ``|m(B)|`` from the estimate
        as equal to it (a difference is exact only up to the rounding of its terms).
    n_resamples : int, default 1000
        Bootstrap resamples B, at least ``2 / (1 - confidence)`` (40 at 95%); both systems get
        the same resampled rows.
    unit : {"pair", "subject"}, optional
        What is resampled, as for :func:`biofair.bootstrap` (by default ``"subject"`` when
        ``scores_a`` is a table with the ``cluster`` column).
    cluster : str, default "reference_subject"
        The cluster column for ``unit="subject"``.
    confidence : float, default 0.95
        Coverage of the interval.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.
    progress_bar : bool, optional
        Show a progress bar; by default only on an interactive terminal.

    Returns
    -------
    PairedResult
        ``difference = m(A) - m(B)`` on all data, its interval, ``p_greater`` (share of
        resamples with ``m(A) > m(B)``), and the replicates of the difference. The
        difference is significant when the interval excludes 0.

    Raises
    ------
    ValueError
        When ``n_resamples`` is below ``2 / (1 - confidence)``, when the two systems do not hold
        the same trials in the same order, when the statistic is NaN or infinite on either
        system's data or on some resample, or when the difference overflows (on all the data or on a
        resample: both values are named), or as :func:`biofair.bootstrap` for the options, the
        scores and the clusters (and when ``unit="subject"``, given or by default, finds no
        ``cluster`` column in ``scores_b``); a ``SchemaError`` when a subject or trial column is
        numbers in one table and text in the other (``1`` and ``"1"``: read both the same
        way); or when ``rng`` is a negative seed.
    TypeError
        As :func:`biofair.bootstrap`, for either system's scores: when a system's scores are
        neither a DataFrame nor a ``(mated, nonmated)`` pair, ``data="table"`` is given with
        arrays, the statistic does not return a number, or an option has the wrong type.

    See Also
    --------
    biofair.bootstrap : The interval of one system's statistic.
    biofair.ranking_flips : Significant differences that prefer different systems.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification (the
    paired bootstrap on one trial list, and p(A > B)).

    Examples
    --------
    >>> import biofair as bf
    >>> a = bf.synthetic.gaussian_scores(n_mated=300, n_nonmated=3_000, rng=0)
    >>> b = a.assign(score=a["score"] + (a["mated"] * 0.5))  # B separates the classes more
    >>> result = bf.paired_bootstrap(bf.roc_auc, a, b, n_resamples=200, rng=0)
    >>> result.significant, result.p_greater
    (True, 0.0)
    """
    n_resamples, confidence = _check(n_resamples, confidence, method, unit, cluster, args, progress_bar)
    chosen, unit = unit, _unit(scores_a, unit, cluster)
    has_cluster = [isinstance(scores, pd.DataFrame) and cluster in scores.columns for scores in (scores_a, scores_b)]
    if unit == "subject" and has_cluster == [True, False]:  # else Sample names what scores_a lacks
        default = "" if chosen else f" (the default, as scores_a has a {cluster!r} column)"
        raise ValueError(f"unit='subject'{default} needs scores_b to be a table with the {cluster!r} column too, "
                         "with the same values row by row; add it to scores_b, or pass unit='pair'")
    rng = as_rng(rng)
    clusters = cluster if unit == "subject" else None
    a, b = Sample(scores_a, data=data, cluster=clusters), Sample(scores_b, data=data, cluster=clusters)
    _check_same_trials(a, b, [cluster] if unit == "subject" else [])
    value_a = _finite(a.evaluate(statistic, args), "system A's data")
    value_b = _finite(b.evaluate(statistic, args), "system B's data")
    difference = _difference(value_a, value_b)

    def differences(plan, total: int, desc: str) -> NDArray:
        return evaluated(lambda rows: _difference(a.evaluate(statistic, args, rows), b.evaluate(statistic, args, rows),
                                                  f" on a {desc} evaluation"),
                         plan, total=total, desc=desc, show=progress_bar)

    replicates = _defined(differences(resample_rows(a, unit, n_resamples, rng), n_resamples, "paired bootstrap"))
    low, high = interval(
        replicates, difference,
        lambda: [(differences(plan, len(plan), "jackknife"), None) for plan in jackknife_rows(a, unit)],
        method=method, confidence=confidence, magnitude=max(abs(value_a), abs(value_b)),
    )
    p_greater = float(np.mean(replicates > 0))
    return PairedResult(difference, low, high, p_greater, confidence, n_resamples, unit, method, replicates)


def ranking_flips(
    comparisons: Mapping[str, PairedResult],
    *,
    higher_is_better: Mapping[str, bool] | None = None,
) -> list[tuple[str, str]]:
    """Find the pairs of metrics whose significant differences prefer different systems.

    Read more in the chapter "Put an interval on every number".

    Parameters
    ----------
    comparisons : mapping of str to PairedResult
        Paired differences ``m(A) - m(B)`` by metric name.
    higher_is_better : mapping of str to bool, optional
        Orientation of each metric (False for EER, minDCF, FNMR), keyed by names of
        ``comparisons`` (another name is an error, not ignored). By default every metric
        is taken as higher-is-better, so a flip is two significant differences of opposite
        sign (the specification's rule). The sign of a significant difference is the side
        of 0 its interval lies on.

    Returns
    -------
    list of (str, str)
        Every pair ``(metric preferring A, metric preferring B)`` among the significant
        differences; empty when all significant differences agree.

    Raises
    ------
    TypeError
        When ``comparisons`` is not a mapping of :class:`~biofair.PairedResult`, or a value
        of ``higher_is_better`` is not a bool.
    ValueError
        When ``higher_is_better`` names a metric that ``comparisons`` lacks.

    See Also
    --------
    biofair.paired_bootstrap : Makes the comparisons.

    References
    ----------
    Beyond ROC-AUC: Operating-Point Performance Reporting for Biometric Verification
    (ranking flips between ROC-AUC and low-FMR metrics).

    Examples
    --------
    >>> import numpy as np
    >>> import biofair as bf
    >>> auc = bf.PairedResult(-0.01, -0.02, -0.005, 0.0, 0.95, 100, "pair", "percentile", np.zeros(100))
    >>> tmr = bf.PairedResult(0.05, 0.02, 0.08, 1.0, 0.95, 100, "pair", "percentile", np.zeros(100))
    >>> bf.ranking_flips({"roc_auc": auc, "tmr_at_fmr": tmr})
    [('tmr_at_fmr', 'roc_auc')]
    """
    if not isinstance(comparisons, Mapping) or not all(isinstance(c, PairedResult) for c in comparisons.values()):
        got = (type(comparisons).__name__ if not isinstance(comparisons, Mapping) else
               "a " + next(type(c).__name__ for c in comparisons.values() if not isinstance(c, PairedResult)))
        raise TypeError("comparisons must map each metric's name to its biofair.paired_bootstrap result (a "
                        f"PairedResult), e.g. {{'roc_auc': paired_bootstrap(...)}}, got {got}")
    orientation = dict(higher_is_better or {})
    unknown = [name for name in orientation if name not in comparisons]
    if unknown:
        raise ValueError(
            f"higher_is_better names metrics that were not compared: {unknown}; "
            f"the comparisons are {list(comparisons)}"
        )
    not_bool = {name: value for name, value in orientation.items() if not isinstance(value, (bool, np.bool_))}
    if not_bool:
        raise TypeError(f"higher_is_better must map each metric to True or False, got {not_bool}")
    prefers_a = {  # the side of 0 the interval lies on (the estimate itself may lie outside it)
        name: bool(result.low > 0) == bool(orientation.get(name, True))
        for name, result in comparisons.items()
        if result.significant
    }
    return [
        (first, second)
        for first, a_first in prefers_a.items()
        for second, a_second in prefers_a.items()
        if a_first and not a_second
    ]
