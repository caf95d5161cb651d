"""Audit of the papers' values, the reproduction ledger, the data loaders and the synthetic
generators.

- Every row of ``biofair/data/paper_values.csv`` against the papers' tables as printed
  (transcribed below; when ``../shared/papers`` is present, the transcription is checked
  against the papers' text too), derived rows recomputed from the printed numbers.
- The ledger refuses values that made every verdict "differs" (NaN paper value, NaN or
  negative tolerance), a quantity listed twice, and its failure message shows every digit.
- The VoxCeleb1-H loader never returns a cached copy that lost rows.
- The generators draw what their docstrings state (moments within a tolerance from the
  sample size), reproducibly, and refuse bad options by name.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import biofair as bf
from biofair import datasets, synthetic
from biofair.reproduction import _paper_values

PAPERS = Path(__file__).resolve().parents[2].parent / "shared" / "papers"

# The tables as printed (tab-separated, copied from the papers' text).
CEI_TABLE_3 = """\
DFIN	0.9983	0.9974	0.8361
DFIE	0.9982	0.9970	0.8112
GARBEFMR	0.0050	0.2950	0.0433
GARBEFNMR	0.3326	0.0025	0.0208
INFMR	1.1249	2.0989	1.0697
INFNMR	2.2331	1.0037	1.0416
CEIE,G*	0.4714	0.9990	0.9916
CEIE,I*	0.9992	0.5372	0.2986
CEIAN,G*	0.5446	0.9968	0.9968
CEIAN,I*	0.9831	0.5666	0.5654
CEIAE,G*	0.4554	0.9967	0.9967
CEIAE,I*	0.9783	0.4751	0.4739"""
CEI_TABLE_3_NAMES = {"DFIN": "DFI_N", "DFIE": "DFI_E", "GARBEFMR": "GARBE_FMR", "GARBEFNMR": "GARBE_FNMR",
                     "INFMR": "IN_FMR", "INFNMR": "IN_FNMR", "CEIE,G*": "CEI_E,G", "CEIE,I*": "CEI_E,I",
                     "CEIAN,G*": "CEIᴬ_N,G", "CEIAN,I*": "CEIᴬ_N,I", "CEIAE,G*": "CEIᴬ_E,G", "CEIAE,I*": "CEIᴬ_E,I"}
# N, class: RFW percentile, tail weight, score, MORPH percentile, tail weight, score
CEI_TABLE_4 = """\
$1$	Genuines	84	$0.61$	$0.928$	85	$0.62$	$0.722$
	Impostors	84	$0.61$	$0.791$	84	$0.61$	$0.940$
$2$	Genuines	98	$0.71$	$0.881$	99	$0.73$	$0.579$
	Impostors	97	$0.72$	$0.729$	97	$0.71$	$0.843$
$3$	Genuines	99	$0.72$	$0.848$	99	$0.69$	$0.596$
	Impostors	99	$0.71$	$0.712$	999	$0.72$	$0.814$"""
FDR_TABLE_I = """\
0	0.001	0.000	0.000	0.000
1	0.001	0.000	0.000	0.000
2	0.001	0.000	0.000	0.000
	$\\text{FNMR}(\\tau)$
0	0.003	0.036	0.179	0.484
1	0.003	0.039	0.178	0.481
2	0.003	0.036	0.168	0.469
$FDR(\\tau)$	0.999	0.999	0.994	0.992"""
FDR_TABLE_II = """\
0	0.002	0.002	0.000	0.000
1	0.000	0.000	0.000	0.000
2	0.000	0.000	0.000	0.000
	$\\text{FNMR}^{\\text{test}}(\\tau)$
