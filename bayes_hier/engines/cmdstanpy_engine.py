"""The engine for users with a CmdStan installation: cmdstanpy.

Mirrors :mod:`.pystan_engine`: the same program text (includes already pasted in), written to
this package's cache directory and compiled there once, under the same file lock.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import arviz as az
import numpy as np

from ..stan_programs import StanProgram
from ._locking import compile_lock
from .base import Engine, SamplerSettings, StanData, cache_directory


class CmdStanPyEngine(Engine):
    """Compile and sample with cmdstanpy; needs CmdStan (``cmdstanpy.cmdstan_path()``)."""

    name = "cmdstanpy"

    @classmethod
    def available(cls) -> bool:
        try:
            import cmdstanpy

            cmdstanpy.cmdstan_path()
        except Exception:  # ImportError, or ValueError when CmdStan is not installed
            return False
        return True

    @staticmethod
    def _stan_file(program: StanProgram) -> Path:
        folder = cache_directory() / "cmdstanpy" / f"{program.name}-{program.digest}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{program.name}.stan"
        if not path.is_file() or path.read_text() != program.code:
            temporary = path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(program.code)
            temporary.replace(path)
        return path

    def is_compiled(self, program: StanProgram) -> bool:
        return self._stan_file(program).with_suffix("").is_file()

    def _model(self, program: StanProgram) -> Any:
        import cmdstanpy

        with compile_lock(self.name, program):
            return cmdstanpy.CmdStanModel(stan_file=str(self._stan_file(program)))

    def compile(self, program: StanProgram) -> None:
        self._model(program)

    def sample(
        self, program: StanProgram, data: StanData, settings: SamplerSettings
    ) -> az.InferenceData:
        fit = self._model(program).sample(
            data=dict(data),
            chains=settings.chains,
            parallel_chains=min(settings.chains, os.cpu_count() or 1),
            iter_warmup=settings.warmup,
            iter_sampling=settings.draws,
            seed=settings.seed,
            inits=[dict(i) for i in settings.inits] if settings.inits else None,
            max_treedepth=settings.max_treedepth,
            adapt_delta=settings.adapt_delta,
            show_progress=settings.progress,
        )
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
        return np.array(
            [
                float(model.log_prob(dict(p), data=dict(data), jacobian=False)["lp__"].iloc[0])
                for p in points
            ]
        )
