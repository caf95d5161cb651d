"""The ``biofair`` command: ``biofair report SCORES -o OUTDIR``.

A run checks every option, claims OUTDIR, reads the file and computes every estimate once
before it starts the notebook; it writes into a hidden work folder and moves the finished
report into place as its last step, so a new OUTDIR is either absent or complete. Into an
existing empty OUTDIR the files move one by one, the JSON file (summary.json or
differential.json) last: a run killed (SIGKILL) or crashed between two moves leaves part of
the report there, never the JSON file, so a reader who finds it finds the whole report. Read
more in the chapter "Analyse your own system" (``notebooks/13``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import hashlib
import importlib.util
import json
import logging
import math
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from importlib.resources import as_file, files
from pathlib import Path

from biofair import __version__
from biofair._validation import SMALLEST_BOUND, fewest_resamples, python_command, strict_json, too_few_resamples

_TEMPLATE = files("biofair") / "report_template.md"  # the chapter "Analyse your own system"
_OUTPUTS = ("report.ipynb", "report.html", "summary.json")
_EXIT_FAILED, _EXIT_USAGE = 1, 2
_CONFIDENCE = 0.95  # of every interval either layout reports (the default of biofair.summary and differential_report)
#: The size (bytes on disk) from which a file's reading and checking take seconds: the run
#: announces its stages on stderr (see :class:`_Stages`).
_LARGE_FILE_BYTES = 16 << 20

#: The shipped example, as a shell takes its path: the first example of the help runs as copied,
#: whichever python (if any) the shell would find.
_EXAMPLE_FILE = shlex.quote(str(files("biofair") / "data" / "example_scores.csv"))

_EXAMPLES = f"""\
examples:
  biofair report {_EXAMPLE_FILE} -o report
  biofair report scores.parquet --columns sim=score,label=mated --by ethnicity -o report
  biofair report scores-dev --subjects people.csv --by gender --distance -o report
  biofair report scores.csv --by gender age --fmr-targets 1e-2,1e-3,1e-4 -n 1000 -o report
  biofair report scores.csv --layout differential --by gender --operating-fmr 1e-3 -o audit

Writes OUTDIR/report.ipynb (executed), OUTDIR/report.html (figures inline) and
OUTDIR/summary.json (every metric, its 95% interval where resampled, the resolution of every
rate at a target, the settings of every index, each group's FMR and FNMR at the operating
threshold with their counts, Clopper-Pearson intervals and resolution (rules of three and
thirty), how many rows each grouping rule affected, the file's size and SHA-256, and the
run's warnings, on stderr or on the page, each with its category, message and the section and
cell that show it; the JSON follows biofair/data/summary.schema.json).
Options, OUTDIR and the file are checked first; the report appears in OUTDIR only when it is
complete, with one exception: into an OUTDIR that existed, its files move one by one, the JSON
last, so a run killed (kill -9) during the moves can leave some of them; the JSON file there
means the whole report is.
With --layout differential: OUTDIR/report.html and OUTDIR/differential.json (per-group FMR
and FNMR at one threshold with Clopper-Pearson, Wilson and subject-clustered bootstrap
intervals, ratios between groups against --tolerance, sufficiency, cross-group FMR; the
JSON follows biofair/data/differential_report.schema.json); a group without mated or without
homogeneous non-mated comparisons, which the standard layout refuses, is reported with the
rate it lacks marked 'no comparisons'. On a file of {_LARGE_FILE_BYTES >> 20} MiB or more,
each stage (reading, checking, computing, writing) is announced on stderr with the seconds
since the start, on a terminal or with --progress; stdout has one line, the report's. Exit
status: 0 done, 1 the analysis failed, 2 a bad option, file or output folder; interrupted:
130 (Ctrl-C), 143 (SIGTERM), 129 (SIGHUP).
"""


class _UsageError(Exception):
    """A problem with the command line, the score file or OUTDIR: exit status 2."""


class _AnalysisError(Exception):
    """The report could not be computed or written: exit status 1."""


class _Stopped(KeyboardInterrupt):
    """The run received SIGINT (Ctrl-C), SIGTERM or SIGHUP."""


# -- options: each is checked when it is parsed (argparse exits 2 naming it) ------------------


def _integer(minimum: int) -> Callable[[str], int]:
    """An option type: an integer of at least ``minimum`` (1: positive, 0: non-negative)."""
    kind = "positive" if minimum == 1 else "non-negative"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a {kind} integer, got {text!r}")
        return value

    return parse


_positive_integer, _seed = _integer(1), _integer(0)


def _resamples(text: str) -> int:
    """An option type: enough bootstrap resamples for the report's 95 % intervals, and not so
    many that one array of their values (8 bytes each) outgrows the machine's memory."""
    value = _positive_integer(text)
    if too_few := too_few_resamples(value, _CONFIDENCE):
        raise argparse.ArgumentTypeError(f"{value} resamples are {too_few}")
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # Windows has no sysconf: the run finds out itself
        return value
    if value * 8 > memory:
        raise argparse.ArgumentTypeError(
            f"{value:,} resamples would need {value * 8 / 1e9:,.0f} GB for one array of their values, more than "
            f"this machine's {memory / 1e9:,.0f} GB of memory; give fewer, e.g. 1000 (the default)"
        )
    return value


def _number(text: str, low: float, high: float, *, open_ends: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and ((low < value < high) if open_ends else (low <= value <= high))):
        interval = f"({low:g}, {high:g})" if open_ends else f"[{low:g}, {high:g}]"
        raise argparse.ArgumentTypeError(f"expected a number in {interval}, got {text!r}")
    return value


def _rate(text: str) -> float:
    """An FMR: in (0, 1), as the functions take it (at 1 every comparison is a match)."""
    return _number(text, 0.0, 1.0, open_ends=True)


def _weight(text: str) -> float:
    return _number(text, 0.0, 1.0, open_ends=False)


def _rates(text: str) -> list[float]:
    """FMR targets: two or more, distinct, each in [2**-1022, 1) (as biofair.fairness_summary
    takes them: they are also the bounds of its areas)."""
    values = [_rate(item) for item in text.split(",") if item.strip()]
    if small := [value for value in values if value < SMALLEST_BOUND]:
        raise argparse.ArgumentTypeError(
            f"each FMR target at least 2**-1022 = {SMALLEST_BOUND!r}, got {small[0]!r} in {text!r}: the targets are "
            "also the bounds of the partial-AUC rows, and the smallest the lower bound of the log-FMR area, which "
            "divide by it; give a small positive target instead, e.g. 1e-6"
        )
    if len(set(values)) < len(values):
        raise argparse.ArgumentTypeError(f"each FMR target once, got {text!r}")
    if len(values) < 2:
        raise argparse.ArgumentTypeError(
            f"at least two FMR targets (the area under FDR spans them), got {text!r}"
        )
    return values