0	0.001	0.016	0.114	0.369
1	0.009	0.092	0.321	0.637
2	0.071	0.304	0.614	0.855
$FDR(\\tau)$	0.963	0.855	0.750	0.756"""
FDR_TABLE_III = """\
$\\alpha=0$	0.99	0.81
$\\alpha=0.25$	0.99	0.86
$\\alpha=0.5$	0.99	0.90
$\\alpha=0.75$	0.99	0.95
$\\alpha=1$	0.99	0.98"""
BEYOND_AUC_SENTENCES = (
    "it reached a full AUC of $0.975$, but its TMR at $\\mathrm{FMR}=10^{-3}$ was $0.453$",
    "The full AUC gap between these two voice systems was only $0.024$, whereas the TMR gap at $10^{-3}$ was $0.495$",
    "No ranking flip was found for voice or iris",
    "The x-vector showed a smaller but still visible gap of $0.037$",
)
NSIGMA_SENTENCE = ("the SP, EOP and T-Test metrics will give the maximum value which is 1, while the N-Sigma "
                   "metric the minimum which is 0")
TARGETS = ("1e-3", "1e-4", "1e-5", "1e-6")


def cells(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()]


def fdr_rates(text: str) -> tuple[dict[str, list[Decimal]], dict[str, list[Decimal]], list[Decimal]]:
    rows = cells(text)
    fmr = {r[0]: [Decimal(x) for x in r[1:]] for r in rows[0:3]}
    fnmr = {r[0]: [Decimal(x) for x in r[1:]] for r in rows[4:7]}
    return fmr, fnmr, [Decimal(x) for x in rows[7][1:]]


def printed_values() -> dict[tuple[str, str, str], Decimal]:
    """Every value of paper_values.csv, from the transcribed tables and sentences."""
    out: dict[tuple[str, str, str], Decimal] = {}
    for name, *values in cells(CEI_TABLE_3):
        for scenario, value in zip(("BG", "BI", "BC"), values):
            out["cei", "Table 3", f"{CEI_TABLE_3_NAMES[name]}, {scenario}"] = Decimal(value)
    # Table 4: the mean of the four cells (two data sets, two classes) at each N; the "999" of
    # MORPH's impostors at N = 3 read as 99 (the chapter shows the 99.9 reading beside it)
    rows = cells(CEI_TABLE_4)
    for n in (1, 2, 3):
        block = rows[2 * (n - 1): 2 * n]
        percentiles = [Decimal(r[i]) for r in block for i in (2, 5)]
        percentiles = [Decimal(99) if p == 999 else p for p in percentiles]
        weights = [Decimal(r[i].strip("$")) for r in block for i in (3, 6)]
        out["cei", "Table 4", f"P_split, N={n}"] = sum(percentiles) / 4
        out["cei", "Table 4", f"w_t, N={n}"] = sum(weights) / 4
    for table, text in (("Table I", FDR_TABLE_I), ("Table II", FDR_TABLE_II)):
        fmr, fnmr, fdr = fdr_rates(text)
        for kind, rates in (("FMR", fmr), ("FNMR", fnmr)):
            for group, values in rates.items():
                for target, value in zip(TARGETS, values):
                    out["fdr", table, f"{kind} group {group} @ {target}"] = value
        for target, value in zip(TARGETS, fdr):
            out["fdr", table, f"FDR @ {target}"] = value
        if table == "Table II":  # B: the largest minus the smallest printed FNMR
            for i, target in enumerate(TARGETS):
                column = [values[i] for values in fnmr.values()]
                out["fdr", table, f"B (largest FNMR gap) @ {target}"] = max(column) - min(column)
    for alpha_cell, fair, unfair in cells(FDR_TABLE_III):
        alpha = re.fullmatch(r"\$\\alpha=(.*)\$", alpha_cell).group(1)
        out["fdr", "Table III", f"area, fair, alpha = {alpha}"] = Decimal(fair)
        out["fdr", "Table III", f"area, unfair, alpha = {alpha}"] = Decimal(unfair)
    out["beyond_auc", "voice pair", "TMR gap at FMR 1e-3 / ROC-AUC gap"] = Decimal("0.495") / Decimal("0.024")
    out["beyond_auc", "voice pair", "ROC-AUC - TMR at FMR 1e-3, weaker system"] = Decimal("0.975") - Decimal("0.453")
    out["beyond_auc", "voice pair", "ranking flips"] = Decimal(0)
    out["beyond_auc", "voice pair", "ROC-AUC - PR-AUC, weaker system"] = Decimal("0.037")
    for quantity, value in (("SP", 1), ("EOP", 1), ("T-test similarity", 1), ("N-Sigma", 0)):
        out["nsigma", "reference group", f"{quantity} of the reference against itself"] = Decimal(value)
    return out


def test_every_paper_value_is_the_printed_number():
    """All 120 rows, each against its table cell (or the printed numbers it derives from)."""
    shipped = pd.read_csv(Path(bf.__file__).parent / "data" / "paper_values.csv", dtype=str, keep_default_na=False)
    expected = printed_values()
    keys = list(zip(shipped["paper"], shipped["table"], shipped["quantity"]))
    assert sorted(keys) == sorted(expected)  # no row unchecked, none missing
    wrong = {key: (value, expected[key]) for key, value in zip(keys, shipped["paper_value"])
             if Decimal(value) != expected[key]}
    assert not wrong


@pytest.mark.skipif(not PAPERS.is_dir(), reason="the papers' text is not next to this checkout")
def test_the_transcription_is_the_papers_text():
    cei = (PAPERS / "cei-comprehensive-equity-index.txt").read_text()
    fdr = (PAPERS / "fdr-fairness-discrepancy-rate.txt").read_text()
    beyond = (PAPERS / "beyond-roc-auc-operating-point-reporting.txt").read_text()
    nsigma = (PAPERS / "n-sigma-statistical-bias.txt").read_text()
    assert "Metrics\tBG\tBI\tBC\n" + CEI_TABLE_3 + "\n" in cei
    assert "Percentile\tTail Weight\tMetric Score\n" + CEI_TABLE_4 + "\n" in cei
    table_i = fdr.index("TABLE I: Canonical fair")
    table_ii = fdr.index("TABLE II: Canonical UNfair")
    assert fdr.index(FDR_TABLE_I) > table_i and fdr.index(FDR_TABLE_II) > table_ii > fdr.index(FDR_TABLE_I)
    assert fdr.index(FDR_TABLE_III) > fdr.index("TABLE III: Area Under the FDR")
    assert all(sentence in beyond for sentence in BEYOND_AUC_SENTENCES)
    assert NSIGMA_SENTENCE in nsigma


def test_shipped_verdicts_agree_with_their_own_paper_value():
    """Fed the paper's own number, every shipped row is an agreement; fed a number just
    beyond the tolerance on the far side of "no effect" (or above it), never a reproduction."""
    shipped = _paper_values()
    for (paper, table), rows in shipped.groupby(["paper", "table"], sort=False):
        same = bf.reproduction_ledger(paper, table, dict(zip(rows["quantity"], rows["paper_value"])), check=False)
        assert same["verdict"].isin(["reproduced", "no effect in both"]).all()
        away = np.where(rows["paper_value"] >= rows["reference"].fillna(-np.inf), 1.0, -1.0)
        moved = rows["paper_value"] + away * (rows["tolerance"] * 1.001 + 1e-6)
        ledger = bf.reproduction_ledger(paper, table, dict(zip(rows["quantity"], moved)), check=False)
        assert not (ledger["verdict"] == "reproduced").any()


def ledger_values(**columns):
    base = {"paper": "cei", "table": "Table 3", "quantity": ["a"], "paper_value": [0.5], "tolerance": [0.1],
            "expected": ["differs"], "reason": ["a reason"], "reference": [math.nan]}
    return pd.DataFrame({**base, **columns})


@pytest.mark.parametrize("columns, bad", [
    ({"paper_value": [math.nan]}, "paper value NaN"),
    ({"tolerance": [math.nan]}, "tolerance NaN"),
    ({"tolerance": [-0.1]}, "negative tolerance"),
    ({"tolerance": [math.inf]}, "infinite tolerance"),
    ({"reference": [math.inf]}, "infinite reference"),
])
def test_a_malformed_paper_row_is_refused(columns, bad):
    """Each made the row "differs" whatever the book gave (book = paper = 0.5 too): an
    expected deviation passed unseen."""
    with pytest.raises(ValueError, match=r"^cei Table 3: every row needs a finite paper_value.*\['a'\]"):
        bf.reproduction_ledger("cei", "Table 3", {"a": 0.5}, values=ledger_values(**columns))


def test_a_quantity_listed_twice_is_refused():
    """It gave two rows with two verdicts for one book value."""
    values = ledger_values(quantity=["a", "a"], paper_value=[0.5, 0.9], tolerance=[0.1, 0.1],
                           expected=["reproduced", "differs"], reason=["", "x"], reference=[math.nan] * 2)
    with pytest.raises(ValueError, match=r"list \['a'\] more than once"):
        bf.reproduction_ledger("cei", "Table 3", {"a": 0.5}, values=values)


def test_the_failure_message_shows_every_digit():
    """0.0015001 was shown as 0.0015, within 0.0005 of the paper's 0.001: a deviation read
    as an agreement."""
    values = ledger_values(paper_value=[0.001], tolerance=[0.0005], expected=["reproduced"], reason=[""])
    assert bf.reproduction_ledger("cei", "Table 3", {"a": 0.0015}, values=values)["verdict"][0] == "reproduced"
    with pytest.raises(AssertionError, match=r"a: paper 0\.001, book 0\.0015001, tolerance 0\.0005: differs"):
        bf.reproduction_ledger("cei", "Table 3", {"a": 0.0015001}, values=values)


def test_bad_inputs_are_named():
    with pytest.raises(TypeError, match=r"^cei Table 3: book values must be numbers"):
        bf.reproduction_ledger("cei", "Table 3", {"a": "0.5x"}, values=ledger_values())
    with pytest.raises(ValueError, match=r"lack the columns \['reference'\]"):
        bf.reproduction_ledger("cei", "Table 3", {"a": 0.5}, values=ledger_values().drop(columns="reference"))


@pytest.mark.parametrize("seed", range(3))
def test_verdicts_by_exact_fractions(seed):
    """The rule of the docstring on printed decimals, with Fraction arithmetic (no rounding)."""
    rng = np.random.default_rng(seed)
    n = 300
    paper = np.round(rng.uniform(-1, 1, n), 2)
    tolerance = np.round(rng.choice([0.0, 0.01, 0.05, 0.1], n), 2)
    reference = rng.choice([math.nan, 0.0, 0.5], n)
    book = np.round(paper + rng.choice([-1, 1], n) * rng.choice([0, 0.01, 0.05, 0.1, 0.2, 1.0], n), 2)
    book = np.round(np.where(rng.random(n) < 0.2, reference + rng.choice([-0.05, 0.0, 0.05], n), book), 2)
    book = np.where(np.isnan(book), paper, book)
    values = ledger_values(quantity=[f"q{i}" for i in range(n)], paper_value=paper, tolerance=tolerance,
                           reference=reference, expected="differs", reason="any")
    ledger = bf.reproduction_ledger("cei", "Table 3", dict(zip(values["quantity"], book)), values=values, check=False)

    def exact(x):
        return Fraction(repr(float(x)))

    for p, b, t, r, verdict in zip(paper, book, tolerance, reference, ledger["verdict"]):
        p, b, t = exact(p), exact(b), exact(t)
        r = None if math.isnan(r) else exact(r)
        if r is not None and abs(p - r) <= t and (abs(b - r) <= t or abs(b - p) <= t):
            expected = "no effect in both"
        elif abs(b - p) <= t:
            expected = "reproduced"
        elif r is not None and (p > r) == (b > r) and abs(p - r) > t and abs(b - r) > t:
            expected = "same direction"
        else:
            expected = "differs"
        assert verdict == expected, (p, b, t, r)


# --- datasets ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def voxceleb_l():
    return datasets.load_voxceleb1h("resnetse34l")


def test_a_cached_copy_that_lost_rows_is_never_returned(voxceleb_l, tmp_path, monkeypatch):
    """A truncated Parquet copy (10 rows) was returned as it was; an unreadable one raised
    pyarrow's error."""
    monkeypatch.setenv("BIOFAIR_CACHE", str(tmp_path))
    cached = tmp_path / "voxceleb1h-resnetse34l-bt4vt-1.0.1.parquet"
    voxceleb_l.head(10).to_parquet(cached, index=False)
    table = datasets.load_voxceleb1h("resnetse34l")
    assert len(table) == 550_894 and int(table["mated"].sum()) == 275_488
    assert table.equals(voxceleb_l)  # (assert_frame_equal takes half a minute on these categoricals)
    assert len(pd.read_parquet(cached)) == 550_894  # rewritten from the source
    cached.write_bytes(b"not parquet")
    assert datasets.load_voxceleb1h("resnetse34l").equals(voxceleb_l)
    assert sorted(p.name for p in tmp_path.iterdir()) == [cached.name]  # no temporary file left


