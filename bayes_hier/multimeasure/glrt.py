"""Generalised likelihood-ratio test: is the most frequent dominance statement the most probable?

conventions §4. With ``n_a`` the largest and ``n_b`` the second largest count, H0 says the leading
statement is not more probable than the runner-up (``theta_a = theta_b``). Maximising the
multinomial likelihood with and without that constraint gives

    lambda(n) = ((n_a + n_b) / 2)^(n_a + n_b) / (n_a^n_a · n_b^n_b)   (0^0 = 1),

and ``-2 log lambda`` is asymptotically chi-squared with one degree of freedom:
``p = P(chi2_1 > -2 log lambda)``. When ``n_a = n_b``, ``lambda = 1`` and ``p = 1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from .._validate import check_fraction
from .counts import DominanceCounts


@dataclass(frozen=True, eq=False)
class GLRTResult:
    """The GLRT of the leading against the runner-up dominance statement.

    Attributes
    ----------
    statistic
        ``lambda(n)`` itself, in ``(0, 1]`` (may underflow to 0 for huge counts; use
        ``log_lambda``).
    log_lambda
        ``(n_a + n_b) log((n_a + n_b) / 2) - n_a log n_a - n_b log n_b``.
    minus_two_log_lambda
        ``-2 log lambda >= 0``, the chi-squared (1 df) statistic.
    p_value
        ``P(chi2_1 > -2 log lambda)``.
    leading, runner_up
        Statement numbers with the largest and the second largest count (equal counts: the lower
        number first).
    counts
        The analysed :class:`DominanceCounts`.
    """

    statistic: float
    log_lambda: float
    minus_two_log_lambda: float
    p_value: float
    leading: int
    runner_up: int
    counts: DominanceCounts

    @property
    def leading_label(self) -> str:
        """The most frequent statement in words."""
        return self.counts.label(self.leading)

    @property
    def runner_up_label(self) -> str:
        """The second most frequent statement in words."""
        return self.counts.label(self.runner_up)

    @property
    def n_leading(self) -> float:
        """``n_a``, the largest count."""
        return float(self.counts.counts[self.leading])

    @property
    def n_runner_up(self) -> float:
        """``n_b``, the second largest count."""
        return float(self.counts.counts[self.runner_up])

    def rejects(self, alpha: float = 0.05) -> bool:
        """Whether H0 (leading not more probable than runner-up) is rejected: ``p < alpha``."""
        return self.p_value < check_fraction(alpha, "alpha")

    def to_frame(self) -> pd.DataFrame:
        """One row: leading and runner-up statements (number, label, count), lambda,
        ``-2 log lambda`` and the p-value."""
        return pd.DataFrame(
            [
                {
                    "leading": self.leading,
                    "leading_label": self.leading_label,
                    "n_leading": self.n_leading,
                    "runner_up": self.runner_up,
                    "runner_up_label": self.runner_up_label,
                    "n_runner_up": self.n_runner_up,
                    "lambda": self.statistic,
                    "minus_two_log_lambda": self.minus_two_log_lambda,
                    "p_value": self.p_value,
                }
            ]
        )

    def __str__(self) -> str:
        return "\n".join(
            [
                "GLRT: is the most frequent dominance statement more probable than the runner-up?",
                f"  leading:   {self.leading_label} (count {self.n_leading:g})",
                f"  runner-up: {self.runner_up_label} (count {self.n_runner_up:g})",
                f"  lambda = {self.statistic:.4g}, -2 log lambda = "
                f"{self.minus_two_log_lambda:.4f}, p = {self.p_value:.4g} (chi-squared, 1 df)",
            ]
        )


def glrt(counts: DominanceCounts | Sequence[float] | np.ndarray) -> GLRTResult:
    """GLRT of H0: the most frequent statement is not more probable than the runner-up.

    Parameters
    ----------
    counts
        A :class:`DominanceCounts` or a plain count vector of length ``2^m`` (binary order).

    Returns
    -------
    GLRTResult
        ``lambda = ((n_a + n_b)/2)^(n_a + n_b) / (n_a^n_a n_b^n_b)`` computed in logs (with
        ``0 log 0 = 0``), ``-2 log lambda`` and ``p = chi2_1.sf(-2 log lambda)``.
        Fractional (tie-split) counts are used as they are.
    """
    if not isinstance(counts, DominanceCounts):
        counts = DominanceCounts.from_counts(counts)
    order = np.argsort(-counts.counts, kind="stable")
    leading, runner_up = int(order[0]), int(order[1])
    n_a, n_b = counts.counts[leading], counts.counts[runner_up]
    total = n_a + n_b
    log_lambda = float(
        special.xlogy(total, total / 2) - special.xlogy(n_a, n_a) - special.xlogy(n_b, n_b)
    )
    log_lambda = min(log_lambda, 0.0)  # exactly 0 when n_a == n_b, up to rounding otherwise
    minus_two = abs(-2.0 * log_lambda)
    return GLRTResult(
        statistic=float(np.exp(log_lambda)),
        log_lambda=log_lambda,
        minus_two_log_lambda=minus_two,
        p_value=float(stats.chi2.sf(minus_two, df=1)),
        leading=leading,
        runner_up=runner_up,
        counts=counts,
    )
