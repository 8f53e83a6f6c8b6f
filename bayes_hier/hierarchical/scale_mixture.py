"""The sampler's coordinates of ν and of the Student-t mixing precisions, back to the model's.

The Stan programs write the population δ_i ~ Student-t(ν, δ₀, σ₀) as the scale mixture
δ_i | τ_i ~ N(δ₀, σ₀²/τ_i), τ_i ~ Gamma(ν/2, ν/2), and sample ν − 1 ~ Gamma(shape, rate) and the
τ_i through their *standardised logarithms* (``stan/include/hierarchical_functions.stan``):
for g ~ Gamma(shape, rate),

    log g = E[log g] + sd[log g] · z,   E[log g] = ψ(shape) − log(rate),   sd[log g] = √ψ′(shape),

with ψ the digamma function. This module maps draws of z back; the tests check the moments
against scipy's Gamma distribution.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats


def log_gamma_from_standardised(z: ArrayLike, shape: ArrayLike, rate: ArrayLike) -> np.ndarray:
    """log g from its standardised value z, for g ~ Gamma(shape, rate) (arguments broadcast)."""
    z, shape, rate = (np.asarray(x, dtype=float) for x in (z, shape, rate))
    return special.digamma(shape) - np.log(rate) + np.sqrt(special.polygamma(1, shape)) * z


def nu_from_standardised(nu_raw: ArrayLike, shape: ArrayLike, rate: ArrayLike) -> np.ndarray:
    """Degrees of freedom ν = 1 + exp(log(ν − 1)) from the sampler's ``nu_raw``."""
    return 1.0 + np.exp(log_gamma_from_standardised(nu_raw, shape, rate))


def tau_from_standardised(tau_raw: ArrayLike, nu: ArrayLike) -> np.ndarray:
    """Mixing precisions τ_i ~ Gamma(ν/2, ν/2) from the sampler's ``tau_raw``."""
    half_nu = np.asarray(nu, dtype=float) / 2
    return np.exp(log_gamma_from_standardised(tau_raw, half_nu, half_nu))


def standardised_log_gamma_log_density(
    z: ArrayLike, shape: ArrayLike, rate: ArrayLike
) -> np.ndarray:
    """log p(z) of the standardised logarithm z of g ~ Gamma(shape, rate).

    The change of variables g = exp(E[log g] + sd[log g]·z) has the Jacobian g·sd[log g], so
    log p(z) = log Gamma(g | shape, rate) + log g + log sd[log g]: what the Stan function
    ``standardised_log_gamma_lp`` adds to the target.
    """
    shape, rate = np.asarray(shape, dtype=float), np.asarray(rate, dtype=float)
    log_g = log_gamma_from_standardised(z, shape, rate)
    log_sd = 0.5 * np.log(special.polygamma(1, shape))
    return stats.gamma(shape, scale=1 / rate).logpdf(np.exp(log_g)) + log_g + log_sd
