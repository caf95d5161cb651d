"""``biofair report`` against hostile options, output folders, signals and full disks.

Options and OUTDIR are checked before the file is read (the file given is 2 GB of NUL bytes:
an error about it would mean it was read first). Real runs share one contested run: a
second run to the same OUTDIR is refused while the first completes. Runs are killed at a
random moment, and one fills its disk at the final write: OUTDIR is absent or complete.
"""

from __future__ import annotations

import errno
import gc
import importlib.util
import json
import logging
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import zmq.asyncio

import biofair as bf
from biofair import cli
from hostile import FAST, FAST_DIFFERENTIAL, ROOT, as_from_a_terminal, biofair_command, example


@pytest.fixture
def unread(tmp_path) -> Path:
    """A score file that must never be read: reading it is an error of its own."""
    path = tmp_path / "never-read.csv"
    with open(path, "wb") as handle:
        handle.truncate(2 * 1024**3)
    return path


@pytest.fixture
def no_notebook(monkeypatch):
    def refuse(*args):
        raise AssertionError("the notebook must not start")

    monkeypatch.setattr(cli, "_execute", refuse)


OPTIONS = {
    "-n 0": (["-n", "0"], r"argument -n/--n-resamples: expected a positive integer, got '0'"),
    "-n -3": (["-n", "-3"], r"argument -n/--n-resamples: expected a positive integer, got '-3'"),
    "-n 1.5": (["-n", "1.5"], r"argument -n/--n-resamples: expected a positive integer, got '1.5'"),
    "-n 39": (["-n", "39"], r"argument -n/--n-resamples: 39 resamples are too few for 95% intervals: "
                            r"give at least 40, so that each interval has a resample beyond each end \(1,000 or more "
                            r"for ends that change little from seed to seed\)$"),
    "--n-permutations 0": (["--n-permutations", "0"], r"argument --n-permutations: expected a positive integer"),
    "--alpha 2": (["--alpha", "2"], r"argument --alpha: expected a number in \[0, 1\], got '2'"),
    "--alpha nan": (["--alpha", "nan"], r"argument --alpha: expected a number in \[0, 1\], got 'nan'"),
    "--operating-fmr nan": (["--operating-fmr", "nan"], r"argument --operating-fmr: expected a number in \(0, 1\), got 'nan'"),
    "--operating-fmr 0": (["--operating-fmr", "0"], r"argument --operating-fmr: expected a number in \(0, 1\)"),
    "--operating-fmr 1.5": (["--operating-fmr", "1.5"], r"argument --operating-fmr: expected a number in \(0, 1\)"),
    # 1 ran the standard layout at the lowest score; the differential one refused it without naming the option
    "--operating-fmr 1": (["--operating-fmr", "1"], r"argument --operating-fmr: expected a number in \(0, 1\), got '1'$"),
    # the differential layout ignored these without a word
    "--fmr-targets, differential": (["--layout", "differential", "--fmr-targets", "0.1,0.01"],
                                    r"argument --fmr-targets: only with --layout standard \(the differential layout "
                                    r"reports one threshold: --threshold, or --operating-fmr\)$"),
    "--alpha, differential": (["--layout", "differential", "--alpha", "0.3"], r"argument --alpha: only with --layout standard"),
    "--operating-fmr with --threshold": (["--layout", "differential", "--threshold", "0.5", "--operating-fmr", "0.5"],
                                         r"argument --operating-fmr: not with --threshold \(the differential layout "
                                         r"reports one threshold\)$"),
    "--n-permutations, differential": (["--n-permutations", "50", "--layout", "differential"],
                                       r"argument --n-permutations: only with --layout standard"),
    "one FMR target": (["--fmr-targets", "0.01"], r"argument --fmr-targets: at least two FMR targets"),
    "duplicate FMR targets": (["--fmr-targets", "0.1,0.01,0.1"], r"argument --fmr-targets: each FMR target once"),
    "a word among FMR targets": (["--fmr-targets", "0.1,abc"], r"argument --fmr-targets: expected a number in \(0, 1\), got 'abc'"),
    "an FMR target above 1": (["--fmr-targets", "0.1,2"], r"argument --fmr-targets: expected a number in \(0, 1\), got '2'"),
    "--seed -1": (["--seed", "-1"], r"argument --seed: expected a non-negative integer, got '-1'"),
    "--by a a": (["--by", "a", "a"], r"argument --by: each attribute once"),
    "--columns onto one name": (["--columns", "s1=score,s2=score"], r"argument --columns: each file column and each canonical column once"),
    "--columns without =": (["--columns", "sim"], r"argument --columns: expected file_column=canonical_column"),
    "--format xml": (["--format", "xml"], r"argument --format: invalid choice: 'xml'"),
    "--missing-groups drop": (["--missing-groups", "drop"], r"argument --missing-groups: invalid choice: 'drop'"),
    "--subjects absent": (["--subjects", "/nonexistent/people.csv"], r"argument --subjects: no file at /nonexistent/people.csv"),
    "--subjects a folder": (["--subjects", "/tmp"], r"argument --subjects: /tmp is a folder, not a file$"),  # was: no file at
    "--layout pdf": (["--layout", "pdf"], r"argument --layout: invalid choice: 'pdf'"),
    "--tolerance 1": (["--layout", "differential", "--tolerance", "1"], r"argument --tolerance: expected a number above 1, got '1'"),
    "--tolerance nan": (["--layout", "differential", "--tolerance", "nan"], r"argument --tolerance: expected a number above 1"),
    "--threshold inf": (["--layout", "differential", "--threshold", "inf"], r"argument --threshold: expected a finite number, got 'inf'"),
    "--threshold without the layout": (["--threshold", "0.5"], r"argument --threshold: only with --layout differential"),
    "--reference without the layout": (["--reference", "A"], r"argument --reference: only with --layout differential"),
    "--output /": (["-o", "/"], r"argument -o/--output: '/' is the root of the file system"),  # was: a traceback
    "--output /tmp/..": (["-o", "/tmp/.."], r"argument -o/--output: '/tmp/..' is the root of the file system"),
    "--output ''": (["-o", ""], r"argument -o/--output: the folder name is empty"),  # was: the current folder
    # was: exit 1 (UnicodeEncodeError: surrogates not allowed) after the whole analysis
    "--output not UTF-8": (["-o", os.fsdecode(b"/tmp/bad\xffname")],
                           r"argument -o/--output: '/tmp/bad\\udcffname' is not UTF-8 text"),
}


