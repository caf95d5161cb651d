"""``biofair report``'s hints name the actual problem and the way forward, and long runs speak.

An audit of the command found errors that pointed the wrong way: a bob score file read
without its subjects' attributes was told to compare the groups of its probe ids, a CSV file
without a header to compare the groups of '0.83', a header repeated inside a file (files
joined with ``cat``) was a score column that is not numeric, and a group without one class
of comparisons or a file of one group was named without a word on what to do. A run on a
file of tens of millions of rows said nothing for 80 s.
"""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys

import pandas as pd
import pytest

import biofair as bf
from biofair import cli
from hostile import EXAMPLE, FAST_DIFFERENTIAL, as_from_a_terminal, example


def run(capsys, *arguments) -> tuple[int, list[str], list[str]]:
    """``biofair report`` in this process: (exit status, stdout lines, stderr lines)."""
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    as_from_a_terminal()
    try:
        status = cli.main(["report", *map(str, arguments)])
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        cli._silence_unwinding_noise(False)
    out, err = capsys.readouterr()
    return status, out.strip().splitlines(), err.strip().splitlines()


def refused(capsys, tmp_path, *arguments) -> str:
    """The one line of a run refused with exit 2 (nothing written); its text after the prefix."""
    status, out, err = run(capsys, *arguments, "-o", tmp_path / "out", "--layout", "differential", *FAST_DIFFERENTIAL)
    assert status == 2 and out == [] and len(err) == 1 and err[0].startswith("biofair report: error: "), err
    assert not (tmp_path / "out").exists()
    return err[0].removeprefix("biofair report: error: ")


def the_command(message: str) -> str:
    """The Python program of a ``python -c "..."`` the message proposes."""
    return re.search(r'python -c "(.*?)"', message).group(1)


def run_the_command(message: str, where) -> None:
    """Run the conversion the message proposes, in ``where``: it is the way forward."""
    subprocess.run([sys.executable, "-c", the_command(message)], cwd=where, check=True)


# -- a bob score file -------------------------------------------------------------------------


def bob_file(tmp_path, name: str = "scores-dev", *, columns: int = 4):
    """The example as a bob score file of 4 or 5 columns, without group labels."""
    table = example()
    fields = [table["reference_subject"], table["probe_subject"], table["probe_subject"] + "/" + table.index.astype(str),
              table["score"].astype(str)]
    if columns == 5:
        fields.insert(1, "model-" + table["reference_subject"])
    path = tmp_path / name
    path.write_text("\n".join(" ".join(row) for row in zip(*fields)) + "\n")
    return path


@pytest.mark.parametrize("columns", [4, 5])
def test_a_bob_file_without_subjects_asks_for_them(tmp_path, capsys, columns):
    """Was: "no group column for 'group' ... to compare the groups of 'id', pass by='id'
    (biofair report --by id)": an attribute the file does not have (its probe ids)."""
    path = bob_file(tmp_path, columns=columns)
    message = refused(capsys, tmp_path, path)
    assert message.startswith(f"{path} is a bob score file (its columns: reference_subject, ")
    assert message.endswith("which names the subjects of each comparison but not their groups ('group'): give them in "
                            "a CSV file with a row per subject, e.g. people.csv with the columns subject,group, as "
                            "subjects='people.csv' (biofair report --subjects people.csv)")
    assert "by='id'" not in message
    with pytest.raises(bf.SchemaError, match=r"--subjects people\.csv --by gender\)$"):
        bf.read_grouped_scores(path, by="gender")


def test_a_bob_file_with_its_subjects_is_read(tmp_path):
    path = bob_file(tmp_path)
    people = tmp_path / "people.csv"
    example()[["reference_subject", "group"]].drop_duplicates().rename(
        columns={"reference_subject": "subject"}).to_csv(people, index=False)
    table = bf.read_grouped_scores(path, subjects=people)
    assert len(table) == len(example()) and "biofair_file_format" not in table.attrs


@pytest.mark.parametrize("column, options", [("system", []), ("split", ["--decimal", ","]), ("model", ["--columns",
                                                                                                    "model=system"])])
