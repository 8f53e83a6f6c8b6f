"""Argument checks shared by the sample-based tests: data, rope, sample counts, prior strengths.

Seeds follow :mod:`bayes_hier.seeding`; flags and counts :mod:`bayes_hier._validate`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validate import check_int
from ..data import PerDataset, per_dataset_differences
from ..rope import Rope
from ..seeding import resolve_seed


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


def sample_test_inputs(arguments: Mapping[str, Any]) -> tuple[PerDataset, Rope, float, int, int]:
    """The checked inputs of the sign and signed-rank tests, from their arguments (``locals()``
    at the top of the test: ``x, y, rope, prior, nsamples, seed, names, models, columns,
    higher_is_better``): the per-data-set differences
    (``bayes_hier.data.per_dataset_differences``), the rope parsed in the scores' units,
    the prior strength, the number of samples and the seed resolved to an integer."""
    selection = {key: arguments[key] for key in ("names", "models", "columns", "higher_is_better")}
    data = per_dataset_differences(arguments["x"], arguments["y"], **selection)
    parsed = Rope.parse(arguments["rope"], data.scores)
    prior, nsamples = check_prior(arguments["prior"]), check_nsamples(arguments["nsamples"])
    return data, parsed, prior, nsamples, resolve_seed(arguments["seed"], "seed")
