"""Two pieces of work at once, one in this thread and one in another: NumPy's sorts,
searches and reductions and Arrow's hashing run without the GIL, so on two cores each
piece takes one."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

#: Values (scores or labels) from which a piece of work pays for a second thread on two
#: cores: below it, starting the thread and waiting for it cost more than they save.
IN_TWO_THREADS_FROM = 1 << 18


def here_and_there(pool: Executor | None, here: Callable[[], Any], there: Callable[[], Any]) -> tuple[Any, Any]:
    """``here()`` in this thread while ``there()`` runs in the pool's thread (without a pool,
    ``there()`` first: its temporaries are gone before ``here()`` makes its own): both results."""
    if pool is None:
        done = there()
        return here(), done
    elsewhere = pool.submit(there)
    return here(), elsewhere.result()


def in_two_threads(here: Callable[[], Any], there: Callable[[], Any]) -> tuple[Any, Any]:
    """:func:`here_and_there` with a thread of its own for ``there()``."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return here_and_there(pool, here, there)
