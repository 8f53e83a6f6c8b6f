"""Leapfrog steps of hierarchical fits by warm-up phase and setting (where the steps go).

Counts of leapfrog steps do not depend on the load of a shared machine, unlike seconds, so
variants of the Stan program are compared by them: the shipped ``hierarchical.stan`` and,
optionally, other programs given on the command line (same data, initial values and seed,
interleaved in one run so that their seconds are comparable too; an older program that still
declares ``delta0`` itself gets it as an initial value too, and ignores data it does not declare).
Each fit is 4 chains x 1000 draws after 1000 warm-up iterations, pystan, the hierarchical model's
adapt_delta (``HierarchicalModel.adapt_delta``), with the
warm-up draws kept so that the steps of each adaptation window are counted: Stan's initial fast
interval (iterations 1-75, identity metric), the slow windows (76-950: 25, 50, 100, 200, 500
iterations; the metric is updated at the end of each), the terminal fast interval and sampling.

Settings (``--setting``, repeatable; data from ``--seed``):

* ``real``: the real data, nbc vs hnb (54 data sets x 100 folds);
* ``e1-q5``, ``e1-q10``: E1's tight mixture population, 10 x 10-fold CV;
* ``e2-q10``, ``e2-q50``: E2, δ_i ~ Cauchy(0, 0.01/6); ``e3-q50``: E3, Cauchy(0.005, 0.01/6);
* ``e4-q50``: E4, Cauchy(0.02, 0.01);
* ``scale``: one pair (m00 vs m01) of the 16-model x 132-data-set x 4-fold study of
  :func:`benchmarks.scale.simulated_study`.

``--nu-prior`` picks the ν prior of the simulated settings. Usage:
``python -m benchmarks.speed [other.stan ...] [--before REV] [--setting NAME ...] [--seed N ...]
[--phases] [--posterior]``, or ``--checks`` for the shipped program through
``hierarchical_test`` with its defaults (divergences, max R-hat; data from seed 1000 + seed);
prints Markdown tables (``--phases``: steps per warm-up phase as well; ``--posterior``:
quantiles of δ₀, σ₀, ν and the σ_i means of each program, same posterior within Monte Carlo
error or not).
"""

from __future__ import annotations

import argparse
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bayes_hier.data import CVData
from bayes_hier.examples import load_uci_weka
from bayes_hier.experiments.generators import cauchy_deltas, mixture_deltas, simulate_differences
from bayes_hier.fitting import seed_streams
from bayes_hier.hierarchical.delta0_coordinate import delta0_from_coordinate
from bayes_hier.hierarchical.fit import prepare_input
from bayes_hier.hierarchical.model import HIERARCHICAL
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input, initial_values
from bayes_hier.hierarchical.scale_mixture import nu_from_standardised
from bayes_hier.rope import Rope
from bayes_hier.stan_programs import _INCLUDE, _expand, load_program
from benchmarks.measure import REPOSITORY, Stopwatch

#: Warm-up phases of Stan's default adaptation with 1000 warm-up iterations: (first, end).
PHASES = {
    "initial fast (1-75)": (0, 75),
    "slow window 1 (76-100)": (75, 100),
    "slow windows 2-5 (101-950)": (100, 950),
    "terminal fast (951-1000)": (950, 1000),
    "sampling (1000 draws)": (1000, 2000),
}
CHAINS, WARMUP, DRAWS = 4, 1000, 1000
E1_ROPE = E2_ROPE = 0.01


def _simulated(deltas: Callable[[np.random.Generator], np.ndarray]) -> Callable[[int], Any]:
    def make(seed: int) -> tuple[CVData, Rope]:
        rng = np.random.default_rng(seed)
        differences = simulate_differences(deltas(rng), rng)
        return prepare_input(CVData(differences, runs=10), rope=E2_ROPE)

    return make


def _scale_pair(seed: int) -> tuple[CVData, Rope]:
    from benchmarks.scale import ROPE, simulated_study

    study = simulated_study(seed)
    return prepare_input(study["m00"], study["m01"], rope=ROPE)


#: Setting name -> data of one fit (validated CVData and rope) from a seed.
SETTINGS: dict[str, Callable[[int], tuple[CVData, Rope]]] = {
    "real": lambda seed: prepare_input(load_uci_weka(), rope=1.0, models=("nbc", "hnb")),
    "e1-q5": _simulated(lambda rng: mixture_deltas(5, rng)),
    "e1-q10": _simulated(lambda rng: mixture_deltas(10, rng)),
    "e2-q10": _simulated(lambda rng: cauchy_deltas(10, 0.0, E2_ROPE / 6, rng)),
    "e2-q50": _simulated(lambda rng: cauchy_deltas(50, 0.0, E2_ROPE / 6, rng)),
    "e3-q50": _simulated(lambda rng: cauchy_deltas(50, 0.005, E2_ROPE / 6, rng)),
    "e4-q50": _simulated(lambda rng: cauchy_deltas(50, 0.02, 0.01, rng)),
    "scale": _scale_pair,
}


