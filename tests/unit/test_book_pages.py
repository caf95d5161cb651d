"""The numbers and rules the book's reference pages quote hold for the package.

The pages ``book/conventions.md``, ``book/glossary.md``, ``book/metric_chooser.md``,
``book/api.md`` and the README have no code cells, so nothing executes their claims. Each test
here reads a quoted default, count or rule from a page and checks it against the package, so
that a change on either side fails here instead of leaving the page stale.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta

import biofair as bf
import biofair.cli

ROOT = Path(__file__).resolve().parents[2]
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5}


def page(name: str) -> str:
    """A page's text with every run of white space (line breaks included) made one space."""
    return " ".join((ROOT / name).read_text().split())


def quoted(pattern: str, name: str) -> re.Match:
    """The one match of ``pattern`` on a page; fails, naming the page, when it is not there."""
    found = list(re.finditer(pattern, page(name)))
    assert len(found) == 1, f"{name}: expected one match of {pattern!r}, found {len(found)}"
    return found[0]


def test_api_page_names_every_function_with_a_positional_default():
    # api.md: "(three functions take the question they answer positionally, with a default: ...)";
    # conventions.md defers to it for the exceptions to "no positional argument has a default"
    match = quoted(r"\((\w+) functions take the question they answer positionally, with a default: ([^)]*)\)",
                   "book/api.md")
    named = re.findall(r"`([\w.]+)`", match[2])
    found = set()
    for module_name in ("biofair", "biofair.partitions", "biofair.synthetic", "biofair.datasets", "biofair.plotting",
                        "biofair.mitigation", "biofair.normalisation", "biofair.cli"):
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            members = [(f"{module_name}.{name}", value)] if inspect.isfunction(value) else [
                (f"{module_name}.{name}.{attribute}", member)
                for attribute, member in (vars(value).items() if inspect.isclass(value) else ())
                if inspect.isfunction(member) and not attribute.startswith("_")]
            for qualified, function in members:
                if any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty
                       for p in inspect.signature(function).parameters.values()):
                    found.add(qualified)
    assert NUMBER_WORDS[match[1]] == len(found), sorted(found)
    assert all(any(qualified.endswith(f".{name}") for name in named) for qualified in found), (sorted(found), named)


def test_glossary_tolerance_is_the_differential_reports_default():
    match = quoted(r"biofair's default, ([\d.]+), is the four-fifths rule", "book/glossary.md")
    default = inspect.signature(bf.differential_report).parameters["tolerance"].default
    assert float(match[1]) == default == 1 / 0.8


def test_glossary_log_fmr_auc_range_is_the_default():
    match = quoted(r"by default from ([\de.-]+) to ([\d.]+)\.", "book/glossary.md")
    parameters = inspect.signature(bf.log_fmr_auc).parameters
    assert (float(match[1]), float(match[2])) == (parameters["min_fmr"].default, parameters["max_fmr"].default)


@pytest.mark.parametrize("name, pattern", [
    ("book/conventions.md", r"\*resolved\* iff \$\\mathrm\{fmr\} \\cdot N \\ge (\d+)\$ and \*precise\* iff "
                            r"\$\\mathrm\{fmr\} \\cdot N \\ge (\d+)\$"),
    ("book/glossary.md", r"\*resolved\* when FMR·N is at least (\d+) and \*precise\* when it is at least (\d+);"),
    ("book/api.md", r"the target allows at least (\d+) false matches, .{0,40}\) and `precise` \(at least (\d+)\)"),
    ("README.md", r"the target allows at least (\d+) false matches, `fmr·N >= \d+`\) and `precise` "
                  r"\(at least (\d+)\)"),
])
def test_resolved_and_precise_counts_on_the_pages_are_the_packages(name, pattern):
    resolved, precise = (int(count) for count in quoted(pattern, name).groups())
    n = 1000
    rng = np.random.default_rng(0)
    mated, nonmated = rng.normal(3, 1, 200), rng.normal(0, 1, n)
    # each count exactly, and just below it (a tenth of a false match fewer)
    targets = [resolved / n, (resolved - 0.1) / n, precise / n, (precise - 0.1) / n]
    # below 3/N: the one target a tenth of a false match short, and the default pAUC bound and min_fmr 1e-3
    below = rf"^targets FMR 0\.001, {(resolved - 0.1) / n:g} are below 3/N = {3 / n:g} \(N = {n} non-mated comparisons\)"
    with pytest.warns(bf.InsufficientComparisonsWarning, match=below):
        summary = bf.operating_summary(mated, nonmated, fmr_targets=targets)
    rows = summary[summary["metric"] == "tmr_at_fmr"].set_index("fmr_target")
    assert rows.loc[targets, "resolved"].tolist() == [True, False, True, True]
    assert rows.loc[targets, "precise"].tolist() == [False, False, True, False]