def test_a_file_of_several_score_sets_gets_a_file_per_set_the_command_reads(tmp_path, capsys, column, options):
    """Was: "the table holds 2 score sets in column 'system' ('v1', 'v2'), whose rows a metric would
    pool: select one, e.g. scores[scores['system'] == 'v1']": Python, for a table the user of the
    command does not have, and no option of the command selects the rows of one set."""
    sets = {"system": ["v1", "v2"], "split": ["dev", "eval"], "model": ["v1", "v2"]}[column]
    table = pd.concat([example().assign(**{column: value}) for value in sets])
    if options[:1] == ["--decimal"]:  # a spreadsheet's export: ';', decimal commas, each field as written
        path = tmp_path / "scores.csv"
        table.assign(score=table["score"].map(repr).str.replace(".", ",")).to_csv(path, sep=";", index=False)
    else:
        path = tmp_path / "scores.parquet"
        table.to_parquet(path)
    message = refused(capsys, tmp_path, path, *options)
    assert message.startswith(f"{path} holds 2 score sets in column {column!r} ({sets[0]!r}, {sets[1]!r}): "), message
    run_the_command(message, tmp_path)
    for number, value in enumerate(sets, 1):
        one = next(tmp_path.glob(f"scores-*{number}.*"))
        status, _, err = run(capsys, one, *options, "-o", tmp_path / f"out{number}", "--layout", "differential",
                             *FAST_DIFFERENTIAL)
        assert status == 0, err
        report = json.loads((tmp_path / f"out{number}" / "differential.json").read_text())
        assert report["overall"]["n_mated"] + report["overall"]["n_nonmated"] == len(example())  # one set, whole
        written = pd.read_parquet(one) if one.suffix == ".parquet" else pd.read_csv(one, sep=";", dtype=str)
        assert written[column].unique().tolist() == [value]


def test_a_subject_file_or_a_score_file_without_its_subject_column_is_named_with_the_repair(tmp_path, capsys):
    """Was, for a subject file whose header says 'Subject' (as a spreadsheet capitalises it), and
    for a score file whose ids are in columns 'ref' and 'probe': "add_subject_attributes needs
    reference_subject and probe_subject in the scores (missing []) and a 'subject' column in
    the attributes", a function the command line does not have, "missing []", and no file named."""
    path = bob_file(tmp_path, columns=5)
    people = tmp_path / "people.csv"
    example()[["reference_subject", "group"]].drop_duplicates().rename(
        columns={"reference_subject": "Subject"}).to_csv(people, index=False)
    assert refused(capsys, tmp_path, path, "--subjects", people) == (
        f"the subject file {people} has no column 'subject', the ids of its subjects (its columns: 'Subject', "
        "'group'): rename 'Subject' to subject in its first line")
    scores = tmp_path / "scores.csv"
    example().drop(columns="group").rename(columns={"reference_subject": "ref", "probe_subject": "probe"}).to_csv(
        scores, index=False)
    people.write_text(people.read_text().replace("Subject", "subject", 1))
    message = refused(capsys, tmp_path, scores, "--subjects", people)
    assert message == (
        "the scores have no 'reference_subject' and no 'probe_subject', the subject ids the subject attributes join "
        "by (the table has 'ref', 'probe', 'score', 'mated'; map its names to biofair's, e.g. scores.rename(columns="
        "{'<reference_subject column>': 'reference_subject', '<probe_subject column>': 'probe_subject'}) (biofair "
        "report --columns '<reference_subject column>=reference_subject,<probe_subject column>=probe_subject'))")
    status, _, err = run(capsys, scores, "--subjects", people, "--columns", "ref=reference_subject,probe=probe_subject",
                         "-o", tmp_path / "out", "--layout", "differential", *FAST_DIFFERENTIAL)
    assert status == 0, err  # the way forward
    with pytest.raises(bf.SchemaError, match=r"^the attributes have no column 'subject', the ids of their subjects "
                                             r"\(their columns: ' Subject', 'group'\): pass subject=' Subject'$"):
        bf.add_subject_attributes(example(), pd.DataFrame({" Subject": ["A00"], "group": ["A"]}))


