"""File locks that keep two processes from compiling the same program at once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from filelock import FileLock

from ..stan_programs import StanProgram
from .base import cache_directory

#: A first compilation takes about a minute; another process waits at most this long for it.
COMPILE_LOCK_TIMEOUT = 1800


@contextmanager
def compile_lock(engine: str, program: StanProgram) -> Iterator[None]:
    """Hold the lock of ``program`` for ``engine`` (one lock file per program text)."""
    path = cache_directory() / "locks" / f"{engine}-{program.name}-{program.digest}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path), timeout=COMPILE_LOCK_TIMEOUT):
        yield
