"""Argument checks shared by the sample-based tests: the rope, seeds, sample counts, priors."""

from __future__ import annotations

from typing import Any

import numpy as np


def resolve_seed(seed: int | np.random.Generator | np.random.RandomState | None) -> int:
    """An integer seed to record: ``None`` draws one from fresh entropy; a generator gives one
    draw from it (so the same generator state gives the same result)."""
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1)[0] % 2**31)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**31))
    if isinstance(seed, np.random.RandomState):
        return int(seed.randint(0, 2**31))
    if isinstance(seed, (bool, np.bool_)) or int(seed) != seed or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, a Generator or None; got {seed!r}.")
    return int(seed)


def check_nsamples(nsamples: Any) -> int:
    if isinstance(nsamples, (bool, np.bool_)) or not float(nsamples).is_integer() or nsamples < 1:
        raise ValueError(f"nsamples must be a positive integer; got {nsamples!r}.")
    return int(nsamples)


def check_prior(prior: float) -> float:
    prior = float(prior)
    if not np.isfinite(prior) or prior < 0:
        raise ValueError(f"The prior strength must be a finite number >= 0; got {prior}.")
    return prior
