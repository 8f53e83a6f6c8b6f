"""arviz imported without its notice to every user, and safely from parallel processes.

arviz 0.2x warns once a day, on import, that it is being refactored (a multi-line
``FutureWarning`` about arviz's own future, nothing about the user's data), and records the day
in a stamp file in its cache folder by writing ``daily_warning.tmp`` and renaming it. Two
processes importing arviz at the same moment on a new day (parallel workers, a fresh cache) race
on that temporary file: one renames it, the other's rename fails with ``FileNotFoundError`` and
its ``import arviz`` fails. The stamp exists once the first process has renamed it, so the
import is tried again.

Importing this module imports arviz (``bayes_hier/__init__.py`` imports it before anything
else); every later ``import arviz`` in the package finds the module loaded.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from types import ModuleType

#: The start of arviz's refactor notice (after its leading newline).
ARVIZ_REFACTOR_NOTICE = r"\s*ArviZ is undergoing a major refactor"
#: Attempts at ``import arviz`` when the stamp file race makes one fail.
IMPORT_ATTEMPTS = 5


def import_arviz() -> ModuleType:
    """``import arviz`` with its refactor notice filtered (by its text: other warnings pass).

    Raises
    ------
    FileNotFoundError
        Only when the stamp file race fails :data:`IMPORT_ATTEMPTS` times in a row.
    """
    for attempt in range(IMPORT_ATTEMPTS):
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings(
                    "ignore", message=ARVIZ_REFACTOR_NOTICE, category=FutureWarning
                )
                return importlib.import_module("arviz")
        except FileNotFoundError as error:
            if "daily_warning" not in str(error) or attempt == IMPORT_ATTEMPTS - 1:
                raise
            sys.modules.pop("arviz", None)
    raise AssertionError("unreachable")  # pragma: no cover


import_arviz()
