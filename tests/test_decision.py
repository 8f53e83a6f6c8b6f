import numpy as np
import pytest

from bayes_hier.decision import decide, evidence_grade, posterior_odds
from bayes_hier.probabilities import Probabilities

NAMES = ("A", "B")


@pytest.mark.parametrize(
    ("odds", "grade"),
    [
        (1.0, "weak"),
        (2.99, "weak"),
        (3.0, "positive"),
        (20.0, "positive"),
        (20.01, "strong"),
        (np.inf, "strong"),
    ],
)
def test_raftery_grades(odds, grade):
    assert evidence_grade(odds) == grade


def test_grading_odds_below_one_is_an_error():
    with pytest.raises(ValueError, match="1 / odds"):
        evidence_grade(0.5)


def test_odds_table_puts_the_favoured_outcome_first():
    table = posterior_odds(Probabilities(0.1, 0.3, 0.6), NAMES)
    row = table.set_index(["favoured", "against"]).loc[("right", "left")]
    assert row.odds == pytest.approx(6.0) and row.evidence == "positive"
    assert row.favoured_label == "B better" and row.against_label == "A better"
    assert len(table) == 3 and (table.odds >= 1).all()


def test_zero_probability_gives_infinite_odds_and_empty_rope_is_left_out():
    table = posterior_odds(Probabilities(0.0, 0.0, 1.0), NAMES, include_rope=False)
    assert list(table.favoured) == ["right"] and np.isinf(table.odds.iloc[0])


def test_decision_declares_only_above_one_minus_alpha():
    assert decide(Probabilities(0.01, 0.02, 0.97), NAMES, 0.05).outcome == "right"
    assert decide(Probabilities(0.01, 0.96, 0.03), NAMES, 0.05).label == "practically equivalent"
    undecided = decide(Probabilities(0.01, 0.05, 0.94), NAMES, 0.05)
    assert undecided.outcome == "inconclusive" and "0.940" in str(undecided)
    assert decide(Probabilities(0.01, 0.05, 0.94), NAMES, 0.1).outcome == "right"
    with pytest.raises(ValueError):
        decide(Probabilities(0.1, 0.1, 0.8), NAMES, 1.5)


def test_failed_convergence_declares_nothing_whatever_the_probabilities():
    probs = Probabilities(0.0, 0.01, 0.99)
    assert decide(probs, ("a", "b")).outcome == "right"
    problem = "max R-hat is 1.200 > 1.01: the chains disagree. Run more warm-up and draws."
    decision = decide(probs, ("a", "b"), problems=[problem])
    assert (decision.outcome, decision.label) == ("not converged", "not converged")
    assert decision.probability == 0.99 and decision.problems == (problem,)
    assert str(decision).startswith("not converged: no outcome is declared")
    assert "Run more warm-up and draws" in str(decision)
