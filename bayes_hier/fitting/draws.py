"""Reading a fitted model's draws, and what every fitted model's result holds."""

from __future__ import annotations

from typing import Any

import arviz as az
import numpy as np


def stacked_draws(idata: az.InferenceData, name: str) -> np.ndarray:
    """The posterior draws of variable ``name`` with the chains stacked one after another:
    shape ``(chains * draws, *shape)``, where ``shape`` is the variable's own shape."""
    values = idata.posterior[name].values
    return values.reshape(values.shape[0] * values.shape[1], *values.shape[2:])


class FittedResult:
    """What the result of a Stan fit holds besides its answers: the completed posterior
    (``idata``), the model's input, its prior, the convergence ``diagnostics`` and the mass of
    the reported highest-density intervals (``hdi_prob``)."""

    idata: az.InferenceData
    model_input: Any
    prior: Any
    diagnostics: dict[str, float]
    hdi_prob: float

    def keep_fit(
        self,
        idata: az.InferenceData,
        model_input: Any,
        prior: Any,
        diagnostics: dict[str, float],
        hdi_prob: float,
    ) -> None:
        """Hold the fit (called by the result's constructor)."""
        self.idata, self.model_input, self.prior = idata, model_input, prior
        self.diagnostics, self.hdi_prob = diagnostics, hdi_prob

    def posterior_draws(self, name: str) -> np.ndarray:
        """Draws of a variable with chains stacked: shape ``(m,)`` or ``(m, ...)``, ``m`` draws."""
        return stacked_draws(self.idata, name)


__all__ = ["FittedResult", "stacked_draws"]
