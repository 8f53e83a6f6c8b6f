"""Rank statistics of simulation-based calibration (Talts et al., 2018, algorithm 1).

For a true value θ̃ drawn from the prior and L posterior draws θ_1..θ_L given data simulated from
θ̃, the rank r = #{l : θ_l < θ̃} is uniform on {0, ..., L} when the posterior is exact and the
draws are independent. MCMC draws are autocorrelated, so the posterior draws are first thinned to
L roughly independent ones (the thinning is reported next to the effective sample size).
"""

from __future__ import annotations

import numpy as np


def thin(draws: np.ndarray, size: int) -> np.ndarray:
    """``size`` draws of a (chain, draw) array taken at a constant stride over all chains.

    The chains are concatenated and every ``total // size``-th draw is kept, so the kept draws
    are as far apart as the chains allow.
    """
    values = np.asarray(draws, float).reshape(-1)
    if not 1 <= size <= values.size:
        raise ValueError(f"Cannot thin {values.size} draws to {size}: need 1 <= size <= draws.")
    return values[:: values.size // size][:size]


def rank_of(truth: float, draws: np.ndarray, rng: np.random.Generator) -> int:
    """#{draws < truth}, ties broken uniformly at random (rank in 0..len(draws)).

    With continuous posteriors ties have probability 0; the random tie-break keeps the rank
    uniform when rounding produces them.
    """
    draws = np.asarray(draws, float)
    below = int(np.sum(draws < truth))
    ties = int(np.sum(draws == truth))
    return below + (int(rng.integers(0, ties + 1)) if ties else 0)
