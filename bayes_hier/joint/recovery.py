"""Recovery studies of the joint model: simulated comparisons with a known truth.

A study simulates k models' cross-validation scores on q data sets (``runs × folds`` results
each, realistic accuracy-like units) and fits them with ``compare(..., method="joint")``. The
truth, for data set i = 1..q and model a = 1..k:

    m_i ~ U(accuracy_range)                                  (the data set's difficulty)
    μ_ia = m_i + A·[a = better] + s z_ia,   z_ia ~ N(0, 1)   (true mean score)
    X_i = 1 μ_iᵀ + E_i,   Cov(vec E_i) = Λ ⊗ R,   Λ = σ²[(1 − r)I + r11ᵀ],  R = (1 − ρ)I + ρ11ᵀ

with ρ = 1/folds (:func:`~bayes_hier.examples.kronecker_normal`). The
scenario ``"one_better"`` has the advantage A (2 points by default): the better model beats
each other one by A on average, by A ± s√2 on a given data set; ``"all_equal"`` has A = 0, so
every pairwise difference is N(0, 2s²) across data sets, mostly inside a rope of 1 point.

:func:`recovery_study` runs both scenarios over a grid of q with a few repetitions and returns
one tidy frame; :func:`plot_p_best_recovery` and :func:`plot_rope_recovery` draw what the joint
model should show: P(best) of the better model concentrating on it as q grows, and the pairwise
P(rope) of equal models growing with q.

>>> from bayes_hier.joint.recovery import recovery_study, plot_p_best_recovery
>>> frame = recovery_study(qs=(8, 10, 20, 40), reps=2, seed=1)  # doctest: +SKIP
>>> plot_p_best_recovery(frame)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..examples import kronecker_normal
from ..seeding import SeedLike, derive_seed, resolve_seed
from .propriety import check_enough_datasets

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: The two scenarios: one model better by ``advantage`` on average, or all models equal.
SCENARIOS = ("one_better", "all_equal")
#: Quantities of the tidy frame: per model, and per pair (first, second) of models.
MODEL_QUANTITIES = ("p_best", "p_practically_best", "expected_rank")
PAIR_QUANTITIES = ("p_first_better", "p_rope", "p_second_better", "p_population_rope")


@dataclass(frozen=True)
class RecoveryDesign:
    """Sizes and true values of a simulated study (module docstring), in percent-like units.

    Attributes
    ----------
    k, runs, folds
        Models, cross-validation repetitions and folds per data set (n = runs · folds, ρ =
        1/folds).
    advantage
        A: the better model's mean advantage over every other model in ``"one_better"``.
    spread
        s: sd of each model's true effect on a data set around its mean.
    fold_sd, model_correlation
        σ and r: sd of one fold's score and correlation of two models' scores on the same fold.
    accuracy_range
        Range of the data sets' mean accuracy (difficulty).
    rope
        Half-width of the region of practical equivalence given to ``compare``.
    better
        Index of the better model in ``"one_better"``.
    """

    k: int = 4
    runs: int = 10
    folds: int = 10
    advantage: float = 2.0
    spread: float = 0.5
    fold_sd: float = 3.0
    model_correlation: float = 0.6
    accuracy_range: tuple[float, float] = (65.0, 90.0)
    rope: float = 1.0
    better: int = 0

    def __post_init__(self) -> None:
        if self.k < 2 or self.runs < 1 or self.folds < 2:
            raise ValueError(
                f"Need k >= 2 models, runs >= 1 and folds >= 2; got {self.k}, {self.runs}, "
                f"{self.folds}."
            )
        if not 0 <= self.better < self.k:
            raise ValueError(f"better must index one of the {self.k} models; got {self.better}.")
        if not -1 / (self.k - 1) < self.model_correlation < 1:
            raise ValueError(
                f"model_correlation must be in (-1/(k - 1), 1) for a valid covariance; got "
                f"{self.model_correlation}."
            )
        if self.fold_sd <= 0 or self.spread < 0 or self.rope < 0:
            raise ValueError("fold_sd must be positive, spread and rope non-negative.")

    @property
    def models(self) -> tuple[str, ...]:
        """Model names ``"A"``, ``"B"``, ...; the better one is ``models[better]``."""
        return tuple(chr(ord("A") + a) for a in range(self.k))

    @property
    def rho(self) -> float:
        """Fold correlation 1/folds (Nadeau & Bengio), as the package assumes."""
        return 1.0 / self.folds

    def model_cov(self) -> np.ndarray:
        """Λ = σ²[(1 − r)I + r11ᵀ], the covariance of one fold's k scores."""
        r = self.model_correlation
        return self.fold_sd**2 * ((1 - r) * np.eye(self.k) + r * np.ones((self.k, self.k)))

    def mean_effects(self, scenario: str) -> np.ndarray:
        """The population mean effect of every model (A for the better one, else 0)."""
        check_scenario(scenario)
        effects = np.zeros(self.k)
        if scenario == "one_better":
            effects[self.better] = self.advantage
        return effects


