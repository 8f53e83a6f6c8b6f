"""Wainer's Bayesian Bradley-Terry model of k models on many data sets
(``stan/bradley_terry.stan``).

J. Wainer, "A Bayesian Bradley-Terry model to compare multiple ML algorithms on multiple data
sets", JMLR 24 (2023); R package bbtcomp. For every pair the data sets on which one model beats
the other are counted (:func:`~.data.win_table`), ties are resolved by a tie policy
(:func:`~.data.tie_counts`) and P(a beats b) = exp(β_a) / (exp(β_a) + exp(β_b)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import arviz as az
import numpy as np
import pandas as pd

from .._typing import Unpack
from ..fitting import SamplerKeywords
from ..seeding import SeedLike
from .data import TIE_POLICIES, tie_counts, win_table
from .fit import RankingArguments, RankingModel, compare_adapter, fit_ranking, scores_of
from .result import RankingResult

#: Hyperpriors of the betas' scale σ: the published lognormal(0, scale) or a half-Cauchy.
SCALE_PRIORS = ("lognormal", "cauchy")


@dataclass(frozen=True)
class BradleyTerryPrior:
    """β ~ N(0, σ² I) (the mean of the β, which the data do not inform, integrated out); σ ~
    lognormal(0, ``scale``) (bbtcomp's default, scale 0.5) or
    half-Cauchy(0, ``scale``); with Davidson's ties, ν ~ N(0, σ_ν), σ_ν ~ lognormal(0, 0.5)."""

    scale_prior: str = "lognormal"
    scale: float = 0.5

    def __post_init__(self) -> None:
        if self.scale_prior not in SCALE_PRIORS:
            raise ValueError(
                f"scale_prior must be one of {list(SCALE_PRIORS)}; got {self.scale_prior!r}."
            )
        if isinstance(self.scale, bool) or not isinstance(self.scale, int | float):
            raise TypeError(f"prior_scale must be a positive number; got {self.scale!r}.")
        if not (np.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"prior_scale must be positive and finite; got {self.scale!r}.")

    def __str__(self) -> str:
        family = "lognormal" if self.scale_prior == "lognormal" else "half-Cauchy"
        return f"beta ~ N(0, sigma^2), sigma ~ {family}(0, {self.scale:g})"


@dataclass(frozen=True)
class BradleyTerryData:
    """What the model is fitted to: the models, the pairs' win table, the tie policy and the
    local rope the wins were counted with."""

    models: tuple[str, ...]
    wins: pd.DataFrame
    ties: str
    local_rope: float | None


@dataclass(frozen=True)
class BradleyTerryInput:
    """The program's data and the counts it reads (after the tie policy, pairs with no common
    data set left out)."""

    data: dict[str, Any]
    counts: pd.DataFrame

    @property
    def davidson(self) -> bool:
        return bool(self.data["davidson"])


def build_input(data: BradleyTerryData, prior: BradleyTerryPrior) -> BradleyTerryInput:
    """The data of ``bradley_terry.stan``."""
    counts = tie_counts(data.wins, data.ties)
    counts = counts[counts["n_datasets"] > 0].reset_index(drop=True)
    index = {model: i + 1 for i, model in enumerate(data.models)}
    stan_data = {
        "K": len(data.models),
        "N": len(counts),
        "first": [index[m] for m in counts["first"]],
        "second": [index[m] for m in counts["second"]],
        "win_first": counts["win_first"].to_numpy(float),
        "win_second": counts["win_second"].to_numpy(float),
        "ties": counts["ties"].to_numpy(float),
        "davidson": int(data.ties == "davidson"),
        "cauchy_scale": int(prior.scale_prior == "cauchy"),
        "prior_scale": float(prior.scale),
    }
    return BradleyTerryInput(stan_data, counts)


class BradleyTerryModel(RankingModel):
    """The Bayesian Bradley-Terry model as a :class:`~bayes_hier.fitting.StanModel`."""

    name = "Bayesian Bradley-Terry model"
    program = "bradley_terry"
    method = "bradley_terry"
    diagnosed = ("sigma", "beta", "nu", "sigma_nu")

    def build_input(
        self, data: BradleyTerryData, rope: Any, prior: BradleyTerryPrior, rng: np.random.Generator
    ) -> BradleyTerryInput:
        return build_input(data, prior)

    def initial_values(
        self, model_input: BradleyTerryInput, chains: int, rng: np.random.Generator
    ) -> list[dict[str, Any]]:
        """σ near 1, β near 0 (every model about as strong), ν near 0."""
        k, davidson = model_input.data["K"], model_input.davidson
        return [
            {
                "sigma": float(rng.uniform(0.5, 1.5)),
                "beta_free": rng.normal(0, 0.3, k - 1),
                "nu": [float(rng.normal(0, 0.3))] if davidson else [],
                "sigma_nu": [float(rng.uniform(0.5, 1.5))] if davidson else [],
            }
            for _ in range(chains)
        ]

    def coordinates(
        self, data: BradleyTerryData, model_input: BradleyTerryInput
    ) -> tuple[Mapping[str, Sequence[Any]], Mapping[str, Sequence[str]]]:
        return {"model": list(data.models)}, {"beta": ["model"]}

    def complete(
        self,
        idata: az.InferenceData,
        data: BradleyTerryData,
        model_input: BradleyTerryInput,
        rng: np.random.Generator,
    ) -> az.InferenceData:
        """The log-strengths s = β, centred (:class:`~.result.RankingResult` reads
        ``strength``; every quantity it reports depends on differences of strengths only)."""
        idata.posterior["strength"] = idata.posterior["beta"]
        return idata

    def describe(self, data: BradleyTerryData, model_input: BradleyTerryInput) -> list[str]:
        """How the wins were counted, for the result's summary."""
        rope = (
            "exact comparison of the fold means"
            if data.local_rope is None
            else f"local rope {data.local_rope:g} sd of the paired fold differences"
        )
        return [f"Wins per pair over the data sets both models have ({rope}); ties: {data.ties}."]


#: The one instance :func:`bradley_terry_test` fits.
BRADLEY_TERRY = BradleyTerryModel()


def bradley_terry_test(
    data: Any,
    *,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    runs: int = 1,
    higher_is_better: bool = True,
    local_rope: float | None = 0.4,
    ties: str = "spread",
    scale_prior: str = "lognormal",
    prior_scale: float = 0.5,
    hdi_prob: float = 0.89,
    win_rope: Sequence[float] = (0.45, 0.55),
    seed: SeedLike = None,
    alpha: float = 0.05,
    warn: bool = True,
    **sampler: Unpack[SamplerKeywords],
) -> RankingResult:
    """Compare k models on many data sets with Wainer's Bayesian Bradley-Terry model.

    Per pair (a, b), the data sets on which a's fold mean beats b's, b's beats a's, and the
    ties (:func:`~bayes_hier.ranking.data.win_table`: a tie when the mean paired difference is
    within ``local_rope`` times its fold-to-fold standard deviation); only the data sets where
    both have scores count. Ties become counts by the policy ``ties``
    (:func:`~bayes_hier.ranking.data.tie_counts`). The wins of a over b are binomial with
    P(a beats b) = exp(β_a) / (exp(β_a) + exp(β_b)); β_a ~ N(0, σ²) with σ ~ lognormal(0, 0.5)
    (``scale_prior="cauchy"``: half-Cauchy(0, ``prior_scale``)). With ``ties="davidson"`` a tie
    has weight exp(ν + (β_a + β_b) / 2) beside exp(β_a) and exp(β_b) (Davidson, 1970) and the
    counts are multinomial; P(a beats b) is then the probability of a win given no tie.

    Differences from bbtcomp: "spread" gives each side half a tie (bbtcomp: ceil(ties / 2) to
    each, which counts an odd number of ties one more time); Davidson's model is the multinomial
    of the three outcomes with ν real (bbtcomp: two binomials, ν ≥ 0).

    Parameters
    ----------
    data, models, columns, runs
        The scores, as for :func:`~bayes_hier.compare.compare`.
    higher_is_better
        ``False`` for errors or losses.
    local_rope
        Ties within this many standard deviations of the paired fold differences (bbtcomp's
        default 0.4); ``None`` compares the fold means exactly.
    ties
        ``"spread"``, ``"add"``, ``"forget"`` or ``"davidson"``.
    scale_prior, prior_scale
        The hyperprior of σ.
    hdi_prob
        Mass of the HDIs (0.89, as published).
    win_rope
        Rope on P(a beats b) (default (0.45, 0.55), as published).
    seed, alpha, warn
        Seed of every random number; level of the pairs' decisions; warn on failed diagnostics.
    **sampler
        The MCMC settings (:class:`~bayes_hier.fitting.SamplerKeywords`: ``chains``, ``draws``,
        ``warmup``, ``adapt_delta``, ``max_treedepth``, ``engine``, ``progress``), with the
        defaults of :func:`~bayes_hier.hierarchical.hierarchical_test` except ``adapt_delta=0.9``.
    """
    scores = scores_of(data, models, columns, runs)
    prior = BradleyTerryPrior(scale_prior, prior_scale)
    if ties not in TIE_POLICIES:
        raise ValueError(f"ties must be one of {list(TIE_POLICIES)}; got {ties!r}.")
    wins = win_table(scores, local_rope, higher_is_better)
    if (wins["n_datasets"] == 0).all():
        raise ValueError("No pair of models has a data set where both were scored.")
    return fit_ranking(
        BRADLEY_TERRY,
        BradleyTerryData(scores.models, wins, ties, local_rope),
        scores,
        prior=prior,
        options={"local_rope": local_rope, "ties": ties, "scale_prior": scale_prior},
        arguments=RankingArguments(seed, hdi_prob, win_rope, higher_is_better, alpha, warn),
        sampler=sampler,
    )


#: ``compare(..., method="bradley_terry")``.
compare_bradley_terry = compare_adapter("bradley_terry", bradley_terry_test)

__all__ = [
    "BRADLEY_TERRY",
    "SCALE_PRIORS",
    "BradleyTerryData",
    "BradleyTerryInput",
    "BradleyTerryModel",
    "BradleyTerryPrior",
    "bradley_terry_test",
    "build_input",
    "compare_bradley_terry",
]
