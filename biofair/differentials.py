"""The demographic differential report: per-group error rates at one operational threshold,
with intervals, the differentials between groups, and whether each group's data suffice.

Read more in the chapter "Audit demographic differentials" (``notebooks/10``).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._binomial import binomial_intervals
from biofair._direction import warn_if_reversed
from biofair._resampling import cluster_weights, interval
from biofair._thresholds import (
    PRECISE,
    RESOLVED,
    rate_resolution,
    resolution,
    threshold_at_fmr_sorted,
    warn_unresolved,
)
from biofair._typing import By, Seed, Unit
from biofair._validation import (
    as_count,
    as_number,
    as_rng,
    as_threshold,
    check_flag,
    check_resamples,
    check_subject_in_every_row,
    how_many,
    percent,
    strict_json,
)
from biofair.exceptions import SchemaError
from biofair.extrapolation import _POINT_ZERO, _UNDERFLOW, extrapolated_fmr
from biofair.groups import _attributes_of, _cross_group_counts, _group_codes
from biofair.schema import _check_ids_of_one_kind, _resampled_cluster, _validate_score_set

#: Notes of one kind listed one by one; more are merged into one note (hundreds of small groups).
_NOTES_PER_KIND = 5

#: Default tolerance of a ratio of error rates: the four-fifths rule (see differential_report).
_DEFAULT_TOLERANCE = 1.25
#: Fewest subjects (clusters) of a compared group whose subject-bootstrap interval the notes
#: leave unflagged. A bootstrap over C subjects knows only those C: its variance is about
#: (C - 1)/C of the unbiased one, and its percentile interval under-covers. In
#: ``synthetic.interval_coverage`` (rate 0.1, 10 comparisons a subject, 1000 groups a row, seed
#: 2; about ±0.02) the 95 % subject bootstrap held the true rate in 0.81-0.89 of the groups of 3
#: or 5 subjects, 0.89-0.91 of 10 and 0.92-0.93 of 30, with or without a subject effect (0.5).
#: With that effect Clopper-Pearson held it in 0.95 and 0.90 of the groups of 3 and 5 subjects,
#: 0.85 of 7 (the bootstrap 0.84) and 0.86 of 10 (the bootstrap 0.89): the subject bootstrap, the
#: interval to rely on when comparisons correlate, is the better one only from about 10 subjects.
_FEW_SUBJECTS = 10
_RATES = ("fmr", "fnmr")
_NO_COMPARISONS, _UNRESOLVED, _RESOLVED = "no comparisons", "unresolved", "resolved"
_ZERO_WIDTH = ("a bootstrap interval of zero width (every subject has the same error rate, so no resample of "
               "subjects varies it)")
_WITHIN, _EXCEEDS, _INCONCLUSIVE, _NOT_ASSESSABLE = (
    "within tolerance", "exceeds tolerance", "inconclusive", "not assessable")
_CHUNK = 4_000_000  # resample weights held at once


def _clustered_replicates(errors: NDArray, totals: NDArray, n_resamples: int,
                          rng: np.random.Generator) -> NDArray[np.float64]:
    """Rates of subject-clustered bootstrap resamples: ``(B, R)`` from per-cluster counts.

    ``errors`` and ``totals`` are ``(C, R)``: per cluster (subject) and rate, its errors and
    comparisons. Each resample draws C clusters with replacement (``_resampling.cluster_weights``,
    the plan of ``bootstrap(unit="subject")``) and keeps all their comparisons, so its rate is
    ``sum_c w_c e_c / sum_c w_c n_c``: one matrix product per block of resamples.
    """
    n_clusters = errors.shape[0]
    draws = cluster_weights(n_clusters, n_resamples, rng)
    block = max(1, _CHUNK // max(n_clusters, 1))
    parts = []
    for start in range(0, n_resamples, block):
        weights = np.stack([next(draws) for _ in range(min(block, n_resamples - start))]).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            parts.append((weights @ errors) / (weights @ totals))
    return np.concatenate(parts)


def _verdict(low: float, high: float, tolerance: float) -> str:
    """Where a ratio's interval lies against the tolerance band [1/tolerance, tolerance]
    (an upper end of +inf, an unbounded interval, is never within it)."""
    if np.isnan(low) or np.isnan(high):
        return _NOT_ASSESSABLE
    if low > tolerance or high < 1 / tolerance:
        return _EXCEEDS
    if 1 / tolerance <= low and high <= tolerance:
        return _WITHIN
    return _INCONCLUSIVE


class DifferentialReport(NamedTuple):
    """Per-group error rates at one threshold, their differentials and their sufficiency.

    Returned by :func:`biofair.differential_report`; ``to_frame()`` gives the per-group table,
    ``to_json()`` the report in the format of ``biofair/data/differential_report.schema.json``.

    Attributes
    ----------
    groups : pandas.DataFrame
        One row per group and rate (``fmr``, ``fnmr``), see :func:`biofair.differential_report`.
    differentials : pandas.DataFrame
        One row per rate: max/min and max/geometric-mean over the resolved groups, with
        intervals and the verdict against ``tolerance``.
    cross_group : pandas.DataFrame or None
        One row per (reference group, probe group) of non-mated comparisons:
        ``false_matches``, ``comparisons``, ``resolved`` (the target FMR allows 3 false
        matches, or the cell has 3, as for a group) and ``fmr`` (NaN unless resolved); None
        when the groups are pair-level.
    threshold : float
        The operational threshold (match iff ``score >= threshold``; with ``distance``,
        iff ``distance <= threshold``).
    threshold_source : str
        How it was set: ``"given"`` or ``"fmr"`` (at ``fmr_target`` on all non-mated scores).
    fmr_target : float or None
        The target FMR it was set at.
    overall : dict
        Counts and rates of the whole table at the threshold.
    by : list of str
        The grouping attribute(s).
    reference : dict
        The reference group of each rate (None where none is resolved).
    tolerance : float
        Largest ratio of error rates taken as no differential.
    confidence : float
        Coverage of every interval.
    n_resamples : int
        Bootstrap resamples.
    cluster : str or None
        The subject column the bootstrap resamples (None: comparisons resampled).
    notes : list of str
        What the reader must know: excluded groups, unresolved targets, intervals resting
        on few subjects.
    distance : bool
        Whether ``threshold`` is in the distance units of the score file (see
        :meth:`in_distance_units`).
    source : dict or None
        The score file the report was made from, as ``biofair report`` read it: ``path`` (as
        given), ``bytes`` and ``sha256``, so that a reader can tell which file it describes
        (None when the report was made from a table in Python).
    seed : int or None
        The integer seed the bootstrap drew its resamples from (``rng`` given as an integer),
        with which a rerun draws the same resamples and the same intervals; None when ``rng``
        was a Generator or None, whose resamples no setting of the report can draw again.

    See Also
    --------
    biofair.differential_report : Makes it.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.demographic_scores(rng=0)
    >>> report = bf.differential_report(table, by="group", fmr=1e-2, n_resamples=100, rng=0)
    >>> sorted(report.to_frame()["rate"].unique())
    ['fmr', 'fnmr']
    """

    groups: pd.DataFrame
    differentials: pd.DataFrame
    cross_group: pd.DataFrame | None
    threshold: float
    threshold_source: str
    fmr_target: float | None
    overall: dict
    by: list
    reference: dict
    tolerance: float
    confidence: float
    n_resamples: int
    cluster: str | None
    notes: list
    distance: bool = False
    source: dict | None = None
    seed: int | None = None

    def in_distance_units(self) -> DifferentialReport:
        """The report with its threshold in the units of a file of distances.

        A table read from distances (``greater_is_match=False``) holds them negated, so that
        a match is ``score >= t`` throughout, ``t`` a negated distance. This report gives
        ``-t`` instead, the threshold in the file's units: a match iff ``distance <= -t``.
        The rates and counts do not change.

        Returns
        -------
        DifferentialReport
            A copy with ``threshold = -t`` and ``distance = True``.

        Raises
        ------
        ValueError
            When the report is already in distance units.
        """
        if self.distance:
            raise ValueError("the report's threshold is already in distance units")
        return self._replace(threshold=-self.threshold, distance=True)

    def to_frame(self) -> pd.DataFrame:
        """The per-group table (a copy): one row per group and rate.

        Returns
        -------
        pandas.DataFrame
            A copy of :attr:`groups`.
        """
        return self.groups.copy()

    def to_dict(self) -> dict[str, Any]:
        """The report as plain Python values (NaN as None), in the JSON schema's layout.

        Returns
        -------
        dict
            Keys ``report``, ``biofair_version``, ``source``, ``settings``, ``overall``,
            ``groups``, ``differentials``, ``cross_group`` and ``notes``.
        """
        from biofair import __version__

        def records(table: pd.DataFrame | None) -> list | None:
            if table is None:
                return None
            clean = table.astype(object).where(table.notna(), None)
            return [{k: _plain(v) for k, v in row.items()} for row in clean.to_dict("records")]

        return {
            "report": "biofair differential report",
            "biofair_version": __version__,
            "source": self.source,
            "settings": {
                "by": list(self.by), "threshold": self.threshold,
                "match": "distance <= threshold" if self.distance else "score >= threshold",
                "threshold_source": self.threshold_source,
                "fmr_target": self.fmr_target, "reference": {k: v for k, v in self.reference.items()},
                "tolerance": self.tolerance, "confidence": self.confidence,
                "n_resamples": self.n_resamples, "seed": self.seed, "cluster": self.cluster,
            },
            "overall": {k: _plain(v) for k, v in self.overall.items()},
            "groups": records(self.groups),
            "differentials": records(self.differentials),
            "cross_group": records(self.cross_group),
            "notes": list(self.notes),
        }

    def to_json(self, *, indent: int = 2) -> str:
        """The report as JSON text following ``differential_report.schema.json``.

        Parameters
        ----------
        indent : int, default 2
            Spaces per level of nesting, as for ``json.dumps``.

        Returns
        -------
        str
            :meth:`to_dict` as strictly valid JSON: NaN as ``null``, an infinite threshold
            (beyond the largest score) as ``"Infinity"`` or ``"-Infinity"``.
        """
        return strict_json(self.to_dict(), indent=indent)


def _plain(value: Any) -> Any:
    """A JSON value: numpy scalars as Python ones, non-finite floats as None."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    return value


