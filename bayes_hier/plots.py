"""Plots shared by the tests: the posterior sample on the probability simplex."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .formatting import toward_half

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Corners of the ternary plot: left outcome bottom-left, right outcome bottom-right, rope on top.
_CORNERS = np.array([[0.0, 0.0], [0.5, np.sqrt(3) / 2], [1.0, 0.0]])


def figure_and_axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """``ax`` and its figure, or a new figure of size ``figsize`` (inches) with one axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
        return fig, ax
    return ax.figure, ax


def simplex_to_plane(points: np.ndarray) -> np.ndarray:
    """Barycentric (left, rope, right) coordinates to 2-D points of the ternary triangle."""
    return np.asarray(points, float).reshape(-1, 3) @ _CORNERS


def plot_simplex(
    sample: np.ndarray,
    labels: Mapping[str, str],
    ax: Axes | None = None,
    max_points: int = 5000,
    seed: int = 0,
    title: str | None = None,
) -> Figure:
    """Scatter a posterior sample of (p_left, p_rope, p_right) on the simplex.

    The lines from the centre to the edges separate the three regions in which left, rope or
    right is the largest coordinate; the share of points in each region is written in it.
    """
    fig, ax = figure_and_axes(ax, (6, 5.5))
    sample = np.asarray(sample, float).reshape(-1, 3)
    if len(sample) > max_points:
        sample = sample[np.random.default_rng(seed).choice(len(sample), max_points, replace=False)]
    winner = sample.argmax(axis=1)
    xy = simplex_to_plane(sample)
    colours = np.array(["tab:blue", "tab:gray", "tab:orange"])
    ax.scatter(xy[:, 0], xy[:, 1], s=4, alpha=0.35, c=colours[winner], linewidths=0)
    triangle = np.vstack([_CORNERS, _CORNERS[:1]])
    ax.plot(triangle[:, 0], triangle[:, 1], color="black", lw=1)
    centre = _CORNERS.mean(axis=0)
    for i, j in ((0, 1), (1, 2), (0, 2)):
        midpoint = (_CORNERS[i] + _CORNERS[j]) / 2
        ax.plot([centre[0], midpoint[0]], [centre[1], midpoint[1]], color="black", lw=0.6, ls=":")
    shares = np.bincount(winner, minlength=3) / max(len(winner), 1)
    keys = ("left", "rope", "right")
    offsets = [(-0.04, -0.07, "left"), (0.0, 0.04, "center"), (0.04, -0.07, "right")]
    for k, (corner, (dx, dy, ha)) in enumerate(zip(_CORNERS, offsets)):
        ax.text(
            corner[0] + dx,
            corner[1] + dy,
            f"{labels[keys[k]]}\n(p = {toward_half(shares[k])})",
            ha=ha,
            va="center",
            fontsize=10,
        )
    ax.set_xlim(-0.25, 1.25)
    ax.set_ylim(-0.18, 1.0)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or "Posterior on the simplex (colour: most probable outcome)")
    return fig


def plot_rank_probabilities(result: Any, ax: Axes | None = None) -> Figure:
    """Annotated heatmap of P(rank r) on a new data set, models by expected rank.

    ``result`` has ``rank_probabilities`` (models x ranks) and ``order`` (the models by expected
    rank): a joint or a rank model's result.
    """
    table = result.rank_probabilities.loc[result.order]
    fig, ax = figure_and_axes(ax, (1.2 + 0.9 * table.shape[1], 0.8 + 0.55 * table.shape[0]))
    image = ax.imshow(table.to_numpy(), cmap="Blues", vmin=0, vmax=1, aspect="auto")
    for (row, column), value in np.ndenumerate(table.to_numpy()):
        ax.text(
            column,
            row,
            f"{value:.2f}",
            ha="center",
            va="center",
            color="white" if value > 0.6 else "black",
            fontsize=9,
        )
    ax.set_xticks(range(table.shape[1]), [str(r) for r in table.columns])
    ax.set_yticks(range(table.shape[0]), list(table.index))
    ax.set_xlabel("rank on a new data set (1 = best)")
    ax.set_title("Joint model: rank probabilities")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return fig
