"""The differential report against independent computations (an audit of differentials.py).

Oracles: loops over the comparisons with exact fractions for the counts and the rule of three,
``scipy.stats.binomtest(...).proportion_ci(method="exact")`` for Clopper-Pearson, the
definitions of the reference (lowest compared rate), ratios, max/min, max/geometric mean and the
verdicts, simulation where the truth is known for the simultaneous (max-t) intervals, and the
page's table cells read back from the HTML.
"""

from __future__ import annotations

import html
import re
import warnings
from fractions import Fraction
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import biofair as bf
from biofair._differential_html import render

TOLERANCE = 1.25


def table_of(spec: dict) -> pd.DataFrame:
    """Pair-level groups from ``{group: (mated scores, non-mated scores)}``."""
    parts = [pd.DataFrame({"score": np.r_[np.asarray(m, float), np.asarray(n, float)],
                           "mated": np.arange(len(m) + len(n)) < len(m), "group": name})
             for name, (m, n) in spec.items()]
    return pd.concat(parts, ignore_index=True)


def verdict(low: float, high: float) -> str:
    if np.isnan(low) or np.isnan(high):
        return "not assessable"
    if low > TOLERANCE or high < 1 / TOLERANCE:
        return "exceeds tolerance"
    return "within tolerance" if 1 / TOLERANCE <= low and high <= TOLERANCE else "inconclusive"


def expected_rows(table: pd.DataFrame, threshold: float, fmr: float | None) -> dict:
    """Per (group, rate): counts by a loop, resolution by exact fractions (the target as the
    decimal it was typed as), the estimate only where resolved, Clopper-Pearson by scipy."""
    decided = [(s < threshold) if m else (s >= threshold) for s, m in zip(table["score"], table["mated"])]
    rows, mated = {}, table["mated"].tolist()
    overall = {rate: Fraction(sum(e for e, m in zip(decided, mated) if m == cls), sum(m == cls for m in mated))
               for rate, cls in (("fmr", False), ("fnmr", True))}
    targets = {"fmr": Fraction(str(fmr)) if fmr is not None else overall["fmr"], "fnmr": overall["fnmr"]}
    for name in sorted(set(table["group"])):
        for rate, cls in (("fmr", False), ("fnmr", True)):
            own = [e for e, m, g in zip(decided, mated, table["group"]) if g == name and m == cls]
            n, k = len(own), sum(own)
            resolved = n > 0 and (targets[rate] * n >= 3 or k >= 3)
            ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact") if n else None
            rows[name, rate] = {"errors": k, "comparisons": n, "resolved": resolved,
                                "precise": n > 0 and (targets[rate] * n >= 30 or k >= 30),
                                "estimate": k / n if resolved else np.nan,
                                "cp_low": ci.low if ci else np.nan, "cp_high": ci.high if ci else np.nan}
    return rows


def check_against_definitions(table: pd.DataFrame, report: bf.DifferentialReport, fmr: float | None) -> None:
    got = report.groups.set_index(["group", "rate"])
    for key, want in expected_rows(table, report.threshold, fmr).items():
        row = got.loc[key]
        assert (row["errors"], row["comparisons"], row["resolved"], row["precise"]) == (
            want["errors"], want["comparisons"], want["resolved"], want["precise"]), key
        np.testing.assert_array_equal(row["estimate"], want["estimate"])
        np.testing.assert_allclose(row[["cp_low", "cp_high"]].to_numpy(float), [want["cp_low"], want["cp_high"]],
                                   rtol=1e-6, atol=1e-12)
    for rate in ("fmr", "fnmr"):
        part = report.groups[report.groups["rate"] == rate]
        compared = part[part["resolved"] & (part["estimate"] > 0) & (part["estimate"] < 1)]
        lowest = compared.sort_values("estimate", kind="stable")["group"].iloc[0] if len(compared) else None
        assert report.reference[rate] == lowest
        summary = report.differentials.set_index("rate").loc[rate]
        assert summary["groups_compared"] == len(compared)
        assert part.loc[~part.index.isin(compared.index), "ratio"].isna().all()
        if len(compared) < 2:
            assert summary["verdict"] == "not assessable"
            continue
        e = compared["estimate"].to_numpy()
        assert summary["max_min"] == pytest.approx(e.max() / e.min(), rel=1e-12)
        assert summary["max_geomean"] == pytest.approx(e.max() / stats.gmean(e), rel=1e-12)
        edge = (part["resolved"] & part["estimate"].isin([0.0, 1.0])).any()
        want = verdict(summary["max_min_low"], summary["max_min_high"])
        assert summary["verdict"] == ("inconclusive" if edge and want == "within tolerance" else want)
        base = compared.set_index("group")["estimate"][lowest]
        for row in compared.itertuples():
            assert row.ratio == pytest.approx(row.estimate / base, rel=1e-12)
            assert row.ratio_low <= row.ratio <= row.ratio_high
            assert row.ratio_verdict == ("reference" if row.group == lowest else verdict(row.ratio_low, row.ratio_high))


