"""Errors and warnings raised by biofair.

Warnings are classes of their own so that a reader (or a test run with warnings as
errors) can single them out.
"""

from __future__ import annotations


class SchemaError(ValueError):
    """A score table does not follow the biofair schema.

    The message lists every problem found, one per line.
    """


class InsufficientComparisonsWarning(UserWarning):
    """A requested error rate is below what the number of comparisons can resolve.

    With N non-mated comparisons the smallest non-zero FMR a test can observe is 1/N, so a
    target below it cannot be supported by the data (ISO/IEC 19795-1 "rule of 3" in spirit).
    """


class UndefinedRateWarning(UserWarning):
    """A rate needed by an index is zero or undefined and was replaced, as documented."""


class ScoreDirectionWarning(UserWarning):
    """Mated scores are mostly below non-mated ones (ROC AUC < 0.5).

    The usual cause is distances read as similarities (or the reverse): read them with
    ``greater_is_match=False`` (``biofair report --distance``).
    """
