"""Typing names newer than the oldest supported Python (3.10)."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # pragma: no cover - Python 3.10
    from typing_extensions import Unpack

__all__ = ["Unpack"]