@pytest.mark.parametrize("name", OPTIONS)
def test_bad_option_exits_2_naming_it_before_anything_is_read(name, unread, tmp_path, run_main, no_notebook):
    arguments, message = OPTIONS[name]
    status, lines = run_main(unread, "-o", tmp_path / "out", *arguments)
    assert status == 2
    assert lines[-1].startswith("biofair report: error: ") and re.search(message, lines[-1]), lines
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("threshold", ["-1e9", "-2.5E-1", "-.5e0", "-1", "-0.25"])
def test_a_negative_threshold_with_or_without_an_exponent(threshold, unread, tmp_path):
    """argparse reads -1 and -0.25 as negative numbers but took -1e9 for an option: "--threshold:
    expected one argument" (a helper's audit); --threshold=-1e9 worked."""
    args = cli._parse(["report", str(unread), "-o", str(tmp_path / "out"), "--layout", "differential",
                       "--threshold", threshold])
    assert args.threshold == float(threshold)


def test_absent_score_file(tmp_path, run_main, no_notebook):
    status, lines = run_main(tmp_path / "absent.csv", "-o", tmp_path / "out")
    assert status == 2 and re.search(r"argument scores: no file at .*absent.csv", lines[-1])
    status, lines = run_main(tmp_path, "-o", tmp_path / "out")  # a folder: "no file at", though it exists
    assert status == 2 and lines[-1] == f"biofair report: error: argument scores: {tmp_path} is a folder, not a file"


def a_file(tmp_path):
    (tmp_path / "out").write_text("precious")
    return tmp_path / "out", r"--output .*out exists and is not a folder"


def a_full_folder(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("precious")
    return tmp_path / "out", r"--output .*out is not empty \(it holds notes.txt\); give a new or an empty folder"


def a_link(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "real")
    return tmp_path / "out", r"--output .*out is a symbolic link"


def under_a_dangling_link(tmp_path):
    """A link to a share not mounted: the folders it names were created, two levels deep."""
    (tmp_path / "share").symlink_to(tmp_path / "mnt" / "results")
    return tmp_path / "share" / "out", (r"--output .*/share/out cannot be written: .*/share is a symbolic link to "
                                        r".*/mnt/results, which does not exist \(a drive or share not mounted\?\); "
                                        r"create that folder or give another OUTDIR$")


def under_a_file(tmp_path):
    (tmp_path / "notes").write_text("precious")
    return tmp_path / "notes" / "sub" / "out", r"--output .*notes/sub/out cannot be written: .*/notes is a file, not a folder"


def under_proc(tmp_path):
    return Path("/proc/biofair/out"), r"--output /proc/biofair/out cannot be written: No such file or directory \(/proc/biofair\)"


def under_sys(tmp_path):
    return Path("/sys/biofair-out"), r"--output /sys/biofair-out cannot be written: (Operation not permitted|Permission denied) \(/sys\)"


OUTPUTS = {"a file": a_file, "a folder with a file": a_full_folder, "a symbolic link": a_link,
           "under a dangling symbolic link": under_a_dangling_link, "under a file": under_a_file, "/proc": under_proc, "/sys": under_sys}


@pytest.mark.parametrize("name", OUTPUTS)
def test_unwritable_output_is_found_before_the_file_is_read(name, unread, tmp_path, run_main, no_notebook):
    output, message = OUTPUTS[name](tmp_path)
    before = sorted(tmp_path.iterdir())
    status, lines = run_main(unread, "-o", output)
    assert status == 2 and len(lines) == 1, lines
    assert re.search(message, lines[0]), lines[0]
    assert sorted(tmp_path.iterdir()) == before  # nothing created, nothing removed
    if name == "a file":
        assert (tmp_path / "out").read_text() == "precious"
    if name == "under a file":
        assert (tmp_path / "notes").read_text() == "precious"


def in_namespace(script: str, **kwargs) -> subprocess.CompletedProcess:
    """Run a shell script as root of a private user and mount namespace (its mounts vanish with it)."""
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is needed to mount a read-only or a small file system")
    return subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
                          capture_output=True, text=True, **kwargs)


@pytest.mark.parametrize("mounted", ["the parent of a new OUTDIR", "an existing OUTDIR"])
def test_read_only_file_system_is_found_before_the_file_is_read(mounted, unread, tmp_path):
    """On an existing OUTDIR (a container's read-only volume) it was found only at the final move."""
    disk = tmp_path / "disk"
    disk.mkdir()
    output = disk / "out" if mounted == "the parent of a new OUTDIR" else disk
    command = f"{Path(sys.executable).with_name('biofair')} report {unread} -o {output}"
    run = in_namespace(f"mount -t tmpfs -o ro tmpfs {disk} && {command}")
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip() == f"biofair report: error: --output {output} cannot be written: Read-only file system ({disk})"


def fake_execute(args, folder):
    """The notebook's work, done instantly: the three outputs in the work folder."""
    folder.files.mkdir()
    for name in cli._OUTPUTS:
        (folder.files / name).write_text("{}")


def test_a_sentinel_score_is_a_warning_of_the_command(tmp_path, run_main, monkeypatch):
    """A failed comparison stored as 999 squeezed every other score into one of DFI's bins: the
    report's distribution indices rose toward 1 without a word. The command now says so."""
    monkeypatch.setattr(cli, "_execute", fake_execute)
    table = example()
    table.loc[0, "score"] = 999.0
    path = tmp_path / "scores.csv"
    table.to_csv(path, index=False)
    status, lines = run_main(path, "-o", tmp_path / "out")
    assert status == 0, lines
    coarse = [line for line in lines if "barely resolves the scores" in line]
    assert coarse[0].startswith("biofair report: warning: DFI's histogram barely resolves the scores: the central "
                                "90% of them fall in 1 of its 100 equal-width bins")
    assert all(line.startswith("biofair report: warning: ") and "while the range is" in line for line in coarse)
    assert {line.split(" barely")[0].removeprefix("biofair report: warning: ") for line in coarse} == {
        "DFI's histogram", "CEI's histogram of the mated centres"}  # 999 is a mated score: in the centre


def test_a_second_run_is_refused_while_the_first_holds_outdir(tmp_path, run_main, monkeypatch):
    monkeypatch.setattr(cli, "_execute", fake_execute)
    first = cli._OutputFolder(tmp_path / "out")
    first.claim()
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert status == 2 and re.search(r"another biofair report is writing to --output .*out", lines[0]), lines
    assert first.work.exists() and not (tmp_path / "out").exists()
    first.release()
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert status == 0, lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(cli._OUTPUTS)