@pytest.mark.parametrize("name", ["book/conventions.md", "book/glossary.md"])
def test_rule_of_three_bound_on_the_pages(name):
    # "a test without a single false match bounds the FMR, with 95% confidence, only at about 3/N"
    match = quoted(r"without a single false match bounds the FMR, with (\d+)% confidence, only at about "
                   r"\$?(\d+)/N\$?", name)
    confidence, count = int(match[1]) / 100, int(match[2])
    for n in (1_000, 100_000):  # the one-sided Clopper-Pearson upper end of 0 in n
        assert abs(beta.ppf(confidence, 1, n) * n - count) < 0.01


def _table_of_groups(groups: dict[str, tuple[int, int]], *, threshold: float) -> pd.DataFrame:
    """Per group, 50 mated scores (5 below ``threshold``) and ``n`` non-mated ones of which
    ``k`` reach it."""
    parts = []
    for name, (n, k) in groups.items():
        nonmated = np.r_[np.full(k, threshold + 0.4), np.full(n - k, threshold - 0.4)]
        mated = np.r_[np.full(5, threshold - 0.3), np.full(45, threshold + 0.45)]
        labels = np.r_[np.ones(50, bool), np.zeros(n, bool)]
        parts.append(pd.DataFrame({"score": np.r_[mated, nonmated], "mated": labels, "group": name}))
    return pd.concat(parts, ignore_index=True)


def test_differential_report_resolves_by_the_target_or_three_errors_of_its_own():
    # conventions.md, glossary.md and metric_chooser.md: resolved when target·n >= 3 or at least 3 errors
    errors = {int(quoted(r"at least (\d+) errors of its own", name)[1])
              for name in ("book/conventions.md", "book/glossary.md", "book/metric_chooser.md")}
    by_target = int(quoted(r"\$\\mathrm\{target\} \\cdot n \\ge (\d+)\$", "book/conventions.md")[1])
    assert errors == {by_target} == {3}
    # b and c have 100 non-mated comparisons: the pooled FMR target, 25/1200, allows only 2.08 there
    table = _table_of_groups({"a": (1000, 20), "b": (100, 3), "c": (100, 2)}, threshold=0.5)
    report = bf.differential_report(table, threshold=0.5, n_resamples=40, rng=0)
    fmr = report.to_frame().query("rate == 'fmr'").set_index("group")
    assert fmr.loc["b", "target"] * 100 < 3 and fmr.loc["b", "errors"] == 3
    assert fmr["status"].to_dict() == {"a": "resolved", "b": "resolved", "c": "unresolved"}


def test_metric_chooser_subject_count_for_the_bootstrap_is_the_reports():
    match = quoted(r"(\d+) or more subjects for the subject-bootstrap interval", "book/metric_chooser.md")
    bound = int(match[1])
    table = _table_of_groups({"a": (400, 20), "b": (400, 20)}, threshold=0.5)
    # a: one subject more than the bound, b: one fewer; every comparison's reference is a subject of its group
    sizes = {"a": bound + 1, "b": bound - 1}
    table["reference_subject"] = [f"{group}{i % sizes[group]}" for i, group in enumerate(table["group"])]
    report = bf.differential_report(table, threshold=0.5, n_resamples=40, rng=0)
    few = [note for note in report.notes if f"fewer than {bound} subjects" in note]
    assert few and all("'b'" in note and "'a'" not in note for note in few), report.notes


