"""Closed-form likelihood of the contrasts of k models and the full conditional of θ_i.

For data set i with the n_i × d contrasts Y_i, vec(Y_i) ~ MVN(θ_i ⊗ 1, Ω_i ⊗ R_i) with the
equicorrelated R_i = (1 − ρ_i)I + ρ_i 11ᵀ (eigenvalues a_i = 1 − ρ_i off 1,
b_i = 1 + (n_i − 1)ρ_i on 1). With ȳ_i the mean and S_i the scatter of the rows of Y_i,

    log p(Y_i) = −n_i d/2 log 2π − n_i/2 log|Ω_i| − d(n_i − 1)/2 log a_i − d/2 log b_i
                 − tr(Ω_i⁻¹ S_i)/(2a_i) − n_i (ȳ_i − θ_i)ᵀ Ω_i⁻¹ (ȳ_i − θ_i)/(2b_i).

With θ_i ~ N(θ₀, V_i) (the Student-t population given its mixing precision, V_i = Σ₀/τ_i)
integrated out, the last term becomes the normal density of ȳ_i with mean θ₀ and covariance
V_i + (b_i/n_i)Ω_i (times n_i^(−d/2)). This NumPy statement, checked against the literal
Kronecker normal by the tests, is the model given Ω_i.

A data set on which only k_i < k models were run has d_i = k_i − 1 contrasts of its own
(:func:`~.contrasts.observed_contrasts`) with mean M_iθ_i; the same formulas hold with d_i for d,
M_iθ₀ for θ₀ and M_iV_iM_iᵀ for V_i (``design``).

``stan/joint.stan`` integrates Ω_i out as well (:func:`noise_marginal`): with the prior
p(Ω_i) ∝ |Ω_i|^(−1/2), p(Y_i | θ_i, Ω_i) p(Ω_i) is an inverse Wishart kernel in Ω_i, and its
integral leaves ȳ_i | θ_i a multivariate Student-t whose scale mixture over a weight
w_i ~ Gamma(df_i/2, df_i/2) is normal; :func:`theta_given_mean_noise` and
:func:`inverse_wishart_draws` give the exact draws of θ_i and Ω_i after sampling.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .contrasts import pad_observed


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


def noise_marginal(
    n: ArrayLike,
    rho: ArrayLike,
    scatter: np.ndarray,
    sizes: ArrayLike,
    prior_df: ArrayLike | None = None,
    prior_scale: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Degrees of freedom df_i and scale V_i of ȳ_i | θ_i with Ω_i integrated out.

    With e_i = ȳ_i − M_iθ_i and d_i observed contrasts,
    p(Y_i | θ_i, Ω_i)|Ω_i|^(−1/2) ∝ |Ω_i|^(−(n_i + 1)/2) exp(−tr(Ω_i⁻¹B_i)/2),
    B_i = S_i/a_i + (n_i/b_i)e_ie_iᵀ, an inverse Wishart kernel with n_i − d_i degrees of
    freedom; its integral is proportional to |B_i|^(−(n_i − d_i)/2), i.e. to
    (1 + (n_i/b_i)e_iᵀ(S_i/a_i)⁻¹e_i)^(−(n_i − d_i)/2), the multivariate Student-t density of
    ȳ_i with location M_iθ_i,

        df_i = n_i − 2d_i,   V_i = (b_i/n_i)(S_i/a_i)/df_i

    (the marginal of a multivariate normal mean with its covariance integrated out: Gelman et
    al., *Bayesian Data Analysis*, 3rd ed., section 3.6). With the calibration prior
    Ω_i ~ InvWishart(ν_i, Ψ_i) the kernel gains |Ω_i|^(−(ν_i + d_i + 1)/2)exp(−tr(Ω_i⁻¹Ψ_i)/2) and
    df_i = ν_i + n_i − d_i, V_i = (b_i/n_i)(Ψ_i + S_i/a_i)/df_i.

    Parameters
    ----------
    n, rho
        Results and fold correlation per data set (q).
    scatter
        S_i (q × d × d), padded beyond d_i = ``sizes[i]`` (only the top-left d_i block is read).
    sizes
        d_i per data set.
    prior_df, prior_scale
        ν_i (q) and Ψ_i (q × d × d, top-left d_i block) of the calibration prior; default the
        invariant prior |Ω_i|^(−1/2).

    Returns
    -------
    tuple of numpy.ndarray
        df_i (q) and V_i (q × d × d, the identity beyond the top-left d_i block).

    Raises
    ------
    ValueError
        When some df_i < 1 (fewer than 2d_i + 1 results under the invariant prior): ȳ_i | θ_i
        is then not a Student-t with a scale mixture (and below 2d_i results the posterior is
        improper).
    """
    n, rho = np.asarray(n, float), np.asarray(rho, float)
    sizes = np.asarray(sizes, int)
    a, b = 1 - rho, 1 + (n - 1) * rho
    base = scatter / a[:, None, None]
    if prior_df is None:
        df = n - 2 * sizes
    else:
        base = base + np.asarray(prior_scale, float)
        df = np.asarray(prior_df, float) + n - sizes
    if np.any(df < 1):
        raise ValueError(
            "Integrating the noise covariance out needs at least 2d + 1 results on a data set "
            f"with d contrasts; got degrees of freedom {df.min():g}."
        )
    return df, pad_observed((b / n / df)[:, None, None] * base, sizes)


