"""Every tutorial in notebooks/ runs from top to bottom in a fresh kernel, shows its figures, and
its stored outputs have the structure that the current code produces.

The harness chooses the matplotlib backend itself: the kernel starts with the inline backend of
Jupyter (``MPLBACKEND=module://matplotlib_inline.backend_inline``), whatever the caller's
``MPLBACKEND`` (``make`` exports ``Agg``), so a figure reaches the outputs exactly as it reaches a
reader's Jupyter. The notebooks themselves never switch backends
(tests/test_notebook_outputs.py).

``python -m tests.test_notebooks [NAME ...]`` re-executes the notebooks the same way and stores
their outputs in place (all of them, or those whose file name contains a NAME).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .test_notebook_outputs import NOTEBOOKS, code_cells, has_image, is_plotting_cell, signature

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


@contextmanager
def inline_backend() -> Iterator[None]:
    """Kernels started inside use Jupyter's inline backend (they inherit the environment)."""
    before = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = INLINE_BACKEND
    try:
        yield
    finally:
        if before is None:
            del os.environ["MPLBACKEND"]
        else:
            os.environ["MPLBACKEND"] = before


def execute(path: Path, workdir: Path):
    """The notebook at ``path`` executed in a fresh ``python3`` kernel running in ``workdir``."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    with inline_backend():
        NotebookClient(
            notebook,
            timeout=900,
            kernel_name="python3",
            record_timing=False,
            resources={"metadata": {"path": str(workdir)}},
        ).execute()
    return notebook


@pytest.mark.notebook
@pytest.mark.stan
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    import nbformat

    stored = nbformat.read(path, as_version=4)
    executed = execute(path, tmp_path)
    cells = code_cells(executed)
    errors = [
        (i, output.get("ename"), output.get("evalue"))
        for i, cell in enumerate(cells)
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors
    blank = [i for i, cell in enumerate(cells) if is_plotting_cell(cell.source)]
    blank = [i for i in blank if not has_image(cells[i])]
    assert blank == [], f"plotting code cells {blank} produced no image"
    # The stored outputs are those of the code as it is: same cells, same kinds of outputs.
    assert [c.source for c in code_cells(stored)] == [c.source for c in cells]
    stale = [
        i
        for i, (old, new) in enumerate(zip(code_cells(stored), cells))
        if signature(old) != signature(new)
    ]
    assert stale == [], (
        f"code cells {stale} of {path.name} store outputs of another structure than they produce "
        "now: re-execute and store it (python -m tests.test_notebooks NAME)"
    )


def store_outputs(names: list[str]) -> None:
    """Execute the selected notebooks (each in its own temporary folder) and write them back."""
    import nbformat

    for path in NOTEBOOKS:
        if names and not any(name in path.name for name in names):
            continue
        with tempfile.TemporaryDirectory(prefix="bayes_hier_nb_") as workdir:
            executed = execute(path, Path(workdir))
        nbformat.write(executed, path)
        print(f"stored the outputs of {path.name}")


if __name__ == "__main__":
    store_outputs(sys.argv[1:])
