"""A Parquet folder of which one file lacks the score or mated column, or names it otherwise:
refused from the files' footers before any pass, naming that file, its columns and the fix,
however the folder is read (the path, ``dd.read_parquet`` of whole files, of row groups, or
filtered). Dask gives the frame the columns of its first file, so when that file is the odd
one, renaming the frame (the advice given before) would break the others."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.exceptions import SchemaError
from hostile import three_groups

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
from biofair import partitions as bp  # noqa: E402
from biofair.partitions.census import _PASSES  # noqa: E402

pytestmark = [pytest.mark.usefixtures("dask_synchronous"),
              # Dask's reader of row groups and filtered files calls pandas' deprecated reset_index(inplace=True)
              pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")]

#: Rows per file and per row group: each file is two row groups.
ROWS, ROW_GROUP = 100, 50

#: The ways a researcher reads the folder, and the partitions each file makes.
READINGS = {
    "path": (lambda path: path, 1),
    "whole files": (lambda path: dd.read_parquet(path), 1),
    "row groups": (lambda path: dd.read_parquet(path, split_row_groups=True), 2),
    "filtered": (lambda path: dd.read_parquet(path, filters=[("group", "in", ["a", "b", "c"])]), 1),
}


def table() -> pd.DataFrame:
    return three_groups(("a", "b", "c"), 3 * ROWS)


def folder(tmp_path, changes: dict) -> list:
    """The table in three Parquet files of two row groups each, file ``i`` changed by
    ``changes[i]`` (a function of its Arrow table); the files."""
    scores = table()
    files = [tmp_path / f"part-{i}.parquet" for i in range(3)]
    for i, file in enumerate(files):
        part = pa.Table.from_pandas(scores.iloc[i * ROWS:(i + 1) * ROWS], preserve_index=False)
        pq.write_table(changes.get(i, lambda same: same)(part), file, row_group_size=ROW_GROUP)
    return files


def renamed(old: str, new: str):
    return lambda part: part.rename_columns([new if name == old else name for name in part.column_names])


def partitions(reading: str, file: int) -> str:
    per_file = READINGS[reading][1]
    numbers = [str(file * per_file + k) for k in range(per_file)]
    return f"partition{'s' if per_file > 1 else ''} {', '.join(numbers)}"


METRICS = {"census": bp.census, "eer": bp.eer}


def refused_before_any_pass(reading: str, path: str, message: str) -> None:
    """Every metric refuses the folder read as ``reading`` with ``message``, without a pass."""
    before = _PASSES[0]
    for metric in METRICS.values():
        with pytest.raises(SchemaError) as error:
            metric(READINGS[reading][0](path))
        assert str(error.value) == message
    assert _PASSES[0] == before


def in_memory_results_after(fix: str, file, reading: str, path: str) -> None:
    """After ``fix`` (the code the message gives) on ``file``, the folder gives the in-memory results."""
    exec(fix, {"pq": pq, "path": str(file)})
    scores = table()
    data = bp.partitioned(READINGS[reading][0](path))
    sizes = bf.group_sizes(scores)
    assert data.census.names == list(bf.scores_by_group(scores))
    assert data.census.n_mated.tolist() == sizes["n_mated"].tolist()
    assert data.census.n_nonmated.tolist() == sizes["n_nonmated"].tolist()
    assert bp.eer(data) == bf.eer(*bf.split_scores(scores))


@pytest.mark.parametrize("reading", READINGS)
def test_a_later_file_with_the_score_column_misnamed_is_named_before_any_pass(reading, tmp_path):
    """Before, read in row groups: "a partition lacks a column this pass reads ("['score'] not
    in index") ...", naming no file, after a pass; filtered: "partition 1: 100 NaN or infinite
    scores" after a pass; whole files: named, but only after a pass over every file."""
    files = folder(tmp_path, {1: renamed("score", "Score")})
    fix = "pq.write_table(pq.read_table(path).rename_columns({'Score': 'score'}), path)"
    refused_before_any_pass(reading, str(tmp_path), (
        f"invalid score partitions:\n- {partitions(reading, 1)}: missing column(s) score (file {files[1]}, whose "
        f"columns are 'Score', 'mated', 'group'; the first file, {files[0]}, has no 'Score': if misnamed, write "
        f"this file again with the first file's names, e.g. {fix})"))
    in_memory_results_after(fix, files[1], reading, str(tmp_path))


