"""The calibration simulators of the ranking models (Talts et al., 2018).

Each draws the parameters from the model's own prior (proper already) and data of the model's
shape from its likelihood; the generic calibration (``python -m bayes_hier.calibration --model
bradley_terry plackett_luce``) fits them with the shipped program and ranks every true value
among L thinned posterior draws.

* Bradley-Terry: σ ~ lognormal(0, 0.5), β ~ N(0, σ² I); ``datasets`` data sets per pair, the
  wins of the first model Binomial(datasets, expit(β_a − β_b)) (a win table without ties).
  Ranked: σ and the centred β (β_a − mean β: the quantity the program samples, the mean being
  integrated out).
* Plackett-Luce: w ~ Dirichlet(1, ..., 1); ``datasets`` rankings of all k models drawn from
  Plackett-Luce(w), given as scores of one fold per data set (the best model scoring highest).
  Ranked: every w_a.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import arviz as az
import numpy as np
import pandas as pd

from ..fitting.model import CalibrationSuite, Simulation
from ..ranks import simulated_rankings
from ..scores import ModelScores
from .bradley_terry import BRADLEY_TERRY, BradleyTerryData, BradleyTerryModel, BradleyTerryPrior
from .plackett_luce import PLACKETT_LUCE, PlackettLuceData, PlackettLuceModel, PlackettLucePrior


@dataclass(frozen=True)
class _RankingDesign:
    """k models named ``m1..mk`` and ``datasets`` data sets."""

    k: int = 4
    datasets: int = 20

    def __post_init__(self) -> None:
        if self.k < 2 or self.datasets < 1:
            raise ValueError(
                f"Need k >= 2 models and datasets >= 1; got k={self.k}, datasets={self.datasets}."
            )

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(f"m{a + 1}" for a in range(self.k))

    @property
    def setting(self) -> dict[str, Any]:
        return {"k": self.k, "datasets": self.datasets}


@dataclass(frozen=True)
class BradleyTerrySimulator(_RankingDesign):
    """Bradley-Terry with the published prior (σ ~ lognormal(0, 0.5)): k models, ``datasets``
    data sets per pair."""

    model: ClassVar[BradleyTerryModel] = BRADLEY_TERRY

    @property
    def checked(self) -> tuple[str, ...]:
        return ("sigma", *(f"beta_{a + 1}" for a in range(self.k)))

    def simulate(self, rng: np.random.Generator) -> Simulation:
        k, models = self.k, self.models
        prior = BradleyTerryPrior()
        sigma = float(rng.lognormal(0.0, prior.scale))
        beta = rng.normal(0.0, sigma, k)
        first, second = np.triu_indices(k, 1)
        wins = rng.binomial(self.datasets, 1.0 / (1.0 + np.exp(beta[second] - beta[first])))
        table = pd.DataFrame(
            {
                "first": [models[a] for a in first],
                "second": [models[b] for b in second],
                "win_first": wins,
                "win_second": self.datasets - wins,
                "ties": 0,
                "n_datasets": self.datasets,
            }
        )
        data = BradleyTerryData(models, table, ties="spread", local_rope=None)
        centred = beta - beta.mean()
        truth = {"sigma": sigma, **{f"beta_{a + 1}": float(centred[a]) for a in range(k)}}
        model_input = self.model.build_input(data, None, prior, rng)
        return Simulation(truth, data, model_input)

    def checked_draws(self, idata: az.InferenceData) -> dict[str, np.ndarray]:
        posterior = idata.posterior
        beta = posterior["beta"].values
        draws = {"sigma": posterior["sigma"].values}
        draws.update({f"beta_{a + 1}": beta[..., a] for a in range(self.k)})
        return draws


@dataclass(frozen=True)
class PlackettLuceSimulator(_RankingDesign):
    """Plackett-Luce with the uniform Dirichlet prior: ``datasets`` complete rankings of k
    models."""

    model: ClassVar[PlackettLuceModel] = PLACKETT_LUCE

    @property
    def checked(self) -> tuple[str, ...]:
        return tuple(f"w_{a + 1}" for a in range(self.k))

    def simulate(self, rng: np.random.Generator) -> Simulation:
        k, models = self.k, self.models
        prior = PlackettLucePrior()
        w = rng.dirichlet(np.full(k, prior.concentration))
        ranks = simulated_rankings(np.log(w)[None, :], self.datasets, rng)  # 0 = best
        datasets = [f"d{i + 1}" for i in range(self.datasets)]
        table = pd.DataFrame(
            {
                "dataset": np.repeat(datasets, k),
                "model": np.tile(models, self.datasets),
                "run": 0,
                "fold": 0,
                "score": (k - ranks).ravel().astype(float),
            }
        )
        scores = ModelScores(table, models, tuple(datasets))
        data = PlackettLuceData(scores, by_fold=False, tie_rule="order", higher_is_better=True)
        truth = {f"w_{a + 1}": float(w[a]) for a in range(k)}
        return Simulation(truth, data, self.model.build_input(data, None, prior, rng))

    def checked_draws(self, idata: az.InferenceData) -> dict[str, np.ndarray]:
        w = idata.posterior["w"].values
        return {f"w_{a + 1}": w[..., a] for a in range(self.k)}


def _suite(simulator: Any, prior: str) -> CalibrationSuite:
    """200 replicates, 2 chains × 200 draws after 200 warm-up, L = 19."""
    description = (
        f"{simulator.model.name}, k = {simulator.k} models, {simulator.datasets} data sets; the "
        f"model's own prior: {prior}. Fits: the shipped stan/{simulator.model.program}.stan, "
        f"package initial values."
    )
    return CalibrationSuite(
        (simulator,), warmup=200, draws=200, thinned=19, seed=20230101, description=description
    )


def bradley_terry_suite() -> CalibrationSuite:
    """``make calibrate-ranking`` (Bradley-Terry): 200 replicates, k = 4, 20 data sets per pair,
    2 chains × 200 draws after 200 warm-up, L = 19."""
    simulator = BradleyTerrySimulator()
    return _suite(
        simulator, f"{BradleyTerryPrior()}; wins Binomial({simulator.datasets}, expit(β_a − β_b))"
    )


def plackett_luce_suite() -> CalibrationSuite:
    """``make calibrate-ranking`` (Plackett-Luce): 200 replicates, k = 4, 20 rankings, 2 chains
    × 200 draws after 200 warm-up, L = 19."""
    return _suite(
        PlackettLuceSimulator(), f"{PlackettLucePrior()}; complete rankings from Plackett-Luce(w)"
    )


__all__ = [
    "BradleyTerrySimulator",
    "PlackettLuceSimulator",
    "bradley_terry_suite",
    "plackett_luce_suite",
]
