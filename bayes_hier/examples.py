"""Example data: the real UCI/WEKA cross-validation results and simulators of CV results.

The real data (5 classifiers × 54 data sets × 10 runs of 10-fold CV, accuracy in percent) ship
with the package, gzip-compressed, as ``bayes_hier/example_data/uci_weka_10x10cv.csv.gz`` (its
provenance and the citations are in ``bayes_hier/example_data/README.md``): Corani, Benavoli,
Demšar, Mangili & Zaffalon, *Machine Learning* 106, 2017, and Benavoli, Corani, Demšar &
Zaffalon, *JMLR* 18(77), 2017. :func:`load_uci_weka` reads that copy; give it a path to read
another copy of the file (plain or ``.gz``).
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

UCI_FILE = "uci_weka_10x10cv.csv"
#: The packaged copy, relative to the package folder.
PACKAGED_UCI_FILE = ("example_data", f"{UCI_FILE}.gz")


def packaged_uci_weka() -> Traversable:
    """The compressed copy of ``uci_weka_10x10cv.csv`` inside the installed package."""
    folder, name = PACKAGED_UCI_FILE
    return resources.files("bayes_hier") / folder / name


def find_uci_weka(path: str | os.PathLike[str] | None = None) -> Traversable | None:
    """The file :func:`load_uci_weka` reads.

    ``path`` may name the file (``.csv`` or ``.csv.gz``) or a folder holding it; ``None`` if
    nothing is there. Without ``path``, the copy shipped with the package.
    """
    if path is None:
        return packaged_uci_weka()
    given = Path(path)
    if given.is_dir():
        candidates = [given / UCI_FILE, given / f"{UCI_FILE}.gz"]
    else:
        candidates = [given]
    return next((c for c in candidates if c.is_file()), None)


def load_uci_weka(path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """The real data as a tidy frame with the package's column names.

    Columns: ``dataset, model, run, fold, score`` (accuracy in percent, so a rope of one
    accuracy point is ``rope=1``); 27 000 rows.

    Parameters
    ----------
    path
        ``None`` (default): the copy shipped with the package. Otherwise the file
        (``uci_weka_10x10cv.csv``, plain or gzip-compressed) or a folder holding it.

    Raises
    ------
    FileNotFoundError
        When ``path`` is given and the file is not there.

    Examples
    --------
    >>> from bayes_hier.examples import load_uci_weka
    >>> df = load_uci_weka()
    >>> df.shape, sorted(df["model"].unique())
    ((27000, 5), ['aode', 'hnb', 'j48', 'j48gr', 'nbc'])
    """
    found = find_uci_weka(path)
    if found is None:
        raise FileNotFoundError(
            f"{UCI_FILE} not found at {os.fspath(path)!r}: pass the file or its folder, or call "
            "load_uci_weka() without a path to read the copy shipped with the package."
        )
    compression = "gzip" if found.name.endswith(".gz") else None
    with found.open("rb") as handle:
        frame = pd.read_csv(handle, compression=compression)
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


def kronecker_normal(
    mean: np.ndarray, cov: np.ndarray, rho: float, n: int, rng: np.random.Generator
) -> np.ndarray:
    """n rows x_1..x_n (an n × k matrix X) with E[X] = 1 meanᵀ and Cov(vec X) = cov ⊗ R(ρ).

    vec stacks the columns, so column a (one model over the folds) has covariance cov_aa R and
    row j (one fold over the models) has covariance cov; R = (1 − ρ)I + ρ11ᵀ (the fold scores of k
    models on one data set, Nadeau & Bengio's ρ = 1/folds). Construction: E with independent
    equicorrelated columns (:func:`equicorrelated_normal`, Cov(vec E) = I ⊗ R), then
    X = 1 meanᵀ + E Lᵀ with L Lᵀ = cov, since vec(E Lᵀ) = (L ⊗ I) vec E.
    """
    mean = np.asarray(mean, float)
    root = np.linalg.cholesky(np.asarray(cov, float))
    noise = equicorrelated_normal(np.zeros(mean.size), 1.0, rho, n, rng).T
    return mean + noise @ root.T