def _mapping(text: str) -> dict[str, str]:
    """Parse ``a=b,c=d`` (file column = canonical column)."""
    pairs = [item.split("=", 1) for item in text.split(",") if item]
    if not pairs or any(len(pair) != 2 or not all(pair) for pair in pairs):
        raise argparse.ArgumentTypeError(f"expected file_column=canonical_column[,...], got {text!r}")
    sources = [source for source, _ in pairs]
    targets = [target for _, target in pairs]
    if len(set(sources)) < len(sources) or len(set(targets)) < len(targets):
        raise argparse.ArgumentTypeError(f"each file column and each canonical column once, got {text!r}")
    return dict(pairs)


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 1):
        raise argparse.ArgumentTypeError(f"expected a number above 1, got {text!r}")
    return value


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _refuse_unless_utf8(text: str, what: str, instead: str) -> None:
    """Refuse a path that is not UTF-8 text (bytes that are not, which Python keeps as
    surrogates), as given or where its symbolic links lead (the report names the file and the
    folder by their real paths): the report writes the paths of its file and its folder into
    its notebook, page and JSON, which hold UTF-8 text only (the write failed with a
    UnicodeEncodeError once the analysis was done)."""
    given, real = os.path.abspath(text), os.path.realpath(text)
    for path in (given, real):
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            led = "" if path == given else f" (where {given!r} leads)"
            raise argparse.ArgumentTypeError(
                f"{path!r}{led} is not UTF-8 text (\\udcXX stands for a byte that is not): the report writes its "
                f"{what}'s path into its pages and JSON; {instead}"
            ) from None


def _existing_file(text: str) -> Path:
    from biofair.io import _file_problem

    if not text:  # Path("") is ".", a folder
        raise argparse.ArgumentTypeError("the file name is empty (a command substitution, \"$(...)\", that printed "
                                         "nothing? run it alone to see why); give a file")
    if problem := _file_problem(Path(text), "file"):
        raise argparse.ArgumentTypeError(problem)
    _refuse_unless_utf8(text, "file", "give a file whose path is UTF-8 (rename it, or give a copy)")
    return Path(text)


def _output_folder(text: str) -> Path:
    """A folder to write the report into: not an empty path, nor the root of the file system
    (``/``, or a path such as ``/tmp/..`` that resolves to it), which has no name to publish the
    report under."""
    if not text:
        raise argparse.ArgumentTypeError("the folder name is empty; give a new or an empty folder")
    if not Path(os.path.abspath(text)).name:
        raise argparse.ArgumentTypeError(f"{text!r} is the root of the file system; give a new or an empty folder")
    _refuse_unless_utf8(text, "folder", "give a folder whose path is UTF-8")
    return Path(text)


class _Distinct(argparse.Action):
    """Store a list of distinct, non-empty names."""

    def __call__(self, parser, namespace, values, option_string=None):
        if len(set(values)) < len(values) or not all(values):
            raise argparse.ArgumentError(self, f"each attribute once, got {values}")
        setattr(namespace, self.dest, values)


