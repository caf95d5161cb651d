"""The warning of scores that look reversed, given by the readers and the summaries of a table.

Distances read or given as similarities reverse every rate without an error: a ROC AUC below
0.5 is the sign of it. The metrics of one number do not warn (a system can be worse than
chance); the readers and the summaries of a whole table do, once per table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from biofair._warnings import warn
from biofair.areas import roc_auc
from biofair.exceptions import ScoreDirectionWarning

#: The key of ``attrs`` by which a reader marks a table whose scores it warned look reversed.
REVERSED_WARNED = "biofair_reversed_scores_warned"


def warn_if_reversed(table: pd.DataFrame, greater_is_match: bool | None = None) -> None:
    """Warn when mated scores are mostly below non-mated ones (ROC AUC < 0.5): of all rows,
    those of every system or split the table holds (the direction is the file's).

    ``greater_is_match`` is a reader's (the advice: read the file the other way), or None for a
    table given to a summary (the advice: negate its score column). A reader marks the table it
    warns about (``attrs``), and a summary of it says nothing more: ``biofair report`` and a
    notebook show the warning once, where the file is read, not again at every summary."""
    if table.attrs.get(REVERSED_WARNED):
        return
    values, mated = table["score"].to_numpy(dtype=np.float64), table["mated"].to_numpy(dtype=bool)
    auc = roc_auc(values[mated], values[~mated])
    if auc >= 0.5:
        return
    if greater_is_match is None:
        advice = ('the scores may be distances: negate them, e.g. table.assign(score=-table["score"]), or read '
                  "the file with greater_is_match=False")
    elif greater_is_match:
        advice = "the scores may be distances: read them with greater_is_match=False (biofair report --distance)"
    else:
        advice = "the scores may be similarities: read them with greater_is_match=True (biofair report without --distance)"
    warn(f"mated scores are mostly below non-mated ones (ROC AUC = {auc:.3f} < 0.5); {advice}", ScoreDirectionWarning)
    if greater_is_match is not None:
        table.attrs[REVERSED_WARNED] = True
