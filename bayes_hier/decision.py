"""Decisions from outcome probabilities: declared outcomes, posterior odds and evidence grades.

Shared by every test of the package (SPEC §3.3.4). An outcome is declared when its probability
exceeds ``1 - alpha``; otherwise the posterior odds ``o(a, b) = P(a) / P(b)`` of each pair of
outcomes are graded as in Raftery (1995): odds in [1, 3) are weak evidence, [3, 20] positive,
above 20 strong.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from .probabilities import Probabilities

OUTCOMES: tuple[str, str, str] = ("left", "rope", "right")


def outcome_labels(names: tuple[str, str]) -> dict[str, str]:
    """Readable names of the outcomes for models ``names = (first, second)``."""
    first, second = names
    return {
        "left": f"{first} better",
        "rope": "practically equivalent",
        "right": f"{second} better",
    }


def evidence_grade(odds: float) -> str:
    """Raftery's (1995) grade of posterior odds ``>= 1``: weak, positive or strong.

    Odds below 1 favour the other outcome: grade ``1 / odds`` instead.
    """
    if np.isnan(odds) or odds < 1:
        raise ValueError(f"Grade odds >= 1 (got {odds}); for odds < 1 grade 1 / odds.")
    if odds < 3:
        return "weak"
    if odds <= 20:
        return "positive"
    return "strong"


def posterior_odds(
    probs: Probabilities, names: tuple[str, str], include_rope: bool = True
) -> pd.DataFrame:
    """Posterior odds of each pair of outcomes, the more probable one first, with grades.

    Columns: ``favoured``, ``against`` (outcome keys), ``favoured_label``, ``against_label``,
    ``odds`` (``P(favoured) / P(against)``, ``inf`` when the other has probability 0) and
    ``evidence``. Pairs in which both probabilities are 0 are left out.
    """
    labels = outcome_labels(names)
    values = dict(zip(OUTCOMES, probs))
    keys = OUTCOMES if include_rope else ("left", "right")
    rows = []
    for a, b in combinations(keys, 2):
        if values[a] < values[b]:
            a, b = b, a
        if values[a] == 0:
            continue
        odds = np.inf if values[b] == 0 else values[a] / values[b]
        rows.append(
            {
                "favoured": a,
                "against": b,
                "favoured_label": labels[a],
                "against_label": labels[b],
                "odds": odds,
                "evidence": evidence_grade(odds),
            }
        )
    return pd.DataFrame(
        rows,
        columns=["favoured", "against", "favoured_label", "against_label", "odds", "evidence"],
    )


@dataclass(frozen=True)
class Decision:
    """The outcome declared at level ``alpha``, or ``"inconclusive"``.

    Attributes
    ----------
    outcome
        ``"left"``, ``"rope"``, ``"right"`` or ``"inconclusive"``.
    label
        The outcome in words, with the models' names.
    probability
        The probability of the most probable outcome.
    alpha
        The level: an outcome is declared when its probability exceeds ``1 - alpha``.
    """

    outcome: str
    label: str
    probability: float
    alpha: float

    def __str__(self) -> str:
        if self.outcome == "inconclusive":
            return (
                f"inconclusive: no outcome has probability above {1 - self.alpha:g} "
                f"(the largest is {self.probability:.3f})"
            )
        return f"{self.label} (probability {self.probability:.3f} > {1 - self.alpha:g})"


def decide(probs: Probabilities, names: tuple[str, str], alpha: float = 0.05) -> Decision:
    """Declare the outcome whose probability exceeds ``1 - alpha``, else ``"inconclusive"``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha}.")
    best = int(np.argmax(probs))
    outcome = OUTCOMES[best]
    probability = float(probs[best])
    if probability > 1 - alpha:
        return Decision(outcome, outcome_labels(names)[outcome], probability, alpha)
    return Decision("inconclusive", "inconclusive", probability, alpha)
