"""``make calibrate``: the SBC run, its tables and figures, and the decision error rates."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..experiments.runner import Settings, make_executor
from .analysis import uniformity_table
from .error_rates import run_error_rates, summarise_error_rates, zero_count_upper_bound
from .plots import plot_ecdf_differences, plot_rank_histograms
from .report import error_rate_section, sbc_section, write_summary
from .sbc import PARAMETERS, SBCConfig, SBCSetting, run_sbc

NU_PRIORS = ("hierarchical", "juarez-steel")
SIZES = ((10, 10), (10, 100), (50, 10), (50, 100))
ERROR_RATE_Q = (10, 20, 50)
#: Rank histogram bins: L + 1 = 60 rank values in 10 bins of 6.
BINS = 10
FAMILY_ALPHA = 0.05


@dataclass(frozen=True)
class CalibrationPlan:
    """What one ``make calibrate`` run does (defaults: 8 settings × 64 = 512 SBC replicates,
    3 q × 2 scenarios × 30 error-rate repetitions)."""

    replicates: int = 64
    error_repetitions: int = 30
    jobs: int = 2
    config: SBCConfig = field(default_factory=SBCConfig)
    sbc: bool = True
    error_rates: bool = True

    def settings(self) -> list[SBCSetting]:
        return [SBCSetting(q, n, prior) for prior in NU_PRIORS for q, n in SIZES]

    def experiment_settings(self) -> Settings:
        """The experiments' settings with this plan's chains (and rope 0.01)."""
        return Settings.quick(
            chains=self.config.chains,
            draws=self.config.draws,
            warmup=self.config.warmup,
            engine=self.config.engine,
        )


def describe_sbc(plan: CalibrationPlan) -> str:
    config = plan.config
    return (
        f"Priors: δ₀ ~ U(−{config.delta0_bound:g}, {config.delta0_bound:g}), σ₀ ~ U(0, "
        f"{config.sigma0_upper:g}), σ_i ~ U(0, {config.sigma_upper:g}) (fixed, in the units "
        f"of the Stan program; scale 1), ν priors {', '.join(NU_PRIORS)}; ρ = {config.rho:g}. "
        f"Settings (q, n): {', '.join(f'({q}, {n})' for q, n in SIZES)}; {plan.replicates} "
        f"replicates each. Fits: engine {config.engine}, {config.chains} chains × "
        f"{config.draws} draws after {config.warmup} warm-up, adapt_delta "
        f"{config.adapt_delta}; posterior thinned to L = {config.thinned} draws (ranks "
        f"0..{config.thinned}); chi-square on {BINS} bins; ECDF test with simulated simultaneous "
        f"band (Säilynoja et al. 2022). ESS columns: bulk ESS of the "
        f"{config.chains * config.draws} draws before thinning."
    )


def describe_error_rates(plan: CalibrationPlan) -> str:
    config = plan.config
    return (
        f"{plan.error_repetitions} repetitions per scenario and q, generators and repetition "
        f"seeds of the paper's E2 and E3 (bayes_hier.experiments); hierarchical fits with "
        f"{config.chains} chains × {config.draws} draws ({config.warmup} warm-up), rope 0.01. "
        f"Columns: share of repetitions in which the hierarchical test declares a model better "
        f"(P(left) or P(right) > 0.95) or equivalence (P(rope) > 0.95), or neither, and in which "
        f"the two-sided signed-rank test rejects at 0.05; ± one Monte Carlo standard error "
        f"(a rate of 0 has standard error 0 but only says the rate is below "
        f"{zero_count_upper_bound(plan.error_repetitions):.3f}, the one-sided 95% upper bound "
        f"1 − 0.05^(1/R))."
    )


def run_sbc_part(plan: CalibrationPlan, executor, out: Path, progress: bool) -> str:
    ranks = run_sbc(plan.settings(), plan.replicates, plan.config, executor, progress)
    ranks.to_csv(out / "sbc_ranks.csv", index=False)
    max_rank = plan.config.thinned
    pooled = uniformity_table(ranks, PARAMETERS, max_rank, BINS, by=("nu_prior",))
    cells = uniformity_table(ranks, PARAMETERS, max_rank, BINS, by=("nu_prior", "q", "n"))
    pooled.to_csv(out / "sbc_uniformity.csv", index=False)
    cells.to_csv(out / "sbc_uniformity_by_setting.csv", index=False)
    for prior, group in ranks.groupby("nu_prior"):
        title = f"SBC ranks, nu prior {prior!r}, {len(group)} replicates (all q, n)"
        plot_rank_histograms(
            group, PARAMETERS, max_rank, BINS, title, out / f"sbc_histograms_{prior}.png"
        )
        plot_ecdf_differences(group, PARAMETERS, max_rank, title, out / f"sbc_ecdf_{prior}.png")
    return sbc_section(ranks, pooled, cells, describe_sbc(plan), FAMILY_ALPHA)


def run_error_rate_part(plan: CalibrationPlan, executor, out: Path, progress: bool) -> str:
    reps = run_error_rates(
        ERROR_RATE_Q, plan.error_repetitions, plan.experiment_settings(), executor, progress
    )
    reps.to_csv(out / "error_rate_repetitions.csv", index=False)
    table = summarise_error_rates(reps)
    table.to_csv(out / "error_rates.csv", index=False)
    return error_rate_section(table, describe_error_rates(plan))


def run_calibration(plan: CalibrationPlan, out: Path, progress: bool = True) -> Path:
    """Run the parts of ``plan``; write CSVs, figures and ``CALIBRATION.md`` into ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sections, timings = [], []
    load_before = os.getloadavg()
    with make_executor(plan.jobs) as executor:
        for enabled, name, part in (
            (plan.sbc, "SBC", run_sbc_part),
            (plan.error_rates, "error rates", run_error_rate_part),
        ):
            if not enabled:
                continue
            start = time.perf_counter()
            sections.append(part(plan, executor, out, progress))
            timings.append(f"{name} {time.perf_counter() - start:.0f} s")
    load_after = os.getloadavg()
    header = (
        f"Wall time: {'; '.join(timings)} with {plan.jobs} worker process(es) on "
        f"{os.cpu_count()} CPU(s). Load average (1, 5, 15 min) before "
        f"{', '.join(f'{v:.2f}' for v in load_before)}, after "
        f"{', '.join(f'{v:.2f}' for v in load_after)}."
    )
    path = out / "CALIBRATION.md"
    write_summary(path, sections, header)
    return path


__all__ = ["CalibrationPlan", "run_calibration"]