def _build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        prog="biofair", description="Performance and fairness of biometric verification from scores."
    )
    parser.add_argument("--version", action="version", version=f"biofair {__version__}",
                        help="show biofair's version and exit (an auditor's record of what produced a report)")
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser(
        "report",
        help="analyse one score file: executed notebook, HTML page and JSON summary",
        description="Measure the performance and the fairness across groups of one score file, with intervals.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    report.add_argument("scores", type=_existing_file, help="score file: CSV, TSV, Parquet or a bob score file (may be compressed)")
    report.add_argument("-o", "--output", type=_output_folder, required=True,
                        help="output folder: must not exist, or be empty; it appears when the report is complete")
    report.add_argument("--columns", type=_mapping, default={}, metavar="MAP",
                        help="rename file columns to score, mated, group, ...: e.g. sim=score,label=mated")
    report.add_argument("--by", nargs="+", action=_Distinct, default=["group"], metavar="ATTR",
                        help="attribute(s) whose groups are compared (default: group)")
    report.add_argument("--missing-groups", default="raise", choices=["raise", "group"],
                        help="rows with an empty (or blank) group label: stop with an error (default), or form "
                             "the group '(missing)'")
    report.add_argument("--subjects", type=_existing_file, metavar="CSV",
                        help="subject attributes (columns subject, gender, ...) joined to both sides")
    report.add_argument("--distance", action="store_true", help="scores are distances (lower = more similar)")
    report.add_argument("--format", default="auto", choices=["auto", "csv", "parquet", "bob"],
                        help="file format (default: by suffix, then by content)")
    report.add_argument("--decimal", default=".", choices=[".", ","],
                        help="decimal mark of scores written as text: ',' for a spreadsheet's export with scores "
                             "such as 0,83, whose fields are separated by ';' or tabs (every other column stays "
                             "text, as written; the --subjects file, which holds no scores, may have its fields separated by "
                             "',', ';' or tabs whatever the mark) (default: .)")
    report.add_argument("--fmr-targets", type=_rates, metavar="LIST",
                        help="standard layout: two or more FMR targets, comma-separated (default: "
                             "1e-1,1e-2,1e-3)")
    report.add_argument("--operating-fmr", type=_rate, metavar="FMR",
                        help="FMR of the one threshold: standard layout, for GARBE and Inequity, set on the "
                             "pooled same-group (homogeneous) non-mated scores; differential layout, the operational "
                             "threshold, set on all non-mated scores, cross-group ones included (default: 1e-2)")
    report.add_argument("--alpha", type=_weight,
                        help="standard layout: FDR weight of FMR gaps, in [0, 1] (default: 0.5)")
    report.add_argument("-n", "--n-resamples", type=_resamples, default=1000, metavar="B",
                        help=f"bootstrap resamples, at least {fewest_resamples(_CONFIDENCE)} (default: 1000)")
    report.add_argument("--n-permutations", type=_positive_integer, metavar="P",
                        help="standard layout: permutations of the FDR area's and CEI's nulls (default: 200)")
    report.add_argument("--seed", type=_seed, default=0, help="random seed, a non-negative integer (default: 0)")
    report.add_argument("--progress", action="store_true", default=None,
                        help="show progress on stderr even when it is not a terminal (a CI log; default: only on "
                             "a terminal): each stage of a run on a file of "
                             f"{_LARGE_FILE_BYTES >> 20} MiB or more (reading, checking, computing, writing) with "
                             "the time since the start, and the standard layout's notebook cells")
    report.add_argument("--layout", default="standard", choices=["standard", "differential"],
                        help="standard: the performance and fairness summary (notebook, HTML, JSON); differential: the "
                             "demographic differential audit at one threshold (HTML, JSON) (default: standard)")
    report.add_argument("--threshold", type=_finite, metavar="T",
                        help="differential layout: the operational threshold, in the file's units (with "
                             "--distance, a match is a distance at or below it; scores stored as float32 are "
                             "compared with T rounded to float32, as the system that stored them would; default: "
                             "set at --operating-fmr on all non-mated scores)")
    report.add_argument("--reference", metavar="GROUP",
                        help="differential layout: the group rates are compared to (default: the resolved group "
                             "with the lowest rate)")
    report.add_argument("--tolerance", type=_tolerance, metavar="X",
                        help="differential layout: largest ratio of error rates taken as no differential "
                             "(default: 1.25, the four-fifths rule)")
    report.set_defaults(report_parser=report)  # _parse reports option conflicts through it
    return parser


class _Stages:
    """The stages of a run, each announced on stderr as it starts, with the seconds since the
    run started: ``biofair report: [12.3 s] checking 20,000,000 comparisons``. Silent unless
    ``show``; stdout keeps the one line that names the written report."""

    def __init__(self, *, show: bool = False) -> None:
        self.show = show
        self.start = time.monotonic()

    def __call__(self, stage: str) -> None:
        """Announce ``stage`` (when shown)."""
        if self.show:
            print(f"biofair report: [{time.monotonic() - self.start:.1f} s] {stage}", file=sys.stderr, flush=True)

    @contextlib.contextmanager
    def checks(self) -> Iterator[None]:
        """Announce the checks of the table that :func:`biofair.read_grouped_scores` makes once it
        has read the file (they take as long as the reading)."""
        from biofair.io import _READ_DONE

        token = _READ_DONE.set(lambda rows: self(f"checking {rows:,} comparisons"))
        try:
            yield
        finally:
            _READ_DONE.reset(token)


def _shows_stages(args: argparse.Namespace) -> bool:
    """Whether the run announces its stages: on a terminal, or with --progress, when the file
    is large enough for them to take seconds (the convention of every progress bar of biofair:
    shown on an interactive terminal only, unless asked for)."""
    if not (args.progress or sys.stderr.isatty()):
        return False
    try:
        return args.scores.stat().st_size >= _LARGE_FILE_BYTES
    except OSError:  # gone since it was checked: the reader says so
        return False


def _size(path: Path) -> str:
    """A file's size for a person: ``512.3 MB``."""
    try:
        size = float(path.stat().st_size)
    except OSError:
        return "size unknown"
    for unit in ("bytes", "kB", "MB"):
        if size < 1000:
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


#: The options of the standard layout alone, and their defaults.
_STANDARD_ONLY = {"fmr_targets": [1e-1, 1e-2, 1e-3], "alpha": 0.5, "n_permutations": 200}


#: The options whose value is a number, or a list of numbers.
_NUMBER_OPTIONS = frozenset({"-n", "--n-resamples", "--n-permutations", "--seed", "--fmr-targets", "--operating-fmr",
                             "--alpha", "--threshold", "--tolerance"})
#: A value that starts as a negative number. argparse reads only such as -1 and -1.5 as
#: negative numbers, and takes -1e9, -1e-3 or -0.1,0.1 for an unknown option ("expected one
#: argument"); handed to its option, such a value is judged by the option's type.
_NEGATIVE_NUMBER = re.compile(r"-\.?\d.*")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """Parse and check the command line; argparse exits 2 naming the first bad option."""
    words: list[str] = []
    for word in sys.argv[1:] if argv is None else argv:
        if words and words[-1] in _NUMBER_OPTIONS and _NEGATIVE_NUMBER.fullmatch(word):
            words[-1] = f"{words[-1]}={word}"
        else:
            words.append(word)
    args = _build_parser().parse_args(words)
    report = vars(args).pop("report_parser")
    only_differential = [f"--{name}" for name in ("threshold", "reference", "tolerance") if getattr(args, name) is not None]
    if only_differential and args.layout != "differential":
        report.error(f"argument {only_differential[0]}: only with --layout differential")
    only_standard = [f"--{name.replace('_', '-')}" for name in _STANDARD_ONLY if getattr(args, name) is not None]
    if only_standard and args.layout == "differential":  # it was ignored
        report.error(f"argument {only_standard[0]}: only with --layout standard (the differential layout reports "
                     "one threshold: --threshold, or --operating-fmr)")
    if args.threshold is not None and args.operating_fmr is not None:  # it was ignored
        report.error("argument --operating-fmr: not with --threshold (the differential layout reports one threshold)")
    for name, default in {**_STANDARD_ONLY, "operating_fmr": 1e-2}.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    args.stages = _Stages(show=_shows_stages(args))  # announced on stderr, for a large file
    args.warned = {}  # the warnings of the checks (_check_analysis), message: category; summary.json keeps them
    return args


# -- OUTDIR: claimed at the start, filled by renames at the end -------------------------------


#: The longest file name, in bytes, of the usual file systems (ext4, XFS, APFS, NTFS).
_NAME_MAX = 255


def _sibling(name: str) -> str:
    """The name of the work folder beside a new OUTDIR of this name: ``.<name>.biofair-partial``;
    where that name and the 9 characters that ``mkdtemp`` adds to it would exceed
    ``_NAME_MAX`` bytes, a hash of the name stands for it (the same for every run)."""
    work = f".{name}.biofair-partial"
    if len(os.fsencode(work)) + 9 <= _NAME_MAX:
        return work
    return f".{hashlib.sha256(os.fsencode(name)).hexdigest()[:16]}.biofair-partial"


def _dangling_link(path: Path) -> Path | None:
    """The first folder named on the way to ``path`` that is a symbolic link to nothing
    (None when there is none)."""
    for folder in reversed(path.parents):
        if folder.is_symlink():
            try:
                os.stat(folder)
            except FileNotFoundError:
                return folder
            except OSError:  # a loop (named when the folders are created), or a folder it may not read
                continue
    return None


class _OutputFolder:
    """OUTDIR reserved for this run.

    The run works in a folder that holds a lock file locked for the life of the process: a
    second run to the same OUTDIR finds the lock held and is refused; a folder left by a
    killed run has its lock free (or, killed while it was being removed, no lock) and is
    removed. The lock file is the folder's first entry and its last to go.

    - A new OUTDIR: the work folder is ``.<name>.biofair-partial`` beside it (:func:`_sibling`),
      and the finished report is renamed onto OUTDIR in one step, so OUTDIR is absent or
      complete.
    - An existing empty OUTDIR keeps its identity (a shell inside it, its permissions, a mount
      on it): the work folder is ``.biofair-partial`` inside it, which proves at the start that
      OUTDIR can be written, and the outputs are moved into it at the end, on the same file
      system, each in one step that never replaces a file, the JSON file last: a run killed
      between two moves (SIGKILL; the other signals are ignored by then) leaves the files
      already moved and never the JSON, whose presence says the report is whole.

    Any OSError while OUTDIR is examined or claimed is a _UsageError naming its cause.
    """

    def __init__(self, output: Path):
        self.lock: int | None = None
        self.claimed = False
        self.created: list[Path] = []  # folders above OUTDIR this run created, deepest first
        try:
            # ".." is resolved as the shell does, through symbolic links; the last name is kept,
            # so that a symbolic link given as OUTDIR is seen and refused
            named = Path(output)
            self.output = (Path(os.path.realpath(named)) if named.name in ("", ".", "..")
                           else Path(os.path.realpath(named.parent)) / named.name)
            self.existing = self.output.is_dir() and not self.output.is_symlink()
            dangling = _dangling_link(named)
        except OSError as error:
            raise _UsageError(f"--output {output} cannot be written: {error.strerror}") from None
        if dangling is not None:  # realpath follows it, and mkdir would create the folder it names
            raise _UsageError(
                f"--output {output} cannot be written: {dangling} is a symbolic link to {os.readlink(dangling)}, "
                "which does not exist (a drive or share not mounted?); create that folder or give another OUTDIR"
            )
        if not self.output.name:  # e.g. a link to / followed by ..
            raise _UsageError(f"--output {output} is the root of the file system; give a new or an empty folder")
        self.work = self.output / ".biofair-partial" if self.existing else self.output.with_name(_sibling(self.output.name))

    @property
    def files(self) -> Path:
        """Where the outputs are written before they are published."""
        return self.work / "out"

    @property
    def scratch(self) -> Path:
        """Template, kernel connection file and kernel log; never published."""
        return self.work / "scratch"

    def _others(self) -> list[str]:
        """What OUTDIR holds besides the work folders of biofair runs (this one's, or one
        being claimed at this moment)."""
        return sorted(p.name for p in self.output.iterdir() if not p.name.startswith(".biofair-partial"))

    def _refuse_if_filled(self) -> None:
        if self.output.is_symlink():
            raise _UsageError(f"--output {self.output} is a symbolic link; give the folder itself")
        if self.output.exists() and not self.output.is_dir():
            raise _UsageError(f"--output {self.output} exists and is not a folder")
        others = self._others() if self.output.is_dir() else []
        if others:
            held = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            raise _UsageError(f"--output {self.output} is not empty (it holds {held}); give a new or an empty folder")

    def claim(self) -> None:
        """Reserve OUTDIR, or raise _UsageError saying why it cannot be written. Signals wait
        until it returns, so that an interrupted claim leaves nothing behind."""
        with _signals_held():
            try:
                self._claim()
            except BaseException as error:
                self.release()
                if not isinstance(error, OSError):
                    raise
                where = f" ({error.filename})" if error.filename else ""
                raise _UsageError(f"--output {self.output} cannot be written: {error.strerror}{where}") from None

    def _claim(self) -> None:
        self._refuse_if_filled()
        parent = self.work.parent
        busy = _UsageError(
            f"another biofair report is writing to --output {self.output} (its work folder "
            f"{self.work} is locked); wait for it or choose another folder"
        )
        self.created = [p for p in (parent, *parent.parents) if not p.exists()]
        looping = [p for p in self.created if p.is_symlink()]  # what realpath could not resolve
        if looping:  # mkdir would say "File exists"
            raise _UsageError(f"--output {self.output} cannot be written: {looping[-1]} is a symbolic link that "
                              "leads back to itself")
        above = parent.parents[len(self.created) - 1] if self.created else parent
        if not above.is_dir():
            raise _UsageError(f"--output {self.output} cannot be written: {above} is a file, not a folder")
        try:
            parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f"{self.work.name}-", dir=parent))
        except OSError as error:
            raise OSError(error.errno, error.strerror, str(parent)) from None
        try:
            self.lock = os.open(staging / "lock", os.O_CREAT | os.O_WRONLY, 0o600)
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            for _ in range(3):  # a folder left by a killed run is removed, then claimed
                try:
                    os.rename(staging, self.work)
                    break
                except OSError as error:
                    if error.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                        raise OSError(error.errno, error.strerror) from None
                    if not self._remove_stale():
                        raise busy from None
            else:
                raise busy
            self.claimed = True
            self.scratch.mkdir()
            self._refuse_if_filled()  # a run that finished while this one claimed
        except BaseException:
            _remove_work_folder(staging)
            raise

    def _remove_stale(self) -> bool:
        """Remove the work folder of a run that died; False if a live run holds it."""
        try:
            lock = os.open(self.work / "lock", os.O_RDWR)
        except FileNotFoundError:
            # a live run's folder has its lock from the moment it is renamed into place until
            # its removal ends: wait for a removal under way; a folder still without a lock is
            # what a run killed while removing it left
            time.sleep(1.0)
            if (self.work / "lock").exists():
                return False
            _remove_work_folder(self.work)
            return True
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held = os.fstat(lock)
            now = os.stat(self.work / "lock")
        except (BlockingIOError, FileNotFoundError):
            return False
        else:
            if (held.st_dev, held.st_ino) != (now.st_dev, now.st_ino):
                return False  # removed and claimed by another run since this one opened it
            _remove_work_folder(self.work)
            return True
        finally:
            os.close(lock)

    def publish(self) -> None:
        """Move the finished outputs to OUTDIR: one rename of the folder onto a new OUTDIR;
        into an existing one, file by file, the JSON file last (its presence says the others
        are there), never replacing a file that appeared there during the run (what else
        appeared stays beside the report), and taking back the files already moved if one
        cannot be. The outputs reach the disk first (:func:`_flush`)."""
        _flush(self.files)
        moved: list[str] = []
        try:
            if not self.existing:
                os.rename(self.files, self.output)
            else:
                for path in sorted(self.files.iterdir(), key=lambda path: (path.suffix == ".json", path.name)):
                    _move_without_replacing(path, self.output / path.name)
                    moved.append(path.name)
        except OSError as error:
            for name in moved:
                os.rename(self.output / name, self.files / name)
            reason = (f"a file named {Path(error.filename2 or error.filename).name} appeared there during the run"
                      if error.errno == errno.EEXIST else error.strerror)
            raise _AnalysisError(f"the report could not be moved to --output {self.output}: {reason}") from None
        self.created = []  # they hold the report now

    def release(self) -> None:
        """Remove the work folder (whatever it still holds), the folders this run created
        above OUTDIR if it published nothing, and free the lock."""
        if self.claimed:
            _remove_work_folder(self.work)
            self.claimed = False
        for folder in self.created:
            try:
                folder.rmdir()
            except OSError:  # not empty: someone else's now
                break
        self.created = []
        if self.lock is not None:
            os.close(self.lock)
            self.lock = None


