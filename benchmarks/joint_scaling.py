"""Cost of the joint model against the number of models k and of data sets q: a table and a figure.

``python -m benchmarks.joint_scaling [--ks 2 4 8 16 32] [--q-for-k 30] [--qs 10 30 100 300]
[--k-for-q 5] [--chains 2] [--warmup 500] [--draws 200]`` fits ``joint_test`` (``noise="auto"``:
the fold-level noise for k >= 3 at 4 folds, the full covariance for k = 2) on the few-fold
generator's studies (:func:`bayes_hier.few_fold.few_fold_study`, 4 folds, study seed 1, rope 0.01,
fit seed 1) along two lines: k models on ``--q-for-k`` data sets, and ``--k-for-q`` models on q
data sets. Each fit runs ``--chains`` chains of ``--warmup`` warm-up iterations and ``--draws``
draws (500 warm-up iterations run Stan's whole adaptation schedule, with shorter windows than
the default 1000). Per fit it records the wall time, the CPU
seconds of the chain processes (which do not depend on the other load of a shared machine the
way wall time does), the leapfrog steps per draw of the sampling phase, the divergences and the
maximum R-hat, and extrapolates the CPU seconds to a default fit (4 chains x 2000 iterations) and
its wall time on 2 free cores (half of that). Writes ``benchmarks/JOINT_SCALING.md`` and the figure
``benchmarks/joint_scaling.png`` (time and leapfrog steps per draw against k and q).

The fits run one after another, each with its chains in parallel: run nothing else heavy at the
same time on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import matplotlib.pyplot as plt

from bayes_hier.few_fold import few_fold_study

from .joint_fold import quiet_joint_test
from .measure import commit, descendants_cpu_seconds, load_averages

HERE = Path(__file__).parent
#: Iterations (warm-up + draws) and chains of the default fit the CPU time is extrapolated to.
DEFAULT_ITERATIONS, DEFAULT_CHAINS, CORES = 2000, 4, 2


@dataclass(frozen=True)
class ScalingRow:
    """One fit of the joint model on a k x q x 4 few-fold study."""

    k: int
    q: int
    noise: str
    wall: float
    chain_cpu: float
    steps_per_draw: float
    divergences: int
    max_rhat: float
    warmup: int
    draws: int
    chains: int

    @property
    def cpu_per_iteration(self) -> float:
        """CPU seconds of one chain iteration, warm-up and sampling together."""
        return self.chain_cpu / (self.chains * (self.warmup + self.draws))

    @property
    def default_fit_wall(self) -> float:
        """Wall seconds of a default fit (4 chains x 2000 iterations) on 2 free cores, from this
        fit's CPU per iteration."""
        return self.cpu_per_iteration * DEFAULT_CHAINS * DEFAULT_ITERATIONS / CORES

    def markdown(self) -> str:
        return (
            f"| {self.k} | {self.q} | {self.noise} | {self.steps_per_draw:.1f} | "
            f"{1000 * self.cpu_per_iteration:.1f} | {self.wall:.0f} | {self.chain_cpu:.0f} | "
            f"{self.default_fit_wall / 60:.1f} | {self.divergences} | {self.max_rhat:.3f} |"
        )


def fit_row(k: int, q: int, chains: int, warmup: int, draws: int) -> ScalingRow:
    """Fit the joint model to the k x q x 4 study and measure it."""
    frame = few_fold_study(k, q, 4, seed=1)
    cpu_before, start = descendants_cpu_seconds(), time.perf_counter()
    result = quiet_joint_test(frame, 0.01, chains=chains, draws=draws, warmup=warmup)
    wall = time.perf_counter() - start
    d = result.diagnostics
    return ScalingRow(
        k=k,
        q=q,
        noise=result.settings["options"]["noise"],
        wall=wall,
        chain_cpu=descendants_cpu_seconds() - cpu_before,
        steps_per_draw=float(result.idata.sample_stats["n_steps"].mean()),
        divergences=int(d["divergences"]),
        max_rhat=float(d["max_rhat"]),
        warmup=warmup,
        draws=draws,
        chains=chains,
    )


