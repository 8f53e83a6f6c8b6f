"""Command line: ``python -m bayes_hier.experiments --quick|--full --out results --jobs N``."""

from __future__ import annotations

import argparse
import sys

from ..parallel import WorkerLostError
from .main import EXPERIMENTS, run_experiments
from .runner import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bayes_hier.experiments",
        description="Reproduce the experiments E1-E6 of the hierarchical-model paper.",
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--full", action="store_true", help="the paper's sizes (default)")
    size.add_argument("--quick", action="store_true", help="few repetitions (minutes)")
    size.add_argument("--tiny", action="store_true", help="a smoke test (about a minute)")
    parser.add_argument("--out", default="results", help="output folder (default: results)")
    parser.add_argument("--jobs", type=int, default=1, help="local worker processes")
    parser.add_argument("--scheduler", default=None, help="Dask scheduler address")
    parser.add_argument("--data", default=None, help="folder or file of the real data")
    parser.add_argument(
        "--only", default=None, help=f"comma-separated subset of {','.join(EXPERIMENTS)}"
    )
    parser.add_argument("--seed", type=int, default=None, help="base seed")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="delete OUT/checkpoints first (by default a rerun resumes from the repetitions "
        "an interrupted run saved there)",
    )
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")  # files only, also without a display
    factory = Settings.quick if args.quick else Settings.tiny if args.tiny else Settings.full
    changes = {}
    if args.only:
        chosen = tuple(k.strip().lower() for k in args.only.split(",") if k.strip())
        unknown = set(chosen) - set(EXPERIMENTS)
        if unknown:
            parser.error(f"unknown experiments: {sorted(unknown)}")
        changes["experiments"] = chosen
    if args.seed is not None:
        changes["base_seed"] = args.seed
    try:
        run_experiments(
            factory(**changes),
            args.out,
            jobs=args.jobs,
            scheduler=args.scheduler,
            data=args.data,
            progress=not args.no_progress,
            fresh=args.fresh,
            command="python -m bayes_hier.experiments "
            + " ".join(sys.argv[1:] if argv is None else argv),
        )
    except KeyboardInterrupt:
        print(
            f"Interrupted. The finished repetitions are saved in {args.out}/checkpoints; run the "
            "same command again to resume.",
            file=sys.stderr,
        )
        return 130
    except WorkerLostError as error:
        print(str(error), file=sys.stderr)
        return 1
    print(f"Wrote {args.out}/REPORT.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
