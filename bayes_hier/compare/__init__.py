"""Compare k models on many data sets in one call.

>>> from bayes_hier import compare
>>> result = compare(frame, rope=1.0, seed=1)  # doctest: +SKIP
>>> result.pairs, result.matrix("better"), result["nbc", "hnb"]  # doctest: +SKIP
>>> result.write_report("report/")  # doctest: +SKIP

Every pair is analysed by the package's two-model test of ``method`` (the dispatch table
``bayes_hier.compare.METHODS``); the result (:class:`~bayes_hier.ManyModelResult`) holds the
pair results, the tables, the frequentist view and writes the reports. The missing-data policy
is documented in ``bayes_hier.scores``.
"""

from ..frequentist.view import FrequentistView
from ..scores import MissingDataWarning, ModelScores, PairUsage, model_scores
from .core import compare
from .methods import METHODS, PairMethod
from .pair import MirroredResult, PairEstimate, mirror, pair_diagnostics, pair_estimate
from .result import ManyModelResult

__all__ = [
    "METHODS",
    "FrequentistView",
    "ManyModelResult",
    "MirroredResult",
    "MissingDataWarning",
    "ModelScores",
    "PairEstimate",
    "PairMethod",
    "PairUsage",
    "compare",
    "mirror",
    "model_scores",
    "pair_diagnostics",
    "pair_estimate",
]