@pytest.mark.parametrize("reading", READINGS)
def test_a_first_file_with_the_score_column_misnamed_is_named_not_the_frame_renamed(reading, tmp_path):
    """Dask gives the frame the first file's 'Score'. Before: "missing column(s): score (the
    table has 'Score' ...; rename them, e.g. dd.read_parquet(path).rename(columns={'Score':
    'score'}))", a renaming that breaks the two files that have 'score' (the pass then fails
    on "['Score'] not in index", naming no file)."""
    files = folder(tmp_path, {0: renamed("score", "Score")})
    with pytest.raises(KeyError, match="Score"):  # the advice given before, followed
        dd.read_parquet(str(tmp_path)).rename(columns={"Score": "score"}).compute()
    fix = "pq.write_table(pq.read_table(path).rename_columns({'Score': 'score'}), path)"
    refused_before_any_pass(reading, str(tmp_path), (
        f"invalid score partitions:\n- {partitions(reading, 0)}: missing column(s) score (file {files[0]}, whose "
        f"columns are 'Score', 'mated', 'group'; {files[1]} has 'score' and no 'Score': if misnamed, write this "
        f"file again with that file's names, e.g. {fix})"))
    in_memory_results_after(fix, files[0], reading, str(tmp_path))


@pytest.mark.parametrize("odd", [0, 2], ids=["first file", "last file"])
@pytest.mark.parametrize("column", ["score", "mated"])
@pytest.mark.parametrize("reading", READINGS)
def test_a_file_without_a_required_column_is_named_before_any_pass(reading, column, odd, tmp_path):
    """Before: the first file without score gave "missing column(s): score (the table has
    'mated', 'group'; map its names to biofair's ...)", as if no file had it; a later file
    without mated, read in row groups, "a partition lacks a column ...", naming no file."""
    files = folder(tmp_path, {odd: lambda part: part.drop_columns([column])})
    rest = ", ".join(repr(name) for name in ("score", "mated", "group") if name != column)
    refused_before_any_pass(reading, str(tmp_path), (
        f"invalid score partitions:\n- {partitions(reading, odd)}: missing column(s) {column} (file {files[odd]}, "
        f"whose columns are {rest}: write every column in every file)"))


def test_files_that_each_lack_another_column_are_all_named(tmp_path):
    """No file has both columns' names right: each is named, with what it lacks, and none is
    given another's names to copy."""
    without = {column: lambda part, column=column: part.drop_columns([column]) for column in ("score", "mated")}
    files = folder(tmp_path, {0: without["score"], 1: without["mated"], 2: without["score"]})
    refused_before_any_pass("row groups", str(tmp_path), (
        "invalid score partitions:\n"
        f"- partitions 0, 1: missing column(s) score (file {files[0]}, whose columns are 'mated', 'group': write "
        "every column in every file)\n"
        f"- partitions 2, 3: missing column(s) mated (file {files[1]}, whose columns are 'score', 'group': write "
        "every column in every file)\n"
        f"- partitions 4, 5: missing column(s) score (file {files[2]}, whose columns are 'mated', 'group': write "
        "every column in every file)"))


