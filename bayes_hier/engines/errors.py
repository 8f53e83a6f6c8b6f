"""What the engines raise and warn: one exception per fault a long study meets."""

from __future__ import annotations


class EngineError(RuntimeError):
    """A Stan engine could not compile or sample (the message says why and what to do)."""


class ChainProcessError(EngineError):
    """A process running a Markov chain ended abnormally (killed, e.g. by the out-of-memory
    killer, or crashed) before its draws were complete."""


class CacheDirectoryError(EngineError):
    """A cache folder cannot be created or written (read-only, full, or a file in the way)."""


class CacheRebuiltWarning(UserWarning):
    """A compiled model in the cache was unusable (truncated, or built by another version)
    and has been rebuilt."""


class NoEngineError(EngineError):
    """No Stan engine can run here: neither CmdStan (for cmdstanpy) nor pystan is installed."""
