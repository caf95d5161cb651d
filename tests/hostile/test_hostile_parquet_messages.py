"""Error messages of the out-of-core path for Parquet folders nobody cleaned: each names the
file, the column and the types or names involved, and says what to do (a hostile-Parquet
audit found four that did not). The repaired folder then gives the in-memory results."""

from __future__ import annotations

import re

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

#: Dask's reader of hive-style folders and row groups calls pandas' deprecated reset_index(inplace=True).
DASKS_RESET_INDEX = "ignore:The inplace keyword in DataFrame.reset_index"

pytestmark = pytest.mark.usefixtures("dask_synchronous")


def table() -> pd.DataFrame:
    """Three groups, '0', '1' and '2', with mated and non-mated scores (ties)."""
    return three_groups(("0", "1", "2"))


def write(part: pd.DataFrame, file, **types) -> None:
    """``part`` as a Parquet file, each column converted from its Python values (NaN stays NaN,
    None is null) to the Arrow type of ``types`` given for it ("dictionary": encoded) or
    inferred, without pandas' metadata."""
    columns = {}
    for column in part.columns:
        given = types.get(column)
        values = pa.array(part[column].tolist(), type=None if given in (None, "dictionary") else given)
        columns[column] = values.dictionary_encode() if given == "dictionary" else values
    file.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns), file)


def chunks(scores: pd.DataFrame, n: int) -> list[pd.DataFrame]:
    return [scores.iloc[rows] for rows in np.array_split(np.arange(len(scores)), n)]


def sizes_in_memory(scores: pd.DataFrame) -> tuple[list[str], dict[str, tuple[int, int]]]:
    """The groups in the order of ``scores_by_group``, and each one's mated and non-mated counts."""
    found = bf.group_sizes(scores)
    return list(bf.scores_by_group(scores)), {name: (row.n_mated, row.n_nonmated) for name, row in found.iterrows()}


def sizes_out_of_core(data: bp.Partitioned) -> tuple[list[str], dict[str, tuple[int, int]]]:
    census = data.census
    return census.names, {name: (m, n) for name, m, n in zip(census.names, census.n_mated, census.n_nonmated)}


# -- 1. a group column of integers in one file, of text in the others ---------------------------

@pytest.mark.filterwarnings(DASKS_RESET_INDEX)
@pytest.mark.parametrize("layout", ["one folder", "hive folders"])
@pytest.mark.parametrize("later", ["0, 1, 2", "a, b, c"], ids=["the same labels as text", "other labels"])
def test_group_labels_of_two_types_name_a_file_of_each_and_the_fix(tmp_path, layout, later):
    """Before, in one folder: "column(s) ['group'] hold distinct labels that read the same: 0
    (int), '0' (str); store the labels as text (biofair.read_scores reads them as written)",
    naming no file and advising the in-memory reader, or, for other labels, six groups; under
    hive folders (site=0/ ...), where Dask reads every file as the first one's type, three
    groups without a word (0 and '0' merged), or ``ArrowInvalid: Failed to parse string: 'c'
    as a scalar of type int64``, naming no file."""
    scores = table()
    labels = {"0, 1, 2": ["0", "1", "2"], "a, b, c": ["a", "b", "c"]}[later]
    files = [tmp_path / (f"site={i}/part-0.parquet" if layout == "hive folders" else f"part-{i}.parquet")
             for i in range(3)]
    for i, (part, file) in enumerate(zip(chunks(scores, 3), files)):
        if i == 0:
            write(part.astype({"group": int}), file)
        else:
            write(part.assign(group=part["group"].map(dict(zip("012", labels)))), file)
    with pytest.raises(SchemaError) as error:
        bp.partitioned(str(tmp_path))
    assert str(error.value) == (
        f"group column 'group' is stored with different types in the Parquet files: int64 in 1 file ({files[0]}); "
        f"string in 2 files ({files[1]}, {files[2]}). Whether labels such as 1 and '1' make one group or two "
        "would depend on how the files are read: write the column with one type in every file, as text (e.g. "
        "table.astype({'group': str}).to_parquet(file))")
    write(chunks(scores, 3)[0], files[0])  # the fix the message gives: text in every file
    repaired = pd.concat([pq.read_table(file).to_pandas() for file in files], ignore_index=True)
    assert sizes_out_of_core(bp.partitioned(str(tmp_path))) == sizes_in_memory(repaired)


def test_group_labels_of_one_kind_in_two_widths_are_read_as_in_memory(tmp_path):
    """int32 in one file, int64 and dictionary-encoded int64 in others: one kind of labels, no error."""
    scores = table().astype({"group": int})
    for i, part in enumerate(chunks(scores, 3)):
        write(part, tmp_path / f"part-{i}.parquet", group=[pa.int32(), pa.int64(), "dictionary"][i])
    assert sizes_out_of_core(bp.partitioned(str(tmp_path))) == sizes_in_memory(scores)


