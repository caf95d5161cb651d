"""The HTML page of a differential report (``biofair report --layout differential``).

Written for a reader who has not read the book: every number says what it is, on how many
comparisons, and how sure it is. Every text taken from the data is escaped.
"""

from __future__ import annotations

import html
import math

import pandas as pd

from biofair._validation import percent as _percent
from biofair.differentials import _FEW_SUBJECTS, _compared_rows

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.9rem; }
table { display: block; max-width: max-content; overflow-x: auto; }  /* a wide table scrolls, not the page */
/* the row's label stays in view while the rest of a wide table scrolls under it */
tr > :first-child { position: sticky; left: 0; z-index: 1; background: #fff; }
tr > th:first-child { background: #f2f2f2; }
/* the table draws the collapsed borders where the cell was, not where it is pinned: its own
   background, painted a little wider, keeps the values that scrolled under it from showing */
tr > :first-child::before { content: ""; position: absolute; inset: 0 0 0 -6px; z-index: -1; background: inherit;
                            box-shadow: inset -1px 0 0 #ccc; }
.scroll-hint { display: none; font-size: 0.85rem; color: #555; }
@media (max-width: 60rem) { .scroll-hint { display: block; } }  /* a phone shows a few columns at a time */
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: right; vertical-align: top; }
th { background: #f2f2f2; } td.text, th.text { text-align: left; }
.unresolved { color: #8a4b00; } .exceeds { color: #b00020; font-weight: bold; } .within { color: #006d2c; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: 0.5rem 1rem; }
dt { font-weight: bold; } dd { margin: 0 0 0.5rem 1.5rem; }
code { overflow-wrap: anywhere; }  /* a path or a hash wraps on a phone */
"""

#: The page loads nothing, not even when a later edit adds a reference: an auditor may open it on an
#: air-gapped machine, or under a policy that forbids a report to contact the internet.
_POLICY = "default-src 'none'; style-src 'unsafe-inline'"

#: Shown above a wide table on a narrow screen, where its last columns (the intervals, the
#: ratios, the verdicts) start out of view with nothing to say they are there.
_SCROLL_HINT = '<p class="scroll-hint">The table scrolls sideways: its first column stays in view.</p>'

_RATE_NAMES = {
    "fmr": ("False match rate (FMR)", "homogeneous non-mated comparisons (both sides in the group)",
            "false matches"),
    "fnmr": ("False non-match rate (FNMR)", "mated comparisons", "false non-matches"),
}


def _e(value: object) -> str:
    return html.escape(str(value))


def _label(group: object) -> str:
    """A group label as the page shows it: escaped, and quoted as Python writes it (``repr``)
    where a browser would show it as another label: a browser collapses surrounding and repeated
    white space (" x" and "x" were two rows "x"), and a no-break space or a tab looks like a space."""
    text = str(group)
    return _e(text if text.isprintable() and text == " ".join(text.split()) else repr(text))


def _reference(group: str | None) -> str:
    """The reference group of a rate, or why there is none."""
    return "none: no group resolves this rate" if group is None else _label(group)


def _number(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float) and math.isinf(value):  # an unbounded interval's end
        return "∞" if value > 0 else "−∞"
    return f"{value:.{digits}g}"


def _interval(low: float, high: float, tolerance: float | None = None) -> str:
    """``[low, high]``; with ``tolerance``, the ends of a ratio's interval that a verdict reads."""
    if low is None or pd.isna(low) or pd.isna(high):
        return "–"
    show = _number if tolerance is None else (lambda end: _ratio_end(end, tolerance))
    return f"[{show(low)}, {show(high)}]"


def _exact(value: float) -> str:
    """The shortest decimal that reads back as ``value`` (``1.25``, ``1.2500001``, ``2``): a
    setting the verdicts compare with, which format ``"g"`` would round (1.2500001 to 1.25)."""
    return repr(float(value)).removesuffix(".0")


def _apart(value: float, edges: tuple[float, ...]) -> str:
    """``value`` with the digits that tell it from each of ``edges`` it is not: 3 significant
    digits, more where those would print it as an edge."""
    digits = 3
    while value not in edges and digits < 17 and any(_number(value, digits) == _number(e, digits) for e in edges):
        digits += 1
    return _number(value, digits)


def _ratio_end(value: float, tolerance: float) -> str:
    """A ratio or an end of its interval with the digits that tell it from the tolerance band's
    ends, which the verdict compares it with: 1.2504 beside "exceeds tolerance" was shown as 1.25,
    inside the band [0.8, 1.25] the page states (and a ratio of 1.2504 as 1.25, outside its
    interval [1.2501, 1.2507])."""
    return _apart(value, (tolerance, 1 / tolerance))


def _rate(value: float) -> str:
    """A rate, never printed as 1 unless it is 1 (an error in every comparison, which has no
    ratio): FNMR 0.9996 was printed "1"."""
    return _apart(value, (1.0,))


def _smallest_resolved(value: float) -> str:
    """3/n, or why there is none: with fewer than 3 comparisons no rate is resolved (3/2 was
    shown as a rate of 1.5)."""
    return _number(value) if not value > 1 else "none: fewer than 3 comparisons"


def _left_out(groups: pd.DataFrame, rate: str) -> str:
    """The groups a rate's differentials leave out, one per line: names joined by "; ", as in
    the JSON, could not be told from a name holding "; " (the notes say why each is left out)."""
    part = groups[groups["rate"] == rate]
    return "<br>".join(map(_label, part["group"][~_compared_rows(part)])) or "none"


def _ratio(row, tolerance: float) -> str:
    if pd.isna(row.ratio):
        return "–"
    return _ratio_end(row.ratio, tolerance) + ("" if row.ratio_verdict == "reference"
                                               else f" {_interval(row.ratio_low, row.ratio_high, tolerance)}")


def _verdict_class(verdict: str) -> str:
    return {"exceeds tolerance": "exceeds", "within tolerance": "within"}.get(verdict, "")


def _rate_table(groups: pd.DataFrame, rate: str, confidence: float, tolerance: float) -> str:
    title, counted, errors = _RATE_NAMES[rate]
    rows = []
    for row in groups[groups["rate"] == rate].itertuples():
        status = row.status
        if status == "resolved":  # and below the rule of thirty, said so: 3 errors are not 100
            value = _rate(row.estimate) + ("" if row.precise else '<br><small class="unresolved">not precise</small>')
        elif status == "unresolved":
            value = f'<span class="unresolved">not resolved: {row.errors:,} of {row.comparisons:,}</span>'
        else:
            value = '<span class="unresolved">no comparisons</span>'
        extrapolated = "–" if pd.isna(row.extrapolated) else (
            f"{_number(row.extrapolated)} {_interval(row.extrapolated_low, row.extrapolated_high)} (model)")
        subjects = "–" if pd.isna(row.reference_subjects) else f"{int(row.reference_subjects)} / {int(row.probe_subjects)}"
        rows.append(
            f'<tr><td class="text">{_label(row.group)}</td><td>{value}</td><td>{row.errors:,} / {row.comparisons:,}</td>'
            f"<td>{subjects}</td><td>{_interval(row.bootstrap_low, row.bootstrap_high)}</td>"
            f"<td>{_interval(row.cp_low, row.cp_high)}</td><td>{_interval(row.wilson_low, row.wilson_high)}</td>"
            f"<td>{_number(row.design_effect)}</td><td>{_smallest_resolved(row.smallest_resolved)}</td>"
            f"<td>{_ratio(row, tolerance)}</td>"
            f'<td class="text {_verdict_class(row.ratio_verdict)}">{_e(row.ratio_verdict)}</td>'
            + (f"<td>{extrapolated}</td>" if rate == "fmr" else "") + "</tr>"
        )
    percent = _percent(confidence)
    head = (
        '<tr><th class="text">group</th><th>rate</th><th>errors / comparisons</th><th>subjects (reference / probe)</th>'
        f"<th>{percent} interval, subject bootstrap</th><th>{percent} Clopper-Pearson</th><th>{percent} Wilson</th>"
        "<th>design effect</th><th>smallest resolved rate (3/n)</th><th>ratio to reference</th><th class=\"text\">verdict</th>"
        # only an FMR is extrapolated (from the tail of the non-mated scores): the FNMR table had a column of dashes
        + ("<th>extrapolated FMR (GPD tail)</th>" if rate == "fmr" else "") + "</tr>"
    )
    return (f"<h2>{title}</h2><p>Counted on {counted}; errors are {errors} at the threshold.</p>"
            f"{_SCROLL_HINT}<table>{head}{''.join(rows)}</table>")


def _differentials(report) -> str:
    rows = []
    for row in report.differentials.itertuples():
        rows.append(
            f'<tr><td class="text">{row.rate.upper()}</td><td>{row.groups_compared}</td>'
            f'<td class="text">{_label(row.highest_group or "–")} / {_label(row.lowest_group or "–")}</td>'
            f"<td>{_ratio_end(row.max_min, report.tolerance)} "
            f"{_interval(row.max_min_low, row.max_min_high, report.tolerance)}</td>"
            f"<td>{_number(row.max_geomean)} {_interval(row.max_geomean_low, row.max_geomean_high)}</td>"
            f'<td class="text {_verdict_class(row.verdict)}">{_e(row.verdict)}</td>'
            f'<td class="text">{_left_out(report.groups, row.rate)}</td></tr>'
        )
    head = ('<tr><th class="text">rate</th><th>groups compared</th><th class="text">highest / lowest group</th>'
            "<th>highest / lowest</th><th>highest / geometric mean</th><th class=\"text\">verdict</th>"
            '<th class="text">left out</th></tr>')
    return f"<h2>Differentials between groups</h2>{_SCROLL_HINT}<table>{head}{''.join(rows)}</table>"


def _cross(report) -> str:
    if report.cross_group is None:
        return ("<h2>Cross-group false matches</h2><p>The data give one group per comparison, not one per side: "
                "no cross-group table.</p>")
    cells = report.cross_group
    order = {name: i for i, name in enumerate(pd.unique(report.groups["group"]))}  # the groups' order, not as text
    probes = sorted(pd.unique(cells["probe"]), key=lambda name: order.get(name, len(order)))
    lookup = {(r.reference, r.probe): r for r in cells.itertuples()}
    rows = []
    for reference in pd.unique(cells["reference"]):  # in the groups' order, as the cells come
        tds = []
        for probe in probes:
            cell = lookup.get((reference, probe))
            if cell is None:
                tds.append("<td>–</td>")
            else:
                value = _rate(cell.fmr) if cell.resolved else '<span class="unresolved">not resolved</span>'
                tds.append(f"<td>{value}<br><small>{cell.false_matches:,} / {cell.comparisons:,}</small></td>")
        rows.append(f'<tr><th class="text">{_label(reference)}</th>{"".join(tds)}</tr>')
    head = '<tr><th class="text">reference \\ probe</th>' + "".join(f"<th>{_label(p)}</th>" for p in probes) + "</tr>"
    return ("<h2>Cross-group false matches</h2><p>FMR of the non-mated comparisons of each reference (enrolment) "
            "group against each probe group at the same threshold, with false matches / comparisons.</p>"
            f"{_SCROLL_HINT}<table>{head}{''.join(rows)}</table>")


def _provenance(source: dict | None) -> str:
    """The paragraph that names the score file, when the report says which it was."""
    from biofair import __version__

    if source is None:
        return ""
    return (f"<p>Scores: <code>{_e(source['path'])}</code> ({source['bytes']:,} bytes, SHA-256 "
            f"<code>{source['sha256']}</code>); biofair {_e(__version__)}.</p>")


def _resamples(report) -> str:
    """How many bootstrap resamples the intervals come from and the seed that draws them again
    (an auditor reruns the report with it and gets the same intervals)."""
    drawn = f"{report.n_resamples:,} bootstrap resamples"
    if report.seed is None:
        return f"{drawn}, from a generator whose seed the report does not know (a rerun draws other resamples)"
    return f"{drawn}, seed {report.seed}"


def render(report) -> str:
    """The report as one self-contained HTML page, which requests nothing when it is opened."""
    settings = report.to_dict()["settings"]
    if report.threshold_source == "fmr":
        source = (f"set at a target FMR of {_exact(report.fmr_target)} on all {report.overall['n_nonmated']:,} "
                  "non-mated comparisons (homogeneous and cross-group), as a deployed system sets one threshold for everyone")
    else:
        source = "given by the operator"
    overall = report.overall
    notes = "".join(f"<li>{_e(note)}</li>" for note in report.notes)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{_POLICY}">
<title>Demographic differential report</title>
<style>{_STYLE}</style></head><body>
<h1>Demographic differential report</h1>
{_provenance(report.source)}
<p>Groups by <b>{_e(", ".join(report.by))}</b>. Threshold <b>{_e(repr(float(report.threshold)))}</b> (a comparison
is a match when its {"distance is at or below" if report.distance else "score is at or above"} it), {source}. At this threshold the whole data set has
FMR {_rate(overall["fmr"])} ({overall["false_matches"]:,} of {overall["n_nonmated"]:,} non-mated comparisons)
and FNMR {_rate(overall["fnmr"])} ({overall["false_non_matches"]:,} of {overall["n_mated"]:,} mated comparisons).</p>
<h2>How to read this report</h2>
<dl>
<dt>rate</dt><dd>errors divided by comparisons of the group. It is shown only when the data resolve it
(the rule of three): when the rate the group is asked about (for FMR the target, or the whole data set's FMR
at a threshold the operator gave; for FNMR the whole data set's FNMR) would give at least 3 errors among the
group's comparisons, or when the group has at least 3 errors of its own; that is, when either rate reaches
the smallest resolved rate, 3 / comparisons. A cross-group cell follows the same rule. Otherwise the page
says "not resolved" with the counts, since a rate of 0 there would only mean too few comparisons, and the
intervals say how high the rate could be. A group's rate is <i>precise</i> when either rate would give at least 30
errors (the rule of thirty: the smallest precise rate is 30 / comparisons); a shown rate that is not is marked
"not precise": the data bound it, but loosely.</dd>
<dt>intervals</dt><dd>{_percent(settings["confidence"])} intervals. The subject bootstrap resamples whole subjects
({_e(report.cluster or "none: comparisons resampled")}), because the comparisons of one person are not
independent; it is the interval to rely on, unless the group has fewer than {_FEW_SUBJECTS} subjects (the notes name such
groups: a bootstrap over so few understates the uncertainty). Its intervals are percentiles of
{_resamples(report)}.
Clopper-Pearson and Wilson assume independent comparisons and are
too narrow when the <b>design effect</b> (how much a person's repeated comparisons inflate the variance) is
above 1.</dd>
<dt>ratio and verdict</dt><dd>each group's rate divided by the reference group's (for FMR,
{_reference(settings["reference"]["fmr"])}; for FNMR, {_reference(settings["reference"]["fnmr"])}). A ratio is
<i>within tolerance</i> when its whole interval lies within [1/{_exact(report.tolerance)}, {_exact(report.tolerance)}],
<i>exceeds tolerance</i> when it lies wholly outside, and <i>inconclusive</i> when the data cannot tell.
A group whose bootstrap interval has zero width (no resample of it varies: a group without errors, with an
error in every comparison, or whose every subject has the same error rate) has no ratio; while one is resolved,
its rate's verdict is never <i>within tolerance</i> (the notes compare its Clopper-Pearson interval with the
other groups').
The intervals of the ratios, and of max/min, hold for every pair of groups at once, so that reading all of
them, and a reference picked as the lowest rate, does not make equal groups look unequal.
Tolerance {_exact(report.tolerance)} is the four-fifths rule unless the operator chose another.</dd>
<dt>extrapolated FMR</dt><dd>for a group whose FMR is not resolved (too few comparisons for the target and
fewer than 3 false matches of its own), when it has scores enough to fit a tail: an estimate from a generalised
Pareto model of the group's highest non-mated scores, with a profile-likelihood interval. It rests on the
model, not on observed false matches.</dd>
</dl>
{_differentials(report)}
{_rate_table(report.groups, "fmr", report.confidence, report.tolerance)}
{_rate_table(report.groups, "fnmr", report.confidence, report.tolerance)}
{_cross(report)}
<h2>Notes</h2><div class="note"><ul>{notes or "<li>none</li>"}</ul></div>
<p><small>biofair {_e(report.to_dict()["biofair_version"])}; {_resamples(report)}. The same numbers
are in differential.json.</small></p>
</body></html>
"""