def check_scenario(scenario: str) -> None:
    """ValueError unless ``scenario`` is one of :data:`SCENARIOS`."""
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {SCENARIOS}; got {scenario!r}.")


@dataclass(frozen=True)
class SimulatedStudy:
    """One simulated study and its truth.

    Attributes
    ----------
    frame
        Tidy scores: columns ``dataset, model, run, fold, score`` (the input of ``compare``).
    means
        True mean score μ_ia of every data set and model, shape (q, k).
    population_effects
        Population mean effect of every model (:meth:`RecoveryDesign.mean_effects`).
    design
        The design it was simulated from.
    """

    frame: pd.DataFrame
    means: np.ndarray
    population_effects: np.ndarray
    design: RecoveryDesign


def simulate_study(
    scenario: str, q: int, design: RecoveryDesign = RecoveryDesign(), seed: SeedLike = None
) -> SimulatedStudy:
    """Simulate one study of ``design.k`` models on ``q`` data sets (module docstring).

    Parameters
    ----------
    scenario
        ``"one_better"`` or ``"all_equal"``.
    q
        Number of data sets.
    design
        Sizes and true values.
    seed
        Anything :func:`~bayes_hier.seeding.resolve_seed` accepts.

    Returns
    -------
    SimulatedStudy
    """
    check_scenario(scenario)
    if q < 2:
        raise ValueError(f"A study needs q >= 2 data sets; got {q}.")
    rng = np.random.default_rng(resolve_seed(seed))
    effects = design.mean_effects(scenario)
    difficulty = rng.uniform(*design.accuracy_range, q)
    means = difficulty[:, None] + effects + design.spread * rng.standard_normal((q, design.k))
    n, cov = design.runs * design.folds, design.model_cov()
    blocks = [kronecker_normal(mean, cov, design.rho, n, rng) for mean in means]
    run, fold = np.divmod(np.arange(n), design.folds)
    frames = [
        pd.DataFrame(
            {
                "dataset": f"d{i + 1:02d}",
                "model": np.repeat(design.models, n),
                "run": np.tile(run, design.k),
                "fold": np.tile(fold, design.k),
                "score": block.T.ravel(),
            }
        )
        for i, block in enumerate(blocks)
    ]
    return SimulatedStudy(
        frame=pd.concat(frames, ignore_index=True),
        means=means,
        population_effects=effects,
        design=design,
    )


def fit_study(study: SimulatedStudy, seed: SeedLike = None, **options: Any) -> Any:
    """``compare(study.frame, rope, method="joint", ...)``: the joint model's result.

    ``options`` go to :func:`~bayes_hier.joint.joint_test` (``chains``, ``draws``, ``warmup``,
    ``engine``, ...); sampling warnings are collected in the result, not raised.
    """
    from ..compare import compare

    return compare(
        study.frame,
        rope=study.design.rope,
        models=list(study.design.models),
        method="joint",
        seed=seed,
        warn=False,
        **options,
    )


