"""Row conservation: reading a table and grouping it never changes the rows per class.

For random tables with hostile group labels ("01" and "1", int 1 and text "1", separators
inside labels, TeX, empty and missing values), kept in memory or written to CSV or Parquet:
the per-group counts plus the cross-group pairs equal the input's mated and non-mated
counts, and no two distinct labels share a group, or the call raises an error whose
message names one of the faults the input really has.
"""

from __future__ import annotations

import csv
import re
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import biofair as bf

MISSING = None  # a label the reader sees as missing
allowed_kinds = ["no mated", "no non-mated", "missing values?", "read the same", "different from", "cannot compare"]
LABELS = ["01", "1", 1, 2, "a / b", "a", "b / c", "x/y", "$\\foo$", "NA", " ", ""]
EMPTY = [None, float("nan")]


@st.composite
def labels(draw, n: int):
    """A column of n labels from a few of LABELS, missing values in some columns."""
    pool = draw(st.lists(st.sampled_from(LABELS), min_size=1, max_size=4, unique_by=lambda v: (type(v), v)))
    if draw(st.booleans()):
        pool += EMPTY
    return draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))


@st.composite
def tables(draw):
    n = draw(st.integers(2, 24))
    rows = labels(n)
    attributes = draw(st.sampled_from([["group"], ["g"], ["g", "group"]]))
    per_side = draw(st.booleans())
    columns = {}
    for attribute in attributes:
        if per_side:
            reference, other, same = draw(rows), draw(rows), draw(st.lists(st.booleans(), min_size=n, max_size=n))
            columns[f"reference_{attribute}"] = reference
            columns[f"probe_{attribute}"] = [r if s else o for r, o, s in zip(reference, other, same)]
        else:
            columns[attribute] = draw(rows)
    columns["mated"] = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    columns["score"] = draw(st.lists(st.floats(-5, 5, allow_nan=False), min_size=n, max_size=n))
    storage = draw(st.sampled_from(["memory", "csv", "parquet"]))
    missing_groups = draw(st.sampled_from(["raise", "group"])) if storage != "memory" else "raise"
    return pd.DataFrame(columns), attributes, per_side, storage, missing_groups


def stored(table: pd.DataFrame, storage: str, folder: Path) -> tuple[pd.DataFrame | Path, dict]:
    """The table as given to biofair, and each label column's values as biofair must see them."""
    labels = [c for c in table.columns if c not in ("score", "mated")]
    if storage == "memory":
        return table, {c: [MISSING if pd.isna(v) else v for v in table[c]] for c in labels}
    if storage == "parquet":  # Parquet columns have one type: the labels as text
        path = folder / "scores.parquet"
        text = {c: [MISSING if pd.isna(v) else str(v) for v in table[c]] for c in labels}
        table.assign(**text).to_parquet(path)
        return path, text
    path = folder / "scores.csv"
    table.to_csv(path, index=False)
    with open(path, newline="") as handle:  # exactly what the file holds: "" is an empty cell
        written = list(csv.DictReader(handle))
    return path, {c: [row[c] if row[c] != "" else MISSING for row in written] for c in labels}


def faults(labels: dict, attributes: list[str], per_side: bool, mated: np.ndarray, storage: str) -> list[str]:
    """Regexes of the errors this input deserves (empty: it must be grouped)."""
    found = []
    if not mated.any():
        found.append("no mated comparisons")
    if mated.all():
        found.append("no non-mated comparisons")
    for attribute in attributes:
        names = [f"reference_{attribute}", f"probe_{attribute}"] if per_side else [attribute]
        for name in names:
            if any(v is MISSING for v in labels[name]):
                found.append(rf"column '{name}' has \d+ missing values?")
        values = {(type(v), v) for name in names for v in labels[name] if v is not MISSING}
        if storage == "memory" and len({str(v) for _, v in values}) < len(values):
            found.append("hold distinct labels that read the same")
        if per_side:
            split = [m and r is not MISSING and p is not MISSING and r != p
                     for m, r, p in zip(mated, *(labels[n] for n in names))]
            if any(split):
                found.append(rf"mated comparisons? ha(s|ve) {names[0]} different from {names[1]}")
    return found


def spaces_split(labels: dict, attribute: str, per_side: bool) -> bool:
    """Whether two distinct labels of the attribute differ only by surrounding spaces."""
    names = [f"reference_{attribute}", f"probe_{attribute}"] if per_side else [attribute]
    text = {str(v) for name in names for v in labels[name] if v is not MISSING}
    return len({t.strip() for t in text}) < len(text)


