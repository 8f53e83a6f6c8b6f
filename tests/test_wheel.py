"""An installed (non-editable) wheel finds its Stan programs and its example data, and fits;
without the pystan extra it installs no pystan, imports quietly and says how to get an engine."""

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: What the pystan extra adds (packages and their import names).
PYSTAN_PACKAGES = ("pystan", "httpstan")
PYSTAN_MODULES = ("stan", "httpstan")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The package's wheel, built once for this module."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(ROOT)],
        check=True,
    )
    return next(dist.glob("bayes_hier-*.whl"))


def _venv(folder: Path, dependencies: Path) -> Path:
    """A fresh venv that sees the packages in ``dependencies`` (no download); returns its
    python. The editable install of this environment is not visible there."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(f"{dependencies}\n")
    return python


def _install(python: Path, wheel: Path) -> None:
    subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--quiet", str(wheel)], check=True
    )


def _run(python: Path, script: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BAYES_HIER_ENGINE")}
    return subprocess.run(
        [str(python), "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
    )


@pytest.mark.wheel
@pytest.mark.stan
def test_wheel_ships_the_stan_programs_and_fits(wheel, tmp_path):
    names = zipfile.ZipFile(wheel).namelist()
    for program in ROOT.glob("stan/**/*.stan"):
        assert f"bayes_hier/stan/{program.relative_to(ROOT / 'stan').as_posix()}" in names
    assert "bayes_hier/example_data/uci_weka_10x10cv.csv.gz" in names
    assert "bayes_hier/example_data/README.md" in names

    # A fresh venv whose dependencies, the pystan extra's included, come from this environment.
    venv = tmp_path / "venv"
    python = _venv(venv, Path(sysconfig.get_paths()["purelib"]))
    _install(python, wheel)
    script = """
        import json
        import numpy as np, bayes_hier
        from bayes_hier.examples import find_uci_weka, load_uci_weka
        from bayes_hier.stan_programs import stan_directory
        print(bayes_hier.__file__)
        print(stan_directory())
        print(find_uci_weka())
        print(json.dumps(load_uci_weka().groupby("model").size().to_dict()))
        rng = np.random.default_rng(0)
        x = rng.uniform(0.7, 0.8, (3, 10))
        res = bayes_hier.hierarchical_test(x, x + 0.05 + rng.normal(0, 0.01, (3, 10)), seed=1,
                                           chains=1, draws=100, warmup=100, warn=False)
        print(res.probs.right)
        print(res.settings["engine"])
        """
    out = _run(python, script, tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    module, stan_dir, data_file, sizes, p_right, engine = out.stdout.strip().splitlines()[-6:]
    assert module.startswith(str(venv)) and stan_dir.startswith(str(venv))
    assert data_file.startswith(str(venv))  # the packaged real data, not a checkout's copy
    assert json.loads(sizes) == dict.fromkeys(["aode", "hnb", "j48", "j48gr", "nbc"], 5400)
    assert float(p_right) > 0.5
    assert engine == ("cmdstanpy" if "cmdstanpy" in _engines_here() else "pystan")


def _engines_here() -> list[str]:
    from bayes_hier.engines import available_engines

    return available_engines()


def _without_pystan(site: Path, folder: Path) -> Path:
    """A folder that links every package of ``site`` except pystan, httpstan (and this
    package): the core dependencies as installed here, without the extra."""
    folder.mkdir()
    skipped = (*PYSTAN_MODULES, *PYSTAN_PACKAGES, "bayes_hier", "_editable_impl_bayes_hier")
    for entry in site.iterdir():
        name = entry.name.split("-")[0].split(".")[0]
        if name not in skipped:
            (folder / entry.name).symlink_to(entry)
    return folder


NO_EXTRA = """
import importlib.util, json
import numpy as np
import bayes_hier
from bayes_hier.engines import ENGINES, NoEngineError, available_engines
print(json.dumps([importlib.util.find_spec(m) is not None for m in ("stan", "httpstan")]))
print(json.dumps({"engines": list(ENGINES), "available": available_engines()}))
rng = np.random.default_rng(0)
x = rng.uniform(0.7, 0.8, (3, 10))
try:
    bayes_hier.hierarchical_test(x, x + rng.normal(0.01, 0.01, (3, 10)), seed=1, warn=False)
except NoEngineError as error:
    print("NoEngineError:", error)
"""


@pytest.mark.wheel
def test_wheel_without_the_pystan_extra_imports_quietly_and_names_both_engines(wheel, tmp_path):
    # pip's own resolution: the core install pulls no pystan/httpstan, the extra pulls both
    # (pinned for this Python).
    resolved = {}
    for extra in ("", "[pystan]"):
        report = tmp_path / f"report{extra}.json"
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
             "--quiet", "--report", str(report), f"{wheel}{extra}"],
            capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        items = json.loads(report.read_text())["install"]
        resolved[extra] = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in items}
    assert "cmdstanpy" in resolved[""]
    assert not set(PYSTAN_PACKAGES) & set(resolved[""])
    expected = ("3.10.0", "4.13.0") if sys.version_info < (3, 12) else ("3.14.0", "4.17.0")
    assert (resolved["[pystan]"]["pystan"], resolved["[pystan]"]["httpstan"]) == expected

    # A fresh venv with the core dependencies only: it imports without a word, lists its
    # engines, and a fit says in one line how to get one.
    site = Path(sysconfig.get_paths()["purelib"])
    python = _venv(tmp_path / "venv", _without_pystan(site, tmp_path / "core"))
    _install(python, wheel)
    out = _run(python, NO_EXTRA, tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stderr == ""
    found, engines, *rest = out.stdout.splitlines()
    assert json.loads(found) == [False, False]
    available = ["cmdstanpy"] if "cmdstanpy" in _engines_here() else []
    assert json.loads(engines) == {"engines": ["cmdstanpy", "pystan"], "available": available}
    if not available:
        (message,) = rest
        assert message.startswith("NoEngineError: No Stan engine is available")
        assert 'pip install "bayes_hier[pystan]"' in message
        assert "cmdstanpy.install_cmdstan()" in message
