"""The ``run_main`` fixture: ``biofair report`` called in this process."""

from __future__ import annotations

import pytest

from biofair import cli


@pytest.fixture
def run_main(capsys):
    """Call ``biofair`` in this process; return (exit status, stderr lines)."""

    def run(*args) -> tuple[int, list[str]]:
        try:
            status = cli.main(["report", *map(str, args)])
        except SystemExit as exit_:  # argparse rejected an option
            status = exit_.code
        return status, capsys.readouterr().err.strip().splitlines()

    return run
