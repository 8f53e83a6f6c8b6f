"""Command line: ``python -m bayes_hier.calibration --model hierarchical --out DIR --jobs 2``.

``make calibrate`` runs the hierarchical model (SBC and decision error rates),
``make calibrate-joint`` the joint model and ``make calibrate-ranking`` the Bradley-Terry and
Plackett-Luce models; ``--model`` takes any names of :data:`~.run.SUITES`.
"""

from __future__ import annotations

import argparse
import sys

from .run import SUITES, CalibrationPlan, run_calibration


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bayes_hier.calibration",
        description="Simulation-based calibration of the package's Stan models (and the "
        "decision error rates of the hierarchical test).",
    )
    plan = CalibrationPlan()
    parser.add_argument(
        "--model",
        nargs="+",
        choices=sorted(SUITES),
        default=list(plan.models),
        help="the models to calibrate (default: hierarchical)",
    )
    parser.add_argument("--out", default="results/calibration", help="output folder")
    parser.add_argument("--jobs", type=int, default=plan.jobs, help="local worker processes")
    parser.add_argument(
        "--replicates", type=int, help="SBC replicates per setting (default: the model's)"
    )
    parser.add_argument("--warmup", type=int, help="warm-up per chain (default: the model's)")
    parser.add_argument("--draws", type=int, help="draws per chain (default: the model's)")
    parser.add_argument("--seed", type=int, help="root seed of the SBC (default: the model's)")
    parser.add_argument(
        "--error-reps",
        type=int,
        default=plan.error_repetitions,
        help="error-rate repetitions per scenario and q (hierarchical model)",
    )
    parser.add_argument("--engine", default="auto", help="auto, pystan or cmdstanpy")
    parser.add_argument("--skip-sbc", action="store_true", help="only the error rates")
    parser.add_argument("--skip-error-rates", action="store_true", help="only the SBC")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    args = parser.parse_args(argv)
    plan = CalibrationPlan(
        models=tuple(dict.fromkeys(args.model)),
        replicates=args.replicates,
        warmup=args.warmup,
        draws=args.draws,
        seed=args.seed,
        engine=args.engine,
        jobs=args.jobs,
        error_repetitions=args.error_reps,
        sbc=not args.skip_sbc,
        error_rates=not args.skip_error_rates,
    )
    path = run_calibration(plan, args.out, progress=not args.no_progress)
    print(f"Wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
