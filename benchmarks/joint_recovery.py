"""Recovery of a known truth by the joint model at the shape of a large benchmark study.

``python -m benchmarks.joint_recovery [--k 16] [--q 132] [--folds 4] [--scenarios one_better
all_equal] [--seed 1] [--adapt-delta A]`` simulates one study per scenario with
:func:`bayes_hier.joint.recovery.simulate_study` (k models, q data sets, one run of ``--folds``
folds; the recovery design's true values otherwise: fold sd 3 points, models correlated 0.6 on a
fold, true effects spread by 0.5 around the population's, rope 1 point) and fits it with
``joint_test`` and the package defaults (``noise="auto"``, 4 chains x 1000 draws after 1000
warm-up, fit seed 1; ``--adapt-delta`` replaces the default target acceptance rate). In
``one_better`` model A is better by 2 points on average; in ``all_equal`` every model has the
same population effect, so every pair's true difference on a new data set is
N(0, 2 x 0.5^2), inside the rope of 1 point with probability 0.84: the rope is the region with
the largest mass, which is what the next-data-set P(rope) is the probability of (1 when
recovered).

Per fit it records the wall time and the CPU seconds of the chain processes, the diagnostics
(divergences, max R-hat, min bulk ESS, leapfrog steps per draw) and what should be recovered:
P(best) and the expected rank of the better model (``one_better``) and the pairs' P(rope) on a
new data set and for the population mean (``all_equal``). Writes ``benchmarks/JOINT_RECOVERY.md``.

One default fit of 16 x 132 x 4 takes 12-14 minutes on 2 cores (JOINT_RECOVERY.md): run nothing
else heavy at the same time.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bayes_hier.joint import JointResult
from bayes_hier.joint.recovery import RecoveryDesign, simulate_study

from .joint_fold import quiet_joint_test
from .measure import commit, descendants_cpu_seconds, load_averages

HERE = Path(__file__).parent


@dataclass(frozen=True)
class RecoveryFit:
    """One fitted study and its costs."""

    scenario: str
    result: JointResult
    wall: float
    chain_cpu: float
    load_after: str

    def diagnostics_row(self) -> str:
        d = self.result.diagnostics
        steps = float(self.result.idata.sample_stats["n_steps"].mean())
        return (
            f"| {self.scenario} | {self.result.settings['options']['noise']} | "
            f"{d['divergences']} | {d['max_rhat']:.3f} | {d['min_ess_bulk']:.0f} | {steps:.1f} | "
            f"{self.wall / 60:.1f} | {self.chain_cpu / 60:.1f} | {self.load_after} |"
        )


def fit(scenario: str, design: RecoveryDesign, q: int, seed: int, options: dict) -> RecoveryFit:
    """Simulate the scenario's study and fit it (defaults but ``options``), timing the fit."""
    study = simulate_study(scenario, q, design, seed=seed)
    cpu, start = descendants_cpu_seconds(), time.time()
    result = quiet_joint_test(study.frame, design.rope, models=list(design.models), **options)
    wall, chain_cpu = time.time() - start, descendants_cpu_seconds() - cpu
    return RecoveryFit(scenario, result, wall, chain_cpu, load_averages())


def true_next_dataset(design: RecoveryDesign, draws: int = 400_000) -> tuple[float, float]:
    """P(best) and expected rank of the better model on a new data set under the simulation's
    truth (its effect A + s z_0 against s z_j, j ≠ 0; Monte Carlo, standard error < 0.001)."""
    rng = np.random.default_rng(0)
    effects = design.mean_effects("one_better") + design.spread * rng.standard_normal(
        (draws, design.k)
    )
    better = effects[:, design.better]
    rank = 1 + (effects > better[:, None]).sum(axis=1)
    return float((rank == 1).mean()), float(rank.mean())


def true_better_mass(design: RecoveryDesign) -> float:
    """The true mass of the region "better model better by more than the rope" in the population
    of its differences with another model, N(A, 2s²)."""
    from scipy.stats import norm

    return float(norm.sf(design.rope, design.advantage, design.spread * np.sqrt(2)))


