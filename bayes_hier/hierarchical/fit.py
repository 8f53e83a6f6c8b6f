"""``hierarchical_test``: the Bayesian hierarchical comparison of two models on many data sets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import arviz as az
import numpy as np
import xarray as xr

from .._validate import check_bool, check_fraction, check_int
from ..data import CVData, as_cvdata
from ..diagnostics import compute_diagnostics, diagnostic_problems, warn_on_problems
from ..engines import Engine, SamplerSettings, get_engine
from ..issued import records_warnings
from ..rope import Rope, RopeLike
from ..seeding import SEED_BOUND, SeedLike, resolve_seed
from ..stan_programs import load_program
from .likelihood import delta_full_conditional
from .model_input import (
    NU_PRIORS,
    HierarchicalPrior,
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


@dataclass(frozen=True)
class SeedStreams:
    """Independent random streams derived from one seed (``numpy.random.SeedSequence.spawn``).

    Attributes
    ----------
    seed
        The seed the user gave, or the one drawn when none was given (recorded in the result).
    perturbation, inits, deltas
        Generators for the perturbation of constant data sets, the initial values and the draws
        of the true differences from their full conditional.
    stan
        Stan's seed.
    """

    seed: int
    perturbation: np.random.Generator
    inits: np.random.Generator
    stan: int
    deltas: np.random.Generator


def seed_streams(seed: SeedLike) -> SeedStreams:
    """Split one seed into the streams of a fit; the same seed gives the same numbers.

    ``seed`` follows the package's policy (:func:`~bayes_hier.seeding.resolve_seed`): ``None``,
    a non-negative int, a :class:`numpy.random.Generator` or a
    :class:`numpy.random.SeedSequence`; anything else raises a TypeError naming ``seed``.
    """
    resolved = resolve_seed(seed, "seed")
    perturbation, inits, stan, deltas = np.random.SeedSequence(resolved).spawn(4)
    return SeedStreams(
        seed=resolved,
        perturbation=np.random.default_rng(perturbation),
        inits=np.random.default_rng(inits),
        stan=int(stan.generate_state(1)[0] % SEED_BOUND),
        deltas=np.random.default_rng(deltas),
    )


def _scalar_draws(posterior: xr.Dataset, name: str) -> xr.DataArray | None:
    """A length-1 array variable of the Stan program as a scalar (None when it has length 0)."""
    if name not in posterior:
        return None
    variable = posterior[name]
    extra = [d for d in variable.dims if d not in ("chain", "draw")]
    if not extra:
        return variable
    return variable.isel({extra[0]: 0}, drop=True) if variable.sizes[extra[0]] == 1 else None


def _complete_posterior(
    idata: az.InferenceData, model_input: ModelInput, rng: np.random.Generator
) -> az.InferenceData:
    """Turn the sampler's coordinates into the model's quantities, in the original units.

    * ν = 1 + exp(log(ν − 1)) and the mixing precisions τ_i from their standardised logarithms
      (:mod:`.scale_mixture`); with the Gaussian population there are neither (τ_i = 1).
    * The true differences δ_i, integrated out by the Stan program, are drawn from their normal
      full conditional given each draw's δ₀, σ₀, τ_i and σ_i
      (:func:`~.likelihood.delta_full_conditional`): one exact conditional draw per posterior
      draw, so their draws are posterior draws.
    * Locations and scales are multiplied back by the scale of the data.
    """
    posterior = idata.posterior
    data = model_input.data
    alpha, beta = _scalar_draws(posterior, "nu_alpha"), _scalar_draws(posterior, "nu_beta")
    nu_raw = _scalar_draws(posterior, "nu_raw")
    sigma0, sigma = posterior["sigma0"], posterior["sigma"]
    variables: dict[str, xr.DataArray] = {"delta0": posterior["delta0"], "sigma0": sigma0}
    population_variance = sigma0**2
    if nu_raw is not None:
        if alpha is not None and beta is not None:
            shape, rate = alpha, beta
        else:
            shape, rate = data["nu_shape"], data["nu_rate"]
        nu = xr.apply_ufunc(nu_from_standardised, nu_raw, shape, rate)
        tau_raw = posterior["tau_raw"]  # per data set, like sigma (dimension names may differ)
        tau_raw = tau_raw.rename({tau_raw.dims[-1]: sigma.dims[-1]})
        tau = xr.apply_ufunc(tau_from_standardised, tau_raw, nu)
        population_variance = population_variance / tau
        variables["nu"] = nu
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
    if nu_raw is not None:
        variables["tau"] = tau.transpose(*sigma.dims)
    for name, value in (("nu_alpha", alpha), ("nu_beta", beta)):
        if value is not None:
            variables[name] = value
    for name in LOCATION_SCALE:
        variables[name] = variables[name] * model_input.scale
    idata.posterior = xr.Dataset(variables, attrs=posterior.attrs)
    idata.posterior.attrs.update(
        scale=model_input.scale, units="original units of the scores (d = second - first)"
    )
    return idata


def run_hierarchical_fit(
    model_input: ModelInput,
    *,
    engine: Engine,
    settings: SamplerSettings,
    delta_rng: np.random.Generator,
    program: str = "hierarchical",
) -> az.InferenceData:
    """Sample the posterior of ``model_input`` and return it in the original units.

    ``delta_rng`` draws the true differences from their full conditional (see
    :func:`_complete_posterior`).
    """
    data = model_input.data if program == "hierarchical" else model_input.matrix_data()
    idata = engine.sample(load_program(program), data, settings)
    return _complete_posterior(idata, model_input, delta_rng)


@records_warnings
def hierarchical_test(
    x: Any,
    y: Any = None,
    rope: RopeLike = 0.01,
    runs: int | Sequence[int] | None = None,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    nu_prior: str = "hierarchical",
    rho: float | Sequence[float] | None = None,
    higher_is_better: bool = True,
    chains: int = 4,
    draws: int = 1000,
    warmup: int = 1000,
    seed: SeedLike = None,
    engine: str | Engine = "auto",
    sigma_factor: float = 1000.0,
    sigma0_factor: float = 1000.0,
    delta0_bound: float | None = None,
    alpha_range: tuple[float, float] = (0.5, 5.0),
    beta_range: tuple[float, float] = (0.05, 0.15),
    adapt_delta: float = 0.9,
    max_treedepth: int = 10,
    hdi_prob: float = 0.95,
    progress: bool = False,
    warn: bool = True,
) -> HierarchicalResult:
    """Compare two models on several data sets with the Bayesian hierarchical model.

    The model of Corani, Benavoli, Demšar, Mangili & Zaffalon (Machine Learning, 2017):
    the true differences δ_i of the data sets come from a Student-t population
    t(ν, δ₀, σ₀); the cross-validation differences of data set i are multivariate normal with
    mean δ_i and the equicorrelated covariance σ_i²[(1 − ρ_i)I + ρ_i 11ᵀ] (the user guide's
    model page states it with its formulas).

    The Stan program samples the population with δ_i integrated out: the Student-t is written as
    a scale mixture of normals, and ν − 1 and the mixing precisions are sampled as standardised
    logarithms (``stan/hierarchical.stan``). This avoids the funnels of the centred and
    non-centred forms, e.g. when two models agree exactly on many data sets and ν is near 1.
    The δ_i are then drawn from their normal full conditional, one per posterior draw.

    Parameters
    ----------
    x, y
        Scores of the first and second model: 2-D arrays (data sets × folds), lists of 1-D
        arrays (data sets with different numbers of folds), or a tidy data frame as ``x`` alone
        (columns ``dataset, model, run, fold, score``; see ``models`` and ``columns``), or a
        :class:`~bayes_hier.data.CVData`.
    rope
        Region of practical equivalence in the units of the scores: ``r`` for ``[-r, r]`` or a
        pair ``(low, high)`` of the analysed difference d (second − first, negated when lower
        scores are better, so ``high`` is always on the second model's side).
    runs
        Repetitions of the cross-validation (``n = runs × folds``); default 1. Read from the
        ``run`` column of a data frame.
    names
        Names of the first and second model (default: the frame's model names, or
        ``("first", "second")``).
    models, columns
        For a data frame: the two models to compare and the column names (see
        :meth:`CVData.from_frame`).
    nu_prior
        ``"hierarchical"`` (default), ``"juarez-steel"``, ``"kruschke"`` or ``"gaussian"``.
    rho
        Fold correlation; default ``1 / folds``.
    higher_is_better
        ``False`` for errors, losses or times: the differences are negated so that ``right``
        still means the second model is better.
    chains, draws, warmup
        MCMC settings: integers (``chains, draws >= 1``, ``warmup >= 0``); booleans and
        fractional numbers raise (see :mod:`bayes_hier._validate`).
    seed
        ``None`` (a fresh seed, recorded in ``result.settings["seed"]``), a non-negative int, a
        :class:`numpy.random.Generator` or a :class:`numpy.random.SeedSequence`
        (:mod:`bayes_hier.seeding`); a seed gives identical numbers run after run on the same
        engine.
    engine
        ``"auto"`` (cmdstanpy when CmdStan is installed, else pystan), ``"pystan"`` or
        ``"cmdstanpy"``; the environment variable ``BAYES_HIER_ENGINE`` overrides ``"auto"``.
    sigma_factor, sigma0_factor, delta0_bound, alpha_range, beta_range
        Hyper-parameters of the uniform priors (see :class:`HierarchicalPrior`).
    adapt_delta, max_treedepth
        NUTS settings.
    hdi_prob
        Mass of the highest-density intervals reported.
    progress
        One progress bar on stderr while sampling (``False``: nothing is printed).
    warn
        Issue a :class:`~bayes_hier.diagnostics.SamplingWarning` for each failed diagnostic.

    Returns
    -------
    HierarchicalResult

    Notes
    -----
    The steps, each a function of this module: :func:`prepare_input` (validated data and rope)
    -> :func:`~.model_input.build_model_input` (the Stan data, rescaled) ->
    :func:`sampler_settings` -> :func:`run_hierarchical_fit` (sampling and the completed
    posterior) -> :func:`summarise_fit` (diagnostics and the result).
    """
    cv, parsed_rope = prepare_input(
        x,
        y,
        rope,
        runs,
        names=names,
        models=models,
        columns=columns,
        rho=rho,
        higher_is_better=higher_is_better,
    )
    prior = HierarchicalPrior(
        nu_prior=nu_prior,
        sigma_factor=sigma_factor,
        sigma0_factor=sigma0_factor,
        delta0_bound=delta0_bound,
        alpha_range=alpha_range,
        beta_range=beta_range,
    )
    warn = check_bool(warn, "warn")
    hdi_prob = check_fraction(hdi_prob, "hdi_prob")
    streams = seed_streams(seed)
    model_input = build_model_input(cv, parsed_rope, prior, streams.perturbation)
    settings = sampler_settings(
        model_input,
        streams,
        datasets=cv.datasets,
        chains=chains,
        draws=draws,
        warmup=warmup,
        adapt_delta=adapt_delta,
        max_treedepth=max_treedepth,
        progress=progress,
    )
    resolved = get_engine(engine)
    idata = run_hierarchical_fit(
        model_input, engine=resolved, settings=settings, delta_rng=streams.deltas
    )
    return summarise_fit(
        idata,
        FitInput(cv, parsed_rope, prior, model_input),
        settings,
        streams,
        engine_name=resolved.name,
        warn=warn,
        hdi_prob=hdi_prob,
    )


def prepare_input(
    x: Any,
    y: Any = None,
    rope: RopeLike = 0.01,
    runs: int | Sequence[int] | None = None,
    **kwargs: Any,
) -> tuple[CVData, Rope]:
    """Step 1 of :func:`hierarchical_test`: the validated data and the rope.

    ``x, y, runs`` and the keyword arguments (``names, models, columns, rho,
    higher_is_better``) as for :func:`~bayes_hier.data.as_cvdata`. The hierarchical model needs
    at least two data sets; the rope is parsed in the units of the scores (with the unit check
    of :meth:`CVData.rope`).
    """
    cv = as_cvdata(x, y, runs, **kwargs)
    if cv.q < 2:
        raise ValueError(
            f"x and y hold {cv.q} data set; the hierarchical test needs at least 2. For one "
            "data set use the Bayesian correlated t-test (correlated_ttest)."
        )
    return cv, cv.rope(rope)


def sampler_settings(
    model_input: ModelInput,
    streams: SeedStreams,
    *,
    datasets: Sequence[str],
    chains: int = 4,
    draws: int = 1000,
    warmup: int = 1000,
    adapt_delta: float = 0.9,
    max_treedepth: int = 10,
    progress: bool = False,
) -> SamplerSettings:
    """Step 2 of :func:`hierarchical_test`: the NUTS settings of the fit.

    Counts are checked as integers and ``progress`` as a boolean by
    :class:`~bayes_hier.engines.SamplerSettings` (:mod:`bayes_hier._validate`); Stan's seed and
    the data-based initial values (:func:`~.model_input.initial_values`) come from ``streams``;
    per-data-set variables are labelled with the names ``datasets``.
    """
    chains = check_int(chains, "chains", minimum=1)
    per_dataset = {"sigma": ["dataset"]}
    if model_input.data["nu_prior"] != NU_PRIORS["gaussian"][0]:  # Student-t population
        per_dataset["tau_raw"] = ["dataset"]
    return SamplerSettings(
        chains=chains,
        draws=draws,
        warmup=warmup,
        seed=streams.stan,
        inits=initial_values(model_input, chains, streams.inits),
        max_treedepth=max_treedepth,
        adapt_delta=adapt_delta,
        progress=progress,
        coords={"dataset": list(datasets)},
        dims=per_dataset,
    )


@dataclass(frozen=True)
class FitInput:
    """What a fit was given: the validated data, the rope, the prior and the model input."""

    cv: CVData
    rope: Rope
    prior: HierarchicalPrior
    model_input: ModelInput


def summarise_fit(
    idata: az.InferenceData,
    given: FitInput,
    settings: SamplerSettings,
    streams: SeedStreams,
    *,
    engine_name: str,
    warn: bool = True,
    hdi_prob: float = 0.95,
) -> HierarchicalResult:
    """Step 4 of :func:`hierarchical_test` (after :func:`run_hierarchical_fit`): the result.

    Computes the sampler's diagnostics (:func:`~bayes_hier.diagnostics.compute_diagnostics`),
    warns about each failed one when ``warn`` is true, and records the settings (both seeds
    included) that reproduce the fit.
    """
    cv = given.cv
    diagnostics = compute_diagnostics(idata, DIAGNOSED, settings.max_treedepth)
    problems = diagnostic_problems(diagnostics)
    if warn:
        warn_on_problems(problems, f"hierarchical test {cv.names[0]} vs {cv.names[1]}")
    return HierarchicalResult(
        idata=idata,
        cv=cv,
        rope=given.rope,
        model_input=given.model_input,
        prior=given.prior,
        diagnostics=diagnostics,
        settings={
            "engine": engine_name,
            "seed": streams.seed,
            "stan_seed": streams.stan,
            "chains": settings.chains,
            "draws": settings.draws,
            "warmup": settings.warmup,
            "adapt_delta": settings.adapt_delta,
            "max_treedepth": settings.max_treedepth,
            "problems": problems,
        },
        hdi_prob=hdi_prob,
    )


__all__ = [
    "FitInput",
    "SeedStreams",
    "hierarchical_test",
    "prepare_input",
    "run_hierarchical_fit",
    "sampler_settings",
    "seed_streams",
    "summarise_fit",
]
