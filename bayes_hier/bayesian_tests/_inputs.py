"""Input handling shared by the sample-based tests: per-data-set differences and seeds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data import CVData, as_cvdata
from ..rope import Rope, RopeLike


@dataclass(frozen=True)
class PerDataset:
    """One difference per data set (``z = y - x``, negated when lower is better)."""

    differences: np.ndarray
    datasets: tuple[str, ...]
    names: tuple[str, str]
    scores: np.ndarray | None
    higher_is_better: bool = True


def _is_flat(values: Any) -> bool:
    """True for a 1-D array or a flat list of numbers (one score per data set)."""
    if isinstance(values, (pd.DataFrame, CVData)):
        return False
    if isinstance(values, pd.Series):
        return True
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return False  # ragged: a list of 1-D arrays
    return array.ndim == 1


def per_dataset_differences(
    x: Any,
    y: Any = None,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    datasets: Sequence[str] | None = None,
    higher_is_better: bool = True,
) -> PerDataset:
    """The per-data-set differences for the sign and signed-rank tests.

    * 1-D ``x`` and ``y``: one (already averaged) score per data set;
    * 2-D arrays (data sets x folds), lists of 1-D arrays, a tidy data frame or a
      :class:`~bayes_hier.data.CVData`: the fold differences are averaged per data set.
    """
    if y is not None and _is_flat(x) and _is_flat(y):
        xs = np.asarray(x, dtype=float)
        ys = np.asarray(y, dtype=float)
        if xs.shape != ys.shape:
            raise ValueError(
                f"x and y have different lengths ({xs.size} vs {ys.size}): give one score per "
                "data set for each model, in the same order."
            )
        if xs.size == 0:
            raise ValueError("No data sets given: x and y are empty.")
        bad = ~(np.isfinite(xs) & np.isfinite(ys))
        if bad.any():
            raise ValueError(
                f"{int(bad.sum())} data set(s) have a NaN or infinite score (positions "
                f"{np.flatnonzero(bad)[:5].tolist()}); remove them before the analysis."
            )
        names = tuple(names) if names is not None else ("first", "second")
        if len(names) != 2 or names[0] == names[1]:
            raise ValueError(f"names must be two different model names; got {names!r}.")
        if datasets is None:
            datasets = (
                [str(i) for i in x.index]
                if isinstance(x, pd.Series)
                else [f"dataset {i}" for i in range(xs.size)]
            )
        if len(datasets) != xs.size:
            raise ValueError(f"Got {len(datasets)} data-set names for {xs.size} data sets.")
        sign = 1.0 if higher_is_better else -1.0
        return PerDataset(
            sign * (ys - xs),
            tuple(str(d) for d in datasets),
            (str(names[0]), str(names[1])),
            np.concatenate([xs, ys]),
            higher_is_better,
        )
    if y is not None and not isinstance(x, (pd.DataFrame, CVData)):
        # 2-D arrays or ragged lists of fold scores: one run of k folds per data set (the run
        # structure does not matter for a mean).
        cv = CVData.from_arrays(
            x,
            y,
            runs=1,
            datasets=datasets,
            names=tuple(names) if names is not None else ("first", "second"),
            higher_is_better=higher_is_better,
        )
    else:
        cv = as_cvdata(
            x,
            y,
            None,
            names=names,
            models=models,
            columns=columns,
            higher_is_better=higher_is_better,
        )
    return PerDataset(cv.means, cv.datasets, cv.names, cv.scores, cv.higher_is_better)


def parse_rope(rope: RopeLike, scores: np.ndarray | None) -> Rope:
    """Parse the rope and warn if it looks like it is in other units than the scores."""
    parsed = Rope.parse(rope)
    parsed.check_scale(scores)
    return parsed


def resolve_seed(seed: int | np.random.Generator | np.random.RandomState | None) -> int:
    """An integer seed to record: ``None`` draws one from fresh entropy; a generator gives one
    draw from it (so the same generator state gives the same result)."""
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1)[0] % 2**31)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**31))
    if isinstance(seed, np.random.RandomState):
        return int(seed.randint(0, 2**31))
    if isinstance(seed, (bool, np.bool_)) or int(seed) != seed or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, a Generator or None; got {seed!r}.")
    return int(seed)


def check_nsamples(nsamples: Any) -> int:
    if isinstance(nsamples, (bool, np.bool_)) or not float(nsamples).is_integer() or nsamples < 1:
        raise ValueError(f"nsamples must be a positive integer; got {nsamples!r}.")
    return int(nsamples)


def check_prior(prior: float) -> float:
    prior = float(prior)
    if not np.isfinite(prior) or prior < 0:
        raise ValueError(f"The prior strength must be a finite number >= 0; got {prior}.")
    return prior