def _operational_threshold(values: NDArray, mated: NDArray, threshold: float | None,
                           fmr: float | None) -> tuple[float, str, float | None, dict, list[str]]:
    """The threshold, its source, the target FMR and, for a target, its resolution on all the
    non-mated scores (warned when the rule of three fails); and a note when tied non-mated scores
    leave the threshold at a target fewer false matches than the target allows."""
    if (threshold is None) == (fmr is None):
        raise ValueError("give exactly one of threshold= (a fixed threshold) or fmr= (a target FMR on all non-mated scores)")
    if threshold is not None:
        value = as_threshold(threshold)
        if value > values.max() or value <= values.min():  # every rate 0 or 1: ratios of 1, "within tolerance"
            where = (f"above every score (the largest is {float(values.max())!r}): no comparison in any group"
                     if value > values.max() else
                     f"at or below every score (the smallest is {float(values.min())!r}): every comparison in every group")
            raise ValueError(f"threshold={value!r} is {where} would be a match, which shows no differential. Is it "
                             "in the scores' unit (0.7, not 70)?")
        return value, "given", None, {}, []
    target = as_number(fmr, "fmr", low=0.0, high=1.0, open_low=True, open_high=True)
    nonmated = np.sort(values[~mated])
    warn_unresolved([target], nonmated.size)
    (resolved,), (precise,) = resolution([target], nonmated.size)
    value = float(threshold_at_fmr_sorted(nonmated, np.array([target]))[0])
    below = int(np.searchsorted(nonmated, value, side="left"))
    accepted, allowed = nonmated.size - below, int(np.floor(target * nonmated.size))
    notes = []
    if accepted < allowed:  # distinct scores reach floor(target·N); ties at the next lower score jump past it
        next_accepted = nonmated.size - int(np.searchsorted(nonmated, nonmated[below - 1], side="left"))
        notes.append(
            f"tied scores: at the threshold set at the target FMR {target:g}, {accepted:,} of {nonmated.size:,} "
            f"non-mated comparisons are false matches (FMR {accepted / nonmated.size:.3g}), fewer than the "
            f"{allowed:,} the target allows; the next lower threshold, the next non-mated score, would accept "
            f"{next_accepted:,} (FMR {next_accepted / nonmated.size:.3g}, above the target), and no threshold lies "
            "between: the report gives the rates of the stricter one"
            + (", where no comparison is a match" if value > values.max() else ""))
    return value, "fmr", target, {"target_resolved": bool(resolved), "target_precise": bool(precise)}, notes


