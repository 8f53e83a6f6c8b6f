"""Benchmark of the Bradley-Terry and Plackett-Luce models: the ``ranking`` section of
``make bench`` (``python -m benchmarks.run --only ranking``).

Both models through ``compare()`` on the real data (5 classifiers x 54 data sets x 10x10 CV) and
on the 16 models x 132 data sets x 4 folds study of :mod:`benchmarks.scale`: 4 chains x 1000 draws
after 1000 warm-up, seed 1, one warm-up fit first (compilation excluded), then the median wall
time of ``repeats`` timed fits. Target: <= 10 s each, 0 divergences, max R-hat <= 1.01.
"""

from __future__ import annotations

import statistics
import warnings
from typing import Any

from bayes_hier import compare
from bayes_hier.examples import find_uci_weka, load_uci_weka
from benchmarks.measure import Stopwatch, now
from benchmarks.scale import simulated_study
from benchmarks.summary import Measured, Row, met

METHODS = ("bradley_terry", "plackett_luce")
TARGET_S = 10.0
SEED = 1


def measure(data: Any, method: str) -> tuple[Stopwatch, Any]:
    """One timed ``compare(data, method=method)`` with the default 4 x 1000 draws."""
    with Stopwatch() as watch, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # diagnostics are reported in the table
        result = compare(data, method=method, seed=SEED)
    return watch, result


def timings(data: Any, method: str, repeats: int) -> dict[str, Any]:
    """A warm-up fit, then ``repeats`` timed fits: median wall and CPU seconds, the load at the
    first start and the last end, and the diagnostics of the last fit (every fit has the same
    seed, hence the same draws)."""
    measure(data, method)  # compilation, imports, caches
    watches, result = [], None
    for _ in range(repeats):
        watch, result = measure(data, method)
        watches.append(watch)
    d = result.diagnostics
    wall = statistics.median(w.wall for w in watches)
    return {
        "wall": wall,
        "cpu": statistics.median(w.cpu for w in watches),
        "load": (watches[0].load_start, watches[-1].load_end),
        "divergences": int(d["divergences"]),
        "max_rhat": float(d["max_rhat"]),
        "min_ess_bulk": float(d["min_ess_bulk"]),
        "met": wall <= TARGET_S and d["divergences"] == 0 and d["max_rhat"] <= 1.01,
    }


def studies() -> dict[str, Any]:
    """The data sets of the benchmark, by the name the table gives them (the real data when the
    shipped file is found)."""
    out = {}
    if find_uci_weka() is not None:
        out["real data (5 x 54 x 10x10)"] = load_uci_weka()
    out["16 x 132 x 4 study"] = simulated_study()
    return out


def ranking_benchmark(repeats: int = 1) -> Measured:
    """The section's lines and the row of the rank models' target (every fit within 10 s with
    0 divergences and max R-hat <= 1.01)."""
    measured = {
        (name, method): timings(data, method, repeats)
        for name, data in studies().items()
        for method in METHODS
    }
    lines = [
        "## Rank models through compare()",
        "",
        f"Measured {now()}: Bradley-Terry and Plackett-Luce through `compare()` "
        "(`benchmarks/ranking.py`), engine auto, 4 chains x 1000 draws after 1000 warm-up, seed "
        f"{SEED}; wall and CPU seconds are the medians of {repeats} fit(s) after a warm-up fit "
        "(compilation excluded), input validation and the frequentist view included. Target: "
        f"<= {TARGET_S:g} s each, 0 divergences, max R-hat <= 1.01.",
        "",
        "| data | method | wall (s) | CPU (s) | load | divergences | max R-hat | min bulk ESS "
        "| target |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (name, method), m in measured.items():
        lines.append(
            f"| {name} | {method} | {m['wall']:.1f} | {m['cpu']:.1f} | {m['load'][0]:.1f} -> "
            f"{m['load'][1]:.1f} | {m['divergences']} | {m['max_rhat']:.4f} | "
            f"{m['min_ess_bulk']:.0f} | {met(m['met'])} |"
        )
    slowest = max(measured, key=lambda key: measured[key]["wall"])
    figure = (
        f"slowest {slowest[1]} on the {slowest[0]}: {measured[slowest]['wall']:.1f} s; "
        f"divergences {sum(m['divergences'] for m in measured.values())}, max R-hat "
        f"{max(m['max_rhat'] for m in measured.values()):.4f}"
    )
    row = Row(9, figure, met(all(m["met"] for m in measured.values())))
    return Measured([*lines, ""], [row])


__all__ = ["METHODS", "TARGET_S", "ranking_benchmark", "studies", "timings"]
