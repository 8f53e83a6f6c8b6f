"""What the comparison reads from one pair's result, and the pair seen the other way round.

:func:`pair_estimate` and :func:`pair_diagnostics` are :func:`functools.singledispatch`
functions: a new kind of pair result (e.g. the joint model's) registers its own reading, and the
tables, reports and the command line keep working unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import singledispatch
from typing import Any

import numpy as np
import pandas as pd

from ..bayesian_tests import CorrelatedTResult, SimplexResult
from ..decision import OUTCOMES
from ..hierarchical import HierarchicalResult
from ..probabilities import Probabilities
from ..results import ComparisonResult


@dataclass(frozen=True)
class PairEstimate:
    """A location estimate of the difference ``second - first`` and its interval.

    Attributes
    ----------
    mean, low, high
        Estimate and interval (NaN when the test gives none).
    what
        What the numbers are, for the reports.
    """

    mean: float
    low: float = math.nan
    high: float = math.nan
    what: str = ""

    def mirrored(self) -> PairEstimate:
        """The estimate of ``first - second``."""
        return PairEstimate(-self.mean, -self.high, -self.low, self.what)


@singledispatch
def pair_estimate(result: Any) -> PairEstimate:
    """The difference estimate of a pair result (NaN for result types that give none)."""
    return PairEstimate(math.nan, what="no estimate")


@pair_estimate.register
def _(result: HierarchicalResult) -> PairEstimate:
    """Posterior mean and HDI of the population mean difference δ₀."""
    pop = result.population
    return PairEstimate(
        pop.mean, pop.hdi_low, pop.hdi_high, f"posterior mean of delta0, {pop.hdi_prob:.0%} HDI"
    )


@pair_estimate.register
def _(result: CorrelatedTResult) -> PairEstimate:
    """Posterior mean and HDI of the mean difference μ on the data set."""
    low, high = result.hdi()
    return PairEstimate(result.mean, low, high, f"posterior mean of mu, {result.hdi_prob:.0%} HDI")


@pair_estimate.register
def _(result: SimplexResult) -> PairEstimate:
    """The mean of the per-data-set differences (the sign and signed-rank tests have no
    posterior of a location, hence no interval)."""
    return PairEstimate(float(np.mean(result.differences)), what="mean of per-data-set differences")


#: Keys of :func:`pair_diagnostics` (NaN for tests that do not sample with MCMC).
DIAGNOSTIC_KEYS = ("divergences", "max_rhat", "min_ess_bulk", "min_ess_tail")


def pair_diagnostics(result: Any) -> dict[str, float]:
    """Divergences, max R-hat and min bulk and tail ESS of the pair's MCMC (NaN without MCMC):
    every quantity the convergence checks read."""
    diagnostics = getattr(result, "diagnostics", None) or {}
    return {key: float(diagnostics.get(key, math.nan)) for key in DIAGNOSTIC_KEYS}


class MirroredResult(ComparisonResult):
    """A pair result seen the other way round: ``(second, first)``.

    The difference becomes ``first - second``, so left and right swap: ``probs`` is
    ``(right, rope, left)`` of the original, the rope is negated (``[-high, -low]``) and the names
    swap. The original result is kept as ``original`` (its draws are in the original
    orientation); ``diagnostics`` and ``settings`` do not depend on the orientation and are
    shared.
    """

    def __init__(self, original: ComparisonResult) -> None:
        self.original = original
        self.names = (original.names[1], original.names[0])
        self.rope = original.rope.negated()
        self.test_name = original.test_name
        self.diagnostics = getattr(original, "diagnostics", {})
        self.settings = getattr(original, "settings", {})
        self.issued_warnings = original.__dict__.get("issued_warnings", [])

    @property
    def convergence_problems(self) -> tuple[str, ...]:
        """The original's: a fit that did not converge declares nothing either way round."""
        return self.original.convergence_problems

    @staticmethod
    def swap(probs: Probabilities) -> Probabilities:
        """``(left, rope, right)`` -> ``(right, rope, left)``."""
        return Probabilities(probs.right, probs.rope, probs.left)

    @property
    def probs(self) -> Probabilities:
        return self.swap(self.original.probs)

    def rope_sensitivity(self, max_rope: float | None = None, num: int = 41) -> pd.DataFrame:
        """The original's table with ``left`` and ``right`` swapped (a symmetric rope is the
        same either way round)."""
        table = self.original.rope_sensitivity(max_rope, num)
        return table.rename(columns={"left": "right", "right": "left"})[list(table.columns)]

    def to_frame(self) -> pd.DataFrame:
        """The original's table in this orientation: one row per outcome, left and right
        swapped (every column of the two-model results' tables is per outcome)."""
        frame = self.original.to_frame().iloc[::-1].reset_index(drop=True)
        frame["outcome"] = list(OUTCOMES)
        frame["label"] = [self.labels[k] for k in OUTCOMES]
        return frame

    def __getattr__(self, name: str) -> Any:
        """What the mirror does not translate (per-data-set tables, draws, plots) is read from
        the pair as computed; say so instead of a bare AttributeError."""
        if name.startswith("__") or name == "original":
            raise AttributeError(name)
        first, second = self.original.names
        if hasattr(self.original, name):
            raise AttributeError(
                f"{name!r} is not mirrored: it exists in the orientation the pair was computed in, "
                f"the difference {second} - {first}. Read it from result[{first!r}, {second!r}] "
                "(or this mirror's .original)."
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def summary(self, alpha: float = 0.05) -> str:
        """The probabilities and decision in this orientation."""
        first, second = self.names
        estimate = pair_estimate(self)
        lines = [
            f"{self.test_name}: first {first}, second {second}; the mirror of the pair as "
            f"computed ({second}, {first}); rope {self.rope}",
            *self._probability_lines(self.probs),
            *self._decision_lines(alpha),
        ]
        if not math.isnan(estimate.mean):
            lines.append(f"difference {second} - {first}: {estimate.mean:.4g} ({estimate.what})")
        return "\n".join([*lines, *self._warning_lines()])


@pair_estimate.register
def _(result: MirroredResult) -> PairEstimate:
    """The original's estimate, negated."""
    return pair_estimate(result.original).mirrored()


def mirror(result: ComparisonResult) -> ComparisonResult:
    """``result`` seen the other way round (the mirror of a mirror is the original)."""
    if isinstance(result, MirroredResult):
        return result.original
    return MirroredResult(result)


__all__ = [
    "DIAGNOSTIC_KEYS",
    "MirroredResult",
    "PairEstimate",
    "mirror",
    "pair_diagnostics",
    "pair_estimate",
]
