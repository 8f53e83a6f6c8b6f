"""The interface every Stan model of the package implements (see :func:`~.driver.fit_model`).

A model is the Stan program plus what only it knows: how its data become the program's input,
where its chains start, how the sampler's draws become the model's quantities, which of them the
convergence diagnostics cover, and the type of its result. Everything else (engines, seeds,
sampler settings, diagnostics and their thresholds, the record of the settings) belongs to the
driver, :func:`~bayes_hier.fitting.fit_model`.

A model that can be calibrated also has a :class:`Simulator`: draws of its parameters from a
proper calibration prior and of data of its shape given them, which the generic simulation-based
calibration (:mod:`bayes_hier.calibration`) fits and ranks; :class:`CalibrationSuite` is the
model's default calibration run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
    adapt_delta
        NUTS' target acceptance rate when the user gives none (0.9; a model whose posteriors
        need smaller steps sets more).
    warmup
        Warm-up iterations per chain when the user gives none (1000, Stan's default; a model
        whose adaptation is shown to settle sooner on the designs it serves sets fewer).
    """

    name: str
    program: str
    diagnosed: tuple[str, ...]
    result_type: type
    adapt_delta: float = 0.9
    warmup: int = 1000

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


@dataclass(frozen=True)
class Simulation:
    """One draw of a model's parameters from its calibration prior and of data given them.

    Attributes
    ----------
    truth
        The true value of every checked quantity (:attr:`Simulator.checked`).
    data
        The simulated data, of the type the model's :meth:`StanModel.build_input` takes.
    model_input
        The input the calibration fits: the model's input of ``data`` with the calibration
        prior switched on (the prior the parameters were drawn from).
    """

    truth: Mapping[str, float]
    data: Any
    model_input: Any


class Simulator(Protocol):
    """What simulation-based calibration (Talts et al., 2018) needs of a model.

    A simulator draws parameters from a proper prior (the calibration prior, which the fit of
    :attr:`Simulation.model_input` uses too), simulates data of the model's shape given them,
    and reads the checked quantities from a completed posterior; over replicates the rank of
    each true value among the posterior draws is uniform when the program samples the stated
    posterior.

    Attributes
    ----------
    model
        The model fitted (:class:`StanModel`).
    checked
        The names of the quantities whose ranks are checked.
    setting
        The design of the simulation (sizes, prior choices) as columns of the rank table; its
        values also key the replicates' random streams.
    """

    model: StanModel
    checked: tuple[str, ...]

    @property
    def setting(self) -> Mapping[str, str | int | float]:
        """The design as ``{column: value}``."""

    def simulate(self, rng: np.random.Generator) -> Simulation:
        """Parameters from the calibration prior, data given them, the fit's input."""

    def checked_draws(self, idata: az.InferenceData) -> Mapping[str, np.ndarray]:
        """The (chain, draw) draws of every checked quantity in a completed posterior, in the
        units of :attr:`Simulation.truth`."""


@dataclass(frozen=True)
class CalibrationSuite:
    """A model's default calibration run: its simulators and the lengths of the fits.

    Attributes
    ----------
    simulators
        One simulator per setting.
    warmup, draws
        NUTS warm-up iterations and draws per chain of every fit.
    thinned
        L: the posterior draws are thinned to L, so ranks lie in 0..L.
    seed
        Root seed of the replicates' random streams.
    replicates
        Replicates per setting (200 by default: enough for rank histograms to show a
        miscalibration).
    chains
        NUTS chains of every fit.
    pool_by
        Setting columns whose groups the uniformity table pools over the other columns
        (empty: every setting on its own).
    description
        The calibration prior and the design in words, for the report.
    """

    simulators: tuple[Simulator, ...]
    warmup: int
    draws: int
    thinned: int
    seed: int
    replicates: int = 200
    chains: int = 2
    pool_by: tuple[str, ...] = ()
    description: str = ""


__all__ = ["CalibrationSuite", "ModelInput", "Simulation", "Simulator", "StanModel"]
