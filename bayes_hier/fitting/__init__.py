"""Fitting the package's Stan models: one interface per model, one driver for all.

A model (:class:`StanModel`) is its Stan program and the steps only it knows; :func:`fit_model`
does the rest for every model: seeds (:func:`seed_streams`), sampler settings
(:class:`SamplerOptions`), the engine, the diagnostics and their thresholds, warnings and the
settings record (:class:`FittedModel`). To add a model: a ``.stan`` file in ``stan/`` and one
module implementing :class:`StanModel`.
"""

from .draws import FittedResult, stacked_draws
from .driver import (
    FittedModel,
    SamplerKeywords,
    SamplerOptions,
    fit_model,
    sample_model,
)
from .model import ModelInput, StanModel
from .seeds import SeedStreams, seed_streams

__all__ = [
    "FittedModel",
    "FittedResult",
    "ModelInput",
    "SamplerKeywords",
    "SamplerOptions",
    "SeedStreams",
    "StanModel",
    "fit_model",
    "sample_model",
    "seed_streams",
    "stacked_draws",
]
