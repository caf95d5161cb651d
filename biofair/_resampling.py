"""Resampling plans shared by the bootstrap and the permutation null.

A plan is a list of row-index arrays, one per resample, over a score table or over the
concatenation ``(mated, nonmated)``; the statistic is then called on each resample. How the
statistic takes its data is said by the caller (``data="arrays"`` or ``"table"``), never
guessed from its signature.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr, ndtri
from tqdm import tqdm

from biofair._counts import CountsAtMatedScores, mated_counts_sorted
from biofair._typing import By, IntervalMethod, StatisticData, Unit
from biofair._validation import (
    as_scores,
    check_choice,
    check_subject_in_every_row,
    power_of_two_exponent,
    power_of_two_scaled,
)
from biofair.exceptions import CoarseHistogramWarning, InsufficientComparisonsWarning
from biofair.groups import _LOOK_ALIKE_WARNING, _group_codes
from biofair.schema import _check_ids_of_one_kind, _validate_score_set

Scores = pd.DataFrame | tuple[ArrayLike, ArrayLike]
Rows = NDArray[np.intp] | tuple[NDArray[np.intp], NDArray[np.intp]]


class Sample:
    """Validated data of one system: its table (if any), scores, labels and clusters.

    Scores given as ``(mated, nonmated)`` are concatenated into ``values`` (mated first)
    only when a resampling plan needs rows; a fast path reads the two arrays as given.
    """

    def __init__(self, scores: Scores, *, data: StatisticData, cluster: str | None = None, strata: By | None = None):
        check_choice(data, "data", ("arrays", "table"))
        self.data = data
        if isinstance(scores, pd.DataFrame):
            self.table = _validate_score_set(scores)
            self._values = scores["score"].to_numpy(dtype=np.float64)
            self._mated = scores["mated"].to_numpy(dtype=bool)
            self._classes = None
        elif isinstance(scores, tuple) and len(scores) == 2:
            self.table = None
            self._classes = (as_scores(scores[0], "mated"), as_scores(scores[1], "nonmated"))
            self._values = self._mated = None
        else:
            raise TypeError("scores must be a score table or a (mated, nonmated) pair of arrays")
        if data == "table" and self.table is None:
            raise TypeError("data='table' needs scores given as a table, not as (mated, nonmated) arrays")
        self.strata = None  # stratum of every row: its group and class (0: cross-group pairs), or None
        if strata is not None:
            if self.table is None:
                raise TypeError("strata need scores given as a table, not as (mated, nonmated) arrays")
            self.strata = 2 * (_group_codes(self.table, strata)[0] + 1) + self.mated
        self.clusters = None
        if cluster is not None:
            if self.table is None or cluster not in self.table.columns:
                raise ValueError(f"unit='subject' needs a score table with a {cluster!r} column")
            check_subject_in_every_row(self.table[cluster], cluster)
            _check_ids_of_one_kind({f"column {cluster!r}": self.table[cluster]})  # 1 and "1": two clusters
            subjects = pd.unique(self.table[cluster])
            if subjects.size < 2:
                raise ValueError(
                    f"unit='subject' needs at least 2 subjects: column {cluster!r} holds only {subjects[0]!r}, "
                    "so every resample would repeat the data (an interval of width 0); use unit='pair'"
                )
            labels = self.table[cluster] if self.strata is None else [self.strata, self.table[cluster]]
            # a subject's comparisons in two strata are two clusters, each drawn among its stratum's;
            # numbered in sorted order, so that one seed draws the same subjects whatever the rows' order
            self.clusters = pd.factorize(pd.MultiIndex.from_arrays(labels) if self.strata is not None
                                         else labels, sort=True)[0]

    def __len__(self) -> int:
        return len(self.table) if self.table is not None else sum(scores.size for scores in self._classes)

    @property
    def values(self) -> NDArray[np.float64]:
        """Every score, in table order (mated, then non-mated, for arrays)."""
        if self._values is None:
            self._values = np.concatenate(self._classes)
        return self._values

    @property
    def mated(self) -> NDArray[np.bool_]:
        """Whether each score of ``values`` is mated."""
        if self._mated is None:
            self._mated = np.repeat([True, False], [scores.size for scores in self._classes])
        return self._mated

    def classes(self) -> tuple[NDArray, NDArray]:
        """The mated and the non-mated scores, in table order."""
        if self._classes is None:
            self._classes = (self.values[self.mated], self.values[~self.mated])
        return self._classes

    def class_clusters(self) -> tuple[NDArray[np.intp], NDArray[np.intp]] | None:
        """The cluster codes of the mated and of the non-mated scores (None without clusters)."""
        return None if self.clusters is None else (self.clusters[self.mated], self.clusters[~self.mated])

    def evaluate(self, statistic: Callable, args: tuple, rows: Rows | None = None) -> float:
        """The statistic on the rows ``rows`` (all by default): row indices, or (for array
        data) a pair of positions within the mated and within the non-mated scores. The
        statistic gets copies: one that sorts its arrays in place changes neither the caller's
        arrays nor the scores that the resamples are drawn from."""
        if self.data == "table":
            return _number(statistic(self.table.iloc[slice(None) if rows is None else rows], *args))
        if rows is None:
            return _number(statistic(*(scores.copy() for scores in self.classes()), *args))
        if isinstance(rows, tuple):
            (mated, nonmated), (in_mated, in_nonmated) = self.classes(), rows
            return _number(statistic(mated[in_mated], nonmated[in_nonmated], *args))
        values, mated = self.values[rows], self.mated[rows]
        return _number(statistic(values[mated], values[~mated], *args))

    def replicates(self, statistic: Callable, args: tuple, plan, *, total: int, desc: str, show: bool | None):
        """The statistic on every resample of a plan, warnings of unresolved targets silenced.

        The estimate on all the data has already warned for every target it cannot resolve;
        a resample has as many comparisons of each class (``unit="pair"``) or about as many
        (``unit="subject"``), so repeating that warning once per resample would say nothing new.
        """
        return evaluated(lambda rows: self.evaluate(statistic, args, rows), plan, total=total, desc=desc, show=show)


def evaluated(evaluate: Callable[[Rows], float], plan, *, total: int, desc: str,
              show: bool | None) -> NDArray[np.float64]:
    """``evaluate(rows)`` for every ``rows`` of a plan, warnings of unresolved targets silenced
    (see :meth:`Sample.replicates`). An error of the statistic gets a note of the ``desc``
    evaluation that raised it: it has run on all the data, and a resample can lack what
    they have (a class, a group)."""
    values = []
    with resolution_warned_once():
        for number, rows in enumerate(progress(plan, total=total, desc=desc, show=show), start=1):
            try:
                values.append(evaluate(rows))
            except Exception as error:
                error.add_note(f"raised by the statistic on {desc} evaluation {number} of {total} (it gave a number on "
                               "all the data: a resample can lack a class or a group that all the data have)")
                raise
    return np.array(values, dtype=np.float64)


def _number(value, example: str = "lambda mated, nonmated: bf.eer(mated, nonmated).eer") -> float:
    """A statistic's value as a float, or a TypeError that says what the statistic returned
    (text too: float("0.5") would read it, and a NumPy complex number, whose imaginary part it
    drops) and gives an ``example`` of one that picks a number."""
    try:
        if isinstance(value, (str, bytes)) or np.iscomplexobj(value):
            raise TypeError
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"the statistic must return a number, got {type(value).__name__}: wrap it to pick one, "
                        f"e.g. {example}") from None


def check_unit(unit: str) -> str:
    """``unit`` if it names a resampling unit."""
    if unit not in ("pair", "subject"):
        raise ValueError(f"unit must be 'pair' or 'subject', got {unit!r}")
    return unit


def count_clusters(clusters: tuple[NDArray[np.intp], NDArray[np.intp]]) -> int:
    """How many clusters the codes of the mated and of the non-mated comparisons number."""
    return int(max(clusters[0].max(initial=-1), clusters[1].max(initial=-1))) + 1


def cluster_weights(n_clusters: int, n_resamples: int, rng: np.random.Generator) -> Iterator[NDArray[np.int64]]:
    """How often each cluster is drawn in each resample (clusters drawn with replacement)."""
    for _ in range(n_resamples):
        yield np.bincount(rng.integers(0, n_clusters, n_clusters), minlength=n_clusters)


def weighted_replicates(
    metric: Callable[[CountsAtMatedScores], float],
    mated: NDArray,
    nonmated: NDArray,
    *,
    n_resamples: int,
    rng: np.random.Generator,
    clusters: tuple[NDArray[np.intp], NDArray[np.intp]] | None,
    progress_bar: bool | None,
) -> NDArray[np.float64]:
    """Bootstrap replicates of a metric of the counts at the distinct mated scores, without
    re-sorting: the fast path of the ROC metrics.

    The classes are sorted once. A resample repeats each comparison as often as it
    (``clusters=None``: ``unit="pair"``) or its cluster (``unit="subject"``) was drawn, and
    its counts are cumulative sums of those weights (:meth:`MatedCounts.weighted
    <biofair._counts.MatedCounts.weighted>`): O(M + N) per resample, where the plain path
    sorts each resample. The draws are those of :func:`resample_rows`, in its order, so a
    seed gives the plain path's replicates.
    """
    orders = [np.argsort(scores, kind="stable") for scores in (mated, nonmated)]
    counts = mated_counts_sorted(mated[orders[0]], nonmated[orders[1]])
    if clusters is None:  # how often each comparison is drawn, in score order
        draws = ([np.bincount(rng.integers(0, order.size, order.size), minlength=order.size)[order] for order in orders]
                 for _ in range(n_resamples))
    else:
        in_order = [codes[order] for codes, order in zip(clusters, orders)]
        draws = ([drawn[codes] for codes in in_order]
                 for drawn in cluster_weights(count_clusters(clusters), n_resamples, rng))
    values = np.empty(n_resamples)
    for b, (mated_weights, nonmated_weights) in enumerate(progress(draws, total=n_resamples, desc="bootstrap",
                                                                   show=progress_bar)):
        resample = counts.weighted(mated_weights, nonmated_weights)
        if resample.n_mated == 0 or resample.n_nonmated == 0:
            empty = "mated" if resample.n_mated == 0 else "non-mated"
            raise ValueError(f"a cluster resample drew no {empty} comparison; use unit='pair' or more subjects")
        values[b] = metric(resample)
    return values


def _cells(sample: Sample) -> list[NDArray[np.intp]]:
    """The rows of each class, within each stratum (a group's class) when the sample has strata."""
    classes = (sample.mated, ~sample.mated)
    if sample.strata is None:
        return [np.flatnonzero(in_class) for in_class in classes]
    return [rows for stratum in np.unique(sample.strata) for in_class in classes
            if (rows := np.flatnonzero(in_class & (sample.strata == stratum))).size]


def resample_rows(sample: Sample, unit: Unit, n_resamples: int, rng: np.random.Generator) -> Iterator[Rows]:
    """Row indices of each bootstrap resample.

    ``"pair"``: mated and non-mated rows drawn with replacement within their class (class
    sizes kept), and within their group when the sample has strata: a cell's ``n`` rows
    are ``rows[rng.integers(0, n, n)]``, cell after cell. Without strata and for a statistic
    of arrays, the same draws are given as positions within the mated and the non-mated
    scores (a pair of arrays), which the statistic reads without rows to gather and split.
    ``"subject"``: clusters drawn with replacement, every row of a drawn cluster kept, as
    often as the cluster was drawn; with strata, a cluster is a subject's comparisons of
    one class in one group, drawn among that group's and class's.
    """
    if check_unit(unit) == "pair":
        cells = _cells(sample)
        by_class = sample.data == "arrays" and sample.strata is None  # cells: the mated, the non-mated rows
        for _ in range(n_resamples):
            drawn = [rng.integers(0, rows.size, rows.size) for rows in cells]
            yield tuple(drawn) if by_class else np.concatenate([rows[i] for rows, i in zip(cells, drawn)])
        return
    rows = np.arange(len(sample))
    n_clusters = int(sample.clusters.max()) + 1
    if sample.strata is None:
        for drawn in cluster_weights(n_clusters, n_resamples, rng):
            yield np.repeat(rows, drawn[sample.clusters])
        return
    # clusters are numbered stratum by stratum: draw each stratum's among its own
    stratum_of = np.zeros(n_clusters, dtype=np.intp)
    stratum_of[sample.clusters] = sample.strata
    first = np.flatnonzero(np.diff(stratum_of, prepend=-1))
    sizes = np.diff(np.append(first, n_clusters))
    for _ in range(n_resamples):
        drawn = np.repeat(first, sizes) + (rng.random(n_clusters) * np.repeat(sizes, sizes)).astype(np.intp)
        yield np.repeat(rows, np.bincount(drawn, minlength=n_clusters)[sample.clusters])


#: Most leave-out evaluations per independently resampled sample in a jackknife: beyond it the
#: units are left out in this many groups (the grouped jackknife of Efron and Narasimhan's bcajack).
JACKKNIFE_GROUPS = 1000


class _LeaveOneOut:
    """The rows without each group of units of ``groups`` in turn (a unit: a comparison, or
    all the rows of a cluster): iterable, and sized for the progress bar's total."""

    def __init__(self, rows: NDArray[np.intp], groups: list[NDArray[np.intp]], clusters: NDArray[np.intp] | None = None):
        self.rows, self.groups, self.clusters = rows, groups, clusters

    def __len__(self) -> int:
        return len(self.groups)

    def __iter__(self) -> Iterator[NDArray[np.intp]]:
        if self.clusters is None:
            return (np.delete(self.rows, group) for group in self.groups)
        return (self.rows[~np.isin(self.clusters, group)] for group in self.groups)


def _groups(units: NDArray[np.intp], order: NDArray | None = None) -> list[NDArray[np.intp]]:
    """Each unit alone, or, for more than :data:`JACKKNIFE_GROUPS` units, that many groups
    drawn at random, as Efron and Narasimhan's bcajack draws them: the unit of rank ``r`` in
    ``order`` (scores; the units' own order without it) in group ``π(r) mod G``, ``π`` a
    permutation of the ranks fixed by their number (the same groups on every call, and
    independent of the rows' order except among tied scores). Groups of the ranks ``r``,
    ``r + G``, ... (each spanning the whole range) leave out nearly the same share of every
    part of the distribution, so their leave-out values hardly vary, and their skewness is not
    the sample's: the acceleration of the mean of 20,000 exponential scores was 0.0046, twice
    the plain jackknife's 0.0023 (random groups: 0.0022)."""
    if units.size <= JACKKNIFE_GROUPS:
        return [units[i : i + 1] for i in range(units.size)]
    ranked = units if order is None else units[np.argsort(order, kind="stable")]
    shuffled = ranked[np.random.default_rng(0).permutation(ranked.size)]
    return [shuffled[g::JACKKNIFE_GROUPS] for g in range(JACKKNIFE_GROUPS)]


def jackknife_rows(sample: Sample, unit: Unit) -> list[_LeaveOneOut]:
    """Leave-one-out plans, one per independently resampled sample (as scipy's BCa).

    ``"pair"``: the mated rows and the non-mated rows (of each stratum, with strata) are
    independent samples, each left out one comparison at a time; ``"subject"``: one sample
    of clusters (one per stratum, with strata), left out one at a time. A sample of more
    than :data:`JACKKNIFE_GROUPS` units leaves them out in that many groups (see
    :func:`_groups`), which bounds the evaluations and changes only the estimate of the
    acceleration: each group then counts as one unit. A sample of one unit has no plan: its
    ``u = (n - 1)(mean θ - θ_1)`` is 0 whatever ``θ_1``, the statistic without any of its
    units (a class left empty), which is not evaluated.
    """
    rows = np.arange(len(sample))
    if unit == "pair":
        return [_LeaveOneOut(rows, _groups(cell, sample.values[cell])) for cell in _cells(sample) if cell.size > 1]
    n_clusters = int(sample.clusters.max()) + 1
    if sample.strata is None:
        return [_LeaveOneOut(rows, _groups(np.arange(n_clusters)), sample.clusters)]
    stratum_of = np.zeros(n_clusters, dtype=np.intp)
    stratum_of[sample.clusters] = sample.strata
    units = [np.flatnonzero(stratum_of == s) for s in np.unique(stratum_of)]
    return [_LeaveOneOut(rows, _groups(clusters), sample.clusters) for clusters in units if clusters.size > 1]


def interval(
    replicates: NDArray,
    estimate: float,
    jackknife: Callable[[], list[tuple[NDArray, NDArray | None]]],
    *,
    method: IntervalMethod,
    confidence: float,
    magnitude: float | None = None,
) -> tuple[float, float]:
    """The interval of a bootstrap distribution, by the percentile or the BCa method.

    ``jackknife()`` returns, per independently resampled sample, the statistic with each of
    its units left out as ``(values, counts)``: ``counts[i]`` units give ``values[i]``
    (``counts=None``: one unit each); it is only called for ``"bca"``. BCa follows Efron and
    Tibshirani's eq. 14.10 and 14.15 with the multi-sample acceleration of
    ``scipy.stats.bootstrap``: per sample of ``n`` units with leave-one-out values ``θ_i``
    and ``u_i = (n - 1)(mean θ - θ_i)``, ``a = Σ Σu_i³/n³ / (6 (Σ Σu_i²/n²)^1.5)``; ``z0`` from
    the share of replicates below the estimate, those equal to it (within 100 ulp of
    ``magnitude``, by default ``|estimate|``) counting one half: a difference ``m(A) - m(B)``
    is equal up to the rounding of its terms, so the paired bootstrap gives the larger of
    ``|m(A)|`` and ``|m(B)|``. The adjusted level ``Φ(z0 + (z0 + z) / (1 - a (z0 + z)))`` needs
    ``1 - a (z0 + z) > 0`` at both ends (beyond, it wraps around: a 99.9% interval whose low
    end lay above its high end); otherwise BCa is refused, as for an infinite ``z0``.
    """
    alpha = (1 - confidence) / 2
    if method == "percentile":
        levels = np.array([alpha, 1 - alpha])
    elif method == "bca":
        # a replicate equal to the estimate up to rounding (a relative 100 ulp, the slack of
        # permutation_null) counts one half: a sum of the same scores in another order (the
        # rows of a subject resample, shuffled) fell 1 ulp on either side of it, and moved z0
        # (compared with the ends of that slack, not by |replicate - estimate|, which overflowed
        # between replicates of opposite sign near ±1e308)
        slack = 100 * np.finfo(np.float64).eps * abs(estimate if magnitude is None else magnitude)
        below = np.sum(replicates < estimate - slack)
        equal = np.sum((replicates >= estimate - slack) & (replicates <= estimate + slack))
        z0 = ndtri((below + equal / 2) / replicates.size)
        if not np.isfinite(z0):
            raise ValueError("method='bca' is undefined here: every replicate lies on one side of the estimate; "
                             "use method='percentile'")
        acceleration = _acceleration(jackknife())
        z = ndtri(np.array([alpha, 1 - alpha]))
        denominators = 1 - acceleration * (z0 + z)
        if (denominators <= 0).any():  # the adjusted level, increasing in z until there, wraps around
            raise ValueError(
                f"method='bca' is undefined here: the acceleration a = {acceleration:.3g} and the bias correction "
                f"z0 = {z0:.3g} give 1 - a·(z0 + z) = {denominators.min():.3g} at the interval's "
                f"{'upper' if denominators[1] <= 0 else 'lower'} end (it must be positive), beyond which its level "
                f"wraps around to the other side; use method='percentile' or a lower confidence than {confidence}"
            )
        levels = ndtr(z0 + (z0 + z) / denominators)
    else:
        raise ValueError(f"method must be 'percentile' or 'bca', got {method!r}")
    # the ends are read on the replicates brought near 1 by a power of two (exact): NumPy
    # interpolates from the difference of two neighbours, which overflowed between -1e308 and 1e308
    exponent = power_of_two_exponent(replicates)
    low, high = np.ldexp(np.percentile(np.ldexp(replicates, -exponent), 100 * levels), exponent)
    return float(low), float(high)


def _acceleration(samples: list[tuple[NDArray, NDArray | None]]) -> float:
    """The BCa acceleration ``a`` from each sample's leave-one-out ``(values, counts)`` (see
    :func:`interval`), or a ValueError when the jackknife gives none.

    ``a`` does not change when every ``u`` is multiplied by one number: the values are brought
    to magnitudes near 1 by a power of two before their differences are taken (differences of
    scores near ±1e308 overflowed), and the ``u`` divided by the largest before their cubes
    are summed (the squares of differences of 1e-170 vanished, which read as a jackknife that
    does not vary, and the cubes of 1e120 overflowed).
    """
    samples = [(values, np.ones(values.size) if counts is None else counts) for values, counts in samples]
    undefined = sum(int(np.sum(~np.isfinite(values))) for values, _ in samples)
    if undefined:
        raise ValueError(
            f"method='bca' needs the statistic with each unit left out (the jackknife), but it is NaN or infinite "
            f"on {undefined} of {sum(values.size for values, _ in samples)} of these evaluations; make it defined "
            "and finite on them, or use method='percentile'"
        )
    scaled = power_of_two_scaled(*(values for values, _ in samples)) if samples else ()
    influences = []
    for values, (_, counts) in zip(scaled, samples):
        n = float(np.sum(counts))  # a float: n**3 of 1e7 units overflows int64
        # the mean taken about the first value: equal values give u = 0 exactly (the mean of
        # three 0.1s is not 0.1, and its rounding error made an acceleration of 0.07)
        deviations = values - values[0]
        influences.append(((n - 1) * (np.sum(counts * deviations) / n - deviations), counts, n))
    largest = max((float(np.max(np.abs(u), initial=0.0)) for u, _, _ in influences), default=0.0)
    if largest == 0.0:
        why = ("the statistic takes the same value whichever unit is left out" if samples else
               "no resampled sample holds two units to leave out one at a time")
        raise ValueError(f"method='bca' is undefined here: {why}, so the jackknife gives no acceleration; "
                         "use method='percentile'")
    numerator = sum(np.sum(counts * (u / largest) ** 3) / n**3 for u, counts, n in influences)
    denominator = sum(np.sum(counts * (u / largest) ** 2) / n**2 for u, counts, n in influences)
    return float(numerator / (6 * denominator**1.5))


@contextlib.contextmanager
def resolution_warned_once():
    """Silence InsufficientComparisonsWarning, CoarseHistogramWarning and the warning of group
    labels that differ only by how they are written, while replicates are computed: the
    estimate on all data gave them once; each resample would repeat them (hundreds of times
    in a report). Entering ``catch_warnings`` resets Python's record of warnings already
    shown, so without this filter a warning repeats once per resample even under the
    default filters."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsufficientComparisonsWarning)
        warnings.simplefilter("ignore", CoarseHistogramWarning)
        warnings.filterwarnings("ignore", message=f".*{_LOOK_ALIKE_WARNING}", category=UserWarning)
        yield


def check_progress_bar(show: bool | None) -> bool | None:
    """``show`` if it is True, False or None (a bar only on an interactive terminal), else a
    TypeError naming ``progress_bar`` ("no" is true, and showed a bar)."""
    if show is not None and not isinstance(show, (bool, np.bool_)):
        raise TypeError("progress_bar must be True, False or None (a bar only on an interactive terminal), "
                        f"got {show!r}")
    return show


def progress(iterable, *, total: int, desc: str, show: bool | None):
    """A tqdm progress bar; ``show=None`` shows it only on an interactive terminal."""
    return tqdm(iterable, total=total, desc=desc, disable=None if check_progress_bar(show) is None else not show,
                leave=False)