def test_a_bob_file_with_subjects_is_pointed_to_their_attributes_not_to_its_sample_ids(tmp_path, capsys):
    """Was, with a subject file of the attributes group (3 groups), gender and site (1 each):
    --by gender, "compare the groups of 'id' or 'site' (biofair report --by <column>), or give
    the subjects' attributes in a subject file (biofair report --subjects people.csv ...)": each
    sample id a group, an attribute of one group, and the file already given; never 'group'
    (its reference_group and probe_group are columns of the schema). --by age, "to compare the
    groups of 'id', pass by='id'"."""
    path = bob_file(tmp_path, columns=5)  # reference_id and probe_id: the samples
    people = tmp_path / "people.csv"
    example()[["reference_subject", "group"]].drop_duplicates().rename(columns={"reference_subject": "subject"}).assign(
        gender="f", site="x").to_csv(people, index=False)
    message = refused(capsys, tmp_path, path, "--subjects", people, "--by", "gender")
    assert message.endswith(
        "the file holds one group ('f'), and a fairness report compares two or more: compare the groups of 'group' "
        f"(biofair report --by group), or add a column of the groups to compare to the subject file people.csv "
        f"(biofair report --subjects {people} --by <that column>)"), message
    message = refused(capsys, tmp_path, path, "--subjects", people, "--by", "age")
    assert message.endswith("; to compare the groups of 'group' or 'gender' or 'site', pass by='<column>' "
                            "(biofair report --by <column>))"), message
    status, _, err = run(capsys, path, "--subjects", people, "--by", "group", "-o", tmp_path / "out", "--layout",
                         "differential", *FAST_DIFFERENTIAL)
    assert status == 0, err  # the way forward
    report = json.loads((tmp_path / "out" / "differential.json").read_text())
    assert report["overall"]["n_mated"] + report["overall"]["n_nonmated"] == len(example())


@pytest.mark.parametrize("format", ["auto", "csv"])
def test_a_bob_file_named_csv_is_named_a_bob_file(tmp_path, capsys, format):
    """Was: "no group column for 'group' ... (the table has ['A00 A00 A00/0 1.8305']; ... pass
    by='A00 A00 A00/0 1.8305'": its first line taken for the name of one column."""
    path = bob_file(tmp_path, "scores.csv")
    message = refused(capsys, tmp_path, path, "--format", format)
    assert re.fullmatch(
        rf"{re.escape(str(path))} has no comma or tab in its first line \('A00 A00 A00/0 [-0-9.e]+'\): its 4 fields "
        r"separated by spaces, the last a number, are those of a bob score file \(reference_subject probe_subject "
        r"probe_id score\), not of a CSV table: read it with format='bob' \(biofair report --format bob\), and give "
        r"the groups of its subjects with subjects='people\.csv' \(biofair report --subjects people\.csv: columns "
        r"subject and one per attribute, e\.g\. gender\)", message), message
    path.write_text("group score mated\nA 0.5 1\n")  # a table separated by spaces: converted, as before
    assert "if its fields are separated by spaces, convert it to CSV" in refused(capsys, tmp_path, path)


# -- a CSV file without its header, or with it repeated ----------------------------------------


def test_a_csv_file_without_a_header_is_named_so(tmp_path, capsys):
    """Was: "no group column for 'group' ... (the table has ['0.83', '1', 'female']; to compare
    the groups of '0.83' or '1' or 'female', pass by='<column>'": its first comparison read as
    the names of its columns."""
    table = example()[["score", "mated", "group"]].assign(mated=lambda t: t["mated"].astype(int))
    path = tmp_path / "headless.csv"
    table.to_csv(path, index=False, header=False)
    first = ",".join(path.read_text().splitlines()[0].split(","))
    message = refused(capsys, tmp_path, path)
    assert message.startswith(
        f"{path}: its first line ({first!r}) is data, not a header: a score table's first line names its columns "
        "(score, mated and the group attribute(s), e.g. score,mated,group), and the number ")
    assert message.endswith("(the names in the order of the file's columns, guessed from its first line)")
    assert "by=" not in message
    run_the_command(message, tmp_path)  # the way forward works, every label as written
    named = bf.read_grouped_scores(tmp_path / "headless-named.csv")
    assert named["score"].tolist() == table["score"].tolist() and named["group"].tolist() == table["group"].tolist()
    with pytest.raises(bf.SchemaError, match=r"is data, not a header"):  # a mapping of names it does not have
        bf.read_grouped_scores(path, columns={"sim": "score"})


