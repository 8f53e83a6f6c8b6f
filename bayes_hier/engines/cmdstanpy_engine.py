"""The engine for users with a CmdStan installation: cmdstanpy.

Mirrors :mod:`.pystan_engine`: the same program text (includes already pasted in), written to
this package's cache directory and compiled there once, under the same file lock. The compiled
executable is keyed by the program text *and* the CmdStan installation (path and version), and
checked to start before it is used: an executable built by a CmdStan that has moved or been
upgraded fails to start (exit 127, ``libtbb`` not found) and is compiled again.

What each fit writes (CmdStan's CSV and console files, cmdstanpy's ``log_prob`` output) goes to
a private temporary folder, deleted once the draws are read. cmdstanpy's log lines are shown
only when progress output is asked for.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import shutil
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np

from ..stan_programs import StanProgram
from ._cache import CACHE_VARIABLE, cache_directory, cache_error, command_succeeds
from ._locking import compile_lock
from ._temporary import private_temporary_folder
from .base import Engine, SamplerSettings, StanData
from .errors import CacheRebuiltWarning, ChainProcessError, EngineError

#: Significant figures CmdStan writes (its default, 6, loses the agreement between engines).
SIG_FIGS = 18
#: Seconds a cached executable is given to answer ``info``.
START_CHECK_TIMEOUT = 60

_LOGGER_STATE = threading.Lock()
#: "retcodes=[0, -9]" in the message of cmdstanpy's sampling error.
_RETURN_CODES = re.compile(r"retcodes=\[([^\]]*)\]")


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
    """cmdstanpy's logger enabled during the block only when ``show`` (else silent)."""
    logger = logging.getLogger("cmdstanpy")
    with _LOGGER_STATE:
        previous = logger.disabled
        logger.disabled = not show
    try:
        yield
    finally:
        with _LOGGER_STATE:
            logger.disabled = previous


def cmdstan_installation() -> tuple[str, str]:
    """The CmdStan in use: its resolved path and version (``"major.minor"``, or ``"unknown"``)."""
    cmdstanpy = import_cmdstanpy()

    with cmdstanpy_logging(False):
        path = os.path.realpath(cmdstanpy.cmdstan_path())
        version = cmdstanpy.cmdstan_version()
    return path, ".".join(map(str, version)) if version else "unknown"


def executable_key(program: StanProgram, cmdstan_path: str, cmdstan_version: str) -> str:
    """Cache key of a compiled executable: program name, then a hash of the program text,
    the CmdStan path and the CmdStan version."""
    text = "\0".join((program.digest, cmdstan_path, cmdstan_version))
    return f"{program.name}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def executable_starts(executable: Path) -> bool:
    """Whether a compiled model runs at all (``model info`` exits with 0)."""
    return command_succeeds([str(executable), "info"], START_CHECK_TIMEOUT)