def summarise_fit(result: Any, study: SimulatedStudy) -> pd.DataFrame:
    """The tidy rows of one fit: per model :data:`MODEL_QUANTITIES`, per pair
    :data:`PAIR_QUANTITIES`, each with its true population-mean effect or difference."""
    effects = dict(zip(study.design.models, study.population_effects))
    rows = []
    ranking = result.ranking
    for model in study.design.models:
        for quantity in MODEL_QUANTITIES:
            rows.append(("model", model, quantity, ranking.loc[model, quantity], effects[model]))
    for pair in result.pairs.itertuples():
        label, truth = f"{pair.second} - {pair.first}", effects[pair.second] - effects[pair.first]
        for quantity in PAIR_QUANTITIES:
            rows.append(("pair", label, quantity, getattr(pair, quantity), truth))
    frame = pd.DataFrame(rows, columns=["level", "label", "quantity", "value", "truth"])
    diagnostics = result.diagnostics
    return frame.assign(
        divergences=int(diagnostics["divergences"]), max_rhat=float(diagnostics["max_rhat"])
    )


def _repetition(
    scenario: str, q: int, rep: int, design: RecoveryDesign, root: int, options: dict
) -> pd.DataFrame:
    study = simulate_study(scenario, q, design, derive_seed(root, "study", scenario, q, rep))
    result = fit_study(study, derive_seed(root, "fit", scenario, q, rep), **options)
    rows = summarise_fit(result, study)
    rows.insert(0, "rep", rep)
    rows.insert(0, "q", q)
    rows.insert(0, "scenario", scenario)
    return rows


def recovery_study(
    qs: Sequence[int] = (8, 10, 20, 40),
    reps: int = 3,
    scenarios: Sequence[str] = SCENARIOS,
    design: RecoveryDesign = RecoveryDesign(),
    seed: SeedLike = None,
    *,
    chains: int = 2,
    warmup: int = 300,
    draws: int = 300,
    jobs: int = 1,
    progress: bool = False,
    **options: Any,
) -> pd.DataFrame:
    """Simulate and fit every (scenario, q, repetition); one tidy frame of the answers.

    Parameters
    ----------
    qs
        Numbers of data sets, each at least 2 (:mod:`bayes_hier.joint.propriety`).
    reps
        Repetitions per scenario and q (independent studies).
    scenarios
        Some of :data:`SCENARIOS`.
    design
        Sizes and true values (:class:`RecoveryDesign`).
    seed
        Root seed; repetition (scenario, q, rep) has its own derived streams, so any single one
        can be rerun alone.
    chains, warmup, draws
        Short chains by default (enough for probabilities to about ±0.02).
    jobs
        Worker processes (fits run in parallel); 1 runs them here, one by one.
    progress
        Show a progress bar over the fits.
    options
        Further arguments of :func:`~bayes_hier.joint.joint_test` (``engine``, ``nu_prior``...).

    Returns
    -------
    pandas.DataFrame
        One row per (scenario, q, rep, level, label, quantity): ``level`` is ``"model"``
        (``label`` a model; quantities :data:`MODEL_QUANTITIES`, on a new data set) or
        ``"pair"`` (``label`` "second - first"; quantities :data:`PAIR_QUANTITIES`: the
        next-data-set probabilities and the population-mean P(rope)); ``value``; ``truth``, the
        true population-mean effect of the model or difference of the pair; the fit's
        ``divergences`` and ``max_rhat``.
    """
    from ..parallel import make_executor, run_tasks

    for scenario in scenarios:
        check_scenario(scenario)
    if reps < 1:
        raise ValueError(f"reps must be >= 1; got {reps}.")
    for q in qs:
        check_enough_datasets(int(q))
    root = resolve_seed(seed)
    fit_options = {"chains": chains, "warmup": warmup, "draws": draws, **options}
    tasks = [
        (scenario, int(q), rep, design, root, fit_options)
        for rep in range(reps)
        for q in qs
        for scenario in scenarios
    ]
    with make_executor(jobs) as executor:
        frames = run_tasks(executor, _repetition, tasks, "recovery fits", progress)
    return pd.concat(frames, ignore_index=True)


