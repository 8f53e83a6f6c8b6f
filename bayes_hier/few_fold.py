"""Simulated few-fold benchmark studies: many models, many data sets, 4 folds each.

Large public benchmark studies (e.g. many classifiers on the PMLB data sets, one run of 4-fold
cross-validation) look unlike the paper's 10 x 10-fold designs, and their pairs stress the
hierarchical model differently. :func:`few_fold_study` simulates such a study with their
characteristics, as a tidy frame (``dataset, model, run, fold, score``) that ``compare()`` and
``hierarchical_test`` accept:

* accuracies between 0.5 and 1.0;
* per data set, a standard deviation ``s_i`` of the fold differences of two models that is
  log-uniform from ``2e-4`` to ``0.2`` (three orders of magnitude: large and small data sets);
* mean differences mostly small (a data-set x model effect of sd ``s_i / 2`` each, plus a model
  effect of sd 0.005), with a few large ones: with probability ``failure_rate`` a model fails on
  a data set and scores about chance (0.5), so its difference to the others is up to about 0.5;
* ``ties`` data sets on which every model scores the same on every fold (a difference of exactly
  0 on every fold for every pair, as when all classifiers reach the same accuracy on an easy
  data set); no model fails there.

The construction (:class:`FewFoldDesign` holds the drawn parameters): data set i has a level
``u_i ~ U(0.55 + c_i, 0.95 - c_i)``, ``c_i = min(1.5 s_i, 0.2)`` and a fold term
``f_ik ~ N(0, s_i²)`` shared by all models (it cancels in the differences); model j's score on
fold k is ``u_i + f_ik + m_j + e_ij + ε_ijk`` with ``ε_ijk ~ N(0, s_i² / 2)`` independent, so
the difference of two models on one fold has sd ``s_i``; on a tied data set every model scores
``u_i + f_ik``; a failing model scores ``0.5 + |N(0, s_i²/2)|`` per fold. Scores are clipped to
[0.5, 1].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Range of the per-data-set sd of the fold differences (log-uniform between the two).
SPREAD_RANGE = (2e-4, 0.2)
#: Chance accuracy and the best possible accuracy: every score lies between them.
SCORE_RANGE = (0.5, 1.0)


@dataclass(frozen=True)
class FewFoldDesign:
    """The parameters of one simulated few-fold study (see the module docstring).

    Attributes
    ----------
    spreads
        ``s_i``: sd of the fold differences of two models on data set i, shape (q,).
    levels
        ``u_i``: the data set's accuracy level, shape (q,).
    effects
        ``m_j + e_ij``: model j's effect on data set i, shape (q, k); 0 on tied data sets.
    failures
        Whether model j fails (scores about chance) on data set i, shape (q, k).
    tied
        Whether every model scores the same on every fold of data set i, shape (q,).
    """

    spreads: np.ndarray
    levels: np.ndarray
    effects: np.ndarray
    failures: np.ndarray
    tied: np.ndarray


def few_fold_design(
    models: int, datasets: int, ties: int, failure_rate: float, rng: np.random.Generator
) -> FewFoldDesign:
    """Draw the parameters of a study of ``models`` models on ``datasets`` data sets."""
    low, high = np.log(SPREAD_RANGE)
    spreads = np.exp(rng.uniform(low, high, datasets))
    margin = np.minimum(1.5 * spreads, 0.2)
    levels = rng.uniform(0.55 + margin, 0.95 - margin)
    effects = rng.normal(0.0, 0.005, models)[None, :] + rng.normal(
        0.0, 0.5 * spreads[:, None], (datasets, models)
    )
    tied = np.zeros(datasets, bool)
    tied[rng.choice(datasets, size=ties, replace=False)] = True
    failures = (rng.uniform(size=(datasets, models)) < failure_rate) & ~tied[:, None]
    effects[tied] = 0.0
    return FewFoldDesign(spreads, levels, effects, failures, tied)


def few_fold_study(
    models: int = 5,
    datasets: int = 20,
    folds: int = 4,
    *,
    ties: int | None = None,
    failure_rate: float = 0.02,
    seed: int = 0,
) -> pd.DataFrame:
    """A simulated study of ``models`` models x ``datasets`` data sets x ``folds`` folds.

    Parameters
    ----------
    models, datasets, folds
        Its size: 5 x 20 x 4 is the small base case, 16 x 132 x 4 the size of a large public
        study (120 pairs).
    ties
        How many data sets have every model score the same on every fold (the difference of
        every pair is exactly 0 there); default ``max(2, round(0.08 * datasets))``.
    failure_rate
        Probability that a model fails on a data set (scores about 0.5): the few large
        differences, up to about 0.45.
    seed
        Seed of :func:`numpy.random.default_rng`: the same seed gives the same frame.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset`` (``"d000"``, ...), ``model`` (``"m00"``, ...; zero-padded so that
        they sort in order), ``run`` (always 1),
        ``fold`` (1..folds) and ``score`` (accuracy in [0.5, 1]), one row per score.
    """
    for name, value, least in (
        ("models", models, 2),
        ("datasets", datasets, 1),
        ("folds", folds, 2),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}; got {value!r}.")
    ties = max(2, round(0.08 * datasets)) if ties is None else ties
    if not 0 <= ties <= datasets:
        raise ValueError(f"ties must be between 0 and datasets={datasets}; got {ties!r}.")
    if not 0 <= failure_rate <= 1:
        raise ValueError(f"failure_rate must be a probability in [0, 1]; got {failure_rate!r}.")
    rng = np.random.default_rng(seed)
    design = few_fold_design(models, datasets, ties, failure_rate, rng)
    spread = design.spreads[:, None, None]
    shared = design.levels[:, None, None] + rng.normal(0.0, spread, (datasets, 1, folds))
    own = rng.normal(0.0, spread / np.sqrt(2), (datasets, models, folds))
    scores = shared + design.effects[:, :, None] + own
    scores = np.where(design.tied[:, None, None], shared, scores)
    chance = SCORE_RANGE[0] + np.abs(own)
    scores = np.clip(np.where(design.failures[:, :, None], chance, scores), *SCORE_RANGE)
    index = pd.MultiIndex.from_product(
        [
            [f"d{i:0{max(3, len(str(datasets - 1)))}d}" for i in range(datasets)],
            [f"m{j:0{max(2, len(str(models - 1)))}d}" for j in range(models)],
            [1],
            range(1, folds + 1),
        ],
        names=["dataset", "model", "run", "fold"],
    )
    return pd.DataFrame({"score": scores.ravel()}, index=index).reset_index()
