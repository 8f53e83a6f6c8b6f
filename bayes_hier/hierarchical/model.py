"""The hierarchical model as a :class:`~bayes_hier.fitting.StanModel`: its program
(``stan/hierarchical.stan``), input, initial values and the completion of its draws."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import arviz as az
import numpy as np
import xarray as xr

from ..data import CVData
from ..fitting.model import StanModel
from .likelihood import delta_full_conditional
from .model_input import (
    NU_PRIORS,
    ModelInput,
    build_model_input,
    initial_values,
)
from .result import HierarchicalResult
from .scale_mixture import nu_from_standardised, tau_from_standardised

#: Variables checked by the diagnostics (per-data-set vectors included).
DIAGNOSED = ("delta0", "sigma0", "nu", "nu_alpha", "nu_beta", "delta", "sigma", "tau")
#: Variables in the units of the differences, rescaled back after sampling.
LOCATION_SCALE = ("delta0", "sigma0", "delta", "sigma")


def scalar_draws(posterior: xr.Dataset, name: str) -> xr.DataArray | None:
    """A length-1 array variable of the Stan program as a scalar (None when it has length 0)."""
    if name not in posterior:
        return None
    variable = posterior[name]
    extra = [d for d in variable.dims if d not in ("chain", "draw")]
    if not extra:
        return variable
    return variable.isel({extra[0]: 0}, drop=True) if variable.sizes[extra[0]] == 1 else None


def population_draws(
    posterior: xr.Dataset, data: Mapping[str, Any]
) -> tuple[dict[str, xr.DataArray], dict[str, xr.DataArray]]:
    """The population's draws in the sampler's units: ``({"delta0", "sigma0"[, "nu"]},
    {"nu_alpha", "nu_beta"} when sampled)``, ν = 1 + exp(log(ν − 1)) from its standardised
    logarithm (:mod:`.scale_mixture`; no ν for the Gaussian population)."""
    alpha, beta = scalar_draws(posterior, "nu_alpha"), scalar_draws(posterior, "nu_beta")
    nu_raw = scalar_draws(posterior, "nu_raw")
    population = {"delta0": posterior["delta0"], "sigma0": posterior["sigma0"]}
    if nu_raw is not None:
        if alpha is not None and beta is not None:
            shape, rate = alpha, beta
        else:
            shape, rate = data["nu_shape"], data["nu_rate"]
        population["nu"] = xr.apply_ufunc(nu_from_standardised, nu_raw, shape, rate)
    gamma = {
        name: value for name, value in (("nu_alpha", alpha), ("nu_beta", beta)) if value is not None
    }
    return population, gamma


def store_completed(
    idata: az.InferenceData, variables: dict[str, xr.DataArray], model_input: ModelInput
) -> az.InferenceData:
    """Replace ``idata``'s posterior by the completed ``variables``, locations and scales
    multiplied back by the scale of the data."""
    for name in LOCATION_SCALE:
        variables[name] = variables[name] * model_input.scale
    idata.posterior = xr.Dataset(variables, attrs=idata.posterior.attrs)
    idata.posterior.attrs.update(
        scale=model_input.scale, units="original units of the scores (d = second - first)"
    )
    return idata


def scale_mixture_draws(
    posterior: xr.Dataset, data: Mapping[str, Any], rng: np.random.Generator
) -> dict[str, xr.DataArray]:
    """The model's quantities from the scale-mixture coordinates of ``posterior``, in the
    sampler's units: the population (:func:`population_draws`) and, per data set of ``data``
    (``n, xbar, rho``, in the order of the last axis of ``sigma``), ``delta``, ``sigma`` and
    ``tau``.

    * ν and the mixing precisions τ_i from their standardised logarithms (:mod:`.scale_mixture`);
      with the Gaussian population there are neither (τ_i = 1).
    * The true differences δ_i, integrated out by the Stan program, are drawn from their normal
      full conditional given each draw's δ₀, σ₀, τ_i and σ_i
      (:func:`~.likelihood.delta_full_conditional`): one exact conditional draw per posterior
      draw, so their draws are posterior draws.
    """
    variables, gamma = population_draws(posterior, data)
    sigma0, sigma = posterior["sigma0"], posterior["sigma"]
    population_variance = sigma0**2
    if "nu" in variables:
        tau_raw = posterior["tau_raw"]  # per data set, like sigma (dimension names may differ)
        tau_raw = tau_raw.rename({tau_raw.dims[-1]: sigma.dims[-1]})
        tau = xr.apply_ufunc(tau_from_standardised, tau_raw, variables["nu"])
        population_variance = population_variance / tau
    mean, variance = xr.apply_ufunc(
        delta_full_conditional,
        xr.DataArray(np.asarray(data["n"], float), dims=sigma.dims[-1:]),
        xr.DataArray(np.asarray(data["xbar"], float), dims=sigma.dims[-1:]),
        xr.DataArray(np.asarray(data["rho"], float), dims=sigma.dims[-1:]),
        sigma,
        posterior["delta0"],
        population_variance,
        output_core_dims=[[], []],
    )
    mean, variance = mean.transpose(*sigma.dims), variance.transpose(*sigma.dims)
    variables["delta"] = mean + np.sqrt(variance) * rng.standard_normal(mean.shape)
    variables["sigma"] = sigma
    if "nu" in variables:
        variables["tau"] = tau.transpose(*sigma.dims)
    return {**variables, **gamma}


def complete_posterior(
    idata: az.InferenceData, model_input: ModelInput, rng: np.random.Generator
) -> az.InferenceData:
    """Turn the sampler's coordinates into the model's quantities
    (:func:`scale_mixture_draws`), locations and scales multiplied back by the scale of the
    data."""
    return store_completed(
        idata, scale_mixture_draws(idata.posterior, model_input.data, rng), model_input
    )


def sampled_dims(model_input: ModelInput, dimension: str) -> dict[str, list[str]]:
    """The sampler's per-data-set vectors (``sigma`` and, with a Student-t population,
    ``tau_raw``) labelled by ``dimension``."""
    per_dataset = {"sigma": [dimension]}
    if model_input.data["nu_prior"] != NU_PRIORS["gaussian"][0]:
        per_dataset["tau_raw"] = [dimension]
    return per_dataset


class HierarchicalModel(StanModel):
    """The two-model hierarchical model of Corani et al. (2017) (see :func:`hierarchical_test`).

    ``hierarchical.stan`` reads sufficient statistics; the reference program
    ``hierarchical_matrix.stan`` the raw differences."""

    name = "hierarchical test"
    program = "hierarchical"
    #: At 0.9, about 1 fit in 60 of the paper's simulations with 5 or 10 data sets had one
    #: divergent transition, scattered over the posterior (ν from 1 to 96, σ₀ from 0.0015 to
    #: 0.06); at 0.95 none of those fits had one (``benchmarks/RESULTS.md``).
    adapt_delta = 0.95
    diagnosed = DIAGNOSED
    result_type = HierarchicalResult

    build_input = staticmethod(build_model_input)
    initial_values = staticmethod(initial_values)

    def coordinates(
        self, data: CVData, model_input: ModelInput
    ) -> tuple[Mapping[str, Sequence[Any]], Mapping[str, Sequence[str]]]:
        """The data sets label ``sigma`` and, with a Student-t population, ``tau_raw``."""
        return {"dataset": list(data.datasets)}, sampled_dims(model_input, "dataset")

    #: The completion of the draws (:func:`complete_posterior` for these coordinates).
    completion = staticmethod(complete_posterior)

    def complete(
        self,
        idata: az.InferenceData,
        data: CVData | None,
        model_input: ModelInput,
        rng: np.random.Generator,
    ) -> az.InferenceData:
        return self.completion(idata, model_input, rng)


#: The one instance :func:`~bayes_hier.hierarchical.hierarchical_test` fits.
HIERARCHICAL = HierarchicalModel()

__all__ = [
    "DIAGNOSED",
    "HIERARCHICAL",
    "LOCATION_SCALE",
    "HierarchicalModel",
    "complete_posterior",
    "population_draws",
    "sampled_dims",
    "scalar_draws",
    "scale_mixture_draws",
    "store_completed",
]
