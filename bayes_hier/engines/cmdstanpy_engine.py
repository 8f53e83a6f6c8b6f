"""The engine for users with a CmdStan installation: cmdstanpy.

Mirrors :mod:`.pystan_engine`: the same program text (includes already pasted in), written to
this package's cache directory and compiled there once, under the same file lock, with the
compiler options the program states (``// stanc options:``, as pystan's engine). The compiled
executable is keyed by the program text *and* the CmdStan installation (path, version and how
it was built: :mod:`._cmdstan_install`), and checked to start before it is used: an executable
built by a CmdStan that has moved or been upgraded fails to start (exit 127, ``libtbb`` not
found) and is compiled again.

What the engine shows is what pystan's shows: one line when a program is compiled for the first
time, one progress bar while sampling when asked for, nothing else (cmdstanpy's log lines and
per-chain bars stay hidden). What each fit writes (CmdStan's CSV and console files, cmdstanpy's
``log_prob`` output) goes to a private temporary folder, deleted once the draws are read; the
``STAN_NUM_THREADS`` that cmdstanpy sets is put back as it was.
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import re
import shutil
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np

from ..stan_programs import StanProgram
from ._cache import CACHE_VARIABLE, cache_directory, cache_error, cache_root, command_succeeds
from ._cmdstan_install import CmdStanInstallation, cmdstanpy_logging, import_cmdstanpy
from ._locking import compile_lock
from ._progress import announce_compilation, chain_progress_hook
from ._temporary import private_temporary_folder
from .base import Engine, ParameterPoints, SamplerSettings, StanData
from .errors import CacheRebuiltWarning, ChainProcessError, EngineError

#: Significant figures CmdStan writes (its default, 6, loses the agreement between engines).
SIG_FIGS = 18
#: Seconds a cached executable is given to answer ``info``.
START_CHECK_TIMEOUT = 60
#: The suffix of a compiled executable (cmdstanpy's convention).
EXECUTABLE_SUFFIX = ".exe" if platform.system() == "Windows" else ""
#: Environment variables cmdstanpy sets for its chain processes and leaves set.
CMDSTANPY_ENVIRONMENT = ("STAN_NUM_THREADS",)
#: Lines of each chain's console output quoted in a sampling error.
CONSOLE_TAIL_LINES = 8

#: "retcodes=[0, -9]" in the message of cmdstanpy's sampling error.
_RETURN_CODES = re.compile(r"retcodes=\[([^\]]*)\]")


def stanc_options(program: StanProgram) -> dict[str, bool] | None:
    """The program's compiler options as cmdstanpy takes them (``--O1`` -> ``{"O1": True}``)."""
    options = {option.removeprefix("--"): True for option in program.stanc_options}
    return options or None


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
        return CmdStanInstallation.current().executable_key(program)

    @staticmethod
    def _stan_file(program: StanProgram, key: str) -> Path:
        """The program's ``.stan`` file in the cache (written if missing or different)."""
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
        # Only looks: creates no folder, and answers False for a cache that cannot be written.
        folder = cache_root() / "cmdstanpy" / self._key(program)
        return (folder / f"{program.name}{EXECUTABLE_SUFFIX}").is_file()

    def _model(self, program: StanProgram) -> Any:
        """The compiled model: from this process's memory, the cache, or a compilation."""
        key = self._key(program)
        if key in self._models:
            return self._models[key]
        cmdstanpy = import_cmdstanpy()

        with cmdstanpy_logging(False), compile_lock(self.name, program, key):
            stan_file = self._stan_file(program, key)
            executable = stan_file.with_suffix(EXECUTABLE_SUFFIX)
            if executable.is_file() and not executable_starts(executable):
                warnings.warn(
                    f"The compiled Stan program {program.name!r} ({executable}) does not start "
                    "(built by a CmdStan that has moved or changed, or truncated); it is "
                    "compiled again.",
                    CacheRebuiltWarning,
                    stacklevel=3,
                )
                executable.unlink()
            if not executable.is_file():
                announce_compilation(program.name, "CmdStan", program.compile_duration)
            try:
                model = cmdstanpy.CmdStanModel(
                    stan_file=str(stan_file), stanc_options=stanc_options(program)
                )
            except (RuntimeError, ValueError) as error:
                raise EngineError(
                    f"Compiling {program.name!r} with CmdStan failed: {error}"
                ) from error
        if hasattr(model, "_wrap_sampler_progress_hook"):
            # One bar for all chains, as pystan's, in place of cmdstanpy's one bar per chain.
            model._wrap_sampler_progress_hook = chain_progress_hook
        self._models[key] = model
        return model

    def compile(self, program: StanProgram) -> None:
        self._model(program)

    def sample(
        self, program: StanProgram, data: StanData, settings: SamplerSettings
    ) -> az.InferenceData:
        model = self._model(program)
        show = settings.progress and hasattr(model, "_wrap_sampler_progress_hook")
        with (
            cmdstanpy_logging(False),
            environment_kept(CMDSTANPY_ENVIRONMENT),
            private_temporary_folder("bayes_hier_cmdstan_") as folder,
        ):
            arguments = {**sample_arguments(data, settings, folder), "show_progress": show}
            try:
                # cmdstanpy writes a line of spaces to stdout after its bars: not shown.
                with (
                    contextlib.redirect_stdout(io.StringIO()) if show else contextlib.nullcontext()
                ):
                    fit = model.sample(**arguments)
            except (RuntimeError, ValueError) as error:
                raise sampling_error(program, error, folder) from error
            return az.from_cmdstanpy(
                posterior=fit, coords=dict(settings.coords), dims=dict(settings.dims)
            )

    def log_density(
        self, program: StanProgram, data: StanData, points: ParameterPoints
    ) -> np.ndarray:
        model = self._model(program)
        with (
            cmdstanpy_logging(False),
            environment_kept(CMDSTANPY_ENVIRONMENT),
            self._log_prob_lock,
            _removing_new_output(model),
        ):
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