def _flush(folder: Path) -> None:
    """Write the files of ``folder``, and its list of them, to the disk (``fsync``) before they
    are renamed into OUTDIR: file systems (ext4, XFS) may write a rename before the data of the
    file it names, and a crash or power cut just after the report's publication left OUTDIR
    with an empty or partly written summary.json under its final name; a disk that fills late
    (NFS, a quota) tells so at the latest here. Raise _AnalysisError when it cannot."""
    try:
        for path in [*folder.iterdir(), folder]:
            descriptor = os.open(path, os.O_RDONLY)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
    except OSError as error:
        raise _AnalysisError(f"the report could not be written: {error}") from None


def _move_without_replacing(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` unless ``target`` exists (EEXIST): a hard link, which
    never replaces, then the old name removed; where the file system has no hard links, a
    rename after a check (a file appearing between the two is replaced)."""
    try:
        os.link(source, target)
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
        if os.path.lexists(target):
            raise OSError(errno.EEXIST, os.strerror(errno.EEXIST), str(target)) from None
        os.rename(source, target)
    else:
        os.unlink(source)


def _remove_work_folder(work: Path) -> None:
    """Remove a work folder, its lock file last: a run killed while removing it leaves the
    lock, which the next run finds free, or an empty folder, which a rename replaces."""
    for entry in work.iterdir() if work.is_dir() else []:
        if entry.name == "lock":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    (work / "lock").unlink(missing_ok=True)
    shutil.rmtree(work, ignore_errors=True)


# -- the analysis ------------------------------------------------------------------------------


def _by(args: argparse.Namespace) -> str | list[str]:
    return args.by[0] if len(args.by) == 1 else list(args.by)


#: What the rows of each score-set column are, as the command names them.
_SETS = {"system": ("the rows of several systems", "system"),
         "split": ("development rows with evaluation rows", "split")}


def _refuse_score_sets(args: argparse.Namespace, table) -> None:
    """Refuse a file that holds several score sets (a ``system`` or ``split`` column of two or
    more values), which no metric pools, with the command's way forward: the report analyses
    one set and has no option to select it, so each set goes to a file of its own (the
    package's error selects the rows of a table in Python)."""
    import pandas as pd

    from biofair._validation import how_many
    from biofair.exceptions import SchemaError
    from biofair.io import _compression, _kind
    from biofair.schema import _SCORE_SETS, _first_score_sets

    for column in _SCORE_SETS:  # the package's score-set columns, worded for the command
        rows, unit = _SETS[column]
        values = pd.unique(table[column].dropna()) if column in table.columns else []
        if len(values) < 2:
            continue
        name = next((source for source, target in (args.columns or {}).items() if target == column), column)
        path = Path(args.scores)
        kind, sep, _ = _kind(path, args.format, _compression(path), args.decimal)
        stem = path.name.split(".")[0]
        if kind == "parquet":
            read, suffix, options = f"pd.read_parquet({str(path)!r})", "parquet", ""
        else:  # every field as written, with the file's separator (a decimal comma stays one)
            separator = "" if sep == "," else f", sep={sep!r}"
            read = f"pd.read_csv({str(path)!r}{separator}, dtype=str, keep_default_na=False)"
            suffix, options = "csv", f"{separator}, index=False"
        raise SchemaError(
            f"{path} holds {how_many(len(values), 'score set')} in column {name!r} ({_first_score_sets(values)}): "
            f"{rows}, which no "
            f"metric pools, and biofair report analyses one. Give it a file of one {unit}'s rows, e.g. "
            + python_command(f"import pandas as pd; t = {read}; [rows.to_{suffix}({f'{stem}-{unit}'!r} + str(i) + "
                             f"'.{suffix}'{options}) for i, (_, rows) in enumerate(t.groupby({name!r}, sort=False), 1)]")
            + f" (a file per {unit}, numbered in the order the file first names them)"
        )


def _check_analysis(args: argparse.Namespace, *, notes: list[str] | None = None) -> list[str]:
    """Read the file and compute every estimate of the report once, without resampling.

    Data that the report cannot analyse (too few or tied scores in a group, a missing
    label, ...) is refused here, in seconds, rather than in the notebook after minutes
    of resampling. Returns the warnings a user should see, one line each, and keeps them with
    their categories in ``args.warned`` (for summary.json); appends to ``notes`` what the
    report chose, in the differential layout's words: that it resamples comparisons one by
    one, on a file without subject ids (the notebook's ``unit``).
    """
    import biofair as bf
    from biofair.differentials import _cluster_column
    from biofair.distribution_fairness import _automatic_index_marked
    from biofair.io import _ONE_CLASS
    from biofair.permutation import _shuffle_plan

    by = _by(args)
    with _recorded() as caught:
        try:
            table = bf.read_grouped_scores(
                _as_read(args.scores), by=by, columns=args.columns or None, greater_is_match=not args.distance,
                format=args.format, decimal=args.decimal, subjects=_as_read(args.subjects) if args.subjects else None,
                missing_groups=args.missing_groups,
            )
        except bf.SchemaError as error:
            if _ONE_CLASS not in str(error):
                raise
            raise bf.SchemaError(f"{error}; or use --layout differential, which reports the rate such a group has "
                                 "and marks the one it lacks 'no comparisons'") from None
        _refuse_score_sets(args, table)
        subjects = _cluster_column(table, None, "reference_subject", [] if notes is None else notes)
        if subjects is not None:  # the report's CEI nulls shuffle the labels by subject
            _shuffle_plan(table, by, subjects, instead=None)
        args.stages("computing every estimate of the report once, without resampling")
        mated, nonmated = bf.split_scores(table)
        targets = args.fmr_targets
        bf.operating_summary(mated, nonmated, fmr_targets=targets, pauc_bounds=targets, min_fmr=min(targets))
        groups = bf.scores_by_group(table, by=by)
        with _computing("the fairness discrepancy rate (FDR)"):
            fdr = bf.fairness_discrepancy_rate(groups, by=by, fmr_targets=targets, alpha=args.alpha)
            bf.area_under_fdr(fdr["fdr"], fdr["fmr_target"], scale="log10")
        with _computing("GARBE and the inequity"):
            bf.outcome_fairness(groups, by=by, fmr=args.operating_fmr, alpha=args.alpha)
        with _computing("the distribution fairness index (DFI)"):
            bf.distribution_fairness_index(groups, by=by)
        with _computing("the comprehensive equity index (CEI, CEI^A)"):
            for kind in ("mated", "nonmated"):
                bf.comprehensive_equity_index(groups, by=by, kind=kind)
                _automatic_index_marked(groups, by=by, kind=kind)  # an empty tail: marked in the summary
    args.warned = _shown(caught)
    return list(args.warned)


def _as_read(path: Path) -> Path:
    """A file of the standard layout as its notebook reads it and summary.json names it: by its
    real path, symbolic links followed. The checks read it so too: a warning that names the
    file (its empty rows) is then the page's, once in summary.json (a link 'latest.csv' made it
    two, one naming the link and one the file)."""
    return path.resolve()


@contextlib.contextmanager
def _computing(metric: str) -> Iterator[None]:
    """Name the fairness index of the standard report that the data cannot give (a group with
    too few or too tied scores), and the layout that does without it: the differential
    layout marks such a group unresolved instead."""
    try:
        yield
    except ValueError as error:  # SchemaError too: the data, not the options, which are checked before
        raise ValueError(
            f"{metric} cannot be computed: {error}. The standard report needs it; --layout differential "
            "reports each group's rates with intervals without it"
        ) from None


@contextlib.contextmanager
def _recorded() -> Iterator[list[warnings.WarningMessage]]:
    """Record the warnings of the analysis; when it fails, print those a user must see
    (:func:`_shown`) before the error propagates: two groups' labels that differ only by a
    space often explain the error that follows (one of them with a single class)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield caught
        except Exception:
            for message in _shown(caught):
                print(f"biofair report: warning: {message}", file=sys.stderr)
            raise


def _shown(caught: list[warnings.WarningMessage]) -> dict[str, str]:
    """The warnings a user of the command must see, once each, one line each, with the name
    of each one's category (message: category), in the order they were raised: scores that
    look like distances, targets the data cannot resolve, zero rates replaced by their upper
    bound (Inequity), histograms that extreme scores squeeze into a few bins (DFI, CEI),
    group labels that differ only by spaces, case, Unicode form or how a number is written
    (two groups, as written, but often one typed twice), subject ids that differ only by
    spaces (likewise), runs of rows copied from earlier rows (each counted, but often a file
    appended to itself), and rows empty in every column (left out)."""
    import biofair as bf
    from biofair.groups import _LOOK_ALIKE_WARNING
    from biofair.io import _EMPTY_ROWS_WARNING, _PADDED_IDS_WARNING, _REPEATED_ROWS_WARNING

    words = (_LOOK_ALIKE_WARNING, _PADDED_IDS_WARNING, _REPEATED_ROWS_WARNING, _EMPTY_ROWS_WARNING)

    def shown(warning: warnings.WarningMessage) -> bool:
        return (issubclass(warning.category, (bf.ScoreDirectionWarning, bf.InsufficientComparisonsWarning,
                                              bf.UndefinedRateWarning, bf.CoarseHistogramWarning))
                or any(phrase in str(warning.message) for phrase in words))

    categories: dict[str, str] = {}
    for warning in caught:
        if shown(warning):
            categories.setdefault(_one_line(warning.message), warning.category.__name__)
    return categories


def _operational_threshold(args: argparse.Namespace, table) -> float | None:
    """``--threshold`` as the system that stored the scores compares them: rounded to the
    stored precision (a float32 score "0.7" is float32(0.7), just below the float64 0.7, and
    a float32 system matches it at "0.7"), and negated for distances. A threshold that makes
    every comparison a match, or none, is refused in the file's units."""
    if args.threshold is None:
        return None
    typed = args.threshold
    score_dtype = table.attrs.get("score_dtype")
    if score_dtype in ("float16", "float32"):
        import numpy as np

        typed = float(np.dtype(score_dtype).type(typed))
    threshold = -typed if args.distance else typed  # as read: a match iff score >= threshold
    low, high = float(table["score"].min()), float(table["score"].max())
    if threshold > high or threshold <= low:
        none_match = threshold > high
        if args.distance:  # a match iff distance <= T: the distances are the negated scores
            where = (f"below every distance of the file (the smallest is {-high!r})" if none_match else
                     f"at or above every distance of the file (the largest is {-low!r})")
        else:
            where = (f"above every score of the file (the largest is {high!r})" if none_match else
                     f"at or below every score of the file (the smallest is {low!r})")
        outcome = "no comparison in any group" if none_match else "every comparison in every group"
        raise ValueError(f"--threshold {args.threshold!r} is {where}: {outcome} would be a match, which shows no "
                         "differential. Is it in the file's unit (0.7, not 70)?")
    return threshold


def _differential_analysis(args: argparse.Namespace):
    """Read the file and compute the differential report (the whole analysis: seconds).

    Distances are read negated (a match is ``score >= threshold`` throughout the package): the
    threshold is negated on its way in, and the report gives it back in the file's units.
    """
    import biofair as bf
    from biofair.groups import _group_codes

    by = _by(args)
    source = _source(Path(args.scores))  # before it is read: the file the report describes
    with _recorded() as caught:
        table = bf.read_grouped_scores(
            args.scores, by=by, columns=args.columns or None, greater_is_match=not args.distance,
            format=args.format, decimal=args.decimal, subjects=args.subjects, missing_groups=args.missing_groups,
            one_class_groups="keep",  # the report marks the rate a group lacks "no comparisons"
        )
        _refuse_score_sets(args, table)
        if args.reference is not None and args.reference not in (names := _group_codes(table, by)[1]):
            raise ValueError(f"--reference {args.reference!r} names no group of --by {' '.join(args.by)}; the groups "
                             f"are {names}")
        threshold = _operational_threshold(args, table)
        args.stages(f"computing the differential report ({args.n_resamples:,} bootstrap resamples)")
        report = bf.differential_report(
            table, by=by, threshold=threshold, fmr=None if threshold is not None else args.operating_fmr,
            reference=args.reference, n_resamples=args.n_resamples, rng=args.seed,
            **({} if args.tolerance is None else {"tolerance": args.tolerance}),
        )
    if args.distance:
        report = report.in_distance_units()
    shown = list(_shown(caught))  # in the report too: its reader may never see the terminal
    notes = [f"warning: {line}" for line in shown] + list(report.notes)
    return report._replace(notes=notes, source=source), shown


def _source(path: Path) -> dict:
    """The score file as a report names it: its absolute path (as summary.json of the standard
    layout names it: a relative path means nothing away from where the report was run), its
    size and its SHA-256."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return {"path": str(path.resolve()), "bytes": path.stat().st_size, "sha256": digest.hexdigest()}


def _write_differential(report, folder: _OutputFolder) -> None:
    """Write report.html and differential.json into the work folder; raise _AnalysisError."""
    from biofair._differential_html import render

    try:
        folder.files.mkdir()
        (folder.files / "differential.json").write_text(report.to_json())
        (folder.files / "report.html").write_text(render(report))
    except OSError as error:
        raise _AnalysisError(f"the report could not be written: {error}") from None


def _kernel_manager(log, connection_file: Path, launched: list) -> type:
    """A kernel manager whose kernel runs in this Python (a "python3" kernel installed for
    the user or another environment would run another biofair), writes its own messages to
    ``log``, not the terminal, and its connection file into the run's work folder, not the
    system temporary folder; each manager is appended to ``launched`` before it starts its
    kernel, so that an interruption while the kernel starts still finds the process
    (:func:`_kernel_processes`). A signal is held while the kernel starts: one that came
    between the kernel's ``exec`` and the manager's record of its process would leave the
    kernel running after this process ends (seen in a loaded CI run)."""
    from ipykernel.kernelspec import get_kernel_dict
    from jupyter_client import AsyncKernelManager
    from jupyter_client.kernelspec import KernelSpec

    class LoggedKernelManager(AsyncKernelManager):
        @property
        def kernel_spec(self) -> KernelSpec:  # this Python's kernel, not the first "python3" Jupyter finds
            return KernelSpec(resource_dir="", **get_kernel_dict())

        async def start_kernel(self, **kwargs):
            self.connection_file = str(connection_file)
            launched.append(self)
            with _signals_held():
                await super().start_kernel(stdout=log, stderr=log, **kwargs)

    return LoggedKernelManager


def _kernel_processes(managers: list) -> list:
    """The kernel processes the managers have started so far."""
    provisioners = (getattr(manager, "provisioner", None) for manager in managers)
    return [process for provisioner in provisioners if (process := getattr(provisioner, "process", None)) is not None]


#: What the notebook layout imports (as modules) beyond biofair's own needs: the extra "report".
_REPORT_MODULES = ("jupytext", "papermill", "nbconvert", "ipykernel", "myst_nb")


def _check_report_packages(args: argparse.Namespace) -> None:
    """Raise _UsageError, before anything is read or written, when the notebook layout's
    packages are not installed (``pip install biofair`` without ``[report]``)."""
    if args.layout == "differential":
        return
    missing = [name for name in _REPORT_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise _UsageError(
            f"the notebook report needs packages that are not installed ({', '.join(missing)}): "
            "pip install 'biofair[report]', or use --layout differential, which needs none of them"
        )


def _execute(args: argparse.Namespace, folder: _OutputFolder) -> None:
    """Execute the template with the run's parameters and export it; raise _AnalysisError."""
    import jupytext
    import nbformat
    import papermill

    from biofair._report_markdown import export_html

    template = folder.scratch / "template.ipynb"
    with as_file(_TEMPLATE) as source:
        chapter = jupytext.read(source)
    # the chapter's exercises teach with the shipped example; a report leaves them out
    chapter.cells = [cell for cell in chapter.cells if "exercise" not in cell.metadata.get("tags", [])]
    try:
        folder.files.mkdir()
        nbformat.write(chapter, template)
    except OSError as error:
        raise _AnalysisError(f"the report could not be written: {error}") from None
    parameters = {
        "scores_path": str(_as_read(args.scores)),
        "columns": args.columns,
        "by": _by(args),
        "missing_groups": args.missing_groups,
        "subjects_path": str(_as_read(args.subjects)) if args.subjects else "",
        "greater_is_match": not args.distance,
        "file_format": args.format,
        "decimal": args.decimal,
        "fmr_targets": args.fmr_targets,
        "operating_fmr": args.operating_fmr,
        "alpha": args.alpha,
        "n_resamples": args.n_resamples,
        "n_permutations": args.n_permutations,
        "seed": args.seed,
        "summary_path": str(folder.files / "summary.json"),
    }
    notebook_path = folder.files / "report.ipynb"
    launched = []
    try:
        with open(folder.scratch / "kernel.log", "w") as log:
            papermill.execute_notebook(
                _as_written(template), _as_written(notebook_path), parameters=parameters, cwd=str(folder.scratch),
                progress_bar=bool(args.progress) or sys.stderr.isatty(), kernel_name="python3",
                kernel_manager_class=_kernel_manager(log, folder.scratch / "kernel.json", launched),
            )
    except papermill.PapermillExecutionError as error:
        raise _AnalysisError(_cell_failure(error, notebook_path)) from None
    except Exception as error:  # the kernel died or could not start, or the disk filled
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise _AnalysisError(f"the report could not be written: {error}") from None
        raise _AnalysisError(f"{type(error).__name__}: {error}{_log_tail(folder.scratch / 'kernel.log')}") from None
    finally:  # an interrupted run may leave its kernel up: end it before this process ends
        for process in _kernel_processes(launched):
            if process.poll() is None:
                process.kill()
            process.wait(timeout=60)
        for manager in launched:  # and its messaging open (a ResourceWarning when main() was called in Python)
            if not manager.context.closed:
                manager.context.destroy(linger=0)
    notebook = _as_published(nbformat.read(notebook_path, as_version=4), folder)
    html = export_html(notebook)  # a page that requests nothing when it is opened
    try:
        nbformat.write(notebook, notebook_path)
        (folder.files / "report.html").write_text(html)
        summary = json.loads((folder.files / "summary.json").read_text())  # complete and parseable
        # the run's warnings, for a reader of the summary alone: the notebook wrote those its page shows, not knowing
        # where; these name the section and cell that show each, after the checks' (json reads back every digit)
        summary["warnings"] = _summary_warnings(notebook, args.warned)
        (folder.files / "summary.json").write_text(strict_json(summary, indent=1))
    except (OSError, ValueError) as error:
        raise _AnalysisError(f"the report could not be written: {error}") from None


#: A warning as the report's notebook shows it (its ``warnings.formatwarning``): "Category: message".
_SHOWN_WARNING = re.compile(r"(?P<category>[A-Za-z_][A-Za-z0-9_]*Warning): (?P<message>.*)")
#: A heading of a markdown cell (without a closing run of '#'): the section of the cells below it.
_HEADING = re.compile(r"#{1,6}\s+(?P<title>.+?)(?:\s+#+)?\s*")


def _summary_warnings(notebook, warned: dict[str, str]) -> list[dict]:
    """summary.json's ``warnings``: those the checks printed on stderr before the notebook ran
    (``warned``, message: category) that the page does not show, with ``section`` and ``cell``
    null (the page leaves out UndefinedRateWarning, whose zero rates its table marks
    ``fmr_bounded`` / ``fnmr_bounded``), then the page's (:func:`_page_warnings`)."""
    page = _page_warnings(notebook)
    on_page = {(warning["category"], _one_line(warning["message"])) for warning in page}
    return [{"category": category, "message": message, "section": None, "cell": None}
            for message, category in warned.items() if (category, message) not in on_page] + page


def _page_warnings(notebook) -> list[dict]:
    """The warnings report.html shows, in its order, for summary.json: each one's ``category``
    (the class's name), ``message``, ``section`` (the heading above its cell) and ``cell`` (the
    cell's index in report.ipynb). Read from the standard-error output of the cells the page
    shows (a cell tagged ``remove-cell``, left out of the page, only checks what the others
    computed), where the notebook writes each warning as "Category: message"; a line that starts
    no warning continues the message above it, and other text before the first warning of a cell
    is not a warning. Lines end at "\\n" only, as the notebook writes them: a form feed or a line
    separator (U+2028) in a message is part of it. A warning shown again in the same cell is
    kept once."""
    found, section = [], None
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown":
            fenced = False
            for line in cell.source.splitlines():
                fenced ^= line.lstrip().startswith(("```", "~~~"))
                heading = None if fenced else _HEADING.fullmatch(line)
                section = heading["title"] if heading else section
            continue
        if cell.cell_type != "code" or "remove-cell" in cell.metadata.get("tags", []):
            continue
        text = "".join(output.get("text", "") for output in cell.get("outputs", [])
                       if output.get("output_type") == "stream" and output.get("name") == "stderr")
        shown = []
        for line in text.removesuffix("\n").split("\n"):
            if warning := _SHOWN_WARNING.fullmatch(line):
                shown.append({**warning.groupdict(), "section": section, "cell": index})
            elif shown:
                shown[-1]["message"] += "\n" + line
        found += [dict(kept) for kept in dict.fromkeys(tuple(warning.items()) for warning in shown)]
    return found


def _as_written(path: Path) -> str:
    """``path`` for papermill, which fills ``{name}`` in notebook paths with the parameters
    (``str.format``): braces doubled, so that an OUTDIR such as ``run_{seed}`` is itself."""
    return str(path).replace("{", "{{").replace("}", "}}")


def _as_published(notebook, folder: _OutputFolder):
    """The executed notebook as it will be read from OUTDIR: its parameters and papermill's
    record name OUTDIR, not the work folder (gone when the report is published), so that the
    notebook reruns as it is and writes its summary beside itself."""
    from papermill.translators import PythonTranslator

    # as papermill wrote it into the parameters cell: a literal, with \xe4 for ä, \" for "
    work, published = (PythonTranslator.translate(str(where / "summary.json")) for where in (folder.files, folder.output))
    for cell in notebook.cells:
        if "injected-parameters" in cell.metadata.get("tags", []):
            if work not in cell.source:
                raise ValueError(f"the notebook's parameters do not hold the summary's path {work}")
            cell.source = cell.source.replace(work, published)
    record = notebook.metadata["papermill"]
    record["parameters"]["summary_path"] = str(folder.output / "summary.json")
    record["output_path"] = str(folder.output / "report.ipynb")
    record["input_path"] = str(_TEMPLATE)
    return notebook


def _cell_failure(error, notebook_path: Path) -> str:
    """``Type: message (cell N, section "...", line L: code)`` of a failed notebook cell."""
    import nbformat

    where = f"cell {error.exec_count}"
    try:  # papermill puts a note before the first cell: find the failed one by its count
        cells = nbformat.read(notebook_path, as_version=4).cells
        failed = next(i for i, c in enumerate(cells) if c.get("execution_count") == error.exec_count)
        headings = [line for c in cells[:failed] if c.cell_type == "markdown" for line in c.source.splitlines()
                    if line.startswith("#")]
        if headings:
            where += f', section "{headings[-1].lstrip("#").strip()}"'
    except (OSError, ValueError, StopIteration):
        pass
    plain = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error.traceback))
    line = re.search(r"Cell In\[\d+\], line (\d+)", plain)
    if line:
        lines = error.source.splitlines()
        number = int(line.group(1))
        if 0 < number <= len(lines):
            where += f", line {number}: {lines[number - 1].strip()}"
    return f"{error.ename}: {_one_line(error.evalue)} (in the report's {where})"


