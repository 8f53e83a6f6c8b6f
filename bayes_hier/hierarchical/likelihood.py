"""Closed-form likelihood of equicorrelated normal cross-validation results (conventions §3.1).

For data set i with n_i differences, mean x̄_i, SS_i = Σ_j (x_ij − x̄_i)² and fold correlation ρ_i,
the covariance Σ_i = σ_i²[(1 − ρ_i)I + ρ_i 11ᵀ] has eigenvalues σ_i²(1 − ρ_i) (n_i − 1 times, on
the vectors orthogonal to 1) and σ_i²(1 + (n_i − 1)ρ_i) (on 1). Hence, with a = 1 − ρ_i and
b = 1 + (n_i − 1)ρ_i,

    (x_i − 1δ_i)ᵀ Σ_i⁻¹ (x_i − 1δ_i) = [SS_i / a + n_i (x̄_i − δ_i)² / b] / σ_i²
    log |Σ_i| = 2 n_i log σ_i + (n_i − 1) log a + log b

If δ_i itself is normal, δ_i ~ N(δ₀, v_i) (the Student-t population given its mixing precision,
see ``stan/include/hierarchical_prior.stan``), integrating it out adds v_i 11ᵀ to Σ_i: the
eigenvalue on 1 becomes σ_i² b + n_i v_i and the mean δ₀, the rest is unchanged. This is the
expression ``stan/hierarchical.stan`` evaluates; the NumPy version here documents it and serves
as the reference of the tests. :func:`delta_full_conditional` is the normal posterior of δ_i
given everything else, from which the true differences are drawn after sampling.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def equicorrelated_log_likelihood(
    n: ArrayLike,
    mean: ArrayLike,
    sum_of_squares: ArrayLike,
    rho: ArrayLike,
    delta: ArrayLike,
    sigma: ArrayLike,
    common_variance: ArrayLike = 0.0,
) -> np.ndarray:
    """Log density of each data set's differences under MVN(1δ, Σ + v 11ᵀ), from (n, x̄, SS, ρ).

    With ``common_variance`` v = 0 this is the likelihood of δ_i and σ_i; with v_i > 0 it is the
    marginal likelihood of δ₀ = ``delta`` when δ_i ~ N(δ₀, v_i) has been integrated out. All
    arguments broadcast; returns one log density per data set.
    """
    n, mean, ss, rho, delta, sigma, v = (
        np.asarray(x, dtype=float)
        for x in (n, mean, sum_of_squares, rho, delta, sigma, common_variance)
    )
    a = 1.0 - rho
    on_ones = sigma**2 * (1.0 + (n - 1.0) * rho) + n * v  # eigenvalue of the covariance on 1
    quadratic = ss / (a * sigma**2) + n * (mean - delta) ** 2 / on_ones
    log_det = (n - 1.0) * np.log(a * sigma**2) + np.log(on_ones)
    return -0.5 * (n * np.log(2.0 * np.pi) + log_det + quadratic)


def delta_full_conditional(
    n: ArrayLike,
    mean: ArrayLike,
    rho: ArrayLike,
    sigma: ArrayLike,
    delta0: ArrayLike,
    population_variance: ArrayLike,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of δ_i given x_i, σ_i, δ₀ and v_i = Var(δ_i | δ₀, σ₀, τ_i).

    Only x̄_i carries information on δ_i: x̄_i | δ_i ~ N(δ_i, σ_i² b_i / n_i). With the prior
    δ_i ~ N(δ₀, v_i) the posterior is normal with precision 1/v_i + 1/w_i, w_i = σ_i² b_i / n_i,
    and mean the precision-weighted average (w_i δ₀ + v_i x̄_i) / (v_i + w_i) of δ₀ and x̄_i (the
    shrinkage estimator of conventions §3.4, given the hyper-parameters). All arguments broadcast.
    """
    n, mean, rho, sigma, delta0, v = (
        np.asarray(x, dtype=float) for x in (n, mean, rho, sigma, delta0, population_variance)
    )
    noise_variance = sigma**2 * (1.0 + (n - 1.0) * rho) / n  # Var(x̄_i | δ_i, σ_i)
    total = v + noise_variance  # written without 1/v: finite when v underflows to 0
    return (noise_variance * delta0 + v * mean) / total, v * noise_variance / total
