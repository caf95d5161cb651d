"""The ``run_main`` fixture: ``biofair report`` called in this process."""

from __future__ import annotations

import signal

import pytest

from biofair import cli
from hostile import as_from_a_terminal


@pytest.fixture
def run_main(capsys):
    """Call ``biofair`` in this process; return (exit status, stderr lines)."""

    def run(*args) -> tuple[int, list[str]]:
        handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        as_from_a_terminal()  # main() keeps a signal ignored on entry: a test run in the background ignores SIGINT
        try:
            status = cli.main(["report", *map(str, args)])
        except SystemExit as exit_:  # argparse rejected an option
            status = exit_.code
        finally:  # main() leaves signals ignored, and after one the unwinding silenced, until
            for signum, handler in handlers.items():  # its process ends; this one goes on
                signal.signal(signum, handler)
            cli._silence_unwinding_noise(False)
        return status, capsys.readouterr().err.strip().splitlines()

    return run


@pytest.fixture
def dask_synchronous():
    """Dask's tasks run one after the other in this process (errors raised where they occur)."""
    import dask

    with dask.config.set(scheduler="synchronous"):
        yield
