"""The interface every Stan engine implements, and the settings of one sampling run."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import arviz as az
import numpy as np

from .._validate import check_bool, check_fraction, check_int
from ..stan_programs import StanProgram
from ._cache import cache_directory

StanData = Mapping[str, Any]
#: Parameter values on the constrained scale, one mapping per point, named as in the program.
ParameterPoints = Sequence[Mapping[str, Any]]

__all__ = ["Engine", "SamplerSettings", "StanData", "cache_directory"]


@dataclass(frozen=True)
class SamplerSettings:
    """NUTS settings shared by the engines (the names of CmdStan's arguments in brackets).

    Attributes
    ----------
    chains, draws, warmup
        Number of chains, post-warm-up draws per chain (``num_samples``) and warm-up
        iterations per chain (``num_warmup``).
    seed
        Integer seed in ``[0, 2**31)``; the same seed gives the same draws on the same engine.
    inits
        One dict of initial values per chain (constrained scale).
    max_treedepth, adapt_delta
        NUTS maximum tree depth (``max_depth``) and target acceptance rate (``delta``).
    progress
        Show one progress bar while sampling (nothing else: the engines' own console output,
        compiler messages and log lines stay hidden unless compilation fails).
    """

    chains: int = 4
    draws: int = 1000
    warmup: int = 1000
    seed: int = 0
    inits: Sequence[Mapping[str, Any]] | None = None
    max_treedepth: int = 10
    adapt_delta: float = 0.8
    progress: bool = False
    coords: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    dims: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Check every setting (:mod:`bayes_hier._validate`: whole counts, a boolean
        ``progress``, ``adapt_delta`` in (0, 1)) and keep them as Python ints, floats, bools."""
        for name, minimum in (("chains", 1), ("draws", 1), ("warmup", 0), ("max_treedepth", 1)):
            object.__setattr__(self, name, check_int(getattr(self, name), name, minimum))
        object.__setattr__(self, "adapt_delta", check_fraction(self.adapt_delta, "adapt_delta"))
        object.__setattr__(self, "progress", check_bool(self.progress, "progress"))
        if not 0 <= self.seed < 2**31:
            raise ValueError(f"seed must be in [0, 2**31); got {self.seed}.")
        if self.inits is not None and len(self.inits) != self.chains:
            raise ValueError(f"Need one dict of initial values per chain ({self.chains}).")


class Engine(ABC):
    """One way of compiling and running the package's Stan programs.

    Implementations return :class:`arviz.InferenceData` with the same variable names (those of
    the Stan program) and the sample statistics arviz names ``diverging``, ``tree_depth``,
    ``energy``, ``lp``, ``step_size``.
    """

    name: str

    @classmethod
    @abstractmethod
    def available(cls) -> bool:
        """Whether this engine can run on this machine."""

    @abstractmethod
    def is_compiled(self, program: StanProgram) -> bool:
        """Whether a compiled model for ``program`` is in the cache."""

    @abstractmethod
    def compile(self, program: StanProgram) -> None:
        """Compile ``program`` unless it is cached; safe when several processes do it at once."""

    @abstractmethod
    def sample(
        self, program: StanProgram, data: StanData, settings: SamplerSettings
    ) -> az.InferenceData:
        """Run NUTS and return the draws (warm-up discarded)."""

    @abstractmethod
    def log_density(
        self, program: StanProgram, data: StanData, points: ParameterPoints
    ) -> np.ndarray:
        """Log density (no Jacobian; constants of ``~`` statements dropped) at each point.

        ``points`` are dicts of parameter values on the constrained scale, named as in the
        program. Used by the tests and benchmarks, not by the analyses.
        """

    def __repr__(self) -> str:
        return f"<{type(self).__name__} engine {self.name!r}>"
