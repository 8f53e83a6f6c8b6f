"""Sphinx configuration of the bayes_hier documentation (``make docs``).

The build is offline and warning-free under ``-W --keep-going -n``:

* the API pages are written by :func:`write_api_pages` from the ``__all__`` of the modules in
  :data:`API_MODULES` (add a module there and it gets a page, with one generated page per name);
* the tutorials are the notebooks of ``notebooks/`` with the outputs stored in them (copied into
  ``docs/tutorials/`` by :func:`copy_notebooks`; myst-nb does not re-execute them);
* intersphinx reads only the inventories shipped in ``docs/_intersphinx/`` (see
  ``make_inventories.py`` there); a missing inventory is skipped, never fetched.
"""

from __future__ import annotations

import filecmp
import importlib
import re
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

import bayes_hier  # noqa: E402

project = "bayes_hier"
author = "bayes_hier developers"
copyright = "2026, bayes_hier developers"
release = bayes_hier.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 copied into the site: formulas render offline
    "numpydoc",
    "myst_nb",
]

exclude_patterns = ["_build", "_intersphinx", "jupyter_execute", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
nitpicky = True
toc_object_entries_show_parents = "hide"  # "plot_simplex()" in the page tables of contents

# ---------------------------------------------------------------------------------------------
# API reference: one page per module below, one generated page per public name.
# A module's public names are its __all__ (else the names it defines without a leading "_").
# A name exported by several modules is documented once, on the first page that lists it.
# To document a new module, add (module, title) here; (module, title, names) lists its names.
API_MODULES: list[tuple] = [
    ("bayes_hier", "bayes_hier: the main functions and results"),
    ("bayes_hier.hierarchical", "bayes_hier.hierarchical: the hierarchical model"),
    ("bayes_hier.compare", "bayes_hier.compare: many models at once"),
    ("bayes_hier.fitting", "bayes_hier.fitting: one driver for every Stan model"),
    ("bayes_hier.joint", "bayes_hier.joint: one joint model of k models"),
    ("bayes_hier.joint.propriety", "bayes_hier.joint.propriety: how many data sets it needs"),
    ("bayes_hier.joint.fold_noise", "bayes_hier.joint.fold_noise: the noise on few folds"),
    ("bayes_hier.joint.noise_check", "bayes_hier.joint.noise_check: does the fold noise fit?"),
    (
        "bayes_hier.joint.heavy_tails",
        "bayes_hier.joint.heavy_tails: a failed fit with nu at its bound",
    ),
    (
        "bayes_hier.joint.paired_folds",
        "bayes_hier.joint.paired_folds: models lacking some folds",
    ),
    ("bayes_hier.joint.recovery", "bayes_hier.joint.recovery: studies with a known truth"),
    ("bayes_hier.ranking", "bayes_hier.ranking: Bradley-Terry and Plackett-Luce models"),
    ("bayes_hier.bayesian_tests", "bayes_hier.bayesian_tests: correlated t, sign, signed-rank"),
    ("bayes_hier.compat", "bayes_hier.compat: the baycomp-compatible interface"),
    ("bayes_hier.multimeasure", "bayes_hier.multimeasure: several measures at once"),
    ("bayes_hier.frequentist", "bayes_hier.frequentist: frequentist tests"),
    ("bayes_hier.engines", "bayes_hier.engines: the Stan engines"),
    ("bayes_hier.parallel", "bayes_hier.parallel: running tasks in worker processes"),
    ("bayes_hier.experiments", "bayes_hier.experiments: the paper's experiments"),
    (
        "bayes_hier.experiments.paper_values",
        "bayes_hier.experiments.paper_values: the paper's published numbers",
    ),
    ("bayes_hier.experiments.record", "bayes_hier.experiments.record: the results of record"),
    ("bayes_hier.calibration", "bayes_hier.calibration: simulation-based calibration"),
    (
        "bayes_hier.hierarchical.two_chart",
        "bayes_hier.hierarchical.two_chart: few-fold coordinates of the hierarchical model",
    ),
    (
        "bayes_hier.hierarchical.quadrature",
        "bayes_hier.hierarchical.quadrature: the deep data sets integrated out",
    ),
    (
        "bayes_hier.hierarchical.simulate",
        "bayes_hier.hierarchical.simulate: the hierarchical model's calibration simulator",
    ),
    (
        "bayes_hier.joint.simulate",
        "bayes_hier.joint.simulate: the joint model's calibration simulator",
    ),
    (
        "bayes_hier.ranking.simulate",
        "bayes_hier.ranking.simulate: the rank models' calibration simulators",
    ),
    ("bayes_hier.data", "bayes_hier.data: input formats", ["CVData", "as_cvdata"]),
    ("bayes_hier.examples", "bayes_hier.examples: example data"),
    ("bayes_hier.seeding", "bayes_hier.seeding: seeds"),
]


def public_names(module) -> list[str]:
    """``module.__all__`` without dunders, else the public names the module itself defines."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            name
            for name, value in vars(module).items()
            if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
        ]
    return sorted((n for n in names if not n.startswith("__")), key=str.lower)


def api_page(module_name: str, title: str, own: list[str], elsewhere: list[str]) -> str:
    """The reStructuredText of one module page: its docstring and an autosummary of ``own``."""
    lines = [title, "=" * len(title), "", f".. automodule:: {module_name}"]
    if _shadowed(module_name):
        lines.append("   :no-index:")
    lines.append("")
    lines += [f".. currentmodule:: {module_name}", ""]
    if own:
        lines += [".. autosummary::", "   :toctree: generated/", "   :nosignatures:", ""]
        lines += [f"   {name}" for name in own] + [""]
    if elsewhere:
        refs = ", ".join(f":obj:`{module_name}.{name} <{target}>`" for name, target in elsewhere)
        lines += [f"Also exported here (documented on another page): {refs}.", ""]
    return "\n".join(lines)


def _shadowed(module_name: str) -> bool:
    """Whether the package attribute of that name is not the module (``bayes_hier.compare`` is
    the function ``compare``): the module then gets no index entry, the object keeps its name."""
    parent, _, name = module_name.rpartition(".")
    if not parent:
        return False
    return getattr(importlib.import_module(parent), name) is not importlib.import_module(
        module_name
    )


def write_if_changed(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_api_pages() -> None:
    """Write ``api/<module>.rst`` for every entry of :data:`API_MODULES` and ``api/index.rst``."""
    api = DOCS / "api"
    api.mkdir(exist_ok=True)
    # autosummary writes generated/ anew from the pages below; a page left from an earlier build
    # (a name that moved to another module) would otherwise stay, outside every toctree.
    shutil.rmtree(api / "generated", ignore_errors=True)
    documented: dict[int, str] = {}
    for module_name, title, *names in API_MODULES:
        module = importlib.import_module(module_name)
        own, elsewhere = [], []
        for name in names[0] if names else public_names(module):
            value = getattr(module, name)
            simple = isinstance(value, (int, float, str, tuple))
            key = ("value", name) if simple else id(value)
            if key in documented and documented[key] != f"{module_name}.{name}":
                elsewhere.append((name, documented[key]))
            else:
                documented[key] = f"{module_name}.{name}"
                own.append(name)
        write_if_changed(api / f"{module_name}.rst", api_page(module_name, title, own, elsewhere))
    index = ["API reference", "=" * 13, "", ".. toctree::", "   :maxdepth: 1", ""]
    index += [f"   {entry[0]}" for entry in API_MODULES] + [""]
    write_if_changed(api / "index.rst", "\n".join(index))


def copy_notebooks() -> None:
    """Copy ``notebooks/*.ipynb`` (with their stored outputs) into ``docs/tutorials/``."""
    target = DOCS / "tutorials"
    target.mkdir(exist_ok=True)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        copy = target / notebook.name
        if not copy.is_file() or not filecmp.cmp(notebook, copy, shallow=False):
            shutil.copyfile(notebook, copy)


write_api_pages()
copy_notebooks()

autosummary_generate = True
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_default_options = {"exclude-members": "__init__, __new__"}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
numpydoc_xref_aliases = {
    "DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "ndarray": "numpy.ndarray",
    "Generator": "numpy.random.Generator",
    "SeedSequence": "numpy.random.SeedSequence",
    "InferenceData": "arviz.InferenceData",
    "Axes": "matplotlib.axes.Axes",
    "Figure": "matplotlib.figure.Figure",
    "CVData": "bayes_hier.CVData",
    "Rope": "bayes_hier.Rope",
    "Probabilities": "bayes_hier.Probabilities",
    "Decision": "bayes_hier.Decision",
    "ExpectedCost": "bayes_hier.ExpectedCost",
    "HierarchicalResult": "bayes_hier.HierarchicalResult",
    "HierarchicalPrior": "bayes_hier.hierarchical.HierarchicalPrior",
    "SimplexResult": "bayes_hier.SimplexResult",
    "CorrelatedTResult": "bayes_hier.CorrelatedTResult",
}

# ---------------------------------------------------------------------------------------------
# Cross-references to other projects, from the inventories shipped in _intersphinx/ only.
INTERSPHINX_SITES = {
    "python": "https://docs.python.org/3/",
    "numpy": "https://numpy.org/doc/stable/",
    "pandas": "https://pandas.pydata.org/docs/",
    "scipy": "https://docs.scipy.org/doc/scipy/",
    "matplotlib": "https://matplotlib.org/stable/",
    "statsmodels": "https://www.statsmodels.org/stable/",
    "arviz": "https://python.arviz.org/en/stable/",
}
intersphinx_mapping = {
    name: (url, str(DOCS / "_intersphinx" / f"{name}.inv"))
    for name, url in INTERSPHINX_SITES.items()
    if (DOCS / "_intersphinx" / f"{name}.inv").is_file()
}
intersphinx_timeout = 1

# ---------------------------------------------------------------------------------------------
# Markdown pages and notebooks.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # the notebooks carry their outputs (tests/test_notebook_outputs.py)
nb_merge_streams = True

# ---------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"bayes_hier {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": []}
html_static_path = ["_static"]
html_css_files = ["custom.css"]


# ---------------------------------------------------------------------------------------------
# Docstrings name objects by the module that defines them (``bayes_hier.data.CVData.from_frame``)
# or by their bare name (``CVData``); the site documents each object once, under the name users
# import (``bayes_hier.CVData``). A reference that Sphinx cannot find is resolved here to the
# documented name of the SAME Python object (by identity), or of the one documented object with
# that last name component. Anything else stays a nitpicky warning.
def _resolve(name: str):
    import pkgutil

    try:
        return pkgutil.resolve_name(name)
    except (ImportError, AttributeError, ValueError):
        return None


def _is_api_object(value) -> bool:
    return callable(value) or isinstance(value, property)


def _identity(value) -> int:
    """id() of an object, of the function behind a bound (class)method."""
    return id(getattr(value, "__func__", value))


def _documented(env) -> tuple[dict[int, str], dict[str, set[str]]]:
    """(id(object) -> documented name, last name component -> documented names)."""
    cached = getattr(env, "_bayes_hier_documented", None)
    if cached is not None:
        return cached
    by_id: dict[int, str] = {}
    by_short: dict[str, set[str]] = {}
    for name, entry in env.get_domain("py").objects.items():
        if entry.aliased or not name.startswith("bayes_hier."):
            continue
        by_short.setdefault(name.rsplit(".", 1)[-1], set()).add(name)
        value = _resolve(name)
        if _is_api_object(value):
            by_id.setdefault(_identity(value), name)
    env._bayes_hier_documented = (by_id, by_short)
    return env._bayes_hier_documented


def _docstring_owner(node) -> str | None:
    """The dotted name of the object whose docstring holds ``node`` (from autodoc's source)."""
    source = node.source or ""
    marker = "docstring of "
    return source.split(marker, 1)[1].strip() if marker in source else None


def _relative_candidates(target: str, owner: str | None) -> list[str]:
    """``target`` read relative to each enclosing module or class of ``owner``, and to the
    module that defines ``owner`` (a docstring names its own module's constants bare)."""
    if owner is None:
        return []
    parts = owner.split(".")
    candidates = [".".join([*parts[:i], target]) for i in range(len(parts), 0, -1)]
    value = _resolve(owner)
    function = getattr(value, "fget", None) or getattr(value, "func", None) or value  # properties
    module = getattr(function, "__module__", None)
    return [*candidates, f"{module}.{target}"] if module else candidates


def resolve_by_identity(app, env, node, contnode):
    """``missing-reference`` handler: see the comment above.

    A reference to an object of bayes_hier that exists but has no page (a private helper or
    module, named in a docstring written for developers) is rendered as plain code text. A
    reference to nothing that exists (a typo, a renamed function) stays a warning.
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    module, cls = node.get("py:module"), node.get("py:class")
    candidates = [target, f"bayes_hier.{target}"]
    if module:
        candidates += [f"{module}.{target}"] + ([f"{module}.{cls}.{target}"] if cls else [])
    candidates += _relative_candidates(target, _docstring_owner(node))
    by_id, by_short = _documented(env)
    documented = None
    for candidate in candidates:
        value = _resolve(candidate)
        if _is_api_object(value) and _identity(value) in by_id:
            documented = by_id[_identity(value)]
            break
    if documented is None:
        names = by_short.get(target.rsplit(".", 1)[-1], set())
        if len(names) == 1 and "." not in target:
            documented = next(iter(names))
        elif any(_resolve(c) is not None for c in candidates if c.startswith("bayes_hier")):
            return contnode  # an existing internal object: code text, no link
        else:
            return None
    resolved = env.get_domain("py").resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], documented, node, contnode
    )
    # None: the object exists under another role (a module shadowed by a function of the same
    # name, e.g. a module named like a function its package exports): code text, no link.
    return resolved if resolved is not None else contnode


# ---------------------------------------------------------------------------------------------
# Docstrings cite the user guide's "Model and conventions" page as plain text ("conventions §3.3",
# readable in help()); on the site each citation links to its section (labels conventions-<n> and
# conventions-<n>-<m> of docs/guide/conventions.md).
CONVENTIONS_CITATION = re.compile(r"conventions §(\d+)((?:\.\d+)*)")


def conventions_link(match: re.Match) -> str:
    """The :ref: role of one "conventions §..." citation (a deeper number links to its section)."""
    parts = [match.group(1), *match.group(2).split(".")[1:2]]
    return f":ref:`conventions §{match.group(1)}{match.group(2)} <conventions-{'-'.join(parts)}>`"


def link_conventions(app, what, name, obj, options, lines: list[str]) -> None:
    """``autodoc-process-docstring`` handler: link the citations of the conventions page."""
    lines[:] = [CONVENTIONS_CITATION.sub(conventions_link, line) for line in lines]


def setup(app):
    app.connect("missing-reference", resolve_by_identity)
    app.connect("autodoc-process-docstring", link_conventions)
