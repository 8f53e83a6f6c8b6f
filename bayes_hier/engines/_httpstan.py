"""What pystan's server, httpstan, leaves behind, and how it recovers from a dead chain process.

httpstan runs inside this process (pystan starts it in its own event loop) and samples in a
module-level, fork-based process pool (``httpstan.services_stub.executor``). Three of its
habits are handled here:

* every *seeded* fit is stored in httpstan's cache (about 6 MB per chain for the hierarchical
  model) under a name derived from the request, so that the same request can be answered again;
  as this package always seeds, those files are deleted once the draws have been read, and each
  fit gets a name of its own (two processes running the same seeded fit at once would otherwise
  share, and delete, one file);
* each chain talks to the server through a Unix socket ``httpstan_*.sock`` made with
  :func:`tempfile.mkstemp` and never removed; they are removed after the fit;
* when a chain process dies (killed, e.g. by the out-of-memory killer), the pool is "broken"
  and refuses every later fit; it is replaced by a new pool;
* the chain processes of its pool outlive a parent that is killed; the pool is replaced, before
  the first fit, by one whose processes end with their parent (:func:`use_own_pool`).

A replacement pool only works if its workers are forked from the thread that first loaded the
compiled model into this process: Stan keeps its autodiff stack in thread-local storage, set up
in the loading thread only, and a worker forked from any other thread crashes (SIGSEGV,
measured) in its first chain. So every pystan call of this package runs in one long-lived
thread (:func:`run_in_stan_thread`), which also answers pystan's need for a thread without a
running event loop (Jupyter).

All of it patches httpstan's module globals for the duration of one fit, under one lock, so the
fits of one process run one at a time (as they did: httpstan's pool has one worker per core).
"""

from __future__ import annotations

import base64
import concurrent.futures
import contextlib
import multiprocessing
import os
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

#: aiohttp's advice to httpstan about its server's keys, issued at every server start (in each
#: pystan fit): about httpstan's code, never the user's data, so it is not shown.
warnings.filterwarnings("ignore", message="It is recommended to use web.AppKey instances for keys")

_FIT_SCOPE = threading.Lock()
_STAN_THREAD_NAME = "bayes_hier-pystan"
_STAN_THREAD = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=_STAN_THREAD_NAME)

T = TypeVar("T")


def run_in_stan_thread(function: Callable[[], T]) -> T:
    """Call ``function()`` in the one thread that runs every pystan call of this process.

    An interruption (Ctrl-C) while waiting stops the chain processes of the running fit.
    """
    if threading.current_thread().name.startswith(_STAN_THREAD_NAME):
        return function()
    future = _STAN_THREAD.submit(function)
    try:
        return future.result()
    except KeyboardInterrupt:
        # The chain processes ignore SIGINT: stop them, so that the abandoned fit ends now
        # instead of holding the thread (the next fit replaces the broken pool).
        stop_chain_processes()
        raise


class _RecordingTempfile:
    """Stands in for the :mod:`tempfile` module in httpstan: records what ``mkstemp`` names.

    The files stay where httpstan puts them (a longer path could exceed the 108 characters a
    Unix socket path may have) and are removed when the fit is over.
    """

    def __init__(self) -> None:
        self.names: list[str] = []

    def mkstemp(self, *arguments: Any, **keywords: Any) -> tuple[int, str]:
        descriptor, name = tempfile.mkstemp(*arguments, **keywords)
        self.names.append(name)
        return descriptor, name

    def __getattr__(self, name: str) -> Any:
        return getattr(tempfile, name)


#: Seconds ``stanc`` may take when httpstan translates a program (httpstan allows 1 second, which
#: a loaded machine exceeds: the compilation then fails with ``TimeoutExpired``).
STANC_TIMEOUT = 600.0


