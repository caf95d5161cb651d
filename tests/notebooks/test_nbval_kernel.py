"""The kernels nbval starts for the chapters (tests/conftest.py): Unix sockets, and a reason when they die."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbval.kernel
import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="Unix sockets exist on POSIX systems only")


def test_nbval_kernels_use_unique_unix_sockets():
    kernel = nbval.kernel.RunningKernel("python3")
    try:
        assert kernel.km.transport == "ipc"
        sockets = [Path(f"{kernel.km.ip}-{kernel.km.shell_port}"), Path(f"{kernel.km.ip}-{kernel.km.iopub_port}")]
        assert all(path.is_socket() for path in sockets)
        reply = kernel.kc.execute_interactive("x = 6 * 7", timeout=30)
        assert reply["content"]["status"] == "ok"
    finally:
        kernel.stop()
    assert not any(path.exists() for path in sockets)  # cleaned up with the kernel


def test_a_kernel_that_dies_while_starting_says_why(tmp_path, monkeypatch):
    spec = tmp_path / "kernels" / "dying"
    spec.mkdir(parents=True)
    code = "import sys; sys.stderr.write('the reason the kernel gave'); sys.exit(1)"
    spec.joinpath("kernel.json").write_text(json.dumps(
        {"argv": [sys.executable, "-c", code, "{connection_file}"], "display_name": "dying", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="Kernel died before replying to kernel_info; the kernel wrote:\n"
                                           "the reason the kernel gave"):
        nbval.kernel.RunningKernel("dying", startup_timeout=20)
