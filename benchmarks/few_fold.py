"""Convergence of the two-model hierarchical model on pairs of simulated few-fold studies.

Fits pairs of :func:`bayes_hier.few_fold.few_fold_study` with ``hierarchical_test`` and the
package's defaults (4 chains x 1000 draws after 1000 warm-up, the model's adapt_delta, rope
0.01) and prints one Markdown row per pair: divergences, max R-hat, min bulk ESS, leapfrog
steps per draw, median step size, wall seconds, and the three elements with the largest R-hat,
each with the data set's corrected standard error (in units of mean_i(s_i)) and ``const`` when
its differences were constant. Results are in ``benchmarks/FEW_FOLD.md``.

``--modes`` prints instead, for the data set of a pair that lies most standard errors from the
median of the means, the share of the conditional posterior of (σ_i, τ_i) given (δ₀, σ₀, ν) in
the "noise" mode σ_i > 1 (:func:`noise_mode_mass`), over a grid of σ₀ and ν.

Usage: ``python -m benchmarks.few_fold --size base`` (all 10 pairs of 5 x 20 x 4) or
``--size large --pairs m00:m01 m02:m05`` (pairs of 16 x 132 x 4); ``--seed`` the study's seed,
``--fit-seed`` the sampler's, ``--nu-prior`` the population and ``--coordinates`` the
sampler's coordinates (as ``hierarchical_test``; default ``auto``: at 4 folds quadrature where
some data set's valley is deeper than 2 nats, else scale-mixture; the row gives both, and
"draws x 4" when a fit that mixed slowly was fitted again with four times the draws, as
``hierarchical_test`` does at few folds; the row's numbers are then those of the longer fit).

``--compare JOBS`` runs instead ``compare()`` on every pair of the study with its defaults and
JOBS worker processes, and prints its wall time and the pairs' convergence
(``python -m benchmarks.few_fold --size large --compare 2``).
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from collections import Counter

import numpy as np
import pandas as pd

from bayes_hier import compare, hierarchical_test
from bayes_hier.diagnostics import draws_matrix, rank_diagnostics
from bayes_hier.few_fold import few_fold_study
from bayes_hier.hierarchical.fit import few_fold_valley
from bayes_hier.hierarchical.model import DIAGNOSED
from benchmarks.measure import Stopwatch, now

SIZES = {"base": (5, 20), "large": (16, 132)}
ROPE = 0.01
HEADER = [
    "| study | pair | coordinates (deepest valley, nats) | divergences | max R-hat | min bulk ESS "
    "| min tail ESS | steps per draw | step size | wall s | worst R-hat (element: R-hat, se_i, "
    "const) |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
]


def worst_elements(result, count: int = 3) -> str:
    """The ``count`` elements with the largest R-hat, with the data set's standard error."""
    posterior = result.idata.posterior
    labels, names = [], [v for v in DIAGNOSED if v in posterior and posterior[v].size > 0]
    for name in names:
        size = int(np.prod(posterior[name].shape[2:], dtype=int))
        labels += [name] if posterior[name].ndim == 2 else [f"{name}[{i}]" for i in range(size)]
    rhat, _ = rank_diagnostics(draws_matrix(result.idata, names))
    se = result.model_input.standard_errors
    perturbed = {result.cv.datasets.index(d) for d in result.model_input.perturbed}
    out = []
    for k in np.argsort(-np.nan_to_num(rhat, nan=9.0))[:count]:
        label = labels[k]
        extra = ""
        if "[" in label:
            i = int(label.split("[")[1].rstrip("]"))
            extra = f", {se[i]:.2g}{', const' if i in perturbed else ''}"
        out.append(f"{label}: {rhat[k]:.3f}{extra}")
    return "; ".join(out)


