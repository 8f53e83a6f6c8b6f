"""Rank histograms and ECDF-difference plots with simultaneous bands (Säilynoja et al., 2022)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .analysis import expected_rank_band
from .uniformity import ecdf_band, ecdf_difference


def _save(fig, path: Path) -> None:
    """Lay out, write (PNG, 110 dpi) and close ``fig``."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _grid(count: int):
    import matplotlib.pyplot as plt

    columns = min(4, count)
    rows = int(np.ceil(count / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 2.6 * rows), squeeze=False)
    for ax in axes.ravel()[count:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def plot_rank_histograms(
    ranks: pd.DataFrame,
    parameters: Sequence[str],
    max_rank: int,
    bins: int,
    title: str,
    path: Path,
) -> None:
    """One histogram of the ranks per parameter, with the 99% band of a uniform bin count."""
    fig, axes = _grid(len(parameters))
    width = (max_rank + 1) // bins
    low, high = expected_rank_band(len(ranks), bins)
    for ax, name in zip(axes, parameters):
        counts = np.bincount(ranks[f"rank_{name}"].to_numpy(dtype=int) // width, minlength=bins)
        ax.axhspan(low, high, color="0.85", label="99% band (uniform)")
        ax.axhline(len(ranks) / bins, color="0.5", lw=0.8)
        ax.bar(np.arange(bins), counts, width=0.9, color="C0")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel(f"rank bin ({width} ranks each)", fontsize=8)
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(title, fontsize=10)
    _save(fig, path)


def plot_ecdf_differences(
    ranks: pd.DataFrame,
    parameters: Sequence[str],
    max_rank: int,
    title: str,
    path: Path,
    alpha: float = 0.05,
) -> None:
    """ECDF difference F̂(z) − z of each parameter's ranks inside its 1 − α simultaneous band."""
    band = ecdf_band(len(ranks), max_rank, alpha)
    fig, axes = _grid(len(parameters))
    for ax, name in zip(axes, parameters):
        z, difference = ecdf_difference(ranks[f"rank_{name}"].to_numpy(dtype=int), max_rank)
        ax.fill_between(
            band.z,
            band.lower,
            band.upper,
            step="post",
            color="0.85",
            label=f"{1 - alpha:.0%} simultaneous band",
        )
        ax.step(z, difference, where="post", color="C0")
        ax.axhline(0, color="0.5", lw=0.8)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("fractional rank z", fontsize=8)
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(title, fontsize=10)
    _save(fig, path)
