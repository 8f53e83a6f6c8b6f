"""The critical-difference diagram of Demšar (2006).

The models are placed on an axis of mean ranks (rank 1 = best); a thick bar joins each maximal
group of models, adjacent by mean rank, that the post-hoc test does not tell apart; the length of
Nemenyi's critical difference is drawn above the axis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .multiple import (
    PosthocResult,
    critical_difference,
    nemenyi,
    nonsignificant_groups,
    wilcoxon_holm,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Vertical distances, in label lines.
_LINE = 0.9
_BAR = 0.3


def _resolve(
    data: Any,
    *,
    mean_ranks: Mapping[str, float] | pd.Series | None,
    cd: float | None,
    n_datasets: int | None,
    groups: Sequence[Sequence[str]] | None,
    alpha: float,
    test: str,
    kwargs: dict[str, Any],
) -> tuple[pd.Series, float | None, list[tuple[str, ...]], str, float]:
    """Mean ranks, CD, groups, the method's name and alpha from a result, scores or ranks."""
    if data is not None:
        if mean_ranks is not None:
            raise ValueError("Pass either scores / a post-hoc result or mean_ranks=, not both.")
        if not isinstance(data, PosthocResult):
            runners = {"nemenyi": nemenyi, "wilcoxon-holm": wilcoxon_holm}
            if test not in runners:
                raise ValueError(f"test must be 'nemenyi' or 'wilcoxon-holm'; got {test!r}.")
            data = runners[test](data, alpha, **kwargs)
        return data.mean_ranks, data.cd, data.groups, data.method, data.alpha
    if mean_ranks is None:
        raise ValueError(
            "Give the scores (or a nemenyi / wilcoxon_holm result), or mean_ranks= together "
            "with cd= or n_datasets=."
        )
    ranks = pd.Series(mean_ranks, dtype=float)
    ranks.index = [str(i) for i in ranks.index]
    if ranks.size < 2 or not np.all(np.isfinite(ranks.to_numpy())):
        raise ValueError(
            f"mean_ranks must hold a finite rank for each of at least 2 models; got {ranks}."
        )
    if cd is None and n_datasets is not None:
        cd, _ = critical_difference(ranks.size, int(n_datasets), alpha)
    if groups is None:
        if cd is None:
            raise ValueError(
                "With mean_ranks=, give cd= or n_datasets= (to compute Nemenyi's critical "
                "difference) or groups=."
            )
        order = list(ranks.sort_values(kind="stable").index)
        groups = nonsignificant_groups(order, lambda a, b: abs(ranks[a] - ranks[b]) >= cd)
    unknown = {m for g in groups for m in g} - set(ranks.index)
    if unknown:
        raise ValueError(f"groups name models without a mean rank: {sorted(unknown)}.")
    return ranks, cd, [tuple(str(m) for m in g) for g in groups], "Nemenyi", alpha


def _labels(models: Sequence[str], names: Mapping[str, str] | Sequence[str] | None) -> list[str]:
    if names is None:
        return list(models)
    if isinstance(names, Mapping):
        return [str(names.get(m, m)) for m in models]
    if len(names) != len(models):
        raise ValueError(f"Got {len(names)} names for {len(models)} models {list(models)}.")
    return [str(n) for n in names]


