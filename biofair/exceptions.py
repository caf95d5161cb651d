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


class PermutationNullWarning(UserWarning):
    """A permutation null does not keep the non-mated comparisons within groups that the data have.

    With group labels given per side (``reference_group`` and ``probe_group``, e.g. from a
    subject file), the null's shuffle gives each subject another subject's label on both
    sides of its comparisons, so a non-mated pair of one group whose two subjects draw
    different labels becomes a cross-group pair, which no group's index reads. The warning is
    given when the shuffled tables keep, on average, fewer than 9 in 10 of the table's share
    of non-mated comparisons within groups (shuffled < 0.9 x table; both shares are in
    :class:`biofair.PermutationNull` and in the ``parameters`` of
    :func:`biofair.fairness_summary`'s null rows): the nulls of the indices that read
    non-mated scores then compare smaller groups than the data do, and fall further below 1
    by chance. The nulls of the mated indices are not affected.

    See Also
    --------
    biofair.permutation_null : Warns with it.
    biofair.fairness_summary : Warns with it, for the nulls of the FDR area and CEI.

    Examples
    --------
    >>> import warnings
    >>> import biofair as bf
    >>> table = bf.synthetic.demographic_scores(groups={"a": (20, 2.0, 1.0), "b": (20, 2.0, 1.0)}, rng=0)
    >>> table = table[table["reference_group"] == table["probe_group"]]  # pairs within groups only
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     result = bf.permutation_null(lambda t: bf.comprehensive_equity_index(t, kind="nonmated", bins=10).extreme,
    ...                                  table, n_permutations=19, rng=0)
    >>> caught[0].category.__name__
    'PermutationNullWarning'
    >>> print(f"{result.nonmated_within:.0%} in the table, {result.nonmated_within_shuffled:.0%} shuffled")
    100% in the table, 48% shuffled
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
