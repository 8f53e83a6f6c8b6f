"""The ``bayes-hier`` command line (also ``python -m bayes_hier``).

``bayes-hier compare results.csv --rope 1 --out report/`` compares every pair of models and
writes the reports; ``bayes-hier pair results.csv A B --rope 1`` compares two models. Bad input
(a missing file, an unknown column, non-numeric scores, one model only, duplicated rows) ends
with a one-line message on stderr and exit code 2; progress goes to stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

#: Exit code for bad input (as argparse uses for bad arguments).
BAD_INPUT = 2

#: Errors that mean the input is wrong (reported in one line, no traceback).
INPUT_ERRORS = (FileNotFoundError, IsADirectoryError, ValueError, KeyError, TypeError)


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
        "results", type=Path, help="CSV file: one row per (dataset, model, run, fold)"
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
    parser.add_argument("--out", type=Path, default=None, help="folder for the reports")
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
    pair = commands.add_parser("pair", help="compare two models")
    _add_common(pair)
    pair.add_argument("first", help="the first model")
    pair.add_argument("second", help="the second model")
    return parser


def read_results(path: Path) -> pd.DataFrame:
    """The results table (comma-separated; tab-separated for .tsv)."""
    if not path.is_file():
        raise InputError(f"No such file: {path}")
    try:
        return pd.read_csv(path, sep="\t" if path.suffix.lower() == ".tsv" else ",")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise InputError(f"Cannot read {path} as CSV: {error}") from None


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The sampler options given on the command line."""
    names = ("chains", "draws", "warmup", "engine")
    return {name: getattr(args, name) for name in names if getattr(args, name) is not None}


def _progress(args: argparse.Namespace, message: str) -> None:
    if not args.quiet:
        print(message, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> Any:
    """Read, compare, write the reports; returns the comparison result."""
    from .compare import compare
    from .compare.columns import detect_columns

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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = build_parser()
    warnings.formatwarning = _one_line_warning
    try:
        args = parser.parse_args(argv)
        result = run(args)
    except (InputError, *INPUT_ERRORS) as error:
        text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
        print(f"bayes-hier: error: {' '.join(text.split())}", file=sys.stderr)
        return BAD_INPUT
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    elif args.command == "pair":
        print(result[args.first, args.second].summary(args.alpha))
    else:
        print(result.summary())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