def test_a_cached_copy_of_the_other_model_is_never_returned(voxceleb_l, tmp_path, monkeypatch):
    """The cache was checked by its counts only, which both models share: the other model's
    copy saved under this model's name was returned as this model's scores (the summaries
    audit)."""
    monkeypatch.setenv("BIOFAIR_CACHE", str(tmp_path))
    cached = tmp_path / "voxceleb1h-resnetse34l-bt4vt-1.0.1.parquet"
    voxceleb_l.assign(system="resnetse34v2").to_parquet(cached, index=False)
    table = datasets.load_voxceleb1h("resnetse34l")
    assert (table["system"] == "resnetse34l").all() and table.equals(voxceleb_l)
    assert (pd.read_parquet(cached, columns=["system"])["system"] == "resnetse34l").all()  # rewritten


def test_columns_are_in_the_documented_order(voxceleb_l):
    returns = datasets.load_voxceleb1h.__doc__.split("Returns")[1].split("Raises")[0]
    documented = [name for name in re.findall(r"``(\w+)``", returns) if name in voxceleb_l.columns]
    assert documented == list(voxceleb_l.columns)


def test_an_empty_cache_variable_is_unset(monkeypatch, tmp_path):
    """BIOFAIR_CACHE='' gave Path(''), the working folder."""
    monkeypatch.setenv("BIOFAIR_CACHE", "")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert datasets.cache_dir() == tmp_path / ".cache" / "biofair"


