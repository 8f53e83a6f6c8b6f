"""Benchmarks of the hierarchical test (``make bench``): writes a Markdown report.

Measured in one run, so that ratios compare like with like on a shared, noisy machine:

1. wall time of one fit (4 chains x 1000 draws) on the real data (54 data sets x 100 folds);
2. the closed-form program against the literal matrix program (same data, seed, inits and
   iterations), at n = 100 folds;
3. how the fit time grows with the number of data sets q and with the number of folds n;
4. peak memory;
5. the Bayesian signed-rank test against baycomp (benchmarks/signed_rank.py);
6. the diagnostics of a real-data fit, vectorised against arviz's per-variable calls;
7. the breakdown of one real-data fit (build, warm-up, sampling, conversion, completion,
   diagnostics, Python overhead; leapfrog steps per draw and time per step).

``--only signed-rank,diagnostics`` measures some sections and replaces only those in ``--out``.

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
from benchmarks.breakdown import breakdown_lines
from benchmarks.diagnostics import diagnostics_benchmark
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


def real_data_cv() -> CVData | None:
    path = find_uci_weka()
    return None if path is None else CVData.from_frame(load_uci_weka(path), models=("nbc", "hnb"))


def section_fit(engine, repeats: int) -> list[str]:
    """1. One fit on the real data: time, memory, diagnostics."""
    cv = real_data_cv()
    if cv is None:
        return []
    fit_cv(cv, engine)
    seconds, result = timed(lambda: fit_cv(cv, engine), repeats)
    tracemalloc.start()
    fit_cv(cv, engine)
    _, python_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return [
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


def section_closed_form(engine, repeats: int) -> list[str]:
    """2. The closed-form program against the literal matrix program."""
    engine.compile(load_program("hierarchical_matrix"))
    lines = [
        "## Closed-form likelihood against the matrix program (1 chain, 200 + 200 "
        "iterations, same seed and inits)",
        "",
        "| q | n | closed form (s) | matrix (s) | ratio |",
        "|---|---|---|---|---|",
    ]
    for q, n in ((10, 100), (10, 30)):
        cv = simulated(q, n)
        closed = statistics.median(
            program_time("hierarchical", cv, engine, 200) for _ in range(repeats)
        )
        matrix = statistics.median(
            program_time("hierarchical_matrix", cv, engine, 200) for _ in range(max(1, repeats - 1))
        )
        lines.append(f"| {q} | {n} | {closed:.2f} | {matrix:.2f} | **{matrix / closed:.1f}x** |")
    return [*lines, ""]


def section_scaling_q(engine, repeats: int) -> list[str]:
    """3a. Fit time against the number of data sets."""
    lines = [
        "## Fit time against the number of data sets (n = 100 folds, 4 x 1000 draws)",
        "",
        "| q | seconds | seconds per data set | leapfrog steps per draw |",
        "|---|---|---|---|",
    ]
    for q in (10, 54, 200, 1000):
        cv = simulated(q, 100)
        seconds, result = timed(lambda cv=cv: fit_cv(cv, engine), 1 if q >= 200 else repeats)
        lines.append(f"| {q} | {seconds:.2f} | {seconds / q:.4f} | {leapfrog_steps(result):.1f} |")
    return [*lines, ""]


def section_scaling_n(engine, repeats: int) -> list[str]:
    """3b. Fit time against the number of folds."""
    lines = [
        "## Fit time against the number of folds (q = 54, 4 x 1000 draws)",
        "",
        "| n | seconds | leapfrog steps per draw |",
        "|---|---|---|",
    ]
    for n in (10, 100, 1000):
        cv = simulated(54, n)
        seconds, result = timed(lambda cv=cv: fit_cv(cv, engine), repeats)
        lines.append(f"| {n} | {seconds:.2f} | {leapfrog_steps(result):.1f} |")
    return [
        *lines,
        "",
        "A gradient costs the same whatever n (the likelihood uses only n, mean and SS per data "
        "set), and the leapfrog steps per post-warm-up draw show whether the posterior's shape "
        "changed with n. Differences in seconds at equal steps come from warm-up (its steps are "
        "not recorded) or from other load on the shared machine.",
        "",
    ]


def section_signed_rank(engine, repeats: int) -> list[str]:
    """4. The Bayesian signed-rank test (benchmarks/signed_rank.py)."""
    return signed_rank_benchmark(repeats)


def section_diagnostics(engine, repeats: int) -> list[str]:
    """5. The diagnostics of one real-data fit (benchmarks/diagnostics.py)."""
    cv = real_data_cv()
    return [] if cv is None else diagnostics_benchmark(fit_cv(cv, engine), repeats)


def section_breakdown(engine, repeats: int) -> list[str]:
    """7. Where the time of one real-data fit goes (benchmarks/breakdown.py; pystan only)."""
    cv = real_data_cv()
    if cv is None:
        return []
    if engine.name != "pystan":
        return ["## Breakdown of one real-data fit", "", "Skipped: measured with pystan only.", ""]
    return breakdown_lines(cv)


#: name -> (the first words of the section's heading, the function that measures it).
SECTIONS = {
    "fit": ("## One fit on the real data", section_fit),
    "closed-form": ("## Closed-form likelihood", section_closed_form),
    "scaling-q": ("## Fit time against the number of data sets", section_scaling_q),
    "scaling-n": ("## Fit time against the number of folds", section_scaling_n),
    "signed-rank": ("## Bayesian signed-rank test", section_signed_rank),
    "diagnostics": ("## Diagnostics of one real-data fit", section_diagnostics),
    "breakdown": ("## Breakdown of one real-data fit", section_breakdown),
}


def split_sections(text: str) -> tuple[list[str], list[list[str]]]:
    """(lines before the first ``## `` heading, [lines of each ``## `` section])."""
    preamble: list[str] = []
    sections: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append([line])
        elif sections:
            sections[-1].append(line)
        else:
            preamble.append(line)
    return preamble, sections


def merge_sections(text: str, measured: dict[str, list[str]]) -> str:
    """``text`` with the sections in ``measured`` replaced (matched by their heading's first
    words, :data:`SECTIONS`) or appended; every other section kept as it was."""
    preamble, sections = split_sections(text)
    for name, lines in measured.items():
        prefix = SECTIONS[name][0]
        body = list(lines)
        while body and body[-1] == "":
            body.pop()
        body.append("")
        places = [i for i, section in enumerate(sections) if section[0].startswith(prefix)]
        if places:
            sections[places[0]] = body
            for extra in reversed(places[1:]):
                del sections[extra]
        else:
            sections.append(body)
    return "\n".join([*preamble, *(line for section in sections for line in section)]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/RESULTS.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--engine", default="auto")
    parser.add_argument(
        "--only",
        default=None,
        help=f"comma-separated sections to measure ({', '.join(SECTIONS)}); the others are kept "
        "as they are in --out (default: all, and the file is rewritten)",
    )
    args = parser.parse_args(argv)
    chosen = list(SECTIONS) if args.only is None else [s.strip() for s in args.only.split(",")]
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}; choose from {', '.join(SECTIONS)}")
    engine = get_engine(args.engine)
    engine.compile(load_program("hierarchical"))
    measured = {name: SECTIONS[name][1](engine, args.repeats) for name in chosen}
    out = Path(args.out)
    if args.only is None or not out.exists():
        header = [
            "# Benchmark results",
            "",
            f"Machine: {platform.machine()}, {platform.python_version()}, engine {engine.name}; "
            f"{time.strftime('%Y-%m-%d %H:%M')}. Medians of {args.repeats} fits after a warm-up "
            "fit; compilation excluded. Produced by `make bench` (benchmarks/run.py).",
            "",
        ]
        text = merge_sections("\n".join(header), measured)
    else:
        text = merge_sections(out.read_text(), measured)
    out.write_text(text)
    print("\n".join(line for lines in measured.values() for line in lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
