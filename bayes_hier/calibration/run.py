"""One calibration run of any model by name: the SBC, its tables and figures, the error rates.

``python -m bayes_hier.calibration --model NAME [NAME ...]`` (:mod:`.__main__`) runs, for each
model, its default calibration (:data:`SUITES`: the model's simulators and fit lengths, a
:class:`~bayes_hier.fitting.model.CalibrationSuite` defined in the model's own package) through
the generic driver (:func:`~.sbc.run_sbc`), and writes into the output folder:

* ``sbc_ranks.csv`` (one row per replicate), ``sbc_uniformity.csv`` (chi-square and ECDF-band
  p-values per model and pool of settings), ``sbc_uniformity_by_setting.csv`` (per setting,
  when a pool holds several);
* ``sbc_histograms_<pool>.png`` and ``sbc_ecdf_<pool>.png`` (:mod:`.plots`);
* with the hierarchical model, the decision error rates (:mod:`.error_rates`):
  ``error_rate_repetitions.csv`` and ``error_rates.csv``;
* ``CALIBRATION.md``: every setting, table and verdict, wall time and machine load.

To calibrate a new model: give it a simulator and a suite in its package and add one line to
:data:`SUITES`.
"""

from __future__ import annotations

import importlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..fitting.model import CalibrationSuite
from ..parallel import make_executor
from .analysis import checked_parameters, uniformity_table
from .error_rates import run_error_rates, summarise_error_rates, zero_count_upper_bound
from .plots import plot_ecdf_differences, plot_rank_histograms
from .report import error_rate_section, sbc_section, write_summary
from .sbc import SBCConfig, run_sbc

#: Model name → ``module:function`` returning its default :class:`CalibrationSuite`.
SUITES = {
    "hierarchical": "bayes_hier.hierarchical.simulate:calibration_suite",
    "hierarchical_two_chart": "bayes_hier.hierarchical.simulate:two_chart_suite",
    "hierarchical_quadrature": "bayes_hier.hierarchical.simulate:quadrature_suite",
    "joint": "bayes_hier.joint.simulate:calibration_suite",
    "joint_fold": "bayes_hier.joint.simulate:fold_noise_suite",
    "joint_fold_two": "bayes_hier.joint.simulate:two_fold_noise_suite",
    "bradley_terry": "bayes_hier.ranking.simulate:bradley_terry_suite",
    "plackett_luce": "bayes_hier.ranking.simulate:plackett_luce_suite",
}
#: The data-set counts of the error-rate part.
ERROR_RATE_Q = (10, 20, 50)
#: Rank histogram and chi-square bins (a divisor of L + 1: 60, 30 and 20 rank values by default).
BINS = 10
FAMILY_ALPHA = 0.05


def model_suite(name: str) -> CalibrationSuite:
    """The default calibration of model ``name`` (one of :data:`SUITES`)."""
    if name not in SUITES:
        raise ValueError(f"Unknown model {name!r}; choose from {sorted(SUITES)}.")
    module, function = SUITES[name].split(":")
    return getattr(importlib.import_module(module), function)()


@dataclass(frozen=True)
class CalibrationPlan:
    """What one calibration run does.

    Attributes
    ----------
    models
        Names of :data:`SUITES`.
    replicates, warmup, draws, thinned, seed
        Replace every model's default (``None``: keep it).
    engine, jobs
        The Stan engine and the number of local worker processes.
    error_repetitions
        Error-rate repetitions per scenario and q.
    sbc, error_rates
        Run the SBC; run the error rates of the hierarchical test (only with it in ``models``).
    bins
        Chi-square and histogram bins (must divide L + 1).
    """

    models: tuple[str, ...] = ("hierarchical",)
    replicates: int | None = None
    warmup: int | None = None
    draws: int | None = None
    thinned: int | None = None
    seed: int | None = None
    engine: str = "auto"
    jobs: int = 2
    error_repetitions: int = 30
    sbc: bool = True
    error_rates: bool = True
    bins: int = BINS

    def __post_init__(self) -> None:
        for name in self.models:
            if name not in SUITES:
                raise ValueError(f"Unknown model {name!r}; choose from {sorted(SUITES)}.")

    def config(self, suite: CalibrationSuite) -> SBCConfig:
        """``suite``'s fits with this plan's changes."""
        changes = {
            name: getattr(self, name)
            for name in ("warmup", "draws", "thinned", "seed")
            if getattr(self, name) is not None
        }
        return SBCConfig.of(suite, engine=self.engine, **changes)

    def replicates_of(self, suite: CalibrationSuite) -> int:
        """Replicates per setting: this plan's, else ``suite``'s."""
        return suite.replicates if self.replicates is None else self.replicates

    @property
    def runs_error_rates(self) -> bool:
        """Whether the error rates run: asked for, and the hierarchical model calibrated."""
        return self.error_rates and "hierarchical" in self.models


def describe_fits(suite: CalibrationSuite, config: SBCConfig, replicates: int, bins: int) -> str:
    """The settings and MCMC settings of one model's SBC, in one paragraph."""
    options = config.options.for_model(suite.simulators[0].model)
    labels = ", ".join(
        " ".join(f"{k}={v}" for k, v in simulator.setting.items()) for simulator in suite.simulators
    )
    return (
        f"{suite.description} Settings: {labels}; {replicates} replicates each. Fits: engine "
        f"{options.engine}, {options.chains} chains × {options.draws} draws after "
        f"{options.warmup} warm-up, adapt_delta {options.adapt_delta}; posterior thinned to "
        f"L = {config.thinned} draws (ranks 0..{config.thinned}); chi-square on {bins} bins; "
        f"ECDF test with simulated simultaneous band (Säilynoja et al. 2022). ESS columns: bulk "
        f"ESS of the {options.chains * options.draws} draws before thinning."
    )


