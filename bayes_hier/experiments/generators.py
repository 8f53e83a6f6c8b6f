"""Data generators of the paper's experiments, vectorised with numpy.

* :func:`mixture_deltas` — E1's true differences, 0.5·N(0.005, 0.001²) + 0.5·N(0.02, 0.001²).
* :func:`cauchy_deltas` — E2/E3/E4's true differences, Cauchy(location, scale), clipped to
  [−1, 1] (a difference of accuracies cannot leave that interval; with the scales used the clip
  touches about one draw in a thousand or fewer).
* :func:`simulate_differences` — cross-validation differences of q data sets from the generative
  model of the hierarchical test: for data set i, ``runs × folds`` values from
  MVN(δ_i 1, σ²[(1 − ρ)I + ρ11ᵀ]) with σ = 0.057 and ρ = 1/folds = 0.1 by default. The MLE x̄_i
  then has error variance σ²(1 + (n − 1)ρ)/n = 3.5e−4 at n = 100 (the paper's Table 2: 3.6e−4).
* :func:`friedman_sample` / :func:`friedman_median` / :func:`friedman_threshold` /
  :func:`friedman_classification` — Friedman's (1991) three regression functions turned into
  binary classification by a median split, with optional irrelevant N(0, 1) features (E5).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from ..examples import equicorrelated_normal

#: Per-fold standard deviation of the simulated differences (E1-E4).
FOLD_SD = 0.057
RUNS = 10
FOLDS = 10
RHO = 1 / FOLDS
ROPE = 0.01

MIXTURE_MEANS = (0.005, 0.02)
MIXTURE_SD = 0.001


def mixture_deltas(q: int, rng: np.random.Generator) -> np.ndarray:
    """q draws from 0.5·N(0.005, 0.001²) + 0.5·N(0.02, 0.001²) (E1)."""
    component = rng.integers(0, 2, q)
    return np.asarray(MIXTURE_MEANS)[component] + MIXTURE_SD * rng.standard_normal(q)


def mixture_moments() -> tuple[float, float]:
    """Exact mean and variance of the E1 mixture."""
    mean = float(np.mean(MIXTURE_MEANS))
    variance = MIXTURE_SD**2 + float(np.mean((np.asarray(MIXTURE_MEANS) - mean) ** 2))
    return mean, variance


def cauchy_deltas(
    q: int, location: float, scale: float, rng: np.random.Generator, clip: float = 1.0
) -> np.ndarray:
    """q draws from Cauchy(location, scale), clipped to [−clip, clip]."""
    return np.clip(location + scale * rng.standard_cauchy(q), -clip, clip)


def simulate_differences(
    deltas: np.ndarray,
    rng: np.random.Generator,
    *,
    sd: float = FOLD_SD,
    runs: int = RUNS,
    folds: int = FOLDS,
) -> np.ndarray:
    """(q, runs·folds) cross-validation differences with true means ``deltas`` (see module doc)."""
    deltas = np.asarray(deltas, float)
    return equicorrelated_normal(deltas, np.full(deltas.size, sd), 1 / folds, runs * folds, rng)


# ---------------------------------------------------------------------------------------- E5
FRIEDMAN_NOISE = {1: (0.5, 1.0, 2.0), 2: (62.5, 125.0, 250.0), 3: (0.05, 0.1, 0.2)}
FRIEDMAN_SIZES = (30, 100, 1000)
FRIEDMAN_IRRELEVANT = (0, 20)
MEDIAN_DRAWS = 10_000


@dataclass(frozen=True)
class FriedmanSetting:
    """One of the 54 E5 settings: function, noise sd, training-set size, irrelevant features."""

    setting_id: int
    function: int
    noise: float
    n: int
    irrelevant: int

    @property
    def label(self) -> str:
        return f"F{self.function} sd={self.noise:g} n={self.n} +{self.irrelevant}"


def friedman_settings() -> list[FriedmanSetting]:
    """The 54 settings (18 per function), ids 0..53 in the order function, noise, n, irrelevant."""
    rows = []
    for function in (1, 2, 3):
        for noise, n, irrelevant in product(
            FRIEDMAN_NOISE[function], FRIEDMAN_SIZES, FRIEDMAN_IRRELEVANT
        ):
            rows.append(FriedmanSetting(len(rows), function, noise, n, irrelevant))
    return rows


def friedman_sample(
    function: int, n: int, noise: float, rng: np.random.Generator, irrelevant: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` draws of (X, y) from Friedman's function 1, 2 or 3 with N(0, noise²) error.

    F1 has 10 U[0, 1] features (5 used); F2 and F3 have 4 features x1 ∈ [0, 100],
    x2 ∈ [40π, 560π], x3 ∈ [0, 1], x4 ∈ [1, 11]. ``irrelevant`` N(0, 1) columns are appended.
    """
    if function == 1:
        x = rng.uniform(0, 1, (n, 10))
        y = (
            10 * np.sin(np.pi * x[:, 0] * x[:, 1])
            + 20 * (x[:, 2] - 0.5) ** 2
            + 10 * x[:, 3]
            + 5 * x[:, 4]
        )
    elif function in (2, 3):
        x = np.column_stack(
            [
                rng.uniform(0, 100, n),
                rng.uniform(40 * np.pi, 560 * np.pi, n),
                rng.uniform(0, 1, n),
                rng.uniform(1, 11, n),
            ]
        )
        inner = x[:, 1] * x[:, 2] - 1 / (x[:, 1] * x[:, 3])
        y = np.sqrt(x[:, 0] ** 2 + inner**2) if function == 2 else np.arctan(inner / x[:, 0])
    else:
        raise ValueError(f"Friedman function must be 1, 2 or 3; got {function}.")
    y = y + noise * rng.standard_normal(n)
    if irrelevant:
        x = np.hstack([x, rng.standard_normal((n, irrelevant))])
    return x, y


def friedman_median(function: int, noise: float, seed: int = 0) -> float:
    """Median of y (noise included) estimated on 10 000 draws; deterministic for a seed."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, function, int(noise * 1000)]))
    return float(np.median(friedman_sample(function, MEDIAN_DRAWS, noise, rng)[1]))


def friedman_threshold(function: int, seed: int = 0) -> float:
    """The class threshold of every setting of Friedman function ``function``: the median of y
    at the function's lowest noise level (:data:`FRIEDMAN_NOISE`), on 10 000 draws.

    One threshold per function, whatever a setting's noise, as in the paper's own code (its
    settings generator draws 10 000 cases at the first, lowest-noise setting of a function and
    uses their median for all its settings). With more noise the classes stay balanced for F1
    but not for the skewed y of F2 and F3, whose median moves with the noise: at the highest
    noise about 53 % (F2, sd 250) and 43 % (F3, sd 0.2) of the cases lie above the threshold.
    """
    return friedman_median(function, FRIEDMAN_NOISE[function][0], seed)


def friedman_classification(
    setting: FriedmanSetting, n: int, rng: np.random.Generator, median: float
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` labelled draws of a setting: class 1 when y is above the median."""
    x, y = friedman_sample(setting.function, n, setting.noise, rng, setting.irrelevant)
    return x, (y > median).astype(int)
