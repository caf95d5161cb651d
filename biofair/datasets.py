"""Score sets: the small example shipped with the package, and real score sets read from the
packages that distribute them (never copied here).

Read more in the chapter "Audit two real speaker verifiers" (``notebooks/08``) and the
data card ``data/README.md``.
"""

from __future__ import annotations

import atexit
import contextlib
import os
from importlib.metadata import PackageNotFoundError, distribution
from importlib.resources import as_file, files
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from biofair._validation import check_choice, check_flag
from biofair.schema import validate_scores

#: The speaker embedders whose VoxCeleb1-H scores :func:`load_voxceleb1h` reads.
VOXCELEB_MODELS = ("resnetse34v2", "resnetse34l")
#: The pinned distribution the VoxCeleb1-H scores come from.
BT4VT_REQUIREMENT = "bt4vt==1.0.1"
#: Trials and mated trials of the VoxCeleb1-H list, the same for both models.
_VOXCELEB1H_TRIALS, _VOXCELEB1H_MATED = 550_894, 275_488

_files = contextlib.ExitStack()  # keeps extracted package data on disk until exit
atexit.register(_files.close)


def example_scores_path() -> Path:
    """The path of the small example score file shipped inside the package.

    Read more in the chapter "Analyse your own system" and in the data card.

    Returns
    -------
    pathlib.Path
        ``biofair/data/example_scores.csv`` of the installed package (a real file on disk,
        extracted for the life of the process if the package is imported from an archive):
        7,920 comparisons of 120 synthetic subjects in three groups, with columns
        ``reference_subject``, ``probe_subject``, ``group``, ``score`` and ``mated``.

    See Also
    --------
    biofair.read_grouped_scores : Reads it for a fairness analysis.
    biofair.fairness_summary : The summary ``biofair report`` shows of it.

    References
    ----------
    The data card ``data/README.md`` of the repository and its generator,
    ``data/make_example_scores.py`` (seeded).

    Examples
    --------
    >>> import biofair as bf
    >>> path = bf.datasets.example_scores_path()
    >>> path.name, path.is_file()
    ('example_scores.csv', True)
    """
    return _files.enter_context(as_file(files("biofair") / "data" / "example_scores.csv"))


def cache_dir() -> Path:
    """Where compact copies of downloaded score sets live.

    Read more in the data card ``data/README.md``.

    Returns
    -------
    pathlib.Path
        ``$BIOFAIR_CACHE`` when set and not empty, else ``~/.cache/biofair``; it may not
        exist yet.

    Raises
    ------
    RuntimeError
        When ``BIOFAIR_CACHE`` is not set and the home directory cannot be determined (no
        ``HOME`` and no password entry for the user: Python's ``Path.home()``).

    See Also
    --------
    biofair.datasets.load_voxceleb1h : Keeps its Parquet copy there.

    References
    ----------
    XDG Base Directory Specification (``~/.cache`` for non-essential cached data).

    Examples
    --------
    >>> import biofair as bf
    >>> bf.datasets.cache_dir().is_absolute()
    True
    """
    if os.environ.get("BIOFAIR_CACHE"):  # no home directory is looked up then (there may be none)
        return Path(os.environ["BIOFAIR_CACHE"])  # an empty value is unset (XDG): it meant the working folder
    return Path.home() / ".cache" / "biofair"


def _bt4vt_file(name: str) -> Path:
    """A data file of the installed bt4vt distribution, located without importing bt4vt."""
    try:
        path = Path(distribution("bt4vt").locate_file(f"bt4vt/data/{name}"))
    except PackageNotFoundError:
        raise ModuleNotFoundError(
            f"the VoxCeleb1-H scores come from the PyPI package bt4vt (GPL-3.0), which is not "
            f"installed: run `pip install --no-deps {BT4VT_REQUIREMENT}` (the Makefile does)"
        ) from None
    if not path.is_file():
        raise FileNotFoundError(f"bt4vt is installed but {path} is missing; reinstall {BT4VT_REQUIREMENT}")
    return path


def _read_voxceleb1h(model: str) -> pd.DataFrame:
    scores = pd.read_csv(_bt4vt_file(f"{model}_H-eval_scores.csv"))
    meta = pd.read_csv(_bt4vt_file("vox1_meta.csv"), sep="\t").set_index("VoxCeleb1 ID")
    table = pd.DataFrame(
        {
            "score": scores["sc"].to_numpy(dtype=np.float64),
            "mated": scores["lab"].to_numpy() == 1,
            "reference_id": scores["ref_file"],
            "probe_id": scores["com_file"],
            "reference_subject": scores["ref_file"].str.split("/").str[0],
            "probe_subject": scores["com_file"].str.split("/").str[0],
        }
    )
    for side in ("reference", "probe"):
        speakers = table[f"{side}_subject"]
        table[f"{side}_gender"] = speakers.map(meta["Gender"])
        table[f"{side}_nationality"] = speakers.map(meta["Nationality"])
    table["system"] = model
    categorical = [c for c in table.columns if c not in ("score", "mated")]
    return table.astype({c: "category" for c in categorical})


