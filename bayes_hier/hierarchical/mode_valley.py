"""How deep a valley a data set can put between the two explanations of its mean.

With few folds, the scale-mixture coordinates (``stan/hierarchical.stan``) sample a data set's
true difference δ_i together with its noise σ_i and mixing precision τ_i. Integrating σ_i over
its uniform prior and τ_i over its gamma prior, δ_i's conditional density given the population
(δ₀, σ₀, ν) is, up to a constant,

    f_i(δ) = (1 + (δ − x̄_i)² / ((n_i − 1) se_i²))^(−(n_i − 1)/2)
             · (1 + (δ − δ₀)² / (ν σ₀²))^(−(ν + 1)/2)

(the upper bound of σ_i's prior left out, negligible here): a Student-t kernel around the data
set's mean times the Student-t population. For a mean far from the others and known precisely,
f_i has two modes, one near x̄_i (the population's tail explains the mean) and one near δ₀
(noise explains it), and the scale-mixture chains do not cross the valley between them once it
is several nats deep (``benchmarks/FEW_FOLD.md``); the two-chart coordinates
(:mod:`.two_chart`) reach both modes from one point.

Stationary points: with v = (δ − δ₀)/D, D = x̄_i − δ₀, p = n_i − 1, r = ν + 1,
α = (n_i − 1) se_i² / D² and β = ν σ₀² / D², the derivative of log f_i vanishes where

    (p + r) v³ − (p + 2r) v² + (p β + r (1 + α)) v − p β = 0,

a cubic with all its real roots in (0, 1). Three real roots are two modes and the valley
between them; its depth is the lower mode's log density minus the valley's, in nats,

    log f_i(v) = −(p/2) log(1 + (v − 1)²/α) − (r/2) log(1 + v²/β) + constant.

:func:`deepest_valley` evaluates it for every data set over a range of populations around the
one the means suggest (a Cauchy population fitted to them, :func:`.cauchy_population`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .delta0_coordinate import cauchy_population

#: Degrees of freedom ν of the populations tried (the prior of ν spans about 1 to 100).
NU_GRID = (1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0)
#: Multiples of the fitted Cauchy scale tried as σ₀ (the posterior of σ₀ sits near it).
SCALE_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)


def valley_depth(
    distance: ArrayLike,
    standard_error: ArrayLike,
    n: ArrayLike,
    population_scale: ArrayLike,
    nu: ArrayLike,
) -> np.ndarray:
    """Depth in nats of the valley between the two modes of f_i (module docstring); 0 where f_i
    has one mode. Arguments broadcast against each other; ``distance`` is x̄_i − δ₀."""
    distance, se, n, scale, nu = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (distance, standard_error, n, population_scale, nu))
    )
    depth = np.zeros(distance.shape)
    apart = np.abs(distance) > 0
    if not apart.any():
        return depth
    p, r = n[apart] - 1.0, nu[apart] + 1.0
    alpha = p * se[apart] ** 2 / distance[apart] ** 2
    beta = nu[apart] * scale[apart] ** 2 / distance[apart] ** 2
    coefficients = (
        np.stack([p + r, -(p + 2 * r), p * beta + r * (1 + alpha), -p * beta], axis=-1)
        / (p + r)[:, None]
    )
    roots = np.sort_complex(_cubic_roots(coefficients))
    real = np.all(np.abs(roots.imag) <= 1e-9 * np.maximum(1.0, np.abs(roots.real)), axis=-1)
    v = roots.real

    def log_f(x: np.ndarray) -> np.ndarray:
        return -0.5 * p[:, None] * np.log1p((x - 1) ** 2 / alpha[:, None]) - 0.5 * r[
            :, None
        ] * np.log1p(x**2 / beta[:, None])

    values = log_f(v)
    depths = np.minimum(values[:, 0], values[:, 2]) - values[:, 1]
    depth[apart] = np.where(real, np.maximum(depths, 0.0), 0.0)
    return depth


def _cubic_roots(coefficients: np.ndarray) -> np.ndarray:
    """Roots of monic cubics v³ + c₂v² + c₁v + c₀ (rows ``[1, c₂, c₁, c₀]``), as the
    eigenvalues of their companion matrices."""
    companion = np.zeros((coefficients.shape[0], 3, 3))
    companion[:, 0, :] = -coefficients[:, 1:]
    companion[:, 1, 0] = companion[:, 2, 1] = 1.0
    return np.linalg.eigvals(companion)


def dataset_valleys(means: ArrayLike, standard_errors: ArrayLike, n: ArrayLike) -> np.ndarray:
    """Each data set's deepest valley (nats) of f_i over the populations tried (0 where f_i has
    one mode for all of them).

    The populations: δ₀ at the centre of a Cauchy population fitted to the means
    (:func:`~.delta0_coordinate.cauchy_population`), σ₀ at :data:`SCALE_FACTORS` times its scale
    and ν in :data:`NU_GRID`. Data sets with a zero standard error (constant differences before
    they are given a spread) are taken at the smallest positive one of the others; with no
    positive standard error at all, every valley is 0.
    """
    means = np.asarray(means, dtype=float)
    se = np.asarray(standard_errors, dtype=float)
    positive = se[se > 0]
    if positive.size == 0:
        return np.zeros(means.shape)
    se = np.where(se > 0, se, positive.min())
    centre, scale = cauchy_population(means, se)
    factors = np.asarray(SCALE_FACTORS)[:, None, None]
    nus = np.asarray(NU_GRID)[None, :, None]
    depth = valley_depth(means - centre, se, np.asarray(n, dtype=float), scale * factors, nus)
    return depth.max(axis=(0, 1))


def deepest_valley(means: ArrayLike, standard_errors: ArrayLike, n: ArrayLike) -> tuple[float, int]:
    """The deepest valley (nats) of any data set's f_i over the populations tried
    (:func:`dataset_valleys`), and that data set's index (-1 with no valley)."""
    per_dataset = dataset_valleys(means, standard_errors, n)
    if per_dataset.size == 0:
        return 0.0, -1
    index = int(np.argmax(per_dataset))
    deepest = float(per_dataset[index])
    return (deepest, index) if deepest > 0 else (0.0, -1)


__all__ = ["NU_GRID", "SCALE_FACTORS", "dataset_valleys", "deepest_valley", "valley_depth"]