#: What every kernel logs at its start (ipykernel 7 on a TCP connection): never the cause.
_KERNEL_START_NOTICE = "Kernel is running over TCP without encryption"


def _log_tail(path: Path) -> str:
    """``"; kernel log: <its last line>"``, or "" when the kernel logged nothing but its
    start notice."""
    try:
        lines = [line for line in path.read_text().splitlines() if line.strip() and _KERNEL_START_NOTICE not in line]
    except OSError:
        return ""
    return f"; kernel log: {lines[-1]}" if lines else ""


def _one_line(message: object) -> str:
    """A message of several lines (``problems:\\n- a\\n- b``) as one: ``problems: a; b``."""
    return " ".join(str(message).replace(":\n- ", ": ").replace("\n- ", "; ").split())


#: Signals received during this run. Python may swallow the exception a handler raises (one
#: raised while a ``__del__`` or a garbage-collection callback runs is printed and ignored), so
#: the run also checks this list before it publishes anything.
_received: list[int] = []
#: True while a signal must wait (see :func:`_signals_held`).
_holding = False

#: Loggers of the libraries that execute the report. Once a signal stops the run, what they
#: log while the interrupted execution unwinds is noise around the run's one line: nbclient's
#: "Kernel died while waiting for execute reply." (papermill's logger) when the clean-up ends
#: the kernel under a polling task, and asyncio's "Task exception was never retrieved" when
#: that task is collected, possibly after main() returns. They stay silent until the next run.
_UNWINDING_LOGGERS = ("papermill", "asyncio")
#: The ``sys.unraisablehook`` that :func:`_ignore_unraisable` replaced while a run unwinds.
_replaced_hook: list[Callable] = []