def test_a_header_of_numbers_with_a_score_column_is_a_header(tmp_path):
    """Column names that are numbers (years) beside a score column: a header, read as one."""
    path = tmp_path / "years.csv"
    example().assign(**{"2020": "x"}).to_csv(path, index=False)
    assert bf.read_grouped_scores(path)["2020"].eq("x").all()


@pytest.mark.parametrize("sep, suffix", [(",", "csv"), ("\t", "tsv")])
def test_a_header_repeated_inside_the_file_is_named_with_its_rows(tmp_path, capsys, sep, suffix):
    """Was: "invalid score table: column 'score' must be numeric; 1 values are not numbers
    (e.g. 'score'; first in data row 201)": no word of the header it is."""
    table = example()
    path = tmp_path / f"joined.{suffix}"
    path.write_text(table.head(200).to_csv(index=False, sep=sep) + table.iloc[200:].to_csv(index=False, sep=sep)
                    + table.head(3).to_csv(index=False, sep=sep))
    message = refused(capsys, tmp_path, path)
    assert message.startswith(
        f"{path}: data row 201 repeats the header line ({sep.join(table.columns)!r}), as files joined with their "
        "headers (cat a.csv b.csv) do; 2 data rows in all. Delete them, e.g. python -c")
    run_the_command(message, tmp_path)
    once = bf.read_grouped_scores(tmp_path / "joined-once.csv")
    assert len(once) == len(table) + 3 and once["score"].tolist() == [*table["score"], *table["score"].head(3)]


def test_a_headerless_file_with_decimal_commas_is_converted_with_names(tmp_path, capsys):
    """Was: its first line ('0,83;1;female') read as the names '0' and '83;1;female' (the comma
    of 0,83 taken for the separator), and the error of a missing group column."""
    table = example()[["score", "mated", "group"]].assign(mated=lambda t: t["mated"].astype(int))
    path = tmp_path / "excel.csv"
    table.to_csv(path, sep=";", decimal=",", index=False, header=False)
    message = refused(capsys, tmp_path, path)
    assert message.startswith(f"{path} separates its fields with ';' (first line ")
    assert "header=None, names=['score', 'mated', 'group'], dtype={'mated': str, 'group': str}" in message
    assert message.endswith("(its first line is data: the names, in the order of its columns, are a guess)")
    run_the_command(message, tmp_path)
    assert bf.read_grouped_scores(tmp_path / "excel-comma.csv")["score"].tolist() == table["score"].tolist()


def test_a_feather_file_is_named_with_its_conversion(tmp_path, capsys):
    """Was: "is not a text score file: byte 6 is a NUL byte (a binary file? Parquet files need
    the suffix .parquet or format='parquet')": a Parquet file it is not."""
    path = tmp_path / "scores.feather"
    example().to_feather(path)
    message = refused(capsys, tmp_path, path)
    assert message.startswith(f"{path} is a Feather (Arrow IPC) file, which biofair does not read: convert it to "
                              "Parquet, e.g. python -c")
    run_the_command(message, tmp_path)
    assert len(bf.read_grouped_scores(tmp_path / "scores.parquet")) == len(example())


# -- one group, or a group without one class of comparisons ------------------------------------


def test_a_file_of_one_group_names_it_and_the_other_attributes(tmp_path, capsys):
    """Was: "cannot compare groups: fairness needs at least two groups; by='group' gives 1",
    which named neither the group nor what to compare instead."""
    path = tmp_path / "one.csv"
    example().assign(gender=example()["group"], group="A").to_csv(path, index=False)
    message = refused(capsys, tmp_path, path)
    assert message == (
        "cannot compare groups: fairness needs at least two groups; by='group' gives 1; the file holds one group "
        "('A'), and a fairness report compares two or more: compare the groups of 'gender' (biofair report --by "
        "gender), or give the subjects' attributes in a subject file (biofair report --subjects people.csv --by "
        "<attribute>)")
    bare = tmp_path / "bare.csv"  # no other attribute, no subject ids
    example().drop(columns=["reference_subject", "probe_subject"]).assign(group="A").to_csv(bare, index=False)
    with pytest.raises(bf.SchemaError, match=r"one group \('A'\), and a fairness report compares two or more: add a "
                                             r"column of the groups to compare$"):
        bf.read_grouped_scores(bare)


