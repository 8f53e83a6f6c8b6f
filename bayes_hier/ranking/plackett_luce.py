"""The Bayesian Plackett-Luce model of rankings of k models (``stan/plackett_luce.stan``).

B. Calvo, J. Ceberio and J. A. Lozano, "Bayesian inference for algorithm ranking analysis",
GECCO 2018 (and Calvo et al., GECCO 2019); R package scmamp, ``bPlackettLuceModel``. Each data
set ranks the models by their fold means (:func:`~.data.rankings`); a ranking o_1, ..., o_m has
probability Π_i w_{o_i} / (w_{o_i} + ... + w_{o_m}); w ~ Dirichlet(concentration).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import arviz as az
import numpy as np

from .._typing import Unpack
from .._validate import check_bool
from ..fitting import SamplerKeywords
from ..scores import ModelScores
from ..seeding import SeedLike
from .data import TIE_RULES, rankings
from .fit import RankingArguments, RankingModel, compare_adapter, fit_ranking, scores_of
from .result import RankingResult


@dataclass(frozen=True)
class PlackettLucePrior:
    """w ~ Dirichlet(concentration · 1): 1 (uniform on the simplex, scmamp's default)."""

    concentration: float = 1.0

    def __post_init__(self) -> None:
        value = self.concentration
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"concentration must be a positive number; got {value!r}.")
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"concentration must be positive and finite; got {value!r}.")

    def __str__(self) -> str:
        return f"w ~ Dirichlet({self.concentration:g}, ..., {self.concentration:g})"


@dataclass(frozen=True)
class PlackettLuceData:
    """What the model is fitted to: the scores and how they become rankings
    (:func:`~.data.rankings`)."""

    scores: ModelScores
    by_fold: bool
    tie_rule: str
    higher_is_better: bool


@dataclass(frozen=True)
class PlackettLuceInput:
    """The program's data and the unit each ranking comes from."""

    data: dict[str, Any]
    units: tuple[str, ...]
    by_fold: bool
    tie_rule: str


def build_input(
    data: PlackettLuceData, prior: PlackettLucePrior, rng: np.random.Generator
) -> PlackettLuceInput:
    """The data of ``plackett_luce.stan``: the rankings (ties broken with ``rng`` under the
    random rule), padded to k with 1s (never read)."""
    orders, units = rankings(
        data.scores,
        by_fold=data.by_fold,
        tie_rule=data.tie_rule,
        rng=rng,
        higher_is_better=data.higher_is_better,
    )
    if not orders:
        raise ValueError("No data set has scores for two models or more: nothing to rank.")
    k = len(data.scores.models)
    order = np.ones((len(orders), k), dtype=int)
    for s, ranking in enumerate(orders):
        order[s, : ranking.size] = ranking + 1
    stan_data = {
        "K": k,
        "N": len(orders),
        "size": [int(r.size) for r in orders],
        "order": order,
        "concentration": np.full(k, float(prior.concentration)),
    }
    return PlackettLuceInput(stan_data, tuple(units), data.by_fold, data.tie_rule)


