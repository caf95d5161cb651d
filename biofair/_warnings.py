"""Warnings attributed to the user's line, however deep in biofair they are raised."""

from __future__ import annotations

import functools
import os
import sys
import warnings
from pathlib import Path

#: Where biofair's own frames are (its real path).
_PACKAGE = os.path.realpath(Path(__file__).parent) + os.sep


@functools.lru_cache(maxsize=256)
def _skipped(filename: str) -> bool:
    """Whether a frame of this file is biofair's (its real path: a package imported through a
    symbolic link, such as macOS's /tmp, has frames under the link's name)."""
    return os.path.realpath(filename).startswith(_PACKAGE)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` at the first frame outside biofair.

    A fixed ``stacklevel`` names the right line only for one depth of calls: the same
    warning raised under ``fairness_summary`` or a bootstrap would point into biofair's own
    files. Attributed to the caller's line, it names the call that caused it, and the
    default filter shows it once for that line."""
    frame = sys._getframe(1)
    level = 2  # stacklevel 2 is the frame that called warn
    while frame is not None and _skipped(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
