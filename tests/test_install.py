"""What a new user meets on installing: dependencies per platform, a quiet import, one message
when no Stan engine is installed, and nothing written to the working directory."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

from bayes_hier.engines import (
    ENGINES,
    NO_ENGINE_MESSAGE,
    NoEngineError,
    available_engines,
    get_engine,
)

ROOT = Path(__file__).resolve().parent.parent


def _project() -> dict:
    """The [project] table of pyproject.toml (tomllib: Python 3.11+)."""
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _pins(requirements: list[str], python: str, system: str) -> dict[str, str]:
    """The packages (name -> version specifier) ``requirements`` install on a platform."""
    environment = {
        **default_environment(),
        "python_version": python,
        "python_full_version": f"{python}.0",
        "platform_system": system,
        "sys_platform": {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}[system],
        "os_name": "nt" if system == "Windows" else "posix",
    }
    chosen = {}
    for text in requirements:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate(environment):
            assert requirement.name not in chosen, f"two pins of {requirement.name} on {python}"
            chosen[requirement.name] = str(requirement.specifier)
    return chosen


def test_the_core_install_has_cmdstanpy_and_no_pystan():
    project = _project()
    names = {Requirement(text).name for text in project["dependencies"]}
    assert "cmdstanpy" in names
    assert not names & {"pystan", "httpstan"}
    assert "bayes_hier[pystan]" in project["optional-dependencies"]["test"]


@pytest.mark.parametrize("python", ["3.10", "3.11", "3.12", "3.13", "3.14"])
@pytest.mark.parametrize("system", ["Linux", "Darwin", "Windows"])
def test_the_pystan_extra_resolves_to_one_matching_pair_per_platform(python, system):
    """pystan 3.10.0 requires httpstan 4.13.x (Python 3.10-3.11); pystan 3.14.0 requires
    httpstan 4.17.x and Python >= 3.12; httpstan has no Windows build."""
    pins = _pins(_project()["optional-dependencies"]["pystan"], python, system)
    if system == "Windows":
        assert pins == {}
    elif python in ("3.10", "3.11"):
        assert pins == {"pystan": "==3.10.0", "httpstan": "==4.13.0"}
    else:
        assert pins == {"pystan": "==3.14.0", "httpstan": "==4.17.0"}


# --- no engine: one message ---


def test_without_any_engine_auto_raises_one_message_naming_both_installs(monkeypatch):
    for engine in ENGINES.values():
        monkeypatch.setattr(engine, "available", classmethod(lambda cls: False))
    monkeypatch.delenv("BAYES_HIER_ENGINE", raising=False)
    assert available_engines() == []
    with pytest.raises(NoEngineError) as raised:
        get_engine("auto")
    message = str(raised.value)
    assert message == NO_ENGINE_MESSAGE and "\n" not in message
    assert 'pip install "bayes_hier[pystan]"' in message
    assert "cmdstanpy.install_cmdstan()" in message

    import numpy as np

    from bayes_hier import hierarchical_test

    x = np.full((2, 10), 0.8)
    with pytest.raises(NoEngineError, match="No Stan engine is available"):
        hierarchical_test(x, x + 0.01, warn=False)


def test_auto_takes_cmdstanpy_first_then_pystan(monkeypatch):
    monkeypatch.delenv("BAYES_HIER_ENGINE", raising=False)
    for name, present in (("cmdstanpy", False), ("pystan", True)):
        monkeypatch.setattr(ENGINES[name], "available", classmethod(lambda cls, p=present: p))
    assert available_engines() == ["pystan"] and get_engine().name == "pystan"
    monkeypatch.setattr(ENGINES["cmdstanpy"], "available", classmethod(lambda cls: True))
    assert available_engines() == ["cmdstanpy", "pystan"] and get_engine().name == "cmdstanpy"


# --- a quiet import ---


def _fresh_caches(tmp_path: Path) -> dict[str, str]:
    """An environment whose cache folders are new (arviz shows its notice once a day, when its
    stamp file is missing or old), keeping matplotlib's font cache (built once, with a
    message of its own) and without this checkout on the path unless it is the package's."""
    import matplotlib

    return {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "xdg"),
        "MPLCONFIGDIR": matplotlib.get_cachedir(),
    }