def test_the_folder_of_a_killed_run_is_removed(tmp_path, run_main, monkeypatch):
    monkeypatch.setattr(cli, "_execute", fake_execute)
    stale = tmp_path / ".out.biofair-partial"
    (stale / "out").mkdir(parents=True)
    (stale / "lock").write_text("")  # nobody holds its lock: its run was killed
    (stale / "out" / "report.ipynb").write_text("half")
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert status == 0, lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert (tmp_path / "out" / "report.ipynb").read_text() == "{}"


def test_an_existing_empty_outdir_is_filled_in_place(tmp_path, run_main, monkeypatch):
    """Its identity stays: same inode and permissions, so a shell inside it (``-o .``) sees
    the report; it was replaced by a new folder before."""
    monkeypatch.setattr(cli, "_execute", fake_execute)
    output = tmp_path / "out"
    output.mkdir()
    output.chmod(0o2751)
    before = output.stat()
    monkeypatch.chdir(output)
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", ".")
    assert status == 0, lines
    after = Path(".").stat()
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert sorted(p.name for p in Path(".").iterdir()) == sorted(cli._OUTPUTS)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_an_existing_outdir_is_claimed_from_inside(tmp_path, run_main, monkeypatch):
    """Its work folder is inside it: a second run is refused as busy, not as "not empty"."""
    monkeypatch.setattr(cli, "_execute", fake_execute)
    (tmp_path / "out").mkdir()
    first = cli._OutputFolder(tmp_path / "out")
    first.claim()
    assert first.work.parent == tmp_path / "out"
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert status == 2 and re.search(r"another biofair report is writing to --output .*out", lines[0]), lines
    first.release()
    assert list((tmp_path / "out").iterdir()) == []


def test_the_folder_of_a_killed_run_inside_an_existing_outdir_is_removed(tmp_path, run_main, monkeypatch):
    monkeypatch.setattr(cli, "_execute", fake_execute)
    stale = tmp_path / "out" / ".biofair-partial"
    (stale / "out").mkdir(parents=True)
    (stale / "lock").write_text("")  # nobody holds its lock: its run was killed
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert status == 0, lines
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(cli._OUTPUTS)


def test_an_outdir_that_is_a_mount_point_receives_the_report(tmp_path):
    """A folder with a file system mounted on it (a container's volume) cannot be replaced by a
    rename; the report was lost at the final move before."""
    output = tmp_path / "out"
    output.mkdir()
    command = (f"{Path(sys.executable).with_name('biofair')} report {ROOT / 'biofair' / 'data' / 'example_scores.csv'} "
               f"--layout differential --by group -n 40 --seed 3 -o {output}")
    run = in_namespace(f"mount -t tmpfs tmpfs {output} && cd {ROOT} && {command} && ls -A {output}", timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-2:] == ["differential.json", "report.html"], run.stdout


def test_a_file_put_into_outdir_during_the_run_is_never_overwritten(tmp_path, run_main, monkeypatch):
    def intruder(args, folder):
        fake_execute(args, folder)
        folder.output.mkdir()
        (folder.output / "report.html").write_text("someone else's")

    monkeypatch.setattr(cli, "_execute", intruder)
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert status == 1
    assert lines == [f"biofair report: the analysis failed, nothing was written: the report could not be "
                     f"moved to --output {tmp_path / 'out'}: Directory not empty"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["report.html"]
    assert (tmp_path / "out" / "report.html").read_text() == "someone else's"


@pytest.mark.parametrize("name", ["report.html", ".DS_Store"])
def test_a_file_put_into_an_existing_outdir_during_the_run_is_never_overwritten(name, tmp_path, run_main, monkeypatch):
    """One of the report's names stops the move; another name (a file manager's .DS_Store,
    written while someone looks at the folder, which threw the finished report away) stays
    beside the report."""
    def intruder(args, folder):
        fake_execute(args, folder)
        (folder.output / name).write_text("someone else's")

    monkeypatch.setattr(cli, "_execute", intruder)
    output = tmp_path / "out"
    output.mkdir()
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", output)
    if name in cli._OUTPUTS:
        assert status == 1
        assert lines == [f"biofair report: the analysis failed, nothing was written: the report could not be "
                         f"moved to --output {output}: a file named {name} appeared there during the run"]
        assert [p.name for p in output.iterdir()] == [name]
    else:
        assert status == 0, lines
        assert sorted(p.name for p in output.iterdir()) == sorted([name, *cli._OUTPUTS])
    assert (output / name).read_text() == "someone else's"


def test_a_failing_final_move_writes_nothing(tmp_path, run_main, monkeypatch):
    monkeypatch.setattr(cli, "_execute", fake_execute)

    def full_disk(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.os, "rename", lambda s, t, rename=os.rename: (
        full_disk(s, t) if Path(t) == tmp_path / "out" else rename(s, t)))
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert status == 1
    assert lines == [f"biofair report: the analysis failed, nothing was written: the report could not be "
                     f"moved to --output {tmp_path / 'out'}: No space left on device"]
    assert list(tmp_path.iterdir()) == []



def test_a_failing_move_into_an_existing_outdir_takes_back_what_it_moved(tmp_path, run_main, monkeypatch):
    monkeypatch.setattr(cli, "_execute", fake_execute)
    output = tmp_path / "out"
    output.mkdir()
    last = output / sorted(cli._OUTPUTS)[-1]

    def full_disk(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.os, "link", lambda s, t, link=os.link: (
        full_disk(s, t) if Path(t) == last else link(s, t)))
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", output)
    assert status == 1
    assert lines == [f"biofair report: the analysis failed, nothing was written: the report could not be "
                     f"moved to --output {output}: No space left on device"]
    assert list(output.iterdir()) == []


class _Killed(BaseException):
    """A SIGKILL between two moves: nothing of the run's own handling runs."""


@pytest.mark.parametrize("layout", ["standard", "differential"])
def test_a_run_killed_between_two_moves_into_an_existing_outdir_leaves_no_json(layout, tmp_path, run_main,
                                                                              monkeypatch):
    """Into an existing OUTDIR the files move one by one: the JSON file moves last, so that it
    says the report is whole. differential.json moved first before: a kill after it left
    OUTDIR with differential.json and no report.html."""
    monkeypatch.setattr(cli, "_execute", fake_execute)
    moves = []

    def killed_after_the_first(source, target, move=cli._move_without_replacing):
        if moves:
            raise _Killed
        moves.append(Path(target).name)
        move(source, target)

    monkeypatch.setattr(cli, "_move_without_replacing", killed_after_the_first)
    output = tmp_path / "out"
    output.mkdir()
    with pytest.raises(_Killed):
        run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", output, "--layout", layout,
                 *(["--by", "group", "-n", "40"] if layout == "differential" else []))
    left = sorted(p.name for p in output.iterdir() if not p.name.startswith("."))
    assert left == moves == ["report.html"]


