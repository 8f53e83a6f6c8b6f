"""Benchmark of the vectorised Bayesian signed-rank test against a per-sample loop.

The reference is the straightforward implementation (as in baycomp 1.0.3): draw the Dirichlet
weights, then for every sample form the outer product of the weights and sum it against the
Walsh-average indicator matrices. The vectorised test (:func:`sample_signed_rank`) draws the
weights in batches and uses sorted prefix sums (O(q) per sample); the batched quadratic form
``rowsum((W @ A) * W)`` is timed as well. Timings are the best of several runs, all in the
same process, at q = 54 and q = 300 data sets with 50 000 samples.

Run alone with ``python -m benchmarks.signed_rank``.
"""

from __future__ import annotations

import time

import numpy as np

from bayes_hier.bayesian_tests.signed_rank import (
    BATCH_FLOATS,
    sample_signed_rank,
    theta_quadratic,
    walsh_matrices,
)
from bayes_hier.probabilities import argmax_shares
from bayes_hier.rope import Rope

NSAMPLES = 50_000
SIZES = (54, 300)


def loop_reference(z: np.ndarray, rope: Rope, prior: float, nsamples: int, seed: int) -> np.ndarray:
    """Per-sample loop over the posterior samples (baycomp's algorithm)."""
    full = np.concatenate([[0.0], z])
    below, above = walsh_matrices(full, rope)
    weights = np.ones(full.size)
    weights[0] = prior
    samples = np.zeros((nsamples, 3))
    draws = np.random.RandomState(seed).dirichlet(weights, nsamples)
    for i, w in enumerate(draws):
        product = np.outer(w, w)
        samples[i, 0] = np.sum(product * below)
        samples[i, 2] = np.sum(product * above)
    samples[:, 1] = 1 - samples[:, 0] - samples[:, 2]
    return samples


def batched_quadratic(
    z: np.ndarray, rope: Rope, prior: float, nsamples: int, seed: int
) -> np.ndarray:
    """Batched Dirichlet draws and quadratic forms ``rowsum((W @ A) * W)``."""
    full = np.concatenate([[0.0], z])
    weights = np.ones(full.size)
    weights[0] = prior
    rng = np.random.default_rng(seed)
    batch = max(1, BATCH_FLOATS // full.size)
    out = np.empty((nsamples, 3))
    for start in range(0, nsamples, batch):
        size = min(batch, nsamples - start)
        out[start : start + size] = theta_quadratic(rng.dirichlet(weights, size), full, rope)
    return out


def _best_time(function, z: np.ndarray, rope: Rope, repeats: int) -> tuple[float, np.ndarray]:
    """Best of ``repeats`` timings (the least disturbed by other load on a shared machine)."""
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = function(z, rope, 0.5, NSAMPLES, 1)
        times.append(time.perf_counter() - start)
    return min(times), value


def signed_rank_benchmark(repeats: int = 3) -> list[str]:
    """Markdown lines: a table of timings and speed-ups of the signed-rank test."""
    rope = Rope(-0.01, 0.01)
    lines = [
        "## Bayesian signed-rank test: vectorised vs per-sample loop",
        "",
        f"{NSAMPLES} posterior samples, rope ±0.01, prior 0.5; best of {repeats} run(s) of the "
        f"loop and {5 * repeats} of the vectorised test (best-of timings are the least disturbed "
        "by other load on a shared machine). "
        "The loop is the straightforward per-sample implementation (as in baycomp); "
        "P = (left, rope, right) from each (different random streams: equal within Monte Carlo "
        "error).",
        "",
        "| q | per-sample loop (s) | batched quadratic form (s) | vectorised test (s) "
        "| speed-up | P loop | P vectorised |",
        "|---:|---:|---:|---:|---:|---|---|",
    ]
    for q in SIZES:
        rng = np.random.default_rng(q)
        z = rng.normal(0.005, 0.02, q)
        sample_signed_rank(z, rope, 0.5, 1000, 0)  # warm-up
        loop_time, loop = _best_time(loop_reference, z, rope, repeats)
        quad_time, _ = _best_time(batched_quadratic, z, rope, 3 * repeats)
        fast_time, fast = _best_time(sample_signed_rank, z, rope, 5 * repeats)
        p_loop = ", ".join(f"{p:.3f}" for p in argmax_shares(loop))
        p_fast = ", ".join(f"{p:.3f}" for p in argmax_shares(fast))
        lines.append(
            f"| {q} | {loop_time:.3f} | {quad_time:.3f} | {fast_time:.4f} "
            f"| {loop_time / fast_time:.0f}x | ({p_loop}) | ({p_fast}) |"
        )
    lines.append("")
    return lines


if __name__ == "__main__":
    print("\n".join(signed_rank_benchmark()))
