"""E1: mean squared error of the MLE x̄_i and of the hierarchical shrinkage estimates.

δ_i ~ 0.5·N(0.005, 0.001²) + 0.5·N(0.02, 0.001²) for q ∈ {5, 10, 50} data sets; the 10×10 CV
differences follow the generative model (per-fold sd 0.057, ρ = 0.1; see
:mod:`.generators`). Per repetition, the MSE over the q data sets of x̄_i and of E[δ_i | data]
against the true δ_i; the table averages over repetitions.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from . import runner
from .generators import mixture_deltas
from .paper_values import CITATION, table2_next_to_paper
from .runner import ExperimentOutput, Settings

EXPERIMENT_ID = 1
PAPER_CSV = "e1_paper_table2.csv"  # next to the paper's Table 2


def run_repetition(q: int, rep: int, settings: Settings) -> dict[str, float]:
    """One repetition of E1 for q data sets (deterministic given the settings' base seed)."""
    rng, seed = runner.repetition_seeds(settings.base_seed, EXPERIMENT_ID, q, rep)
    deltas = mixture_deltas(q, rng)
    result = runner.fit_simulated(deltas, rng, settings, seed)
    table = result.per_dataset
    return {
        "q": q,
        "rep": rep,
        "mse_mle": float(np.mean((table["mle"].to_numpy() - deltas) ** 2)),
        "mse_shrinkage": float(np.mean((table["shrunk"].to_numpy() - deltas) ** 2)),
        **runner.fit_diagnostics(result),
    }


def run(settings: Settings, executor, out: Path, progress: bool = True) -> ExperimentOutput:
    start = time.perf_counter()
    tasks = [(q, rep, settings) for q in settings.e1_q for rep in range(settings.e1_reps)]
    saved = runner.checkpoints(out, "e1", settings)
    reps = runner.run_repetitions(
        executor, run_repetition, tasks, "E1 shrinkage", progress, saved, out, "e1"
    )
    table = runner.setting_means(
        reps, "q", {"mse_mle": "mse_mle", "mse_shrinkage": "mse_shrinkage"}
    )
    table.to_csv(out / "e1_shrinkage.csv", index=False)
    tables = {"e1_shrinkage.csv": table}
    runner.add_table(tables, out, PAPER_CSV, table2_next_to_paper(table))
    return ExperimentOutput(
        "e1",
        "E1: shrinkage versus MLE",
        f"q ∈ {list(settings.e1_q)}, {settings.e1_reps} repetitions; δ_i from "
        "0.5·N(0.005, 0.001²) + 0.5·N(0.02, 0.001²); 10×10 CV differences MVN with per-fold "
        f"sd 0.057, ρ = 0.1; rope {settings.rope}. "
        f"{runner.diagnostics_sentence(reps)}. `{PAPER_CSV}`: next to Table 2 of {CITATION}.",
        tables=tables,
        seconds=time.perf_counter() - start,
        timing=saved.timing,
    )
