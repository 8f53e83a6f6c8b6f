"""The sentences of a many-model comparison's reports, every one a function of the result.

Data, what was left out, the method (prior, seeds, sampler) in words, the decisions, the
frequentist view and the warnings: each function takes the result and returns text.
"""

from __future__ import annotations

from typing import Any

from ..decision import NOT_CONVERGED
from ..diagnostics import DiagnosticThresholds
from .numbers import probability_text

#: What every function here takes: a :class:`~bayes_hier.ManyModelResult` (or a subclass).
#: Duck-typed, so that the report modules do not import the result module, which imports them to
#: print and save itself (no import cycle).
ResultLike = Any


def pair_sentence(result: ResultLike, pair: tuple[str, str]) -> str:
    """The pair's decision in words, e.g. "hnb is better than nbc with probability 0.99 on a
    new data set"."""
    pair_result = result[pair]
    first, second = pair_result.names
    decision = pair_result.decision(result.alpha)
    probs = pair_result.probs
    scope = f" {result.scope}" if result.scope else ""
    if decision.outcome == NOT_CONVERGED:
        fixes = " ".join(problem for problem in decision.problems)
        return (
            f"{first} vs {second}: not converged, so no outcome is declared (the probabilities in "
            f"the tables are not reliable enough to decide). {fixes}"
        )
    if decision.outcome in ("left", "right"):
        winner, loser = (first, second) if decision.outcome == "left" else (second, first)
        p = probability_text(getattr(probs, decision.outcome))
        return f"{winner} is better than {loser} with probability {p}{scope}."
    if decision.outcome == "rope":
        return (
            f"{first} and {second} are practically equivalent (differences within the rope "
            f"{result.rope}) with probability {probability_text(probs.rope)}{scope}."
        )
    labels = pair_result.labels
    best = max(("left", "rope", "right"), key=lambda k: getattr(probs, k))
    return (
        f"{first} vs {second}: no decision; the most probable outcome, {labels[best]}, has "
        f"probability {probability_text(getattr(probs, best))}, not above {1 - result.alpha:g}."
    )


def design_sentence(result: ResultLike) -> str:
    """The cross-validation design of the data sets, e.g. "10 runs x 10 folds on every data
    set"."""
    if result.scores is None:
        return "The design of the data sets was not recorded."
    design = result.scores.design()
    combos = design.groupby(["runs", "folds"]).size().sort_values(ascending=False)
    if len(combos) == 1:
        (runs, folds), count = next(iter(combos.items()))
        return f"Cross-validation: {runs} run(s) x {folds} folds on every data set ({count})."
    parts = [
        f"{runs} run(s) x {folds} folds on {count} data set(s)"
        for (runs, folds), count in combos.items()
    ]
    return "Cross-validation: " + "; ".join(parts) + "."


def data_lines(result: ResultLike) -> list[str]:
    """The data: models, data sets, design, score, rope and its units."""
    lines = [f"Models ({len(result.models)}): {', '.join(result.models)}."]
    if result.scores is not None:
        datasets = result.scores.datasets
        lines.append(f"Data sets: {len(datasets)}.")
        lines.append(design_sentence(result))
        units = f"the units of the score column {result.scores.score_name!r}"
    else:
        units = "the units of the scores"
    units = getattr(result, "rope_units", None) or units  # a rope on another quantity
    direction = "higher is better" if result.higher_is_better else "lower is better"
    lines.append(f"Scores: {direction}; the rope is {result.rope} in {units}.")
    if result.control is not None:
        lines.append(
            f"Control: every model is compared with {result.control} only ({len(result)} pairs)."
        )
    return lines


def dropped_lines(result: ResultLike) -> list[str]:
    """What each pair left out, or that nothing was."""
    return result.dropped or [
        "Nothing was dropped: every pair uses every data set and every fold of both models."
    ]


def first_pair(result: ResultLike) -> Any:
    """The result of the first pair (what the method, prior and sampler are read from)."""
    return next(iter(result.pair_results.values()))


