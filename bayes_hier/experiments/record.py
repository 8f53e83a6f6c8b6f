"""Keep a full ``make paper`` run as the results of record: ``paper/`` and the README's summary.

``python -m bayes_hier.experiments.record [--results results] [--to paper] [--readme README.md]``
copies the report, tables, figures and run times of a *full* run (all six experiments at the
paper's sizes) from ``results/`` to ``paper/``, and rewrites the block of the README between
``BEGIN`` and ``END``: the run time and Table 5 of the paper next to the reproduction.
Every number in that block is read from the copied files, none is typed in.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pandas as pd

from .e6_real_data import PAPER_CSV as TABLE5_CSV
from .paper_values import CITATION
from .report import RUN_TIMES, markdown_table

BEGIN = "<!-- paper-record:begin (written by python -m bayes_hier.experiments.record) -->"
END = "<!-- paper-record:end -->"
EXPERIMENTS = ("e1", "e2", "e3", "e4", "e5", "e6")
#: What is copied: the report, the run times, every table and figure (not the checkpoints).
PATTERNS = ("REPORT.md", RUN_TIMES, "*.csv", "*.png")


class NotARecordError(ValueError):
    """``results/`` does not hold a complete full-size run."""


def load_run_times(folder: Path) -> dict:
    """The run times of the run in ``folder``, which must be a complete full run
    (:class:`NotARecordError` otherwise)."""
    path = Path(folder) / RUN_TIMES
    if not path.is_file():
        raise NotARecordError(
            f"{path} is missing: run `make paper` (it writes the report and its run times) first."
        )
    times = json.loads(path.read_text(encoding="utf-8"))
    missing = [key for key in EXPERIMENTS if key not in times["experiments"]]
    if times["mode"] != "full" or missing:
        raise NotARecordError(
            f"{folder} holds a {times['mode']} run"
            + (f" without {', '.join(missing)}" if missing else "")
            + ": the results of record come from `make paper` (full mode, all six experiments)."
        )
    return times


def copy_results(source: Path, target: Path) -> list[Path]:
    """Copy the report, run times, tables and figures from ``source`` to a fresh ``target``."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    copied = []
    for pattern in PATTERNS:
        for path in sorted(Path(source).glob(pattern)):
            copied.append(Path(shutil.copy2(path, target / path.name)))
    return copied


def hours(seconds: float) -> str:
    """``1.23 h`` (or minutes below an hour)."""
    return f"{seconds / 3600:.2f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min"


def run_time_sentence(times: dict) -> str:
    """How long the run took: summed repetition times of E1–E4, E5, E6 and the wall estimate."""
    task = {key: value["task_seconds"] for key, value in times["experiments"].items()}
    simulation = sum(task[key] for key in ("e1", "e2", "e3", "e4"))
    total = sum(task.values())
    jobs = times["jobs"]
    return (
        f"Generated {times['generated']} on {times['machine']} with {jobs} worker process(es). "
        "Summed run time of all repetitions (each timed in its worker): "
        f"E1-E4 {hours(simulation)}, E5 {hours(task['e5'])}, E6 {hours(task['e6'])}, "
        f"all {hours(total)}; with {jobs} workers busy that is about "
        f"**{hours(total / jobs)} of wall time** (E1-E4 about {hours(simulation / jobs)})."
    )


def readme_block(record: Path) -> str:
    """The README's block: where the results are, the run time, Table 5 next to the paper."""
    times = load_run_times(record)
    table = pd.read_csv(Path(record) / TABLE5_CSV)
    return "\n".join(
        [
            BEGIN,
            f"Results of record: `{Path(record).name}/` (`REPORT.md`, one CSV per table, one PNG "
            "per figure, `run_times.json`), copied from a full `make paper` run. "
            + run_time_sentence(times),
            "",
            f"Table 5 (next-data-set probabilities) and Table 6 (signed-rank p-values) of "
            f"{CITATION}, next to the reproduction (E6; 4 chains x 1000 draws; the paper's "
            "'left' is 'second better'):",
            "",
            markdown_table(table),
            END,
        ]
    )


def replace_block(text: str, block: str) -> str:
    """``text`` with the part from ``BEGIN`` to ``END`` replaced by ``block``."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the README has no block between {BEGIN!r} and {END!r}")
    return text[:start] + block + text[end + len(END) :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bayes_hier.experiments.record")
    parser.add_argument("--results", default="results", help="the run's folder (default results)")
    parser.add_argument("--to", default="paper", help="where the record goes (default paper)")
    parser.add_argument(
        "--readme", default="README.md", help="README to update (default README.md)"
    )
    args = parser.parse_args(argv)
    try:
        load_run_times(Path(args.results))
    except NotARecordError as error:
        parser.error(str(error))
    copied = copy_results(Path(args.results), Path(args.to))
    readme = Path(args.readme)
    readme.write_text(
        replace_block(readme.read_text(encoding="utf-8"), readme_block(Path(args.to))),
        encoding="utf-8",
    )
    print(f"Copied {len(copied)} files to {args.to}/ and updated {readme}.")
    return 0


__all__ = [
    "NotARecordError",
    "copy_results",
    "load_run_times",
    "main",
    "readme_block",
    "replace_block",
    "run_time_sentence",
]


if __name__ == "__main__":
    raise SystemExit(main())
