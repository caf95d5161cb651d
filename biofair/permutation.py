"""Permutation null of a fairness index: its value when groups do not matter.

Read more in the chapter "Choose CEI's parameters" (``notebooks/04``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from biofair._resampling import progress
from biofair.groups import By, group_codes
from biofair.schema import validate_scores


class PermutationNull(NamedTuple):
    """An observed index, its permutation null distribution and the p-value."""

    observed: float
    null: NDArray[np.float64]
    p_value: float
    n_permutations: int
    alternative: str


def _shuffle_plan(scores: pd.DataFrame, by: By, cluster: str | None):
    """A function returning one permuted copy of ``scores`` per call."""
    attributes = [by] if isinstance(by, str) else list(by)
    pair_level = [a for a in attributes if a in scores.columns]
    per_side = [a for a in attributes if a not in scores.columns]
    group_codes(scores, by)  # raises a clear error for a missing group column
    if cluster is not None and cluster in scores.columns:
        # Move whole subjects: each subject keeps its rows, and its group travels with it.
        subjects = pd.factorize(scores[cluster])[0]
        first_row = pd.Series(np.arange(len(scores))).groupby(subjects).first().to_numpy()

        def shuffled(rng: np.random.Generator) -> pd.DataFrame:
            donor = rng.permutation(first_row)  # subject s takes the groups of subject donor[s]
            table = scores.copy()
            rows = donor[subjects]
            for attribute in pair_level:
                table[attribute] = scores[attribute].to_numpy()[rows]
            for attribute in per_side:
                for side in ("reference", "probe"):
                    column = f"{side}_{attribute}"
                    table[column] = scores[column].to_numpy()[rows]
            return table

        return shuffled
    if per_side:
        raise ValueError(
            f"per-side group columns {['reference_' + a for a in per_side]} can only be "
            "shuffled by subject: give cluster= a subject column"
        )
    mated = scores["mated"].to_numpy(dtype=bool)

    def shuffled(rng: np.random.Generator) -> pd.DataFrame:
        # Shuffle labels within each class so that every group keeps its class sizes.
        rows = np.arange(len(scores))
        for in_class in (mated, ~mated):
            members = rows[in_class]
            rows[in_class] = rng.permutation(members)
        table = scores.copy()
        for attribute in pair_level:
            table[attribute] = scores[attribute].to_numpy()[rows]
        return table

    return shuffled


def permutation_null(
    index: Callable[[pd.DataFrame], float],
    scores: pd.DataFrame,
    *,
    by: By = "group",
    n_permutations: int = 200,
    cluster: str | None = "reference_subject",
    alternative: Literal["less", "greater"] = "less",
    rng: np.random.Generator | int | None = None,
    progress_bar: bool | None = None,
) -> PermutationNull:
    """The distribution of a fairness index when group labels carry no information.

    Read more in the chapter "Choose CEI's parameters".

    Parameters
    ----------
    index : callable
        ``index(table) -> float``, e.g. ``lambda t: bf.comprehensive_equity_index(t).extreme``.
    scores : pandas.DataFrame
        Score table with the group column(s) of ``by``.
    by : str or sequence of str, default "group"
        The grouping attribute(s) to shuffle.
    n_permutations : int, default 200
        Permutations.
    cluster : str or None, default "reference_subject"
        When this column exists, labels are shuffled between subjects: a subject keeps all
        its comparisons and takes another subject's group. Otherwise labels are shuffled
        between comparisons within each class (group class sizes kept).
    alternative : {"less", "greater"}, default "less"
        Direction of unfairness: "less" for indices where 1 is fair (FDR, DFI, CEI),
        "greater" for GARBE, Inequity and N-Sigma.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.
    progress_bar : bool, optional
        Show a progress bar; by default only on an interactive terminal.

    Returns
    -------
    PermutationNull
        ``observed``, the ``null`` values, and ``p_value = (1 + #{null at least as unfair as
        observed}) / (1 + n_permutations)``.

    Notes
    -----
    Finite samples make DFI and CEI fall below 1 even for identical groups; the null shows
    how far, so that an observed value is read against it rather than against 1.
    """
    if n_permutations < 1:
        raise ValueError(f"n_permutations must be at least 1, got {n_permutations}")
    if alternative not in ("less", "greater"):
        raise ValueError(f"alternative must be 'less' or 'greater', got {alternative!r}")
    validate_scores(scores)
    rng = np.random.default_rng(rng)
    shuffled = _shuffle_plan(scores, by, cluster)
    observed = float(index(scores))
    null = np.array(
        [
            float(index(shuffled(rng)))
            for _ in progress(range(n_permutations), total=n_permutations, desc="permutations", show=progress_bar)
        ]
    )
    extreme = null <= observed if alternative == "less" else null >= observed
    p_value = (1 + int(extreme.sum())) / (1 + n_permutations)
    return PermutationNull(observed, null, p_value, n_permutations, alternative)