def one_better_lines(fit: RecoveryFit, design: RecoveryDesign) -> list[str]:
    result = fit.result
    true_p_best, true_rank = true_next_dataset(design)
    better = design.models[design.better]
    p_best = result.p_best
    others = p_best.drop(better)
    ranks = result.expected_rank
    pairs = result.pairs
    with_better = pairs[(pairs["first"] == better) | (pairs["second"] == better)]
    better_side = np.where(
        with_better["first"] == better,
        with_better["p_first_better"],
        with_better["p_second_better"],
    )
    return [
        f"* P(best) of the better model {better}: {p_best[better]:.3f}; the largest of the "
        f"others: {others.max():.3f} ({others.idxmax()}). True value: {true_p_best:.3f}.",
        f"* Expected rank of {better}: {ranks[better]:.2f} (true value {true_rank:.2f}; 1 is "
        "best); the others' from "
        f"{ranks.drop(better).min():.2f} to {ranks.drop(better).max():.2f}.",
        f"* P({better} better on a new data set) against each of the {len(better_side)} others: "
        f"{better_side.min():.3f} to {better_side.max():.3f} (the probability that the region "
        f"'{better} better' holds the largest mass; true value 1, that mass being "
        f"{true_better_mass(design):.2f}).",
    ]


def all_equal_lines(fit: RecoveryFit) -> list[str]:
    pairs = fit.result.pairs
    rope, population = pairs["p_rope"], pairs["p_population_rope"]
    p_best = fit.result.p_best
    return [
        f"* P(rope) on a new data set over the {len(pairs)} pairs: min {rope.min():.3f}, median "
        f"{rope.median():.3f}, max {rope.max():.3f} (the probability that the rope holds the "
        "largest mass of the pair's population of differences; true value 1, that mass being "
        "0.84).",
        f"* P(rope) of the population mean difference: min {population.min():.3f}, median "
        f"{population.median():.3f}.",
        f"* P(best) from {p_best.min():.3f} to {p_best.max():.3f} (1/k = {1 / len(p_best):.3f}).",
    ]


def report(
    fits: list[RecoveryFit], design: RecoveryDesign, q: int, seed: int, options: dict
) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Benchmark: recovery by the joint model at a large study's shape",
        "",
        f"* Measured {now} by `python -m benchmarks.joint_recovery` at commit {commit()}; "
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs.",
        f"* Study: {design.k} models x {q} data sets x {design.runs} run of {design.folds} folds "
        f"(`bayes_hier.joint.recovery.simulate_study`, study seed {seed}): fold sd "
        f"{design.fold_sd:g} points, models correlated {design.model_correlation:g} on a fold, "
        f"true effects spread by {design.spread:g}; rope {design.rope:g} point. `one_better`: "
        f"model {design.models[design.better]} better by {design.advantage:g} points on average; "
        "`all_equal`: every model the same on average.",
        "* Fit: `joint_test` with the package defaults (noise='auto', 4 chains x 1000 draws after "
        f"1000 warm-up), fit seed 1{''.join(f', {k}={v}' for k, v in options.items())}.",
        "",
        "| scenario | noise | divergences | max R-hat | min bulk ESS | steps per draw | wall min "
        "| chain CPU min | load after |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
        *(f.diagnostics_row() for f in fits),
        "",
    ]
    for f in fits:
        lines += [f"## {f.scenario}", ""]
        if not f.result.converged:
            lines += [
                "* The fit did not meet the diagnostics' thresholds: its numbers below are not "
                "an answer.",
            ]
        if f.scenario == "one_better":
            lines += one_better_lines(f, design)
        else:
            lines += all_equal_lines(f)
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--q", type=int, default=132)
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--scenarios", nargs="+", default=["one_better", "all_equal"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--adapt-delta", type=float, default=None)
    parser.add_argument("--output", type=Path, default=HERE / "JOINT_RECOVERY.md")
    args = parser.parse_args()
    design = RecoveryDesign(k=args.k, runs=1, folds=args.folds)
    options = {} if args.adapt_delta is None else {"adapt_delta": args.adapt_delta}
    fits = []
    for scenario in args.scenarios:
        fits.append(fit(scenario, design, args.q, args.seed, options))
        print(fits[-1].diagnostics_row(), flush=True)
    args.output.write_text(report(fits, design, args.q, args.seed, options) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
