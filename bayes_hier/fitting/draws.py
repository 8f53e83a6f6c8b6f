"""Reading a fitted model's draws."""

from __future__ import annotations

import arviz as az
import numpy as np


def stacked_draws(idata: az.InferenceData, name: str) -> np.ndarray:
    """The posterior draws of variable ``name`` with the chains stacked one after another:
    shape ``(chains * draws, *shape)``, where ``shape`` is the variable's own shape."""
    values = idata.posterior[name].values
    return values.reshape(values.shape[0] * values.shape[1], *values.shape[2:])


__all__ = ["stacked_draws"]