def test_example_scores_are_as_documented():
    table = pd.read_csv(datasets.example_scores_path())
    assert list(table.columns) == ["reference_subject", "probe_subject", "group", "score", "mated"]
    assert len(table) == 7_920 and table["group"].value_counts().to_dict() == {"A": 2640, "B": 2640, "C": 2640}
    subjects = pd.unique(table[["reference_subject", "probe_subject"]].to_numpy().ravel())
    assert subjects.size == 120
    homogeneous = table[~table["mated"]]
    assert homogeneous.groupby("group").size().tolist() == [2400] * 3  # the data card's 2,400 per group


# --- synthetic --------------------------------------------------------------------------


def mean_within(sample, mean, variance, z=5.0):
    """|sample mean - mean| within z standard errors."""
    sample = np.asarray(sample, dtype=float)
    return abs(sample.mean() - mean) <= z * math.sqrt(variance / sample.size)


def variance_within(sample, variance, kurtosis_excess=0.0, z=5.0):
    sample = np.asarray(sample, dtype=float)
    n = sample.size
    return abs(sample.var(ddof=1) - variance) <= z * variance * math.sqrt(2 / (n - 1) + kurtosis_excess / n)


def test_gaussian_scores_moments():
    table = synthetic.gaussian_scores(n_mated=20_000, n_nonmated=40_000, mated_mean=1.5, mated_std=0.7,
                                      nonmated_std=1.3, tail_share=0.1, tail_mean=4.0, rng=1)
    mated, nonmated = table.loc[table["mated"], "score"], table.loc[~table["mated"], "score"]
    assert (len(mated), len(nonmated)) == (20_000, 40_000) and table["mated"].iloc[:20_000].all()
    assert mean_within(mated, 1.5, 0.49) and variance_within(mated, 0.49)
    # mixture 0.9 N(0, 1.3²) + 0.1 N(4, 1.3²): mean 0.4, variance 1.69 + 0.1 * 0.9 * 16
    assert mean_within(nonmated, 0.4, 1.69 + 1.44)
    assert table.equals(synthetic.gaussian_scores(n_mated=20_000, n_nonmated=40_000, mated_mean=1.5, mated_std=0.7,
                                                  nonmated_std=1.3, tail_share=0.1, tail_mean=4.0, rng=1))