@pytest.mark.parametrize("intruder", [False, True], ids=["alone", "with a file put there"])
def test_a_file_system_without_hard_links_receives_the_report(intruder, tmp_path, run_main, monkeypatch):
    """FAT and exFAT (a USB stick) refuse hard links: the move falls back to a rename after a
    check, which still keeps a file that appeared during the run."""
    def no_links(source, target):
        raise OSError(errno.EPERM, "Operation not permitted")

    def analysis(args, folder):
        fake_execute(args, folder)
        if intruder:
            (folder.output / "summary.json").write_text("someone else's")

    monkeypatch.setattr(cli, "_execute", analysis)
    monkeypatch.setattr(cli.os, "link", no_links)
    output = tmp_path / "out"
    output.mkdir()
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", output)
    if not intruder:
        assert status == 0, lines
        assert sorted(p.name for p in output.iterdir()) == sorted(cli._OUTPUTS)
    else:
        assert status == 1 and lines[0].endswith(": a file named summary.json appeared there during the run"), lines
        assert [p.name for p in output.iterdir()] == ["summary.json"]
        assert (output / "summary.json").read_text() == "someone else's"


@pytest.mark.parametrize("existing", [False, True], ids=["new OUTDIR", "existing OUTDIR"])
def test_a_run_that_opened_a_stale_lock_late_does_not_take_a_live_folder(existing, tmp_path, monkeypatch):
    """Two runs find the same stale work folder: B removes it and claims OUTDIR; A, which had
    opened the stale lock before, gets that lock once B lets it go. It must see that the lock is
    no longer the folder's and give up, not remove B's live folder (1 in 150 concurrent claims)."""
    output = tmp_path / "out"
    if existing:
        output.mkdir()
    late = cli._OutputFolder(output)
    (late.work / "scratch").mkdir(parents=True)
    stale = os.open(late.work / "lock", os.O_CREAT | os.O_RDWR)  # A opens the stale lock ...
    live = cli._OutputFolder(output)
    live.claim()  # ... B removes the stale folder and claims OUTDIR
    real_open = os.open
    monkeypatch.setattr(cli.os, "open", lambda path, flags, *args, **kwargs: (
        stale if Path(path) == late.work / "lock" and flags == os.O_RDWR else real_open(path, flags, *args, **kwargs)))
    try:
        with pytest.raises(cli._UsageError, match="another biofair report is writing"):
            late.claim()
        assert live.scratch.is_dir() and (live.work / "lock").exists()
    finally:
        live.release()
    assert list(tmp_path.iterdir()) == ([output] if existing else [])


def test_a_work_folder_whose_lock_was_removed_does_not_block_outdir(tmp_path, run_main, monkeypatch):
    """A run killed while its clean-up removed the work folder could leave it without its lock;
    every later run was refused as if another run held it."""
    monkeypatch.setattr(cli, "_execute", fake_execute)
    monkeypatch.setattr(cli.time, "sleep", lambda seconds: None)
    left = tmp_path / ".out.biofair-partial"
    (left / "out").mkdir(parents=True)
    (left / "scratch").mkdir()
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert status == 0, lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_the_lock_is_the_last_entry_a_clean_up_removes(tmp_path, monkeypatch):
    folder = cli._OutputFolder(tmp_path / "out")
    folder.claim()
    (folder.scratch / "kernel.log").write_text("")
    removed = []
    real_unlink = Path.unlink
    monkeypatch.setattr(Path, "unlink", lambda self, *a, **k: (removed.append(self.name), real_unlink(self, *a, **k))[1])
    folder.release()
    assert removed[-1] == "lock" and list(tmp_path.iterdir()) == []


def test_an_interrupt_while_outdir_is_claimed_leaves_nothing(tmp_path, run_main, monkeypatch):
    """Ctrl-C just after the staging folder was made, before the run could note it, left it."""
    real_mkdtemp = tempfile.mkdtemp

    def interrupted(*args, **kwargs):
        path = real_mkdtemp(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)
        return path

    monkeypatch.setattr(cli.tempfile, "mkdtemp", interrupted)
    monkeypatch.setattr(cli, "_execute", fake_execute)
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert (status, lines) == (128 + signal.SIGINT, ["biofair report: interrupted by SIGINT; nothing was written"])
    assert list(tmp_path.iterdir()) == []


def test_an_outdir_name_too_long_is_one_line(unread, tmp_path, run_main, no_notebook):
    status, lines = run_main(unread, "-o", tmp_path / ("x" * 300))
    assert status == 2 and len(lines) == 1 and lines[0].endswith("cannot be written: File name too long"), lines
    assert list(tmp_path.iterdir()) == [unread]


def test_the_report_runs_in_this_python_whatever_kernel_jupyter_calls_python3(tmp_path):
    """A "python3" kernel installed for the user or on JUPYTER_PATH ran the report: another
    environment's biofair computed it, or a removed one failed with FileNotFoundError."""
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": ["/opt/removed-env/bin/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "a removed environment", "language": "python"}))
    run = subprocess.run([str(Path(sys.executable).with_name("biofair")), "report",
                          str(ROOT / "biofair" / "data" / "example_scores.csv"), "-o", str(tmp_path / "out"), *FAST],
                         capture_output=True, text=True, timeout=600, env={**os.environ, "JUPYTER_PATH": str(tmp_path / "jupyter")})
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["biofair"] == bf.__version__


def test_braces_in_the_outdir_path_are_part_of_its_name(tmp_path, run_main):
    """papermill fills "{name}" in notebook paths with the parameters: "run_{x}" failed with
    "Missing parameter 'x'", "run {}" with an IndexError, and "{seed}" became the seed."""
    output = tmp_path / "{seed}" / "run_{x} {}"
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", output, *FAST)
    assert status == 0, lines
    assert sorted(p.name for p in output.iterdir()) == sorted(cli._OUTPUTS)
    assert [p.name for p in tmp_path.iterdir()] == ["{seed}"]
    notebook = json.loads((output / "report.ipynb").read_text())
    assert notebook["metadata"]["papermill"]["output_path"] == str(output / "report.ipynb")