def describe_error_rates(plan: CalibrationPlan, config: SBCConfig) -> str:
    """The design of the error-rate part and the meaning of its columns, in one paragraph."""
    options = config.options
    return (
        f"{plan.error_repetitions} repetitions per scenario and q (the scenarios of the paper's "
        f"E2 and E3, simulated here with the same generator and seeds of their own); "
        f"hierarchical fits with {options.chains} "
        f"chains × {options.draws} draws ({options.warmup} warm-up), rope 0.01. Columns: share "
        f"of repetitions in which the hierarchical test declares a model better (P(left) or "
        f"P(right) > 0.95) or equivalence (P(rope) > 0.95), or neither, and in which the "
        f"two-sided signed-rank test rejects at 0.05; ± one Monte Carlo standard error (a rate "
        f"of 0 has standard error 0 but only says the rate is below "
        f"{zero_count_upper_bound(plan.error_repetitions):.3f}, the one-sided 95% upper bound "
        f"1 − 0.05^(1/R))."
    )


def _slug(*keys: Any) -> str:
    """The keys joined by ``_`` with anything but letters, digits, ``.`` and ``-`` replaced."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", "_".join(str(key) for key in keys))


def sbc_part(
    name: str, plan: CalibrationPlan, executor: Any, out: Path, progress: bool
) -> tuple[str, pd.DataFrame, pd.DataFrame, pd.DataFrame | None]:
    """One model's SBC: its section of the report, ranks, pooled and per-setting tables; its
    figures written into ``out``."""
    suite = model_suite(name)
    config, replicates = plan.config(suite), plan.replicates_of(suite)
    ranks = run_sbc(suite.simulators, replicates, config, executor, progress)
    by = ["model", *(suite.pool_by or ("setting",))]
    pooled = uniformity_table(ranks, None, config.thinned, plan.bins, by=by)
    cells = None
    if suite.pool_by and len(suite.simulators) > ranks.groupby(by).ngroups:
        cells = uniformity_table(ranks, None, config.thinned, plan.bins, by=("model", "setting"))
    for keys, group in ranks.groupby(by, sort=False):
        # one figure per pool, named by the model alone when it has one setting
        name_keys = keys if suite.pool_by or len(suite.simulators) > 1 else keys[:1]
        parameters = checked_parameters(group)
        title = f"SBC ranks, {', '.join(map(str, keys))}, {len(group)} replicates"
        plot_rank_histograms(
            group, parameters, config.thinned, plan.bins, title,
            out / f"sbc_histograms_{_slug(*name_keys)}.png",
        )  # fmt: skip
        plot_ecdf_differences(
            group, parameters, config.thinned, title, out / f"sbc_ecdf_{_slug(*name_keys)}.png"
        )
    model = suite.simulators[0].model
    description = describe_fits(suite, config, replicates, plan.bins)
    title = f"Simulation-based calibration of the {model.name}"
    section = sbc_section(title, ranks, pooled, cells, description, FAMILY_ALPHA)
    return section, ranks, pooled, cells


def run_calibration(plan: CalibrationPlan, out: Path, progress: bool = True) -> Path:
    """Run the parts of ``plan``; write CSVs, figures and ``CALIBRATION.md`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sections, timings, tables = [], [], {}
    load_before = os.getloadavg()
    with make_executor(plan.jobs) as executor:
        for name in plan.models if plan.sbc else ():
            start = time.perf_counter()
            section, *frames = sbc_part(name, plan, executor, out, progress)
            sections.append(section)
            for key, frame in zip(("ranks", "uniformity", "uniformity_by_setting"), frames):
                tables.setdefault(key, []).append(frame)
            timings.append(f"SBC of {name} {time.perf_counter() - start:.0f} s")
        if plan.runs_error_rates:
            start = time.perf_counter()
            config = plan.config(model_suite("hierarchical"))
            reps = run_error_rates(
                ERROR_RATE_Q, plan.error_repetitions, config.options, executor, progress
            )
            reps.to_csv(out / "error_rate_repetitions.csv", index=False)
            table = summarise_error_rates(reps)
            table.to_csv(out / "error_rates.csv", index=False)
            sections.append(error_rate_section(table, describe_error_rates(plan, config)))
            timings.append(f"error rates {time.perf_counter() - start:.0f} s")
    for key, frames in tables.items():
        frames = [frame for frame in frames if frame is not None]
        if frames:
            pd.concat(frames, ignore_index=True).to_csv(out / f"sbc_{key}.csv", index=False)
    load_after = os.getloadavg()
    header = (
        f"Wall time: {'; '.join(timings)} with {plan.jobs} worker process(es) on "
        f"{os.cpu_count()} CPU(s). Load average (1, 5, 15 min) before "
        f"{', '.join(f'{v:.2f}' for v in load_before)}, after "
        f"{', '.join(f'{v:.2f}' for v in load_after)}."
    )
    path = out / "CALIBRATION.md"
    write_summary(path, sections, header, title=f"Calibration: {', '.join(plan.models)}")
    return path


__all__ = ["SUITES", "CalibrationPlan", "model_suite", "run_calibration"]
