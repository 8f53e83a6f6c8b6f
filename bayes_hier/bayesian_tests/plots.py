"""Plots of the Bayesian tests: the Student posterior density and the histogram of θ.

The plots read a result through the attributes listed by :class:`StudentPosterior` and
:class:`SimplexPosterior` (duck typing), so this module does not import the result classes
(which import it to draw themselves): no import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..formatting import toward_half
from ..plots import figure_and_axes
from ..probabilities import Probabilities
from ..rope import Rope

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

COLOURS = {"left": "tab:blue", "rope": "tab:gray", "right": "tab:orange"}


class _Posterior(Protocol):
    """What every plot reads: model names, outcome labels, the rope and the probabilities."""

    names: tuple[str, str]
    rope: Rope

    @property
    def probs(self) -> Probabilities: ...

    @property
    def labels(self) -> Mapping[str, str]: ...


class StudentPosterior(_Posterior, Protocol):
    """A Student posterior of the mean difference (e.g. a ``CorrelatedTResult``)."""

    test_name: str
    loc: float
    scale: float

    @property
    def posterior(self) -> Any:
        """A frozen :mod:`scipy.stats` distribution (``None`` for a point mass at ``loc``)."""


class SimplexPosterior(_Posterior, Protocol):
    """A posterior sample on the simplex, shape (m, 3) (e.g. a ``SimplexResult``)."""

    sample: np.ndarray


def plot_student_density(result: StudentPosterior, ax: Axes | None = None) -> Figure:
    """Posterior density of the mean difference, the rope shaded, the masses labelled."""
    fig, ax = figure_and_axes(ax, (7, 4.5))
    rope, p = result.rope, result.probs
    first, second = result.names
    reach = max(-rope.low, rope.high)
    if result.scale > 0:
        dist = result.posterior
        lo = min(float(dist.ppf(0.001)), rope.low - 0.1 * reach)
        hi = max(float(dist.ppf(0.999)), rope.high + 0.1 * reach)
        grid = np.linspace(lo, hi, 500)
        density = dist.pdf(grid)
        ax.plot(grid, density, color="black", lw=1.5, label="posterior of the mean difference")
        for key, mask in (
            ("left", grid < rope.low),
            ("rope", (grid >= rope.low) & (grid <= rope.high)),
            ("right", grid > rope.high),
        ):
            if mask.any():
                ax.fill_between(grid[mask], density[mask], color=COLOURS[key], alpha=0.35, lw=0)
        top = float(density.max())
    else:
        ax.axvline(result.loc, color="black", lw=2, label="posterior: point mass")
        span = max(reach, abs(result.loc), 1e-12)
        ax.set_xlim(min(rope.low, result.loc) - 0.5 * span, max(rope.high, result.loc) + 0.5 * span)
        top = 1.0
    if not rope.is_empty:
        ax.axvspan(
            rope.low, rope.high, color=COLOURS["rope"], alpha=0.15, lw=0, label=f"rope {rope}"
        )
    ax.axvline(0, color="black", lw=0.5, ls=":")
    texts = [
        (0.02, "left", f"P({result.labels['left']})\n= {toward_half(p.left)}"),
        (0.98, "right", f"P({result.labels['right']})\n= {toward_half(p.right)}"),
    ]
    if not rope.is_empty:
        texts.insert(1, (0.5, "center", f"P(rope)\n= {toward_half(p.rope)}"))
    for x, ha, text in texts:
        key = {"left": "left", "center": "rope", "right": "right"}[ha]
        ax.text(
            x,
            0.97,
            text,
            transform=ax.transAxes,
            ha=ha,
            va="top",
            fontsize=9,
            color=COLOURS[key] if key != "rope" else "dimgray",
        )
    ax.set_ylim(0, top * 1.35)
    ax.set_xlabel(f"mean difference {second} − {first}")
    ax.set_ylabel("posterior density")
    ax.set_title(f"{result.test_name}: {first} vs {second}")
    ax.legend(fontsize=8, loc="center left")
    return fig


def plot_histogram(result: SimplexPosterior, ax: Axes | None = None, bins: int = 50) -> Figure:
    """Histogram of the posterior sample.

    With an empty rope, the histogram of θ_right with the line θ = 1/2 and the two
    probabilities named after the models (as baycomp draws it); otherwise the three
    coordinates θ_left, θ_rope, θ_right overlaid.
    """
    fig, ax = figure_and_axes(ax, (7, 4.5))
    sample, p, labels = result.sample, result.probs, result.labels
    edges = np.linspace(0, 1, bins + 1)
    if result.rope.is_empty:
        ax.hist(sample[:, 2], edges, color=COLOURS["right"], alpha=0.7)
        ax.axvline(0.5, color="black", lw=1.2)
        ax.text(
            0.02,
            0.97,
            f"P({labels['left']}) = {toward_half(p.left)}",
            transform=ax.transAxes,
            ha="left",
            va="top",
            fontsize=9,
        )
        ax.text(
            0.98,
            0.97,
            f"P({labels['right']}) = {toward_half(p.right)}",
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize=9,
        )
        ax.set_xlabel(f"θ_right: probability that {result.names[1]} is better")
    else:
        for column, key in enumerate(("left", "rope", "right")):
            ax.hist(
                sample[:, column],
                edges,
                color=COLOURS[key],
                alpha=0.45,
                label=f"θ_{key}: {labels[key]} (P = {toward_half(p[column])})",
            )
        ax.legend(fontsize=8)
        ax.set_xlabel("θ (posterior probability of the region)")
    ax.set_xlim(0, 1)
    ax.set_ylabel("posterior samples")
    ax.set_title(f"{getattr(result, 'test_name', 'Bayesian test')}: posterior sample")
    return fig
