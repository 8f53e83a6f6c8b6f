"""Left / rope / right probabilities from posterior draws.

Shared by every test: a posterior is summarised either by the share of a sample that falls in
each region, or, for a sample of points on the probability simplex, by the share of points in which
each region has the largest coordinate (Benavoli et al., JMLR 2017).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from .rope import Rope


class Probabilities(NamedTuple):
    """Probabilities of the three outcomes, ordered as in baycomp: (left, rope, right).

    ``left``: the first model is better by more than the rope (``d < low``); ``rope``: practically
    equivalent; ``right``: the second model is better by more than the rope (``d > high``).
    """

    left: float
    rope: float
    right: float

    def as_tuple(self, include_rope: bool = True) -> tuple[float, ...]:
        """``(left, rope, right)``, or ``(left, right)`` when ``include_rope`` is false."""
        return tuple(self) if include_rope else (self.left, self.right)


def region_shares(sample: np.ndarray, rope: Rope) -> Probabilities:
    """Share of a sample of differences below, inside (edges included) and above the rope.

    Each share is its own count over the sample size, so a region without draws has exactly 0
    (``1 - left - right`` can leave a rounding remainder such as 1e-17).
    """
    sample = np.asarray(sample, dtype=float)
    left = float(np.mean(sample < rope.low))
    right = float(np.mean(sample > rope.high))
    inside = float(np.mean((sample >= rope.low) & (sample <= rope.high)))
    return Probabilities(left, inside, right)


def student_t_region_masses(
    loc: np.ndarray, scale: np.ndarray, df: np.ndarray, rope: Rope
) -> np.ndarray:
    """Mass of Student-t(df, loc, scale) below, inside and above the rope, for each draw.

    ``masses[k] = (T((low - loc) / scale), T((high - loc) / scale) - T((low - loc) / scale),
    1 - T((high - loc) / scale))`` with ``T`` the Student-t CDF with ``df[k]`` degrees of freedom;
    ``df = inf`` gives the normal distribution. The right tail uses the survival function for
    accuracy far out in the tail. An empty rope (``low == high``) has mass exactly 0 (a point
    under a continuous distribution), not the rounding remainder of ``1 - left - right``.

    Returns
    -------
    numpy.ndarray
        Shape ``(m, 3)``: a sample of points on the probability simplex.
    """
    loc, scale, df = np.broadcast_arrays(
        np.asarray(loc, float), np.asarray(scale, float), np.asarray(df, float)
    )
    z_low = (rope.low - loc) / scale
    z_high = (rope.high - loc) / scale
    finite = np.isfinite(df)
    left = np.where(finite, stats.t.cdf(z_low, np.where(finite, df, 1.0)), stats.norm.cdf(z_low))
    right = np.where(finite, stats.t.sf(z_high, np.where(finite, df, 1.0)), stats.norm.sf(z_high))
    inside = np.zeros_like(left) if rope.is_empty else np.clip(1.0 - left - right, 0.0, 1.0)
    return np.stack([left, inside, right], axis=-1).reshape(-1, 3)


def argmax_shares(simplex_sample: np.ndarray) -> Probabilities:
    """Share of simplex points in which each of (left, rope, right) is the largest coordinate.

    Ties are split equally between the tied coordinates, so the three shares sum to 1.
    """
    sample = np.asarray(simplex_sample, dtype=float).reshape(-1, 3)
    is_max = sample == sample.max(axis=1, keepdims=True)
    weights = is_max / is_max.sum(axis=1, keepdims=True)
    shares = weights.mean(axis=0)
    return Probabilities(*(float(s) for s in shares))
