"""Audit of biofair.partitions (but its census): every public function against the in-memory
one on the same rows split into Dask partitions and Parquet files, at the layouts that
partitioning makes (a class or a group in one partition only, empty partitions and files),
at float32, negative and crowded (1e9 ± 1) scores; and the gaps the audit found."""

from __future__ import annotations

import re
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.exceptions import SchemaError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
from biofair import partitions as bp  # noqa: E402
from biofair.groups import _pooled_threshold, scores_by_group  # noqa: E402
from biofair.partitions.census import _PASSES  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def table(seed: int, n: int = 240, *, decimals: int = 1, cross: bool = False) -> pd.DataFrame:
    """Three groups of tied scores; with ``cross``, a third of the non-mated pairs cross groups."""
    rng = np.random.default_rng(seed)
    group = np.arange(n) % 3
    mated = (np.arange(n) // 3) % 4 == 0
    score = np.round(rng.normal(np.where(mated, 1.5, 0.0) + 0.3 * group, 1.0), decimals)
    names = np.array(["a", "b", "c"])[group]
    if not cross:
        return pd.DataFrame({"score": score, "mated": mated, "group": names})
    probe = np.where(~mated & (rng.random(n) < 0.3), np.array(["a", "b", "c"])[(group + 1) % 3], names)
    return pd.DataFrame({"score": score, "mated": mated, "reference_group": names, "probe_group": probe})


def pieces(frame: pd.DataFrame, layout: str) -> list[pd.DataFrame]:
    """The rows of ``frame`` split as ``layout`` says, every row in exactly one piece."""
    if layout == "one class per partition":
        frame = frame.sort_values("mated", kind="stable")
    elif layout == "one group per partition":
        frame = frame.sort_values(frame.columns[2], kind="stable")
    elif layout == "tied scores across partitions":
        frame = frame.sort_values("score", kind="stable")
    split = np.array_split(np.arange(len(frame)), 3)
    found = [frame.iloc[rows] for rows in split]
    if layout == "empty partitions":
        found = [frame.iloc[:0], found[0], frame.iloc[:0], *found[1:], frame.iloc[:0]]
    return found


def as_dask(parts: list[pd.DataFrame]):
    return dd.concat([dd.from_pandas(part, npartitions=1) for part in parts])


def as_parquet(parts: list[pd.DataFrame], folder) -> str:
    for k, part in enumerate(parts):
        part.to_parquet(folder / f"part-{k}.parquet", index=False)
    return str(folder)


def outcome_of(function, *args, **options) -> tuple:
    """An index's divergences, or its error's type and message (1e9 +- 1 empties a CEI centre)."""
    try:
        return tuple(function(*args, **options).divergences.items())
    except SchemaError as error:
        return type(error), str(error)


SCORES = {"float64": lambda s: s, "float32": lambda s: s.astype(np.float32), "negative": lambda s: s - 100.0,
          "1e9 +- 1": lambda s: 1e9 + np.clip(np.round(s), -1, 1)}
LAYOUTS = ["one class per partition", "one group per partition", "tied scores across partitions", "empty partitions"]


@pytest.mark.filterwarnings("ignore::biofair.InsufficientComparisonsWarning")
@pytest.mark.filterwarnings("ignore::biofair.UndefinedRateWarning")  # zero FMRs at 1e9 +- 1, in both
@pytest.mark.parametrize("scores", list(SCORES))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("parquet", [False, True])
def test_every_function_equals_memory_whatever_the_partitions(scores, layout, parquet, tmp_path):
    """Exact functions equal the in-memory ones value for value; bounded areas hold them."""
    whole = table(11, cross=layout == "one group per partition")
    whole["score"] = SCORES[scores](whole["score"])
    parts = pieces(whole, layout)
    whole = pd.concat(parts, ignore_index=True)
    data = as_parquet(parts, tmp_path) if parquet else as_dask(parts)
    mated, nonmated = bf.split_scores(whole)
    targets = [0.0, 1e-3, 0.02, 0.3, 1.0]
    thresholds = [float(np.median(whole["score"])), float(whole["score"].min()), float(whole["score"].max()) + 1]

    assert bp.tmr_at_fmr(data, targets).tolist() == bf.tmr_at_fmr(mated, nonmated, targets).tolist()
    pooled = _pooled_threshold(scores_by_group(whole), np.array(targets))
    assert bp.pooled_thresholds(data, targets).tolist() == pooled.tolist()
    for method in ("rocch", "midpoint", "interval"):
        assert bp.eer(data, method=method) == bf.eer(mated, nonmated, method=method)
    assert bp.rates_by_group(data, thresholds).equals(bf.rates_by_group(whole, thresholds))
    found = bp.fairness_discrepancy_rate(data, fmr_targets=[0.1, 0.01])
    assert found.equals(bf.fairness_discrepancy_rate(whole, fmr_targets=[0.1, 0.01]))
    outcome, expected = bp.outcome_fairness(data, fmr=0.05), bf.outcome_fairness(whole, fmr=0.05)
    assert outcome[:6] == expected[:6] and outcome.rates.equals(expected.rates)
    assert (bp.distribution_fairness_index(data, bins=10).divergences
            .equals(bf.distribution_fairness_index(whole, bins=10).divergences))
    for kind in ("mated", "nonmated"):
        cei = [outcome_of(f, d, kind=kind, bins=10) for f, d in ((bp.comprehensive_equity_index, data),
                                                                 (bf.comprehensive_equity_index, whole))]
        assert cei[0] == cei[1]
    auc = bf.roc_auc(mated, nonmated)
    bounded = bp.roc_auc(data, bins=16)
    assert bounded.low <= auc <= bounded.high
    for max_fmr in (1e-3, 0.05, 1.0):
        for standardized in (False, True):
            bounded = bp.partial_auc(data, max_fmr, standardized=standardized, bins=16)
            assert bounded.low <= bf.partial_auc(mated, nonmated, max_fmr, standardized=standardized) <= bounded.high


@pytest.mark.parametrize("flag", ["no", "", 1, None])
def test_partial_auc_refuses_a_standardized_that_is_not_true_or_false(flag):
    """'no' standardised (any non-empty string is true), where memory refuses it."""
    data = dd.from_pandas(table(1), npartitions=2)
    with pytest.raises(TypeError, match=f"^standardized must be True or False, got {flag!r}$"):
        bp.partial_auc(data, 0.1, standardized=flag)
    mated, nonmated = bf.split_scores(table(1))
    bounded = bp.partial_auc(data, 0.1, standardized=np.True_)  # NumPy's bool is one
    assert bounded.low <= bf.partial_auc(mated, nonmated, 0.1, standardized=True) <= bounded.high


def development(evaluation: pd.DataFrame, change: str) -> pd.DataFrame:
    """A development table made from the evaluation one as ``change`` says."""
    dev = evaluation.sample(frac=1, random_state=0)  # other rows in another order
    non = dev.index[~dev["mated"] & (dev["reference_group"] == dev["probe_group"])]  # homogeneous
    if change == "signed zero":
        dev["score"] = dev["score"].where(dev["score"] != 0, -0.0)
    elif change == "cross-group pairs added":
        extra = dev.loc[non[:4]].assign(probe_group=lambda t: np.where(t["reference_group"] == "a", "b", "a"))
        dev = pd.concat([dev, extra])
    elif change == "one score changed":
        dev.loc[non[0], "score"] += 0.25
    elif change == "scores swapped between groups":
        a = dev.index[~dev["mated"] & (dev["reference_group"] == "a")][0]
        b = dev.index[~dev["mated"] & (dev["reference_group"] == "b") & (dev["score"] != dev.loc[a, "score"])][0]
        dev.loc[[a, b], "score"] = dev.loc[[b, a], "score"].to_numpy()
    elif change == "float32 of the same values":
        dev["score"] = dev["score"].astype(np.float32)
    return dev


@pytest.mark.filterwarnings("ignore::biofair.InsufficientComparisonsWarning")
@pytest.mark.parametrize("change, optimistic", [
    ("none", True), ("signed zero", True), ("cross-group pairs added", True), ("float32 of the same values", True),
    ("one score changed", False), ("scores swapped between groups", False)])
@pytest.mark.parametrize("parquet", [False, True])
def test_fdr_flags_a_development_set_of_the_evaluation_scores_optimistic(change, optimistic, parquet, tmp_path):
    """A dev of the same scores in the same groups, read from other files or another frame
    (other rows, other order, other partitions), was called unbiased where memory flags it
    (biofair.discrepancy._same_scores); with no subject columns nothing else could tell."""
    evaluation = table(5, n=120, decimals=0, cross=True)  # whole numbers: float32 holds them
    evaluation.loc[evaluation.index[~evaluation["mated"]][:3], "score"] = 0.0
    dev = development(evaluation, change)
    expected = bf.fairness_discrepancy_rate(evaluation, dev=dev, fmr_targets=[0.1])["optimistic"].tolist()
    assert expected == [optimistic]
    if parquet:
        (tmp_path / "eval").mkdir()
        (tmp_path / "dev").mkdir()
        here = as_parquet([evaluation.iloc[k::3] for k in range(3)], tmp_path / "eval")
        there = as_parquet([dev.iloc[:50], dev.iloc[50:]], tmp_path / "dev")
    else:
        here, there = dd.from_pandas(evaluation, npartitions=3), dd.from_pandas(dev, npartitions=2)
    before = _PASSES[0]
    found = bp.fairness_discrepancy_rate(here, dev=there, fmr_targets=[0.1])
    assert found["optimistic"].tolist() == expected
    columns = ["fmr_target", "threshold", "A", "B", "fdr", "k"]
    assert found[columns].equals(bf.fairness_discrepancy_rate(evaluation, dev=dev, fmr_targets=[0.1])[columns])
    # census of each, thresholds on dev, rates on evaluation, and the fingerprint of each
    assert _PASSES[0] - before == 6


def test_fdr_does_not_read_the_scores_again_when_the_censuses_differ():
    """The fingerprint pass is made only when the groups, counts and ranges agree."""
    evaluation = table(5, n=120)
    dev = evaluation.assign(group=evaluation["group"].replace({"c": "z"}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # dev lacks group c
        before = _PASSES[0]
        found = bp.fairness_discrepancy_rate(dd.from_pandas(evaluation, npartitions=2),
                                             dev=dd.from_pandas(dev, npartitions=2), fmr_targets=[0.1])
    assert found["optimistic"].tolist() == [False] and _PASSES[0] - before == 4


@pytest.mark.parametrize("problem, error, message", [
    ("no group column", SchemaError, "no group column for 'group'"),
    ("a NaN score", SchemaError, r"invalid score partitions:\n- partition 1: column 'score' has 1 NaN and 0 infinite values"),
    ("one group", SchemaError, r"cannot compare groups:\n- fairness needs at least two groups"),
])
def test_fdr_says_which_errors_are_about_dev(problem, error, message):
    """dev's partition 1 read as the evaluation set's partition 1 (memory says 'dev, ...')."""
    evaluation = table(2, n=120)
    dev = {"no group column": lambda t: t.drop(columns="group"),
           "a NaN score": lambda t: t.assign(score=t["score"].where(t.index != 100)),
           "one group": lambda t: t.assign(group="a")}[problem](evaluation)
    prefix = r"^dev, the development scores the thresholds are set on: "
    with pytest.raises(error, match=prefix + message):
        bp.fairness_discrepancy_rate(dd.from_pandas(evaluation, npartitions=2), dev=dd.from_pandas(dev, npartitions=2))
    with pytest.raises(error, match=prefix):  # as in memory
        bf.fairness_discrepancy_rate(evaluation, dev=dev)


def test_fdr_says_a_missing_dev_path_is_dev(tmp_path):
    table(2, n=120).to_parquet(tmp_path / "eval.parquet", index=False)
    with pytest.raises(FileNotFoundError, match=r"^dev, the development scores the thresholds are set on: no "
                       r"Parquet file or folder at '.*missing\.parquet'$"):
        bp.fairness_discrepancy_rate(str(tmp_path / "eval.parquet"), dev=str(tmp_path / "missing.parquet"))


@pytest.mark.filterwarnings("ignore:CEIᴬ. no :biofair.InsufficientComparisonsWarning")  # mated, in both
@pytest.mark.parametrize("kind", ["mated", "nonmated"])
def test_automatic_cei_of_a_partition_of_zeros_beside_tiny_scores_equals_memory(kind):
    """A group whose scores in one partition are all 0 and in another about 1e-300: the
    merged moments took the partitions' largest power-of-two exponent, 0 for the zeros (as
    for scores near 1), so the tiny scores' spread underflowed to 0 and 5 of 8 scores lay
    'beyond' mu - 1 sigma (percentile 37.5, where memory finds none beyond: 100)."""
    tiny = [0.0, 0.0, 0.0, 0.0, 1e-300, 2e-300, 0.0, 3e-300]
    side = [-1.0, -2.0, -1.0, -3.0] if kind == "mated" else [1.0, 2.0, 1.0, 3.0]
    a = pd.DataFrame({"score": tiny[:4] + side[:2] + tiny[4:] + side[2:],
                      "mated": ([kind == "mated"] * 4 + [kind != "mated"] * 2) * 2, "group": "a"})
    b = pd.DataFrame({"score": [1.0, 2.0, 3.0, 2.5, 0.0, -1.0, 0.5, 0.2], "mated": [True] * 4 + [False] * 4,
                      "group": "b"})
    whole = pd.concat([a, b], ignore_index=True)
    data = as_dask([a.iloc[:6], a.iloc[6:], b])
    expected = bf.automatic_comprehensive_equity_index(whole, kind=kind, n_std=1.0, bins=4)
    found = bp.automatic_comprehensive_equity_index(data, kind=kind, n_std=1.0, bins=4)
    assert expected.parameters["percentiles"]["a"] == (100.0 if kind == "mated" else 75.0)
    assert found.parameters == expected.parameters
    assert found.divergences.equals(expected.divergences)


@pytest.mark.parametrize("kind", ["mated", "nonmated"])
def test_an_empty_cei_centre_names_its_tied_scores_as_in_memory(kind):
    """20 of a group's 21 non-mated scores tie at its lowest score (spread over partitions):
    memory says so and which percentile leaves them in the centre; out of core said only
    'too few or tied scores'."""
    a = pd.DataFrame({"score": [0.0] * 20 + [1.0, 2.0, 3.0], "mated": [False] * 21 + [True] * 2, "group": "a"})
    b = pd.DataFrame({"score": [*np.linspace(-1, 1, 21), 2.0, 3.0], "mated": [False] * 21 + [True] * 2,
                      "group": "b"})
    whole = pd.concat([a, b], ignore_index=True)
    if kind == "mated":  # the mirror image: the tie at the group's highest mated score
        whole = whole.assign(score=1.0 - whole["score"], mated=~whole["mated"])
    with pytest.raises(SchemaError) as expected:
        bf.comprehensive_equity_index(whole, kind=kind)
    assert "20 of them share its" in str(expected.value)
    with pytest.raises(SchemaError) as found:
        bp.comprehensive_equity_index(dd.from_pandas(whole.sample(frac=1, random_state=0), npartitions=3), kind=kind)
    assert str(found.value) == str(expected.value)


@pytest.mark.parametrize("n_std, error, message, in_memory", [
    ("3", TypeError, "^n_std must be a number, got '3'$", "^n_std must be a number, got '3'$"),
    (True, TypeError, "^n_std must be a number, got True$", "^n_std must be a number, got True$"),
    (np.inf, ValueError, r"^n_std must lie in \(0, inf\), got inf$", r"^n_std must lie in \(0, inf\), got inf$"),
    (np.nan, ValueError, r"^n_std must lie in \(0, inf\), got nan$", r"^n_std must lie in \(0, inf\), got nan$")])
def test_automatic_cei_checks_n_std_as_in_memory(n_std, error, message, in_memory):
    """A text n_std failed in a comparison ('>' not supported), True was taken for 1, inf was
    taken (every group split at its 100th percentile) where memory refuses them all."""
    with pytest.raises(error, match=message):
        bp.automatic_comprehensive_equity_index(dd.from_pandas(table(1), npartitions=2), n_std=n_std)
    with pytest.raises(error, match=in_memory):
        bf.automatic_comprehensive_equity_index(table(1), n_std=n_std)


def test_eer_refuses_an_array_as_its_method_as_in_memory():
    """np.array(['rocch']) passed ``not in`` (an array of one True) and computed the EER."""
    message = r"^method must be 'rocch', 'midpoint' or 'interval', got array\(\['rocch'\]"
    with pytest.raises(ValueError, match=message):
        bp.eer(dd.from_pandas(table(1), npartitions=2), method=np.array(["rocch"]))
    with pytest.raises(ValueError, match=message):
        bf.eer(*bf.split_scores(table(1)), method=np.array(["rocch"]))


@pytest.mark.parametrize("dev", [3, pd.DataFrame({"score": [1.0]})])
def test_fdr_says_a_dev_of_the_wrong_type_is_dev(dev):
    """'scores must be a dask DataFrame ...' named the evaluation set's argument."""
    with pytest.raises(TypeError, match=r"^dev, the development scores the thresholds are set on: scores must be "
                       r"a dask DataFrame or a Parquet path, got (int$|a pandas DataFrame: give dask)"):
        bp.fairness_discrepancy_rate(dd.from_pandas(table(1), npartitions=2), dev=dev)


@pytest.mark.parametrize(("scores", "message"), [
    (pd.DataFrame({"score": [0.5], "mated": [True]}),
     "scores must be a dask DataFrame or a Parquet path, got a pandas DataFrame: give "
     "dask.dataframe.from_pandas(scores, npartitions=...)"),
    ([0.5, 0.1], "scores must be a dask DataFrame or a Parquet path, got list"),
])
def test_what_is_not_partitioned_is_named(scores, message):
    """A pandas table was refused as 'got DataFrame', which read as if a Dask one had been."""
    with pytest.raises(TypeError, match="^" + re.escape(message)):
        bp.census(scores)


@pytest.mark.parametrize(("module", "call"), [
    ("dask.dataframe", lambda path: bp.partitioned(path)),
    ("pyarrow", lambda path: bp.census(path)),
    ("distributed", lambda path: bp.partitioned(path, scheduler="tcp://127.0.0.1:1")),
])
def test_a_missing_dask_names_the_extra_that_installs_it(module, call, tmp_path, monkeypatch):
    """Without Dask, partitioned failed with Python's bare "No module named 'dask'"; the
    command line names its missing extra, and so does every function here now."""
    table(0).to_parquet(tmp_path / "scores.parquet", index=False)
    monkeypatch.setitem(sys.modules, module, None)  # what an uninstalled module imports as
    with pytest.raises(ModuleNotFoundError, match=re.escape("pip install 'biofair[dask]'")) as error:
        call(str(tmp_path / "scores.parquet"))
    assert module in str(error.value)
