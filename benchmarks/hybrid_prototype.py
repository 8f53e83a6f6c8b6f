"""Exploration, not part of the package: the two-model hierarchical model with the deep data sets
integrated out by quadrature (``benchmarks/prototypes/hierarchical_hybrid.stan``).

The program samples the scale-mixture coordinates of ``stan/hierarchical.stan`` for the data sets
whose valley between their two explanations
(:func:`bayes_hier.hierarchical.mode_valley.dataset_valleys`) is at most ``--threshold`` nats, and
adds for each deeper data set the log of its marginal likelihood ∫ L_i(δ) P(δ | δ₀, σ₀, ν) dδ (σ_i
and τ_i integrated out in closed form, as in ``stan/hierarchical_two_chart.stan``), computed by
``--nodes`` Gauss-Legendre nodes in the Cauchy-quantile variable of each of two charts (centre x̄_i,
scale se_i; centre δ₀, scale σ₀) with the weights g_own^c / (g_A^c + g_B^c), c = 2. The sampler then
never meets the two explanations of a deep data set. Not done: the draws of the deep data sets' δ_i,
σ_i, τ_i (the completion), and the simulation-based calibration.

Prints one line per pair: deep data sets and their valleys, divergences, max R-hat, min bulk and
tail ESS over (δ₀, σ₀, ν's coordinates, the sampled σ_i and τ_i), the three worst elements,
steps per draw, wall seconds, the median of ν, P(ν < 2) and the shares of draws in which
left / rope / right has the largest mass for the next data set (rope 0.01). Results in
``benchmarks/FEW_FOLD.md``.

Usage: ``python -m benchmarks.hybrid_prototype --size base --seed 2`` or ``--size large --pairs
m00:m01 m03:m04``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

from bayes_hier.data import as_cvdata
from bayes_hier.diagnostics import draws_matrix, rank_diagnostics, tail_ess
from bayes_hier.engines import get_engine
from bayes_hier.engines.base import SamplerSettings
from bayes_hier.hierarchical.delta0_coordinate import cauchy_location
from bayes_hier.hierarchical.mode_valley import dataset_valleys
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input, initial_values
from bayes_hier.hierarchical.scale_mixture import nu_from_standardised
from bayes_hier.rope import Rope
from bayes_hier.stan_programs import StanProgram, program_from_text
from benchmarks.few_fold import SIZES, study_and_pairs

PROGRAM = Path(__file__).parent / "prototypes" / "hierarchical_hybrid.stan"
ROPE = 0.01
CHECKED = ("delta0", "sigma0", "nu_raw", "nu_alpha", "nu_beta", "sigma", "tau_raw")


def program() -> StanProgram:
    """The prototype with the package's include fragments pasted in."""
    return program_from_text("hierarchical_hybrid_prototype", PROGRAM.read_text())


def pair_data(frame, pair: tuple[str, str]):
    wide = frame[frame.model.isin(pair)].pivot_table(
        index=["dataset", "fold"], columns="model", values="score"
    )
    return as_cvdata(wide[pair[0]].unstack().to_numpy(), wide[pair[1]].unstack().to_numpy())


