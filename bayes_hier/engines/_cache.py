"""The folders where compiled models live: located, checked for writing, with clear errors."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .errors import CacheDirectoryError

#: The environment variable that moves this package's cache folder.
CACHE_VARIABLE = "BAYES_HIER_CACHE"


def cache_root() -> Path:
    """Where compiled models and their locks live (``$BAYES_HIER_CACHE`` overrides), as an
    absolute path, without creating or checking anything (for questions that only read).

    The default is ``$XDG_CACHE_HOME/bayes_hier``, or ``~/.cache/bayes_hier``. A relative
    ``$BAYES_HIER_CACHE`` is taken relative to the working directory when this is called.
    """
    root = os.environ.get(CACHE_VARIABLE)
    if root:
        path = Path(root)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = Path(base) / "bayes_hier"
    return path.absolute()


def cache_directory() -> Path:
    """Where compiled models and their locks live, created if needed and checked for writing.

    ``$BAYES_HIER_CACHE`` if set, else ``$XDG_CACHE_HOME/bayes_hier`` or ``~/.cache/bayes_hier``
    (as an absolute path).

    Raises
    ------
    CacheDirectoryError
        When the folder cannot be created or written.
    """
    return writable_directory(cache_root(), CACHE_VARIABLE)


def writable_directory(path: Path, variable: str) -> Path:
    """Create ``path`` if needed and check that a file can be written in it.

    Permission bits alone do not tell (root ignores them, a full disk has none), so a small
    file is created and removed.

    Parameters
    ----------
    path
        The folder.
    variable
        The environment variable that moves the folder, named in the error.

    Raises
    ------
    CacheDirectoryError
        Naming the folder, the operating system's reason and ``variable``.
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-test-"):
            pass
    except OSError as error:
        raise cache_error(path, variable, error) from error
    return path


def cache_error(path: Path, variable: str, error: OSError) -> CacheDirectoryError:
    """The error for a cache folder that cannot be used (read-only, full, not a folder)."""
    reason = error.strerror or str(error)
    return CacheDirectoryError(
        f"The cache folder {str(path)!r} cannot be written ({reason}). Free some space or "
        f"fix its permissions, or point the environment variable {variable} at a writable "
        "folder."
    )


def command_succeeds(command: Sequence[str], timeout: float) -> bool:
    """Whether ``command`` runs and exits with 0 within ``timeout`` seconds (output discarded).

    Used to try a cached compiled model in a separate process, where a broken one can do no harm.
    """
    try:
        done = subprocess.run(list(command), capture_output=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0