def differential_report(
    table: pd.DataFrame,
    *,
    by: By = "group",
    threshold: float | None = None,
    fmr: float | None = None,
    reference: str | None = None,
    tolerance: float = _DEFAULT_TOLERANCE,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    unit: Unit | None = None,
    cluster: str = "reference_subject",
    extrapolate: bool = True,
    rng: Seed = None,
) -> DifferentialReport:
    """Report demographic differentials: per-group FMR and FNMR at one threshold, with intervals.

    The report an auditor files: every group's rates at the operational threshold with
    binomial and subject-clustered intervals, ratios between groups against a tolerance,
    whether each group's data resolve the target, and the cross-group FMR.

    Read more in the chapter "Audit demographic differentials".

    Parameters
    ----------
    table : pandas.DataFrame
        A score table with the group column(s) of ``by`` (pair-level, or per side
        ``reference_<attr>`` / ``probe_<attr>``) and, for the clustered bootstrap, the
        ``cluster`` column.
    by : str or sequence of str, default "group"
        The grouping attribute(s).
    threshold : float, optional
        The operational threshold, when the system has one (match iff ``score >= threshold``).
    fmr : float, optional
        Instead, a target FMR: the threshold is set at it on **all** the table's non-mated
        scores (homogeneous and cross-group), as a deployed system sets one threshold for
        everyone. Give exactly one of ``threshold`` and ``fmr``. Either way the intervals are
        conditional on the threshold: it is held fixed in every resample, as an operator's
        is, so they leave out the uncertainty of setting it from these data.
    reference : str, optional
        The group every rate is compared to; by default, per rate, the resolved group with
        the lowest rate (so that ratios read "times the best group").
    tolerance : float, default 1.25
        Largest ratio of two groups' error rates taken as no differential. The default is
        the four-fifths rule of the US Uniform Guidelines on Employee Selection Procedures
        (29 CFR 1607.4(D)): a selection rate below 4/5 of the highest is evidence of adverse
        impact; for error rates, a rate above 5/4 of the lowest. It is a convention with
        legal standing, not a law of biometrics: state the tolerance your audit uses.
    confidence : float, default 0.95
        Coverage of every interval.
    n_resamples : int, default 1000
        Bootstrap resamples: at least ``2 / (1 - confidence)`` (40 at 95 %), so that each
        interval has a resample beyond each end (one resample gave a zero-width interval
        that could exclude its estimate, and a verdict from it).
    unit : {"pair", "subject"}, optional
        What the bootstrap resamples. ``"subject"``: subjects within each group, each with
        all its comparisons (a subject's comparisons are not independent); a group whose
        comparisons of one class come from a single subject has no clustered interval and
        is left out of the differentials. ``"pair"``: comparisons. By default
        ``"subject"`` when the table has the ``cluster`` column, else ``"pair"`` (a note
        says so).
    cluster : str, default "reference_subject"
        The subject column (a name the table lacks, other than the default, is an error).
    extrapolate : bool, default True
        For a group whose FMR is unresolved (too few non-mated comparisons for the target,
        and fewer than 3 false matches: see Notes), add a generalised Pareto estimate of its
        FMR (:func:`biofair.extrapolated_fmr`), marked extrapolated, when it has enough
        non-mated scores to fit a tail and the tail's interval is more than the point 0 (a
        bounded tail that ends below the threshold: a note says so, and that [0, 0] is no
        certainty that the FMR is 0).
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed; an integer seed is recorded in the report (``seed``).

    Returns
    -------
    DifferentialReport
        ``groups`` (``to_frame()``), one row per group and ``rate`` (``"fmr"``: homogeneous
        non-mated comparisons, ``"fnmr"``: mated ones), with ``errors``, ``comparisons``,
        ``reference_subjects`` and ``probe_subjects`` (distinct subjects on each side);
        ``target`` (the rate it is asked about: the FMR target or the whole table's rate at
        the threshold), ``smallest_resolved`` (``3/n``, the smallest rate the group resolves)
        and ``smallest_precise`` (``30/n``); ``resolved`` / ``precise``: the larger of the
        target and the group's own rate ``errors/n`` is at least ``3/n`` / ``30/n``, that is
        ``target·n >= 3`` or at least 3 errors (30 for ``precise``; see Notes); ``status``
        (``"resolved"``, ``"unresolved"`` or ``"no comparisons"``); ``estimate``
        (``errors/comparisons``, only when resolved: never a 0 that only means "too few
        comparisons"); ``cp_low`` /
        ``cp_high`` (Clopper-Pearson), ``wilson_low`` / ``wilson_high``, ``bootstrap_low`` /
        ``bootstrap_high`` (subject-clustered percentile interval, resolved groups) and
        ``design_effect`` (bootstrap variance over the binomial ``p(1-p)/n``); ``ratio`` to the
        reference with ``ratio_low`` / ``ratio_high`` and ``ratio_verdict``; ``extrapolated``
        (FMR of an unresolved group from a Pareto tail) with ``extrapolated_low`` /
        ``extrapolated_high``. ``differentials``: per rate, ``max_min`` and ``max_geomean``
        over the resolved groups with intervals and the ``verdict``. ``cross_group``: FMR of
        every reference group x probe group with its counts (NaN where the cell is not
        resolved, by the same rule as a group's FMR).

    Raises
    ------
    SchemaError
        When ``table`` is an invalid score table (see :func:`biofair.validate_scores`) or holds
        several systems or splits, a group column is missing or incomplete (see
        :func:`biofair.group_labels`), there are fewer than two groups, or ``cluster`` names
        no column (other than the default) or mixes numbers and text.
    ValueError
        When both or neither of ``threshold`` and ``fmr`` are given, ``threshold`` is NaN or
        not a float64 number or makes every comparison a match or every one a non-match,
        ``fmr`` or ``confidence`` lies outside (0, 1), ``tolerance`` is not above 1 and finite,
        ``n_resamples`` is below ``2 / (1 - confidence)``, ``unit`` is not "pair", "subject"
        or None, ``reference`` names no group (with the label it may mean: ``'1'`` for
        ``1``), every score is the same, the ``cluster`` column of a bootstrap by subject has
        missing values, ``by`` is empty, names a column twice or names "score" or "mated", or
        ``rng`` is a negative seed.
    TypeError
        When ``table`` is not a pandas DataFrame, ``threshold``, ``fmr``, ``tolerance`` or
        ``confidence`` is not a number, ``n_resamples`` is not an integer, ``extrapolate`` is
        not True or False, ``cluster`` is not a column name, ``by`` is not a column name or a
        list of column names, or ``rng`` is neither a Generator, an integer seed nor None.

    Warns
    -----
    InsufficientComparisonsWarning
        When ``fmr`` is below what all the non-mated scores resolve (3/N).
    ScoreDirectionWarning
        When the ROC AUC of the whole table is below 0.5: mated scores are mostly below
        non-mated ones, as when the scores are distances (negate them first). Not when
        :func:`biofair.read_scores` or :func:`biofair.read_grouped_scores` has said so of
        the table.

    See Also
    --------
    biofair.rates_by_group : The per-group rates alone.
    biofair.cross_group_fmr : The cross-group FMR matrix.
    biofair.extrapolated_fmr : The tail estimate of unresolved groups.
    biofair.inequity : Highest rate over the geometric mean, as the fairness literature defines it.

    Notes
    -----
    Resolution: a group's rate is resolved when the rate in question, the larger of the
    target and the group's observed rate ``k/n``, is at least the smallest rate the group
    resolves, ``3/n`` (the rule of three of ISO/IEC 19795-1): when ``target·n >= 3`` or the
    group has ``k >= 3`` errors; *precise* likewise with 30. The rule keeps out a rate that
    means only "too few comparisons": with fewer than 3 expected errors a count of 0 (or 1
    or 2) cannot bound the rate, and a 0 would read as a perfect group. A group with 3 errors
    or more is not such a case: its own data bound its rate away from 0 (its Clopper-Pearson
    interval says how far), so it gets its estimate, its intervals and its place in the
    differentials (held to the target alone, a group with 5 false non-matches in 40 mated
    comparisons, at a table FNMR of 0.03, was left out: the worst group, hidden). A group
    below both (fewer than 3 errors and ``target·n < 3``) stays unresolved. A compared
    group of fewer than 10 subjects is named in the notes: a bootstrap that resamples so few
    subjects under-covers, and so do the ratios that rest on it; the Clopper-Pearson
    interval beside it does not depend on the subjects (but takes comparisons as
    independent). A resample of subjects that draws none of a group's comparisons of a class
    leaves that rate undefined; its percentile interval and design effect are read from the
    other resamples, and the notes count the resamples left out, per group and rate.

    Decision rule: a ratio's verdict is ``"within tolerance"`` when its interval lies in
    ``[1/tolerance, tolerance]``, ``"exceeds tolerance"`` when it lies wholly outside, else
    ``"inconclusive"`` (the data can tell neither); ``"not assessable"`` when fewer than two
    groups are resolved or a rate is 0 or 1. A resolved group whose bootstrap interval has
    zero width has no ratio: no resample varies its rate, so its pairs' bands would rest on the
    other group alone. So it is without errors, with an error in every comparison (3 false
    non-matches in 3 were "exceeds tolerance" against a group at 0.5), or, resampling subjects,
    with the same error rate for every subject (10 subjects with 1 false non-match in 10 each
    against 10 with 13 in 100 each: a ratio of 1.3 in [1.3, 1.3], "exceeds tolerance", while
    the Clopper-Pearson intervals overlap). A rate's summary verdict is then never ``"within
    tolerance"`` (``"inconclusive"`` instead, with a note comparing Clopper-Pearson ends): the
    other groups' agreement says nothing of it. A resample in which a group of a pair has no errors
    (or no comparisons) gives that pair no finite log ratio; when ``1 - confidence`` of the
    resamples or more do, the pair's interval is ``[0, +inf]`` (unbounded, never within
    tolerance; null in JSON, and listed in the notes), and the other pairs keep theirs, unless
    they too, taken together, have such a resample in ``1 - confidence`` of them or more: their
    shared bands are then unbounded, every ratio with them (several groups each short of
    errors in a few resamples). ``max_min = max_g r_g / min_g r_g`` and
    ``max_geomean = max_g r_g / (prod_g r_g)^(1/K)`` over the K resolved groups. All groups are
    resampled together (independently within each group), so the intervals reflect every
    group's uncertainty. ``max_min`` and ``max_geomean`` are the largest of several log-rate
    contrasts (``|log r_i - log r_j|`` over pairs, ``log r_i - mean log r`` over groups), and
    the largest of K noisy rates over the smallest exceeds 1 in almost every resample: a
    percentile interval of the resampled index lies above 1 for identical groups. Their
    intervals are instead bounds from simultaneous max-t bootstrap bands of the contrasts
    (each ``θ̂_c ± q·s_c``, ``s_c`` the half-width of the replicates' 16th to 84th
    percentiles, ``q`` the ``confidence`` quantile of ``max_c |θ*_c - θ̂_c| / s_c``):
    conservative for K > 2, and for two groups the studentized interval of the one ratio. A
    ratio to the reference has the band of its pair from the same pairwise family, which
    holds for all pairs together: a reference chosen as the lowest rate, and the K - 1 ratios
    read at once, do not make identical groups look unequal, and no ratio's verdict exceeds
    the tolerance unless ``max_min``'s does (a percentile interval per ratio flagged some
    group of 3 identical ones in 1 run of 10). The design effect
    ``deff = var_boot / (p(1-p)/n)`` says by how much clustering inflates the variance:
    binomial intervals assume ``deff = 1`` and are too narrow by about ``sqrt(deff)``.

    References
    ----------
    ISO/IEC 19795-10:2024, quantifying biometric system performance variation across
    demographic groups. P. Grother, M. Ngan and K. Hanaoka, "Face Recognition Vendor Test
    Part 3: Demographic Effects", NISTIR 8280, 2019 (FMR and FNMR per group at one
    threshold, cross-group FMR). C. J. Clopper and E. S. Pearson, Biometrika 26, 1934;
    E. B. Wilson, JASA 22, 1927. ISO/IEC 19795-1:2021 (rule of three).

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.synthetic.demographic_scores(rng=0)
    >>> report = bf.differential_report(table, by="group", fmr=1e-2, n_resamples=200, rng=0)
    >>> report.to_frame().query("rate == 'fmr'")[["group", "errors", "comparisons", "status", "estimate"]]
      group  errors  comparisons      status  estimate
    0     a      26         2361    resolved  0.011012
    2     b      50         2415    resolved  0.020704
    4     c       2          182  unresolved       NaN
    >>> report.differentials[["rate", "max_min", "verdict"]]
       rate   max_min            verdict
    0   fmr  1.880076       inconclusive
    1  fnmr  2.793103  exceeds tolerance
    """
    _validate_score_set(table, name="table")
    check_flag(extrapolate, "extrapolate")
    attributes = _attributes_of(by)
    tolerance = as_number(tolerance, "tolerance", low=1.0, open_low=True)
    confidence = as_number(confidence, "confidence", low=0.0, high=1.0, open_low=True, open_high=True)
    n_resamples = as_count(n_resamples, "n_resamples")
    check_resamples(n_resamples, confidence)  # the verdicts read the intervals' ends
    seed = int(rng) if isinstance(rng, numbers.Integral) else None  # the report's record: a rerun draws the same
    rng = as_rng(rng)  # (a bool, or a negative seed, is refused here)
    values = table["score"].to_numpy(dtype=np.float64)
    mated = table["mated"].to_numpy(dtype=bool)
    if values.size and values.min() == values.max():
        raise ValueError(f"every score is {float(values[0])!r}: equal scores cannot tell mated from non-mated "
                         "comparisons; check that the score column holds the comparison scores")
    codes, names = _group_codes(table, by)
    if len(names) < 2:
        raise SchemaError(f"a differential needs at least two groups; by={by!r} gives {len(names)}")
    if reference is not None and reference not in names:
        meant = [name for name in names if str(name) == str(reference)]  # 1 for the label '1'
        raise ValueError(f"reference={reference!r} names no group; the groups are {names}"
                         + (f"; did you mean reference={meant[0]!r}?" if meant else ""))
    thr, source, target_fmr, target_resolution, notes = _operational_threshold(values, mated, threshold, fmr)

    errors = np.where(mated, values < thr, values >= thr)
    overall = {"n_mated": int(mated.sum()), "n_nonmated": int((~mated).sum()),
               "false_non_matches": int(errors[mated].sum()), "false_matches": int(errors[~mated].sum())}
    overall["fnmr"] = overall["false_non_matches"] / overall["n_mated"]
    overall["fmr"] = overall["false_matches"] / overall["n_nonmated"]
    overall.update(target_resolution)
    targets = {"fmr": target_fmr if target_fmr is not None else overall["fmr"], "fnmr": overall["fnmr"]}
    subjects = _cluster_column(table, unit, cluster, notes)
    warn_if_reversed(table)  # distances in a table: every rate below would be reversed

    groups, replicates = _counts_and_replicates(table, codes, names, errors, subjects, n_resamples, rng)
    groups = _sufficiency(groups, targets, confidence)
    boot = _bootstrap_columns(groups, replicates, confidence, notes)
    references, differential_rows = {}, []
    groups["ratio"] = groups["ratio_low"] = groups["ratio_high"] = np.nan
    groups["ratio_verdict"] = _NOT_ASSESSABLE
    for rate in _RATES:
        references[rate], row = _ratios(groups, rate, boot, reference, tolerance, confidence, notes)
        differential_rows.append(row)
    unbounded = sorted({f"{r['rate'].upper()} {r['group']!r}" for _, r in groups.iterrows() if r["ratio_high"] == np.inf}
                       | {f"{r['rate'].upper()} {name}" for r in differential_rows for name in ("max_min", "max_geomean")
                          if r[f"{name}_high"] == np.inf})
    if unbounded:
        notes.append("unbounded intervals (upper end +inf, null in JSON): in too many resamples a group of the pair "
                     "has no errors, or one compared group or another has none in at least "
                     f"{percent(1 - confidence)} of the resamples, which leaves the bands that all pairs share "
                     "unbounded: " + ", ".join(unbounded))
    groups["extrapolated"] = groups["extrapolated_low"] = groups["extrapolated_high"] = np.nan
    if extrapolate:
        _extrapolate(groups, values[~mated], codes[~mated], names, thr, confidence, notes)

    cross = None
    if all(f"reference_{a}" in table.columns and f"probe_{a}" in table.columns for a in attributes):
        cross = _cross_group_counts(table, thr, by=by).rename(columns={"accepted": "false_matches"})
        cross["resolved"] = rate_resolution(np.full(len(cross), targets["fmr"]), cross["false_matches"].to_numpy(),
                                            cross["comparisons"].to_numpy())[0]
        cross["fmr"] = cross["fmr"].where(cross["resolved"])  # never a 0 that means "too few"
    position = {name: i for i, name in enumerate(names)}  # the groups' order (2, 9, 10; not as text)
    groups = groups[_COLUMNS].sort_values(["group", "rate"], key=lambda c: c.map(position) if c.name == "group" else c,
                                          kind="stable")
    groups.index = range(len(groups))
    return DifferentialReport(groups, _differentials_table(differential_rows), cross, thr, source, target_fmr, overall,
                              attributes, references, tolerance, confidence, n_resamples, subjects, notes,
                              seed=seed)


