"""Decision error rates of the hierarchical test against the Wilcoxon signed-rank test.

Reuses the repetitions of the paper's experiments (``bayes_hier.experiments``, SPEC §6): E2 draws
the true differences δ_i ~ Cauchy(0, rope/6), i.e. a population centred at δ₀ = 0; E3 draws them
from Cauchy(0.005, rope/6), centred inside the rope (|δ₀| = 0.005 < 0.01). Each repetition
simulates 10×10 cross-validation differences (per-fold sd 0.057, ρ = 0.1), fits the hierarchical
test and runs the two-sided signed-rank test on the q mean differences.

Decisions at α = 0.05 (SPEC §3.3, item 4): the hierarchical test declares one model *better*
when P(left) or P(right) exceeds 0.95 and *equivalence* when P(rope) exceeds 0.95; the signed-rank
test declares a *difference* when p < 0.05 and cannot declare equivalence. In both scenarios a
"better" or "difference" declaration is an error in practical terms (the population is inside the
rope); at δ₀ = 0 the signed-rank rejection rate is its type-I error. Every rate r over R
repetitions comes with its Monte Carlo standard error sqrt(r(1 − r)/R); a rate of 0 with the
upper bound of ``zero_count_upper_bound``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

#: Scenario name → (module of bayes_hier.experiments, location of the Cauchy population).
SCENARIOS = {
    "delta0 = 0 (E2)": ("e2_equivalent", 0.0),
    "delta0 = 0.005 (E3)": ("e3_practically_equivalent", 0.005),
}


def _repetition(scenario: str, q: int, rep: int, settings: Any) -> dict[str, Any]:
    import importlib

    module = importlib.import_module(f"bayes_hier.experiments.{SCENARIOS[scenario][0]}")
    return {"scenario": scenario, **module.run_repetition(q, rep, settings)}


def run_error_rates(
    qs: Sequence[int], repetitions: int, settings: Any, executor: Any, progress: bool = True
) -> pd.DataFrame:
    """All repetitions of both scenarios at every q (one row each, as the experiments return)."""
    from ..parallel import run_tasks

    if repetitions < 1:
        raise ValueError(f"repetitions must be >= 1; got {repetitions}.")
    tasks = [
        (scenario, q, rep, settings)
        for rep in range(repetitions)
        for q in qs
        for scenario in SCENARIOS
    ]
    return pd.DataFrame(run_tasks(executor, _repetition, tasks, "error-rate fits", progress))


def rate_with_error(flags: pd.Series) -> tuple[float, float]:
    """Share of True and its Monte Carlo standard error sqrt(r(1 − r)/R)."""
    rate = float(np.mean(flags))
    return rate, float(np.sqrt(rate * (1 - rate) / len(flags)))


def zero_count_upper_bound(repetitions: int, level: float = 0.95) -> float:
    """One-sided ``level`` upper bound of a rate observed 0 times in R repetitions.

    The exact (Clopper-Pearson) bound solves (1 − p)^R = 1 − level: p = 1 − (1 − level)^(1/R)
    (≈ 3/R at 95%, the "rule of three"). A standard error of 0 says nothing in that case.
    """
    if repetitions < 1:
        raise ValueError(f"repetitions must be >= 1; got {repetitions}.")
    return float(1 - (1 - level) ** (1 / repetitions))


def summarise_error_rates(reps: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per scenario and q: decision rates of both tests, each with its standard error."""
    decisions = {
        "hier_better": (reps["p_left"] > 1 - alpha) | (reps["p_right"] > 1 - alpha),
        "hier_equivalent": reps["p_rope"] > 1 - alpha,
        "signed_rank_difference": reps["wilcoxon_p"] < alpha,
    }
    rows = []
    for (scenario, q), index in reps.groupby(["scenario", "q"], sort=False).groups.items():
        row: dict[str, Any] = {"scenario": scenario, "q": int(q), "reps": len(index)}
        for name, flags in decisions.items():
            row[name], row[f"{name}_se"] = rate_with_error(flags.loc[index])
        row["hier_no_decision"] = 1 - row["hier_better"] - row["hier_equivalent"]
        rows.append(row)
    return pd.DataFrame(rows).sort_values(["scenario", "q"]).reset_index(drop=True)
