"""The result object of the frequentist tests and the helpers shared by them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._validate import check_fraction


def check_alpha(alpha: float) -> float:
    """``alpha`` as a float in (0, 1) (:func:`~bayes_hier._validate.check_fraction`)."""
    return check_fraction(alpha, "alpha")


def two_sided_t(mean: float, se: float, df: float) -> tuple[float, float]:
    """``t = mean / se`` and its two-sided p-value ``2 P(T_df > |t|)``.

    Zero standard error (all differences equal) leaves ``t`` undefined; the limit is used:
    ``t = ±inf, p = 0`` when ``mean != 0`` and ``t = 0, p = 1`` when ``mean == 0`` (no
    difference at all).
    """
    from scipy import stats

    if se == 0:
        if mean == 0:
            return 0.0, 1.0
        return math.copysign(math.inf, mean), 0.0
    t = mean / se
    return float(t), float(2 * stats.t.sf(abs(t), df))


class ScipyPValue:
    """``pvalue``, scipy's spelling of the ``p_value`` attribute of a test's result."""

    p_value: float

    @property
    def pvalue(self) -> float:
        """Alias of :attr:`p_value` (scipy's spelling)."""
        return self.p_value


@dataclass(frozen=True)
class TestResult(ScipyPValue):
    """Outcome of a frequentist test of two models, like scipy's result objects.

    Attributes
    ----------
    test
        Name of the test.
    statistic
        The test statistic (t, χ², F, W, the number of wins, ...).
    p_value
        The two-sided p-value.
    df
        Degrees of freedom of the reference distribution (a pair for F), ``None`` when the
        p-value does not come from a t, χ² or F distribution (exact and rank tests).
    names
        Names of the first and the second model.
    estimate
        The observed effect, second − first (see ``estimate_label``): positive values favour
        the second model.
    estimate_label
        What ``estimate`` is, e.g. ``"mean difference"``.
    n
        Number of observations behind the test (folds, test examples or data sets).
    alpha
        Level used by :attr:`significant` and :attr:`interpretation`.
    details
        Test-specific extra numbers (e.g. rank sums, the 2×2 table, the correction factor).
    """

    # Not a pytest test class, despite the name.
    __test__ = False

    test: str
    statistic: float
    p_value: float
    df: float | tuple[float, float] | None
    names: tuple[str, str]
    estimate: float
    estimate_label: str
    n: int
    alpha: float = 0.05
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def significant(self) -> bool:
        """Whether ``p_value <= alpha``."""
        return bool(self.p_value <= self.alpha)

    @property
    def interpretation(self) -> str:
        """One sentence: rejected or not at ``alpha``, and in whose favour."""
        first, second = self.names
        effect = (
            f"{self.estimate_label} ({first} vs {second}, {second} - {first}) = "
            f"{self.estimate:+.4g}"
        )
        if self.significant:
            if self.estimate == 0 or np.isnan(self.estimate):
                return (
                    f"{self.test}: p = {self.p_value:.3g} <= {self.alpha:g}, so the hypothesis "
                    f"that {first} and {second} perform equally is rejected ({effect})."
                )
            better, worse = (second, first) if self.estimate > 0 else (first, second)
            return (
                f"{self.test}: p = {self.p_value:.3g} <= {self.alpha:g}, so the hypothesis of "
                f"equal performance is rejected: {better} is significantly better than {worse} "
                f"({effect}); the p-value says nothing about whether the difference matters."
            )
        return (
            f"{self.test}: p = {self.p_value:.3g} > {self.alpha:g}, no significant difference "
            f"between {first} and {second} ({effect}); this is not evidence that they are "
            "equivalent."
        )

    def to_frame(self) -> pd.DataFrame:
        """One row: test, models, statistic, df, p-value, estimate, n, alpha, significant."""
        return pd.DataFrame(
            [
                {
                    "test": self.test,
                    "first": self.names[0],
                    "second": self.names[1],
                    "statistic": self.statistic,
                    "df": self.df,
                    "p_value": self.p_value,
                    "estimate": self.estimate,
                    "n": self.n,
                    "alpha": self.alpha,
                    "significant": self.significant,
                }
            ]
        )

    def __str__(self) -> str:
        df = "" if self.df is None else f", df = {self.df}"
        return (
            f"{self.test}: statistic = {self.statistic:.4g}{df}, p = {self.p_value:.4g}\n"
            f"{self.interpretation}"
        )
