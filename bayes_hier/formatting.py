"""Probabilities as text that never cross a decision threshold by rounding.

Rounding toward 1/2 (down above 1/2, up below it) keeps a printed probability on the same side
of every threshold as the true one: 0.9499 prints as 0.949 (not 0.950, which would read as
"above 0.95"), 0.0501 as 0.051. The decimal expansion of the float's shortest representation is
rounded, so a value at a threshold prints exactly (0.95 as 0.950).

:func:`markdown_table` writes a frame of results (reports of the experiments and of the
calibration) as a GitHub-flavoured Markdown table.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def toward_half(p: float, digits: int = 3) -> str:
    """``p`` with ``digits`` decimals, rounded toward 1/2: down when ``p >= 0.5``, up below.

    >>> toward_half(0.9499), toward_half(0.95), toward_half(0.0501), toward_half(1.0)
    ('0.949', '0.950', '0.051', '1.000')
    """
    if not math.isfinite(p):
        return ""
    rounding = ROUND_FLOOR if p >= 0.5 else ROUND_CEILING
    return str(Decimal(repr(float(p))).quantize(Decimal(1).scaleb(-digits), rounding=rounding))


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value).replace("|", "\\|")


def markdown_table(frame: pd.DataFrame, max_rows: int = 60) -> str:
    """A GitHub-flavoured Markdown table of ``frame``'s first ``max_rows`` rows (floats to four
    significant digits, ``|`` escaped), with a line saying how many rows were left out."""
    shown = frame.head(max_rows)
    lines = [
        "| " + " | ".join(str(c) for c in shown.columns) + " |",
        "| " + " | ".join("---" for _ in shown.columns) + " |",
    ]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in shown.itertuples(False)]
    if len(frame) > max_rows:
        lines.append(f"\n({len(frame) - max_rows} more rows in the CSV)")
    return "\n".join(lines)


__all__ = ["markdown_table", "toward_half"]
