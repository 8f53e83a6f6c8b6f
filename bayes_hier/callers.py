"""Where a warning should point: the user's line, not the package's."""

from __future__ import annotations

import contextlib
import os
import sys

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
#: The standard library's context-manager machinery: a warning raised when a ``with`` block of
#: the package starts passes through it on its way to the user's line.
_CONTEXTLIB = contextlib.__file__


def user_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn` that names the innermost caller outside this
    package (and outside :mod:`contextlib`, through which the package's context managers are
    entered), so that a warning raised several calls deep points at the user's line.

    Call it in the function that calls :func:`warnings.warn` (that function is level 1).
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and (
        frame.f_code.co_filename.startswith(_PACKAGE) or frame.f_code.co_filename == _CONTEXTLIB
    ):
        frame, level = frame.f_back, level + 1
    return level


__all__ = ["user_stacklevel"]
