"""The joint model with fold-level noise on few-fold studies: writes a Markdown table.

``python -m benchmarks.joint_fold [--size base|large] [--seeds 1 2 3] [--failure-rate 0.02]
[--ties N] [--nu-prior hierarchical] [--adapt-delta 0.9] [--chains 4 --draws 1000]`` fits
``joint_test`` (``noise="auto"``, which is the fold-level noise for these designs) on the
few-fold generator's studies (:mod:`bayes_hier.few_fold`: 5 x 20 x 4 or 16 x 132 x 4, one model
missing a data set's last two folds in the large one, as in the public study) and prints, per
study seed: divergences, max R-hat, min bulk ESS, leapfrog steps per draw, wall seconds and the
machine's load. Default settings unless given; fit seed 1.

``python -m benchmarks.joint_fold --real`` instead fits the real data (5 classifiers x 54 data
sets x 100 folds, rope 1) with the full and the fold-level noise and prints, per pair, the
fold-level fit's noise check (:meth:`~bayes_hier.joint.JointResult.noise_check`) and both fits'
probabilities: how much the fold-level structure loses where the full one can be fitted.
"""

from __future__ import annotations

import argparse
import time
import warnings

from bayes_hier.examples import load_uci_weka
from bayes_hier.few_fold import few_fold_study
from bayes_hier.joint import JointResult, joint_test

from .measure import load_average

SIZES = {"base": (5, 20), "large": (16, 132)}


def quiet_joint_test(frame, rope: float, **options) -> JointResult:
    """``joint_test`` with fit seed 1 and its warnings silenced: the benchmarks report the
    diagnostics themselves."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return joint_test(frame, rope, seed=1, warn=False, **options)


def study(size: str, seed: int, failure_rate: float, ties: int | None):
    """The few-fold study of ``size``; the large one has m03 missing d005's folds 3 and 4."""
    models, datasets = SIZES[size]
    frame = few_fold_study(models, datasets, 4, failure_rate=failure_rate, ties=ties, seed=seed)
    if size == "large":
        frame = frame[~((frame.dataset == "d005") & (frame.model == "m03") & (frame.fold > 2))]
    return frame


def row(size: str, seed: int, args: argparse.Namespace) -> str:
    frame = study(size, seed, args.failure_rate, args.ties)
    before = load_average()
    start = time.perf_counter()
    result = quiet_joint_test(
        frame,
        0.01,
        nu_prior=args.nu_prior,
        adapt_delta=args.adapt_delta,
        chains=args.chains,
        draws=args.draws,
        warmup=args.draws,
    )
    wall = time.perf_counter() - start
    d = result.diagnostics
    steps = float(result.idata.sample_stats["n_steps"].mean())
    models, datasets = SIZES[size]
    return (
        f"| {models} x {datasets} x 4 | {seed} | {args.failure_rate:g} | "
        f"{'default' if args.ties is None else args.ties} | {args.nu_prior} | "
        f"{args.adapt_delta:g} | {d['divergences']} | {d['max_rhat']:.3f} | "
        f"{d['min_ess_bulk']:.0f} | {steps:.1f} | {wall:.0f} | {before:.1f} |"
    )


def _fit_real(noise: str, args: argparse.Namespace):
    start = time.perf_counter()
    result = quiet_joint_test(
        load_uci_weka(),
        1.0,
        noise=noise,
        adapt_delta=args.adapt_delta,
        chains=args.chains,
        draws=args.draws,
        warmup=args.draws,
    )
    return result, time.perf_counter() - start


def real(args: argparse.Namespace) -> None:
    """The real data with both noise structures: diagnostics, noise check and pairs."""
    fits = {noise: _fit_real(noise, args) for noise in ("full", "fold")}
    print("| noise | divergences | max R-hat | min bulk ESS | steps per draw | wall s |")
    print("|---|---:|---:|---:|---:|---:|")
    for noise, (result, wall) in fits.items():
        d = result.diagnostics
        steps = float(result.idata.sample_stats["n_steps"].mean())
        print(
            f"| {noise} | {d['divergences']} | {d['max_rhat']:.3f} | {d['min_ess_bulk']:.0f} | "
            f"{steps:.1f} | {wall:.0f} |"
        )
    check = fits["fold"][0].noise_check()
    full, fold = (fits[noise][0].pairs for noise in ("full", "fold"))
    print()
    print(
        "| pair | fold: sd ratio | fold: overstated | fold: understated | next, full | "
        "next, fold | population, full | population, fold |"
    )
    print("|---|---:|---:|---:|---|---|---|---|")

    def three(row, prefix: str) -> str:
        regions = ("first_better", "rope", "second_better")
        return " / ".join(f"{row[f'{prefix}{region}']:.3f}" for region in regions)

    for p, row in check.iterrows():
        print(
            f"| {row.first} vs {row.second} | {row.sd_ratio:.2f} | {row.share_overstated:.2f} | "
            f"{row.share_understated:.2f} | {three(full.iloc[p], 'p_')} | "
            f"{three(fold.iloc[p], 'p_')} | {three(full.iloc[p], 'p_population_')} | "
            f"{three(fold.iloc[p], 'p_population_')} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", choices=sorted(SIZES), default="base")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--failure-rate", type=float, default=0.02)
    parser.add_argument("--ties", type=int, default=None)
    parser.add_argument("--nu-prior", default="hierarchical")
    parser.add_argument("--adapt-delta", type=float, default=0.9)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--draws", type=int, default=1000, help="draws and warm-up per chain")
    parser.add_argument("--real", action="store_true", help="the real data, full vs fold noise")
    args = parser.parse_args()
    if args.real:
        real(args)
        return
    print(
        "| study | seed | failure rate | tied data sets | ν prior | adapt_delta | divergences "
        "| max R-hat | min bulk ESS | steps per draw | wall s | load |"
    )
    print("|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for seed in args.seeds:
        print(row(args.size, seed, args), flush=True)


if __name__ == "__main__":
    main()
