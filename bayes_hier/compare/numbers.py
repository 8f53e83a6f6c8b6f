"""Numbers as text in the reports: probabilities that never cross a threshold by rounding, and
one precision per table column.

Probabilities are rounded toward 1/2 (:func:`~bayes_hier.formatting.toward_half`), so that a
printed value is never on the far side of a decision threshold from the true one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..formatting import toward_half

#: Most decimals a column of estimates gets (the smallest |value| that still shows is 1e-6).
MAX_DECIMALS = 6


def probability_text(p: float) -> str:
    """A probability in a sentence: three decimals rounded toward 1/2; "> 0.999" and "< 0.001"
    rather than 1.000 and 0.000 for values that are not exactly 1 or 0."""
    if 0.999 < p < 1:
        return "> 0.999"
    if 0 < p < 0.001:
        return "< 0.001"
    return toward_half(p)


def column_decimals(values: Iterable[float], significant: int = 3) -> int:
    """Decimals that give the largest ``|value|`` of a column ``significant`` significant
    digits (at least 0, at most :data:`MAX_DECIMALS`): one precision for the whole column.

    >>> column_decimals([-0.00455, -0.4, 0.0159]), column_decimals([2.31, -12.5])
    (3, 1)
    """
    finite = [abs(v) for v in values if math.isfinite(v) and v != 0]
    if not finite:
        return 1
    exponent = math.floor(math.log10(max(finite)))
    return min(MAX_DECIMALS, max(0, significant - 1 - exponent))


def fixed(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals; empty for NaN; no negative zero."""
    if not math.isfinite(value):
        return ""
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


__all__ = ["column_decimals", "fixed", "probability_text", "toward_half"]