def noise_mode_mass(
    xbar: float, ss: float, n: int, rho: float, sigma0: float, nu: float, sigma_power: float = 0.0
) -> float:
    """Share of p(σ_i, τ_i | δ₀ = 0, σ₀, ν, data set i) with σ_i > 1 (rescaled units).

    The density, up to a constant, in the coordinates (log σ_i, log τ_i):
    Gamma(τ_i | ν/2, ν/2) τ_i · σ_i^(1 − k) σ_i^−(n−1) exp(−SS_i / (2 a σ_i²)) ·
    N(x̄_i | 0, σ₀²/τ_i + σ_i² b / n), a = 1 − ρ, b = 1 + (n − 1)ρ (the likelihood of
    ``hierarchical.stan``; k = ``sigma_power`` gives the prior p(σ_i) ∝ σ_i^−k, 0 = the paper's
    uniform prior). A large |x̄_i| is explained either by a small τ_i (a data set in the tail of the
    population) or by a large σ_i (noise): two modes when the data set's mean is precise.
    Evaluated on a 1500 x 3000 grid, log σ_i in [log 0.005, log 100], log τ_i in [−40, 4].
    """
    from scipy import stats

    a, b = 1 - rho, 1 + (n - 1) * rho
    log_sigma = np.linspace(np.log(0.005), np.log(100), 1500)
    log_tau = np.linspace(-40, 4, 3000)
    s, t = np.meshgrid(np.exp(log_sigma), np.exp(log_tau), indexing="ij")
    log_p = (
        stats.gamma.logpdf(t, nu / 2, scale=2 / nu)
        + np.log(t)
        + (1 - sigma_power - (n - 1)) * np.log(s)
        - ss / (2 * a * s**2)
        + stats.norm.logpdf(xbar, 0, np.sqrt(sigma0**2 / t + s**2 * b / n))
    )
    p = np.exp(log_p - log_p.max()).sum(axis=1)
    return float(p[np.exp(log_sigma) > 1].sum() / p.sum())


def mode_rows(frame, pair: tuple[str, str]) -> list[str]:
    """Markdown rows of :func:`noise_mode_mass` for the pair's most outlying precise data set."""
    from bayes_hier.hierarchical.fit import prepare_input
    from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input

    cv, rope = prepare_input(frame, None, ROPE, None, models=list(pair))
    model_input = build_model_input(cv, rope, HierarchicalPrior(), np.random.default_rng(0))
    data, se = model_input.data, model_input.standard_errors
    xbar = data["xbar"] - np.median(data["xbar"])
    i = int(np.argmax(np.abs(xbar) / se))
    rows = [
        f"{pair[0]} vs {pair[1]}, data set {i}: x̄_i − median = {xbar[i]:.2f}, s_i = "
        f"{model_input.stds[i]:.4f}, se_i = {se[i]:.4f} (rescaled units)",
        "",
        "| ν | σ₀ | mass of σ_i > 1, uniform prior | mass, p(σ_i) ∝ 1/σ_i |",
        "|---:|---:|---:|---:|",
    ]
    for nu in (1.1, 1.3, 2.0, 5.0):
        for sigma0 in (0.008, 0.3):
            args = (xbar[i], data["ss"][i], data["n"][i], data["rho"][i], sigma0, nu)
            rows.append(
                f"| {nu} | {sigma0} | {noise_mode_mass(*args):.2g} "
                f"| {noise_mode_mass(*args, sigma_power=1.0):.2g} |"
            )
    return rows


def fit_row(
    study_name: str,
    frame,
    pair: tuple[str, str],
    seed: int,
    save: str | None,
    nu_prior: str = "hierarchical",
    coordinates: str = "auto",
) -> str:
    start = time.perf_counter()
    result = hierarchical_test(
        frame,
        rope=ROPE,
        models=list(pair),
        seed=seed,
        warn=False,
        nu_prior=nu_prior,
        coordinates=coordinates,
    )
    seconds = time.perf_counter() - start
    if save:
        result.idata.to_netcdf(f"{save}/{pair[0]}_{pair[1]}.nc")
    stats, diagnostics = result.idata.sample_stats, result.diagnostics
    valley = few_fold_valley(result.cv, result.rope)
    fitted_as = f"{result.settings['coordinates']} ({valley:.1f})"
    if "extended_from" in result.settings:
        fitted_as += f", draws x {extension_factor(result.settings)}"
    return (
        f"| {study_name} | {pair[0]} vs {pair[1]} | {fitted_as} | {diagnostics['divergences']} "
        f"| {diagnostics['max_rhat']:.3f} | {diagnostics['min_ess_bulk']:.0f} "
        f"| {diagnostics['min_ess_tail']:.0f} "
        f"| {float(stats['n_steps'].mean()):.1f} | {float(stats['step_size'].median()):.3f} "
        f"| {seconds:.0f} | {worst_elements(result)} |"
    )


