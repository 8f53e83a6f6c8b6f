"""Tests that SBC ranks are uniform on {0, ..., L}: binned chi-square and the ECDF band test.

* :func:`chi_square_test` — Pearson's chi-square of the rank histogram in ``bins`` bins of equal
  width (``L + 1`` must be a multiple of ``bins``, so every bin has the same null probability).
* :func:`ecdf_band` / :func:`ecdf_test` — the graphical test of Säilynoja, Bürkner & Vehtari
  (2022, "Graphical test for discrete uniformity and its applications in goodness-of-fit
  evaluation and multiple sample comparison", Statistics and Computing 32:32). With N ranks, at
  the points z_j = j / (L + 1), j = 1..L, the count c_j = #{r < j} is Binomial(N, z_j) under
  uniformity, exactly. Its two-sided pointwise tail probability is

      p_j(c) = min(1, 2 min(F(c; N, z_j), 1 − F(c − 1; N, z_j)))      (F the binomial CDF).

  The simultaneous band at level 1 − α is {c : p_j(c) > γ} at every j, with γ chosen so that a
  uniform sample leaves the band anywhere with probability α: γ is the α-quantile of
  T = min_j p_j(c_j) over samples simulated from the discrete uniform distribution (the
  simulation variant of the paper's section 2.2; no Python library ships it). The test's p-value
  is the share of simulated T at or below the observed one. Simulated null distributions are
  cached per (N, L, simulations, seed).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats

#: Null samples simulated for the ECDF band and test.
NULL_SIMULATIONS = 4000
NULL_SEED = 20220131


def _check_ranks(ranks: np.ndarray, max_rank: int) -> np.ndarray:
    ranks = np.asarray(ranks)
    if ranks.ndim != 1 or ranks.size == 0:
        raise ValueError("ranks must be a non-empty 1-D array.")
    if not np.issubdtype(ranks.dtype, np.integer):
        raise ValueError(f"ranks must be integers; got dtype {ranks.dtype}.")
    if ranks.min() < 0 or ranks.max() > max_rank:
        raise ValueError(
            f"ranks must lie in 0..{max_rank} (max_rank = L); got {ranks.min()}..{ranks.max()}."
        )
    return ranks


def chi_square_test(ranks: np.ndarray, max_rank: int, bins: int) -> float:
    """p-value of Pearson's chi-square test of the ranks' histogram against the uniform one."""
    ranks = _check_ranks(ranks, max_rank)
    if (max_rank + 1) % bins:
        raise ValueError(
            f"L + 1 = {max_rank + 1} rank values cannot be split into {bins} equal bins."
        )
    counts = np.bincount(ranks // ((max_rank + 1) // bins), minlength=bins)
    return float(stats.chisquare(counts).pvalue)


def _grid(max_rank: int) -> np.ndarray:
    return np.arange(1, max_rank + 1) / (max_rank + 1)


def _pointwise_p(counts: np.ndarray, size: int, z: np.ndarray) -> np.ndarray:
    """p_j(c) of the module docstring for counts of shape (..., L)."""
    lower = stats.binom.cdf(counts, size, z)
    upper = stats.binom.sf(counts - 1, size, z)
    return np.minimum(1.0, 2.0 * np.minimum(lower, upper))


def _counts(ranks: np.ndarray, max_rank: int) -> np.ndarray:
    """c_j = #{r < j}, j = 1..L, for ranks of shape (..., N)."""
    ranks = np.asarray(ranks)
    rows = ranks.reshape(-1, ranks.shape[-1])
    offsets = (max_rank + 1) * np.arange(rows.shape[0])[:, None]
    histogram = np.bincount((rows + offsets).ravel(), minlength=rows.shape[0] * (max_rank + 1))
    histogram = histogram.reshape(rows.shape[0], max_rank + 1)
    cumulative = np.cumsum(histogram, axis=-1)[:, :-1]
    return cumulative.reshape(*ranks.shape[:-1], max_rank)


@lru_cache(maxsize=32)
def null_minimum_p(size: int, max_rank: int, simulations: int, seed: int) -> np.ndarray:
    """Sorted T = min_j p_j of ``simulations`` uniform samples of ``size`` ranks in 0..L."""
    rng = np.random.default_rng(seed)
    ranks = rng.integers(0, max_rank + 1, (simulations, size))
    p = _pointwise_p(_counts(ranks, max_rank), size, _grid(max_rank))
    return np.sort(p.min(axis=1))


def adjusted_level(null: np.ndarray, alpha: float) -> float:
    """γ: the largest simulated T with P(T_null <= γ) <= α (0 when there is none).

    T is discrete, so the α-quantile can sit on a tie; taking the largest value whose share does
    not exceed α keeps the band's simultaneous miss rate at or below α.
    """
    null = np.sort(null)
    shares = np.searchsorted(null, null, side="right") / null.size
    admissible = null[shares <= alpha]
    return float(admissible.max()) if admissible.size else 0.0


@dataclass(frozen=True)
class ECDFBand:
    """Simultaneous band of the ECDF difference F̂(z_j) − z_j of N uniform ranks.

    Attributes
    ----------
    z
        The evaluation points j / (L + 1), j = 1..L.
    lower, upper
        Band of the ECDF difference at each point.
    gamma
        The adjusted pointwise level γ.
    """

    z: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    gamma: float


def ecdf_band(
    size: int,
    max_rank: int,
    alpha: float = 0.05,
    simulations: int = NULL_SIMULATIONS,
    seed: int = NULL_SEED,
) -> ECDFBand:
    """The 1 − α simultaneous band for the ECDF difference of ``size`` ranks in 0..L."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha}.")
    gamma = adjusted_level(null_minimum_p(size, max_rank, simulations, seed), alpha)
    z = _grid(max_rank)
    counts = np.arange(size + 1)[:, None]
    inside = _pointwise_p(counts, size, z) > gamma
    low = np.argmax(inside, axis=0)
    high = size - np.argmax(inside[::-1], axis=0)
    return ECDFBand(z=z, lower=low / size - z, upper=high / size - z, gamma=gamma)


def ecdf_difference(ranks: np.ndarray, max_rank: int) -> tuple[np.ndarray, np.ndarray]:
    """(z_j, F̂(z_j) − z_j) of the ranks (module docstring)."""
    ranks = _check_ranks(ranks, max_rank)
    z = _grid(max_rank)
    return z, _counts(ranks, max_rank) / ranks.size - z


def ecdf_test(
    ranks: np.ndarray, max_rank: int, simulations: int = NULL_SIMULATIONS, seed: int = NULL_SEED
) -> float:
    """p-value of the ECDF band test: P(T_null <= T_observed), T = min_j p_j."""
    ranks = _check_ranks(ranks, max_rank)
    observed = _pointwise_p(_counts(ranks, max_rank), ranks.size, _grid(max_rank)).min()
    null = null_minimum_p(ranks.size, max_rank, simulations, seed)
    return float((np.searchsorted(null, observed, side="right") + 1) / (null.size + 1))
