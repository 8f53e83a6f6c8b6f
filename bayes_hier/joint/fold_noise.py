"""The fold-level noise of the joint model (``stan/joint_fold.stan``): O(k) noise scales per data
set instead of a full covariance, identified from 2 folds.

The score of model m on fold j of data set i is x_ijm = μ_im + u_ij + e_ijm: u_ij is the fold's
difficulty shared by every model (it cancels in the contrasts), e_ijm ~ N(0, σ_im²) with the
Nadeau-Bengio correlation across the folds of a model. The contrasts' noise covariance is then

    Ω_i = C D_i Cᵀ,   D_i = diag(σ_i1², …, σ_ik²),

and its inverse and determinant have closed forms in the weights w_m = 1/σ_im², W = Σ_m w_m
(for the k_i models run on the data set, their own orthonormal contrasts C_i):

    C_iᵀ(C_i D C_iᵀ)⁻¹C_i = D⁻¹ − wwᵀ/W,   det(C_i D C_iᵀ) = (Π_m σ_im²) W / k_i,

so the likelihood needs the scatter T_i of the scores themselves (k × k), not its contrasts'
(:func:`quadratic_trace`, :func:`log_determinant`). The scales are drawn hierarchically::

    log σ_im = log s_i + λ_i + r_im − ½ log(mean_m' exp(2r_im')),   r_im = κ_m + ω η_im,
    η_i = Cᵀη_raw,i,  η_raw,i ~ N(0, I),   κ = Cᵀκ_raw,  κ_raw ~ N(0, I),
    ω ~ half-N(0, 1),   p(λ_i) = 1

(the mean over the models run on data set i; C the orthonormal Helmert contrasts, so η_i and κ
sum to 0 and are exchangeable; λ_i is the log of the data set's root mean square σ_im relative to
s_i, the level its contrasts measure best, :func:`root_mean_square_level`; s_i a data-based
level, :func:`noise_levels`; with a calibration prior λ_i ~ N(0, sd²) and s_i = 1). A proper
prior on the model-level spread is needed: contrasts cannot tell a model without noise from the
shared fold term, so the likelihood stays finite as σ_im → 0.

The sampler's coordinate of ω is signed: ω̃ ~ N(0, 1) on the whole line and ω = abs(ω̃). The model
sees ω̃ only in ω̃η_i, the same for (ω̃, η) and (−ω̃, −η), so :func:`log_sigmas` takes ω̃ as
sampled and the completion reports abs(ω̃). A positive ω sampled on the log scale had a wall at
the top of its posterior (held there by all q·k scales at once) next to a long tail down to
ω = 0 (models with alike noise), where the sampler diverged.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from .contrasts import helmert_contrasts, observed_contrasts, pad_observed


def score_scatters(blocks: list[np.ndarray]) -> np.ndarray:
    """T_i = Σ_j (x_ij − x̄_i)(x_ij − x̄_i)ᵀ of each data set's scores (q × k × k), rows and
    columns of the models not run on it (NaN columns) set to 0."""
    k = blocks[0].shape[1]
    scatters = np.zeros((len(blocks), k, k))
    for i, block in enumerate(blocks):
        run = np.isfinite(block[0])
        centred = block[:, run] - block[:, run].mean(axis=0)
        scatters[i][np.ix_(run, run)] = centred.T @ centred
    return scatters


def noise_contrasts(contrasts: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """B_i = C_i E_i (q × (k − 1) × k): the orthonormal contrasts of the models run on data set i
    in its first d_i rows, placed in their columns; zeros elsewhere. Ω_i = B_i D_i B_iᵀ."""
    d, k = contrasts.shape
    result = np.zeros((len(observed), d, k))
    for i, run in enumerate(observed):
        own, _ = observed_contrasts(contrasts, run)
        result[i, : own.shape[0]][:, run] = own
    return result


def noise_levels(
    contrast_scatters: np.ndarray, sizes: np.ndarray, n: np.ndarray, a: np.ndarray
) -> np.ndarray:
    """s_i = √(tr S_i / ((n_i − 1) a_i d_i)): the root mean variance of data set i's d_i contrasts,
    the level of its σ_im when all are equal (Ω_i = s²I then)."""
    trace = np.trace(contrast_scatters, axis1=1, axis2=2)
    return np.sqrt(trace / ((n - 1) * a * sizes))


def quadratic_trace(scatter: np.ndarray, log_sigma: np.ndarray, run: np.ndarray) -> np.ndarray:
    """tr(Ω⁻¹S) = Σ_m w_m T_mm − wᵀTw/W for the scores' scatter T (…, k, k), w_m = run_m/σ_m²."""
    w = run * np.exp(-2 * log_sigma)
    total = w.sum(axis=-1)
    diagonal = np.einsum("...mm,...m->...", scatter, w)
    return diagonal - np.einsum("...m,...ml,...l->...", w, scatter, w) / total


