"""Exact fairness and performance metrics over partitioned score sets too large for one machine.

Every function reads a ``dask.dataframe.DataFrame`` (or a Parquet path or glob) with the
canonical columns, computes a small summary of each partition (counts at thresholds,
histograms on fixed edges, the distinct values inside a few bins), adds the summaries up
and derives the metric from the sum. The scores are never gathered in one place. Read
more in the chapter "When the evaluation outgrows one machine" (``notebooks/14``).

The passes over the data:

1. census (:func:`biofair.partitions.census`): the group names, comparisons per group
   and class, the score range, and every problem (missing column, NaN scores, missing
   group labels, a group without a class); on speculation, the locating histograms of both
   classes and of the pooled homogeneous non-mated scores, on bins that need no range;
2. refinement (after a locating histogram, which only CEI's per-group percentiles need a
   pass for): exact order statistics, hence thresholds at target FMRs, CEI's percentiles,
   the EER;
3. counts at thresholds per group and class: exact rates, hence TMR at FMR, FDR, GARBE
   and Inequity; histograms on fixed edges: DFI and CEI exactly, ROC-AUC and partial AUC
   bounded;
4. the Poisson bootstrap for intervals.

A :class:`biofair.partitions.Partitioned` (from :func:`biofair.partitions.partitioned`)
carries what these passes find: the functions called with it reuse its census, its locating
histograms, its refined bins, its thresholds at target FMRs and its counts at thresholds, and
a pass collects on speculation what a later call would read again (the thresholds'
refinement also refines the bins the EER needs; a counting pass also counts at the pooled
thresholds found before, for FDR), so that the census, thresholds, per-group rates, FDR and
EER of an audit take three passes. Each pass reads only the columns it needs (a task per
Parquet file reads and computes) and runs on the Dask scheduler given to ``partitioned(...,
scheduler="tcp://host:8786")`` (a distributed cluster) or else on Dask's current one.

What is exact equals the in-memory function's result bit for bit; what can only be bounded
(the ROC areas) comes as the same :class:`biofair.BoundedValue` as in memory, with its
``low`` and ``high``. Every function has the in-memory function's name, option names,
option order, option types and return type; options that exist only out of core (``bins``
of the areas, ``max_passes`` of the EER) come last. Requires the optional dependencies
``biofair[dask]``.

Scores are similarities (a match iff ``score >= threshold``), as in memory. Distances are
negated as they are read, which is what ``biofair.read_scores(..., greater_is_match=False)``
does: ``dd.read_parquet(path).assign(score=lambda f: -f["score"])``. A
:class:`~biofair.partitions.Partitioned` of local Parquet files read as they are (a path, or
``dd.read_parquet``) describes them as its first pass found them: a file whose size or
modification time has changed since, or that is gone, is refused rather than mixed with
what was counted. A frame transformed after reading (the distances above) is not checked:
read it again after its files change.
"""

from biofair.partitions import _order_statistics
from biofair.partitions.areas import partial_auc, roc_auc
from biofair.partitions.bootstrap import poisson_bootstrap
from biofair.partitions.census import Census, Partitioned, census, partitioned
from biofair.partitions.distribution_fairness import (
    automatic_comprehensive_equity_index,
    comprehensive_equity_index,
    distribution_fairness_index,
)
from biofair.partitions.equal_error_rate import eer
from biofair.partitions.rates import fairness_discrepancy_rate, group_rates_at, outcome_fairness, rates_by_group
from biofair.partitions.thresholds import pooled_thresholds, tmr_at_fmr

#: The default ``bins`` of the bounded ROC areas (equal-width bins over the scores). The
#: locating histogram that finds exact order statistics (thresholds, CEI's percentiles, the
#: EER) has 2**18 bins that need no score range.
AREA_BINS = _order_statistics.AREA_BINS

__all__ = [
    "AREA_BINS",
    "Census",
    "Partitioned",
    "automatic_comprehensive_equity_index",
    "census",
    "comprehensive_equity_index",
    "distribution_fairness_index",
    "eer",
    "fairness_discrepancy_rate",
    "group_rates_at",
    "outcome_fairness",
    "partial_auc",
    "partitioned",
    "pooled_thresholds",
    "poisson_bootstrap",
    "rates_by_group",
    "roc_auc",
    "tmr_at_fmr",
]
