"""The software behind a result, printed at the end of every chapter."""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version

_PACKAGES = ("biofair", "numpy", "scipy", "pandas", "matplotlib")
#: The extras' packages that decide a result: the reading of Parquet files and the out-of-core
#: metrics (``biofair[dask]``), and the execution of ``biofair report`` (``biofair[report]``).
_EXTRAS = ("pyarrow", "dask", "distributed", "papermill", "nbconvert", "jupytext")


def show_versions() -> None:
    """Print Python, the platform and the versions of biofair, its dependencies and its extras.

    Every chapter ends with it, so that a result can be traced to the software behind it.

    Returns
    -------
    None
        The versions are printed, one ``name: version`` per line (``not installed`` for an
        extra's package that is absent).

    See Also
    --------
    biofair.cli.main : ``biofair report`` ends its report with these versions.

    References
    ----------
    PyMC's notebook style guide (an environment cell at the end of every notebook).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.show_versions()  # doctest: +ELLIPSIS
    python: ...
    biofair: 0.1.0
    ...
    """
    lines = [f"python: {sys.version.split()[0]}", f"platform: {platform.platform()}"]
    for name in _PACKAGES + _EXTRAS:
        try:
            lines.append(f"{name}: {version(name)}")
        except PackageNotFoundError:
            lines.append(f"{name}: not installed")
    print("\n".join(lines))