#: The ν priors of the hierarchical models, in words.
NU_PRIOR_WORDS = {
    "hierarchical": "a Student-t population whose degrees of freedom have nu - 1 ~ "
    "Gamma(alpha, beta), alpha ~ U{alpha_range}, beta ~ U{beta_range}",
    "juarez-steel": "a Student-t population with nu - 1 ~ Gamma(2, 0.1) (Juarez and Steel)",
    "kruschke": "a Student-t population with nu - 1 ~ Gamma(1, 0.0345) (Kruschke)",
    "gaussian": "a normal population of differences",
}


def prior_sentence(prior: Any) -> str:
    """The prior of a hierarchical model in words, read from its attributes (a prior already in
    words, as the ranking models give, is stated as it is)."""
    if isinstance(prior, str):
        return f"Prior: {prior.rstrip('.')}."
    words = NU_PRIOR_WORDS.get(prior.nu_prior, f"the nu prior {prior.nu_prior!r}")
    parts = [
        "Prior: "
        + words.format(
            alpha_range=tuple(getattr(prior, "alpha_range", ())),
            beta_range=tuple(getattr(prior, "beta_range", ())),
        )
    ]
    if hasattr(prior, "sigma_factor"):
        parts.append(
            f"sigma_i ~ U(0, {prior.sigma_factor:g} x the mean standard deviation of the data "
            f"sets), sigma0 ~ U(0, {prior.sigma0_factor:g} x the standard deviation of their "
            "means)"
        )
    bound = getattr(prior, "delta0_bound", "absent")
    if bound is None:
        parts.append("delta0 ~ U(-D, D) with D the largest absolute difference")
    elif bound != "absent":
        parts.append(f"delta0 ~ U(-{bound:g}, {bound:g})")
    return "; ".join(parts) + "."


#: Settings of a pair result stated elsewhere, or not settings of the method.
_STATED = {"seed", "stan_seed", "problems", "counts", "prior", "prior_place", "models"}


def sampler_sentence(settings: dict[str, Any]) -> str | None:
    """How the posterior was computed, in words (``None`` when nothing is recorded)."""
    if "chains" in settings:
        text = (
            f"Sampler: Stan's NUTS ({settings.get('engine', 'engine not recorded')}), "
            f"{settings['chains']} chains of {settings.get('draws')} draws after "
            f"{settings.get('warmup')} warm-up iterations"
        )
        extra = [
            f"{key.replace('_', ' ')} {settings[key]}"
            for key in ("adapt_delta", "max_treedepth")
            if key in settings
        ]
        return text + (f" ({', '.join(extra)})" if extra else "") + "."
    if "nsamples" in settings:
        return f"Posterior: {settings['nsamples']} samples of the Dirichlet process posterior."
    rest = {k: v for k, v in settings.items() if k not in _STATED}
    if not rest:
        return None
    return "Settings: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in rest.items()) + "."


def refit_sentence(result: ResultLike) -> str | None:
    """The pairs whose first fit was replaced by a second one (the hierarchical test at few folds:
    fitted again in two-chart coordinates after failing in the scale-mixture or quadrature
    coordinates, or with more draws after mixing slowly), from each pair's ``settings``
    (``None`` when none was)."""
    fallback, extended = [], []
    for (first, second), pair in result.pair_results.items():
        settings = getattr(pair, "settings", None) or {}
        if "fallback_from" in settings:
            fallback.append(
                f"{first} vs {second} (first in {settings['fallback_from']['coordinates']})"
            )
        if "extended_from" in settings:
            extended.append(
                f"{first} vs {second} ({settings['extended_from']['draws']} -> "
                f"{settings.get('draws')} draws per chain)"
            )
    parts = []
    if fallback:
        parts.append(
            f"{len(fallback)} pair(s) failed a convergence check and were fitted again in "
            f"two-chart coordinates: {', '.join(fallback)}"
        )
    if extended:
        parts.append(
            f"{len(extended)} pair(s) mixed slowly and were fitted again with more draws: "
            f"{', '.join(extended)}"
        )
    if not parts:
        return None
    return "Refitted: " + "; ".join(parts) + ". Their diagnostics are those of the fit kept."


