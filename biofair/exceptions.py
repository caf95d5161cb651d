"""Errors and warnings raised by biofair.

Warnings are classes of their own so that a reader (or a test run with warnings as
errors) can single them out.
"""

from __future__ import annotations


class SchemaError(ValueError):
    """A score table does not follow the biofair schema.

    The message lists every problem found, one per line, each naming the column and the
    count of offending rows. A ``ValueError``, so that code catching bad values catches it.

    See Also
    --------
    biofair.validate_scores : Raises it.

    Examples
    --------
    >>> import pandas as pd
    >>> import biofair as bf
    >>> try:
    ...     bf.validate_scores(pd.DataFrame({"score": [0.5], "label": [1]}))
    ... except bf.SchemaError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    invalid score table:
    - missing column(s): mated (the table has 'score', 'label'; map its names to biofair's,
      e.g. read_scores(path, columns={'<mated column>': 'mated'}) or
      biofair report --columns '<mated column>=mated')
    """


class InsufficientComparisonsWarning(UserWarning):
    """A target error rate is below what the number of comparisons can resolve.

    With N comparisons a target rate allows fewer than 3 errors when it is below 3/N; then
    the data cannot show that the target is met (the rule of three of ISO/IEC 19795-1: with no
    error at all, the 95% upper bound of the rate is about 3/N), and every table
    marks the row ``resolved=False``. From 30 errors on the target is also ``precise``.

    See Also
    --------
    biofair.threshold_at_fmr : Warns with it.
    biofair.operating_summary : Marks the rows it warns about.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import biofair as bf
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     threshold = bf.threshold_at_fmr(np.arange(100) / 100, 0.01)  # 1 error in 100
    >>> caught[0].category.__name__
    'InsufficientComparisonsWarning'
    """


class UndefinedRateWarning(UserWarning):
    """A rate needed by an index is zero or undefined and was replaced, as documented.

    Inequity divides by the geometric mean of the group rates, which is 0 when one rate is;
    such a rate is replaced by its one-sided 95% upper bound and the warning names the group.

    See Also
    --------
    biofair.inequity : Warns with it.
    biofair.outcome_fairness : Flags the replaced rates in its ``rates`` table.

    Examples
    --------
    >>> import warnings
    >>> import biofair as bf
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = bf.inequity([0.0, 0.01], counts=[1000, 1000])
    >>> caught[0].category.__name__
    'UndefinedRateWarning'
    """


class CoarseHistogramWarning(UserWarning):
    """A distribution fairness index compares histograms whose bins barely resolve the scores.

    DFI, CEI and CEIᴬ bin the scores in equal-width bins over their pooled range (SPEC
    section 5). A few extreme scores (a sentinel such as 999, a failed comparison stored as
    -1e30, a score in other units, the far end of a long tail) stretch that range, and the
    bulk of the scores then falls in a handful of bins, where every group looks alike: the
    index moves toward 1 whatever the groups' differences. The warning is given when the
    central 90% of a histogram's pooled scores fall in fewer than a tenth of its bins and
    those bins hold more distinct scores than bins (a bulk of tied scores, such as integer
    scores mostly 0, loses nothing to the binning); it names the histogram, the bins and the
    range. Check the scores outside the bulk; the index itself follows the specification
    unchanged. The out-of-core indices (:mod:`biofair.partitions`) do not give it: telling
    tied scores from merged ones needs the scores themselves.

    See Also
    --------
    biofair.distribution_fairness_index : Warns with it.
    biofair.comprehensive_equity_index : Warns with it, for the tails' and the centres'
        histograms.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import pandas as pd
    >>> import biofair as bf
    >>> scores = np.r_[np.linspace(0, 1, 400), 999.0]  # one sentinel score
    >>> table = pd.DataFrame({"score": scores, "mated": np.arange(401) % 2 == 0,
    ...                       "group": np.where(np.arange(401) % 4 < 2, "a", "b")})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     index = bf.distribution_fairness_index(table)
    >>> caught[0].category.__name__
    'CoarseHistogramWarning'
    """


class ScoreDirectionWarning(UserWarning):
    """Mated scores are mostly below non-mated ones (ROC AUC < 0.5).

    The usual cause is distances read as similarities (or the reverse): read them with
    ``greater_is_match=False`` (``biofair report --distance``).

    See Also
    --------
    biofair.read_scores : Warns with it; its ``greater_is_match`` option negates distances.
    biofair.read_grouped_scores : The same check for a fairness analysis.

    Examples
    --------
    >>> import pathlib, tempfile, warnings
    >>> import biofair as bf
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "distances.csv"
    ...     _ = path.write_text("score,mated\\n0.1,1\\n0.2,1\\n0.8,0\\n0.9,0\\n")
    ...     with warnings.catch_warnings(record=True) as caught:
    ...         warnings.simplefilter("always")
    ...         table = bf.read_scores(path)
    >>> caught[0].category.__name__
    'ScoreDirectionWarning'
    """
