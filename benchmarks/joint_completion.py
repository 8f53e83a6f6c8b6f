"""CPU and wall time of the joint model's work after sampling, at the size of a large study.

``python -m benchmarks.joint_completion [--k 16] [--q 132] [--draws 1000]`` builds the fold-level
model's input for the recovery simulator's k x q x 4 study, makes a raw posterior of 4 chains x
``--draws`` synthetic draws of the sampler's coordinates (random values of the right shapes: the
cost does not depend on them) and times, in CPU and wall seconds of this process, the posterior
completion (θ_i drawn from their full conditionals, every quantity per model, pair and data set)
and the diagnostics over the model's diagnosed variables. No Stan: it isolates the part of a fit
that runs after the chains.
"""

from __future__ import annotations

import argparse
import time
import warnings

import arviz as az
import numpy as np
import xarray as xr

from bayes_hier.diagnostics import compute_diagnostics
from bayes_hier.joint.fit import joint_data
from bayes_hier.joint.model import JOINT_FOLD
from bayes_hier.joint.model_input import JointPrior
from bayes_hier.joint.recovery import RecoveryDesign, simulate_study
from bayes_hier.rope import Rope
from bayes_hier.scores import model_scores

CHAINS = 4


def synthetic_posterior(k: int, q: int, draws: int, rng: np.random.Generator) -> az.InferenceData:
    """Random draws of ``joint_fold.stan``'s coordinates (4 chains) and sampler statistics."""
    d, shape = k - 1, (CHAINS, draws)
    corr = np.tril(rng.normal(0, 0.1, (*shape, d, d)), -1) + np.eye(d)
    corr /= np.linalg.norm(corr, axis=-1, keepdims=True)
    raw = {
        "theta0_raw": rng.normal(0, 0.1, (*shape, d)),
        "population_factor": 0.5 * corr,
        "noise_level": rng.normal(0, 0.2, (*shape, q)),
        "model_noise_raw": rng.normal(0, 0.3, (*shape, d)),
        "noise_spread": rng.uniform(0.1, 0.3, shape),
        "noise_raw": rng.normal(0, 1, (*shape, q, d)),
        "nu_raw": rng.normal(0, 1, (*shape, 1)),
        "tau_raw": rng.normal(0, 1, (*shape, q)),
        "nu_alpha": rng.uniform(1, 3, (*shape, 1)),
        "nu_beta": rng.uniform(0.05, 0.2, (*shape, 1)),
    }
    posterior = xr.Dataset(
        {
            name: (("chain", "draw", *(f"{name}_{j}" for j in range(v.ndim - 2))), v)
            for name, v in raw.items()
        }
    )
    stats = xr.Dataset(
        {
            "diverging": (("chain", "draw"), np.zeros(shape, bool)),
            "tree_depth": (("chain", "draw"), np.full(shape, 5)),
            "energy": (("chain", "draw"), rng.normal(0, 1, shape)),
        }
    )
    return az.InferenceData(posterior=posterior, sample_stats=stats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=16)
    parser.add_argument("--q", type=int, default=132)
    parser.add_argument("--draws", type=int, default=1000)
    args = parser.parse_args()
    design = RecoveryDesign(k=args.k, runs=1, folds=4)
    frame = simulate_study("one_better", args.q, design, seed=1).frame
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = joint_data(model_scores(frame), None, True)
        model_input = JOINT_FOLD.build_input(
            data, Rope(-1, 1), JointPrior(), np.random.default_rng(0)
        )
    idata = synthetic_posterior(args.k, args.q, args.draws, np.random.default_rng(1))
    start = time.process_time(), time.perf_counter()
    idata = JOINT_FOLD.complete(idata, data, model_input, np.random.default_rng(2))
    completed = time.process_time(), time.perf_counter()
    compute_diagnostics(JOINT_FOLD.diagnosed_view(idata), JOINT_FOLD.diagnosed, 10)
    diagnosed = time.process_time(), time.perf_counter()
    print(
        f"{args.k} x {args.q} x 4, {CHAINS} x {args.draws} draws: completion "
        f"{completed[0] - start[0]:.1f} s CPU ({completed[1] - start[1]:.1f} s wall), "
        f"diagnostics {diagnosed[0] - completed[0]:.1f} s CPU "
        f"({diagnosed[1] - completed[1]:.1f} s wall; both on up to 4 threads)"
    )


if __name__ == "__main__":
    main()