class _PatientSubprocess:
    """Stands in for the :mod:`subprocess` module in ``httpstan.compile``: ``run`` gets at least
    :data:`STANC_TIMEOUT` seconds, and ``stanc`` gets the program's compiler options (httpstan
    passes none of its own but ``--name``, ``--warn-pedantic`` and ``--print-cpp``)."""

    def __init__(self, options: tuple[str, ...] = ()) -> None:
        self.options = options

    def run(self, command: Any, *arguments: Any, **keywords: Any) -> subprocess.CompletedProcess:
        keywords["timeout"] = max(keywords.get("timeout") or 0.0, STANC_TIMEOUT)
        if self.options:
            command = [command[0], *self.options, *command[1:]]
        return subprocess.run(command, *arguments, **keywords)

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)


@contextlib.contextmanager
def patient_stanc(options: tuple[str, ...] = ()) -> Iterator[None]:
    """During the block, httpstan's call of ``stanc`` may take :data:`STANC_TIMEOUT` seconds
    and is given the compiler ``options`` (e.g. ``("--O1",)``)."""
    import httpstan.compile

    original = httpstan.compile.subprocess
    httpstan.compile.subprocess = _PatientSubprocess(options)  # type: ignore[assignment]
    try:
        yield
    finally:
        httpstan.compile.subprocess = original


class _BuildExtInFolder:
    """Stands in for the module :mod:`setuptools.command.build_ext` in ``httpstan.build_ext``:
    its ``build_ext`` command keeps its intermediate files (the object files, about 50 MB) in
    ``folder`` instead of setuptools' default ``build/temp.*`` under the working directory."""

    def __init__(self, folder: str) -> None:
        import setuptools.command.build_ext as module

        class build_ext(module.build_ext):  # the name httpstan calls
            def finalize_options(self) -> None:
                self.build_temp = folder
                super().finalize_options()

        self._module = module
        self.build_ext = build_ext

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


@contextlib.contextmanager
def build_in(folder: str) -> Iterator[None]:
    """During the block, httpstan compiles with its intermediate files in ``folder``.

    httpstan calls setuptools' ``build_ext`` with the default ``build_temp``, a relative
    ``build/`` folder: a first compilation left 51 MB in the user's working directory.
    """
    import httpstan.build_ext

    original = httpstan.build_ext.build_ext
    httpstan.build_ext.build_ext = _BuildExtInFolder(folder)  # type: ignore[assignment]
    try:
        yield
    finally:
        httpstan.build_ext.build_ext = original


@contextlib.contextmanager
def _removing_sockets() -> Iterator[None]:
    """Remove the socket files httpstan creates for its chains during the block."""
    import httpstan.services_stub as stub

    original = stub.tempfile
    recording = _RecordingTempfile()
    stub.tempfile = recording  # type: ignore[assignment]
    try:
        yield
    finally:
        stub.tempfile = original
        for name in recording.names:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)


def _unique_fit_name(function: str, model_name: str, kwargs: dict[str, Any]) -> str:
    """A fit name no other call uses (httpstan's own is a hash of the request when seeded)."""
    return f"{model_name}/fits/{base64.b32encode(os.urandom(5)).decode().lower()}"


@contextlib.contextmanager
def _unshared_fits_discarded() -> Iterator[None]:
    """Give each fit httpstan stores during the block a unique name; delete them afterwards.

    The server runs in this process, so the fits it stores during the block are exactly this
    call's.
    """
    import httpstan.cache
    import httpstan.fits

    original_dump, original_name = httpstan.cache.dump_fit, httpstan.fits.calculate_fit_name
    written: list[str] = []

    def recording_dump_fit(fit_bytes: bytes, name: str) -> None:
        written.append(name)
        original_dump(fit_bytes, name)

    httpstan.cache.dump_fit = recording_dump_fit
    httpstan.fits.calculate_fit_name = _unique_fit_name
    try:
        yield
    finally:
        httpstan.cache.dump_fit = original_dump
        httpstan.fits.calculate_fit_name = original_name
        for name in written:
            with contextlib.suppress(OSError, KeyError):
                httpstan.cache.delete_fit(name)


#: How the first message of httpstan's diagnostic writer starts (one JSON object per line).
_DIAGNOSTIC_TOPIC = b'"topic":"diagnostic"'


