"""Plots of the joint model: rank probabilities (the heatmap every k-model result shares), P(best)
and a Bayesian CD-like diagram."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..plots import figure_and_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: What the plots take: a :class:`~bayes_hier.joint.JointResult`. Duck-typed, so that this module
#: does not import the result module, which imports this one to plot itself (no import cycle).
JointResultLike = Any


def plot_p_best(result: JointResultLike, ax: Axes | None = None) -> Figure:
    """Horizontal bars of P(best) and P(practically best: within the rope of the best)."""
    ranking = result.ranking
    fig, ax = figure_and_axes(ax, (6.5, 0.8 + 0.5 * len(ranking)))
    positions = np.arange(len(ranking))
    ax.barh(positions + 0.2, ranking["p_best"], height=0.4, label="P(best)", color="C0")
    ax.barh(
        positions - 0.2,
        ranking["p_practically_best"],
        height=0.4,
        label=f"P(within {result.rope.high:g} of the best)",
        color="C1",
    )
    ax.set_yticks(positions, list(ranking.index))
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("probability on a new data set")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("Joint model: which model is best?")
    fig.tight_layout()
    return fig


def equivalence_groups(result: JointResultLike) -> list[tuple[str, ...]]:
    """Maximal runs of models, consecutive by expected rank, that are pairwise practically
    equivalent: in every pair of the run, P(rope) is the largest of the three next-data-set
    probabilities. Runs contained in another run are left out (as in a CD diagram)."""
    order = result.order
    groups: list[tuple[int, int]] = []
    for start in range(len(order)):
        end = start
        while end + 1 < len(order) and all(
            _rope_most_probable(result, order[i], order[end + 1]) for i in range(start, end + 1)
        ):
            end += 1
        if end > start and not any(s <= start and end <= e for s, e in groups):
            groups.append((start, end))
    return [tuple(order[s : e + 1]) for s, e in groups]


def _rope_most_probable(result: JointResultLike, first: str, second: str) -> bool:
    probs = result[first, second].probs
    return probs.rope >= max(probs.left, probs.right)


def plot_bayesian_cd(result: JointResultLike, ax: Axes | None = None) -> Figure:
    """A Bayesian analogue of the critical-difference diagram.

    Each model is placed at its expected rank on a new data set (best on the left); models of
    each :func:`equivalence_groups` run are joined by a thick bar.
    """
    expected = result.expected_rank.loc[result.order]
    k = len(expected)
    fig, ax = figure_and_axes(ax, (7.5, 1.6 + 0.35 * k))
    ax.set_xlim(0.5, k + 0.5)
    ax.hlines(0, 1, k, color="black", linewidth=1)
    ax.set_xticks(range(1, k + 1))
    ax.xaxis.set_ticks_position("top")
    half = (k + 1) // 2
    for position, (model, rank) in enumerate(expected.items()):
        left = position < half
        level = -(position + 1 if left else k - position) * 0.6
        x_text = 0.6 if left else k + 0.4
        ax.plot([rank, rank, x_text], [0, level, level], color="black", linewidth=0.8)
        ax.text(
            x_text,
            level,
            f"{model} ({rank:.2f})",
            ha="left" if left else "right",
            va="bottom",
            fontsize=9,
        )
    for number, group in enumerate(equivalence_groups(result)):
        ranks = expected.loc[list(group)]
        y = -0.25 - 0.15 * number
        ax.hlines(y, ranks.min() - 0.03, ranks.max() + 0.03, color="C3", linewidth=4)
    ax.set_ylim(-(half + 1) * 0.6, 0.3)
    ax.set_yticks([])
    for side in ("left", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title(
        "Joint model: expected rank on a new data set (bars join practically equivalent models)",
        fontsize=9,
    )
    fig.tight_layout()
    return fig
