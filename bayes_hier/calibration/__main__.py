"""Command line: ``python -m bayes_hier.calibration --out results/calibration --jobs 2``."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from .run import CalibrationPlan, run_calibration
from .sbc import SBCConfig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bayes_hier.calibration",
        description="Simulation-based calibration and decision error rates of the "
        "hierarchical model.",
    )
    plan = CalibrationPlan()
    parser.add_argument("--out", default="results/calibration", help="output folder")
    parser.add_argument("--jobs", type=int, default=plan.jobs, help="local worker processes")
    parser.add_argument(
        "--replicates", type=int, default=plan.replicates, help="SBC replicates per setting"
    )
    parser.add_argument(
        "--error-reps",
        type=int,
        default=plan.error_repetitions,
        help="error-rate repetitions per scenario and q",
    )
    parser.add_argument("--engine", default="auto", help="auto, pystan or cmdstanpy")
    parser.add_argument("--seed", type=int, default=plan.config.seed, help="SBC seed")
    parser.add_argument("--skip-sbc", action="store_true", help="only the error rates")
    parser.add_argument("--skip-error-rates", action="store_true", help="only the SBC")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    args = parser.parse_args(argv)
    plan = replace(
        plan,
        replicates=args.replicates,
        error_repetitions=args.error_reps,
        jobs=args.jobs,
        config=replace(SBCConfig(), engine=args.engine, seed=args.seed),
        sbc=not args.skip_sbc,
        error_rates=not args.skip_error_rates,
    )
    path = run_calibration(plan, args.out, progress=not args.no_progress)
    print(f"Wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
