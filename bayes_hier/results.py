"""What every comparison result has: probabilities under the models' names, odds, decisions."""

from __future__ import annotations

from functools import cached_property

import pandas as pd

from .decision import OUTCOMES, Decision, decide, outcome_labels, posterior_odds
from .probabilities import Probabilities
from .rope import Rope


class ComparisonResult:
    """Base of the result objects: ``probs`` ordered (left, rope, right) plus named views.

    Subclasses set ``names`` (first, second), ``rope`` (:class:`~bayes_hier.rope.Rope`) and
    implement ``probs``.
    """

    names: tuple[str, str]
    rope: Rope

    @property
    def probs(self) -> Probabilities:  # pragma: no cover - abstract
        raise NotImplementedError

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

    def decision(self, alpha: float = 0.05) -> Decision:
        """The outcome with probability above ``1 - alpha``, or ``"inconclusive"``."""
        return decide(self.probs, self.names, alpha)

    def _probability_lines(self, probs: Probabilities, indent: str = "  ") -> list[str]:
        width = max(len(label) for label in self.labels.values())
        lines = []
        for key, p in zip(OUTCOMES, probs):
            if key == "rope" and self.rope.is_empty:
                continue
            lines.append(f"{indent}P({self.labels[key]:<{width}}) = {p:.4f}")
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

    def summary(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError
