"""``joint_test``: k models on q data sets compared by one joint Bayesian hierarchical model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import arviz as az
import numpy as np
import xarray as xr

from .._validate import check_bool, check_fraction, check_int
from ..compare.core import package_versions
from ..compare.frequentist import frequentist_view
from ..compare.tidy import ModelScores, PairUsage, model_scores
from ..diagnostics import compute_diagnostics, diagnostic_problems
from ..engines import Engine, SamplerSettings, get_engine
from ..rope import Rope, RopeLike
from ..seeding import SeedLike, derive_seed, resolve_seed
from ..stan_programs import load_program
from .data import MultiCVData
from .model_input import JointModelInput, JointPrior, build_joint_input, initial_values
from .posterior import complete_posterior, pair_labels
from .propriety import check_enough_datasets
from .result import JointResult, pair_datasets, pair_result

#: Variables checked by the diagnostics: every reported quantity (per pair, model, data set).
DIAGNOSED = ("delta0", "sigma0", "mu0", "nu", "nu_alpha", "nu_beta", "mu", "sigma", "tau")


def run_joint_fit(
    data: MultiCVData,
    model_input: JointModelInput,
    *,
    engine: Engine,
    settings: SamplerSettings,
    theta_rng: np.random.Generator,
    program: str = "joint",
) -> az.InferenceData:
    """Sample ``joint.stan`` (or the reference ``joint_matrix.stan``) and complete the draws
    (:func:`~.posterior.complete_posterior`: θ_i from their full conditional, original units)."""
    stan_data = model_input.data if program == "joint" else model_input.matrix_data()
    idata = engine.sample(load_program(program), stan_data, settings)
    return complete_posterior(idata, model_input, data.models, data.datasets, theta_rng)


def diagnosed_view(idata: az.InferenceData) -> az.InferenceData:
    """The posterior with the quantities that exist: ``sigma`` of a pair on a data set where one
    of its models was not run is NaN and is left out (the diagnostics would rank NaN)."""
    posterior = idata.posterior
    if "sigma" not in posterior or np.isfinite(posterior["sigma"].values).all():
        return idata
    cells = posterior["sigma"].stack(cell=("dataset", "pair"))
    finite = np.isfinite(cells.values).all(axis=(0, 1))
    sigma = xr.DataArray(cells.values[..., finite], dims=("chain", "draw", "cell"))
    view = posterior.drop_vars("sigma").assign(sigma=sigma)
    return az.InferenceData(posterior=view, sample_stats=idata.sample_stats)


def joint_test(
    data: Any,
    rope: RopeLike = 0.01,
    *,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    runs: int = 1,
    rho: float | Sequence[float] | None = None,
    higher_is_better: bool = True,
    nu_prior: str = "hierarchical",
    alpha_range: tuple[float, float] = (0.5, 5.0),
    beta_range: tuple[float, float] = (0.05, 0.15),
    chains: int = 4,
    draws: int = 1000,
    warmup: int = 1000,
    seed: SeedLike = None,
    engine: str | Engine = "auto",
    adapt_delta: float = 0.9,
    max_treedepth: int = 10,
    hdi_prob: float = 0.95,
    alpha: float = 0.05,
    progress: bool = False,
    warn: bool = True,
) -> JointResult:
    """Compare k ≥ 2 models on q ≥ k data sets with one joint hierarchical model.

    The model (``stan/joint.stan``; the docs' "joint model" section): on data set i the fold
    scores' Helmert contrasts Y_i = X_iCᵀ are matrix-normal with mean θ_i, covariance Ω_i across
    contrasts and the equicorrelated R_i = (1 − ρ_i)I + ρ_i11ᵀ across folds; the θ_i come from a
    multivariate Student-t population (ν, θ₀, Σ₀); θ₀ is flat, Σ₀ and Ω_i have the invariant prior
    ``|M|^(−1/2)``, ν − 1 ~ Gamma(α, β) as in the two-model test. Permuting the models permutes
    every answer (the priors are invariant under orthogonal maps of the contrasts); at k = 2 it is
    the two-model hierarchical model (Corani et al., 2017) with its uniform priors in the flat
    limit.

    Parameters
    ----------
    data
        A tidy frame (one row per dataset, model, run, fold with a score; column names mapped
        with ``columns``) or ``{model: data sets × folds matrix}``, as for
        :func:`~bayes_hier.compare.compare`. A model may be missing on some data sets (no rows
        there, or NaN for all its folds): its block is left out of that data set's likelihood
        (the docs' "Models missing on some data sets"); data sets with fewer than 2 models are
        dropped with a warning. A model run on only some folds of a data set is an error.
    rope
        Region of practical equivalence in the units of the scores.
    models
        The models to compare, in order (default: all). Pairs are (models[i], models[j]), i < j.
    runs
        Repetitions per row for the ``{model: matrix}`` form.
    rho
        Fold correlation (default 1 / folds).
    higher_is_better
        ``False`` for errors or losses.
    nu_prior, alpha_range, beta_range
        Prior of ν, as in :func:`~bayes_hier.hierarchical.hierarchical_test`.
    chains, draws, warmup, seed, engine, adapt_delta, max_treedepth, progress
        MCMC settings; a seed makes every number reproducible on the same engine.
    hdi_prob
        Mass of the highest-density intervals.
    alpha
        Level of the decisions.
    warn
        Issue a :class:`~bayes_hier.diagnostics.SamplingWarning` per failed diagnostic.

    Returns
    -------
    JointResult
    """
    higher_is_better = check_bool(higher_is_better, "higher_is_better")
    hdi_prob, alpha = check_fraction(hdi_prob, "hdi_prob"), check_fraction(alpha, "alpha")
    chains, warn = check_int(chains, "chains", minimum=1), check_bool(warn, "warn")
    scores = (
        data
        if isinstance(data, ModelScores)
        else model_scores(data, models=models, columns=columns, runs=runs)
    )
    cv = MultiCVData.from_scores(scores, rho=rho, higher_is_better=higher_is_better)
    check_enough_datasets(cv.q, cv.k)
    finite = scores.table["score"].to_numpy(dtype=float)
    parsed_rope = Rope.parse(rope, finite[np.isfinite(finite)])
    prior = JointPrior(nu_prior=nu_prior, alpha_range=alpha_range, beta_range=beta_range)
    root = resolve_seed(seed)
    model_input = build_joint_input(
        cv, parsed_rope, prior, np.random.default_rng(derive_seed(root, "perturbation"))
    )
    stan_seed = derive_seed(root, "stan")
    settings = SamplerSettings(
        chains=chains,
        draws=draws,
        warmup=warmup,
        seed=stan_seed,
        inits=initial_values(
            model_input, chains, np.random.default_rng(derive_seed(root, "inits"))
        ),
        max_treedepth=max_treedepth,
        adapt_delta=adapt_delta,
        progress=progress,
    )
    resolved = get_engine(engine)
    idata = run_joint_fit(
        cv,
        model_input,
        engine=resolved,
        settings=settings,
        theta_rng=np.random.default_rng(derive_seed(root, "thetas")),
    )
    diagnostics = compute_diagnostics(diagnosed_view(idata), DIAGNOSED, max_treedepth)
    run_settings = {
        "engine": resolved.name,
        "seed": root,
        "stan_seed": stan_seed,
        "chains": chains,
        "draws": draws,
        "warmup": warmup,
        "adapt_delta": adapt_delta,
        "max_treedepth": max_treedepth,
        "problems": diagnostic_problems(diagnostics),
    }
    pairs = {
        pair: pair_result(
            idata, cv, pair, parsed_rope, model_input, prior, diagnostics, run_settings, hdi_prob
        )
        for pair in pair_labels(cv.models)
    }
    folds = dict(zip(cv.datasets, (int(n) for n in cv.n)))
    usage = {pair: pair_usage(cv, pair, folds) for pair in pairs}
    result = JointResult(
        pairs,
        idata=idata,
        data=cv,
        model_input=model_input,
        prior=prior,
        diagnostics=diagnostics,
        predictive_seed=derive_seed(root, "predictive"),
        hdi_prob=hdi_prob,
        models=cv.models,
        method="joint",
        rope=parsed_rope,
        usage=usage,
        frequentist=frequentist_view(scores, higher_is_better, alpha),
        scores=scores,
        settings={
            **run_settings,
            "method": "joint",
            "options": {"nu_prior": nu_prior},
            "versions": package_versions(),
        },
        scope="on a new data set",
        higher_is_better=higher_is_better,
        alpha=alpha,
    )
    if warn:
        result.warn()
    return result


def pair_usage(data: MultiCVData, pair: tuple[str, str], folds: dict[str, int]) -> PairUsage:
    """What the pair's own summaries use: the data sets where both models were run (the
    population quantities use every data set through the joint model)."""
    both = pair_datasets(data, pair)
    observed = dict(zip(data.models, data.observed.T))
    dropped = {}
    for i, name in enumerate(data.datasets):
        lacking = [model for model in pair if not observed[model][i]]
        if lacking:
            dropped[name] = f"no scores for {' and '.join(lacking)}"
    return PairUsage(*pair, both, {name: folds[name] for name in both}, dropped=dropped)


def compare_joint(
    data: Any,
    rope: RopeLike = 0.01,
    *,
    models: Sequence[str] | None = None,
    control: str | None = None,
    higher_is_better: bool = True,
    columns: Mapping[str, str] | None = None,
    runs: int = 1,
    seed: SeedLike = None,
    alpha: float = 0.05,
    progress: bool = False,
    **options: Any,
) -> JointResult:
    """``compare(..., method="joint")``: :func:`joint_test` with ``compare``'s arguments.

    The joint model always analyses every pair of ``models`` in one fit, so ``control`` is
    refused. ``compare``'s ``jobs``, ``scheduler`` and ``min_folds`` are accepted and have no
    effect: the chains of the one fit already run in parallel, and the joint model takes a model
    on a data set with all its folds or not at all (it raises instead of dropping folds; a model
    with no scores on a data set is missing there). ``options`` go to
    :func:`joint_test` (``chains``, ``draws``, ``warmup``, ``engine``, ``nu_prior``, ...).
    """
    if control is not None:
        raise ValueError(
            "The joint model compares every pair in one fit; control= is for pairwise methods."
        )
    for ignored in ("jobs", "scheduler", "min_folds"):
        options.pop(ignored, None)
    return joint_test(
        data,
        rope,
        models=models,
        columns=columns,
        runs=runs,
        higher_is_better=higher_is_better,
        seed=seed,
        alpha=alpha,
        progress=progress,
        **options,
    )


__all__ = [
    "DIAGNOSED",
    "compare_joint",
    "diagnosed_view",
    "joint_test",
    "pair_usage",
    "run_joint_fit",
]
