"""File locks that keep two processes from compiling the same program at once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from filelock import FileLock, Timeout

from ..stan_programs import StanProgram
from ._cache import CACHE_VARIABLE, cache_directory, cache_error
from .errors import EngineError

#: A first compilation takes one to five minutes
#: (:data:`~bayes_hier.stan_programs.COMPILE_DURATIONS`); another process waits at most this long.
COMPILE_LOCK_TIMEOUT = 1800


@contextmanager
def compile_lock(engine: str, program: StanProgram, key: str | None = None) -> Iterator[None]:
    """Hold the lock of ``program`` for ``engine``.

    One lock file per program text, or per ``key`` when the compiled model depends on more
    than the text (e.g. the CmdStan installation).
    """
    folder = cache_directory() / "locks"
    path = folder / f"{engine}-{key or f'{program.name}-{program.digest}'}.lock"
    lock = FileLock(str(path), timeout=COMPILE_LOCK_TIMEOUT)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except Timeout as error:
        raise EngineError(
            f"Waited {COMPILE_LOCK_TIMEOUT} s for another process to finish compiling "
            f"{program.name!r} (it holds the lock {path})."
        ) from error
    except OSError as error:
        raise cache_error(folder, CACHE_VARIABLE, error) from error
    try:
        yield
    finally:
        lock.release()
