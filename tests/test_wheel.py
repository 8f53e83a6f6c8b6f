"""An installed (non-editable) wheel finds its Stan programs and fits."""

import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.wheel
@pytest.mark.stan
def test_wheel_ships_the_stan_programs_and_fits(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        check=True,
    )
    wheel = next((tmp_path / "dist").glob("bayes_hier-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for program in ROOT.glob("stan/**/*.stan"):
        assert f"bayes_hier/stan/{program.relative_to(ROOT / 'stan').as_posix()}" in names

    # A fresh venv whose dependencies come from this environment (no download); the editable
    # install of this environment is not visible there, only the wheel.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--quiet", str(wheel)], check=True
    )
    script = textwrap.dedent(
        """
        import numpy as np, bayes_hier
        from bayes_hier.stan_programs import stan_directory
        print(bayes_hier.__file__)
        print(stan_directory())
        rng = np.random.default_rng(0)
        x = rng.uniform(0.7, 0.8, (3, 10))
        res = bayes_hier.hierarchical_test(x, x + 0.05 + rng.normal(0, 0.01, (3, 10)), seed=1,
                                           chains=1, draws=100, warmup=100, warn=False)
        print(res.probs.right)
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, out.stderr[-3000:]
    module, stan_dir, p_right = out.stdout.strip().splitlines()[-3:]
    assert module.startswith(str(venv)) and stan_dir.startswith(str(venv))
    assert float(p_right) > 0.5
