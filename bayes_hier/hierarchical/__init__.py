"""The Bayesian hierarchical model of cross-validation results on several data sets."""

from .fit import hierarchical_test
from .model_input import NU_PRIORS, HierarchicalPrior
from .result import HierarchicalResult, PopulationSummary

__all__ = [
    "NU_PRIORS",
    "HierarchicalPrior",
    "HierarchicalResult",
    "PopulationSummary",
    "hierarchical_test",
]
