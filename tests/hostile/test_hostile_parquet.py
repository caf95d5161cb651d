"""Hostile Parquet files on the out-of-core path: files written by someone else, whose schemas
differ from file to file. Each case gives the in-memory result on the same rows, or fails
naming the partition, its file, the column and the problem (as the in-memory check words it)."""

from __future__ import annotations

import decimal
import re
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf
from biofair.exceptions import SchemaError
from hostile import three_groups
from memory import peak_memory

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
from biofair import partitions as bp  # noqa: E402
from biofair.groups import _pooled_threshold  # noqa: E402


pytestmark = pytest.mark.usefixtures("dask_synchronous")


def table(n: int = 300) -> pd.DataFrame:
    """Three groups, 'a', 'b' and 'c', with mated and non-mated scores (ties)."""
    return three_groups(("a", "b", "c"), n)


def files(tmp_path, change=None) -> tuple[str, list[pa.Table]]:
    """The table in three Parquet files, the second one changed by ``change`` (a function of
    its Arrow table); the glob of the files and their Arrow tables."""
    scores = table()
    tables = [pa.Table.from_pandas(scores.iloc[rows], preserve_index=False).replace_schema_metadata(None)
              for rows in np.array_split(np.arange(len(scores)), 3)]  # no pandas metadata: not written by pandas
    if change is not None:
        tables[1] = change(tables[1])
    for i, part in enumerate(tables):
        pq.write_table(part, tmp_path / f"part-{i}.parquet")
    return str(tmp_path / "part-*.parquet"), tables


def replaced(name: str, values) -> callable:
    """A change that stores column ``name`` of a file as ``values(column)`` (an Arrow array)."""
    return lambda part: part.set_column(part.schema.get_field_index(name), name, values(part.column(name)))


# -- scores that the in-memory check refuses: refused, naming the file -------------------------

REFUSED_SCORES = {
    "text": (replaced("score", lambda c: pa.array([str(x) for x in c.to_pylist()])),
             "column 'score' must be numeric, got numbers written as text (dtype str): convert it, "
             "table['score'] = pd.to_numeric(table['score'])"),
    "decimal": (replaced("score", lambda c: pa.array([decimal.Decimal(str(x)) for x in c.to_pylist()],
                                                     pa.decimal128(10, 2))),
                "column 'score' holds decimals (Python Decimal objects, dtype object), not float scores: "
                "biofair.read_scores converts a Parquet file's decimals; else score.map(float) converts them"),
    "booleans": (replaced("score", lambda c: pa.compute.greater(c, 0.0)),
                 "column 'score' holds booleans (dtype bool), not comparison scores"),
    "integers beyond 2**53": (replaced("score", lambda c: pa.array(np.arange(len(c)) + 2**60)),
                              "column 'score' has 100 integer values beyond ±2^53 (e.g. 1152921504606846976) "
                              "that float64 cannot hold exactly: distinct scores would become ties"),
}


@pytest.mark.parametrize("case", REFUSED_SCORES)
def test_scores_the_in_memory_check_refuses_are_refused_naming_the_file(case, tmp_path):
    """Before: text and decimal scores were parsed, booleans read as 0 and 1, and integers
    beyond 2**53 rounded into ties, all silently (three files of such integers gave an EER
    of 0.2617); the in-memory functions refuse each of them."""
    change, problem = REFUSED_SCORES[case]
    path, tables = files(tmp_path, change)
    with pytest.raises(SchemaError, match=re.escape(f"- {problem}")):
        bf.validate_scores(tables[1].to_pandas())  # the same words in memory
    message = f"invalid score partitions:\n- partition 1: {problem} (file {tmp_path / 'part-1.parquet'})"
    for metric in (bp.census, bp.eer, lambda p: bp.pooled_thresholds(p, [0.1]),
                   lambda p: bp.rates_by_group(p, [0.0]), bp.fairness_discrepancy_rate):
        with pytest.raises(SchemaError) as error:
            metric(path)
        assert str(error.value) == message


def test_a_file_without_a_column_of_the_first_file_is_named(tmp_path):
    """Before: ``pyarrow.lib.ArrowInvalid: No match for FieldRef.Name(group) in score: double
    ...``, which names no file; then named after a pass over every file; now from the footers,
    before any pass."""
    from biofair.partitions.census import _PASSES

    path, _ = files(tmp_path, lambda part: part.drop_columns(["group"]))
    before = _PASSES[0]
    with pytest.raises(SchemaError) as error:
        bp.fairness_discrepancy_rate(path)
    assert str(error.value) == ("invalid score partitions:\n- partition 1: missing column(s) group "
                                f"(file {tmp_path / 'part-1.parquet'}, whose columns are 'score', 'mated': write "
                                "every column in every file)")
    assert _PASSES[0] == before
    assert bp.eer(path) == bf.eer(*bf.split_scores(table()))  # the EER reads no group


# Dask's row-group reader calls reset_index(inplace=True), which pandas 3.1 deprecates: not ours.
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")
def test_a_file_without_a_column_read_in_row_groups_is_a_schema_error(tmp_path):
    """Files Dask splits into row groups (above about 512 MiB, or ``split_row_groups=True``) are
    read by Dask's own tasks, which fail on a column a later file lacks. Before: ``KeyError:
    "['group'] not in index"``; the EER, which reads no group, is unaffected."""
    path, _ = files(tmp_path, lambda part: part.drop_columns(["group"]))
    frame = dd.read_parquet(path, split_row_groups=True)
    with pytest.raises(SchemaError) as error:
        bp.census(frame)
    assert str(error.value) == (
        f"invalid score partitions:\n- partition 1: missing column(s) group (file {tmp_path / 'part-1.parquet'}, "
        "whose columns are 'score', 'mated': write every column in every file)")
    assert bp.eer(dd.read_parquet(path, split_row_groups=True)) == bf.eer(*bf.split_scores(table()))


def test_a_damaged_file_is_named(tmp_path):
    """Before: ``pyarrow.lib.ArrowInvalid: Parquet magic bytes not found in footer ...``, from
    the reader of one partition, naming no file."""
    path, _ = files(tmp_path)
    (tmp_path / "part-1.parquet").write_bytes(b"not a parquet file at all")
    for given in (path, str(tmp_path)):
        with pytest.raises(SchemaError, match=re.escape(f"{tmp_path / 'part-1.parquet'} cannot be read as Parquet (")):
            bp.census(given)


