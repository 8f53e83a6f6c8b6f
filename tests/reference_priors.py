"""NumPy statement of the priors the Stan programs share (``stan/include``): the standardised
logs of ν − 1 and of the mixing precisions τ_i (the two-model and the joint programs) and the
population covariance of the joint programs, used by their log-density tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy import special, stats

from bayes_hier.hierarchical.scale_mixture import (
    log_gamma_from_standardised,
    standardised_log_gamma_log_density,
    tau_from_standardised,
)


def scale_mixture_log_prior(
    data: Mapping[str, Any], point: Mapping[str, Any]
) -> tuple[float, np.ndarray]:
    """Log density of ``nu_raw`` and ``tau_raw`` at ``point`` (Gamma densities times the Jacobians
    of the standardised logs) and the 1/τ_i it implies; ``(0, ones)`` for the Gaussian population.
    """
    if data["nu_prior"] == 2:
        return 0.0, np.ones(data["q"])
    if data["nu_prior"] == 0:
        shape, rate = point["nu_alpha"][0], point["nu_beta"][0]
    else:
        shape, rate = data["nu_shape"], data["nu_rate"]
    nu = 1 + np.exp(log_gamma_from_standardised(point["nu_raw"][0], shape, rate))
    log_prior = float(standardised_log_gamma_log_density(point["nu_raw"][0], shape, rate))
    log_prior += float(np.sum(standardised_log_gamma_log_density(point["tau_raw"], nu / 2, nu / 2)))
    return log_prior, 1 / tau_from_standardised(point["tau_raw"], nu)


def randomise_mixing(point: dict[str, Any], rng: np.random.Generator) -> None:
    """Move the scale mixture's coordinates of a sampler ``point`` (``tau_raw``, ``nu_raw`` and,
    with the hierarchical prior on ν, ``nu_alpha`` and ``nu_beta`` inside their bounds) to random
    values, in place: the log-density tests evaluate the programs away from their initial
    values."""
    point["tau_raw"] = rng.normal(0, 1.5, point["tau_raw"].size)
    point["nu_raw"] = rng.normal(0, 1.5, point["nu_raw"].size)
    if point["nu_alpha"]:
        point["nu_alpha"] = [float(rng.uniform(0.6, 4.9))]
        point["nu_beta"] = [float(rng.uniform(0.06, 0.14))]


def lkj_cholesky_log_density(factor: np.ndarray, shape: float) -> float:
    """log LKJ(η) density of R = L Lᵀ in the coordinates of its Cholesky factor L (Stan's
    ``lkj_corr_cholesky_lpdf``, constant included): −log c_d(η) + Σ_{i≥2} (d − i + 2η − 2) log L_ii
    (1-based i), with the normaliser of Lewandowski, Kurowicka and Joe (2009, eq. 16)
    log c_d = Σ_{k=1}^{d−1} [(2η − 2 + d − k)(d − k) log 2 + (d − k) log B(b_k, b_k)],
    b_k = η + (d − k − 1)/2."""
    d = factor.shape[0]
    log_normaliser = sum(
        (2 * shape - 2 + d - k) * (d - k) * np.log(2)
        + (d - k) * special.betaln(shape + (d - k - 1) / 2, shape + (d - k - 1) / 2)
        for k in range(1, d)
    )
    powers = d - np.arange(1, d + 1) + 2 * shape - 2
    return float(np.sum(powers[1:] * np.log(np.diag(factor)[1:])) - log_normaliser)


def population_log_prior(
    data: Mapping[str, Any], point: Mapping[str, Any], inverse_tau: np.ndarray
) -> tuple[float, np.ndarray]:
    """Log density of the joint programs' Σ₀ coordinates at ``point`` and the Σ₀ they give.

    The programs sample the standard deviations s and the correlation factor L_R of Σ₀/g in the
    basis A₀ (L₀ = diag(s)L_R, Σ₀ = g A₀L₀L₀ᵀA₀ᵀ, g the geometric mean of the τ_i, from
    ``inverse_tau`` = 1/τ_i). Default prior, exact: LKJ(η) on L_R and half-normal(0, scale) on
    Σ₀'s own standard deviations √g s, with the Jacobian g^(d/2) of s ↦ √g s at fixed τ.
    Calibration prior (up to a constant): scipy's inverse Wishart of Σ₀ times the Jacobian of
    (s, L_R) ↦ Σ₀: that of Σ₀'s factor F = √g L₀, Σ_j (d − j + 1) log F_jj (1-based j), of
    L₀ ↦ F at fixed τ, g^(d(d+1)/4), and of (s, L_R) ↦ L₀, Π_j s_j^(j−1) / L_R,jj.
    """
    d = data["k"] - 1
    sd = np.asarray(point["population_sd"], float)
    corr = np.asarray(point["population_corr"], float)
    log_g = -np.mean(np.log(inverse_tau))
    own_sd = np.exp(log_g / 2) * sd  # Σ₀'s standard deviations in the basis A₀
    factor = own_sd[:, None] * corr  # Σ₀'s own factor in the basis A₀
    root = data["population_basis"] @ factor
    population = root @ root.T
    if data["calibration_prior"] != 1:
        log_prior = lkj_cholesky_log_density(corr, data["population_corr_shape"])
        log_prior += np.sum(stats.halfnorm(scale=data["population_sd_scale"]).logpdf(own_sd))
        log_prior += d / 2 * log_g  # Jacobian of s ↦ √g s at fixed τ
        return float(log_prior), population
    j = np.arange(1, d + 1)
    log_prior = np.sum((d - j + 1) * np.log(np.diag(factor))) + d * (d + 1) / 4 * log_g
    log_prior += np.sum((j - 1) * np.log(sd)) - np.sum(np.log(np.diag(corr)))
    log_prior += stats.invwishart(
        data["population_prior_df"], data["population_prior_scale"]
    ).logpdf(population)
    return float(log_prior), population


def random_population_point(point: dict[str, Any], rng: np.random.Generator) -> None:
    """Move Σ₀'s coordinates of a sampler ``point`` to random values, in place: standard
    deviations between 0.15 and 3 and a random correlation factor (the Cholesky factor of the
    sample correlation of d + 8 standard normal vectors: correlations of about ±0.3, so that the
    literal references keep their precision)."""
    d = np.size(point["population_sd"])
    point["population_sd"] = rng.uniform(0.15, 3.0, d)
    noise = rng.normal(size=(d, d + 8))
    covariance = noise @ noise.T
    scale = np.sqrt(np.diag(covariance))
    point["population_corr"] = np.linalg.cholesky(covariance / np.outer(scale, scale))