def _axes(ax: Axes | None) -> tuple[Figure, Axes]:
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        return fig, ax
    return ax.figure, ax


def _q_axis(ax: Axes, qs: pd.Series) -> None:
    """Logarithmic q axis labelled with the q of the study only."""
    from matplotlib.ticker import NullLocator

    ticks = sorted(int(q) for q in qs.unique())
    ax.set_xscale("log")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(ticks, [str(q) for q in ticks])
    ax.set_xlabel("data sets q")


def _against_q(ax: Axes, rows: pd.DataFrame, label: str, color: str) -> None:
    """Each repetition as a point, the mean over repetitions per q as a line."""
    ax.scatter(rows["q"], rows["value"], s=12, alpha=0.45, color=color)
    means = rows.groupby("q")["value"].mean()
    ax.plot(means.index, means.to_numpy(), marker="o", color=color, label=label)


def plot_p_best_recovery(frame: pd.DataFrame, ax: Axes | None = None) -> Figure:
    """P(best on a new data set) against q in ``"one_better"``: the better model (truth > 0)
    and the others; points are repetitions, lines their means."""
    fig, ax = _axes(ax)
    rows = frame[
        (frame["scenario"] == "one_better")
        & (frame["level"] == "model")
        & (frame["quantity"] == "p_best")
    ]
    if rows.empty:
        raise ValueError("The frame has no 'one_better' P(best) rows (see recovery_study).")
    better = rows["truth"] > 0
    advantage = rows.loc[better, "truth"].iloc[0]
    _against_q(ax, rows[better], f"better model (+{advantage:g})", "C0")
    others = rows[~better].groupby(["q", "rep"], as_index=False)["value"].mean()
    _against_q(ax, others, "each other model (mean)", "C7")
    ax.axhline(1 / rows["label"].nunique(), color="0.6", lw=0.8, ls="--", label="1 / k")
    ax.set(ylabel="P(best on a new data set)", ylim=(0, 1))
    _q_axis(ax, rows["q"])
    ax.legend(fontsize=8)
    ax.set_title("One model better: P(best) against q", fontsize=10)
    fig.tight_layout()
    return fig


def plot_rope_recovery(
    frame: pd.DataFrame, scenario: str = "all_equal", ax: Axes | None = None
) -> Figure:
    """Pairwise P(rope) on a new data set against q (every pair; line: mean over pairs and
    repetitions), and the population-mean P(rope) (mean only)."""
    check_scenario(scenario)
    fig, ax = _axes(ax)
    pairs = frame[(frame["scenario"] == scenario) & (frame["level"] == "pair")]
    if pairs.empty:
        raise ValueError(f"The frame has no {scenario!r} pair rows (see recovery_study).")
    _against_q(ax, pairs[pairs["quantity"] == "p_rope"], "P(rope), next data set", "C2")
    population = pairs[pairs["quantity"] == "p_population_rope"].groupby("q")["value"].mean()
    ax.plot(
        population.index, population.to_numpy(), marker="s", ls="--", color="C4",
        label="P(rope), population mean",
    )  # fmt: skip
    ax.set(ylabel="P(rope)", ylim=(0, 1))
    _q_axis(ax, pairs["q"])
    ax.legend(fontsize=8)
    ax.set_title(f"{scenario}: pairwise P(rope) against q", fontsize=10)
    fig.tight_layout()
    return fig


__all__ = [
    "MODEL_QUANTITIES",
    "PAIR_QUANTITIES",
    "SCENARIOS",
    "RecoveryDesign",
    "SimulatedStudy",
    "check_scenario",
    "fit_study",
    "plot_p_best_recovery",
    "plot_rope_recovery",
    "recovery_study",
    "simulate_study",
    "summarise_fit",
]
