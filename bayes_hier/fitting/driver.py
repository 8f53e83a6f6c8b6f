"""``fit_model``: the one driver that fits every Stan model of the package.

It owns what is the same for all models: the seed streams (:func:`~.seeds.seed_streams`), the
sampler settings (:class:`SamplerOptions`, checked before any work), the engine, the
diagnostics and their thresholds (:mod:`bayes_hier.diagnostics`), the warnings, and the record
of the settings that reproduces a fit. The model (:class:`~.model.StanModel`) supplies the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, TypedDict

import arviz as az
import numpy as np

from .._validate import check_bool, check_fraction, check_int
from ..diagnostics import compute_diagnostics, diagnostic_problems, warn_on_problems
from ..engines import Engine, SamplerSettings, get_engine
from ..seeding import SeedLike
from ..stan_programs import load_program
from .model import StanModel
from .seeds import SeedStreams, seed_streams


class SamplerKeywords(TypedDict, total=False):
    """The MCMC settings every fitting function takes as keyword arguments, e.g.
    ``hierarchical_test(x, y, chains=2, draws=500)``: the fields of :class:`SamplerOptions`,
    with its defaults and checks."""

    chains: int
    draws: int
    warmup: int
    adapt_delta: float
    max_treedepth: int
    engine: str | Engine
    progress: bool


@dataclass(frozen=True)
class SamplerOptions:
    """The user's MCMC settings, checked when made (before any data is touched).

    Attributes
    ----------
    chains, draws, warmup
        Chains, post-warm-up draws per chain and warm-up iterations per chain (whole numbers:
        ``chains, draws >= 1``, ``warmup >= 0``; ``warmup=None``: the model's own default,
        :attr:`~.model.StanModel.warmup`, 1000 for most models).
    adapt_delta, max_treedepth
        NUTS' target acceptance rate (in (0, 1); ``None``: the model's own default,
        :attr:`~.model.StanModel.adapt_delta`) and maximum tree depth.
    engine
        ``"auto"``, ``"pystan"``, ``"cmdstanpy"`` or an :class:`~bayes_hier.engines.Engine`.
    progress
        One progress bar on stderr while sampling.
    """

    chains: int = 4
    draws: int = 1000
    warmup: int | None = None
    adapt_delta: float | None = None
    max_treedepth: int = 10
    engine: str | Engine = "auto"
    progress: bool = False

    def __post_init__(self) -> None:
        for name, minimum in (("chains", 1), ("draws", 1), ("max_treedepth", 1)):
            object.__setattr__(self, name, check_int(getattr(self, name), name, minimum))
        if self.warmup is not None:
            object.__setattr__(self, "warmup", check_int(self.warmup, "warmup", 0))
        if self.adapt_delta is not None:
            object.__setattr__(self, "adapt_delta", check_fraction(self.adapt_delta, "adapt_delta"))
        object.__setattr__(self, "progress", check_bool(self.progress, "progress"))

    @classmethod
    def from_keywords(cls, keywords: Mapping[str, Any], function: str) -> SamplerOptions:
        """The options given to ``function`` as keyword arguments (:class:`SamplerKeywords`);
        a name that is not an MCMC setting raises a :class:`TypeError` that lists them."""
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(keywords) - set(known))
        if unknown:
            raise TypeError(
                f"{function}() got unexpected keyword argument(s) {unknown}; besides its own "
                f"arguments it takes the MCMC settings {known}."
            )
        return cls(**keywords)

    def for_model(self, model: StanModel) -> SamplerOptions:
        """These options with ``adapt_delta`` and ``warmup`` set to the model's defaults where
        they were not given."""
        return replace(
            self,
            adapt_delta=model.adapt_delta if self.adapt_delta is None else self.adapt_delta,
            warmup=model.warmup if self.warmup is None else self.warmup,
        )

    def sampler_settings(
        self,
        model: StanModel,
        data: Any,
        model_input: Any,
        *,
        seed: int,
        inits: np.random.Generator,
        progress: bool = False,
    ) -> SamplerSettings:
        """The engine's settings of one fit of ``model``: these options (``adapt_delta`` and
        ``warmup`` resolved by :meth:`for_model`), the Stan ``seed``, the model's initial values
        drawn from ``inits`` and the labels of its draws."""
        options = self.for_model(model)
        coords, dims = model.coordinates(data, model_input)
        return SamplerSettings(
            chains=options.chains,
            draws=options.draws,
            warmup=options.warmup,
            seed=seed,
            inits=model.initial_values(model_input, options.chains, inits),
            max_treedepth=options.max_treedepth,
            adapt_delta=options.adapt_delta,
            progress=progress,
            coords=coords,
            dims=dims,
        )


@dataclass(frozen=True)
class FittedModel:
    """What :func:`fit_model` hands to a model's result.

    Attributes
    ----------
    idata
        The completed posterior (the model's quantities, in the data's units).
    model_input
        What the model built from the data (:meth:`StanModel.build_input`).
    diagnostics, problems
        The convergence diagnostics (:func:`~bayes_hier.diagnostics.compute_diagnostics`) and
        the sentences of those that failed.
    settings
        The record that reproduces the fit: engine, both seeds, the sampler settings, problems.
    streams
        The seed streams (the result's own simulations use ``streams.predictive``).
    """

    idata: az.InferenceData
    model_input: Any
    diagnostics: dict[str, float]
    problems: list[str]
    settings: dict[str, Any]
    streams: SeedStreams

    @property
    def converged(self) -> bool:
        """Whether every diagnostic passed."""
        return not self.problems


def sample_model(
    model: StanModel,
    data: Any,
    model_input: Any,
    settings: SamplerSettings,
    *,
    engine: str | Engine = "auto",
    rng: Any,
    program: str | None = None,
) -> az.InferenceData:
    """Sample ``model`` on ``data``'s input, already built, and complete the draws (no
    diagnostics).

    The step of :func:`fit_model` that simulation studies (SBC, benchmarks) call with inputs and
    settings of their own; ``rng`` completes the posterior (:meth:`StanModel.complete`).
    """
    program = program or model.program
    stan_data = model.stan_data(model_input, program)
    idata = get_engine(engine).sample(load_program(program), stan_data, settings)
    return model.complete(idata, data, model_input, rng)


def fit_model(
    model: StanModel,
    data: Any,
    *,
    rope: Any,
    prior: Any,
    options: SamplerOptions,
    seed: SeedLike | SeedStreams = None,
    warn: bool = True,
    label: str | None = None,
    program: str | None = None,
) -> FittedModel:
    """Fit ``model`` to ``data``: build its input, sample, complete the draws, diagnose.

    Parameters
    ----------
    model
        The model (:class:`~.model.StanModel`).
    data, rope, prior
        Validated data, the parsed rope and the model's prior, as its ``build_input`` takes them.
    options
        The sampler settings.
    seed
        A seed (:mod:`bayes_hier.seeding`) or streams already split from one.
    warn
        Issue a :class:`~bayes_hier.diagnostics.SamplingWarning` per failed diagnostic, headed
        by ``label`` (default: the model's name).
    program
        Another program of the same model (a reference implementation), default
        ``model.program``.
    """
    options = options.for_model(model)
    streams = seed if isinstance(seed, SeedStreams) else seed_streams(seed)
    model_input = model.build_input(data, rope, prior, streams.perturbation)
    settings = options.sampler_settings(
        model, data, model_input, seed=streams.stan, inits=streams.inits, progress=options.progress
    )
    engine = get_engine(options.engine)
    idata = sample_model(
        model, data, model_input, settings, engine=engine, rng=streams.posterior, program=program
    )
    diagnostics = compute_diagnostics(
        model.diagnosed_view(idata), model.diagnosed, settings.max_treedepth
    )
    problems = diagnostic_problems(diagnostics)
    if check_bool(warn, "warn"):
        warn_on_problems(problems, label or model.name)
    record = {
        "engine": engine.name,
        "seed": streams.seed,
        "stan_seed": streams.stan,
        **{name: value for name, value in asdict(options).items() if name != "engine"},
        "problems": problems,
    }
    record.pop("progress")
    return FittedModel(idata, model_input, diagnostics, problems, record, streams)


__all__ = [
    "FittedModel",
    "SamplerKeywords",
    "SamplerOptions",
    "fit_model",
    "sample_model",
]
