"""Stan engines behind one interface: cmdstanpy (CmdStan) and pystan (embedded, optional).

``engine="auto"`` picks cmdstanpy when a CmdStan installation is found, else pystan when it is
installed (the ``pystan`` extra: ``pip install "bayes_hier[pystan]"``), else raises
:class:`NoEngineError` saying both ways to get one. The environment variable
``BAYES_HIER_ENGINE`` (``pystan`` or ``cmdstanpy``) overrides the automatic choice; an explicit
``engine=`` argument overrides both. Results record the engine that ran
(``result.settings["engine"]``).
"""

from __future__ import annotations

import os
from functools import cache

from .base import Engine, SamplerSettings, cache_directory
from .cmdstanpy_engine import CmdStanPyEngine
from .errors import (
    CacheDirectoryError,
    CacheRebuiltWarning,
    ChainProcessError,
    EngineError,
    NoEngineError,
)
from .pystan_engine import PyStanEngine

#: The engines, in the order ``engine="auto"`` tries them.
ENGINES: dict[str, type[Engine]] = {"cmdstanpy": CmdStanPyEngine, "pystan": PyStanEngine}
ENGINE_VARIABLE = "BAYES_HIER_ENGINE"

PYSTAN_INSTALL = 'pip install "bayes_hier[pystan]"'
CMDSTAN_INSTALL = 'python -c "import cmdstanpy; cmdstanpy.install_cmdstan()"'
NO_ENGINE_MESSAGE = (
    "No Stan engine is available: install the embedded one with "
    f"{PYSTAN_INSTALL} (Linux, macOS), or CmdStan for cmdstanpy with "
    f"{CMDSTAN_INSTALL} (any platform, Windows included)."
)
_UNAVAILABLE = {
    "cmdstanpy": f"CmdStan is not installed; install it with {CMDSTAN_INSTALL}",
    "pystan": f"install it with {PYSTAN_INSTALL} (Linux, macOS; on Windows use cmdstanpy)",
}


@cache
def _instance(name: str) -> Engine:
    return ENGINES[name]()


def available_engines() -> list[str]:
    """The names of the engines that can run here, in the order ``"auto"`` prefers them."""
    return [name for name, engine in ENGINES.items() if engine.available()]


def get_engine(engine: str | Engine = "auto") -> Engine:
    """Resolve an engine name (``"auto"``, ``"pystan"``, ``"cmdstanpy"``) or pass one through.

    Raises
    ------
    NoEngineError
        ``"auto"`` and neither engine is available (the message names both installs).
    EngineError
        A named engine is not available (the message says how to install it).
    ValueError
        An unknown name.
    """
    if isinstance(engine, Engine):
        return engine
    name = engine
    if name == "auto":
        name = os.environ.get(ENGINE_VARIABLE, "").strip().lower() or "auto"
    if name == "auto":
        # the first available, without asking the others (pystan's import is slow)
        found = next((n for n, candidate in ENGINES.items() if candidate.available()), None)
        if found is None:
            raise NoEngineError(NO_ENGINE_MESSAGE)
        name = found
    if name not in ENGINES:
        raise ValueError(
            f"Unknown engine {name!r} (from "
            f"{'the argument' if engine != 'auto' else ENGINE_VARIABLE}); "
            f"choose one of {['auto', *ENGINES]}."
        )
    if not ENGINES[name].available():
        raise EngineError(f"The {name} engine is not available here: {_UNAVAILABLE[name]}.")
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
    "NoEngineError",
    "PyStanEngine",
    "SamplerSettings",
    "available_engines",
    "cache_directory",
    "get_engine",
]
