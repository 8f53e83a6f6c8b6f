"""Simulation-based calibration of any model with a simulator: one replicate and a whole run.

A replicate (Talts et al., 2018, algorithm 1) asks the model's simulator
(:class:`~bayes_hier.fitting.model.Simulator`) for parameters drawn from its calibration prior
and data given them, fits the data through the package's own path
(:func:`~bayes_hier.fitting.sample_model`: the shipped Stan program, the model's data-based
initial values, the engine and NUTS settings, the model's posterior completion), thins the draws
to L and records the rank of every checked quantity's true value among them (:mod:`.ranks`),
with the bulk effective sample size of its draws before thinning and the fit's diagnostics
(:func:`~bayes_hier.diagnostics.compute_diagnostics` over the model's diagnosed variables).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..diagnostics import bulk_ess, compute_diagnostics
from ..engines import get_engine
from ..fitting import SamplerOptions, sample_model
from ..fitting.model import CalibrationSuite, Simulator
from ..seeding import SEED_BOUND, derive_seed
from .ranks import rank_of, thin


@dataclass(frozen=True)
class SBCConfig:
    """The fits of an SBC run and its rank resolution.

    Attributes
    ----------
    options
        Chains, lengths, NUTS settings and engine of every fit.
    thinned
        L: the posterior draws are thinned to L, so ranks lie in 0..L (at most chains × draws).
    seed
        Root of every replicate's random streams (:func:`replicate_streams`).
    """

    options: SamplerOptions = field(
        default_factory=lambda: SamplerOptions(chains=2, warmup=300, draws=300)
    )
    thinned: int = 59
    seed: int = 20181025

    def __post_init__(self) -> None:
        total = self.options.chains * self.options.draws
        if not 1 <= self.thinned <= total:
            raise ValueError(
                f"thinned={self.thinned} must lie in 1..{total} (the posterior draws: chains × "
                f"draws); lower it or sample more draws."
            )

    @classmethod
    def of(cls, suite: CalibrationSuite, **changes: Any) -> SBCConfig:
        """A model's default configuration (:class:`~bayes_hier.fitting.model.CalibrationSuite`)
        with ``changes``: ``thinned``, ``seed`` or any :class:`SamplerOptions` field."""
        sampler = {"chains": suite.chains, "warmup": suite.warmup, "draws": suite.draws}
        own = {"thinned": suite.thinned, "seed": suite.seed}
        for name, value in changes.items():
            (own if name in own else sampler)[name] = value
        return cls(SamplerOptions(**sampler), **own)


def setting_label(simulator: Simulator) -> str:
    """``"nu_prior=hierarchical q=10 n=10"``: the simulator's setting in one word per column."""
    return " ".join(f"{name}={value}" for name, value in simulator.setting.items())


def replicate_streams(
    simulator: Simulator, rep: int, seed: int
) -> tuple[np.random.SeedSequence, ...]:
    """(simulation, inits, stan, completion, ties) streams of replicate ``rep``: children of
    :func:`~bayes_hier.seeding.derive_seed` (seed, *setting values, rep), so each replicate can
    be rerun alone and does not depend on the others."""
    root = derive_seed(seed, *simulator.setting.values(), rep)
    return tuple(np.random.SeedSequence(root).spawn(5))


def rank_columns(
    truth: Mapping[str, float],
    draws: Mapping[str, np.ndarray],
    thinned: int,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """``rank_<name>`` (rank of the true value among the draws thinned to L = ``thinned``),
    ``ess_<name>`` (bulk ESS of all the (chain, draw) draws,
    :func:`~bayes_hier.diagnostics.bulk_ess`) and ``true_<name>`` for every name of ``truth``."""
    row: dict[str, Any] = {}
    for name, value in truth.items():
        values = np.asarray(draws[name], float)
        row[f"rank_{name}"] = rank_of(value, thin(values, thinned), rng)
        row[f"ess_{name}"] = float(bulk_ess(values.reshape(*values.shape[:2], 1))[0])
        row[f"true_{name}"] = value
    return row


def run_replicate(simulator: Simulator, rep: int, config: SBCConfig) -> dict[str, Any]:
    """Simulate, fit and rank replicate ``rep`` of ``simulator``'s setting.

    Returns one row: ``model`` (the program), ``setting`` (:func:`setting_label`) and the
    setting's columns, ``rep``, the fit's ``seconds``, ``divergences``, ``max_rhat``,
    ``min_ebfmi`` and ``max_treedepth_hits``, and :func:`rank_columns` of the checked quantities.
    """
    simulation, inits, stan, completion, ties = replicate_streams(simulator, rep, config.seed)
    simulated = simulator.simulate(np.random.default_rng(simulation))
    model, options = simulator.model, config.options
    settings = options.sampler_settings(
        model,
        simulated.data,
        simulated.model_input,
        seed=int(stan.generate_state(1)[0] % SEED_BOUND),
        inits=np.random.default_rng(inits),
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = sample_model(
            model,
            simulated.data,
            simulated.model_input,
            settings,
            engine=get_engine(options.engine),
            rng=np.random.default_rng(completion),
        )
        diagnostics = compute_diagnostics(
            model.diagnosed_view(idata), model.diagnosed, options.max_treedepth
        )
    row: dict[str, Any] = {
        "model": model.program,
        "setting": setting_label(simulator),
        **simulator.setting,
        "rep": rep,
        "seconds": time.perf_counter() - start,
        "divergences": int(diagnostics["divergences"]),
        "max_rhat": float(diagnostics["max_rhat"]),
        "min_ebfmi": float(diagnostics["min_ebfmi"]),
        "max_treedepth_hits": int(diagnostics["max_treedepth_hits"]),
    }
    draws = simulator.checked_draws(idata)
    row.update(rank_columns(simulated.truth, draws, config.thinned, np.random.default_rng(ties)))
    return row


def replicate_tasks(
    simulators: Sequence[Simulator], replicates: int, config: SBCConfig
) -> list[tuple[Simulator, int, SBCConfig]]:
    """The (simulator, rep, config) tasks of a run, interleaved so slow settings spread out."""
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
        raise ValueError(f"replicates must be a whole number >= 1; got {replicates!r}.")
    return [(simulator, rep, config) for rep in range(replicates) for simulator in simulators]


def run_sbc(
    simulators: Sequence[Simulator],
    replicates: int,
    config: SBCConfig,
    executor: Any,
    progress: bool = True,
) -> pd.DataFrame:
    """All replicates of all settings, one row each (:func:`run_replicate`), run on
    ``executor`` (:func:`bayes_hier.parallel.make_executor`)."""
    from ..parallel import run_tasks

    tasks = replicate_tasks(simulators, replicates, config)
    rows = run_tasks(executor, run_replicate, tasks, "SBC replicates", progress)
    return pd.DataFrame(rows)


__all__ = [
    "SBCConfig",
    "rank_columns",
    "replicate_streams",
    "replicate_tasks",
    "run_replicate",
    "run_sbc",
    "setting_label",
]
