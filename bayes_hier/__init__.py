"""bayes_hier: Bayesian comparison of machine-learning models from cross-validation results.

>>> from bayes_hier import hierarchical_test
>>> result = hierarchical_test(x, y, rope=0.01, runs=10, names=("A", "B"))  # doctest: +SKIP
>>> print(result)  # doctest: +SKIP

Convention (everywhere): the analysed difference is d = second − first (``y - x``) and
probabilities are ordered (left, rope, right): left = the first model is better by more than the
rope, right = the second model is better.
"""

from importlib.metadata import PackageNotFoundError, version

from . import _quiet_import  # noqa: F401  (first: imports arviz quietly, before any module does)
from .bayesian_tests import (
    CorrelatedTResult,
    SimplexResult,
    correlated_ttest,
    sign_test,
    signed_rank_test,
)
from .compare import ManyModelResult, compare
from .compat import (
    CorrelatedTTest,
    HierarchicalTest,
    SignedRankTest,
    SignTest,
    two_on_multiple,
    two_on_single,
)
from .data import CVData
from .decision import Decision, ExpectedCost, expected_cost
from .diagnostics import SamplingWarning
from .hierarchical import HierarchicalResult, hierarchical_test
from .joint import JointResult, joint_test
from .probabilities import Probabilities
from .ranking import RankingResult, bradley_terry_test, plackett_luce_test
from .rope import Rope, RopeScaleWarning

try:
    __version__ = version("bayes_hier")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "CVData",
    "CorrelatedTResult",
    "CorrelatedTTest",
    "Decision",
    "ExpectedCost",
    "HierarchicalResult",
    "HierarchicalTest",
    "JointResult",
    "ManyModelResult",
    "Probabilities",
    "RankingResult",
    "Rope",
    "RopeScaleWarning",
    "SamplingWarning",
    "SignTest",
    "SignedRankTest",
    "SimplexResult",
    "__version__",
    "bradley_terry_test",
    "compare",
    "correlated_ttest",
    "expected_cost",
    "hierarchical_test",
    "joint_test",
    "plackett_luce_test",
    "sign_test",
    "signed_rank_test",
    "two_on_multiple",
    "two_on_single",
]