def executable_starts(executable: Path) -> bool:
    """Whether a compiled model runs at all (``model info`` exits with 0)."""
    return command_succeeds([str(executable), "info"], START_CHECK_TIMEOUT)


def sample_arguments(data: StanData, settings: SamplerSettings, folder: Path) -> dict[str, Any]:
    """The keyword arguments of ``CmdStanModel.sample`` for ``settings``, output in ``folder``.

    Without warm-up (``warmup=0``) adaptation is switched off and its settings are left out
    (cmdstanpy refuses adaptation without warm-up iterations, and adaptation settings without
    adaptation); the sampler then keeps its initial step size and unit metric.
    """
    adaptation = {"adapt_delta": settings.adapt_delta} if settings.warmup > 0 else {}
    return {
        "data": dict(data),
        "chains": settings.chains,
        "parallel_chains": min(settings.chains, os.cpu_count() or 1),
        "iter_warmup": settings.warmup,
        "iter_sampling": settings.draws,
        "adapt_engaged": settings.warmup > 0,
        "seed": settings.seed,
        "inits": [dict(i) for i in settings.inits] if settings.inits else None,
        "max_treedepth": settings.max_treedepth,
        **adaptation,
        "show_progress": settings.progress,
        "sig_figs": SIG_FIGS,
        "output_dir": str(folder),
    }


@contextlib.contextmanager
def environment_kept(names: Sequence[str]) -> Iterator[None]:
    """Put the environment variables ``names`` back as they were (set, or unset) after the
    block."""
    saved = {name: os.environ.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def console_tail(folder: Path, lines: int = CONSOLE_TAIL_LINES) -> str:
    """The last ``lines`` lines of each chain's console file in ``folder``, labelled.

    Lines naming files (CmdStan echoes its arguments: ``file = ...`` for the data, initial
    values and output) are left out: those files are in temporary folders deleted with the fit.
    """
    parts = []
    for index, path in enumerate(sorted(folder.glob("*-stdout.txt")), start=1):
        text = [
            line
            for line in path.read_text(errors="replace").strip().splitlines()
            if "file = " not in line and str(folder) not in line
        ][-lines:]
        if text:
            parts.append(f"Console of chain process {index} (last lines):\n" + "\n".join(text))
    return "\n".join(parts)


def sampling_error(
    program: StanProgram, error: Exception, folder: Path | None = None
) -> EngineError:
    """The error for a failed CmdStan run, told in terms of this package.

    cmdstanpy's message lists the command and output files (which are in ``folder``, deleted
    when the fit ends) and suggests ``show_console=True`` (not an option here); both are
    replaced by the return codes and the tail of each chain's console output, read from
    ``folder`` before it goes. A chain process ended by a signal (cmdstanpy reports its return
    code as negative: ``retcodes=[-9, 0]``) gives :class:`ChainProcessError`.
    """
    text = str(error)
    codes = _RETURN_CODES.search(text)
    summary = text.split("Command and output files:")[0]
    summary = re.sub(r"\s*Consider re-running with show_console=True.*", "", summary, flags=re.S)
    details = [summary.strip()]
    if codes is not None:
        details.append(f"Return codes of the chain processes: {codes.group(1)}")
    if folder is not None and folder.is_dir():
        details.append(console_tail(folder))
    message = "\n".join(part for part in details if part)
    killed = codes is not None and any(int(c) < 0 for c in re.findall(r"-?\d+", codes.group(1)))
    if killed:
        return ChainProcessError(
            f"A CmdStan chain process of {program.name!r} was ended by a signal during sampling "
            "(killed, e.g. by the out-of-memory killer, or crashed); the next fit starts new "
            f"processes.\n{message}"
        )
    return EngineError(f"CmdStan failed while sampling {program.name!r}:\n{message}")


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
