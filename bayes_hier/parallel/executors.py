"""Executors: in this process, in local worker processes, or on a Dask cluster.

* ``jobs == 1``: the tasks run in this process, one after the other (:class:`InlineExecutor`).
* ``jobs > 1``: :class:`LocalProcessPool`, a :class:`~concurrent.futures.ProcessPoolExecutor` with
  the ``spawn`` start method (a spawned worker is a clean interpreter, safe beside libraries that
  fork processes or hold threads, as Stan's engines do). A spawned worker imports the calling
  script again; where it cannot (a script read from standard input) or where that would run the
  call again (a script whose call is not under ``if __name__ == "__main__":``),
  :func:`make_executor` says so in one line and runs the tasks in this process instead
  (:func:`workers_can_start`). A lost
  worker (killed, out of memory) breaks a process pool; :func:`~bayes_hier.parallel.run_tasks`
  then restarts it (:meth:`LocalProcessPool.restart`).
* ``scheduler``: a Dask distributed cluster: an address (``tcp://host:8786``), a
  ``distributed.Client`` or a ``distributed.LocalCluster``; the tasks go through the
  client's ``concurrent.futures`` executor (``Client.get_executor()``). Stan's pystan engine forks
  chain processes, which a *daemonic* process may not do: start the Dask workers with
  ``DASK_DISTRIBUTED__WORKER__DAEMON=False`` (or ``dask.config.set({"distributed.worker.daemon":
  False})`` before making a ``LocalCluster(processes=True)``), or use ``processes=False``. A worker
  plugin runs the registered process clean-ups
  (:func:`~bayes_hier.parallel.register_process_cleanup`) when a worker process closes. Dask
  reschedules the tasks of a lost worker itself; after
  ``distributed.scheduler.allowed-failures`` losses of the same task it gives up
  (``KilledWorker``).

**Ctrl-C** (or any error) inside :func:`make_executor` terminates the local workers and their
descendants before it propagates, so nothing is left running; the workers ignore SIGINT
themselves, so that only the main process decides. A main process that is *killed* (SIGTERM,
SIGKILL) cannot do that: each local worker watches its parent and, when it is gone, runs its
process clean-ups (stopping its chain processes) and exits.
"""

from __future__ import annotations

import ast
import concurrent.futures
import contextlib
import inspect
import multiprocessing
import os
import signal
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from ..callers import user_stacklevel
from .processes import end_with_parent, run_process_cleanups, terminate_tree


class ParallelWarning(RuntimeWarning):
    """Worker processes could not be used; the tasks ran another way (the message says how)."""


