"""The Bayesian correlated t-test for one data set (Corani & Benavoli, 2015; conventions §1).

With the fold correlation ρ fixed and the matching (Normal–Gamma limit) prior, the posterior of
the mean difference μ is a Student t:

    μ | d ~ St(df = n − 1, loc = d̄, scale² = (1/n + ρ/(1−ρ)) · s²)

The probabilities come from its CDF (no sampling). When all differences are equal (s = 0) the
posterior is a point mass at d̄.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import check_fraction, check_int
from ..data import CVData, as_single_cvdata
from ..issued import records_warnings
from ..probabilities import Probabilities, student_t_region_masses
from ..rope import Rope, RopeLike
from ..seeding import SeedLike, resolve_seed
from .result import BayesianTestResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def student_probs(loc: float, scale: float, df: float, rope: Rope) -> Probabilities:
    """(left, rope, right) of St(df, loc, scale) for ``rope``; ``scale == 0`` is a point mass.

    Point mass: all probability on the region holding ``loc`` (rope edges count as rope); with
    an empty rope and ``loc == 0``, 0.5 on each side. Otherwise the masses of
    :func:`~bayes_hier.probabilities.student_t_region_masses`, which every model shares.
    """
    if scale == 0:
        if rope.is_empty:
            if loc == 0:
                return Probabilities(0.5, 0.0, 0.5)
            return Probabilities(float(loc < 0), 0.0, float(loc > 0))
        left, right = float(loc < rope.low), float(loc > rope.high)
        return Probabilities(left, 1.0 - left - right, right)
    masses = student_t_region_masses(np.array([loc]), np.array([scale]), np.array([df]), rope)
    return Probabilities(*(float(mass) for mass in masses[0]))


class CorrelatedTResult(BayesianTestResult):
    """Posterior of the mean difference μ on one data set: St(df, loc, scale).

    Attributes
    ----------
    cv
        The validated input (one data set).
    names, rope
        Model names (first, second) and the rope.
    n, rho
        Number of paired results and the fold correlation.
    df, loc, scale
        Degrees of freedom ``n − 1``, location ``d̄`` and scale
        ``sqrt((1/n + ρ/(1−ρ)) s²)`` of the Student posterior (``scale = 0``: point mass).
    hdi_prob
        Default mass of :meth:`hdi`.
    """

    test_name = "Bayesian correlated t-test"

    def __init__(self, cv: CVData, rope: Rope, hdi_prob: float = 0.95) -> None:
        self.cv = cv
        self.names = cv.names
        self.rope = rope
        self.hdi_prob = hdi_prob
        self.n = int(cv.n[0])
        self.rho = float(cv.rho[0])
        self.df = self.n - 1
        self.loc = float(cv.means[0])
        self.std = float(cv.stds[0])
        self.scale = float(cv.standard_errors[0])  # sqrt((1/n + rho/(1-rho)) s^2)

    # ------------------------------------------------------------------ posterior
    @property
    def mean(self) -> float:
        """Posterior mean of μ (= d̄; defined since df ≥ 2 whenever n ≥ 3)."""
        return self.loc

    @property
    def var(self) -> float:
        """``scale²`` (baycomp's ``var``): the squared scale, not the posterior variance."""
        return self.scale**2

    @property
    def posterior(self) -> Any:
        """The posterior of μ as a frozen :mod:`scipy.stats` distribution (``None`` for a point
        mass)."""
        return None if self.scale == 0 else stats.t(self.df, self.loc, self.scale)

    @cached_property
    def probs(self) -> Probabilities:
        """(left, rope, right) from the Student CDF (conventions §1)."""
        return self._probs_at(self.rope)

    def _probs_at(self, rope: Rope) -> Probabilities:
        return student_probs(self.loc, self.scale, self.df, rope)

    def _default_max_rope(self) -> float:
        return max(2 * self._reach(), abs(self.loc) + 3 * self.scale, 1e-12)

    def hdi(self, prob: float | None = None) -> tuple[float, float]:
        """Highest-density interval of μ of mass ``prob`` (default ``self.hdi_prob``): the
        central interval of the (symmetric) Student posterior, from its quantiles."""
        prob = self.hdi_prob if prob is None else check_fraction(prob, "The HDI mass")
        if self.scale == 0:
            return self.loc, self.loc
        half = float(stats.t.ppf(0.5 + prob / 2, self.df)) * self.scale
        return self.loc - half, self.loc + half

    def sample(self, n: int = 50_000, seed: SeedLike = None) -> np.ndarray:
        """``n`` draws of μ from the posterior (``numpy.random.default_rng`` seeded by
        :func:`~bayes_hier.seeding.resolve_seed`)."""
        n = check_int(n, "n", minimum=1)
        if self.scale == 0:
            return np.full(n, self.loc)
        rng = np.random.default_rng(resolve_seed(seed, "seed"))
        return self.loc + self.scale * rng.standard_t(self.df, n)

    @property
    def t_statistic(self) -> float:
        """The frequentist twin: the corrected resampled t statistic ``d̄ / scale``."""
        if self.scale == 0:  # all differences equal: the limit, as two_sided_t
            return 0.0 if self.loc == 0 else math.copysign(math.inf, self.loc)
        return self.loc / self.scale

    # ------------------------------------------------------------------ reports
    def summary(self, alpha: float = 0.05) -> str:
        """A readable report naming the models."""
        first, second = self.names
        low, high = self.hdi()
        cv = self.cv
        lines = [
            f"{self.test_name}: {first} vs {second}, {cv.runs[0]} run(s) x {cv.folds[0]} folds "
            f"(n = {self.n}, rho = {self.rho:.3g}), rope {self.rope}",
            f"  difference d = {second} - {first}"
            + ("" if cv.higher_is_better else " (scores negated: lower is better)"),
            f"Posterior of the mean difference: St(df={self.df}, loc={self.loc:.4g}, "
            f"scale={self.scale:.4g})"
            + (" (point mass: all differences equal)" if self.scale == 0 else ""),
            f"  mean {self.mean:.4g}, {self.hdi_prob:.0%} HDI [{low:.4g}, {high:.4g}]",
            "Probabilities:",
            *self._probability_lines(self.probs),
            *self._decision_lines(alpha),
        ]
        return "\n".join([*lines, *self._warning_lines()])

    # ------------------------------------------------------------------ plots
    def plot_density(self, ax: Axes | None = None) -> Figure:
        """Posterior density of μ with the rope shaded and the three masses labelled."""
        from .plots import plot_student_density

        return plot_student_density(self, ax=ax)

    def plot(self, ax: Axes | None = None) -> Figure:
        """Same as :meth:`plot_density`."""
        return self.plot_density(ax=ax)


def _select_dataset(frame: pd.DataFrame, dataset: Any, columns: Mapping[str, str] | None) -> Any:
    column = (dict(columns) if columns else {}).get("dataset", "dataset")
    if column not in frame.columns:
        raise ValueError(f"The frame has no dataset column {column!r} to select {dataset!r} from.")
    selected = frame[frame[column] == dataset]
    if selected.empty:
        raise ValueError(
            f"Data set {dataset!r} is not in the frame (data sets: "
            f"{list(pd.unique(frame[column]))[:10]}...)."
        )
    return selected


@records_warnings
def correlated_ttest(
    x: Any,
    y: Any = None,
    rope: RopeLike = 0.01,
    runs: int | None = None,
    *,
    rho: float | None = None,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    dataset: Any = None,
    higher_is_better: bool = True,
    hdi_prob: float = 0.95,
) -> CorrelatedTResult:
    """Bayesian correlated t-test of two models cross-validated on one data set.

    Parameters
    ----------
    x, y
        Fold scores of the first and second model (1-D, run-major order: run 0 folds 0..k-1,
        run 1, ...), or a tidy data frame as ``x`` alone (columns ``model, run, fold, score``;
        a ``dataset`` column must hold one data set, or pick one with ``dataset=``), or a
        :class:`~bayes_hier.data.CVData` with one data set.
    rope
        ``r`` for ``[-r, r]`` or ``(low, high)``, in the units of the scores (0.01 = one
        accuracy point for scores in [0, 1], 1 for percentages).
    runs
        Repetitions of the cross-validation (``n = runs x folds``). ``None`` means one run, and
        warns for more than 25 results (pass e.g. ``runs=10`` for 10x10 CV). Read from the
        frame's ``run`` column for a data frame.
    rho
        Fold correlation; default ``1 / folds`` (Nadeau–Bengio).
    names, models, columns, higher_is_better
        As for :func:`~bayes_hier.hierarchical_test`.
    dataset
        For a data frame with several data sets: the one to analyse.
    hdi_prob
        Default mass of the HDI reported.
    """
    if dataset is not None:
        if not isinstance(x, pd.DataFrame):
            raise ValueError("dataset= selects a data set of a data frame; x is not a frame.")
        x = _select_dataset(x, dataset, columns)
    cv = as_single_cvdata(
        x,
        y,
        runs,
        test="correlated t-test",
        hint="Pick one with dataset=, or compare on several data sets with signed_rank_test, "
        "sign_test or hierarchical_test.",
        names=names,
        models=models,
        columns=columns,
        rho=rho,
        higher_is_better=higher_is_better,
    )
    return CorrelatedTResult(cv, cv.rope(rope), check_fraction(hdi_prob, "hdi_prob"))
