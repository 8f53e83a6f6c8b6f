"""Stopping worker processes and their descendants, and the clean-ups a process runs at its exit.

Two rules keep the interpreter's exit from waiting for ever:

* A pool's worker processes are stopped and reaped only through their
  :class:`multiprocessing.Process` objects (:func:`terminate_tree`). A child reaped any other way
  (``os.waitpid``, ``psutil.wait_procs``) behind the back of the pool that owns it stays
  "alive" for ever to :meth:`multiprocessing.Process.is_alive` (its ``waitpid`` then fails with
  ECHILD, which it reads as "still running"), and a
  :class:`~concurrent.futures.ProcessPoolExecutor`'s manager thread, which the interpreter joins
  at exit, spins waiting for it.
* Libraries that start processes of their own inside a worker (Stan's chain processes) register a
  clean-up with :func:`register_process_cleanup`; it runs when the process ends, before
  :mod:`multiprocessing` joins the process's children, and when a Dask worker closes.
"""

from __future__ import annotations

import contextlib
import multiprocessing.connection
import multiprocessing.process
import os
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing import util
from typing import Any

#: Seconds a terminated process gets to exit before it is killed.
TERMINATE_TIMEOUT = 5.0

_CLEANUPS: list[Callable[[], None]] = []


def register_process_cleanup(function: Callable[[], None]) -> None:
    """Run ``function()`` when this process ends (once per function, whatever the caller).

    In a :mod:`multiprocessing` worker the clean-ups run in its exit finaliser, which comes
    *before* the worker joins its own children (``atexit`` hooks never run there); in the main
    process they run at interpreter exit. :func:`run_process_cleanups` runs them on demand.
    """
    if function in _CLEANUPS:
        return
    if not _CLEANUPS:
        util.Finalize(None, run_process_cleanups, exitpriority=100)
    _CLEANUPS.append(function)


def run_process_cleanups() -> None:
    """Run the registered clean-ups, last registered first; an error in one does not stop the
    others."""
    for function in reversed(_CLEANUPS):
        with contextlib.suppress(Exception):
            function()


def end_with_parent(*, run_cleanups: bool = True) -> None:
    """End this process (a :mod:`multiprocessing` child) when its parent is gone.

    A parent that is killed (SIGTERM, SIGKILL, a job scheduler's time limit, a Jupyter kernel
    restarted) cannot stop its children, and a pool's worker does not notice on its own: it
    blocks for ever writing a result no one reads, or waiting for the next task (measured: the
    2 workers and 4 chain processes of a killed ``compare(..., jobs=2)``, and the chain
    processes of a killed single fit, were all still there minutes later). A daemon thread waits
    on the parent's sentinel (:func:`multiprocessing.parent_process`), which becomes ready when
    the parent exits, then runs this process's clean-ups (:func:`register_process_cleanup`;
    ``run_cleanups=False`` for a process forked from one that registered clean-ups it must not
    run) and exits. Nothing happens in a process that has no :mod:`multiprocessing` parent.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    threading.Thread(
        target=_exit_when_ready,
        args=(parent.sentinel, run_cleanups),
        name="bayes_hier-parent-watch",
        daemon=True,
    ).start()


def _exit_when_ready(sentinel: Any, run_cleanups: bool) -> None:
    multiprocessing.connection.wait([sentinel])
    if run_cleanups:
        run_process_cleanups()
    os._exit(1)


def descendants(pids: Sequence[int]) -> list[Any]:
    """The ``psutil.Process`` objects below ``pids`` (children, grandchildren, ...), without
    ``pids`` themselves; empty when ``psutil`` is not installed."""
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil comes with distributed
        return []
    found = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            found.extend(psutil.Process(pid).children(recursive=True))
    return found


def terminate_tree(
    processes: Sequence[multiprocessing.process.BaseProcess], timeout: float = TERMINATE_TIMEOUT
) -> None:
    """Terminate ``processes`` (children of this process) and all their descendants, waiting up
    to ``timeout`` seconds before killing what is left.

    The children are signalled, joined and, if need be, killed through their process objects
    (see the module docstring for why nothing else may reap them). Their descendants are not
    children of this process: ``psutil`` signals them and waits for them to disappear. The
    descendants are listed first, while their parents still live to name them.
    """
    below = descendants([process.pid for process in processes if process.pid])
    for process in [*below, *processes]:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + timeout
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.exitcode is None:
                process.kill()
                process.join(timeout)
    if below:
        import psutil

        _, alive = psutil.wait_procs(below, timeout=max(0.0, deadline - time.monotonic()))
        for process in alive:
            with contextlib.suppress(psutil.Error):
                process.kill()
        psutil.wait_procs(alive, timeout=timeout)


__all__ = [
    "TERMINATE_TIMEOUT",
    "descendants",
    "end_with_parent",
    "register_process_cleanup",
    "run_process_cleanups",
    "terminate_tree",
]
