"""Closed-form log likelihood of equicorrelated normal cross-validation results (SPEC §3.1).

For data set i with n_i differences, mean x̄_i, SS_i = Σ_j (x_ij − x̄_i)² and fold correlation ρ_i,
the covariance Σ_i = σ_i²[(1 − ρ_i)I + ρ_i 11ᵀ] has eigenvalues σ_i²(1 − ρ_i) (n_i − 1 times, on
the vectors orthogonal to 1) and σ_i²(1 + (n_i − 1)ρ_i) (on 1). Hence, with a = 1 − ρ_i and
b = 1 + (n_i − 1)ρ_i,

    (x_i − 1δ_i)ᵀ Σ_i⁻¹ (x_i − 1δ_i) = [SS_i / a + n_i (x̄_i − δ_i)² / b] / σ_i²
    log |Σ_i| = 2 n_i log σ_i + (n_i − 1) log a + log b

This is the expression ``stan/hierarchical.stan`` evaluates; the NumPy version here documents it
and serves as the reference of the tests.
"""

from __future__ import annotations

import numpy as np


def equicorrelated_log_likelihood(
    n: np.ndarray,
    mean: np.ndarray,
    sum_of_squares: np.ndarray,
    rho: np.ndarray,
    delta: np.ndarray,
    sigma: np.ndarray,
) -> np.ndarray:
    """Log density of each data set's differences under MVN(1δ_i, Σ_i), from (n, x̄, SS, ρ).

    All arguments broadcast; returns one log density per data set.
    """
    n, mean, ss, rho, delta, sigma = (
        np.asarray(v, dtype=float) for v in (n, mean, sum_of_squares, rho, delta, sigma)
    )
    a = 1.0 - rho
    b = 1.0 + (n - 1.0) * rho
    quadratic = (ss / a + n * (mean - delta) ** 2 / b) / sigma**2
    log_det = 2.0 * n * np.log(sigma) + (n - 1.0) * np.log(a) + np.log(b)
    return -0.5 * (n * np.log(2.0 * np.pi) + log_det + quadratic)