# -- 2. NaN or null scores in a hive-partitioned folder -----------------------------------------

@pytest.mark.filterwarnings(DASKS_RESET_INDEX)
@pytest.mark.parametrize("missing", [np.nan, None], ids=["NaN", "null"])
def test_nan_scores_in_a_hive_folder_name_their_file(tmp_path, missing):
    """Before: "partition 1: 2 NaN or infinite scores in column 'score'", naming no file: the
    files under group=0/ ... are read by Dask's own tasks, not one by one."""
    scores = table()
    broken = scores.astype({"score": object})
    broken.loc[[4, 7], "score"] = missing  # rows of group 1
    for label, part in broken.groupby("group"):
        write(part.drop(columns="group"), tmp_path / f"group={label}" / "part-0.parquet", score=pa.float64())
    assert pq.read_table(tmp_path / "group=1" / "part-0.parquet")["score"].null_count == (2 if missing is None else 0)
    with pytest.raises(SchemaError) as error:
        bp.partitioned(str(tmp_path))
    assert str(error.value) == ("invalid score partitions:\n- partition 1: column 'score' has 2 NaN and 0 infinite values "
                                f"(file {tmp_path / 'group=1' / 'part-0.parquet'})")
    write(scores[scores["group"] == "1"].drop(columns="group"), tmp_path / "group=1" / "part-0.parquet")
    assert sizes_out_of_core(bp.partitioned(str(tmp_path))) == sizes_in_memory(scores)


# -- 3. a column misnamed in a later file ---------------------------------------------------------

def test_a_column_misnamed_in_a_later_file_is_named_with_its_columns_and_the_renaming(tmp_path):
    """Before: "partition 7: missing column(s) score (file .../part-7.parquet)", with no word
    of its column 'scores'. Renaming the frame (``dd.read_parquet(path).rename(...)``) would
    rename the first file's columns: that file must be written again."""
    scores = table()
    files = [tmp_path / f"part-{i}.parquet" for i in range(8)]
    for i, (part, file) in enumerate(zip(chunks(scores, 8), files)):
        write(part.rename(columns={"score": "scores"}) if i == 7 else part, file)
    renaming = "pq.write_table(pq.read_table(path).rename_columns({'scores': 'score'}), path)"
    message = (f"invalid score partitions:\n- partition 7: missing column(s) score (file {files[7]}, whose columns are "
               f"'scores', 'mated', 'group'; the first file, {files[0]}, has no 'scores': if misnamed, write this file "
               f"again with the first file's names, e.g. {renaming})")
    for call in (bp.partitioned, bp.eer):
        with pytest.raises(SchemaError) as error:
            call(str(tmp_path))
        assert str(error.value) == message
    path = str(files[7])
    exec(renaming, {"pq": pq, "path": path})  # the renaming the message gives, as given
    assert sizes_out_of_core(bp.partitioned(str(tmp_path))) == sizes_in_memory(scores)


@pytest.mark.filterwarnings(DASKS_RESET_INDEX)
def test_a_column_misnamed_in_a_hive_folder_is_named_not_only_counted_as_nan(tmp_path):
    """Before: "partition 5: 33 NaN or infinite scores in column 'score'": Dask's reader of
    hive folders gives a column a file lacks as missing values, and no file was named."""
    scores = table()
    files = [tmp_path / f"group={label}" / f"part-{i}.parquet" for label in "012" for i in range(2)]
    parts = [part for _, rows in scores.groupby("group") for part in chunks(rows.drop(columns="group"), 2)]
    for i, (part, file) in enumerate(zip(parts, files)):
        write(part.rename(columns={"score": "scores"}) if i == 5 else part, file)
    with pytest.raises(SchemaError) as error:
        bp.partitioned(str(tmp_path))
    assert str(error.value) == (
        f"invalid score partitions:\n- partition 5: missing column(s) score (file {files[5]}, whose columns are "
        f"'scores', 'mated'; the first file, {files[0]}, has no 'scores': if misnamed, write this file again with the "
        "first file's names, e.g. pq.write_table(pq.read_table(path).rename_columns({'scores': 'score'}), path))")


# -- 4. a hive folder key that the files also hold as a column ------------------------------------

