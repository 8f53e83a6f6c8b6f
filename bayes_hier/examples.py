"""Example data: the real UCI/WEKA cross-validation results and a simulator of CV results.

The real data (5 classifiers × 54 data sets × 10 runs of 10-fold CV, accuracy in percent) are not
shipped with the package: they are read from ``$BAYES_HIER_DATA`` or from ``../shared/data`` next to
the working directory or the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

UCI_FILE = "uci_weka_10x10cv.csv"
DATA_VARIABLE = "BAYES_HIER_DATA"


def find_uci_weka(path: str | os.PathLike[str] | None = None) -> Path | None:
    """Locate ``uci_weka_10x10cv.csv``.

    Looks at ``path``, ``$BAYES_HIER_DATA`` (a file or a folder), then ``../shared/data`` relative
    to the working directory and to the repository. ``None`` if absent.
    """
    candidates = []
    for given in (path, os.environ.get(DATA_VARIABLE)):
        if given:
            given = Path(given)
            candidates.append(given / UCI_FILE if given.is_dir() else given)
    repository = Path(__file__).resolve().parent.parent
    for base in (Path.cwd(), repository):
        candidates.append(base.parent / "shared" / "data" / UCI_FILE)
        candidates.append(base / "shared" / "data" / UCI_FILE)
    return next((c for c in candidates if c.is_file()), None)


def load_uci_weka(path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """The real data as a tidy frame with the package's column names.

    Columns: ``dataset, model, run, fold, score`` (accuracy in percent, so a rope of one
    accuracy point is ``rope=1``).

    Raises
    ------
    FileNotFoundError
        When the file is not found (see :func:`find_uci_weka`).
    """
    found = find_uci_weka(path)
    if found is None:
        raise FileNotFoundError(
            f"{UCI_FILE} not found: pass its path, set {DATA_VARIABLE}, or run from a checkout "
            "with ../shared/data beside it."
        )
    frame = pd.read_csv(found)
    return frame.rename(columns={"classifier": "model", "accuracy_percent": "score"})


def equicorrelated_normal(
    mean: np.ndarray, sigma: np.ndarray, rho: float, n: int, rng: np.random.Generator
) -> np.ndarray:
    """Draw, for each row i, ``n`` values from MVN(mean_i 1, sigma_i² [(1 − rho) I + rho 11ᵀ]).

    Uses the exact construction ``x_ij = mean_i + sigma_i (sqrt(1 − rho) e_ij + sqrt(rho) u_i)``
    with independent standard normal ``e_ij`` and ``u_i``: every value has variance sigma_i² and
    every pair in a row has correlation rho.
    """
    mean = np.atleast_1d(np.asarray(mean, float))
    sigma = np.broadcast_to(np.asarray(sigma, float), mean.shape)
    shared = rng.standard_normal((mean.size, 1))
    own = rng.standard_normal((mean.size, n))
    return mean[:, None] + sigma[:, None] * (np.sqrt(1 - rho) * own + np.sqrt(rho) * shared)


def simulate_cv(
    deltas: np.ndarray | list[float],
    *,
    runs: int = 10,
    folds: int = 10,
    sigma: float = 0.02,
    base_accuracy: float = 0.8,
    names: tuple[str, str] = ("A", "B"),
    seed: int = 0,
) -> pd.DataFrame:
    """Simulated tidy cross-validation results of two models on ``len(deltas)`` data sets.

    The differences of data set i follow the generative model of the hierarchical test: MVN with
    mean ``deltas[i]``, standard deviation ``sigma`` and correlation ``rho = 1 / folds``. Scores of
    the first model are ``base_accuracy`` plus N(0, sigma/2) noise; the second model's are the
    first's plus the difference.
    """
    rng = np.random.default_rng(seed)
    deltas = np.asarray(deltas, float)
    n = runs * folds
    differences = equicorrelated_normal(deltas, np.full(deltas.size, sigma), 1 / folds, n, rng)
    first = base_accuracy + rng.normal(0, sigma / 2, (deltas.size, n))
    rows = []
    for i in range(deltas.size):
        for j in range(n):
            key = {"dataset": f"sim{i:02d}", "run": j // folds, "fold": j % folds}
            rows.append({**key, "model": names[0], "score": first[i, j]})
            rows.append({**key, "model": names[1], "score": first[i, j] + differences[i, j]})
    return pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])
