"""Settings, per-repetition seeds and the helpers every experiment shares.

The repetitions run through :mod:`bayes_hier.parallel` (:func:`make_executor`, :func:`run_tasks`;
both re-exported here), which save each result as it finishes and resume an interrupted run.

Seeds: repetition ``rep`` of setting ``setting`` of experiment ``experiment`` uses
``SeedSequence([base_seed, experiment, setting, rep])`` (:func:`repetition_seeds`), so any single
repetition can be rerun alone and gives the same numbers, whatever ran before it.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..parallel import InlineExecutor, make_executor, run_tasks
from .checkpoints import Checkpoints, TaskTiming
from .generators import simulate_differences

BASE_SEED = 20170101


@dataclass(frozen=True)
class Settings:
    """Sizes of all experiments and the MCMC settings (one object, passed to every task).

    Use :meth:`full`, :meth:`quick` or :meth:`tiny`; override fields with
    :func:`dataclasses.replace`.
    """

    mode: str = "full"
    base_seed: int = BASE_SEED
    chains: int = 4
    draws: int = 1000
    warmup: int = 1000
    engine: str = "auto"
    rope: float = 0.01
    e1_q: tuple[int, ...] = (5, 10, 50)
    e1_reps: int = 500
    e23_q: tuple[int, ...] = (10, 20, 30, 40, 50)
    e23_reps: int = 500
    e4_q: int = 50
    e4_delta0: tuple[float, ...] = (0.015, 0.02, 0.025, 0.03)
    e4_scale: float = 0.01
    e4_reps: int = 500
    #: E5: settings (ids into :func:`~.generators.friedman_settings`), ground-truth repetitions,
    #: test-set size, analysis repetitions and the number of settings picked per function.
    e5_settings: tuple[int, ...] = tuple(range(54))
    e5_truth_reps: int = 500
    e5_test_size: int = 5000
    e5_reps: int = 200
    e5_pick: int = 12
    e5_runs: int = 10
    e5_folds: int = 10
    e6_pairs: tuple[tuple[str, str], ...] = (
        ("nbc", "hnb"),
        ("nbc", "j48"),
        ("nbc", "j48gr"),
        ("hnb", "j48"),
        ("hnb", "j48gr"),
        ("j48", "j48gr"),
    )
    e6_variants: tuple[str, ...] = ("hierarchical", "juarez-steel", "sigma100", "half_rope")
    experiments: tuple[str, ...] = ("e1", "e2", "e3", "e4", "e5", "e6")
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def full(cls, **changes: Any) -> Settings:
        """The paper's sizes: 500 repetitions, E5 500 ground-truth and 200 analysis repetitions."""
        return replace(cls(), **changes)

    @classmethod
    def quick(cls, **changes: Any) -> Settings:
        """Few repetitions and shorter chains (4 × 500 draws); minutes, for ``make paper-quick``."""
        quick = cls(
            mode="quick",
            draws=500,
            warmup=500,
            e1_q=(5, 10),
            e1_reps=5,
            e23_q=(10, 20),
            e23_reps=5,
            e4_delta0=(0.015, 0.03),
            e4_reps=2,
            # F1/F2/F3 at the lowest noise, n = 100 and 1000, no irrelevant features.
            e5_settings=(2, 4, 20, 22, 38, 40),
            e5_truth_reps=5,
            e5_test_size=2000,
            e5_reps=2,
            e5_pick=2,
            notes=("quick mode: few repetitions, 4 chains x 500 draws (500 warm-up)",),
        )
        return replace(quick, **changes)

    @classmethod
    def tiny(cls, **changes: Any) -> Settings:
        """A smoke-test slice (tests and the notebook): 2 chains × 300 draws, 2 repetitions."""
        tiny = cls.quick(
            mode="tiny",
            chains=2,
            draws=300,
            warmup=300,
            e1_q=(5,),
            e1_reps=2,
            e23_q=(10,),
            e23_reps=2,
            e4_q=10,
            e4_delta0=(0.03,),
            e4_reps=2,
            e5_settings=(0, 18, 36),
            e5_truth_reps=3,
            e5_test_size=500,
            e5_reps=1,
            e5_pick=1,
            e5_runs=2,
            e6_pairs=(("j48", "j48gr"),),
            e6_variants=("hierarchical", "juarez-steel"),
            notes=("tiny mode: a smoke test, 2 chains x 300 draws; numbers are not meaningful",),
        )
        return replace(tiny, **changes)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def repetition_seeds(
    base_seed: int, experiment: int, setting: int, rep: int
) -> tuple[np.random.Generator, int]:
    """(data RNG, Stan seed) of one repetition, from ``SeedSequence([base, exp, setting, rep])``."""
    data, stan = np.random.SeedSequence([base_seed, experiment, setting, rep]).spawn(2)
    return np.random.default_rng(data), int(stan.generate_state(1)[0] % 2**31)


def fit(differences: Any, settings: Settings, seed: int, **kwargs: Any) -> Any:
    """The hierarchical test on simulated differences (10 runs, rope 0.01 unless given)."""
    from ..data import CVData
    from ..hierarchical.fit import hierarchical_test

    runs = kwargs.pop("runs", 10)
    cv = differences if isinstance(differences, CVData) else CVData(differences, runs=runs)
    kwargs.setdefault("rope", settings.rope)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hierarchical_test(
            cv,
            chains=settings.chains,
            draws=settings.draws,
            warmup=settings.warmup,
            seed=seed,
            engine=settings.engine,
            warn=False,
            **kwargs,
        )


