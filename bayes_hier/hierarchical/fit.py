"""``hierarchical_test``: the Bayesian hierarchical comparison of two models on many data sets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import arviz as az
import numpy as np
import xarray as xr

from ..data import CVData, as_cvdata
from ..diagnostics import compute_diagnostics, diagnostic_problems, warn_on_problems
from ..engines import Engine, SamplerSettings, get_engine
from ..rope import RopeLike
from ..stan_programs import load_program
from .model_input import (
    HierarchicalPrior,
    ModelInput,
    build_model_input,
    initial_values,
)
from .result import HierarchicalResult

#: Variables checked by the diagnostics (per-data-set vectors included).
DIAGNOSED = ("delta0", "sigma0", "nu", "nu_alpha", "nu_beta", "delta", "sigma")
#: Variables in the units of the differences, rescaled back after sampling.
LOCATION_SCALE = ("delta0", "sigma0", "delta", "sigma")


def _seed_streams(seed: int | None) -> tuple[int, np.random.Generator, np.random.Generator, int]:
    """One seed → (recorded seed, RNG for perturbation, RNG for inits, Stan's seed)."""
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0] % 2**31)
    if not 0 <= int(seed) < 2**31:
        raise ValueError(f"seed must be an integer in [0, 2**31); got {seed}.")
    perturb, inits, stan = np.random.SeedSequence(int(seed)).spawn(3)
    return (
        int(seed),
        np.random.default_rng(perturb),
        np.random.default_rng(inits),
        int(stan.generate_state(1)[0] % 2**31),
    )


def _complete_posterior(idata: az.InferenceData, model_input: ModelInput) -> az.InferenceData:
    """Turn the sampler's coordinates into the model's quantities, in the original units.

    The Stan programs keep ``delta`` and ``nu`` local (not written out with every draw); here
    ``delta_i = delta0 + sigma0 * delta_raw_i`` (non-centred data sets) or ``delta_raw_i``
    (centred), ``nu = 1 + nu_minus_one``; the length-1 arrays of the ν prior become scalars and the
    zero-length ones (absent under the chosen prior) are dropped. Locations and scales are
    multiplied back by the scale of the data.
    """
    posterior = idata.posterior
    for name in ("nu_alpha", "nu_beta", "nu_minus_one"):
        if name not in posterior:
            continue
        extra = [d for d in posterior[name].dims if d not in ("chain", "draw")]
        if posterior[name].sizes[extra[0]] == 1:
            posterior[name] = posterior[name].isel({extra[0]: 0}, drop=True)
        else:
            posterior = posterior.drop_vars(name)
    if "nu_minus_one" in posterior:
        posterior["nu"] = 1 + posterior["nu_minus_one"]
    raw = posterior["delta_raw"]
    noncentered = xr.DataArray(model_input.noncentered, dims=raw.dims[-1:])
    delta = xr.where(noncentered, posterior["delta0"] + posterior["sigma0"] * raw, raw)
    posterior["delta"] = delta.transpose(*raw.dims)
    posterior = posterior.drop_vars("delta_raw")
    for name in LOCATION_SCALE:
        posterior[name] = posterior[name] * model_input.scale
    used = {d for variable in posterior.data_vars.values() for d in variable.dims}
    posterior = posterior.drop_dims([d for d in posterior.dims if d not in used])
    order = [
        v
        for v in ("delta0", "sigma0", "nu", "delta", "sigma", "nu_alpha", "nu_beta", "nu_minus_one")
        if v in posterior
    ]
    idata.posterior = posterior[order]
    idata.posterior.attrs.update(
        scale=model_input.scale, units="original units of the scores (d = second - first)"
    )
    return idata


