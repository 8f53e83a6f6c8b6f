"""Benchmark of the Bradley-Terry and Plackett-Luce models (``python -m benchmarks.ranking``).

Both models through ``compare()`` on the real data (5 classifiers x 54 data sets x 10x10 CV) and
on the 16 models x 132 data sets x 4 folds study of :mod:`benchmarks.scale`: 4 chains x 1000 draws
after 1000 warm-up, seed 1, one warm-up fit first (compilation excluded). Target: <= 10 s each,
0 divergences, max R-hat <= 1.01. Writes ``benchmarks/RANKING.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import warnings
from datetime import datetime, timezone
from pathlib import Path

from bayes_hier import compare
from bayes_hier.examples import load_uci_weka
from benchmarks.joint import code_version
from benchmarks.measure import Stopwatch
from benchmarks.scale import simulated_study

METHODS = ("bradley_terry", "plackett_luce")
TARGET_S = 10.0
SEED = 1


def measure(data, method: str) -> tuple[Stopwatch, object]:
    """One timed ``compare(data, method=method)`` with the default 4 x 1000 draws."""
    with Stopwatch() as watch, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # diagnostics are reported in the table
        result = compare(data, method=method, seed=SEED)
    return watch, result


def rows(name: str, data) -> list[str]:
    """One table row per method on ``data``."""
    out = []
    for method in METHODS:
        measure(data, method)  # warm-up: compilation, imports, caches
        watch, result = measure(data, method)
        d = result.diagnostics
        ok = watch.wall <= TARGET_S and d["divergences"] == 0 and d["max_rhat"] <= 1.01
        out.append(
            f"| {name} | {method} | {watch.wall:.1f} | {watch.cpu:.1f} | "
            f"{watch.load_start:.1f} -> {watch.load_end:.1f} | {d['divergences']} | "
            f"{d['max_rhat']:.4f} | {d['min_ess_bulk']:.0f} | {'met' if ok else 'not met'} |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="benchmarks/RANKING.md")
    args = parser.parse_args()
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Benchmark: Bradley-Terry and Plackett-Luce through compare()",
        "",
        f"* Measured {now} by `python -m benchmarks.ranking` at {code_version()}; machine: "
        f"{platform.platform()}, {os.cpu_count()} CPUs, shared with other sessions; 4 chains x "
        f"1000 draws after 1000 warm-up, seed {SEED}, engine auto, after one warm-up fit.",
        f"* Target: <= {TARGET_S:g} s wall each, 0 divergences, max R-hat <= 1.01.",
        "",
        "| data | method | wall (s) | CPU (s) | load | divergences | max R-hat | min bulk ESS "
        "| target |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows("real data (5 x 54 x 10x10)", load_uci_weka()),
        *rows("16 x 132 x 4 study", simulated_study()),
    ]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