def test_files_that_all_name_the_score_column_alike_are_renamed_on_the_frame(tmp_path):
    """When every file has 'Score', renaming the frame is the fix, and it is still the one given."""
    folder(tmp_path, dict.fromkeys(range(3), renamed("score", "Score")))
    frame = dd.read_parquet(str(tmp_path), split_row_groups=True)
    with pytest.raises(SchemaError, match=r"^missing column\(s\): score \(the table has 'Score': .* e\.g\. "
                                          r"dd\.read_parquet\(path\)\.rename\(columns=\{'Score': 'score'\}\)\)$"):
        bp.eer(frame)
    assert bp.eer(frame.rename(columns={"Score": "score"})) == bf.eer(*bf.split_scores(table()))
    np.testing.assert_array_equal(bp.census(frame.rename(columns={"Score": "score"})).n_mated,
                                  bf.group_sizes(table())["n_mated"].to_numpy())


# -- under hive-style folders (group=a/): the folder names give the group, the footers the rest -----

def hive_folder(tmp_path, changes: dict) -> list:
    """The table under hive-style folders, ``group=a/part-0.parquet`` and so on, each file the
    rows of its group without the group column (its folder's name gives it), in two row
    groups, file ``i`` changed by ``changes[i]``; the files."""
    files = []
    for i, (label, rows) in enumerate(table().groupby("group")):
        file = tmp_path / f"group={label}" / "part-0.parquet"
        file.parent.mkdir()
        part = pa.Table.from_pandas(rows.drop(columns="group"), preserve_index=False)
        pq.write_table(changes.get(i, lambda same: same)(part), file, row_group_size=ROW_GROUP)
        files.append(file)
    return files


@pytest.mark.parametrize("odd", [0, 2], ids=["first file", "last file"])
@pytest.mark.parametrize("reading", READINGS)
def test_a_file_with_the_score_column_misnamed_under_hive_folders_is_named_before_any_pass(reading, odd, tmp_path):
    """Before: the last file's 'Score' was read as missing values ("partition 2: 100 NaN or
    infinite scores in column 'score'") after a pass; the first file's gave the frame 'Score',
    and the advice to rename the frame, which breaks the other files. The group, which only
    the folder names hold, is no column a file lacks."""
    files = hive_folder(tmp_path, {odd: renamed("score", "Score")})
    fix = "pq.write_table(pq.read_table(path).rename_columns({'Score': 'score'}), path)"
    like = (f"{files[1]} has 'score' and no 'Score': if misnamed, write this file again with that file's names" if odd == 0
            else f"the first file, {files[0]}, has no 'Score': if misnamed, write this file again with the first file's names")
    refused_before_any_pass(reading, str(tmp_path), (
        f"invalid score partitions:\n- {partitions(reading, odd)}: missing column(s) score (file {files[odd]}, whose "
        f"columns are 'Score', 'mated'; {like}, e.g. {fix})"))
    in_memory_results_after(fix, files[odd], reading, str(tmp_path))


# -- a group column that a later file lacks, read by Dask's own tasks ------------------------------

def test_a_later_file_with_the_group_column_misnamed_is_named_before_any_pass(tmp_path):
    """Before, in row groups: "a partition lacks a column this pass reads ("['group'] not in
    index") ...", naming no file, after a pass. (Files read whole are named by the census's
    pass, in the same words; filtered on the group, Dask's plan fails on the file without it.)"""
    reading = "row groups"
    files = folder(tmp_path, {1: renamed("group", "Group")})
    fix = "pq.write_table(pq.read_table(path).rename_columns({'Group': 'group'}), path)"
    before = _PASSES[0]
    for call in (bp.census, bp.partitioned):
        with pytest.raises(SchemaError) as error:
            call(READINGS[reading][0](str(tmp_path)))
        assert str(error.value) == (
            f"invalid score partitions:\n- {partitions(reading, 1)}: missing column(s) group (file {files[1]}, whose "
            f"columns are 'score', 'mated', 'Group'; the first file, {files[0]}, has no 'Group': if misnamed, write "
            f"this file again with the first file's names, e.g. {fix})")
    assert _PASSES[0] == before
    in_memory_results_after(fix, files[1], reading, str(tmp_path))


