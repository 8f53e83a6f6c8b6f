"""``make demo``: the hierarchical test on the real data (or a simulated example), printed and
plotted.

Usage: ``python -m bayes_hier.demo [--data PATH] [--first nbc] [--second hnb] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

from .examples import find_uci_weka, load_uci_weka, simulate_cv
from .hierarchical import hierarchical_test


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="path of uci_weka_10x10cv.csv (default: ../shared/data)")
    parser.add_argument("--first", default="nbc", help="first model (default nbc)")
    parser.add_argument("--second", default="hnb", help="second model (default hnb)")
    parser.add_argument(
        "--rope",
        type=float,
        default=None,
        help="rope half-width in score units (default 1 point for percent data)",
    )
    parser.add_argument("--seed", type=int, default=2017)
    parser.add_argument("--out", default="demo_output", help="folder for the plot")
    args = parser.parse_args(argv)
    matplotlib.use("Agg")

    path = find_uci_weka(args.data)
    if path is not None:
        print(f"Real data: {path}")
        frame, rope = load_uci_weka(path), 1.0 if args.rope is None else args.rope
        models = (args.first, args.second)
    else:
        print(
            "Real data not found (../shared/data/uci_weka_10x10cv.csv): using a simulated "
            "example of 20 data sets."
        )
        deltas = [0.005 + 0.01 * (i % 4) for i in range(20)]
        frame, rope = simulate_cv(deltas, seed=args.seed), 0.01 if args.rope is None else args.rope
        models = ("A", "B")

    result = hierarchical_test(frame, rope=rope, models=models, seed=args.seed, progress=True)
    print()
    print(result.summary())
    print("\nPer data set (first 10 rows, original units):")
    print(result.per_dataset.head(10).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    figure = result.plot()
    target = out / f"hierarchical_{models[0]}_vs_{models[1]}.png"
    figure.savefig(target, dpi=110)
    print(f"\nPlot written to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