def fit(cv, threshold: float, nodes: int, seed: int) -> dict:
    model_input = build_model_input(
        cv, Rope(-ROPE, ROPE), HierarchicalPrior(), np.random.default_rng(0)
    )
    data = dict(model_input.data)
    n = np.asarray(data["n"], float)
    rho, xbar, ss = (np.asarray(data[k], float) for k in ("rho", "xbar", "ss"))
    a, b = 1 - rho, 1 + (n - 1) * rho
    se = np.sqrt(ss / a / (n / b * (n - 1)))  # as the program's se_d, to the last bit
    valleys = dataset_valleys(xbar, se, n)
    deep = valleys > threshold
    shallow = ~deep
    x, w = np.polynomial.legendre.leggauss(nodes)
    centre, spread = cauchy_location(xbar, se)
    stan_data = {
        **data,
        "q": int(shallow.sum()),
        "n": [int(v) for v in n[shallow]],
        "rho": rho[shallow],
        "xbar": xbar[shallow],
        "ss": ss[shallow],
        "qd": int(deep.sum()),
        "n_d": n[deep],
        "rho_d": rho[deep],
        "xbar_d": xbar[deep],
        "ss_d": ss[deep],
        "nodes": nodes,
        "node_u": np.tan(np.pi * (0.5 * (x + 1) - 0.5)),
        "node_log_w": np.log(0.5 * w),
        "chart_power": 2.0,
        "delta0_centre": centre,
        "delta0_spread": spread,
    }
    inits = initial_values(model_input, 4, np.random.default_rng(seed))
    jitter = np.random.default_rng(seed).standard_normal(4)
    for init, z in zip(inits, jitter):
        init["sigma"] = list(np.asarray(init["sigma"])[shallow])
        init["tau_raw"] = list(np.asarray(init["tau_raw"])[shallow])
        init["delta0_raw"] = 0.1 * float(z)
    settings = SamplerSettings(
        chains=4, draws=1000, warmup=1000, seed=seed, inits=inits, adapt_delta=0.95
    )
    start = time.perf_counter()
    idata = get_engine("pystan").sample(program(), stan_data, settings)
    wall = time.perf_counter() - start
    posterior = idata.posterior
    draws = draws_matrix(idata, CHECKED)
    labels = [f"{name}[{i}]" for name in CHECKED for i in range(posterior[name][0, 0].values.size)]
    rhat, bulk = rank_diagnostics(draws)
    tail = tail_ess(draws)
    worst = [f"{labels[i]}: {rhat[i]:.3f}" for i in np.argsort(-np.nan_to_num(rhat))[:3]]
    nu = nu_from_standardised(
        posterior["nu_raw"].values[..., 0],
        posterior["nu_alpha"].values[..., 0],
        posterior["nu_beta"].values[..., 0],
    ).ravel()
    delta0 = posterior["delta0"].values.ravel() * model_input.scale
    sigma0 = posterior["sigma0"].values.ravel() * model_input.scale
    left = stats.t.cdf(-ROPE, nu, delta0, sigma0)
    right = stats.t.sf(ROPE, nu, delta0, sigma0)
    largest = np.argmax(np.stack([left, 1 - left - right, right]), axis=0)
    shares = np.bincount(largest, minlength=3) / largest.size
    stats_group = idata.sample_stats
    return {
        "deep (valley)": ", ".join(
            f"{i} ({v:.1f})" for i, v in zip(np.flatnonzero(deep), valleys[deep])
        ),
        "divergences": int(stats_group["diverging"].values.sum()),
        "max R-hat": f"{np.nanmax(rhat):.3f}",
        "bulk / tail ESS": f"{np.nanmin(bulk):.0f} / {np.nanmin(tail):.0f}",
        "worst": "; ".join(worst),
        "steps": f"{float(stats_group['n_steps'].values.mean()):.1f}",
        "wall s": f"{wall:.0f}",
        "median nu": f"{np.median(nu):.2f}",
        "P(nu < 2)": f"{(nu < 2).mean():.3f}",
        "left / rope / right": " ".join(f"{p:.4f}" for p in shares),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=list(SIZES), default="base")
    parser.add_argument("--seed", type=int, default=2, help="seed of the simulated study")
    parser.add_argument("--fit-seed", type=int, default=1)
    parser.add_argument("--pairs", nargs="*", help="pairs as a:b (default: all)")
    parser.add_argument(
        "--threshold",
        type=float,
        default=2.0,
        help="valley (nats) above which a data set is integrated",
    )
    parser.add_argument("--nodes", type=int, default=32)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    models, datasets = SIZES[args.size]
    frame, pairs = study_and_pairs(args.size, args.seed, args.pairs)
    for pair in pairs:
        row = fit(pair_data(frame, pair), args.threshold, args.nodes, args.fit_seed)
        print(
            f"| {models} x {datasets} x 4 (seed {args.seed}) | {pair[0]} vs {pair[1]} | "
            + " | ".join(str(v) for v in row.values())
            + " |",
            flush=True,
        )


if __name__ == "__main__":
    main()
