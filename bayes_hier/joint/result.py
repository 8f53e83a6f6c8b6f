"""The result of the joint model: pair results, P(best), rank distribution, shrinkage, plots.

:class:`JointResult` is a :class:`~bayes_hier.compare.ManyModelResult` (the pairs table, the
probability matrices, the reports and the command line work unchanged) whose pairs all come from
one posterior. Each pair is a :class:`JointPairResult`, a
:class:`~bayes_hier.hierarchical.HierarchicalResult` built from the joint posterior's draws of that
pair (δ₀, σ₀, ν and the per-data-set δ_i of the pair): every two-model summary, table and plot
applies to it as it is.
"""

from __future__ import annotations

import warnings
from functools import cached_property
from typing import TYPE_CHECKING, Any

import arviz as az
import numpy as np
import pandas as pd
import xarray as xr

from ..callers import user_stacklevel
from ..compare.result import ManyModelResult
from ..data import CVData
from ..diagnostics import OneFitChecks
from ..fitting.draws import FittedResult
from ..formatting import toward_half
from ..hierarchical.result import HierarchicalResult, hdi
from ..probabilities import region_shares
from ..ranks import expected_ranks, rank_table, ranks_of
from ..rope import Rope
from .data import MultiCVData
from .heavy_tails import heavy_tail_hint
from .model_input import JointModelInput, JointPrior
from .noise_check import NoiseMisfitWarning, misfit_message, noise_check_table, pair_scatters
from .posterior import covariance_root, pair_labels

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Predictive draws of a new data set's model effects per posterior draw (P(best), ranks).
NEXT_DRAWS_PER_POSTERIOR_DRAW = 10


class JointPairResult(HierarchicalResult):
    """One pair (first, second) of the joint model, as a two-model hierarchical result.

    ``probs`` are the next-data-set probabilities of d = second − first (share of posterior draws
    in which left, rope or right has the largest mass of the pair's Student-t population),
    ``population`` the posterior of the population mean difference δ₀ and ``per_dataset`` the
    shrinkage estimates of the pair's difference on every data set, all in the original units.
    """

    test_name = "Joint Bayesian hierarchical model"

    def summary(self, alpha: float = 0.05) -> str:
        """The two-model report, headed by what this pair is part of."""
        lines = super().summary(alpha).splitlines()
        first, second = self.names
        lines[0] = (
            f"Joint hierarchical model of {self.settings['models']} models, pair {first} vs "
            f"{second} on {self.cv.q} data sets, rope {self.rope}"
        )
        return "\n".join(lines)


def _three(*probabilities: float) -> str:
    """Probabilities with three decimals rounded toward 1/2, comma-separated."""
    return ", ".join(toward_half(p) for p in probabilities)


def pair_result(
    idata: az.InferenceData,
    data: MultiCVData,
    pair: tuple[str, str],
    rope: Rope,
    model_input: JointModelInput,
    prior: JointPrior,
    diagnostics: dict[str, float],
    settings: dict[str, Any],
    hdi_prob: float,
) -> JointPairResult:
    """The :class:`JointPairResult` of ``pair`` = (first, second) from the joint posterior.

    Its data (``cv``, the per-data-set draws δ_i and σ_i) are those of the data sets on which both
    models were run (:func:`pair_datasets`); the population quantities use every data set.
    """
    first, second = pair
    a, b = data.models.index(first), data.models.index(second)
    posterior = idata.posterior
    label = f"{second} - {first}"
    both = pair_datasets(data, pair)
    per_set = {"dataset": list(both)}
    variables = {
        "delta0": posterior["delta0"].sel(pair=label, drop=True),
        "sigma0": posterior["sigma0"].sel(pair=label, drop=True),
        "delta": (
            posterior["mu"].sel(model=second, drop=True)
            - posterior["mu"].sel(model=first, drop=True)
        ).sel(per_set),
        "sigma": posterior["sigma"].sel(pair=label, drop=True).sel(per_set),
    }
    if "nu" in posterior:
        variables["nu"] = posterior["nu"]
    view = az.InferenceData(posterior=xr.Dataset(variables), sample_stats=idata.sample_stats)
    rows = [data.datasets.index(name) for name in both]
    cv = CVData(
        [data.scores[i][:, b] - data.scores[i][:, a] for i in rows],
        runs=data.runs[rows],
        rho=data.rho[rows],
        datasets=both,
        names=pair,
        higher_is_better=data.higher_is_better,
    )
    return JointPairResult(
        idata=view,
        cv=cv,
        rope=rope,
        model_input=model_input,
        prior=prior,
        diagnostics=diagnostics,
        settings={**settings, "models": data.k},
        hdi_prob=hdi_prob,
    )


