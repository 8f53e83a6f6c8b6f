"""E3: practically equivalent, not identical classifiers: δ_i ~ Cauchy(0.005, rope/6)."""

from __future__ import annotations

from pathlib import Path

from .e2_equivalent import run_cauchy_experiment, run_cauchy_repetition
from .runner import ExperimentOutput, Settings

EXPERIMENT_ID = 3
LOCATION = 0.005


def run_repetition(q: int, rep: int, settings: Settings) -> dict[str, float]:
    """One repetition of E3 for q data sets."""
    return run_cauchy_repetition(EXPERIMENT_ID, q, LOCATION, settings.rope / 6, q, rep, settings)


def run(settings: Settings, executor, out: Path, progress: bool = True) -> ExperimentOutput:
    return run_cauchy_experiment(
        "e3",
        "E3: practically equivalent classifiers",
        EXPERIMENT_ID,
        LOCATION,
        settings,
        executor,
        out,
        progress,
    )