def test_a_long_outdir_name_the_file_system_allows_receives_the_report(tmp_path, run_main, monkeypatch):
    """240 bytes: a legal name, too long for the work folder ".<name>.biofair-partial-XXXXXXXX"
    beside it, which is then named by a hash of it, the same for every run."""
    monkeypatch.setattr(cli, "_execute", fake_execute)
    name = "é" * 120
    first = cli._OutputFolder(tmp_path / name)
    first.claim()
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / name)
    assert status == 2 and "another biofair report is writing" in lines[0], lines
    first.release()
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / name)
    assert status == 0, lines
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert sorted(p.name for p in (tmp_path / name).iterdir()) == sorted(cli._OUTPUTS)


def test_a_symbolic_link_that_leads_back_to_itself_is_named(unread, tmp_path, run_main, no_notebook):
    (tmp_path / "loop").symlink_to("loop")
    status, lines = run_main(unread, "-o", tmp_path / "loop" / "out")
    assert status == 2 and len(lines) == 1, lines
    assert lines[0].endswith(f"{os.path.realpath(tmp_path)}/loop is a symbolic link that leads back to itself"), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([unread.name, "loop"])


def test_dot_dot_after_a_symbolic_link_is_resolved_as_the_shell_does(tmp_path, run_main, monkeypatch):
    monkeypatch.setattr(cli, "_execute", fake_execute)
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real" / "deep")
    monkeypatch.chdir(tmp_path)
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", "link/../out")
    assert status == 0, lines
    assert (tmp_path / "real" / "out" / "summary.json").exists() and not (tmp_path / "out").exists()


