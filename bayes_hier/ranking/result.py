"""The result of the ranking models (Bradley-Terry, Plackett-Luce): P(a beats b), P(best), ranks.

Both models give every model a strength: a log-strength s_a (Bradley-Terry's β_a,
Plackett-Luce's log w_a) with P(a beats b) = exp(s_a) / (exp(s_a) + exp(s_b)). From the
posterior draws of s, :class:`RankingResult` gives the probability that a beats b with its HDI,
P(best), the rank distribution and the expected rank, and a pair result per pair
(:class:`WinPairResult`) so that the many-model tables, matrices and reports apply as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import arviz as az
import numpy as np
import pandas as pd

from ..compare.pair import PairEstimate, pair_estimate
from ..compare.result import ManyModelResult
from ..diagnostics import OneFitChecks, convergence_problems
from ..hierarchical.result import hdi
from ..probabilities import Probabilities, region_shares
from ..ranks import expected_ranks, rank_table, simulated_rankings, softmax
from ..results import ComparisonResult
from ..rope import Rope

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Rankings simulated per posterior draw for the rank distribution.
RANKINGS_PER_DRAW = 10


def check_win_rope(win_rope: Sequence[float]) -> tuple[float, float]:
    """A rope (low, high) around 0.5 for P(a beats b): 0 <= low <= 0.5 <= high <= 1."""
    try:
        low, high = (float(v) for v in win_rope)
    except (TypeError, ValueError):
        raise TypeError(
            f"win_rope must be a pair (low, high), e.g. (0.45, 0.55); got {win_rope!r}."
        ) from None
    if not 0.0 <= low <= 0.5 <= high <= 1.0:
        raise ValueError(
            f"win_rope must satisfy 0 <= low <= 0.5 <= high <= 1 (a rope around 0.5 for a "
            f"probability of winning); got {win_rope!r}."
        )
    return low, high


@dataclass(frozen=True)
class RankingFit:
    """What every pair of one ranking fit shares: the model's name, its prior (in words), the win
    rope on P(a beats b), the mass of the HDIs, the fit's MCMC diagnostics and its sampler
    settings."""

    model_name: str
    prior: str
    win_rope: tuple[float, float]
    hdi_prob: float
    diagnostics: dict[str, float]
    settings: dict[str, Any] = field(default_factory=dict)


class WinPairResult(ComparisonResult):
    """One pair (first, second) of a ranking model, as a three-outcome result.

    The quantity is θ = P(second beats first). ``probs`` are P(θ < low), P(low ≤ θ ≤ high) and
    P(θ > high) for the win rope (low, high): first better, practically equivalent, second
    better, as for every pair result. ``rope`` is the win rope on θ − 1/2 (the "difference"
    second − first of this result), so that the mirror of the pair, 1 − θ, negates it.
    """

    def __init__(self, names: tuple[str, str], draws: np.ndarray, fit: RankingFit) -> None:
        self.names = names
        self.draws = np.asarray(draws, float)
        self.rope = Rope(fit.win_rope[0] - 0.5, fit.win_rope[1] - 0.5)
        self.diagnostics = fit.diagnostics
        self.settings = fit.settings
        self.prior = fit.prior
        self.test_name = fit.model_name
        self.hdi_prob = fit.hdi_prob

    @property
    def probs(self) -> Probabilities:
        return self._probs_at(self.rope)

    def _probs_at(self, rope: Rope) -> Probabilities:
        return region_shares(self.draws - 0.5, rope)

    def _default_max_rope(self) -> float:
        return 0.5

    @property
    def convergence_problems(self) -> tuple[str, ...]:
        return tuple(convergence_problems(self.diagnostics))

    def summary(self, alpha: float = 0.05) -> str:
        first, second = self.names
        low, high = hdi(self.draws, self.hdi_prob)
        return "\n".join(
            [
                f"{self.test_name}: P({second} beats {first}) = {self.draws.mean():.3f}, "
                f"{self.hdi_prob:.0%} HDI [{low:.3f}, {high:.3f}]; win rope "
                f"[{self.rope.low + 0.5:g}, {self.rope.high + 0.5:g}]",
                *self._probability_lines(self.probs),
                *self._decision_lines(alpha),
            ]
        )


@pair_estimate.register
def _(result: WinPairResult) -> PairEstimate:
    """P(second beats first) − 1/2: posterior mean and HDI (the mirror negates it: 1 − θ)."""
    low, high = hdi(result.draws, result.hdi_prob)
    return PairEstimate(
        float(result.draws.mean()) - 0.5,
        low - 0.5,
        high - 0.5,
        f"posterior mean of P(second beats first) - 1/2, {result.hdi_prob:.0%} HDI",
    )


def strength_draws(idata: az.InferenceData) -> np.ndarray:
    """The posterior draws of the log-strengths, (chains · draws) x models."""
    values = idata.posterior["strength"].values
    return values.reshape(-1, values.shape[-1])


def pair_results(
    idata: az.InferenceData, models: Sequence[str], fit: RankingFit
) -> dict[tuple[str, str], WinPairResult]:
    """A :class:`WinPairResult` for every pair (models[i], models[j]), i < j."""
    strengths = strength_draws(idata)
    out = {}
    for i, first in enumerate(models):
        for j in range(i + 1, len(models)):
            theta = 1.0 / (1.0 + np.exp(strengths[:, i] - strengths[:, j]))
            out[first, models[j]] = WinPairResult((first, models[j]), theta, fit)
    return out


class RankingResult(OneFitChecks, ManyModelResult):
    """k models compared by a ranking model (Bradley-Terry or Plackett-Luce).

    Besides everything a :class:`~bayes_hier.compare.ManyModelResult` has (``pairs``,
    ``result[a, b]``, ``matrix``, reports), from the posterior of the log-strengths s:

    * :meth:`win_probabilities`: P(a beats b) = exp(s_a) / (exp(s_a) + exp(s_b)) per pair, in
      the ranking order, with its HDI, P(> 1/2) and P(inside the win rope);
    * :attr:`p_best`: the posterior mean of exp(s_a) / Σ_b exp(s_b), the probability that a is
      ranked first on a new data set (Plackett-Luce: the weight w_a; Bradley-Terry: the same
      with the strengths exp(β), Luce's choice model of which a pairwise Bradley-Terry model is
      the two-model case);
    * :attr:`rank_probabilities`, :attr:`expected_rank`: the ranks of the models in rankings of
      a new data set simulated from the strengths (:data:`RANKINGS_PER_DRAW` per posterior draw,
      seeded by ``predictive_seed``; Monte Carlo error about 0.5 / sqrt(draws · 10)).

    The statements of a fit that failed its convergence checks are not decisions: every pair's
    decision is "not converged" and :meth:`summary` says so.
    """

    def __init__(
        self,
        pairs: dict,
        *,
        idata: az.InferenceData,
        fit: RankingFit,
        model_input: Any,
        predictive_seed: int,
        description: Sequence[str] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(pairs, **kwargs)
        self.idata = idata
        self.diagnostics = fit.diagnostics
        self.model_name = fit.model_name
        self.win_rope = fit.win_rope
        self.hdi_prob = fit.hdi_prob
        self.model_input = model_input
        self.predictive_seed = predictive_seed
        self.description = list(description)

    @property
    def rope_units(self) -> str:
        """What the rope of the pairs is on (the reports state it)."""
        low, high = self.win_rope
        return (
            f"units of P(second beats first) - 1/2 (the win rope [{low:g}, {high:g}] on the "
            "probability that the second model beats the first)"
        )

    @property
    def fit_label(self) -> str:
        """How warnings and the report's ranking caption name the fit: the model's name."""
        return self.model_name

    # ------------------------------------------------------------------ draws
    @cached_property
    def strengths(self) -> np.ndarray:
        """Posterior draws of the log-strengths, draws x models."""
        return strength_draws(self.idata)

    @cached_property
    def weights(self) -> pd.DataFrame:
        """Posterior draws of the normalised strengths exp(s_a) / Σ_b exp(s_b), one column per
        model (Plackett-Luce: the weights w themselves)."""
        return pd.DataFrame(softmax(self.strengths), columns=list(self.models))

    def win_draws(self, first: str, second: str) -> np.ndarray:
        """Posterior draws of P(first beats second)."""
        a, b = self.models.index(first), self.models.index(second)
        return 1.0 / (1.0 + np.exp(self.strengths[:, b] - self.strengths[:, a]))

    # ------------------------------------------------------------------ ranking
    @cached_property
    def p_best(self) -> pd.Series:
        """Posterior mean of P(ranked first on a new data set) = E[exp(s_a) / Σ_b exp(s_b)]."""
        return self.weights.mean(axis=0).rename("p_best").rename_axis("model")

    @cached_property
    def rank_probabilities(self) -> pd.DataFrame:
        """P(model has rank r on a new data set), models x ranks 1..k (simulated rankings)."""
        rng = np.random.default_rng(self.predictive_seed)
        ranks = simulated_rankings(self.strengths, RANKINGS_PER_DRAW, rng)
        return rank_table(ranks, self.models)

    @cached_property
    def expected_rank(self) -> pd.Series:
        """Expected rank on a new data set, Σ_r r · P(rank r)."""
        return expected_ranks(self.rank_probabilities)

    @property
    def order(self) -> list[str]:
        """The models by expected rank (best first)."""
        return list(self.expected_rank.sort_values(kind="stable").index)

    @cached_property
    def ranking(self) -> pd.DataFrame:
        """Per model, best first: P(best), expected rank, posterior mean of the log-strength
        (centred over the models) and of the weight exp(s) / Σ exp(s) with its HDI."""
        centred = self.strengths - self.strengths.mean(axis=1, keepdims=True)
        intervals = [hdi(self.weights[m].to_numpy(), self.hdi_prob) for m in self.models]
        table = pd.DataFrame(
            {
                "p_best": self.p_best,
                "expected_rank": self.expected_rank,
                "mean_strength": pd.Series(centred.mean(axis=0), index=list(self.models)),
                "weight_hdi_low": pd.Series([i[0] for i in intervals], index=list(self.models)),
                "weight_hdi_high": pd.Series([i[1] for i in intervals], index=list(self.models)),
            }
        )
        table.index.name = "model"
        return table.loc[self.order]

    def win_probabilities(self) -> pd.DataFrame:
        """One row per pair (first, second) with first ranked above second, in the ranking order:
        ``mean`` and HDI (``hdi_low``, ``hdi_high``, mass ``hdi_prob``) of P(first beats
        second), ``above_half`` = P(P(first beats second) > 1/2) and ``in_rope`` = P(it lies in
        the win rope), both posterior shares of the draws."""
        low, high = self.win_rope
        order = self.order
        rows = []
        for i, first in enumerate(order):
            for second in order[i + 1 :]:
                draws = self.win_draws(first, second)
                interval = hdi(draws, self.hdi_prob)
                rows.append(
                    {
                        "first": first,
                        "second": second,
                        "mean": float(draws.mean()),
                        "hdi_low": interval[0],
                        "hdi_high": interval[1],
                        "above_half": float(np.mean(draws > 0.5)),
                        "in_rope": float(np.mean((draws >= low) & (draws <= high))),
                    }
                )
        return pd.DataFrame(rows)

    def report_tables(self) -> list[tuple[pd.DataFrame, str]]:
        """The reports' extra table: :meth:`win_probabilities`, rounded, with its caption."""
        low, high = self.win_rope
        caption = (
            f"P(first beats second): posterior mean, {self.hdi_prob:.0%} HDI, P(> 0.5) and "
            f"P(inside the win rope [{low:g}, {high:g}])"
        )
        return [(self.win_probabilities().round(3), caption)]

    # ------------------------------------------------------------------ text
    def summary(self) -> str:
        """The ranking, P(a beats b) per pair and the MCMC diagnostics."""
        d = self.diagnostics
        width = max(8, *(len(m) for m in self.models))
        lines = [f"{self.model_name}: {len(self.models)} models", *self.description]
        if self.not_converged_note:
            lines.append(self.not_converged_note)
        lines.append(f"  {'model':<{width}} {'P(best)':>8} {'E[rank]':>8}")
        for model, row in self.ranking.iterrows():
            lines.append(f"  {model:<{width}} {row.p_best:>8.3f} {row.expected_rank:>8.2f}")
        low, high = self.win_rope
        lines.append(
            f"P(first beats second), mean and {self.hdi_prob:.0%} HDI; P(> 0.5); "
            f"P(in [{low:g}, {high:g}]):"
        )
        for row in self.win_probabilities().itertuples():
            lines.append(
                f"  {row.first} > {row.second}: {row.mean:.3f} [{row.hdi_low:.3f}, "
                f"{row.hdi_high:.3f}]; {row.above_half:.3f}; {row.in_rope:.3f}"
            )
        lines.append(
            f"MCMC ({self.settings.get('engine')}, {d['chains']} chains x {d['draws']} draws, "
            f"seed {self.settings.get('seed')}): {d['divergences']} divergences, max R-hat "
            f"{d['max_rhat']:.3f}, min ESS bulk {d['min_ess_bulk']:.0f} / tail "
            f"{d['min_ess_tail']:.0f}" + (" [WARNINGS]" if self.problems else "")
        )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """:meth:`ManyModelResult.to_dict` plus ``p_best``, ``expected_rank`` (by model),
        ``rank_probabilities`` (model -> [P(rank 1), ...]) and ``win_probabilities`` (rows)."""
        out = super().to_dict()
        for name in ("p_best", "expected_rank"):
            out[name] = {model: float(value) for model, value in getattr(self, name).items()}
        out["rank_probabilities"] = {
            model: [float(p) for p in row] for model, row in self.rank_probabilities.iterrows()
        }
        out["win_probabilities"] = self.win_probabilities().to_dict(orient="records")
        return out

    # ------------------------------------------------------------------ plots
    def plot_win_probabilities(self, ax: Axes | None = None) -> Figure:
        """Dot-and-interval plot of P(first beats second) per pair (mean and HDI), the win rope
        shaded."""
        from .plots import plot_win_probabilities

        return plot_win_probabilities(self, ax=ax)

    def plot_pairs(self, ax: Any = None) -> Figure:
        """The pairs as P(first beats second) with HDIs (:meth:`plot_win_probabilities`)."""
        return self.plot_win_probabilities(ax=ax)

    def plot_weights(self, ax: Axes | None = None) -> Figure:
        """Posterior of each model's weight exp(s_a) / Σ exp(s) (violins, mean marked)."""
        from .plots import plot_weights

        return plot_weights(self, ax=ax)

    def plot_p_best(self, ax: Axes | None = None) -> Figure:
        """The weights' posterior (:meth:`plot_weights`): its mean is P(best)."""
        return self.plot_weights(ax=ax)

    def plot_rank_probabilities(self, ax: Axes | None = None) -> Figure:
        """Heatmap of :attr:`rank_probabilities` (models by expected rank x rank)."""
        from ..plots import plot_rank_probabilities

        fig = plot_rank_probabilities(self, ax=ax)
        fig.axes[0].set_title(f"{self.model_name}: rank probabilities")
        return fig


__all__ = [
    "RANKINGS_PER_DRAW",
    "RankingFit",
    "RankingResult",
    "WinPairResult",
    "check_win_rope",
    "pair_results",
    "strength_draws",
]