@pytest.mark.parametrize("fair", [True, False])
def test_fdr_canonical_system_moments(fair):
    table = synthetic.fdr_canonical_system(fair=fair, n_mated=20_000, n_nonmated=40_000, rng=2)
    for group, (mated_mean, mated_std, nonmated_mean) in synthetic.FDR_CANONICAL[fair].items():
        part = table[table["group"] == group]
        mated, nonmated = part.loc[part["mated"], "score"], part.loc[~part["mated"], "score"]
        assert (len(mated), len(nonmated)) == (20_000, 40_000)
        assert mean_within(mated, mated_mean, mated_std**2) and variance_within(mated, mated_std**2)
        assert mean_within(nonmated, nonmated_mean, 1.0) and variance_within(nonmated, 1.0)


def test_fdr_cross_group_system_cells():
    table = synthetic.fdr_cross_group_system(fair=False, n_mated=100, n_nonmated=20_000, cross_shift=0.7, rng=3)
    params = synthetic.FDR_CANONICAL[False]
    sizes = table.groupby(["reference_group", "probe_group", "mated"]).size()
    assert sizes.xs(False, level="mated").tolist() == [20_000] * 9
    assert sizes.xs(True, level="mated").index.tolist() == [("0", "0"), ("1", "1"), ("2", "2")]
    for (reference, probe), part in table[~table["mated"]].groupby(["reference_group", "probe_group"]):
        mu_r, mu_p = params[reference][2], params[probe][2]
        mean = mu_r if reference == probe else (mu_r + mu_p) / 2 - 0.7
        assert mean_within(part["score"], mean, 1.0) and variance_within(part["score"], 1.0)