def load_voxceleb1h(
    model: Literal["resnetse34v2", "resnetse34l"] = "resnetse34v2", *, cache: bool = True
) -> pd.DataFrame:
    """VoxCeleb1-H evaluation scores of a pretrained speaker verifier, with demographics.

    Read more in the chapter "Audit two real speaker verifiers" and in ``data/README.md``.

    Parameters
    ----------
    model : {"resnetse34v2", "resnetse34l"}, default "resnetse34v2"
        One of the two ResNet speaker embedders whose scores bt4vt 1.0.1 distributes; both
        scored the same 550,894 trials (the VoxCeleb1-H list: every pair shares gender
        and nationality).
    cache : bool, default True
        Keep a compact Parquet copy in :func:`cache_dir` so that the next load is fast.

    Returns
    -------
    pandas.DataFrame
        A validated score table: ``score`` (cosine-type similarity), ``mated``,
        ``reference_id`` / ``probe_id`` (utterance paths), ``reference_subject`` /
        ``probe_subject`` (speaker ids, the path prefix), ``reference_gender``,
        ``reference_nationality``, ``probe_gender``, ``probe_nationality`` and ``system``,
        in this order.

    Raises
    ------
    ValueError
        When ``model`` is not one of :data:`VOXCELEB_MODELS` (checked before anything is read).
    TypeError
        When ``cache`` is not True or False (checked before anything is read).
    ModuleNotFoundError
        When bt4vt is not installed, with the command that installs it.
    FileNotFoundError
        When bt4vt is installed but one of its score or metadata files is missing.
    ValueError
        When bt4vt's scores do not hold the 550,894 trials (275,488 mated) of the list. A
        cached copy that does not, that cannot be read, or whose ``system`` is not ``model`` is
        replaced by one read from bt4vt.
    SchemaError
        When a label contradicts the speaker ids or a speaker lacks metadata.

    See Also
    --------
    biofair.datasets.cache_dir : Where the compact copy is kept.
    biofair.group_sizes : The comparisons per gender or nationality.

    References
    ----------
    A. Nagrani, J. S. Chung and A. Zisserman, "VoxCeleb: a large-scale speaker
    identification dataset", Interspeech 2017 (the VoxCeleb1-H trial list). The bt4vt
    package (Bias Testing for Voice Technologies), version 1.0.1, which distributes the scores.

    Examples
    --------
    >>> import biofair as bf
    >>> table = bf.datasets.load_voxceleb1h("resnetse34v2")
    >>> len(table), int(table["mated"].sum())
    (550894, 275488)
    """
    check_choice(model, "model", VOXCELEB_MODELS)
    cache = check_flag(cache, "cache")  # cache="no" wrote a copy, as any text did
    cached = cache_dir() / f"voxceleb1h-{model}-bt4vt-1.0.1.parquet"
    if cache and cached.is_file():
        with contextlib.suppress(OSError, ValueError):  # unreadable (e.g. truncated): read the source again
            table = pd.read_parquet(cached)
            # never a copy that lost rows, nor another model's saved under this name (the counts are the same)
            if _is_voxceleb1h(table) and table["system"].eq(model).all():
                return validate_scores(table)
    table = validate_scores(_read_voxceleb1h(model))
    if not _is_voxceleb1h(table):
        raise ValueError(
            f"bt4vt's {model} scores hold {len(table):,} trials ({int(table['mated'].sum()):,} mated), not the "
            f"{_VOXCELEB1H_TRIALS:,} ({_VOXCELEB1H_MATED:,} mated) of VoxCeleb1-H: reinstall {BT4VT_REQUIREMENT}"
        )
    if cache:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")  # one per process: two loads never share it
        table.to_parquet(partial, index=False)
        partial.replace(cached)  # never leave a half-written cache behind
    return table


def _is_voxceleb1h(table: pd.DataFrame) -> bool:
    """Whether ``table`` has the trials and mated trials of the VoxCeleb1-H list."""
    return len(table) == _VOXCELEB1H_TRIALS and "mated" in table and int(table["mated"].sum()) == _VOXCELEB1H_MATED


__all__ = [
    "BT4VT_REQUIREMENT",
    "VOXCELEB_MODELS",
    "cache_dir",
    "example_scores_path",
    "load_voxceleb1h",
]
