"""What fitting either ranking model shares: the sampler options, the fit through the package's
driver, the pair results and the :class:`~.result.RankingResult`; and the adapter that makes a
ranking function a ``compare(..., method=...)`` method."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_bool, check_fraction
from ..fitting import SamplerKeywords, SamplerOptions, StanModel, fit_model
from ..frequentist.view import frequentist_view
from ..scores import ModelScores, PairUsage, model_scores
from ..seeding import SeedLike
from ..versions import package_versions
from .data import oriented_cells
from .result import RankingFit, RankingResult, check_win_rope, pair_results


@dataclass(frozen=True)
class RankingArguments:
    """The arguments every ranking function takes besides its model's own options and the MCMC
    settings, as given (:func:`fit_ranking` checks them)."""

    seed: SeedLike
    hdi_prob: float
    win_rope: Sequence[float]
    higher_is_better: bool
    alpha: float
    warn: bool


def scores_of(
    data: Any, models: Sequence[str] | None, columns: Mapping[str, str] | None, runs: int
) -> ModelScores:
    """The validated scores (:func:`~bayes_hier.scores.model_scores`), or ``data`` itself
    when it already is."""
    if isinstance(data, ModelScores):
        return data
    return model_scores(data, models=models, columns=columns, runs=runs)


def pair_usage(scores: ModelScores) -> dict[tuple[str, str], PairUsage]:
    """Per pair, what its win counts compare: the data sets where both models have a finite
    score on at least one common (run, fold) cell, the number of such cells, the cells only one
    of them has (``partial``) and the data sets left out with the reason."""
    cells = oriented_cells(scores, True)
    finite = np.isfinite(cells.to_numpy())
    datasets = cells.index.get_level_values("dataset").to_numpy()
    names = list(scores.datasets)
    index = {name: i for i, name in enumerate(names)}
    rows = np.array([index[str(d)] for d in datasets])

    def per_dataset(mask: np.ndarray) -> np.ndarray:
        return np.bincount(rows, weights=mask, minlength=len(names)).astype(int)

    usage = {}
    for i, first in enumerate(scores.models):
        for j in range(i + 1, len(scores.models)):
            second = scores.models[j]
            a, b = finite[:, i], finite[:, j]
            both, either = per_dataset(a & b), per_dataset(a | b)
            has = {first: per_dataset(a), second: per_dataset(b)}
            dropped = {}
            for d, name in enumerate(names):
                if both[d] == 0:
                    lacking = [m for m in (first, second) if has[m][d] == 0]
                    dropped[name] = (
                        f"no scores for {' and '.join(lacking)}" if lacking else "no paired folds"
                    )
            used = [d for d in range(len(names)) if both[d] > 0]
            usage[first, second] = PairUsage(
                first,
                second,
                tuple(names[d] for d in used),
                {names[d]: int(both[d]) for d in used},
                {names[d]: int(either[d] - both[d]) for d in used if either[d] > both[d]},
                dropped,
            )
    return usage


class RankingModel(StanModel):
    """What both ranking models share as a :class:`~bayes_hier.fitting.StanModel`: the Stan data
    is their input's ``data`` and the diagnostics read the posterior as it is (the interface's
    defaults), the result is a :class:`RankingResult`. A model adds ``name``, ``program``,
    ``method`` (its name for ``compare``), ``diagnosed``, ``build_input``, ``initial_values``,
    ``coordinates``, ``complete`` and ``describe``."""

    result_type = RankingResult


def fit_ranking(
    model: StanModel,
    data: Any,
    scores: ModelScores,
    *,
    prior: Any,
    options: Mapping[str, Any],
    arguments: RankingArguments,
    sampler: SamplerKeywords,
) -> RankingResult:
    """Fit ``model`` on ``data`` (its input, built from ``scores``) with the package's driver and
    wrap the posterior in a :class:`RankingResult` whose pairs are all the pairs of models.

    ``model`` has, besides the :class:`~bayes_hier.fitting.StanModel` interface, ``method`` (its
    name for ``compare``) and ``describe(data, model_input)``: sentences on how the data became
    its input. ``options`` are the model's own options as given (recorded in the settings),
    ``arguments`` the calling function's other arguments and ``sampler`` its MCMC settings."""
    options_of_sampler = SamplerOptions.from_keywords(sampler, f"{model.method}_test")
    seed, higher_is_better = arguments.seed, arguments.higher_is_better
    hdi_prob = check_fraction(arguments.hdi_prob, "hdi_prob")
    alpha = check_fraction(arguments.alpha, "alpha")
    win_rope = check_win_rope(arguments.win_rope)
    fitted = fit_model(
        model,
        data,
        rope=None,
        prior=prior,
        options=options_of_sampler,
        seed=seed,
        warn=False,  # the result warns once (below)
    )
    fit = RankingFit(
        model.name,
        str(prior),
        win_rope,
        hdi_prob,
        fitted.diagnostics,
        {key: value for key, value in fitted.settings.items() if key not in {"seed", "problems"}},
    )
    pairs = pair_results(fitted.idata, scores.models, fit)
    result = RankingResult(
        pairs,
        idata=fitted.idata,
        fit=fit,
        model_input=fitted.model_input,
        predictive_seed=fitted.streams.predictive,
        description=[*model.describe(data, fitted.model_input), f"Prior: {prior}."],
        models=scores.models,
        method=model.method,
        rope=pairs[next(iter(pairs))].rope,
        usage=pair_usage(scores),
        frequentist=frequentist_view(scores, higher_is_better, alpha),
        scores=scores,
        settings={
            **fitted.settings,
            "method": model.method,
            "options": dict(options),
            "versions": package_versions(),
        },
        scope="on a new data set",
        higher_is_better=higher_is_better,
        alpha=alpha,
    )
    if check_bool(arguments.warn, "warn"):
        result.warn()
    return result


def compare_adapter(name: str, function: Callable[..., RankingResult]) -> Callable[..., Any]:
    """``compare(..., method=name)``: ``function`` with ``compare``'s arguments.

    A ranking model analyses every pair in one fit, so ``control`` is refused; ``rope`` (in the
    scores' units) plays no part (ties come from the local rope, the decisions from the win
    rope) and must be left at its default; ``jobs``, ``scheduler`` and ``min_folds`` have no
    effect (the chains already run in parallel; a data set enters a pair when both models have
    a score there).
    """

    def compare_ranking(
        data: Any,
        rope: Any = 0.01,
        *,
        control: str | None = None,
        **arguments: Any,
    ) -> RankingResult:
        if control is not None:
            raise ValueError(
                f"The {name} model compares every pair in one fit; control= is for pairwise "
                "methods."
            )
        if rope != 0.01:
            raise ValueError(
                f"The {name} model takes no rope in the scores' units: ties come from "
                "local_rope= (Bradley-Terry) and the rope on P(a beats b) is win_rope=."
            )
        for ignored in ("jobs", "scheduler", "min_folds"):
            arguments.pop(ignored, None)
        return function(data, **arguments)

    compare_ranking.__name__ = f"compare_{name}"
    compare_ranking.__doc__ = (
        f"``compare(..., method={name!r})`` (see :func:`{function.__name__}`)."
    )
    return compare_ranking


__all__ = [
    "RankingArguments",
    "RankingModel",
    "compare_adapter",
    "fit_ranking",
    "pair_usage",
    "scores_of",
]
