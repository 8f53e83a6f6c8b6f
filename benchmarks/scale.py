"""Scale in the number of models (performance target 8): 16 models x 132 data sets x 4 folds.

A study of that shape is simulated (:func:`simulated_study`), then timed:

* ``compare()`` with its default (pairwise hierarchical) method, 4 chains x 1000 draws after
  1000 warm-up, ``jobs`` worker processes (compare's own parallelism) on all 120 pairs
  (``--size full``) or on the pairs of the first ``--models`` models (``--size subset``; the
  time of all 120 pairs is then extrapolated as ``seconds x 120 / pairs measured`` and labelled
  so: the pairs are alike, every model's scores come from the same generator);
* ``compare(..., method="joint")`` on all 16 models, with one model missing the last two folds
  of one data set (m03 on d005, as in the public study), with its default settings (4 chains x
  1000 draws after 1000 warm-up iterations) or, for a quick look, with ``--joint-iterations``
  warm-up and draws per chain (extrapolated as ``seconds x 1000 / iterations`` and labelled so:
  a short warm-up adapts badly, and 100 iterations gave 255 leapfrog steps per draw where the
  default fit takes 31, so the figure is far too high). With 4 folds for 16 models the joint
  model uses its fold-level noise (``noise="auto"``); its divergences, R-hat and leapfrog steps
  per draw are reported, and the target counts as met only for a converged fit.

Every wall time comes with the load average and the CPU time
(:class:`benchmarks.measure.Stopwatch`).
Run alone: ``python -m benchmarks.scale --size subset --models 6``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

from bayes_hier import compare
from benchmarks.measure import Stopwatch, compile_programs, now
from benchmarks.summary import Measured, Row, met

MODELS, DATASETS, FOLDS = 16, 132, 4
ALL_PAIRS = MODELS * (MODELS - 1) // 2
ROPE = 0.01
SEED = 1
PAIRS_TARGET_S, JOINT_TARGET_S = 180.0, 180.0
#: The block the joint model's study lacks: (data set, model, folds missing).
MISSING = ("d005", "m03", (3, 4))
#: The programs the timed fits use (the pairs' three charts and the joint model's fold noise).
PROGRAMS = ("hierarchical", "hierarchical_quadrature", "hierarchical_two_chart", "joint_fold")


def simulated_study(seed: int = 0) -> dict[str, np.ndarray]:
    """``{model: 132 x 4 accuracies}``: accuracy = data-set level u_i ~ U(0.6, 0.9) + model
    effect m_j ~ N(0, 0.01²) + data-set x model effect N(0, 0.01²) + fold noise, the noise of
    the models on one fold correlated (a shared fold term N(0, 0.02²) plus N(0, 0.01²) each)."""
    rng = np.random.default_rng(seed)
    level = rng.uniform(0.6, 0.9, (DATASETS, 1))
    shared_fold = rng.normal(0, 0.02, (DATASETS, FOLDS))
    effects = rng.normal(0, 0.01, MODELS)
    return {
        f"m{j:02d}": np.clip(
            level
            + effects[j]
            + rng.normal(0, 0.01, (DATASETS, 1))
            + shared_fold
            + rng.normal(0, 0.01, (DATASETS, FOLDS)),
            0,
            1,
        )
        for j in range(MODELS)
    }


def tidy_study(study: dict[str, np.ndarray]) -> pd.DataFrame:
    """The study as a tidy frame (``dataset, model, run, fold, score``) without :data:`MISSING`."""
    frame = pd.DataFrame(
        [
            (f"d{i:03d}", model, 1, fold + 1, score)
            for model, scores in study.items()
            for i, row in enumerate(scores)
            for fold, score in enumerate(row)
        ],
        columns=["dataset", "model", "run", "fold", "score"],
    )
    dataset, model, folds = MISSING
    lacking = (frame.dataset == dataset) & (frame.model == model) & frame.fold.isin(folds)
    return frame[~lacking].reset_index(drop=True)


def time_pairs(study: dict[str, np.ndarray], models: int, jobs: int) -> tuple[Stopwatch, object]:
    names = list(study)[:models]
    with Stopwatch() as watch, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare(study, rope=ROPE, models=names, seed=SEED, jobs=jobs)
    return watch, result


def time_joint(
    study: pd.DataFrame, iterations: int | None = None
) -> tuple[Stopwatch, object | None, str]:
    """Wall time of the joint model on the tidy ``study`` (default settings, or ``iterations``
    warm-up iterations and draws per chain), its result, and the reason when it refuses the
    data."""
    sampler = {} if iterations is None else {"draws": iterations, "warmup": iterations}
    with Stopwatch() as watch, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = compare(study, rope=ROPE, method="joint", seed=SEED, warn=False, **sampler)
        except ValueError as error:
            return watch, None, str(error)
    return watch, result, ""


def joint_row(
    watch: Stopwatch, result: object | None, reason: str, iterations: int | None
) -> tuple:
    """(table row, figure text, seconds of a full fit or None) of the joint model, fitted with
    its default settings (``iterations=None``) or with ``iterations`` warm-up iterations and
    draws per chain."""
    if result is None:
        return (
            f'| `compare(method="joint")` | {MODELS} models | - | - | - | not possible: {reason} |',
            f"joint: not possible ({reason})",
            None,
        )
    seconds = watch.wall if iterations is None else watch.wall * 1000 / iterations
    label = (
        "measured, default settings"
        if iterations is None
        else f"extrapolated from 4 x {iterations} after {iterations} warm-up"
    )
    record = result.settings  # the fit's record: chains, draws, warmup as used
    d = result.diagnostics
    steps = float(result.idata.sample_stats["n_steps"].mean())
    noise = result.settings["options"]["noise"]
    converged = not result.not_converged  # the fit's own checks (as compare reports them)
    fit = (
        f"{noise} noise, {d['divergences']} divergences, max R-hat {d['max_rhat']:.3f}, "
        f"min ESS bulk {d['min_ess_bulk']:.0f} / tail {d['min_ess_tail']:.0f}, "
        f"{steps:.0f} steps per draw{'' if converged else ', not converged'}"
    )
    return (
        f'| `compare(method="joint")` | {MODELS} models ({fit}), {record["chains"]} x '
        f"{record['draws']} after {record['warmup']} | {watch.wall:.1f} | {watch.cpu:.1f} | "
        f"{watch.load_start:.1f} -> {watch.load_end:.1f} | {seconds:.0f} ({label}) |",
        f"joint {seconds / 60:.1f} min ({label}; {fit})",
        seconds if converged else None,
    )


def not_converged_text(result: object, pairs: int) -> str:
    """How many of the ``pairs`` read "not converged" (compare's own checks), and which."""
    failed = result.not_converged
    if not failed:
        return f"all {pairs} pairs converged (compare's checks)"
    names = ", ".join(f"{a} vs {b}" for a, b in failed)
    return f"{len(failed)} of {pairs} pairs not converged (compare's checks: {names})"


def scale_benchmark(
    size: str = "subset", models: int = 6, joint_iterations: int | None = None, jobs: int = 2
) -> Measured:
    """Markdown lines of the scale section and the row of target 8 (the joint model with its
    default settings unless ``joint_iterations`` is given)."""
    if size == "full":
        models, joint_iterations = MODELS, None
    study = simulated_study()
    compile_programs(PROGRAMS)
    pairs = models * (models - 1) // 2
    pair_watch, pair_result = time_pairs(study, models, jobs)
    table = pair_result.pairs
    all_pairs_s = pair_watch.wall * ALL_PAIRS / pairs
    pairs_label = "measured" if pairs == ALL_PAIRS else f"extrapolated from {pairs} pairs"
    watch, joint_result, reason = time_joint(tidy_study(study), joint_iterations)
    joint_line, joint_figure, joint_s = joint_row(watch, joint_result, reason, joint_iterations)
    lines = [
        f"## Scale: {MODELS} models x {DATASETS} data sets x {FOLDS} folds (target 8)",
        "",
        f"Simulated study (`benchmarks/scale.py`, `simulated_study`), rope {ROPE}, seed {SEED}; "
        f"measured {now()}.",
        "",
        "| what | size measured | wall (s) | CPU (s) | load start -> end | all 120 pairs / full "
        "joint fit (s) |",
        "|---|---|---:|---:|---|---|",
        f"| `compare()` pairwise hierarchical, jobs={jobs} | {pairs} pairs of the first {models} "
        f"models, 4 x 1000 after 1000 | {pair_watch.wall:.1f} | {pair_watch.cpu:.1f} | "
        f"{pair_watch.load_start:.1f} -> {pair_watch.load_end:.1f} | {all_pairs_s:.0f} "
        f"({pairs_label}) |",
        joint_line,
        "",
        f"* pairs: {pair_watch.wall / pairs:.1f} s wall and {pair_watch.cpu / pairs:.1f} s CPU "
        f"per pair with jobs={jobs}; divergences {int(table['divergences'].sum())}, max R-hat "
        f"{table['max_rhat'].max():.4f}, min ESS bulk {table['min_ess_bulk'].min():.0f} / tail "
        f"{table['min_ess_tail'].min():.0f}; {not_converged_text(pair_result, pairs)}.",
        "",
    ]
    figure = (
        f"120 pairs {all_pairs_s / 60:.1f} min ({pairs_label}; "
        f"{len(pair_result.not_converged)} of {pairs} not converged); {joint_figure}"
    )
    if joint_result is None:
        status = f"pairs: {met(all_pairs_s <= PAIRS_TARGET_S)}; joint: not possible"
    elif joint_s is None:
        status = f"pairs: {met(all_pairs_s <= PAIRS_TARGET_S)}; joint: not met (not converged)"
    else:
        status = met(all_pairs_s <= PAIRS_TARGET_S and joint_s <= JOINT_TARGET_S)
    if pairs != ALL_PAIRS or joint_iterations is not None:
        status += " (extrapolated)"
    return Measured(lines, [Row(8, figure, status)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("full", "subset"), default="subset")
    parser.add_argument("--models", type=int, default=6, help="subset: pairs of the first K")
    parser.add_argument("--joint-iterations", type=int, help="default: the model's settings")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    measured = scale_benchmark(args.size, args.models, args.joint_iterations, args.jobs)
    print("\n".join(measured.lines))
    print(measured.rows)


if __name__ == "__main__":
    main()