def _differentials_table(rows: list[dict]) -> pd.DataFrame:
    """The differentials rows as a table whose group names (``reference``, ``highest_group``,
    ``lowest_group``) are None where a rate has none: pandas would read a column of names as text
    and hold a missing one as NaN, which a page prints as "nan"."""
    table = pd.DataFrame(rows)
    for column in ("reference", "highest_group", "lowest_group"):
        table[column] = pd.Series([row[column] for row in rows], index=table.index, dtype=object)
    return table


def _cluster_column(table: pd.DataFrame, unit: Unit | None, cluster: str, notes: list[str]) -> str | None:
    """The subject column the bootstrap resamples, or None for comparisons; when the default
    column is absent and ``unit`` was not given, a note says that comparisons are resampled."""
    column = _resampled_cluster(table, unit, cluster)
    if column is not None:
        check_subject_in_every_row(table[column], column)
        _check_ids_of_one_kind({f"column {column!r}": table[column]})  # 1 and "1": two subjects
    elif unit is None:
        notes.append(f"no column {cluster!r}: the bootstrap resamples comparisons as if they were "
                     "independent (intervals too narrow when a subject has several comparisons)")
    return column


_COLUMNS = ["group", "rate", "status", "estimate", "errors", "comparisons", "reference_subjects", "probe_subjects",
            "target", "resolved", "precise", "smallest_resolved", "smallest_precise", "cp_low", "cp_high",
            "wilson_low", "wilson_high", "bootstrap_low", "bootstrap_high", "design_effect", "ratio", "ratio_low",
            "ratio_high", "ratio_verdict", "extrapolated", "extrapolated_low", "extrapolated_high"]


