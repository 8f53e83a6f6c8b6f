"""bayes_hier.parallel: executors, stopping processes, process clean-ups, and a clean exit."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bayes_hier.parallel import (
    InlineExecutor,
    ParallelWarning,
    make_executor,
    register_process_cleanup,
    run_process_cleanups,
    run_tasks,
    terminate_tree,
    unguarded_main_line,
    workers_can_start,
)
from bayes_hier.parallel import processes as parallel_processes

ROOT = Path(__file__).resolve().parents[1]
#: Seconds a script that should exit at once is given before it counts as hung (generous: the
#: machine is shared; a hung interpreter never exits at all).
EXIT_TIMEOUT = 90


def run_script(source: str, tmp_path: Path, *, stdin: bool = False) -> tuple[int, str]:
    """Run ``source`` in a fresh interpreter (from a file, or read from standard input); return
    its exit code and its output (stdout and stderr). A script that does not
    exit within :data:`EXIT_TIMEOUT` seconds fails the test."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "default"}
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    command = [sys.executable, "-"] if stdin else [sys.executable, str(script)]
    try:
        done = subprocess.run(
            command,
            input=script.read_text() if stdin else None,
            capture_output=True,
            text=True,
            timeout=EXIT_TIMEOUT,
            cwd=tmp_path,
            env=environment,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"the interpreter did not exit within {EXIT_TIMEOUT} s: {error.stdout!r}")
    return done.returncode, done.stdout + done.stderr


# ------------------------------------------------------------------------------ clean exit
@pytest.mark.slow
def test_a_pool_stopped_by_terminate_lets_the_interpreter_exit(tmp_path):
    """The hang of a broken pool at exit: workers reaped behind the pool's back stayed "alive" to
    its manager thread for ever, and the interpreter's exit joined that thread."""
    code, output = run_script(
        """
        import time
        from bayes_hier.parallel import LocalProcessPool

        if __name__ == "__main__":
            pool = LocalProcessPool(2)
            futures = [pool.submit(time.sleep, 60) for _ in range(8)]  # a full call queue
            while len(pool.worker_pids()) < 2:
                time.sleep(0.05)
            time.sleep(1.0)
            pool.terminate()
            assert all(not process.is_alive() for process in pool.workers())
            print("terminated", flush=True)
        """,
        tmp_path,
    )
    assert code == 0, output
    assert "terminated" in output


@pytest.mark.slow
def test_workers_lost_again_and_again_give_one_error_and_the_interpreter_exits(tmp_path):
    code, output = run_script(
        """
        import os, signal, time
        from bayes_hier.parallel import WorkerLostError, make_executor, run_tasks

        def task(index):
            if index == 0:
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(0.2)
            return index

        if __name__ == "__main__":
            try:
                with make_executor(2) as executor:
                    run_tasks(executor, task, [(i,) for i in range(10)], "t", progress=False)
            except WorkerLostError as error:
                print("ERROR:", error, flush=True)
        """,
        tmp_path,
    )
    assert code == 0, output
    (line,) = [line for line in output.splitlines() if line.startswith("ERROR:")]
    assert "worker processes were lost 4 times" in line
    assert "jobs=1" in line and "resume" not in line  # nothing to resume without checkpoints


@pytest.mark.slow
def test_a_script_read_from_standard_input_runs_its_tasks_here_and_says_so(tmp_path):
    code, output = run_script(
        """
        import math
        from bayes_hier.parallel import make_executor, run_tasks

        with make_executor(2) as executor:
            print("results", run_tasks(executor, math.sqrt, [(4.0,), (9.0,)], "t", False))
        """,
        tmp_path,
        stdin=True,
    )
    assert code == 0, output
    assert "results [2.0, 3.0]" in output
    warning_lines = [line for line in output.splitlines() if "ParallelWarning" in line]
    assert len(warning_lines) == 1
    assert "'<stdin>'" in warning_lines[0] and "running in this process" in warning_lines[0]


