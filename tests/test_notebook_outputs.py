"""The tutorials in notebooks/ are stored with their outputs, as a reader gets them.

A notebook on a code host or on the documentation site (myst-nb with ``nb_execution_mode =
"off"``) shows what is stored in it, so the stored outputs must be complete: every code cell run
once, top to bottom, in one kernel; no error; an image for every cell that draws a plot; and no
switch of the matplotlib backend inside a notebook (the reader's Jupyter shows figures inline, the
test harness chooses its backend itself). tests/test_notebooks.py re-executes the notebooks and
checks that the stored outputs have the structure the code produces now (:func:`signature`).

Regenerate the stored outputs with ``python -m tests.test_notebooks [NAME ...]`` (slow: Stan fits).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))

#: A call that draws a figure: a ``plot...`` function or method, ``plt.show()`` or notebook 05's
#: ``show_figure`` helper (definitions excluded).
PLOTTING_CALL = re.compile(r"(?<!def )\b(plot\w*|show_figure)\(|\bplt\.show\(")
#: Backend switching, which hides every figure from a reader when it selects a non-GUI backend.
BACKEND_SWITCH = re.compile(r"matplotlib\.use\(|%matplotlib\s+(?!inline\b)|plt\.switch_backend\(")
IMAGE_TYPES = ("image/png", "image/svg+xml", "image/jpeg")


def code_cells(notebook) -> list:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def is_plotting_cell(source: str) -> bool:
    """Whether a cell draws a figure (comments ignored)."""
    code = "\n".join(line.split("#", 1)[0] for line in source.splitlines())
    return bool(PLOTTING_CALL.search(code))


def has_image(cell) -> bool:
    return any(
        kind in output.get("data", {}) for output in cell.get("outputs", []) for kind in IMAGE_TYPES
    )


def signature(cell) -> tuple:
    """What a cell's outputs consist of, without their values.

    One entry per displayed result (``execute_result`` / ``display_data``: its MIME types, with
    the figures' and tables' kinds), per error, and one for printed text on stdout. stderr is left
    out: warnings and progress messages depend on the machine and the caches.
    """
    kinds = []
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            if output.get("name") == "stdout" and ("stream", "stdout") not in kinds:
                kinds.append(("stream", "stdout"))
        elif kind == "error":
            kinds.append(("error", output.get("ename")))
        else:
            kinds.append(("display", tuple(sorted(output.get("data", {})))))
    return tuple(kinds)


def read(path: Path):
    import nbformat

    return nbformat.read(path, as_version=4)


@pytest.fixture(params=NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def stored(request):
    return request.param, read(request.param)


def test_notebooks_exist():
    assert len(NOTEBOOKS) >= 5
    stems = {path.stem for path in NOTEBOOKS}
    assert {"07_joint_model", "08_rank_models"} <= stems  # the joint model, the rank models


def test_run_top_to_bottom_once(stored):
    """Every code cell has an execution count, and the counts are 1, 2, 3, ... in order."""
    path, notebook = stored
    counts = [cell.get("execution_count") for cell in code_cells(notebook)]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: stored execution counts {counts}: re-execute the notebook from a fresh "
        "kernel (python -m tests.test_notebooks NAME)"
    )


def test_no_errors_stored(stored):
    path, notebook = stored
    errors = [
        (i, output.get("ename"))
        for i, cell in enumerate(notebook.cells)
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert errors == [], f"{path.name}: error outputs in cells {errors}"


def test_every_plotting_cell_shows_an_image(stored):
    path, notebook = stored
    plotting = [i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    plotting = [i for i in plotting if is_plotting_cell(notebook.cells[i].source)]
    assert plotting, f"{path.name} draws nothing: the plotting-cell pattern misses its plots"
    missing = [i for i in plotting if not has_image(notebook.cells[i])]
    assert missing == [], f"{path.name}: plotting cells without a stored image: {missing}"


def test_no_backend_switching(stored):
    path, notebook = stored
    switching = [
        i
        for i, cell in enumerate(notebook.cells)
        if cell.cell_type == "code" and BACKEND_SWITCH.search(cell.source)
    ]
    assert switching == [], f"{path.name}: cells {switching} switch the matplotlib backend"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("res.plot_simplex()\nplt.show()", True),
        ("fig = dirichlet.plot()  # bar plot", True),
        ("show_figure('e4_power.png')", True),
        ("def show_figure(name):\n    path = results / name", False),
        ("print(res)  # res.plot_simplex() would draw it", False),
        ("t.rope_sensitivity(max_rope=0.05)", False),
    ],
)
def test_plotting_cell_pattern(source, expected):
    assert is_plotting_cell(source) is expected


def test_signature_ignores_values_and_stderr():
    text = {"output_type": "stream", "name": "stdout", "text": "a"}
    noise = {"output_type": "stream", "name": "stderr", "text": "warning"}
    image = {"output_type": "display_data", "data": {"image/png": "x", "text/plain": "F"}}
    first = {"outputs": [text, noise, image]}
    second = {
        "outputs": [
            {**text, "text": "b"},
            {**text, "text": "c"},
            {**image, "data": {"text/plain": "G", "image/png": "y"}},
        ]
    }
    assert signature(first) == signature(second)
    assert signature(first) != signature({"outputs": [text]})
