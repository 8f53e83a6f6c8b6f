"""``REPORT.md``: every table, figure, setting, seed, the versions and the run times; the run
times also as ``run_times.json`` (read by :mod:`.record`)."""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import os
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .runner import ExperimentOutput, Settings

PACKAGES = (
    "bayes_hier",
    "numpy",
    "scipy",
    "pandas",
    "arviz",
    "pystan",
    "httpstan",
    "cmdstanpy",
    "scikit-learn",
    "dask",
    "distributed",
    "matplotlib",
)


def versions() -> dict[str, str]:
    """Installed versions of the package and of what the experiments use."""
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value).replace("|", "\\|")


def markdown_table(frame: pd.DataFrame, max_rows: int = 60) -> str:
    """A GitHub-flavoured markdown table (no extra dependency)."""
    shown = frame.head(max_rows)
    lines = [
        "| " + " | ".join(str(c) for c in shown.columns) + " |",
        "| " + " | ".join("---" for _ in shown.columns) + " |",
    ]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in shown.itertuples(False)]
    if len(frame) > max_rows:
        lines.append(f"\n({len(frame) - max_rows} more rows in the CSV)")
    return "\n".join(lines)


def run_time_lines(
    outputs: Sequence[ExperimentOutput], *, jobs: int, scheduler: str | None
) -> list[str]:
    """The run-time table: this run's wall seconds and, per experiment, the summed run time of
    all its repetitions, also of those an earlier (interrupted) run computed.

    With ``jobs`` local workers kept busy, the wall time of a run that computes every repetition
    is about the summed task time divided by ``jobs`` (each task's time is measured in its worker,
    so it already includes the slowdown of sharing the cores with the other workers).
    """
    table = pd.DataFrame(
        [(o.key, o.title, round(o.seconds, 1), round(o.task_seconds, 1)) for o in outputs],
        columns=["experiment", "title", "seconds (this run)", "seconds (all repetitions)"],
    )
    total = float(sum(o.task_seconds for o in outputs))
    lines = [markdown_table(table), ""]
    if total > 0:
        workers = "the Dask workers" if scheduler else f"{jobs} local job(s)"
        lines += [
            f"Summed run time of all repetitions (each timed in its worker, including those "
            f"reused from `checkpoints/`): {total:.0f} s; on {workers} that is "
            + (
                f"about {total / jobs / 60:.1f} min of wall time for a run that computes all of "
                "them."
                if not scheduler
                else "the wall time times the number of busy workers."
            ),
            "",
        ]
    return lines


def write_report(
    out: Path,
    outputs: Sequence[ExperimentOutput],
    settings: Settings,
    *,
    engine: str,
    seconds: float,
    jobs: int = 1,
    scheduler: str | None = None,
    command: str | None = None,
    reused: int = 0,
) -> Path:
    """Write ``out/REPORT.md`` and return its path. ``reused``: results taken from the checkpoints
    of an earlier (interrupted) run, whose time the run times do not include."""
    out = Path(out)
    lines = [
        "# Reproduction of the hierarchical-model paper (bayes_hier)",
        "",
        f"Generated {datetime.datetime.now().isoformat(timespec='seconds')} in "
        f"**{settings.mode}** mode; total run time {seconds:.1f} s "
        f"({seconds / 60:.1f} min)"
        + (
            f"; {reused} finished repetitions were reused from `checkpoints/` (saved by an "
            "earlier run; `--fresh` recomputes them), so the run times cover only the rest."
            if reused
            else "."
        ),
        "",
        f"* Command: `{command}`" if command else "* Command: (library call)",
        "* Executor: " + (f"Dask scheduler {scheduler}" if scheduler else f"{jobs} local job(s)"),
        f"* Stan engine: {engine}; {settings.chains} chains × {settings.draws} draws "
        f"({settings.warmup} warm-up)",
        f"* Base seed: {settings.base_seed}; repetition r of setting s of experiment e uses "
        "`numpy.random.SeedSequence([base_seed, e, s, r])` (data RNG and Stan seed spawned from "
        "it), so each repetition can be rerun alone with the `run_repetition` functions.",
        *(f"* Note: {note}" for note in settings.notes),
        "",
        "## Versions",
        "",
        markdown_table(pd.DataFrame(list(versions().items()), columns=["package", "version"])),
        "",
        "## Run times",
        "",
        *run_time_lines(outputs, jobs=jobs, scheduler=scheduler),
    ]
    for output in outputs:
        lines += [f"## {output.title}", "", output.description, ""]
        for name, table in output.tables.items():
            lines += [f"### `{name}`", "", markdown_table(table), ""]
        for name, caption in output.figures.items():
            lines += [f"![{caption}]({name})", "", f"*{caption}*", ""]
    lines += [
        "## Settings",
        "",
        "```",
        *(f"{key} = {value!r}" for key, value in settings.as_dict().items()),
        "```",
        "",
    ]
    path = out / "REPORT.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    write_run_times(out, outputs, settings, seconds=seconds, jobs=jobs, scheduler=scheduler)
    return path


#: The file :func:`write_report` writes the run times to.
RUN_TIMES = "run_times.json"


def write_run_times(
    out: Path,
    outputs: Sequence[ExperimentOutput],
    settings: Settings,
    *,
    seconds: float,
    jobs: int,
    scheduler: str | None,
) -> Path:
    """``out/run_times.json``: mode, date, machine, workers, this run's wall seconds and, per
    experiment, this run's seconds and the summed run time of all its repetitions."""
    record = {
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "mode": settings.mode,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
        "jobs": jobs,
        "scheduler": scheduler,
        "seconds": seconds,
        "experiments": {
            o.key: {"seconds": o.seconds, "task_seconds": o.task_seconds} for o in outputs
        },
    }
    path = Path(out) / RUN_TIMES
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path
