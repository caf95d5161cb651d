"""``biofair report`` audited option by option, as a user runs it after ``pip install``.

The audit found three gaps. The standard layout resampled comparisons one by one on a file
without subject ids and said so only inside report.html ("resamples by pair"), where the
differential layout also says it on stderr. A value that starts as a negative number with an
exponent or a list (``--fmr-targets -0.1,0.1``, ``--operating-fmr -1e-3``, ``--seed -1e3``)
was taken by argparse for an unknown option: "expected one argument", which names nothing
that is wrong with the value. And a huge ``-n`` was accepted, to fail after the file was
read with numpy's "Maximum allowed dimension exceeded" or "MemoryError: Unable to allocate
14.6 TiB", which name no option.
"""

from __future__ import annotations

import re

import pytest

from biofair import cli
from hostile import EXAMPLE, FAST, FAST_DIFFERENTIAL, three_groups

#: The differential layout's note on a file without subject ids (biofair.differentials).
PAIRS_NOTE = ("biofair report: note: no column 'reference_subject': the bootstrap resamples comparisons as if they "
              "were independent (intervals too narrow when a subject has several comparisons)")


@pytest.fixture
def notebook_skipped(monkeypatch):
    """The standard layout without its notebook (tens of seconds): the three outputs, empty."""

    def fake_execute(args, folder):
        folder.files.mkdir()
        for name in cli._OUTPUTS:
            (folder.files / name).write_text("{}")

    monkeypatch.setattr(cli, "_execute", fake_execute)


def notes(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("biofair report: note: ")]


def test_the_standard_layout_says_on_stderr_that_it_resamples_comparisons(tmp_path, run_main, notebook_skipped):
    path = tmp_path / "no-subjects.csv"
    three_groups(("A", "B", "C")).to_csv(path, index=False)
    status, err = run_main(path, "-o", tmp_path / "standard", *FAST)
    assert status == 0, err
    assert notes(err) == [PAIRS_NOTE]
    # the differential layout's note on the same file, word for word
    status, err = run_main(path, "-o", tmp_path / "differential", "--layout", "differential", *FAST_DIFFERENTIAL)
    assert status == 0, err
    assert PAIRS_NOTE in notes(err)


def test_subject_ids_under_other_names_resample_comparisons_until_they_are_mapped(tmp_path, run_main, notebook_skipped):
    table = three_groups(("A", "B", "C"))
    subject = (table.index // 3) % 10  # ten subjects in each group
    table["ref"] = table["group"] + subject.astype(str)
    table["probe"] = table["group"] + ((subject + ~table["mated"]) % 10).astype(str)  # the next one when non-mated
    path = tmp_path / "renamed.csv"
    table.to_csv(path, index=False)
    status, err = run_main(path, "-o", tmp_path / "unmapped", *FAST)
    assert status == 0 and notes(err) == [PAIRS_NOTE], err
    status, err = run_main(path, "-o", tmp_path / "mapped", "--columns", "ref=reference_subject,probe=probe_subject",
                           *FAST)
    assert status == 0 and notes(err) == [], err


def test_a_file_with_subject_ids_gets_no_note(tmp_path, run_main, notebook_skipped):
    status, err = run_main(EXAMPLE, "-o", tmp_path / "out", *FAST)
    assert status == 0 and notes(err) == [], err


@pytest.mark.parametrize(("option", "value", "problem"), [
    ("--fmr-targets", "-0.1,0.1", "expected a number in (0, 1), got '-0.1'"),
    ("--fmr-targets", "-1e-3,1e-2", "expected a number in (0, 1), got '-1e-3'"),
    ("--operating-fmr", "-1e-3", "expected a number in (0, 1), got '-1e-3'"),
    ("--alpha", "-1e-1", "expected a number in [0, 1], got '-1e-1'"),
    ("--seed", "-1e3", "expected a non-negative integer, got '-1e3'"),
    ("-n", "-1e3", "expected a positive integer, got '-1e3'"),
    ("--n-resamples", "-4e2", "expected a positive integer, got '-4e2'"),
    ("--n-permutations", "-2e2", "expected a positive integer, got '-2e2'"),
    ("--threshold", "-1e9x", "expected a finite number, got '-1e9x'"),
])
def test_a_value_that_starts_as_a_negative_number_is_judged_as_a_value(tmp_path, run_main, option, value, problem):
    layout = ["--layout", "differential"] if option == "--threshold" else []
    status, err = run_main(EXAMPLE, "-o", tmp_path / "out", *layout, option, value)
    assert status == 2
    name = {"-n": "-n/--n-resamples", "--n-resamples": "-n/--n-resamples"}.get(option, option)
    assert err[-1] == f"biofair report: error: argument {name}: {problem}"
    assert list(tmp_path.iterdir()) == []


def test_the_negative_number_options_are_those_that_take_numbers():
    parser = cli._build_parser().parse_args(["report", str(EXAMPLE), "-o", "out"]).report_parser
    not_numbers = (None, cli._existing_file, cli._output_folder, cli._mapping)
    taking_numbers = {name for action in parser._actions if action.nargs is None and action.type not in not_numbers
                      and action.option_strings for name in action.option_strings}
    assert taking_numbers == cli._NUMBER_OPTIONS


@pytest.mark.parametrize("resamples", [10**12, 10**23])
def test_more_resamples_than_memory_holds_are_refused_before_the_file_is_read(tmp_path, run_main, notebook_skipped,
                                                                             resamples):
    # (the notebook, which resamples, is skipped: were the option taken, the run would write its outputs)
    status, err = run_main(EXAMPLE, "-o", tmp_path / "out", "-n", resamples)
    assert status == 2
    assert err[-1].startswith(f"biofair report: error: argument -n/--n-resamples: {resamples:,} resamples would need "
                              f"{resamples * 8 / 1e9:,.0f} GB for one array of their values, more than this machine's ")
    assert err[-1].endswith("GB of memory; give fewer, e.g. 1000 (the default)")
    assert list(tmp_path.iterdir()) == []


def test_version_names_the_package_version(capsys):
    """An auditor records what produced a report; there was no --version (only summary.json said)."""
    import subprocess
    import sys
    from pathlib import Path

    import biofair

    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out == f"biofair {biofair.__version__}\n"
    installed = subprocess.run([str(Path(sys.executable).with_name("biofair")), "--version"], capture_output=True,
                               text=True, check=True)
    assert installed.stdout == f"biofair {biofair.__version__}\n"


def test_a_file_one_may_not_read_is_named_with_what_to_do(tmp_path, monkeypatch, run_main):
    """An unreadable score file gave "PermissionError: [Errno 13] Permission denied" without
    advice (root reads every file, so the check of the permissions is stood in for here)."""
    import os

    import biofair as bf

    secret = tmp_path / "secret.csv"
    secret.write_text(EXAMPLE.read_text())
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if str(path) == str(secret) else real(path, mode))
    message = (rf"^{re.escape(str(secret))} cannot be read: its permissions do not let you read it \(its owner can "
               rf"allow it, e\.g\. chmod a\+r {re.escape(str(secret))}; or read a copy you may read\)$")
    with pytest.raises(PermissionError, match=message):
        bf.read_scores(secret)
    code, err = run_main(secret, "-o", tmp_path / "out")
    assert code == 2 and any("cannot be read: its permissions do not let you read it" in line for line in err)
    assert not (tmp_path / "out").exists()
