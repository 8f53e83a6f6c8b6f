"""Plots of the ranking models: P(a beats b) with HDIs, the weights' posterior."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: A :class:`~bayes_hier.ranking.RankingResult` (duck-typed: the result imports this module).
RankingResultLike = Any


def _axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    import matplotlib.pyplot as plt

    if ax is None:
        return plt.subplots(figsize=size)
    return ax.figure, ax


def _finish(
    fig: Figure, ax: Axes, labels: list[str], xlabel: str, title: str, legend: str
) -> Figure:
    """One row per label (first at the top), a probability axis [0, 1], title and legend."""
    ax.set_yticks(np.arange(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc=legend, fontsize=8)
    fig.tight_layout()
    return fig


def plot_win_probabilities(result: RankingResultLike, ax: Axes | None = None) -> Figure:
    """One row per pair (ranking order): the posterior mean of P(first beats second) as a dot,
    its HDI as a line; the win rope shaded, 1/2 dashed."""
    table = result.win_probabilities()
    fig, ax = _axes(ax, (6.5, 0.8 + 0.35 * len(table)))
    positions = np.arange(len(table))
    ax.axvspan(*result.win_rope, color="0.9", label="win rope")
    ax.axvline(0.5, color="0.5", linestyle="--", linewidth=1)
    ax.hlines(positions, table["hdi_low"], table["hdi_high"], color="C0", linewidth=2)
    ax.plot(table["mean"], positions, "o", color="C0", label=f"mean, {result.hdi_prob:.0%} HDI")
    return _finish(
        fig,
        ax,
        [f"{r.first} > {r.second}" for r in table.itertuples()],
        "P(first beats second)",
        f"{result.model_name}: probability of winning",
        "lower left",
    )


def plot_weights(result: RankingResultLike, ax: Axes | None = None) -> Figure:
    """Violins of the posterior of each model's weight exp(s_a) / Σ exp(s) (the probability of
    being ranked first), models by expected rank, the posterior mean (P(best)) marked."""
    order = result.order
    weights = result.weights[order]
    fig, ax = _axes(ax, (6.5, 0.8 + 0.5 * len(order)))
    positions = np.arange(len(order))
    ax.violinplot(
        [weights[m].to_numpy() for m in order],
        positions,
        orientation="horizontal",
        showextrema=False,
    )
    ax.plot(weights.mean(axis=0).to_numpy(), positions, "o", color="C1", label="P(best)")
    return _finish(
        fig,
        ax,
        order,
        "weight: probability of being ranked first on a new data set",
        f"{result.model_name}: posterior of the weights",
        "lower right",
    )


__all__ = ["plot_weights", "plot_win_probabilities"]
