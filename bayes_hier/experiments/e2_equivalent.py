"""E2: equivalent classifiers, δ_i ~ Cauchy(0, rope/6).

Also holds the Cauchy repetition shared by E3 (location 0.005) and E4 (power). Each repetition
draws q true differences, simulates 10×10 CV differences (per-fold sd 0.057, ρ = 0.1), fits the
hierarchical model and runs the Wilcoxon signed-rank test on the q mean differences.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from . import runner
from .generators import cauchy_deltas
from .runner import ExperimentOutput, Settings

EXPERIMENT_ID = 2
CSV = "e2_equivalent.csv"
FIGURE = "e2_equivalent.png"


def run_cauchy_repetition(
    experiment: int, setting: int, location: float, scale: float, q: int, rep: int, s: Settings
) -> dict[str, float]:
    """One repetition with δ_i ~ Cauchy(location, scale); seeds from (experiment, setting, rep)."""
    rng, seed = runner.repetition_seeds(s.base_seed, experiment, setting, rep)
    deltas = cauchy_deltas(q, location, scale, rng)
    result = runner.fit_simulated(deltas, rng, s, seed)
    probs = result.probs
    means = result.cv.means  # the sample mean of each data set
    return {
        "q": q,
        "location": location,
        "rep": rep,
        "p_left": probs.left,
        "p_rope": probs.rope,
        "p_right": probs.right,
        "wilcoxon_p": runner.signed_rank_p(means),
        "median_difference": float(np.median(means)),
        **runner.fit_diagnostics(result),
    }


def run_repetition(q: int, rep: int, settings: Settings) -> dict[str, float]:
    """One repetition of E2 for q data sets."""
    return run_cauchy_repetition(EXPERIMENT_ID, q, 0.0, settings.rope / 6, q, rep, settings)


def summarise(reps: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per q: mean P(rope), shares of runs with P(rope) > 0.95 and with P(left or right) > 0.95,
    and the signed-rank rejection rate at ``alpha``."""
    reps = reps.assign(
        rope_gt=reps["p_rope"] > 1 - alpha,
        side_gt=(reps["p_left"] > 1 - alpha) | (reps["p_right"] > 1 - alpha),
        rejected=reps["wilcoxon_p"] < alpha,
    )
    return runner.setting_means(
        reps,
        "q",
        {
            "mean_p_rope": "p_rope",
            "share_p_rope_gt_95": "rope_gt",
            "share_p_side_gt_95": "side_gt",
            "signed_rank_rejection_rate": "rejected",
        },
    )


def plot_curves(table: pd.DataFrame, title: str, path: Path) -> None:
    """P(rope) and the rejection shares against q."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(table["q"], table["mean_p_rope"], "o-", label="mean P(rope)")
    ax.plot(table["q"], table["share_p_rope_gt_95"], "s--", label="share P(rope) > 0.95")
    ax.plot(table["q"], table["share_p_side_gt_95"], "^:", label="share P(left/right) > 0.95")
    ax.plot(table["q"], table["signed_rank_rejection_rate"], "x-.", label="signed-rank rejections")
    ax.set_xlabel("number of data sets q")
    ax.set_ylabel("probability / share")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.legend(fontsize=8)
    runner.save_figure(fig, path)


def run_cauchy_experiment(
    key: str,
    title: str,
    experiment: int,
    location: float,
    settings: Settings,
    executor,
    out: Path,
    progress: bool,
) -> ExperimentOutput:
    start = time.perf_counter()
    scale = settings.rope / 6
    tasks = [
        (experiment, q, location, scale, q, rep, settings)
        for q in settings.e23_q
        for rep in range(settings.e23_reps)
    ]
    saved = runner.checkpoints(out, key, settings)
    reps = runner.run_repetitions(
        executor,
        run_cauchy_repetition,
        tasks,
        title,
        progress,
        saved,
        out,
        key,
    )
    table = summarise(reps)
    csv, png = {
        "e2": (CSV, FIGURE),
        "e3": ("e3_practically_equivalent.csv", "e3_practically_equivalent.png"),
    }[key]
    table.to_csv(out / csv, index=False)
    plot_curves(table, title, out / png)
    return ExperimentOutput(
        key,
        title,
        f"δ_i ~ Cauchy({location:g}, {scale:.5f}) clipped to [−1, 1]; q ∈ {list(settings.e23_q)};"
        f" {settings.e23_reps} repetitions; 10×10 CV differences with per-fold sd 0.057, ρ = 0.1; "
        f"rope {settings.rope}. Signed-rank: two-sided Wilcoxon on the q mean differences, "
        f"α = 0.05. {runner.diagnostics_sentence(reps)}.",
        tables={csv: table},
        figures={png: f"{title}: P(rope) and rejection shares against q"},
        seconds=time.perf_counter() - start,
        timing=saved.timing,
    )


def run(settings: Settings, executor, out: Path, progress: bool = True) -> ExperimentOutput:
    return run_cauchy_experiment(
        "e2", "E2: equivalent classifiers", EXPERIMENT_ID, 0.0, settings, executor, out, progress
    )


__all__ = ["run", "run_cauchy_repetition", "run_repetition", "summarise"]
