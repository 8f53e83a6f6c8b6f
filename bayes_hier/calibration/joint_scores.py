"""Cross-validation scores of k models on the same folds: the matrix-normal model of
the joint model's fold noise.

The scores X (n folds × k models) of one data set have E[X] = 1 μᵀ and the Kronecker covariance
Cov(vec X) = Λ ⊗ R(ρ): Λ across the models on one fold, the equicorrelated
R(ρ) = (1 − ρ)I + ρ11ᵀ across the folds (ρ = 1/folds, Nadeau & Bengio). Shared by the joint
model's calibration (:mod:`.joint_simulate`) and recovery studies
(:mod:`bayes_hier.joint.recovery`).
"""

from __future__ import annotations

import numpy as np

from ..examples import equicorrelated_normal


def kronecker_normal(
    mean: np.ndarray, cov: np.ndarray, rho: float, n: int, rng: np.random.Generator
) -> np.ndarray:
    """n rows x_1..x_n (an n × k matrix X) with E[X] = 1 meanᵀ and Cov(vec X) = cov ⊗ R(ρ).

    vec stacks the columns, so column a (one model over the folds) has covariance cov_aa R and
    row j (one fold over the models) has covariance cov; R = (1 − ρ)I + ρ11ᵀ. Construction: E with
    independent equicorrelated columns (:func:`~bayes_hier.examples.equicorrelated_normal`,
    Cov(vec E) = I ⊗ R), then X = 1 meanᵀ + E Lᵀ with L Lᵀ = cov, since
    vec(E Lᵀ) = (L ⊗ I) vec E.
    """
    mean = np.asarray(mean, float)
    root = np.linalg.cholesky(np.asarray(cov, float))
    noise = equicorrelated_normal(np.zeros(mean.size), 1.0, rho, n, rng).T
    return mean + noise @ root.T


__all__ = ["kronecker_normal"]
