"""baycomp 1.0.3, the reference of the benchmarks, in its own virtual environment.

baycomp is not a dependency of bayes_hier (and pins nothing we use), so the benchmarks install it
into ``benchmarks/.venv-baycomp`` (made on first use with ``python -m venv`` and pip) and run it
there in a subprocess, on the same data and in the same ``make bench`` run as bayes_hier. When the
environment cannot be made (no network, no pip), the benchmark says so and skips the comparison.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

BAYCOMP = "baycomp==1.0.3"
#: baycomp's HierarchicalTest imports pystan 3 (``import stan``), which it does not require.
REQUIREMENTS = (BAYCOMP, "pystan==3.10.0")
VENV = Path(__file__).resolve().parent / ".venv-baycomp"


def baycomp_python() -> tuple[Path | None, str]:
    """``(python, "")`` of an environment with baycomp 1.0.3, made if missing; ``(None, reason)``
    when it cannot be made."""
    python = VENV / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    check = [str(python), "-c", "import baycomp, stan"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python, ""
    try:
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", *REQUIREMENTS],
            check=True,
            capture_output=True,
            text=True,
            timeout=900,
        )
    except (OSError, subprocess.SubprocessError) as error:
        detail = getattr(error, "stderr", "") or str(error)
        return (
            None,
            f"could not install {' '.join(REQUIREMENTS)} into {VENV}: {detail.strip()[-300:]}",
        )
    return python, ""


_SIGNED_RANK_SCRIPT = """
import json, sys, time
import numpy as np
import baycomp
data = np.load(sys.argv[1])
x, y, rope = data["x"], data["y"], float(data["rope"])
nsamples, repeats = int(data["nsamples"]), int(data["repeats"])
baycomp.SignedRankTest.probs(x[:10], y[:10], rope, nsamples=100, random_state=0)  # warm-up
times = []
for _ in range(repeats):
    start = time.perf_counter()
    probs = baycomp.SignedRankTest.probs(x, y, rope, nsamples=nsamples, random_state=1)
    times.append(time.perf_counter() - start)
print(json.dumps({"seconds": min(times), "probs": [float(p) for p in probs]}))
"""


def baycomp_signed_rank(
    python: Path, x: np.ndarray, y: np.ndarray, rope: float, nsamples: int, repeats: int
) -> dict:
    """Best-of-``repeats`` time of ``baycomp.SignedRankTest.probs`` (``{"seconds", "probs"}``),
    run in baycomp's environment on exactly these scores."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.npz"
        np.savez(path, x=x, y=y, rope=rope, nsamples=nsamples, repeats=repeats)
        output = subprocess.run(
            [str(python), "-c", _SIGNED_RANK_SCRIPT, str(path)],
            check=True,
            capture_output=True,
            text=True,
        )
    return json.loads(output.stdout.strip().splitlines()[-1])


_HIERARCHICAL_SCRIPT = """
import json, os, sys, tempfile, time
import numpy as np
import baycomp
data = np.load(sys.argv[1])
os.chdir(tempfile.mkdtemp())  # baycomp reuses a last-sample.pickle of the working directory
x, y = data["x"], data["y"]
baycomp.HierarchicalTest.probs(x[:3, :10], y[:3, :10], 0.1, chains=1, nsamples=10)  # compiles
start = time.perf_counter()
probs = baycomp.HierarchicalTest.probs(
    x, y, float(data["rope"]), runs=int(data["runs"]), chains=int(data["chains"]),
    nsamples=int(data["draws"]), random_state=1,
)
print(json.dumps({"seconds": time.perf_counter() - start, "probs": [float(p) for p in probs]}))
"""


def baycomp_hierarchical(
    python: Path, differences: np.ndarray, rope: float, runs: int, chains: int, draws: int
) -> dict:
    """Wall time (``{"seconds", "probs"}``) of one ``baycomp.HierarchicalTest.probs`` on these
    per-fold differences (data sets x folds; baycomp uses only ``y - x``), ``chains`` x ``draws``
    after pystan's default 1000 warm-up iterations, run in baycomp's environment. Its Stan
    program is compiled (and cached by httpstan) by a first call, which is not timed."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.npz"
        np.savez(
            path,
            x=np.zeros_like(differences),
            y=differences,
            rope=rope,
            runs=runs,
            chains=chains,
            draws=draws,
        )
        output = subprocess.run(
            [str(python), "-c", _HIERARCHICAL_SCRIPT, str(path)],
            check=True,
            capture_output=True,
            text=True,
        )
    return json.loads(output.stdout.strip().splitlines()[-1])