@pytest.mark.slow  # a new interpreter imports the package
def test_import_prints_nothing_even_on_arviz_notice_day(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", "import bayes_hier"],
        capture_output=True,
        text=True,
        env=_fresh_caches(tmp_path),
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert (out.stdout, out.stderr) == ("", "")
    # the notice was due (no stamp before) and filtered, not skipped by arviz
    assert (tmp_path / "xdg" / "arviz" / "daily_warning").is_file()


def test_the_arviz_notice_is_filtered_by_its_text_only():
    import warnings

    from bayes_hier._quiet_import import ARVIZ_REFACTOR_NOTICE

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", message=ARVIZ_REFACTOR_NOTICE, category=FutureWarning)
        warnings.warn(
            "\nArviZ is undergoing a major refactor to improve ...", FutureWarning, stacklevel=2
        )
        warnings.warn("the rope looks like it is in other units", FutureWarning, stacklevel=2)
        warnings.warn("ArviZ is undergoing a major refactor", UserWarning, stacklevel=2)
    assert [str(w.message) for w in caught] == [
        "the rope looks like it is in other units",
        "ArviZ is undergoing a major refactor",
    ]


RACE = """
import pathlib, sys
real_replace = pathlib.Path.replace
lost = []

def losing_replace(self, target):
    # another process renamed the same daily_warning.tmp first, after writing today's stamp
    if self.name == "daily_warning.tmp" and not lost:
        lost.append(self)
        real_replace(self, target)
        raise FileNotFoundError(2, "No such file or directory", str(self))
    return real_replace(self, target)

pathlib.Path.replace = losing_replace
import bayes_hier
print(len(lost), bayes_hier.hierarchical_test.__name__)
"""


@pytest.mark.slow  # a new interpreter imports the package
def test_import_survives_losing_the_race_on_arviz_stamp_file(tmp_path):
    """Two processes importing arviz at once in a fresh cache: one's rename of
    daily_warning.tmp fails with FileNotFoundError (seen in a parallel test run)."""
    out = subprocess.run(
        [sys.executable, "-c", RACE],
        capture_output=True,
        text=True,
        env=_fresh_caches(tmp_path),
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["1", "hierarchical_test"]
    assert out.stderr == ""


# --- nothing in the working directory ---


def test_httpstan_builds_in_the_given_folder_not_under_the_working_directory(tmp_path):
    """httpstan's build_ext takes setuptools' default build_temp (build/temp.* in the working
    directory) unless build_in() is active."""
    pytest.importorskip("httpstan")
    import httpstan.build_ext
    import setuptools

    from bayes_hier.engines._httpstan import build_in

    original = httpstan.build_ext.build_ext
    with build_in(str(tmp_path)):
        command = httpstan.build_ext.build_ext.build_ext(setuptools.Distribution())
        command.finalize_options()
        assert command.build_temp == str(tmp_path)
    assert httpstan.build_ext.build_ext is original
    default = original.build_ext(setuptools.Distribution())
    default.finalize_options()
    assert not os.path.isabs(default.build_temp)  # what wrote build/ where the user works


COMPILE = """
import sys
from bayes_hier.engines import get_engine
from bayes_hier.stan_programs import StanProgram
engine = get_engine(sys.argv[1])
program = StanProgram(name="fresh", code=sys.argv[2])
assert not engine.is_compiled(program)
engine.compile(program)
print(engine.is_compiled(program))
"""


@pytest.mark.stan
@pytest.mark.parametrize("name", [name for name in ENGINES if name != "pystan"])
def test_a_first_compile_leaves_the_working_directory_empty(name, tmp_path):
    """The pystan engine's first compile is checked by test_engine_faults' two processes that
    compile the same program from an empty working directory (one compile less per suite)."""
    if not ENGINES[name].available():
        pytest.skip(f"the {name} engine is not installed here")
    work = tmp_path / "work"
    work.mkdir()
    code = textwrap.dedent(
        f"""
        parameters {{ real y; }}
        model {{ y ~ normal(0, 1); }}
        // bayes_hier clean working directory test {os.getpid()} {name}
        """
    )
    env = {
        **_fresh_caches(tmp_path),
        "BAYES_HIER_CACHE": str(tmp_path / "cache"),
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    }
    out = subprocess.run(
        [sys.executable, "-c", COMPILE, name, code],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-1] == "True"
    assert "compiling the Stan program 'fresh'" in out.stderr
    assert sorted(os.listdir(work)) == []
