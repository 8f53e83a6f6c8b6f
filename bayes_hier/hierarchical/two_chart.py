"""The hierarchical model sampled through two charts (``stan/hierarchical_two_chart.stan``).

Same model as ``stan/hierarchical.stan``; other coordinates, for few-fold designs. With n_i
results, σ_i ~ U(0, σ̄) integrates out of the equicorrelated normal likelihood in closed form,

    L_i(δ) ∝ Q_i(δ)^(−h_i) · Q(h_i, Q_i(δ) / (2σ̄²)),   Q_i(δ) = SS_i/a_i + n_i (x̄_i − δ)²/b_i,

h_i = (n_i − 1)/2, Q(h, x) the regularised upper incomplete gamma function; τ_i integrates out of
the population, leaving the Student-t density P(δ | δ₀, σ₀, ν). With few folds L_i has heavy
tails, and f_i = L_i·P is bimodal for a data set whose precise mean lies far from the others (the
population's tail against noise; ``benchmarks/FEW_FOLD.md``). The program samples one
coordinate u_i per data set, mapped to δ by two charts, A: δ = x̄_i + se_i·u (se_i the standard
error of x̄_i) and B: δ = δ₀ + σ₀·u, with weights w_A + w_B = 1:

    p(u_i) = w_A(δ_A) f_i(δ_A) se_i + w_B(δ_B) f_i(δ_B) σ₀,

which integrates to ∫ f_i dδ (a change of variables in each term), so the hyper-parameters'
posterior is the model's, while both modes lie near u_i = 0. :func:`chart_log_terms` is the
NumPy statement of the two terms, :func:`complete_two_chart` turns draws of u_i back into the
model's quantities: the chart, hence δ_i, with probabilities proportional to the two terms; then
σ_i² | δ_i, the inverse gamma with shape h_i and scale Q_i(δ_i)/2 truncated to σ_i ≤ σ̄; and
τ_i | δ_i ~ Gamma((ν + 1)/2, (ν + z_i²)/2), z_i = (δ_i − δ₀)/σ₀.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import arviz as az
import numpy as np
import xarray as xr
from numpy.typing import ArrayLike
from scipy import special, stats

from ..data import CVData, corrected_standard_error
from ..rope import Rope
from .delta0_coordinate import cauchy_location
from .model import HierarchicalModel, population_draws, store_completed
from .model_input import HierarchicalPrior, ModelInput, build_model_input
from .model_input import initial_values as scale_mixture_initial_values

#: c of the charts' weights w_A = logit⁻¹(c (log g_A − log g_B)), g Cauchy kernels.
CHART_SHARPNESS = 3.0


def _statistics(data: Mapping[str, Any]) -> dict[str, np.ndarray]:
    n = np.asarray(data["n"], float)
    rho = np.asarray(data["rho"], float)
    a, b = 1.0 - rho, 1.0 + (n - 1.0) * rho
    ss = np.asarray(data["ss"], float)
    ss_over_a = ss / a
    return {
        "n": n,
        "xbar": np.asarray(data["xbar"], float),
        "ss_over_a": ss_over_a,
        "n_over_b": n / b,
        "half_dof": 0.5 * (n - 1.0),
        "se": standard_errors(data),
        "log_constant": -0.5 * n * np.log(2 * np.pi)
        - 0.5 * ((n - 1.0) * np.log(a) + np.log(b))
        + special.gammaln(0.5 * (n - 1.0))
        + (0.5 * (n - 1.0) - 1.0) * np.log(2.0),
    }


def standard_errors(data: Mapping[str, Any]) -> np.ndarray:
    """se_i, the corrected standard error of x̄_i from the program's data (``n, rho, ss``): chart
    A's scale."""
    n = np.asarray(data["n"], float)
    return corrected_standard_error(
        np.sqrt(np.asarray(data["ss"], float) / (n - 1.0)), n, np.asarray(data["rho"], float)
    )