HAND_TABLES = {
    # a group without errors, a group whose FNMR only its own errors resolve, ties at the threshold
    "zero and ties": ({"a": ([1] * 10 + [0] * 3, [1] * 3 + [0] * 97), "b": ([1] * 20, [1] * 6 + [0] * 94),
                       "c": ([0] + [1] * 4, [0] * 10)}, [{"threshold": 1.0}, {"threshold": 0.5}, {"fmr": 0.05}]),
    # equal rates (the reference is the first of them), one comparison in a group
    "equal rates": ({"a": ([0] * 5 + [2] * 15, [1] * 5 + [0] * 45), "b": ([0] * 5 + [2] * 15, [1] * 5 + [0] * 45),
                     "c": ([2], [0])}, [{"threshold": 1.0}, {"fmr": 0.1}]),
    # two groups, every score tied across the classes
    "tied classes": ({"a": ([1, 1, 2, 2, 3, 3], [1, 2, 2, 3, 1, 1]), "b": ([2, 2, 2, 3], [2, 2, 3, 1, 1, 1])},
                     [{"threshold": 2.0}, {"threshold": 3.0}, {"fmr": 0.2}]),
    # four groups; the target resolves exactly 3 errors in 100 (0.03 * 100 == 3)
    "four groups": ({g: ([0] * k + [1] * (40 - k), [1] * f + [0] * (100 - f))
                     for g, k, f in (("a", 4, 3), ("b", 8, 6), ("c", 3, 9), ("d", 2, 0))},
                    [{"threshold": 0.5}, {"fmr": 0.03}]),
}


@pytest.mark.parametrize("name", HAND_TABLES)
def test_hand_made_tables_against_the_definitions(name):
    spec, options = HAND_TABLES[name]
    table = table_of(spec)
    for option in options:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
            report = bf.differential_report(table, n_resamples=200, extrapolate=False, rng=0, **option)
        check_against_definitions(table, report, option.get("fmr"))


def test_random_small_tables_against_the_definitions():
    """2-4 groups of 1-60 integer scores (ties everywhere), thresholds on tied scores."""
    rng = np.random.default_rng(5)
    checked = 0
    for case in range(60):
        parts = []
        for g in range(rng.integers(2, 5)):
            n = rng.integers(1, 60)
            mated = rng.random(n) < 0.4
            parts.append(pd.DataFrame({"score": rng.integers(0, 6, n) + mated * rng.integers(0, 3), "mated": mated,
                                       "group": f"g{g}"}))
        table = pd.concat(parts, ignore_index=True)
        if table["mated"].all() or not table["mated"].any():
            continue
        option = ({"threshold": float(rng.choice(np.unique(table["score"])[1:]))} if case % 2 else
                  {"fmr": float(rng.choice([0.05, 0.1, 0.2, 0.3]))})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)
            warnings.simplefilter("ignore", bf.ScoreDirectionWarning)  # random classes: AUC near 0.5
            report = bf.differential_report(table, n_resamples=100, extrapolate=False, rng=case, **option)
        check_against_definitions(table, report, option.get("fmr"))
        checked += 1
    assert checked > 50


