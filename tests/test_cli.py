"""The bayes-hier command line, end to end in subprocesses on a small frame."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from .test_compare import make_frame

COMMAND = [sys.executable, "-m", "bayes_hier"]


def bayes_hier(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run(
        [*COMMAND, *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd, timeout=600
    )


@pytest.fixture(scope="module")
def csv(tmp_path_factory) -> Path:
    """Scores with the real data's column names (classifier, accuracy) to be auto-detected."""
    frame = make_frame({"nbc": 0.0, "hnb": 0.01, "j48": 0.02}, q=5, runs=2, folds=5)
    path = tmp_path_factory.mktemp("cli") / "results.csv"
    frame.rename(columns={"model": "classifier", "score": "accuracy"}).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def report(csv) -> tuple[subprocess.CompletedProcess, Path]:
    out = csv.parent / "report"
    done = bayes_hier(
        "compare", csv, "--rope", "0.005", "--method", "signed_rank", "--seed", "1", "--out", out
    )
    return done, out


def test_compare_writes_the_report_and_prints_a_table(report):
    done, out = report
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Bayesian signed-rank test: 3 models, 3 pairs")
    assert lines[1].split()[:3] == ["first", "second", "sets"]
    assert "'model': 'classifier'" in done.stderr and "'score': 'accuracy'" in done.stderr
    for name in ("report.md", "report.html", "tables.tex", "pairs.csv"):
        assert (out / name).is_file()
    for stem in ("heatmap", "pairs", "cd_diagram"):
        assert (out / "figures" / f"{stem}.png").is_file()
        assert (out / "figures" / f"{stem}.svg").is_file()
    pairs = pd.read_csv(out / "pairs.csv")
    assert list(zip(pairs["first"], pairs["second"])) == [
        ("nbc", "hnb"),
        ("nbc", "j48"),
        ("hnb", "j48"),
    ]
    printed = {tuple(line.split()[:2]): float(line.split()[5]) for line in lines[2:5]}
    for row in pairs.itertuples():
        assert printed[row.first, row.second] == pytest.approx(row.p_second_better, abs=5e-4)


def test_json_quiet_and_the_same_numbers(csv, report):
    done = bayes_hier(
        "compare",
        csv,
        "--rope",
        "0.005",
        "--method",
        "signed_rank",
        "--seed",
        "1",
        "--json",
        "--quiet",
    )
    assert done.returncode == 0 and done.stderr == ""
    payload = json.loads(done.stdout)
    pairs = pd.read_csv(report[1] / "pairs.csv")
    np.testing.assert_array_equal([p["p_rope"] for p in payload["pairs"]], pairs["p_rope"])
    assert payload["settings"]["seed"] == 1


def test_pair_command_and_version(csv):
    done = bayes_hier("pair", csv, "nbc", "j48", "--rope", "0.005", "--method", "sign", "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Bayesian sign test: nbc vs j48 on 5 data sets")
    version = bayes_hier("--version")
    assert version.returncode == 0 and version.stdout.startswith("bayes-hier ")


def test_console_script():
    script = Path(sys.executable).parent / "bayes-hier"
    if not script.exists():
        pytest.skip("the bayes-hier console script is not installed (pip install -e .)")
    done = subprocess.run([script, "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("bayes-hier ")


def _bad_inputs(folder: Path, csv: Path) -> dict[str, tuple[list[str], str]]:
    frame = pd.read_csv(csv)
    text = frame.astype({"accuracy": object})
    text.loc[4, "accuracy"] = "oops"
    one = frame[frame["classifier"] == "nbc"]
    doubled = pd.concat([frame, frame.iloc[[7]]])
    files = {"text": text, "one": one, "doubled": doubled}
    for name, table in files.items():
        table.to_csv(folder / f"{name}.csv", index=False)
    return {
        "missing file": ([str(folder / "absent.csv")], "No such file"),
        "unknown column": ([str(csv), "--score-col", "acc"], "No column 'acc' for the score"),
        "non-numeric score": (
            [str(folder / "text.csv"), "--score-col", "accuracy"],
            "non-numeric value(s), e.g. 'oops'",
        ),
        "one model": ([str(folder / "one.csv")], "a comparison needs at least two"),
        "duplicate rows": ([str(folder / "doubled.csv")], "share a (dataset, model, run, fold)"),
        "unknown method": ([str(csv), "--method", "bayes"], "invalid choice: 'bayes'"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "missing file",
        "unknown column",
        "non-numeric score",
        "one model",
        "duplicate rows",
        "unknown method",
    ],
)
def test_bad_input_is_one_line_with_exit_code_2(case, csv, tmp_path):
    args, message = _bad_inputs(tmp_path, csv)[case]
    method = [] if case == "unknown method" else ["--method", "sign"]
    done = bayes_hier("compare", *args, *method, "--quiet")
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith("bayes-hier: error: ") and message in lines[0]


@pytest.mark.stan
def test_hierarchical_compare_from_the_command_line(csv, tmp_path):
    done = bayes_hier(
        "compare",
        csv,
        "--rope",
        "0.005",
        "--seed",
        "2",
        "--chains",
        "2",
        "--draws",
        "200",
        "--warmup",
        "200",
        "--models",
        "nbc,j48",
        "--out",
        tmp_path,
        "--quiet",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Bayesian hierarchical test: 2 models, 1 pairs")
    markdown = (tmp_path / "report.md").read_text()
    assert "chains 2" in markdown and "## Warnings" in markdown


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(html: Path, png: Path) -> subprocess.CompletedProcess:
    """Headless Chromium screenshot of a local page (what ``make report-screenshot`` runs)."""
    profile = png.parent / "chromium-profile"
    return subprocess.run(
        [
            find_chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            f"--screenshot={png}",
            "--window-size=1200,2000",
            html.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_html_report_renders_in_chromium(report, tmp_path):
    if find_chromium() is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    import matplotlib.image

    png = tmp_path / "report.png"
    screenshot(report[1] / "report.html", png)
    image = matplotlib.image.imread(png)
    assert image.shape[:2] == (2000, 1200)
    # the page is not blank: text and the embedded figures give many distinct colours
    colours = np.unique((image[..., :3] * 255).astype(int).reshape(-1, 3), axis=0)
    assert len(colours) > 50
