"""One SBC replicate and a whole SBC run of the joint model of k models (issue 12).

A replicate draws parameters and scores from the calibration prior
(:func:`~.joint_simulate.simulate_joint`), fits them through the package's own path (the joint
model input built by ``build_joint_input`` with a fixed scale and the calibration prior switched
on, the shipped ``stan/joint.stan``, its data-based initial values, ``sample_model`` of the joint
model with the posterior completion that draws θ_i from its full conditional), thins the draws to
L and ranks each true value among them (:mod:`.ranks`, Talts et al. 2018). The ranked quantities
(:data:`JOINT_PARAMETERS`, computed by :func:`ranked_quantities` from the truth and from every
posterior draw alike):

* ``theta0_1``, ``theta0_2``: the population mean contrasts θ₀;
* ``log_Sigma0_11``, ``log_Sigma0_22``, ``corr_Sigma0``: Σ₀ as log-variances and correlation
  (the ranks of log Σ₀_jj are those of Σ₀_jj);
* ``nu``: the degrees of freedom of the population;
* ``theta1_1``: the first contrast of data set 1's true contrasts θ₁ (the completion step);
* ``log_sigma1_12``: log of data set 1's per-fold noise sd of model 2 − model 1,
  √(cᵀΩ₁c) with c = C(e₂ − e₁).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..diagnostics import compute_diagnostics
from ..engines import get_engine
from ..fitting import sample_model
from ..joint.contrasts import helmert_contrasts, pair_vectors
from ..joint.model import DIAGNOSED, JOINT
from ..joint.model_input import CalibrationPrior, JointPrior, build_joint_input, initial_values
from ..rope import Rope
from ..seeding import derive_seed
from .joint_simulate import SimulatedScores, simulate_joint
from .sbc import rank_columns, replicate_settings

JOINT_PARAMETERS = (
    "theta0_1",
    "theta0_2",
    "log_Sigma0_11",
    "log_Sigma0_22",
    "corr_Sigma0",
    "nu",
    "theta1_1",
    "log_sigma1_12",
)
#: The model's unit: scores are simulated and fitted in the units of the Stan program.
UNIT = 1.0


@dataclass(frozen=True)
class JointSBCConfig:
    """Design, calibration prior, MCMC settings and rank resolution of a joint-model SBC run.

    Attributes
    ----------
    k, q, n, rho
        Models, data sets, folds per data set and fold correlation of the simulated scores.
    theta0_sd, population_df, population_scale, noise_df, noise_scale
        The calibration prior: θ₀ ~ N(0, theta0_sd² I), Σ₀ ~ InvWishart(population_df,
        population_scale · I), Ω_i ~ InvWishart(noise_df, noise_scale · I) (means I/3 and I
        at d = 2 with the defaults); the ν prior is the shipped hierarchical one.
    difficulty_sd, common_sd
        Per-data-set difficulty and fold effect common to all models (invisible to the fit).
    chains, warmup, draws, thinned
        NUTS chains and lengths; ``thinned`` is L (ranks lie in 0..L).
    adapt_delta, max_treedepth, engine, seed
        As for :func:`~bayes_hier.joint.joint_test`; ``seed`` roots every replicate's streams.
    """

    k: int = 3
    q: int = 10
    n: int = 10
    rho: float = 0.1
    theta0_sd: float = 1.0
    population_df: float = 6.0
    population_scale: float = 1.0
    noise_df: float = 6.0
    noise_scale: float = 3.0
    difficulty_sd: float = 1.0
    common_sd: float = 1.0
    chains: int = 2
    warmup: int = 150
    draws: int = 150
    thinned: int = 29
    adapt_delta: float = 0.9
    max_treedepth: int = 10
    engine: str = "auto"
    seed: int = 20181026
    prior: JointPrior = field(default_factory=JointPrior)

    def __post_init__(self) -> None:
        if self.k != 3:
            raise ValueError(f"The ranked quantities are those of k = 3 models; got k={self.k}.")
        if self.thinned > self.chains * self.draws:
            raise ValueError(
                f"thinned={self.thinned} exceeds the {self.chains * self.draws} posterior draws."
            )

    def calibration(self) -> CalibrationPrior:
        """The calibration prior of the Stan program (scale matrices multiples of I)."""
        identity = np.eye(self.k - 1)
        return CalibrationPrior(
            theta0_sd=self.theta0_sd,
            population_df=self.population_df,
            population_scale=self.population_scale * identity,
            noise_df=self.noise_df,
            noise_scale=self.noise_scale * identity,
        )

    @property
    def label(self) -> str:
        return f"k={self.k} q={self.q} n={self.n}"


def ranked_quantities(
    theta0: np.ndarray,
    sigma0: np.ndarray,
    nu: np.ndarray,
    theta1: np.ndarray,
    omega1: np.ndarray | None = None,
    sigma1_12: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """:data:`JOINT_PARAMETERS` from θ₀ (..., 2), Σ₀ (..., 2, 2), ν (...), θ₁ (..., 2) and
    either Ω₁ (..., 2, 2) or its pair sd √(cᵀΩ₁c) directly (``sigma1_12``, as the posterior
    stores it).

    The leading dimensions are those of the truth (none) or of the draws (chain, draw).
    """
    if sigma1_12 is None:
        vector = pair_vectors(helmert_contrasts(3), [(0, 1)])[0]
        sigma1_12 = np.sqrt(np.einsum("j,...jl,l->...", vector, omega1, vector))
    variances = np.diagonal(sigma0, axis1=-2, axis2=-1)
    return {
        "theta0_1": theta0[..., 0],
        "theta0_2": theta0[..., 1],
        "log_Sigma0_11": np.log(variances[..., 0]),
        "log_Sigma0_22": np.log(variances[..., 1]),
        "corr_Sigma0": sigma0[..., 0, 1] / np.sqrt(variances[..., 0] * variances[..., 1]),
        "nu": np.asarray(nu, float),
        "theta1_1": theta1[..., 0],
        "log_sigma1_12": np.log(sigma1_12),
    }


def posterior_quantities(posterior: Any, contrasts: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`ranked_quantities` of every (chain, draw) of a completed joint posterior, in the
    model's units (the posterior stores θ₀, Σ₀, μ_i = Cᵀθ_i and σ_i per pair in units of
    ``UNIT``; θ₁ = C μ₁ since C Cᵀ = I)."""
    first = posterior["mu"].isel(dataset=0).values / UNIT
    return ranked_quantities(
        theta0=posterior["theta0"].values / UNIT,
        sigma0=posterior["Sigma0"].values / UNIT**2,
        nu=posterior["nu"].values,
        theta1=first @ contrasts.T,
        sigma1_12=posterior["sigma"].isel(dataset=0, pair=0).values / UNIT,
    )


