"""The report's files are on the disk (fsync) before their names appear in OUTDIR.

ext4 and XFS may commit a rename before the data of the file it names: a crash or power cut
just after ``biofair report`` printed "wrote ..." could leave OUTDIR with an empty
summary.json under its final name, where the command promises OUTDIR absent or complete. No
output was ever flushed. Each output, and the folder that lists them, is now fsynced before
the rename; a disk that reports its failure only then (NFS, a quota) fails the run, and
nothing is published.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from biofair import cli
from hostile import EXAMPLE


def quick_outputs(args, folder):
    """The notebook's work, done instantly: the three outputs in the work folder."""
    folder.files.mkdir()
    for name in cli._OUTPUTS:
        (folder.files / name).write_text("{}")


@pytest.mark.parametrize("existing", [False, True])
def test_every_output_is_flushed_before_it_is_published(existing, tmp_path, run_main, monkeypatch):
    monkeypatch.setattr(cli, "_execute", quick_outputs)
    out = tmp_path / "out"
    if existing:
        out.mkdir()
    events = []
    fsync, rename, link = os.fsync, os.rename, os.link

    def recorded_fsync(descriptor):
        events.append(("fsync", os.fstat(descriptor).st_ino))
        fsync(descriptor)

    def recorded(name, function):
        def move(source, target):
            if Path(target) == out or (Path(target).parent == out and Path(target).name in cli._OUTPUTS):
                events.append((name, os.stat(source).st_ino))
            function(source, target)
        return move

    monkeypatch.setattr(cli.os, "fsync", recorded_fsync)
    monkeypatch.setattr(cli.os, "rename", recorded("publish", rename))
    monkeypatch.setattr(cli.os, "link", recorded("publish", link))
    status, lines = run_main(EXAMPLE, "-o", out)
    assert status == 0, lines
    published = {path.stat().st_ino for path in out.iterdir()} | ({out.stat().st_ino} if not existing else set())
    flushed = {inode for kind, inode in events if kind == "fsync"}
    assert published <= flushed, (published, events)
    first_publish = next(i for i, (kind, _) in enumerate(events) if kind == "publish")
    assert all(kind == "fsync" for kind, _ in events[:first_publish]) and len(events[:first_publish]) == 4


def test_a_disk_that_fails_at_the_flush_publishes_nothing(tmp_path, run_main, monkeypatch):
    monkeypatch.setattr(cli, "_execute", quick_outputs)

    def failing(descriptor):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(cli.os, "fsync", failing)
    status, lines = run_main(EXAMPLE, "-o", tmp_path / "out")
    assert status == 1
    assert lines == ["biofair report: the analysis failed, nothing was written: the report could not be written: "
                     "[Errno 5] Input/output error"]
    assert list(tmp_path.iterdir()) == []