def test_a_file_with_a_damaged_data_page_is_named(tmp_path):
    """Its footer reads, its data do not. Before: ``OSError: Couldn't deserialize thrift ...
    Deserializing page header failed.``, naming no file."""
    path, _ = files(tmp_path)
    damaged = bytearray((tmp_path / "part-1.parquet").read_bytes())
    damaged[8:60] = b"\xff" * 52  # the first page header, after the magic bytes
    (tmp_path / "part-1.parquet").write_bytes(bytes(damaged))
    for metric in (bp.census, bp.roc_auc):
        with pytest.raises(SchemaError, match=re.escape(f"partition 1: {tmp_path / 'part-1.parquet'} cannot be read (")):
            metric(path)


def test_a_file_with_two_columns_of_one_name_is_named(tmp_path):
    """Before: ``ArrowInvalid: ... Can't unify schema with duplicate field names``, from Dask,
    naming no file; in memory ``read_grouped_scores`` names it."""
    path, _ = files(tmp_path, lambda part: part.append_column("group", part.column("group")))
    message = f"{tmp_path / 'part-1.parquet'} has duplicate column name(s) ['group']; every column needs its own name"
    with pytest.raises(SchemaError) as error:
        bp.census(path)
    assert str(error.value) == f"partition 1: {message}"  # found by the pass that reads it
    alone = tmp_path / "alone"  # the first file Dask plans: Dask fails, before any pass
    alone.mkdir()
    (tmp_path / "part-1.parquet").rename(alone / "part-1.parquet")
    with pytest.raises(SchemaError) as error:
        bp.census(str(alone))
    assert str(error.value) == message.replace(str(tmp_path), str(alone))


def test_a_file_without_rows_is_left_out_whatever_its_column_types(tmp_path):
    """Some writers give the columns of an empty file Arrow's null type. Before: "partition 1:
    column 'score' must be numeric, got dtype object", about a file without a score."""
    path, _ = files(tmp_path, lambda part: pa.table({"score": pa.nulls(0), "mated": pa.nulls(0),
                                                    "group": pa.nulls(0)}))
    kept = pd.concat([table().iloc[rows] for rows in np.array_split(np.arange(300), 3)[::2]])
    assert bp.eer(path) == bf.eer(*bf.split_scores(kept))
    pd.testing.assert_frame_equal(bp.fairness_discrepancy_rate(path, fmr_targets=[1e-1]),
                                  bf.fairness_discrepancy_rate(kept, fmr_targets=[1e-1]))


@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")  # Dask's reader: not ours
def test_labels_stored_as_0_and_1_are_refused_with_the_conversion(tmp_path):
    """read_scores reads 0/1 labels; out of core they are refused, and the message now says how."""
    path, _ = files(tmp_path, replaced("mated", lambda c: pa.compute.cast(c, pa.int8())))
    with pytest.raises(SchemaError, match=re.escape(
            "partition 1: column 'mated' must be boolean, got int8; its labels are 0 and 1: give "
            "dd.read_parquet(path).astype({'mated': bool})")):
        bp.census(path)
    assert bp.census(dd.read_parquet(path).astype({"mated": bool})).names == ["a", "b", "c"]


@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_a_local_scheduler_by_name_gives_the_same_results(scheduler, tmp_path):
    """Before: ``ValueError: missing port number in address 'processes'``."""
    path, _ = files(tmp_path)
    assert bp.eer(bp.partitioned(path, scheduler=scheduler)) == bf.eer(*bf.split_scores(table()))


def test_a_scheduler_that_is_neither_an_address_nor_a_name_is_refused(tmp_path):
    path, _ = files(tmp_path)
    with pytest.raises(ValueError, match="scheduler must be a Dask scheduler's address with its port"):
        bp.partitioned(path, scheduler="proc")