def test_a_rate_of_one_has_no_ratio_since_no_resample_varies_it():
    """Group x has 3 false non-matches in 3 mated comparisons (resolved by its own errors;
    Clopper-Pearson [0.29, 1]), a and b 1000 in 2000. Every resample of x is 3 in 3, so the
    band of x/a rested on a's variation alone: [1.9, 2.1], "exceeds tolerance", and the FNMR
    verdict too, although x's data allow a rate of 0.5. x is now left out, named in the notes,
    and the verdict (a and b agree) is inconclusive, not within tolerance."""
    spec = {"a": ([0] * 1000 + [1] * 1000, [0] * 2000), "b": ([0] * 1000 + [1] * 1000, [0] * 2000),
            "x": ([0, 0, 0], [0] * 20)}
    table = table_of(spec)
    report = bf.differential_report(table, threshold=0.5, n_resamples=400, extrapolate=False, rng=0)
    check_against_definitions(table, report, None)
    x = report.groups.set_index(["group", "rate"]).loc[("x", "fnmr")]
    assert x["status"] == "resolved" and x["estimate"] == 1 and x["cp_low"] < 0.5 / TOLERANCE
    assert np.isnan(x["ratio"]) and x["ratio_verdict"] == "not assessable"
    fnmr = report.differentials.set_index("rate").loc["fnmr"]
    assert (fnmr["groups_compared"], fnmr["excluded"], fnmr["verdict"]) == (2, "x", "inconclusive")
    assert "FNMR: left out of the differentials: a rate of 1 (an error in every comparison, which no resample " \
           "varies): 'x'" in report.notes
    said = next(note for note in report.notes if note.startswith("FNMR: 'x' made an error in every comparison"))
    others = report.groups[(report.groups["rate"] == "fnmr") & (report.groups["group"] != "x")]
    assert f"lower end of those is {x['cp_low'] / others['cp_high'].max():.3g} times" in said


def test_groups_all_at_a_rate_of_one_are_not_within_tolerance():
    """A target FMR set above every score (the top scores tied) makes every comparison a
    non-match: FNMR 1 in every group, 5 mated comparisons in c. The intervals of the ratios
    were [1, 1] and the verdict "within tolerance"; a given threshold above every score is
    refused for this reason. Now no group is compared and the FNMR is not assessable."""
    table = table_of({"a": ([1] * 10 + [0] * 3, [1] * 3 + [0] * 97), "b": ([1] * 20, [1] * 6 + [0] * 94),
                      "c": ([0] + [1] * 4, [0] * 10)})
    report = bf.differential_report(table, fmr=0.03, n_resamples=200, extrapolate=False, rng=0)
    assert report.threshold > table["score"].max()
    fnmr = report.groups[report.groups["rate"] == "fnmr"]
    assert (fnmr["estimate"] == 1).all() and fnmr["ratio"].isna().all()
    assert report.differentials.set_index("rate").loc["fnmr", "verdict"] == "not assessable"