def program_at_revision(revision: str, name: str = "hierarchical") -> str:
    """The text of ``stan/<name>.stan`` at a git revision, its includes pasted in (as
    :func:`~bayes_hier.stan_programs.load_program` does for the working tree)."""

    def show(path: str) -> str:
        return subprocess.run(
            ["git", "show", f"{revision}:{path}"],
            cwd=REPOSITORY,
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    return _INCLUDE.sub(
        lambda match: show(f"stan/include/{match.group(1)}").rstrip("\n"), show(f"stan/{name}.stan")
    )


def fit_profile(code: str, data: dict, inits: list[dict], seed: int) -> dict[str, Any]:
    """Sample once; leapfrog steps per phase, step sizes, tree depth, divergences, seconds."""
    import stan
    from bayes_hier.engines._httpstan import httpstan_fit_scope, run_in_stan_thread

    def run() -> tuple[Any, Stopwatch]:
        with httpstan_fit_scope():
            model = stan.build(code, data=dict(data), random_seed=seed)
            with Stopwatch() as watch:
                fit = model.sample(
                    num_chains=len(inits),
                    num_samples=DRAWS,
                    num_warmup=WARMUP,
                    delta=HIERARCHICAL.adapt_delta,
                    init=[dict(i) for i in inits],
                    save_warmup=True,
                )
            return fit, watch

    fit, watch = run_in_stan_thread(run)
    chains = len(inits)

    def per_chain(name: str) -> np.ndarray:
        return np.asarray(fit[name]).reshape(-1, chains)

    steps, step_size = per_chain("n_leapfrog__"), per_chain("stepsize__")
    return {
        "posterior": posterior_summary(fit, data),
        "steps": {name: int(steps[a:b].sum()) for name, (a, b) in PHASES.items()},
        "median step size": {
            name: float(np.median(step_size[a:b])) for name, (a, b) in PHASES.items()
        },
        "warm-up steps": int(steps[:WARMUP].sum()),
        "steps per draw": float(steps[WARMUP:].mean()),
        "step size": float(np.median(step_size[WARMUP:])),
        "max tree depth": int(per_chain("treedepth__")[WARMUP:].max()),
        "total steps": int(steps.sum()),
        "divergences": int(per_chain("divergent__")[WARMUP:].sum()),
        "seconds": watch.wall,
        "cpu seconds": watch.cpu,
    }


def posterior_summary(fit: Any, data: dict) -> dict[str, np.ndarray]:
    """5/50/95% quantiles of δ₀, σ₀ and ν (rescaled units) and the posterior means of the σ_i
    over the sampling draws, to check that a variant samples the same posterior."""
    kept = slice(WARMUP * CHAINS, None)  # draws are stored iteration by iteration, chains inside

    def draws(name: str) -> np.ndarray:
        return np.asarray(fit[name])[..., kept]

    summary = {
        name: np.quantile(draws(name).ravel(), [0.05, 0.5, 0.95]) for name in ("delta0", "sigma0")
    }
    if data["nu_prior"] != 2:
        if data["nu_prior"] == 0:
            shape, rate = draws("nu_alpha").ravel(), draws("nu_beta").ravel()
        else:
            shape, rate = data["nu_shape"], data["nu_rate"]
        nu = nu_from_standardised(draws("nu_raw").ravel(), shape, rate)
        summary["nu"] = np.quantile(nu, [0.05, 0.5, 0.95])
    summary["sigma_i mean"] = draws("sigma").mean(axis=-1)
    summary["sigma_i sd"] = draws("sigma").std(axis=-1)
    return summary


def posterior_table(profiles: dict[str, dict[str, Any]]) -> list[str]:
    """Markdown rows: quantiles of δ₀, σ₀, ν per program, and the largest difference of a σ_i
    mean from the first program's in units of that σ_i's posterior sd."""
    names = list(profiles)
    first = profiles[names[0]]["posterior"]
    lines = ["| quantity | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for quantity in ("delta0", "sigma0", "nu"):
        if quantity in first:
            cells = [
                "/".join(f"{v:.4g}" for v in p["posterior"][quantity]) for p in profiles.values()
            ]
            lines.append(f"| {quantity} 5/50/95% | " + " | ".join(cells) + " |")
    gaps = [
        np.max(np.abs(p["posterior"]["sigma_i mean"] - first["sigma_i mean"]) / first["sigma_i sd"])
        for p in profiles.values()
    ]
    lines.append(
        "| max abs difference of σ_i means / posterior sd | "
        + " | ".join(f"{g:.3f}" for g in gaps)
        + " |"
    )
    return lines


def phase_table(profiles: dict[str, dict[str, Any]]) -> list[str]:
    """Markdown rows: leapfrog steps (median step size) per warm-up phase and program."""
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
    return lines


SUMMARY_HEADER = [
    "| setting | seed | program | warm-up steps | steps per draw | step size | max depth "
    "| divergences | CPU s | wall s |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
]


def summary_row(setting: str, seed: int, program: str, p: dict[str, Any]) -> str:
    """One Markdown row of the summary table."""
    return (
        f"| {setting} | {seed} | {program} | {p['warm-up steps']} | {p['steps per draw']:.1f} "
        f"| {p['step size']:.3f} | {p['max tree depth']} | {p['divergences']} "
        f"| {p['cpu seconds']:.1f} | {p['seconds']:.1f} |"
    )


def setting_input(setting: str, seed: int, nu_prior: str) -> tuple[dict, list[dict], int]:
    """Stan data, initial values (with δ₀ itself too, for older programs) and Stan's seed."""
    cv, rope = SETTINGS[setting](seed)
    streams = seed_streams(seed)
    prior = HierarchicalPrior(nu_prior=nu_prior)
    model_input = build_model_input(cv, rope, prior, streams.perturbation)
    inits = initial_values(model_input, CHAINS, streams.inits)
    for init in inits:
        init["delta0"] = float(delta0_from_coordinate(init["delta0_raw"], model_input.data))
    return model_input.data, inits, streams.stan


CHECKS_HEADER = [
    "| setting | seed | divergences | max R-hat | steps per draw | median step size |",
    "|---|---:|---:|---:|---:|---:|",
]


def default_fit_check(setting: str, seed: int, nu_prior: str) -> str:
    """One Markdown row: ``hierarchical_test`` with the package defaults (4 x 1000 after 1000)
    on the setting's data from seed ``1000 + seed``, fitted with ``seed``."""
    from bayes_hier import hierarchical_test

    cv, rope = SETTINGS[setting](1000 + seed)
    result = hierarchical_test(cv, rope=rope, nu_prior=nu_prior, seed=seed, warn=False)
    stats = result.idata.sample_stats
    return (
        f"| {setting} | {seed} | {result.diagnostics['divergences']} "
        f"| {result.diagnostics['max_rhat']:.4f} | {float(stats['n_steps'].mean()):.1f} "
        f"| {float(stats['step_size'].median()):.3f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", type=Path, help="other .stan programs to compare")
    parser.add_argument("--before", help="also the program at this git revision, e.g. 8ff8cdb")
    parser.add_argument("--setting", action="append", choices=list(SETTINGS))
    parser.add_argument("--seed", type=int, action="append")
    parser.add_argument("--nu-prior", default="hierarchical")
    parser.add_argument("--phases", action="store_true", help="steps per warm-up phase too")
    parser.add_argument("--posterior", action="store_true", help="posterior quantiles too")
    parser.add_argument(
        "--checks", action="store_true", help="only default-settings fits: divergences, R-hat"
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.checks:
        print("\n".join(CHECKS_HEADER), flush=True)
        for setting in args.setting or ["real"]:
            for seed in args.seed or [0, 1, 2]:
                print(default_fit_check(setting, seed, args.nu_prior), flush=True)
        return
    codes = {"hierarchical.stan": load_program("hierarchical").code}
    if args.before:
        codes[f"hierarchical.stan at {args.before}"] = program_at_revision(args.before)
    for path in args.programs:
        codes[path.name] = _expand(path.read_text(), path.parent / "include")
    print("\n".join(SUMMARY_HEADER), flush=True)
    extra: list[str] = []
    for setting in args.setting or ["real"]:
        for seed in args.seed or [11]:
            data, inits, stan_seed = setting_input(setting, seed, args.nu_prior)
            profiles = {
                name: fit_profile(code, data, inits, stan_seed) for name, code in codes.items()
            }
            for name, profile in profiles.items():
                print(summary_row(setting, seed, name, profile), flush=True)
            if args.phases or args.posterior:
                extra += ["", f"{setting}, seed {seed}:", ""]
            if args.phases:
                extra += [*phase_table(profiles), ""]
            if args.posterior:
                extra += posterior_table(profiles)
    print("\n".join(extra))


if __name__ == "__main__":
    main()