@pytest.mark.parametrize("name", ["age group", "--by", "it's"])
def test_the_suggested_option_runs_when_pasted_into_a_shell(tmp_path, capsys, name):
    """A column 'age group' was suggested as "--by age group", which a shell splits in two, and a
    column '--by' as "--by --by", which argparse refuses (a hostile-input audit of the CLI)."""
    path = tmp_path / "one.csv"
    example().assign(**{name: example()["group"]}, group="A").to_csv(path, index=False)
    message = refused(capsys, tmp_path, path)
    option = re.search(r"compare the groups of .*? \(biofair report (.*?)\), or give", message).group(1)
    status, _, err = run(capsys, path, *shlex.split(option), "-o", tmp_path / "out", "--layout", "differential",
                         *FAST_DIFFERENTIAL)
    assert status == 0, err
    assert json.loads((tmp_path / "out" / "differential.json").read_text())["settings"]["by"] == [name]


@pytest.mark.parametrize("lacking", ["mated", "nonmated"])
def test_a_group_without_one_class_is_named_with_the_way_forward(tmp_path, capsys, lacking):
    """Was: "group 'C' has 0 mated and ... comparisons; both are needed", with no word of what to
    do, and the differential layout, which can report such a group, refused it too. Nothing is
    dropped silently and no rate is a NaN: the standard layout names the group and the ways on,
    the differential layout reports the group's other rate and marks the missing one."""
    table = example()
    drop = (table["group"] == "C") & (table["mated"] if lacking == "mated" else ~table["mated"])
    path = tmp_path / "lacking.csv"
    table[~drop].to_csv(path, index=False)
    mated = int((table["group"] == "C").sum() - drop.sum()) if lacking == "nonmated" else 0
    count = f"{mated} mated and {int((table['group'] == 'C').sum() - drop.sum()) if lacking == 'mated' else 0}"
    expected = (
        f"cannot compare groups: group 'C' has {count} homogeneous non-mated comparisons; both are needed; ISO/IEC "
        "19795-10 compares the FNMR and the FMR of every group, and a group without mated comparisons has no FNMR "
        "(without homogeneous non-mated ones, no FMR): add its missing comparisons, merge it into another group "
        "(relabel its rows), or remove its rows from the file and say in the report that it is not covered (biofair "
        "leaves out no group itself)")
    status, _, err = run(capsys, path, "-o", tmp_path / "standard", "-n", "40", "--n-permutations", "10")
    assert status == 2 and err == [f"biofair report: error: {expected}; or use --layout differential, which reports "
                                   "the rate such a group has and marks the one it lacks 'no comparisons'"]
    assert not (tmp_path / "standard").exists()
    with pytest.raises(bf.SchemaError) as error:
        bf.read_grouped_scores(path)
    assert str(error.value).splitlines()[-1].startswith("- ISO/IEC 19795-10 compares")

    status, out, _ = run(capsys, path, "-o", tmp_path / "out", "--layout", "differential", *FAST_DIFFERENTIAL)
    assert status == 0 and out == [f"biofair report: wrote {tmp_path / 'out'}/report.html and differential.json"]
    rows = pd.DataFrame(json.loads((tmp_path / "out" / "differential.json").read_text())["groups"])
    missing, present = ("fnmr", "fmr") if lacking == "mated" else ("fmr", "fnmr")
    status = rows.set_index(["group", "rate"])["status"]
    assert status["C", missing] == "no comparisons" and status["C", present] != "no comparisons"
    assert sorted(rows["group"].unique()) == ["A", "B", "C"]  # no group left out


# -- the stages of a long run -------------------------------------------------------------------


STAGE = r"biofair report: \[\d+\.\d s\] "


def stages(lines: list[str]) -> list[str]:
    return [re.sub(STAGE, "", line) for line in lines if re.match(STAGE, line)]


