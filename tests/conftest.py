"""Shared fixtures: the real data, a compiled engine, small simulated designs."""

from __future__ import annotations

import os

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from bayes_hier.engines import get_engine
from bayes_hier.examples import load_uci_weka
from bayes_hier.stan_programs import load_program


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
