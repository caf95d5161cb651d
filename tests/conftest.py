"""Shared fixtures: seeded score sets with and without heavy ties; nbval's kernels on Unix sockets."""

from __future__ import annotations

import os
import tempfile
import uuid

import nbval.kernel
import numpy as np
import pytest
from hypothesis import settings
from jupyter_client.manager import KernelManager

# No per-example time limit: on a loaded 2-core machine a first example that imports a module
# can take 0.8 s where the default allows 0.2 s, a failure that says nothing about the code.
# Speed is measured by benchmarks/, against a sort and against peers, not by hypothesis.
settings.register_profile("biofair", deadline=None)
settings.load_profile("biofair")


def _start_kernel_on_sockets(startup_timeout: float = 60, kernel_name: str = "python", **kwargs):
    """nbval's ``start_new_kernel`` with two changes: the kernel talks over Unix sockets named
    after a fresh UUID, not TCP ports, and a kernel that dies while starting says why.

    A TCP kernel takes five ports that its manager found free a moment before; with two test
    workers (and their kernels, Dask workers and browser) opening connections, another process
    can take one of them in between, and the kernel dies before it replies (CI saw
    "Kernel died before replying to kernel_info" for every cell of one chapter, with the
    kernel's own message lost, since nbval sends its stderr to /dev/null). Socket files under a
    unique name cannot collide. The kernel's stderr now goes to a file whose end is quoted in
    the error.
    """
    kwargs.pop("stderr").close()  # nbval's /dev/null, replaced by the file below
    transport = {"transport": "ipc", "ip": os.path.join(tempfile.gettempdir(), f"nbval-{uuid.uuid4().hex}")}
    with tempfile.TemporaryFile("w+") as stderr:
        manager = KernelManager(kernel_name=kernel_name, kernel_spec_manager=nbval.kernel.NbvalKernelspecManager(),
                                **(transport if os.name == "posix" else {}))
        manager.start_kernel(stderr=stderr, **kwargs)
        client = manager.client()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=startup_timeout)
        except RuntimeError as error:
            client.stop_channels()
            manager.shutdown_kernel()
            stderr.seek(0)
            raise RuntimeError(f"{error}; the kernel wrote:\n{stderr.read()[-4000:]}") from None
    return manager, client


nbval.kernel.start_new_kernel = _start_kernel_on_sockets


@pytest.fixture
def close_figures():
    """Close every Matplotlib figure a test left open; for the figure tests' modules
    (``pytestmark = pytest.mark.usefixtures("close_figures")``)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def random_scores(rng: np.random.Generator, *, ties: bool, n_mated: int = 150, n_nonmated: int = 600):
    """Normal scores (mated shifted by 2); with ``ties`` they are rounded to one decimal."""
    mated = rng.normal(2.0, 1.0, n_mated)
    nonmated = rng.normal(0.0, 1.0, n_nonmated)
    if ties:
        mated, nonmated = np.round(mated, 1), np.round(nonmated, 1)
    return mated, nonmated


@pytest.fixture(params=[(seed, ties) for seed in range(4) for ties in (False, True)],
                ids=lambda p: f"seed{p[0]}-{'ties' if p[1] else 'noties'}")
def scores(request):
    seed, ties = request.param
    return random_scores(np.random.default_rng(seed), ties=ties)


# Tests whose parameters are independent and slow (one chapter each) form a work unit each,
# so that pytest-xdist's --dist loadfile spreads them over the workers; every other file (a
# chapter's nbval cells above all, which share one kernel) stays one unit.
SPREAD_PER_TEST = ("tests/notebooks/test_visible_cells.py::test_visible_cells_run_on_their_own[",)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LoadFileSpreadingSlowTests(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(SPREAD_PER_TEST):
                return nodeid
            return super()._split_scope(nodeid)

    return LoadFileSpreadingSlowTests(config, log)
