"""Second audit of identification and mitigation at their numerical and input edges: each
test failed on the module before its fix and checks the right answer computed apart."""

from __future__ import annotations

import re

import numpy as np
import pytest

import biofair as bf
from biofair.exceptions import SchemaError


def test_probe_identities_of_another_kind_than_the_gallery_are_refused():
    """Probe identities read as bytes (h5py gives fixed-length strings so) against a gallery
    of text: b"a" != "a", so every probe was read as not enrolled, in silence. By hand, probes
    a and b find their mates at rank 1 (0.9 > 0.2, 0.8 > 0.3) and z is not enrolled: the old
    module gave mated [False, False, False], and threshold_at_fpir then set an FPIR threshold
    on the mates' scores."""
    matrix = np.array([[0.9, 0.2], [0.3, 0.8], [0.4, 0.5]])
    as_text = bf.probe_outcomes_from_matrix(matrix, probe_subjects=["a", "b", "z"], gallery_subjects=["a", "b"],
                                            probe_groups=["x", "y", "y"])
    assert as_text["mated"].tolist() == [True, True, False] and as_text["rank"].tolist() == [1, 1, 0]
    message = "subject ids are of different kinds: bytes in probe_subjects (|S1, e.g. b'a'), text in gallery_subjects"
    for gallery in (["a", "b"], np.array(["a", "b"])):
        with pytest.raises(SchemaError, match=re.escape(message)):
            bf.probe_outcomes_from_matrix(matrix, probe_subjects=np.array([b"a", b"b", b"z"]), gallery_subjects=gallery,
                                          probe_groups=["x", "y", "y"])
    dates = np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]")
    with pytest.raises(SchemaError, match=re.escape("text in probe_subjects (str, e.g. '2020-01-01'), Timestamp "
                                                    "in gallery_subjects (datetime64[")):
        bf.probe_outcomes_from_matrix(matrix, probe_subjects=["2020-01-01", "2020-01-02", "z"],
                                      gallery_subjects=dates, probe_groups=["x", "y", "y"])
    # ids of one kind however they are held still find their mates
    for probes, gallery in (([b"a", b"b", b"z"], np.array([b"a", b"b"])), (np.array(["a", "b", "z"]), ["a", "b"]),
                            (dates[[0, 1, 1]], list(dates)), ([1, 2, 3], np.array([1.0, 2.0]))):
        outcomes = bf.probe_outcomes_from_matrix(matrix, probe_subjects=probes, gallery_subjects=gallery,
                                                 probe_groups=["x", "y", "y"])
        assert outcomes["mated"].sum() >= 2


def test_subject_disjoint_check_refuses_ids_of_two_kinds():
    """check_subject_disjoint passed a development table of bytes ids against an evaluation
    table of the same ids as text (b"a" != "a": no subject shared, though a, b and c are in
    both): ids of two kinds other than numbers and text were not compared (the audit's item,
    fixed in schema's id check, which every function comparing ids of several columns calls)."""
    import pandas as pd

    dev = pd.DataFrame({"reference_subject": [b"a", b"b"], "probe_subject": [b"a", b"c"]})
    evaluation = pd.DataFrame({"reference_subject": ["a", "b"], "probe_subject": ["a", "c"]})
    with pytest.raises(SchemaError, match=r"subject ids are of different kinds: bytes in dev\['reference_subject'\] "
                                          r"\(object, e.g. b'a'\), .*text in evaluation\['reference_subject'\].*"
                                          r"\(bytes: \[i\.decode\(\) for i in ids\]\)"):
        bf.mitigation.check_subject_disjoint(dev, evaluation)
    bf.mitigation.check_subject_disjoint(dev, dev.replace({b"a": b"x", b"b": b"y", b"c": b"z"}))  # one kind: disjoint
