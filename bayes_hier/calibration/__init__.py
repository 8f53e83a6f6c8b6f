"""Simulation-based calibration of any model with a simulator, and decision error rates.

``python -m bayes_hier.calibration --model NAME`` (``make calibrate``, ``make calibrate-joint``,
``make calibrate-ranking``) takes each model's simulator from its own package
(:class:`~bayes_hier.fitting.model.Simulator`: parameters from a proper calibration prior, data
of the model's shape), fits the data through the package's own path and ranks the true values
among thinned posterior draws (``sbc``, ``ranks``), tests the ranks for uniformity
(``uniformity``, ``analysis``), plots them (``plots``), reports (``report``, ``run``) and
measures the decision error rates of the hierarchical test against the signed-rank test
(``error_rates``). Nothing here depends on a particular model or on the paper's reproduction.
"""

from .ranks import rank_of, thin
from .sbc import SBCConfig, rank_columns, run_replicate, run_sbc
from .uniformity import chi_square_test, ecdf_band, ecdf_test

__all__ = [
    "SBCConfig",
    "chi_square_test",
    "ecdf_band",
    "ecdf_test",
    "rank_columns",
    "rank_of",
    "run_replicate",
    "run_sbc",
    "thin",
]