def equal_rate_groups(seed: int, k: int = 3, subjects: int = 30, per_subject: int = 20, rate: float = 0.05,
                      subject_sd: float = 0.5) -> pd.DataFrame:
    """k groups with the same true FMR; each subject's own rate varies (a logit-normal effect)."""
    rng = np.random.default_rng(seed)
    n = k * subjects
    own = 1 / (1 + np.exp(-(np.log(rate / (1 - rate)) + rng.normal(0, subject_sd, n))))
    subject = np.repeat(np.arange(n), per_subject)
    wrong = rng.random(subject.size) < own[subject]
    nonmated = pd.DataFrame({"score": np.where(wrong, 1.0, 0.0), "mated": False, "group": (subject // subjects).astype(str),
                             "reference_subject": subject.astype(str)})
    mated = pd.DataFrame({"score": np.where(rng.random(n * 4) < 0.1, 0.0, 1.0), "mated": True,
                          "group": (np.repeat(np.arange(n), 4) // subjects).astype(str),
                          "reference_subject": np.repeat(np.arange(n), 4).astype(str)})
    return pd.concat([nonmated, mated], ignore_index=True)


@pytest.mark.parametrize("unit", ["subject", "pair"])
def test_simultaneous_intervals_cover_equal_rates_together(unit):
    """3 groups of 30 subjects with equal true rates (FMR 0.05, FNMR 0.1), 100 data sets: every
    ratio to the reference and max/min must hold 1 together in about 95 % of them (measured:
    96-98 %); each is read as one family, so one miss of any ratio counts."""
    covered, runs = {"fmr": 0, "fnmr": 0}, 100
    for seed in range(runs):
        report = bf.differential_report(equal_rate_groups(seed, subject_sd=0.5 if unit == "subject" else 0.0),
                                        threshold=0.5, n_resamples=200, unit=unit, extrapolate=False, rng=seed)
        summary = report.differentials.set_index("rate")
        for rate in covered:
            rows = report.groups[report.groups["rate"] == rate]
            assert rows["ratio"].notna().all()
            every = ((rows["ratio_low"] <= 1) & (1 <= rows["ratio_high"])).all()
            covered[rate] += bool(every and summary.loc[rate, "max_min_low"] <= 1)
    assert min(covered.values()) >= 0.9 * runs, covered


class Cells(HTMLParser):
    """The text of every table cell, by table."""

    def __init__(self) -> None:
        super().__init__()
        self.tables, self.cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def shown(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    return "∞" if value == np.inf else f"{value:.3g}"


def test_the_page_shows_the_reports_numbers_and_escapes_labels():
    table = bf.synthetic.demographic_scores(rng=0)
    evil = {"a": '<img src=x onerror="alert(1)">&amp;', "b": "b</td><script>x</script>"}
    for side in ("reference_group", "probe_group"):
        table[side] = table[side].replace(evil)
    report = bf.differential_report(table, fmr=1e-2, n_resamples=100, rng=0)
    page = render(report)
    assert "<img" not in page and "<script" not in page
    parser = Cells()
    parser.feed(page)
    summary, fmr, fnmr, cross = parser.tables
    for row, (_, want) in zip(summary[1:], report.differentials.iterrows()):
        assert row[0] == want["rate"].upper() and row[1] == str(want["groups_compared"])
        assert row[2] == f"{want['highest_group']} / {want['lowest_group']}"
        for cell, name in zip(row[3:5], ("max_min", "max_geomean")):
            assert cell == f"{shown(want[name])} [{shown(want[name + '_low'])}, {shown(want[name + '_high'])}]"
        assert row[5] == want["verdict"]
    for rows, rate in ((fmr, "fmr"), (fnmr, "fnmr")):
        part = report.groups[report.groups["rate"] == rate]
        assert [r[0] for r in rows[1:]] == part["group"].tolist()  # every label as written, unescaped once
        for row, want in zip(rows[1:], part.itertuples()):
            value = (shown(want.estimate) + ("" if want.precise else "not precise") if want.status == "resolved"
                     else f"not resolved: {want.errors:,} of {want.comparisons:,}")  # as the next cell: 1,256
            assert row[1] == value and row[2] == f"{want.errors:,} / {want.comparisons:,}"
            for cell, (low, high) in zip(row[4:7], ((want.bootstrap_low, want.bootstrap_high),
                                                    (want.cp_low, want.cp_high), (want.wilson_low, want.wilson_high))):
                assert cell == ("–" if np.isnan(low) else f"[{shown(low)}, {shown(high)}]")
            assert row[7] == shown(want.design_effect) and row[8] == shown(want.smallest_resolved)
            ratio = ("–" if np.isnan(want.ratio) else shown(want.ratio) if want.ratio_verdict == "reference"
                     else f"{shown(want.ratio)} [{shown(want.ratio_low)}, {shown(want.ratio_high)}]")
            assert row[9] == ratio and row[10] == want.ratio_verdict
    assert cross[0][1:] == sorted(report.cross_group["probe"].unique())
    for note in report.notes:
        assert html.escape(note) in page
    assert re.search(r"Threshold <b>" + re.escape(repr(report.threshold)) + "</b>", page)


def test_the_page_tells_an_interval_end_from_the_tolerance_it_is_compared_with():
    """A ratio's lower end of 1.2504 beside "exceeds tolerance" was shown as 1.25, which the
    page's own rule ([1/1.25, 1.25] is within) contradicts; 0.7996 beside "inconclusive" read
    0.8. Ends that round onto the band's edges now keep the digits that tell them apart."""
    report = bf.differential_report(bf.synthetic.demographic_scores(rng=0), fmr=1e-2, n_resamples=100, rng=0)
    groups, differentials = report.groups.copy(), report.differentials.copy()
    compared = groups.index[(groups["rate"] == "fnmr") & (groups["ratio_verdict"] != "reference")
                            & groups["ratio"].notna()]
    groups.loc[compared[0], ["ratio_low", "ratio_high", "ratio_verdict"]] = 1.2504, 1.6, "exceeds tolerance"
    groups.loc[compared[1], ["ratio_low", "ratio_high", "ratio_verdict"]] = 0.7996, 1.1, "inconclusive"
    differentials.loc[differentials["rate"] == "fnmr", ["max_min_low", "max_min_high"]] = 1.2504, 1.25
    parser = Cells()
    parser.feed(render(report._replace(groups=groups, differentials=differentials)))
    summary, _, fnmr, _ = parser.tables
    cells = {row[0]: row for row in fnmr[1:]}
    first, second = (groups.loc[i] for i in compared[:2])
    assert cells[first["group"]][9] == f"{first['ratio']:.3g} [1.2504, 1.6]"
    assert cells[second["group"]][9] == f"{second['ratio']:.3g} [0.7996, 1.1]"
    assert summary[2][3].endswith("[1.2504, 1.25]")  # the band's own end as it is