class CmdStanPyEngine(Engine):
    """Compile and sample with cmdstanpy; needs CmdStan (``cmdstanpy.cmdstan_path()``)."""

    name = "cmdstanpy"

    def __init__(self) -> None:
        self._models: dict[str, Any] = {}  # executable key -> cmdstanpy.CmdStanModel
        self._log_prob_lock = threading.Lock()

    @classmethod
    def available(cls) -> bool:
        try:
            cmdstanpy = import_cmdstanpy()

            with cmdstanpy_logging(False):
                cmdstanpy.cmdstan_path()
        except Exception:  # ImportError, or ValueError when CmdStan is not installed
            return False
        return True

    @staticmethod
    def _key(program: StanProgram) -> str:
        return executable_key(program, *cmdstan_installation())

    @staticmethod
    def _stan_file(program: StanProgram, key: str) -> Path:
        folder = cache_directory() / "cmdstanpy" / key
        path = folder / f"{program.name}.stan"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not path.is_file() or path.read_text() != program.code:
                temporary = path.with_suffix(f".{os.getpid()}.tmp")
                temporary.write_text(program.code)
                temporary.replace(path)
        except OSError as error:
            raise cache_error(folder, CACHE_VARIABLE, error) from error
        return path

    def is_compiled(self, program: StanProgram) -> bool:
        return self._stan_file(program, self._key(program)).with_suffix("").is_file()

    def _model(self, program: StanProgram, show: bool = False) -> Any:
        """The compiled model: from this process's memory, the cache, or a compilation."""
        key = self._key(program)
        if key in self._models:
            return self._models[key]
        cmdstanpy = import_cmdstanpy()

        with cmdstanpy_logging(show), compile_lock(self.name, program, key):
            stan_file = self._stan_file(program, key)
            executable = stan_file.with_suffix("")
            if executable.is_file() and not executable_starts(executable):
                warnings.warn(
                    f"The compiled Stan program {program.name!r} ({executable}) does not start "
                    "(built by a CmdStan that has moved or changed, or truncated); it is "
                    "compiled again.",
                    CacheRebuiltWarning,
                    stacklevel=3,
                )
                executable.unlink()
            model = cmdstanpy.CmdStanModel(stan_file=str(stan_file))
        self._models[key] = model
        return model

    def compile(self, program: StanProgram) -> None:
        self._model(program)

    def sample(
        self, program: StanProgram, data: StanData, settings: SamplerSettings
    ) -> az.InferenceData:
        model = self._model(program, settings.progress)
        with (
            cmdstanpy_logging(settings.progress),
            private_temporary_folder("bayes_hier_cmdstan_") as folder,
        ):
            try:
                fit = model.sample(**sample_arguments(data, settings, folder))
            except RuntimeError as error:
                raise sampling_error(program, error) from error
            return az.from_cmdstanpy(
                posterior=fit, coords=dict(settings.coords), dims=dict(settings.dims)
            )

    def log_density(
        self,
        program: StanProgram,
        data: StanData,
        points: Sequence[Mapping[str, Any]],
    ) -> np.ndarray:
        model = self._model(program)
        with cmdstanpy_logging(False), self._log_prob_lock, _removing_new_output(model):
            return np.array(
                [
                    float(
                        model.log_prob(dict(p), data=dict(data), jacobian=False, sig_figs=SIG_FIGS)[
                            "lp__"
                        ].iloc[0]
                    )
                    for p in points
                ]
            )


def sample_arguments(data: StanData, settings: SamplerSettings, folder: Path) -> dict[str, Any]:
    """The keyword arguments of ``CmdStanModel.sample`` for ``settings``, output in ``folder``."""
    return {
        "data": dict(data),
        "chains": settings.chains,
        "parallel_chains": min(settings.chains, os.cpu_count() or 1),
        "iter_warmup": settings.warmup,
        "iter_sampling": settings.draws,
        "seed": settings.seed,
        "inits": [dict(i) for i in settings.inits] if settings.inits else None,
        "max_treedepth": settings.max_treedepth,
        "adapt_delta": settings.adapt_delta,
        "show_progress": settings.progress,
        "sig_figs": SIG_FIGS,
        "output_dir": str(folder),
    }


def sampling_error(program: StanProgram, error: RuntimeError) -> EngineError:
    """The error for a failed CmdStan run: :class:`ChainProcessError` when a chain process was
    ended by a signal (cmdstanpy reports its return code as negative: ``retcodes=[-9, 0]``)."""
    codes = _RETURN_CODES.search(str(error))
    killed = codes is not None and any(int(c) < 0 for c in re.findall(r"-?\d+", codes.group(1)))
    if killed:
        return ChainProcessError(
            f"A CmdStan chain process of {program.name!r} was ended by a signal during sampling "
            "(killed, e.g. by the out-of-memory killer, or crashed); the next fit starts new "
            f"processes.\n{error}"
        )
    return EngineError(f"CmdStan failed while sampling {program.name!r}:\n{error}")


@contextlib.contextmanager
def _removing_new_output(model: Any) -> Iterator[None]:
    """Delete the output folders ``log_prob`` creates in cmdstanpy's temporary folder.

    cmdstanpy writes each ``log_prob`` result to a new folder named after the model in its
    own temporary folder, which it empties only when the interpreter exits.
    """
    cmdstanpy = import_cmdstanpy()

    root = Path(cmdstanpy._TMPDIR)
    before = set(root.glob(f"{model.name}*"))
    try:
        yield
    finally:
        for path in set(root.glob(f"{model.name}*")) - before:
            shutil.rmtree(path, ignore_errors=True)