class _ChainMessageStream:
    """The gzip stream of one of a chain's writers (a socket of ``httpstan.services_stub``):
    its messages stored, not compressed, or dropped when the writer is the diagnostic writer.

    Each chain sends its messages on four sockets: the logger, the initial values, the draws
    ("sample") and the diagnostic writer, which sends for every draw the sampler's unconstrained
    position, momentum and gradient (what CmdStan writes with ``diagnostic_file``). pystan reads
    only the first three. At 16 models x 132 data sets x 4 folds (2 398 parameters) a diagnostic
    message is 268 kB against 101 kB for the draw itself: 1.1 GB of a 4 x 1000-draw fit's
    1.5 GB, which this process stored, wrote to a temporary file, read back, decompressed and
    sent to pystan. The writer is recognised by the topic of its first message, so the stream
    holds back what it receives until that message's first line is complete.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._head = b""
        self._dropped: bool | None = None  # None: the writer is not known yet

    def compress(self, data: bytes) -> bytes:
        if self._dropped is None:
            self._head += data
            if b"\n" not in self._head:
                return b""
            data = self._recognise()
        return b"" if self._dropped else self._stream.compress(data)

    def flush(self, *arguments: Any) -> bytes:
        if self._dropped is None:
            data = self._recognise()
            if not self._dropped and data:
                return self._stream.compress(data) + self._stream.flush(*arguments)
        return self._stream.flush(*arguments)

    def _recognise(self) -> bytes:
        """Decide from the first line held back whether to drop the stream; return that data."""
        first_line = self._head.split(b"\n", 1)[0]
        self._dropped = _DIAGNOSTIC_TOPIC in first_line[:200]
        data, self._head = self._head, b""
        return data


class _StoringZlib:
    """Stands in for :mod:`zlib` in ``httpstan.services_stub``: its gzip streams *store* the
    chains' messages (compression level 0) instead of compressing them, and drop those of the
    diagnostic writer (:class:`_ChainMessageStream`).

    httpstan compresses every message a chain sends (level 1) in the process that runs the fit,
    and pystan decompresses the whole stream right after: for a fit of 4 × 1000 draws at q = 50
    that is about 90 MB of JSON, whose compression alone took 0.9 s of CPU (a third of the
    process's), on the cores the chains need. The stored stream is still valid gzip, only the
    temporary file it is written to is larger (and is deleted after the fit).
    """

    def compressobj(self, level: int = -1, *arguments: Any, **keywords: Any) -> Any:
        import zlib

        keywords.pop("level", None)
        return _ChainMessageStream(zlib.compressobj(zlib.Z_NO_COMPRESSION, *arguments, **keywords))

    def __getattr__(self, name: str) -> Any:
        import zlib

        return getattr(zlib, name)


@contextlib.contextmanager
def _messages_stored_uncompressed() -> Iterator[None]:
    """During the block, httpstan stores the chains' messages without compressing them."""
    import httpstan.services_stub as stub

    original = stub.zlib
    stub.zlib = _StoringZlib()  # type: ignore[assignment]
    try:
        yield
    finally:
        stub.zlib = original


@contextlib.contextmanager
def httpstan_fit_scope() -> Iterator[None]:
    """One pystan fit that leaves nothing behind: no stored fit, no socket file, and a usable
    process pool whose processes end with this one (replaced first if an earlier fit broke it);
    the chains' output is stored, not compressed, and the diagnostic writer's (which pystan
    does not read) is dropped (:class:`_StoringZlib`)."""
    with _FIT_SCOPE:
        use_own_pool()
        replace_broken_pool()
        with _removing_sockets(), _unshared_fits_discarded(), _messages_stored_uncompressed():
            yield


def _executor() -> concurrent.futures.ProcessPoolExecutor | None:
    stub = sys.modules.get("httpstan.services_stub")
    return getattr(stub, "executor", None)


def pool_is_broken() -> bool:
    """Whether a chain process of httpstan's pool died, leaving the pool unusable."""
    return bool(getattr(_executor(), "_broken", False))


def _init_chain_process() -> None:
    """Initialiser of the chain processes: httpstan's own (SIGINT ignored), and the process ends
    with the process that runs the fit, so that a killed Python process or a restarted Jupyter
    kernel leaves no chain process behind (:func:`~bayes_hier.parallel.end_with_parent`; the
    clean-ups this process inherited by the fork belong to its parent and are not run)."""
    import httpstan.services_stub as stub

    from ..parallel import end_with_parent

    stub.init_worker()
    end_with_parent(run_cleanups=False)


class _ChainPool(concurrent.futures.ProcessPoolExecutor):
    """httpstan's process pool with chain processes that end with their parent."""

    def __init__(self) -> None:
        super().__init__(
            mp_context=multiprocessing.get_context("fork"), initializer=_init_chain_process
        )


def use_own_pool() -> None:
    """Give httpstan a process pool whose chain processes end with this process
    (:func:`_init_chain_process`) in place of the one it made at import, whose processes
    outlive a killed parent (measured: the chain processes of a fit whose Python process was
    killed with SIGKILL were still there minutes later). Its workers, if any, are terminated and
    reaped; the new pool starts its processes at the first fit, from the thread that runs it."""
    import httpstan.services_stub as stub

    if not isinstance(stub.executor, _ChainPool):
        _swap_pool(stub)


def replace_broken_pool() -> bool:
    """Replace httpstan's process pool by a new one if it is broken; say whether it was.

    The old pool's surviving workers are terminated and reaped, so none is left orphaned.
    """
    if not pool_is_broken():
        return False
    import httpstan.services_stub as stub

    _swap_pool(stub)
    return True


def _swap_pool(stub: Any) -> None:
    """Terminate and reap the workers of httpstan's pool (``stub.executor``), shut it down and
    put a new :class:`_ChainPool` in its place."""
    old = stub.executor
    _terminate_workers(old)
    old.shutdown(wait=True, cancel_futures=True)
    stub.executor = _ChainPool()


def _terminate_workers(pool: Any, timeout: float = 5.0) -> None:
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.terminate()
    for process in list(processes.values()):
        process.join(timeout)


def stop_chain_processes() -> None:
    """Terminate httpstan's chain worker processes that are still alive.

    Runs at interpreter exit (:func:`stop_chain_processes_at_exit`): when the pool's workers were
    started from a worker thread (as :func:`run_in_stan_thread` does) they can outlive the
    parent, keeping its standard output open and a CI job waiting. Also stops the chains of an
    interrupted fit.
    """
    _terminate_workers(_executor())


def stop_chain_processes_at_exit() -> None:
    """Make :func:`stop_chain_processes` run at interpreter exit, before the threads are joined.

    :mod:`concurrent.futures` joins the threads of its pools (this module's pystan thread,
    httpstan's process-pool manager) in a :mod:`threading` exit hook, which runs before
    :mod:`atexit`: a chain process still alive then (an abandoned fit, a stuck worker) would keep
    that join, and the exit, waiting forever. Those hooks run in the reverse order of
    registration, so this one, registered after :mod:`concurrent.futures` registered its own,
    runs first. The :mod:`atexit` registration covers Pythons without the private
    ``threading._register_atexit``, and :func:`~bayes_hier.parallel.register_process_cleanup`
    worker processes (local pools and Dask workers); a second call finds nothing alive and does
    nothing.
    """
    import atexit
    import concurrent.futures.process
    import concurrent.futures.thread  # noqa: F401  (both register their exit hooks on import)

    from ..parallel import register_process_cleanup

    register_before_joins = getattr(threading, "_register_atexit", None)
    if register_before_joins is not None:
        register_before_joins(stop_chain_processes)
    atexit.register(stop_chain_processes)
    # A multiprocessing worker never runs atexit hooks and joins its children before its exit
    # finalisers end: the chain processes must be stopped in a finaliser that comes first.
    register_process_cleanup(stop_chain_processes)
