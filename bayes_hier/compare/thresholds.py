"""Diagnostic thresholds of a comparison's warnings (shared by the result and its reports).

A pair is listed in the warnings when its fit has divergent transitions, a rank-normalised split
R-hat above :data:`MAX_RHAT` or a bulk effective sample size below :data:`MIN_ESS_BULK`
(Vehtari, Gelman, Simpson, Carpenter & Bürkner 2021: R-hat <= 1.01 and an ESS of at least 100
per chain, 400 for the default 4 chains).
"""

from __future__ import annotations

MAX_RHAT = 1.01
MIN_ESS_BULK = 400.0

__all__ = ["MAX_RHAT", "MIN_ESS_BULK"]
