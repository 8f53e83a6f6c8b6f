"""An installed (non-editable) wheel finds its Stan programs and its example data, and fits."""

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
    assert "bayes_hier/example_data/uci_weka_10x10cv.csv.gz" in names
    assert "bayes_hier/example_data/README.md" in names

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
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, out.stderr[-3000:]
    module, stan_dir, data_file, sizes, p_right = out.stdout.strip().splitlines()[-5:]
    assert module.startswith(str(venv)) and stan_dir.startswith(str(venv))
    assert data_file.startswith(str(venv))  # the packaged real data, not a checkout's copy
    assert json.loads(sizes) == dict.fromkeys(["aode", "hnb", "j48", "j48gr", "nbc"], 5400)
    assert float(p_right) > 0.5