def method_lines(result: ResultLike) -> list[str]:
    """Method, prior, seeds and sampler settings in sentences, read from the pair results."""
    pair = first_pair(result)
    scope = f" {result.scope}" if result.scope else ""
    lines = [
        f'Method: every pair was compared with the {pair.test_name}. A pair "A vs B" lists '
        "the models in the order given; its difference is d = B - A, so that d > 0 means B is "
        "better"
        + ("" if result.higher_is_better else " (the scores were negated: lower is better)")
        + f". An outcome is declared when its probability{scope} exceeds "
        f"{1 - result.alpha:g}."
    ]
    prior = getattr(pair, "prior", None)
    settings = getattr(pair, "settings", {})
    if prior is not None:
        lines.append(prior_sentence(prior))
    elif "prior" in settings:
        place = settings.get("prior_place")
        lines.append(
            f"Prior: a Dirichlet process of strength {settings['prior']:g}"
            + (f", its pseudo-observation placed in the {place}." if place else ".")
        )
    else:
        lines.append("Prior: none to set (the posterior follows from the data alone).")
    seed = result.settings.get("seed")
    if seed is not None and "pair_seeds" in result.settings:
        lines.append(
            f"Seed: {seed}; each pair's own seed (derived from it and the two names) is in the "
            "seed column of pairs.csv."
        )
    elif seed is not None:
        lines.append(f"Seed: {seed}, of the one fit that gives every pair.")
    sampler = sampler_sentence(settings)
    if sampler:
        lines.append(sampler)
    refit = refit_sentence(result)
    if refit:
        lines.append(refit)
    if result.settings.get("options"):
        options = ", ".join(f"{k} {v}" for k, v in result.settings["options"].items())
        lines.append(f"Options given to the test: {options}.")
    return lines


def version_line(result: ResultLike) -> str:
    """Package versions (and the Stan engine, when the pairs used one)."""
    versions = dict(result.settings.get("versions", {}))
    engine = getattr(first_pair(result), "settings", {}).get("engine")
    text = ", ".join(f"{name} {v}" for name, v in versions.items())
    return f"Versions: {text}" + (f"; engine {engine}." if engine else ".")


def warning_lines(result: ResultLike) -> list[str]:
    """Everything that shaped the numbers besides the data and the settings
    (``result.warnings``: data altered or left out, a rope in other units, sampling problems),
    and the MCMC checks passed; or a sentence saying there is nothing to report."""
    lines = list(result.warnings)
    diagnosed = result.pairs["max_rhat"].notna().any()
    if diagnosed and not result.problems:
        limits = DiagnosticThresholds()
        lines.append(
            f"No sampling problem: no pair has divergences, R-hat above {limits.max_rhat} or an "
            f"ESS below {limits.min_ess_per_chain:.0f} per chain (largest R-hat "
            f"{result.pairs['max_rhat'].max():.3f}, smallest bulk ESS "
            f"{result.pairs['min_ess_bulk'].min():.0f}, smallest tail ESS "
            f"{result.pairs['min_ess_tail'].min():.0f})."
        )
    not_converged = getattr(result, "not_converged", [])
    if not_converged:
        lines.insert(
            0,
            f"{len(not_converged)} of {len(result.pair_results)} pairs did not converge: their "
            "decision reads 'not converged' (see each pair's fix below).",
        )
    elif not diagnosed:
        lines.append("No MCMC diagnostics: the pairwise method does not sample with MCMC.")
    if not result.warnings:
        lines.insert(0, "None: no data were altered or left out, and the rope raised no doubt.")
    return lines


def frequentist_lines(result: ResultLike) -> list[str]:
    """Mean ranks and the sentences of the frequentist tests."""
    view = result.frequentist
    if view is None:
        return []
    lines = [view.note]
    if view.mean_ranks is not None:
        ranks = ", ".join(f"{m} {r:.2f}" for m, r in view.mean_ranks.sort_values().items())
        lines.append(f"Mean ranks (1 = best): {ranks}.")
    for test in (view.friedman, view.nemenyi, view.wilcoxon_holm):
        if test is not None:
            lines.append(test.interpretation)
    return lines


__all__ = [
    "ResultLike",
    "data_lines",
    "design_sentence",
    "dropped_lines",
    "first_pair",
    "frequentist_lines",
    "method_lines",
    "pair_sentence",
    "prior_sentence",
    "refit_sentence",
    "sampler_sentence",
    "version_line",
    "warning_lines",
]
