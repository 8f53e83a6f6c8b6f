"""The calibration simulator of the joint model: draws from the calibration prior and the
likelihood of ``stan/joint.stan``.

Simulation-based calibration (Talts et al., 2018) needs data simulated from exactly the prior
the fit uses. The shipped joint priors cannot be simulated from (flat θ₀, ``|M|^(−1/2)`` on Ω_i,
Σ₀'s prior scaled by the data's spread), so the calibration switches the program to its proper
calibration prior (:class:`~bayes_hier.joint.model_input.JointCalibrationPrior`, scale matrices
S₀ and S_Ω) and
simulates from it, in the units of the program (the model input is built with a fixed scale)::

    θ₀ ~ N(0, s₀² I_d),   Σ₀ ~ InvWishart(ν₀, S₀),   Ω_i ~ InvWishart(ν_Ω, S_Ω)
    ν − 1 ~ Gamma(α, β),  α ~ U(α_lo, α_hi), β ~ U(β_lo, β_hi)      (the shipped ν prior)
    τ_i ~ Gamma(ν/2, ν/2),   θ_i | τ_i ~ N(θ₀, Σ₀/τ_i)   (⇔ θ_i ~ MVT_d(ν, θ₀, Σ₀))
    Y_i = 1 θ_iᵀ + E_i,   vec(E_i) ~ N(0, Ω_i ⊗ R),   R = (1 − ρ)I + ρ11ᵀ      (n × d)

with d = k − 1 and InvWishart(ν, S) of density ∝ ``|W|^(−(ν+d+1)/2) exp(−tr(S W⁻¹)/2)`` (Stan's and
scipy's parametrisation, mean S/(ν − d − 1)). The scores of the k models are mapped back from
the contrasts with the orthonormal Helmert matrix C (C Cᵀ = I, C1 = 0) plus a per-data-set
difficulty and a fold effect common to all models::

    X_i = Y_i C + (m_i 1 + c e_i) 1ᵀ,   m_i ~ N(0, h²),  vec-independent e_i ~ N(0, R)

so that X_i Cᵀ = Y_i exactly and Cov(vec X_i) = Λ_i ⊗ R with Λ_i = CᵀΩ_iC + c²11ᵀ (full rank):
the Kronecker model of the fold noise (Ω_i ⊗ R_i), of which the fit sees the contrasts only.
:func:`~bayes_hier.examples.kronecker_normal` draws the matrix-normal blocks.

:class:`JointSimulator` is the model's :class:`~bayes_hier.fitting.model.Simulator` and
:func:`calibration_suite` its default calibration run (``python -m bayes_hier.calibration
--model joint``). The ranked quantities (:data:`JOINT_PARAMETERS`, computed by
:func:`ranked_quantities` from the truth and from every posterior draw alike), at k = 3:

* ``theta0_1``, ``theta0_2``: the population mean contrasts θ₀;
* ``log_Sigma0_11``, ``log_Sigma0_22``, ``corr_Sigma0``: Σ₀ as log-variances and correlation
  (the ranks of log Σ₀_jj are those of Σ₀_jj);
* ``nu``: the degrees of freedom of the population;
* ``theta1_1``: the first contrast of data set 1's true contrasts θ₁ (the completion step);
* ``log_sigma1_12``: log of data set 1's per-fold noise sd of model 2 − model 1,
  √(cᵀΩ₁c) with c = C(e₂ − e₁).

The fit uses the joint model input built by ``build_joint_input`` with a fixed scale (the unit
of the program, 1) and the calibration prior switched on, the shipped program, its data-based
initial values and the posterior completion that draws θ_i from its full conditional.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import arviz as az
import numpy as np
from scipy import stats

from ..examples import equicorrelated_normal, kronecker_normal
from ..fitting.model import CalibrationSuite, Simulation
from ..hierarchical.simulate import draw_mixing
from ..rope import Rope
from .contrasts import helmert_contrasts, pair_vectors
from .data import MultiCVData
from .fold_noise import log_sigmas
from .model import JOINT, JOINT_FOLD, JointModel
from .model_input import JointCalibrationPrior, JointPrior, build_joint_input

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


def draw_joint_parameters(
    calibration: JointCalibrationPrior,
    prior: JointPrior,
    q: int,
    rng: np.random.Generator,
    noise: str = "full",
) -> dict[str, Any]:
    """One draw of (θ₀, Σ₀, ν[, α, β], τ, θ, Ω) on q data sets (module docstring).

    ``calibration`` holds the proper priors of θ₀, Σ₀ and Ω_i (its scale matrices fix
    d = k − 1), ``prior`` the ν prior (not ``"gaussian"``: the calibration ranks ν). Returns
    ``theta0`` (d), ``Sigma0`` (d × d), ``nu``, ``tau`` (q), ``theta`` (q × d), ``Omega``
    (q × d × d) and, for the hierarchical ν prior, ``nu_alpha`` and ``nu_beta``. With
    ``noise="fold"`` the Ω_i are C D_iCᵀ from the fold-level scales (:func:`draw_fold_noise`),
    which are returned too.
    """
    if not prior.heavy_tailed:
        raise ValueError("The calibration draws nu: choose a Student-t nu prior, not 'gaussian'.")
    d = np.shape(calibration.population_scale)[0]
    truth: dict[str, Any] = {
        "theta0": calibration.theta0_sd * rng.standard_normal(d),
        "Sigma0": _inverse_wishart(calibration.population_df, calibration.population_scale, rng),
    }
    truth.update(draw_mixing(prior.nu_prior, prior.alpha_range, prior.beta_range, q, rng))
    root = np.linalg.cholesky(truth["Sigma0"])
    z = rng.standard_normal((q, d))
    truth["theta"] = truth["theta0"] + (z @ root.T) / np.sqrt(truth["tau"])[:, None]
    if noise == "full":
        truth["Omega"] = np.array(
            [_inverse_wishart(calibration.noise_df, calibration.noise_scale, rng) for _ in range(q)]
        )
    else:
        truth.update(draw_fold_noise(calibration.noise_level_sd, q, d + 1, rng))
    return truth


def draw_fold_noise(
    level_sd: float, q: int, k: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """The fold-level noise's calibration prior (:mod:`~.fold_noise`, s_i = 1, every model run):
    λ_i ~ N(0, level_sd²), κ = Cᵀκ_raw, η_i = Cᵀη_raw,i with standard normal raw vectors,
    ω ~ half-N(0, 1); σ_im = exp(λ_i + r_im − ½ log mean_m exp(2r_im)), r_im = κ_m + ω η_im, so
    that λ_i is the log of the data set's root mean square σ_im. Returns ``noise_sd`` (q × k),
    ``noise_spread`` (ω) and ``Omega`` = C diag(σ_i²) Cᵀ (q × (k − 1) × (k − 1))."""
    contrasts = helmert_contrasts(k)
    level = level_sd * rng.standard_normal(q)
    model_noise_raw = rng.standard_normal(k - 1)
    spread = abs(rng.standard_normal())
    noise_raw = rng.standard_normal((q, k - 1))
    every_model = {"log_noise_level": np.zeros(q), "run": np.ones((q, k))}
    log_sigma = log_sigmas(every_model, level, model_noise_raw, np.asarray(spread), noise_raw)
    noise_sd = np.exp(log_sigma)
    omega = np.einsum("jm,qm,lm->qjl", contrasts, noise_sd**2, contrasts)
    return {"noise_sd": noise_sd, "noise_spread": spread, "Omega": omega}


def _inverse_wishart(df: float, scale: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    draw = stats.invwishart.rvs(df=df, scale=scale, random_state=rng)
    return np.atleast_2d(draw)


@dataclass(frozen=True)
class SimulatedScores:
    """Parameters drawn from the calibration prior and the k models' scores given them.

    Attributes
    ----------
    truth
        :func:`draw_joint_parameters`' draw plus ``difficulty`` (q) and ``Lambda``
        (q × k × k, the covariance across models of one fold's scores).
    scores
        One n × k score matrix per data set (folds paired across models).
    rho
        The fold correlation of every data set.
    """

    truth: dict[str, Any]
    scores: tuple[np.ndarray, ...]
    rho: float

    def to_cv(self) -> MultiCVData:
        """The scores as the joint model's data: models ``m1..mk``, data sets ``d1..dq``,
        one run of n folds, fold correlation ``rho``."""
        q, k = len(self.scores), self.scores[0].shape[1]
        return MultiCVData(
            scores=self.scores,
            models=tuple(f"m{a + 1}" for a in range(k)),
            datasets=tuple(f"d{i + 1}" for i in range(q)),
            runs=np.ones(q, dtype=int),
            rho=np.full(q, self.rho),
        )


def simulate_joint(
    calibration: JointCalibrationPrior,
    prior: JointPrior,
    q: int,
    n: int,
    rng: np.random.Generator,
    rho: float = 0.1,
    difficulty_sd: float = 1.0,
    common_sd: float = 1.0,
    noise: str = "full",
) -> SimulatedScores:
    """Parameters from the priors, then n folds of the k = d + 1 models' scores per data set.

    ``difficulty_sd`` (h) and ``common_sd`` (c) set the per-data-set difficulty and the fold
    effect shared by all models (module docstring); neither reaches the contrasts. ``noise``:
    the prior of the Ω_i (:func:`draw_joint_parameters`).
    """
    if q < 2 or n < 2:
        raise ValueError(f"Need q >= 2 data sets and n >= 2 folds; got q={q}, n={n}.")
    if not 0 < rho < 1:
        raise ValueError(f"rho must be in (0, 1); got {rho}.")
    truth = draw_joint_parameters(calibration, prior, q, rng, noise)
    k = truth["theta0"].size + 1
    contrasts = helmert_contrasts(k)
    ones = np.ones(k)
    difficulty = difficulty_sd * rng.standard_normal(q)
    blocks = []
    for i in range(q):
        y = kronecker_normal(truth["theta"][i], truth["Omega"][i], rho, n, rng)
        common = equicorrelated_normal(difficulty[i : i + 1], common_sd, rho, n, rng)[0]
        blocks.append(y @ contrasts + common[:, None] * ones)
    truth["difficulty"] = difficulty
    truth["Lambda"] = contrasts.T @ truth["Omega"] @ contrasts + common_sd**2 * np.outer(ones, ones)
    return SimulatedScores(truth=truth, scores=tuple(blocks), rho=rho)


def ranked_quantities(
    theta0: np.ndarray,
    sigma0: np.ndarray,
    nu: np.ndarray,
    theta1: np.ndarray,
    omega1: np.ndarray | None = None,
    sigma1_12: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """:data:`JOINT_PARAMETERS` from θ₀ (..., d), Σ₀ (..., d, d), ν (...), θ₁ (..., d) and
    either Ω₁ (..., d, d) or its pair sd √(cᵀΩ₁c) directly (``sigma1_12``, as the posterior
    stores it); d ≥ 2, the first two contrasts.

    The leading dimensions are those of the truth (none) or of the draws (chain, draw).
    """
    if sigma1_12 is None:
        vector = pair_vectors(helmert_contrasts(theta0.shape[-1] + 1), [(0, 1)])[0]
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
    """:func:`ranked_quantities` of every (chain, draw) of a completed joint posterior fitted in
    the unit 1 (it stores θ₀, Σ₀, μ_i = Cᵀθ_i and σ_i per pair; θ₁ = C μ₁ since C Cᵀ = I)."""
    first = posterior["mu"].isel(dataset=0).values
    quantities = ranked_quantities(
        theta0=posterior["theta0"].values,
        sigma0=posterior["Sigma0"].values,
        nu=posterior["nu"].values,
        theta1=first @ contrasts.T,
        sigma1_12=posterior["sigma"].isel(dataset=0, pair=0).values,
    )
    if "noise_spread" in posterior:
        quantities["noise_spread"] = posterior["noise_spread"].values
    return quantities


def truth_quantities(simulated: SimulatedScores) -> dict[str, float]:
    """:func:`ranked_quantities` of the parameters a replicate was simulated from."""
    truth = simulated.truth
    values = ranked_quantities(
        truth["theta0"], truth["Sigma0"], truth["nu"], truth["theta"][0], truth["Omega"][0]
    )
    if "noise_spread" in truth:
        values["noise_spread"] = truth["noise_spread"]
    return {name: float(value) for name, value in values.items()}


def default_calibration_prior() -> JointCalibrationPrior:
    """θ₀ ~ N(0, I), Σ₀ ~ InvWishart(6, I) and Ω_i ~ InvWishart(6, 3I) at k = 3 (means I/3 and
    I): the prior of ``make calibrate-joint``."""
    identity = np.eye(2)
    return JointCalibrationPrior(1.0, 6.0, identity, 6.0, 3.0 * identity)


@dataclass(frozen=True)
class JointSimulator:
    """The joint model's calibration simulator at k = 3 models (the ranked quantities' k).

    Attributes
    ----------
    q, n, rho
        Data sets, folds per data set and fold correlation of the simulated scores.
    calibration
        The proper priors of θ₀, Σ₀ and Ω_i (:class:`~.model_input.JointCalibrationPrior`,
        2 × 2 scale matrices).
    difficulty_sd, common_sd
        Per-data-set difficulty and fold effect common to all models (invisible to the fit).
    prior
        The ν prior (the shipped hierarchical one by default; not ``"gaussian"``).
    """

    q: int = 10
    n: int = 10
    rho: float = 0.1
    calibration: JointCalibrationPrior = field(default_factory=default_calibration_prior)
    difficulty_sd: float = 1.0
    common_sd: float = 1.0
    prior: JointPrior = field(default_factory=JointPrior)
    k: ClassVar[int] = 3
    noise: ClassVar[str] = "full"
    model: ClassVar[JointModel] = JOINT
    checked: ClassVar[tuple[str, ...]] = JOINT_PARAMETERS

    @property
    def setting(self) -> dict[str, Any]:
        return {"k": self.k, "q": self.q, "n": self.n}

    def simulate(self, rng: np.random.Generator) -> Simulation:
        simulated = simulate_joint(
            self.calibration,
            self.prior,
            self.q,
            self.n,
            rng,
            rho=self.rho,
            difficulty_sd=self.difficulty_sd,
            common_sd=self.common_sd,
            noise=self.noise,
        )
        cv = simulated.to_cv()
        model_input = build_joint_input(
            cv, Rope(0.0, 0.0), self.prior, np.random.default_rng(0), scale=1.0,
            calibration=self.calibration, noise=self.noise,
        )  # fmt: skip
        if model_input.perturbed:
            raise ValueError("A simulated data set has tied models; the calibration cannot use it.")
        return Simulation(truth_quantities(simulated), cv, model_input)

    def checked_draws(self, idata: az.InferenceData) -> dict[str, np.ndarray]:
        return posterior_quantities(idata.posterior, helmert_contrasts(self.k))

    def describe(self) -> str:
        """The design and the calibration prior in one paragraph."""
        c = self.calibration
        return (
            f"{self.model.name[0].upper()}{self.model.name[1:]}, k = {self.k} models, "
            f"q = {self.q} data sets, n = {self.n} folds (ρ = {self.rho:g}). Calibration prior "
            f"(units of the Stan program, fixed scale 1): θ₀ ~ N(0, {c.theta0_sd:g}² I), "
            f"Σ₀ ~ InvWishart({c.population_df:g}, {np.round(c.population_scale, 3).tolist()}), "
            f"{self._noise_prior()}, ν − 1 ~ Gamma(α, β) with α ~ U{self.prior.alpha_range}, "
            f"β ~ U{self.prior.beta_range}, τ_i ~ Gamma(ν/2, ν/2). Scores: contrasts mapped back "
            f"with Cᵀ plus a per-data-set difficulty (sd {self.difficulty_sd:g}) and a common "
            f"fold effect (sd {self.common_sd:g}). Fits: shipped stan/{self.model.program}.stan "
            f"with calibration_prior = 1, package initial values."
        )

    def _noise_prior(self) -> str:
        c = self.calibration
        if self.noise == "full":
            return f"Ω_i ~ InvWishart({c.noise_df:g}, {np.round(c.noise_scale, 3).tolist()})"
        return (
            "Ω_i = C diag(σ_i²) Cᵀ with log σ_im = λ_i + r_im − ½ log mean_m exp(2r_im), "
            f"r_im = κ_m + ω η_im (λ_i the log root mean square scale), λ_i ~ "
            f"N(0, {c.noise_level_sd:g}²), κ = Cᵀκ_raw and η_i = Cᵀη_raw,i with standard normal "
            "raw vectors, ω ~ half-N(0, 1)"
        )


def fold_calibration_prior(k: int = 5) -> JointCalibrationPrior:
    """θ₀ ~ N(0, I), Σ₀ ~ InvWishart(k + 3, I) (mean I/3) and λ_i ~ N(0, 1) at k models: the
    prior of the fold-level noise's calibration (its ``noise_df`` and ``noise_scale`` are
    unused)."""
    identity = np.eye(k - 1)
    return JointCalibrationPrior(1.0, k + 3.0, identity, float(k), identity, noise_level_sd=1.0)


@dataclass(frozen=True)
class FoldNoiseSimulator(JointSimulator):
    """The calibration simulator of the joint model with fold-level noise
    (``joint_fold.stan``) at k = 5 models and 4 folds: the design it is made for (fewer folds
    than models). Ranks :data:`JOINT_PARAMETERS` and ``noise_spread`` (ω)."""

    n: int = 4
    calibration: JointCalibrationPrior = field(default_factory=fold_calibration_prior)
    k: ClassVar[int] = 5
    noise: ClassVar[str] = "fold"
    model: ClassVar[JointModel] = JOINT_FOLD
    checked: ClassVar[tuple[str, ...]] = (*JOINT_PARAMETERS, "noise_spread")


@dataclass(frozen=True)
class TwoFoldNoiseSimulator(FoldNoiseSimulator):
    """The fold-level noise's calibration simulator at k = 8 models and 2 folds, the fewest its
    noise scales can be estimated from: Σ₀ ~ InvWishart(11, I) on the 7 contrasts
    (:func:`fold_calibration_prior` at k = 8)."""

    n: int = 2
    calibration: JointCalibrationPrior = field(default_factory=lambda: fold_calibration_prior(8))
    k: ClassVar[int] = 8


def calibration_suite(simulator: JointSimulator | None = None) -> CalibrationSuite:
    """``make calibrate-joint``: 200 replicates at k = 3, q = 10, n = 10, 2 chains × 150 draws
    after 150 warm-up, L = 29 (at least 200 replicates, so that the rank histograms can show a
    miscalibration)."""
    simulator = simulator or JointSimulator()
    return CalibrationSuite(
        (simulator,), warmup=150, draws=150, thinned=29, seed=20181026,
        description=simulator.describe(),
    )  # fmt: skip


def fold_noise_suite(simulator: JointSimulator | None = None) -> CalibrationSuite:
    """``make calibrate-joint``'s fold-level noise: 200 replicates at k = 5, q = 10, n = 4,
    2 chains × 150 draws after 150 warm-up, L = 29."""
    return calibration_suite(simulator or FoldNoiseSimulator())


def two_fold_noise_suite(simulator: JointSimulator | None = None) -> CalibrationSuite:
    """``make calibrate-joint``'s fold-level noise at its extreme design: 200 replicates at
    k = 8, q = 10, n = 2, 2 chains × 150 draws after 150 warm-up, L = 29."""
    return calibration_suite(simulator or TwoFoldNoiseSimulator())


__all__ = [
    "JOINT_PARAMETERS",
    "FoldNoiseSimulator",
    "JointSimulator",
    "SimulatedScores",
    "TwoFoldNoiseSimulator",
    "calibration_suite",
    "default_calibration_prior",
    "draw_fold_noise",
    "draw_joint_parameters",
    "fold_calibration_prior",
    "fold_noise_suite",
    "posterior_quantities",
    "ranked_quantities",
    "simulate_joint",
    "truth_quantities",
    "two_fold_noise_suite",
]