def pair_datasets(data: MultiCVData, pair: tuple[str, str]) -> tuple[str, ...]:
    """The data sets on which both models of ``pair`` were run, in order."""
    a, b = data.models.index(pair[0]), data.models.index(pair[1])
    observed = data.observed
    return tuple(name for i, name in enumerate(data.datasets) if observed[i, a] and observed[i, b])


class JointResult(OneFitChecks, ManyModelResult, FittedResult):
    """k models compared by one joint Bayesian hierarchical model (``stan/joint.stan``).

    Besides everything a :class:`~bayes_hier.compare.ManyModelResult` has (``pairs``,
    ``result[a, b]``, ``matrix``, reports), from the same posterior:

    * :attr:`p_best`, :attr:`p_practically_best`, :attr:`rank_probabilities`,
      :attr:`expected_rank`: about the models' scores on a *new* data set, from predictive draws
      of its true model effects (Student-t population, :data:`NEXT_DRAWS_PER_POSTERIOR_DRAW` per
      posterior draw);
    * :attr:`p_best_population`: the same for the population mean effects;
    * :attr:`per_dataset`: shrinkage estimates of every model's centred effect on every data set;
    * :attr:`diagnostics`: the joint fit's MCMC diagnostics (shared by all pairs).

    All in the original units, "higher is better" after the sign convention. The statements of a
    fit that failed its convergence checks are not decisions: every pair's decision is "not
    converged", and :meth:`summary` and the report's ranking caption say so.
    """

    fit_label = "joint model"

    def __init__(
        self,
        pairs: dict,
        *,
        idata: az.InferenceData,
        data: MultiCVData,
        model_input: JointModelInput,
        prior: JointPrior,
        diagnostics: dict[str, float],
        predictive_seed: int,
        hdi_prob: float = 0.95,
        **kwargs: Any,
    ) -> None:
        super().__init__(pairs, **kwargs)
        self.keep_fit(idata, model_input, prior, diagnostics, hdi_prob)
        self.data = data
        self.predictive_seed = predictive_seed
        self._noise_checks: dict[float, pd.DataFrame] = {}

    # ------------------------------------------------------------------ draws
    @cached_property
    def next_sample(self) -> np.ndarray:
        """Predictive draws of a new data set's true centred model effects, shape (m·R, k).

        For each posterior draw: τ ~ Gamma(ν/2, ν/2) (τ = 1 for the Gaussian population),
        θ = θ₀ + chol(Σ₀) z / √τ with z ~ N(0, I), effects Cᵀθ. R =
        :data:`NEXT_DRAWS_PER_POSTERIOR_DRAW`; seeded by ``predictive_seed``.
        """
        rng = np.random.default_rng(self.predictive_seed)
        theta0, sigma0 = self.posterior_draws("theta0"), self.posterior_draws("Sigma0")
        m, d = theta0.shape
        replicates = NEXT_DRAWS_PER_POSTERIOR_DRAW
        root = covariance_root(sigma0)
        if "nu" in self.idata.posterior:
            nu = np.repeat(self.posterior_draws("nu"), replicates)
            tau = rng.gamma(nu / 2, 2 / nu)
        else:
            tau = np.ones(m * replicates)
        z = rng.standard_normal((m, replicates, d))
        theta = (
            theta0[:, None]
            + np.einsum("mij,mrj->mri", root, z) / np.sqrt(tau.reshape(m, replicates))[..., None]
        )
        return theta.reshape(m * replicates, d) @ self.model_input.contrasts

    # ------------------------------------------------------------------ ranking
    @cached_property
    def rank_probabilities(self) -> pd.DataFrame:
        """P(model has rank r on a new data set), models × ranks 1..k; every row sums to 1."""
        return rank_table(ranks_of(self.next_sample), self.models)

    @cached_property
    def p_best(self) -> pd.Series:
        """P(the model is the best on a new data set): the first column of the rank table."""
        return self.rank_probabilities[1].rename("p_best")

    @cached_property
    def expected_rank(self) -> pd.Series:
        """Posterior predictive expected rank on a new data set, Σ_r r · P(rank r)."""
        return expected_ranks(self.rank_probabilities)

    @cached_property
    def p_practically_best(self) -> pd.Series:
        """P(the model is within the rope of the best on a new data set).

        Model a is practically best in a draw when max_b μ_b − μ_a ≤ rope.high (the best minus a,
        as a difference "second − first" with a first, is inside or left of the rope). At least
        one model is practically best in every draw, so these probabilities sum to 1 or more.
        """
        effects = self.next_sample
        gap = effects.max(axis=1, keepdims=True) - effects
        return pd.Series(
            (gap <= self.rope.high).mean(axis=0), index=list(self.models), name="p_practically_best"
        )

    @cached_property
    def p_best_population(self) -> pd.Series:
        """P(the model has the highest population mean effect μ₀)."""
        mu0 = self.posterior_draws("mu0")
        best = np.argmax(mu0, axis=1)
        counts = np.bincount(best, minlength=len(self.models)) / best.size
        return pd.Series(counts, index=list(self.models), name="p_best_population")

    @cached_property
    def ranking(self) -> pd.DataFrame:
        """Per model (best expected rank first): P(best), P(practically best), expected rank,
        P(best) for the population mean and the posterior mean of its population effect μ₀."""
        table = pd.DataFrame(
            {
                "p_best": self.p_best,
                "p_practically_best": self.p_practically_best,
                "expected_rank": self.expected_rank,
                "p_best_population": self.p_best_population,
                "mean_effect": pd.Series(
                    self.posterior_draws("mu0").mean(axis=0), index=list(self.models)
                ),
            }
        )
        table.index.name = "model"
        return table.sort_values("expected_rank", kind="stable")

    @property
    def order(self) -> list[str]:
        """The models by expected rank on a new data set (best first)."""
        return list(self.expected_rank.sort_values(kind="stable").index)

    # ------------------------------------------------------------------ pairs and data sets
    @cached_property
    def pairs(self) -> pd.DataFrame:
        """The pairs table of :class:`ManyModelResult` plus, per pair, the probabilities for the
        population mean difference δ₀ (``p_population_first_better``, ``_rope``, ``_better``)."""
        table = super().pairs
        population = [self.pair_results[pair].population.probs for pair in self.pair_results]
        table["p_population_first_better"] = [p.left for p in population]
        table["p_population_rope"] = [p.rope for p in population]
        table["p_population_second_better"] = [p.right for p in population]
        return table

    @cached_property
    def per_dataset(self) -> pd.DataFrame:
        """Per data set and model: the observed centred mean score (the MLE of the effect), its
        shrinkage estimate E[μ_ia | data] and HDI (original units). μ_ia is the model's mean
        score minus the mean over models on that data set. On a data set where some models were
        not run, ``run`` is False for them, their ``mle`` is NaN, the others' ``mle`` is centred
        over the models run there, and ``shrunk`` is the model's effect predicted from the
        scores of the models run there and the population."""
        mu = self.posterior_draws("mu")
        run = self.data.observed
        means = self.data.means
        observed = means - np.nanmean(means, axis=1, keepdims=True)
        rows = []
        for i, dataset in enumerate(self.data.datasets):
            for a, model in enumerate(self.models):
                low, high = hdi(mu[:, i, a], self.hdi_prob)
                rows.append(
                    {
                        "dataset": dataset,
                        "model": model,
                        "run": bool(run[i, a]),
                        "mle": float(observed[i, a]),
                        "shrunk": float(mu[:, i, a].mean()),
                        "hdi_low": low,
                        "hdi_high": high,
                    }
                )
        return pd.DataFrame(rows)

    def population_probabilities(self) -> pd.DataFrame:
        """Per pair: region shares of the population mean difference δ₀ (left, rope, right)."""
        rows = []
        for (first, second), result in self.pair_results.items():
            probs = region_shares(result.posterior_draws("delta0"), self.rope)
            rows.append({"first": first, "second": second, **probs._asdict()})
        return pd.DataFrame(rows)

    def noise_check(self, level: float = 0.95) -> pd.DataFrame:
        """Posterior predictive check of the fold noise, per pair (:mod:`~.noise_check`).

        For each pair, over the data sets where both models were run: ``sd_ratio``, the median of
        the observed per-fold sd of the pair's differences (corrected for the folds' correlation)
        over its posterior median σ_iab, and the shares of data sets whose posterior predictive
        p-value of the differences' scatter lies in the lower (``share_overstated``: the model
        gives the pair more noise than its folds show) or upper (``share_understated``) tail
        outside the central ``level`` interval. With a noise structure that fits, the ratios are
        near 1 and each share at most about (1 − level)/2.
        """
        if level not in self._noise_checks:
            labels = list(self.pair_results)
            indices = [(self.models.index(a), self.models.index(b)) for a, b in labels]
            scores = [block * self.model_input.scale for block in self.model_input.scores]
            scatter, dof = pair_scatters(scores, np.asarray(self.model_input.data["rho"]), indices)
            self._noise_checks[level] = noise_check_table(
                scatter, dof, self.posterior_draws("sigma"), labels, level
            )
        return self._noise_checks[level].copy()

    def warn(self) -> None:
        """The fit's :class:`~bayes_hier.diagnostics.SamplingWarning` s and, for a converged fit
        with the fold-level noise, a :class:`~.noise_check.NoiseMisfitWarning` naming the pairs
        whose folds it does not fit (:func:`~.noise_check.misfit_message`)."""
        super().warn()
        if self.model_input.noise == "fold" and self.converged:
            message = misfit_message(self.noise_check())
            if message:
                warnings.warn(message, NoiseMisfitWarning, stacklevel=user_stacklevel())

    def failure_hints(self) -> list[str]:
        """For a fit whose checks failed while the population's ν sits at its lower bound, the
        cause and the fix (:func:`~.heavy_tails.heavy_tail_hint`); called only for failed fits."""
        posterior = self.idata.posterior
        if "nu" not in posterior or "tau" not in posterior:
            return []
        tau = posterior["tau"].transpose(..., "dataset")
        hint = heavy_tail_hint(posterior["nu"].values, tau.values, tau.coords["dataset"].values)
        return [hint] if hint else []

    def _noise_check_line(self) -> str:
        """One sentence on :meth:`noise_check` at level 0.95."""
        table = self.noise_check()
        low, high = table.sd_ratio.idxmin(), table.sd_ratio.idxmax()
        weights = table.datasets / table.datasets.sum()
        outside = float((weights * (table.share_overstated + table.share_understated)).sum())
        return (
            "Noise check (observed / fitted per-fold sd of a pair's differences, median over data "
            f"sets): {table.sd_ratio[low]:.2f} ({table.first[low]} vs {table.second[low]}) to "
            f"{table.sd_ratio[high]:.2f} ({table.first[high]} vs {table.second[high]}); "
            f"{outside:.1%} of the data sets' pairs outside their 95% predictive interval "
            f"(at most about 5% when the noise structure fits); {int(table.misfit.sum())} of "
            f"{len(table)} pairs flagged as not fitted"
        )

    # ------------------------------------------------------------------ text
    def summary(self) -> str:
        """The ranking, the pairs and the MCMC diagnostics."""
        d = self.diagnostics
        width = max(8, *(len(m) for m in self.models))
        noise = ", fold-level noise" if self.model_input.noise == "fold" else ""
        lines = [
            f"Joint Bayesian hierarchical model: {len(self.models)} models on "
            f"{self.data.q} data sets, rope {self.rope}{noise}"
            + ("" if self.data.higher_is_better else " (scores negated: lower is better)"),
            *([self.not_converged_note] if self.not_converged_note else []),
            "On a new data set:",
            f"  {'model':<{width}} {'P(best)':>8} {'P(pract. best)':>14} {'E[rank]':>8}",
        ]
        for model, row in self.ranking.iterrows():
            lines.append(
                f"  {model:<{width}} {row.p_best:>8.3f} {row.p_practically_best:>14.3f} "
                f"{row.expected_rank:>8.2f}"
            )
        lines.append("Pairs (next data set | population mean):")
        for row in self.pairs.itertuples():
            lines.append(
                f"  {row.first} vs {row.second}: P({row.first} better, rope, {row.second} better)"
                f" = ({_three(row.p_first_better, row.p_rope, row.p_second_better)}) | ("
                + _three(
                    row.p_population_first_better,
                    row.p_population_rope,
                    row.p_population_second_better,
                )
                + ")"
            )
        lines.append(
            f"MCMC ({self.settings.get('engine')}, {d['chains']} chains x {d['draws']} draws, "
            f"seed {self.settings.get('seed')}): {d['divergences']} divergences, max R-hat "
            f"{d['max_rhat']:.3f}, min ESS bulk {d['min_ess_bulk']:.0f} / tail "
            f"{d['min_ess_tail']:.0f}, tree-depth hits {d['max_treedepth_hits']}, min E-BFMI "
            f"{d['min_ebfmi']:.2f}" + (" [WARNINGS]" if self.problems else "")
        )
        if self.model_input.noise == "fold":
            lines.append(self._noise_check_line())
        if not self.data.complete:
            counts = self.data.observed.sum(axis=0)
            lacking = [f"{m} ({c})" for m, c in zip(self.models, counts) if c < self.data.q]
            lines.append(f"Models run on only some data sets (how many): {', '.join(lacking)}")
        if self.model_input.perturbed:
            lines.append(f"Perturbed ties: {', '.join(self.model_input.perturbed)}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """:meth:`ManyModelResult.to_dict` plus the ranking: ``p_best``, ``p_practically_best``,
        ``expected_rank``, ``p_best_population`` (by model) and ``rank_probabilities``
        (model -> [P(rank 1), ..., P(rank k)])."""
        out = super().to_dict()
        for name in ("p_best", "p_practically_best", "expected_rank", "p_best_population"):
            out[name] = {model: float(value) for model, value in getattr(self, name).items()}
        out["rank_probabilities"] = {
            model: [float(p) for p in row] for model, row in self.rank_probabilities.iterrows()
        }
        return out

    # ------------------------------------------------------------------ plots
    def plot_rank_probabilities(self, ax: Axes | None = None) -> Figure:
        """Heatmap of :attr:`rank_probabilities` (models by expected rank × rank)."""
        from ..plots import plot_rank_probabilities

        return plot_rank_probabilities(self, ax=ax)

    def plot_p_best(self, ax: Axes | None = None) -> Figure:
        """Bars of P(best) and P(practically best) on a new data set."""
        from .plots import plot_p_best

        return plot_p_best(self, ax=ax)

    def plot_bayesian_cd(self, ax: Axes | None = None) -> Figure:
        """Models at their expected rank; groups of practically equivalent models joined."""
        from .plots import plot_bayesian_cd

        return plot_bayesian_cd(self, ax=ax)


__all__ = [
    "NEXT_DRAWS_PER_POSTERIOR_DRAW",
    "JointPairResult",
    "JointResult",
    "pair_datasets",
    "pair_labels",
    "pair_result",
]
