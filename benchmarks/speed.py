"""Leapfrog steps of one real-data fit by warm-up phase (issue 13, target 1: where the steps go).

Counts of leapfrog steps do not depend on the load of a shared machine, unlike seconds, so
variants of the Stan program are compared by them: the shipped ``hierarchical.stan`` and,
optionally, other programs given on the command line (same data, initial values and seed,
interleaved in one run so that their seconds are comparable too). Each fit is the real data
(nbc vs hnb), 4 chains x 1000 draws after 1000 warm-up iterations, pystan, with the warm-up
draws kept so that the steps of each adaptation window are counted: Stan's initial fast
interval (iterations 1-75, identity metric), the slow windows (76-950: 25, 50, 100, 200, 500
iterations; the metric is updated at the end of each), the terminal fast interval and sampling.

Usage: ``python -m benchmarks.speed [other.stan ...] [--seed N]``; prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from bayes_hier.examples import load_uci_weka
from bayes_hier.hierarchical.fit import prepare_input, seed_streams
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input, initial_values
from bayes_hier.stan_programs import _expand, load_program

#: Warm-up phases of Stan's default adaptation with 1000 warm-up iterations: (first, end).
PHASES = {
    "initial fast (1-75)": (0, 75),
    "slow window 1 (76-100)": (75, 100),
    "slow windows 2-5 (101-950)": (100, 950),
    "terminal fast (951-1000)": (950, 1000),
    "sampling (1000 draws)": (1000, 2000),
}


def fit_profile(code: str, data: dict, inits: list[dict], seed: int) -> dict[str, Any]:
    """Sample once and return the leapfrog steps per phase, step sizes, divergences, seconds."""
    import stan

    model = stan.build(code, data=dict(data), random_seed=seed)
    start = time.perf_counter()
    fit = model.sample(
        num_chains=len(inits),
        num_samples=1000,
        num_warmup=1000,
        delta=0.9,
        init=[dict(i) for i in inits],
        save_warmup=True,
    )
    seconds = time.perf_counter() - start
    chains = len(inits)
    steps = np.asarray(fit["n_leapfrog__"]).reshape(-1, chains)
    step_size = np.asarray(fit["stepsize__"]).reshape(-1, chains)
    return {
        "steps": {name: int(steps[a:b].sum()) for name, (a, b) in PHASES.items()},
        "median step size": {
            name: float(np.median(step_size[a:b])) for name, (a, b) in PHASES.items()
        },
        "total steps": int(steps.sum()),
        "divergences": int(np.asarray(fit["divergent__"]).reshape(-1, chains)[1000:].sum()),
        "seconds": seconds,
    }


def table(profiles: dict[str, dict[str, Any]]) -> list[str]:
    names = list(profiles)
    lines = [
        "| phase | " + " | ".join(f"{n}: steps (median step size)" for n in names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for phase in PHASES:
        cells = [
            f"{p['steps'][phase]} ({p['median step size'][phase]:.3f})" for p in profiles.values()
        ]
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    for label, key in (("all leapfrog steps", "total steps"), ("divergences", "divergences")):
        lines.append(f"| {label} | " + " | ".join(str(p[key]) for p in profiles.values()) + " |")
    lines.append(
        "| chains' wall time, s (shared machine) | "
        + " | ".join(f"{p['seconds']:.1f}" for p in profiles.values())
        + " |"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", type=Path, help="other .stan programs to compare")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    cv, rope = prepare_input(load_uci_weka(), rope=1.0, models=("nbc", "hnb"))
    streams = seed_streams(1)
    model_input = build_model_input(cv, rope, HierarchicalPrior(), streams.perturbation)
    inits = initial_values(model_input, 4, streams.inits)
    codes = {"hierarchical.stan": load_program("hierarchical").code}
    for path in args.programs:
        codes[str(path)] = _expand(path.read_text(), path.parent / "include")
    profiles = {
        name: fit_profile(code, model_input.data, inits, args.seed) for name, code in codes.items()
    }
    print("\n".join(table(profiles)))


if __name__ == "__main__":
    main()