def fit_simulated(
    deltas: np.ndarray, rng: np.random.Generator, settings: Settings, seed: int
) -> Any:
    """:func:`fit` on 10x10 cross-validation differences simulated around the true ``deltas``
    (:func:`~.generators.simulate_differences`, drawn from ``rng``)."""
    return fit(simulate_differences(deltas, rng), settings, seed)


def fit_diagnostics(result: Any) -> dict[str, float]:
    """The per-repetition diagnostics every experiment records: divergences and max R-hat."""
    return {
        "divergences": int(result.diagnostics["divergences"]),
        "max_rhat": float(result.diagnostics["max_rhat"]),
    }


def diagnostics_sentence(frame: Any) -> str:
    """``Total divergences: N; max R-hat R`` over the repetitions of an experiment."""
    return (
        f"Total divergences: {int(frame['divergences'].sum())}; max R-hat "
        f"{frame['max_rhat'].max():.3f}"
    )


def save_figure(fig: Any, path: Any) -> None:
    """Lay out, write (PNG, 110 dpi) and close a figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def signed_rank_p(means: np.ndarray) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test on per-data-set mean differences."""
    from ..frequentist import wilcoxon_signed_rank

    means = np.asarray(means, float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(wilcoxon_signed_rank(np.zeros_like(means), means).p_value)


def compile_model(engine: str = "auto") -> str:
    """Compile (or find in the cache) the hierarchical program; returns the engine's name."""
    from ..engines import get_engine
    from ..stan_programs import load_program

    resolved = get_engine(engine)
    resolved.compile(load_program("hierarchical"))
    return resolved.name


def add_table(tables: dict[str, Any], out: Any, name: str, frame: Any) -> None:
    """Write ``frame`` to ``out/name`` and add it to an experiment's ``tables``, if it has rows
    (a table next to the paper's is empty when a run shares no setting with it)."""

    if len(frame):
        frame.to_csv(Path(out) / name, index=False)
        tables[name] = frame


#: The folder under the output folder that holds the finished repetitions of every experiment.
CHECKPOINTS = "checkpoints"


def checkpoints(out: Any, key: str, settings: Settings, salt: str = "") -> Checkpoints:
    """Where experiment ``key`` saves its finished repetitions: ``out/checkpoints/key``.

    Every task's file name is salted with the digest of the hierarchical Stan program and, for
    an engine other than pystan, the engine's name (``settings.engine`` resolved): results of
    another version of the program or of another engine (other draws for the same seed) are not
    reused; they stay in the folder, unread. ``salt`` names anything else the experiment's
    results depend on (E5: its classifiers); it is added to the file names' salt when given.
    """

    from ..engines import get_engine
    from ..stan_programs import load_program

    digest = load_program("hierarchical").digest
    engine = get_engine(settings.engine).name
    parts = [digest] + ([engine] if engine != "pystan" else []) + ([salt] if salt else [])
    return Checkpoints(Path(out) / CHECKPOINTS / key, salt="|".join(parts))


def run_repetitions(
    executor: Any,
    function: Any,
    tasks: list[tuple[Any, ...]],
    description: str,
    progress: bool,
    saved: Checkpoints,
    out: Any,
    key: str,
) -> pd.DataFrame:
    """The repetitions of experiment ``key``, one row each (``function(*task)`` returns the
    row's dict), run by :func:`~bayes_hier.parallel.run_tasks` (reusing those ``saved`` by an
    earlier run) and written to ``out/<key>_repetitions.csv``."""
    reps = pd.DataFrame(
        run_tasks(executor, function, tasks, description, progress, checkpoints=saved)
    )
    reps.to_csv(Path(out) / f"{key}_repetitions.csv", index=False)
    return reps


def setting_means(reps: pd.DataFrame, by: str, means: dict[str, str]) -> pd.DataFrame:
    """One row per value of ``by``: the number of repetitions (``reps``) and, for every
    ``{output: column}`` of ``means``, the mean of ``column`` over them (a share, for a column
    of booleans)."""
    return (
        reps.groupby(by)
        .agg(reps=("rep", "size"), **{name: (column, "mean") for name, column in means.items()})
        .reset_index()
    )


@dataclass
class ExperimentOutput:
    """What a driver hands to the report: tables (CSV names → frames), figures (PNG names →
    captions), a description of the settings, the run time of this call in ``seconds`` and, in
    ``timing``, the run times of all its repetitions, including those computed by earlier,
    interrupted runs and reused from the checkpoints."""

    key: str
    title: str
    description: str
    tables: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    timing: TaskTiming = field(default_factory=TaskTiming)


__all__ = [
    "BASE_SEED",
    "CHECKPOINTS",
    "ExperimentOutput",
    "InlineExecutor",
    "Settings",
    "add_table",
    "checkpoints",
    "compile_model",
    "diagnostics_sentence",
    "fit",
    "fit_diagnostics",
    "make_executor",
    "repetition_seeds",
    "run_repetitions",
    "run_tasks",
    "save_figure",
    "setting_means",
    "signed_rank_p",
]
