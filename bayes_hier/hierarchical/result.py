"""The result of the hierarchical test: probabilities, shrinkage, diagnostics, tables and plots."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import arviz as az
import numpy as np
import pandas as pd

from ..data import CVData
from ..decision import OUTCOMES
from ..diagnostics import convergence_problems
from ..fitting.draws import FittedResult
from ..formatting import toward_half
from ..probabilities import (
    Probabilities,
    argmax_shares,
    region_shares,
    student_t_region_masses,
)
from ..results import ComparisonResult
from ..rope import Rope
from .model_input import HierarchicalPrior, ModelInput

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def hdi(sample: np.ndarray, prob: float) -> tuple[float, float]:
    """Highest-density interval of a 1-D sample (arviz's implementation)."""
    low, high = az.hdi(np.asarray(sample, float), hdi_prob=prob)
    return float(low), float(high)


def refit_lines(settings: dict[str, Any]) -> list[str]:
    """Lines of :meth:`HierarchicalResult.summary` saying that the fit reported replaced a first
    one (``settings["fallback_from"]``: the scale-mixture or quadrature fit failed and two-chart
    coordinates were fitted; ``settings["extended_from"]``: the first fit mixed slowly and more
    draws were taken, more than once if a longer fit mixed slowly too), with the failed checks of
    every fit replaced; empty when neither happened."""
    lines = []
    fallback = settings.get("fallback_from")
    if fallback:
        lines.append(
            f"Fitted again in {settings.get('coordinates', 'two-chart')} coordinates: the "
            f"{fallback['coordinates']} fit failed its checks ({' '.join(fallback['problems'])})"
        )
    extended = settings.get("extended_from")
    if extended:
        slow = [extended, *extended.get("slow_extensions", [])]
        lines.append(
            f"Fitted again with {settings.get('draws')} draws per chain: "
            + ", then ".join(
                f"the fit with {fit['draws']} mixed slowly ({' '.join(fit['problems'])})"
                for fit in slow
            )
        )
    return lines


@dataclass(frozen=True)
class PopulationSummary:
    """Posterior of the population mean difference δ₀ (original units).

    Attributes
    ----------
    mean, hdi_low, hdi_high, hdi_prob
        Posterior mean and highest-density interval of δ₀.
    probs
        P(δ₀ < low), P(low ≤ δ₀ ≤ high), P(δ₀ > high) for the rope [low, high].
    """

    mean: float
    hdi_low: float
    hdi_high: float
    hdi_prob: float
    probs: Probabilities

    def __str__(self) -> str:
        return (
            f"mean {self.mean:.4g}, {self.hdi_prob:.0%} HDI [{self.hdi_low:.4g}, "
            f"{self.hdi_high:.4g}]; P(left, rope, right) = "
            f"({', '.join(toward_half(p) for p in self.probs)})"
        )


class HierarchicalResult(ComparisonResult, FittedResult):
    """Posterior of the hierarchical model for two models on several data sets.

    All numbers are in the original units of the scores and follow the package convention
    d = second − first (conventions §0): ``left`` means the first model is better.

    Attributes
    ----------
    idata
        The draws (:class:`arviz.InferenceData`), rescaled back to the original units:
        ``delta0``, ``sigma0``, ``nu``, ``delta`` and ``sigma`` (per data set), the mixing
        precisions ``tau`` of the Student-t population (per data set) and, with the hierarchical
        ν prior, ``nu_alpha`` and ``nu_beta``.
    cv
        The validated input.
    rope
        The rope in the units of the scores.
    diagnostics
        Divergences, max R-hat, min bulk/tail ESS, tree-depth hits and min E-BFMI.
    settings
        Engine, seeds, chains, draws, warm-up and NUTS settings.
    """

    test_name = "Bayesian hierarchical test"

    def __init__(
        self,
        idata: az.InferenceData,
        cv: CVData,
        rope: Rope,
        model_input: ModelInput,
        prior: HierarchicalPrior,
        diagnostics: dict[str, float],
        settings: dict[str, Any],
        hdi_prob: float = 0.95,
    ) -> None:
        self.keep_fit(idata, model_input, prior, diagnostics, hdi_prob)
        self.cv = cv
        self.names = cv.names
        self.rope = rope
        self.settings = settings

    @property
    def convergence_problems(self) -> tuple[str, ...]:
        """The fit's failed convergence checks (divergences, R-hat, ESS; each with its fix):
        with any of them, :meth:`decision` declares nothing ("not converged")."""
        return tuple(convergence_problems(self.diagnostics))

    # ------------------------------------------------------------------ draws
    @cached_property
    def nu_draws(self) -> np.ndarray:
        """Draws of ν (infinite for the Gaussian population)."""
        if self.prior.nu_prior == "gaussian":
            return np.full(self.posterior_draws("delta0").shape, np.inf)
        return self.posterior_draws("nu").reshape(-1)

    def _simplex_sample(self, rope: Rope) -> np.ndarray:
        return student_t_region_masses(
            self.posterior_draws("delta0"), self.posterior_draws("sigma0"), self.nu_draws, rope
        )

    @cached_property
    def sample(self) -> np.ndarray:
        """Posterior sample on the simplex for the next data set, shape (m, 3).

        Row k holds the masses of Student-t(ν_k, δ₀_k, σ₀_k) below, inside and above the rope
        (conventions §3.3.1).
        """
        return self._simplex_sample(self.rope)

    def _probs_at(self, rope: Rope) -> Probabilities:
        """Next-data-set probabilities for another rope, from the same posterior draws (the
        posterior does not depend on the rope, so no refit is needed)."""
        return argmax_shares(self._simplex_sample(rope))

    def _default_max_rope(self) -> float:
        spread = float(np.abs(self.per_dataset["shrunk"]).max())
        return max(2 * self._reach(), spread, 1e-12)

    # ------------------------------------------------------------------ summaries
    @cached_property
    def probs(self) -> Probabilities:
        """Next-data-set probabilities: the share of posterior draws in which left, rope or
        right has the largest mass (the paper's headline inference, conventions §3.3.1)."""
        return argmax_shares(self.sample)

    @cached_property
    def predictive(self) -> Probabilities:
        """Posterior predictive probabilities that the *difference* on the next data set falls
        left of, inside or right of the rope: the posterior means of the three masses."""
        return Probabilities(*(float(v) for v in self.sample.mean(axis=0)))

    @cached_property
    def population(self) -> PopulationSummary:
        """Summary of the population mean difference δ₀ (conventions §3.3.2)."""
        delta0 = self.posterior_draws("delta0")
        low, high = hdi(delta0, self.hdi_prob)
        return PopulationSummary(
            float(delta0.mean()), low, high, self.hdi_prob, region_shares(delta0, self.rope)
        )

    @cached_property
    def per_dataset(self) -> pd.DataFrame:
        """Per data set: MLE (mean difference), shrinkage estimate E[δ_i | data], its HDI and
        P(δ_i < low), P(rope), P(δ_i > high), in the original units (conventions §3.3.3)."""
        delta = self.posterior_draws("delta")
        rows = []
        for i, name in enumerate(self.cv.datasets):
            low, high = hdi(delta[:, i], self.hdi_prob)
            probs = region_shares(delta[:, i], self.rope)
            rows.append(
                {
                    "dataset": name,
                    "mle": float(self.cv.means[i]),
                    "shrunk": float(delta[:, i].mean()),
                    "hdi_low": low,
                    "hdi_high": high,
                    "p_left": probs.left,
                    "p_rope": probs.rope,
                    "p_right": probs.right,
                }
            )
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """One row per outcome: its label, the next-data-set probability (argmax rule), the
        posterior predictive probability and the probability for the population mean δ₀."""
        return pd.DataFrame(
            {
                "outcome": list(OUTCOMES),
                "label": [self.labels[k] for k in OUTCOMES],
                "probability": list(self.probs),
                "predictive": list(self.predictive),
                "population": list(self.population.probs),
            }
        )

    def diagnostics_table(self) -> pd.DataFrame:
        """arviz summary (mean, sd, HDI, R-hat, ESS) of δ₀, σ₀ and ν."""
        names = ["delta0", "sigma0"] + (["nu"] if self.prior.nu_prior != "gaussian" else [])
        return az.summary(self.idata, var_names=names, hdi_prob=self.hdi_prob)

    def summary(self, alpha: float = 0.05) -> str:
        """A readable report naming the models."""
        first, second = self.names
        cv = self.cv
        design = (
            f"{cv.runs[0]} run(s) x {cv.folds[0]} folds"
            if np.all(cv.runs == cv.runs[0]) and np.all(cv.folds == cv.folds[0])
            else "ragged cross-validation"
        )
        d = self.diagnostics
        lines = [
            f"Bayesian hierarchical test: {first} vs {second} on {cv.q} data sets ({design}), "
            f"rope {self.rope}",
            f"  difference d = {second} - {first}"
            + ("" if cv.higher_is_better else " (scores negated: lower is better)")
            + f"; nu prior: {self.prior.nu_prior}",
            "Next data set (share of posterior draws in which each outcome is the most probable):",
            *self._probability_lines(self.probs),
            "Posterior predictive probability of the difference on the next data set:",
            *self._probability_lines(self.predictive),
            f"Population mean difference delta0: {self.population}",
            *self._decision_lines(alpha),
            f"MCMC ({self.settings['engine']}, {d['chains']} chains x {d['draws']} draws, seed "
            f"{self.settings['seed']}): {d['divergences']} divergences, max R-hat "
            f"{d['max_rhat']:.3f}, min ESS bulk {d['min_ess_bulk']:.0f} / tail "
            f"{d['min_ess_tail']:.0f}, tree-depth hits {d['max_treedepth_hits']}, min E-BFMI "
            f"{d['min_ebfmi']:.2f}" + ("" if not self.settings.get("problems") else " [WARNINGS]"),
        ]
        lines += refit_lines(self.settings)
        if self.model_input.perturbed:
            lines.append(
                f"Perturbed (constant differences): {', '.join(self.model_input.perturbed)}"
            )
        return "\n".join([*lines, *self._warning_lines()])

    # ------------------------------------------------------------------ plots
    def plot_simplex(self, ax: Axes | None = None, **kwargs: Any) -> Figure:
        """The next-data-set posterior sample on the probability simplex (a ternary plot)."""
        from ..plots import plot_simplex

        return plot_simplex(self.sample, self.labels, ax=ax, **kwargs)

    def plot_shrinkage(self, ax: Axes | None = None, **kwargs: Any) -> Figure:
        """MLE and shrinkage estimate of each data set's difference, with HDIs and the rope."""
        from .plots import plot_shrinkage

        return plot_shrinkage(
            self.per_dataset,
            rope=self.rope,
            population_mean=self.population.mean,
            names=self.names,
            hdi_prob=self.hdi_prob,
            ax=ax,
            **kwargs,
        )

    def plot_density(self, ax: Axes | None = None, **kwargs: Any) -> Figure:
        """Posterior predictive density of δ against a KDE of the shrinkage estimates."""
        from .plots import plot_density

        return plot_density(
            self.per_dataset["shrunk"].to_numpy(),
            self.posterior_draws("delta0"),
            self.posterior_draws("sigma0"),
            self.nu_draws,
            rope=self.rope,
            names=self.names,
            ax=ax,
            **kwargs,
        )

    def plot(self, **kwargs: Any) -> Figure:
        """The three plots side by side."""
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 3, figsize=(18, 5.5), **kwargs)
        self.plot_simplex(ax=axes[0])
        self.plot_shrinkage(ax=axes[1])
        self.plot_density(ax=axes[2])
        fig.tight_layout()
        return fig
