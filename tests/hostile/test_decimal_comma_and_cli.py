"""Score files with a decimal comma, read by biofair itself; ``biofair report`` options named as given.

A spreadsheet's export where the decimal mark is a comma separates its fields with ';' and
writes 0,83. biofair refused it and advised ``pd.read_csv(path, sep=';', decimal=',')``, which
reads the group '01' as 1.0, 'NA' as missing and the subject '007' as 7. ``decimal=','``
(``biofair report --decimal ,``) reads the scores with a decimal comma and every other column
as written; each file here is compared with what Python's csv module reads from it.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair import cli
from biofair._validation import SMALLEST_BOUND
from biofair.summaries import _area_targets

from hostile import FAST_DIFFERENTIAL, example

#: The example's groups and two of its subjects relabelled with what pandas reads as numbers or missing.
GROUPS = {"A": "01", "B": "NA", "C": "x"}
SUBJECTS = {"A00": "007", "A01": "7", "B00": "NA"}


def spreadsheet_rows() -> list[dict[str, str]]:
    """The example as a European spreadsheet writes it: text fields, scores with a decimal comma."""
    table = pd.read_csv(bf.datasets.example_scores_path(), dtype=str, keep_default_na=False)
    table["group"] = table["group"].map(GROUPS)
    for side in ("reference_subject", "probe_subject"):
        table[side] = table[side].replace(SUBJECTS)
    table["score"] = table["score"].str.replace(".", ",", regex=False)
    table["mated"] = table["mated"].map({"True": "1", "False": "0"})
    return table.to_dict("records")


def write(path: Path, rows: list[dict[str, str]], delimiter: str) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter=delimiter)
        writer.writeheader()
        writer.writerows(rows)
    return path


def written(path: Path, delimiter: str) -> list[dict[str, str]]:
    """The file's rows as Python's csv module reads them: every field a string, as written."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter=delimiter))


def assert_read_as_written(table: pd.DataFrame, rows: list[dict[str, str]]) -> None:
    """Labels and ids equal the text of the file; scores equal Python's float of the text with a point."""
    for column in ("group", "reference_subject", "probe_subject"):
        assert table[column].tolist() == [row[column] for row in rows], column
    assert table["score"].tolist() == [float(row["score"].replace(",", ".")) for row in rows]
    assert table["mated"].tolist() == [row["mated"] == "1" for row in rows]


@pytest.mark.parametrize(("suffix", "delimiter"), [(".csv", ";"), (".txt", ";"), (".tsv", "\t"), (".csv", "\t")])
def test_a_decimal_comma_file_is_read_exactly_as_written(tmp_path, suffix, delimiter):
    """Was: refused, with a pandas conversion that read '01' as 1.0, 'NA' as missing and '007' as 7."""
    path = write(tmp_path / f"export{suffix}", spreadsheet_rows(), delimiter)
    rows = written(path, delimiter)
    assert Counter(row["group"] for row in rows) == Counter({"01": 2640, "NA": 2640, "x": 2640})
    assert {"007", "7", "NA"} <= {row["reference_subject"] for row in rows}
    assert_read_as_written(bf.read_scores(path, decimal=","), rows)
    grouped = bf.read_grouped_scores(path, decimal=",")
    assert_read_as_written(grouped, rows)
    assert set(grouped["group"]) == {"01", "NA", "x"} and grouped.attrs["missing_groups"] == {}


def test_every_float_is_read_from_its_decimal_comma_as_python_reads_it_with_a_point(tmp_path):
    rng = np.random.default_rng(5)
    values = np.concatenate([rng.normal(size=300), rng.normal(size=100) * 1e300, np.ldexp(rng.random(100), -1070)])
    texts = [repr(float(v)).replace(".", ",") for v in values] + ["-1,5e-3", ",5", "7", " 0,25 "]
    path = tmp_path / "floats.csv"
    mated = [int(float(text.replace(",", ".")) > 0) for text in texts]  # mated scores above the others
    path.write_text("score;mated\n" + "".join(f"{text};{label}\n" for text, label in zip(texts, mated)))
    assert bf.read_scores(path, decimal=",")["score"].tolist() == [float(t.replace(",", ".")) for t in texts]


