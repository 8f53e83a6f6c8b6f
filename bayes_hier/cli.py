"""The ``bayes-hier`` command line (also ``python -m bayes_hier``).

``bayes-hier compare results.csv --rope 1 --out report/`` compares every pair of models and
writes the reports; ``bayes-hier pair results.csv A B --rope 1`` compares two models ("A vs B":
the difference is B - A); ``bayes-hier example-data > results.csv`` writes the shipped example
data to try them. Bad input (a missing file, an unknown column, non-numeric scores, one model
only, duplicated rows) and every error of the operating system (an unwritable ``--out`` ...) end
with a one-line message on stderr and exit code 2; the ``--out`` folder is checked before
anything is computed, and a report already in it is kept unless ``--force`` is given. Progress
goes to stderr, results to stdout. When the reader of stdout goes away early
(``bayes-hier compare ... --json | head``), the command stops quietly with exit code 141, the
status of a Unix tool ended by SIGPIPE (128 + 13), as ``set -o pipefail`` reports it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

#: Exit code for bad input (as argparse uses for bad arguments) and for errors of the system.
BAD_INPUT = 2

#: Exit code when stdout is closed early (``| head``): 128 + SIGPIPE, as a shell reports a Unix
#: tool ended by that signal.
BROKEN_PIPE = 141

#: Errors that mean the input is wrong (reported in one line, no traceback).
INPUT_ERRORS = (ValueError, KeyError, TypeError)

#: Delimiters a results file may use, by name (for the messages).
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab"}


class InputError(Exception):
    """Bad input: reported in one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage block) with exit code 2."""

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{message} (see {self.prog} --help)")


def _version() -> str:
    from . import __version__

    return __version__


def _add_common(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``compare`` and ``pair``."""
    from .compare.methods import METHODS, WHOLE_METHODS

    parser.add_argument(
        "results",
        type=Path,
        help="CSV file (comma, semicolon or tab separated): one row per (dataset, model, run, "
        "fold)",
    )
    parser.add_argument("--rope", type=float, default=0.01, help="rope half-width in score units")
    parser.add_argument(
        "--method",
        choices=[*METHODS, *WHOLE_METHODS],
        default=None,
        help="pairwise test (default: hierarchical with several data sets, correlated_t with "
        "one), or one model of all the models: joint, bradley_terry, plackett_luce",
    )
    parser.add_argument("--seed", type=int, default=None, help="one seed for the whole run")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for Stan pairs")
    parser.add_argument("--scheduler", default=None, help="Dask scheduler address for the pairs")
    parser.add_argument(
        "--out", type=Path, default=None, help="folder for the reports (checked before fitting)"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite a report already in the --out folder"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--lower-is-better", action="store_true", help="errors, losses, times")
    parser.add_argument("--alpha", type=float, default=0.05, help="decision level")
    for role in ("dataset", "model", "run", "fold", "score"):
        parser.add_argument(f"--{role}-col", default=None, help=f"name of the {role} column")
    mcmc = parser.add_argument_group("hierarchical method")
    for name in ("chains", "draws", "warmup"):
        mcmc.add_argument(f"--{name}", type=int, default=None)
    mcmc.add_argument("--engine", default=None, help="auto, pystan or cmdstanpy")