def _counts_and_replicates(table: pd.DataFrame, codes: NDArray, names: list[str], errors: NDArray,
                           subjects: str | None, n_resamples: int,
                           rng: np.random.Generator) -> tuple[pd.DataFrame, dict[str, NDArray]]:
    """Per group and rate: errors, comparisons and distinct subjects per side; per group, the
    ``(B, 2)`` bootstrap replicates of (FMR, FNMR), resampling subjects within the group
    (or comparisons, as binomial draws of the same law, when there is no subject column)."""
    mated = table["mated"].to_numpy(dtype=bool)
    side_subjects = all(f"{s}_subject" in table.columns for s in ("reference", "probe"))
    rows, replicates = [], {}
    for code, name in enumerate(names):  # a loop over groups; each step is vectorised
        in_group = codes == code
        chosen = {"fmr": in_group & ~mated, "fnmr": in_group & mated}
        k = np.array([errors[chosen[r]].sum() for r in _RATES])
        n = np.array([chosen[r].sum() for r in _RATES])
        if subjects:
            clusters = pd.factorize(table[subjects].to_numpy()[in_group], sort=True)[0]  # row order: no effect
            size = clusters.max() + 1
            of_rate = [chosen[r][in_group] for r in _RATES]
            e = np.stack([np.bincount(clusters[c], weights=errors[in_group][c], minlength=size) for c in of_rate], 1)
            t = np.stack([np.bincount(clusters[c], minlength=size) for c in of_rate], 1).astype(np.float64)
            replicates[name] = _clustered_replicates(e, t, n_resamples, rng)
            n_clusters = (t > 0).sum(0)
            replicates[name][:, n_clusters == 1] = np.nan  # one subject: resampling it shows no variation
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                replicates[name] = rng.binomial(n, np.where(n > 0, k / np.maximum(n, 1), 0), (n_resamples, 2)) / n
        for column, rate in enumerate(_RATES):
            row = {"group": name, "rate": rate, "errors": int(k[column]), "comparisons": int(n[column]),
                   "reference_subjects": np.nan, "probe_subjects": np.nan,
                   "clusters": int(n_clusters[column]) if subjects else np.nan}
            if side_subjects:
                row["reference_subjects"] = table["reference_subject"][chosen[rate]].nunique()
                row["probe_subjects"] = table["probe_subject"][chosen[rate]].nunique()
            rows.append(row)
    return pd.DataFrame(rows), replicates