def test_a_bob_file_and_score_lists_with_decimal_commas(tmp_path):
    (tmp_path / "scores.txt").write_text("007 007 p1 0,9\n007 7 p2 0,2\n7 7 p3 0,8\n7 007 p4 0,1\n")
    table = bf.read_scores(tmp_path / "scores.txt", format="bob", decimal=",")
    assert table["reference_subject"].tolist() == ["007", "007", "7", "7"]
    assert table["score"].tolist() == [0.9, 0.2, 0.8, 0.1] and table["mated"].tolist() == [True, False, True, False]
    (tmp_path / "mated.txt").write_text("0,9\n1,25e1\n")
    (tmp_path / "nonmated.txt").write_text("-0,5\n0,125\n")
    pair = bf.read_scores((tmp_path / "mated.txt", tmp_path / "nonmated.txt"), decimal=",")
    assert pair["score"].tolist() == [0.9, 12.5, -0.5, 0.125]


def test_a_subject_file_of_the_spreadsheet_is_read_as_written(tmp_path):
    scores = write(tmp_path / "scores.csv", [{k: v for k, v in row.items() if k != "group"} for row in spreadsheet_rows()], ";")
    people = tmp_path / "people.csv"
    subjects = sorted({row[side] for row in written(scores, ";") for side in ("reference_subject", "probe_subject")})
    people.write_text("subject;gender\n" + "".join(f"{s};{'NA' if i % 2 else '01'}\n" for i, s in enumerate(subjects)))
    gender = dict(row.values() for row in written(people, ";"))
    table = bf.read_grouped_scores(scores, by="gender", subjects=people, decimal=",")
    assert table["reference_gender"].tolist() == [gender[s] for s in table["reference_subject"]]
    assert set(table["reference_gender"]) == {"01", "NA"}


def test_a_spreadsheets_subject_file_is_read_beside_scores_with_decimal_points(tmp_path, run_main):
    """A score file written by a system (decimal points, bob or CSV) and a subject file saved
    from a spreadsheet where the decimal mark is a comma (fields separated by ';'). The subject
    file was read with the score file's decimal mark: refused with '.', which advised --decimal ,,
    which then refused the score file: no option read the pair. It holds no scores."""
    scores = tmp_path / "scores.txt"
    rows = example()
    scores.write_text("".join(f"{r.reference_subject} {r.probe_subject} {r.probe_subject}-{i} {r.score!r}\n"
                              for i, r in enumerate(rows.itertuples())))
    people = tmp_path / "people.csv"
    group = dict(zip(rows["reference_subject"], rows["group"]))
    people.write_text("subject;gender\r\n" + "".join(f"{s};{GROUPS[g]}\r\n" for s, g in group.items()))
    table = bf.read_grouped_scores(scores, by="gender", subjects=people)
    assert table["reference_gender"].tolist() == rows["group"].map(GROUPS).tolist()  # as written: '01', 'NA'
    assert table["score"].tolist() == rows["score"].tolist()
    status, lines = run_main(scores, "--subjects", people, "--by", "gender", "--layout", "differential",
                             *FAST_DIFFERENTIAL, "-o", tmp_path / "out")
    assert status == 0, lines
    report = json.loads((tmp_path / "out" / "differential.json").read_text())
    assert report["overall"]["n_mated"] + report["overall"]["n_nonmated"] == len(rows)
    assert {row["group"] for row in report["groups"]} == set(GROUPS.values())


# -- refused, each with its reason and its repair ------------------------------------------------


