"""MCMC diagnostics computed and checked after every Stan fit.

The checks and thresholds follow Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021,
"Rank-normalization, folding, and localization: an improved R-hat"): rank-normalised split R-hat
at most 1.01, bulk and tail effective sample sizes at least 100 per chain; plus no divergent
transitions, no transitions that hit the maximum tree depth, and E-BFMI at least 0.3
(Betancourt, 2016).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import arviz as az
import numpy as np


class SamplingWarning(UserWarning):
    """An MCMC diagnostic failed: the posterior summaries may be unreliable."""


@dataclass(frozen=True)
class DiagnosticThresholds:
    """Limits used by :func:`check_diagnostics`."""

    max_rhat: float = 1.01
    min_ess_per_chain: float = 100.0
    min_ebfmi: float = 0.3


def compute_diagnostics(
    idata: az.InferenceData, var_names: Sequence[str], max_treedepth: int
) -> dict[str, float]:
    """The numbers behind the checks, over the variables ``var_names`` that have draws.

    Returns a dict with ``divergences``, ``max_rhat``, ``min_ess_bulk``, ``min_ess_tail``,
    ``max_treedepth_hits`` (transitions whose tree depth reached ``max_treedepth``),
    ``min_ebfmi`` (over chains), plus ``chains`` and ``draws``.
    """
    posterior = idata.posterior
    names = [v for v in var_names if v in posterior and posterior[v].size > 0]
    stats = idata.sample_stats
    rhat = az.rhat(idata, var_names=names)
    ess_bulk = az.ess(idata, var_names=names, method="bulk")
    ess_tail = az.ess(idata, var_names=names, method="tail")

    def extreme(dataset, reducer) -> float:
        values = np.concatenate([np.ravel(dataset[v].values) for v in names])
        values = values[np.isfinite(values)]
        return float(reducer(values)) if values.size else float("nan")

    chains = int(posterior.sizes["chain"])
    ebfmi = az.bfmi(idata) if chains and "energy" in stats else np.array([np.nan])
    return {
        "divergences": int(stats["diverging"].values.sum()),
        "max_rhat": extreme(rhat, np.max),
        "min_ess_bulk": extreme(ess_bulk, np.min),
        "min_ess_tail": extreme(ess_tail, np.min),
        "max_treedepth_hits": int((stats["tree_depth"].values >= max_treedepth).sum()),
        "min_ebfmi": float(np.min(ebfmi)),
        "chains": chains,
        "draws": int(posterior.sizes["draw"]),
    }


def diagnostic_problems(
    diagnostics: dict[str, float], thresholds: DiagnosticThresholds = DiagnosticThresholds()
) -> list[str]:
    """Concrete messages, one per failed check (empty when all pass)."""
    problems = []
    chains = diagnostics["chains"]
    min_ess = thresholds.min_ess_per_chain * chains
    if diagnostics["divergences"] > 0:
        problems.append(
            f"{diagnostics['divergences']} divergent transitions after warm-up: the sampler "
            "missed part of the posterior. Increase adapt_delta (e.g. adapt_delta=0.99)."
        )
    if diagnostics["max_rhat"] > thresholds.max_rhat:
        problems.append(
            f"max R-hat is {diagnostics['max_rhat']:.3f} > {thresholds.max_rhat}: the chains "
            "disagree. Run more warm-up and draws (warmup=2000, draws=2000)."
        )
    for kind in ("bulk", "tail"):
        value = diagnostics[f"min_ess_{kind}"]
        if value < min_ess:
            problems.append(
                f"min {kind} ESS is {value:.0f} < {min_ess:.0f} "
                f"({thresholds.min_ess_per_chain:.0f} per chain): too few effective draws for "
                f"reliable {kind} estimates. Increase draws."
            )
    if diagnostics["max_treedepth_hits"] > 0:
        problems.append(
            f"{diagnostics['max_treedepth_hits']} transitions hit the maximum tree depth: "
            "sampling was cut short. Increase max_treedepth (e.g. 12)."
        )
    if diagnostics["min_ebfmi"] < thresholds.min_ebfmi:
        problems.append(
            f"E-BFMI is {diagnostics['min_ebfmi']:.2f} < {thresholds.min_ebfmi} in some chain: "
            "the momentum resampling explores the energy poorly (a heavy-tailed or funnel-shaped "
            "posterior). Run longer (warmup=2000, draws=2000) and check the parameters' "
            "trace plots (arviz.plot_trace)."
        )
    return problems


def warn_on_problems(problems: list[str], context: str) -> None:
    """Issue one :class:`SamplingWarning` per failed check."""
    for problem in problems:
        warnings.warn(f"{context}: {problem}", SamplingWarning, stacklevel=3)
