"""biofair: how good and how fair a biometric verification system is, from its scores.

Conventions (see the book's conventions page): higher score = more similar; a comparison
is a match iff ``score >= threshold``; rates are fractions in [0, 1]; metric functions
take ``(mated, nonmated)`` arrays positionally (a required threshold or target may follow)
and every optional setting by keyword. ``__all__`` is the public API; modules and names with
a leading underscore are not.
"""

from __future__ import annotations

from biofair import datasets, mitigation, normalisation, partitions, plotting, synthetic
from biofair.areas import BoundedValue, log_fmr_auc, partial_auc, pr_auc, roc_auc
from biofair.bootstrap import (
    BootstrapResult,
    PairedResult,
    bootstrap,
    paired_bootstrap,
    ranking_flips,
)
from biofair.calibration import (
    LogisticCalibration,
    actual_dcf,
    bayes_error_rates,
    calibration_by_group,
    calibration_fairness,
    cllr,
    fit_logistic_calibration,
    min_cllr,
    pav_llrs,
)
from biofair.curves import DetCurve, RocCurve, det_curve, roc_curve
from biofair.decidability import decidability
from biofair.detection_cost import min_dcf
from biofair.differentials import DifferentialReport, differential_report
from biofair.discrepancy import area_under_fdr, fairness_discrepancy_rate
from biofair.dispersion import OutcomeFairness, garbe, inequity, outcome_fairness
from biofair.distribution_fairness import (
    EquityIndex,
    automatic_comprehensive_equity_index,
    comprehensive_equity_index,
    distribution_fairness_index,
)
from biofair.equal_error_rate import EqualErrorRate, eer
from biofair.exceptions import (
    CoarseHistogramWarning,
    InsufficientComparisonsWarning,
    PermutationNullWarning,
    SchemaError,
    ScoreDirectionWarning,
    UndefinedRateWarning,
)
from biofair.extrapolation import TailEstimate, extrapolated_fmr, extrapolated_threshold, subsample_coverage
from biofair.groups import (
    GroupRates,
    GroupScores,
    ScoresByGroup,
    add_subject_attributes,
    cross_group_fmr,
    group_labels,
    group_sizes,
    rates_by_group,
    scores_by_group,
)
from biofair.identification import (
    cmc,
    identification_discrepancy_rate,
    identification_rates,
    probe_outcomes,
    probe_outcomes_from_matrix,
    rank_n_differential,
    threshold_at_fpir,
)
from biofair.io import read_grouped_scores, read_scores
from biofair.permutation import PermutationNull, permutation_null
from biofair.rates import (
    ErrorRates,
    OperatingPoint,
    fmr_fnmr,
    operating_point,
    threshold_at_fmr,
    tmr_at_fmr,
)
from biofair.reproduction import reproduction_ledger
from biofair.schema import CANONICAL_COLUMNS, split_scores, validate_scores
from biofair.summaries import fairness_summary, operating_summary
from biofair.subset_bias import (
    equal_opportunity,
    n_sigma,
    statistical_parity,
    subset_bias,
    subset_performance,
    welch_similarity,
)
from biofair.versions import show_versions

__version__ = "0.1.0"

__all__ = [
    "BootstrapResult",
    "BoundedValue",
    "CANONICAL_COLUMNS",
    "CoarseHistogramWarning",
    "DetCurve",
    "DifferentialReport",
    "EqualErrorRate",
    "EquityIndex",
    "ErrorRates",
    "GroupRates",
    "GroupScores",
    "InsufficientComparisonsWarning",
    "LogisticCalibration",
    "OperatingPoint",
    "OutcomeFairness",
    "PairedResult",
    "PermutationNull",
    "PermutationNullWarning",
    "RocCurve",
    "SchemaError",
    "ScoreDirectionWarning",
    "ScoresByGroup",
    "TailEstimate",
    "UndefinedRateWarning",
    "actual_dcf",
    "add_subject_attributes",
    "area_under_fdr",
    "automatic_comprehensive_equity_index",
    "bayes_error_rates",
    "bootstrap",
    "calibration_by_group",
    "calibration_fairness",
    "cllr",
    "cmc",
    "comprehensive_equity_index",
    "cross_group_fmr",
    "datasets",
    "decidability",
    "det_curve",
    "differential_report",
    "distribution_fairness_index",
    "eer",
    "equal_opportunity",
    "extrapolated_fmr",
    "extrapolated_threshold",
    "fairness_discrepancy_rate",
    "fairness_summary",
    "fit_logistic_calibration",
    "fmr_fnmr",
    "garbe",
    "group_labels",
    "group_sizes",
    "identification_discrepancy_rate",
    "identification_rates",
    "inequity",
    "log_fmr_auc",
    "min_cllr",
    "min_dcf",
    "mitigation",
    "n_sigma",
    "normalisation",
    "operating_point",
    "operating_summary",
    "outcome_fairness",
    "paired_bootstrap",
    "partial_auc",
    "pav_llrs",
    "permutation_null",
    "plotting",
    "pr_auc",
    "probe_outcomes",
    "probe_outcomes_from_matrix",
    "rank_n_differential",
    "ranking_flips",
    "rates_by_group",
    "read_grouped_scores",
    "read_scores",
    "reproduction_ledger",
    "roc_auc",
    "roc_curve",
    "scores_by_group",
    "show_versions",
    "split_scores",
    "statistical_parity",
    "subsample_coverage",
    "subset_bias",
    "subset_performance",
    "synthetic",
    "threshold_at_fmr",
    "threshold_at_fpir",
    "tmr_at_fmr",
    "validate_scores",
    "welch_similarity",
]
