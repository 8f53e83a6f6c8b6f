"""Argument checks shared by the sample-based tests: sample counts and prior strengths.

Seeds follow :mod:`bayes_hier.seeding`; flags and counts :mod:`bayes_hier._validate`.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._validate import check_int


def check_nsamples(nsamples: Any) -> int:
    """The number of posterior samples: an integer >= 1 (see :mod:`bayes_hier._validate`)."""
    return check_int(nsamples, "nsamples", minimum=1)


def check_prior(prior: Any) -> float:
    """The prior strength: a finite real number >= 0 (booleans and strings raise TypeError)."""
    if isinstance(prior, (bool, np.bool_)) or not isinstance(prior, numbers.Real):
        raise TypeError(
            f"prior must be a number >= 0 (the prior strength); got {prior!r} of type "
            f"{type(prior).__name__}."
        )
    prior = float(prior)
    if not np.isfinite(prior) or prior < 0:
        raise ValueError(f"The prior strength must be a finite number >= 0; got {prior}.")
    return prior
