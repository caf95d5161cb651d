"""A score or subject file whose path is not UTF-8 is refused as the options are parsed.

The report writes the file's path into report.ipynb, report.html and its JSON, which hold
UTF-8 text only. A path of other bytes (kept by Python as surrogates, ``\\udcff``) was read
and analysed, then failed as the outputs were written: the standard layout with exit 1 and
"UnicodeEncodeError: 'utf-8' codec can't encode character '\\udcff' ... surrogates not
allowed", the differential layout with a traceback. OUTDIR was already refused so.
"""

from __future__ import annotations

import os
import shutil

import pytest

from hostile import EXAMPLE, FAST, FAST_DIFFERENTIAL


@pytest.fixture
def not_utf8(tmp_path):
    """The example under a name holding the byte 0xff (Latin-1 'ÿ'), which UTF-8 cannot read."""
    path = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"scores-\xff.csv"))
    shutil.copy(EXAMPLE, path)
    return path


@pytest.mark.parametrize("layout", [["--layout", "standard", *FAST], ["--layout", "differential", *FAST_DIFFERENTIAL]])
@pytest.mark.parametrize("role", ["scores", "--subjects", "a link to it"])
def test_a_file_path_that_is_not_utf8_exits_2_before_anything_is_read(role, layout, not_utf8, tmp_path, run_main,
                                                                       monkeypatch):
    from biofair import cli

    def never(*args, **kwargs):
        raise AssertionError("the file must not be read")

    monkeypatch.setattr(cli, "_check_analysis", never)
    monkeypatch.setattr(cli, "_differential_analysis", never)
    given = not_utf8
    if role == "a link to it":  # the report names the file by its real path
        given = tmp_path / "link.csv"
        given.symlink_to(not_utf8)
    files = [EXAMPLE, "--subjects", given] if role == "--subjects" else [given]
    status, lines = run_main(*files, "-o", tmp_path / "out", *layout)
    assert status == 2, lines
    argument = "--subjects" if role == "--subjects" else "scores"
    led = f" (where {str(given)!r} leads)" if role == "a link to it" else ""
    assert lines[-1] == (
        f"biofair report: error: argument {argument}: {not_utf8!r}{led} is not UTF-8 text (\\udcXX stands for a byte "
        "that is not): the report writes its file's path into its pages and JSON; give a file whose path is UTF-8 "
        "(rename it, or give a copy)"
    )
    assert not (tmp_path / "out").exists()


def test_an_outdir_reached_through_a_link_to_a_folder_that_is_not_utf8_exits_2(tmp_path, run_main):
    """The report names OUTDIR by the real path of its parent: a UTF-8 name under a link to a
    folder of other bytes is that folder's path."""
    target = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"reports-\xff"))
    os.mkdir(target)
    (tmp_path / "reports").symlink_to(target)
    status, lines = run_main(EXAMPLE, "-o", tmp_path / "reports" / "out", *FAST)
    assert status == 2, lines
    assert lines[-1].startswith(f"biofair report: error: argument -o/--output: {os.path.join(target, 'out')!r} "
                                f"(where {str(tmp_path / 'reports' / 'out')!r} leads) is not UTF-8 text")
    assert lines[-1].endswith("; give a folder whose path is UTF-8")
    assert os.listdir(target) == []