def plot(by_k: list[ScalingRow], by_q: list[ScalingRow], path: Path) -> None:
    """Two panels per line (k, q): extrapolated default-fit minutes and steps per draw."""
    figure, axes = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    for axis, rows, name in ((axes[0], by_k, "k"), (axes[1], by_q, "q")):
        x = [getattr(row, name) for row in rows]
        axis.plot(x, [row.default_fit_wall / 60 for row in rows], "o-", color="C0")
        axis.set_xscale("log", base=2 if name == "k" else 10)
        axis.set_yscale("log")
        axis.set_xticks(x, [str(v) for v in x])
        axis.set_xlabel(
            f"models k (q = {rows[0].q} data sets)"
            if name == "k"
            else f"data sets q (k = {rows[0].k} models)"
        )
        axis.set_ylabel("default fit, minutes on 2 cores (extrapolated)", color="C0")
        steps = axis.twinx()
        steps.plot(x, [row.steps_per_draw for row in rows], "s--", color="C1")
        steps.set_ylabel("leapfrog steps per draw", color="C1")
        steps.set_ylim(bottom=0)
    figure.suptitle("Joint model on few-fold studies (4 folds): time and leapfrog steps")
    figure.savefig(path, dpi=120)
    plt.close(figure)


def report(by_k: list[ScalingRow], by_q: list[ScalingRow], args: argparse.Namespace) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = (
        "| k | q | noise | steps per draw | CPU ms per chain iteration | wall s | chain CPU s "
        "| default fit, min on 2 cores | divergences | max R-hat |\n"
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
    )
    lines = [
        "# Benchmark: the joint model's cost against k and q",
        "",
        f"* Measured {now} by `python -m benchmarks.joint_scaling` at commit {commit()}; machine: "
        f"{platform.platform()}, {os.cpu_count()} CPUs; pystan; load average after: "
        f"{load_averages()}.",
        f'* Studies: `few_fold_study(k, q, 4, seed=1)`, rope 0.01, fit seed 1, `noise="auto"`; '
        f"{args.chains} chains x ({args.warmup} warm-up + {args.draws} draws) per fit (Stan's "
        "whole adaptation schedule, with shorter windows than the default 1000 warm-up "
        "iterations; the R-hat of 2 short chains says little about a default fit's).",
        "* The default-fit column extrapolates the CPU seconds per chain iteration (warm-up and "
        "sampling together) to 4 chains x 2000 iterations on 2 free cores.",
        "",
        "![time and leapfrog steps against k and q](joint_scaling.png)",
        "",
        f"## Against the number of models (q = {args.q_for_k})",
        "",
        header,
        *(row.markdown() for row in by_k),
        "",
        f"## Against the number of data sets (k = {args.k_for_q})",
        "",
        header,
        *(row.markdown() for row in by_q),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ks", type=int, nargs="+", default=[2, 4, 8, 16, 32])
    parser.add_argument("--q-for-k", type=int, default=30)
    parser.add_argument("--qs", type=int, nargs="+", default=[10, 30, 100, 300])
    parser.add_argument("--k-for-q", type=int, default=5)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--out", type=Path, default=HERE / "JOINT_SCALING.md")
    args = parser.parse_args()
    rows: dict[str, list[ScalingRow]] = {"k": [], "q": []}
    for name, points in (("q", args.qs), ("k", args.ks)):
        for value in points:
            k, q = (value, args.q_for_k) if name == "k" else (args.k_for_q, value)
            row = fit_row(k, q, args.chains, args.warmup, args.draws)
            print(row.markdown(), flush=True)
            rows[name].append(row)
    plot(rows["k"], rows["q"], args.out.with_name("joint_scaling.png"))
    args.out.write_text(report(rows["k"], rows["q"], args))
    print(f"Wrote {args.out}")


if __name__ == "__main__":
    main()
