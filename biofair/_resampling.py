"""Resampling plans shared by the bootstrap and the permutation null.

A plan is a list of row-index arrays, one per resample, over a score table or over the
concatenation ``(mated, nonmated)``; the metric is then called on each resample.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
from collections.abc import Callable, Iterator
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from tqdm import tqdm

from biofair._validation import as_scores
from biofair.exceptions import InsufficientComparisonsWarning
from biofair.schema import validate_scores

Unit = Literal["pair", "subject"]
Scores = pd.DataFrame | tuple[ArrayLike, ArrayLike]


@functools.lru_cache(maxsize=128)
def takes_table(metric: Callable) -> bool:
    """True if ``metric`` takes one positional argument (a table), False if two (arrays)."""
    parameters = [
        p
        for p in inspect.signature(metric).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    if len(parameters) not in (1, 2):
        raise TypeError(
            "metric must take a score table or (mated, nonmated); it requires "
            f"{len(parameters)} positional arguments"
        )
    return len(parameters) == 1


class Sample:
    """Validated data of one system: its table (if any), scores, labels and clusters."""

    def __init__(self, scores: Scores, *, cluster: str | None = None):
        if isinstance(scores, pd.DataFrame):
            self.table = validate_scores(scores)
            self.values = scores["score"].to_numpy(dtype=np.float64)
            self.mated = scores["mated"].to_numpy(dtype=bool)
        elif isinstance(scores, tuple) and len(scores) == 2:
            mated, nonmated = as_scores(scores[0], "mated"), as_scores(scores[1], "nonmated")
            self.table = None
            self.values = np.concatenate([mated, nonmated])
            self.mated = np.repeat([True, False], [mated.size, nonmated.size])
        else:
            raise TypeError("scores must be a score table or a (mated, nonmated) pair of arrays")
        self.clusters = None
        if cluster is not None:
            if self.table is None or cluster not in self.table.columns:
                raise ValueError(f"unit='subject' needs a score table with a {cluster!r} column")
            self.clusters = pd.factorize(self.table[cluster])[0]

    def __len__(self) -> int:
        return self.values.size

    def evaluate(self, metric: Callable, rows: NDArray[np.intp] | slice = slice(None)) -> float:
        """The metric on the rows ``rows`` (all by default)."""
        if takes_table(metric):
            if self.table is None:
                raise TypeError("a metric on a score table needs scores given as a table")
            return float(metric(self.table.iloc[rows]))
        values, mated = self.values[rows], self.mated[rows]
        return float(metric(values[mated], values[~mated]))


def resample_rows(
    sample: Sample, unit: Unit, n_resamples: int, rng: np.random.Generator
) -> Iterator[NDArray[np.intp]]:
    """Row indices of each bootstrap resample.

    ``"pair"``: mated and non-mated rows drawn with replacement within their class (class
    sizes kept). ``"subject"``: clusters drawn with replacement, every row of a drawn
    cluster kept, as often as the cluster was drawn.
    """
    if unit == "pair":
        mated_rows, nonmated_rows = np.flatnonzero(sample.mated), np.flatnonzero(~sample.mated)
        for _ in range(n_resamples):
            yield np.concatenate([
                rng.choice(mated_rows, mated_rows.size), rng.choice(nonmated_rows, nonmated_rows.size)
            ])
    elif unit == "subject":
        n_clusters = int(sample.clusters.max()) + 1
        rows = np.arange(len(sample))
        for _ in range(n_resamples):
            drawn = np.bincount(rng.integers(0, n_clusters, n_clusters), minlength=n_clusters)
            yield np.repeat(rows, drawn[sample.clusters])
    else:
        raise ValueError(f"unit must be 'pair' or 'subject', got {unit!r}")


@contextlib.contextmanager
def resolution_warned_once():
    """Silence InsufficientComparisonsWarning while replicates are computed: the estimate on
    all data gave it once; each resample would repeat it (hundreds of times in a report)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsufficientComparisonsWarning)
        yield


def progress(iterable, *, total: int, desc: str, show: bool | None):
    """A tqdm progress bar; ``show=None`` shows it only on an interactive terminal."""
    return tqdm(iterable, total=total, desc=desc, disable=None if show is None else not show, leave=False)