class InlineExecutor(concurrent.futures.Executor):
    """Runs each task at submission, in this process (``jobs == 1``)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Call ``fn`` with the arguments now; return a finished future with its result."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:
            future.set_exception(error)
        return future


def _init_worker() -> None:
    """Initialiser of the local worker processes: SIGINT is ignored (Ctrl-C reaches the whole
    process group; the main process stops the workers and their descendants), and the worker
    ends with its parent (:func:`~bayes_hier.parallel.end_with_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.setdefault("MPLBACKEND", "Agg")
    end_with_parent()


def workers_can_start() -> tuple[bool, str]:
    """Whether spawned worker processes can start here, and if not, why.

    A spawned worker runs the main module of this process again (as ``__mp_main__``) from its
    file. A main module that has a file name but no file, such as a script read from standard
    input (``<stdin>``), makes every worker die at start. A script whose top-level code starts
    the workers outside ``if __name__ == "__main__":`` would make every worker run that code,
    and so try to start workers of its own, which Python refuses while a worker is starting:
    every worker dies (:func:`unguarded_main_line` finds that case). A main module without a
    file name (an interactive session, ``python -c``, Jupyter) is not run again and is fine.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if getattr(main, "__spec__", None) is None and path is not None and not os.path.exists(path):
        return False, (
            f"worker processes cannot start: they must import this script again and it has no "
            f"file ({path!r}; save it to a .py file and run that file to use several workers)"
        )
    line = unguarded_main_line()
    if line is not None:
        return False, (
            f"each worker process would run the script {os.path.basename(str(path))} again "
            f"from the top, and with it this call (line {line}), since it is not under "
            f'`if __name__ == "__main__":`; put the script\'s work under that line to use '
            f"several workers"
        )
    return True, ""


def unguarded_main_line() -> int | None:
    """The line of the main script's top-level statement running now, if that statement is not
    under ``if __name__ == "__main__":``; ``None`` otherwise, or when it cannot be told.

    The statement is found through the call stack (the frame running the main module's own
    top-level code) and the script's syntax tree: a top-level ``if`` whose condition reads
    ``__name__`` counts as the guard, whatever runs inside it (a ``main()`` called there is
    guarded). No main module file, a package's ``__main__`` module (``python -m package``, which
    :mod:`multiprocessing` does not run again in its workers), no such frame (the call comes from
    elsewhere, e.g. a test runner's own guarded entry point) or a file that cannot be parsed
    gives ``None``.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or not os.path.isfile(path):
        return None
    module_name = getattr(getattr(main, "__spec__", None), "name", None) or ""
    if module_name == "__main__" or module_name.endswith(".__main__"):
        return None
    frame = inspect.currentframe()
    while frame is not None and not (
        frame.f_code.co_name == "<module>" and frame.f_globals is vars(main)
    ):
        frame = frame.f_back
    if frame is None:
        return None
    line = frame.f_lineno
    try:
        with open(path, "rb") as source:
            tree = ast.parse(source.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None
    for statement in tree.body:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            return None if _reads_dunder_name(statement) else line
    return None


def _reads_dunder_name(statement: ast.stmt) -> bool:
    """Whether ``statement`` is an ``if`` whose condition reads ``__name__`` (the main guard)."""
    return isinstance(statement, ast.If) and any(
        isinstance(node, ast.Name) and node.id == "__name__" for node in ast.walk(statement.test)
    )


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
        """Schedule ``fn`` with the arguments on a worker; return its future."""
        return self._pool.submit(fn, *args, **kwargs)

    def workers(self) -> list[multiprocessing.process.BaseProcess]:
        """The pool's worker processes (its own :class:`multiprocessing.Process` objects)."""
        return list((getattr(self._pool, "_processes", None) or {}).values())

    def worker_pids(self) -> list[int]:
        """Process ids of the pool's workers."""
        return [process.pid for process in self.workers() if process.pid]

    def terminate(self) -> None:
        """Stop now: cancel what is queued, terminate the workers and their descendants (through
        the pool's own process objects, see :func:`~bayes_hier.parallel.terminate_tree`)."""
        workers = self.workers()
        self._pool.shutdown(wait=False, cancel_futures=True)
        terminate_tree(workers)

    def restart(self) -> None:
        """Replace a broken pool by a fresh one (the survivors of the old one are terminated)."""
        self.terminate()
        self._pool = self._start()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Shut the pool down (see :meth:`concurrent.futures.Executor.shutdown`)."""
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


# ------------------------------------------------------------------------------ Dask
def _teardown_worker(worker: Any = None) -> None:
    """Run the process clean-ups when a Dask worker *process* closes (not an in-process one)."""
    if multiprocessing.current_process().name != "MainProcess":
        run_process_cleanups()


def _register_cleanup(client: Any) -> None:
    """Make Dask worker processes run the registered clean-ups when they close."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class ProcessCleanup(WorkerPlugin):
        name = "bayes-hier-process-cleanup"

        def teardown(self, worker: Any) -> None:
            _teardown_worker(worker)

    with contextlib.suppress(Exception):
        client.register_plugin(ProcessCleanup())


@contextlib.contextmanager
def make_executor(jobs: int = 1, scheduler: Any = None) -> Iterator[concurrent.futures.Executor]:
    """The executor for ``jobs`` local processes or a Dask cluster (see the module docstring).

    On Ctrl-C or any error inside the ``with`` block the local workers and their descendants are
    terminated before the exception propagates. Where worker processes cannot start
    (:func:`workers_can_start`), a :class:`ParallelWarning` says why in one line and the tasks
    run in this process.
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
    if jobs > 1:
        possible, reason = workers_can_start()
        if not possible:
            warnings.warn(
                f"jobs={jobs}: {reason}; running in this process.",
                ParallelWarning,
                stacklevel=user_stacklevel(),
            )
            jobs = 1
    if jobs <= 1:
        # Processes started by the tasks are this process's children: Ctrl-C reaches them too,
        # and their libraries' clean-ups stop them at exit.
        yield InlineExecutor()
        return
    pool = LocalProcessPool(jobs)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    pool.shutdown(wait=True)


__all__ = [
    "InlineExecutor",
    "LocalProcessPool",
    "ParallelWarning",
    "make_executor",
    "unguarded_main_line",
    "workers_can_start",
]
