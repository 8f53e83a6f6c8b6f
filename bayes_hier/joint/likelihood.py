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

A data set on which only k_i < k models were run has d_i = k_i − 1 contrasts of its own
(:func:`~.contrasts.observed_contrasts`) with mean M_iθ_i; the same formulas hold with d_i for d,
M_iθ₀ for θ₀ and M_iV_iM_iᵀ for V_i (``design``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats


def marginal_contrast_log_likelihood(
    n: ArrayLike,
    rho: ArrayLike,
    ybar: Sequence[np.ndarray],
    scatter: Sequence[np.ndarray],
    theta0: np.ndarray,
    population_cov: np.ndarray,
    noise_cov: Sequence[np.ndarray],
    design: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """Exact log density of every data set's contrasts with θ_i ~ N(θ₀, V_i) integrated out.

    Parameters
    ----------
    n, rho
        Folds and fold correlation per data set (q).
    ybar, scatter
        ȳ_i (d_i) and S_i (d_i × d_i) per data set (arrays q × d and q × d × d when complete).
    theta0
        θ₀ (d).
    population_cov
        V_i (q × d × d) or one d × d matrix for all data sets (V_i = 0: the likelihood of θ₀ = θ_i).
    noise_cov
        Ω_i (d_i × d_i) per data set.
    design
        M_i (d_i × d) per data set (default: the identity, every model observed).

    Returns
    -------
    numpy.ndarray
        One log density per data set.
    """
    n, rho = np.asarray(n, float), np.asarray(rho, float)
    q, d = len(ybar), np.shape(theta0)[-1]
    a, b = 1 - rho, 1 + (n - 1) * rho
    population_cov = np.broadcast_to(population_cov, (q, d, d))
    out = np.empty(q)
    for i in range(q):
        design_i = np.eye(d) if design is None else np.asarray(design[i])
        d_i = design_i.shape[0]
        log_det = np.linalg.slogdet(noise_cov[i])[1]
        trace = np.trace(np.linalg.solve(noise_cov[i], scatter[i]))
        out[i] = (
            -0.5 * (n[i] - 1) * (d_i * np.log(2 * np.pi * a[i]) + log_det)
            - trace / (2 * a[i])
            - 0.5 * d_i * np.log(n[i])
            + stats.multivariate_normal(
                design_i @ theta0,
                design_i @ population_cov[i] @ design_i.T + b[i] / n[i] * noise_cov[i],
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
    design: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of θ_i given ȳ_i, θ₀, V_i and Ω_i (all arguments broadcast).

    ȳ_i | θ_i ~ N(M_iθ_i, W_i), W_i = (b_i/n_i)Ω_i, and θ_i ~ N(θ₀, V_i), so θ_i | · is normal
    with the gain K_i = V_iM_iᵀ(M_iV_iM_iᵀ + W_i)⁻¹, mean θ₀ + K_i(ȳ_i − M_iθ₀) and covariance
    (I − K_iM_i)V_i(I − K_iM_i)ᵀ + K_iW_iK_iᵀ (Joseph's form, positive semi-definite in floating
    point); at M_i = I it is V_i(V_i + W_i)⁻¹W_i, the multivariate shrinkage estimator. Written
    without V_i⁻¹ so that it stays finite when V_i is singular; where M_iV_iM_iᵀ + W_i is
    singular in floating point (draws of very different scales) its pseudo-inverse stands for the
    inverse. Shapes: ``n, rho`` (...,);
    ``ybar`` (..., d_i); ``theta0`` (..., d); ``population_cov`` (..., d, d); ``noise_cov``
    (..., d_i, d_i); ``design`` M_i (..., d_i, d), default the identity. A data set whose
    contrasts are padded to d (zeros in ȳ_i and the rows of M_i beyond d_i, Ω_i block-diagonal
    with a nonsingular unused block) gives the same answer as its unpadded statement.
    """
    n, rho = np.asarray(n, float), np.asarray(rho, float)
    b_over_n = (1 + (n - 1) * rho) / n
    noise = b_over_n[..., None, None] * noise_cov
    if design is None:
        design = np.eye(np.shape(theta0)[-1])
    transposed = np.swapaxes(design, -1, -2)
    total = design @ population_cov @ transposed + noise
    # K = V M' (M V M' + W)^-1 = ((M V M' + W)^-1 M V)' (V, W symmetric)
    try:
        solved = np.linalg.solve(total, design @ population_cov)
    except np.linalg.LinAlgError:
        # M V M' + W singular in floating point (e.g. a draw of Omega_i 1e16 times V): the
        # pseudo-inverse gives K's limit, no gain in the directions where the sum is singular
        solved = np.linalg.pinv(total, hermitian=True) @ (design @ population_cov)
    gain = np.swapaxes(solved, -1, -2)
    residual = ybar - np.einsum("...ij,...j->...i", design, theta0)
    mean = theta0 + np.einsum("...ij,...j->...i", gain, residual)
    keep = np.eye(design.shape[-1]) - gain @ design
    cov = keep @ population_cov @ np.swapaxes(keep, -1, -2)
    cov = cov + gain @ noise @ np.swapaxes(gain, -1, -2)
    return mean, 0.5 * (cov + np.swapaxes(cov, -1, -2))
