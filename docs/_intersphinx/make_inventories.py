"""Write the small intersphinx inventories shipped for numpy, matplotlib, statsmodels, arviz.

The documentation builds offline, so every intersphinx inventory lives in this folder. pandas,
scipy and Python's inventories are the projects' own ``objects.inv``, taken from Debian's
documentation packages (python-pandas-doc 1.5.3, python-scipy-doc 1.10.1, python3.11-doc
3.11.2: ``apt-get download`` and ``dpkg-deb -x``). Debian ships no documentation package for
numpy, matplotlib, statsmodels or arviz, so their inventories are written here, listing exactly
the objects this site refers to, each with its address on the project's published documentation.

Run ``python docs/_intersphinx/make_inventories.py`` after adding an entry; the ``.inv`` files
are committed. The format is Sphinx's inventory version 2: four header lines, then zlib-compressed
lines ``name domain:role priority uri display-name`` (``$`` in the uri stands for the name,
``-`` as display name means the name itself).
"""

from __future__ import annotations

import zlib
from pathlib import Path

# project -> (version, [(name, domain:role, uri relative to the project's base address), ...])
INVENTORIES: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "numpy": (
        "2.2",
        [
            ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html#$"),
            ("numpy.random.Generator", "py:class", "reference/random/generator.html#$"),
            (
                "numpy.random.SeedSequence",
                "py:class",
                "reference/random/bit_generators/generated/numpy.random.SeedSequence.html#$",
            ),
            ("numpy.random.default_rng", "py:function", "reference/random/generator.html#$"),
            ("numpy.random.RandomState", "py:class", "reference/random/legacy.html#$"),
            ("numpy.typing.ArrayLike", "py:data", "reference/typing.html#$"),
            ("numpy.typing.NDArray", "py:data", "reference/typing.html#$"),
            ("numpy.float64", "py:class", "reference/arrays.scalars.html#$"),
            ("numpy.int64", "py:class", "reference/arrays.scalars.html#$"),
            ("array_like", "std:term", "glossary.html#term-array_like"),
        ],
    ),
    "matplotlib": (
        "3.10",
        [
            ("matplotlib.axes.Axes", "py:class", "api/_as_gen/matplotlib.axes.Axes.html#$"),
            ("matplotlib.figure.Figure", "py:class", "api/_as_gen/matplotlib.figure.Figure.html#$"),
            ("matplotlib.pyplot.show", "py:function", "api/_as_gen/matplotlib.pyplot.show.html#$"),
        ],
    ),
    "statsmodels": (
        "0.14",
        [
            (
                "statsmodels.stats.contingency_tables.mcnemar",
                "py:function",
                "generated/statsmodels.stats.contingency_tables.mcnemar.html#$",
            ),
            (
                "statsmodels.stats.multitest.multipletests",
                "py:function",
                "generated/statsmodels.stats.multitest.multipletests.html#$",
            ),
        ],
    ),
    "arviz": (
        "0.22",
        [
            ("arviz.InferenceData", "py:class", "api/generated/arviz.InferenceData.html#$"),
            ("arviz.summary", "py:function", "api/generated/arviz.summary.html#$"),
            ("arviz.hdi", "py:function", "api/generated/arviz.hdi.html#$"),
            ("arviz.ess", "py:function", "api/generated/arviz.ess.html#$"),
            ("arviz.rhat", "py:function", "api/generated/arviz.rhat.html#$"),
            ("arviz.bfmi", "py:function", "api/generated/arviz.bfmi.html#$"),
        ],
    ),
}


def inventory_bytes(project: str, version: str, entries: list[tuple[str, str, str]]) -> bytes:
    """The bytes of a version-2 inventory listing ``entries`` (priority 1, display name '-')."""
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    ).encode()
    body = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in sorted(entries))
    return header + zlib.compress(body.encode(), 9)


def main() -> None:
    here = Path(__file__).resolve().parent
    for project, (version, entries) in INVENTORIES.items():
        (here / f"{project}.inv").write_bytes(inventory_bytes(project, version, entries))


if __name__ == "__main__":
    main()
