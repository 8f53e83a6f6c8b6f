"""Figures of a many-model comparison: the probability heatmap and the stacked pair bars.

Both draw numbers read from the result (:meth:`ManyModelResult.matrix` and its ``pairs``
table); the critical-difference diagram is :func:`bayes_hier.frequentist.plot_cd_diagram`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..formatting import toward_half

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Colour of each outcome in the bars (first better, rope, second better).
OUTCOME_COLOURS = ("#1f77b4", "#bdbdbd", "#ff7f0e")

#: Titles of the heatmaps, per kind of matrix.
HEATMAP_TITLES = {
    "better": "P(row better than column)",
    "rope": "P(row and column practically equivalent)",
    "worse": "P(column better than row)",
}


def _new_axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax.figure, ax
    fig, ax = plt.subplots(figsize=size)
    return fig, ax


def plot_heatmap(result: Any, kind: str = "better", ax: Axes | None = None) -> Figure:
    """Annotated k x k heatmap of ``result.matrix(kind)``, models ordered by mean rank."""
    table = result.matrix(kind)
    k = len(table)
    fig, ax = _new_axes(ax, (1.2 + 0.85 * k, 0.9 + 0.75 * k))
    values = table.to_numpy(dtype=float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=0.0, vmax=1.0)
    ax.set_facecolor("#eeeeee")
    for i in range(k):
        for j in range(k):
            if np.isfinite(values[i, j]):
                colour = "black" if values[i, j] > 0.6 else "white"
                ax.text(j, i, toward_half(values[i, j], 2), ha="center", va="center", color=colour)
    ax.set_xticks(range(k), table.columns, rotation=45, ha="right")
    ax.set_yticks(range(k), table.index)
    ax.set_title(HEATMAP_TITLES[kind])
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return fig


def plot_pair_bars(result: Any, ax: Axes | None = None) -> Figure:
    """One horizontal bar per pair split into P(first better), P(rope), P(second better)."""
    table = result.pairs
    n = len(table)
    fig, ax = _new_axes(ax, (8.0, 1.2 + 0.45 * n))
    shares = table[["p_first_better", "p_rope", "p_second_better"]].to_numpy(dtype=float)
    labels = [f"{a} vs {b}" for a, b in zip(table["first"], table["second"])]
    start = np.zeros(n)
    names = ("first better", "practically equivalent", "second better")
    for column, (name, colour) in enumerate(zip(names, OUTCOME_COLOURS)):
        width = shares[:, column]
        ax.barh(range(n), width, left=start, color=colour, label=name, height=0.7)
        for i in np.flatnonzero(width >= 0.12):
            ax.text(start[i] + width[i] / 2, i, toward_half(width[i], 2), ha="center", va="center")
        start = start + width
    ax.set_yticks(range(n), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("probability")
    ax.set_title(f"{result.method}: probabilities of each pair (rope {result.rope})")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.3 / max(n, 1)), ncol=3)
    fig.tight_layout()
    return fig


__all__ = ["HEATMAP_TITLES", "OUTCOME_COLOURS", "plot_heatmap", "plot_pair_bars"]
