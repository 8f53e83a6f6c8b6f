"""The frequentist view beside the Bayesian pairs: ranks, Friedman, Nemenyi, Wilcoxon-Holm.

Everything is computed by :mod:`bayes_hier.frequentist` on the complete blocks of the scores
(:meth:`bayes_hier.compare.ModelScores.complete_blocks`): the rank-based tests need every
model on every data set, so data sets with a missing model or fold are left out, and
:attr:`FrequentistView.note` says which.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from ..scores import ModelScores
from .multiple import (
    FriedmanResult,
    PosthocResult,
    friedman,
    nemenyi,
    rank_matrix,
    wilcoxon_holm,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class FrequentistView:
    """Mean ranks and the frequentist multiple-comparison tests on the complete blocks.

    Attributes
    ----------
    scores
        Data sets x models table of mean scores (complete blocks only).
    mean_ranks
        Mean rank of each model over those data sets (1 = best), or ``None`` without any.
    friedman, nemenyi, wilcoxon_holm
        The tests (``None`` with fewer than 3 models or 2 complete data sets).
    left_out
        Data sets left out of the rank-based tests, with the reason.
    """

    scores: pd.DataFrame
    mean_ranks: pd.Series | None
    friedman: FriedmanResult | None
    nemenyi: PosthocResult | None
    wilcoxon_holm: PosthocResult | None
    left_out: dict[str, str] = field(default_factory=dict)
    alpha: float = 0.05

    @property
    def note(self) -> str:
        """Which data sets the rank-based tests use, and why tests are missing."""
        n, k = self.scores.shape
        text = f"The rank-based tests use the {n} data sets on which all {k} models have every fold"
        if self.left_out:
            shown = "; ".join(f"{d} ({why})" for d, why in self.left_out.items())
            text += f"; left out: {shown}"
        text += "."
        if self.friedman is None:
            text += " Friedman, Nemenyi and Wilcoxon-Holm need at least 3 models and 2 data sets."
        return text

    def plot_cd_diagram(self, **kwargs) -> Figure:
        """The critical-difference diagram of the Nemenyi test."""
        from .cd_diagram import plot_cd_diagram

        if self.nemenyi is None:
            raise ValueError(f"No critical-difference diagram: {self.note}")
        return plot_cd_diagram(self.nemenyi, **kwargs)

    def as_dict(self) -> dict:
        """Plain types, for JSON."""
        out: dict = {"note": self.note, "left_out": dict(self.left_out)}
        if self.mean_ranks is not None:
            out["mean_ranks"] = {m: float(r) for m, r in self.mean_ranks.items()}
        if self.friedman is not None:
            out["friedman"] = {
                "chi2": self.friedman.statistic,
                "p_value": self.friedman.p_value,
                "iman_davenport_f": self.friedman.iman_davenport,
                "p_value_iman_davenport": self.friedman.p_value_iman_davenport,
            }
        if self.nemenyi is not None:
            out["nemenyi_cd"] = self.nemenyi.cd
            out["nemenyi"] = self.nemenyi.pairwise.to_dict(orient="records")
        if self.wilcoxon_holm is not None:
            out["wilcoxon_holm"] = self.wilcoxon_holm.pairwise.to_dict(orient="records")
        return out


def frequentist_view(
    scores: ModelScores, higher_is_better: bool = True, alpha: float = 0.05
) -> FrequentistView:
    """Run the frequentist tests of :mod:`bayes_hier.frequentist` on the complete blocks."""
    table, left_out = scores.complete_blocks()
    n, k = table.shape
    mean_ranks = rank_matrix(table, higher_is_better).mean(axis=0) if n else None
    if k < 3 or n < 2:
        return FrequentistView(table, mean_ranks, None, None, None, left_out, alpha)
    options = {"higher_is_better": higher_is_better}
    return FrequentistView(
        table,
        mean_ranks,
        friedman(table, alpha=alpha, **options),
        nemenyi(table, alpha, **options),
        wilcoxon_holm(table, alpha, **options),
        left_out,
        alpha,
    )


__all__ = ["FrequentistView", "frequentist_view"]
