"""Compile Stan programs into the engine's cache: ``python tests/precompile.py NAME [NAME ...]``.

The test suite starts two of these at the beginning of a parallel run (see ``conftest.py``), so
that the programs compile side by side while the first tests run; a test that needs a program
still being compiled waits for it on the cache's compile lock instead of compiling it again.
"""

from __future__ import annotations

import os
import sys

from bayes_hier.engines import get_engine
from bayes_hier.stan_programs import load_program


def main(names: list[str]) -> None:
    """Compile each named program (those already in the cache are skipped at once)."""
    engine = get_engine(os.environ.get("BAYES_HIER_ENGINE", "auto"))
    for name in names:
        engine.compile(load_program(name))


if __name__ == "__main__":
    main(sys.argv[1:])
