"""The embedded engine: pystan 3 (httpstan), which ships the Stan compiler and headers.

httpstan caches compiled models in its own cache directory (``$XDG_CACHE_HOME/httpstan``),
keyed by the program text, the httpstan version and the Python executable; :func:`compile_lock`
makes concurrent first compilations wait for each other instead of racing, and
:mod:`._httpstan_cache` checks a cached model before it is used. What a fit leaves behind (stored
fits, socket files) and a process pool broken by a dead chain are handled in :mod:`._httpstan`.
A compilation keeps the C++ compiler's intermediate files in a temporary folder that is removed
afterwards (httpstan would put them in ``build/`` under the working directory).

Installed with the ``pystan`` extra (``pip install "bayes_hier[pystan]"``; not on Windows).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np

from ..stan_programs import StanProgram
from . import _httpstan_cache
from ._cache import writable_directory
from ._httpstan import (
    build_in,
    httpstan_fit_scope,
    patient_stanc,
    pool_is_broken,
    replace_broken_pool,
    run_in_stan_thread,
    stop_chain_processes_at_exit,
)
from ._httpstan import stop_chain_processes as stop_chain_processes
from ._locking import compile_lock
from ._progress import ProgressReader, announce_compilation
from ._temporary import private_temporary_folder
from .base import Engine, ParameterPoints, SamplerSettings, StanData
from .errors import CacheRebuiltWarning, ChainProcessError, EngineError

#: The environment variable that moves httpstan's cache (read by ``appdirs``).
HTTPSTAN_CACHE_VARIABLE = "XDG_CACHE_HOME"


@contextlib.contextmanager
def _console_output(progress: bool) -> Iterator[None]:
    """Replace pystan's console output by one progress bar (``progress``) or by nothing."""
    reader = ProgressReader(show=progress, output=sys.stderr)
    try:
        with contextlib.redirect_stderr(reader), contextlib.redirect_stdout(reader):
            yield
    finally:
        reader.close()


