"""What the benchmarks record beside their figures (``benchmarks/measure.py``)."""

import shutil
import subprocess

import pytest

from benchmarks import measure

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def test_the_commit_label_ignores_the_benchmarks_own_outputs_but_not_other_edits(
    tmp_path, monkeypatch
):
    """A full ``make bench`` rewrites RESULTS.md/.json as it goes: its rows must still name the
    commit measured, not ``+changes``; an edit of the code is an uncommitted change."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    (tmp_path / "benchmarks").mkdir()
    for name in (*measure.OUTPUTS, "benchmarks/run.py"):
        (tmp_path / name).write_text("committed\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "c")
    head = git("rev-parse", "--short", "HEAD")
    monkeypatch.setattr(measure, "REPOSITORY", tmp_path)
    assert measure.commit() == head
    for name in measure.OUTPUTS:
        (tmp_path / name).write_text("rewritten by the benchmark\n")
    (tmp_path / "benchmarks/RESULTS.json").unlink()
    assert measure.commit() == head
    (tmp_path / "benchmarks/run.py").write_text("edited\n")
    assert measure.commit() == f"{head}+changes"
