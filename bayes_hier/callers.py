"""Where a warning should point: the user's line, not the package's."""

from __future__ import annotations

import os
import sys

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def user_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn` that names the innermost caller outside this
    package, so that a warning raised several calls deep points at the user's line.

    Call it in the function that calls :func:`warnings.warn` (that function is level 1).
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


__all__ = ["user_stacklevel"]
