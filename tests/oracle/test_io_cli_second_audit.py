"""Second audit of the readers (biofair.io) and ``biofair report`` (biofair.cli) at their
numerical and textual edges: every value is compared with what the file holds, read
independently (Python's int and float, the csv module), or the file is refused naming
the row."""

from __future__ import annotations

import re
import warnings

import pytest

import biofair as bf

def quiet_read(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the example scores read as distances: not the point here
        return bf.read_scores(path, **options)


@pytest.mark.parametrize("word", ["NA", "null", "None", "nan", "N/A", "NaN", "n/a"])
def test_bob_ids_that_pandas_reads_as_missing_are_kept_as_written(tmp_path, word):
    """A bob file's ids were read with pandas' default missing words: subject 'NA' (Namibia's
    code, or a pseudonym) was refused as a missing id, and a probe id 'null' became NaN without
    a word; a CSV file keeps such labels as written. The fields are compared with str.split."""
    path = tmp_path / "scores.txt"
    lines = [f"{word} {word} {word} 0.9", f"{word} b p2 0.1", f"b b p3 0.8", f"b {word} {word} 0.2"]
    path.write_text("\n".join(lines) + "\n")
    table = bf.read_scores(path, format="bob")
    fields = [line.split() for line in lines]
    assert table["reference_subject"].tolist() == [f[0] for f in fields]
    assert table["probe_subject"].tolist() == [f[1] for f in fields]
    assert table["probe_id"].tolist() == [f[2] for f in fields]
    assert table["mated"].tolist() == [f[0] == f[1] for f in fields]
    assert table["score"].tolist() == [float(f[3]) for f in fields]
    people = tmp_path / "people.csv"
    people.write_text(f"subject,group\n{word},x\nb,y\n")
    grouped = bf.read_grouped_scores(path, format="bob", subjects=people, one_class_groups="keep")
    assert grouped["reference_group"].tolist() == ["x", "x", "y", "y"]
    assert grouped["probe_group"].tolist() == ["x", "y", "y", "x"]


def test_bob_scores_written_as_missing_words_are_still_named_as_nan(tmp_path):
    """Keeping a bob file's ids as written keeps its score words: 'NA' is no number, named by
    its comparison (as before)."""
    path = tmp_path / "scores.txt"
    path.write_text("a a p1 NA\na b p2 0.1\nb b p3 0.8\nb a p4 0.2\n")
    with pytest.raises(bf.SchemaError, match=re.escape("column 'score' has 1 NaN and 0 infinite values "
                                                       "(first in comparison 1)")):
        bf.read_scores(path, format="bob")
