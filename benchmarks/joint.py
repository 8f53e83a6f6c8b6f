"""Benchmark of the joint model (issue 12) on the real data: writes a Markdown report.

1. One fit of the 5 classifiers x 54 data sets x 100 folds (4 chains x 1000 draws, pystan):
   wall time, leapfrog steps, divergences, R-hat, bulk/tail ESS of every reported quantity, and
   the ranking it gives.
2. Time against the number of folds: the same data cut to the first 1, 5 and 10 runs.
3. ``--pairs``: k = 2 against ``hierarchical_test`` on the ten pairs (|difference| of
   left/rope/right for the next data set and the population mean; target <= 0.03).

The machine is shared: the load average is recorded with every timing.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np

from bayes_hier.examples import load_uci_weka
from bayes_hier.hierarchical import hierarchical_test
from bayes_hier.joint import joint_test

ROPE = 1.0
SEED = 1
SETTINGS = {"chains": 4, "draws": 1000, "warmup": 1000, "engine": "pystan", "warn": False}


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def timed_fit(frame, **options):
    """Wall time (s), the result and the load average just after the fit."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = joint_test(frame, rope=ROPE, seed=SEED, **{**SETTINGS, **options})
    return time.perf_counter() - start, result, load()


def fit_lines(seconds: float, result, load_after: str) -> list[str]:
    d = result.diagnostics
    steps = (
        result.idata.sample_stats["n_steps"].values
        if "n_steps" in result.idata.sample_stats
        else None
    )
    depth = result.idata.sample_stats["tree_depth"].values
    lines = [
        f"* **Wall time: {seconds:.1f} s** for {d['chains']} chains x {d['draws']} draws "
        f"(+{result.settings['warmup']} warm-up), load average after: {load_after}. "
        "Target: 60 s.",
        f"* Divergences {d['divergences']}, max R-hat {d['max_rhat']:.4f}, min bulk ESS "
        f"{d['min_ess_bulk']:.0f}, min tail ESS {d['min_ess_tail']:.0f}, tree-depth hits "
        f"{d['max_treedepth_hits']}, min E-BFMI {d['min_ebfmi']:.2f} (targets: 0, <= 1.01, "
        ">= 400).",
        f"* Tree depth per transition: mean {depth.mean():.2f}"
        + (f", leapfrog steps per draw {steps.mean():.1f}" if steps is not None else "")
        + ".",
        "",
        "| model | P(best) | P(practically best) | E[rank] | P(best) population |",
        "|---|---|---|---|---|",
    ]
    for model, row in result.ranking.iterrows():
        lines.append(
            f"| {model} | {row.p_best:.3f} | {row.p_practically_best:.3f} | "
            f"{row.expected_rank:.2f} | {row.p_best_population:.3f} |"
        )
    lines += [
        "",
        "| first | second | next: left / rope / right | population: left / rope / right |",
        "|---|---|---|---|",
    ]
    for row in result.pairs.itertuples():
        lines.append(
            f"| {row.first} | {row.second} | {row.p_first_better:.3f} / {row.p_rope:.3f} / "
            f"{row.p_second_better:.3f} | {row.p_population_first_better:.3f} / "
            f"{row.p_population_rope:.3f} / {row.p_population_second_better:.3f} |"
        )
    return lines


def folds_lines(frame) -> list[str]:
    lines = [
        "",
        "## Time against the number of folds",
        "",
        "| runs x folds | wall time (s) | mean tree depth | load |",
        "|---|---|---|---|",
    ]
    for runs in (1, 5, 10):
        part = frame[frame["run"] < sorted(frame["run"].unique())[runs - 1] + 1]
        seconds, result, load_after = timed_fit(part)
        depth = result.idata.sample_stats["tree_depth"].values.mean()
        lines.append(f"| {runs} x 10 | {seconds:.1f} | {depth:.2f} | {load_after} |")
    return lines


def pair_lines(frame) -> list[str]:
    lines = [
        "",
        "## k = 2 against hierarchical_test (ten pairs, 4 x 1000 draws each)",
        "",
        "| first | second | joint next | hierarchical next | max abs diff (next, population) |",
        "|---|---|---|---|---|",
    ]
    worst = 0.0
    for pair in combinations(sorted(frame["model"].unique()), 2):
        part = frame[frame["model"].isin(pair)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            joint = joint_test(part, rope=ROPE, models=list(pair), seed=SEED, **SETTINGS)[pair]
            reference = hierarchical_test(part, rope=ROPE, models=pair, seed=SEED, **SETTINGS)
        diff = max(
            np.max(np.abs(np.subtract(joint.probs, reference.probs))),
            np.max(np.abs(np.subtract(joint.population.probs, reference.population.probs))),
        )
        worst = max(worst, diff)
        fmt = lambda p: " / ".join(f"{v:.3f}" for v in p)  # noqa: E731
        lines.append(
            f"| {pair[0]} | {pair[1]} | {fmt(joint.probs)} | {fmt(reference.probs)} | {diff:.3f} |"
        )
    lines.append(f"\nLargest difference: **{worst:.3f}** (target <= 0.03).")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="benchmarks/JOINT.md")
    parser.add_argument("--folds", action="store_true", help="also time 1, 5, 10 runs")
    parser.add_argument("--pairs", action="store_true", help="also the k = 2 check")
    parser.add_argument("--no-fit", action="store_true", help="skip the 5-model fit")
    args = parser.parse_args()
    frame = load_uci_weka()
    lines = [
        "# Benchmark: the joint model on the real data",
        "",
        f"* Machine: {platform.platform()}, {os.cpu_count()} CPUs; 5 classifiers x 54 data "
        f"sets x 10x10 CV, rope {ROPE:g}, seed {SEED}.",
    ]
    if not args.no_fit:
        seconds, result, load_after = timed_fit(frame)
        lines += fit_lines(seconds, result, load_after)
    if args.folds:
        lines += folds_lines(frame)
    if args.pairs:
        lines += pair_lines(frame)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