def test_a_reader_that_closed_the_pipe_does_not_fail_a_written_report(tmp_path):
    """"biofair report ... | true": a BrokenPipeError traceback and status 1 ("the analysis
    failed") after the report was written."""
    command = (f"{Path(sys.executable).with_name('biofair')} report {ROOT / 'biofair' / 'data' / 'example_scores.csv'} "
               f"--layout differential {' '.join(FAST_DIFFERENTIAL)} -o {tmp_path / 'out'} | true")
    run = subprocess.run(["bash", "-c", "set -o pipefail; " + command], capture_output=True, text=True, timeout=600)
    assert (run.returncode, run.stderr) == (0, "")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["differential.json", "report.html"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full, a device that is always full")
def test_a_full_stdout_or_a_closed_stderr_does_not_fail_a_written_report(tmp_path):
    """"> /dev/full": a traceback and status 1 after the report was written; "2>&-": an
    AttributeError (no sys.stderr) and status 1 before anything was read (a hostile-CLI audit)."""
    command = (f"{Path(sys.executable).with_name('biofair')} report {ROOT / 'biofair' / 'data' / 'example_scores.csv'} "
               f"--layout differential {' '.join(FAST_DIFFERENTIAL)}")
    full = subprocess.run(["bash", "-c", f"{command} -o {tmp_path / 'full'} > /dev/full"], capture_output=True,
                          text=True, timeout=600)
    assert (full.returncode, full.stderr) == (0, "biofair report: stdout could not take this line (No space left on "
                                                 f"device): wrote {tmp_path / 'full'}/report.html and differential.json\n")
    closed = subprocess.run(["bash", "-c", f"{command} -o {tmp_path / 'closed'} 2>&-"], capture_output=True,
                            text=True, timeout=600)
    assert (closed.returncode, closed.stdout) == (0, f"biofair report: wrote {tmp_path / 'closed'}/report.html and "
                                                     "differential.json\n")
    for name in ("full", "closed"):
        assert sorted(p.name for p in (tmp_path / name).iterdir()) == ["differential.json", "report.html"]


def test_the_kernel_log_is_quoted_for_its_cause_not_its_start_notice(tmp_path):
    notice = ("[IPKernelApp] WARNING | Kernel is running over TCP without encryption. All communication (including "
              "code and outputs) is sent in plain text and is susceptible to eavesdropping.")
    log = tmp_path / "kernel.log"
    log.write_text(notice + "\n\n")
    assert cli._log_tail(log) == ""
    log.write_text("Traceback (most recent call last):\nMemoryError: out of memory\n" + notice + "\n")
    assert cli._log_tail(log) == "; kernel log: MemoryError: out of memory"
    assert cli._log_tail(tmp_path / "absent.log") == ""


def test_a_disk_that_fills_leaves_no_outdir_and_says_so(tmp_path):
    """A file system sized from a complete run: every output but half the HTML page fits. And
    one that fills while the notebook runs: its message ended with the kernel's start notice
    ("kernel log: ... Kernel is running over TCP without encryption ..."), not the cause."""
    report = [str(Path(sys.executable).with_name("biofair")), "report", str(ROOT / "biofair" / "data" / "example_scores.csv"), *FAST]
    complete = subprocess.run([*report, "-o", str(tmp_path / "complete")], capture_output=True, text=True, timeout=600)
    assert complete.returncode == 0, complete.stderr
    sizes = {path.name: path.stat().st_size for path in (tmp_path / "complete").iterdir()}
    fits = sum(sizes.values()) - sizes["report.html"] // 2
    disk = tmp_path / "disk"
    disk.mkdir()
    command = " ".join([*report, "-o", f"{disk}/out"])
    for kilobytes in (fits // 1024, 64):
        run = in_namespace(f"mount -t tmpfs -o size={kilobytes}k tmpfs {disk} && cd {ROOT} && {command}; "
                           f"echo status=$?; ls -A {disk}", timeout=600)
        assert run.stdout.splitlines() == ["status=1"], run.stdout + run.stderr  # ls -A: no OUTDIR, no work folder
        assert run.stderr.strip() == ("biofair report: the analysis failed, nothing was written: the report could "
                                      "not be written: [Errno 28] No space left on device"), (kilobytes, run.stderr)


FAILING_TEMPLATE = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A report

```{code-cell} ipython3
:tags: [parameters]

scores_path = ""
```

## How fair is it?

```{code-cell} ipython3
import biofair as bf
bf.comprehensive_equity_index(bf.read_scores(scores_path).assign(score=0.5))
```
"""


def test_a_failing_cell_is_named_in_one_paragraph(tmp_path, run_main, monkeypatch):
    template = tmp_path / "template.md"
    template.write_text(FAILING_TEMPLATE)
    monkeypatch.setattr(cli, "_TEMPLATE", template)
    status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out")
    assert status == 1
    assert lines == [
        "biofair report: the analysis failed, nothing was written: SchemaError: group 'A': all 240 mated scores "
        "fall in the tail at percentile 95; the centre is empty (too few or tied scores) (in the report's cell 3, "
        'section "How fair is it?", line 2: bf.comprehensive_equity_index(bf.read_scores(scores_path).assign(score=0.5)))'
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["template.md"]


# -- real runs -------------------------------------------------------------------------------


def hostile_example(folder: Path) -> tuple[Path, pd.DataFrame]:
    """The example with labels that used to merge, break the legend or vanish."""
    table = example()
    labels = table["group"].map({"A": "01", "B": "1", "C": "$\\foo$ / x"})
    blank = table["reference_subject"].isin(["C10", "C11"])
    path = folder / "hostile.csv"
    table.assign(group=labels.where(~blank, "")).to_csv(path, index=False)
    return path, table.assign(group=labels.where(~blank, "(missing)"))


def work_folder(output: Path) -> Path:
    return output.with_name(f".{output.name}.biofair-partial")


def wait_for(condition, process: subprocess.Popen, timeout: float = 120) -> None:
    start = time.monotonic()
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() - start < timeout, "timed out"
        time.sleep(0.05)


def kernels_of(folder: Path) -> list[int]:
    """Processes whose command line names a file in ``folder`` (our kernels)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(folder) in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.fixture(scope="module")
def contested(tmp_path_factory):
    """Two runs to one OUTDIR: the first runs to the end, the second starts while it works."""
    folder = tmp_path_factory.mktemp("contested")
    path, table = hostile_example(folder)
    output = folder / 'ré"p\\ort'  # papermill writes it into the notebook as "r\xe9\"p\\ort"
    start = time.monotonic()
    first = biofair_command("report", path, "-o", output, "--missing-groups", "group", *FAST)
    wait_for(lambda: work_folder(output).exists(), first)
    wait_for(lambda: kernels_of(work_folder(output)), first)
    kernels = {pid: (Path("/proc") / str(pid) / "cmdline").read_bytes().decode() for pid in kernels_of(work_folder(output))}
    os.kill(first.pid, signal.SIGSTOP)  # the first run holds its lock until the second is done, however loaded the machine
    paused = time.monotonic()
    try:
        second = biofair_command("report", path, "-o", output, *FAST)
        second_out, second_err = second.communicate(timeout=120)
    finally:
        os.kill(first.pid, signal.SIGCONT)
    paused = time.monotonic() - paused
    first_out, first_err = first.communicate(timeout=900)
    return {"output": output, "path": path, "table": table, "duration": time.monotonic() - start - paused, "kernels": kernels,
            "first": (first.returncode, first_out, first_err), "second": (second.returncode, second_out, second_err)}


def test_the_second_run_is_refused_in_one_line(contested):
    status, out, err = contested["second"]
    assert status == 2 and out == ""
    assert err.strip() == (f"biofair report: error: another biofair report is writing to --output {contested['output']} "
                           f"(its work folder {work_folder(contested['output'])} is locked); wait for it or choose another folder")


def test_the_first_run_completes_and_says_only_so(contested):
    status, out, err = contested["first"]
    assert status == 0, err
    assert err == (  # no kernel chatter, no KeyboardInterrupt caught in kernel, one warning: of the labels
        "biofair report: warning: column(s) ['group'] hold labels that differ only by how a number is written "
        "(1, 1.0 and 01): '01', '1'; they are kept as separate groups. Write each number one way (for whole numbers: "
        "table[column] = pd.to_numeric(table[column]).astype(int).astype(str)) if they are one group\n"
    )
    assert out.strip() == f"biofair report: wrote {contested['output']}/report.ipynb, report.html and summary.json"
    assert sorted(p.name for p in contested["output"].parent.iterdir()) == ["hostile.csv", contested["output"].name]
    assert sorted(p.name for p in contested["output"].iterdir()) == sorted(cli._OUTPUTS)
    html = (contested["output"] / "report.html").read_text()
    assert html.rstrip().endswith("</html>") and "data:image/png;base64" in html
    # the labels' warning under the cell that reads the file, not again under the 6 cells that group the table
    assert html.count("differ only by how a number is written") == 1
    assert "UserWarning: column(s)" in html and "ipykernel_" not in html  # not under the kernel's temporary file


def test_the_kernel_kept_its_connection_file_in_the_work_folder(contested):
    assert contested["kernels"], "no kernel seen"
    for command in contested["kernels"].values():
        arguments = command.split("\0")
        connection = Path(arguments[arguments.index("-f") + 1])
        assert connection == work_folder(contested["output"]) / "scratch" / "kernel.json"
    assert not kernels_of(work_folder(contested["output"]))


def test_the_published_notebook_names_outdir_not_the_work_folder(contested):
    """Its parameters and papermill's record named the hidden work folder, gone once the report
    is published: rerun as it was, the notebook could not write its summary. So it was, later,
    for an OUTDIR with a character that papermill escapes in the parameters cell (an audit's
    'q"uote\\back')."""
    output = contested["output"]
    text = (output / "report.ipynb").read_text()
    assert ".biofair-partial" not in text
    notebook = json.loads(text)
    literal = str(output / "summary.json").replace("\\", "\\\\").replace('"', '\\"').replace("é", "\\xe9")
    assert f'summary_path = "{literal}"' in "".join(
        "".join(cell["source"]) for cell in notebook["cells"] if "injected-parameters" in cell["metadata"].get("tags", []))
    record = notebook["metadata"]["papermill"]
    assert (record["output_path"], record["parameters"]["summary_path"]) == (str(output / "report.ipynb"),
                                                                             str(output / "summary.json"))


def test_the_summary_holds_every_groups_rates_at_the_operating_threshold(contested):
    """summary.json held the pooled and index rows but not the per-group FMR and FNMR that
    report.html shows ("which group errs most ... is in this table"; a hostile-CLI audit)."""
    summary = json.loads((contested["output"] / "summary.json").read_text())
    point = summary["operating_point"]
    with pytest.warns(UserWarning, match="differ only by how a number is written"):  # the file's '01' and '1'
        table = bf.read_grouped_scores(contested["path"], missing_groups="group")
        outcome = bf.outcome_fairness(table, fmr=summary["operating_fmr"])
    assert point["threshold"] == outcome.threshold and point["fmr_target"] == summary["operating_fmr"]
    assert (point["k"], point["resolved"], point["precise"]) == (outcome.k, outcome.resolved, outcome.precise)
    assert point["groups"] == outcome.rates.astype(object).to_dict(orient="records")  # in full precision
    assert sorted(row["group"] for row in point["groups"]) == sorted(table["group"].unique())


def test_every_row_is_in_the_report(contested):
    """Row conservation through the whole run: per-group counts as written, "01" and "1" apart."""
    summary = json.loads((contested["output"] / "summary.json").read_text())
    table = contested["table"]
    rows = summary["rows"]
    assert rows["n_rows"] == len(table) and rows["n_mated"] == table["mated"].sum()
    assert rows["cross_group_nonmated"] == 0
    assert rows["missing_group_rows"] == {"group": 132}
    expected = table.groupby("group")["mated"].agg(n_mated="sum", n_nonmated=lambda m: (~m).sum())
    assert rows["groups"] == expected.astype(int).to_dict("index")
    assert set(rows["groups"]) == {"01", "1", "$\\foo$ / x", "(missing)"}


def test_the_summary_names_the_file_it_describes_by_size_and_digest(contested):
    """differential.json did; summary.json gave only the path, which another file can take."""
    import hashlib

    source = json.loads((contested["output"] / "summary.json").read_text())["source"]
    data = Path(contested["path"]).read_bytes()
    assert source == {"path": str(Path(contested["path"]).resolve()), "bytes": len(data),
                      "sha256": hashlib.sha256(data).hexdigest()}


def test_every_rate_at_a_target_carries_its_resolution(contested):
    """SPEC section 1: k = non-mated scores at or above the threshold; resolved iff fmr·N >= 3,
    precise iff fmr·N >= 30; recomputed here from the file."""
    summary = json.loads((contested["output"] / "summary.json").read_text())
    table = contested["table"]
    nonmated = table.loc[~table["mated"], "score"].to_numpy()
    at_target = [m for m in summary["metrics"] if m["metric"] in (
        "tmr_at_fmr", "fnmr_at_fmr", "fdr", "garbe_fmr", "garbe_fnmr", "inequity_fmr", "inequity_fnmr")]
    assert len(at_target) == 3 + 3 + 3 + 4
    for row in at_target:
        # every group's non-mated pairs are homogeneous here, so the pooled N is all of them
        threshold = bf.threshold_at_fmr(nonmated, row["fmr_target"])
        assert row["k"] == int(np.sum(nonmated >= threshold)), row
        assert row["resolved"] == (3 / nonmated.size <= row["fmr_target"])
        assert row["precise"] == (30 / nonmated.size <= row["fmr_target"])
    assert {(r["fmr_target"], r["precise"]) for r in at_target} == {(0.1, True), (0.01, True), (0.001, False)}
    others = [m for m in summary["metrics"] if m not in at_target]
    assert all(m["k"] is None for m in others)  # no threshold set at a target
    # an FMR bound (partial AUC, log-FMR AUC) is resolved or not; a row without one, neither,
    # but CEIᴬ, resolved when every group's tail holds a score (an empty tail is its extreme score)
    automatic = [m for m in others if m["metric"].startswith("cei_auto_")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the labels' and the empty tails' warnings, which the command showed
        percentiles = [bf.automatic_comprehensive_equity_index(table, kind=kind).parameters["percentiles"]
                       for kind in ("mated", "nonmated")]
    assert [m["resolved"] for m in automatic] == [max(p.values()) < 100 for p in percentiles]
    # the FDR area: as resolved (precise) as the least resolved target it runs over
    fdr = [m for m in at_target if m["metric"] == "fdr"]
    area = [m for m in others if m["metric"] == "area_under_fdr_log10"]
    assert [(m["resolved"], m["precise"]) for m in area] == [
        (all(m["resolved"] for m in fdr), all(m["precise"] for m in fdr))]
    assert all(m["resolved"] is None and m["precise"] is None for m in others
               if m["fmr_target"] is None and m not in automatic + area)
    assert all(m["resolved"] is not None for m in others if m["fmr_target"] is not None)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=lambda s: signal.Signals(s).name)
def test_interrupted_while_the_kernel_runs(signum, tmp_path):
    """Ctrl-C (SIGINT) or kill (SIGTERM): one line, nothing written, no folder, no kernel left."""
    output = tmp_path / "out"
    run = biofair_command("report", ROOT / "biofair" / "data" / "example_scores.csv", "-o", output, *FAST)
    wait_for(lambda: kernels_of(work_folder(output)), run)
    kernels = kernels_of(work_folder(output))
    run.send_signal(signum)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 128 + signum
    assert (out, err) == ("", f"biofair report: interrupted by {signal.Signals(signum).name}; nothing was written\n")
    assert list(tmp_path.iterdir()) == []
    assert not any(Path(f"/proc/{pid}").exists() for pid in kernels)  # shut down before the exit


def test_a_signal_ignored_on_entry_stays_ignored(tmp_path):
    """Started with nohup (SIGHUP ignored) or in the background of a script (SIGINT ignored), a
    run still stopped on that signal: its own handler replaced the ignoring it inherited."""
    output = tmp_path / "out"

    def ignore():
        for signum in (signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, signal.SIG_IGN)

    run = biofair_command("report", ROOT / "biofair" / "data" / "example_scores.csv", "-o", output, *FAST,
                          preexec_fn=ignore)
    wait_for(lambda: kernels_of(work_folder(output)), run)
    run.send_signal(signal.SIGHUP)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=600)
    assert (run.returncode, err) == (0, "")
    assert out.strip() == f"biofair report: wrote {output}/report.ipynb, report.html and summary.json"


def test_interrupted_between_the_kernel_start_and_its_record(tmp_path, run_main, monkeypatch):
    """A signal that came after the kernel's ``exec``, before the launcher returned its process
    (the moment a loaded CI run hit), unwound out of the launcher: the manager never learnt of
    the process, and the kernel outlived the run. It is held until the kernel has started."""
    from jupyter_client.provisioning import local_provisioner

    real_launch, started = local_provisioner.launch_kernel, []

    def launch_then_signal(*args, **kwargs):
        started.append(real_launch(*args, **kwargs))
        os.kill(os.getpid(), signal.SIGINT)
        return started[-1]

    monkeypatch.setattr(local_provisioner, "launch_kernel", launch_then_signal)
    try:
        status, lines = run_main(ROOT / "biofair" / "data" / "example_scores.csv", "-o", tmp_path / "out", *FAST)
        assert (status, lines) == (128 + signal.SIGINT, ["biofair report: interrupted by SIGINT; nothing was written"])
        assert len(started) == 1 and started[0].poll() is not None  # ended, and collected, by the run
        assert list(tmp_path.iterdir()) == []
        gc.collect()  # its messaging was closed too: left open, a later test's collection warned of it
        assert not [o for o in gc.get_objects() if isinstance(o, zmq.asyncio.Context) and not o.closed]
    finally:
        for process in started:
            process.kill()
            process.wait()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGKILL], ids=lambda s: signal.Signals(s).name)
