"""The calibration simulator of the hierarchical model: draws from exactly the prior and
likelihood of ``stan/hierarchical.stan``, in its units.

Simulation-based calibration (Talts et al., 2018) is valid only when the data are simulated from
the very prior the fit uses. The package's own prior has data-dependent bounds
(σ̄ = 1000·mean s_i, σ̄₀ = 1000·sd x̄_i, D = ``max |x_ij|``, conventions §3) and rescales the data
to mean s_i = 1, so it is not a fixed prior one could simulate from. The calibration therefore
fixes the hyper-parameters in the units the Stan program sees
(:class:`HierarchicalCalibrationPrior`) and builds the data of the program through the package's
own ``build_model_input``, of which only the three data-dependent bounds are replaced
(:func:`calibration_model_input`).

The generative model, for data sets i = 1..q (conventions §3,
``stan/include/hierarchical_prior.stan``)::

    δ₀ ~ U(−D, D),  σ₀ ~ U(0, σ̄₀),  σ_i ~ U(0, σ̄)
    ν − 1 ~ Gamma(α, β)  with  α ~ U(α_lo, α_hi), β ~ U(β_lo, β_hi)  ("hierarchical")
                         or  (α, β) fixed                          (e.g. "juarez-steel")
    τ_i ~ Gamma(ν/2, ν/2),  δ_i | τ_i ~ N(δ₀, σ₀²/τ_i)   (⇔ δ_i ~ Student-t(ν, δ₀, σ₀))
    x_i ~ MVN(1 δ_i, σ_i²[(1 − ρ_i)I + ρ_i 11ᵀ])          (n_i values)

The model is equivariant under a common change of scale of (D, σ̄₀, σ̄, δ, σ, x): only the ratios
of the three bounds matter, so unit bounds lose no generality. The zero-variance perturbation of
the package (data sets whose differences are all equal) never triggers here: simulated
continuous differences are equal with probability 0, and :func:`calibration_model_input` checks
it.

:class:`HierarchicalSimulator` is the model's :class:`~bayes_hier.fitting.model.Simulator`
(ranked: δ₀, σ₀, ν and the first two data sets' δ_i and σ_i) and :func:`calibration_suite` its
default calibration run (``python -m bayes_hier.calibration --model hierarchical``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import arviz as az
import numpy as np

from ..data import CVData
from ..examples import equicorrelated_normal
from ..fitting.model import CalibrationSuite, Simulation
from ..rope import Rope
from .model import HIERARCHICAL, HierarchicalModel
from .model_input import NU_PRIORS, HierarchicalPrior, ModelInput, build_model_input
from .quadrature import QuadratureModel, with_deep_datasets
from .two_chart import TWO_CHART

#: Ranked quantities: the population, ν, and the first two data sets' δ_i and σ_i.
PARAMETERS = ("delta0", "sigma0", "nu", "delta[0]", "delta[1]", "sigma[0]", "sigma[1]")


@dataclass(frozen=True)
class HierarchicalCalibrationPrior:
    """Fixed hyper-parameters of the hierarchical model, in the units of the Stan program.

    Attributes
    ----------
    nu_prior
        A name of :data:`~bayes_hier.hierarchical.NU_PRIORS` except ``"gaussian"``.
    delta0_bound, sigma0_upper, sigma_upper
        D, σ̄₀ and σ̄ of δ₀ ~ U(−D, D), σ₀ ~ U(0, σ̄₀) and σ_i ~ U(0, σ̄).
    alpha_range, beta_range
        Bounds of α and β (``"hierarchical"`` ν prior).
    """

    nu_prior: str = "hierarchical"
    delta0_bound: float = 1.0
    sigma0_upper: float = 1.0
    sigma_upper: float = 1.0
    alpha_range: tuple[float, float] = (0.5, 5.0)
    beta_range: tuple[float, float] = (0.05, 0.15)

    def __post_init__(self) -> None:
        if self.nu_prior not in NU_PRIORS or self.nu_prior == "gaussian":
            choices = [name for name in NU_PRIORS if name != "gaussian"]
            raise ValueError(f"nu_prior must be one of {choices}; got {self.nu_prior!r}.")
        for name in ("delta0_bound", "sigma0_upper", "sigma_upper"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive; got {getattr(self, name)}.")
        for low, high in (self.alpha_range, self.beta_range):
            if not 0 < low < high:
                raise ValueError(f"A prior range must satisfy 0 < low < high; got ({low}, {high}).")


def draw_parameters(
    prior: HierarchicalCalibrationPrior, q: int, rng: np.random.Generator
) -> dict[str, Any]:
    """One draw of (δ₀, σ₀, ν[, α, β], τ, δ, σ) from the prior (module docstring)."""
    truth: dict[str, Any] = {
        "delta0": rng.uniform(-prior.delta0_bound, prior.delta0_bound),
        "sigma0": rng.uniform(0.0, prior.sigma0_upper),
        "sigma": rng.uniform(0.0, prior.sigma_upper, q),
    }
    truth.update(draw_mixing(prior.nu_prior, prior.alpha_range, prior.beta_range, q, rng))
    tau = truth["tau"]
    truth["delta"] = truth["delta0"] + truth["sigma0"] / np.sqrt(tau) * rng.standard_normal(q)
    return truth


def draw_mixing(
    nu_prior: str,
    alpha_range: tuple[float, float],
    beta_range: tuple[float, float],
    q: int,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """ν and the mixing precisions τ_1..τ_q of the Student-t population, from the package's prior.

    ν − 1 ~ Gamma(α, β) (rate β) with α ~ U(alpha_range), β ~ U(beta_range) for the
    ``"hierarchical"`` prior, else the fixed (α, β) of ``NU_PRIORS[nu_prior]``;
    τ_i ~ Gamma(ν/2, ν/2), so that N(m, V/τ_i) mixes to a Student-t with ν degrees of freedom.
    Shared by the two-model and the joint calibration. Returns ``nu``, ``tau`` and, for the
    hierarchical prior, ``nu_alpha`` and ``nu_beta``.
    """
    switch, gamma = NU_PRIORS[nu_prior]
    if gamma is None and switch != 0:
        raise ValueError(f"The {nu_prior!r} prior has no Student-t population to draw.")
    drawn: dict[str, Any] = {}
    if switch == 0:
        shape, rate = rng.uniform(*alpha_range), rng.uniform(*beta_range)
        drawn["nu_alpha"], drawn["nu_beta"] = shape, rate
    else:
        shape, rate = gamma
    nu = 1.0 + rng.gamma(shape, 1.0 / rate)
    drawn["nu"] = nu
    drawn["tau"] = rng.gamma(nu / 2, 2.0 / nu, q)
    return drawn


def simulate(
    prior: HierarchicalCalibrationPrior, q: int, n: int, rng: np.random.Generator, rho: float = 0.1
) -> tuple[dict[str, Any], np.ndarray]:
    """Parameters from the prior (:func:`draw_parameters`), then n equicorrelated differences
    per data set: the drawn parameters and the (q, n) differences."""
    if q < 2 or n < 2:
        raise ValueError(f"Need q >= 2 data sets and n >= 2 results each; got q={q}, n={n}.")
    if not 0 <= rho < 1:
        raise ValueError(f"rho must be in [0, 1); got {rho}.")
    truth = draw_parameters(prior, q, rng)
    return truth, equicorrelated_normal(truth["delta"], truth["sigma"], rho, n, rng)


def calibration_model_input(prior: HierarchicalCalibrationPrior, data: CVData) -> ModelInput:
    """The package's model input of simulated data, with the calibration prior's bounds.

    The data go through ``build_model_input`` (the zero-variance check, the sufficient
    statistics and the rescaling by mean_i(s_i), undone by the posterior completion); only its
    three data-dependent bounds are replaced by the fixed bounds of ``prior``, expressed in the
    rescaled units. The fold correlation is ``data``'s: another than the simulation's makes a
    deliberately misspecified model, the negative control of the calibration.
    """
    package_prior = HierarchicalPrior(
        nu_prior=prior.nu_prior, alpha_range=prior.alpha_range, beta_range=prior.beta_range
    )
    model_input = build_model_input(data, Rope(0.0, 0.0), package_prior, np.random.default_rng(0))
    if model_input.perturbed:
        raise ValueError("A simulated data set has zero variance; the calibration cannot use it.")
    scale = model_input.scale
    bounds = {
        "sigma_upper": prior.sigma_upper / scale,
        "sigma0_upper": prior.sigma0_upper / scale,
        "delta0_bound": prior.delta0_bound / scale,
    }
    return replace(model_input, data={**model_input.data, **bounds})


def _parameter_draws(posterior: Any, name: str) -> np.ndarray:
    """(chain, draw) values of ``delta0`` or of an indexed vector element such as ``delta[1]``."""
    if "[" not in name:
        return posterior[name].values
    base, index = name.rstrip("]").split("[")
    variable = posterior[base]
    return variable.isel({variable.dims[-1]: int(index)}).values


def _truth_value(truth: Mapping[str, Any], name: str) -> float:
    if "[" not in name:
        return float(truth[name])
    base, index = name.rstrip("]").split("[")
    return float(truth[base][int(index)])


@dataclass(frozen=True)
class HierarchicalSimulator:
    """The hierarchical model's calibration simulator: q data sets of n results each.

    ``rho`` is the fold correlation of the simulated data, ``fit_rho`` (default: the same) the
    one the fit assumes, for a deliberately misspecified negative control.
    """

    prior: HierarchicalCalibrationPrior = HierarchicalCalibrationPrior()
    q: int = 10
    n: int = 10
    rho: float = 0.1
    fit_rho: float | None = None
    model: ClassVar[HierarchicalModel] = HIERARCHICAL
    checked: ClassVar[tuple[str, ...]] = PARAMETERS

    @property
    def setting(self) -> dict[str, Any]:
        return {"nu_prior": self.prior.nu_prior, "q": self.q, "n": self.n}

    def simulate(self, rng: np.random.Generator) -> Simulation:
        truth, differences = simulate(self.prior, self.q, self.n, rng, self.rho)
        data = CVData(differences, rho=self.rho if self.fit_rho is None else self.fit_rho)
        checked = {name: _truth_value(truth, name) for name in PARAMETERS}
        return Simulation(checked, data, calibration_model_input(self.prior, data))

    def checked_draws(self, idata: az.InferenceData) -> dict[str, np.ndarray]:
        return {name: _parameter_draws(idata.posterior, name) for name in PARAMETERS}


@dataclass(frozen=True)
class TwoChartSimulator(HierarchicalSimulator):
    """The same simulation, fitted in two-chart coordinates (``hierarchical_two_chart.stan``)."""

    model: ClassVar[HierarchicalModel] = TWO_CHART


@dataclass(frozen=True)
class QuadratureSimulator(HierarchicalSimulator):
    """The same simulation, fitted with every data set but one integrated out by quadrature
    (``hierarchical_quadrature.stan`` with no valley threshold: the shallowest data set stays
    sampled), so that the ranks check the quadrature and its completion on every kind of data
    set, not only the deep ones the package integrates."""

    model: ClassVar[QuadratureModel] = QuadratureModel(nats=-np.inf)

    def simulate(self, rng: np.random.Generator) -> Simulation:
        simulation = super().simulate(rng)
        model_input = with_deep_datasets(simulation.model_input, self.model.nats)
        return replace(simulation, model_input=model_input)


#: The settings of the default calibration: both Student-t ν priors at four (q, n).
NU_PRIORS_CALIBRATED = ("hierarchical", "juarez-steel")
SIZES = ((10, 10), (10, 100), (50, 10), (50, 100))


def _suite(
    simulator: type[HierarchicalSimulator],
    prior: HierarchicalCalibrationPrior | None,
    sizes: tuple[tuple[int, int], ...],
    seed: int,
) -> CalibrationSuite:
    """Both ν priors × ``sizes`` × 64 replicates of ``simulator``, 2 chains × 300 draws after
    300 warm-up, L = 59, ranks pooled per ν prior."""
    prior = prior or HierarchicalCalibrationPrior()
    simulators = tuple(
        simulator(replace(prior, nu_prior=nu_prior), q, n)
        for nu_prior in NU_PRIORS_CALIBRATED
        for q, n in sizes
    )
    description = (
        f"Priors: δ₀ ~ U(−{prior.delta0_bound:g}, {prior.delta0_bound:g}), σ₀ ~ U(0, "
        f"{prior.sigma0_upper:g}), σ_i ~ U(0, {prior.sigma_upper:g}) (fixed, in the units of the "
        f"Stan program; scale 1), ν priors {', '.join(NU_PRIORS_CALIBRATED)}; ρ = 0.1; "
        f"differences x_i ~ MVN(1 δ_i, σ_i²[(1 − ρ)I + ρ11ᵀ]). Fits: the shipped "
        f"stan/{simulator.model.program}.stan with these bounds, package initial values."
    )
    return CalibrationSuite(
        simulators, warmup=300, draws=300, thinned=59, seed=seed, replicates=64,
        pool_by=("nu_prior",), description=description,
    )  # fmt: skip


def calibration_suite(prior: HierarchicalCalibrationPrior | None = None) -> CalibrationSuite:
    """``make calibrate``: 8 settings (two ν priors × four (q, n)) × 64 replicates, 2 chains ×
    300 draws after 300 warm-up, L = 59, ranks pooled per ν prior."""
    return _suite(HierarchicalSimulator, prior, SIZES, seed=20181025)


#: Few-fold (q, n) of the two-chart calibration.
FEW_FOLD_SIZES = ((10, 4), (20, 4), (10, 2))


def two_chart_suite(prior: HierarchicalCalibrationPrior | None = None) -> CalibrationSuite:
    """``make calibrate``'s second part: the same simulation at few folds (both ν priors × the
    (q, n) of :data:`FEW_FOLD_SIZES` × 64 replicates), fitted in two-chart coordinates."""
    return _suite(TwoChartSimulator, prior, FEW_FOLD_SIZES, seed=20261126)


def quadrature_suite(prior: HierarchicalCalibrationPrior | None = None) -> CalibrationSuite:
    """``make calibrate``'s third part: the same simulation at few folds (both ν priors × the
    (q, n) of :data:`FEW_FOLD_SIZES` × 64 replicates), fitted with every data set but one
    integrated out by quadrature."""
    return _suite(QuadratureSimulator, prior, FEW_FOLD_SIZES, seed=20261129)


__all__ = [
    "FEW_FOLD_SIZES",
    "PARAMETERS",
    "HierarchicalCalibrationPrior",
    "HierarchicalSimulator",
    "QuadratureSimulator",
    "TwoChartSimulator",
    "calibration_model_input",
    "calibration_suite",
    "draw_mixing",
    "draw_parameters",
    "quadrature_suite",
    "simulate",
    "two_chart_suite",
]
