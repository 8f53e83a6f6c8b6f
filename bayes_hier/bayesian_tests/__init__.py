"""Bayesian tests of two models: correlated t-test (one data set), sign and signed-rank tests
(several data sets, one score each). See SPEC §1-2.

>>> from bayes_hier import correlated_ttest, sign_test, signed_rank_test
>>> r = signed_rank_test(x, y, rope=0.01, seed=1)  # doctest: +SKIP
>>> r.probs, r.probs_by_name, r.decision()  # doctest: +SKIP
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