def test_the_semicolon_refusal_advises_the_option_not_a_lossy_conversion(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text("score;mated;group\n0,9;1;01\n0,2;0;NA\n")
    with pytest.raises(bf.SchemaError) as refused:
        bf.read_scores(path)
    message = str(refused.value)
    assert f"read it with biofair.read_scores('{path}', decimal=',') or biofair report --decimal ," in message
    assert "pd.read_csv" not in message
    assert pd.read_csv(path, sep=";", decimal=",")["group"].tolist()[0] == 1  # what the old advice did
    table = bf.read_scores(path, decimal=",")
    assert table["group"].tolist() == ["01", "NA"] and table["score"].tolist() == [0.9, 0.2]


def test_a_decimal_comma_with_commas_between_fields_is_refused(tmp_path):
    path = tmp_path / "commas.csv"
    path.write_text('score,mated,group\n"0,9",1,a\n"0,2",0,a\n')
    with pytest.raises(bf.SchemaError, match=re.escape(
            f"{path}: decimal=',' (biofair report --decimal ,) reads scores written with a decimal comma, but the file "
            "also separates its fields with commas (first line 'score,mated,group'), so a score such as 0,83 would be "
            "two fields")):
        bf.read_scores(path, decimal=",")


@pytest.mark.parametrize(("scores", "message"), [
    (["0,9", "0.2", "1.200,5", "0,1"], "2 scores are not numbers written with a decimal comma, as decimal=',' reads "
                                       "them (e.g. '0.2', '1.200,5'; first in data row 2): write them as 0,83 or "
                                       "-1,5e-3, without thousands separators"),
    (["0,9", "0,2", "0,8", "abc"], "1 score is not a number written with a decimal comma, as decimal=',' reads them "
                                   "(e.g. 'abc'; first in data row 4)"),
])
def test_a_score_that_is_not_a_number_with_a_decimal_comma_is_named_by_its_row(tmp_path, scores, message):
    path = tmp_path / "mixed.csv"
    path.write_text("score;mated;group\n" + "".join(f"{s};{m};{g}\n" for s, m, g in zip(scores, "1010", "aabb")))
    with pytest.raises(bf.SchemaError, match=re.escape(f"{path}: {message}")):
        bf.read_scores(path, decimal=",")


def test_scores_with_decimal_points_get_a_conversion_that_keeps_every_field(tmp_path, monkeypatch):
    path = tmp_path / "points.csv"
    path.write_text("score;mated;group\n0.9;1;01\n0.2;0;01\n0.8;1;NA\n0.1;0;NA\n")
    with pytest.raises(bf.SchemaError) as refused:
        bf.read_grouped_scores(path, decimal=",")
    assert "they have a decimal point: a file whose scores all have one is read without decimal=','" in str(refused.value)
    command = re.search(r'python -c "(.*?)"', str(refused.value)).group(1)
    monkeypatch.chdir(tmp_path)
    subprocess.run([sys.executable, "-c", command], check=True)
    table = bf.read_grouped_scores(tmp_path / "points-comma.csv")
    assert table["group"].tolist() == ["01", "01", "NA", "NA"] and table["score"].tolist() == [0.9, 0.2, 0.8, 0.1]


def test_parquet_scores_are_read_as_stored_and_as_text_with_the_decimal_mark(tmp_path):
    path = tmp_path / "scores.parquet"
    pd.DataFrame({"score": [0.9, 0.1], "mated": [True, False], "group": ["01", "NA"]}).to_parquet(path)
    assert bf.read_scores(path, decimal=",")["score"].tolist() == [0.9, 0.1]
    pd.DataFrame({"score": ["0,9", "0,1"], "mated": [True, False], "group": ["01", "NA"]}).to_parquet(path)
    with pytest.raises(bf.SchemaError, match=re.escape("read the file with biofair.read_scores(path, decimal=',')")):
        bf.read_scores(path)
    table = bf.read_scores(path, decimal=",")
    assert table["score"].tolist() == [0.9, 0.1] and table["group"].tolist() == ["01", "NA"]


def test_an_unknown_decimal_mark_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"^decimal must be '\.' or ',', got ';'$"):
        bf.read_scores(tmp_path / "scores.csv", decimal=";")


@pytest.mark.parametrize(("separator", "suffix", "hint"), [
    ("\t", "tsv", "they read as numbers with a decimal comma: read the file with biofair.read_scores(path, "
                  "decimal=',') or biofair report --decimal ,"),
    (",", "csv", "they read as numbers with a decimal comma, in a file that also separates its fields with commas: "
                 "write them with a decimal point, or separate the fields with ';' and read the file with "
                 "biofair.read_scores(path, decimal=',') or biofair report --decimal ,"),
])
def test_the_decimal_comma_hint_fits_the_file(tmp_path, separator, suffix, hint):
    """Was: pd.read_csv(path, decimal=',') for every file, which reads 'NA' as missing and '01' as 1."""
    path = write(tmp_path / f"scores.{suffix}", spreadsheet_rows(), separator)
    with pytest.raises(bf.SchemaError) as refused:
        bf.read_scores(path)
    assert str(refused.value).endswith(hint)
    if separator == "\t":  # the advice, followed
        assert_read_as_written(bf.read_scores(path, decimal=","), written(path, separator))


