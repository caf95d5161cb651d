"""Each benchmark script owns one "## ..." section of results.md and rewrites only that one;
every section names the machine it was measured on."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import numpy as np
import pandas as pd


def machine() -> str:
    """The system, the CPU model and whether it has AVX-512 (NumPy's float sort is about 3x
    faster with it, which moves every ratio to the sort floor), cores, memory and versions."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next((line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")),
                 platform.processor() or "CPU unknown")
    avx512 = "with AVX-512" if " avx512f " in cpuinfo.replace("\n", " ") else "without AVX-512"
    return (f"{platform.platform()}, {model} {avx512}, {os.cpu_count()} cores, {memory:.0f} GiB, Python "
            f"{platform.python_version()}, NumPy {np.__version__}, pandas {pd.__version__}")


def replace_section(path: Path, heading: str, section: str) -> None:
    """Put ``section`` (starting with ``heading``) in place of the old one, or append it."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    if heading in text:
        before, _, after = text.partition(heading)
        rest = after[after.find("\n## ") + 1 :] if "\n## " in after else ""
        text = before.rstrip("\n") + ("\n\n" + rest if rest else "")
    path.write_text(f"{text.rstrip()}\n\n{section.rstrip()}\n")
