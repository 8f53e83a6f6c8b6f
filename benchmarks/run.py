"""Benchmarks of the hierarchical test (``make bench``): writes a Markdown report.

Measured in one run, so that ratios compare like with like on a shared, noisy machine:

1. wall time of one fit (4 chains x 1000 draws) on the real data (54 data sets x 100 folds);
2. the closed-form program against the literal matrix program (same data, seed, inits and
   iterations), at n = 100 folds;
3. how the fit time grows with the number of data sets q and with the number of folds n;
4. peak memory.

Timings are medians of ``--repeats`` fits after one warm-up fit (compilation excluded).
"""

from __future__ import annotations

import argparse
import platform
import resource
import statistics
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

from bayes_hier import CVData, hierarchical_test
from bayes_hier.engines import SamplerSettings, get_engine
from bayes_hier.examples import equicorrelated_normal, find_uci_weka, load_uci_weka
from bayes_hier.hierarchical.fit import run_hierarchical_fit
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input, initial_values
from bayes_hier.rope import Rope
from bayes_hier.stan_programs import load_program
from benchmarks.signed_rank import signed_rank_benchmark


def simulated(q: int, n: int, seed: int = 0) -> CVData:
    """q data sets of n = runs x 10 folds with differences from the model (sd 0.05, rho 0.1)."""
    rng = np.random.default_rng(seed)
    deltas = rng.standard_t(3, q) * 0.01 + 0.01
    d = equicorrelated_normal(deltas, np.full(q, 0.05), 0.1, n, rng)
    return CVData(d, runs=max(n // 10, 1), rho=0.1)


def chain_process_peak_mib() -> str:
    """Peak resident size (VmHWM) of pystan's chain worker processes, read from /proc."""
    import sys

    stub = sys.modules.get("httpstan.services_stub")
    processes = getattr(getattr(stub, "executor", None), "_processes", None) or {}
    peaks = []
    for pid in processes:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]) / 1024)
    return ", ".join(f"{p:.0f} MiB" for p in peaks) if peaks else "n/a (not pystan)"


def leapfrog_steps(result) -> float:
    """Mean number of leapfrog steps per post-warm-up draw (NUTS' cost per draw)."""
    return float(result.idata.sample_stats["n_steps"].mean())


def timed(function, repeats: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def fit_cv(cv: CVData, engine, draws: int = 1000, chains: int = 4, seed: int = 1):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hierarchical_test(
            cv, rope=0.01, seed=seed, draws=draws, chains=chains, engine=engine
        )


def program_time(program: str, cv: CVData, engine, iterations: int) -> float:
    """Sampling time of one chain of ``iterations`` warm-up + ``iterations`` draws."""
    rng = np.random.default_rng(0)
    model_input = build_model_input(cv, Rope(-0.01, 0.01), HierarchicalPrior(), rng)
    settings = SamplerSettings(
        chains=1,
        draws=iterations,
        warmup=iterations,
        seed=3,
        inits=initial_values(model_input, 1, rng),
    )
    engine.compile(load_program(program))
    start = time.perf_counter()
    run_hierarchical_fit(
        model_input, engine=engine, settings=settings, delta_rng=rng, program=program
    )
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/RESULTS.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--engine", default="auto")
    args = parser.parse_args(argv)
    engine = get_engine(args.engine)
    engine.compile(load_program("hierarchical"))
    lines = [
        "# Benchmark results",
        "",
        f"Machine: {platform.machine()}, {platform.python_version()}, engine {engine.name}; "
        f"{time.strftime('%Y-%m-%d %H:%M')}. Medians of {args.repeats} fits after a warm-up "
        "fit; compilation excluded. Produced by `make bench` (benchmarks/run.py).",
        "",
    ]

    # 1. real data
    path = find_uci_weka()
    if path is not None:
        cv = CVData.from_frame(load_uci_weka(path), models=("nbc", "hnb"))
        fit_cv(cv, engine)
        seconds, result = timed(lambda: fit_cv(cv, engine), args.repeats)
        tracemalloc.start()
        fit_cv(cv, engine)
        _, python_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        lines += [
            "## One fit on the real data (nbc vs hnb, 54 data sets x 100 folds, 4 x 1000 draws)",
            "",
            f"* wall time: **{seconds:.2f} s** (target <= 2 s with pystan)",
            f"* peak Python allocations during a fit (tracemalloc, separate run): "
            f"{python_peak / 2**20:.0f} MiB; peak resident size of this process: "
            f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB, of each "
            f"chain process: {chain_process_peak_mib()}",
            f"* diagnostics: {result.diagnostics}",
            "",
        ]

    # 2. closed form against the literal matrix form
    engine.compile(load_program("hierarchical_matrix"))
    lines += [
        "## Closed-form likelihood against the matrix program (1 chain, 200 + 200 "
        "iterations, same seed and inits)",
        "",
        "| q | n | closed form (s) | matrix (s) | ratio |",
        "|---|---|---|---|---|",
    ]
    for q, n in ((10, 100), (10, 30)):
        cv = simulated(q, n)
        closed = statistics.median(
            program_time("hierarchical", cv, engine, 200) for _ in range(args.repeats)
        )
        matrix = statistics.median(
            program_time("hierarchical_matrix", cv, engine, 200)
            for _ in range(max(1, args.repeats - 1))
        )
        lines.append(f"| {q} | {n} | {closed:.2f} | {matrix:.2f} | **{matrix / closed:.1f}x** |")
    lines.append("")

    # 3. scaling
    lines += [
        "## Fit time against the number of data sets (n = 100 folds, 4 x 1000 draws)",
        "",
        "| q | seconds | seconds per data set | leapfrog steps per draw |",
        "|---|---|---|---|",
    ]
    for q in (10, 54, 200, 1000):
        cv = simulated(q, 100)
        seconds, result = timed(lambda cv=cv: fit_cv(cv, engine), 1 if q >= 200 else args.repeats)
        lines.append(f"| {q} | {seconds:.2f} | {seconds / q:.4f} | {leapfrog_steps(result):.1f} |")
    lines += [
        "",
        "## Fit time against the number of folds (q = 54, 4 x 1000 draws)",
        "",
        "| n | seconds | leapfrog steps per draw |",
        "|---|---|---|",
    ]
    for n in (10, 100, 1000):
        cv = simulated(54, n)
        seconds, result = timed(lambda cv=cv: fit_cv(cv, engine), args.repeats)
        lines.append(f"| {n} | {seconds:.2f} | {leapfrog_steps(result):.1f} |")
    lines += [
        "",
        "A gradient costs the same whatever n (the likelihood uses only n, mean and SS per data "
        "set), and the leapfrog steps per post-warm-up draw show whether the posterior's shape "
        "changed with n. Differences in seconds at equal steps come from warm-up (its steps are "
        "not recorded) or from other load on the shared machine.",
        "",
    ]
    lines += signed_rank_benchmark(args.repeats)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