def test_an_address_that_is_no_dask_scheduler_fails_in_bounded_time(tmp_path, monkeypatch):
    """Before: an address of a web server (a dashboard's port, the usual slip) blocked
    ``partitioned`` for good: distributed's Client waited for a handshake that never came."""
    import http.server
    import threading
    import time

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(sys.modules["biofair.partitions.census"], "_CONNECT_SECONDS", 3)  # the module, not bp.census
    path, _ = files(tmp_path)
    start = time.perf_counter()
    try:
        with pytest.raises(OSError, match=r"^no Dask scheduler answered at 'tcp://127\.0\.0\.1:\d+' .*Give the "
                                          r"scheduler's address \(tcp://host:8786"):
            bp.partitioned(path, scheduler=f"tcp://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
    assert time.perf_counter() - start < 30


def test_a_glob_that_matches_no_file_says_so(tmp_path):
    """Before: ``SchemaError: no group column for 'group' ... (the data have [])``, and the EER
    ``partition 0: missing column(s) score, mated``: a partition that does not exist."""
    pattern = str(tmp_path / "scores-*.parquet")
    for metric in (bp.census, bp.eer):
        with pytest.raises(FileNotFoundError, match=re.escape(f"no Parquet file matches {pattern!r}")):
            metric(pattern)


def test_missing_labels_in_a_nullable_boolean_mated_column_are_counted():
    """Before: ``TypeError: boolean value of NA is ambiguous`` (``bool[pyarrow]``, as
    ``read_parquet(..., dtype_backend="pyarrow")`` gives) or ``ValueError: cannot convert to
    'bool'-dtype NumPy array with missing values`` (pandas ``boolean``), naming no partition."""
    scores = table().astype({"mated": "boolean"})
    scores.loc[[4, 250], "mated"] = pd.NA
    for dtype in ("boolean", "bool[pyarrow]"):
        with pytest.raises(SchemaError) as error:
            bp.census(dd.from_pandas(scores.astype({"mated": dtype}), npartitions=2))
        assert str(error.value) == ("invalid score partitions:\n- partition 0: column 'mated' has 1 missing value"
                                    "\n- partition 1: column 'mated' has 1 missing value")


def test_missing_labels_in_an_arrow_boolean_mated_column_are_counted(tmp_path):
    """An Arrow boolean column with nulls, which pandas reads as objects, was "column 'mated'
    must be boolean, got object" (an audit); in memory, read_scores counts them."""
    def with_nulls(part):
        labels = part.column("mated").to_pylist()
        labels[3] = labels[7] = None
        return part.set_column(part.schema.get_field_index("mated"), "mated", pa.array(labels, pa.bool_()))

    path, _ = files(tmp_path, with_nulls)
    with pytest.raises(SchemaError, match=r"^invalid score partitions:\n- partition 1: column 'mated' has 2 missing "
                                          r"values \(file .*part-1\.parquet\)$"):
        bp.census(path)


# -- schemas that differ but hold the same rows: the in-memory results -------------------------

SAME_ROWS = {
    "float32 scores in one file": replaced("score", lambda c: c.cast(pa.float32())),
    "dictionary-encoded groups in one file": replaced("group", lambda c: c.dictionary_encode()),
    "an extra column in one file": lambda part: part.append_column("quality", pa.array(np.arange(len(part)))),
    "columns in another order in one file": lambda part: part.select(["group", "mated", "score"]),
    "an empty file": lambda part: part.slice(0, 0),
}


@pytest.mark.parametrize("case", SAME_ROWS)
def test_files_whose_schemas_differ_give_the_in_memory_results(case, tmp_path):
    path, tables = files(tmp_path, SAME_ROWS[case])
    scores = pd.concat([part.to_pandas() for part in tables], ignore_index=True)
    scores["group"] = scores["group"].astype(str)
    targets = [0.1, 0.05]
    census = bp.census(path)
    sizes = bf.group_sizes(scores)
    assert census.names == ["a", "b", "c"]
    assert census.n_mated.tolist() == sizes.loc[census.names, "n_mated"].tolist()
    np.testing.assert_array_equal(bp.pooled_thresholds(path, targets),
                                  _pooled_threshold(bf.scores_by_group(scores), targets))
    pd.testing.assert_frame_equal(bp.rates_by_group(path, [0.0, 1.0]), bf.rates_by_group(scores, [0.0, 1.0]))
    pd.testing.assert_frame_equal(bp.fairness_discrepancy_rate(path, fmr_targets=targets),
                                  bf.fairness_discrepancy_rate(scores, fmr_targets=targets))
    assert bp.eer(path) == bf.eer(*bf.split_scores(scores))


def test_a_group_column_missing_from_the_first_file_names_that_file(tmp_path):
    """Before: "no group column for 'group' ... (the data have ['score', 'mated'])", though
    the other files have it: Dask takes the columns of the first file."""
    scores = table()
    for i, rows in enumerate(np.array_split(np.arange(len(scores)), 3)):
        scores.iloc[rows].drop(columns=["group"] if i == 0 else []).to_parquet(tmp_path / f"part-{i}.parquet",
                                                                                  index=False)
    with pytest.raises(SchemaError) as error:
        bp.census(str(tmp_path / "part-*.parquet"))
    assert str(error.value) == (
        "no group column for 'group': give a pair-level column of that name or both reference_group and "
        f"probe_group (the data have ['score', 'mated']); these are the columns of the first file, "
        f"{tmp_path / 'part-0.parquet'}")


def test_a_missing_group_column_names_the_attributes_the_data_have(tmp_path):
    """Before: "no group column for 'group' ... (the data have ['score', 'mated', 'gender'])",
    with no word of ``by``."""
    table().rename(columns={"group": "gender"}).to_parquet(tmp_path / "part-0.parquet", index=False)
    with pytest.raises(SchemaError, match=r"\(the data have \['score', 'mated', 'gender'\]; to compare the groups of "
                                          r"'gender', pass by='gender'\); these are the columns of the first file"):
        bp.fairness_discrepancy_rate(str(tmp_path / "part-0.parquet"))
    by_gender = bp.fairness_discrepancy_rate(str(tmp_path / "part-0.parquet"), fmr_targets=(0.1, 0.05), by="gender")
    by_group = bp.fairness_discrepancy_rate(dd.from_pandas(table(), npartitions=1), fmr_targets=(0.1, 0.05))
    np.testing.assert_array_equal(by_gender.to_numpy(), by_group.to_numpy())


def test_files_that_pandas_wrote_with_its_index_are_read_whole_and_named(tmp_path):
    """``DataFrame.to_parquet`` stores its index by default; Dask then plans an unnamed index
    (``[None]``), and the files were read by Dask's own tasks: a file without the group column
    failed with ``KeyError: "['group'] not in index"``, naming no file."""
    from biofair.partitions.census import _whole_files

    scores = table()
    for i, rows in enumerate(np.array_split(np.arange(len(scores)), 3)):
        scores.iloc[rows].drop(columns=["group"] if i == 1 else []).to_parquet(tmp_path / f"part-{i}.parquet")
    path = str(tmp_path / "part-*.parquet")
    assert _whole_files(dd.read_parquet(path)) == [str(tmp_path / f"part-{i}.parquet") for i in range(3)]
    with pytest.raises(SchemaError) as error:
        bp.census(path)
    assert str(error.value) == ("invalid score partitions:\n- partition 1: missing column(s) group "
                                f"(file {tmp_path / 'part-1.parquet'}, whose columns are 'score', 'mated': write "
                                "every column in every file)")
    assert bp.eer(path) == bf.eer(*bf.split_scores(scores))


@pytest.mark.parametrize("index", [["group"], ["system", "group"]])
def test_columns_that_pandas_stored_as_the_index_are_named(index, tmp_path):
    """``scores.set_index(["system", "group"]).to_parquet(...)``: Dask takes them out of the
    columns, so "no group column" was all a user saw, and a subject or system column stored so
    was not seen at all (two systems pooled without a word). In memory they are read."""
    scores = table().assign(system="A")
    for i, rows in enumerate(np.array_split(np.arange(len(scores)), 3)):
        scores.iloc[rows].set_index(index).to_parquet(tmp_path / f"part-{i}.parquet")
    path = str(tmp_path / "part-*.parquet")
    for call in (bp.census, bp.eer):
        with pytest.raises(SchemaError, match=re.escape(
                f"the Parquet files of {path!r} store the column(s) {index} as pandas' index (to_parquet keeps a "
                "named index), which Dask takes out of the columns: write them with the index as columns")):
            call(path)
    assert bf.read_scores(tmp_path / "part-0.parquet")[index].notna().all().all()
    plain = str(tmp_path / "plain.parquet")
    scores.to_parquet(plain)  # pandas' unnamed RangeIndex: nothing stored
    assert bp.eer(plain) == bf.eer(*bf.split_scores(scores))


# -- found by an audit of the out-of-core path (each was a wrong answer, a crash or numpy's words) --

@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")  # Dask's, reading the folder names
def test_a_hive_partitioned_folder_gives_the_in_memory_results(tmp_path):
    """``group=a/part.parquet``: the group is in the folder's name, not in the file. Each file
    was read whole and every partition refused as missing the column group."""
    scores = table()
    for label, rows in scores.groupby("group"):
        (tmp_path / f"group={label}").mkdir()
        rows.drop(columns="group").to_parquet(tmp_path / f"group={label}" / "part.parquet", index=False)
    targets = [0.1, 0.05]
    assert bp.census(str(tmp_path)).names == ["a", "b", "c"]
    pd.testing.assert_frame_equal(bp.fairness_discrepancy_rate(str(tmp_path), fmr_targets=targets),
                                  bf.fairness_discrepancy_rate(scores, fmr_targets=targets))
    pd.testing.assert_frame_equal(bp.rates_by_group(str(tmp_path), [0.0, 1.0]), bf.rates_by_group(scores, [0.0, 1.0]))


@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")  # Dask's, reading the folder names
@pytest.mark.parametrize(("first", "others"), [("float32", "float64"), ("int64", "float64"), ("float64", "float32")])
def test_hive_folders_whose_score_types_differ_are_refused_unless_none_is_narrowed(first, others, tmp_path):
    """Dask reads the files under hive-style folders with the first one's score type: float32
    there rounded the float64 scores of the others without a word (EER 0.22532 for 0.22373 in
    memory), int64 failed with Arrow's "Float value ... was truncated", naming no file. After
    float64, every type converts exactly and the results are the in-memory ones."""
    scores = table().assign(score=lambda t: t["score"] + 0.001)  # not a float32, not an integer
    read = []
    for label, rows in scores.groupby("group"):
        (tmp_path / f"group={label}").mkdir()
        rows = rows.drop(columns="group").astype({"score": first if label == "a" else others})
        if rows["score"].dtype.kind == "i":
            continue  # written below, from rounded scores
        rows.to_parquet(tmp_path / f"group={label}" / "part.parquet", index=False)
        read.append(pd.read_parquet(tmp_path / f"group={label}" / "part.parquet").assign(group=label))
    if first == "int64":
        rows = scores[scores["group"] == "a"].drop(columns="group").assign(score=lambda t: np.round(t["score"]))
        rows.astype({"score": "int64"}).to_parquet(tmp_path / "group=a" / "part.parquet", index=False)
    if first == "float64":  # float32 scores after float64 ones: read exactly, as in memory
        whole = pd.concat(read, ignore_index=True)
        assert bp.eer(str(tmp_path)) == bf.eer(*bf.split_scores(whole))
        pd.testing.assert_frame_equal(bp.fairness_discrepancy_rate(str(tmp_path), fmr_targets=[0.1]),
                                      bf.fairness_discrepancy_rate(whole, fmr_targets=[0.1]))
        return
    for function in (bp.census, bp.eer):
        with pytest.raises(SchemaError, match=re.escape(
                f"column 'score' is stored with different types in the Parquet files: "
                f"{'float' if first == 'float32' else first} in 1 file (") + ".*group=a.*" + re.escape(
                "; double in 2 files (") + ".*" + re.escape(
                f"Dask reads the files of hive-style folders (column=value/) with the type of the first one, {first}")):
            function(str(tmp_path))


@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")  # Dask's, reading the folder names
def test_hive_folders_of_decimal_scores_after_float64_ones_are_refused(tmp_path):
    """Files read alone refuse decimal scores (Arrow's cast to float64 rounds some an ulp off);
    under hive-style folders after a float64 file, Dask cast them without a word."""
    scores = table()
    for label, rows in scores.groupby("group"):
        (tmp_path / f"group={label}").mkdir()
        written = pa.Table.from_pandas(rows.drop(columns="group"), preserve_index=False)
        if label != "a":
            written = written.set_column(0, "score", written["score"].cast(pa.decimal128(12, 6)))
        pq.write_table(written, tmp_path / f"group={label}" / "part.parquet")
    with pytest.raises(SchemaError, match=re.escape(
            "column 'score' is stored with different types in the Parquet files: double in 1 file (") + ".*" + re.escape(
            "; decimal128(12, 6) in 2 files (")):
        bp.census(str(tmp_path))


@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")  # Dask's, reading the folder names
def test_hive_folders_whose_mated_types_differ_are_refused(tmp_path):
    """Booleans in the first file under hive-style folders, 0/1/2 in the others: Dask read the
    others as booleans, so group c counted 253 mated comparisons for its 250 (its 2s read as
    mated) without a word, where each file read alone refuses the labels."""
    scores = table(3000)
    for label, rows in scores.groupby("group"):
        (tmp_path / f"group={label}").mkdir()
        rows = rows.drop(columns="group")
        if label != "a":
            rows = rows.astype({"mated": "int8"})
            rows.loc[rows.index[~rows["mated"].astype(bool)][:3 if label == "c" else 0], "mated"] = 2
        rows.to_parquet(tmp_path / f"group={label}" / "part.parquet", index=False)
    with pytest.raises(SchemaError, match=re.escape(
            "column 'mated' is stored with different types in the Parquet files: bool in 1 file (") + ".*" + re.escape(
            "; int8 in 2 files (") + ".*" + re.escape(
            "with the type of the first one, bool, which would read every non-zero label of the others as mated "
            "(True), without a word: write the column as booleans in every file")):
        bp.census(str(tmp_path))


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_scores_spanning_more_than_the_largest_float_are_binned_at_half_scale():
    """-1e308 and 1e308 in one set: the bins' arithmetic overflowed and the DFI and the ROC AUC
    failed with ``IndexError: index -9223372036854775808``."""
    scores = table()
    scores.loc[[0, 1], "score"] = [-1e308, 1e308]
    frame = dd.from_pandas(scores, npartitions=2)
    with pytest.warns(bf.CoarseHistogramWarning) as caught:  # the two squeeze every other score into one bin
        for combine in ("pooled", "equal"):
            here, there = bp.distribution_fairness_index(frame, combine=combine), bf.distribution_fairness_index(scores, combine=combine)
            assert (here.normal, here.extreme) == (there.normal, there.extreme)
        for kind in ("mated", "nonmated"):
            assert bp.comprehensive_equity_index(frame, kind=kind).normal == bf.comprehensive_equity_index(scores, kind=kind).normal
    assert sum(str(w.message).startswith("DFI's histogram") for w in caught) == 2  # in memory only (its docstring)
    bounded = bp.roc_auc(frame)
    assert bounded.low <= bf.roc_auc(*bf.split_scores(scores)) <= bounded.high


def test_a_group_too_small_for_every_poisson_resample_is_named_not_nan():
    """Five mated and five non-mated comparisons: a resample weighs all of a class 0 with
    probability e**-5, and its 0/0 made the group's and FDR's intervals NaN."""
    small = pd.DataFrame({"score": [2.1, 1.7, 2.5, 0.9, 1.8, 0.2, -0.4, 0.6, -1.0, 0.1],
                          "mated": [True] * 5 + [False] * 5, "group": "d"})
    scores = pd.concat([table(3000), small], ignore_index=True)
    with pytest.warns(bf.UndefinedRateWarning) as caught:
        intervals = bp.poisson_bootstrap(dd.from_pandas(scores, npartitions=3), [0.5], n_resamples=1000, rng=0)
    message = str(caught[0].message)
    counts = re.search(r"^(\d+) of 1000 Poisson resamples weigh every comparison of a group's class 0, .* the "
                       r"intervals leave those resamples out: 'd' non-mated \((\d+)\), 'd' mated \((\d+)\)\. ", message)
    assert counts, message
    n_any, n_nonmated, n_mated = map(int, counts.groups())
    assert max(n_nonmated, n_mated) <= n_any <= n_nonmated + n_mated
    assert 0 < n_nonmated + n_mated < 40  # 1000 x 2 x e**-5 = 13.5 expected
    assert intervals[["value", "low", "high"]].notna().all().all()
    assert (intervals["low"] <= intervals["value"]).all() and (intervals["value"] <= intervals["high"]).all()


def test_mated_pairs_across_groups_are_refused_as_in_memory():
    """Seven mated comparisons whose two sides' groups differ were left out of every
    per-group count (neither a group's nor a cross pair), without a word."""
    scores = table().rename(columns={"group": "reference_group"})
    scores["probe_group"] = scores["reference_group"]
    mated = np.flatnonzero(scores["mated"])[:7]
    scores.loc[mated, "probe_group"] = np.where(scores.loc[mated, "reference_group"] == "a", "b", "a")
    with pytest.raises(SchemaError, match=r"^7 mated comparisons have reference_group different from probe_group"):
        bf.fairness_discrepancy_rate(scores, fmr_targets=[0.1])
    with pytest.raises(SchemaError) as error:
        bp.fairness_discrepancy_rate(dd.from_pandas(scores, npartitions=1), fmr_targets=[0.1])
    assert str(error.value) == (
        "invalid score partitions:\n- partition 0: 7 mated comparisons have reference_group different from "
        "probe_group (first in row 0); a mated comparison belongs to one group: correct the attributes or give a "
        "pair-level column")


def test_mated_labels_that_contradict_the_subject_ids_are_refused_as_in_memory():
    """Five non-mated pairs (two subjects) labelled mated were counted as mated."""
    scores = table()
    rng = np.random.default_rng(1)
    reference = rng.integers(0, 50, len(scores))
    scores["reference_subject"] = reference.astype(str)
    scores["probe_subject"] = np.where(scores["mated"], reference, (reference + 1) % 50).astype(str)
    assert bp.eer(dd.from_pandas(scores, npartitions=2)) == bf.eer(*bf.split_scores(scores))
    scores.loc[np.flatnonzero(~scores["mated"])[:5], "mated"] = True
    with pytest.raises(SchemaError, match="5 rows have 'mated' contradicting reference_subject == probe_subject"):
        bf.fairness_discrepancy_rate(scores, fmr_targets=[0.1])
    for metric in (bp.census, bp.eer):
        with pytest.raises(SchemaError) as error:
            metric(dd.from_pandas(scores, npartitions=2))
        assert str(error.value) == ("invalid score partitions:\n- partition 0: 5 rows have 'mated' contradicting "
                                    "reference_subject == probe_subject, e.g. row 3 (mated True, subjects '47' and '48')")


def test_a_mistyped_development_path_is_refused_before_any_pass(tmp_path):
    """Was: a full census pass over the evaluation data, then FileNotFoundError (an audit)."""
    from biofair.partitions.census import _PASSES

    table().to_parquet(tmp_path / "eval.parquet", index=False)
    before = _PASSES[0]
    with pytest.raises(FileNotFoundError, match="no Parquet file or folder at '/nonexistent/dev.parquet'"):
        bp.fairness_discrepancy_rate(str(tmp_path / "eval.parquet"), dev="/nonexistent/dev.parquet")
    assert _PASSES[0] == before


def test_tmr_at_fmr_keeps_the_shape_of_its_targets():
    """A 2-D fmr failed with "The truth value of an array with more than one element is ambiguous"."""
    scores = table()
    for fmr in ([[0.1, 0.2]], [[0.1], [0.2]], 0.1, [0.1]):
        here = bp.tmr_at_fmr(dd.from_pandas(scores, npartitions=2), fmr)
        np.testing.assert_array_equal(here, bf.tmr_at_fmr(*bf.split_scores(scores), fmr))
        assert np.shape(here) == np.shape(fmr)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda f: bp.eer(f, max_passes=-1), ValueError, "max_passes must be at least 0, got -1"),  # was UnboundLocalError
    (lambda f: bp.fairness_discrepancy_rate(f, fmr_targets=0.1), TypeError,  # was "'float' object is not iterable"
     "fmr_targets must be a sequence of rates, e.g. [0.01], got 0.1"),
    (lambda f: bp.fairness_discrepancy_rate(f, fmr_targets=[]), ValueError,  # named thresholds
     "fmr_targets must be a non-empty, flat sequence of rates, got []"),
    (lambda f: bp.pooled_thresholds(f, [[0.1, 0.2]]), ValueError,
     "fmr_targets must be a non-empty, flat sequence of rates, got [[0.1, 0.2]]"),
    (lambda f: bp.poisson_bootstrap(f, ["0.5"]), TypeError, "thresholds must be numbers, got ['0.5']"),  # was accepted
    (lambda f: bp.poisson_bootstrap(f, [0.5], n_resamples=2.5), TypeError, "n_resamples must be an integer, got 2.5"),
    (lambda f: bp.poisson_bootstrap(f, [0.5], confidence=1.0), ValueError, "confidence must lie in (0, 1), got 1.0"),
    (lambda f: bp.poisson_bootstrap(f, [0.5], n_resamples=1), ValueError,  # an interval of zero width
     "n_resamples=1 is too few for 95% intervals: give at least 40, so that each interval has a resample beyond "
     "each end (1,000 or more for ends that change little from seed to seed)"),
])
def test_options_out_of_core_are_checked_as_in_memory(call, error, message):
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        call(dd.from_pandas(table(), npartitions=2))


