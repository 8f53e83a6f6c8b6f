"""Results of the tests of this sub-package.

:class:`BayesianTestResult` adds to :class:`~bayes_hier.results.ComparisonResult` the
cost-sensitive choice and the rope sensitivity; :class:`SimplexResult` is the result of the
sample-based tests (sign and signed-rank), whose posterior is a sample of points
``(θ_left, θ_rope, θ_right)`` on the probability simplex.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..data import PerDataset
from ..decision import OUTCOMES
from ..probabilities import Probabilities, argmax_shares
from ..results import ComparisonResult
from ..rope import Rope

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


class BayesianTestResult(ComparisonResult):
    """Shared by the correlated t-test, sign and signed-rank results."""

    """Everything is inherited from :class:`~bayes_hier.results.ComparisonResult`."""


@dataclass(eq=False, repr=False)
class SimplexResult(BayesianTestResult):
    """Posterior of the sign or signed-rank test: a sample on the probability simplex.

    The reported probabilities are the shares of posterior samples in which left, rope or right
    has the largest coordinate (conventions §2). With an empty rope (``rope=0``) only left and right
    exist: their shares are renormalised to sum to 1 (as baycomp does) and ``rope`` is 0.

    Attributes
    ----------
    sample
        Array of shape ``(nsamples, 3)``: posterior draws of ``(θ_left, θ_rope, θ_right)``.
    differences
        The per-data-set differences ``z = y - x`` analysed.
    datasets
        Names of the data sets.
    names, rope
        Model names (first, second) and the rope.
    settings
        Prior strength (and place), number of samples and the seed (an integer: passing it back
        reproduces the sample bit for bit).
    resample
        Draws the sample for another rope with the same seed (for the rope sensitivity).
    higher_is_better
        Whether higher scores were better (the differences are negated when not).
    """

    test_name: str = field()  # no default (the base class has one)
    sample: np.ndarray
    differences: np.ndarray
    datasets: tuple[str, ...]
    names: tuple[str, str]
    rope: Rope
    settings: dict[str, Any]
    resample: Callable[[Rope], np.ndarray]
    higher_is_better: bool = True

    @classmethod
    def of_differences(
        cls,
        test_name: str,
        data: PerDataset,
        rope: Rope,
        resample: Callable[[Rope], np.ndarray],
        settings: dict[str, Any],
    ) -> SimplexResult:
        """The result of a sample-based test of the differences ``data``
        (``bayes_hier.data.per_dataset_differences``): ``resample(rope)`` draws the sample
        for a rope (this one, and any other for the rope sensitivity)."""
        return cls(
            test_name,
            resample(rope),
            data.differences,
            data.datasets,
            data.names,
            rope,
            settings,
            resample,
            data.higher_is_better,
        )

    @staticmethod
    def probs_of_sample(sample: np.ndarray, rope: Rope) -> Probabilities:
        """Argmax shares; for an empty rope, left and right renormalised (rope = 0)."""
        shares = argmax_shares(sample)
        if not rope.is_empty:
            return shares
        total = shares.left + shares.right
        if total == 0:  # every draw puts most mass on the (empty) rope: no information
            return Probabilities(0.5, 0.0, 0.5)
        return Probabilities(shares.left / total, 0.0, shares.right / total)

    @cached_property
    def probs(self) -> Probabilities:
        """(left, rope, right): share of samples in which each is the largest coordinate."""
        return self.probs_of_sample(self.sample, self.rope)

    @cached_property
    def mean(self) -> Probabilities:
        """Posterior means of (θ_left, θ_rope, θ_right): a different number from :attr:`probs`
        (the expected share of data sets in each region, not the probability that the region is
        the largest)."""
        return Probabilities(*(float(v) for v in self.sample.mean(axis=0)))

    @property
    def q(self) -> int:
        """Number of data sets."""
        return int(self.differences.size)

    def _probs_at(self, rope: Rope) -> Probabilities:
        return self.probs_of_sample(self.resample(rope), rope)

    def _default_max_rope(self) -> float:
        spread = float(np.max(np.abs(self.differences))) if self.q else 0.0
        return max(2 * self._reach(), 1.2 * spread, 1e-12)

    def to_frame(self) -> pd.DataFrame:
        """One row per outcome: label, probability (argmax share) and posterior mean of θ."""
        return pd.DataFrame(
            {
                "outcome": list(OUTCOMES),
                "label": [self.labels[k] for k in OUTCOMES],
                "probability": list(self.probs),
                "mean_theta": list(self.mean),
            }
        )

    def summary(self, alpha: float = 0.05) -> str:
        """A readable report naming the models."""
        first, second = self.names
        s = self.settings
        prior = f"prior strength {s['prior']:g}" + (
            f" on the {s['prior_place']}" if "prior_place" in s else ""
        )
        counts = ""
        if "counts" in s:
            n_left, n_rope, n_right = s["counts"]
            counts = f"; data sets left/rope/right of the rope: {n_left}/{n_rope}/{n_right}"
        lines = [
            f"{self.test_name}: {first} vs {second} on {self.q} data sets, rope {self.rope}",
            f"  difference z = {second} - {first} (mean per data set)"
            + ("" if self.higher_is_better else ", scores negated: lower is better")
            + counts,
            "Probability that each outcome is the most probable (share of posterior samples):",
            *self._probability_lines(self.probs),
            "Posterior mean of theta (expected share of data sets in each region):",
            *self._probability_lines(self.mean),
            *self._decision_lines(alpha),
            f"{s['nsamples']} posterior samples, {prior}, seed {s['seed']}",
        ]
        return "\n".join([*lines, *self._warning_lines()])

    # ------------------------------------------------------------------ plots
    def plot_simplex(self, ax: Axes | None = None, **kwargs: Any) -> Figure:
        """The posterior sample on the probability simplex (corners named after the models)."""
        from ..plots import plot_simplex

        kwargs.setdefault("title", f"{self.test_name}: posterior on the simplex")
        return plot_simplex(self.sample, self.labels, ax=ax, **kwargs)

    def plot_histogram(self, ax: Axes | None = None, bins: int = 50) -> Figure:
        """Histogram of the posterior of θ_right (empty rope) or of all three coordinates."""
        from .plots import plot_histogram

        return plot_histogram(self, ax=ax, bins=bins)

    def plot(self, ax: Axes | None = None) -> Figure:
        """The simplex when the rope is not empty, else the histogram of θ_right."""
        if self.rope.is_empty:
            return self.plot_histogram(ax=ax)
        return self.plot_simplex(ax=ax)
