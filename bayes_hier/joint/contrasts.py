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
