"""Shared fixtures: the real data, a compiled engine, small simulated designs."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from bayes_hier.engines import get_engine
from bayes_hier.examples import load_uci_weka
from bayes_hier.parallel import run_process_cleanups, terminate_tree
from bayes_hier.stan_programs import load_program

#: Markers whose tests are slow by nature: ``-m "not slow"`` (``make check``) leaves them out too.
SLOW_BY_NATURE = ("stan", "notebook", "wheel")


#: The Stan programs a parallel run compiles at its start, in two lanes of similar length (about
#: 8 and 7 minutes on a cold cache), each lane in the order the tests first need them.
PRECOMPILE_LANES = (
    (
        "hierarchical",
        "hierarchical_two_chart",
        "hierarchical_quadrature",
        "hierarchical_matrix",
        "bradley_terry",
        "plackett_luce",
        "joint_fold",
    ),
    ("joint",),
)


def pytest_collection_modifyitems(config, items):
    """Every Stan, notebook and wheel test is also ``slow``; files with slow tests run first.

    In a parallel run (``pytest -n``, distributed by file in collection order) the long files
    then start at once and the short ones fill the gaps at the end, and the first worker starts
    compiling the Stan programs in the background.
    """
    for item in items:
        if any(item.get_closest_marker(name) for name in SLOW_BY_NATURE):
            item.add_marker(pytest.mark.slow)
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    first_seen = {path: index for index, path in reversed(list(enumerate(i.path for i in items)))}
    items.sort(key=lambda item: (item.path not in slow_files, first_seen[item.path]))
    if _is_first_worker(config) and any(item.get_closest_marker("stan") for item in items):
        config.stash[_PRECOMPILING] = _start_precompiling()


_PRECOMPILING = pytest.StashKey[list[subprocess.Popen]]()


def _is_first_worker(config) -> bool:
    """Whether this process is the first worker of a ``pytest -n`` run."""
    return getattr(config, "workerinput", {}).get("workerid") == "gw0"


def _start_precompiling() -> list[subprocess.Popen]:
    script = Path(__file__).with_name("precompile.py")
    return [
        subprocess.Popen(
            [sys.executable, str(script), *lane],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for lane in PRECOMPILE_LANES
    ]


def pytest_sessionfinish(session):
    """A run that ends before the background compilations do (interrupted) stops them."""
    for process in session.config.stash.get(_PRECOMPILING, []):
        if process.poll() is None:
            process.terminate()
        process.wait()


@pytest.fixture(scope="session", autouse=True)
def no_process_left_behind():
    """After the last test, stop what the tests' libraries left running (Stan's chain processes,
    pools' workers), through their own process objects, so that the interpreter exits at once."""
    yield
    run_process_cleanups()
    terminate_tree(multiprocessing.active_children())


@pytest.fixture(scope="session")
def uci() -> pd.DataFrame:
    """The real 5 classifiers x 54 data sets x 10x10 CV accuracies (percent), packaged copy."""
    return load_uci_weka()


@pytest.fixture(scope="session")
def engine():
    """The engine the suite exercises (BAYES_HIER_ENGINE or auto), programs compiled once."""
    resolved = get_engine(os.environ.get("BAYES_HIER_ENGINE", "auto"))
    resolved.compile(load_program("hierarchical"))
    return resolved


@pytest.fixture(scope="session")
def matrix_engine(engine):
    """The same engine with the matrix reference program compiled as well."""
    engine.compile(load_program("hierarchical_matrix"))
    return engine


def simulated_scores(
    q: int, deltas, sigma: float = 0.02, runs: int = 10, folds: int = 10, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) score matrices (q x runs*folds) whose differences follow the model."""
    from bayes_hier.examples import equicorrelated_normal

    rng = np.random.default_rng(seed)
    deltas = np.broadcast_to(np.asarray(deltas, float), (q,))
    x = 0.8 + rng.normal(0, 0.01, (q, runs * folds))
    d = equicorrelated_normal(deltas, np.full(q, sigma), 1 / folds, runs * folds, rng)
    return x, x + d
