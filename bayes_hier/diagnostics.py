"""MCMC diagnostics computed and checked after every Stan fit.

The checks and thresholds follow Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021,
"Rank-normalization, folding, and localization: an improved R-hat"): rank-normalised split R-hat
at most 1.01, bulk and tail effective sample sizes at least 100 per chain; plus no divergent
transitions, no transitions that hit the maximum tree depth, and E-BFMI at least 0.3
(Betancourt, 2016).

R-hat and the ESS are computed here, vectorised over every element of every variable (one FFT
and one ranking over a (chain, draw, K) array instead of arviz's per-element Python calls): the
same numbers as ``arviz.rhat`` / ``arviz.ess`` up to rounding, in a small fraction of the time
when the per-data-set vectors are long. With one chain, R-hat is the split R-hat of its two
halves (it detects drift within the chain, not a second mode that the chain never visited);
arviz returns NaN there. A diagnostic that cannot be computed (too few draws) is reported as a
problem, never passed silently.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import arviz as az
import numpy as np
from scipy import fft, special

from .callers import user_stacklevel
from .threads import default_threads, map_on_threads


class SamplingWarning(UserWarning):
    """An MCMC diagnostic failed: the posterior summaries may be unreliable."""


@dataclass(frozen=True)
class DiagnosticThresholds:
    """Limits used by :func:`check_diagnostics`."""

    max_rhat: float = 1.01
    min_ess_per_chain: float = 100.0
    min_ebfmi: float = 0.3


def draws_matrix(idata: az.InferenceData, var_names: Sequence[str]) -> np.ndarray:
    """The posterior draws of ``var_names`` as one array (chain, draw, K): every element of every
    variable is a column, so the diagnostics below run over all of them in one vectorised call."""
    posterior = idata.posterior
    chains, draws = int(posterior.sizes["chain"]), int(posterior.sizes["draw"])
    columns = [np.asarray(posterior[v].values, float).reshape(chains, draws, -1) for v in var_names]
    return np.concatenate(columns, axis=2) if columns else np.empty((chains, draws, 0))


def split_chains(x: np.ndarray) -> np.ndarray:
    """(chain, draw, K) -> (2·chain, draw // 2, K): each chain cut into its first and last half
    (the middle draw of an odd count dropped), as arviz does."""
    half = x.shape[1] // 2
    return np.concatenate([x[:, :half], x[:, x.shape[1] - half :]], axis=0)


def average_ranks(rows: np.ndarray) -> np.ndarray:
    """Ranks 1..S within each row of (K, S), ties given their average rank (as
    ``scipy.stats.rankdata(method="average")``): one sort per row; in the rows with ties, the
    tie groups are found from the sorted values (their first and last positions by running max /
    min), the other rows (all, for continuous draws) take the sorted positions as they are."""
    order = np.argsort(rows, axis=1)
    ordered = np.take_along_axis(rows, order, axis=1)
    size = rows.shape[1]
    position = np.arange(size)
    sorted_ranks = np.broadcast_to(position + 1.0, rows.shape).copy()
    tied = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
    if tied.size:
        starts = np.ones((tied.size, size), dtype=bool)
        starts[:, 1:] = ordered[tied, 1:] != ordered[tied, :-1]
        ends = np.ones((tied.size, size), dtype=bool)
        ends[:, :-1] = starts[:, 1:]
        first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
        last = np.minimum.accumulate(np.where(ends, position, size - 1)[:, ::-1], axis=1)[:, ::-1]
        sorted_ranks[tied] = (first + last) / 2 + 1
    ranks = np.empty(rows.shape)
    np.put_along_axis(ranks, order, sorted_ranks, axis=1)
    return ranks


def z_scale(x: np.ndarray) -> np.ndarray:
    """Rank normalisation per column of (chain, draw, K): ``Φ⁻¹((r − 3/8) / (S − 3/4 + 1))`` with
    ``r`` the average rank among all ``S`` draws of all chains (Blom 1958; Vehtari et al. 2021,
    eq. 14)."""
    columns = x.shape[-1]
    rows = np.ascontiguousarray(x.reshape(-1, columns).T)  # (K, S): one contiguous sort each
    offset = 3 / 8
    z = special.ndtri((average_ranks(rows) - offset) / (rows.shape[1] - 2 * offset + 1))
    return z.T.reshape(x.shape)


def basic_rhat(x: np.ndarray) -> np.ndarray:
    """Gelman-Rubin ``R̂ = sqrt(((n − 1)/n · W + B/n) / W)`` per column of (chain, draw, K), with
    ``B/n`` the variance of the chain means and ``W`` the mean within-chain variance."""
    n = x.shape[1]
    between = n * np.var(x.mean(axis=1), axis=0, ddof=1)
    within = np.mean(np.var(x, axis=1, ddof=1), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt((between / within + n - 1) / n)


def rank_rhat(x: np.ndarray) -> np.ndarray:
    """Rank-normalised split R̂ per column of (chain, draw, K): the larger of the bulk R̂ (of the
    z-scaled split chains) and the tail R̂ (of the z-scaled distances to the median), Vehtari et
    al. (2021), as ``arviz.rhat(method="rank")``. With one chain, the split halves still give a
    (split) R̂, which arviz leaves as NaN; NaN below 4 draws per chain."""
    return rank_diagnostics(x)[0]


def rank_diagnostics(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rank_rhat(x), bulk_ess(x))``, sharing the ranking of the split chains."""
    if x.shape[1] < 4:
        missing = np.full(x.shape[2], np.nan)
        return missing, missing
    split = split_chains(x)
    z = z_scale(split)
    median = np.median(split.reshape(-1, split.shape[2]), axis=0)
    tail = basic_rhat(z_scale(np.abs(split - median)))
    return np.maximum(basic_rhat(z), tail), effective_sample_size(z)


def autocovariance(x: np.ndarray) -> np.ndarray:
    """Autocovariances at every lag along the draw axis of (chain, draw, K), by FFT (biased: the
    sums are divided by the number of draws), as arviz computes them."""
    n = x.shape[1]
    size = fft.next_fast_len(2 * n)
    centred = np.ascontiguousarray((x - x.mean(axis=1, keepdims=True)).transpose(0, 2, 1))
    transform = np.fft.rfft(centred, n=size, axis=2)  # along contiguous rows
    transform *= np.conjugate(transform)
    return (np.fft.irfft(transform, n=size, axis=2)[:, :, :n] / n).transpose(0, 2, 1)


def effective_sample_size(x: np.ndarray) -> np.ndarray:
    """ESS per column of (chain, draw, K): Geyer's initial positive then initial monotone sequence
    on the multi-chain autocorrelations (Vehtari et al. 2021, eq. 10; arviz's ``_ess``), all
    columns at once.

    ``ρ̂_t = 1 − (W − mean_chains(acov_t)) / var⁺``; pairs ``P_k = ρ̂_2k + ρ̂_2k+1`` are summed
    while positive (the first non-positive pair ``k_L`` ends the sum; pairs are only formed while
    ``2k − 1 < n − 3``), made non-increasing by a running minimum, and
    ``τ = −1 + 2 Σ_{k<k_L} P_k + ρ̂_2k_L`` (the last term when positive, or when ``P_k_L = 0``),
    ``τ ≥ 1 / log10(S)``, ``ESS = S / τ`` with ``S`` draws in all. A constant column has ESS S.
    """
    chains, n, columns = x.shape
    total = chains * n
    acov = autocovariance(x)
    mean_var = acov[:, 0].mean(axis=0) * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if chains > 1:
        var_plus = var_plus + np.var(x.mean(axis=1), axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = 1.0 - (mean_var - acov.mean(axis=0)) / var_plus  # (n, K)
    rho[0] = 1.0
    last_pair = 0
    while 2 * (last_pair + 1) - 1 < n - 3:  # the pairs arviz's loop can form
        last_pair += 1
    pairs = rho[0 : 2 * last_pair + 1 : 2] + rho[1 : 2 * last_pair + 2 : 2]  # (last_pair+1, K)
    non_positive = pairs <= 0
    stop = np.where(non_positive.any(axis=0), np.argmax(non_positive, axis=0), last_pair)
    monotone = np.minimum.accumulate(pairs, axis=0)
    before_stop = np.arange(pairs.shape[0])[:, None] < stop
    summed = np.sum(np.where(before_stop, monotone, 0.0), axis=0)
    index = np.arange(columns)
    even = rho[2 * stop, index]
    stop_pair = pairs[stop, index]
    last = np.where((even > 0) | ((stop > 0) & (stop_pair >= 0)), even, 0.0)
    tau = np.maximum(-1.0 + 2.0 * summed + last, 1 / np.log10(total))
    ess = total / tau
    ess[np.isnan(rho).any(axis=0)] = np.nan
    ess[np.ptp(x.reshape(-1, columns), axis=0) < np.finfo(float).resolution] = total
    return ess


def bulk_ess(x: np.ndarray) -> np.ndarray:
    """Bulk ESS: the ESS of the z-scaled split chains (``arviz.ess(method="bulk")``); NaN below
    4 draws per chain."""
    return rank_diagnostics(x)[1]


def tail_ess(x: np.ndarray, probabilities: tuple[float, float] = (0.05, 0.95)) -> np.ndarray:
    """Tail ESS: the smaller ESS of the indicators ``x ≤ q_0.05`` and ``x ≤ q_0.95`` over the split
    chains (quantiles of type 7 over all draws; ``arviz.ess(method="tail")``); NaN below 4 draws per
    chain."""
    if x.shape[1] < 4:
        return np.full(x.shape[2], np.nan)
    rows = np.ascontiguousarray(x.reshape(-1, x.shape[2]).T)
    quantiles = np.quantile(rows, probabilities, axis=1)
    return np.minimum(
        *(effective_sample_size(split_chains((x <= q).astype(float))) for q in quantiles)
    )


#: Below this many values (chains x draws x columns) the columns are diagnosed on one thread.
THREADED_MIN_VALUES = 2_000_000


def column_diagnostics(
    x: np.ndarray, threads: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rank_rhat(x), bulk_ess(x), tail_ess(x))`` per column of (chain, draw, K).

    Every column's numbers depend on that column alone, so the columns are cut into ``threads``
    blocks diagnosed on as many threads (numpy's sorts, FFTs and element-wise loops release the
    GIL): the same numbers in about half the time on 2 cores (the joint model at 16 models x 132
    data sets: 4 600 columns of 4 000 draws, about 9 s on one thread). Default: one thread per
    available core, at most 4, and one thread for fewer than :data:`THREADED_MIN_VALUES` values.
    """
    if threads is None:
        threads = default_threads(x.shape[2]) if x.size >= THREADED_MIN_VALUES else 1
    threads = max(1, min(threads, x.shape[2]))

    def diagnose(block: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rhat, bulk = rank_diagnostics(block)
        return rhat, bulk, tail_ess(block)

    if threads == 1:
        return diagnose(x)
    blocks = np.array_split(np.arange(x.shape[2]), threads)
    parts = map_on_threads(diagnose, (x[:, :, block] for block in blocks), threads)
    rhat, bulk, tail = (np.concatenate(values) for values in zip(*parts, strict=True))
    return rhat, bulk, tail


def compute_diagnostics(
    idata: az.InferenceData, var_names: Sequence[str], max_treedepth: int
) -> dict[str, float]:
    """The numbers behind the checks, over the variables ``var_names`` that have draws.

    Returns a dict with ``divergences``, ``max_rhat`` (rank-normalised split R̂; with one chain,
    of its two halves), ``min_ess_bulk``, ``min_ess_tail``, ``max_treedepth_hits`` (transitions
    whose tree depth reached ``max_treedepth``), ``min_ebfmi`` (over chains), plus ``chains`` and
    ``draws``. R̂ and ESS run over every element of every variable in one vectorised pass
    (:func:`column_diagnostics`: :func:`rank_rhat`, :func:`bulk_ess`, :func:`tail_ess`; equal
    to arviz's ``rhat`` and ``ess`` up to rounding, except that one chain gets its split R̂
    instead of NaN).
    """
    posterior = idata.posterior
    names = [v for v in var_names if v in posterior and posterior[v].size > 0]
    stats_group = idata.sample_stats
    draws = draws_matrix(idata, names)
    rhat, ess_bulk, ess_tail = column_diagnostics(draws)

    def extreme(values: np.ndarray, reducer) -> float:
        values = values[np.isfinite(values)]
        return float(reducer(values)) if values.size else float("nan")

    chains = int(posterior.sizes["chain"])
    ebfmi = az.bfmi(idata) if chains and "energy" in stats_group else np.array([np.nan])
    return {
        "divergences": int(stats_group["diverging"].values.sum()),
        "max_rhat": extreme(rhat, np.max),
        "min_ess_bulk": extreme(ess_bulk, np.min),
        "min_ess_tail": extreme(ess_tail, np.min),
        "max_treedepth_hits": int((stats_group["tree_depth"].values >= max_treedepth).sum()),
        "min_ebfmi": float(np.min(ebfmi)),
        "chains": chains,
        "draws": int(posterior.sizes["draw"]),
    }


def format_beyond(value: float, threshold: float, decimals: int = 3) -> str:
    """``value`` with ``decimals`` decimals, or as many more as it takes to print it on its own
    side of ``threshold``: a failed check never reads as a value equal to its limit (1.0103 is
    "1.0103 > 1.01", not "1.010 > 1.01"). At most 15 decimals."""
    if value == threshold:
        return f"{value:.{decimals}f}"
    for places in range(decimals, 16):
        text = f"{value:.{places}f}"
        if (float(text) > threshold) == (value > threshold) and float(text) != threshold:
            return text
    return repr(value)


def diagnostic_problems(
    diagnostics: dict[str, float], thresholds: DiagnosticThresholds = DiagnosticThresholds()
) -> list[str]:
    """Concrete messages, one per failed check (empty when all pass): the convergence checks
    (:func:`convergence_problems`) and the efficiency checks (tree depth, E-BFMI)."""
    problems = convergence_problems(diagnostics, thresholds)
    if diagnostics["max_treedepth_hits"] > 0:
        problems.append(
            f"{diagnostics['max_treedepth_hits']} transitions hit the maximum tree depth: "
            "sampling was cut short. Increase max_treedepth (e.g. 12)."
        )
    if diagnostics["min_ebfmi"] < thresholds.min_ebfmi:
        problems.append(
            f"E-BFMI is {format_beyond(diagnostics['min_ebfmi'], thresholds.min_ebfmi, 2)} < "
            f"{thresholds.min_ebfmi} in some chain: "
            "the momentum resampling explores the energy poorly (a heavy-tailed or funnel-shaped "
            "posterior). Run longer (warmup=2000, draws=2000) and check the parameters' "
            "trace plots (arviz.plot_trace)."
        )
    return problems


def convergence_problems(
    diagnostics: dict[str, float], thresholds: DiagnosticThresholds = DiagnosticThresholds()
) -> list[str]:
    """The failed checks that make the draws unfit for a decision, each with its fix: divergent
    transitions (part of the posterior missed), R-hat above the threshold and bulk or tail ESS
    below it, or not computable (Vehtari et al. 2021). A result with any of them reports its
    probabilities but declares no outcome ("not converged")."""
    problems = []
    chains = diagnostics["chains"]
    min_ess = thresholds.min_ess_per_chain * chains
    if diagnostics["divergences"] > 0:
        problems.append(
            f"{diagnostics['divergences']} divergent transitions after warm-up: the sampler "
            "missed part of the posterior. Increase adapt_delta (e.g. adapt_delta=0.99)."
        )
    if not np.isfinite(diagnostics["max_rhat"]):
        problems.append(
            "R-hat cannot be computed (fewer than 4 draws per chain, or no draws): whether the "
            "chains converged cannot be judged. Run more draws (draws=1000)."
        )
    elif diagnostics["max_rhat"] > thresholds.max_rhat:
        problems.append(
            f"max R-hat is {format_beyond(diagnostics['max_rhat'], thresholds.max_rhat)} > "
            f"{thresholds.max_rhat}: the chains "
            "disagree. Run more warm-up and draws (warmup=2000, draws=2000)."
        )
    for kind in ("bulk", "tail"):
        value = diagnostics[f"min_ess_{kind}"]
        if not np.isfinite(value):
            problems.append(
                f"the {kind} ESS cannot be computed (too few draws): the reliability of the "
                f"{kind} estimates cannot be judged. Run more draws (draws=1000)."
            )
        elif value < min_ess:
            problems.append(
                f"min {kind} ESS is {format_beyond(value, min_ess, 0)} < {min_ess:.0f} "
                f"({thresholds.min_ess_per_chain:.0f} per chain): too few effective draws for "
                f"reliable {kind} estimates. Increase draws."
            )
    return problems


def warn_on_problems(problems: list[str], context: str) -> None:
    """Issue one :class:`SamplingWarning` per failed check."""
    for problem in problems:
        warnings.warn(f"{context}: {problem}", SamplingWarning, stacklevel=user_stacklevel())


class OneFitChecks:
    """The diagnostics of a result whose pairs all come from one fit of one model (the joint
    model, the ranking models): its failed checks, whether it converged, its warnings, and the
    sentence and caption that say its numbers are not fit for decisions when it did not.

    The class that mixes it in sets ``diagnostics`` (:func:`compute_diagnostics`) and
    ``fit_label`` (how warnings and tables name the fit).
    """

    diagnostics: dict[str, float]
    fit_label: str

    def failure_hints(self) -> list[str]:
        """Sentences that name a likely cause of this fit's failed checks and its fix, beyond
        the checks' own (:func:`diagnostic_problems`); none by default. A model whose failures
        have a cause it can recognise in its posterior overrides this."""
        return []

    def _failed_checks(self) -> list[str]:
        """The failed checks (:func:`diagnostic_problems`) followed by the model's hints; empty
        when every check passed."""
        found = diagnostic_problems(self.diagnostics)
        return [*found, *self.failure_hints()] if found else []

    @property
    def problems(self) -> dict[tuple[str, str], list[str]]:
        """The fit's failed checks and hints, under the key (``fit_label``, "all pairs")."""
        found = self._failed_checks()
        return {(self.fit_label, "all pairs"): found} if found else {}

    @property
    def converged(self) -> bool:
        """Whether the fit passed the convergence checks (divergences, R-hat, ESS); when not,
        every pair's decision is "not converged"."""
        return not convergence_problems(self.diagnostics)

    def warn(self) -> None:
        """One :class:`SamplingWarning` per failed check of the fit, and per hint."""
        warn_on_problems(self._failed_checks(), self.fit_label)

    @property
    def not_converged_note(self) -> str | None:
        """For a fit that failed its convergence checks, the line that heads its summary (the
        checks that failed, and the model's hints); ``None`` for a converged fit."""
        if self.converged:
            return None
        reasons = [*convergence_problems(self.diagnostics), *self.failure_hints()]
        return f"NOT CONVERGED: the numbers below are not fit for decisions ({'; '.join(reasons)})"

    @property
    def ranking_caption(self) -> str:
        """The caption of the ranking table in the reports, marked when the fit failed."""
        caption = f"Ranking on a new data set ({self.fit_label})"
        if not self.converged:
            caption += ": NOT CONVERGED, not fit for decisions (see the warnings)"
        return caption
