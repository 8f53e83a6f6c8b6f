"""``make demo``: the hierarchical test on the real data shipped with the package, printed and
plotted.

Usage: ``python -m bayes_hier.demo [--data PATH] [--first nbc] [--second hnb] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

from .examples import find_uci_weka, load_uci_weka
from .hierarchical import hierarchical_test


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", help="path of uci_weka_10x10cv.csv (default: the copy shipped with the package)"
    )
    parser.add_argument("--first", default="nbc", help="first model (default nbc)")
    parser.add_argument("--second", default="hnb", help="second model (default hnb)")
    parser.add_argument(
        "--rope",
        type=float,
        default=1.0,
        help="rope half-width in accuracy points (default 1)",
    )
    parser.add_argument("--seed", type=int, default=2017)
    parser.add_argument("--out", default="demo_output", help="folder for the plot")
    args = parser.parse_args(argv)
    matplotlib.use("Agg")

    frame = load_uci_weka(args.data)
    print(f"Real data: {find_uci_weka(args.data)}")
    models = (args.first, args.second)
    result = hierarchical_test(frame, rope=args.rope, models=models, seed=args.seed, progress=True)
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
