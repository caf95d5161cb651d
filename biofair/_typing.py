"""The option types of biofair, defined once and shared by ``biofair`` and ``biofair.partitions``.

Every string option is a ``Literal`` of the values it accepts; the signature-parity test
compares these annotations between the in-memory and the partitioned functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

#: Grouping attribute(s): one column name or several, whose values combine into one group.
By = str | Sequence[str]
#: A source of randomness: a generator, or a seed for ``numpy.random.default_rng``.
Seed = np.random.Generator | int | None

EerMethod = Literal["rocch", "midpoint", "interval"]
ScoreKind = Literal["mated", "nonmated"]
Combine = Literal["pooled", "equal"]
MeanTail = Literal["groups", "split_mean"]
ZeroRate = Literal["upper_bound", "raise"]
Scale = Literal["linear", "log10"]
Ties = Literal["pessimistic", "optimistic"]
SubsetMetric = Literal["eer", "tmr"]
Alternative = Literal["less", "greater"]
#: What the bootstrap resamples: comparisons within their class, or whole subjects.
Unit = Literal["pair", "subject"]
#: How a bootstrapped statistic takes its data: ``(mated, nonmated)`` arrays or a table.
StatisticData = Literal["arrays", "table"]
#: How a bootstrap interval is read from the replicates.
IntervalMethod = Literal["percentile", "bca"]
#: What a missing group label means: an error, or a group of its own.
MissingGroups = Literal["raise", "group"]
#: What a group without mated or without homogeneous non-mated comparisons means: an error, or kept.
OneClassGroups = Literal["raise", "keep"]
#: Which side's cohort statistics normalise a score: reference (Z), probe (T) or both (S).
Norm = Literal["z", "t", "s"]
#: Whether lower or higher is better on an objective of a Pareto front.
Direction = Literal["min", "max"]
