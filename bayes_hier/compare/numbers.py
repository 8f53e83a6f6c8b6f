"""Numbers as text in the reports: probabilities that never cross a threshold by rounding, and
one precision per table column.

A probability is rounded toward 1/2 (down above 1/2, up below it), so that a printed value is
never on the far side of a decision threshold from the true one: 0.9499 prints as 0.949, not
0.950, and 0.0501 as 0.051, not 0.050. It is exact at the thresholds themselves (0.95 prints as
0.950) because the decimal expansion of the float's shortest representation is used.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

#: Most decimals a column of estimates gets (the smallest |value| that still shows is 1e-6).
MAX_DECIMALS = 6


def toward_half(p: float, digits: int = 3) -> str:
    """``p`` with ``digits`` decimals, rounded toward 1/2: down when ``p >= 0.5``, up below.

    >>> toward_half(0.9499), toward_half(0.95), toward_half(0.0501), toward_half(1.0)
    ('0.949', '0.950', '0.051', '1.000')
    """
    if not math.isfinite(p):
        return ""
    rounding = ROUND_FLOOR if p >= 0.5 else ROUND_CEILING
    return str(Decimal(repr(float(p))).quantize(Decimal(1).scaleb(-digits), rounding=rounding))


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
