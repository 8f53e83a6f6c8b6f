"""``hierarchical_test``: the Bayesian hierarchical comparison of two models on many data sets."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .._typing import Unpack
from .._validate import check_bool, check_fraction
from ..data import CVData, as_cvdata, corrected_standard_error
from ..diagnostics import convergence_problems, warn_on_problems
from ..fitting import FittedModel, SamplerKeywords, SamplerOptions, fit_model, seed_streams
from ..issued import records_warnings
from ..rope import Rope, RopeLike
from ..seeding import SeedLike
from .mode_valley import deepest_valley
from .model import HIERARCHICAL, HierarchicalModel
from .model_input import HierarchicalPrior, spread_constant
from .quadrature import DEEP_NATS, QUADRATURE
from .result import HierarchicalResult
from .two_chart import TWO_CHART

#: The sampler's coordinates of :func:`hierarchical_test` (``coordinates=``): the same model.
COORDINATES: dict[str, HierarchicalModel] = {
    "scale-mixture": HIERARCHICAL,
    "two-chart": TWO_CHART,
    "quadrature": QUADRATURE,
}
#: ``coordinates="auto"`` looks at the valleys of the data sets (:data:`~.quadrature.DEEP_NATS`)
#: when some data set has fewer results than this; with more, the scale mixture is used.
FEW_RESULTS = 10
#: At few folds, a fit that failed its convergence checks only by mixing slowly
#: (:func:`mixes_slowly`) is fitted again with these multiples of its draws per chain, one after
#: the other while the longer fit still mixes slowly (:func:`extend_slow_fit`). Measured
#: (``benchmarks/FEW_FOLD.md``): the two-chart fits of the few-fold base case that failed at 1 000
#: draws (R-hat up to 1.037, tail ESS down to 77, no divergence) had ESS growing in proportion to
#: the draws and passed at 4 times; in the quadrature coordinates, where two precise data sets lie
#: far out together and ν has two regimes, one pair of the large few-fold study was still at
#: R-hat 1.034 with 4 times the draws and passed at 8 times (R-hat 1.004, bulk ESS 657).
EXTENSION_FACTORS = (4, 8)
#: The largest R-hat :func:`mixes_slowly` counts as slow mixing rather than chains that disagree.
#: Measured (``benchmarks/FEW_FOLD.md``): quadrature fits of the large few-fold study with R-hat
#: 1.039-1.071 and no divergence reached 1.007-1.011 at four times the draws, while the two-chart
#: refit of the 1.071 pair diverged 20 times (R-hat 1.239).
SLOW_MIXING_MAX_RHAT = 1.1


@records_warnings
def hierarchical_test(
    x: Any,
    y: Any = None,
    rope: RopeLike = 0.01,
    runs: int | Sequence[int] | None = None,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    nu_prior: str = "hierarchical",
    rho: float | Sequence[float] | None = None,
    higher_is_better: bool = True,
    sigma_factor: float = 1000.0,
    sigma0_factor: float = 1000.0,
    delta0_bound: float | None = None,
    alpha_range: tuple[float, float] = (0.5, 5.0),
    beta_range: tuple[float, float] = (0.05, 0.15),
    hdi_prob: float = 0.95,
    seed: SeedLike = None,
    warn: bool = True,
    coordinates: str = "auto",
    **sampler: Unpack[SamplerKeywords],
) -> HierarchicalResult:
    """Compare two models on several data sets with the Bayesian hierarchical model.

    The model of Corani, Benavoli, Demšar, Mangili & Zaffalon (Machine Learning, 2017):
    the true differences δ_i of the data sets come from a Student-t population
    t(ν, δ₀, σ₀); the cross-validation differences of data set i are multivariate normal with
    mean δ_i and the equicorrelated covariance σ_i²[(1 − ρ_i)I + ρ_i 11ᵀ] (the user guide's
    model page states it with its formulas).

    The Stan program samples the population with δ_i integrated out: the Student-t is written as
    a scale mixture of normals, and ν − 1 and the mixing precisions are sampled as standardised
    logarithms (``stan/hierarchical.stan``). This avoids the funnels of the centred and
    non-centred forms, e.g. when two models agree exactly on many data sets and ν is near 1.
    The δ_i are then drawn from their normal full conditional, one per posterior draw.

    With few folds (fewer than 10 results on some data set) that posterior can be bimodal: a data
    set whose precise mean lies far from the others is explained either by the population's
    tail or by noise, and the chains of the scale-mixture coordinates stay in one explanation
    each (R-hat far above 1.01), or all in the same one, missing the other's mass. Where some
    data set's mean puts a valley of more than 2 nats between the two explanations
    (:func:`few_fold_valley`), such data sets are then integrated out by quadrature
    (``stan/hierarchical_quadrature.stan``, :mod:`bayes_hier.hierarchical.quadrature`): the
    sampler sees only the population and the other data sets, and the δ_i, σ_i and τ_i of the
    integrated data sets are drawn afterwards from their conditionals. The same model can also
    be sampled in two-chart coordinates (``stan/hierarchical_two_chart.stan``), with σ_i and
    the mixing precisions integrated out in closed form and one coordinate per data set that
    reaches both explanations (:mod:`bayes_hier.hierarchical.two_chart`); at few folds a fit that
    fails its checks otherwise than by mixing slowly is fitted again in them.

    Parameters
    ----------
    x, y
        Scores of the first and second model: 2-D arrays (data sets × folds), lists of 1-D
        arrays (data sets with different numbers of folds), or a tidy data frame as ``x`` alone
        (columns ``dataset, model, run, fold, score``; see ``models`` and ``columns``), or a
        :class:`~bayes_hier.data.CVData`.
    rope
        Region of practical equivalence in the units of the scores: ``r`` for ``[-r, r]`` or a
        pair ``(low, high)`` of the analysed difference d (second − first, negated when lower
        scores are better, so ``high`` is always on the second model's side).
    runs
        Repetitions of the cross-validation (``n = runs × folds``); default 1. Read from the
        ``run`` column of a data frame.
    names
        Names of the first and second model (default: the frame's model names, or
        ``("first", "second")``).
    models, columns
        For a data frame: the two models to compare and the column names (see
        :meth:`CVData.from_frame`).
    nu_prior
        ``"hierarchical"`` (default), ``"juarez-steel"``, ``"kruschke"`` or ``"gaussian"``.
    rho
        Fold correlation; default ``1 / folds``.
    higher_is_better
        ``False`` for errors, losses or times: the differences are negated so that ``right``
        still means the second model is better.
    seed
        ``None`` (a fresh seed, recorded in ``result.settings["seed"]``), a non-negative int, a
        :class:`numpy.random.Generator` or a :class:`numpy.random.SeedSequence`
        (:mod:`bayes_hier.seeding`); a seed gives identical numbers run after run on the same
        engine.
    sigma_factor, sigma0_factor, delta0_bound, alpha_range, beta_range
        Hyper-parameters of the uniform priors (see :class:`HierarchicalPrior`).
    hdi_prob
        Mass of the highest-density intervals reported.
    warn
        Issue a :class:`~bayes_hier.diagnostics.SamplingWarning` for each failed diagnostic.
    coordinates
        The sampler's coordinates of the same model: ``"scale-mixture"``
        (``stan/hierarchical.stan``), ``"two-chart"`` (``stan/hierarchical_two_chart.stan``),
        ``"quadrature"`` (``stan/hierarchical_quadrature.stan``) or ``"auto"`` (default):
        quadrature when some data set has fewer than 10 results and some data set's valley
        between its two explanations is deeper than 2 nats (:func:`few_fold_valley`), else
        scale-mixture. Recorded in ``result.settings["coordinates"]``. With ``"auto"`` at fewer
        than 10 results, a fit that fails its checks
        (:func:`~bayes_hier.diagnostics.convergence_problems`) is fitted again:

        * if it only mixed slowly (:func:`mixes_slowly`: no divergence, R-hat at most 1.1) and
          ``draws`` was not given, with 4 times the draws, and 8 times if that fit mixes slowly
          too (:func:`extend_slow_fit`; ``result.settings["extended_from"]`` then holds the
          first fit's draws and failed checks);
        * otherwise in two-chart coordinates (:func:`fit_with_fallback`;
          ``result.settings["fallback_from"]`` then holds the first fit's failed checks), and
          that fit with more draws if it mixes slowly.
    **sampler
        The MCMC settings (:class:`~bayes_hier.fitting.SamplerKeywords`): ``chains=4``,
        ``draws=1000`` (per chain, after ``warmup=1000``), ``adapt_delta=0.95``,
        ``max_treedepth=10``, ``engine="auto"`` (cmdstanpy when CmdStan is installed, else
        pystan; the environment variable ``BAYES_HIER_ENGINE`` overrides ``"auto"``) and
        ``progress=False`` (``True``: one progress bar on stderr while sampling).

    Returns
    -------
    HierarchicalResult

    Notes
    -----
    The steps: :func:`prepare_input` (validated data and rope) -> the package's one driver,
    :func:`~bayes_hier.fitting.fit_model`, with the model's own steps
    (:class:`~bayes_hier.hierarchical.model.HierarchicalModel`: the Stan data, rescaled; initial
    values; sampling; the completed posterior) and the diagnostics -> the result.
    """
    options = SamplerOptions.from_keywords(sampler, "hierarchical_test")
    prior = HierarchicalPrior(
        nu_prior=nu_prior,
        sigma_factor=sigma_factor,
        sigma0_factor=sigma0_factor,
        delta0_bound=delta0_bound,
        alpha_range=alpha_range,
        beta_range=beta_range,
    )
    cv, parsed_rope = prepare_input(
        x,
        y,
        rope,
        runs,
        names=names,
        models=models,
        columns=columns,
        rho=rho,
        higher_is_better=higher_is_better,
    )
    warn = check_bool(warn, "warn")
    hdi_prob = check_fraction(hdi_prob, "hdi_prob")
    chosen = choose_coordinates(coordinates, cv, parsed_rope)
    root = seed_streams(seed).seed  # a fresh seed drawn once: every fit below starts from it
    label = f"hierarchical test {cv.names[0]} vs {cv.names[1]}"

    def fit(name: str, draws: int) -> FittedModel:
        return fit_model(
            COORDINATES[name],
            cv,
            rope=parsed_rope,
            prior=prior,
            options=replace(options, draws=draws),
            seed=seed_streams(root),
            warn=False,  # warned below, for the fit kept
        )

    few = coordinates == "auto" and min(cv.n) < FEW_RESULTS
    chosen, fitted, record = fit_and_refit(
        fit, chosen, options.draws, few, may_extend=few and "draws" not in sampler
    )
    if warn:
        warn_on_problems(fitted.problems, label)
    return HierarchicalResult(
        idata=fitted.idata,
        cv=cv,
        rope=parsed_rope,
        model_input=fitted.model_input,
        prior=prior,
        diagnostics=fitted.diagnostics,
        settings={**fitted.settings, "coordinates": chosen, **record},
        hdi_prob=hdi_prob,
    )


def fit_and_refit(
    fit: Callable[[str, int], FittedModel],
    chosen: str,
    draws: int,
    may_refit: bool,
    may_extend: bool,
) -> tuple[str, FittedModel, dict[str, Any]]:
    """Fit in the ``chosen`` coordinates with ``draws`` per chain (``fit(coordinates, draws)``,
    every fit from the same seed), and fit again where the checks failed:

    * a fit that only mixed slowly (:func:`mixes_slowly`), if ``may_extend``: with more draws
      (:func:`extend_slow_fit`);
    * any other failed fit in the scale-mixture or quadrature coordinates, if ``may_refit``: in
      two-chart coordinates (:func:`fit_with_fallback`), then with more draws if that fit mixes
      slowly and ``may_extend``.

    Returns
    -------
    coordinates, fitted, record
        The coordinates of the fit kept, the fit, and for the settings the records of
        :func:`fit_with_fallback` and :func:`extend_slow_fit` (empty when the first fit is kept).
    """
    fitted = fit(chosen, draws)
    record: dict[str, Any] = {}
    slow = may_extend and mixes_slowly(fitted.diagnostics)
    if may_refit and chosen != "two-chart" and not slow:
        chosen, fitted, record = fit_with_fallback(lambda name: fit(name, draws), chosen, fitted)
    fitted, extension = extend_slow_fit(lambda more: fit(chosen, more), fitted, draws, may_extend)
    return chosen, fitted, {**record, **extension}


def fit_with_fallback(
    fit: Callable[[str], FittedModel], chosen: str, fitted: FittedModel
) -> tuple[str, FittedModel, dict[str, Any]]:
    """If ``fitted`` (the fit in the ``chosen`` coordinates) failed a convergence check
    (:func:`~bayes_hier.diagnostics.convergence_problems`), fit the same model again in
    two-chart coordinates (``fit(coordinates)``, which issues no warnings: the caller warns for
    the fit it keeps) and keep that fit (``fit`` starts every fit from the same seed, so it is
    the fit ``coordinates="two-chart"`` gives).

    Used at few folds by :func:`hierarchical_test` for the scale-mixture and quadrature
    coordinates, unless the fit only mixed slowly (then it is extended instead,
    :func:`extend_slow_fit`): there either may mix badly or diverge where the other does not
    (measured: the scale mixture's tail ESS of σ₀ on some pairs, ``benchmarks/FEW_FOLD.md``).
    Never the other way round: where the scale mixture's chains all sit in one of two modes
    they pass the checks while missing the other mode's mass, so a fit that passes in two charts
    is not refitted.

    Returns
    -------
    coordinates, fitted, record
        The coordinates of the fit kept, the fit, and for the settings either ``{}`` or
        ``{"fallback_from": {"coordinates": ..., "problems": [...]}}`` (the first fit's failed
        checks).
    """
    if not convergence_problems(fitted.diagnostics):
        return chosen, fitted, {}
    record = {"fallback_from": {"coordinates": chosen, "problems": list(fitted.problems)}}
    return "two-chart", fit("two-chart"), record


def mixes_slowly(diagnostics: Mapping[str, float]) -> bool:
    """Whether a fit failed its convergence checks
    (:func:`~bayes_hier.diagnostics.convergence_problems`) only in the ways longer chains
    remove: no divergent transition, R-hat computable and at most :data:`SLOW_MIXING_MAX_RHAT`,
    and the ESS computable but low.

    R-hat estimates the factor by which the spread of all the draws exceeds that within a chain;
    for chains that mix slowly but explore the same posterior it falls toward 1 as they
    lengthen, and the ESS grows with their length. Divergences (a part of the posterior the
    sampler cannot reach) and chains that disagree more than that are not slow mixing.
    """
    if not convergence_problems(dict(diagnostics)):
        return False
    return (
        diagnostics["divergences"] == 0
        and bool(np.isfinite(diagnostics["max_rhat"]))
        and diagnostics["max_rhat"] <= SLOW_MIXING_MAX_RHAT
        and bool(np.isfinite(diagnostics["min_ess_bulk"]))
        and bool(np.isfinite(diagnostics["min_ess_tail"]))
    )


def extend_slow_fit(
    fit: Callable[[int], FittedModel], fitted: FittedModel, draws: int, may_extend: bool
) -> tuple[FittedModel, dict[str, Any]]:
    """If ``may_extend`` and ``fitted`` (a fit with ``draws`` per chain) mixed slowly
    (:func:`mixes_slowly`), the same fit again with each multiple of :data:`EXTENSION_FACTORS`
    of ``draws`` per chain in turn (``fit(draws)``: the same model, coordinates, warm-up and seed,
    so the same chains run longer), until one does not mix slowly.

    Used by :func:`hierarchical_test` at few folds when the draws were not given: there a data
    set known to a few thousandths whose mean lies far from the others makes ν and that data
    set's explanation move together, and the chains, which do explore both, need more draws for
    the checks. The last fit is kept whether or not it passes (if not, it reads "not converged"
    like any other).

    Returns
    -------
    fitted, record
        The fit kept, and for the settings either ``{}`` or ``{"extended_from": {"draws": ...,
        "problems": [...]}}`` (the first fit's draws per chain and failed checks), with
        ``"slow_extensions": [{"draws": ..., "problems": [...]}, ...]`` in it when longer fits
        mixed slowly too before the one kept.
    """
    if not may_extend or not mixes_slowly(fitted.diagnostics):
        return fitted, {}
    first = {"draws": draws, "problems": list(fitted.problems)}
    slow_extensions = []
    for factor in EXTENSION_FACTORS:
        fitted = fit(factor * draws)
        if factor == EXTENSION_FACTORS[-1] or not mixes_slowly(fitted.diagnostics):
            break
        slow_extensions.append({"draws": factor * draws, "problems": list(fitted.problems)})
    if slow_extensions:
        first["slow_extensions"] = slow_extensions
    return fitted, {"extended_from": first}


def choose_coordinates(coordinates: str, cv: CVData, rope: Rope) -> str:
    """The sampler's coordinates for ``cv``: ``coordinates`` itself, or for ``"auto"``
    ``"quadrature"`` when some data set has fewer than :data:`FEW_RESULTS` results and some data
    set's valley between its two explanations is deeper than :data:`~.quadrature.DEEP_NATS`
    (:func:`few_fold_valley`), else ``"scale-mixture"``."""
    if coordinates == "auto":
        if min(cv.n) >= FEW_RESULTS:
            return "scale-mixture"
        return "quadrature" if few_fold_valley(cv, rope) > DEEP_NATS else "scale-mixture"
    if coordinates not in COORDINATES:
        raise ValueError(
            f"coordinates={coordinates!r} is not known; use 'auto', "
            + ", ".join(repr(name) for name in COORDINATES)
            + "."
        )
    return coordinates


def few_fold_valley(cv: CVData, rope: Rope) -> float:
    """The deepest valley, in nats, between the two explanations of any data set's mean
    (:func:`~.mode_valley.deepest_valley`), from the means and corrected standard errors of the
    differences the model fits: data sets with constant differences given their spread
    (:func:`~.model_input.spread_constant`, drawn with a fixed seed, so that the choice depends
    on the data only)."""
    differences, *_ = spread_constant(cv, rope, np.random.default_rng(0))
    stds = np.array([np.std(d, ddof=1) for d in differences])
    standard_errors = corrected_standard_error(stds, cv.n, cv.rho)
    return deepest_valley(cv.means, standard_errors, cv.n)[0]


def prepare_input(
    x: Any,
    y: Any = None,
    rope: RopeLike = 0.01,
    runs: int | Sequence[int] | None = None,
    **kwargs: Any,
) -> tuple[CVData, Rope]:
    """Step 1 of :func:`hierarchical_test`: the validated data and the rope.

    ``x, y, runs`` and the keyword arguments (``names, models, columns, rho,
    higher_is_better``) as for :func:`~bayes_hier.data.as_cvdata`. The hierarchical model needs
    at least two data sets; the rope is parsed in the units of the scores (with the unit check
    of :meth:`CVData.rope`).
    """
    cv = as_cvdata(x, y, runs, **kwargs)
    if cv.q < 2:
        raise ValueError(
            f"x and y hold {cv.q} data set; the hierarchical test needs at least 2. For one "
            "data set use the Bayesian correlated t-test (correlated_ttest)."
        )
    return cv, cv.rope(rope)


__all__ = [
    "COORDINATES",
    "EXTENSION_FACTORS",
    "FEW_RESULTS",
    "SLOW_MIXING_MAX_RHAT",
    "choose_coordinates",
    "extend_slow_fit",
    "few_fold_valley",
    "fit_and_refit",
    "fit_with_fallback",
    "hierarchical_test",
    "mixes_slowly",
    "prepare_input",
]
