"""``compare``: k models on many data sets in one call, pair by pair.

The comparison orchestrates the package's two-model tests (one per pair, chosen in
:data:`~bayes_hier.compare.METHODS`) and its frequentist tests; it computes nothing
itself. Steps: validate the scores -> cut each pair under the missing-data policy -> derive each
pair's seed from its names -> run the pairs (in this process, in worker processes, or on a Dask
cluster) -> the frequentist view on the complete blocks -> :class:`~bayes_hier.ManyModelResult`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import check_bool, check_fraction, check_int
from ..data import CVData
from ..frequentist.view import frequentist_view
from ..issued import records_warnings
from ..rope import Rope, RopeLike, RopeScaleWarning
from ..scores import MissingDataWarning, ModelScores, PairUsage, model_scores
from ..seeding import SeedLike, derive_seed, resolve_seed
from ..versions import package_versions
from .methods import (
    WHOLE_METHODS,
    PairMethod,
    default_method,
    get_method,
    run_pair_reporting_warnings,
)

if TYPE_CHECKING:
    from .result import ManyModelResult


def pair_list(models: Sequence[str], control: str | None) -> list[tuple[str, str]]:
    """All pairs ``(models[i], models[j])``, ``i < j``; with a control, ``(control, other)``."""
    if control is None:
        return list(combinations(models, 2))
    if control not in models:
        raise ValueError(f"The control model {control!r} is not among the models {list(models)}.")
    return [(control, model) for model in models if model != control]


def pair_seed(root: int, first: str, second: str) -> int:
    """The pair's seed: derived from the root seed and the two names in sorted order, so it does
    not depend on the order of the pairs, their orientation or the worker that runs them."""
    return derive_seed(root, *sorted((first, second)))


def _pair_inputs(
    scores: ModelScores,
    pairs: Sequence[tuple[str, str]],
    entry: PairMethod,
    *,
    min_folds: int,
    higher_is_better: bool,
) -> tuple[dict[tuple[str, str], CVData], dict[tuple[str, str], PairUsage]]:
    """Each pair's CVData and usage; a ValueError for a pair the method cannot analyse."""
    inputs, usage = {}, {}
    for first, second in pairs:
        cv, used = scores.pair(
            first, second, min_folds=min_folds, higher_is_better=higher_is_better
        )
        q = 0 if cv is None else cv.q
        if q < entry.min_datasets or (entry.max_datasets is not None and q > entry.max_datasets):
            wanted = (
                f"exactly {entry.max_datasets}"
                if entry.max_datasets == entry.min_datasets
                else f"at least {entry.min_datasets}"
            )
            reasons = "; ".join(used.describe()) or "nothing was left out"
            raise ValueError(
                f"{first} vs {second}: {q} usable data set(s), the {entry.name} method needs "
                f"{wanted} ({reasons})."
            )
        inputs[first, second], usage[first, second] = cv, used
    return inputs, usage


def _warn_dropped(usage: Mapping[tuple[str, str], PairUsage]) -> None:
    lines = [line for used in usage.values() for line in used.describe()]
    if lines:
        more = f"; ... ({len(lines) - 10} more)" if len(lines) > 10 else ""
        shown = "; ".join(lines[:10]) + more
        warnings.warn(
            f"Missing scores: {shown}. Each pair uses the data sets and folds both models have "
            "(see result.usage).",
            MissingDataWarning,
            stacklevel=3,
        )


def _run_pairs(
    entry: PairMethod,
    inputs: Mapping[tuple[str, str], CVData],
    rope: Rope,
    seeds: Mapping[tuple[str, str], int],
    options: Mapping[str, Any],
    *,
    jobs: int,
    scheduler: Any,
    progress: bool,
) -> dict[tuple[str, str], Any]:
    """Run every pair; Stan-based pairs go to :mod:`bayes_hier.parallel` when ``jobs > 1`` or a
    Dask ``scheduler`` is given (each pair's numbers depend on its seed only).

    The warnings a pair's test issues (e.g. ties given a spread) are issued here, in the caller's
    process, prefixed with the pair, whichever process ran it (see
    :func:`~bayes_hier.compare.methods.run_pair_reporting_warnings`).
    """
    from ..parallel import InlineExecutor, make_executor, run_tasks

    pairs = list(inputs)
    tasks = [(entry.name, inputs[p], rope, seeds[p], dict(options)) for p in pairs]
    description = f"{entry.name} pairs"
    task = run_pair_reporting_warnings
    if entry.parallel and (jobs > 1 or scheduler is not None):
        with make_executor(jobs, scheduler) as executor:
            outcomes = run_tasks(executor, task, tasks, description, progress=progress)
    else:
        outcomes = run_tasks(InlineExecutor(), task, tasks, description, progress=progress)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RopeScaleWarning)  # checked once by compare
        for (first, second), (_, issued) in zip(pairs, outcomes):
            for category, message in issued:
                warnings.warn(f"{first} vs {second}: {message}", category, stacklevel=3)
    return {pair: result for pair, (result, _) in zip(pairs, outcomes)}


