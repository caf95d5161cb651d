"""Seeded synthetic score tables for teaching and testing.

Read more in the chapter "Compute error rates from scores" (``notebooks/01``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def gaussian_scores(
    *,
    n_mated: int = 1_000,
    n_nonmated: int = 10_000,
    mated_mean: float = 2.0,
    mated_std: float = 1.0,
    nonmated_std: float = 1.0,
    tail_share: float = 0.0,
    tail_mean: float = 3.0,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """A score table with normal mated and non-mated scores.

    Parameters
    ----------
    n_mated, n_nonmated : int
        Numbers of mated and non-mated comparisons (each at least 1).
    mated_mean, mated_std : float
        Mated scores follow N(mated_mean, mated_std²).
    nonmated_std : float
        Non-mated scores follow N(0, nonmated_std²) ...
    tail_share, tail_mean : float
        ... except a share ``tail_share`` of them, drawn from N(tail_mean, nonmated_std²):
        a heavy right tail of look-alike impostors, which barely moves the ROC area but
        ruins low-FMR operation.
    rng : numpy.random.Generator or int, optional
        Source of randomness or a seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``score`` and ``mated``: mated rows first.

    Examples
    --------
    >>> table = gaussian_scores(n_mated=3, n_nonmated=5, rng=0)
    >>> table["mated"].tolist()
    [True, True, True, False, False, False, False, False]
    """
    if n_mated < 1 or n_nonmated < 1:
        raise ValueError(f"n_mated and n_nonmated must be at least 1, got {n_mated} and {n_nonmated}")
    if not 0.0 <= tail_share <= 1.0:
        raise ValueError(f"tail_share must lie in [0, 1], got {tail_share!r}")
    rng = np.random.default_rng(rng)
    mated = rng.normal(mated_mean, mated_std, n_mated)
    in_tail = rng.random(n_nonmated) < tail_share
    nonmated = rng.normal(np.where(in_tail, tail_mean, 0.0), nonmated_std)
    return pd.DataFrame(
        {
            "score": np.concatenate([mated, nonmated]),
            "mated": np.repeat([True, False], [n_mated, n_nonmated]),
        }
    )
