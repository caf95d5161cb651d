"""Warnings attributed to the user's line, however deep in biofair they are raised."""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

#: Frames skipped: biofair's own, and those of ``contextlib`` that wrap a decorated function.
_SKIPPED = (str(Path(__file__).resolve().parent), contextlib.__file__)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` at the first frame outside biofair.

    A fixed ``stacklevel`` names the right line only for one depth of calls: the same
    warning raised under ``fairness_summary`` or a bootstrap would point into biofair's own
    files. Attributed to the caller's line, it names the call that caused it."""
    frame = sys._getframe(1)
    level = 2  # stacklevel 2 is the frame that called warn
    while frame is not None and frame.f_code.co_filename.startswith(_SKIPPED):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


@contextlib.contextmanager
def each_warning_once() -> Iterator[None]:
    """Give each distinct warning of a block once, when the block ends.

    A function that runs several metrics on the same data raises the same warning once per
    metric, and the default filter cannot merge them: every ``catch_warnings`` (the silenced
    resamples of a bootstrap) resets Python's record of warnings already shown. The user's
    filters still apply, inside the block ("error" raises at once) and when the warnings are
    given again."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            yield
    finally:
        for category, message in dict.fromkeys((w.category, str(w.message)) for w in caught):
            warn(message, category)