def test_a_run_killed_at_a_random_moment_leaves_outdir_absent_or_complete(signum, contested, tmp_path):
    moment = random.Random(int(signum)).uniform(0.0, contested["duration"])
    output = tmp_path / "out"
    run = biofair_command("report", ROOT / "biofair" / "data" / "example_scores.csv", "-o", output, *FAST)
    wait_for(lambda: work_folder(output).exists(), run)  # past start-up: main() is running
    time.sleep(moment)
    kernels = kernels_of(work_folder(output))
    run.send_signal(signum)
    out, err = run.communicate(timeout=120)
    if output.exists():  # finished first: complete
        assert sorted(p.name for p in output.iterdir()) == sorted(cli._OUTPUTS)
        json.loads((output / "summary.json").read_text())
        assert (output / "report.html").read_text().rstrip().endswith("</html>")
        if run.returncode == -signal.SIGKILL:
            # SIGINT is ignored from the last rename on; SIGKILL cannot be, and can land between
            # the rename and the exit (seen once in a fresh-clone run on a loaded machine): the
            # work folder may be left beside the complete report
            assert signum == signal.SIGKILL
            shutil.rmtree(work_folder(output), ignore_errors=True)
        else:
            assert run.returncode == 0, err
    elif signum == signal.SIGKILL:
        assert run.returncode == -signal.SIGKILL
        folder = cli._OutputFolder(output)  # the next run removes what the killed one left
        folder.claim()
        folder.release()
        assert not work_folder(output).exists()
    else:
        assert run.returncode == 128 + signum
        assert err.strip() == f"biofair report: interrupted by {signal.Signals(signum).name}; nothing was written"
    assert list(tmp_path.iterdir()) == ([output] if output.exists() else [])
    deadline = time.monotonic() + 10  # a kernel whose parent was killed exits within seconds
    while any(Path(f"/proc/{pid}").exists() for pid in kernels) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() for pid in kernels)


