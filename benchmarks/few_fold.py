"""Convergence of the two-model hierarchical model on pairs of simulated few-fold studies.

Fits pairs of :func:`bayes_hier.few_fold.few_fold_study` with ``hierarchical_test`` and the
package's defaults (4 chains x 1000 draws after 1000 warm-up, adapt_delta 0.9, rope 0.01) and
prints one Markdown row per pair: divergences, max R-hat, min bulk ESS, leapfrog steps per draw,
median step size, wall seconds, and the three elements with the largest R-hat, each with the
data set's corrected standard error (in units of mean_i(s_i)) and ``const`` when its
differences were constant. Results are in ``benchmarks/FEW_FOLD.md``.

Usage: ``python -m benchmarks.few_fold --size base`` (all 10 pairs of 5 x 20 x 4) or
``--size large --pairs m00:m01 m02:m05`` (pairs of 16 x 132 x 4); ``--seed`` the study's seed,
``--fit-seed`` the sampler's.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np

from bayes_hier import hierarchical_test
from bayes_hier.diagnostics import draws_matrix, rank_diagnostics
from bayes_hier.few_fold import few_fold_study
from bayes_hier.hierarchical.model import DIAGNOSED

SIZES = {"base": (5, 20), "large": (16, 132)}
ROPE = 0.01
HEADER = [
    "| study | pair | divergences | max R-hat | min bulk ESS | steps per draw | step size "
    "| wall s | worst R-hat (element: R-hat, se_i, const) |",
    "|---|---|---:|---:|---:|---:|---:|---:|---|",
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


def fit_row(study_name: str, frame, pair: tuple[str, str], seed: int) -> str:
    start = time.perf_counter()
    result = hierarchical_test(frame, rope=ROPE, models=list(pair), seed=seed, warn=False)
    seconds = time.perf_counter() - start
    stats, diagnostics = result.idata.sample_stats, result.diagnostics
    return (
        f"| {study_name} | {pair[0]} vs {pair[1]} | {diagnostics['divergences']} "
        f"| {diagnostics['max_rhat']:.3f} | {diagnostics['min_ess_bulk']:.0f} "
        f"| {float(stats['n_steps'].mean()):.1f} | {float(stats['step_size'].median()):.3f} "
        f"| {seconds:.0f} | {worst_elements(result)} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=list(SIZES), default="base")
    parser.add_argument("--pairs", nargs="*", help="pairs as a:b (default: all)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated study")
    parser.add_argument("--fit-seed", type=int, default=1)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    models, datasets = SIZES[args.size]
    frame = few_fold_study(models, datasets, seed=args.seed)
    names = sorted(frame["model"].unique())
    pairs = (
        [tuple(p.split(":")) for p in args.pairs]
        if args.pairs
        else list(itertools.combinations(names, 2))
    )
    print("\n".join(HEADER), flush=True)
    study_name = f"{models} x {datasets} x 4 (seed {args.seed})"
    for pair in pairs:
        print(fit_row(study_name, frame, pair, args.fit_seed), flush=True)


if __name__ == "__main__":
    main()
