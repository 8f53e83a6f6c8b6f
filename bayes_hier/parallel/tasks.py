"""``run_tasks``: independent tasks on an executor, results in task order, saved as they finish.

Every task is a picklable call ``function(*task)``: the results come back in task order, so the
numbers do not depend on the executor, on the number of workers, or on whether the run was
interrupted. With a task store (for example the experiments' checkpoints), every result is saved
as soon as it arrives and the tasks saved by an earlier run are skipped, so an interrupted run
resumes where it stopped.
"""

from __future__ import annotations

import concurrent.futures
import time
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Protocol

from .executors import InlineExecutor

#: How many times a local pool is restarted after losing a worker during one :func:`run_tasks`.
RESTARTS = 3


class WorkerLostError(RuntimeError):
    """Workers were lost more often than the run tolerates."""


class TaskStore(Protocol):
    """Where :func:`run_tasks` saves finished tasks and finds those of an earlier run."""

    folder: Path

    def load(self, function: Callable[..., Any], task: tuple[Any, ...]) -> tuple[bool, Any]:
        """``(True, result)`` for a saved task, ``(False, None)`` otherwise."""

    def save(
        self,
        function: Callable[..., Any],
        task: tuple[Any, ...],
        result: Any,
        seconds: float,
        workers: int | None,
    ) -> None:
        """Save one finished task with its run time and the number of workers sharing the
        machine."""


def progress_bar_class() -> type:
    """Jupyter's widget bar when ipywidgets is installed, else the text bar.

    ``tqdm.auto`` alone warns "IProgress not found" in a notebook without ipywidgets.
    """
    import importlib.util

    if importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.auto import tqdm
    else:
        from tqdm import tqdm
    return tqdm


def _is_lost_worker(error: BaseException) -> bool:
    """A broken local pool, or Dask's ``KilledWorker`` (a task whose workers kept dying)."""
    return isinstance(error, BrokenProcessPool) or type(error).__name__ == "KilledWorker"


def timed_call(function: Callable[..., Any], *task: Any) -> tuple[Any, float]:
    """``(function(*task), seconds it took)``, measured in the process that runs the task."""
    start = time.perf_counter()
    value = function(*task)
    return value, time.perf_counter() - start


def workers_of(executor: concurrent.futures.Executor) -> int | None:
    """How many tasks run at once on ``executor``: 1 inline, ``jobs`` for a local pool, ``None``
    (unknown) for a Dask cluster."""
    if isinstance(executor, InlineExecutor):
        return 1
    return getattr(executor, "jobs", None)


def run_tasks(
    executor: concurrent.futures.Executor,
    function: Callable[..., Any],
    tasks: Sequence[tuple[Any, ...]],
    description: str,
    progress: bool = True,
    *,
    checkpoints: TaskStore | None = None,
) -> list[Any]:
    """``[function(*task) for task in tasks]`` on ``executor``, in task order, with a tqdm bar.

    With ``checkpoints``, tasks saved by an earlier run are not run again and every new result is
    saved as soon as it arrives, with its run time (:func:`timed_call`) and the executor's number
    of workers (``checkpoints.timing`` then sums them over all tasks, reused or not). A local pool
    that loses a worker is restarted and the unfinished tasks resubmitted (up to :data:`RESTARTS`
    times); beyond that, or when Dask gives a task up, :class:`WorkerLostError` says how many
    results are saved and how to resume.
    """
    results: list[Any] = [None] * len(tasks)
    pending = []
    for index, task in enumerate(tasks):
        found, value = checkpoints.load(function, task) if checkpoints else (False, None)
        if found:
            results[index] = value
        else:
            pending.append(index)
    with progress_bar_class()(
        total=len(tasks),
        initial=len(tasks) - len(pending),
        desc=description,
        disable=not progress,
        leave=True,
    ) as bar:
        workers = workers_of(executor)

        def record(index: int, timed: tuple[Any, float]) -> None:
            results[index], seconds = timed
            if checkpoints is not None:
                checkpoints.save(function, tasks[index], results[index], seconds, workers)
            bar.update()

        if isinstance(executor, InlineExecutor):  # run here, one by one, so the bar moves
            for index in pending:
                record(index, timed_call(function, *tasks[index]))
        else:
            _run_pending(executor, function, tasks, pending, record, description, checkpoints)
    return results


def _run_pending(
    executor: concurrent.futures.Executor,
    function: Callable[..., Any],
    tasks: Sequence[tuple[Any, ...]],
    pending: list[int],
    record: Callable[[int, tuple[Any, float]], None],
    description: str,
    checkpoints: TaskStore | None,
) -> None:
    """Submit the pending tasks; record results as they complete; restart a broken local pool."""
    restarts = 0
    while pending:
        futures = {executor.submit(timed_call, function, *tasks[i]): i for i in pending}
        done: set[int] = set()
        try:
            for future in concurrent.futures.as_completed(futures):
                record(futures[future], future.result())
                done.add(futures[future])
            return
        except BaseException as error:
            if not _is_lost_worker(error):
                raise
            # Keep whatever finished before the loss, then decide whether to go on.
            for future, index in futures.items():
                finished = future.done() and not future.cancelled()
                if index not in done and finished and future.exception() is None:
                    record(index, future.result())
                    done.add(index)
            pending = [i for i in pending if i not in done]
            saved = f"; finished results are saved in {checkpoints.folder}" if checkpoints else ""
            if not hasattr(executor, "restart") or restarts >= RESTARTS:
                advice = (
                    " Run the same command again to resume with the remaining tasks."
                    if checkpoints
                    else " Workers die when the machine runs out of memory or a task crashes"
                    " them: try fewer jobs (jobs=1 runs everything in this process)."
                )
                raise WorkerLostError(
                    f"{description}: worker processes were lost {restarts + 1} times "
                    f"({type(error).__name__}: {error}); {len(tasks) - len(pending)} of "
                    f"{len(tasks)} tasks finished{saved}.{advice}"
                ) from error
            restarts += 1
            warnings.warn(
                f"{description}: a worker process was lost ({type(error).__name__}); restarting "
                f"the local pool and resubmitting the {len(pending)} unfinished tasks{saved}.",
                RuntimeWarning,
                stacklevel=3,
            )
            executor.restart()


__all__ = [
    "RESTARTS",
    "TaskStore",
    "WorkerLostError",
    "progress_bar_class",
    "run_tasks",
    "timed_call",
    "workers_of",
]
