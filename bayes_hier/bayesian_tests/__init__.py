"""Bayesian tests of two models: correlated t-test (one data set), sign and signed-rank tests
(several data sets, one score each). See conventions §1-2.

>>> import numpy as np
>>> from bayes_hier import signed_rank_test
>>> rng = np.random.default_rng(0)
>>> x = rng.uniform(0.80, 0.90, size=30)  # accuracy of the first model on 30 data sets
>>> y = x + 0.03 + rng.normal(0, 0.005, size=30)  # the second is about 3 points better
>>> r = signed_rank_test(x, y, rope=0.01, seed=1)
>>> r.probs_by_name
{'first better': 0.0, 'practically equivalent': 0.0, 'second better': 1.0}
>>> r.decision().outcome
'right'
"""

from ..sensitivity import rope_sensitivity
from .correlated_t import CorrelatedTResult, correlated_ttest
from .result import BayesianTestResult, SimplexResult
from .sign import sign_test
from .signed_rank import signed_rank_test

__all__ = [
    "BayesianTestResult",
    "CorrelatedTResult",
    "SimplexResult",
    "correlated_ttest",
    "rope_sensitivity",
    "sign_test",
    "signed_rank_test",
]