@contextlib.contextmanager
def _captured_file_descriptors() -> Iterator[Path]:
    """Send this process's file descriptors 1 and 2 to a temporary file during the block.

    The C++ compiler's warnings reach the terminal through the file descriptors, not through
    ``sys.stderr``; they are kept in the file (yielded) to be shown only when compilation fails.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "compile.log"
        with log.open("wb") as sink, _console_output(False):
            saved = [os.dup(1), os.dup(2)]
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            try:
                yield log
            finally:
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                for descriptor in saved:
                    os.close(descriptor)


stop_chain_processes_at_exit()


class PyStanEngine(Engine):
    """Compile and sample with pystan 3; works offline, compiles with the system C++ compiler."""

    name = "pystan"

    def __init__(self) -> None:
        # model name -> size of the module checked in this process (a stat per fit, no hash)
        self._checked: dict[str, int] = {}

    @classmethod
    def available(cls) -> bool:
        try:
            import stan  # noqa: F401
        except ImportError:
            return False
        return True

    def is_compiled(self, program: StanProgram) -> bool:
        # Look for the extension module without importing it: a broken module would crash
        # this process (see _httpstan_cache).
        return _httpstan_cache.CacheEntry.of(program).module is not None

    def _usable(self, entry: _httpstan_cache.CacheEntry) -> str | None:
        """None when the cached model can be used, else why not ("missing" if absent)."""
        module = entry.module
        if module is None:
            return "missing"
        if self._checked.get(entry.model_name) == module.stat().st_size:
            return None
        reason = _httpstan_cache.problem(entry)
        if reason is None:
            self._checked[entry.model_name] = module.stat().st_size
        return reason

    def compile(self, program: StanProgram) -> None:
        entry = _httpstan_cache.CacheEntry.of(program)
        if self._usable(entry) is None:
            return
        with compile_lock(self.name, program):
            reason = self._usable(entry)  # another process may have compiled it meanwhile
            if reason is None:
                return
            if reason != "missing":
                warnings.warn(
                    f"The compiled Stan program {program.name!r} in {entry.directory} cannot be "
                    f"used ({reason}); it is compiled again.",
                    CacheRebuiltWarning,
                    stacklevel=2,
                )
                self._checked.pop(entry.model_name, None)
                import httpstan.cache

                httpstan.cache.delete_model_directory(entry.model_name)
            self._compile_into_cache(program, entry)

    def _compile_into_cache(self, program: StanProgram, entry: _httpstan_cache.CacheEntry) -> None:
        import httpstan.cache

        writable_directory(httpstan.cache.cache_directory(), HTTPSTAN_CACHE_VARIABLE)
        announce_compilation(program.name, "pystan", program.compile_duration)
        with (
            _captured_file_descriptors() as log,
            private_temporary_folder("bayes_hier_build_") as build,
        ):
            try:
                with patient_stanc(program.stanc_options), build_in(str(build)):
                    run_in_stan_thread(lambda: asyncio.run(self._compile(program.code)))
            except Exception as error:
                raise EngineError(
                    f"Compiling {program.name!r} failed: {error}\nCompiler output (tail):\n"
                    f"{log.read_text(errors='replace')[-4000:]}"
                ) from error
        _httpstan_cache.write_manifest(entry)
        module = entry.module
        if module is not None:
            self._checked[entry.model_name] = module.stat().st_size

    @staticmethod
    async def _compile(code: str) -> None:
        import aiohttp
        import stan.common

        async with stan.common.HttpstanClient() as client:
            # No time limit: aiohttp's default (5 minutes) cut off compilations on a loaded
            # machine, leaving a cache entry without its compiler log.
            async with client.session.post(
                f"{client.base_url}/models",
                json={"program_code": code},
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=30),
            ) as response:
                status, content = response.status, await response.read()
            if status != 201:
                message = stan.common.HTTPResponse(status=status, content=content).json()
                raise RuntimeError(f"Stan compilation failed: {message.get('message')}")

    def sample(
        self, program: StanProgram, data: StanData, settings: SamplerSettings
    ) -> az.InferenceData:
        import stan

        self.compile(program)

        def run() -> az.InferenceData:
            inits = [dict(i) for i in settings.inits] if settings.inits else None
            with httpstan_fit_scope():
                try:
                    with _console_output(False):
                        model = stan.build(program.code, data=dict(data), random_seed=settings.seed)
                    with _console_output(settings.progress):
                        fit = model.sample(
                            num_chains=settings.chains,
                            num_samples=settings.draws,
                            num_warmup=settings.warmup,
                            max_depth=settings.max_treedepth,
                            delta=settings.adapt_delta,
                            **({"init": inits} if inits else {}),
                        )
                except Exception as error:
                    if pool_is_broken():
                        replace_broken_pool()
                        raise ChainProcessError(
                            f"A chain process of the Stan program {program.name!r} ended "
                            "abnormally during sampling (killed, e.g. by the out-of-memory "
                            "killer, or crashed). The chain processes have been restarted: the "
                            "next fit can run in this Python process."
                        ) from error
                    raise
            return az.from_pystan(
                posterior=fit,
                posterior_model=model,
                coords=dict(settings.coords),
                dims=dict(settings.dims),
            )

        return run_in_stan_thread(run)

    def log_density(
        self, program: StanProgram, data: StanData, points: ParameterPoints
    ) -> np.ndarray:
        # httpstan evaluates log densities in the calling process by loading the model's
        # extension module there; two Stan models loaded in one process can crash it. So the
        # evaluation runs in a fresh (spawned) interpreter, once for all the points.
        self.compile(program)
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
            values = pool.submit(
                _log_densities, program.code, _plain(data), [_plain(p) for p in points]
            ).result()
        return np.asarray(values, dtype=float)


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    """JSON-friendly copy of a Stan data or parameter dict (numpy arrays become lists)."""
    return {
        k: np.asarray(v).tolist() if isinstance(v, np.ndarray) else v for k, v in values.items()
    }


def _log_densities(code: str, data: dict[str, Any], points: list[dict[str, Any]]) -> list[float]:
    """Runs in a spawned process: log density without Jacobian at each constrained point."""
    import stan

    with _console_output(False):
        model = stan.build(code, data=data)
    return [
        float(model.log_prob(model.unconstrain_pars(point), adjust_transform=False))
        for point in points
    ]