def extension_factor(settings: dict) -> int:
    """How many times its first fit's draws per chain a pair's fit kept took (1: not extended)."""
    extended = settings.get("extended_from")
    return settings["draws"] // extended["draws"] if extended else 1


def study_and_pairs(
    size: str, seed: int, pairs: list[str] | None
) -> tuple[pd.DataFrame, list[tuple[str, ...]]]:
    """The generator's study of ``size`` (:data:`SIZES`) and ``seed``, and the pairs given as
    ``"a:b"`` (default: every pair of its models)."""
    models, datasets = SIZES[size]
    frame = few_fold_study(models, datasets, seed=seed)
    if pairs:
        return frame, [tuple(p.split(":")) for p in pairs]
    return frame, list(itertools.combinations(sorted(frame["model"].unique()), 2))


def compare_lines(frame: pd.DataFrame, study_name: str, seed: int, jobs: int) -> list[str]:
    """``compare()`` on every pair of ``frame`` with the defaults and ``jobs`` worker processes:
    wall and CPU time, load, the pairs' convergence and how many took each coordinates or were
    fitted again (from each pair's settings)."""
    watch = Stopwatch()
    with watch:
        result = compare(frame, rope=ROPE, seed=seed, jobs=jobs)
    table = result.pairs
    settings = [pair.settings for pair in result.pair_results.values()]
    used = Counter(s["coordinates"] for s in settings)
    extended = Counter(extension_factor(s) for s in settings if "extended_from" in s)
    fallback = sum("fallback_from" in s for s in settings)
    return [
        f"{study_name}: `compare(frame, rope={ROPE}, seed={seed}, jobs={jobs})`, {len(table)} "
        f"pairs, measured {now()}: wall {watch.wall:.0f} s, CPU {watch.cpu:.0f} s, load "
        f"{watch.load_start:.1f} -> {watch.load_end:.1f};",
        f"divergences {int(table['divergences'].sum())}, max R-hat {table['max_rhat'].max():.4f}, "
        f"min ESS bulk {table['min_ess_bulk'].min():.0f} / tail {table['min_ess_tail'].min():.0f}; "
        f"{len(result.not_converged)} not converged; coordinates "
        + ", ".join(f"{name} {count}" for name, count in sorted(used.items()))
        + "; "
        + "".join(f"{count} with draws x {factor}, " for factor, count in sorted(extended.items()))
        + f"{fallback} fitted again in two charts.",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=list(SIZES), default="base")
    parser.add_argument("--pairs", nargs="*", help="pairs as a:b (default: all)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated study")
    parser.add_argument("--fit-seed", type=int, default=1)
    parser.add_argument("--nu-prior", default="hierarchical", help="the fits' nu prior")
    parser.add_argument(
        "--coordinates", default="auto", help="the sampler's coordinates (hierarchical_test)"
    )
    parser.add_argument("--modes", action="store_true", help="mode masses, no fits")
    parser.add_argument("--save", help="folder to save each fit's posterior in (netCDF)")
    parser.add_argument(
        "--compare", type=int, metavar="JOBS", help="time compare() on every pair with JOBS workers"
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    models, datasets = SIZES[args.size]
    frame, pairs = study_and_pairs(args.size, args.seed, args.pairs)
    study_name = f"{models} x {datasets} x 4 (seed {args.seed})"
    if args.compare:
        lines = compare_lines(frame, study_name, args.fit_seed, args.compare)
        print("\n".join(lines), flush=True)
        return
    if args.modes:
        for pair in pairs:
            print("\n".join(mode_rows(frame, pair)) + "\n", flush=True)
        return
    print("\n".join(HEADER), flush=True)
    if args.nu_prior != "hierarchical":
        study_name += f", {args.nu_prior} nu prior"
    if args.coordinates != "auto":
        study_name += f", {args.coordinates}"
    for pair in pairs:
        row = fit_row(
            study_name, frame, pair, args.fit_seed, args.save, args.nu_prior, args.coordinates
        )
        print(row, flush=True)


if __name__ == "__main__":
    main()
