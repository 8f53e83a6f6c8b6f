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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

#: The centre is moved at least this far inside the bounds (as a share of 2D).
CENTRE_MARGIN = 0.001


def delta0_centre_and_spread(means: np.ndarray, spread: float) -> tuple[float, float]:
    """(mean of the x̄_i, spread/√q): the data values ``delta0_centre`` and ``delta0_spread``.

    ``spread`` is sd(x̄), or 1 (the unit of the rescaled data) with one data set or means equal
    up to rounding (:func:`~.model_input.spread_of_means_or_unit`).
    """
    means = np.asarray(means, dtype=float)
    return float(means.mean()), spread / np.sqrt(means.size)


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