class PlackettLuceModel(RankingModel):
    """The Bayesian Plackett-Luce model as a :class:`~bayes_hier.fitting.StanModel`."""

    name = "Bayesian Plackett-Luce model"
    program = "plackett_luce"
    method = "plackett_luce"
    diagnosed = ("w",)

    def build_input(
        self, data: PlackettLuceData, rope: Any, prior: PlackettLucePrior, rng: np.random.Generator
    ) -> PlackettLuceInput:
        return build_input(data, prior, rng)

    def initial_values(
        self, model_input: PlackettLuceInput, chains: int, rng: np.random.Generator
    ) -> list[dict[str, Any]]:
        """Weights from a Dirichlet(5, ..., 5): near uniform, different per chain."""
        k = model_input.data["K"]
        return [{"w": rng.dirichlet(np.full(k, 5.0))} for _ in range(chains)]

    def coordinates(
        self, data: PlackettLuceData, model_input: PlackettLuceInput
    ) -> tuple[Mapping[str, Sequence[Any]], Mapping[str, Sequence[str]]]:
        return {"model": list(data.scores.models)}, {"w": ["model"]}

    def complete(
        self,
        idata: az.InferenceData,
        data: PlackettLuceData,
        model_input: PlackettLuceInput,
        rng: np.random.Generator,
    ) -> az.InferenceData:
        """The log-strengths s = log w."""
        idata.posterior["strength"] = np.log(idata.posterior["w"])
        return idata

    def describe(self, data: PlackettLuceData, model_input: PlackettLuceInput) -> list[str]:
        """What was ranked, for the result's summary."""
        unit = "(data set, run, fold) cells" if model_input.by_fold else "data sets"
        return [
            f"One ranking per unit: {len(model_input.units)} {unit}; equal scores ordered by "
            f"rule {model_input.tie_rule!r}."
        ]


#: The one instance :func:`plackett_luce_test` fits.
PLACKETT_LUCE = PlackettLuceModel()


def plackett_luce_test(
    data: Any,
    *,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    runs: int = 1,
    higher_is_better: bool = True,
    by_fold: bool = False,
    concentration: float = 1.0,
    tie_rule: str = "random",
    hdi_prob: float = 0.89,
    win_rope: Sequence[float] = (0.45, 0.55),
    seed: SeedLike = None,
    alpha: float = 0.05,
    warn: bool = True,
    **sampler: Unpack[SamplerKeywords],
) -> RankingResult:
    """Compare k models by the Bayesian Plackett-Luce model of their rankings.

    One ranking per data set, of the models by fold mean (``by_fold=True``: one per (data set,
    run, fold) cell, which treats the folds of a data set as independent problems though they
    share it: the posterior is then too narrow). A data set where some models have no score
    ranks the others (the likelihood of a ranking of a subset); one with fewer than two models
    is left out. Equal means are ordered at random, from the fit's seed, as Calvo et al. do
    (``tie_rule="order"``: in the order of ``models``). P(ranking o) = Π_i w_{o_i} / Σ_{j ≥ i}
    w_{o_j}, w ~ Dirichlet(``concentration``, ...) (1: uniform, scmamp's default).

    The weight w_a is the probability that a is ranked first on a new data set (``p_best`` is
    its posterior mean); P(a beats b) = w_a / (w_a + w_b).

    Parameters
    ----------
    data, models, columns, runs, higher_is_better
        As for :func:`~bayes_hier.compare.compare`.
    by_fold, concentration, tie_rule
        See above.
    hdi_prob, win_rope
        Mass of the HDIs (0.89) and the rope on P(a beats b) (0.45, 0.55), as for the
        Bradley-Terry model.
    seed, alpha, warn, **sampler
        As for :func:`~bayes_hier.ranking.bradley_terry_test`.
    """
    scores = scores_of(data, models, columns, runs)
    prior = PlackettLucePrior(concentration)
    if tie_rule not in TIE_RULES:
        raise ValueError(f"tie_rule must be one of {list(TIE_RULES)}; got {tie_rule!r}.")
    return fit_ranking(
        PLACKETT_LUCE,
        PlackettLuceData(scores, check_bool(by_fold, "by_fold"), tie_rule, higher_is_better),
        scores,
        prior=prior,
        options={"by_fold": by_fold, "concentration": concentration, "tie_rule": tie_rule},
        arguments=RankingArguments(seed, hdi_prob, win_rope, higher_is_better, alpha, warn),
        sampler=sampler,
    )


#: ``compare(..., method="plackett_luce")``.
compare_plackett_luce = compare_adapter("plackett_luce", plackett_luce_test)

__all__ = [
    "PLACKETT_LUCE",
    "PlackettLuceData",
    "PlackettLuceInput",
    "PlackettLuceModel",
    "PlackettLucePrior",
    "build_input",
    "compare_plackett_luce",
    "plackett_luce_test",
]
