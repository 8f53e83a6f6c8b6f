"""The experiments of the hierarchical-model paper, driven by ``make paper``.

``python -m bayes_hier.experiments --quick|--full --out results --jobs N [--scheduler ADDRESS]
[--data PATH]`` runs E1-E6 and writes one CSV per table, one PNG per figure and ``REPORT.md``.
From Python: :func:`run_experiments` with a :class:`Settings` (``Settings.full()``,
``Settings.quick()`` or ``Settings.tiny()``). Every experiment module exposes a
``run_repetition``-style function that reruns a single repetition from its seed.
"""

from __future__ import annotations

from .main import EXPERIMENTS, run_experiments
from .runner import ExperimentOutput, Settings, make_executor, repetition_seeds, run_tasks

__all__ = [
    "EXPERIMENTS",
    "ExperimentOutput",
    "Settings",
    "make_executor",
    "repetition_seeds",
    "run_experiments",
    "run_tasks",
]
