"""Orthonormal Helmert contrasts and the model-level vectors of pairs.

The joint model works on the contrasts ``Y = X Cᵀ`` of the k models' scores ``X`` (folds × models),
with ``C`` the (k − 1) × k Helmert matrix scaled to orthonormal rows, all orthogonal to the vector
of ones. Then ``CᵀC = I − 11ᵀ/k`` (the centring projection), so a contrast vector θ maps back to
the models' *centred* effects ``μ = Cᵀθ`` (summing to 0), and the difference of model b minus
model a is ``(e_b − e_a)ᵀ Cᵀ θ``. Permuting the models by P gives ``C Pᵀ = Q C`` with the orthogonal
``Q = C Pᵀ Cᵀ``: why the joint model's invariant priors make it permutation-invariant.
"""

from __future__ import annotations

import numpy as np


def helmert_contrasts(k: int) -> np.ndarray:
    """The (k − 1) × k orthonormal Helmert contrasts.

    Row j (0-based) compares model j + 1 with the mean of models 0..j:
    ``(1, …, 1, −(j + 1), 0, …, 0) / sqrt((j + 1)(j + 2))``, negated so that at k = 2 the single
    row is ``(−1, 1)/√2``: the contrast of two models is their difference d = second − first
    over √2.

    Examples
    --------
    >>> helmert_contrasts(2)
    array([[-0.70710678,  0.70710678]])
    """
    if int(k) != k or k < 2:
        raise ValueError(f"Contrasts need at least 2 models; got k={k}.")
    k = int(k)
    contrasts = np.zeros((k - 1, k))
    for j in range(k - 1):
        contrasts[j, : j + 1] = -1.0
        contrasts[j, j + 1] = j + 1.0
        contrasts[j] /= np.sqrt((j + 1.0) * (j + 2.0))
    return contrasts


def pair_vectors(contrasts: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Rows ``c_ab = C (e_b − e_a)`` for the pairs (a, b): ``c_abᵀ θ`` is μ_b − μ_a.

    Returns an array of shape (pairs, k − 1).
    """
    k = contrasts.shape[1]
    differences = np.zeros((len(pairs), k))
    for row, (a, b) in enumerate(pairs):
        differences[row, a], differences[row, b] = -1.0, 1.0
    return differences @ contrasts.T


def observed_contrasts(
    contrasts: np.ndarray, observed: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The contrasts of the models observed on a data set and their map from θ.

    For the k_i models observed on a data set (``observed``: k booleans, k_i ≥ 2), C_i is the
    (k_i − 1) × k_i orthonormal Helmert matrix of those models in order and E_i (k_i × k) selects
    them. Their contrasts have the mean E[C_i E_i x] = M_i θ with M_i = C_i E_i Cᵀ: the scores' mean
    is Cᵀθ + c1 and the common shift c drops out because C_i 1 = 0. When every model is observed,
    C_i = C and M_i = I.

    Returns
    -------
    C_i, M_i
        Shapes (k_i − 1, k_i) and (k_i − 1, k − 1).

    Examples
    --------
    >>> c_i, m_i = observed_contrasts(helmert_contrasts(3), np.array([True, False, True]))
    >>> np.round(c_i, 4), np.round(m_i, 4)
    (array([[-0.7071,  0.7071]]), array([[0.5  , 0.866]]))
    """
    observed = np.asarray(observed, bool)
    if observed.all():
        return contrasts, np.eye(contrasts.shape[0])
    own = helmert_contrasts(int(observed.sum()))
    return own, own @ contrasts[:, observed].T


def observed_pair_vectors(
    contrasts: np.ndarray, observed: np.ndarray, pairs: list[tuple[int, int]]
) -> np.ndarray:
    """Per data set, :func:`pair_vectors` in the contrasts of its observed models.

    Row (i, p) is C_i(e_b − e_a) (the pair's difference in data set i's own contrasts, padded
    with zeros to k − 1), NaN when model a or b was not run on data set i. ``observed``: q × k
    booleans. Returns an array of shape (q, pairs, k − 1).
    """
    observed = np.asarray(observed, bool)
    d = contrasts.shape[0]
    out = np.full((observed.shape[0], len(pairs), d), np.nan)
    for i, row in enumerate(observed):
        own, _ = observed_contrasts(contrasts, row)
        position = np.cumsum(row) - 1
        for p, (a, b) in enumerate(pairs):
            if row[a] and row[b]:
                out[i, p] = 0.0
                out[i, p, : own.shape[0]] = own[:, position[b]] - own[:, position[a]]
    return out


def pad_observed(matrices: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """The d × d matrices (..., q, d, d) with the identity beyond each data set's top-left
    d_i × d_i block (``observed`` d_i per data set): the padded form in which the completion of
    the draws takes Ω_i of a data set with models missing (a nonsingular unused block)."""
    d = matrices.shape[-1]
    used = np.arange(d)[None, :] < np.asarray(observed)[:, None]  # (q, d)
    both = used[:, :, None] & used[:, None, :]
    return np.where(both, matrices, np.eye(d))
