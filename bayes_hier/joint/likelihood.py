"""Closed-form likelihood of the contrasts of k models and the full conditional of θ_i.

For data set i with the n_i × d contrasts Y_i, vec(Y_i) ~ MVN(θ_i ⊗ 1, Ω_i ⊗ R_i) with the
equicorrelated R_i = (1 − ρ_i)I + ρ_i 11ᵀ (eigenvalues a_i = 1 − ρ_i off 1,
b_i = 1 + (n_i − 1)ρ_i on 1). With ȳ_i the mean and S_i the scatter of the rows of Y_i,

    log p(Y_i) = −n_i d/2 log 2π − n_i/2 log|Ω_i| − d(n_i − 1)/2 log a_i − d/2 log b_i
                 − tr(Ω_i⁻¹ S_i)/(2a_i) − n_i (ȳ_i − θ_i)ᵀ Ω_i⁻¹ (ȳ_i − θ_i)/(2b_i).

With θ_i ~ N(θ₀, V_i) (the Student-t population given its mixing precision, V_i = Σ₀/τ_i)
integrated out, the last term becomes the normal density of ȳ_i with mean θ₀ and covariance
V_i + (b_i/n_i)Ω_i (times n_i^(−d/2)). This NumPy statement is the reference of the tests of
``stan/joint.stan``; :func:`theta_full_conditional` gives the normal posterior of θ_i from which
the Python layer draws the true contrasts after sampling.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats


def marginal_contrast_log_likelihood(
    n: ArrayLike,
    rho: ArrayLike,
    ybar: np.ndarray,
    scatter: np.ndarray,
    theta0: np.ndarray,
    population_cov: np.ndarray,
    noise_cov: np.ndarray,
) -> np.ndarray:
    """Exact log density of every data set's contrasts with θ_i ~ N(θ₀, V_i) integrated out.

    Parameters
    ----------
    n, rho
        Folds and fold correlation per data set (q).
    ybar, scatter
        ȳ_i (q × d) and S_i (q × d × d).
    theta0
        θ₀ (d).
    population_cov
        V_i (q × d × d) or one d × d matrix for all data sets (V_i = 0: the likelihood of θ₀ = θ_i).
    noise_cov
        Ω_i (q × d × d).

    Returns
    -------
    numpy.ndarray
        One log density per data set.
    """
    n, rho = np.asarray(n, float), np.asarray(rho, float)
    q, d = ybar.shape
    a, b = 1 - rho, 1 + (n - 1) * rho
    population_cov = np.broadcast_to(population_cov, (q, d, d))
    out = np.empty(q)
    for i in range(q):
        log_det = np.linalg.slogdet(noise_cov[i])[1]
        trace = np.trace(np.linalg.solve(noise_cov[i], scatter[i]))
        out[i] = (
            -0.5 * (n[i] - 1) * (d * np.log(2 * np.pi * a[i]) + log_det)
            - trace / (2 * a[i])
            - 0.5 * d * np.log(n[i])
            + stats.multivariate_normal(
                theta0, population_cov[i] + b[i] / n[i] * noise_cov[i]
            ).logpdf(ybar[i])
        )
    return out


def theta_full_conditional(
    n: ArrayLike,
    rho: ArrayLike,
    ybar: np.ndarray,
    theta0: np.ndarray,
    population_cov: np.ndarray,
    noise_cov: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of θ_i given ȳ_i, θ₀, V_i and Ω_i (all arguments broadcast).

    ȳ_i | θ_i ~ N(θ_i, W_i), W_i = (b_i/n_i)Ω_i, and θ_i ~ N(θ₀, V_i), so θ_i | · is normal with
    mean θ₀ + V_i(V_i + W_i)⁻¹(ȳ_i − θ₀) and covariance V_i(V_i + W_i)⁻¹W_i: the multivariate
    shrinkage estimator, written without V_i⁻¹ so that it stays finite when V_i is singular.
    Shapes: ``n, rho`` (..., ) ; ``ybar, theta0`` (..., d); covariances (..., d, d).
    """
    n, rho = np.asarray(n, float), np.asarray(rho, float)
    b_over_n = (1 + (n - 1) * rho) / n
    noise = b_over_n[..., None, None] * noise_cov
    total = population_cov + noise
    gain = np.swapaxes(np.linalg.solve(total, population_cov), -1, -2)  # V (V + W)^-1 (V, W sym.)
    mean = theta0 + np.einsum("...ij,...j->...i", gain, ybar - theta0)
    cov = gain @ noise
    return mean, 0.5 * (cov + np.swapaxes(cov, -1, -2))
