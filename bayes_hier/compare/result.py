"""The result of a many-model comparison: pair results, tables, matrices, the frequentist view.

:class:`ManyModelResult` is built from a mapping ``{(first, second): pair result}`` plus what
the comparison used; every table, plot and report is a function of it. A comparison by another
model (e.g. one joint model of all k models) subclasses it with the same constructor and adds
its own attributes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..decision import NOT_CONVERGED
from ..diagnostics import SamplingWarning, diagnostic_problems
from ..frequentist.view import FrequentistView
from ..results import ComparisonResult
from ..rope import Rope
from ..scores import ModelScores, PairUsage
from .pair import mirror, pair_diagnostics, pair_estimate

if TYPE_CHECKING:
    from matplotlib.figure import Figure


#: Kinds of :meth:`ManyModelResult.matrix`: the outcome of the pair (row, column) it shows.
MATRIX_KINDS = {"better": "left", "rope": "rope", "worse": "right"}


class ManyModelResult:
    """k models compared pair by pair.

    Parameters
    ----------
    pairs
        ``{(first, second): result}``: each pair's own result object (``.probs`` in
        (left, rope, right) order for the pair as written, ``.names``, ``.rope``, optionally
        ``.diagnostics``).
    models
        The models, in order.
    method
        Name of the pairwise method.
    rope
        The rope, in the units of the scores.
    usage
        Per pair, what it was compared on (:class:`~bayes_hier.compare.PairUsage`).
    frequentist
        The frequentist view on the complete blocks.
    scores
        The validated scores (describes the data in reports).
    settings
        Seed, per-pair seeds, options, versions: recorded for the report.
    scope
        What the probabilities are about ("on a new data set", ...), for sentences.
    control
        The control model, when every model was compared with one model only.
    alpha
        Level of the decisions: an outcome is declared above probability ``1 - alpha``.
    """

    def __init__(
        self,
        pairs: Mapping[tuple[str, str], ComparisonResult],
        *,
        models: Sequence[str],
        method: str,
        rope: Rope,
        usage: Mapping[tuple[str, str], PairUsage] | None = None,
        frequentist: FrequentistView | None = None,
        scores: ModelScores | None = None,
        settings: Mapping[str, Any] | None = None,
        scope: str = "",
        control: str | None = None,
        higher_is_better: bool = True,
        alpha: float = 0.05,
    ) -> None:
        self.pair_results = dict(pairs)
        self.models = tuple(models)
        self.method = method
        self.rope = rope
        self.usage = dict(usage or {})
        self.frequentist = frequentist
        self.scores = scores
        self.settings = dict(settings or {})
        self.scope = scope
        self.control = control
        self.higher_is_better = higher_is_better
        self.alpha = alpha

    # ------------------------------------------------------------------ pairs
    def __getitem__(self, key: tuple[str, str]) -> ComparisonResult:
        """``result[a, b]``: the pair's result as written, or the mirror of ``(b, a)``."""
        first, second = key
        if (first, second) in self.pair_results:
            return self.pair_results[first, second]
        if (second, first) in self.pair_results:
            return mirror(self.pair_results[second, first])
        raise KeyError(
            f"{first!r} and {second!r} were not compared (pairs: {list(self.pair_results)})."
        )

    def __iter__(self):
        return iter(self.pair_results)

    def __len__(self) -> int:
        return len(self.pair_results)

    @cached_property
    def pairs(self) -> pd.DataFrame:
        """One row per pair: data sets used, the difference estimate and interval, the three
        probabilities, the decision and the MCMC diagnostics."""
        rows = []
        for (first, second), result in self.pair_results.items():
            estimate = pair_estimate(result)
            usage = self.usage.get((first, second))
            probs = result.probs
            rows.append(
                {
                    "first": first,
                    "second": second,
                    "n_datasets": len(usage.datasets) if usage else math.nan,
                    "n_dropped": len(usage.dropped) if usage else math.nan,
                    "mean_difference": estimate.mean,
                    "hdi_low": estimate.low,
                    "hdi_high": estimate.high,
                    "p_first_better": probs.left,
                    "p_rope": probs.rope,
                    "p_second_better": probs.right,
                    "decision": result.decision(self.alpha).label,
                    **pair_diagnostics(result),
                    "seed": self.settings.get("pair_seeds", {}).get(f"{first} vs {second}"),
                }
            )
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """The :attr:`pairs` table (a copy)."""
        return self.pairs.copy()

    # ------------------------------------------------------------------ views
    @property
    def order(self) -> list[str]:
        """The models by mean rank (best first) when ranks exist, else as given."""
        ranks = None if self.frequentist is None else self.frequentist.mean_ranks
        if ranks is None:
            return list(self.models)
        return list(ranks.reindex(self.models).sort_values(kind="stable").index)

    def matrix(self, kind: str = "better", order: Sequence[str] | None = None) -> pd.DataFrame:
        """k x k table: ``"better"``: P(row better than column); ``"rope"``: P(practically
        equivalent); ``"worse"``: P(column better than row). NaN on the diagonal and for pairs
        not compared (control mode)."""
        if kind not in MATRIX_KINDS:
            raise ValueError(f"kind must be one of {list(MATRIX_KINDS)}; got {kind!r}.")
        order = list(self.order if order is None else order)
        table = pd.DataFrame(np.nan, index=order, columns=order)
        for row in order:
            for column in order:
                if row == column:
                    continue
                try:
                    probs = self[row, column].probs
                except KeyError:
                    continue
                table.loc[row, column] = getattr(probs, MATRIX_KINDS[kind])
        return table

    @cached_property
    def problems(self) -> dict[tuple[str, str], list[str]]:
        """Pairs whose MCMC failed a check, with its sentence and fix: the checks and thresholds
        of every fit (:func:`~bayes_hier.diagnostics.diagnostic_problems`), so a pair is flagged
        here exactly when its own test warned."""
        out = {}
        for pair, result in self.pair_results.items():
            diagnostics = getattr(result, "diagnostics", None)
            found = diagnostic_problems(diagnostics) if diagnostics else []
            if found:
                out[pair] = found
        return out

    @property
    def not_converged(self) -> list[tuple[str, str]]:
        """The pairs whose fit failed its convergence checks: their decision reads "not
        converged" (their probabilities are in the tables, but no outcome is declared)."""
        return [
            pair
            for pair, result in self.pair_results.items()
            if result.decision(self.alpha).outcome == NOT_CONVERGED
        ]

    @property
    def warnings(self) -> list[str]:
        """Everything besides the data and the settings that shaped the numbers, in words: the
        warnings issued while comparing (constant differences given a spread, data sets or folds
        left out, a rope that looks like it is in other units, ...) and each pair's sampling
        problems. The reports' Warnings section lists them."""
        issued = self.__dict__.get("issued_warnings", [])
        problems = []
        for (a, b), reasons in self.problems.items():
            where = f"{a} vs {b}" if (a, b) in self.pair_results else a  # e.g. a joint fit
            problems.append(f"{where}: {'; '.join(r.rstrip('.') for r in reasons)}.")
        return [*issued, *problems]

    @property
    def dropped(self) -> list[str]:
        """One sentence per data set a pair dropped or used in part."""
        return [line for usage in self.usage.values() for line in usage.describe()]

    def warn(self) -> None:
        """Issue a :class:`~bayes_hier.SamplingWarning` per pair with problems."""
        import warnings

        for (first, second), reasons in self.problems.items():
            warnings.warn(
                f"{first} vs {second}: {'; '.join(reasons)}", SamplingWarning, stacklevel=3
            )

    # ------------------------------------------------------------------ text and tables
    def sentences(self) -> list[str]:
        """One sentence per pair stating its decision with the probability behind it."""
        from .sentences import pair_sentence

        return [pair_sentence(self, pair) for pair in self.pair_results]

    def summary(self) -> str:
        """A short report that fits a terminal (100 columns)."""
        from .report import terminal_summary

        return terminal_summary(self)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.method}: {len(self.models)} models, "
            f"{len(self.pair_results)} pairs, rope {self.rope}>"
        )

    def print(self) -> None:
        """Print :meth:`summary`."""
        print(self.summary())

    def to_markdown(self) -> str:
        """The full report as Markdown (figures referenced as files by :meth:`write_report`)."""
        from .report import markdown_report

        return markdown_report(self)

    def to_html(self) -> str:
        """The full report as one self-contained HTML page (figures embedded)."""
        from .report import html_report

        return html_report(self)

    def to_latex(self) -> str:
        """booktabs tables (pairs, the probability matrix, mean ranks and, for a model of all
        the models, its ranking tables) ready for a paper: the content of tables.tex."""
        from .report import tables_tex

        return tables_tex(self)

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain types (what ``bayes-hier compare --json`` prints)."""
        from .report import as_dict

        return as_dict(self)

    def write_report(self, out: Any) -> dict[str, Any]:
        """Write report.md, report.html, report.tex, tables.tex, pairs.csv and the figures into
        ``out``."""
        from .report import write_report

        return write_report(self, out)

    # ------------------------------------------------------------------ plots
    def plot_heatmap(self, kind: str = "better", ax: Any = None) -> Figure:
        """Annotated heatmap of :meth:`matrix`, models ordered by mean rank."""
        from .plots import plot_heatmap

        return plot_heatmap(self, kind, ax=ax)

    def plot_pairs(self, ax: Any = None) -> Figure:
        """Stacked bars of P(first better), P(rope), P(second better) for every pair."""
        from .plots import plot_pair_bars

        return plot_pair_bars(self, ax=ax)

    def plot_cd_diagram(self, **kwargs: Any) -> Figure:
        """The Nemenyi critical-difference diagram of the frequentist view."""
        if self.frequentist is None:
            raise ValueError("This comparison has no frequentist view.")
        return self.frequentist.plot_cd_diagram(**kwargs)


__all__ = ["MATRIX_KINDS", "ManyModelResult"]
