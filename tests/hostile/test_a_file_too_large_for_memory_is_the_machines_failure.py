"""A score file too large for the machine's memory fails the analysis (exit 1), with a way forward.

The command reads the whole file before it starts the notebook; a file that needed more
memory than the machine had was called a bad file (exit 2, "a bad option, file or output
folder") in a bare line: "biofair report: error: ArrowMemoryError: malloc of size 120000000
failed" (30 million comparisons in Parquet under a 2.5 GB address-space limit). It is now exit
1, naming the file and its size, and biofair.partitions, which reads it part by part.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import biofair as bf
from biofair import cli
from hostile import EXAMPLE, FAST, FAST_DIFFERENTIAL


@pytest.mark.parametrize("error", [MemoryError("Unable to allocate 229. MiB for an array with shape (30000000,) "
                                               "and data type int64"),
                                   pa.ArrowMemoryError("malloc of size 120000000 failed"), MemoryError()])
@pytest.mark.parametrize("layout", [["--layout", "standard", *FAST], ["--layout", "differential", *FAST_DIFFERENTIAL]])
def test_a_file_too_large_for_memory_exits_1_naming_partitions(error, layout, tmp_path, run_main, monkeypatch):
    def too_large(*args, **kwargs):
        raise error

    monkeypatch.setattr(bf, "read_grouped_scores", too_large)
    status, lines = run_main(EXAMPLE, "-o", tmp_path / "out", *layout)
    assert status == 1, lines
    cause = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    assert lines == [
        f"biofair report: the analysis failed, nothing was written: {EXAMPLE} ({cli._size(EXAMPLE)}) needs more "
        f"memory than this machine could give ({cause}): the report holds every comparison in memory, several "
        "times over. Run it where there is more memory, or analyse the file part by part with biofair.partitions "
        "(pip install 'biofair[dask]'; the chapter \"When the evaluation outgrows one machine\")"]
    assert list(tmp_path.iterdir()) == []