@pytest.mark.parametrize("scenario, strength", [("balanced", 1.0), ("BG", 1.0), ("BI", 0.5), ("BC", 1.0)])
def test_beta_scenario_distributions(scenario, strength):
    """Kolmogorov-Smirnov against the documented laws (the BC law: the documented map of
    Beta(3, 14), by a large reference sample)."""
    table = synthetic.beta_scenario(scenario, strength=strength, n_groups=3, n_mated=40_000, n_nonmated=40_000, rng=4)
    assert table.groupby(["group", "mated"]).size().tolist() == [40_000] * 6
    share = 0.08 * strength
    for group, part in table.groupby("group"):
        mated, nonmated = part.loc[part["mated"], "score"], part.loc[~part["mated"], "score"]
        mated_cdf, nonmated_cdf = stats.beta(*synthetic.BETA_MATED).cdf, stats.beta(*synthetic.BETA_NONMATED).cdf
        if group == "C" and scenario == "BG":
            tail = stats.beta(*synthetic.BETA_BG_TAIL).cdf
            mated_cdf = lambda x, base=mated_cdf: (1 - share) * base(x) + share * tail(x)  # noqa: E731
        if group == "C" and scenario == "BI":
            tail = stats.beta(*synthetic.BETA_BI_TAIL).cdf
            nonmated_cdf = lambda x, base=nonmated_cdf: (1 - share) * base(x) + share * tail(x)  # noqa: E731
        assert stats.kstest(mated, mated_cdf).pvalue > 1e-4
        if group == "C" and scenario == "BC":
            start, stop = stats.beta.ppf([0.5, synthetic.BETA_BC_KEPT], *synthetic.BETA_NONMATED)
            reference = stats.beta(*synthetic.BETA_NONMATED).rvs(size=400_000, random_state=9)
            reference = reference + 0.2 * strength * np.clip((stop - reference) / (stop - start), 0, 1)
            assert stats.ks_2samp(nonmated, reference).pvalue > 1e-4
        else:
            assert stats.kstest(nonmated, nonmated_cdf).pvalue > 1e-4


def test_demographic_scores_as_documented():
    groups = {"a": (300, 4.0, 0.0), "b": (300, 3.5, 0.3), "c": (200, 3.0, -0.2)}
    table = synthetic.demographic_scores(groups=groups, mated_per_subject=10, nonmated_per_subject=60,
                                         cross_share=0.3, cross_shift=-0.5, subject_sd=0.6, rng=5)
    mated, nonmated = table[table["mated"]], table[~table["mated"]]
    assert len(mated) == 800 * 10 and len(nonmated) == 800 * 60
    assert (mated["reference_subject"] == mated["probe_subject"]).all()
    assert (nonmated["reference_subject"] != nonmated["probe_subject"]).all()
    for side in ("reference", "probe"):
        assert (table[f"{side}_subject"].str.split("-").str[0] == table[f"{side}_group"]).all()
    cross = nonmated["reference_group"] != nonmated["probe_group"]
    assert abs(cross.mean() - 0.3) <= 5 * math.sqrt(0.3 * 0.7 / len(nonmated))
    # cell means: the subject effect (variance 0.36) is shared by a subject's comparisons, so the
    # standard error counts subjects as well as comparisons
    for (reference, probe), part in nonmated.groupby(["reference_group", "probe_group"]):
        mean = groups[reference][2] if reference == probe else (groups[reference][2] + groups[probe][2]) / 2 - 0.5
        n_subjects = part["reference_subject"].nunique()
        se = math.sqrt(0.36 / n_subjects + 0.64 / len(part))
        assert abs(part["score"].mean() - mean) <= 5 * se
    for group, part in mated.groupby("reference_group"):
        assert abs(part["score"].mean() - groups[group][1]) <= 5 * math.sqrt(0.36 / groups[group][0] + 0.64 / len(part))
        assert abs(part["score"].var() - 1.0) < 0.15  # variance 1 (subject-correlated: a loose band)


