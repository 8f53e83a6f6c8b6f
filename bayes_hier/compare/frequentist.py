"""The frequentist view beside the Bayesian pairs (see :mod:`bayes_hier.frequentist.view`)."""

from ..frequentist.view import FrequentistView, frequentist_view

__all__ = ["FrequentistView", "frequentist_view"]
