"""One SBC replicate and a whole SBC run of the two-model hierarchical model.

A replicate draws parameters and data from :class:`CalibrationPrior`, fits them with
the package's own path (``sample_model`` of the hierarchical model: the shipped
Stan program, its data-based initial values, the same engine and NUTS settings, and the
posterior completion that draws δ_i from its full conditional), thins the draws to L and records
the rank of every true value among them (``ranks``), with the bulk effective sample size of
each ranked parameter and the fit's diagnostics.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import arviz as az
import numpy as np
import pandas as pd

from ..diagnostics import compute_diagnostics
from ..engines import SamplerSettings, get_engine
from ..fitting import sample_model
from ..hierarchical.model import HIERARCHICAL
from ..hierarchical.model_input import initial_values
from ..seeding import derive_seed
from .ranks import rank_of, thin
from .simulate import CalibrationPrior, calibration_model_input, simulate

#: Ranked parameters: the population, ν, and the first two data sets' δ_i and σ_i.
PARAMETERS = ("delta0", "sigma0", "nu", "delta[0]", "delta[1]", "sigma[0]", "sigma[1]")
DIAGNOSED = ("delta0", "sigma0", "nu", "delta", "sigma")


@dataclass(frozen=True)
class SBCSetting:
    """One cell of the calibration: q data sets of n results each, under one ν prior."""

    q: int
    n: int
    nu_prior: str = "hierarchical"

    @property
    def label(self) -> str:
        return f"{self.nu_prior} q={self.q} n={self.n}"


@dataclass(frozen=True)
class SBCConfig:
    """Prior bounds, MCMC settings and rank resolution of an SBC run.

    ``thinned`` is L: the number of thinned posterior draws, so ranks lie in 0..L. The NUTS
    settings default to those of ``hierarchical_test`` (adapt_delta 0.9, tree depth 10) with
    shorter chains. ``rho`` is the fold correlation of the simulated data; ``fit_rho`` (default:
    the same) the one the fit assumes, for a deliberately misspecified negative control.
    ``delta0_bound``, ``sigma0_upper`` and ``sigma_upper`` are the fixed bounds of
    :class:`CalibrationPrior` (the ν prior comes from each :class:`SBCSetting`).
    """

    chains: int = 2
    warmup: int = 300
    draws: int = 300
    thinned: int = 59
    adapt_delta: float = 0.9
    max_treedepth: int = 10
    rho: float = 0.1
    fit_rho: float | None = None
    delta0_bound: float = 1.0
    sigma0_upper: float = 1.0
    sigma_upper: float = 1.0
    engine: str = "auto"
    seed: int = 20181025

    def __post_init__(self) -> None:
        if self.thinned > self.chains * self.draws:
            raise ValueError(
                f"thinned={self.thinned} exceeds the {self.chains * self.draws} posterior draws."
            )

    def prior(self, nu_prior: str) -> CalibrationPrior:
        return CalibrationPrior(
            nu_prior=nu_prior,
            delta0_bound=self.delta0_bound,
            sigma0_upper=self.sigma0_upper,
            sigma_upper=self.sigma_upper,
        )


def _parameter_draws(posterior: Any, name: str) -> np.ndarray:
    """(chain, draw) values of ``delta0`` or of an indexed vector element such as ``delta[1]``."""
    if "[" not in name:
        return posterior[name].values
    base, index = name.rstrip("]").split("[")
    variable = posterior[base]
    return variable.isel({variable.dims[-1]: int(index)}).values


def _truth_value(truth: dict[str, Any], name: str) -> float:
    if "[" not in name:
        return float(truth[name])
    base, index = name.rstrip("]").split("[")
    return float(truth[base][int(index)])


def replicate_settings(
    config: Any, stream: np.random.SeedSequence, inits: list, **extra: Any
) -> SamplerSettings:
    """NUTS settings of one replicate: the chains, lengths, adapt_delta and tree depth of
    ``config`` (an SBC configuration), a Stan seed from ``stream`` and the given inits."""
    return SamplerSettings(
        chains=config.chains,
        draws=config.draws,
        warmup=config.warmup,
        seed=int(stream.generate_state(1)[0] % 2**31),
        inits=inits,
        max_treedepth=config.max_treedepth,
        adapt_delta=config.adapt_delta,
        **extra,
    )


def rank_columns(
    truth: dict[str, float], draws: dict[str, np.ndarray], thinned: int, rng: np.random.Generator
) -> dict[str, Any]:
    """``rank_<name>`` (rank of the true value among the draws thinned to L = ``thinned``),
    ``ess_<name>`` (bulk ESS of all the draws) and ``true_<name>`` for every name of ``truth``;
    ``draws`` holds each quantity's (chain, draw) array."""
    row: dict[str, Any] = {}
    for name, value in truth.items():
        row[f"rank_{name}"] = rank_of(value, thin(draws[name], thinned), rng)
        row[f"ess_{name}"] = bulk_ess(draws[name])
        row[f"true_{name}"] = value
    return row


