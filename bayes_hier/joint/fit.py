"""``joint_test``: k models on q data sets compared by one joint Bayesian hierarchical model."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._typing import Unpack
from .._validate import check_bool, check_fraction
from ..callers import user_stacklevel
from ..fitting import SamplerKeywords, SamplerOptions, fit_model, seed_streams
from ..frequentist.view import frequentist_view
from ..rope import Rope, RopeLike
from ..scores import MissingDataWarning, ModelScores, PairUsage, model_scores
from ..seeding import SeedLike
from ..versions import package_versions
from .data import MultiCVData
from .model import JOINT, JOINT_FOLD
from .model_input import NOISE_STRUCTURES, JointPrior
from .paired_folds import paired_scores
from .posterior import pair_labels
from .propriety import check_enough_datasets, check_models_seen_enough
from .result import JointResult, pair_datasets, pair_result


class FewFoldsWarning(UserWarning):
    """``noise="full"`` on data sets with too few results for their models' full noise
    covariance to be fitted reliably: fewer than 2k + 2 results (runs × folds) for k ≥ 3
    models, where its posterior has no finite variance (:func:`~bayes_hier.joint_test`)."""


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
    noise: str = "auto",
    alpha_range: tuple[float, float] = (0.5, 5.0),
    beta_range: tuple[float, float] = (0.05, 0.15),
    hdi_prob: float = 0.95,
    alpha: float = 0.05,
    seed: SeedLike = None,
    warn: bool = True,
    **sampler: Unpack[SamplerKeywords],
) -> JointResult:
    """Compare k ≥ 2 models on q ≥ k data sets with one joint hierarchical model.

    The model (``stan/joint.stan``; the docs' "joint model" section): on data set i the fold
    scores' Helmert contrasts Y_i = X_iCᵀ are matrix-normal with mean θ_i, covariance Ω_i across
    contrasts and the equicorrelated R_i = (1 − ρ_i)I + ρ_i11ᵀ across folds; the θ_i come from a
    multivariate Student-t population (ν, θ₀, Σ₀); θ₀ is flat, Ω_i has the invariant prior
    ``|M|^(−1/2)`` (the program integrates Ω_i out), Σ₀ an LKJ prior on its correlation and
    half-normal scales in a data-based basis, ν − 1 ~ Gamma(α, β) as in the two-model test.
    Permuting the models permutes every answer (up to Σ₀'s weak prior, stated in a basis that
    rotates with the order); at k = 2 it is the two-model hierarchical model (Corani et al.,
    2017) with its uniform priors in the flat limit.

    Parameters
    ----------
    data
        A tidy frame (one row per dataset, model, run, fold with a score; column names mapped
        with ``columns``) or ``{model: data sets × folds matrix}``, as for
        :func:`~bayes_hier.compare.compare`. A model may be missing on some data sets (no rows
        there, or NaN for all its folds): its block is left out of that data set's likelihood
        (the docs' "Models missing on some data sets"); data sets with fewer than 2 models are
        dropped with a warning. Where a model has only some folds of a data set, the larger
        block of scores paired by fold is used there, with a
        :class:`~bayes_hier.scores.MissingDataWarning` saying what was left out
        (:mod:`~.paired_folds`).
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
    noise
        The fold noise of each data set: ``"full"``, a covariance Ω_i of the contrasts
        (``stan/joint.stan``, which integrates it out; needs at least 2k − 1 results on every
        data set with k models, and warns with a :class:`FewFoldsWarning` below 2k + 2 results
        for k ≥ 3 models, where Ω_i's posterior has heavy tails); ``"fold"``, one noise scale per
        model and data set, drawn hierarchically, with a fold effect shared by the models
        (``stan/joint_fold.stan``, :mod:`~.fold_noise`: any number of folds ≥ 2); ``"auto"``
        (default), ``"full"`` where every data set has at least 2k_i + 2 results (runs × folds)
        for its k_i ≥ 3 models (:func:`results_for_full_noise`; 3 for two models), else
        ``"fold"``.
    hdi_prob
        Mass of the highest-density intervals.
    alpha
        Level of the decisions.
    seed
        Seed of every random number: a seed makes every number reproducible on the same engine.
    warn
        Issue a :class:`~bayes_hier.diagnostics.SamplingWarning` per failed diagnostic.
    **sampler
        The MCMC settings (:class:`~bayes_hier.fitting.SamplerKeywords`: ``chains``, ``draws``,
        ``warmup``, ``adapt_delta``, ``max_treedepth``, ``engine``, ``progress``), with the
        defaults of :func:`~bayes_hier.hierarchical.hierarchical_test` except ``adapt_delta=0.9``
        and, with the fold-level noise, ``warmup=500`` (measured to adapt as well as 1000 there).

    Returns
    -------
    JointResult
    """
    options = SamplerOptions.from_keywords(sampler, "joint_test")
    prior = JointPrior(nu_prior=nu_prior, alpha_range=alpha_range, beta_range=beta_range)
    higher_is_better = check_bool(higher_is_better, "higher_is_better")
    hdi_prob, alpha = check_fraction(hdi_prob, "hdi_prob"), check_fraction(alpha, "alpha")
    warn = check_bool(warn, "warn")
    scores = (
        data
        if isinstance(data, ModelScores)
        else model_scores(data, models=models, columns=columns, runs=runs)
    )
    cv = joint_data(scores, rho, higher_is_better)
    if noise == "full":
        warn_heavy_tailed_noise(cv)
    noise = noise_structure(noise, cv)
    check_enough_datasets(cv.q)
    check_models_seen_enough(cv.observed.sum(axis=0), cv.models)
    finite = scores.table["score"].to_numpy(dtype=float)
    parsed_rope = Rope.parse(rope, finite[np.isfinite(finite)])
    fitted = fit_model(
        JOINT if noise == "full" else JOINT_FOLD,
        cv,
        rope=parsed_rope,
        prior=prior,
        options=options,
        seed=seed_streams(seed),
        warn=False,  # the result warns, pair by pair (below)
    )
    idata, model_input, diagnostics = fitted.idata, fitted.model_input, fitted.diagnostics
    run_settings = fitted.settings
    pairs = {
        pair: pair_result(
            idata, cv, pair, parsed_rope, model_input, prior, diagnostics, run_settings, hdi_prob
        )
        for pair in pair_labels(cv.models)
    }
    usage = pair_usages(cv, scores)
    result = JointResult(
        pairs,
        idata=idata,
        data=cv,
        model_input=model_input,
        prior=prior,
        diagnostics=diagnostics,
        predictive_seed=fitted.streams.predictive,
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
            "options": {"nu_prior": nu_prior, "noise": noise},
            "versions": package_versions(),
        },
        scope="on a new data set",
        higher_is_better=higher_is_better,
        alpha=alpha,
    )
    if warn:
        result.warn()
    return result


def results_for_full_noise(models_run: np.ndarray | int) -> np.ndarray:
    """The results (runs × folds) a data set with k_i models needs for ``noise="auto"`` to fit its
    full noise covariance Ω_i: 2k_i + 2, or 3 for two models.

    With d = k_i − 1 contrasts and n results, ``joint.stan`` integrates Ω_i out, which leaves
    ȳ_i | θ_i a Student-t with n − 2d degrees of freedom (:func:`~.likelihood.noise_marginal`):
    at least 1, so n ≥ 2d + 1 = 2k_i − 1, is the program's minimum (``noise="full"`` refuses
    below). With few degrees of freedom a data set's mean far from the others can be explained
    either by its own noise or by the population, and the posterior of Ω_i has no finite variance
    below n − d = d + 4 (the inverse Wishart tail of its conditional): measured on the few-fold
    generator's 5 × 20 × 10 study (seed 1, n − 2d = 2), R-hat 1.53 with Ω_i integrated out and
    1.53 with Ω_i sampled (and 8 divergences); at 12 folds R-hat 1.003; with Ω_i sampled, 3 models
    × 8 data sets × 4 folds gave 222 divergent transitions. So ``"auto"`` asks for
    n ≥ 2d + 4 = 2k_i + 2. With two models Ω_i is one variance and the program's minimum of 3
    results suffices for ``"auto"`` (with Ω_i sampled, two models × 20 data sets × 4 folds gave 0
    divergences and 15 steps per draw, where the fold-level noise has a curved ridge).
    """
    models_run = np.asarray(models_run)
    return np.where(models_run <= 2, 3, 2 * models_run + 2)


def noise_structure(noise: str, data: MultiCVData) -> str:
    """The noise structure to fit: ``noise`` itself, or for ``"auto"`` the full covariances where
    every data set has at least :func:`results_for_full_noise` results (2k_i + 2 for its k_i
    models, 2 for two), else the fold-level noise."""
    choices = ("auto", *NOISE_STRUCTURES)
    if noise not in choices:
        raise ValueError(f"noise must be one of {choices}; got {noise!r}.")
    if noise != "auto":
        return noise
    return "fold" if too_few_for_full_noise(data).any() else "full"


def too_few_for_full_noise(data: MultiCVData) -> np.ndarray:
    """Per data set, whether it has fewer results than :func:`results_for_full_noise`."""
    return data.n < results_for_full_noise(data.observed.sum(axis=1))


def warn_heavy_tailed_noise(data: MultiCVData) -> None:
    """A :class:`FewFoldsWarning` naming the data sets with fewer results than
    :func:`results_for_full_noise` (for ``noise="full"`` asked for explicitly); a data set below
    the program's minimum of 2k − 1 results is refused instead, by the model's input."""
    models_run = data.observed.sum(axis=1)
    short = [
        f"{name} ({int(n)} for {int(k)} models)"
        for name, n, k, few in zip(data.datasets, data.n, models_run, too_few_for_full_noise(data))
        if few and n >= 2 * k - 1
    ]
    if short:
        listed = ", ".join(short[:5]) + (", ..." if len(short) > 5 else "")
        warnings.warn(
            f"noise='full' on {len(short)} data set(s) with fewer than 2k + 2 results for their "
            f"k >= 3 models: {listed}. There the posterior of the noise covariance has no finite "
            "variance and the sampler often fails to explore it (divergences, high R-hat). "
            "Use noise='auto' or noise='fold' (one noise scale per model and data set).",
            FewFoldsWarning,
            stacklevel=user_stacklevel(),
        )


def pair_usages(data: MultiCVData, scores: ModelScores) -> dict[tuple[str, str], PairUsage]:
    """What each pair's own summaries use: the data sets where both models are in the joint
    model's data (the population quantities use every data set through the joint model).

    ``scores`` are the scores as given, before the paired blocks (:func:`joint_data`): a model
    left out of a data set for lacking some folds is said to be so, and a data set cut to the
    folds every model has counts the (run, fold) cells it lost as ``partial``.
    """
    observed = dict(zip(data.models, data.observed.T))
    table = scores.table[np.isfinite(scores.table["score"].to_numpy(dtype=float))]
    given = table.groupby(["dataset", "model"]).size()
    cells = scores.design(list(data.models))["cells"]
    folds = dict(zip(data.datasets, (int(n) for n in data.n)))
    usages = {}
    for pair in pair_labels(data.models):
        both = pair_datasets(data, pair)
        dropped = {}
        for i, name in enumerate(data.datasets):
            lacking = [model for model in pair if not observed[model][i]]
            if lacking:
                absent = [model for model in lacking if not given.get((name, model), 0)]
                reasons = [f"no scores for {' and '.join(absent)}"] if absent else []
                reasons += [
                    f"{model} lacks {int(cells[name] - given[(name, model)])} of "
                    f"{int(cells[name])} folds (left out of the paired block)"
                    for model in lacking
                    if model not in absent
                ]
                dropped[name] = "; ".join(reasons)
        partial = {
            name: int(cells[name]) - folds[name] for name in both if cells[name] > folds[name]
        }
        usages[pair] = PairUsage(
            *pair, both, {name: folds[name] for name in both}, partial=partial, dropped=dropped
        )
    return usages


def joint_data(
    scores: ModelScores, rho: float | Sequence[float] | None, higher_is_better: bool
) -> MultiCVData:
    """The data the joint model fits: every data set cut to its paired block where a model lacks
    some of its folds (:func:`~.paired_folds.paired_scores`, with a
    :class:`~bayes_hier.scores.MissingDataWarning` naming what was left out)."""
    paired, paired_rho, notes = paired_scores(scores, rho)
    if notes:
        warnings.warn(
            "Models lacking some folds of a data set: the joint model uses the larger block of "
            "scores paired by fold there (all folds without the incomplete models, or every "
            "model on the folds they share). " + "; ".join(notes) + ".",
            MissingDataWarning,
            stacklevel=user_stacklevel(),
        )
    return MultiCVData.from_scores(paired, rho=paired_rho, higher_is_better=higher_is_better)


def compare_joint(
    data: Any, rope: RopeLike = 0.01, *, control: str | None = None, **options: Any
) -> JointResult:
    """``compare(..., method="joint")``: :func:`joint_test` with ``compare``'s arguments.

    The joint model always analyses every pair of ``models`` in one fit, so ``control`` is
    refused. ``compare``'s ``jobs``, ``scheduler`` and ``min_folds`` are accepted and have no
    effect: the chains of the one fit already run in parallel, and the joint model uses on each
    data set one block of scores paired by fold (:func:`joint_data`). The other ``options`` go to
    :func:`joint_test` (``models``, ``columns``, ``runs``, ``higher_is_better``, ``seed``,
    ``alpha``, ``progress``, ``chains``, ``draws``, ``warmup``, ``engine``, ``nu_prior``, ...).
    """
    if control is not None:
        raise ValueError(
            "The joint model compares every pair in one fit; control= is for pairwise methods."
        )
    for ignored in ("jobs", "scheduler", "min_folds"):
        options.pop(ignored, None)
    return joint_test(data, rope, **options)


__all__ = ["compare_joint", "joint_data", "joint_test", "noise_structure", "pair_usages"]