def test_the_decimal_comma_hint_of_a_table_in_memory_converts_it():
    table = pd.DataFrame({"score": ["0,9", "0,2"], "mated": [True, False], "group": ["01", "NA"]})
    with pytest.raises(bf.SchemaError) as refused:
        bf.validate_scores(table)
    conversion = "table['score'] = pd.to_numeric(table['score'].str.replace(',', '.'))"
    assert conversion in str(refused.value)
    exec(conversion, {"pd": pd, "table": table})
    assert bf.validate_scores(table)["score"].tolist() == [0.9, 0.2]


def test_a_repeated_header_of_a_semicolon_file_is_removed_keeping_its_decimal_commas(tmp_path, monkeypatch):
    rows = spreadsheet_rows()
    path = tmp_path / "joined.csv"
    text = write(path, rows[:100], ";").read_text()
    path.write_text(text + write(tmp_path / "second.csv", rows[100:], ";").read_text())
    with pytest.raises(bf.SchemaError, match=r"data row 101 repeats the header line") as refused:
        bf.read_scores(path, decimal=",")
    command = re.search(r'python -c "(.*?)"', str(refused.value)).group(1)
    monkeypatch.chdir(tmp_path)
    subprocess.run([sys.executable, "-c", command], check=True)
    assert_read_as_written(bf.read_scores(tmp_path / "joined-once.csv", decimal=","), rows)


