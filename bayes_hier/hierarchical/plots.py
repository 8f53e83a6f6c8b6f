"""Plots of the hierarchical model: shrinkage and posterior predictive density."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from ..plots import _axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .result import HierarchicalResult


def _shade_rope(ax: Axes, result: HierarchicalResult, vertical: bool = True) -> None:
    if result.rope.is_empty:
        return
    span = ax.axvspan if vertical else ax.axhspan
    span(result.rope.low, result.rope.high, color="tab:gray", alpha=0.2, lw=0, label="rope")


def plot_shrinkage(result: HierarchicalResult, ax: Axes | None = None, sort: bool = True) -> Figure:
    """Per data set, the MLE (mean difference) and the shrinkage estimate with its HDI."""
    table = result.per_dataset
    if sort:
        table = table.sort_values("mle").reset_index(drop=True)
    fig, ax = _axes(ax, (7, max(4.0, 0.18 * len(table) + 1.5)))
    rows = np.arange(len(table))
    _shade_rope(ax, result)
    ax.hlines(
        rows,
        table["hdi_low"],
        table["hdi_high"],
        color="tab:blue",
        lw=1.2,
        label=f"{result.hdi_prob:.0%} HDI",
    )
    ax.plot(table["shrunk"], rows, "o", color="tab:blue", ms=4, label="shrinkage estimate")
    ax.plot(table["mle"], rows, "x", color="tab:red", ms=5, label="MLE (mean difference)")
    ax.axvline(result.population.mean, color="black", lw=0.8, ls="--", label="δ₀ (posterior mean)")
    ax.set_yticks(rows)
    ax.set_yticklabels(table["dataset"], fontsize=7 if len(table) > 25 else 9)
    first, second = result.names
    ax.set_xlabel(f"difference {second} − {first}")
    ax.set_title("Shrinkage of the per-data-set differences")
    ax.legend(fontsize=8, loc="best")
    return fig


def plot_density(
    result: HierarchicalResult, ax: Axes | None = None, draws: int = 400, seed: int = 0
) -> Figure:
    """Posterior predictive density of δ for a new data set against a KDE of the shrinkage
    estimates.

    The predictive density is the average of Student-t(ν_k, δ₀_k, σ₀_k) densities over ``draws``
    posterior draws.
    """
    fig, ax = _axes(ax, (7, 4.5))
    shrunk = result.per_dataset["shrunk"].to_numpy()
    delta0 = result._draws("delta0")
    sigma0 = result._draws("sigma0")
    nu = result.nu_draws
    pick = np.random.default_rng(seed).choice(delta0.size, min(draws, delta0.size), replace=False)
    spread = max(np.ptp(shrunk), 4 * float(np.median(sigma0)), 1e-12)
    grid = np.linspace(shrunk.min() - 0.3 * spread, shrunk.max() + 0.3 * spread, 400)
    densities = [
        stats.norm.pdf(grid, delta0[k], sigma0[k])
        if np.isinf(nu[k])
        else stats.t.pdf(grid, nu[k], delta0[k], sigma0[k])
        for k in pick
    ]
    _shade_rope(ax, result)
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
    first, second = result.names
    ax.set_xlabel(f"difference {second} − {first}")
    ax.set_ylabel("density")
    ax.set_title("Population of differences")
    ax.legend(fontsize=8)
    return fig
