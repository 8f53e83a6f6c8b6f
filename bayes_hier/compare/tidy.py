"""The validated tidy table of k models' scores (defined in :mod:`bayes_hier.scores`).

The missing-data policy of ``bayes_hier.compare()`` is stated in :mod:`bayes_hier.scores`.
"""

from ..scores import KEYS, MissingDataWarning, ModelScores, PairUsage, model_scores

__all__ = ["KEYS", "MissingDataWarning", "ModelScores", "PairUsage", "model_scores"]