@pytest.mark.filterwarnings(DASKS_RESET_INDEX)
@pytest.mark.parametrize("path", ["{root}", "{root}/*/*.parquet"], ids=["folder", "glob"])
def test_a_folder_key_that_the_files_also_hold_is_named(tmp_path, path):
    """Before: "... cannot be read as Parquet: ... Unable to merge: Field group has
    incompatible types: large_string vs string", Dask's words, naming no file or folder."""
    scores = table()
    for label, part in scores.groupby("group"):
        write(part, tmp_path / f"group={label}" / "part-0.parquet")
    with pytest.raises(SchemaError) as error:
        bp.partitioned(path.format(root=tmp_path))
    assert str(error.value) == (
        f"column 'group' is both in the Parquet files (e.g. {tmp_path / 'group=0' / 'part-0.parquet'}) and in the "
        "name of a folder above them (group=0/, hive style, which Dask reads as a column), and Dask cannot read it "
        "twice. Drop the column from the files (the folder names give it), or rename the folders without 'group='")
    for label, part in scores.groupby("group"):  # the first fix the message gives
        write(part.drop(columns="group"), tmp_path / f"group={label}" / "part-0.parquet")
    assert sizes_out_of_core(bp.partitioned(path.format(root=tmp_path))) == sizes_in_memory(scores)


def test_a_folder_named_like_a_column_without_a_key_is_no_folder_key(tmp_path):
    """Only a folder name with '=' is a key: files under a folder named score/ are read."""
    scores = table()
    for i, part in enumerate(chunks(scores, 2)):
        write(part, tmp_path / "score" / f"part-{i}.parquet")
    assert sizes_out_of_core(bp.partitioned(str(tmp_path / "score"))) == sizes_in_memory(scores)


@pytest.mark.filterwarnings(DASKS_RESET_INDEX)
def test_a_key_in_a_folder_above_the_one_given_is_named(tmp_path):
    """Dask reads key=value from every folder of a file's path, the given folder's parents too."""
    scores = table()
    folder = tmp_path / "group=all" / "scores"
    for i, part in enumerate(chunks(scores, 2)):
        write(part, folder / f"part-{i}.parquet")
    with pytest.raises(SchemaError, match=re.escape(f"column 'group' is both in the Parquet files (e.g. "
                                                    f"{folder / 'part-0.parquet'}) and in the name of a folder above "
                                                    "them (group=all/, hive style")):
        bp.partitioned(str(folder))


# -- 5. blank group labels --------------------------------------------------------------------------

@pytest.mark.parametrize("blank", ["", "  "], ids=["empty", "spaces"])
def test_blank_group_labels_are_refused_as_in_memory(tmp_path, blank):
    """A group labelled "" or "  " made a group of that name out of core while the in-memory
    functions refuse blank labels as missing: refused naming the partition, its file and the
    count; an unused "" category names no row and is no problem."""
    scores = table()
    broken = scores.assign(group=scores["group"].replace("2", blank))
    for i, part in enumerate(chunks(broken, 2)):
        write(part, tmp_path / f"part-{i}.parquet")
    with pytest.raises(SchemaError, match="missing group labels"):
        bf.group_sizes(broken)
    with pytest.raises(SchemaError) as error:
        bp.partitioned(str(tmp_path))
    blank_rows = [int(part["group"].eq(blank).sum()) for part in chunks(broken, 2)]
    assert str(error.value) == "invalid score partitions:\n" + "\n".join(
        f"- partition {i}: column 'group' has {rows:,} blank label{'s' * (rows != 1)} (empty or white space only), "
        "which name no group, "
        f"as missing labels do; give them a label (e.g. 'unknown') and write the file again "
        f"(file {tmp_path / f'part-{i}.parquet'})" for i, rows in enumerate(blank_rows))
    unused = scores.assign(group=pd.Categorical(scores["group"], categories=["0", "1", "2", ""]))
    for i, part in enumerate(chunks(unused, 2)):
        part.to_parquet(tmp_path / f"part-{i}.parquet")
    assert sizes_out_of_core(bp.partitioned(str(tmp_path))) == sizes_in_memory(scores)


def test_partitions_that_store_labels_differently_are_counted_by_type():
    """A Dask frame (not files) whose partitions hold the same labels as int, float and bool:
    each type with the partitions that store it, the count in the noun ("partition(s) 1, 2"
    before)."""
    parts = [table().head(12).assign(group=labels) for labels in
             ([1, 2] * 6, [1.0, 2.0] * 6, [1.0, 2.0] * 6, [True, False] * 6)]
    frame = dd.from_delayed([dask.delayed(part.copy)() for part in parts], meta=parts[0], verify_meta=False)
    with pytest.raises(SchemaError, match="^" + re.escape(
            "column(s) ['group'] hold equal labels written differently (one reads '1.0'): int64 in partition 0; "
            "float64 in partitions 1, 2; bool in partition 3; store the labels as text") + "$"):
        bp.census(frame)
