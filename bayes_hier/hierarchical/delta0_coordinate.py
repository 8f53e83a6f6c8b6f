"""The sampler's coordinate of δ₀, the population mean (``stan/include/hierarchical_*.stan``).

δ₀ ~ U(−D, D) is sampled through Stan's logit transform of its bounds with the coordinate
centred and scaled by the data: with m = mean_i(x̄_i) (the centre) and e = sd(x̄)/√q (the spread),

    p = (m + D) / (2D)  (clipped to [0.001, 0.999]),   c = logit(p),   s = e / (2D p (1 − p)),
    δ₀ = D (2 logit⁻¹(c + s·z) − 1),

so that z = 0 is δ₀ = m and a unit step of z moves δ₀ by about e there. The uniform density of
δ₀ then needs the Jacobian dδ₀/dz = 2Ds·logit⁻¹(u)(1 − logit⁻¹(u)) > 0, u = c + s·z; the programs
add its non-constant part log logit⁻¹(u) + log(1 − logit⁻¹(u)). With Stan's plain bounded
declaration the coordinate u itself has a posterior sd of about 0.02 on the real data, which
forces tiny step sizes while the sampler's metric is still the identity (benchmarks/RESULTS.md).

With few folds and a heavy-tailed population, sd(x̄)/√q can be 50 times the posterior sd of δ₀:
a few data sets far out inflate sd(x̄), while precise data sets near the centre pin δ₀ down.
The two-chart coordinates (:mod:`.two_chart`) then take the centre and spread from
:func:`cauchy_location` instead. Either way only the sampler's coordinate depends on them, not
the posterior.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

#: The centre is moved at least this far inside the bounds (as a share of 2D).
CENTRE_MARGIN = 0.001


def delta0_centre_and_spread(means: np.ndarray, spread: float) -> tuple[float, float]:
    """(mean of the x̄_i, spread/√q): the data values ``delta0_centre`` and ``delta0_spread``.

    ``spread`` is sd(x̄), or 1 (the unit of the rescaled data) with one data set or means equal
    up to rounding (:func:`~.model_input.spread_of_means_or_unit`).
    """
    means = np.asarray(means, dtype=float)
    return float(means.mean()), spread / np.sqrt(means.size)


def cauchy_population(means: ArrayLike, standard_errors: ArrayLike) -> tuple[float, float]:
    """The location m and scale s of a Cauchy population fitted to the means.

    x̄_i ~ Cauchy(m, c_i) with c_i = √(s² + se_i²) (a population of scale s seen through each
    data set's standard error se_i). (m, s) maximise the likelihood: first over a grid (m at 61
    quantiles of the x̄_i from 5 % to 95 %, s at 60 log-spaced values from 10⁻³ min se_i to
    range(x̄) + max se_i; the likelihood can be multimodal), then by Nelder-Mead from the grid's
    best point in (m, log s).
    """
    means = np.asarray(means, dtype=float)
    se = _positive(standard_errors)
    low = 1e-3 * se.min()
    scales = np.geomspace(low, max(np.ptp(means) + se.max(), 2 * low), 60)
    centres = np.quantile(means, np.linspace(0.05, 0.95, 61))

    def log_likelihood(centre: np.ndarray, scale: np.ndarray) -> np.ndarray:
        widths = np.sqrt(scale[..., None] ** 2 + se**2)
        z = (means - centre[..., None]) / widths
        return -(np.log(widths) + np.log1p(z**2)).sum(axis=-1)

    grid = log_likelihood(centres[None, :], scales[:, None])
    best_scale, best_centre = np.unravel_index(np.argmax(grid), grid.shape)
    refined = optimize.minimize(
        lambda x: -log_likelihood(np.asarray(x[0]), np.exp(np.asarray(x[1]))),
        x0=[centres[best_centre], np.log(scales[best_scale])],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-10},
    )
    return float(refined.x[0]), float(np.exp(refined.x[1]))


def cauchy_location(means: ArrayLike, standard_errors: ArrayLike) -> tuple[float, float]:
    """A robust centre and spread of δ₀: the location of a Cauchy population fitted to the means
    (:func:`cauchy_population`) and, as the spread, the inverse square root of the Fisher
    information of that location, (Σ_i 1/(2c_i²))^(−1/2) with c_i = √(s² + se_i²) (a Cauchy
    location's information is 1/(2c²); location and scale are orthogonal for a symmetric
    density).

    Measured on pairs of simulated 4-fold studies (``benchmarks/FEW_FOLD.md``): 0.4 to 0.8 times
    the posterior sd of δ₀, against 9 to 69 times for sd(x̄)/√q.
    """
    centre, scale = cauchy_population(means, standard_errors)
    se = _positive(standard_errors)
    spread = float(np.sum(0.5 / (scale**2 + se**2)) ** -0.5)
    return centre, spread


def _positive(standard_errors: ArrayLike) -> np.ndarray:
    """The standard errors, with 0 raised to the smallest positive float (a log is taken)."""
    return np.maximum(np.asarray(standard_errors, dtype=float), np.finfo(float).tiny)


def _logit_centre_and_scale(data: Mapping[str, Any]) -> tuple[float, float]:
    bound = float(data["delta0_bound"])
    p = (float(data["delta0_centre"]) + bound) / (2 * bound)
    p = min(max(p, CENTRE_MARGIN), 1 - CENTRE_MARGIN)
    return float(special.logit(p)), float(data["delta0_spread"]) / (2 * bound * p * (1 - p))


def delta0_from_coordinate(z: ArrayLike, data: Mapping[str, Any]) -> np.ndarray:
    """δ₀ from the sampler's ``delta0_raw`` (as the programs' transformed parameters)."""
    centre, scale = _logit_centre_and_scale(data)
    u = centre + scale * np.asarray(z, dtype=float)
    return float(data["delta0_bound"]) * (2 * special.expit(u) - 1)


def coordinate_from_delta0(delta0: ArrayLike, data: Mapping[str, Any]) -> np.ndarray:
    """The sampler's ``delta0_raw`` of δ₀ (the inverse of :func:`delta0_from_coordinate`)."""
    centre, scale = _logit_centre_and_scale(data)
    bound = float(data["delta0_bound"])
    u = special.logit((np.asarray(delta0, dtype=float) + bound) / (2 * bound))
    return (u - centre) / scale


def delta0_log_jacobian(z: ArrayLike, data: Mapping[str, Any]) -> np.ndarray:
    """log logit⁻¹(u) + log(1 − logit⁻¹(u)), u = c + s·z: what the programs add to the target."""
    centre, scale = _logit_centre_and_scale(data)
    u = centre + scale * np.asarray(z, dtype=float)
    return special.log_expit(u) + special.log_expit(-u)
