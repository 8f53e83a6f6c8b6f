"""Benchmark of ``compare`` on the real data (``make bench``): writes a Markdown report.

Wall time of the 10-pair hierarchical comparison of the 5 classifiers on 54 data sets (10x10 CV,
rope 1 accuracy point, 4 chains x 1000 draws) with ``--jobs`` worker processes (target: 20 s
with 2 on 2 cores), the diagnostics of the pairs, and with ``--verify`` the check that every
pair's probabilities are those of ``hierarchical_test`` on that pair with the pair's seed.
"""

from __future__ import annotations

import argparse
import os
import platform
import warnings
from pathlib import Path

from bayes_hier import compare, hierarchical_test
from bayes_hier.compare.core import pair_seed
from bayes_hier.examples import load_uci_weka
from benchmarks.measure import Stopwatch, commit, load_averages, now

ROPE = 1.0
SEED = 1


def timed_compare(jobs: int) -> tuple[Stopwatch, object]:
    """Wall and CPU time and load of the 10-pair comparison, and its result."""
    frame = load_uci_weka()
    with Stopwatch() as watch, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare(frame, rope=ROPE, seed=SEED, jobs=jobs)
    return watch, result


def verify(result) -> list[str]:
    """One line per pair: its probabilities against hierarchical_test's with the same seed."""
    frame = load_uci_weka()
    lines = []
    for first, second in result.pair_results:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alone = hierarchical_test(
                frame, rope=ROPE, models=(first, second), seed=pair_seed(SEED, first, second)
            )
        same = tuple(alone.probs) == tuple(result[first, second].probs)
        lines.append(
            f"| {first} | {second} | {'identical' if same else 'DIFFERENT'} | "
            f"{alone.probs.left:.4f} / {alone.probs.rope:.4f} / {alone.probs.right:.4f} |"
        )
    return lines


def report(jobs: int, watch: Stopwatch, result, checks: list[str]) -> str:
    """The Markdown report."""
    table = result.pairs
    seconds = watch.wall
    load = load_averages()
    lines = [
        "# Benchmark: compare() on the real data",
        "",
        f"* Measured {now()} at commit `{commit()}` (`make bench`, `benchmarks/compare.py`).",
        f"* Machine: {platform.platform()}, {os.cpu_count()} CPUs, load average {load} "
        f"(1, 5, 15 min) after the run; 1-minute load {watch.load_start:.1f} at the start.",
        f"* 5 classifiers x 54 data sets, 10x10 CV, rope {ROPE:g}, seed {SEED}, hierarchical "
        f"method, 4 chains x 1000 draws (1000 warm-up), engine "
        f"{result[result.models[0], result.models[1]].settings['engine']}.",
        f"* **Wall time of the 10 pairs with jobs={jobs}: {seconds:.1f} s** (target: 20 s); "
        f"CPU time {watch.cpu:.1f} s (user + sys, worker and chain processes included).",
        f"* Divergences: {int(table['divergences'].sum())} in total; max R-hat "
        f"{table['max_rhat'].max():.4f}; min bulk ESS {table['min_ess_bulk'].min():.0f}.",
        "",
        "| first | second | P(first) | P(rope) | P(second) | divergences | max R-hat |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in table.itertuples():
        lines.append(
            f"| {row.first} | {row.second} | {row.p_first_better:.4f} | {row.p_rope:.4f} | "
            f"{row.p_second_better:.4f} | {row.divergences:.0f} | {row.max_rhat:.4f} |"
        )
    if checks:
        lines += [
            "",
            "Each pair against `hierarchical_test` on that pair with the pair's seed:",
            "",
            "| first | second | probabilities | hierarchical_test (left / rope / right) |",
            "|---|---|---|---|",
            *checks,
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/COMPARE.md"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verify", action="store_true", help="rerun each pair alone")
    args = parser.parse_args()
    watch, result = timed_compare(args.jobs)
    checks = verify(result) if args.verify else []
    text = report(args.jobs, watch, result, checks)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
