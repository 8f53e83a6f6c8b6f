"""Locate and load the package's Stan programs.

The ``.stan`` files exist once, in ``stan/`` at the top of the repository. A built wheel carries
them as ``bayes_hier/stan`` (``force-include`` in ``pyproject.toml``); a source checkout or an
editable install reads them from the repository. Fragments shared by several programs live in
``stan/include`` and are pasted in where a program says ``#include name.stan``, here in Python,
so that every engine compiles exactly the same text.

A program may ask for options of the Stan compiler (``stanc``) in a line of its own,
``// stanc options: --O1``; both engines translate it with them. The line is part of the text,
so of the key under which every engine caches the compiled program: a build without the
options is never reused for it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_INCLUDE = re.compile(r"^[ \t]*#include[ \t]+[\"<]?([\w./-]+?)[\">]?[ \t]*$", re.MULTILINE)
_STANC_OPTIONS = re.compile(r"^[ \t]*// stanc options:(.*)$", re.MULTILINE)

#: The compiler options a program may ask for: Stan's optimisation levels that every Stan
#: compiler since 2.27 offers (``--O1``: among others, a matrix of autodiff variables is kept as
#: one matrix of values and one of adjoints; the log density is the same up to rounding).
SUPPORTED_STANC_OPTIONS = frozenset({"--O0", "--O1"})
#: How long a program's first compilation takes, in the words of the engines' announcement:
#: measured with pystan on two cores, 32 s for ``hierarchical``, 24 s for ``bradley_terry``,
#: 105 s for ``joint`` and 134 s to 290 s for ``joint_fold`` (at ``--O1``, on different days);
#: the programs not listed are of the first kind.
COMPILE_DURATIONS = {"joint": "about 2 minutes", "joint_fold": "2 to 5 minutes"}


def stan_directory() -> Path:
    """The folder holding the ``.stan`` programs (installed copy first, then the repository)."""
    package_dir = Path(__file__).resolve().parent
    for candidate in (package_dir / "stan", package_dir.parent / "stan"):
        if (candidate / "hierarchical.stan").is_file():
            return candidate
    raise FileNotFoundError(
        f"The Stan programs were not found in {package_dir / 'stan'} nor in "
        f"{package_dir.parent / 'stan'}. Reinstall bayes_hier (pip install .) so that the wheel "
        "carries them."
    )


@dataclass(frozen=True)
class StanProgram:
    """A Stan program with its includes resolved.

    Attributes
    ----------
    name
        File name without ``.stan`` (e.g. ``"hierarchical"``).
    code
        The full program text given to the compiler.
    """

    name: str
    code: str

    def __post_init__(self) -> None:
        self.stanc_options  # noqa: B018 (an unsupported compiler option fails here)

    @property
    def digest(self) -> str:
        """Hash of the program text: the key of the compiled-model caches."""
        return hashlib.sha256(self.code.encode()).hexdigest()[:16]

    @property
    def compile_duration(self) -> str:
        """How long its first compilation takes, in words (:data:`COMPILE_DURATIONS`; "about a
        minute" for the programs not listed there)."""
        return COMPILE_DURATIONS.get(self.name, "about a minute")

    @property
    def stanc_options(self) -> tuple[str, ...]:
        """The Stan compiler options the program asks for (``// stanc options: ...`` lines).

        Raises
        ------
        ValueError
            An option outside :data:`SUPPORTED_STANC_OPTIONS`.
        """
        options = tuple(
            option for line in _STANC_OPTIONS.findall(self.code) for option in line.split()
        )
        unsupported = sorted(set(options) - SUPPORTED_STANC_OPTIONS)
        if unsupported:
            raise ValueError(
                f"The Stan program {self.name!r} asks for the compiler options {unsupported}; "
                f"supported are {sorted(SUPPORTED_STANC_OPTIONS)}. Change its "
                "'// stanc options:' line."
            )
        return options


def _expand(text: str, include_dir: Path, seen: tuple[str, ...] = ()) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in seen:
            raise ValueError(f"Recursive #include of {name}")
        path = include_dir / name
        if not path.is_file():
            raise FileNotFoundError(f"#include {name}: no file {path}")
        return _expand(path.read_text(), include_dir, (*seen, name)).rstrip("\n")

    return _INCLUDE.sub(replace, text)


@cache
def load_program(name: str) -> StanProgram:
    """Load ``stan/<name>.stan`` with its ``#include`` fragments pasted in."""
    directory = stan_directory()
    path = directory / f"{name}.stan"
    if not path.is_file():
        available = sorted(p.stem for p in directory.glob("*.stan"))
        raise ValueError(f"No Stan program {name!r}; available: {available}")
    return program_from_text(name, path.read_text())


def program_from_text(name: str, text: str) -> StanProgram:
    """A program given as text, its ``#include`` fragments taken from the package's
    ``stan/include`` folder (as :func:`load_program`, which reads the text from ``stan/``; also
    for exploration programs kept outside the package)."""
    return StanProgram(name=name, code=_expand(text, stan_directory() / "include"))