def test_a_folder_without_parquet_files_says_so(tmp_path):
    """Dask's "An error occurred while calling the read_parquet method ... No files satisfy the
    parquet_file_extension criteria", a ValueError where the docstring promises FileNotFoundError."""
    with pytest.raises(FileNotFoundError, match=re.escape(f"no Parquet file (*.parquet) in the folder {str(tmp_path)!r}")):
        bp.census(str(tmp_path))
    table().to_csv(tmp_path / "scores.csv", index=False)
    with pytest.raises(FileNotFoundError, match=re.escape(f"no Parquet file (*.parquet) in the folder {str(tmp_path)!r}")):
        bp.eer(str(tmp_path))
    with pytest.raises(FileNotFoundError, match=re.escape(f"no Parquet file or folder at {str(tmp_path / 'absent')!r}")):
        bp.census(str(tmp_path / "absent"))


def test_a_system_column_named_otherwise_is_refused_before_any_pass():
    """'System' was ignored out of core too, and two systems pooled."""
    scores = table().assign(System=["x", "y"] * (len(table()) // 2))
    with pytest.raises(SchemaError, match=r"^column\(s\) 'System' would be ignored, as only the name\(s\) 'system' are "
                                          r"read: the rows of several systems would be pooled\. Rename them, e\.g\. "
                                          r"dd\.read_parquet\(path\)\.rename\(columns=\{'System': 'system'\}\)$"):
        bp.census(dd.from_pandas(scores, npartitions=2))
    grouped = table().assign(Split=table()["group"])  # a column the grouping reads is read
    assert bp.census(dd.from_pandas(grouped, npartitions=2), by="Split").names == ["a", "b", "c"]


@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")  # Dask's tasks reading the files
def test_a_score_column_named_otherwise_is_refused_before_any_pass(tmp_path):
    """'Score' in every file: each partition was reported missing score, after a pass over all."""
    from biofair.partitions.census import _PASSES

    path, _ = files(tmp_path, None)
    for i in range(3):
        part = tmp_path / f"part-{i}.parquet"
        pq.write_table(pq.read_table(part).rename_columns(["Score", "mated", "group"]), part)
    before = _PASSES[0]
    for metric in (bp.census, bp.eer):
        with pytest.raises(SchemaError) as error:
            metric(path)
        assert str(error.value) == (
            "missing column(s): score (the table has 'Score': names are case- and space-sensitive; rename them, e.g. "
            "dd.read_parquet(path).rename(columns={'Score': 'score'})); these are the columns of the first file, "
            f"{tmp_path / 'part-0.parquet'}")
    assert _PASSES[0] == before
    assert bp.eer(dd.read_parquet(path).rename(columns={"Score": "score"})) == bf.eer(*bf.split_scores(table()))


@pytest.mark.parametrize(("column", "values"), [("system", ["A", "B"]), ("split", ["dev", "eval"])])
def test_files_of_two_systems_or_splits_are_not_pooled(column, values, tmp_path):
    """One file per system (or split) in one folder: every metric pooled them, as in memory."""
    for value in values:
        table().assign(**{column: value}).to_parquet(tmp_path / f"{value}.parquet", index=False)
    message = (f"the table holds 2 score sets in column '{column}' ('{values[0]}', '{values[1]}'), whose rows a "
               "metric would pool: ")
    for metric in (bp.census, bp.eer, lambda p: bp.tmr_at_fmr(p, 0.1)):
        with pytest.raises(SchemaError, match="^" + re.escape(message)):
            metric(str(tmp_path))
    one = str(tmp_path / f"{values[0]}.parquet")
    assert bp.eer(one) == bf.eer(*bf.split_scores(table().assign(**{column: values[0]})))


def test_parquet_files_not_named_parquet_are_named_not_left_out(tmp_path):
    """Before: a folder of part-0.parquet and part-1 (Parquet, no extension) counted the rows of
    the first only: Dask reads *.parquet, *.parq and *.pq, and skipped the other without a word."""
    scores = table()
    scores.iloc[:150].to_parquet(tmp_path / "part-0.parquet", index=False)
    scores.iloc[150:].to_parquet(tmp_path / "part-1", index=False)
    (tmp_path / "README").write_text("not Parquet: ignored, as before")
    with pytest.raises(SchemaError, match=r"^the folder .* holds 1 Parquet file that is not named \*\.parquet: .*part-1\. "
                                          r"Dask reads only .* so the rows of any other would be left out: give "
                                          r"every Parquet file one of those endings$"):
        bp.census(str(tmp_path))
    (tmp_path / "part-1").rename(tmp_path / "part-1.pq")
    census = bp.census(str(tmp_path))
    assert int(census.n_mated.sum() + census.n_nonmated.sum()) == len(scores)


@pytest.mark.parametrize("name", [".part-1.parquet", "._part-0.parquet", "_part-1.parquet",
                                  "_temporary/0/part-1.parquet"])
def test_files_that_pandas_and_spark_skip_are_refused_not_counted(tmp_path, name):
    """Before: a hidden or _-prefixed file (a macOS ._ file, a Spark _temporary/ leftover), which
    pandas, pyarrow and Spark skip, was read by Dask: its rows were counted (900 rows on disk
    as pandas reads them, 1,200 in the census); a ._ file that is not Parquet was blamed on a
    README.txt beside it (a hostile out-of-core audit)."""
    scores = table()
    scores.to_parquet(tmp_path / "part-0.parquet", index=False)
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    if name.startswith("._"):
        (tmp_path / name).write_bytes(b"\x00\x05\x16\x07 macOS resource fork")
    else:
        scores.iloc[:100].to_parquet(tmp_path / name, index=False)
    (tmp_path / "README.txt").write_text("not Parquet")
    with pytest.raises(SchemaError, match=rf"^the folder .* holds 1 file that is hidden or under a name that starts with "
                                          rf"'_': .*{re.escape(name)} \(Spark's .*\)\. pandas, pyarrow and Spark "
                                          rf"skip such files but Dask reads them, so their rows would be counted"):
        bp.census(str(tmp_path))
    (tmp_path / name).unlink()
    census = bp.census(str(tmp_path))
    assert int(census.n_mated.sum() + census.n_nonmated.sum()) == len(scores)


def test_a_stale_metadata_file_is_refused_not_followed(tmp_path):
    """Before: a folder written with a _metadata file, and a file added later: Dask read the
    files _metadata names and left the new one's rows out (600 of 900); a file removed since
    gave a bare "No such file" (a hostile out-of-core audit)."""
    scores = table()
    dd.from_pandas(scores.iloc[:200], npartitions=2).to_parquet(tmp_path / "f", write_metadata_file=True,
                                                                write_index=False)
    scores.iloc[200:].to_parquet(tmp_path / "f" / "part.2.parquet", index=False)
    with pytest.raises(SchemaError, match=r"^Dask would not read 1 Parquet file of the folder .*, whose rows "
                                          r"would be left out: .*part\.2\.parquet; the folder's _metadata file, which "
                                          r"Dask reads instead of the folder, does not name every file"):
        bp.census(str(tmp_path / "f"))
    (tmp_path / "f" / "part.2.parquet").unlink()
    (tmp_path / "f" / "part.0.parquet").unlink()
    with pytest.raises(SchemaError, match=r"^the _metadata file of the folder .* names 1 file that is not there: "
                                          r".*part\.0\.parquet; delete _metadata"):
        bp.census(str(tmp_path / "f"))
    (tmp_path / "f" / "_metadata").unlink()
    census = bp.census(str(tmp_path / "f"))
    assert int(census.n_mated.sum() + census.n_nonmated.sum()) == 100  # part.1 alone, as pandas reads it


def test_scores_crowded_far_from_zero_warn_that_the_refinement_moves_them():
    """Scores of 1000 +- 1 share a few locating bins (float32 codes, about 1 wide there): the
    refinement brought 873,594 distinct values of 1,000,000 rows to the client without a word,
    against 11,319 for the same scores centred on 0 (a hostile out-of-core audit)."""
    rng = np.random.default_rng(1)
    n = 1_000_000
    mated = rng.random(n) < 0.1
    centred = pd.DataFrame({"score": np.round(rng.normal(np.where(mated, 0.6, 0.0), 0.2), 6), "mated": mated,
                            "group": np.array(["a", "b", "c"])[rng.integers(0, 3, n)]})
    shifted = centred.assign(score=centred["score"] + 1000.0)
    with pytest.warns(UserWarning, match=r"^the exact thresholds bring the distinct values of 1,000,000 of the "
                                         r"1,000,000 scores read into this process: the scores crowd into a few"):
        far = bp.pooled_thresholds(dd.from_pandas(shifted, npartitions=4), [1e-2, 1e-3])
    near = bp.pooled_thresholds(dd.from_pandas(centred, npartitions=4), [1e-2, 1e-3])  # no warning
    np.testing.assert_array_equal(far, bf.fairness_discrepancy_rate(shifted, fmr_targets=[1e-2, 1e-3])["threshold"])
    np.testing.assert_allclose(far - 1000.0, near, atol=1e-9)


@pytest.mark.parametrize("column", ["system", "split", "reference_subject"])
def test_a_column_that_only_later_files_have_is_refused(tmp_path, column):
    """Before: the first file without a system column, two later ones with systems A and B:
    every metric pooled the two systems (Dask reads the first file's columns), where in memory
    the same rows are refused; a subject column only in later files was never checked."""
    scores = table()
    for i, rows in enumerate(np.array_split(np.arange(len(scores)), 3)):
        part = scores.iloc[rows]
        if i > 0:
            part = part.assign(**{column: np.arange(len(rows)) % 2 if column == "system" else
                                  ("dev" if column == "split" else np.arange(len(rows)))})
        part.to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    for path in (str(tmp_path), str(tmp_path / "part-*.parquet")):
        with pytest.raises(SchemaError, match=rf"^column '{column}' is in 2 of the 3 Parquet files of .* but not "
                                              r"in the others \(e\.g\. .*part-0\.parquet\): .* Write it in every file$"):
            bp.fairness_discrepancy_rate(path, fmr_targets=(0.1,))


def test_decimal_scores_are_refused_one_way_however_the_frame_is_made(tmp_path):
    """Before: read from the path, "column 'score' must be numeric, got dtype object" (each
    file read by pandas gives Python decimals); repartitioned, accepted through Arrow's cast."""
    scores = table()
    decimals = pa.array([decimal.Decimal(f"{x:.2f}") for x in scores["score"]], pa.decimal128(10, 2))
    pq.write_table(pa.Table.from_pandas(scores, preserve_index=False).set_column(0, "score", decimals),
                   tmp_path / "part-0.parquet")
    path = str(tmp_path / "part-0.parquet")
    for data in (path, dd.read_parquet(path), dd.read_parquet(path).repartition(npartitions=2)):
        with pytest.raises(SchemaError, match=r"^column 'score' holds decimals \(decimal128\(10, 2\)\): out of core "
                                              r"biofair reads float scores\. .*biofair\.read_scores"):
            bp.census(data)
    assert bf.read_scores(path)["score"].tolist() == scores["score"].tolist()  # in memory: converted


@pytest.mark.parametrize("name", ["a-empty.parquet", "z-empty.parquet"])
def test_a_parquet_file_without_columns_is_named(name, tmp_path):
    """Sorted first, it read as 'no Parquet file matches ... (or its files have no columns)', a
    FileNotFoundError naming no file: Dask takes the first file's columns. Sorted last, 'missing
    column(s) score, mated (..., whose columns are : write ...)'."""
    table().to_parquet(tmp_path / "part-0.parquet", index=False)
    pq.write_table(pa.table({}), tmp_path / name)
    message = (f"{str(tmp_path)!r} holds 1 Parquet file that has no columns (a table written without them?): "
               f"{tmp_path / name}. Remove such files, or write them with the columns of the others")
    for metric in (bp.partitioned, bp.eer):
        with pytest.raises(SchemaError, match="^" + re.escape(message) + "$"):
            metric(str(tmp_path))
    (tmp_path / name).unlink()
    assert bp.eer(str(tmp_path)) == bf.eer(*bf.split_scores(table()))


def test_a_pass_over_a_transformed_frame_shows_no_warning_of_dask_s_own(tmp_path):
    """Distances negated as the package's docstring says: every pass showed pandas' warning on
    Dask's own use of reset_index(inplace=...), which biofair already hid where it reads a path."""
    table().to_parquet(tmp_path / "part-0.parquet", index=False)
    frame = dd.read_parquet(str(tmp_path)).assign(score=lambda f: -f["score"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bp.eer(frame) == bf.eer(*bf.split_scores(table().assign(score=lambda t: -t["score"])))


def test_a_group_called_fdr_keeps_its_rates_apart_from_the_fdr_rows():
    """The FDR rows carry group 'FDR'; chapter 14 kept the groups' rows by group != 'FDR', which
    dropped a group of that name. The metric column tells them apart."""
    scores = table().assign(group=lambda t: np.where(t["group"] == t["group"].iloc[0], "FDR", "other"))
    intervals = bp.poisson_bootstrap(dd.from_pandas(scores, npartitions=2), [0.5], n_resamples=40, rng=0)
    assert sorted(intervals.loc[intervals["metric"] != "fdr", "group"].unique()) == ["FDR", "other"]
    rates = bf.rates_by_group(scores, 0.5).set_index("group")
    for rate in ("fmr", "fnmr"):
        found = intervals[intervals["metric"] == rate].set_index("group")["value"]
        assert found.sort_index().tolist() == rates[rate].sort_index().tolist()
    assert (intervals["metric"] == "fdr").sum() == 1


@pytest.mark.parametrize("per_pass", [1, 2])
def test_cei_out_of_core_locates_groups_in_batches_with_the_same_result(per_pass, monkeypatch):
    """Groups located a batch at a time (here 1 or 2 of the 3 per pass) give the in-memory
    index exactly, both classes, CEI and CEI^A."""
    from biofair.partitions import distribution_fairness as module
    monkeypatch.setattr(module, "_GROUPS_PER_PASS", per_pass)
    data = dd.from_pandas(table(), npartitions=2)
    for kind in ("mated", "nonmated"):
        assert bp.comprehensive_equity_index(data, kind=kind).extreme == bf.comprehensive_equity_index(
            table(), kind=kind).extreme
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bf.InsufficientComparisonsWarning)  # as in memory, for small groups
            found = bp.automatic_comprehensive_equity_index(data, kind=kind)
            expected = bf.automatic_comprehensive_equity_index(table(), kind=kind)
        assert (found.normal, found.extreme) == (expected.normal, expected.extreme)


def test_cei_out_of_core_memory_does_not_grow_with_the_groups():
    """A dense 2**18-bin histogram per group, all at once and kept: 1,000 groups took 8.3 GB where
    memory took 250 MB. 160 groups (5 batches) now stay within a few batches' histograms."""
    rng = np.random.default_rng(5)
    n = 40_000
    mated = rng.random(n) < 0.3
    scores = pd.DataFrame({"score": np.round(rng.normal(np.where(mated, 2.5, 0.0), 1.0), 2), "mated": mated,
                           "group": rng.integers(0, 160, n).astype(str)})
    data = bp.partitioned(dd.from_pandas(scores, npartitions=2))
    found, peak = peak_memory(bp.comprehensive_equity_index, data)
    assert found.extreme == bf.comprehensive_equity_index(scores).extreme
    assert peak < 600e6, f"{peak / 1e6:.0f} MB"  # 160 groups at once: 1.0 GB


def test_partitions_without_a_row_are_named_as_empty(tmp_path):
    """An empty Parquet file was refused as "fairness needs at least two groups; by='group'
    gives 0", which sends the user looking for a group column; in memory an empty table is
    refused as such."""
    table().iloc[:0].to_parquet(tmp_path / "empty.parquet", index=False)
    for empty in (str(tmp_path / "empty.parquet"), dd.from_pandas(table().iloc[:0], npartitions=1)):
        with pytest.raises(SchemaError, match=r"^invalid score partitions:\n- the partitions hold no rows$"):
            bp.census(empty)
    with pytest.raises(SchemaError, match=r"^invalid score table:\n- the table has no rows$"):
        bf.fairness_discrepancy_rate(table().iloc[:0])


@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index")  # Dask's reader: not ours
@pytest.mark.parametrize("hive", [False, True])
def test_labels_stored_as_text_are_refused_with_the_conversion(hive, tmp_path):
    """Spark writes mated as 'true'/'false' (and as folders mated=true/): out of core said only
    "must be boolean, got str" (or "got category", for the folders), naming neither the labels
    nor the folders, nor how to convert them."""
    scores = table()
    if hive:
        pq.write_to_dataset(pa.Table.from_pandas(scores.astype({"mated": str}).assign(
            mated=lambda t: t["mated"].str.lower()), preserve_index=False), tmp_path, partition_cols=["mated"])
        labels, where = ("('false'), read as a category from a dictionary-encoded column or a hive-style folder name "
                         "mated=<label>/", "mated=false")
    else:
        scores.assign(mated=np.where(scores["mated"], "true", "false")).to_parquet(tmp_path / "part-0.parquet")
        labels, where = "('false', 'true')", "part-0.parquet"
    with pytest.raises(SchemaError, match=re.escape(
            f"partition 0: column 'mated' must be boolean, got {'category' if hive else 'str'}; its labels are text "
            f"{labels}: give dd.read_parquet(path).assign(mated=lambda f: f['mated'] == <the label of mated "
            "comparisons>) (file ") + f".*{where}"):
        bp.census(str(tmp_path))
    converted = dd.read_parquet(str(tmp_path)).assign(mated=lambda f: f["mated"] == "true")
    assert bp.rates_by_group(converted, [0.5]).equals(bf.rates_by_group(scores, [0.5]))