def truth_quantities(simulated: SimulatedScores) -> dict[str, float]:
    """:func:`ranked_quantities` of the parameters a replicate was simulated from."""
    truth = simulated.truth
    values = ranked_quantities(
        truth["theta0"], truth["Sigma0"], truth["nu"], truth["theta"][0], truth["Omega"][0]
    )
    return {name: float(value) for name, value in values.items()}


def run_joint_replicate(rep: int, config: JointSBCConfig) -> dict[str, Any]:
    """Simulate, fit and rank one replicate; its streams come from (seed, k, q, n, rep).

    Returns one row: the setting, ``rank_<parameter>``, ``ess_<parameter>`` (bulk ESS of all
    post-warm-up draws) and ``true_<parameter>`` for each of :data:`JOINT_PARAMETERS`, the fit's
    divergences, max R-hat, min E-BFMI, tree-depth hits and wall time.
    """
    seed = derive_seed(config.seed, "joint", config.k, config.q, config.n, rep)
    simulation, inits, stan, thetas, ties = np.random.SeedSequence(seed).spawn(5)
    simulated = simulate_joint(
        config.calibration(),
        config.prior,
        config.q,
        config.n,
        np.random.default_rng(simulation),
        rho=config.rho,
        difficulty_sd=config.difficulty_sd,
        common_sd=config.common_sd,
    )
    cv = simulated.to_cv()
    model_input = build_joint_input(
        cv,
        Rope(0.0, 0.0),
        config.prior,
        np.random.default_rng(0),
        scale=UNIT,
        calibration=config.calibration(),
    )
    if model_input.perturbed:
        raise ValueError("A simulated data set has tied models; the calibration cannot use it.")
    settings = replicate_settings(
        config, stan, initial_values(model_input, config.chains, np.random.default_rng(inits))
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = sample_model(
            JOINT,
            cv,
            model_input,
            settings,
            engine=get_engine(config.engine),
            rng=np.random.default_rng(thetas),
        )
        diagnostics = compute_diagnostics(idata, DIAGNOSED, config.max_treedepth)
    seconds = time.perf_counter() - start
    draws = posterior_quantities(idata.posterior, model_input.contrasts)
    row: dict[str, Any] = {
        "setting": config.label,
        "rep": rep,
        "seconds": seconds,
        "divergences": int(diagnostics["divergences"]),
        "max_rhat": float(diagnostics["max_rhat"]),
        "min_ebfmi": float(diagnostics["min_ebfmi"]),
        "max_treedepth_hits": int(diagnostics["max_treedepth_hits"]),
    }
    truth = truth_quantities(simulated)
    row.update(rank_columns(truth, draws, config.thinned, np.random.default_rng(ties)))
    return row


def run_joint_sbc(
    replicates: int, config: JointSBCConfig, executor: Any, progress: bool = True
) -> pd.DataFrame:
    """``replicates`` replicates of ``config``, one row each (:func:`run_joint_replicate`)."""
    from ..parallel import run_tasks

    if replicates < 1:
        raise ValueError(f"replicates must be >= 1; got {replicates}.")
    tasks = [(rep, config) for rep in range(replicates)]
    return pd.DataFrame(run_tasks(executor, run_joint_replicate, tasks, "joint SBC", progress))


__all__ = [
    "JOINT_PARAMETERS",
    "JointSBCConfig",
    "posterior_quantities",
    "ranked_quantities",
    "run_joint_replicate",
    "run_joint_sbc",
    "truth_quantities",
]