def solve_or_pseudo_inverse(total: np.ndarray, right: np.ndarray) -> np.ndarray:
    """total⁻¹ right for a stack of symmetric matrices M_iV_iM_iᵀ + W_i (..., d, d) and right-hand
    sides (..., d, r). Where a sum is singular in floating point (e.g. a draw of the noise 1e16
    times V_i), its pseudo-inverse stands for the inverse: the limit of the gain, none in the
    directions where the sum is singular."""
    try:
        return np.linalg.solve(total, right)
    except np.linalg.LinAlgError:
        return np.linalg.pinv(total, hermitian=True) @ right


def theta_given_mean_noise(
    ybar: np.ndarray,
    theta0: np.ndarray,
    population_cov: np.ndarray,
    mean_noise: np.ndarray,
    design: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of θ_i given ȳ_i | θ_i ~ N(M_iθ_i, W_i) and θ_i ~ N(θ₀, V_i)
    (all arguments broadcast).

    W_i is the covariance of ȳ_i given θ_i: V_i/w_i in ``joint.stan`` (:func:`noise_marginal`),
    (b_i/n_i)Ω_i with the fold-level noise's Ω_i. θ_i | · is normal with the gain
    K_i = V_iM_iᵀ(M_iV_iM_iᵀ + W_i)⁻¹, mean θ₀ + K_i(ȳ_i − M_iθ₀) and covariance
    (I − K_iM_i)V_i(I − K_iM_i)ᵀ + K_iW_iK_iᵀ (Joseph's form, positive semi-definite in floating
    point); at M_i = I it is V_i(V_i + W_i)⁻¹W_i, the multivariate shrinkage estimator. Written
    without V_i⁻¹ so that it stays finite when V_i is singular; where M_iV_iM_iᵀ + W_i is
    singular in floating point (draws of very different scales) its pseudo-inverse stands for the
    inverse. Shapes: ``ybar`` (..., d_i); ``theta0`` (..., d); ``population_cov`` (..., d, d);
    ``mean_noise`` (..., d_i, d_i); ``design`` M_i (..., d_i, d), default the identity. A data set
    whose contrasts are padded to d (zeros in ȳ_i and the rows of M_i beyond d_i, W_i
    block-diagonal with a nonsingular unused block) gives the same answer as its unpadded
    statement.
    """
    if design is None:
        design = np.eye(np.shape(theta0)[-1])
    transposed = np.swapaxes(design, -1, -2)
    total = design @ population_cov @ transposed + mean_noise
    # K = V M' (M V M' + W)^-1 = ((M V M' + W)^-1 M V)' (V, W symmetric)
    solved = solve_or_pseudo_inverse(total, design @ population_cov)
    gain = np.swapaxes(solved, -1, -2)
    residual = ybar - np.einsum("...ij,...j->...i", design, theta0)
    mean = theta0 + np.einsum("...ij,...j->...i", gain, residual)
    keep = np.eye(design.shape[-1]) - gain @ design
    cov = keep @ population_cov @ np.swapaxes(keep, -1, -2)
    cov = cov + gain @ mean_noise @ np.swapaxes(gain, -1, -2)
    return mean, 0.5 * (cov + np.swapaxes(cov, -1, -2))


def inverse_wishart_draws(
    df: np.ndarray, scale: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """One draw of Ω ~ InvWishart(df, B) per matrix of a stack (scipy's convention: mean
    B/(df − d − 1)); ``df`` (...), ``scale`` B (..., d, d), df > d − 1.

    Bartlett's decomposition: Z = AAᵀ ~ Wishart(df, I) with A lower triangular,
    A_jj = √χ²(df − j) (j = 0..d − 1) and standard normal entries below the diagonal; with
    B = LLᵀ, Ω = LZ⁻¹Lᵀ = (LA⁻ᵀ)(LA⁻ᵀ)ᵀ has Ω⁻¹ = L⁻ᵀZL⁻¹ ~ Wishart(df, B⁻¹).
    """
    scale, df = np.asarray(scale, float), np.asarray(df, float)
    d = scale.shape[-1]
    shape = np.broadcast_shapes(df.shape, scale.shape[:-2])
    scale, df = np.broadcast_to(scale, (*shape, d, d)), np.broadcast_to(df, shape)
    bartlett = np.tril(rng.standard_normal(scale.shape), -1)
    chi = np.sqrt(rng.chisquare(df[..., None] - np.arange(d)))
    bartlett[..., np.arange(d), np.arange(d)] = chi
    root = np.linalg.cholesky(scale) @ np.swapaxes(np.linalg.inv(bartlett), -1, -2)
    return root @ np.swapaxes(root, -1, -2)