def test_a_script_whose_call_is_not_under_the_main_guard_runs_its_tasks_here_and_says_so(
    tmp_path,
):
    # Spawned workers would run the script's top level again, and with it this call: Python
    # refuses to start processes from a starting worker, so every worker would die.
    code, output = run_script(
        """
        import math
        from bayes_hier.parallel import make_executor, run_tasks, unguarded_main_line
        from bayes_hier.parallel import workers_can_start
        print("top level", unguarded_main_line())
        with make_executor(2) as executor:
            print("results", run_tasks(executor, math.sqrt, [(4.0,), (9.0,)], "t", False))

        def main():
            print("guarded", unguarded_main_line(), workers_can_start())

        if __name__ == "__main__":
            main()
        """,
        tmp_path,
    )
    assert code == 0, output
    assert "top level 5" in output  # line 1 of the dedented script is empty
    assert "results [2.0, 3.0]" in output
    assert "guarded None (True, '')" in output  # main() is called under the guard
    (warning,) = [line for line in output.splitlines() if "ParallelWarning" in line]
    assert "script.py:6:" in warning  # reported at the user's call
    assert "script.py again" in warning and "(line 6)" in warning
    assert 'if __name__ == "__main__":' in warning and "running in this process" in warning


def test_the_main_guard_check_follows_what_workers_run_again(tmp_path):
    assert unguarded_main_line() is None  # pytest's own entry point is guarded
    # python -m package runs package/__main__.py, which multiprocessing's workers do not run
    # again; python -m package.module runs the module, which they do.
    package = tmp_path / "package"
    package.mkdir()
    (package / "__init__.py").write_text("")
    probe = "from bayes_hier.parallel import unguarded_main_line\nprint(unguarded_main_line())\n"
    (package / "__main__.py").write_text(probe)
    (package / "module.py").write_text(probe)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    printed = {
        name: subprocess.run(
            [sys.executable, "-m", name],
            capture_output=True,
            text=True,
            timeout=EXIT_TIMEOUT,
            cwd=tmp_path,
            env=environment,
        ).stdout.strip()
        for name in ("package", "package.module")
    }
    assert printed == {"package": "None", "package.module": "2"}


def test_workers_can_start_from_a_file_but_not_from_standard_input(monkeypatch, tmp_path):
    main = sys.modules["__main__"]
    script = tmp_path / "script.py"
    script.write_text("")
    monkeypatch.setattr(main, "__spec__", None, raising=False)
    monkeypatch.setattr(main, "__file__", str(script), raising=False)
    assert workers_can_start() == (True, "")
    monkeypatch.setattr(main, "__file__", "<stdin>")
    possible, reason = workers_can_start()
    assert not possible and "<stdin>" in reason
    with pytest.warns(ParallelWarning, match="running in this process") as caught:
        with make_executor(2) as executor:
            assert isinstance(executor, InlineExecutor)
    assert caught[0].filename == __file__  # the caller's line, not contextlib's
    monkeypatch.delattr(main, "__file__")  # interactive sessions and python -c: nothing to import
    assert workers_can_start() == (True, "")


# ------------------------------------------------------------------------------ processes
def _sleep_with_a_child(seconds: float) -> None:
    child = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"])
    Path(os.environ["CHILD_PID_FILE"]).write_text(str(child.pid))
    time.sleep(seconds)


@pytest.mark.slow
def test_terminate_tree_stops_children_through_their_process_objects(tmp_path, monkeypatch):
    psutil = pytest.importorskip("psutil")
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("CHILD_PID_FILE", str(pid_file))
    process = multiprocessing.get_context("spawn").Process(target=_sleep_with_a_child, args=(60,))
    process.start()
    deadline = time.monotonic() + 60
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the child's child did not start"
        time.sleep(0.05)
    grandchild = psutil.Process(int(pid_file.read_text()))
    terminate_tree([process], timeout=5)
    # Reaped by its own object: the pool-style bookkeeping knows it ended.
    assert process.exitcode is not None and not process.is_alive()
    assert not grandchild.is_running() or grandchild.status() == psutil.STATUS_ZOMBIE


