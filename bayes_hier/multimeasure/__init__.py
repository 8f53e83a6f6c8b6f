"""Joint analysis of several performance measures: which dominance statement holds? (SPEC §4).

A new model B is compared with A on ``m`` measures (accuracy, time, size, ...) over ``n`` cases.
Each case says on which measures B is better; the ``2^m`` possible answers are the *dominance
statements* ("B better on accuracy, worse on time"). No weights are needed: the question is which
statement is the most probable.

>>> from bayes_hier.multimeasure import dominance_counts, glrt, bayesian_dominance
>>> c = dominance_counts(a, b, higher_is_better=[True, False], measures=("accuracy", "time"))
... # doctest: +SKIP
>>> print(glrt(c))  # frequentist: leading vs runner-up statement  # doctest: +SKIP
>>> print(bayesian_dominance(c, nsamples=100_000, seed=0))  # Dirichlet  # doctest: +SKIP
>>> print(bayesian_dominance(c, structure="bn", seed=0))  # Bayesian network  # doctest: +SKIP

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