def _sufficiency(groups: pd.DataFrame, targets: dict, confidence: float) -> pd.DataFrame:
    """Add the target, the resolution of the rate, the smallest resolved rates, the status, the
    estimate (only where resolved) and the binomial intervals."""
    n, k = groups["comparisons"].to_numpy(), groups["errors"].to_numpy()
    groups["target"] = groups["rate"].map(targets).astype(float)
    resolved, precise = rate_resolution(groups["target"].to_numpy(), k, n)
    groups["resolved"], groups["precise"] = resolved, precise
    some = np.maximum(n, 1)
    groups["smallest_resolved"] = np.where(n > 0, RESOLVED / some, np.nan)
    groups["smallest_precise"] = np.where(n > 0, PRECISE / some, np.nan)
    groups["status"] = np.where(n == 0, _NO_COMPARISONS, np.where(resolved, _RESOLVED, _UNRESOLVED))
    groups["estimate"] = np.where(resolved, k / some, np.nan)
    groups["cp_low"], groups["cp_high"], groups["wilson_low"], groups["wilson_high"] = binomial_intervals(k, n, confidence)
    return groups


def _bootstrap_columns(groups: pd.DataFrame, replicates: dict, confidence: float,
                       notes: list[str]) -> dict[int, NDArray]:
    """Add the bootstrap interval and design effect of every resolved row; return each row's
    replicates. A resample that draws none of a group's comparisons of a class leaves its rate
    undefined; the interval is read from the other resamples, and the notes say how many."""
    boot, undefined = {}, {rate: [] for rate in _RATES}
    groups["bootstrap_low"] = groups["bootstrap_high"] = groups["design_effect"] = np.nan
    for i, row in groups.iterrows():
        boot[i] = replicates[row["group"]][:, _RATES.index(row["rate"])]
        if row["status"] != _RESOLVED:
            continue
        p, finite = row["estimate"], boot[i][np.isfinite(boot[i])]
        if finite.size == 0:  # a single subject: no clustered interval
            continue
        if finite.size < boot[i].size:
            undefined[row["rate"]].append(f"{row['group']!r} ({boot[i].size - finite.size} of the {boot[i].size} "
                                          "resamples drew none)")
        groups.loc[i, ["bootstrap_low", "bootstrap_high"]] = interval(
            finite, p, lambda: [], method="percentile", confidence=confidence)
        if 0 < p < 1:
            groups.loc[i, "design_effect"] = float(finite.var() / (p * (1 - p) / row["comparisons"]))
    notes.extend(f"{rate.upper()}: bootstrap intervals and design effects from the resamples that drew comparisons "
                 "of the group (a resample of subjects can draw none, which leaves the rate undefined): "
                 + ", ".join(names) for rate, names in undefined.items() if names)
    return boot


def _compared_rows(groups: pd.DataFrame) -> pd.Series:
    """Which rows of a report's groups table enter the differentials: the resolved ones whose
    bootstrap interval has a width. A rate that no resample varies (0, 1, or the same rate for
    every subject) has an interval of zero width, and a single subject none (NaN)."""
    return (groups["status"] == _RESOLVED) & (groups["bootstrap_high"] > groups["bootstrap_low"])


