"""The executed chapters: clean outputs, every quoted number glued, parameters that work."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks").glob("*.md"))
EXECUTED = ROOT / "book" / "chapters"


def executed(source: Path) -> dict:
    path = EXECUTED / f"{source.stem}.ipynb"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make notebooks` (make test does) first")
    return json.loads(path.read_text())


def test_the_teaching_page_names_the_chapters_that_need_the_voxceleb_scores():
    """Students set up from that list: it named chapters 8 and 9, while 5, 10, 11 and 12 also
    read VoxCeleb (bt4vt)."""
    page = (ROOT / "book" / "teaching.md").read_text()
    sentence = page[: page.index("read the\nVoxCeleb scores")].rsplit("Chapters", 1)[1]
    named = set(re.findall(r"\{chapter\}`([0-9a-z_]+)`", sentence))
    assert named == {source.stem for source in SOURCES if "bf.datasets.load_voxceleb1h" in source.read_text()}


def test_every_chapter_is_in_the_table_of_contents():
    toc = (ROOT / "_toc.yml").read_text()
    for source in SOURCES:
        assert f"book/chapters/{source.stem}" in toc, source.name


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_outputs_hold_no_warning_or_error(source):
    for cell in executed(source)["cells"]:
        for output in cell.get("outputs", []):
            assert output.get("name") != "stderr", f"stderr in {source.stem}: {''.join(output['text'])[:300]}"
            assert output["output_type"] != "error", source.stem


def plain_outputs(source):
    """Each output of the executed chapter that a reader sees as text (not a table or a figure),
    with that text."""
    for cell in executed(source)["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/html" not in data and "image/png" not in data:
                yield output, "".join(data.get("text/plain", output.get("text", "")))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_output_shows_numpy_or_pandas_internals(source):
    """Chapter 1 showed a Series' summary as pandas prints it, its last line cut off on a
    phone: "Name: largest difference between the three EERs, dtype: float64". A table (a
    DataFrame, shown as HTML) says the same without the dtype; so does a number printed as
    itself, not as np.float64(0.5)."""
    internals = re.compile(r"^(Name: .*, )?dtype: \w+$|\bnp\.(float|int|bool_)\w*\(", re.MULTILINE)
    shown = [text[-200:] for _, text in plain_outputs(source) if internals.search(text)]
    assert shown == [], f"{source.stem} shows numpy or pandas internals: {shown}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_outputs_show_readers_numbers_not_reprs(source):
    """Chapter 1's first solution showed "ErrorRates(fmr=array([0.4]), fnmr=array([0.4]))", its
    third an OperatingPoint with a 16-digit threshold, its fourth "{'A': 0.61136075, 'B':
    0.4735647499999999}"; chapters 9 and 14 floats to 16 digits, chapter 12 a message in quotes.
    No output shows an object's repr (a field list, an array), a float with all its digits, or
    (a value shown, not printed) a string in quotes."""
    reprs = re.compile(r"\b[A-Z]\w*\(\w+=|\barray\(|\d\.\d{12,}")
    quoted = re.compile(r"\s*(['\"]).*\1\s*", re.S)
    shown = [text[:200] for output, text in plain_outputs(source)
             if reprs.search(text) or output["output_type"] != "stream" and quoted.fullmatch(text)]
    assert shown == [], f"{source.stem} shows reprs: {shown}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_quoted_number_is_glued(source):
    text = source.read_text()
    quoted = set(re.findall(r"\{glue:text\}`([A-Za-z0-9_]+)", text))
    glued = set()
    for cell in executed(source)["cells"]:
        for output in cell.get("outputs", []):
            key = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if key:
                glued.add(key)
    prefix = f"nb{source.stem[:2]}_"
    assert quoted, f"{source.stem} quotes no computed number"
    assert quoted <= glued, f"{source.stem}: quoted but never glued: {sorted(quoted - glued)}"
    assert all(key.startswith(prefix) for key in glued), f"glue keys of {source.stem} must start with {prefix}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_quoted_counts_group_their_thousands(source):
    """Chapter 13 read "The file holds 7,920 comparisons ... Intervals below come from 1000
    bootstrap resamples", and chapter 2 "read from 1000 replicates": every other count of the
    book is written 1,000. A whole number from 1,000 up is quoted with ``:,``."""
    glued = {}
    for cell in executed(source)["cells"]:
        for output in cell.get("outputs", []):
            key = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if key:
                glued[key] = "".join(output["data"].get("application/papermill.record/text/plain", ""))
    bare = [key for key in re.findall(r"\{glue:text\}`([A-Za-z0-9_]+)`", source.read_text())
            if re.fullmatch(r"-?\d{4,}", glued.get(key, ""))]
    assert bare == [], f"{source.stem} quotes counts without a thousands separator: {bare}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_chapter_has_a_parameters_cell_and_imports_biofair(source):
    text = source.read_text()
    assert ":tags: [parameters]" in text
    assert "import biofair as bf" in text
    assert "bf.show_versions()" in text


@pytest.mark.parametrize(("chapter", "parameters"), [
    # another seed and a weaker bias
    ("04_find_bias_in_the_tails", ["-p", "seed", "2024", "-y", "strengths: [0.0, 1.0, 2.0]"]),
    # the reproduction ledger stopped at 18 of seeds 1 to 40 (a row at the noise of its sample changed verdict;
    # at 4, GARBE_FMR under BG: "differs"); the chapter now shows each verdict beside the expected one and
    # says which rows changed
    ("04_find_bias_in_the_tails", ["-p", "seed", "4"]),
    # its check that BC leaves D's upper non-mated tail where the Beta puts it allowed a fixed 0.005, 1.8 standard
    # errors of the sample 99.9th percentile: seed 42 drew 0.0063 (2.4), and the chapter stopped; the check now
    # allows 4 standard errors of each quantile (tighter below the median, where the shift is checked)
    ("04_find_bias_in_the_tails", ["-p", "seed", "42"]),
    # one draw of each size: seeds 1 to 4 each failed an assertion that held only for the chapter's
    # draw; its prose now says what each draw shows (1: the floor shrinks more than 4-fold; 21: the
    # settings move CEI more than the bias, the draws follow the approximation only loosely)
    ("05_choose_cei_parameters", ["-p", "seed", "1"]),
    ("05_choose_cei_parameters", ["-p", "seed", "21"]),
    # each failed at this seed (and most at 9 seeds in 10) on a claim true of the chapter's draw only:
    # the interval widths after 1e-3, FDR at the imprecise 1e-6, N-Sigma at every subset size, the fair
    # system's p-value, the Bayes threshold above every non-mated LLR, the EER reading nothing
    ("02_put_an_interval_on_every_number", ["-p", "seed", "1"]),
    ("03_set_one_threshold_for_everyone", ["-p", "seed", "2"]),
    ("06_measure_bias_over_subsets", ["-p", "seed", "2"]),
    ("07_identify_fairly", ["-p", "seed", "1"]),
    ("11_calibrate_scores", ["-p", "seed", "2"]),
    ("14_outgrow_one_machine", ["-p", "seed", "1"]),
    # chapter 12 failed at every other seed it was run at (1 to 10), some 20 claims each, and at 1 to 3 and 10 its
    # glue stopped with an IndexError: which mitigation is on the front, which changes are clear of zero, which
    # gender gains from group calibration are the split's; its prose now glues them
    ("12_mitigate_and_measure_the_price", ["-p", "seed", "1"]),
    # chapter 10 failed at 8 of 9 other seeds: the bootstrap's unbounded FMR bands, the synthetic group c resolved by
    # its own false matches and its interval holding the truth, the coverage near 95%; at 11 group c is unresolved,
    # every FMR band bounded and Ireland's bootstrap clear of 0
    ("10_audit_demographic_differentials", ["-p", "seed", "11"]),
    # chapter 1 failed at seeds 10, 11 and 20 of 1 to 20: its check that system A's DET curve is straight read
    # only rates in [1%, 99%], whose ends rest on 20 mated scores, and at 20 one mated score put B behind A beyond
    # FMR = 10%; the check now reads wherever both rates are precise, and the figure's text says where B leads
    ("01_compute_error_rates", ["-p", "seed", "20"]),
], ids=["04-seed-2024", "04-seed-4", "04-seed-42", "05-seed-1", "05-seed-21", "02-seed-1", "03-seed-2", "06-seed-2",
        "07-seed-1", "11-seed-2", "14-seed-1", "12-seed-1", "10-seed-11", "01-seed-20"])
def test_chapter_runs_with_other_parameters(chapter, parameters, tmp_path):
    """Other parameters keep every assertion of the chapter true: its prose reads the data."""
    source = ROOT / "notebooks" / f"{chapter}.md"
    notebook = tmp_path / "in.ipynb"
    bin_dir = Path(sys.executable).parent
    subprocess.run([bin_dir / "jupytext", "--to", "ipynb", "-o", notebook, source], check=True, capture_output=True)
    run = subprocess.run(
        [bin_dir / "papermill", notebook, tmp_path / "out.ipynb", "--cwd", ROOT / "notebooks", *parameters,
         "--no-progress-bar"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
