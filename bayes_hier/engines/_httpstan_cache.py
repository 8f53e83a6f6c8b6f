"""Is httpstan's compiled model for a program usable? Checked without loading it here.

A truncated extension module does not fail to import cleanly: loading it kills the process
(SIGBUS, measured). So a module is never loaded in this process to check it. Instead each
compiled model carries a manifest written by this package (size and SHA-256 of the module, the
httpstan and Python versions it was built with); a module without a manifest (built before this
check existed, or by pystan directly) is loaded once in a separate interpreter, and a manifest is
written if that works.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..stan_programs import StanProgram

MANIFEST = "bayes_hier_manifest.json"
#: Bump when the manifest's meaning changes; older manifests then count as another version.
MANIFEST_FORMAT = 1
#: Seconds allowed to load a module in a separate interpreter.
LOAD_CHECK_TIMEOUT = 120


@dataclass(frozen=True)
class CacheEntry:
    """httpstan's cache entry of one program: its folder and model name."""

    model_name: str
    directory: Path

    @classmethod
    def of(cls, program: StanProgram) -> CacheEntry:
        import httpstan.cache
        import httpstan.models

        name = httpstan.models.calculate_model_name(program.code)
        return cls(name, httpstan.cache.model_directory(name))

    @property
    def module(self) -> Path | None:
        """The compiled extension module, if there is one."""
        if not self.directory.is_dir():
            return None
        for path in sorted(self.directory.iterdir()):
            if any(path.name.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES):
                return path
        return None


def build_identity() -> dict[str, str]:
    """What a compiled module depends on besides the program text."""
    import httpstan

    return {"httpstan": httpstan.__version__, "python": sys.version}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(entry: CacheEntry) -> None:
    """Record the module's size, hash and build identity next to it (atomically)."""
    module = entry.module
    if module is None:
        return
    manifest = {
        "format": MANIFEST_FORMAT,
        "module": module.name,
        "size": module.stat().st_size,
        "sha256": _sha256(module),
        **build_identity(),
    }
    path = entry.directory / MANIFEST
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(manifest))
    temporary.replace(path)


def loads_in_another_process(entry: CacheEntry) -> bool:
    """Whether the module loads in a fresh interpreter (a crash there harms nobody)."""
    script = (
        "import sys, httpstan.models; httpstan.models.import_services_extension_module(sys.argv[1])"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, entry.model_name],
            capture_output=True,
            timeout=LOAD_CHECK_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def problem(entry: CacheEntry) -> str | None:
    """Why the compiled module of ``entry`` cannot be used, or None when it can.

    Call only when a module exists. Writes the manifest of a module that has none and loads.
    """
    module = entry.module
    assert module is not None
    path = entry.directory / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        if loads_in_another_process(entry):
            write_manifest(entry)
            return None
        return f"the module {module.name} does not load"
    except (OSError, ValueError):
        return "its manifest is unreadable"
    if manifest.get("format") != MANIFEST_FORMAT or any(
        manifest.get(k) != v for k, v in build_identity().items()
    ):
        return "it was built by another version of bayes_hier, httpstan or Python"
    if manifest.get("module") != module.name or manifest.get("size") != module.stat().st_size:
        return f"the module {module.name} is truncated or was replaced"
    if manifest.get("sha256") != _sha256(module):
        return f"the module {module.name} is corrupted (its SHA-256 changed)"
    return None
