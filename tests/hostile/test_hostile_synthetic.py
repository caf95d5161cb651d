"""Hostile parameters of the synthetic generators (``biofair.synthetic``), which the book's
readers call with their own: group names that name no group or collide as text, finite
parameters whose scores overflow float64, FMR targets below the smallest normal float, and
sizes beyond what one NumPy array can hold. Each is refused at once with a message that names
the parameter; each test says what happened before its fix.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import biofair as bf
from biofair import synthetic

SPEC = (3, 3.0, 0.0)  # 3 subjects, mated mean 3, non-mated mean 0


def exactly(message: str) -> str:
    return "^" + re.escape(message) + "$"


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ({None: SPEC, "b": SPEC},
         "groups must name every group: 1 name is missing or blank (empty or white space only): None"),
        ({float("nan"): SPEC, "b": SPEC},
         "groups must name every group: 1 name is missing or blank (empty or white space only): nan"),
        ({"": SPEC, "b": SPEC},
         "groups must name every group: 1 name is missing or blank (empty or white space only): ''"),
        ({"a": SPEC, "   ": SPEC, None: SPEC},
         "groups must name every group: 2 names are missing or blank (empty or white space only): '   ', None"),
        ({1: SPEC, "1": SPEC},
         "groups has 2 names written alike as text ('1'): 1, '1'; their subjects' ids ('1-000', ...) would "
         "collide: rename the groups"),
        ({"a": SPEC, 1.5: SPEC, "1.5": SPEC},
         "groups has 2 names written alike as text ('1.5'): 1.5, '1.5'; their subjects' ids ('1.5-000', ...) "
         "would collide: rename the groups"),
    ],
    ids=["None", "NaN", "empty", "blank and None", "1 and '1'", "1.5 and '1.5'"],
)
def test_demographic_group_names_that_name_no_group_or_collide_are_refused_at_once(groups, message):
    """demographic_scores drew these tables without a word: 1 and '1' gave both groups the
    subject '1-000' (validate_scores then found 'mated' contradicting reference_subject ==
    probe_subject), None a NaN group label and subjects 'None-000', '' a group the package
    later refused as "missing group labels"."""
    with pytest.raises(ValueError, match=exactly(message)):
        synthetic.demographic_scores(groups=groups, rng=0)


def test_gaussian_scores_that_overflow_are_refused():
    """nonmated_std=1e308 (finite, so accepted) drew 679 infinite non-mated scores, a table
    the package's own validate_scores refuses."""
    message = ("the non-mated scores would overflow float64 (beyond ±1.8e+308): nonmated_std=1e+308 drew "
               "679 infinite scores among 10,000 draws; give these parameters on a smaller scale")
    with pytest.raises(ValueError, match=exactly(message)):
        synthetic.gaussian_scores(nonmated_std=1e308, rng=0)
    message = ("the mated scores would overflow float64 (beyond ±1.8e+308): mated_mean=1e+308, mated_std=1e+308 "
               "drew 224 infinite scores among 1,000 draws; give these parameters on a smaller scale")
    with pytest.raises(ValueError, match=exactly(message)):
        synthetic.gaussian_scores(mated_mean=1e308, mated_std=1e308, rng=0)


def test_demographic_scores_that_overflow_are_refused_naming_their_groups():
    """Non-mated means of 1e308 with cross_shift=1e308 drew 174 infinite cross-group scores
    (and leaked NumPy's RuntimeWarning "overflow encountered in add")."""
    message = ("the non-mated scores would overflow float64 (beyond ±1.8e+308): groups['a']=(5, 0.0, 1e+308), "
               "groups['b']=(5, 0.0, 1e+308), cross_shift=1e+308 drew 174 infinite scores among 400 draws; give "
               "these parameters on a smaller scale")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=exactly(message)):
            synthetic.demographic_scores(groups={"a": (5, 0.0, 1e308), "b": (5, 0.0, 1e308)}, cross_shift=1e308,
                                         rng=0)


@pytest.mark.parametrize("groups", [{"a": (5, 1e308, 1e308), "b": (5, -1e308, -1e308)},
                                    {"a": (5, 1.7e308, 1.7e308), "b": (5, 1.7e308, 1.7e308)}])
