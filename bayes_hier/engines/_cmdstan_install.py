"""The CmdStan installation cmdstanpy uses: found quietly, and identified for the cache.

A compiled executable depends on more than the program text: on the CmdStan it was built by
(its path: a moved CmdStan no longer finds its ``libtbb``; its version) and on how that CmdStan
was built (``make/local`` options such as threading or optimisation, the compiler named there,
the ``stanc`` binary). :func:`installation_fingerprint` covers the latter, so that a CmdStan
rebuilt in place with other options compiles the programs again.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..stan_programs import StanProgram

_LOGGER_STATE = threading.Lock()

#: Files of a CmdStan installation whose *content* decides how models are built.
CONFIGURATION_FILES = ("makefile", "make/local")
#: Files rebuilt when CmdStan is rebuilt (compared by size and modification time).
BUILD_PRODUCTS = ("bin/stanc", "bin/stanc.exe")


def import_cmdstanpy() -> Any:
    """``import cmdstanpy`` without tqdm's "IProgress not found" warning.

    cmdstanpy imports ``tqdm.auto``, which warns inside Jupyter when ipywidgets is missing,
    although this package only asks cmdstanpy whether CmdStan exists.
    """
    from tqdm import TqdmWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TqdmWarning)
        import cmdstanpy
    return cmdstanpy


@contextlib.contextmanager
def cmdstanpy_logging(show: bool) -> Iterator[None]:
    """cmdstanpy's logger enabled during the block only when ``show`` (else silent); the
    caller's setting is restored afterwards."""
    logger = logging.getLogger("cmdstanpy")
    with _LOGGER_STATE:
        previous = logger.disabled
        logger.disabled = not show
    try:
        yield
    finally:
        with _LOGGER_STATE:
            logger.disabled = previous


def installation_fingerprint(path: str | Path) -> str:
    """What identifies how the CmdStan at ``path`` was built.

    The SHA-256 of :data:`CONFIGURATION_FILES` (compiler and options) and the size and
    modification time (ns) of :data:`BUILD_PRODUCTS` (a rebuild rewrites them); a missing file
    counts as ``absent``.
    """
    root = Path(path)
    parts = []
    for name in CONFIGURATION_FILES:
        try:
            parts.append(f"{name}={hashlib.sha256((root / name).read_bytes()).hexdigest()}")
        except OSError:
            parts.append(f"{name}=absent")
    for name in BUILD_PRODUCTS:
        try:
            status = (root / name).stat()
            parts.append(f"{name}={status.st_size}:{status.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}=absent")
    return ";".join(parts)


@dataclass(frozen=True)
class CmdStanInstallation:
    """A CmdStan installation: resolved path, version (``"major.minor"`` or ``"unknown"``)
    and :func:`installation_fingerprint`."""

    path: str
    version: str
    fingerprint: str

    @classmethod
    def current(cls) -> CmdStanInstallation:
        """The installation cmdstanpy uses now (``cmdstanpy.cmdstan_path()``)."""
        cmdstanpy = import_cmdstanpy()

        with cmdstanpy_logging(False):
            path = os.path.realpath(cmdstanpy.cmdstan_path())
            version = cmdstanpy.cmdstan_version()
        return cls(
            path,
            ".".join(map(str, version)) if version else "unknown",
            installation_fingerprint(path),
        )

    def executable_key(self, program: StanProgram) -> str:
        """Cache key of ``program``'s executable: the program's name, then a hash of its
        text and of everything that identifies this installation."""
        text = "\0".join((program.digest, self.path, self.version, self.fingerprint))
        return f"{program.name}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
