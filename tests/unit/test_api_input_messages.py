"""Input that the Python API took without a word, or refused with NumPy's words (an audit of
the API in a fresh environment): distances in a table, a subject column with holes in a
differential report, rates written as text, and a reference group named by a number."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf

SUMMARIES = {
    "fairness_summary": lambda t: bf.fairness_summary(t, fmr_targets=[0.1, 0.01], n_resamples=40, n_permutations=5,
                                                      rng=0),
    "differential_report": lambda t: bf.differential_report(t, fmr=0.1, n_resamples=40, rng=0),
}


@pytest.fixture(scope="module")
def distances() -> pd.DataFrame:
    """Distances of two groups as a table holds them: mated ones small."""
    rng = np.random.default_rng(0)
    mated = np.arange(1_200) % 6 == 0
    return pd.DataFrame({
        "score": np.where(mated, rng.normal(0.3, 0.1, mated.size), rng.normal(0.6, 0.1, mated.size)),
        "mated": mated,
        "group": np.where(np.arange(mated.size) % 4 < 2, "a", "b"),  # both classes in each group
        "reference_subject": [f"s{i % 40}" for i in range(mated.size)],
    })


def brute_force_auc(table: pd.DataFrame) -> float:
    """P(mated > non-mated) + P(equal) / 2, over every pair."""
    mated = table.loc[table["mated"], "score"].to_numpy()[:, None]
    nonmated = table.loc[~table["mated"], "score"].to_numpy()[None, :]
    return float(np.mean(mated > nonmated) + np.mean(mated == nonmated) / 2)


@pytest.mark.parametrize("name", SUMMARIES)
def test_a_summary_of_distances_in_a_table_says_how_to_negate_them(name, distances):
    """fairness_summary gave ROC AUC 3e-6 and differential_report an FNMR of 1 for every group,
    without a word, where the readers warn."""
    auc = brute_force_auc(distances)
    assert auc < 0.5
    expected = (f"mated scores are mostly below non-mated ones (ROC AUC = {auc:.3f} < 0.5); the scores may be "
                'distances: negate them, e.g. table.assign(score=-table["score"]), or read the file with '
                "greater_is_match=False")
    with pytest.warns(bf.ScoreDirectionWarning, match=f"^{re.escape(expected)}$") as caught:
        SUMMARIES[name](distances)
    assert [w.filename for w in caught if w.category is bf.ScoreDirectionWarning] == [__file__]  # once, this line
    similarities = distances.assign(score=-distances["score"])  # as the warning says: no warning
    assert brute_force_auc(similarities) > 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error", bf.ScoreDirectionWarning)
        SUMMARIES[name](similarities)


def test_a_metric_of_a_bad_system_does_not_warn(distances):
    """A system may be worse than chance: the metrics of one number report it as it is."""
    mated, nonmated = bf.split_scores(distances)
    with warnings.catch_warnings():
        warnings.simplefilter("error", bf.ScoreDirectionWarning)
        assert bf.roc_auc(mated, nonmated) == pytest.approx(brute_force_auc(distances), abs=1e-12)
        bf.eer(mated, nonmated)


@pytest.mark.parametrize("name", SUMMARIES)
def test_a_table_whose_reader_warned_is_not_warned_about_again(name, distances, tmp_path):
    """biofair report reads the file, then summarises it (the notebook calls fairness_summary,
    the differential layout differential_report): report.html showed each warning of its
    cells, and the terminal each distinct line, so a second warning would be shown twice."""
    distances.to_csv(tmp_path / "distances.csv", index=False)
    with pytest.warns(bf.ScoreDirectionWarning, match=r"read them with greater_is_match=False") as caught:
        table = bf.read_grouped_scores(tmp_path / "distances.csv")
    assert sum(w.category is bf.ScoreDirectionWarning for w in caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", bf.ScoreDirectionWarning)
        SUMMARIES[name](table)
    fixed = bf.read_grouped_scores(tmp_path / "distances.csv", greater_is_match=False)  # read right: no word
    assert brute_force_auc(fixed) == pytest.approx(1 - brute_force_auc(distances), abs=1e-12)


def test_a_differential_report_refuses_subjects_with_holes_as_the_bootstrap_does(distances):
    """Missing subject ids reached np.bincount: "'list' argument must have no negative elements"."""
    similarities = distances.assign(score=-distances["score"])
    holed = similarities.assign(site=pd.Series(np.where(np.arange(len(distances)) % 3, "s1", "s2")).where(
        np.arange(len(distances)) % 10 != 0))
    expected = ("unit='subject' needs a subject in every row: column 'site' has 120 missing values; fill them "
                "(a subject each) or use unit='pair'")
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        bf.bootstrap(bf.roc_auc, holed, unit="subject", cluster="site", n_resamples=40, rng=0)
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        bf.differential_report(holed, fmr=0.1, unit="subject", cluster="site", n_resamples=40, rng=0)


@pytest.mark.parametrize("rates", [pd.Series(["0.01", "0.02"]), ["0.01", "0.02"], np.array([b"0.01", b"0.02"]),
                                   pd.Series([0.01, "0.02"], dtype=object), pd.Series(["0.01", "0.02"], dtype="string")],
                         ids=["object Series", "list", "bytes", "mixed", "string Series"])
def test_rates_written_as_text_are_refused_alike(rates):
    """An object Series of '0.01' was parsed (GARBE 0.333), a list of the same text refused."""
    with pytest.raises(TypeError, match=r"^rates must be a rate or an array of rates, got text \(e\.g\. b?'0\.0[12]'\): "
                                        r"convert it to numbers first, e\.g\. with pandas\.to_numeric$"):
        bf.garbe(rates)


def test_rates_held_as_objects_are_still_numbers():
    """GARBE of two rates: the Gini coefficient |x1 - x2| / (2·mean·2) times K/(K-1) = 2."""
    expected = abs(0.01 - 0.02) / (2 * 0.015 * 2) * 2
    assert bf.garbe(pd.Series([0.01, 0.02], dtype=object)) == pytest.approx(expected, rel=1e-12)
    assert bf.garbe(np.array([0.01, 0.02])) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(TypeError, match=r"^fmr_targets must be a rate or an array of rates, got text \(e\.g\. '0\.1'\)"):
        bf.fairness_discrepancy_rate(bf.synthetic.demographic_scores(rng=0), fmr_targets=["0.1"])


@pytest.mark.parametrize("labels", [["1", "2"], [1, 2]], ids=["text", "numbers"])
def test_a_reference_given_as_a_number_names_the_label_it_may_mean(distances, labels):
    """reference=1 with the labels '1' and '2' said only that it names no group (labels are
    text, numbers too: see biofair.group_labels)."""
    table = distances.assign(score=-distances["score"], group=np.where(distances["group"] == "a", *labels))
    expected = "reference=1 names no group; the groups are ['1', '2']; did you mean reference='1'?"
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        bf.differential_report(table, fmr=0.1, reference=1, n_resamples=40, rng=0)
    assert bf.differential_report(table, fmr=0.1, reference="1", n_resamples=40, rng=0).reference == {
        "fmr": "1", "fnmr": "1"}
    with pytest.raises(ValueError, match=r"names no group; the groups are \[.*\]$"):  # no group alike: no guess
        bf.differential_report(table, fmr=0.1, reference="3", n_resamples=40, rng=0)


# -- subject ids that name no one -------------------------------------------------------------

def sited(missing: object) -> pd.DataFrame:
    """600 comparisons of 30 sites (the clusters), groups by site, three of them without a site."""
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"score": rng.normal(size=600), "mated": np.arange(600) % 3 == 0,
                          "site": [f"s{i % 30}" for i in range(600)]})
    table["group"] = np.where(np.arange(600) % 30 % 2 == 1, "a", "b")
    table.loc[table["mated"], "score"] += 2
    table.loc[[3, 5, 8], "site"] = missing
    return table


@pytest.mark.parametrize("missing", [np.nan, "", "  "], ids=["NaN", "empty", "spaces"])
@pytest.mark.parametrize("call", [
    lambda t: bf.bootstrap(bf.roc_auc, t, unit="subject", cluster="site", n_resamples=40, rng=0),
    lambda t: bf.differential_report(t, fmr=0.1, unit="subject", cluster="site", n_resamples=40, rng=0),
    lambda t: bf.permutation_null(lambda x: bf.fairness_discrepancy_rate(x, fmr_targets=[0.1])["fdr"].iloc[0], t,
                                  n_permutations=20, unit="subject", cluster="site", rng=0),
], ids=["bootstrap", "differential_report", "permutation_null"])
def test_comparisons_without_a_subject_are_refused_by_every_resampling(call, missing):
    """A missing site, coded -1, joined the last site's comparisons in the permutation null
    (its error named site 's9', which had no fault); an empty or blank id made one subject of
    all its rows in every resampling by subject, without a word."""
    blank = " (3 of them blank: empty or white space only)" if isinstance(missing, str) else ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
        with pytest.raises(ValueError, match=re.escape(
                f"unit='subject' needs a subject in every row: column 'site' has 3 missing values{blank}; "
                "fill them (a subject each) or use unit='pair'")):
            call(sited(missing))


def test_a_subject_id_of_spaces_in_a_file_is_a_missing_one(tmp_path):
    """An empty cell is a missing id; a cell of spaces was kept as the id '  ', one subject of
    all such rows."""
    table = bf.read_scores(bf.datasets.example_scores_path())
    nonmated = table.index[~table["mated"]][:2]
    written = table.astype({"reference_subject": str})
    written.loc[nonmated, "reference_subject"] = "  "
    written.to_csv(tmp_path / "scores.csv", index=False)
    with pytest.raises(bf.SchemaError, match="column 'reference_subject' has 2 missing values"):
        bf.read_scores(tmp_path / "scores.csv")


@pytest.mark.parametrize(("target", "shown"), [(None, "None"), ([0.1, None], "None among them"),
                                               (np.array([True], dtype=object), "True among them"),
                                               (np.array([0.1, False], dtype=object), "False among them")])
def test_a_target_that_is_no_number_is_named(target, shown):
    """None was read as NaN ('must lie in [0, 1] ... [nan]'), and True in an object array as the
    rate 1 (a plain True is refused). A single None is not "among them"."""
    with pytest.raises(TypeError, match="^" + re.escape(f"fmr must be a rate or an array of rates, got {shown}") + "$"):
        bf.threshold_at_fmr([0.1, 0.2, 0.3], target)


def test_numbers_held_as_objects_in_a_target_are_rates():
    scores = np.linspace(0, 1, 100)
    assert bf.threshold_at_fmr(scores, np.array([0.5, 1, np.float32(0.25)], dtype=object)).tolist() \
        == bf.threshold_at_fmr(scores, [0.5, 1.0, 0.25]).tolist()


@pytest.mark.parametrize("scores", [pd.array([0.5, None], dtype="Float64"), pd.array([5, None], dtype="Int64")])
def test_missing_values_of_a_nullable_pandas_array_are_named_as_such(scores):
    """The message called it a masked array and advised .compressed(), which pandas arrays lack."""
    with pytest.raises(ValueError, match="^" + re.escape("mated holds 1 missing value (<NA>): leave them out "
                                                         "(.dropna()) or fill them") + "$"):
        bf.roc_auc(scores, [0.1])
    assert bf.roc_auc(scores.dropna(), [0.1]) == 1.0  # the advice works


def test_scores_held_as_python_objects_are_refused_with_the_conversion():
    scores = np.array([0.5, 0.9], dtype=object)
    with pytest.raises(TypeError, match=re.escape("mated must hold numeric scores, got dtype object; numbers held "
                                                  "as Python objects are converted by numpy.asarray(values, "
                                                  "dtype=float)")):
        bf.roc_auc(scores, [0.1])
    assert bf.roc_auc(np.asarray(scores, dtype=float), [0.1]) == 1.0


def test_non_finite_scores_are_refused_with_what_to_do():
    with pytest.raises(ValueError, match="^" + re.escape("mated contains 1 NaN and 0 infinite values: leave out the "
                                                         "comparisons without a finite score, or decide how to "
                                                         "count them")):
        bf.roc_auc([0.5, np.nan], [0.1])


@pytest.mark.parametrize(("call", "message"), [
    (lambda t: bf.permutation_null(lambda s: 0.5, t, by=None),
     "by must be a column name or a list of column names, got None"),
    (lambda t: bf.permutation_null(lambda s: 0.5, t, by=1), "by must be a column name or a list of column names, got 1"),
    (lambda t: bf.permutation_null(3, t),
     "statistic must be a function of a score table that returns a number, e.g. lambda table: "
     "bf.outcome_fairness(table, fmr=1e-3).garbe_fnmr, got 3"),
    (lambda t: bf.normalisation.cohort_statistics(t.rename(columns={"reference_subject": "subject"}),
                                                  key=["subject"]),
     "key must be a column name, got ['subject']"),
    (lambda t: bf.normalisation.normalise_scores(t, pd.DataFrame({"mean": [0.0], "std": [1.0]}),
                                                 reference_key=["reference_subject"]),
     "reference_key must be a column name, got ['reference_subject']"),
    (lambda t: bf.normalisation.cohort_scores(t.assign(mated=False), [["s1"]]),
     "cohort_subjects must hold subject ids (a number or a text each), got ['s1'] among them"),
], ids=["by-None", "by-1", "statistic-3", "key-list", "reference_key-list", "cohort-of-lists"])
def test_options_of_the_wrong_type_are_named(call, message, distances):
    """Each was an error from inside Python or pandas that named no argument: "'NoneType'
    object is not iterable", "'int' object is not callable", "unhashable type: 'list'" (a
    normalisation and permutation audit)."""
    table = distances.assign(probe_subject=np.where(distances["mated"], distances["reference_subject"],
                                                    [f"p{i % 40}" for i in range(len(distances))]))
    with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
        call(table)


@pytest.mark.parametrize("call, name", [
    (lambda flag: bf.partial_auc([0.9, 0.8], [0.1, 0.85], 0.5, standardized=flag), "standardized"),
    (lambda flag: bf.garbe([0.1, 0.2], correction=flag), "correction"),
    (lambda flag: bf.plotting.format_rate(2.0e-4, trim=flag), "trim"),
    (lambda flag: bf.plotting.use_style(retina=flag), "retina"),
    (lambda flag: bf.plotting.use_style(tables=flag), "tables"),
    (lambda flag: bf.datasets.load_voxceleb1h(cache=flag), "cache"),
], ids=["standardized", "correction", "trim", "retina", "tables", "cache"])
@pytest.mark.parametrize("flag", ["False", 0, None])
def test_every_true_or_false_option_refuses_other_values_alike(call, name, flag):
    """format_rate, use_style and load_voxceleb1h took any value as its truth: trim="False"
    trimmed (2e-4, not 2.0e-4), cache="no" kept a copy; every other such option refused it."""
    with pytest.raises(TypeError, match="^" + re.escape(f"{name} must be True or False, got {flag!r}") + "$"):
        call(flag)


def test_a_style_with_a_bad_option_changes_no_setting():
    """Checked before any setting changes: an error leaves the figures' and tables' look as it was."""
    import matplotlib.pyplot as plt

    with plt.rc_context({"font.size": 7.0}), pd.option_context("display.float_format", None):
        with pytest.raises(TypeError, match="^tables must be True or False"):
            bf.plotting.use_style(tables="yes")
        assert plt.rcParams["font.size"] == 7.0
        assert pd.get_option("display.float_format") is None


def _grouped() -> pd.DataFrame:
    return bf.synthetic.demographic_scores(rng=0, mated_per_subject=2, nonmated_per_subject=4)


@pytest.mark.parametrize("call, name, choice, listed", [
    (lambda v: bf.comprehensive_equity_index(_grouped(), kind=v), "kind", "nonmated", "'mated' or 'nonmated'"),
    (lambda v: bf.automatic_comprehensive_equity_index(_grouped(), kind=v), "kind", "nonmated",
     "'mated' or 'nonmated'"),
    (lambda v: bf.distribution_fairness_index(_grouped(), combine=v), "combine", "equal", "'pooled' or 'equal'"),
    (lambda v: bf.comprehensive_equity_index(_grouped(), mean_tail=v), "mean_tail", "split_mean",
     "'groups' or 'split_mean'"),
    (lambda v: bf.area_under_fdr([0.9, 0.8], [0.1, 0.01], scale=v), "scale", "log10", "'linear' or 'log10'"),
    (lambda v: bf.subset_performance(_grouped(), size=100, n_subsets=3, metric=v), "metric", "tmr",
     "'eer' or 'tmr'"),
    (lambda v: bf.permutation_null(lambda t: 0.5, _grouped(), alternative=v), "alternative", "greater",
     "'less' or 'greater'"),
    (lambda v: bf.synthetic.beta_scenario(v), "scenario", "BG", "'balanced', 'BG', 'BI' or 'BC'"),
    (lambda v: bf.read_scores(bf.datasets.example_scores_path(), format=v), "format", "csv",
     "'auto', 'csv', 'parquet' or 'bob'"),
    (lambda v: bf.eer([1.0, 2.0], [0.0, 1.5], method=v), "method", "midpoint", "'rocch', 'midpoint' or 'interval'"),
    (lambda v: bf.inequity([0.1, 0.2], zero=v), "zero", "raise", "'upper_bound' or 'raise'"),
    (lambda v: bf.bootstrap(bf.roc_auc, ([1.0, 2.0], [0.0, 1.5]), unit=v), "unit", "pair",
     "'pair', 'subject' or None"),
    (lambda v: bf.datasets.load_voxceleb1h(v), "model", "resnetse34l", "'resnetse34v2' or 'resnetse34l'"),
], ids=["cei-kind", "cei_auto-kind", "dfi-combine", "cei-mean_tail", "area-scale", "subsets-metric",
        "permutation-alternative", "beta-scenario", "read-format", "eer-method", "inequity-zero", "bootstrap-unit",
        "voxceleb-model"])
def test_every_choice_option_refuses_an_array_and_lists_its_choices_alike(call, name, choice, listed):
    """An array of one valid choice passed ``value in choices`` (NumPy compares element-wise):
    kind=np.array(["nonmated"]) failed inside CEI as "attribute name must be string", metric and
    combine computed as if given the text; eer and load_voxceleb1h worded their list apart
    ("must be one of ['interval', 'midpoint', 'rocch']")."""
    for value in (np.array([choice]), "nonsense"):
        with pytest.raises(ValueError) as raised:
            call(value)
        assert str(raised.value) == f"{name} must be {listed}, got {value!r}"