def test_glossary_decidability_divides_by_the_root_mean_square_of_the_two_deviations():
    quoted(r"d′ The distance between the means of the mated and non-mated scores in units of the root mean "
           r"square of the two classes' standard deviations", "book/glossary.md")
    rng = np.random.default_rng(1)
    mated, nonmated = rng.normal(4, 2, 50), rng.normal(0, 1, 5000)  # unequal sizes and spreads
    rms = np.sqrt((mated.var() + nonmated.var()) / 2)
    pooled = np.sqrt((mated.var() * mated.size + nonmated.var() * nonmated.size) / (mated.size + nonmated.size))
    gap = mated.mean() - nonmated.mean()
    assert np.isclose(bf.decidability(mated, nonmated), gap / rms, rtol=1e-12)
    assert not np.isclose(gap / rms, gap / pooled, rtol=0.1)  # the two readings differ here


def test_conventions_beta_scenarios_are_the_generators():
    text = "book/conventions.md"
    match = quoted(r"draws mated scores from Beta\((\d+), (\d+)\) and non-mated from Beta\((\d+), (\d+)\) for every "
                   r"group, ([\d,]+) of each per group by default, and biases the last group", text)
    assert tuple(map(float, match.groups()[:2])) == bf.synthetic.BETA_MATED
    assert tuple(map(float, match.groups()[2:4])) == bf.synthetic.BETA_NONMATED
    parameters = inspect.signature(bf.synthetic.beta_scenario).parameters
    assert int(match[5].replace(",", "")) == parameters["n_mated"].default == parameters["n_nonmated"].default
    bg = quoted(r"BG replaces (\d+)% of the group's mated scores by draws from Beta\((\d+), (\d+)\)", text)
    bi = quoted(r"BI (\d+)% of its non-mated scores by draws from Beta\((\d+), (\d+)\)", text)
    assert tuple(map(float, bg.groups()[1:])) == bf.synthetic.BETA_BG_TAIL
    assert tuple(map(float, bi.groups()[1:])) == bf.synthetic.BETA_BI_TAIL
    bc = quoted(r"becomes \$x \+ ([\d.]+)\\,w\(x\)\$ with \$w = 1\$ below the median of Beta\(3, 14\), \$w = 0\$ "
                r"above its ([\d.]+)th percentile", text)
    assert float(bc[1]) == bf.synthetic.BETA_BC_SHIFT and float(bc[2]) / 100 == bf.synthetic.BETA_BC_KEPT
    # the share: with 2,000 mated scores per group, the biased (last) group's component, and no other group's
    n = 2_000
    table = bf.synthetic.beta_scenario("BG", n_groups=3, n_mated=n, n_nonmated=10, rng=3)
    mated = table[table["mated"]]
    low = mated["score"] < 0.5  # Beta(14, 3) puts about 1e-4 of its mass here, Beta(6, 4) about a quarter
    share = low.groupby(mated["group"]).mean()
    last = sorted(share.index)[-1]
    component_low = beta.cdf(0.5, *bf.synthetic.BETA_BG_TAIL)
    assert abs(share[last] / component_low - int(bg[1]) / 100) < 0.02
    assert (share.drop(last) < 0.005).all()
    assert int(bg[1]) == int(bi[1])


def test_readme_progress_size_is_the_commands(capsys):
    match = quoted(r"for a file of (\d+) MiB or more, each stage", "README.md")
    with pytest.raises(SystemExit) as stop:
        biofair.cli.main(["report", "--help"])
    assert stop.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"{match[1]} MiB or more (reading, checking, computing, writing)" in help_text


def test_metric_chooser_quotes_the_chapters_own_words_for_findings_that_change_with_the_draw():
    """The chooser typed the words of two findings around glued numbers: chapter 7's "N times as
    many false alarms as another (a against b: below the rule of three ...)" read "inf times ...
    (27 against 0 ...)" at seed 1, where the least-alarming group raised none; chapter 12's
    "widens the FNMR gap" is asserted nowhere (the chapter glues "widens" or "narrows"). It now
    quotes the phrases the chapters glue for every draw."""
    chooser = page("book/metric_chooser.md")
    for chapter, phrase, typed in [
        ("07_identify_fairly", "nb07_alarms_reading", "nb07_fpir_ratio"),
        ("12_mitigate_and_measure_the_price", "nb12_b_strict", "widens the FNMR gap"),
    ]:
        assert f"chapters/{chapter}.ipynb::{phrase}:s`" in chooser
        assert typed not in chooser
        source = (ROOT / "notebooks" / f"{chapter}.md").read_text()
        assert re.search(rf'glue\("{phrase}", ', source), f"{chapter} glues no {phrase}"