def test_demographic_scores_near_the_largest_float_draw_a_valid_table_without_warnings(groups):
    """The middle of two groups' non-mated means was their sum halved: 1e308 + 1e308 overflowed
    with a RuntimeWarning (also where np.where then took the group's own mean), and two means
    of 1.7e308 drew 174 infinite cross-group scores whose true mean, 1.7e308 - 0.5, is finite."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = synthetic.demographic_scores(groups=groups, rng=0)
    assert np.isfinite(table["score"]).all()
    bf.validate_scores(table)


@pytest.mark.parametrize("fair", [True, False])
def test_fmr_targets_below_the_smallest_normal_float_are_refused(fair):
    """fmr_targets=[5e-324] gave every group an FMR of 0, not the target (the model's rates
    underflow), and for the unfair system leaked NumPy's "divide by zero encountered in log"."""
    message = ("fmr_targets must be at least 2**-1022 = 2.2250738585072014e-308, the smallest normal float: 2 "
               "targets are below it (1e-310, 5e-324), where the model's rates underflow float64")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=exactly(message)):
            synthetic.fdr_canonical_rates(fair=fair, fmr_targets=[1e-3, 1e-310, 5e-324])


BIG = 10**20
ARRAY = "more than one NumPy array can hold: at most 1,152,921,504,606,846,975 float64 values"


@pytest.mark.parametrize(
    ("generator", "options", "message"),
    [
        ("gaussian_scores", {"n_mated": BIG},
         f"n_mated={BIG}, n_nonmated=10000 would draw 100,000,000,000,000,010,000 scores, {ARRAY}"),
        ("gaussian_scores", {"n_mated": 2**62},  # numpy: "array is too big"
         f"n_mated={2**62}, n_nonmated=10000 would draw 4,611,686,018,427,397,904 scores, {ARRAY}"),
        ("fdr_canonical_system", {"n_nonmated": BIG},
         f"n_mated=20000, n_nonmated={BIG} would draw 300,000,000,000,000,060,000 scores, {ARRAY}"),
        ("fdr_cross_group_system", {"n_nonmated": BIG},
         f"n_mated=20000, n_nonmated={BIG} would draw 900,000,000,000,000,060,000 scores, {ARRAY}"),
        ("beta_scenario", {"n_mated": BIG},
         f"n_groups=4, n_mated={BIG}, n_nonmated=200000 would draw 400,000,000,000,000,800,000 scores, {ARRAY}"),
        ("identification_embeddings", {"dim": BIG},
         f"n_enrolled=500, n_nonenrolled=500, n_searched=500, dim={BIG} would draw "
         f"300,000,000,000,000,000,000,000 embedding values, {ARRAY}"),
        ("demographic_scores", {"mated_per_subject": 10**17},
         "mated_per_subject=100000000000000000, nonmated_per_subject=40 with 249 subjects in groups would draw "
         f"24,900,000,000,000,009,960 scores, {ARRAY}"),
        ("demographic_scores", {"groups": {"a": (BIG, 1.0, 0.0), "b": (3, 1.0, 0.0)}},  # was a TypeError
         "mated_per_subject=5, nonmated_per_subject=40 with 100,000,000,000,000,000,003 subjects in groups would "
         f"draw 4,500,000,000,000,000,000,135 scores, {ARRAY}"),
        ("interval_coverage", {"n_repeats": BIG},
         f"n_repeats={BIG}, n_subjects=100 would draw 10,000,000,000,000,000,000,000 subject effects, {ARRAY}"),
        ("interval_coverage", {"n_resamples": BIG},
         f"n_resamples={BIG}, n_repeats=400 would draw 40,000,000,000,000,000,000,000 bootstrap rates, {ARRAY}"),
        ("interval_coverage", {"n_subjects": 2, "comparisons_per_subject": 2**62},  # was an OverflowError
         f"n_subjects=2, comparisons_per_subject={2**62} would draw 9,223,372,036,854,775,808 comparisons, more "
         "than NumPy's binomial draws count (an int64): at most 9,223,372,036,854,775,807 comparisons"),
    ],
    ids=lambda value: value if isinstance(value, str) and " " not in value else None,
)
def test_sizes_beyond_one_numpy_array_are_refused_naming_the_parameter(generator, options, message):
    """NumPy refused them with "Maximum allowed dimension exceeded" or "array is too big",
    naming no argument (a group of 10**20 subjects: "Cannot cast array data from dtype('O')";
    2**62 comparisons per subject: "Python int too large to convert to C long")."""
    with pytest.raises(ValueError, match=exactly(message)):
        getattr(synthetic, generator)(**options, rng=0)