def with_subjects(scores: pd.DataFrame) -> pd.DataFrame:
    """``scores`` with subject ids on both sides: equal where mated, as ``mated`` says."""
    reference = np.arange(len(scores)) % 30
    probe = np.where(scores["mated"], reference, (reference + 1) % 30)
    return scores.assign(reference_subject=[f"s{i}" for i in reference], probe_subject=[f"s{i}" for i in probe])


@pytest.mark.parametrize("reading", ["whole files", "row groups", "filtered"])
def test_a_later_file_without_the_subject_columns_is_named_before_any_pass(reading, tmp_path):
    """The subject columns are read where the data have them (mated must say whether the
    subjects are equal). Before, in row groups: "a partition lacks a column this pass reads
    ("['reference_subject', 'probe_subject'] not in index") ...", naming no file, after a pass;
    read whole, that file's mated labels went unchecked against its subjects, without a word."""
    scores = with_subjects(table())
    files = [tmp_path / f"part-{i}.parquet" for i in range(3)]
    for i, file in enumerate(files):
        part = scores.iloc[i * ROWS:(i + 1) * ROWS]
        pq.write_table(pa.Table.from_pandas(part.drop(columns=list(scores.columns[3:]) if i == 1 else []),
                                            preserve_index=False), file, row_group_size=ROW_GROUP)
    before = _PASSES[0]
    for metric in METRICS.values():
        with pytest.raises(SchemaError) as error:
            metric(READINGS[reading][0](str(tmp_path)))
        assert str(error.value) == (
            f"invalid score partitions:\n- {partitions(reading, 1)}: missing column(s) reference_subject, "
            f"probe_subject (file {files[1]}, whose columns are 'score', 'mated', 'group': write every column in "
            "every file)")
    assert _PASSES[0] == before
    # the fix given: the file written again with every column
    pq.write_table(pa.Table.from_pandas(scores.iloc[ROWS:2 * ROWS], preserve_index=False), files[1],
                   row_group_size=ROW_GROUP)
    data = bp.partitioned(READINGS[reading][0](str(tmp_path)))
    assert data.census.n_mated.tolist() == bf.group_sizes(scores)["n_mated"].tolist()
    assert bp.eer(data) == bf.eer(*bf.split_scores(scores))


# -- every file without 'score', each naming it its own way ----------------------------------------

@pytest.mark.parametrize("reading", READINGS)
def test_files_that_name_the_score_column_each_their_own_way_are_each_given_their_renaming(reading, tmp_path):
    """No file has 'score'; the first has 'Score', the second 'SCORE'. Before: "missing
    column(s): score (the table has 'Score': ... e.g. dd.read_parquet(path).rename(columns=
    {'Score': 'score'}))", the first file's name given to the frame, with which the second
    file failed in the pass ("['Score'] not in index"), naming no file."""
    files = folder(tmp_path, {0: renamed("score", "Score"), 1: renamed("score", "SCORE"), 2: renamed("score", "Score")})
    with pytest.raises(KeyError, match="Score"):  # the advice given before, followed
        dd.read_parquet(str(tmp_path)).rename(columns={"Score": "score"}).compute()
    fixes = {name: f"pq.write_table(pq.read_table(path).rename_columns({{{name!r}: 'score'}}), path)"
             for name in ("Score", "SCORE")}
    refused_before_any_pass(reading, str(tmp_path), "invalid score partitions:" + "".join(
        f"\n- {partitions(reading, i)}: missing column(s) score (file {files[i]}, whose columns are {name!r}, 'mated', "
        "'group'; no file has 'score', and the files name it 'Score', 'SCORE': no renaming of the frame fits them "
        f"all, write this file again with its own names, e.g. {fixes[name]})"
        for i, name in enumerate(["Score", "SCORE", "Score"])))
    for file, name in zip(files, ["Score", "SCORE", "Score"]):
        exec(fixes[name], {"pq": pq, "path": str(file)})
    in_memory_results_after("", files[0], reading, str(tmp_path))