def test_glue_from_another_document_names_its_format():
    # myst-nb splits `doc::key:format` at its last colon: without a format, "chapters/x.ipynb:"
    # becomes the key and the key the format, and the build fails to find it
    references = [reference for path in sorted((ROOT / "book").glob("*.md"))
                  for reference in re.findall(r"\{glue:text\}`([^`]*::[^`]*)`", page(f"book/{path.name}"))]
    assert len(references) > 20  # the metric chooser's findings
    for reference in references:
        assert re.fullmatch(r"chapters/\w+\.ipynb::\w+:[^:]+", reference), reference


def test_teaching_page_names_what_a_downloaded_chapter_imports_beyond_biofairs_dependencies():
    """The page said a downloaded chapter needs biofair "(make env, or pip install -e . in a
    clone)"; every chapter imports myst-nb's glue, which pip install -e . does not install, and
    chapters 1, 9, 10 and 14 import pyeer, scikit-learn, jsonschema and Dask."""
    import sys
    import tomllib

    names = {"myst_nb": "myst-nb", "sklearn": "scikit-learn", "pyeer": "pyeer", "jsonschema": "jsonschema",
             "dask": "Dask", "distributed": "Dask"}
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    installed = {re.match(r"[A-Za-z0-9_-]+", d)[0].lower() for d in dependencies} | {"biofair", "ipython"}
    teaching = page("book/teaching.md")
    for source in sorted((ROOT / "notebooks").glob("*.md")):
        cells = re.findall(r"^```\{code-cell\}[^\n]*\n(.*?)^```", source.read_text(), re.MULTILINE | re.DOTALL)
        imported = set(re.findall(r"^\s*(?:from ([A-Za-z_]\w*)[\w.]* import|import ([A-Za-z_]\w*))", "\n".join(cells),
                                  re.MULTILINE))
        imported = {first or second for first, second in imported}
        beyond = {m for m in imported - set(sys.stdlib_module_names) if m.lower() not in installed}
        assert beyond <= set(names), f"{source.stem} imports {sorted(beyond - set(names))}: name them on the page"
        for module in beyond:
            assert names[module] in teaching, f"{source.stem} imports {module}; book/teaching.md does not say so"


def test_conventions_name_every_function_whose_fmr_takes_several_targets():
    """The page said `fmr` is "one target FMR" everywhere; threshold_at_fmr and tmr_at_fmr (in
    memory and out of core) take an array of targets, the others refuse one."""
    match = quoted(r"the functions that return bare numbers, ([^;]*?), also take an array of targets",
                   "book/conventions.md")
    named = set(re.findall(r"`([\w.]+)`", match[1]))
    several = set()
    for module_name in ("biofair", "biofair.partitions", "biofair.mitigation", "biofair.normalisation"):
        module = importlib.import_module(module_name)
        for name in module.__all__:
            function = getattr(module, name)
            if inspect.isfunction(function) and "fmr" in inspect.signature(function).parameters:
                if "ArrayLike" in str(inspect.signature(function).parameters["fmr"].annotation):
                    several.add(name if module_name == "biofair" else f"{module_name}.{name}")
    assert named == several
    rng = np.random.default_rng(0)
    mated, nonmated = rng.normal(3, 1, 200), rng.normal(0, 1, 1000)
    assert bf.threshold_at_fmr(nonmated, [0.1, 0.01]).shape == bf.tmr_at_fmr(mated, nonmated, [0.1, 0.01]).shape == (2,)
    with pytest.raises(TypeError, match="one target FMR"):
        bf.operating_point(mated, nonmated, fmr=[0.1, 0.01])