def bulk_ess(draws: np.ndarray) -> float:
    """Bulk effective sample size (arviz) of one quantity's (chain, draw) or (draw,) array."""
    return float(az.ess(az.convert_to_dataset(draws[None] if draws.ndim == 1 else draws)).x)


def run_replicate(setting: SBCSetting, rep: int, config: SBCConfig) -> dict[str, Any]:
    """Simulate, fit and rank one replicate; its streams come from (seed, setting, rep).

    Returns one row: the setting, ``rank_<parameter>`` and ``ess_<parameter>`` (bulk ESS of all
    post-warm-up draws) for each of :data:`PARAMETERS`, the true values, the fit's divergences,
    max R-hat and wall time.
    """
    seed = derive_seed(config.seed, setting.nu_prior, setting.q, setting.n, rep)
    simulation, inits, stan, deltas, ties = np.random.SeedSequence(seed).spawn(5)
    prior = config.prior(setting.nu_prior)
    simulated = simulate(prior, setting.q, setting.n, np.random.default_rng(simulation), config.rho)
    model_input = calibration_model_input(prior, simulated, config.fit_rho)
    datasets = [f"d{i}" for i in range(setting.q)]
    settings = replicate_settings(
        config,
        stan,
        initial_values(model_input, config.chains, np.random.default_rng(inits)),
        coords={"dataset": datasets},
        dims={"sigma": ["dataset"], "tau_raw": ["dataset"]},
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = sample_model(
            HIERARCHICAL,
            None,
            model_input,
            settings,
            engine=get_engine(config.engine),
            rng=np.random.default_rng(deltas),
        )
        diagnostics = compute_diagnostics(idata, DIAGNOSED, config.max_treedepth)
    seconds = time.perf_counter() - start
    row: dict[str, Any] = {
        "nu_prior": setting.nu_prior,
        "q": setting.q,
        "n": setting.n,
        "rep": rep,
        "seconds": seconds,
        "divergences": int(diagnostics["divergences"]),
        "max_rhat": float(diagnostics["max_rhat"]),
    }
    draws = {name: _parameter_draws(idata.posterior, name) for name in PARAMETERS}
    truth = {name: _truth_value(simulated.truth, name) for name in PARAMETERS}
    row.update(rank_columns(truth, draws, config.thinned, np.random.default_rng(ties)))
    return row


def replicate_tasks(
    settings: Sequence[SBCSetting], replicates: int, config: SBCConfig
) -> list[tuple[SBCSetting, int, SBCConfig]]:
    """The (setting, rep, config) tasks of a run, interleaved so slow settings spread out."""
    if replicates < 1:
        raise ValueError(f"replicates must be >= 1; got {replicates}.")
    return [(setting, rep, config) for rep in range(replicates) for setting in settings]


def run_sbc(
    settings: Sequence[SBCSetting],
    replicates: int,
    config: SBCConfig,
    executor: Any,
    progress: bool = True,
) -> pd.DataFrame:
    """All replicates of all settings, one row each (see :func:`run_replicate`)."""
    from ..parallel import run_tasks

    tasks = replicate_tasks(settings, replicates, config)
    rows = run_tasks(executor, run_replicate, tasks, "SBC replicates", progress)
    return pd.DataFrame(rows)
