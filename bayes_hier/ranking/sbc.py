"""Simulation-based calibration of the ranking models (Talts et al., 2018).

A replicate draws the parameters from the model's own prior, the data from its likelihood, fits
them with the shipped program (:func:`~bayes_hier.fitting.sample_model`) and ranks every true
value among L thinned posterior draws (:func:`~bayes_hier.calibration.sbc.rank_columns`); over
replicates each rank is uniform on 0..L when the program samples the stated model's posterior.

* Bradley-Terry: σ ~ lognormal(0, 0.5), β ~ N(0, σ² I); ``datasets`` data sets per pair, the
  wins of the first model Binomial(datasets, expit(β_a − β_b)). Ranked: σ and the centred β
  (β_a − mean β: the quantity the program samples, the mean being integrated out).
* Plackett-Luce: w ~ Dirichlet(1, ..., 1); ``datasets`` rankings of all k models drawn from
  Plackett-Luce(w). Ranked: every w_a.

``python -m bayes_hier.ranking.sbc --replicates 200 --out DIR`` writes ``ranks.csv`` and
``uniformity.csv`` (chi-square p-value of every quantity's ranks) into DIR.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..calibration.sbc import rank_columns, replicate_settings
from ..calibration.uniformity import chi_square_test
from ..engines import get_engine
from ..fitting import sample_model
from .bradley_terry import BRADLEY_TERRY, BradleyTerryInput
from .plackett_luce import PLACKETT_LUCE, PlackettLuceInput
from .ranks import simulated_rankings

#: The models a calibration run covers.
MODELS = ("bradley_terry", "plackett_luce")


@dataclass(frozen=True)
class RankingSBCConfig:
    """Design and MCMC settings of an SBC run: k models, ``datasets`` data sets (per pair for
    Bradley-Terry); NUTS chains and lengths; L = ``thinned`` (ranks in 0..L)."""

    k: int = 4
    datasets: int = 20
    chains: int = 2
    warmup: int = 200
    draws: int = 200
    thinned: int = 19
    adapt_delta: float = 0.9
    max_treedepth: int = 10
    engine: str = "auto"
    seed: int = 20230101


def simulate_bradley_terry(
    config: RankingSBCConfig, rng: np.random.Generator
) -> tuple[dict[str, float], BradleyTerryInput]:
    """True σ and centred β and the program's input for one replicate."""
    k = config.k
    sigma = float(rng.lognormal(0.0, 0.5))
    beta = rng.normal(0.0, sigma, k)
    first, second = np.triu_indices(k, 1)
    wins = rng.binomial(config.datasets, 1.0 / (1.0 + np.exp(beta[second] - beta[first])))
    counts = pd.DataFrame(
        {
            "first": first,
            "second": second,
            "win_first": wins.astype(float),
            "win_second": (config.datasets - wins).astype(float),
            "ties": 0.0,
        }
    )
    data = {
        "K": k,
        "N": len(counts),
        "first": (first + 1).tolist(),
        "second": (second + 1).tolist(),
        "win_first": counts["win_first"].to_numpy(),
        "win_second": counts["win_second"].to_numpy(),
        "ties": np.zeros(len(counts)),
        "davidson": 0,
        "cauchy_scale": 0,
        "prior_scale": 0.5,
    }
    centred = beta - beta.mean()
    truth = {"sigma": sigma, **{f"beta_{a + 1}": float(centred[a]) for a in range(k)}}
    return truth, BradleyTerryInput(data, counts)


def simulate_plackett_luce(
    config: RankingSBCConfig, rng: np.random.Generator
) -> tuple[dict[str, float], PlackettLuceInput]:
    """True weights and the program's input (complete rankings) for one replicate."""
    k = config.k
    w = rng.dirichlet(np.ones(k))
    ranks = simulated_rankings(np.log(w)[None, :], config.datasets, rng)
    order = np.argsort(ranks, axis=1) + 1  # the models, best first
    data = {
        "K": k,
        "N": config.datasets,
        "size": [k] * config.datasets,
        "order": order,
        "concentration": np.ones(k),
    }
    truth = {f"w_{a + 1}": float(w[a]) for a in range(k)}
    return truth, PlackettLuceInput(data, (), False, "order")


def run_replicate(model: str, rep: int, config: RankingSBCConfig) -> dict[str, Any]:
    """Simulate, fit and rank replicate ``rep`` of ``model``; streams from (seed, model, rep)."""
    streams = np.random.SeedSequence([config.seed, MODELS.index(model), rep]).spawn(4)
    simulate_rng, inits_rng, rank_rng = (np.random.default_rng(s) for s in streams[:3])
    if model == "bradley_terry":
        truth, model_input = simulate_bradley_terry(config, simulate_rng)
        stan_model = BRADLEY_TERRY
    else:
        truth, model_input = simulate_plackett_luce(config, simulate_rng)
        stan_model = PLACKETT_LUCE
    inits = stan_model.initial_values(model_input, config.chains, inits_rng)
    settings = replicate_settings(config, streams[3], inits)
    idata = sample_model(
        stan_model, None, model_input, settings, engine=config.engine, rng=simulate_rng
    )
    posterior = idata.posterior
    if model == "bradley_terry":
        beta = posterior["beta"].values
        draws = {"sigma": posterior["sigma"].values}
        draws.update({f"beta_{a + 1}": beta[..., a] for a in range(config.k)})
    else:
        w = posterior["w"].values
        draws = {f"w_{a + 1}": w[..., a] for a in range(config.k)}
    divergent = int(np.sum(idata.sample_stats["diverging"].values))
    row = {"model": model, "rep": rep, "divergences": divergent}
    return {**row, **rank_columns(truth, draws, config.thinned, rank_rng)}


def run_sbc(
    replicates: int, config: RankingSBCConfig = RankingSBCConfig()
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``replicates`` replicates of each model: the ranks (one row per replicate) and, per model
    and quantity, the chi-square p-value of the ranks against the uniform (L + 1 = 20 values in
    10 bins with the default L = 19)."""
    get_engine(config.engine)
    ranks = pd.DataFrame(
        [run_replicate(model, rep, config) for model in MODELS for rep in range(replicates)]
    )
    rows = []
    bins = 10 if (config.thinned + 1) % 10 == 0 else config.thinned + 1
    for model, part in ranks.groupby("model", sort=False):
        for column in part.columns:
            if column.startswith("rank_") and part[column].notna().all():
                rows.append(
                    {
                        "model": model,
                        "quantity": column.removeprefix("rank_"),
                        "replicates": len(part),
                        "p_chi_square": chi_square_test(
                            part[column].to_numpy(int), config.thinned, bins
                        ),
                        "divergences": int(part["divergences"].sum()),
                    }
                )
    return ranks, pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    """``python -m bayes_hier.ranking.sbc``: run both models' SBC and write the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("results/calibration-ranking"))
    args = parser.parse_args(argv)
    ranks, uniformity = run_sbc(args.replicates)
    args.out.mkdir(parents=True, exist_ok=True)
    ranks.to_csv(args.out / "ranks.csv", index=False)
    uniformity.to_csv(args.out / "uniformity.csv", index=False)
    print(uniformity.to_string(index=False))
    return 0


__all__ = [
    "MODELS",
    "RankingSBCConfig",
    "main",
    "run_replicate",
    "run_sbc",
    "simulate_bradley_terry",
    "simulate_plackett_luce",
]

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
