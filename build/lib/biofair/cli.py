"""The ``biofair`` command: ``biofair report SCORES -o OUTDIR``.

Read more in the chapter "Analyse your own system" (``notebooks/13``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from importlib.resources import as_file, files
from pathlib import Path

from biofair.exceptions import SchemaError
from biofair.io import read_grouped_scores

_TEMPLATE = files("biofair") / "report_template.md"  # the chapter "Analyse your own system"

_EXAMPLES = """\
examples:
  biofair report "$(python -c 'import biofair; print(biofair.datasets.example_scores_path())')" -o report
  biofair report scores.parquet --columns score=sim,mated=label --by ethnicity -o report
  biofair report scores-dev --subjects people.csv --by gender --distance -o report
  biofair report scores.csv --by gender age --fmr-targets 1e-2,1e-3,1e-4 -n 1000 -o report

Writes OUTDIR/report.ipynb (executed), OUTDIR/report.html (figures inline) and
OUTDIR/summary.json (every metric, its 95% interval where resampled). The file is checked
first; on any problem nothing is written and the command exits with status 2.
"""


def _mapping(text: str) -> dict[str, str]:
    """Parse ``a=b,c=d`` (file column = canonical column)."""
    pairs = [item.split("=", 1) for item in text.split(",") if item]
    if any(len(pair) != 2 or not all(pair) for pair in pairs):
        raise argparse.ArgumentTypeError(f"expected file_column=canonical_column[,...], got {text!r}")
    return dict(pairs)


def _rates(text: str) -> list[float]:
    try:
        values = [float(item) for item in text.split(",") if item]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated rates, got {text!r}") from None
    if not values or any(not 0 < v <= 1 for v in values):
        raise argparse.ArgumentTypeError(f"rates must lie in (0, 1], got {text!r}")
    return values


def _build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        prog="biofair", description="Performance and fairness of biometric verification from scores."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser(
        "report",
        help="analyse one score file: executed notebook, HTML page and JSON summary",
        description="Run every metric of the biofair book on one score file, with intervals.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    report.add_argument("scores", type=Path, help="score file: CSV, TSV, Parquet or a bob score file")
    report.add_argument("-o", "--output", type=Path, required=True, help="output folder (created; must be empty if it exists)")
    report.add_argument("--columns", type=_mapping, default={}, metavar="MAP",
                        help="rename file columns to score, mated, group, ...: e.g. score=sim,mated=label")
    report.add_argument("--by", nargs="+", default=["group"], metavar="ATTR",
                        help="attribute(s) whose groups are compared (default: group)")
    report.add_argument("--subjects", type=Path, metavar="CSV",
                        help="subject attributes (columns subject, gender, ...) joined to both sides")
    report.add_argument("--distance", action="store_true", help="scores are distances (lower = more similar)")
    report.add_argument("--format", default="auto", choices=["auto", "csv", "parquet", "bob"],
                        help="file format (default: by suffix; other suffixes are read as bob)")
    report.add_argument("--fmr-targets", type=_rates, default=[1e-1, 1e-2, 1e-3], metavar="LIST",
                        help="FMR targets, comma-separated (default: 1e-1,1e-2,1e-3)")
    report.add_argument("--operating-fmr", type=float, default=1e-2, metavar="FMR",
                        help="FMR of the single threshold for GARBE and Inequity (default: 1e-2)")
    report.add_argument("--alpha", type=float, default=0.5, help="FDR weight of FMR gaps (default: 0.5)")
    report.add_argument("-n", "--n-resamples", type=int, default=200, metavar="B",
                        help="bootstrap resamples (default: 200)")
    report.add_argument("--n-permutations", type=int, default=100, metavar="P",
                        help="permutations of the CEI null (default: 100)")
    report.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    return parser


def _one_line(error: Exception) -> str:
    return " ".join(str(error).replace("\n- ", "; ").split())


def _run_report(args: argparse.Namespace) -> Path:
    """Validate the file, execute the template and write the three outputs."""
    import jupytext
    import nbformat
    import papermill
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    by = args.by[0] if len(args.by) == 1 else list(args.by)
    scores = args.scores.resolve()
    read_grouped_scores(  # fails fast, before anything is written
        scores, by=by, columns=args.columns or None, greater_is_match=not args.distance,
        format=args.format, subjects=args.subjects,
    )
    output = args.output
    if output.exists() and any(output.iterdir()):
        raise FileExistsError(f"output folder {output} is not empty")
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        template = work / "template.ipynb"
        with as_file(_TEMPLATE) as source:
            chapter = jupytext.read(source)
        # the chapter's exercises teach with the shipped example; a report leaves them out
        chapter.cells = [cell for cell in chapter.cells if "exercise" not in cell.metadata.get("tags", [])]
        nbformat.write(chapter, template)
        parameters = {
            "scores_path": str(scores),
            "columns": args.columns,
            "by": by,
            "subjects_path": str(args.subjects.resolve()) if args.subjects else "",
            "greater_is_match": not args.distance,
            "file_format": args.format,
            "fmr_targets": args.fmr_targets,
            "operating_fmr": args.operating_fmr,
            "alpha": args.alpha,
            "n_resamples": args.n_resamples,
            "n_permutations": args.n_permutations,
            "seed": args.seed,
            "summary_path": str(work / "summary.json"),
        }
        papermill.execute_notebook(
            template, work / "report.ipynb", parameters=parameters, cwd=str(work),
            progress_bar=sys.stderr.isatty(), kernel_name="python3",
        )
        notebook = nbformat.read(work / "report.ipynb", as_version=4)
        exporter = HTMLExporter(exclude_input=True)
        exporter.register_preprocessor(TagRemovePreprocessor(remove_cell_tags={"remove-cell"}), enabled=True)
        html, _ = exporter.from_notebook_node(notebook)
        (work / "report.html").write_text(html)
        json.loads((work / "summary.json").read_text())  # complete and parseable
        output.mkdir(parents=True, exist_ok=True)
        for name in ("report.ipynb", "report.html", "summary.json"):
            shutil.move(work / name, output / name)
    return output


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
        The exit status: 0 when the report was written; 2 when the file or an option is
        wrong (a one-line reason on standard error, nothing written); 1 when the analysis
        itself failed.

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
    >>> main(["report", "no-such-file.csv", "-o", "report"])
    2
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        output = _run_report(args)
    except (SchemaError, ValueError, FileNotFoundError, FileExistsError) as error:
        print(f"biofair report: error: {_one_line(error)}", file=sys.stderr)
        return 2
    except Exception as error:  # the analysis itself failed: say where, write nothing
        print(f"biofair report: the analysis failed: {_one_line(error)[:500]}", file=sys.stderr)
        return 1
    print(f"biofair report: wrote {output}/report.ipynb, report.html and summary.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
