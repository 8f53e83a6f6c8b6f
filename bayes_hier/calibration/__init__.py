"""Simulation-based calibration and decision error rates of the hierarchical model.

``python -m bayes_hier.calibration`` (``make calibrate``) simulates data from fixed priors
(``simulate``), fits them through the package's own path (``sbc``), ranks the true values
among thinned posterior draws (``ranks``), tests the ranks for uniformity (``uniformity``,
``analysis``), plots them (``plots``) and measures the decision error rates of the
hierarchical test against the signed-rank test (``error_rates``).
"""

from .ranks import rank_of, thin
from .sbc import PARAMETERS, SBCConfig, SBCSetting, run_replicate, run_sbc
from .simulate import CalibrationPrior, calibration_model_input, simulate
from .uniformity import chi_square_test, ecdf_band, ecdf_test

__all__ = [
    "PARAMETERS",
    "CalibrationPrior",
    "SBCConfig",
    "SBCSetting",
    "calibration_model_input",
    "chi_square_test",
    "ecdf_band",
    "ecdf_test",
    "rank_of",
    "run_replicate",
    "run_sbc",
    "simulate",
    "thin",
]
