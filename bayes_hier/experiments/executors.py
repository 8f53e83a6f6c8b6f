"""Executors that run the repetitions, and :func:`run_tasks`, which saves results as they finish.

Every repetition is an independent, picklable task ``function(*task)``: the drivers submit them to
a ``concurrent.futures``-style executor and get the results in task order, so the numbers do not
depend on the executor, on the number of workers, or on whether the run was interrupted.

* ``jobs == 1``: the tasks run in this process, one after the other (:class:`InlineExecutor`).
* ``jobs > 1``: :class:`LocalProcessPool`, a :class:`~concurrent.futures.ProcessPoolExecutor` with
  the ``spawn`` start method (pystan forks its own chain processes; a spawned worker is a clean
  interpreter). Each worker loads the compiled Stan model from the on-disk cache. A lost worker
  (killed, out of memory) breaks a process pool; the pool is then restarted and the unfinished
  tasks are submitted again (:data:`RESTARTS` times at most).
* ``scheduler``: a Dask distributed cluster — an address (``tcp://host:8786``), a
  :class:`distributed.Client` or a :class:`distributed.LocalCluster`; the tasks go through the
  client's ``concurrent.futures`` executor (``Client.get_executor()``). pystan forks chain
  processes, which a *daemonic* process may not do: start the Dask workers with
  ``DASK_DISTRIBUTED__WORKER__DAEMON=False`` (or ``dask.config.set({"distributed.worker.daemon":
  False})`` before making a ``LocalCluster(processes=True)``), or use ``processes=False``. A
  worker plugin shuts httpstan's chain pool down when a worker process closes. Dask reschedules
  the tasks of a lost worker itself; after ``distributed.scheduler.allowed-failures`` losses of
  the same task it gives up (``KilledWorker``) and the run stops with a message.

**Resuming.** With ``checkpoints`` (:class:`~.checkpoints.Checkpoints`), :func:`run_tasks` saves
every result as soon as it arrives and skips the tasks whose result was saved by an earlier run:
an interrupted run (Ctrl-C, an error, a lost worker or machine) resumes where it stopped and gives
the numbers of an uninterrupted run. **Ctrl-C** (or any error) inside :func:`make_executor`
terminates the local workers and their chain processes before it propagates, so nothing is left
running; the workers ignore SIGINT themselves, so that only the main process decides.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .checkpoints import Checkpoints


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


#: How many times a local pool is restarted after losing a worker during one :func:`run_tasks`.
RESTARTS = 3
#: Seconds a terminated process gets to exit before it is killed.
TERMINATE_TIMEOUT = 5.0


class WorkerLostError(RuntimeError):
    """Workers were lost more often than the run tolerates; finished results are saved."""


class InlineExecutor(concurrent.futures.Executor):
    """Runs each task at submission, in this process (``jobs == 1``)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:
            future.set_exception(error)
        return future


# ------------------------------------------------------------------------------ process trees
def stop_stan_pool() -> None:
    """Shut down httpstan's chain process pool of this process, if it was started."""
    import sys

    stub = sys.modules.get("httpstan.services_stub")
    pool = getattr(stub, "executor", None)
    if pool is not None:
        with contextlib.suppress(Exception):
            pool.shutdown(wait=True, cancel_futures=True)
    with contextlib.suppress(Exception):
        from ..engines.pystan_engine import stop_chain_processes

        stop_chain_processes()


def terminate_tree(pids: Sequence[int], timeout: float = TERMINATE_TIMEOUT) -> None:
    """Terminate the processes ``pids`` and all their descendants (children first), waiting up to
    ``timeout`` seconds before killing what is left. Uses :mod:`psutil` when installed, else only
    the processes themselves are signalled."""
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil comes with distributed
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        return
    processes = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            parent = psutil.Process(pid)
            processes.extend(parent.children(recursive=True))
            processes.append(parent)
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.terminate()
    _, alive = psutil.wait_procs(processes, timeout=timeout)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=timeout)


def _init_worker() -> None:
    """Initialiser of the local worker processes.

    SIGINT is ignored (Ctrl-C reaches the whole process group; the main process stops the workers
    and their chain processes). httpstan keeps a (non-daemonic) process pool for the chains; a
    worker process that exits joins its children *before* the ``atexit`` hooks that would stop
    that pool run, and would hang: a multiprocessing finalizer (run before that join) shuts the
    pool down first.
    """
    from multiprocessing import util

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.setdefault("MPLBACKEND", "Agg")
    util.Finalize(None, stop_stan_pool, exitpriority=100)


class LocalProcessPool(concurrent.futures.Executor):
    """``jobs`` spawned worker processes that can be restarted after one of them was lost."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pool = self._start()

    def _start(self) -> concurrent.futures.ProcessPoolExecutor:
        return concurrent.futures.ProcessPoolExecutor(
            self.jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_init_worker
        )

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        return self._pool.submit(fn, *args, **kwargs)

    def worker_pids(self) -> list[int]:
        return list(getattr(self._pool, "_processes", None) or {})

    def terminate(self) -> None:
        """Stop now: cancel what is queued, terminate the workers and their chain processes."""
        pids = self.worker_pids()
        self._pool.shutdown(wait=False, cancel_futures=True)
        terminate_tree(pids)

    def restart(self) -> None:
        """Replace a broken pool by a fresh one (the survivors of the old one are terminated)."""
        self.terminate()
        self._pool = self._start()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


# ------------------------------------------------------------------------------ Dask
def _teardown_worker(worker: Any = None) -> None:
    """Stop httpstan's chain pool when a Dask worker *process* closes (not an in-process one)."""
    if multiprocessing.current_process().name != "MainProcess":
        stop_stan_pool()


def _register_cleanup(client: Any) -> None:
    """Make Dask worker processes shut httpstan's chain pool down when they close."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class StanPoolCleanup(WorkerPlugin):
        name = "bayes-hier-stan-pool"

        def teardown(self, worker: Any) -> None:
            _teardown_worker(worker)

    with contextlib.suppress(Exception):
        client.register_plugin(StanPoolCleanup())


def _is_lost_worker(error: BaseException) -> bool:
    """A broken local pool, or Dask's ``KilledWorker`` (a task whose workers kept dying)."""
    return isinstance(error, BrokenProcessPool) or type(error).__name__ == "KilledWorker"


@contextlib.contextmanager
def make_executor(jobs: int = 1, scheduler: Any = None) -> Iterator[concurrent.futures.Executor]:
    """The executor for ``jobs`` local processes or a Dask cluster (see the module docstring).

    On Ctrl-C or any error inside the ``with`` block the local workers and their chain processes
    are terminated before the exception propagates.
    """
    if scheduler is not None:
        from distributed import Client, LocalCluster

        if isinstance(scheduler, Client):
            _register_cleanup(scheduler)
            yield scheduler.get_executor()
            return
        client = Client(scheduler) if isinstance(scheduler, str | LocalCluster) else None
        if client is None:
            raise TypeError(f"scheduler must be an address, Client or LocalCluster: {scheduler!r}")
        try:
            _register_cleanup(client)
            yield client.get_executor()
        finally:
            client.close()
        return
    if jobs <= 1:
        # The chain processes are this process's children: Ctrl-C reaches them too, and the
        # engine stops the rest at exit. Its pool is left usable for the next fit (notebooks).
        yield InlineExecutor()
        return
    pool = LocalProcessPool(jobs)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    pool.shutdown(wait=True)


# ------------------------------------------------------------------------------ run_tasks
def timed_call(function: Callable[..., Any], *task: Any) -> tuple[Any, float]:
    """``(function(*task), seconds it took)``, measured in the process that runs the task."""
    import time

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
    checkpoints: Checkpoints | None = None,
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
    checkpoints: Checkpoints | None,
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
                raise WorkerLostError(
                    f"{description}: a worker process was lost ({type(error).__name__}: "
                    f"{error}); {len(tasks) - len(pending)} of {len(tasks)} tasks finished{saved}."
                    " Run the same command again to resume with the remaining tasks."
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
    "InlineExecutor",
    "LocalProcessPool",
    "WorkerLostError",
    "make_executor",
    "run_tasks",
    "stop_stan_pool",
    "terminate_tree",
    "timed_call",
    "workers_of",
]