def log_determinant(log_sigma: np.ndarray, run: np.ndarray) -> np.ndarray:
    """log det(C_i D C_iᵀ) = Σ_m 2 log σ_m + log W − log k_i over the k_i models run."""
    w = run * np.exp(-2 * log_sigma)
    return 2 * (run * log_sigma).sum(axis=-1) + np.log(w.sum(axis=-1)) - np.log(run.sum(axis=-1))


def log_sigmas(
    stan_data: dict,
    noise_level: np.ndarray,
    model_noise_raw: np.ndarray,
    noise_spread: np.ndarray,
    noise_raw: np.ndarray,
) -> np.ndarray:
    """log σ_im (…, q, k) from the sampler's coordinates: log s_i + λ_i + r_im − ½ log of the mean
    of exp(2r_im) over the models run on data set i (``stan_data["run"]``), r_im = κ_m + ω̃ η_im
    with κ = Cᵀκ_raw and η_i = Cᵀη_raw,i (λ: (…, q); κ_raw: (…, k − 1); ω̃, the signed
    coordinate of ω: (…); η_raw: (…, q, k − 1)). Values for models not run on a data set are
    computed alike and not used."""
    contrasts = helmert_contrasts(noise_raw.shape[-1] + 1)
    model_noise = model_noise_raw @ contrasts
    level = np.asarray(stan_data["log_noise_level"], float) + noise_level
    deviation = model_noise[..., None, :] + noise_spread[..., None, None] * (noise_raw @ contrasts)
    return level[..., None] + deviation - root_mean_square_level(deviation, stan_data["run"])


def root_mean_square_level(deviation: np.ndarray, run: np.ndarray) -> np.ndarray:
    """½ log of the mean of exp(2 r_im) over the models run on data set i (…, q, 1): subtracted
    from the deviations r_im = κ_m + ω η_im so that λ_i is the log of the data set's root mean
    square σ_im (relative to s_i)."""
    run = np.asarray(run, float)
    log_mean = logsumexp(2 * deviation, b=run, axis=-1) - np.log(run.sum(axis=-1))
    return 0.5 * log_mean[..., None]


def fold_noise_covariances(stan_data: dict, log_sigma: np.ndarray) -> np.ndarray:
    """Ω_i = B_i D_i B_iᵀ (…, q, d, d) of the observed contrasts, padded with the identity
    beyond each data set's d_i (as the full covariances' completion does)."""
    contrasts = np.asarray(stan_data["noise_contrasts"], float)
    root = contrasts * np.exp(log_sigma)[..., None, :]
    return pad_observed(root @ np.swapaxes(root, -1, -2), stan_data["observed"])


def fold_noise_initial_values(q: int, k: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Initial values of the noise coordinates: every σ_im near its data set's level s_i
    (λ_i, κ_raw and η_i near 0) and ω near 0.3, jittered."""
    return {
        "noise_level": 0.1 * rng.standard_normal(q),
        "model_noise_raw": 0.1 * rng.standard_normal(k - 1),
        "noise_spread": 0.3 * np.exp(0.1 * rng.standard_normal()),
        "noise_raw": 0.1 * rng.standard_normal((q, k - 1)),
    }


__all__ = [
    "fold_noise_covariances",
    "fold_noise_initial_values",
    "log_determinant",
    "log_sigmas",
    "noise_contrasts",
    "noise_levels",
    "quadratic_trace",
    "root_mean_square_level",
    "score_scatters",
]
