"""`make demo` runs bayes_hier.demo: it prints the summary and writes the plot."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bayes_hier import demo

pytestmark = pytest.mark.stan


def test_demo_runs_on_the_packaged_real_data_from_any_folder(tmp_path, monkeypatch, capsys):
    """No ../shared beside the working directory: the demo still shows the real data."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BAYES_HIER_DATA", raising=False)
    assert demo.main(["--out", str(tmp_path), "--first", "j48", "--second", "j48gr"]) == 0
    out = capsys.readouterr().out
    assert "example_data/uci_weka_10x10cv.csv.gz" in out
    assert "j48 vs j48gr on 54 data sets" in out
    assert (tmp_path / "hierarchical_j48_vs_j48gr.png").stat().st_size > 10_000


def test_demo_shows_no_third_party_warning(tmp_path):
    """What `make demo` prints: the package's own lines and its progress bar, no library's
    warning (aiohttp's advice to httpstan was printed at every fit)."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "bayes_hier.demo", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stdout + done.stderr
    assert "nbc vs hnb on 54 data sets" in done.stdout
