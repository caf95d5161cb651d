"""A grouping warning about labels that look alike names a few of them, however many groups
the table has (one label or id of a file, or ten thousand of them, cannot fill a message)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import biofair as bf


@pytest.mark.parametrize("n_pairs, more", [(10, ""), (11, "; and 1 more such set"), (5000, "; and 4,990 more such sets")])
def test_labels_that_look_alike_are_named_ten_sets_at_a_time(n_pairs, more):
    """Before: 5,000 pairs of labels that differ only in case ('G0' and 'g0', ...) were all
    listed, an 88,134-character warning; the groups stay apart, and are counted right."""
    labels = np.repeat([f"G{i}" for i in range(n_pairs)] + [f"g{i}" for i in range(n_pairs)], 2)
    table = pd.DataFrame({"score": np.arange(labels.size, dtype=float),
                          "mated": np.tile([True, False], labels.size // 2), "group": labels})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sizes = bf.group_sizes(table, min_mated=1, min_nonmated=1)
    assert len(caught) == 1
    message = str(caught[0].message)
    listed = message.split(": ", 1)[1].split("; they are kept")[0]
    first = sorted(f"G{i}" for i in range(n_pairs))[:10]  # the sets in the order of the labels
    assert listed == "; ".join(f"'{label}', '{label.lower()}'" for label in first) + more
    assert message.endswith("they are kept as separate groups. Normalise the labels "
                            "(table[column].str.normalize('NFC').str.strip().str.lower()), or relabel them, if they "
                            "are one group")
    assert len(message) < 1000
    assert len(sizes) == 2 * n_pairs and (sizes["n_mated"] == 1).all() and (sizes["n_nonmated"] == 1).all()
