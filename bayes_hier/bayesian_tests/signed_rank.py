"""The Bayesian signed-rank test (Benavoli et al., ICML 2014; conventions §2), vectorised.

For weights ``w ~ Dirichlet(s, 1, ..., 1)`` over ``(z_0 = 0, z_1, ..., z_q)``,

    θ_right = Σ_ij w_i w_j H(z_i + z_j − 2·high),   θ_left = Σ_ij w_i w_j H(2·low − (z_i + z_j)),

with ``H(0) = 1/2`` and ``θ_rope = 1 − θ_left − θ_right``.

**Linear time per sample.** With ``z`` sorted, row ``i`` of ``H(z_i + z_j − t)`` is a step
function of ``j``: 0 for the ``lt_i`` columns with ``z_i + z_j < t``, 1/2 on the tie block up to
``le_i`` (``z_i + z_j = t``), 1 after. Hence ``Σ_j w_j H(z_i + z_j − t) = (W − P_{le_i}) +
(P_{le_i} − P_{lt_i}) / 2`` with ``P`` the prefix sums of ``w`` and ``W = P_m``. The step
positions depend only on ``z`` (fixed across samples): they are found once, in O(q log q); each
sample then costs one cumulative sum, two gathers and a dot product, O(q).

**Exact ties.** Whether ``z_i + z_j`` is below, equal to or above ``t = 2·high`` (an exact
float: doubling is exact) is decided on the exact real sum of the two floats, not on the rounded
sum: with ``s = fl(a + b)`` and the rounding error ``e = a + b − s`` (exact, Knuth's TwoSum), the
sign of ``a + b − t`` is the sign of ``s − t`` when ``s ≠ t`` (rounding is monotone) and the sign of
``e`` otherwise. So all-zero differences with ``rope = 0`` tie in every pair, θ_left and θ_right
are computed by the same floating point operations and are equal in every sample, and the
reported shares (:func:`~bayes_hier.probabilities.argmax_shares`) split them evenly.

The samples are drawn in batches of bounded memory (:data:`BATCH_FLOATS` floats per array), so
q = 4000 data sets works.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..issued import records_warnings
from ..rope import Rope, RopeLike
from ..seeding import SeedLike
from ._inputs import check_nsamples, check_prior, sample_test_inputs
from .result import SimplexResult

#: Floats per ((q+1) x samples) array of one batch (512 kB: the few arrays of a batch stay in the
#: CPU's cache), so the memory does not grow with the number of samples and the time per sample
#: stays linear in q; at least :data:`MIN_BATCH` samples per batch.
BATCH_FLOATS = 1 << 16
MIN_BATCH = 16
#: From this many samples per batch on, the prefix sums are formed row by row (contiguous rows,
#: one Python call per row amortised over the batch); below, by ``cumsum`` along the rows.
ROW_LOOP_BATCH = 128


def sum_sign(a: np.ndarray, b: np.ndarray, t: float) -> np.ndarray:
    """The sign (−1, 0 or 1) of the *exact* real number ``a + b − t`` for floats ``a, b, t``.

    ``s = fl(a + b)``; TwoSum (Knuth, TAOCP vol. 2, 4.2.2) gives the rounding error
    ``e = (a − (s − b')) + (b − b')`` with ``b' = s − a``, so that ``a + b = s + e`` exactly.
    Rounding to nearest is monotone, hence ``s > t ⇒ a + b > t`` and ``s < t ⇒ a + b < t``; when
    ``s = t`` the sign is that of ``e``. Valid for finite inputs whose sum does not overflow.
    """
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    s = a + b
    b_virtual = s - a
    error = (a - (s - b_virtual)) + (b - b_virtual)
    return np.where(s == t, np.sign(error), np.sign(s - t)).astype(np.int8)


def walsh_matrices(z: np.ndarray, rope: Rope) -> tuple[np.ndarray, np.ndarray]:
    """``(A_left, A_right)`` with ``A_right_ij = H(z_i + z_j − 2·high)`` and
    ``A_left_ij = H(2·low − (z_i + z_j))`` (``H(0) = 1/2``, ties decided exactly by
    :func:`sum_sign`). ``z`` includes ``z_0 = 0``. O(q²) memory: the definition, for checks."""
    z = np.asarray(z, float)
    right = (sum_sign(z[:, None], z[None, :], 2 * rope.high) + 1) / 2
    left = (1 - sum_sign(z[:, None], z[None, :], 2 * rope.low)) / 2
    return left, right


def theta_quadratic(weights: np.ndarray, z: np.ndarray, rope: Rope) -> np.ndarray:
    """``(θ_left, θ_rope, θ_right)`` per row of ``weights`` as the quadratic forms ``wᵀ A w`` of
    :func:`walsh_matrices` (O(q²) per sample: the definition, for checks and benchmarks).
    ``weights`` is (B, q+1) over ``(z_0 = 0, z_1..z_q)``."""
    w = np.atleast_2d(np.asarray(weights, float))
    left_matrix, right_matrix = walsh_matrices(z, rope)
    left = np.einsum("bi,bi->b", w @ left_matrix, w)
    right = np.einsum("bi,bi->b", w @ right_matrix, w)
    return np.stack([left, 1.0 - left - right, right], axis=1)


def count_sums_below(sorted_z: np.ndarray, t: float, *, strict: bool) -> np.ndarray:
    """For every ``i``, the number of ``j`` with ``z_i + z_j < t`` (``strict``) or ``≤ t``, exactly.

    ``sorted_z`` must be sorted; the predicate is then monotone in ``j`` and a bisection per row,
    vectorised over the rows, finds its boundary in ⌈log₂(m + 1)⌉ passes: O(q log q) in all.
    """
    m = sorted_z.size
    low = np.zeros(m, dtype=np.intp)
    high = np.full(m, m, dtype=np.intp)
    while True:
        active = low < high
        if not active.any():
            return low
        middle = (low + high) // 2
        sign = sum_sign(sorted_z, sorted_z[np.minimum(middle, m - 1)], t)
        inside = sign < 0 if strict else sign <= 0
        low = np.where(active & inside, middle + 1, low)
        high = np.where(active & ~inside, middle, high)


class SortedWalsh:
    """The step positions of the Walsh-average indicator rows over the sorted ``z`` (built once
    per test, O(q log q)) and θ for a batch of weight vectors (O(q) per vector)."""

    def __init__(self, z: np.ndarray, rope: Rope) -> None:
        z = np.asarray(z, float)
        self.order = np.argsort(z, kind="stable")
        sorted_z = z[self.order]
        self.right_lt = count_sums_below(sorted_z, 2 * rope.high, strict=True)
        self.right_le = count_sums_below(sorted_z, 2 * rope.high, strict=False)
        self.left_lt = count_sums_below(sorted_z, 2 * rope.low, strict=True)
        self.left_le = count_sums_below(sorted_z, 2 * rope.low, strict=False)
        self.empty_rope = rope.is_empty
        self.right_ties = not np.array_equal(self.right_lt, self.right_le)
        self.left_ties = not np.array_equal(self.left_lt, self.left_le)

    def theta(self, weights_sorted: np.ndarray) -> np.ndarray:
        """``(θ_left, θ_rope, θ_right)`` for weights in sorted-``z`` order given *transposed*:
        shape (q+1, B), one column per sample (row gathers and row-wise sums are contiguous).

        The columns need not be normalised: θ is homogeneous of degree 2 in ``w``, so the sums are
        divided by ``W² = (Σ_j w_j)²`` (normalised Gamma draws are Dirichlet draws). Row ``i``
        of the left sum is ``h_i = (P_lt + P_le) / 2`` and of the right sum ``W − h_i`` (with
        the right side's own ``lt, le``). Without ties (``lt = le``) ``h_i = P_lt``: one gather
        per side, and one in all for ``rope = 0`` (the same thresholds on both sides). When
        every pair ties, ``h_i`` and ``W − h_i`` are both ``W / 2`` exactly, so θ_left and
        θ_right are then equal bit for bit; when no pair is right of the rope, ``W − h_i = 0``
        exactly and θ_right = 0.
        """
        w = weights_sorted
        prefix = np.empty((w.shape[0] + 1, w.shape[1]))
        prefix[0] = 0.0
        if w.shape[1] >= ROW_LOOP_BATCH:  # row by row: contiguous, faster for wide rows
            for i in range(w.shape[0]):
                np.add(prefix[i], w[i], out=prefix[i + 1])
        else:  # narrow rows: the per-row Python call would dominate
            np.cumsum(w, axis=0, out=prefix[1:])
        total = prefix[-1]
        squared_total = total * total

        def half_rows(lt: np.ndarray, le: np.ndarray, ties: bool) -> np.ndarray:
            if not ties:
                return prefix[lt]
            rows = prefix[lt]
            rows += prefix[le]
            rows *= 0.5
            return rows

        def weighted(rows: np.ndarray) -> np.ndarray:
            return np.einsum("ib,ib->b", w, rows) / squared_total

        rows = half_rows(self.right_lt, self.right_le, self.right_ties)
        # rope = 0: the left side has the same thresholds, its rows are h before W − h.
        left = weighted(rows) if self.empty_rope else None
        np.subtract(total, rows, out=rows)
        right = weighted(rows)
        if left is not None:
            return np.stack([left, np.zeros_like(left), right], axis=1)
        left = weighted(half_rows(self.left_lt, self.left_le, self.left_ties))
        return np.stack([left, np.clip(1.0 - left - right, 0.0, 1.0), right], axis=1)


def theta_sorted(weights: np.ndarray, z: np.ndarray, rope: Rope) -> np.ndarray:
    """``(θ_left, θ_rope, θ_right)`` per row of ``weights`` (over ``(z_0 = 0, z_1..z_q)``) by the
    sorted prefix-sum method the test uses; equal to :func:`theta_quadratic` up to rounding."""
    walsh = SortedWalsh(z, rope)
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

    The Dirichlet(s, 1, ..., 1) weights are unnormalised independent Gamma variables
    (Gamma(1) = standard exponential) drawn in batches from ``numpy.random.default_rng(seed)``;
    the batch size depends only on q, so a seed gives the same sample bit for bit.
    """
    z = np.concatenate([[0.0], np.asarray(differences, float)])
    prior = check_prior(prior)
    nsamples = check_nsamples(nsamples)
    rng = np.random.default_rng(seed)
    walsh = SortedWalsh(z, rope)
    position_of_prior = int(np.flatnonzero(walsh.order == 0)[0])
    m = z.size
    batch = min(nsamples, max(MIN_BATCH, BATCH_FLOATS // m))
    out = np.empty((nsamples, 3))
    for start in range(0, nsamples, batch):
        size = min(batch, nsamples - start)
        # Drawn directly in sorted-z order: the order of independent draws does not change the
        # distribution, only which column carries the prior weight.
        gammas = rng.standard_exponential((m, size))
        gammas[position_of_prior] = rng.standard_gamma(prior, size) if prior > 0 else 0.0
        out[start : start + size] = walsh.theta(gammas)
    return out


@records_warnings
def signed_rank_test(
    x: Any,
    y: Any = None,
    rope: RopeLike = 0.01,
    *,
    prior: float = 0.5,
    nsamples: int = 50_000,
    seed: SeedLike = None,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    higher_is_better: bool = True,
) -> SimplexResult:
    """Bayesian signed-rank test of two models on several data sets (conventions §2).

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
        A non-negative integer, a :class:`numpy.random.Generator`, a
        :class:`numpy.random.SeedSequence` or ``None`` (a fresh seed, recorded in
        ``result.settings["seed"]``); see :mod:`bayes_hier.seeding`. The same seed gives a
        bit-identical sample.
    names, models, columns, higher_is_better
        As for :func:`~bayes_hier.hierarchical_test`.
    """
    data, parsed, prior, nsamples, seed = sample_test_inputs(locals())
    z = data.differences

    # the sample at another rope (a partial of a module function: the result can be pickled)
    resample = partial(sample_signed_rank, z, prior=prior, nsamples=nsamples, seed=seed)

    return SimplexResult.of_differences(
        "Bayesian signed-rank test",
        data,
        parsed,
        resample,
        {"prior": prior, "nsamples": nsamples, "seed": seed},
    )