def run_hierarchical_fit(
    model_input: ModelInput,
    cv: CVData,
    *,
    engine: Engine,
    settings: SamplerSettings,
    program: str = "hierarchical",
) -> az.InferenceData:
    """Sample the posterior of ``model_input`` and return it in the original units."""
    data = model_input.data if program == "hierarchical" else model_input.matrix_data()
    idata = engine.sample(load_program(program), data, settings)
    return _complete_posterior(idata, model_input)


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
    seed: int | None = None,
    engine: str | Engine = "auto",
    parametrization: str = "auto",
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
    mean δ_i and the equicorrelated covariance σ_i²[(1 − ρ_i)I + ρ_i 11ᵀ] (``../SPEC.md`` §3).

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
    chains, draws, warmup, seed
        MCMC settings; a seed gives identical numbers run after run on the same engine.
    engine
        ``"auto"`` (cmdstanpy when CmdStan is installed, else pystan), ``"pystan"`` or
        ``"cmdstanpy"``; the environment variable ``BAYES_HIER_ENGINE`` overrides ``"auto"``.
    parametrization
        ``"auto"`` (non-centred when the data sets' means spread less than their noise; see
        :func:`~bayes_hier.hierarchical.model_input.choose_noncentered`), ``"centered"`` or
        ``"noncentered"``.
    sigma_factor, sigma0_factor, delta0_bound, alpha_range, beta_range
        Hyper-parameters of the uniform priors (see :class:`HierarchicalPrior`).
    adapt_delta, max_treedepth
        NUTS settings.
    hdi_prob
        Mass of the highest-density intervals reported.
    progress
        Show the engine's progress output.
    warn
        Issue a :class:`~bayes_hier.diagnostics.SamplingWarning` for each failed diagnostic.

    Returns
    -------
    HierarchicalResult
    """
    cv = as_cvdata(
        x,
        y,
        runs,
        names=names,
        models=models,
        columns=columns,
        rho=rho,
        higher_is_better=higher_is_better,
    )
    if cv.q < 2:
        raise ValueError(
            "The hierarchical test needs at least 2 data sets; for one data set use the "
            "Bayesian correlated t-test."
        )
    parsed_rope = cv.rope(rope)
    prior = HierarchicalPrior(
        nu_prior=nu_prior,
        sigma_factor=sigma_factor,
        sigma0_factor=sigma0_factor,
        delta0_bound=delta0_bound,
        alpha_range=tuple(alpha_range),
        beta_range=tuple(beta_range),
    )
    seed, perturb_rng, init_rng, stan_seed = _seed_streams(seed)
    model_input = build_model_input(cv, parsed_rope, prior, parametrization, perturb_rng)
    settings = SamplerSettings(
        chains=chains,
        draws=draws,
        warmup=warmup,
        seed=stan_seed,
        inits=initial_values(model_input, chains, init_rng),
        max_treedepth=max_treedepth,
        adapt_delta=adapt_delta,
        progress=progress,
        coords={"dataset": list(cv.datasets)},
        dims={name: ["dataset"] for name in ("sigma", "delta_raw")},
    )
    resolved = get_engine(engine)
    idata = run_hierarchical_fit(model_input, cv, engine=resolved, settings=settings)
    diagnostics = compute_diagnostics(idata, DIAGNOSED, max_treedepth)
    problems = diagnostic_problems(diagnostics)
    if warn:
        warn_on_problems(problems, f"hierarchical test {cv.names[1]} vs {cv.names[0]}")
    return HierarchicalResult(
        idata=idata,
        cv=cv,
        rope=parsed_rope,
        model_input=model_input,
        prior=prior,
        diagnostics=diagnostics,
        settings={
            "engine": resolved.name,
            "seed": seed,
            "stan_seed": stan_seed,
            "chains": chains,
            "draws": draws,
            "warmup": warmup,
            "noncentered": [d for d, nc in zip(cv.datasets, model_input.noncentered) if nc],
            "adapt_delta": adapt_delta,
            "max_treedepth": max_treedepth,
            "problems": problems,
        },
        hdi_prob=hdi_prob,
    )


__all__ = ["as_cvdata", "hierarchical_test", "run_hierarchical_fit"]