def _log_likelihood(sufficient: Mapping[str, np.ndarray], quadratic: np.ndarray, upper: float):
    h = sufficient["half_dof"]
    return -h * np.log(quadratic) + np.log(special.gammaincc(h, quadratic / (2 * upper**2)))


def chart_log_terms(
    data: Mapping[str, Any],
    delta0: ArrayLike,
    sigma0: ArrayLike,
    nu: ArrayLike,
    u: ArrayLike,
    sharpness: float = CHART_SHARPNESS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The two terms of log p(u_i) and the two charts' δ, per data set.

    ``data`` is the program's data (``n, rho, xbar, ss, sigma_upper``); ``delta0, sigma0, nu``
    broadcast against the leading axes of ``u`` (last axis: the data sets; ν = ∞ for the Gaussian
    population). Returns ``(term_a, term_b, delta_a, delta_b)``: log[w_A f_i(δ_A) se_i] and
    log[w_B f_i(δ_B) σ₀], each including the data set's constant, so that
    ``logaddexp(term_a, term_b) − log σ̄`` integrates over u to the data set's marginal likelihood.
    """
    sufficient = _statistics(data)
    u = np.asarray(u, float)
    delta0, sigma0, nu = (np.asarray(x, float)[..., None] for x in (delta0, sigma0, nu))
    se, xbar = sufficient["se"], sufficient["xbar"]
    delta_a, delta_b = xbar + se * u, delta0 + sigma0 * u
    upper = float(data["sigma_upper"])
    terms = []
    for delta in (delta_a, delta_b):
        quadratic = sufficient["ss_over_a"] + sufficient["n_over_b"] * (xbar - delta) ** 2
        log_kernel_a = -np.log(se) - np.log1p(((delta - xbar) / se) ** 2)
        log_kernel_b = -np.log(sigma0) - np.log1p(((delta - delta0) / sigma0) ** 2)
        terms.append(
            (
                _log_likelihood(sufficient, quadratic, upper)
                + stats.t.logpdf(delta, nu, delta0, sigma0)  # ν = ∞: the normal density
                + sufficient["log_constant"],
                sharpness * (log_kernel_a - log_kernel_b),
            )
        )
    (f_a, d_a), (f_b, d_b) = terms
    term_a = f_a - np.logaddexp(0.0, -d_a) + np.log(se)
    term_b = f_b - np.logaddexp(0.0, d_b) + np.log(sigma0)
    return term_a, term_b, delta_a, delta_b


def draw_noise_scale(
    data: Mapping[str, Any], delta: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """σ_i given δ_i: σ_i² ~ inverse gamma(h_i, Q_i(δ_i)/2) truncated to σ_i ≤ σ̄.

    With t = Q_i/(2σ_i²) ~ Gamma(h_i, 1) truncated to t ≥ Q_i/(2σ̄²), by inversion of the
    regularised upper incomplete gamma function."""
    sufficient = _statistics(data)
    quadratic = sufficient["ss_over_a"] + sufficient["n_over_b"] * (sufficient["xbar"] - delta) ** 2
    h = np.broadcast_to(sufficient["half_dof"], quadratic.shape)
    tail = special.gammaincc(h, quadratic / (2 * float(data["sigma_upper"]) ** 2))
    t = special.gammainccinv(h, rng.random(quadratic.shape) * tail)
    return np.sqrt(quadratic / (2 * t))


def draw_mixing_precision(
    delta: np.ndarray,
    delta0: ArrayLike,
    sigma0: ArrayLike,
    nu: ArrayLike,
    rng: np.random.Generator,
) -> np.ndarray:
    """τ_i given δ_i: Gamma((ν + 1)/2, rate (ν + z_i²)/2), z_i = (δ_i − δ₀)/σ₀ (the
    conditional of the scale mixture's precision); ``delta0, sigma0, nu`` have the shape of
    ``delta`` without its last axis (the data sets)."""
    delta0, sigma0, nu = (np.asarray(x, float)[..., None] for x in (delta0, sigma0, nu))
    z = (delta - delta0) / sigma0
    return rng.gamma(0.5 * (nu + 1), 2.0 / (nu + z**2))


def complete_two_chart(
    idata: az.InferenceData, model_input: ModelInput, rng: np.random.Generator
) -> az.InferenceData:
    """The model's quantities from the two-chart coordinates (module docstring), in the
    original units: the same variables as the scale-mixture completion."""
    posterior, data = idata.posterior, model_input.data
    variables, gamma = population_draws(posterior, data)
    delta0, sigma0, u = posterior["delta0"], posterior["sigma0"], posterior["u"]
    nu_values = np.full(sigma0.shape, np.inf)
    if "nu" in variables:
        nu_values = variables["nu"].transpose(*sigma0.dims).values
    term_a, term_b, delta_a, delta_b = chart_log_terms(
        data, delta0.values, sigma0.values, nu_values, u.values, CHART_SHARPNESS
    )
    chart_a = rng.random(term_a.shape) < special.expit(term_a - term_b)
    delta = np.where(chart_a, delta_a, delta_b)
    per_dataset = {"delta": delta, "sigma": draw_noise_scale(data, delta, rng)}
    if "nu" in variables:
        per_dataset["tau"] = draw_mixing_precision(
            delta, delta0.values, sigma0.values, nu_values, rng
        )
    for name, values in per_dataset.items():
        variables[name] = xr.DataArray(values, dims=u.dims, coords=u.coords)
    return store_completed(idata, {**variables, **gamma}, model_input)


def build_two_chart_input(
    data: CVData, rope: Rope, prior: HierarchicalPrior, rng: np.random.Generator
) -> ModelInput:
    """The scale-mixture program's input, with the sampler's coordinate of δ₀ centred and scaled
    by ``delta0_coordinate.cauchy_location`` (robust to the far-out data sets of few-fold
    studies; the posterior does not depend on it)."""
    model_input = build_model_input(data, rope, prior, rng)
    centre, spread = cauchy_location(model_input.data["xbar"], model_input.standard_errors)
    return replace(
        model_input, data={**model_input.data, "delta0_centre": centre, "delta0_spread": spread}
    )


def two_chart_initial_values(
    model_input: ModelInput, chains: int, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """The scale-mixture program's initial values of σ₀ and ν, δ₀ near the centre of its
    coordinate (``delta0_raw`` jittered by 0.1, a tenth of its spread) and u_i near 0 (δ_i at
    x̄_i in chart A and at δ₀ in chart B)."""
    inits = scale_mixture_initial_values(model_input, chains, rng)
    q = len(model_input.data["xbar"])
    for init in inits:
        del init["sigma"], init["tau_raw"]
        init["delta0_raw"] = 0.1 * float(rng.standard_normal())
        init["u"] = 0.1 * rng.standard_normal(q)
    return inits


class TwoChartModel(HierarchicalModel):
    """The hierarchical model in two-chart coordinates (module docstring): the same input,
    result and diagnosed variables as the scale-mixture ``HierarchicalModel``."""

    program = "hierarchical_two_chart"
    build_input = staticmethod(build_two_chart_input)
    initial_values = staticmethod(two_chart_initial_values)
    completion = staticmethod(complete_two_chart)

    def stan_data(self, model_input: ModelInput, program: str) -> Mapping[str, Any]:
        return {**model_input.data, "chart_sharpness": CHART_SHARPNESS}

    def coordinates(
        self, data: CVData, model_input: ModelInput
    ) -> tuple[Mapping[str, Sequence[Any]], Mapping[str, Sequence[str]]]:
        return {"dataset": list(data.datasets)}, {"u": ["dataset"]}


#: The instance :func:`~bayes_hier.hierarchical.hierarchical_test` fits in two-chart coordinates.
TWO_CHART = TwoChartModel()

__all__ = [
    "CHART_SHARPNESS",
    "TWO_CHART",
    "TwoChartModel",
    "build_two_chart_input",
    "chart_log_terms",
    "complete_two_chart",
    "draw_mixing_precision",
    "draw_noise_scale",
    "standard_errors",
    "two_chart_initial_values",
]