def _ratios(groups: pd.DataFrame, rate: str, boot: dict, reference: str | None, tolerance: float,
            confidence: float, notes: list[str]) -> tuple[str | None, dict]:
    """Fill the ratio columns of one rate's rows; return its reference and differentials row."""
    part = groups[groups["rate"] == rate]
    compared = (part["status"] == _RESOLVED) & (part["clusters"] != 1)
    usable = part[_compared_rows(part)]
    left_out = part[~part.index.isin(usable.index)]
    excluded = list(left_out["group"])
    if excluded:  # each group under the reason that left it out
        why = np.where(left_out["status"] != _RESOLVED, left_out["status"],
                       np.where(left_out["clusters"] == 1, "one subject (a subject-clustered interval needs two or more)",
                                np.where(left_out["estimate"] == 0, "a rate of 0",
                                         np.where(left_out["estimate"] == 1,
                                                  "a rate of 1 (an error in every comparison, which no resample varies)",
                                                  _ZERO_WIDTH))))
        reasons = {reason: [g for g, r in zip(excluded, why) if r == reason] for reason in dict.fromkeys(why)}
        notes.append(f"{rate.upper()}: left out of the differentials: " + "; ".join(
            f"{reason}: {', '.join(map(repr, names))}" for reason, names in reasons.items()))  # 'F' and 'F ' look alike
    few = usable[usable["clusters"] < _FEW_SUBJECTS]  # NaN (comparisons resampled): never
    if len(few):
        notes.append(f"{rate.upper()}: subject-bootstrap intervals on fewer than {_FEW_SUBJECTS} subjects: "
                     + ", ".join(f"{g!r} ({how_many(int(c), 'subject')})"
                                 for g, c in zip(few["group"], few["clusters"]))
                     + "; a bootstrap that resamples so few subjects understates the uncertainty, and so do the "
                     "ratios and verdicts that rest on it: read each group's Clopper-Pearson interval too, which does "
                     "not depend on the subjects (but takes the comparisons as independent)")
    if reference is None and len(usable):
        reference = usable.loc[usable["estimate"].idxmin(), "group"]
    if reference is not None and reference not in set(usable["group"]):
        notes.append(f"{rate.upper()}: the reference group {reference!r} is not among the compared groups (see above); no ratios to it")
    row, pair_bands = _differentials(rate, usable, boot, excluded, reference, tolerance, confidence)
    # A resolved group whose rate no resample varies has no ratio, and the compared groups' agreement says nothing
    # of it. (A verdict within tolerance needs two compared groups, so their Clopper-Pearson ends exist.)
    fixed = part[compared & ~part.index.isin(usable.index)]
    edges = [(fixed[fixed["estimate"] == 0], "made no errors",
              lambda at: f"the compared groups' largest Clopper-Pearson lower end is "
                         f"{usable['cp_low'].max() / at['cp_high'].min():.3g} times the smallest upper end of those "
                         "without errors"),
             (fixed[fixed["estimate"] == 1], "made an error in every comparison (a rate of 1)",
              lambda at: f"the smallest Clopper-Pearson lower end of those is "
                         f"{at['cp_low'].min() / usable['cp_high'].max():.3g} times the compared groups' largest upper end"),
             (fixed[(fixed["estimate"] > 0) & (fixed["estimate"] < 1)], f"got {_ZERO_WIDTH}",
              lambda at: "the Clopper-Pearson intervals, which do not rest on the subjects: " + ", ".join(
                  f"{g!r} [{low:.3g}, {high:.3g}]" for g, low, high in zip(at["group"], at["cp_low"], at["cp_high"]))
              + f"; the compared groups' span [{usable['cp_low'].min():.3g}, {usable['cp_high'].max():.3g}]")]
    if row["verdict"] == _WITHIN and any(len(at) for at, _, _ in edges):
        row["verdict"] = _INCONCLUSIVE
        notes.extend(f"{rate.upper()}: {', '.join(map(repr, at['group']))} {did} and "
                     f"{'has' if len(at) == 1 else 'have'} no ratio, so the verdict is inconclusive, not within "
                     f"tolerance, whatever the compared groups show; {spread(at)}" for at, did, spread in edges if len(at))
    if reference in set(usable["group"]):
        base = list(usable["group"]).index(reference)
        for position, i in enumerate(usable.index):
            estimate, base_estimate = usable.loc[i, "estimate"], usable.iloc[base]["estimate"]
            band = 0.0 if position == base else pair_bands[tuple(sorted((position, base)))]
            # the pair's max/min and its interval, as _differentials has them; a ratio below 1 their reciprocals, which
            # keep its verdict (0.08 / 0.1 is 0.7999999999999999, below 1/1.25, where 0.1 / 0.08 is 1.25, within it)
            pair = max(estimate, base_estimate) / min(estimate, base_estimate) * np.exp([0.0, -band, band])
            with np.errstate(divide="ignore"):  # an unbounded band: 1 / 0
                groups.loc[i, ["ratio", "ratio_low", "ratio_high"]] = (
                    pair if estimate >= base_estimate else 1 / pair[[0, 2, 1]])
            groups.loc[i, "ratio_verdict"] = "reference" if position == base else _verdict(
                groups.loc[i, "ratio_low"], groups.loc[i, "ratio_high"], tolerance)
    return reference, row


def _extrapolate(groups: pd.DataFrame, nonmated: NDArray, codes: NDArray, names: list[str], threshold: float,
                 confidence: float, notes: list[str]) -> None:
    """Fill in the generalised Pareto FMR of every unresolved group with scores enough for a tail
    whose interval is more than the point 0 (see :func:`biofair.extrapolated_fmr`'s warning)."""
    refused = {}  # group: why its tail could not be fitted
    for i in groups.index[(groups["rate"] == "fmr") & (groups["status"] == _UNRESOLVED)]:
        name = groups.loc[i, "group"]
        try:
            with warnings.catch_warnings():
                for said_below in (_POINT_ZERO, _UNDERFLOW):  # in a note
                    warnings.filterwarnings("ignore", said_below, UserWarning)
                tail = extrapolated_fmr(nonmated[codes == names.index(name)], threshold, confidence=confidence)
        except (ValueError, OverflowError) as error:  # too few scores; a threshold too far for float64
            refused[name] = str(error)
            continue
        if tail.high == 0:  # [0, 0] is no certainty of 0
            ends = tail.shape < 0 and tail.tail_start - tail.scale / tail.shape < threshold
            refused[name] = (f"the tail fitted to the top {tail.n_tail:,} of its {tail.n_nonmated:,} non-mated scores "
                             f"(shape {tail.shape:.2f}) "
                             + ("ends below the threshold, where the model gives 0" if ends else
                                "reaches the threshold with an FMR below the smallest float64, written 0")
                             + " in [0, 0]: no certainty that the FMR is 0 (see biofair.extrapolated_fmr)")
            continue
        groups.loc[i, ["extrapolated", "extrapolated_low", "extrapolated_high"]] = tail.estimate, tail.low, tail.high
    if len(refused) <= _NOTES_PER_KIND:
        notes.extend(f"FMR of {name!r} not extrapolated: {why}" for name, why in refused.items())
    else:  # hundreds of small groups: one note, not one per group
        first, why = next(iter(refused.items()))
        notes.append(f"FMR of {len(refused)} groups not extrapolated ({', '.join(map(repr, refused))}); for "
                     f"{first!r}: {why}")