def test_process_cleanups_run_once_each_last_first_and_survive_errors(monkeypatch):
    monkeypatch.setattr(parallel_processes, "_CLEANUPS", [lambda: None])  # finaliser registered
    calls = []

    def first():
        calls.append("first")

    def failing():
        calls.append("failing")
        raise RuntimeError("ignored")

    register_process_cleanup(first)
    register_process_cleanup(failing)
    register_process_cleanup(first)  # once only
    run_process_cleanups()
    assert calls == ["failing", "first"]


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie, not yet reaped by init, counts as ended)."""
    import psutil

    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_workers_of_a_killed_parent_run_their_cleanups_and_end(tmp_path):
    """A parent killed mid-task (SIGKILL: no clean-up of its own) leaves no worker behind: the
    worker notices, runs its process clean-ups (here: stop the child it started, as the
    chain processes of a fit are stopped) and exits. Before, the worker and its child lived on."""
    pids = tmp_path / "pids"
    script = tmp_path / "script.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, subprocess, sys, time
            from bayes_hier.parallel import LocalProcessPool, register_process_cleanup

            def task(path):
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
                register_process_cleanup(child.kill)
                with open(path + ".part", "w") as out:
                    out.write(f"{os.getpid()} {child.pid}")
                os.replace(path + ".part", path)
                time.sleep(300)

            if __name__ == "__main__":
                pool = LocalProcessPool(1)
                pool.submit(task, sys.argv[1])
                time.sleep(300)
            """
        )
    )
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen(
        [sys.executable, str(script), str(pids)], cwd=tmp_path, env=environment
    )
    worker = child = None
    try:
        deadline = time.monotonic() + EXIT_TIMEOUT
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert pids.exists(), "the worker did not start its task"
        worker, child = (int(p) for p in pids.read_text().split())
        assert not _gone(worker) and not _gone(child)
        parent.kill()
        parent.wait(EXIT_TIMEOUT)
        deadline = time.monotonic() + EXIT_TIMEOUT
        while not (_gone(worker) and _gone(child)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(worker), "the worker outlived its killed parent"
        assert _gone(child), "the worker's child outlived it (its clean-up did not run)"
    finally:
        parent.kill()
        for pid in (worker, child):  # a failed test leaves nothing running either
            if pid is not None and not _gone(pid):
                os.kill(pid, 9)


def _register_a_cleanup_that_writes(path: str) -> None:
    register_process_cleanup(lambda: Path(path).write_text("cleaned"))


@pytest.mark.slow
def test_a_worker_process_runs_its_cleanups_when_it_ends(tmp_path):
    marker = tmp_path / "marker"
    process = multiprocessing.get_context("spawn").Process(
        target=_register_a_cleanup_that_writes, args=(str(marker),)
    )
    process.start()
    process.join(60)
    assert process.exitcode == 0
    assert marker.read_text() == "cleaned"


def test_inline_run_tasks_keeps_order_and_reports_exceptions():
    assert run_tasks(InlineExecutor(), pow, [(2, 3), (3, 2)], "t", progress=False) == [8, 9]
    with pytest.raises(ZeroDivisionError):
        run_tasks(InlineExecutor(), divmod, [(1, 0)], "t", progress=False)


# ------------------------------------------------------------------------------ compare(jobs=2)
COMPARE_SCRIPT = """
from bayes_hier import compare
from bayes_hier.examples import load_uci_weka

def small_study():
    frame = load_uci_weka()
    keep = frame["model"].isin(["nbc", "hnb"]) & frame["dataset"].isin(
        sorted(frame["dataset"].unique())[:6]
    )
    return frame[keep]
"""


@pytest.mark.stan
def test_compare_with_jobs_from_standard_input_runs_here_says_so_once_and_exits(tmp_path, engine):
    code, output = run_script(
        COMPARE_SCRIPT
        + """
result = compare(small_study(), rope=1.0, seed=1, jobs=2, chains=2, draws=150, warmup=150)
print("pairs", len(result.pairs))
""",
        tmp_path,
        stdin=True,
    )
    assert code == 0, output
    assert "pairs 1" in output
    warning_lines = [line for line in output.splitlines() if "ParallelWarning" in line]
    assert len(warning_lines) == 1 and "save it to a .py file" in warning_lines[0]


@pytest.mark.slow
def test_compare_whose_workers_are_lost_raises_one_error_and_exits(tmp_path):
    """Every worker the pool starts is killed at once (as the out-of-memory killer would)."""
    pytest.importorskip("psutil")
    code, output = run_script(
        COMPARE_SCRIPT
        + """
import threading, time
import psutil

def kill_workers():
    me = psutil.Process()
    while True:
        for child in me.children():
            try:
                if "spawn_main" in " ".join(child.cmdline()):  # a pool's worker
                    child.kill()
            except psutil.Error:
                pass
        time.sleep(0.05)

if __name__ == "__main__":
    threading.Thread(target=kill_workers, daemon=True).start()
    try:
        compare(small_study(), rope=1.0, seed=1, jobs=2, chains=2, draws=150, warmup=150)
    except Exception as error:
        print("ERROR", type(error).__name__, error, flush=True)
""",
        tmp_path,
    )
    assert code == 0, output
    (line,) = [line for line in output.splitlines() if line.startswith("ERROR")]
    assert line.startswith("ERROR WorkerLostError hierarchical pairs: worker processes were lost")
