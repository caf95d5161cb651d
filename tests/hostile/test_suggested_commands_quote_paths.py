"""The commands the readers' and ``biofair report``'s errors suggest run as given, in a shell,
on a file whose folder and name hold a quote, a double quote, ``$``, a backtick, ``!`` and
spaces.

Was: the path was pasted between single quotes inside a double-quoted ``python -c "..."``, so
its quote ended the Python string (a SyntaxError), its ``$HOME`` and backticks were expanded by
the shell, and ``chmod a+r`` took a path with spaces as several files.
"""

from __future__ import annotations

import ast
import os
import shlex
import subprocess
import sys
import zipfile

import pandas as pd
import pytest

import biofair as bf
from hostile import example

#: A folder and a file name a shell would split, expand or end a quoted string at.
FOLDER = "it's \"$HOME\" `id` !x & y"
STEM = "o'brien $USER"


def nasty(tmp_path, suffix: str = ".csv"):
    folder = tmp_path / FOLDER
    folder.mkdir()
    return folder / f"{STEM}{suffix}"


def suggested(message: str, start: str = "python -c ") -> str:
    """The command the message proposes, as a shell reads it: from ``start`` to the end of its
    last quoted argument (read with the shell's rules by :mod:`shlex`)."""
    text = message[message.index(start):]
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)  # a ';' after it ends it
    lexer.whitespace_split = True
    for _ in range(len(start.split()) + 1):  # the words of start, then its quoted argument
        lexer.get_token()
    return text[:lexer.instream.tell()].rstrip(" ;")  # the character read past it


def run_in_a_shell(command: str, where) -> None:
    """Run ``command`` with bash in ``where``, with this Python as ``python``."""
    subprocess.run(command, shell=True, executable="/bin/bash", cwd=where, check=True,
                   env={"PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin", "HOME": "/nonexistent"})


def headerless(path):
    example()[["score", "mated", "group"]].to_csv(path, index=False, header=False)


def semicolons_headerless(path):
    example()[["score", "mated", "group"]].to_csv(path, index=False, header=False, sep=";", decimal=",")


def semicolons_with_points(path):
    example().to_csv(path, index=False, sep=";")


def titled(path):
    path.write_text("Scores exported 2024-01-01\n" + example().to_csv(index=False))


def repeated_header(path):
    table = example()
    path.write_text(table[:100].to_csv(index=False) + table[100:].to_csv(index=False))


def spaces(path):
    path.write_text(example().to_csv(index=False, sep=" "))


def json_lines(path):
    example().to_json(path, orient="records", lines=True)


def feather(path):
    example().to_feather(path)


@pytest.mark.parametrize(("write", "suffix", "written"), [
    (headerless, ".csv", "-named.csv"),
    (semicolons_headerless, ".csv", "-comma.csv"),
    (semicolons_with_points, ".csv", "-comma.csv"),
    (titled, ".csv", "-table.csv"),
    (repeated_header, ".csv", "-once.csv"),
    (spaces, ".csv", "-table.csv"),
    (json_lines, ".json", "-table.csv"),
    (feather, ".feather", ".parquet"),
])
def test_a_suggested_conversion_runs_in_a_shell_on_a_path_it_would_break(tmp_path, write, suffix, written):
    path = nasty(tmp_path, suffix)
    write(path)
    with pytest.raises(bf.SchemaError) as refused:
        bf.read_grouped_scores(path)
    run_in_a_shell(suggested(str(refused.value)), path.parent)
    out = path.parent / f"{STEM}{written}"
    converted = pd.read_parquet(out) if written == ".parquet" else pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(converted) == len(example())


def test_the_suggested_conversion_of_a_workbook_reads_and_writes_its_paths(tmp_path):
    """(Without openpyxl, the command is read, not run: its paths are the workbook's.)"""
    path = nasty(tmp_path, ".xlsx")
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("[Content_Types].xml", "<Types/>")
        book.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(bf.SchemaError, match="is an Excel workbook") as refused:
        bf.read_scores(path)
    python, option, code = shlex.split(suggested(str(refused.value)))
    assert (python, option) == ("python", "-c")
    strings = [node.value for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Constant)]
    assert str(path) in strings and str(path.with_name(f"{STEM}-sheet.csv")) in strings


def test_the_suggested_call_with_a_decimal_comma_names_the_path_as_python_reads_it(tmp_path):
    path = nasty(tmp_path)
    example().to_csv(path, index=False, sep=";", decimal=",")
    with pytest.raises(bf.SchemaError, match="read it with biofair.read_scores") as refused:
        bf.read_scores(path)
    message = str(refused.value)
    call = message[message.index("biofair.read_scores("):message.index(", decimal=',')") + len(", decimal=',')")]
    assert ast.literal_eval(ast.parse(call, mode="eval").body.args[0]) == str(path)


def test_the_suggested_chmod_names_the_one_file(tmp_path, monkeypatch):
    path = nasty(tmp_path)
    example().to_csv(path, index=False)
    path.chmod(0o200)
    monkeypatch.setattr(os, "access", lambda *args, **kwargs: False)  # unreadable, even to root
    with pytest.raises(PermissionError, match="cannot be read") as refused:
        bf.read_scores(path)
    command = suggested(str(refused.value), "chmod a+r ")
    assert shlex.split(command) == ["chmod", "a+r", str(path)]
    run_in_a_shell(command, tmp_path)
    assert path.stat().st_mode & 0o444 == 0o444


def test_the_suggested_split_of_several_score_sets_runs_in_a_shell(tmp_path, run_main):
    path = nasty(tmp_path)
    pd.concat([example().assign(system=value) for value in ["v1", "v2"]]).to_csv(path, index=False)
    status, err = run_main(path, "-o", tmp_path / "out")
    assert status == 2 and "holds 2 score sets in column 'system'" in err[-1], err
    run_in_a_shell(suggested(err[-1]), path.parent)
    for number, value in enumerate(["v1", "v2"], 1):
        one = pd.read_csv(path.parent / f"{STEM}-system{number}.csv", dtype=str)
        assert one["system"].unique().tolist() == [value] and len(one) == len(example())
