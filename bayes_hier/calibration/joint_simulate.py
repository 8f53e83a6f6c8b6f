"""Draws from the calibration prior and the likelihood of the joint model (``stan/joint.stan``).

Simulation-based calibration (Talts et al., 2018) needs data simulated from exactly the prior
the fit uses. The shipped joint priors are improper (flat θ₀, ``|M|^(−1/2)`` on Σ₀ and Ω_i), so
the calibration switches the program to its proper calibration prior
(:class:`~bayes_hier.joint.model_input.CalibrationPrior`, scale matrices S₀ and S_Ω) and
simulates from it, in the units of the program (the model input is built with a fixed scale):

    θ₀ ~ N(0, s₀² I_d),   Σ₀ ~ InvWishart(ν₀, S₀),   Ω_i ~ InvWishart(ν_Ω, S_Ω)
    ν − 1 ~ Gamma(α, β),  α ~ U(α_lo, α_hi), β ~ U(β_lo, β_hi)      (the shipped ν prior)
    τ_i ~ Gamma(ν/2, ν/2),   θ_i | τ_i ~ N(θ₀, Σ₀/τ_i)   (⇔ θ_i ~ MVT_d(ν, θ₀, Σ₀))
    Y_i = 1 θ_iᵀ + E_i,   vec(E_i) ~ N(0, Ω_i ⊗ R),   R = (1 − ρ)I + ρ11ᵀ      (n × d)

with d = k − 1 and InvWishart(ν, S) of density ∝ |W|^(−(ν+d+1)/2) exp(−tr(S W⁻¹)/2) (Stan's and
scipy's parametrisation, mean S/(ν − d − 1)). The scores of the k models are mapped back from
the contrasts with the orthonormal Helmert matrix C (C Cᵀ = I, C1 = 0) plus a per-data-set
difficulty and a fold effect common to all models:

    X_i = Y_i C + (m_i 1 + c e_i) 1ᵀ,   m_i ~ N(0, h²),  vec-independent e_i ~ N(0, R)

so that X_i Cᵀ = Y_i exactly and Cov(vec X_i) = Λ_i ⊗ R with Λ_i = CᵀΩ_iC + c²11ᵀ (full rank):
the Kronecker model of issue 12, of which the fit sees the contrasts only.
:func:`~bayes_hier.examples.kronecker_normal` draws the matrix-normal blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from ..examples import equicorrelated_normal, kronecker_normal
from ..joint.contrasts import helmert_contrasts
from ..joint.data import MultiCVData
from ..joint.model_input import CalibrationPrior, JointPrior
from .simulate import draw_mixing


def draw_joint_parameters(
    calibration: CalibrationPrior, prior: JointPrior, q: int, rng: np.random.Generator
) -> dict[str, Any]:
    """One draw of (θ₀, Σ₀, ν[, α, β], τ, θ, Ω) on q data sets (module docstring).

    ``calibration`` holds the proper priors of θ₀, Σ₀ and Ω_i (its scale matrices fix
    d = k − 1), ``prior`` the ν prior (not ``"gaussian"``: the calibration ranks ν). Returns
    ``theta0`` (d), ``Sigma0`` (d × d), ``nu``, ``tau`` (q), ``theta`` (q × d), ``Omega``
    (q × d × d) and, for the hierarchical ν prior, ``nu_alpha`` and ``nu_beta``.
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
    truth["Omega"] = np.array(
        [_inverse_wishart(calibration.noise_df, calibration.noise_scale, rng) for _ in range(q)]
    )
    return truth


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
    calibration: CalibrationPrior,
    prior: JointPrior,
    q: int,
    n: int,
    rng: np.random.Generator,
    rho: float = 0.1,
    difficulty_sd: float = 1.0,
    common_sd: float = 1.0,
) -> SimulatedScores:
    """Parameters from the priors, then n folds of the k = d + 1 models' scores per data set.

    ``difficulty_sd`` (h) and ``common_sd`` (c) set the per-data-set difficulty and the fold
    effect shared by all models (module docstring); neither reaches the contrasts.
    """
    if q < 2 or n < 2:
        raise ValueError(f"Need q >= 2 data sets and n >= 2 folds; got q={q}, n={n}.")
    if not 0 < rho < 1:
        raise ValueError(f"rho must be in (0, 1); got {rho}.")
    truth = draw_joint_parameters(calibration, prior, q, rng)
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


__all__ = [
    "SimulatedScores",
    "draw_joint_parameters",
    "simulate_joint",
]
