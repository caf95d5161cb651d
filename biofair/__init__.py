"""biofair: how good and how fair a biometric verification system is, from its scores.

Conventions (see the book's conventions page): higher score = more similar; a comparison
is a match iff ``score >= threshold``; rates are fractions in [0, 1]; metric functions
take ``(mated, nonmated)`` arrays positionally and options by keyword.
"""

from __future__ import annotations

from biofair import plotting, synthetic
from biofair.areas import log_fmr_auc, partial_auc, pr_auc, roc_auc
from biofair.curves import DetCurve, RocCurve, det_curve, roc_curve
from biofair.decidability import decidability
from biofair.detection_cost import min_dcf
from biofair.equal_error_rate import EqualErrorRate, eer
from biofair.exceptions import InsufficientComparisonsWarning, SchemaError, UndefinedRateWarning
from biofair.io import read_scores
from biofair.rates import (
    ErrorRates,
    OperatingPoint,
    fmr_fnmr,
    operating_point,
    threshold_at_fmr,
    tmr_at_fmr,
)
from biofair.report import operating_report
from biofair.schema import CANONICAL_COLUMNS, split_scores, validate_scores
from biofair.versions import show_versions

__version__ = "0.1.0"

__all__ = [
    "CANONICAL_COLUMNS",
    "DetCurve",
    "EqualErrorRate",
    "ErrorRates",
    "InsufficientComparisonsWarning",
    "OperatingPoint",
    "RocCurve",
    "SchemaError",
    "UndefinedRateWarning",
    "decidability",
    "det_curve",
    "eer",
    "fmr_fnmr",
    "log_fmr_auc",
    "min_dcf",
    "operating_point",
    "operating_report",
    "partial_auc",
    "plotting",
    "pr_auc",
    "read_scores",
    "roc_auc",
    "roc_curve",
    "show_versions",
    "split_scores",
    "synthetic",
    "threshold_at_fmr",
    "tmr_at_fmr",
    "validate_scores",
]
