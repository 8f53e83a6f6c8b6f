"""Which dominance statement holds? Joint analysis of several performance measures
(conventions §4).

A new model B is compared with A on ``m`` measures (accuracy, time, size, ...) over ``n`` cases.
Each case says on which measures B is better; the ``2^m`` possible answers are the *dominance
statements* ("B better on accuracy, worse on time"). No weights are needed: the question is which
statement is the most probable.

>>> import numpy as np
>>> from bayes_hier.multimeasure import bayesian_dominance, dominance_counts, glrt
>>> a = np.array([[0.81, 1.2], [0.75, 0.9], [0.90, 2.0], [0.66, 1.1]])  # A: accuracy, time
>>> b = np.array([[0.84, 1.9], [0.79, 1.5], [0.91, 2.8], [0.64, 1.0]])  # B on the same cases
>>> c = dominance_counts(a, b, higher_is_better=[True, False], measures=("accuracy", "time"))
>>> c.counts  # statements in binary order: bit 1 = B better on accuracy, bit 0 = on time
array([0., 1., 3., 0.])
>>> round(glrt(c).p_value, 3)  # frequentist: leading statement vs the runner-up
0.306
>>> dirichlet = bayesian_dominance(c, seed=0)  # Dirichlet posterior over the 2^m statements
>>> dirichlet.most_probable, round(dirichlet.best_probability, 2)
('B better on accuracy, worse on time', 0.84)
>>> network = bayesian_dominance(c, structure="bn", seed=0)  # Bayesian network over the measures
>>> round(network.best_probability, 2)
0.84

Limits: at most :data:`MAX_MEASURES` = 16 measures (2^16 statements) for the counts, the GLRT
and the Dirichlet test; at most :data:`MAX_BN_MEASURES` = 6 for the exact network search.
"""

from .counts import (
    MAX_MEASURES,
    DominanceCounts,
    dominance_counts,
    statement_bits,
    statement_index,
    statement_label,
)
from .dirichlet import DominanceProbabilities, bayesian_dominance
from .glrt import GLRTResult, glrt
from .network import MAX_BN_MEASURES, BayesianNetwork, bdeu_score, learn_structure

__all__ = [
    "MAX_BN_MEASURES",
    "MAX_MEASURES",
    "BayesianNetwork",
    "DominanceCounts",
    "DominanceProbabilities",
    "GLRTResult",
    "bayesian_dominance",
    "bdeu_score",
    "dominance_counts",
    "glrt",
    "learn_structure",
    "statement_bits",
    "statement_index",
    "statement_label",
]