def test_a_large_file_has_its_stages_announced_on_stderr(tmp_path, capsys, monkeypatch):
    """Was: silence until the report was written (80 s for 2e7 rows). The stages go to stderr,
    each with the seconds since the start; stdout keeps its one line."""
    monkeypatch.setattr(cli, "_LARGE_FILE_BYTES", EXAMPLE.stat().st_size)  # the example is large enough
    status, out, err = run(capsys, EXAMPLE, "-o", tmp_path / "out", "--layout", "differential", "--progress",
                           *FAST_DIFFERENTIAL)
    assert status == 0 and out == [f"biofair report: wrote {tmp_path / 'out'}/report.html and differential.json"]
    assert stages(err) == [f"reading {EXAMPLE} ({EXAMPLE.stat().st_size / 1000:.1f} kB)", "checking 7,920 comparisons",
                           "computing the differential report (40 bootstrap resamples)",
                           "writing report.html and differential.json", "done"], err
    seconds = [float(re.match(r"biofair report: \[(\d+\.\d) s\]", line).group(1)) for line in err if re.match(STAGE, line)]
    assert seconds == sorted(seconds)


def test_the_standard_layout_announces_its_stages(tmp_path, capsys, monkeypatch):
    def fake_execute(args, folder):
        folder.files.mkdir()
        for name in cli._OUTPUTS:
            (folder.files / name).write_text("{}")

    monkeypatch.setattr(cli, "_execute", fake_execute)
    monkeypatch.setattr(cli, "_LARGE_FILE_BYTES", 0)
    status, out, err = run(capsys, EXAMPLE, "-o", tmp_path / "out", "--progress", "-n", "40", "--n-permutations", "10")
    assert status == 0 and len(out) == 1, err
    assert stages(err)[1:] == [
        "checking 7,920 comparisons", "computing every estimate of the report once, without resampling",
        "running the report's notebook, which reads the file again (40 resamples, 10 permutations), and writing "
        "report.ipynb, report.html and summary.json", "done"]


def test_stages_are_shown_on_a_terminal_or_when_asked_and_for_a_large_file_only(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "_LARGE_FILE_BYTES", 0)
    status, _, err = run(capsys, EXAMPLE, "-o", tmp_path / "log", "--layout", "differential", *FAST_DIFFERENTIAL)
    assert status == 0 and stages(err) == []  # stderr is no terminal (a log), and --progress not given
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    status, _, err = run(capsys, EXAMPLE, "-o", tmp_path / "terminal", "--layout", "differential", *FAST_DIFFERENTIAL)
    assert status == 0 and stages(err)[-1] == "done"
    monkeypatch.setattr(cli, "_LARGE_FILE_BYTES", EXAMPLE.stat().st_size + 1)
    status, _, err = run(capsys, EXAMPLE, "-o", tmp_path / "small", "--layout", "differential", "--progress",
                         *FAST_DIFFERENTIAL)
    assert status == 0 and stages(err) == []  # a file read in a moment: no stages


def test_a_refused_file_has_its_stages_then_its_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "_LARGE_FILE_BYTES", 0)
    path = tmp_path / "one.csv"
    example().assign(group="A").to_csv(path, index=False)
    status, out, err = run(capsys, path, "-o", tmp_path / "out", "--layout", "differential", "--progress")
    assert status == 2 and out == []
    assert stages(err) == [f"reading {path} ({path.stat().st_size / 1000:.1f} kB)", "checking 7,920 comparisons"]
    assert len(err) == 3 and err[-1].startswith("biofair report: error: cannot compare groups")  # one line after them


def test_what_the_differential_report_left_out_is_also_said_on_stderr(tmp_path, capsys):
    """Was: a group left out of the differentials, or a --reference that could not serve, was
    said only in the report's notes; the run ended with exit 0 and nothing on stderr."""
    status, out, err = run(capsys, EXAMPLE, "-o", tmp_path / "out", "--layout", "differential", "--operating-fmr",
                           "1e-3", "--reference", "A", *FAST_DIFFERENTIAL)
    notes = json.loads((tmp_path / "out" / "differential.json").read_text())["notes"]
    assert status == 0 and out == [f"biofair report: wrote {tmp_path / 'out'}/report.html and differential.json"]
    assert [f"biofair report: note: {note}" for note in notes if not note.startswith("warning: ")] == [
        line for line in err if line.startswith("biofair report: note: ")]
    assert "biofair report: note: FMR: left out of the differentials: unresolved: 'A', 'B'" in err  # C: resolved by its 4 false matches
    assert any("the reference group 'A' is not among the compared groups" in line for line in err)
