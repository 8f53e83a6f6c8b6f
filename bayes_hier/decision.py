"""Decisions from outcome probabilities: declared outcomes, posterior odds and evidence grades.

Shared by every test of the package (conventions §3.3, item 4). An outcome is declared when its
probability exceeds ``1 - alpha``; otherwise the posterior odds ``o(a, b) = P(a) / P(b)`` of each
pair of outcomes are graded as in Raftery (1995): odds in [1, 3) are weak evidence, [3, 20]
positive, above 20 strong.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from ._validate import check_fraction
from .formatting import toward_half
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


#: The outcome of a result whose sampler did not converge: no outcome is declared.
NOT_CONVERGED = "not converged"


@dataclass(frozen=True)
class Decision:
    """The outcome declared at level ``alpha``, ``"inconclusive"``, or ``"not converged"``.

    Attributes
    ----------
    outcome
        ``"left"``, ``"rope"``, ``"right"``, ``"inconclusive"`` or ``"not converged"`` (the MCMC
        diagnostics failed: the probabilities are not trustworthy enough to declare anything).
    label
        The outcome in words, with the models' names.
    probability
        The probability of the most probable outcome.
    alpha
        The level: an outcome is declared when its probability exceeds ``1 - alpha``.
    problems
        For ``"not converged"``: the failed diagnostics, each with its fix.
    """

    outcome: str
    label: str
    probability: float
    alpha: float
    problems: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.outcome == NOT_CONVERGED:
            return (
                "not converged: no outcome is declared from draws that failed the MCMC "
                f"diagnostics ({' '.join(self.problems)})"
            )
        if self.outcome == "inconclusive":
            return (
                f"inconclusive: no outcome has probability above {1 - self.alpha:g} "
                f"(the largest is {toward_half(self.probability)})"
            )
        return f"{self.label} (probability {toward_half(self.probability)} > {1 - self.alpha:g})"


def decide(
    probs: Probabilities,
    names: tuple[str, str],
    alpha: float = 0.05,
    problems: tuple[str, ...] | list[str] = (),
) -> Decision:
    """Declare the outcome whose probability exceeds ``1 - alpha``, else ``"inconclusive"``;
    ``"not converged"`` whatever the probabilities when the sampler's convergence ``problems``
    (:func:`~bayes_hier.diagnostics.convergence_problems`) are not empty."""
    alpha = check_fraction(alpha, "alpha")
    best = int(np.argmax(probs))
    outcome = OUTCOMES[best]
    probability = float(probs[best])
    if problems:
        return Decision(NOT_CONVERGED, NOT_CONVERGED, probability, alpha, tuple(problems))
    if probability > 1 - alpha:
        return Decision(outcome, outcome_labels(names)[outcome], probability, alpha)
    return Decision("inconclusive", "inconclusive", probability, alpha)


# ---------------------------------------------------------------------- cost-sensitive choice
def default_actions(count: int, names: tuple[str, str] | None = None) -> tuple[str, ...]:
    """Default action names for a cost matrix with ``count`` rows.

    Two rows: choose the first model, choose the second; three rows: the same plus
    ``"no decision"``; otherwise ``"action 0"``, ``"action 1"``, ...
    """
    first, second = names if names is not None else ("first", "second")
    if count == 2:
        return (f"choose {first}", f"choose {second}")
    if count == 3:
        return (f"choose {first}", f"choose {second}", "no decision")
    return tuple(f"action {i}" for i in range(count))


@dataclass(frozen=True)
class ExpectedCost:
    """Expected cost of each action (conventions §3.3.5): ``costs = C @ p``.

    Attributes
    ----------
    actions
        Names of the actions (the rows of the cost matrix), in row order.
    costs
        One expected cost per action, in row order.
    probs
        The outcome probabilities used (columns of the cost matrix).
    best
        Name of the recommended action: the one with the least expected cost (the first such
        row on a tie).
    """

    actions: tuple[str, ...]
    costs: np.ndarray
    probs: tuple[float, ...]
    best: str

    @property
    def best_index(self) -> int:
        """Row of the recommended action."""
        return self.actions.index(self.best)

    def to_frame(self) -> pd.DataFrame:
        """One row per action: its name and expected cost, the best one flagged."""
        return pd.DataFrame(
            {
                "action": list(self.actions),
                "expected_cost": self.costs,
                "best": [a == self.best for a in self.actions],
            }
        )

    def __str__(self) -> str:
        width = max(len(a) for a in self.actions)
        lines = [f"  {a:<{width}}  expected cost {c:.4g}" for a, c in zip(self.actions, self.costs)]
        return "\n".join([f"Recommended action: {self.best}", *lines])


def expected_cost(
    cost_matrix: object,
    probs: object,
    actions: tuple[str, ...] | list[str] | None = None,
    names: tuple[str, str] | None = None,
) -> ExpectedCost:
    """Expected cost of each action and the action that minimises it.

    Parameters
    ----------
    cost_matrix
        Rows = actions (e.g. "choose first", "choose second", optionally "no decision"),
        columns = outcomes ``(left, rope, right)`` (or ``(left, right)`` when ``probs`` has two
        entries). Entry ``C[a, o]`` is the cost of action ``a`` when outcome ``o`` is true.
        A :class:`pandas.DataFrame` gives the action names by its index.
    probs
        The outcome probabilities, e.g. a :class:`~bayes_hier.probabilities.Probabilities`.
    actions
        Names of the actions, in row order (default: the frame's index, or
        :func:`default_actions`).
    names
        Model names used by the default action names.

    Returns
    -------
    ExpectedCost
        ``.costs`` (``C @ p``, in row order) and ``.best`` (the cheapest action's name; the
        first one on a tie).
    """
    if actions is None and isinstance(cost_matrix, pd.DataFrame):
        actions = tuple(str(a) for a in cost_matrix.index)
    matrix = np.asarray(cost_matrix, dtype=float)
    p = np.asarray(tuple(probs), dtype=float)
    if p.ndim != 1 or p.size not in (2, 3):
        raise ValueError(f"probs must be (left, rope, right) or (left, right); got {probs!r}.")
    if np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-6):
        raise ValueError(f"probs must be non-negative and sum to 1; got {tuple(p)}.")
    if matrix.ndim != 2 or matrix.shape[1] != p.size or matrix.shape[0] < 1:
        raise ValueError(
            f"The cost matrix must have one row per action and {p.size} columns "
            f"({', '.join(OUTCOMES if p.size == 3 else ('left', 'right'))}); got shape "
            f"{matrix.shape}."
        )
    if not np.all(np.isfinite(matrix)):
        raise ValueError("The cost matrix must hold finite numbers.")
    actions = tuple(actions) if actions is not None else default_actions(len(matrix), names)
    if len(actions) != len(matrix):
        raise ValueError(f"Got {len(actions)} action names for {len(matrix)} rows of costs.")
    if len(set(actions)) != len(actions):
        raise ValueError(f"Action names must be unique; got {actions!r}.")
    costs = matrix @ p
    return ExpectedCost(
        actions=actions,
        costs=costs,
        probs=tuple(float(v) for v in p),
        best=actions[int(np.argmin(costs))],
    )
