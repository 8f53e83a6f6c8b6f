"""The Bayesian signed-rank test (Benavoli et al., ICML 2014; SPEC §2), vectorised.

For weights ``w ~ Dirichlet(s, 1, ..., 1)`` over ``(z_0 = 0, z_1, ..., z_q)``,

    θ_right = Σ_ij w_i w_j H(z_i + z_j − 2·high),   θ_left = Σ_ij w_i w_j H(2·low − (z_i + z_j)),

with ``H(0) = 1/2`` and ``θ_rope = 1 − θ_left − θ_right``. No Python loop runs over the samples.
Sorting ``z`` makes every row of ``A_ij = H(z_i + z_j − t)`` a step function of ``j`` (floating
point addition is monotone), so ``Σ_j w_j A_ij`` is a difference of prefix sums of ``w``: a draw
costs O(q) instead of the O(q²) quadratic form ``wᵀ A w`` (:func:`theta_quadratic`, kept as a
reference). The draws are made in batches of bounded memory, so q = 1000 data sets works.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..data import per_dataset_differences
from ..rope import Rope, RopeLike
from ._inputs import (
    check_nsamples,
    check_prior,
    resolve_seed,
)
from .result import SimplexResult

#: Floats per array in one batch (512 kB: small enough to stay in cache); a batch holds a
#: handful of such arrays, so the memory does not grow with the number of samples.
BATCH_FLOATS = 1 << 16


def walsh_matrices(z: np.ndarray, rope: Rope) -> tuple[np.ndarray, np.ndarray]:
    """``(A_left, A_right)`` with ``A_right_ij = H(z_i + z_j − 2·high)`` and
    ``A_left_ij = H(2·low − (z_i + z_j))`` (``H(0) = 1/2``). ``z`` includes ``z_0 = 0``."""
    z = np.asarray(z, float)
    sums = z[:, None] + z[None, :]
    right = (sums > 2 * rope.high) + 0.5 * (sums == 2 * rope.high)
    left = (sums < 2 * rope.low) + 0.5 * (sums == 2 * rope.low)
    return left, right


def theta_quadratic(weights: np.ndarray, z: np.ndarray, rope: Rope) -> np.ndarray:
    """Reference: ``(θ_left, θ_rope, θ_right)`` per row of ``weights`` as quadratic forms
    ``rowsum((W @ A) * W)``. ``weights`` is (B, q+1) over ``(z_0 = 0, z_1..z_q)``."""
    w = np.atleast_2d(np.asarray(weights, float))
    left_matrix, right_matrix = walsh_matrices(z, rope)
    left = np.einsum("bi,bi->b", w @ left_matrix, w)
    right = np.einsum("bi,bi->b", w @ right_matrix, w)
    return np.stack([left, 1.0 - left - right, right], axis=1)


class _SortedWalsh:
    """Precomputed step positions of the sorted Walsh-average indicator matrices."""

    def __init__(self, z: np.ndarray, rope: Rope) -> None:
        z = np.asarray(z, float)
        self.order = np.argsort(z, kind="stable")
        zs = z[self.order]
        m = zs.size
        # Row i of sums is non-decreasing in j: count entries below / equal to each threshold.
        low_lt = np.empty(m, dtype=np.intp)
        low_le = np.empty(m, dtype=np.intp)
        high_lt = np.empty(m, dtype=np.intp)
        high_le = np.empty(m, dtype=np.intp)
        chunk = max(1, BATCH_FLOATS // max(m, 1))
        for start in range(0, m, chunk):
            sums = zs[start : start + chunk, None] + zs[None, :]
            low_lt[start : start + chunk] = np.sum(sums < 2 * rope.low, axis=1)
            low_le[start : start + chunk] = np.sum(sums <= 2 * rope.low, axis=1)
            high_lt[start : start + chunk] = np.sum(sums < 2 * rope.high, axis=1)
            high_le[start : start + chunk] = np.sum(sums <= 2 * rope.high, axis=1)
        self.low_lt, self.low_le, self.high_lt, self.high_le = low_lt, low_le, high_lt, high_le
        self.empty_rope = rope.is_empty

    def theta(self, weights_sorted: np.ndarray) -> np.ndarray:
        """(θ_left, θ_rope, θ_right) for weights in sorted-z order, given *transposed*:
        shape (q+1, B), one column per sample (row-wise cumulative sums and row gathers are
        contiguous, hence fast).

        The columns need not be normalised: θ is homogeneous of degree 2 in w, so the sums are
        divided by ``(Σ_j w_j)²`` (which makes normalised Gamma draws unnecessary).
        """
        w = weights_sorted
        prefix = np.empty((w.shape[0] + 1, w.shape[1]))
        prefix[0] = 0.0
        for i in range(w.shape[0]):  # row by row: contiguous, faster than cumsum(axis=0)
            np.add(prefix[i], w[i], out=prefix[i + 1])
        # Σ_j w_j H(s_ij − 2 high): entries strictly above count 1, the tie block 1/2.
        right_rows = prefix[self.high_lt]
        right_rows += prefix[self.high_le]
        squared_total = prefix[-1] * prefix[-1]
        right = 1.0 - 0.5 * np.einsum("ib,ib->b", w, right_rows) / squared_total
        if self.empty_rope:
            left = 1.0 - right
            return np.stack([left, np.zeros_like(left), right], axis=1)
        # Σ_j w_j H(2 low − s_ij): entries strictly below count 1, the tie block 1/2.
        left_rows = prefix[self.low_lt]
        left_rows += prefix[self.low_le]
        left = 0.5 * np.einsum("ib,ib->b", w, left_rows) / squared_total
        return np.stack([left, np.clip(1.0 - left - right, 0.0, 1.0), right], axis=1)


def theta_sorted(weights: np.ndarray, z: np.ndarray, rope: Rope) -> np.ndarray:
    """``(θ_left, θ_rope, θ_right)`` per row of ``weights`` (over ``(z_0 = 0, z_1..z_q)``) by the
    sorted prefix-sum method used by the test; equal to :func:`theta_quadratic` up to rounding."""
    walsh = _SortedWalsh(z, rope)
    w = np.atleast_2d(np.asarray(weights, float))
    return walsh.theta(np.ascontiguousarray(w[:, walsh.order].T))


def sample_signed_rank(
    differences: np.ndarray,
    rope: Rope,
    prior: float = 0.5,
    nsamples: int = 50_000,
    seed: int = 0,
) -> np.ndarray:
    """Posterior sample (nsamples x 3) of the signed-rank test.

    The Dirichlet(s, 1, ..., 1) weights are drawn in batches as normalised independent Gamma
    variables (Gamma(1) = standard exponential) from ``numpy.random.default_rng(seed)``; the
    batch size depends only on q, so a seed gives the same sample bit for bit.
    """
    z = np.concatenate([[0.0], np.asarray(differences, float)])
    prior = check_prior(prior)
    nsamples = check_nsamples(nsamples)
    rng = np.random.default_rng(seed)
    walsh = _SortedWalsh(z, rope)
    position_of_prior = int(np.flatnonzero(walsh.order == 0)[0])
    m = z.size
    batch = max(1, min(nsamples, BATCH_FLOATS // (m + 1)))
    out = np.empty((nsamples, 3))
    for start in range(0, nsamples, batch):
        size = min(batch, nsamples - start)
        # Columns are drawn directly in sorted-z order: the order of independent draws does not
        # change the distribution, only which column carries the prior weight.
        # Samples are columns: (q+1, B).
        gammas = rng.standard_exponential((m, size))
        gammas[position_of_prior] = rng.standard_gamma(prior, size) if prior > 0 else 0.0
        # (normalising to Dirichlet weights happens inside theta: θ(w / Σw) = θ(w) / (Σw)²)
        out[start : start + size] = walsh.theta(gammas)
    return out


def signed_rank_test(
    x: Any,
    y: Any = None,
    rope: RopeLike = 0.01,
    *,
    prior: float = 0.5,
    nsamples: int = 50_000,
    seed: int | np.random.Generator | None = None,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    higher_is_better: bool = True,
) -> SimplexResult:
    """Bayesian signed-rank test of two models on several data sets (SPEC §2).

    A Dirichlet-process posterior on the distribution of per-data-set differences, with a prior
    pseudo-observation ``z_0 = 0`` of weight ``prior``; each sample gives the probabilities that
    a Walsh average ``(z_i + z_j) / 2`` falls left of, inside or right of the rope. With
    ``rope=0``, θ_left = 1 − θ_right.

    Parameters
    ----------
    x, y
        1-D arrays: one (mean) score per data set. 2-D arrays (data sets x folds), lists of 1-D
        arrays, a tidy data frame (as ``x`` alone) or a :class:`~bayes_hier.data.CVData`: fold
        scores, averaged per data set.
    rope
        ``r`` for ``[-r, r]`` or ``(low, high)``, in the units of the scores.
    prior
        Weight ``s`` of the pseudo-observation at 0 (default 0.5).
    nsamples
        Number of posterior samples.
    seed
        Integer seed, a :class:`numpy.random.Generator` or ``None`` (a fresh seed, recorded in
        ``result.settings["seed"]``). The same seed gives a bit-identical sample.
    names, models, columns, higher_is_better
        As for :func:`~bayes_hier.hierarchical_test`.
    """
    data = per_dataset_differences(
        x, y, names=names, models=models, columns=columns, higher_is_better=higher_is_better
    )
    parsed = Rope.parse(rope, data.scores)
    prior = check_prior(prior)
    nsamples = check_nsamples(nsamples)
    seed = resolve_seed(seed)
    z = data.differences

    def resample(r: Rope) -> np.ndarray:
        return sample_signed_rank(z, r, prior, nsamples, seed)

    return SimplexResult(
        "Bayesian signed-rank test",
        resample(parsed),
        z,
        data.datasets,
        data.names,
        parsed,
        {"prior": prior, "nsamples": nsamples, "seed": seed},
        resample,
        data.higher_is_better,
    )
