"""Settings, per-repetition seeds and the executor that runs the repetitions.

Every repetition is an independent, picklable task ``function(*args)``: the drivers submit them to
a ``concurrent.futures``-style executor and collect the results in submission order, so the
numbers do not depend on the executor or on the number of workers.

* ``jobs == 1``: the tasks run in this process, one after the other (:class:`InlineExecutor`).
* ``jobs > 1``: a :class:`~concurrent.futures.ProcessPoolExecutor` with the ``spawn`` start method
  (pystan forks its own chain processes; a spawned worker is a clean interpreter). Each worker
  loads the compiled Stan model from the on-disk cache: nothing is recompiled per repetition.
* ``scheduler``: a Dask distributed cluster — an address (``tcp://host:8786``), a
  :class:`distributed.Client` or a :class:`distributed.LocalCluster`; the tasks go through the
  client's ``concurrent.futures`` executor (``Client.get_executor()``). pystan forks chain
  processes, which a *daemonic* process may not do: start the Dask workers with
  ``DASK_DISTRIBUTED__WORKER__DAEMON=False`` (or ``dask.config.set({"distributed.worker.daemon":
  False})`` for a ``LocalCluster(processes=True)``), or use ``processes=False``. A worker plugin
  shuts httpstan's chain pool down when a worker process closes.

Seeds: repetition ``rep`` of setting ``setting`` of experiment ``experiment`` uses
``SeedSequence([base_seed, experiment, setting, rep])`` (:func:`repetition_seeds`), so any single
repetition can be rerun alone and gives the same numbers.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from tqdm.auto import tqdm

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


# ------------------------------------------------------------------------------ executors
class InlineExecutor(concurrent.futures.Executor):
    """Runs each task at submission, in this process (``jobs == 1``)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:
            future.set_exception(error)
        return future


def _stop_stan_pool() -> None:
    """Shut down httpstan's chain process pool of this (worker) process, if it was started."""
    import sys

    stub = sys.modules.get("httpstan.services_stub")
    pool = getattr(stub, "executor", None)
    if pool is not None:
        with contextlib.suppress(Exception):
            pool.shutdown(wait=True, cancel_futures=True)
    with contextlib.suppress(Exception):
        from ..engines.pystan_engine import stop_chain_processes

        stop_chain_processes()


def _init_worker() -> None:
    """Initialiser of the local worker processes.

    httpstan keeps a (non-daemonic) process pool for the chains; a worker process that exits
    joins its children *before* the ``atexit`` hooks that would stop that pool run, and would hang.
    A multiprocessing finalizer (run before that join) shuts the pool down first.
    """
    from multiprocessing import util

    os.environ.setdefault("MPLBACKEND", "Agg")
    util.Finalize(None, _stop_stan_pool, exitpriority=100)


def _teardown_worker(worker: Any = None) -> None:
    """Stop httpstan's chain pool when a Dask worker *process* closes (not an in-process one)."""
    if multiprocessing.current_process().name != "MainProcess":
        _stop_stan_pool()


def _register_cleanup(client: Any) -> None:
    """Make Dask worker processes shut httpstan's chain pool down when they close."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class StanPoolCleanup(WorkerPlugin):
        name = "bayes-hier-stan-pool"

        def teardown(self, worker: Any) -> None:
            _teardown_worker(worker)

    with contextlib.suppress(Exception):
        client.register_plugin(StanPoolCleanup())


@contextlib.contextmanager
def make_executor(jobs: int = 1, scheduler: Any = None) -> Iterator[concurrent.futures.Executor]:
    """The executor for ``jobs`` local processes or a Dask cluster (see module doc)."""
    if scheduler is not None:
        from distributed import Client, LocalCluster

        if isinstance(scheduler, Client):
            _register_cleanup(scheduler)
            yield scheduler.get_executor()
            return
        client = Client(scheduler) if isinstance(scheduler, str | LocalCluster) else None
        if client is None:
            raise TypeError(f"scheduler must be an address, Client or LocalCluster: {scheduler!r}")
        try:
            _register_cleanup(client)
            yield client.get_executor()
        finally:
            client.close()
        return
    if jobs <= 1:
        yield InlineExecutor()
        return
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_init_worker
    ) as pool:
        yield pool


def run_tasks(
    executor: concurrent.futures.Executor,
    function: Callable[..., Any],
    tasks: Sequence[tuple[Any, ...]],
    description: str,
    progress: bool = True,
) -> list[Any]:
    """Submit ``function(*task)`` for every task; results in task order, with a tqdm bar."""
    if isinstance(executor, InlineExecutor):  # run here, one by one, so the bar moves
        with tqdm(tasks, desc=description, disable=not progress, leave=True) as bar:
            return [function(*task) for task in bar]
    futures = [executor.submit(function, *task) for task in tasks]
    index = {future: i for i, future in enumerate(futures)}
    results: list[Any] = [None] * len(futures)
    with tqdm(total=len(futures), desc=description, disable=not progress, leave=True) as bar:
        for future in concurrent.futures.as_completed(futures):
            results[index[future]] = future.result()
            bar.update()
    return results


def compile_model(engine: str = "auto") -> str:
    """Compile (or find in the cache) the hierarchical program; returns the engine's name."""
    from ..engines import get_engine
    from ..stan_programs import load_program

    resolved = get_engine(engine)
    resolved.compile(load_program("hierarchical"))
    return resolved.name


@dataclass
class ExperimentOutput:
    """What a driver hands to the report: tables (CSV names → frames), figures (PNG names →
    captions), a description of the settings and the run time in seconds."""

    key: str
    title: str
    description: str
    tables: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
