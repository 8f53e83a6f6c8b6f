"""What every comparison result has: probabilities under the models' names, odds, decisions."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import pandas as pd

from .decision import (
    OUTCOMES,
    Decision,
    ExpectedCost,
    decide,
    expected_cost,
    outcome_labels,
    posterior_odds,
)
from .formatting import toward_half
from .probabilities import Probabilities
from .rope import Rope
from .sensitivity import plot_rope_sensitivity, rope_sensitivity

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


class ComparisonResult:
    """Base of the result objects: ``probs`` ordered (left, rope, right) plus named views.

    Subclasses set ``names`` (first, second), ``rope`` (:class:`~bayes_hier.rope.Rope`) and
    implement ``probs``, ``_probs_at`` (the same analysis with another rope) and
    ``_default_max_rope``.
    """

    names: tuple[str, str]
    rope: Rope

    @property
    def probs(self) -> Probabilities:  # pragma: no cover - abstract
        raise NotImplementedError

    #: Short name of the test, used in reports.
    test_name: str = "Bayesian test"

    def _probs_at(self, rope: Rope) -> Probabilities:  # pragma: no cover - abstract
        """The probabilities the same analysis gives with another rope."""
        raise NotImplementedError

    def _default_max_rope(self) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def expected_cost(self, cost_matrix: Any, actions: Sequence[str] | None = None) -> ExpectedCost:
        """Expected cost ``C @ p`` of each action and the cheapest (conventions §3.3.5).

        Rows of ``cost_matrix`` are actions (default names: "choose <first>",
        "choose <second>" and, for a third row, "no decision"), columns (left, rope, right).
        """
        return expected_cost(cost_matrix, self.probs, actions=actions, names=self.names)

    def rope_sensitivity(self, max_rope: float | None = None, num: int = 41) -> pd.DataFrame:
        """Probabilities for symmetric ropes ``[-r, r]`` with ``r`` from 0 to ``max_rope``.

        Columns ``rope`` (half-width), ``left``, ``rope_prob``, ``right``. The default maximum
        covers the data (and at least twice the rope of the analysis). Sample-based tests are
        re-run with their seed for every rope.
        """
        max_rope = self._default_max_rope() if max_rope is None else float(max_rope)
        return rope_sensitivity(self._probs_at, max_rope, num)

    def plot_rope_sensitivity(
        self, ax: Axes | None = None, max_rope: float | None = None, num: int = 41
    ) -> Figure:
        """The rope-sensitivity curves of :meth:`rope_sensitivity`, the rope used marked."""
        table = self.rope_sensitivity(max_rope, num)
        current = None if self.rope.is_empty else max(-self.rope.low, self.rope.high)
        return plot_rope_sensitivity(
            table, self.labels, ax=ax, current=current, title=f"{self.test_name}: rope sensitivity"
        )

    def _reach(self) -> float:
        return max(-self.rope.low, self.rope.high)

    @property
    def labels(self) -> dict[str, str]:
        """Outcome keys (left, rope, right) mapped to words with the models' names."""
        return outcome_labels(self.names)

    @property
    def probs_by_name(self) -> dict[str, float]:
        """The probabilities keyed by ``"<first> better"``, ``"practically equivalent"``,
        ``"<second> better"``, so that nobody needs to remember the left/right convention."""
        return {self.labels[k]: p for k, p in zip(OUTCOMES, self.probs)}

    @cached_property
    def odds(self) -> pd.DataFrame:
        """Posterior odds of each pair of outcomes with Raftery's evidence grade."""
        return posterior_odds(self.probs, self.names, include_rope=not self.rope.is_empty)

    def to_frame(self) -> pd.DataFrame:
        """One row per outcome (left, rope, right): its label and probability."""
        return pd.DataFrame(
            {
                "outcome": list(OUTCOMES),
                "label": [self.labels[k] for k in OUTCOMES],
                "probability": list(self.probs),
            }
        )

    @property
    def convergence_problems(self) -> tuple[str, ...]:
        """The failed MCMC convergence checks of the fit behind the result (none for the tests
        that do not sample with MCMC)."""
        return ()

    def decision(self, alpha: float = 0.05) -> Decision:
        """The outcome with probability above ``1 - alpha``, or ``"inconclusive"``; ``"not
        converged"`` when the fit failed its convergence checks (:attr:`convergence_problems`)."""
        return decide(self.probs, self.names, alpha, self.convergence_problems)

    @property
    def warnings(self) -> list[str]:
        """Everything besides the data and the settings that shaped the numbers, in words: the
        warnings the test issued (e.g. constant differences given a spread, a rope that looks
        like it is in other units, an assumed design) and the sampler's failed checks."""
        issued = self.__dict__.get("issued_warnings", [])
        problems = getattr(self, "settings", {}).get("problems", [])
        return [*issued, *problems]

    def _warning_lines(self) -> list[str]:
        """:attr:`warnings` as the last lines of a summary, one "Warning: ..." each."""
        return [f"Warning: {text}" for text in self.warnings]

    def _probability_lines(self, probs: Probabilities, indent: str = "  ") -> list[str]:
        width = max(len(label) for label in self.labels.values())
        lines = []
        for key, p in zip(OUTCOMES, probs):
            if key == "rope" and self.rope.is_empty:
                continue
            lines.append(f"{indent}P({self.labels[key]:<{width}}) = {toward_half(p, 4)}")
        return lines

    def _decision_lines(self, alpha: float = 0.05) -> list[str]:
        lines = [f"Decision (alpha={alpha:g}): {self.decision(alpha)}"]
        if self.decision(alpha).outcome == "inconclusive" and len(self.odds):
            top = self.odds.sort_values("odds", ascending=False).iloc[0]
            lines.append(
                f"  strongest odds: {top.favoured_label} vs {top.against_label} = "
                f"{top.odds:.2f} ({top.evidence} evidence)"
            )
        return lines

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        p = self.probs
        return (
            f"<{type(self).__name__} {self.test_name}, {self.names[0]} vs {self.names[1]}: "
            f"P(left, rope, right) = ({p.left:.3f}, {p.rope:.3f}, {p.right:.3f})>"
        )

    def summary(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError
