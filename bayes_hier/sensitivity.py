"""Rope sensitivity: how the probabilities change as the rope grows from 0 to a maximum."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .probabilities import Probabilities
from .rope import Rope

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def rope_grid(max_rope: float, num: int = 41) -> np.ndarray:
    """``num`` half-widths evenly spaced from 0 to ``max_rope``."""
    if not np.isfinite(max_rope) or max_rope <= 0:
        raise ValueError(f"max_rope must be a positive number; got {max_rope}.")
    if int(num) != num or num < 2:
        raise ValueError(f"num must be an integer >= 2; got {num}.")
    return np.linspace(0.0, float(max_rope), int(num))


def rope_sensitivity(
    probs_at: Callable[[Rope], Probabilities], max_rope: float, num: int = 41
) -> pd.DataFrame:
    """Probabilities for the symmetric ropes ``[-r, r]``, ``r`` from 0 to ``max_rope``.

    Parameters
    ----------
    probs_at
        Returns (left, rope, right) for a given rope (the test re-run with that rope; the
        sample-based tests reuse their seed, so the curves are smooth).
    max_rope
        The largest half-width.
    num
        Number of ropes.

    Returns
    -------
    pandas.DataFrame
        Columns ``rope`` (the half-width r), ``left``, ``rope_prob``, ``right``.
    """
    rows = []
    for r in rope_grid(max_rope, num):
        p = probs_at(Rope(-r, r))
        rows.append({"rope": r, "left": p.left, "rope_prob": p.rope, "right": p.right})
    return pd.DataFrame(rows, columns=["rope", "left", "rope_prob", "right"])


def plot_rope_sensitivity(
    table: pd.DataFrame,
    labels: Mapping[str, str],
    ax: Axes | None = None,
    current: float | None = None,
    title: str | None = None,
) -> Figure:
    """The three probabilities against the rope half-width (a table from
    :func:`rope_sensitivity`); ``current`` marks the rope of the analysis."""
    from .plots import figure_and_axes

    fig, ax = figure_and_axes(ax, (7, 4.5))
    styles = {
        "left": ("left", "tab:blue", "-"),
        "rope_prob": ("rope", "tab:gray", "--"),
        "right": ("right", "tab:orange", "-"),
    }
    for column, (key, colour, ls) in styles.items():
        ax.plot(table["rope"], table[column], color=colour, ls=ls, lw=2, label=labels[key])
    if current is not None:
        ax.axvline(current, color="black", lw=0.8, ls=":", label=f"rope used (±{current:g})")
    ax.axhline(0.95, color="tab:red", lw=0.6, ls=":")
    ax.set_xlim(float(table["rope"].min()), float(table["rope"].max()))
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("rope half-width r (rope = [−r, r], units of the scores)")
    ax.set_ylabel("probability")
    ax.set_title(title or "Sensitivity to the rope")
    ax.legend(fontsize=8, loc="best")
    ax.grid(True, alpha=0.3)
    return fig