@records_warnings
def compare(
    data: Any,
    rope: RopeLike = 0.01,
    *,
    models: Sequence[str] | None = None,
    method: str | None = None,
    control: str | None = None,
    higher_is_better: bool = True,
    columns: Mapping[str, str] | None = None,
    runs: int = 1,
    seed: SeedLike = None,
    jobs: int = 1,
    scheduler: Any = None,
    progress: bool = False,
    min_folds: int = 2,
    alpha: float = 0.05,
    **options: Any,
) -> ManyModelResult:
    """Compare k >= 2 models on one or many data sets, every pair with one two-model test.

    Parameters
    ----------
    data
        A tidy frame with one row per (dataset, model, [run,] fold) and a score (column names
        as in :meth:`bayes_hier.CVData.from_frame`, mapped with ``columns``), or a dict
        ``{model: matrix}`` of data sets x folds (run-major; ``runs`` repetitions per row).
        NaN marks a failed fold (see the missing-data policy in ``bayes_hier.scores``).
    rope
        Region of practical equivalence in the units of the scores (``r`` for ``[-r, r]``).
    models
        The models to compare, in this order (default: all, in order of appearance). The pairs
        are ``(models[i], models[j])`` with ``i < j``.
    method
        ``"hierarchical"`` (default with several data sets), ``"signed_rank"``, ``"sign"``,
        ``"correlated_t"`` (default with one data set), or ``"joint"``: one Bayesian model of
        all k models (:func:`bayes_hier.joint.joint_test`; its result adds P(best) and the rank
        distribution), or ``"bradley_terry"`` / ``"plackett_luce"``: the Bayesian Bradley-Terry
        and Plackett-Luce models of wins and rankings (:mod:`bayes_hier.ranking`).
    control
        Compare every other model with this one only: k - 1 pairs ``(control, other)``.
    higher_is_better
        ``False`` for errors or losses.
    columns, runs
        Column names of a tidy frame; repetitions per row of a matrix in the dict form.
    seed
        One seed (see :mod:`bayes_hier.seeding`); pair ``(a, b)`` gets
        ``derive_seed(root, *sorted((a, b)))``, so its numbers do not depend on the order of
        the pairs or the number of workers.
    jobs, scheduler
        Worker processes for the Stan-based pairs, or a Dask address / Client
        (:func:`bayes_hier.parallel.make_executor`).
    progress
        A progress bar (on stderr).
    min_folds
        A pair drops a data set with fewer paired (run, fold) cells than this.
    alpha
        Level of the decisions and of the frequentist tests.
    **options
        Passed to the two-model test, e.g. ``chains``, ``draws``, ``warmup``, ``engine``,
        ``nu_prior`` (hierarchical) or ``prior``, ``nsamples`` (sign, signed-rank).

    Returns
    -------
    ManyModelResult
    """
    if method in WHOLE_METHODS:
        return WHOLE_METHODS[method](
            data,
            rope,
            models=models,
            control=control,
            higher_is_better=higher_is_better,
            columns=columns,
            runs=runs,
            seed=seed,
            jobs=jobs,
            scheduler=scheduler,
            progress=progress,
            min_folds=min_folds,
            alpha=alpha,
            **options,
        )
    scores = model_scores(data, models=models, columns=columns, runs=runs)
    entry = get_method(method or default_method(len(scores.datasets)))
    entry.check_options(options)
    min_folds = check_int(min_folds, "min_folds")
    if min_folds < 2:
        raise ValueError(f"min_folds must be at least 2 (a variance needs 2); got {min_folds}.")
    alpha, jobs = check_fraction(alpha, "alpha"), check_int(jobs, "jobs", minimum=1)
    progress = check_bool(progress, "progress")
    higher_is_better = check_bool(higher_is_better, "higher_is_better")
    if "hdi_prob" in options:
        options["hdi_prob"] = check_fraction(options["hdi_prob"], "hdi_prob")
    finite = scores.table["score"].to_numpy()
    parsed_rope = Rope.parse(rope, finite[np.isfinite(finite)])
    root = resolve_seed(seed)
    pairs = pair_list(scores.models, control)
    seeds = {pair: pair_seed(root, *pair) for pair in pairs}
    usage: dict[tuple[str, str], PairUsage] = {}
    extras: dict[str, Any] = {}
    if entry.joint:
        results, extras = entry.test(scores, pairs, parsed_rope, root, **options)
    else:
        inputs, usage = _pair_inputs(
            scores, pairs, entry, min_folds=min_folds, higher_is_better=higher_is_better
        )
        _warn_dropped(usage)
        results = _run_pairs(
            entry,
            inputs,
            parsed_rope,
            seeds,
            options,
            jobs=jobs,
            scheduler=scheduler,
            progress=progress,
        )
    settings = {
        "seed": root,
        "pair_seeds": {f"{a} vs {b}": s for (a, b), s in seeds.items()},
        "method": entry.name,
        "options": dict(options),
        "min_folds": min_folds,
        "jobs": jobs,
        "versions": package_versions(),
    }
    result = entry.result_class(
        results,
        models=scores.models,
        method=entry.name,
        rope=parsed_rope,
        usage=usage,
        frequentist=frequentist_view(scores, higher_is_better, alpha),
        scores=scores,
        settings=settings,
        scope=entry.scope,
        control=control,
        higher_is_better=higher_is_better,
        alpha=alpha,
        **extras,
    )
    result.warn()
    return result


__all__ = ["compare", "package_versions", "pair_list", "pair_seed"]
