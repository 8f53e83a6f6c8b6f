"""Where the time of one real-data hierarchical fit goes (issue 13, target 1's breakdown).

One fit of the real data (nbc vs hnb, 4 x 1000 draws after 1000 warm-up, pystan) is timed with
its steps wrapped by timers: building the model (``stan.build``: the program from httpstan's
cache, the data sent), the chains (``model.sample``: warm-up, sampling and the draws streamed
back and parsed), the conversion to InferenceData (``arviz.from_pystan``), the posterior
completion in Python (the true differences drawn from their full conditional) and the
diagnostics; the rest of the wall time is Python overhead (input checks, model input, result).
A second fit with one draw after the same warm-up gives the warm-up's share of the chains' time.
The leapfrog steps per draw come from the sampler's statistics, and the wall time per leapfrog
step and chain from the sampling time: ``sampling time x min(chains, cores) / steps of all
chains`` (the chains share the cores).
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import arviz as az

import bayes_hier.fitting.driver as driver_module
import bayes_hier.hierarchical.model as model_module
from bayes_hier import CVData, hierarchical_test


@contextlib.contextmanager
def timers() -> Iterator[dict[str, float]]:
    """Wrap the steps of a pystan fit with timers; yields the dict of seconds per step."""
    import stan

    seconds: dict[str, float] = defaultdict(float)

    def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[name] += time.perf_counter() - start

        return wrapper

    original_build = stan.build

    def build(*args: Any, **kwargs: Any) -> Any:
        model = timed("build", original_build)(*args, **kwargs)
        # pystan's Model is a frozen dataclass: set the timed method on the instance directly.
        object.__setattr__(model, "sample", timed("chains", model.sample))
        return model

    patches = [
        (stan, "build", build),
        (az, "from_pystan", timed("conversion", az.from_pystan)),
        (model_module, "complete_posterior", timed("completion", model_module.complete_posterior)),
        (
            driver_module,
            "compute_diagnostics",
            timed("diagnostics", driver_module.compute_diagnostics),
        ),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, replacement in patches:
            setattr(owner, name, replacement)
        yield seconds
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def one_fit(cv: CVData, draws: int, seed: int = 1) -> tuple[dict[str, float], Any]:
    with timers() as seconds, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        result = hierarchical_test(
            cv, rope=0.01, seed=seed, draws=draws, warmup=1000, chains=4, engine="pystan"
        )
        seconds["total"] = time.perf_counter() - start
    return dict(seconds), result


def breakdown_lines(cv: CVData) -> list[str]:
    """Markdown lines of the breakdown section (one warm-up fit first, not counted)."""
    one_fit(cv, 100)
    full, result = one_fit(cv, 1000)
    warmup_only, _ = one_fit(cv, 1)
    stats = result.idata.sample_stats
    steps = int(stats["n_steps"].sum())
    chains = int(stats.sizes["chain"])
    cores = os.cpu_count() or 1
    warmup = warmup_only["chains"]
    sampling = max(full["chains"] - warmup, 0.0)
    per_step = sampling * min(chains, cores) / steps
    values_per_draw = sum(
        int(result.idata.posterior[v].size // (chains * result.idata.posterior.sizes["draw"]))
        for v in result.idata.posterior.data_vars
    )
    accounted = sum(full[k] for k in ("build", "chains", "conversion", "completion", "diagnostics"))
    rows = [
        ("model build (`stan.build`: cached program, data sent)", full["build"]),
        ("chains: warm-up (1000 iterations; from a fit with 1 draw)", warmup),
        ("chains: sampling (1000 draws) and output transfer", sampling),
        ("conversion to InferenceData (`arviz.from_pystan`)", full["conversion"]),
        ("posterior completion (deltas from their full conditional)", full["completion"]),
        ("diagnostics (R-hat, ESS, E-BFMI)", full["diagnostics"]),
        ("Python overhead (the rest)", full["total"] - accounted),
    ]
    return [
        "## Breakdown of one real-data fit (nbc vs hnb, pystan, 4 x 1000 draws)",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M')} on {cores} cores; one fit, so figures carry "
        "the load of a shared machine. Total wall time "
        f"**{full['total']:.2f} s**.",
        "",
        "| step | seconds | share |",
        "|---|---:|---:|",
        *(f"| {name} | {value:.3f} | {value / full['total']:.0%} |" for name, value in rows),
        "",
        f"* leapfrog steps per draw: {steps / (chains * stats.sizes['draw']):.1f} "
        f"({steps} in all over {chains} chains)",
        f"* wall time per leapfrog step and chain (sampling phase): {per_step * 1e6:.0f} µs, "
        "the cost of one gradient plus the sampler's bookkeeping",
        f"* values written per draw and chain (posterior variables after completion): "
        f"{values_per_draw}",
        "",
    ]