def _differentials(rate: str, usable: pd.DataFrame, boot: dict, excluded: list, reference: str | None,
                   tolerance: float, confidence: float) -> tuple[dict, dict]:
    """One row of the differentials table: max/min and max/geometric mean with intervals; and
    the simultaneous band half-width of every pairwise log ratio, keyed by the pair of positions
    ``(i, j)``, ``i < j``, in ``usable`` (empty with fewer than two groups), from which the
    ratios to the reference take their intervals."""
    row = {"rate": rate, "groups_compared": len(usable), "excluded": "; ".join(excluded), "reference": reference,
           "highest_group": None, "lowest_group": None}
    estimates = usable["estimate"].to_numpy(dtype=np.float64)
    for name in ("max_min", "max_geomean"):
        row.update({name: np.nan, f"{name}_low": np.nan, f"{name}_high": np.nan})
    row["tolerance"], row["verdict"] = tolerance, _NOT_ASSESSABLE
    pair_bands: dict = {}
    if len(usable) < 2:
        return row, pair_bands
    reps = np.stack([boot[i] for i in usable.index], axis=1)  # NaN: a resample without a group's comparisons
    logs = np.log(estimates)
    with np.errstate(divide="ignore"):  # a resample's rate of 0: log -inf, an infinite ratio
        log_reps = np.log(reps)
    k = len(usable)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    contrasts = {  # log max/min is the largest |log r_i - log r_j|; log max/geomean the largest log r_i - mean
        "max_min": (lambda i, j: logs[i] - logs[j], lambda i, j: log_reps[:, i] - log_reps[:, j], pairs, True),
        "max_geomean": (lambda i: logs[i] - logs.mean(), lambda i: log_reps[:, i] - log_reps.mean(axis=1),
                        [(i,) for i in range(k)], False),
    }
    # exp|θ̂_c| of a pair as one division, as its ratio to the reference is: the exp of the log difference was
    # off by ulps (0.1 over 0.08 gave 1.2500000000000004, beyond a tolerance of 1.25 its ratio 1.25 was within)
    pair_quotients = np.array([max(estimates[i], estimates[j]) / min(estimates[i], estimates[j]) for i, j in pairs])
    for name, (value, replicate, indices, absolute) in contrasts.items():
        values = np.array([value(*c) for c in indices])
        quotients = pair_quotients if absolute else np.exp(values)  # exp(0) = 1 for identical groups
        estimate = float(np.max(quotients))
        with np.errstate(invalid="ignore"):  # -inf - -inf: a pair's rates both 0 in a resample, undefined
            bands = _max_t_bands(values, [replicate(*c) for c in indices], len(reps), confidence)
        low, high = _largest_contrast_bounds(quotients, bands)
        if name == "max_min":
            pair_bands = dict(zip(indices, bands))
        row.update({name: estimate, f"{name}_low": low, f"{name}_high": high})
    row["highest_group"] = usable["group"].iloc[int(estimates.argmax())]
    row["lowest_group"] = usable["group"].iloc[int(estimates.argmin())]
    row["verdict"] = _verdict(row["max_min_low"], row["max_min_high"], tolerance)
    return row, pair_bands


def _max_t_bands(estimates: NDArray, replicates: list[NDArray], n_resamples: int, confidence: float) -> NDArray:
    """Half-widths ``q·s_c`` of simultaneous max-t bootstrap bands of the log-rate contrasts
    ``θ_c``, each with its estimate ``θ̂_c`` and replicates ``θ*_c``.

    ``s_c`` is half the distance between the 16th and 84th percentiles of the defined
    replicates (a standard error that a few infinite replicates do not make infinite), and
    ``t_c = |θ*_c - θ̂_c| / s_c``, infinite where a replicate is undefined (a group without
    errors or comparisons in the resample). A contrast whose ``t_c`` is infinite in
    ``1 - confidence`` of the resamples or more (the ``"higher"`` quantile) gets an unbounded
    band of its own; the others share ``q``, the ``confidence`` quantile over the resamples of
    their largest ``t_c``, so that they lie in their bands ``θ̂_c ± q·s_c`` together,
    whichever a reader then singles out (the one to a reference chosen as the lowest rate, or
    the largest). One unstable group leaves the contrasts without it bounded; several groups,
    each without errors in a few resamples, can together make ``q``, and every band, infinite.
    """
    t = np.empty((len(estimates), n_resamples))
    spreads = np.full(len(estimates), np.nan)
    for c, (estimate, replicate) in enumerate(zip(estimates, replicates)):
        defined = replicate[~np.isnan(replicate)]
        if defined.size:
            lower, upper = (np.quantile(defined, q, method=m) for q, m in ((0.16, "lower"), (0.84, "higher")))
            spreads[c] = (upper - lower) / 2
        deviation = np.abs(replicate - estimate)
        with np.errstate(divide="ignore", invalid="ignore"):  # a spread of 0: x / 0 an infinite t, 0 / 0 dropped
            t[c] = np.where(deviation == 0, 0.0, deviation / spreads[c])
    t[np.isnan(t)] = np.inf
    bounded = np.quantile(t, confidence, axis=1, method="higher") < np.inf
    band = np.full(len(estimates), np.inf)
    if bounded.any():
        q = np.quantile(t[bounded].max(axis=0), confidence, method="higher")
        band[bounded] = q * spreads[bounded]
    return np.where(np.isnan(band), np.inf, band)  # inf · 0


def _largest_contrast_bounds(quotients: NDArray, bands: NDArray) -> tuple[float, float]:
    """The bounds of ``max_c exp(θ_c)`` (of ``exp(|θ_c|)`` for max/min), from each contrast's
    ``exp(θ̂_c)`` (``quotients``, at least 1 for the largest) and simultaneous bands ``θ̂_c ± b_c``
    (:func:`_max_t_bands`): ``[max_c exp(θ̂_c - b_c), max_c exp(θ̂_c + b_c)]``, the lower one
    clipped at 1 (both indices are at least 1; with ``|θ̂_c| - b_c`` for max/min). Each is
    ``quotient·exp(±b_c)``, so that a band of 0 gives the quotient itself, as a ratio to the
    reference does. A percentile interval of the resampled largest contrast would not do: the
    largest of K noisy rates over the smallest exceeds 1 in almost every resample, so
    identical groups got an interval above 1."""
    low, high = np.max(quotients * np.exp(-bands)), np.max(quotients * np.exp(bands))
    return float(max(low, 1.0)), float(high)
