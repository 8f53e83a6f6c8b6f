"""Benchmark of the MCMC diagnostics of one real-data fit (issue 13: about 0.8 s of each fit).

The previous implementation called ``arviz.rhat`` and ``arviz.ess`` (bulk and tail) on the
posterior, which runs a Python function per element of every per-data-set vector (54 x 3 of them
on the real data); :func:`bayes_hier.diagnostics.compute_diagnostics` now ranks and transforms all
elements at once. Both are timed on the same InferenceData in the same run (median of
``repeats`` calls each, interleaved) and their numbers compared.
"""

from __future__ import annotations

import statistics
import time
import warnings

import arviz as az
import numpy as np

from bayes_hier.diagnostics import compute_diagnostics
from bayes_hier.hierarchical.model import DIAGNOSED


def arviz_diagnostics(idata: az.InferenceData, names: list[str]) -> dict[str, float]:
    """max R-hat, min bulk and tail ESS through arviz's per-variable calls (the old way)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rhat = az.rhat(idata, var_names=names)
        bulk = az.ess(idata, var_names=names, method="bulk")
        tail = az.ess(idata, var_names=names, method="tail")

    def values(dataset) -> np.ndarray:
        flat = np.concatenate([np.ravel(dataset[v].values) for v in names])
        return flat[np.isfinite(flat)]

    return {
        "max_rhat": float(values(rhat).max()),
        "min_ess_bulk": float(values(bulk).min()),
        "min_ess_tail": float(values(tail).min()),
    }


def diagnostics_benchmark(result, repeats: int = 3) -> list[str]:
    """Markdown lines: time of the old and new diagnostics of ``result`` (a fit of the real
    data) and the largest relative difference between their numbers."""
    idata = result.idata
    names = [v for v in DIAGNOSED if v in idata.posterior and idata.posterior[v].size > 0]
    elements = sum(int(np.prod(idata.posterior[v].shape[2:])) for v in names)
    old_times, new_times = [], []
    for _ in range(max(repeats, 3)):
        start = time.perf_counter()
        old = arviz_diagnostics(idata, names)
        old_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        new = compute_diagnostics(idata, DIAGNOSED, max_treedepth=10)
        new_times.append(time.perf_counter() - start)
    difference = max(abs(new[k] - old[k]) / abs(old[k]) for k in old)
    before, after = statistics.median(old_times), statistics.median(new_times)
    return [
        "## Diagnostics of one real-data fit (R-hat, bulk and tail ESS)",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M')} on the InferenceData of the real-data fit "
        f"({int(idata.posterior.sizes['chain'])} x {int(idata.posterior.sizes['draw'])} draws, "
        f"{len(names)} variables, {elements} elements); medians of {max(repeats, 3)} "
        "interleaved calls.",
        "",
        "| arviz per variable (before) | compute_diagnostics, all checks (after) | speed-up "
        "| largest relative "
        "difference of max R-hat, min ESS |",
        "|---:|---:|---:|---:|",
        f"| {before:.3f} s | {after:.3f} s | **{before / after:.1f}x** | {difference:.1e} |",
        "",
        f"Numbers after: max R-hat {new['max_rhat']:.4f}, min bulk ESS {new['min_ess_bulk']:.0f}, "
        f"min tail ESS {new['min_ess_tail']:.0f} (and E-BFMI, divergences, tree depth as before).",
        "",
    ]
