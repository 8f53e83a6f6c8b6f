"""Rank distributions from draws of the models' strengths (shared by the joint and rank models)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def ranks_of(values: np.ndarray) -> np.ndarray:
    """Rank of each model (columns) in each draw (rows): 1 for the highest value."""
    return np.argsort(np.argsort(-np.asarray(values), axis=1), axis=1) + 1


def rank_table(ranks: np.ndarray, models: Sequence[str]) -> pd.DataFrame:
    """P(model has rank r): the share of draws (rows of ``ranks``) in which it has rank r,
    models x ranks 1..k; every row and every column sums to 1."""
    k = len(models)
    table = np.stack([(ranks == r).mean(axis=0) for r in range(1, k + 1)], axis=1)
    return pd.DataFrame(
        table,
        index=pd.Index(list(models), name="model"),
        columns=pd.Index(range(1, k + 1), name="rank"),
    )


def expected_ranks(table: pd.DataFrame) -> pd.Series:
    """Σ_r r · P(rank r) per model, from a :func:`rank_table`."""
    return (table * np.asarray(table.columns, float)).sum(axis=1).rename("expected_rank")


def softmax(strengths: np.ndarray) -> np.ndarray:
    """exp(s_a) / Σ_b exp(s_b) along the last axis (stable: the maximum is subtracted first)."""
    shifted = np.exp(strengths - strengths.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def simulated_rankings(
    strengths: np.ndarray, per_draw: int, rng: np.random.Generator
) -> np.ndarray:
    """Ranks of the models in Plackett-Luce rankings drawn with log-strengths ``strengths``
    (draws x k), ``per_draw`` rankings per draw, shape (draws · per_draw, k).

    Ordering s_a + g_a with g_a independent standard Gumbel draws gives a Plackett-Luce ranking
    with weights exp(s_a) (the Gumbel-max trick, applied repeatedly: Yellott, 1977).
    """
    m, k = strengths.shape
    noisy = strengths[:, None, :] + rng.gumbel(size=(m, per_draw, k))
    return ranks_of(noisy.reshape(m * per_draw, k))


__all__ = ["expected_ranks", "rank_table", "ranks_of", "simulated_rankings", "softmax"]
