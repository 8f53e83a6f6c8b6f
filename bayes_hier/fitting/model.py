"""The interface every Stan model of the package implements (see :func:`~.driver.fit_model`).

A model is the Stan program plus what only it knows: how its data become the program's input,
where its chains start, how the sampler's draws become the model's quantities, which of them the
convergence diagnostics cover, and the type of its result. Everything else (engines, seeds,
sampler settings, diagnostics and their thresholds, the record of the settings) belongs to the
driver, :func:`~bayes_hier.fitting.fit_model`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import arviz as az
import numpy as np


class ModelInput(Protocol):
    """What :meth:`StanModel.build_input` returns: at least the program's data."""

    data: Mapping[str, Any]


class StanModel(Protocol):
    """One Stan model: its program and the model-specific steps of a fit.

    A model may derive from this class to inherit :meth:`stan_data` and :meth:`diagnosed_view`.

    Attributes
    ----------
    name
        How messages name the model (``"hierarchical test"``).
    program
        The name of its program in ``stan/`` (:func:`~bayes_hier.stan_programs.load_program`).
    diagnosed
        The variables whose R-hat, ESS and so on are checked after every fit (all reported
        quantities, per-data-set vectors included).
    result_type
        The class of the result its public function returns.
    """

    name: str
    program: str
    diagnosed: tuple[str, ...]
    result_type: type

    def build_input(self, data: Any, rope: Any, prior: Any, rng: np.random.Generator) -> ModelInput:
        """The program's input (``.data``) and whatever the completion needs (scales, names)."""

    def stan_data(self, model_input: Any, program: str) -> Mapping[str, Any]:
        """The data of ``program``: ``model_input.data`` for :attr:`program`, and
        ``model_input.matrix_data()`` for a reference program of the same model (one that reads
        every fold instead of sufficient statistics)."""
        return model_input.data if program == self.program else model_input.matrix_data()

    def initial_values(
        self, model_input: Any, chains: int, rng: np.random.Generator
    ) -> list[dict[str, Any]]:
        """One dict of initial values per chain."""

    def coordinates(
        self, data: Any, model_input: Any
    ) -> tuple[Mapping[str, Sequence[Any]], Mapping[str, Sequence[str]]]:
        """``(coords, dims)`` that label the program's vector variables in the draws."""

    def complete(
        self, idata: az.InferenceData, data: Any, model_input: Any, rng: np.random.Generator
    ) -> az.InferenceData:
        """The sampler's draws turned into the model's quantities, in the data's units."""

    def diagnosed_view(self, idata: az.InferenceData) -> az.InferenceData:
        """The draws the diagnostics read (e.g. without quantities that do not exist); by
        default all of them."""
        return idata


__all__ = ["ModelInput", "StanModel"]