@pytest.mark.parametrize("draw, options, error, message", [
    (synthetic.gaussian_scores, {"n_mated": 2.5}, TypeError, r"^n_mated must be an integer, got 2.5$"),
    (synthetic.gaussian_scores, {"n_nonmated": None}, TypeError, r"^n_nonmated must be an integer, got None$"),
    (synthetic.fdr_canonical_system, {"n_mated": -1}, ValueError, r"^n_mated must be at least 0, got -1$"),
    (synthetic.fdr_canonical_system, {"n_nonmated": "3"}, TypeError, r"^n_nonmated must be an integer"),
    (synthetic.fdr_cross_group_system, {"cross_shift": math.inf}, ValueError, r"^cross_shift must lie in \[0, inf\)"),
    (synthetic.fdr_cross_group_system, {"cross_shift": "1"}, TypeError, r"^cross_shift must be a number"),
    (synthetic.fdr_cross_group_system, {"n_mated": True}, TypeError, r"^n_mated must be an integer, got True$"),
    (synthetic.beta_scenario, {"n_groups": 2.5}, TypeError, r"^n_groups must be an integer, got 2.5$"),
    (synthetic.beta_scenario, {"n_groups": True}, TypeError, r"^n_groups must be an integer, got True$"),
    (synthetic.beta_scenario, {"n_groups": 27}, ValueError, r"^n_groups must lie in 2 \.\.\. 26"),
    (synthetic.beta_scenario, {"n_mated": -1}, ValueError, r"^n_mated must be at least 0, got -1$"),
    (synthetic.identification_embeddings, {"dim": 2.5}, TypeError, r"^dim must be an integer, got 2.5$"),
    (synthetic.identification_embeddings, {"n_enrolled": 3, "n_searched": 4}, ValueError,
     r"^n_searched must be at most n_enrolled \(3\), got 4$"),
    (synthetic.demographic_scores, {"cross_shift": math.nan}, ValueError, r"^cross_shift must lie in"),
    (synthetic.demographic_scores, {"groups": {"a": (3, math.nan, 0.0), "b": (3, 1.0, 0.0)}}, ValueError,
     r"^the mated mean of group 'a' must lie in"),
    (synthetic.demographic_scores, {"groups": {"a": (2.5, 1.0, 0.0), "b": (3, 1.0, 0.0)}}, TypeError,
     r"^the subjects of group 'a' must be an integer, got 2.5$"),
    (synthetic.demographic_scores, {"groups": {"a": (2, 1.0), "b": (2, 1.0, 0.0)}}, TypeError,
     r"^groups\['a'\] must be \(subjects, mated mean, non-mated mean\)"),
    (synthetic.demographic_scores, {"mated_per_subject": 2.5}, TypeError,
     r"^mated_per_subject must be an integer, got 2.5$"),
    (synthetic.demographic_scores, {"nonmated_per_subject": True}, TypeError,
     r"^nonmated_per_subject must be an integer, got True$"),
    (synthetic.demographic_scores, {"cross_share": "0.5"}, TypeError, r"^cross_share must be a number"),
])
def test_generators_refuse_bad_options_by_name(draw, options, error, message):
    """Before: NumPy's "expected a sequence of integers", "negative dimensions are not
    allowed" or a comparison TypeError; cross_shift=inf drew -inf scores, NaN means NaN
    scores; 2.5 comparisons per subject drew 2, True drew 1."""
    with pytest.raises(error, match=message):
        draw(**options, rng=0)


def test_generators_are_reproducible():
    draws = [
        lambda rng: synthetic.fdr_cross_group_system(n_mated=5, n_nonmated=7, rng=rng),
        lambda rng: synthetic.beta_scenario("BC", n_groups=3, n_mated=50, n_nonmated=50, rng=rng),
        lambda rng: synthetic.demographic_scores(rng=rng),
        lambda rng: synthetic.identification_embeddings(n_enrolled=4, n_nonenrolled=3, dim=8, rng=rng).long_table(),
    ]
    for draw in draws:
        assert draw(7).equals(draw(np.random.default_rng(7)))
        assert not draw(7).equals(draw(8))
