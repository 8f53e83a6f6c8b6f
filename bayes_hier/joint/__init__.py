"""One joint Bayesian hierarchical model for k models on q data sets.

>>> from bayes_hier.joint import joint_test
>>> result = joint_test(frame, rope=1.0, seed=1)  # doctest: +SKIP
>>> result.p_best, result.rank_probabilities, result["nbc", "hnb"].probs  # doctest: +SKIP

The model is stated in ``stan/joint.stan`` and :func:`joint_test`; :class:`JointResult` turns its
posterior into pairwise probabilities, P(best), the rank distribution and shrinkage estimates.
"""

from ..compare.methods import register_whole_method
from .contrasts import helmert_contrasts
from .data import MultiCVData
from .fit import FewFoldsWarning, compare_joint, joint_test
from .model_input import JointCalibrationPrior, JointPrior
from .noise_check import NoiseMisfitWarning
from .result import JointPairResult, JointResult

register_whole_method("joint", compare_joint)

__all__ = [
    "FewFoldsWarning",
    "JointCalibrationPrior",
    "JointPairResult",
    "JointPrior",
    "JointResult",
    "MultiCVData",
    "NoiseMisfitWarning",
    "compare_joint",
    "helmert_contrasts",
    "joint_test",
]
