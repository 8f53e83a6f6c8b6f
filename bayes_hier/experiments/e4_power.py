"""E4: power, q = 50 data sets with δ_i ~ Cauchy(δ₀, 0.01).

Hierarchical power: the share of runs with P(right) > 0.95 (the second model better by more than
the rope on the next data set). Signed-rank power: the share of runs in which the two-sided
Wilcoxon test on the mean differences rejects at α = 0.05 with a positive median difference.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from . import runner
from .e2_equivalent import run_cauchy_repetition
from .runner import ExperimentOutput, Settings

EXPERIMENT_ID = 4
CSV = "e4_power.csv"
FIGURE = "e4_power.png"


def run_repetition(setting: int, rep: int, settings: Settings) -> dict[str, float]:
    """One repetition of E4 for ``settings.e4_delta0[setting]``."""
    delta0 = settings.e4_delta0[setting]
    row = run_cauchy_repetition(
        EXPERIMENT_ID, setting, delta0, settings.e4_scale, settings.e4_q, rep, settings
    )
    return {"delta0": delta0, **row}


def run(settings: Settings, executor, out: Path, progress: bool = True) -> ExperimentOutput:
    start = time.perf_counter()
    tasks = [
        (setting, rep, settings)
        for setting in range(len(settings.e4_delta0))
        for rep in range(settings.e4_reps)
    ]
    saved = runner.checkpoints(out, "e4", settings)
    reps = runner.run_repetitions(
        executor, run_repetition, tasks, "E4 power", progress, saved, out, "e4"
    )
    reps = reps.assign(
        hierarchical=reps["p_right"] > 0.95,
        signed_rank=(reps["wilcoxon_p"] < 0.05) & (reps["median_difference"] > 0),
    )
    table = runner.setting_means(
        reps, "delta0", {"hierarchical_power": "hierarchical", "signed_rank_power": "signed_rank"}
    )
    table.to_csv(out / CSV, index=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(table["delta0"], table["hierarchical_power"], "o-", label="hierarchical P(right)>0.95")
    ax.plot(table["delta0"], table["signed_rank_power"], "s--", label="signed-rank, α = 0.05")
    ax.set_xlabel("δ₀ (location of the Cauchy population)")
    ax.set_ylabel("power")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"E4: power, q = {settings.e4_q}")
    ax.legend(fontsize=8)
    runner.save_figure(fig, out / FIGURE)
    return ExperimentOutput(
        "e4",
        "E4: power",
        f"q = {settings.e4_q}; δ_i ~ Cauchy(δ₀, {settings.e4_scale}) clipped to [−1, 1], "
        f"δ₀ ∈ {list(settings.e4_delta0)}; {settings.e4_reps} repetitions; rope {settings.rope}. "
        "Signed-rank power counts two-sided rejections at α = 0.05 on the side of the second "
        f"model. {runner.diagnostics_sentence(reps)}; "
        f"mean P(right) {np.mean(reps['p_right']):.3f}.",
        tables={CSV: table},
        figures={FIGURE: "E4: power of the hierarchical test and of the signed-rank test"},
        seconds=time.perf_counter() - start,
        timing=saved.timing,
    )