def numbers_split(labels: dict, attribute: str, per_side: bool) -> bool:
    """Whether two distinct labels of the attribute write one number differently ("01" and "1")."""
    names = [f"reference_{attribute}", f"probe_{attribute}"] if per_side else [attribute]
    text = {str(v) for name in names for v in labels[name] if v is not MISSING}
    numbers = [float(t) for t in text if re.fullmatch(r"\s*[0-9.]+\s*", t)]
    written = {t.strip() for t in text if re.fullmatch(r"\s*[0-9.]+\s*", t)}
    return len(set(numbers)) < len(written)


def grouping(labels: dict, attributes: list[str], per_side: bool, n: int) -> list[tuple | None]:
    """Each row's group as the tuple of its labels (None: a cross-group pair)."""
    keys = []
    for row in range(n):
        parts = []
        for attribute in attributes:
            if per_side:
                reference, probe = labels[f"reference_{attribute}"][row], labels[f"probe_{attribute}"][row]
                parts.append((type(reference), reference) if reference == probe else None)
            else:
                value = labels[attribute][row]
                parts.append((type(value), value))
        keys.append(None if None in parts else tuple(parts))
    return keys


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_rows_per_class_are_conserved_or_the_call_fails_naming_a_fault(drawn):
    table, attributes, per_side, storage, missing_groups = drawn
    mated = table["mated"].to_numpy(dtype=bool)
    by = attributes[0] if len(attributes) == 1 else attributes
    with tempfile.TemporaryDirectory() as folder:
        source, labels = stored(table, storage, Path(folder))
        if missing_groups == "group":  # the reader's option: missing labels (empty or blank) form their own group
            labels = {c: ["(missing)" if v is MISSING or (isinstance(v, str) and not v.strip()) else v for v in values]
                      for c, values in labels.items()}
        else:  # blank labels are missing ones, in a file and in a DataFrame alike
            labels = {c: [MISSING if isinstance(v, str) and not v.strip() else v for v in values]
                      for c, values in labels.items()}
        expected = faults(labels, attributes, per_side, mated, storage)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.simplefilter("ignore", bf.ScoreDirectionWarning)  # random scores: any AUC
            try:
                if storage == "memory":
                    sizes = bf.group_sizes(source, by=by)
                elif missing_groups == "group":
                    read = bf.read_grouped_scores(source, by=by, missing_groups="group")
                    sizes = bf.group_sizes(read, by=by)
                else:
                    sizes = bf.group_sizes(bf.read_scores(source), by=by)
            except bf.SchemaError as error:
                event("refused: " + next((p for p in allowed_kinds if re.search(p, str(error))), "other"))
                allowed = expected + (["cannot compare groups"] if missing_groups == "group" else [])
                assert any(re.search(pattern, str(error)) for pattern in allowed), (str(error), expected)
                return
    assert not expected, f"grouped although {expected}"
    # labels that differ only by surrounding spaces (" " and "") or by how they write a number
    # ("01" and "1") stay apart, with a warning
    kinds = {"surrounding spaces": spaces_split, "how a number is written": numbers_split}
    for kind, split in kinds.items():
        found = [a for a in attributes if split(labels, a, per_side)]
        said = [str(w.message) for w in caught if f"differ only by {kind}" in str(w.message)]
        assert bool(said) == bool(found), (kind, said, found)
    assert not [w for w in caught if not any(f"differ only by {kind}" in str(w.message) for kind in kinds)]
    event(f"grouped ({storage}, {'per side' if per_side else 'pair level'}, {len(attributes)} attributes)")
    groups = sizes.drop(index="(cross-group)", errors="ignore")
    groups = groups[groups["n_mated"] + groups["n_nonmated"] > 0]  # a label seen only in cross pairs
    cross = int(sizes.loc["(cross-group)", "n_nonmated"]) if "(cross-group)" in sizes.index else 0
    assert groups["n_mated"].sum() == mated.sum()
    assert groups["n_nonmated"].sum() + cross == (~mated).sum()
    keys = grouping(labels, attributes, per_side, len(table))
    assert len(groups) == len({k for k in keys if k is not None})  # distinct labels never merge
    assert cross == sum(k is None for k in keys)
    assert (groups["n_mated"] + groups["n_nonmated"]).sort_values().tolist() == sorted(
        pd.Series([k for k in keys if k is not None], dtype=object).value_counts().tolist())
