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

from ..formatting import markdown_table
from .checkpoints import TaskTiming
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


def utc_now() -> str:
    """The current time in UTC, ISO 8601 to the second."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def minutes(seconds: float | None) -> str:
    """``12.3`` (minutes), or ``unknown`` for ``None``."""
    return "unknown" if seconds is None else f"{seconds / 60:.1f}"


def run_time_lines(outputs: Sequence[ExperimentOutput]) -> list[str]:
    """The run-time table: per experiment, this run's seconds, how many repetitions were reused,
    their summed run time and the estimated wall time of computing them all
    (:class:`~.checkpoints.TaskTiming`), also across the earlier runs that saved them."""
    table = pd.DataFrame(
        [
            (
                o.key,
                o.title,
                round(o.seconds, 1),
                f"{o.timing.tasks} ({o.timing.reused})",
                round(o.timing.seconds / 60, 1),
                minutes(o.timing.wall_seconds),
            )
            for o in outputs
        ],
        columns=[
            "experiment",
            "title",
            "seconds (this run)",
            "repetitions (reused)",
            "summed repetition minutes",
            "estimated wall minutes",
        ],
    )
    lines = [markdown_table(table), ""]
    total = TaskTiming.combined(o.timing for o in outputs)
    if total.seconds > 0:
        lines += [
            "Each repetition is timed in the worker that ran it; the estimated wall time divides "
            "its time by the number of workers that shared the machine meanwhile (unknown on a "
            f"Dask cluster). All repetitions: {total.seconds / 60:.1f} min summed, about "
            f"{minutes(total.wall_seconds)} min of wall time.",
            "",
        ]
    return lines


def timing_record(timing: TaskTiming) -> dict[str, Any]:
    """A :class:`~.checkpoints.TaskTiming` as ``run_times.json`` keeps it."""
    return {
        "tasks": timing.tasks,
        "reused": timing.reused,
        "task_seconds": timing.seconds,
        "wall_seconds": timing.wall_seconds,
    }


def timing_from_record(record: dict[str, Any]) -> TaskTiming:
    """The :class:`~.checkpoints.TaskTiming` of one experiment of ``run_times.json``."""
    return TaskTiming(
        record["tasks"], record["reused"], record["task_seconds"], record["wall_seconds"]
    )


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
    started: float | None = None,
) -> Path:
    """Write ``out/REPORT.md`` and ``out/run_times.json`` and return the report's path.

    ``reused``: results taken from the checkpoints of an earlier (interrupted) run, whose time
    this run's seconds do not include. ``started``: when this run began (``time.time()``); the
    tables and figures written since then are listed in ``run_times.json``.
    """
    out = Path(out)
    lines = [
        "# Reproduction of the hierarchical-model paper (bayes_hier)",
        "",
        f"Generated {utc_now()} in **{settings.mode}** mode; this run took {seconds:.1f} s "
        f"({seconds / 60:.1f} min)"
        + (
            f"; {reused} finished repetitions were reused from `checkpoints/` (saved by an "
            "earlier run; `--fresh` recomputes them): this run's seconds cover only the rest, "
            "the run-time table below covers all."
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
        *run_time_lines(outputs),
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
    write_run_times(
        out, outputs, settings, seconds=seconds, jobs=jobs, scheduler=scheduler, started=started
    )
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
    started: float | None = None,
) -> Path:
    """``out/run_times.json``: mode, MCMC sizes, date (UTC), machine, workers, this run's wall
    seconds, per experiment this run's seconds and the timing of all its repetitions
    (:class:`~.checkpoints.TaskTiming`: tasks, reused, task_seconds, wall_seconds), and the
    tables and figures this run wrote (``files``:
    those modified since ``started``; all of them when ``started`` is ``None``)."""
    out = Path(out)
    files = sorted(
        path.name
        for pattern in ("*.csv", "*.png")
        for path in out.glob(pattern)
        if started is None or path.stat().st_mtime >= started
    )
    record = {
        "generated": utc_now(),
        "mode": settings.mode,
        "chains": settings.chains,
        "draws": settings.draws,
        "warmup": settings.warmup,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
        "jobs": jobs,
        "scheduler": scheduler,
        "seconds": seconds,
        "experiments": {
            o.key: {"this_run_seconds": o.seconds, **timing_record(o.timing)} for o in outputs
        },
        "files": files,
    }
    path = out / RUN_TIMES
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path
