"""Robust as well as fast (performance target 2) and the time of the whole study (target 3).

**Robustness.** For every setting of E1 (q = 5, 10, 50), E2 and E3 (q = 10 ... 50) and E4
(the four δ₀), ``reps`` repetitions (default 3: repetitions 0, 1, 2 of the paper's run, same seeds)
through the experiments' own ``run_repetition`` functions with the paper's settings
(:meth:`Settings.full`: 4 chains x 1000 draws after 1000 warm-up, the package's defaults
otherwise). Each fit is recorded on its way through (the experiments' ``fit`` is wrapped, the
numbers unchanged): divergences, max R-hat, leapfrog steps per post-warm-up draw (mean over
chains and draws), wall and CPU time of the fit. Target: 0 divergences and R-hat <= 1.01 on every
setting.

**The whole study.** If ``paper/`` holds the full run of record (``make paper``), its summed
repetition times divided by its number of workers. Otherwise an estimate, not a run: per setting,
the mean measured wall time of a repetition times the paper's number of repetitions (E1 1500, E2
2500, E3 2500, E4 2000 fits), plus for E5 the measured time of one ground-truth repetition of each
of its 54 settings x ``e5_truth_reps`` and of one analysis repetition (cross-validation and a fit
of 36 data sets) x ``e5_reps``, and for E6 one fit of each variant on one pair x the number of
pairs. Each fit runs its 4 chains on both cores, so the repetitions' wall times add up; ``make
paper``'s workers can overlap the single-threaded parts of a fit (model input, diagnostics), so
CPU time / 2 is given as the lower bound.

Run alone: ``python -m benchmarks.robustness --reps 3``.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from bayes_hier.experiments import (
    e1_shrinkage,
    e2_equivalent,
    e3_practically_equivalent,
    e4_power,
    e5_friedman,
    e6_real_data,
)
from bayes_hier.experiments.generators import friedman_settings
from bayes_hier.experiments.runner import Settings
from benchmarks.measure import REPOSITORY, Stopwatch, now
from benchmarks.summary import Measured, Row, met

RHAT_TARGET = 1.01
STUDY_E1_E4_TARGET_S, STUDY_ALL_TARGET_S = 30 * 60.0, 60 * 60.0
RECORD = REPOSITORY / "paper"  # the full run of record (bayes_hier.experiments.record)


@dataclass
class FitRecord:
    """One fit seen on its way through an experiment's ``fit``."""

    divergences: int
    max_rhat: float
    steps_per_draw: float
    seconds: float
    cpu: float


@contextlib.contextmanager
def recorded_fits() -> Iterator[list[FitRecord]]:
    """Wrap ``fit`` in the experiment modules that call it; yields the list of records."""
    modules = [e1_shrinkage, e2_equivalent, e5_friedman]
    originals = [module.fit for module in modules]
    records: list[FitRecord] = []

    def recording(original: Callable[..., Any]) -> Callable[..., Any]:
        def fit(*args: Any, **kwargs: Any) -> Any:
            with Stopwatch() as watch:
                result = original(*args, **kwargs)
            stats = result.idata.sample_stats
            records.append(
                FitRecord(
                    int(result.diagnostics["divergences"]),
                    float(result.diagnostics["max_rhat"]),
                    float(stats["n_steps"].mean()),
                    watch.wall,
                    watch.cpu,
                )
            )
            return result

        return fit

    try:
        for module, original in zip(modules, originals):
            module.fit = recording(original)
        yield records
    finally:
        for module, original in zip(modules, originals):
            module.fit = original


def settings_grid(settings: Settings) -> list[tuple[str, str, Callable[..., Any], int]]:
    """(experiment, setting label, its ``run_repetition``, setting argument) of E1-E4."""
    grid = [("E1", f"q = {q}", e1_shrinkage.run_repetition, q) for q in settings.e1_q]
    for name, module in (("E2", e2_equivalent), ("E3", e3_practically_equivalent)):
        grid += [(name, f"q = {q}", module.run_repetition, q) for q in settings.e23_q]
    grid += [
        ("E4", f"δ₀ = {d:g} (q = {settings.e4_q})", e4_power.run_repetition, i)
        for i, d in enumerate(settings.e4_delta0)
    ]
    return grid


@dataclass
class SettingResult:
    experiment: str
    label: str
    records: list[FitRecord]
    load_start: float
    load_end: float

    @property
    def divergences(self) -> int:
        return sum(r.divergences for r in self.records)

    @property
    def max_rhat(self) -> float:
        return max(r.max_rhat for r in self.records)

    def mean(self, attribute: str) -> float:
        return float(np.mean([getattr(r, attribute) for r in self.records]))


def run_settings(settings: Settings, reps: int) -> list[SettingResult]:
    """Repetitions 0 .. reps - 1 of every setting of E1-E4."""
    results = []
    for experiment, label, run_repetition, argument in settings_grid(settings):
        with recorded_fits() as records, Stopwatch() as watch:
            for rep in range(reps):
                run_repetition(argument, rep, settings)
        results.append(SettingResult(experiment, label, records, watch.load_start, watch.load_end))
        print(f"{experiment} {label}: {watch.describe()}", flush=True)
    return results