def build_parser() -> argparse.ArgumentParser:
    """The ``bayes-hier`` parser with the ``compare`` and ``pair`` commands."""
    parser = _Parser(prog="bayes-hier", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"bayes-hier {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    many = commands.add_parser("compare", help="compare k models, every pair")
    _add_common(many)
    many.add_argument("--models", default=None, help="comma-separated models (and their order)")
    many.add_argument("--control", default=None, help="compare every model with this one only")
    pair = commands.add_parser(
        "pair", help="compare two models: first vs second, d = second - first"
    )
    _add_common(pair)
    pair.add_argument("first", help="the first model")
    pair.add_argument("second", help="the second model")
    commands.add_parser(
        "example-data",
        help="print the example data shipped with the package as CSV "
        "(bayes-hier example-data > results.csv)",
    )
    return parser


def print_example_data() -> int:
    """Write the shipped example data (:func:`~bayes_hier.examples.load_uci_weka`: 5 classifiers,
    54 data sets, 10 runs of 10-fold cross-validation, accuracy in percent) to stdout as CSV with
    the columns ``dataset, model, run, fold, score``; returns the exit code (a closed pipe is
    handled by :func:`main`, as for every command)."""
    from .examples import load_uci_weka

    load_uci_weka().to_csv(sys.stdout, index=False)
    sys.stdout.flush()
    return 0


# ---------------------------------------------------------------------------- input
def sniff_delimiter(path: Path) -> str:
    """The delimiter of a results file: the one of comma, semicolon and tab that occurs most
    often in its first line (the header); for a tie or none, tab for ``.tsv`` and comma else."""
    with path.open(encoding="utf-8", errors="replace", newline="") as handle:
        header = handle.readline()
    counts = {delimiter: header.count(delimiter) for delimiter in DELIMITERS}
    best = max(counts.values())
    found = [delimiter for delimiter, count in counts.items() if count == best]
    if best > 0 and len(found) == 1:
        return found[0]
    return "\t" if path.suffix.lower() == ".tsv" else ","


def read_results(path: Path) -> pd.DataFrame:
    """The results table, its delimiter (comma, semicolon or tab) read from the header."""
    if not path.exists():
        raise InputError(f"No such file: {path}")
    if not path.is_file():
        raise InputError(f"{path} is not a file; give the CSV file of results.")
    delimiter = sniff_delimiter(path)
    try:
        frame = pd.read_csv(path, sep=delimiter)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise InputError(
            f"Cannot read {path} as {DELIMITERS[delimiter]}-separated values: {error}"
        ) from None
    if frame.shape[1] < 2:
        others = " or ".join(name for d, name in DELIMITERS.items() if d != delimiter)
        raise InputError(
            f"{path} has a single column ({str(frame.columns[0])[:60]!r}) when read as "
            f"{DELIMITERS[delimiter]}-separated values; the delimiter is likely the problem: "
            f"separate the columns with a comma, a semicolon or a tab (not {others} mixed in)."
        )
    return frame


# ---------------------------------------------------------------------------- output
def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists."""
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _probe_writable(folder: Path) -> None:
    """OSError unless a file can be created in ``folder`` (a real write: permissions, read-only
    file systems and quotas are all caught)."""
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".bayes-hier-probe-"):
        pass


def check_out(out: Path, force: bool) -> None:
    """Fail now, before any computing, when the reports could not be written into ``out``.

    ``out`` must be a folder or creatable as one, writable, and hold no report from an earlier
    run unless ``force``.
    """
    from .compare.report import REPORT_FILES

    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} is a file, not a folder; give a folder for the reports.")
    existing = _nearest_existing(out)
    if not existing.is_dir():
        raise InputError(f"--out {out} cannot be created: {existing} is a file, not a folder.")
    try:
        _probe_writable(existing)
    except OSError as error:
        raise InputError(
            f"--out {out} is not writable ({error.strerror or error} in {existing}); choose "
            "another folder."
        ) from None
    if out.is_dir() and not force:
        found = [name for name in REPORT_FILES if (out / name).exists()]
        if found:
            raise InputError(
                f"--out {out} already holds a report ({', '.join(found)}); give --force to "
                "overwrite it or choose another folder."
            )


# ---------------------------------------------------------------------------- run
def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The sampler options given on the command line."""
    names = ("chains", "draws", "warmup", "engine")
    return {name: getattr(args, name) for name in names if getattr(args, name) is not None}


def _progress(args: argparse.Namespace, message: str) -> None:
    if not args.quiet:
        print(message, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> Any:
    """Check the output folder, read, compare, write the reports; returns the result."""
    from .compare import compare
    from .compare.columns import detect_columns

    if args.out is not None:
        check_out(args.out, args.force)
    frame = read_results(args.results)
    given = {role: getattr(args, f"{role}_col") for role in ("dataset", "model", "run", "fold")}
    given["score"] = args.score_col
    columns = detect_columns(frame, given)
    if args.command == "pair":
        models = [args.first, args.second]
    else:
        models = None if args.models is None else [m.strip() for m in args.models.split(",")]
    _progress(args, f"{args.results}: {len(frame)} rows; columns {columns}")
    result = compare(
        frame,
        rope=args.rope,
        models=models,
        method=args.method,
        control=getattr(args, "control", None),
        higher_is_better=not args.lower_is_better,
        columns=columns,
        seed=args.seed,
        jobs=args.jobs,
        scheduler=args.scheduler,
        progress=not args.quiet,
        alpha=args.alpha,
        **_options(args),
    )
    if args.out is not None:
        written = result.write_report(args.out)
        _progress(args, f"Report written to {written['report.html']} ({len(written)} files)")
    return result


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    return f"warning: {category.__name__}: {message}\n"


def os_error_line(error: OSError) -> str:
    """An OSError in words: what failed, on which path (no errno, no traceback)."""
    what = error.strerror or str(error)
    paths = [str(p) for p in (error.filename, error.filename2) if p is not None]
    return f"{what}: {' -> '.join(paths)}" if paths else what


def _print_result(args: argparse.Namespace, result: Any) -> None:
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    elif args.command == "pair":
        print(result[args.first, args.second].summary(args.alpha))
    else:
        print(result.summary())
    sys.stdout.flush()


def _error(text: str) -> int:
    print(f"bayes-hier: error: {' '.join(text.split())}", file=sys.stderr)
    return BAD_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = build_parser()
    warnings.formatwarning = _one_line_warning
    try:
        args = parser.parse_args(argv)
        if args.command == "example-data":
            return print_example_data()
        result = run(args)
        _print_result(args, result)
    except BrokenPipeError:
        # the reader of stdout is gone: no more output, and none at exit either
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE
    except OSError as error:
        return _error(os_error_line(error))
    except (InputError, *INPUT_ERRORS) as error:
        text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
        return _error(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
