"""The software behind a result, printed at the end of every chapter."""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version

_PACKAGES = ("biofair", "numpy", "scipy", "pandas", "matplotlib")


def show_versions() -> None:
    """Print Python, the platform and the versions of biofair and its dependencies."""
    lines = [f"python: {sys.version.split()[0]}", f"platform: {platform.platform()}"]
    for name in _PACKAGES:
        try:
            lines.append(f"{name}: {version(name)}")
        except PackageNotFoundError:
            lines.append(f"{name}: not installed")
    print("\n".join(lines))
