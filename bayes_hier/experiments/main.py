"""Run the selected experiments and write the report (used by ``__main__`` and the notebook)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

from . import (
    e1_shrinkage,
    e2_equivalent,
    e3_practically_equivalent,
    e4_power,
    e5_friedman,
    e6_real_data,
)
from .report import write_report
from .runner import CHECKPOINTS, ExperimentOutput, Settings, compile_model, make_executor

EXPERIMENTS = {
    "e1": e1_shrinkage,
    "e2": e2_equivalent,
    "e3": e3_practically_equivalent,
    "e4": e4_power,
    "e5": e5_friedman,
    "e6": e6_real_data,
}


def run_experiments(
    settings: Settings,
    out: str | os.PathLike[str] = "results",
    *,
    jobs: int = 1,
    scheduler: Any = None,
    data: str | None = None,
    progress: bool = True,
    command: str | None = None,
    fresh: bool = False,
) -> list[ExperimentOutput]:
    """Run ``settings.experiments`` into ``out`` and write ``out/REPORT.md``.

    ``jobs`` local processes, or a Dask ``scheduler`` (address, Client or LocalCluster). ``data``
    is the real data's file or folder (default: the packaged copy).

    Every finished repetition is saved under ``out/checkpoints/<experiment>/`` as it finishes; a
    rerun with the same settings skips them, so an interrupted run resumes where it stopped and
    gives the numbers of an uninterrupted one. ``fresh=True`` deletes the checkpoints first.
    """
    os.environ.setdefault("MPLBACKEND", "Agg")  # for worker processes; the caller's is kept
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if fresh:
        shutil.rmtree(out / CHECKPOINTS, ignore_errors=True)
    start, started = time.perf_counter(), time.time()
    engine = compile_model(settings.engine)  # once, before any worker starts
    outputs = []
    with make_executor(jobs, scheduler) as executor:
        for key in settings.experiments:
            module = EXPERIMENTS[key]
            extra = {"data": data} if key == "e6" else {}
            outputs.append(module.run(settings, executor, out, progress=progress, **extra))
    write_report(
        out,
        outputs,
        settings,
        engine=engine,
        seconds=time.perf_counter() - start,
        jobs=jobs,
        scheduler=scheduler if isinstance(scheduler, str) else (scheduler and repr(scheduler)),
        command=command,
        reused=sum(output.timing.reused for output in outputs),
        started=started,
    )
    return outputs
