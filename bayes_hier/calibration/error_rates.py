"""Decision error rates of the hierarchical test against the Wilcoxon signed-rank test.

The two scenarios of the paper's E2 and E3 (conventions §6), simulated here: the
true differences are δ_i ~ Cauchy(location, rope/6) clipped to [−1, 1], i.e. a population
centred at δ₀ = 0 (E2) or inside the rope at δ₀ = 0.005 (E3; |δ₀| < rope = 0.01). Each
repetition simulates 10 runs × 10 folds of cross-validation differences per data set,
MVN(δ_i 1, σ²[(1 − ρ)I + ρ11ᵀ]) with σ = 0.057 and ρ = 0.1
(:func:`~bayes_hier.examples.equicorrelated_normal`), fits the hierarchical test and runs the
two-sided signed-rank test on the q mean differences.

Decisions at α = 0.05 (conventions §3.3, item 4): the hierarchical test declares one model *better*
when P(left) or P(right) exceeds 0.95 and *equivalence* when P(rope) exceeds 0.95; the signed-rank
test declares a *difference* when p < 0.05 and cannot declare equivalence. In both scenarios a
"better" or "difference" declaration is an error in practical terms (the population is inside the
rope); at δ₀ = 0 the signed-rank rejection rate is its type-I error. Every rate r over R
repetitions comes with its Monte Carlo standard error sqrt(r(1 − r)/R); a rate of 0 with the
upper bound of ``zero_count_upper_bound``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np
import pandas as pd

from ..examples import equicorrelated_normal
from ..fitting import SamplerOptions
from ..seeding import derive_seed

#: Scenario name → location δ₀ of the Cauchy population of the true differences.
SCENARIOS = {"delta0 = 0 (E2)": 0.0, "delta0 = 0.005 (E3)": 0.005}
ROPE = 0.01
#: Per-fold sd of the differences, runs and folds per data set (fold correlation 1/folds).
FOLD_SD, RUNS, FOLDS = 0.057, 10, 10


def simulate_differences(q: int, location: float, rng: np.random.Generator) -> np.ndarray:
    """(q, RUNS · FOLDS) differences of one repetition (module docstring)."""
    deltas = np.clip(location + ROPE / 6 * rng.standard_cauchy(q), -1.0, 1.0)
    return equicorrelated_normal(deltas, np.full(q, FOLD_SD), 1 / FOLDS, RUNS * FOLDS, rng)


def run_repetition(
    scenario: str, q: int, rep: int, options: SamplerOptions, seed: int
) -> dict[str, Any]:
    """One repetition: the hierarchical test's three probabilities and the signed-rank p-value
    on the same simulated differences; seeds derived from (seed, scenario, q, rep)."""
    from ..data import CVData
    from ..frequentist import wilcoxon_signed_rank
    from ..hierarchical import hierarchical_test

    data = np.random.default_rng(derive_seed(seed, "data", scenario, q, rep))
    differences = simulate_differences(q, SCENARIOS[scenario], data)
    means = differences.mean(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = hierarchical_test(
            CVData(differences, runs=RUNS),
            rope=ROPE,
            seed=derive_seed(seed, "fit", scenario, q, rep),
            warn=False,
            **{field.name: getattr(options, field.name) for field in fields(options)},
        )
        wilcoxon_p = float(wilcoxon_signed_rank(np.zeros(q), means).p_value)
    probabilities = {f"p_{side}": p for side, p in result.probs._asdict().items()}
    diagnostics = result.diagnostics
    return {
        "scenario": scenario, "q": q, "rep": rep, **probabilities, "wilcoxon_p": wilcoxon_p,
        "divergences": int(diagnostics["divergences"]),
        "max_rhat": float(diagnostics["max_rhat"]),
    }  # fmt: skip


def run_error_rates(
    qs: Sequence[int],
    repetitions: int,
    options: SamplerOptions,
    executor: Any,
    progress: bool = True,
    seed: int = 20181027,
) -> pd.DataFrame:
    """All repetitions of both scenarios at every q, one row each (:func:`run_repetition`)."""
    from ..parallel import run_tasks

    if repetitions < 1:
        raise ValueError(f"repetitions must be >= 1; got {repetitions}.")
    tasks = [
        (scenario, int(q), rep, options, seed)
        for rep in range(repetitions)
        for q in qs
        for scenario in SCENARIOS
    ]
    return pd.DataFrame(run_tasks(executor, run_repetition, tasks, "error-rate fits", progress))


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