def plot_cd_diagram(
    data: Any = None,
    *,
    alpha: float = 0.05,
    test: str = "nemenyi",
    higher_is_better: bool = True,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    mean_ranks: Mapping[str, float] | pd.Series | None = None,
    cd: float | None = None,
    n_datasets: int | None = None,
    groups: Sequence[Sequence[str]] | None = None,
    names: Mapping[str, str] | Sequence[str] | None = None,
    order: str = "ascending",
    title: str | None = None,
    fontsize: float = 10,
    show_ranks: bool = True,
    show_cd: bool = True,
    ax: Axes | None = None,
) -> Figure:
    """Draw the critical-difference diagram (Demšar 2006, Fig. 1).

    Parameters
    ----------
    data
        A :class:`PosthocResult` (from :func:`nemenyi` or :func:`wilcoxon_holm`), or scores
        (anything :func:`friedman` accepts), on which the post-hoc ``test`` is run.
    alpha, test
        Level and post-hoc test (``"nemenyi"`` or ``"wilcoxon-holm"``) when ``data`` are scores.
    higher_is_better, models, columns
        Passed on with the scores (see :func:`friedman`).
    mean_ranks, cd, n_datasets, groups
        Instead of ``data``: the mean rank of each model (e.g. from a paper), with the critical
        difference ``cd`` or the number of data sets (the Nemenyi CD is then computed), or the
        ``groups`` of models to join.
    names
        Display names: a mapping from model to name or one name per model (in the order of
        ``mean_ranks``).
    order
        ``"ascending"``: rank 1 (best) on the left; ``"descending"``: rank 1 on the right, as
        in Demšar's figures.
    title
        Title; ``None`` for an automatic one, ``""`` for none.
    fontsize
        Font size of the labels (the title is 2 points larger).
    show_ranks, show_cd
        Write each model's mean rank after its name; draw the CD bar (when there is a CD).
    ax
        Axes to draw on; a new figure is made when ``None``.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the diagram.
    """
    import matplotlib.pyplot as plt

    if order not in ("ascending", "descending"):
        raise ValueError(f"order must be 'ascending' or 'descending'; got {order!r}.")
    kwargs = {"higher_is_better": higher_is_better, "models": models, "columns": columns}
    ranks, cd, group_list, method, alpha = _resolve(
        data,
        mean_ranks=mean_ranks,
        cd=cd,
        n_datasets=n_datasets,
        groups=groups,
        alpha=alpha,
        test=test,
        kwargs=kwargs,
    )
    k = ranks.size
    labels = dict(zip(ranks.index, _labels(list(ranks.index), names)))
    if show_ranks:
        labels = {m: f"{labels[m]} ({ranks[m]:.2f})" for m in ranks.index}
    show_cd = show_cd and cd is not None

    # Vertical layout, in label lines (y grows downwards).
    y_axis = 1.7 if show_cd else 1.0
    y_groups = [y_axis + 0.45 + _BAR * g for g in range(len(group_list))]
    y_first = y_axis + 0.45 + _BAR * len(group_list) + 0.35
    per_side = int(np.ceil(k / 2))
    height = y_first + _LINE * (per_side - 1) + 0.6

    if title is None:
        title = f"Critical difference diagram ({method}, alpha = {alpha:g})"
    if ax is None:
        body = height * fontsize * 2.4 / 72
        head = (fontsize + 2) * 2.2 / 72 if title else 0.05
        fig = plt.figure(figsize=(7.0, body + head + 0.1))
        ax = fig.add_axes((0.01, 0.1 / (body + head + 0.1), 0.98, body / (body + head + 0.1)))
    else:
        fig = ax.figure
    axes_width = ax.get_position().width * fig.get_figwidth()
    longest = max(len(t) for t in labels.values())
    text_space = float(np.clip(longest * fontsize * 0.6 / 72 / axes_width + 0.04, 0.12, 0.4))
    left, right = text_space, 1 - text_space
    low, high = 1.0, float(max(k, 2))

    def x_of(rank: float) -> float:
        share = (rank - low) / (high - low)
        return left + (share if order == "ascending" else 1 - share) * (right - left)

    line = {"color": "black", "linewidth": 1.0, "solid_capstyle": "butt"}
    ax.plot([x_of(low), x_of(high)], [y_axis, y_axis], **line)
    for tick in np.arange(low, high + 0.25, 0.5):
        size = 0.25 if tick == int(tick) else 0.12
        ax.plot([x_of(tick), x_of(tick)], [y_axis, y_axis - size], **line)
        if tick == int(tick):
            ax.text(
                x_of(tick),
                y_axis - 0.32,
                f"{int(tick)}",
                ha="center",
                va="bottom",
                fontsize=fontsize,
            )
    if show_cd:
        start, end = x_of(low), x_of(low + cd)
        ax.plot([start, end], [0.55, 0.55], color="black", linewidth=1.5)
        for x in (start, end):
            ax.plot([x, x], [0.45, 0.65], **line)
        ax.text(
            (start + end) / 2, 0.35, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=fontsize
        )

    by_x = sorted(ranks.index, key=lambda m: x_of(ranks[m]))
    for i, model in enumerate(by_x):
        on_left = i < per_side
        level = i if on_left else k - 1 - i
        y = y_first + _LINE * level
        x = x_of(ranks[model])
        end = left - 0.02 if on_left else right + 0.02
        ax.plot([x, x, end], [y_axis, y, y], **line)
        ax.text(
            end - 0.01 if on_left else end + 0.01,
            y,
            labels[model],
            ha="right" if on_left else "left",
            va="center",
            fontsize=fontsize,
        )
    for y, group in zip(y_groups, group_list):
        xs = [x_of(ranks[m]) for m in group]
        ax.plot(
            [min(xs) - 0.008, max(xs) + 0.008],
            [y, y],
            color="black",
            linewidth=3.5,
            solid_capstyle="round",
        )

    if title:
        ax.set_title(title, fontsize=fontsize + 2)
    ax.set_xlim(0, 1)
    ax.set_ylim(height, 0)
    ax.axis("off")
    return fig
