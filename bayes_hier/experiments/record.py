"""Keep a full ``make paper`` run as the results of record: ``paper/`` and the README's summary.

``python -m bayes_hier.experiments.record [--results results] [--to paper] [--readme README.md]``
copies the report, the run times and the tables and figures of a *full* run (all six experiments
at the paper's sizes, the files listed in its ``run_times.json``) from ``results/`` to ``paper/``,
and rewrites the block of the README between ``BEGIN`` and ``END``: the run time and Table 5 of
the paper next to the reproduction. Every number in that block is read from the run's files.
The block is built before anything is written; ``paper/`` is replaced by a complete copy in one
rename, and the README by a rename too, so a failure leaves the old record as it was.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from .checkpoints import TaskTiming
from .e6_real_data import PAPER_CSV as TABLE5_CSV
from .paper_values import CITATION
from .report import RUN_TIMES, markdown_table, timing_from_record

BEGIN = "<!-- paper-record:begin (written by python -m bayes_hier.experiments.record) -->"
END = "<!-- paper-record:end -->"
EXPERIMENTS = ("e1", "e2", "e3", "e4", "e5", "e6")
#: The simulation study (its run time is recorded apart from the rest).
SIMULATION = ("e1", "e2", "e3", "e4")
#: Tables the record must hold: the README's Table 5 and the benchmark's robustness table.
REQUIRED = (TABLE5_CSV, *(f"e{k}_repetitions.csv" for k in range(1, 5)))


class NotARecordError(ValueError):
    """A folder does not hold a complete full-size run, or the record cannot be written."""


def load_run_times(folder: Path) -> dict:
    """The run times of the run in ``folder``, which must be a complete full run with the tables
    the record needs (:class:`NotARecordError` otherwise)."""
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
    absent = [name for name in ("REPORT.md", *REQUIRED) if not (Path(folder) / name).is_file()]
    if absent:
        raise NotARecordError(f"{folder} lacks {', '.join(absent)}: run `make paper` again.")
    return times


def hours(seconds: float | None) -> str:
    """``1.23 h`` from an hour on, else ``12.3 min``; ``unknown`` for ``None``."""
    if seconds is None:
        return "unknown"
    return f"{seconds / 3600:.2f} h" if round(seconds / 60, 1) >= 60 else f"{seconds / 60:.1f} min"


def recorded_timing(times: dict, keys: tuple[str, ...] = EXPERIMENTS) -> TaskTiming:
    """The timing of the experiments ``keys`` of a run's ``run_times.json``, together."""
    return TaskTiming.combined(timing_from_record(times["experiments"][key]) for key in keys)


def run_time_sentence(times: dict) -> str:
    """When and where the run was made, and how long its repetitions took: summed and as
    estimated wall time (``checkpoints.TaskTiming``), for E1-E4, E5, E6 and all."""
    parts = {"E1-E4": SIMULATION, "E5": ("e5",), "E6": ("e6",), "all": EXPERIMENTS}
    timings = {name: recorded_timing(times, keys) for name, keys in parts.items()}
    summed = ", ".join(f"{name} {hours(t.seconds)}" for name, t in timings.items())
    wall = ", ".join(f"{name} {hours(t.wall_seconds)}" for name, t in timings.items())
    where = f"Dask scheduler {times['scheduler']}" if times["scheduler"] else (
        f"{times['jobs']} local worker processes"
    )  # fmt: skip
    return (
        f"Generated {times['generated']} on {times['machine']} ({where}; {times['chains']} "
        f"chains x {times['draws']} draws after {times['warmup']} warm-up per fit). Summed run "
        f"time of the repetitions (each timed in its worker): {summed}. Estimated wall time "
        f"(each repetition's time divided by the workers sharing the machine): **{wall}**."
    )


def readme_block(folder: Path, record_name: str = "paper") -> str:
    """The README's block from the run in ``folder``, to be kept in ``record_name/``: the run
    time and Table 5 next to the paper's."""
    times = load_run_times(folder)
    table = pd.read_csv(Path(folder) / TABLE5_CSV, dtype={"paper signed-rank p": str})
    return "\n".join(
        [
            BEGIN,
            f"Results of record: `{record_name}/` (`REPORT.md`, one CSV per table, one PNG per "
            "figure, "
            "`run_times.json`), copied from a full `make paper` run. " + run_time_sentence(times),
            "",
            f"Table 5 (next-data-set probabilities) and Table 6 (signed-rank p-values) of "
            f"{CITATION}, next to the reproduction (E6; the paper's 'left' is 'second better'):",
            "",
            markdown_table(table),
            END,
        ]
    )


def replace_block(text: str, block: str) -> str:
    """``text`` with the part from ``BEGIN`` to the next ``END`` replaced by ``block``."""
    start = text.find(BEGIN)
    end = text.find(END, start) if start >= 0 else -1
    if start < 0 or end < 0:
        raise NotARecordError(f"the README has no block between {BEGIN!r} and {END!r}")
    return text[:start] + block + text[end + len(END) :]


def _check_separate(source: Path, target: Path) -> None:
    source, target = source.resolve(), target.resolve()
    if source == target or source in target.parents or target in source.parents:
        raise NotARecordError(
            f"the record ({target}) must be a folder of its own, neither the run's folder "
            f"({source}) nor inside or around it"
        )


def copy_results(source: Path, target: Path, times: dict) -> list[Path]:
    """Replace ``target`` by a copy of the run's report, run times and listed files, built in a
    temporary folder beside it and renamed into place."""
    source, target = Path(source), Path(target)
    _check_separate(source, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        for name in ("REPORT.md", RUN_TIMES, *times["files"]):
            shutil.copy2(source / name, staging / name)
        if target.exists():
            old = target.with_name(f".{target.name}-old")
            shutil.rmtree(old, ignore_errors=True)
            target.rename(old)
            staging.rename(target)
            shutil.rmtree(old)
        else:
            staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return sorted(target.iterdir())


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it over ``path``."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(temporary, path)


def record(results: Path, to: Path, readme: Path) -> list[Path]:
    """Check the run, build the README block, then copy the run to ``to`` and update ``readme``."""
    times = load_run_times(results)
    text = replace_block(readme.read_text(encoding="utf-8"), readme_block(results, to.name))
    copied = copy_results(results, to, times)
    write_atomically(readme, text)
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bayes_hier.experiments.record")
    parser.add_argument("--results", default="results", help="the run's folder (default results)")
    parser.add_argument("--to", default="paper", help="where the record goes (default paper)")
    parser.add_argument("--readme", default="README.md", help="README to update")
    args = parser.parse_args(argv)
    try:
        copied = record(Path(args.results), Path(args.to), Path(args.readme))
    except NotARecordError as error:
        parser.error(str(error))
    print(f"Copied {len(copied)} files to {args.to}/ and updated {args.readme}.")
    return 0


__all__ = [
    "NotARecordError",
    "copy_results",
    "load_run_times",
    "main",
    "readme_block",
    "record",
    "recorded_timing",
    "replace_block",
    "run_time_sentence",
    "write_atomically",
]


if __name__ == "__main__":
    raise SystemExit(main())