def test_a_semicolon_inside_a_field_is_named_as_such(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text("score;mated;group\n0,9;1;a\n0,2;0;Smith; J\n")
    with pytest.raises(bf.SchemaError, match=re.escape("data row 2 (line 3) has 4 fields, the header 3: look for a ';' "
                                                       "unquoted in a field (a label such as 'Smith; J'?)")):
        bf.read_scores(path, decimal=",")


# -- biofair report ----------------------------------------------------------------------------


def test_biofair_report_reads_a_decimal_comma_file_as_written(tmp_path, run_main):
    path = write(tmp_path / "export.csv", spreadsheet_rows(), ";")
    rows = written(path, ";")
    status, lines = run_main(path, "--decimal", ",", "--layout", "differential", *FAST_DIFFERENTIAL, "-o", tmp_path / "out")
    assert status == 0, lines
    report = json.loads((tmp_path / "out" / "differential.json").read_text())
    fmr = {row["group"]: row["comparisons"] for row in report["groups"] if row["rate"] == "fmr"}
    fnmr = {row["group"]: row["comparisons"] for row in report["groups"] if row["rate"] == "fnmr"}
    homogeneous = Counter(row["group"] for row in rows if row["mated"] == "0")
    assert fmr == dict(homogeneous) and fnmr == dict(Counter(row["group"] for row in rows if row["mated"] == "1"))
    assert report["overall"]["n_mated"] + report["overall"]["n_nonmated"] == len(rows)


def test_the_standard_report_reads_a_decimal_comma_file_as_written(tmp_path, run_main):
    """The standard layout's notebook reads the file again: it read '0,9' as text without the
    decimal mark (its up-front checks passed, then the notebook failed)."""
    path = write(tmp_path / "export.csv", spreadsheet_rows(), ";")
    rows = written(path, ";")
    status, lines = run_main(path, "--decimal", ",", "-n", "100", "--n-permutations", "10", "-o", tmp_path / "out")
    assert status == 0, lines
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    groups = {name: (counts["n_mated"], counts["n_nonmated"]) for name, counts in summary["rows"]["groups"].items()}
    assert groups == {group: (sum(row["mated"] == "1" for row in rows if row["group"] == group),
                              sum(row["mated"] == "0" for row in rows if row["group"] == group))
                      for group in {row["group"] for row in rows}}
    threshold = summary["operating_point"]["threshold"]  # a score of the file, read with its decimal comma
    assert threshold in {float(row["score"].replace(",", ".")) for row in rows if row["mated"] == "0"}


def test_biofair_report_hands_the_decimal_mark_to_the_notebook(tmp_path, monkeypatch):
    """The standard layout reads the file in its notebook again: with the decimal mark given."""
    import papermill

    path = write(tmp_path / "export.csv", spreadsheet_rows(), ";")
    handed = []

    def execute(*args, parameters, **kwargs):
        handed.append(parameters)
        raise RuntimeError("stopped before the notebook")

    monkeypatch.setattr(papermill, "execute_notebook", execute)
    for decimal in (",", "."):
        args = cli._parse(["report", str(path), "--decimal", decimal, "-o", str(tmp_path / "out")])
        if decimal == ",":
            assert cli._check_analysis(args) == []
        folder = cli._OutputFolder(args.output)
        folder.claim()
        try:
            with pytest.raises(cli._AnalysisError, match="stopped before the notebook"):
                cli._execute(args, folder)
        finally:
            folder.release()
    assert [parameters["decimal"] for parameters in handed] == [",", "."]


def test_biofair_report_refuses_a_decimal_comma_with_comma_separated_fields(tmp_path, run_main):
    path = write(tmp_path / "scores.csv", spreadsheet_rows(), ",")
    status, lines = run_main(path, "--decimal", ",", "-o", tmp_path / "out")
    assert status == 2 and lines[-1].startswith(
        f"biofair report: error: {path}: decimal=',' (biofair report --decimal ,) reads scores written with a decimal "
        "comma, but the file also separates its fields with commas")
    assert not (tmp_path / "out").exists()


# -- option values named as given -----------------------------------------------------------------


@pytest.mark.parametrize("target", [5e-324, 1e-320, SMALLEST_BOUND / 2, float(np.nextafter(SMALLEST_BOUND, 0)),
                                    SMALLEST_BOUND, 1e-300, 1e-6, 0.5])
def test_fmr_targets_are_refused_by_the_option_when_fairness_summary_refuses_them(target, tmp_path, capsys):
    """Was: --fmr-targets 1e-320,0.1 ended in "pauc_bounds must be at least 2**-1022", an option never given."""
    command = ["report", str(bf.datasets.example_scores_path()), "--fmr-targets", f"{target!r},0.1", "-o", str(tmp_path)]
    try:
        _area_targets([target, 0.1])
    except ValueError:
        with pytest.raises(SystemExit) as stop:
            cli._parse(command)
        assert stop.value.code == 2
        assert "biofair report: error: argument --fmr-targets: " in capsys.readouterr().err
    else:
        assert cli._parse(command).fmr_targets == [target, 0.1]


def test_a_subnormal_fmr_target_names_the_option(tmp_path, run_main):
    status, lines = run_main(bf.datasets.example_scores_path(), "--fmr-targets", "1e-320,0.1", "-o", tmp_path / "out")
    assert status == 2 and lines[-1] == (
        "biofair report: error: argument --fmr-targets: each FMR target at least 2**-1022 = 2.2250738585072014e-308, "
        "got 1e-320 in '1e-320,0.1': the targets are also the bounds of the partial-AUC rows, and the smallest the "
        "lower bound of the log-FMR area, which divide by it; give a small positive target instead, e.g. 1e-6")


def test_an_unknown_reference_group_names_the_option(tmp_path, run_main):
    """Was: "reference='Z' names no group", the parameter of differential_report, not the option."""
    status, lines = run_main(bf.datasets.example_scores_path(), "--layout", "differential", "--reference", "Z",
                             *FAST_DIFFERENTIAL, "-o", tmp_path / "out")
    assert status == 2 and lines[-1] == (
        "biofair report: error: --reference 'Z' names no group of --by group; the groups are ['A', 'B', 'C']")
    assert not (tmp_path / "out").exists()


def test_an_unknown_decimal_mark_is_refused_by_the_option(tmp_path, run_main):
    status, lines = run_main(bf.datasets.example_scores_path(), "--decimal", ";", "-o", tmp_path / "out")
    assert status == 2 and "argument --decimal: invalid choice: ';' (choose from '.', ',')" in lines[-1]


def test_the_example_is_unchanged_by_the_default_decimal_point():
    assert bf.read_scores(bf.datasets.example_scores_path())["score"].tolist() == example()["score"].tolist()
