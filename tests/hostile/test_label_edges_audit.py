"""Group labels at the edges, in memory and out of core (Parquet files read by
:mod:`biofair.partitions`): a float zero written with either sign is one group named '0.0'
whatever the rows' order; a label that prints as nothing is refused, naming its rows; a label
or an id of megabytes is quoted shortened in every message."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import biofair as bf

dask = pytest.importorskip("dask")
from biofair import partitions as bp  # noqa: E402

N = 40
HUGE = "x" * (2 * 1024 * 1024)  # 2 MiB
HUGE_SHOWN = "'" + "x" * 60 + "…' (2,097,152 characters)"


def table(labels: list) -> pd.DataFrame:
    """``N`` comparisons; row i has label ``labels[i % len(labels)]`` and is mated when ``i // 4``
    is even (with two or four labels, half of each label's rows)."""
    rows = np.arange(N)
    return pd.DataFrame({"score": np.round(np.sin(rows) + 1.0, 3), "mated": rows // 4 % 2 == 0,
                         "group": pd.Series([labels[i % len(labels)] for i in rows], dtype=object)})


def as_parquet(parts: list[pd.DataFrame], folder) -> str:
    for i, part in enumerate(parts):
        part.to_parquet(folder / f"part-{i}.parquet", index=False)
    return str(folder)


def counted(frame: pd.DataFrame, rows: pd.Series) -> tuple[int, int]:
    """Mated and non-mated comparisons among ``rows`` (a mask of ``frame``)."""
    return int((rows & frame["mated"]).sum()), int((rows & ~frame["mated"]).sum())


# -- 1. -0.0 and 0.0: one group, named '0.0' whatever comes first ----------------------------------


ZERO_DTYPES = ["float64", "float32", "Float64", "double[pyarrow]", "object", "category"]


@pytest.mark.parametrize("dtype", ZERO_DTYPES)
@pytest.mark.parametrize("first", [-0.0, 0.0], ids=["-0.0 first", "0.0 first"])
def test_a_float_zero_of_either_sign_is_one_group_named_the_same_in_any_order(first, dtype):
    """Named '-0.0' when a -0.0 came first and '0.0' otherwise (with Arrow's floats, two groups
    '-0.0' and '0.0')."""
    frame = table([first, -first, 1.0, 1.0])
    frame["group"] = frame["group"].astype(dtype)
    zero = frame["group"].astype(float) == 0
    groups = bf.scores_by_group(frame)
    assert list(groups) == ["0.0", "1.0"]
    assert (groups["0.0"].mated.size, groups["0.0"].nonmated.size) == counted(frame, zero) == (10, 10)
    assert bf.group_labels(frame).tolist() == np.where(zero, "0.0", "1.0").tolist()
    sizes = bf.group_sizes(frame, min_mated=1, min_nonmated=1)
    assert sizes.loc["0.0", ["n_mated", "n_nonmated"]].tolist() == [10, 10]


@pytest.mark.parametrize("first", [-0.0, 0.0], ids=["-0.0 first", "0.0 first"])
def test_a_float_zero_of_either_sign_is_one_group_in_a_mixed_object_column(first):
    """Floats -0.0 and 0.0 and the integer 1 in one object column: the check of equal labels
    written differently read -0.0 and 0.0 as two writings of one label."""
    frame = table([first, -first, 1, 1])
    assert list(bf.scores_by_group(frame)) == ["0.0", "1"]


@pytest.mark.parametrize("first", [-0.0, 0.0], ids=["-0.0 in the first file", "0.0 in the first file"])
def test_out_of_core_a_float_zero_of_either_sign_is_one_group(first, tmp_path, dask_synchronous):
    """One file holds only -0.0 (and 1.0), another only 0.0: the census named the group after
    the first file's zero, and one zero in each of two partitions named one group two ways."""
    frames = [table([zero, 1.0]).assign(group=lambda t: t["group"].astype(float)) for zero in (first, -first)]
    census = bp.census(as_parquet(frames, tmp_path))
    assert census.names == ["0.0", "1.0"]
    whole = pd.concat(frames, ignore_index=True)
    assert (census.n_mated[0], census.n_nonmated[0]) == counted(whole, whole["group"] == 0) == (20, 20)
    assert list(bf.scores_by_group(whole)) == census.names


def test_out_of_core_both_zeros_in_one_partition_are_one_group(tmp_path, dask_synchronous):
    frames = [table([-0.0, 0.0, 1.0, 1.0]).assign(group=lambda t: t["group"].astype(float))]
    census = bp.census(as_parquet(frames, tmp_path))
    assert census.names == ["0.0", "1.0"]
    assert census.n_mated.tolist() == [10, 10] and census.n_nonmated.tolist() == [10, 10]


# -- 2. labels that print as nothing -------------------------------------------------------------


INVISIBLE = {
    "zero-width space": ("\u200b", r"'\u200b' (U+200B ZERO WIDTH SPACE)", r"\u200b"),
    "byte order mark": ("\ufeff", r"'\ufeff' (U+FEFF ZERO WIDTH NO-BREAK SPACE)", r"\ufeff"),
    "joiner and a space": ("\u200d ", r"'\u200d ' (U+200D ZERO WIDTH JOINER)", r"\u200d"),
    "a control character": ("\x00", r"'\x00'", r"\u0000"),
}


@pytest.mark.parametrize("case", INVISIBLE)
def test_a_label_that_prints_as_nothing_is_refused_naming_its_rows(case):
    """It made a group whose name every table and message showed blank."""
    label, shown, escaped = INVISIBLE[case]
    frame = table(["A", label])
    message = (f"column 'group' has 20 labels that print as nothing ({shown}; first in row 1): a group so named "
               f"would show blank in every table. Relabel them, e.g. scores.replace({{'group': r'^[\\s{escaped}]*$'}}, "
               "'unknown', regex=True)")
    for function in (bf.scores_by_group, bf.group_labels, bf.group_sizes):
        with pytest.raises(bf.SchemaError) as error:
            function(frame)
        assert str(error.value) == message
    relabelled = frame.replace({"group": rf"^[\s{escaped}]*$"}, "unknown", regex=True)  # the advice, as written
    assert list(bf.scores_by_group(relabelled)) == ["A", "unknown"]


def test_a_label_that_prints_as_nothing_is_refused_on_the_probe_side():
    frame = table(["A", "B"]).rename(columns={"group": "reference_group"})
    frame["probe_group"] = frame["reference_group"].where(frame["mated"] | (np.arange(N) != 5), "\u200b")
    with pytest.raises(bf.SchemaError, match=re.escape("column 'probe_group' has 1 label that prints as nothing "
                                                       r"('\u200b' (U+200B ZERO WIDTH SPACE); first in row 5)")):
        bf.cross_group_fmr(frame, 1.0)


@pytest.mark.parametrize("case", INVISIBLE)
def test_out_of_core_a_label_that_prints_as_nothing_is_refused(case, tmp_path, dask_synchronous):
    label, shown, _ = INVISIBLE[case]
    path = as_parquet([table(["A", "B"]), table(["A", label])], tmp_path)
    with pytest.raises(bf.SchemaError) as error:
        bp.census(path)
    assert str(error.value) == (
        f"invalid score partitions:\n- partition 1: column 'group' has 20 labels that print as nothing ({shown}; "
        f"first in row 1): a group so named would show blank in every table. Relabel them, e.g. scores.replace("
        f"{{'group': r'^[\\s{INVISIBLE[case][2]}]*$'}}, 'unknown', regex=True) and write the file again "
        f"(file {tmp_path / 'part-1.parquet'})"
    )


@pytest.mark.parametrize("label", [" ", "\t", "\u00a0", ""])
def test_a_blank_label_is_still_refused_as_missing(label, tmp_path, dask_synchronous):
    frame = table(["A", label])
    with pytest.raises(bf.SchemaError, match=re.escape("column 'group' has 20 missing values (first in row 1), "
                                                       "20 of them blank (empty or white space only)")):
        bf.scores_by_group(frame)
    with pytest.raises(bf.SchemaError, match=re.escape("partition 0: column 'group' has 20 blank labels")):
        bp.census(as_parquet([frame], tmp_path))


def test_labels_that_differ_only_by_a_zero_width_space_stay_apart_with_a_warning(tmp_path, dask_synchronous):
    """'A' and 'A' followed by a zero-width space print alike: two groups without a word."""
    frame = table(["A", "A\u200b"])
    warning = re.escape(r"differ only by letter case or Unicode form (e.g. 'é' as one character or as e and an "
                        r"accent) or by characters that print as nothing (such as a zero-width space): 'A', 'A\u200b'")
    with pytest.warns(UserWarning, match=warning):
        assert list(bf.scores_by_group(frame)) == ["A", "A\u200b"]
    with pytest.warns(UserWarning, match=warning):
        assert bp.census(as_parquet([frame], tmp_path)).names == ["A", "A\u200b"]


@pytest.mark.parametrize("control", ["\x00", "\x1b", "\x7f", "\x9b"])
def test_labels_that_differ_only_by_a_control_character_stay_apart_with_a_warning(control, tmp_path,
                                                                                   dask_synchronous):
    """'ab' and 'a' NUL 'b' (ESC, DEL, the C1 CSI) print alike in a terminal and a browser: two
    groups without a word, where a zero-width space between them was warned of."""
    labels = sorted(["ab", f"a{control}b"])  # as groups are ordered
    frame = table(labels)
    warning = re.escape(f"by characters that print as nothing (such as a zero-width space): {', '.join(map(repr, labels))}")
    with pytest.warns(UserWarning, match=warning):
        assert list(bf.scores_by_group(frame)) == labels
    with pytest.warns(UserWarning, match=warning):
        assert bp.census(as_parquet([frame], tmp_path)).names == labels


# -- 3. labels and ids of megabytes are quoted shortened -----------------------------------------


def test_a_huge_label_is_quoted_shortened_when_its_group_lacks_a_class(tmp_path, dask_synchronous):
    frame = table(["A", HUGE])
    frame.loc[frame["group"] == HUGE, "mated"] = False
    expected = f"cannot compare groups:\n- group {HUGE_SHOWN} has 0 mated and 20 homogeneous non-mated comparisons; both are needed"
    with pytest.raises(bf.SchemaError) as error:
        bf.scores_by_group(frame)
    assert str(error.value) == expected
    with pytest.raises(bf.SchemaError) as error:
        bp.census(as_parquet([frame], tmp_path))
    assert str(error.value) == expected


def test_a_huge_label_is_quoted_shortened_where_the_sides_of_a_mated_pair_differ():
    frame = table(["A", "B"]).rename(columns={"group": "reference_group"})
    frame["probe_group"] = frame["reference_group"].where(np.arange(N) != 0, HUGE)
    with pytest.raises(bf.SchemaError, match=re.escape(f"(first in row 0: 'A' vs {HUGE_SHOWN}); a mated")) as error:
        bf.scores_by_group(frame)
    assert len(str(error.value)) < 500


def test_a_label_that_prints_as_nothing_and_is_huge_is_quoted_shortened():
    frame = table(["A", "\u200b" * len(HUGE)])
    with pytest.raises(bf.SchemaError, match=re.escape(r"('" + r"\u200b" * 60 + r"…' (2,097,152 characters) "
                                                       "(U+200B ZERO WIDTH SPACE)")) as error:
        bf.scores_by_group(frame)
    assert len(str(error.value)) < 1000


def test_huge_subject_ids_are_quoted_shortened():
    """The contradiction of 'mated' and the subject ids, and subjects without attributes."""
    frame = table(["A", "B"]).assign(reference_subject="s", probe_subject=lambda t: np.where(t["mated"], "s", "t"))
    padded = frame.assign(reference_subject=HUGE, probe_subject=lambda t: np.where(t["mated"], HUGE, "t"))
    padded.loc[0, "probe_subject"] = HUGE + " "
    with pytest.raises(bf.SchemaError, match=re.escape(
            f"e.g. row 0: {HUGE_SHOWN} and {HUGE_SHOWN.replace('(2,097,152', '(2,097,153')}; strip")) as error:
        bf.validate_scores(padded)
    assert len(str(error.value)) < 500
    frame.loc[0, "probe_subject"] = "s " + HUGE
    people = pd.DataFrame({"subject": ["s", "t"], "gender": ["f", "m"]})
    with pytest.raises(bf.SchemaError, match=re.escape(f"e.g. ['s {'x' * 58}…' (2,097,154 characters)]")) as error:
        bf.add_subject_attributes(frame.drop(columns="group"), people)
    assert len(str(error.value)) < 500


def test_a_huge_row_label_and_a_huge_system_name_are_quoted_shortened():
    frame = table(["A", "B"]).set_axis([f"{HUGE}{i}" for i in range(N)])
    frame.loc[frame.index[1], "score"] = np.nan
    with pytest.raises(bf.SchemaError, match=re.escape(f"(first in row {HUGE_SHOWN.replace('(2,097,152', '(2,097,153')})")):
        bf.validate_scores(frame)
    systems = table(["A", "B"]).assign(system=[HUGE, "b"] * (N // 2))
    with pytest.raises(bf.SchemaError) as error:
        bf.scores_by_group(systems)
    assert str(error.value).startswith(f"the table holds 2 score sets in column 'system' ({HUGE_SHOWN}, 'b')")
    assert len(str(error.value)) < 800


# -- by naming the score or the class -------------------------------------------------------------

@pytest.mark.parametrize("by, holds", [("score", "score"), (["group", "mated"], r"class \(mated or not\)")])
def test_grouping_by_the_score_or_the_class_is_refused(tmp_path, by, holds):
    """by='score' made a group of every score value (the differential report ran on them), and
    by='mated' a group of each class, each without the other class."""
    frame = table(["a", "b"])
    name = "score" if by == "score" else "mated"
    message = rf"^by names '{name}', which holds each comparison's {holds}, not its group: give the attribute"
    for call in (lambda: bf.scores_by_group(frame, by=by),
                 lambda: bf.differential_report(frame, by=by, fmr=0.1, n_resamples=40, rng=0),
                 lambda: bp.census(as_parquet([frame], tmp_path), by=by)):
        with pytest.raises(ValueError, match=message):
            call()


def test_a_subject_with_two_labels_is_named_shortened_in_the_shuffle_s_message():
    """The permutation null's message printed the subject's labels whole (a 2 MiB label in it)."""
    frame = table(["a", "b"]).assign(reference_subject=[f"s{i % 5}" for i in range(N)])
    frame["probe_subject"] = np.where(frame["mated"], frame["reference_subject"], "other")
    frame["group"] = frame["group"].where(frame.index != 0, HUGE)  # subject s0 has labels a and HUGE
    with pytest.raises(ValueError, match=r"subjects have comparisons with different labels") as refused:
        bf.permutation_null(lambda t: 0.5, frame, n_permutations=5, rng=0)
    assert HUGE_SHOWN in str(refused.value) and len(str(refused.value)) < 1_000