def _stop(signum: int, frame) -> None:
    _received.append(signum)
    _silence_unwinding_noise(True)
    if not _holding:
        raise _Stopped(signum)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold back the run's stop (SIGINT, SIGTERM, SIGHUP) until the block ends: a signal that
    comes meanwhile is recorded, and stops the run as the block ends."""
    global _holding
    before = len(_received)
    _holding = True
    try:
        yield
    finally:
        _holding = False
    if len(_received) > before:
        raise _Stopped(_received[before])


def _silence_unwinding_noise(silent: bool) -> None:
    """Silence (or hear again) the loggers of ``_UNWINDING_LOGGERS`` and the exceptions Python
    reports as ignored in finalisers: a signal that cuts short the making of a kernel client
    leaves one whose ``__del__`` fails ("Exception ignored in: <function KernelClient.__del__
    ...> ... TraitError", seen in a loaded test run), and one that lands in a finaliser is
    reported there (the run still stops: see ``_received``)."""
    for name in _UNWINDING_LOGGERS:
        logging.getLogger(name).disabled = silent
    if silent and sys.unraisablehook is not _ignore_unraisable:
        _replaced_hook[:] = [sys.unraisablehook]
        sys.unraisablehook = _ignore_unraisable
    elif not silent and sys.unraisablehook is _ignore_unraisable:
        sys.unraisablehook = _replaced_hook.pop()


def _ignore_unraisable(unraisable) -> None:
    """A ``sys.unraisablehook`` that says nothing, for a run a signal has stopped."""


def _out_of_memory(path: Path, error: MemoryError) -> str:
    """The message of a file too large for this machine's memory (the command reads it whole):
    the cause, and the way that reads it part by part (the chapter "When the evaluation
    outgrows one machine")."""
    cause = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return (f"{path} ({_size(path)}) needs more memory than this machine could give ({cause}): the report holds "
            "every comparison in memory, several times over. Run it where there is more memory, or analyse the "
            "file part by part with biofair.partitions (pip install 'biofair[dask]'; the chapter \"When the "
            "evaluation outgrows one machine\")")


def _ignore_signals() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)


def main(argv: list[str] | None = None) -> int:
    """Run the ``biofair`` command: ``biofair report SCORES -o OUTDIR``.

    Read more in the chapter "Analyse your own system", which is the report's template.

    Parameters
    ----------
    argv : list of str, optional
        The command-line arguments after ``biofair``; by default ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 when the report was written; 2 when an option, the file or the
        output folder is wrong (a one-line reason on standard error, nothing written); 1 when
        the analysis itself failed; 130 (Ctrl-C), 143 (SIGTERM) or 129 (SIGHUP) when interrupted.

    Raises
    ------
    SystemExit
        With status 2 for a bad option (argparse's), and 0 after ``--help``.

    See Also
    --------
    biofair.fairness_summary : The table the report shows and writes to ``summary.json``.
    biofair.read_grouped_scores : How the file is read and checked.

    References
    ----------
    ISO/IEC 19795-1:2021 and ISO/IEC 19795-10:2024 (what a performance and demographic
    differential report contains).

    Examples
    --------
    >>> from biofair.cli import main
    >>> try:
    ...     main(["report", "no-such-file.csv", "-o", "report"])
    ... except SystemExit as stop:
    ...     print(stop.code)
    2
    """
    if sys.stderr is None:  # started with stderr closed (2>&-): its messages are lost, not an AttributeError
        sys.stderr = open(os.devnull, "w")
    args = _parse(argv)  # exits 2 naming a bad option, before anything is read or written
    stages = args.stages
    _received.clear()
    _silence_unwinding_noise(False)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # cleaned up, one line
        if signal.getsignal(signum) is not signal.SIG_IGN:  # ignored on entry (nohup, cmd &): it stays so
            signal.signal(signum, _stop)
    folder = None
    try:
        _check_report_packages(args)
        folder = _OutputFolder(args.output)
        folder.claim()
        try:
            stages(f"reading {args.scores} ({_size(args.scores)})")
            with stages.checks():
                if args.layout == "differential":
                    report, messages = _differential_analysis(args)
                    notes = [note for note in report.notes if not note.startswith("warning: ")]  # the warnings below
                else:
                    notes = []
                    messages = _check_analysis(args, notes=notes)
        except MemoryError as error:  # the machine's, not the file's (pyarrow's ArrowMemoryError too)
            raise _AnalysisError(_out_of_memory(args.scores, error)) from None
        except Exception as error:  # SchemaError (a ValueError) names the column or value
            prefix = "" if isinstance(error, (ValueError, FileNotFoundError)) else f"{type(error).__name__}: "
            raise _UsageError(prefix + str(error)) from None
        for message in messages:
            print(f"biofair report: warning: {message}", file=sys.stderr)
        for note in notes:  # what the report left out or chose, also where its reader is not looking
            print(f"biofair report: note: {note}", file=sys.stderr)
        if args.layout == "differential":
            stages("writing report.html and differential.json")
            _write_differential(report, folder)
        else:
            stages(f"running the report's notebook, which reads the file again ({args.n_resamples:,} resamples, "
                    f"{args.n_permutations:,} permutations), and writing report.ipynb, report.html and summary.json")
            _execute(args, folder)
        _ignore_signals()  # the last step, one rename, runs to its end
        if _received:  # a signal whose exception was swallowed still stops the run
            raise _Stopped(_received[0])
        folder.publish()
    except _UsageError as error:
        print(f"biofair report: error: {_one_line(error)}", file=sys.stderr)
        return _EXIT_USAGE
    except _AnalysisError as error:
        print(f"biofair report: the analysis failed, nothing was written: {_one_line(error)}", file=sys.stderr)
        return _EXIT_FAILED
    except KeyboardInterrupt as stop:
        signum = stop.args[0] if isinstance(stop, _Stopped) else signal.SIGINT
        print(f"biofair report: interrupted by {signal.Signals(signum).name}; nothing was written", file=sys.stderr)
        return 128 + signum
    finally:
        _ignore_signals()  # let the clean-up finish; the process ends without another word
        if folder is not None:
            folder.release()
    written = "report.html and differential.json" if args.layout == "differential" else "report.ipynb, report.html and summary.json"
    stages("done")
    try:
        print(f"biofair report: wrote {folder.output}/{written}", flush=True)
    except OSError as error:  # its reader has gone (| head), or it takes nothing (> /dev/full)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error as Python exits
        if not isinstance(error, BrokenPipeError):
            print(f"biofair report: stdout could not take this line ({error.strerror}): wrote {folder.output}/{written}",
                  file=sys.stderr)
    return 0


__all__ = ["main"]


if __name__ == "__main__":
    sys.exit(main())
