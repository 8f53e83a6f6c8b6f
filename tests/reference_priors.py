"""NumPy statement of the prior both hierarchical programs share (``stan/include``): the
standardised logs of ν − 1 and of the mixing precisions τ_i, used by the log-density tests of the
two-model and the joint program."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bayes_hier.hierarchical.scale_mixture import (
    log_gamma_from_standardised,
    standardised_log_gamma_log_density,
    tau_from_standardised,
)


def scale_mixture_log_prior(
    data: Mapping[str, Any], point: Mapping[str, Any]
) -> tuple[float, np.ndarray]:
    """Log density of ``nu_raw`` and ``tau_raw`` at ``point`` (Gamma densities times the Jacobians
    of the standardised logs) and the 1/τ_i it implies; ``(0, ones)`` for the Gaussian population.
    """
    if data["nu_prior"] == 2:
        return 0.0, np.ones(data["q"])
    if data["nu_prior"] == 0:
        shape, rate = point["nu_alpha"][0], point["nu_beta"][0]
    else:
        shape, rate = data["nu_shape"], data["nu_rate"]
    nu = 1 + np.exp(log_gamma_from_standardised(point["nu_raw"][0], shape, rate))
    log_prior = float(standardised_log_gamma_log_density(point["nu_raw"][0], shape, rate))
    log_prior += float(np.sum(standardised_log_gamma_log_density(point["tau_raw"], nu / 2, nu / 2)))
    return log_prior, 1 / tau_from_standardised(point["tau_raw"], nu)


def randomise_mixing(point: dict[str, Any], rng: np.random.Generator) -> None:
    """Move the scale mixture's coordinates of a sampler ``point`` (``tau_raw``, ``nu_raw`` and,
    with the hierarchical prior on ν, ``nu_alpha`` and ``nu_beta`` inside their bounds) to random
    values, in place: the log-density tests evaluate the programs away from their initial
    values."""
    point["tau_raw"] = rng.normal(0, 1.5, point["tau_raw"].size)
    point["nu_raw"] = rng.normal(0, 1.5, point["nu_raw"].size)
    if point["nu_alpha"]:
        point["nu_alpha"] = [float(rng.uniform(0.6, 4.9))]
        point["nu_beta"] = [float(rng.uniform(0.06, 0.14))]
