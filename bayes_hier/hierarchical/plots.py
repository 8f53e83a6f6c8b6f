"""Plots of the hierarchical model: shrinkage and posterior predictive density.

The functions take the numbers they draw (tables and arrays of draws), not the result object,
so that :mod:`.result` can import this module without a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ..plots import figure_and_axes
from ..rope import Rope

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _shade_rope(ax: Axes, rope: Rope, vertical: bool = True) -> None:
    if rope.is_empty:
        return
    span = ax.axvspan if vertical else ax.axhspan
    span(rope.low, rope.high, color="tab:gray", alpha=0.2, lw=0, label="rope")


def plot_shrinkage(
    table: pd.DataFrame,
    *,
    rope: Rope,
    population_mean: float,
    names: Sequence[str],
    hdi_prob: float,
    ax: Axes | None = None,
    sort: bool = True,
) -> Figure:
    """Per data set, the MLE (mean difference) and the shrinkage estimate with its HDI.

    ``table`` has the columns ``dataset, mle, shrunk, hdi_low, hdi_high`` (the result's
    ``per_dataset``); ``population_mean`` is the posterior mean of δ₀, drawn as a dashed line;
    ``names`` are the (first, second) models.
    """
    if sort:
        table = table.sort_values("mle").reset_index(drop=True)
    fig, ax = figure_and_axes(ax, (7, max(4.0, 0.18 * len(table) + 1.5)))
    rows = np.arange(len(table))
    _shade_rope(ax, rope)
    ax.hlines(
        rows,
        table["hdi_low"],
        table["hdi_high"],
        color="tab:blue",
        lw=1.2,
        label=f"{hdi_prob:.0%} HDI",
    )
    ax.plot(table["shrunk"], rows, "o", color="tab:blue", ms=4, label="shrinkage estimate")
    ax.plot(table["mle"], rows, "x", color="tab:red", ms=5, label="MLE (mean difference)")
    ax.axvline(population_mean, color="black", lw=0.8, ls="--", label="δ₀ (posterior mean)")
    ax.set_yticks(rows)
    ax.set_yticklabels(table["dataset"], fontsize=7 if len(table) > 25 else 9)
    first, second = names
    ax.set_xlabel(f"difference {second} − {first}")
    ax.set_title(f"{first} vs {second}: shrinkage of the per-data-set differences")
    ax.legend(fontsize=8, loc="best")
    return fig


def plot_density(
    shrunk: np.ndarray,
    delta0: np.ndarray,
    sigma0: np.ndarray,
    nu: np.ndarray,
    *,
    rope: Rope,
    names: Sequence[str],
    ax: Axes | None = None,
    draws: int = 400,
    seed: int = 0,
) -> Figure:
    """Posterior predictive density of δ for a new data set against a KDE of the shrinkage
    estimates ``shrunk`` (one per data set).

    The predictive density is the average of Student-t(ν_k, δ₀_k, σ₀_k) densities (normal where
    ν_k is infinite) over ``draws`` of the posterior draws ``delta0, sigma0, nu`` (equal
    lengths), picked with ``numpy.random.default_rng(seed)``.
    """
    fig, ax = figure_and_axes(ax, (7, 4.5))
    shrunk = np.asarray(shrunk, float)
    pick = np.random.default_rng(seed).choice(delta0.size, min(draws, delta0.size), replace=False)
    spread = max(np.ptp(shrunk), 4 * float(np.median(sigma0)), 1e-12)
    grid = np.linspace(shrunk.min() - 0.3 * spread, shrunk.max() + 0.3 * spread, 400)
    densities = [
        stats.norm.pdf(grid, delta0[k], sigma0[k])
        if np.isinf(nu[k])
        else stats.t.pdf(grid, nu[k], delta0[k], sigma0[k])
        for k in pick
    ]
    _shade_rope(ax, rope)
    ax.plot(grid, np.mean(densities, axis=0), color="tab:blue", label="posterior predictive of δ")
    if shrunk.size > 1 and np.ptp(shrunk) > 0:
        ax.plot(
            grid,
            stats.gaussian_kde(shrunk)(grid),
            color="tab:red",
            ls="--",
            label="KDE of shrinkage estimates",
        )
    ax.plot(shrunk, np.zeros_like(shrunk), "|", color="tab:red", ms=12)
    first, second = names
    ax.set_xlabel(f"difference {second} − {first}")
    ax.set_ylabel("density")
    ax.set_title(f"{first} vs {second}: population of differences")
    ax.legend(fontsize=8)
    return fig