def robustness_lines(results: list[SettingResult], reps: int) -> list[str]:
    lines = [
        "## Robustness over the settings of E1-E4 (target 2)",
        "",
        f"Measured {now()}: repetitions 0-{reps - 1} of each setting (the paper's seeds) through "
        "the experiments' `run_repetition`, 4 chains x 1000 draws after 1000 warm-up, default "
        "settings (`benchmarks/robustness.py`). Steps: leapfrog steps per post-warm-up draw; "
        "times: mean per fit.",
        "",
        "| experiment | setting | fits | divergences | max R-hat | steps per draw | wall per fit "
        "(s) | CPU per fit (s) | load start -> end |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        flag = "" if r.divergences == 0 and r.max_rhat <= RHAT_TARGET else " ⚠"
        lines.append(
            f"| {r.experiment} | {r.label}{flag} | {len(r.records)} | {r.divergences} | "
            f"{r.max_rhat:.4f} | {r.mean('steps_per_draw'):.1f} | {r.mean('seconds'):.2f} | "
            f"{r.mean('cpu'):.2f} | {r.load_start:.1f} -> {r.load_end:.1f} |"
        )
    return [*lines, ""]


def robustness_row(results: list[SettingResult]) -> Row:
    bad = [r for r in results if r.divergences or r.max_rhat > RHAT_TARGET]
    fits = sum(len(r.records) for r in results)
    figure = (
        f"{sum(r.divergences for r in results)} divergences, max R-hat "
        f"{max(r.max_rhat for r in results):.4f} over {fits} fits of {len(results)} settings"
    )
    if bad:
        figure += "; failing: " + ", ".join(f"{r.experiment} {r.label}" for r in bad)
    return Row(2, figure, met(not bad))


def recorded_run_times(folder: Path = RECORD) -> dict | None:
    """``run_times.json`` of the full run of record in ``paper/``; ``None`` when there is none."""
    from bayes_hier.experiments.record import NotARecordError, load_run_times

    try:
        return load_run_times(folder)
    except NotARecordError:
        return None


def e5_e6_parts(settings: Settings) -> list[tuple[str, str, float, int]]:
    """Measured parts of E5 and E6: (experiment, part, wall seconds, times in the full study)."""
    from bayes_hier.examples import load_uci_weka

    truth: dict[int, float] = {}
    start = time.perf_counter()
    for setting in friedman_settings():
        truth[setting.setting_id] = e5_friedman.truth_repetition(setting.setting_id, 0, settings)
    truth_s = time.perf_counter() - start
    start = time.perf_counter()
    # Timing only: the truth of one repetition stands in for the mean over e5_truth_reps.
    e5_friedman.analysis_repetition(0, truth, settings)
    analysis_s = time.perf_counter() - start
    frame = load_uci_weka()
    subset = frame[frame["model"].isin(settings.e6_pairs[0])].reset_index(drop=True)
    start = time.perf_counter()
    for variant in range(len(settings.e6_variants)):
        e6_real_data.run_fit(0, variant, subset, settings)
    e6_s = time.perf_counter() - start
    return [
        (
            "E5",
            "ground truth: one repetition of each of the 54 settings",
            truth_s,
            settings.e5_truth_reps,
        ),
        (
            "E5",
            "analysis: one repetition (CV of 36 settings, one fit)",
            analysis_s,
            settings.e5_reps,
        ),
        (
            "E6",
            f"one fit of each of the {len(settings.e6_variants)} variants on one pair",
            e6_s,
            len(settings.e6_pairs),
        ),
    ]


def study_estimate(
    results: list[SettingResult], reps: int, settings: Settings
) -> tuple[list[str], Row]:
    """Lines and row of target 3 (a full report's times, or the estimate)."""
    recorded = recorded_run_times()
    if recorded is not None:
        from bayes_hier.experiments.record import SIMULATION, recorded_timing, run_time_sentence

        e1_e4 = recorded_timing(recorded, SIMULATION).wall_seconds
        total = recorded_timing(recorded).wall_seconds
        if e1_e4 is None or total is None:  # a Dask run: no wall-time estimate
            return [], Row(3, run_time_sentence(recorded), "not measured (Dask run)")
        figure = (
            f"E1-E4 {e1_e4 / 60:.0f} min, E1-E6 {total / 60:.0f} min of estimated wall time "
            "(the full run of record in paper/)"
        )
        status = met(e1_e4 <= STUDY_E1_E4_TARGET_S and total <= STUDY_ALL_TARGET_S)
        lines = [
            "## Whole simulation study: the full run of record (target 3)",
            "",
            f"From `paper/run_times.json`: {run_time_sentence(recorded)}",
            "",
        ]
        return lines, Row(3, figure, status)
    per_setting_reps = {
        "E1": settings.e1_reps,
        "E2": settings.e23_reps,
        "E3": settings.e23_reps,
        "E4": settings.e4_reps,
    }
    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for r in results:
        wall[r.experiment] = (
            wall.get(r.experiment, 0.0) + r.mean("seconds") * per_setting_reps[r.experiment]
        )
        cpu[r.experiment] = (
            cpu.get(r.experiment, 0.0) + r.mean("cpu") * per_setting_reps[r.experiment]
        )
    parts = e5_e6_parts(settings)
    for experiment, _, seconds, times in parts:
        wall[experiment] = wall.get(experiment, 0.0) + seconds * times
    e1_e4 = sum(wall[k] for k in ("E1", "E2", "E3", "E4"))
    total = sum(wall.values())
    e1_e4_cpu = sum(cpu.values())
    lines = [
        "## Whole simulation study: estimate, not a run (target 3)",
        "",
        f"`paper/` holds no full run of record, so: mean wall time per fit of each setting "
        f"above ({reps} repetitions each) x the paper's repetitions (E1 {3 * settings.e1_reps}, "
        f"E2 {5 * settings.e23_reps}, E3 {5 * settings.e23_reps}, E4 {4 * settings.e4_reps} "
        "fits); E5 and E6 from the parts below, measured "
        f"{now()} (`benchmarks/robustness.py`).",
        "",
        "| experiment | part | measured (s) | times | estimate (min) |",
        "|---|---|---:|---:|---:|",
        *(
            f"| {experiment} | {part} | {seconds:.1f} | {times} | {seconds * times / 60:.1f} |"
            for experiment, part, seconds, times in parts
        ),
        "",
        "| experiment | estimate, wall (min) |",
        "|---|---:|",
        *(f"| {k} | {v / 60:.0f} |" for k, v in wall.items()),
        f"| **E1-E4** | **{e1_e4 / 60:.0f}** (lower bound from CPU time / 2: "
        f"{e1_e4_cpu / 2 / 60:.0f}) |",
        f"| **E1-E6** | **{total / 60:.0f}** |",
        "",
    ]
    figure = (
        f"estimate, not a run: E1-E4 {e1_e4 / 60:.0f} min, E1-E6 {total / 60:.0f} min "
        f"(from {sum(len(r.records) for r in results)} timed fits)"
    )
    status = met(e1_e4 <= STUDY_E1_E4_TARGET_S and total <= STUDY_ALL_TARGET_S) + " (estimate)"
    return lines, Row(3, figure, status)


#: The repetition tables of the full run of record and the column that names their settings.
RECORDED_SETTINGS = {"E1": "q", "E2": "q", "E3": "q", "E4": "delta0"}


def recorded_robustness(folder: Path = RECORD) -> tuple[list[str], Row] | None:
    """Divergences and R-hat over *every* fit of E1-E4 in the full run of record (``paper/``,
    one row per repetition in ``e<k>_repetitions.csv``), per setting; ``None`` without one."""
    import pandas as pd

    times = recorded_run_times(folder)
    if times is None:
        return None
    lines = [
        "## Robustness over every fit of E1-E4 in the full run of record (target 2)",
        "",
        f"From `paper/e1_repetitions.csv` ... `e4_repetitions.csv` ({times['chains']} chains x "
        f"{times['draws']} draws after {times['warmup']} warm-up, default settings): one row "
        "per setting.",
        "",
        "| experiment | setting | fits | fits with divergences | divergences | max R-hat "
        "| fits with R-hat > 1.01 |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    fits = divergences = over = 0
    worst = 1.0
    for experiment, column in RECORDED_SETTINGS.items():
        reps = pd.read_csv(folder / f"{experiment.lower()}_repetitions.csv")
        for value, group in reps.groupby(column):
            high = int((group["max_rhat"] > RHAT_TARGET).sum())
            lines.append(
                f"| {experiment} | {column} = {value:g} | {len(group)} | "
                f"{int((group['divergences'] > 0).sum())} | {int(group['divergences'].sum())} | "
                f"{group['max_rhat'].max():.4f} | {high} |"
            )
            fits += len(group)
            divergences += int(group["divergences"].sum())
            over += high
            worst = max(worst, float(group["max_rhat"].max()))
    figure = (
        f"{divergences} divergences, max R-hat {worst:.4f}, R-hat > {RHAT_TARGET} in {over} of "
        f"{fits} fits (every fit of E1-E4 in the full run of record)"
    )
    return [*lines, ""], Row(2, figure, met(divergences == 0 and over == 0))


def robustness_benchmark(reps: int = 3, settings: Settings | None = None) -> Measured:
    """Sections and rows of targets 2 and 3 (target 2 from the full run of record when there is
    one, from the timed repetitions otherwise)."""
    settings = settings or Settings.full()
    results = run_settings(settings, reps)
    study_lines, study_row = study_estimate(results, reps, settings)
    recorded = recorded_robustness()
    recorded_lines, row = recorded if recorded else ([], robustness_row(results))
    return Measured(
        [*recorded_lines, *robustness_lines(results, reps), *study_lines], [row, study_row]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--draws", type=int, default=None, help="override (trials only)")
    args = parser.parse_args()
    settings = Settings.full()
    if args.draws:
        settings = replace(settings, draws=args.draws, warmup=args.draws)
    measured = robustness_benchmark(args.reps, settings)
    print("\n".join(measured.lines))
    print(measured.rows)


if __name__ == "__main__":
    main()
