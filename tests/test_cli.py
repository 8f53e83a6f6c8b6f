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

from bayes_hier import compare

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


# ------------------------------------------------------------------------- never lose work
def one_line_error(done: subprocess.CompletedProcess, message: str) -> None:
    """Exit code 2, nothing on stdout, and one line on stderr naming the problem (no progress
    line either: the error came before anything was read or computed)."""
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bayes-hier: error: "), done.stderr
    assert message in lines[0], lines[0]


@pytest.mark.slow
def test_out_that_is_a_file_fails_before_fitting(csv, tmp_path):
    target = tmp_path / "report.html"
    target.write_text("mine")
    # the default method is the hierarchical one: minutes of fitting if it started
    done = bayes_hier("compare", csv, "--out", target)
    one_line_error(done, f"--out {target} is a file, not a folder")
    assert target.read_text() == "mine"


@pytest.mark.slow
def test_out_that_cannot_be_created_fails_before_fitting(csv, tmp_path):
    (tmp_path / "afile").write_text("")
    done = bayes_hier("compare", csv, "--out", tmp_path / "afile" / "report")
    one_line_error(done, "cannot be created")


@pytest.mark.slow
def test_unwritable_out_fails_before_fitting(csv, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("running as root: a folder without write permission is still writable")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        done = bayes_hier("compare", csv, "--out", locked / "report")
    finally:
        locked.chmod(0o700)
    one_line_error(done, "is not writable (Permission denied")


def test_unwritable_out_in_process(csv, tmp_path, monkeypatch, capsys):
    """The write probe's error (what a read-only folder gives, whoever runs the command)."""
    from bayes_hier import cli

    def refuse(folder):
        raise PermissionError(13, "Permission denied", str(folder))

    monkeypatch.setattr(cli, "_probe_writable", refuse)
    assert cli.main(["compare", str(csv), "--out", str(tmp_path / "report")]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"bayes-hier: error: --out {tmp_path / 'report'} is not ")
    assert "(Permission denied in" in captured.err and len(captured.err.splitlines()) == 1


def test_os_error_while_writing_is_one_line(csv, tmp_path, monkeypatch, capsys):
    from bayes_hier import cli
    from bayes_hier.compare import report

    def full_disk(result, out):
        raise OSError(28, "No space left on device", str(out / "report.html"))

    monkeypatch.setattr(report, "write_report", full_disk)
    args = ["compare", str(csv), "--method", "sign", "--quiet", "--out", str(tmp_path / "r")]
    assert cli.main(args) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"bayes-hier: error: No space left on device: {tmp_path / 'r' / 'report.html'}\n"
    )


@pytest.mark.slow
def test_an_existing_report_is_kept_unless_force(csv, tmp_path):
    out = tmp_path / "report"
    args = ["compare", csv, "--method", "sign", "--rope", "0.005", "--quiet", "--out", out]
    assert bayes_hier(*args).returncode == 0
    (out / "report.md").write_text("edited by hand")
    one_line_error(bayes_hier(*args), "already holds a report (report.md, report.html")
    assert (out / "report.md").read_text() == "edited by hand"
    done = bayes_hier(*args, "--force")
    assert done.returncode == 0, done.stderr
    assert (out / "report.md").read_text().startswith("# Comparison of 3 models")


@pytest.mark.slow
@pytest.mark.parametrize("delimiter", [";", "\t"])
def test_semicolon_and_tab_separated_files_are_read(csv, tmp_path, delimiter):
    """The delimiter is read from the header, whatever the file's extension."""
    path = tmp_path / "results.csv"
    pd.read_csv(csv).to_csv(path, sep=delimiter, index=False)
    done = bayes_hier("pair", path, "nbc", "j48", "--rope", "0.005", "--method", "sign", "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Bayesian sign test: nbc vs j48 on 5 data sets")


@pytest.mark.slow
def test_an_unknown_delimiter_is_named_as_the_likely_problem(csv, tmp_path):
    path = tmp_path / "results.csv"
    pd.read_csv(csv).to_csv(path, sep="|", index=False)
    done = bayes_hier("compare", path, "--method", "sign")
    one_line_error(done, "has a single column ('dataset|classifier|run|fold|accuracy')")
    assert "the delimiter is likely the problem" in done.stderr


@pytest.mark.slow
def test_missing_columns_name_what_was_looked_for(csv, tmp_path):
    path = tmp_path / "results.csv"
    renamed = {"classifier": "clf", "fold": "k", "accuracy": "acc", "run": "rep"}
    pd.read_csv(csv).rename(columns=renamed).to_csv(path, index=False)
    done = bayes_hier("compare", path, "--method", "sign")
    one_line_error(
        done,
        "No model column found: looked for a column named model, classifier, algorithm, "
        "learner, method, estimator (in any case) among the columns ['dataset', 'clf', 'rep', "
        "'k', 'acc']; name it with --model-col.",
    )


@pytest.mark.slow
def test_json_into_a_closed_pipe_ends_quietly(csv):
    """``bayes-hier ... --json | head``: the reader is gone before the output is written."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    process = subprocess.Popen(
        [*COMMAND, "compare", str(csv), "--method", "sign", "--json", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=600) == 141
    assert stderr == ""


def test_decimal_commas_and_numbers_as_text_are_refused():
    """Inputs are checked, not converted: the messages say how to fix them."""
    from bayes_hier import CVData

    frame = make_frame({"nbc": 0.0, "hnb": 0.01}, q=3, runs=1, folds=5)
    text = frame.astype({"score": object})
    text["score"] = text["score"].map(lambda v: f"{v:.3f}")
    for function in (lambda f: compare(f, rope=0.01, method="sign"), CVData.from_frame):
        with pytest.raises(ValueError, match=r"holds \d+ number\(s\) written as text, e.g. '0\."):
            function(text)
    text.loc[0, "score"] = "0,8"
    with pytest.raises(ValueError, match="It looks like a decimal comma"):
        compare(text, rope=0.01, method="sign")
