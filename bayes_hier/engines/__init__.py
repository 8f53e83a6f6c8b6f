"""Stan engines behind one interface: pystan (embedded) and cmdstanpy (CmdStan).

``engine="auto"`` picks cmdstanpy when a CmdStan installation is found and pystan otherwise. The
environment variable ``BAYES_HIER_ENGINE`` (``pystan`` or ``cmdstanpy``) overrides the automatic
choice; an explicit ``engine=`` argument overrides both.
"""

from __future__ import annotations

import os
from functools import cache

from .base import Engine, SamplerSettings, cache_directory
from .cmdstanpy_engine import CmdStanPyEngine
from .errors import CacheDirectoryError, CacheRebuiltWarning, ChainProcessError, EngineError
from .pystan_engine import PyStanEngine

ENGINES: dict[str, type[Engine]] = {"pystan": PyStanEngine, "cmdstanpy": CmdStanPyEngine}
ENGINE_VARIABLE = "BAYES_HIER_ENGINE"


@cache
def _instance(name: str) -> Engine:
    return ENGINES[name]()


def get_engine(engine: str | Engine = "auto") -> Engine:
    """Resolve an engine name (``"auto"``, ``"pystan"``, ``"cmdstanpy"``) or pass one through."""
    if isinstance(engine, Engine):
        return engine
    name = engine
    if name == "auto":
        name = os.environ.get(ENGINE_VARIABLE, "").strip().lower() or "auto"
    if name == "auto":
        name = "cmdstanpy" if CmdStanPyEngine.available() else "pystan"
    if name not in ENGINES:
        raise ValueError(
            f"Unknown engine {name!r} (from "
            f"{'the argument' if engine != 'auto' else ENGINE_VARIABLE}); "
            f"choose one of {['auto', *ENGINES]}."
        )
    if not ENGINES[name].available():
        hint = (
            "install CmdStan (cmdstanpy.install_cmdstan()) or use engine='pystan'"
            if name == "cmdstanpy"
            else "pip install pystan==3.10.0"
        )
        raise RuntimeError(f"The {name} engine is not available here: {hint}.")
    return _instance(name)


__all__ = [
    "ENGINES",
    "ENGINE_VARIABLE",
    "CacheDirectoryError",
    "CacheRebuiltWarning",
    "ChainProcessError",
    "CmdStanPyEngine",
    "Engine",
    "EngineError",
    "PyStanEngine",
    "SamplerSettings",
    "cache_directory",
    "get_engine",
]
