"""Benchmark of the Bayesian signed-rank test (performance target 6).

1. Time per posterior sample against the number of data sets q (250 ... 4000): the test sorts
   once and finds the Walsh-average step positions in O(q log q), then each sample costs O(q);
   the column "µs per sample and data set" stays flat when the cost is linear in q.
2. Against baycomp 1.0.3's ``SignedRankTest`` (run in its own environment,
   :mod:`benchmarks.baycomp_env`) on the same scores, 50 000 samples, in the same run: target
   >= 50x at q = 300.

Timings are the best of several runs (the least disturbed by other load on a shared machine).
Run alone with ``python -m benchmarks.signed_rank``.
"""

from __future__ import annotations

import time

import numpy as np

from bayes_hier import signed_rank_test
from bayes_hier.bayesian_tests.signed_rank import SortedWalsh, sample_signed_rank
from bayes_hier.rope import Rope
from benchmarks.baycomp_env import baycomp_python, baycomp_signed_rank

ROPE = 0.01
SCALING_SIZES = (250, 500, 1000, 2000, 4000)
SCALING_SAMPLES = 5000
BAYCOMP_SIZES = (54, 300)
BAYCOMP_SAMPLES = 50_000
TARGET_SPEEDUP = 50


def best_time(function, repeats: int) -> tuple[float, object]:
    """Best of ``repeats`` wall times of ``function()`` and its last value."""
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def scores(q: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-data-set mean scores of two models, differences ~ N(0.005, 0.02)."""
    rng = np.random.default_rng(q)
    x = rng.uniform(0.6, 0.9, q)
    return x, x + rng.normal(0.005, 0.02, q)


def scaling_lines(repeats: int) -> list[str]:
    rope = Rope(-ROPE, ROPE)
    lines = [
        "### Time per posterior sample against q",
        "",
        f"{SCALING_SAMPLES} samples, rope ±{ROPE}, prior 0.5; best of {repeats} runs. Set-up: the "
        "sort and the exact step positions (O(q log q), once per test).",
        "",
        "| q | set-up (s) | sampling (s) | µs per sample | µs per sample and data set |",
        "|---:|---:|---:|---:|---:|",
    ]
    for q in SCALING_SIZES:
        x, y = scores(q)
        z = np.concatenate([[0.0], y - x])
        setup, _ = best_time(lambda z=z: SortedWalsh(z, rope), repeats)
        seconds, _ = best_time(
            lambda d=y - x: sample_signed_rank(d, rope, 0.5, SCALING_SAMPLES, 1), repeats
        )
        per_sample = (seconds - setup) / SCALING_SAMPLES * 1e6
        lines.append(
            f"| {q} | {setup:.4f} | {seconds:.3f} | {per_sample:.1f} | {per_sample / q:.4f} |"
        )
    return [*lines, ""]


def baycomp_lines(repeats: int) -> list[str]:
    python, reason = baycomp_python()
    lines = [
        "### Against baycomp 1.0.3 `SignedRankTest` (same scores, same run)",
        "",
        f"{BAYCOMP_SAMPLES} samples, rope {ROPE}, prior 0.5; bayes_hier best of {3 * repeats} "
        f"runs, baycomp best of {min(repeats, 2)} (in `benchmarks/.venv-baycomp`). P = (left, "
        "rope, right) from each (different random streams: equal within Monte Carlo error). "
        f"Target: >= {TARGET_SPEEDUP}x at q = 300.",
        "",
    ]
    if python is None:
        return [*lines, f"baycomp skipped: {reason}", ""]
    lines += [
        "| q | baycomp (s) | bayes_hier (s) | speed-up | P baycomp | P bayes_hier |",
        "|---:|---:|---:|---:|---|---|",
    ]
    for q in BAYCOMP_SIZES:
        x, y = scores(q)
        signed_rank_test(x[:10], y[:10], ROPE, nsamples=100, seed=0)  # warm-up
        ours, result = best_time(
            lambda x=x, y=y: signed_rank_test(x, y, ROPE, nsamples=BAYCOMP_SAMPLES, seed=1),
            3 * repeats,
        )
        reference = baycomp_signed_rank(python, x, y, ROPE, BAYCOMP_SAMPLES, min(repeats, 2))
        speedup = reference["seconds"] / ours
        mark = " (target met)" if q == 300 and speedup >= TARGET_SPEEDUP else ""
        p_theirs = ", ".join(f"{p:.3f}" for p in reference["probs"])
        p_ours = ", ".join(f"{p:.3f}" for p in result.probs)
        lines.append(
            f"| {q} | {reference['seconds']:.3f} | {ours:.4f} | **{speedup:.0f}x**{mark} "
            f"| ({p_theirs}) | ({p_ours}) |"
        )
    return [*lines, ""]


def signed_rank_benchmark(repeats: int = 3) -> list[str]:
    """Markdown lines of the signed-rank section."""
    return [
        "## Bayesian signed-rank test",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M')}.",
        "",
        *scaling_lines(repeats),
        *baycomp_lines(repeats),
    ]


if __name__ == "__main__":
    print("\n".join(signed_rank_benchmark()))
