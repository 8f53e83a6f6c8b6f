"""Warnings that name the user's line, however deep in the package they are raised."""

from __future__ import annotations

import os
import sys

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def caller_outside_package() -> int:
    """The ``stacklevel`` of the innermost caller outside this package, so that a warning
    raised several calls deep names the user's line.

    Call it inside the ``warnings.warn(...)`` call itself: level 1 is the function that issues
    the warning, and each enclosing frame whose file lies in the package adds one.
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
