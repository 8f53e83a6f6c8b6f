"""Benchmark of the joint model on the real data: writes a Markdown report.

1. One fit of the 5 classifiers x 54 data sets x 100 folds (4 chains x 1000 draws, pystan):
   wall time, CPU time of the chain processes, leapfrog steps, divergences, R-hat, bulk/tail ESS
   of every reported quantity, and the ranking it gives.
2. ESS of what the reported probabilities are computed from: θ₀, Σ₀, ν and, per posterior draw,
   the next-data-set quantities whose means are P(best), the rank probabilities and the pairwise
   left/rope/right (the share of the draw's predictive replicates in which a model is best or has
   rank r; the indicator of the region with the largest Student-t mass of a pair).
3. ``--folds``: the same fit with the folds cut to the first 1 and 3 runs (n = 10 and 30 per data
   set; n = 100 is fit 1): leapfrog steps per draw, CPU time of the chain processes and wall time.
   A gradient costs the same whatever n (the likelihood uses sufficient statistics), so time is
   flat in n when the steps per draw are.
4. ``--pairs``: k = 2 against ``hierarchical_test`` on the ten pairs (|difference| of
   left/rope/right for the next data set and the population mean; target <= 0.03).

The machine is shared: the load average is recorded with every timing, and the CPU time of the
chain processes (user + system, measured with psutil) is reported because it does not depend on
the other load the way wall time does. A section that is not rerun is kept from the previous
report at ``--out``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from bayes_hier.diagnostics import rank_diagnostics
from bayes_hier.examples import load_uci_weka
from bayes_hier.hierarchical import hierarchical_test
from bayes_hier.joint import JointResult, joint_test
from bayes_hier.joint.model import FoldNoiseJointModel, JointModel
from bayes_hier.joint.result import NEXT_DRAWS_PER_POSTERIOR_DRAW
from bayes_hier.ranks import ranks_of

from .measure import commit, compile_programs, descendants_cpu_seconds, load_averages
from .summary import Measured, Row, met

ROPE = 1.0
SEED = 1
SETTINGS = {"chains": 4, "draws": 1000, "warmup": 1000, "engine": "pystan", "warn": False}
#: Runs of 10 folds kept per data set for the folds section (n = 10 · runs).
RUNS_SUBSAMPLED = (1, 3)
#: Headings of the sections a run writes; a section not rerun is carried over from the old report.
PAIRS_HEADING = "## k = 2 against hierarchical_test"
FOLDS_HEADING = "## Time against the number of folds"
KEPT_NOTE = "_Not rerun by the measurement above: kept from an earlier report._"


@dataclass
class TimedFit:
    """A fit with its wall time, the CPU seconds of the chain processes and of this process, and
    the load average before and after."""

    result: JointResult
    wall: float
    chain_cpu: float
    parent_cpu: float
    load_before: str
    load_after: str

    @property
    def steps_per_draw(self) -> float:
        """Mean leapfrog steps per post-warm-up draw (NaN if the engine does not report them)."""
        stats = self.result.idata.sample_stats
        return float(stats["n_steps"].values.mean()) if "n_steps" in stats else float("nan")


def compile_joint_programs() -> None:
    """Compile (or find cached) both programs of the joint model with the engine of the timed
    fits, so that no timed fit includes a compilation (its compiler processes would count as the
    chains' CPU)."""
    compile_programs((JointModel.program, FoldNoiseJointModel.program), SETTINGS["engine"])


def timed_fit(frame: pd.DataFrame, **options) -> TimedFit:
    load_before = load_averages()
    children_before, own_before = descendants_cpu_seconds(), time.process_time()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = joint_test(frame, rope=ROPE, seed=SEED, **{**SETTINGS, **options})
    wall = time.perf_counter() - start
    return TimedFit(
        result=result,
        wall=wall,
        chain_cpu=descendants_cpu_seconds() - children_before,
        parent_cpu=time.process_time() - own_before,
        load_before=load_before,
        load_after=load_averages(),
    )


def reported_quantities(result: JointResult) -> dict[str, np.ndarray]:
    """Per posterior draw, arrays (chain, draw, K) of the quantities behind the reported numbers.

    * ``theta0``, ``Sigma0`` (its upper triangle), ``nu``: the population's parameters;
    * ``P(best)`` and ``P(rank r)`` per model: the share of the draw's
      :data:`NEXT_DRAWS_PER_POSTERIOR_DRAW` predictive replicates in which the model is best or
      has rank r (their means over draws are ``p_best`` and ``rank_probabilities``);
    * ``pair regions``: per pair, the indicators of the region (left, rope, right) with the
      largest Student-t mass (their means are the pair's next-data-set probabilities).
    """
    posterior = result.idata.posterior
    chains, draws = int(posterior.sizes["chain"]), int(posterior.sizes["draw"])
    shape = (chains, draws, -1)
    sigma0 = posterior["Sigma0"].values
    upper = np.triu_indices(sigma0.shape[-1])
    k = len(result.models)
    ranks = ranks_of(result.next_sample).reshape(chains, draws, NEXT_DRAWS_PER_POSTERIOR_DRAW, k)
    rank_shares = np.stack([(ranks == r).mean(axis=2) for r in range(1, k + 1)], axis=-1)
    regions = []
    for pair in result.pair_results.values():
        sample = pair.sample
        is_max = sample == sample.max(axis=1, keepdims=True)
        regions.append(is_max / is_max.sum(axis=1, keepdims=True))
    return {
        "theta0": posterior["theta0"].values.reshape(shape),
        "Sigma0": sigma0[..., upper[0], upper[1]].reshape(shape),
        "nu": posterior["nu"].values.reshape(shape),
        "P(best)": rank_shares[..., 0].reshape(shape),
        "P(rank r)": rank_shares.reshape(shape),
        "pair regions": np.concatenate(regions, axis=1).reshape(shape),
    }


def ess_lines(result: JointResult) -> list[str]:
    lines = [
        "",
        "### R-hat and bulk ESS of the reported quantities' ingredients",
        "",
        "| quantity | elements | max R-hat | min bulk ESS |",
        "|---|---|---|---|",
    ]
    for name, values in reported_quantities(result).items():
        varying = values[..., np.ptp(values.reshape(-1, values.shape[-1]), axis=0) > 0]
        rhat, ess = rank_diagnostics(varying)
        lines.append(
            f"| {name} | {values.shape[-1]} ({varying.shape[-1]} not constant) | "
            f"{np.nanmax(rhat):.4f} | {np.nanmin(ess):.0f} |"
        )
    lines.append(
        "\nConstant elements (an indicator that is 0 in every draw, e.g. P(rank 5) of hnb) have "
        "no sampling error and are left out of the max/min."
    )
    return lines


def fit_lines(
    fit: TimedFit, heading: str = "## The real-data fit", intro: tuple[str, ...] = ()
) -> list[str]:
    """The section of one timed fit: ``heading``, the ``intro`` lines, times, diagnostics, the
    ranking, the pairs and the ESS table."""
    result = fit.result
    d = result.diagnostics
    depth = result.idata.sample_stats["tree_depth"].values
    lines = [
        "",
        heading,
        "",
        *intro,
        f"* **Wall time: {fit.wall:.1f} s** for {d['chains']} chains x {d['draws']} draws "
        f"(+{result.settings['warmup']} warm-up); load average before: {fit.load_before}, "
        f"after: {fit.load_after}. Target: 30 s.",
        f"* **CPU time of the chain processes: {fit.chain_cpu:.1f} s** (user + system, warm-up "
        f"and sampling of {d['chains']} chains), i.e. about {fit.chain_cpu / 2:.0f} s of wall "
        f"time on 2 free cores; this process (data, posterior completion, diagnostics): "
        f"{fit.parent_cpu:.1f} s.",
        f"* Divergences {d['divergences']}, max R-hat {d['max_rhat']:.4f}, min bulk ESS "
        f"{d['min_ess_bulk']:.0f}, min tail ESS {d['min_ess_tail']:.0f}, tree-depth hits "
        f"{d['max_treedepth_hits']}, min E-BFMI {d['min_ebfmi']:.2f} over every reported "
        "variable (delta0, sigma0, mu0, nu, mu, sigma, tau; targets: 0, <= 1.01, >= 400).",
        f"* Tree depth per transition: mean {depth.mean():.2f}, leapfrog steps per draw "
        f"{fit.steps_per_draw:.1f}.",
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
    return lines + ess_lines(result)


#: The target of a default real-data fit on 2 cores (``make bench``'s target 8b), in seconds.
REAL_DATA_TARGET = 30.0


def real_data_benchmark() -> Measured:
    """``make bench``'s section ``joint-real`` (target 8b): one default fit of the joint model on
    the real data (5 models x 54 data sets x 100 folds, 4 x 1000 draws after 1000 warm-up, seed 1,
    rope 1), after the programs are compiled, with its wall and CPU times and diagnostics."""
    compile_joint_programs()
    fit = timed_fit(load_uci_weka())
    d = fit.result.diagnostics
    converged = d["divergences"] == 0 and d["max_rhat"] <= 1.01
    figure = (
        f"{fit.wall:.1f} s wall (chains' CPU {fit.chain_cpu:.1f} s, this process "
        f"{fit.parent_cpu:.1f} s); {d['divergences']} divergences, max R-hat "
        f"{d['max_rhat']:.4f}, {fit.steps_per_draw:.1f} steps per draw"
    )
    intro = (
        "The model of `compare(load_uci_weka(), rope=1, method='joint', seed=1)` (full noise "
        "covariances, integrated out), default settings, pystan; compilation excluded "
        "(`benchmarks/joint.py`, whose `python -m benchmarks.joint` adds the k = 2 check).",
        "",
    )
    lines = fit_lines(fit, "## The joint model on the real data", intro)
    row = Row("8b", figure, met(fit.wall <= REAL_DATA_TARGET and converged))
    return Measured(lines[1:], [row])


def folds_lines(frame: pd.DataFrame, full: TimedFit | None) -> list[str]:
    lines = [
        "",
        FOLDS_HEADING,
        "",
        "Same data, folds cut to the first runs of every data set, same settings and seed.",
        "",
        "| folds per data set | leapfrog steps per draw | CPU of chains (s) | wall time (s) "
        "| load before / after |",
        "|---|---|---|---|---|",
    ]
    fits = [(10 * runs, timed_fit(frame[frame["run"] < runs])) for runs in RUNS_SUBSAMPLED]
    if full is not None:
        fits.append((100, full))
    for n, fit in fits:
        lines.append(
            f"| {n} | {fit.steps_per_draw:.1f} | {fit.chain_cpu:.1f} | {fit.wall:.1f} | "
            f"{fit.load_before} / {fit.load_after} |"
        )
    return lines


def pair_lines(frame: pd.DataFrame) -> list[str]:
    lines = [
        "",
        f"{PAIRS_HEADING} (ten pairs, 4 x 1000 draws each)",
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


def previous_section(path: Path, heading: str) -> list[str]:
    """The section of an earlier report that starts with ``heading`` (to the next ``## ``)."""
    if not path.exists():
        return []
    text = path.read_text().splitlines()
    starts = [i for i, line in enumerate(text) if line.startswith(heading)]
    if not starts:
        return []
    end = next((i for i in range(starts[0] + 1, len(text)) if text[i].startswith("## ")), len(text))
    section = text[starts[0] : end]
    if KEPT_NOTE not in section:
        section[1:1] = ["", KEPT_NOTE]
    return ["", *section]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="benchmarks/JOINT.md")
    parser.add_argument("--folds", action="store_true", help="also time n = 10, 30 folds")
    parser.add_argument("--pairs", action="store_true", help="also the k = 2 check")
    parser.add_argument("--no-fit", action="store_true", help="skip the 5-model fit")
    parser.add_argument(
        "--code", default=f"commit {commit()}", help="the code's version, for the report's header"
    )
    args = parser.parse_args()
    out = Path(args.out)
    frame = load_uci_weka()
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Benchmark: the joint model on the real data",
        "",
        f"* Measured {now} by `python -m benchmarks.joint"
        + "".join(
            f" --{name}"
            for name in ("folds", "pairs", "no-fit")
            if getattr(args, name.replace("-", "_"))
        )
        + f"` at {args.code}; machine: {platform.platform()}, {os.cpu_count()} CPUs, shared "
        f"with other sessions; 5 classifiers x 54 data sets x 10x10 CV, rope {ROPE:g}, "
        f"seed {SEED}, pystan, adapt_delta 0.9.",
    ]
    compile_joint_programs()
    full = None
    if not args.no_fit:
        full = timed_fit(frame)
        lines += fit_lines(full)
    lines += folds_lines(frame, full) if args.folds else previous_section(out, FOLDS_HEADING)
    lines += pair_lines(frame) if args.pairs else previous_section(out, PAIRS_HEADING)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
