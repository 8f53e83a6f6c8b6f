"""Is httpstan's compiled model for a program usable? Checked without loading it here.

A truncated extension module does not fail to import cleanly: loading it kills the process
(SIGBUS, measured). So a module is never loaded in this process to check it. Instead each
compiled model carries a manifest written by this package (size and SHA-256 of the module, the
httpstan and Python versions it was built with); a module without a manifest (built before this
check existed, or by pystan directly) is loaded once in a separate interpreter, and a manifest is
written if the file is complete (for ELF files, checked against the sizes its header lists:
loading alone does not notice a module cut in half) and loads.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

from ..stan_programs import StanProgram
from ._cache import command_succeeds

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


def elf_is_truncated(path: Path) -> bool:
    """Whether an ELF file (Linux extension module) ends before the parts its header lists.

    The header gives the offset and size of the section header table (at the end of the file)
    and of each loadable segment; a file shorter than any of them is truncated. Other formats
    (macOS Mach-O) are not examined: False.
    """
    with path.open("rb") as stream:
        header = stream.read(64)
        magic = b"\x7fELF"
        if not magic.startswith(header[:4]):
            return False  # not an ELF file
        if len(header) < 52:  # shorter than the smallest ELF header
            return True
        wide = header[4] == 2  # ELFCLASS64
        order = "<" if header[5] == 1 else ">"
        if wide:
            phoff, shoff = struct.unpack_from(order + "QQ", header, 32)
            phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", header, 54)
        else:
            phoff, shoff = struct.unpack_from(order + "II", header, 28)
            phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", header, 42)
        size = path.stat().st_size
        ends = [shoff + shnum * shentsize, phoff + phnum * phentsize]
        stream.seek(phoff)
        table = stream.read(phnum * phentsize)
        if len(table) < phnum * phentsize:
            return True
        for index in range(phnum):
            entry = table[index * phentsize : (index + 1) * phentsize]
            if wide:
                kind, _, offset, _, _, filesz = struct.unpack_from(order + "IIQQQQ", entry)
            else:
                kind, offset, _, _, filesz = struct.unpack_from(order + "IIIII", entry)
            if kind == 1:  # PT_LOAD
                ends.append(offset + filesz)
    return max(ends) > size


def loads_in_another_process(entry: CacheEntry) -> bool:
    """Whether the module loads in a fresh interpreter (a crash there harms nobody)."""
    script = (
        "import sys, httpstan.models; httpstan.models.import_services_extension_module(sys.argv[1])"
    )
    return command_succeeds([sys.executable, "-c", script, entry.model_name], LOAD_CHECK_TIMEOUT)


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
        if elf_is_truncated(module):
            return f"the module {module.name} is truncated"
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