def test_after_a_signal_the_libraries_say_nothing_while_the_run_unwinds(caplog):
    """A Ctrl-C while a cell runs: nbclient logs "Kernel died while waiting for execute reply."
    (papermill's logger) when the clean-up ends the kernel under its polling task, and asyncio
    "Task exception was never retrieved" when that task is collected, around the run's one
    line (seen in a fresh-clone run, and in 1 of 20 interrupts at random moments on a loaded
    machine). From the signal on, both loggers are silent; the next run hears them again."""
    caplog.set_level(logging.ERROR)
    try:
        with pytest.raises(KeyboardInterrupt):
            cli._stop(signal.SIGINT, None)
        logging.getLogger("papermill").error("Kernel died while waiting for execute reply.")
        logging.getLogger("asyncio").error("Task exception was never retrieved")
        assert caplog.records == []
    finally:
        cli._received.clear()
        cli._silence_unwinding_noise(False)  # what main() does when a run starts
    logging.getLogger("papermill").error("a kernel died in a run that was not interrupted")
    assert [record.name for record in caplog.records] == ["papermill"]


class _FailsWhenCollected:
    """A kernel client whose making a signal cut short: its ``__del__`` fails."""

    def __del__(self):
        raise ValueError("default value not set properly")


def test_after_a_signal_exceptions_ignored_in_finalisers_are_not_printed(monkeypatch):
    """A Ctrl-C while papermill made a kernel client printed "Exception ignored in: <function
    KernelClient.__del__ ...> ... TraitError" above the run's one line (a loaded test run). From
    the signal on, such reports are dropped; the next run hears them again."""
    heard = []
    monkeypatch.setattr(sys, "unraisablehook", heard.append)
    try:
        with pytest.raises(KeyboardInterrupt):
            cli._stop(signal.SIGINT, None)
        _FailsWhenCollected()  # collected at once
        assert heard == []
    finally:
        cli._received.clear()
        cli._silence_unwinding_noise(False)  # what main() does when a run starts
    _FailsWhenCollected()
    assert [type(report.exc_value) for report in heard] == [ValueError]


class _SwallowsWhatItRaises:
    """An object whose ``__del__`` receives a signal: the handler's exception is raised inside
    ``__del__``, where Python reports it as unraisable and goes on, as when Ctrl-C lands while
    garbage is collected."""

    finished: list[bool] = []

    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):  # the handler runs here, between two bytecodes of __del__
            pass
        self.finished.append(True)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the swallowed interrupt
def test_an_interrupt_swallowed_by_python_still_stops_the_run(tmp_path, monkeypatch, capsys):
    def analysis_that_finishes(args, folder):
        folder.files.mkdir()
        _SwallowsWhatItRaises()  # collected at once: its interrupt is raised in __del__ and ignored
        for name in cli._OUTPUTS:
            (folder.files / name).write_text("{}")

    monkeypatch.setattr(cli, "_execute", analysis_that_finishes)
    output = tmp_path / "out"
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    as_from_a_terminal()
    try:
        status = cli.main(["report", str(ROOT / "biofair" / "data" / "example_scores.csv"), "-o", str(output), *FAST])
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        cli._silence_unwinding_noise(False)
    assert _SwallowsWhatItRaises.finished == []  # the interrupt was raised inside __del__ and swallowed
    assert status == 128 + signal.SIGINT
    assert capsys.readouterr().err == "biofair report: interrupted by SIGINT; nothing was written\n"
    assert list(tmp_path.iterdir()) == []


def test_without_the_report_extra_the_notebook_layout_is_refused_in_one_line(unread, tmp_path, run_main, monkeypatch):
    """`pip install biofair` without [report]: the run failed with a ModuleNotFoundError
    traceback after it had claimed OUTDIR."""
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(cli.importlib.util, "find_spec",
                        lambda name, *args: None if name in ("papermill", "myst_nb") else real_find_spec(name, *args))
    status, lines = run_main(unread, "-o", tmp_path / "out")
    assert (status, lines) == (2, ["biofair report: error: the notebook report needs packages that are not installed "
                                   "(papermill, myst_nb): pip install 'biofair[report]', or use --layout differential, "
                                   "which needs none of them"])
    assert list(tmp_path.iterdir()) == [unread]


def test_the_report_modules_are_the_report_extra():
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["report"]
    assert sorted(cli._REPORT_MODULES) == sorted(re.split(r"[<>=\[]", r)[0].replace("-", "_") for r in extra)
