"""The embedded engine: pystan 3 (httpstan), which ships the Stan compiler and headers.

httpstan caches compiled models in its own cache directory, keyed by the program text and the
Python executable; :func:`compile_lock` makes concurrent first compilations wait for each other
instead of racing. httpstan also stores every *seeded* fit in that cache (about 6 MB per chain for
the hierarchical model) so that the same request can be answered again; as this package always
seeds, those files are deleted right after the draws have been read (see ``_discard_seeded_fits``).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import importlib.machinery
import io
import multiprocessing
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np

from ..stan_programs import StanProgram
from ._event_loop import run_outside_event_loop
from ._locking import compile_lock
from .base import Engine, SamplerSettings, StanData

_HTTPSTAN_CACHE_PATCH = threading.Lock()


@contextlib.contextmanager
def _quiet(show: bool) -> Iterator[None]:
    """Swallow pystan's console output (build and sampling progress) unless ``show``."""
    if show:
        yield
        return
    sink = io.StringIO()
    with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
        yield


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
        with log.open("wb") as sink, _quiet(False):
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


@contextlib.contextmanager
def _discard_seeded_fits() -> Iterator[None]:
    """Delete the fits that httpstan stores in its cache during the block.

    httpstan's server runs in this process (pystan starts it inside its own event loop), so the
    fits it dumps during the block are exactly this call's; fits of other processes are left alone.
    """
    import httpstan.cache

    with _HTTPSTAN_CACHE_PATCH:
        original = httpstan.cache.dump_fit
        written: list[str] = []

        def recording_dump_fit(fit_bytes: bytes, name: str) -> None:
            written.append(name)
            original(fit_bytes, name)

        httpstan.cache.dump_fit = recording_dump_fit
        try:
            yield
        finally:
            httpstan.cache.dump_fit = original
            for name in written:
                with contextlib.suppress(OSError, KeyError):
                    httpstan.cache.delete_fit(name)


def stop_chain_processes() -> None:
    """Terminate httpstan's chain worker processes that are still alive at interpreter exit.

    httpstan samples in a module-level fork-based process pool. Normally the pool is joined when
    the interpreter exits, but when its workers were started from a worker thread (as
    :func:`run_outside_event_loop` does under Jupyter or pytest's event loops) they can outlive the
    parent, keeping its standard output open and a CI job waiting.
    """
    stub = sys.modules.get("httpstan.services_stub")
    processes = getattr(getattr(stub, "executor", None), "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.terminate()


atexit.register(stop_chain_processes)


class PyStanEngine(Engine):
    """Compile and sample with pystan 3; works offline, compiles with the system C++ compiler."""

    name = "pystan"

    @classmethod
    def available(cls) -> bool:
        try:
            import stan  # noqa: F401
        except ImportError:
            return False
        return True

    def is_compiled(self, program: StanProgram) -> bool:
        # Look for the extension module without importing it: httpstan must import it only in
        # the forked chain processes, never in this one.
        import httpstan.cache
        import httpstan.models

        directory = httpstan.cache.model_directory(
            httpstan.models.calculate_model_name(program.code)
        )
        return directory.is_dir() and any(
            path.name.endswith(suffix)
            for path in directory.iterdir()
            for suffix in importlib.machinery.EXTENSION_SUFFIXES
        )

    def compile(self, program: StanProgram) -> None:
        if self.is_compiled(program):
            return
        with compile_lock(self.name, program):
            if self.is_compiled(program):  # another process compiled it while we waited
                return
            print(
                f"bayes_hier: compiling the Stan program {program.name!r} with pystan "
                "(first use on this machine; about a minute)...",
                file=sys.stderr,
                flush=True,
            )
            with _captured_file_descriptors() as log:
                try:
                    run_outside_event_loop(lambda: asyncio.run(self._compile(program.code)))
                except Exception as error:
                    raise RuntimeError(
                        f"Compiling {program.name!r} failed: {error}\nCompiler output (tail):\n"
                        f"{log.read_text(errors='replace')[-4000:]}"
                    ) from error

    @staticmethod
    async def _compile(code: str) -> None:
        import stan.common

        async with stan.common.HttpstanClient() as client:
            response = await client.post("/models", json={"program_code": code})
            if response.status != 201:
                raise RuntimeError(f"Stan compilation failed: {response.json().get('message')}")

    def _build(
        self, program: StanProgram, data: StanData, seed: int | None, show_output: bool
    ) -> Any:
        import stan

        self.compile(program)
        with _quiet(show_output):
            return stan.build(program.code, data=dict(data), random_seed=seed)

    def sample(
        self, program: StanProgram, data: StanData, settings: SamplerSettings
    ) -> az.InferenceData:
        def run() -> az.InferenceData:
            with _discard_seeded_fits():
                model = self._build(program, data, settings.seed, show_output=settings.progress)
                inits = [dict(i) for i in settings.inits] if settings.inits else None
                with _quiet(settings.progress):
                    fit = model.sample(
                        num_chains=settings.chains,
                        num_samples=settings.draws,
                        num_warmup=settings.warmup,
                        max_depth=settings.max_treedepth,
                        delta=settings.adapt_delta,
                        **({"init": inits} if inits else {}),
                    )
            return az.from_pystan(
                posterior=fit,
                posterior_model=model,
                coords=dict(settings.coords),
                dims=dict(settings.dims),
            )

        return run_outside_event_loop(run)

    def log_density(
        self,
        program: StanProgram,
        data: StanData,
        points: Sequence[Mapping[str, Any]],
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

    with _quiet(False):
        model = stan.build(code, data=data)
    return [
        float(model.log_prob(model.unconstrain_pars(point), adjust_transform=False))
        for point in points
    ]
