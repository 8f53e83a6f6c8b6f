"""Faults a study of thousands of fits meets: a dead chain process, two processes compiling at
once, a broken cache entry, a cache folder that cannot be written.

The cmdstanpy side of each fault is tested in ``test_engine_cmdstanpy.py`` (a cached executable
that does not start is rebuilt; a chain ended by a signal gives ChainProcessError).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

from bayes_hier.engines import (
    CacheDirectoryError,
    CacheRebuiltWarning,
    ChainProcessError,
    PyStanEngine,
    SamplerSettings,
    _httpstan_cache,
)
from bayes_hier.engines._cache import cache_directory
from bayes_hier.stan_programs import StanProgram, load_program

from .test_engines import hierarchical_input
from .test_parallel import _gone

TINY = StanProgram(
    name="tiny", code="parameters { real y; } model { y ~ normal(1, 2); }\n// bayes_hier faults"
)


# --- a chain process killed during sampling ---


@pytest.mark.stan
def test_a_killed_chain_process_gives_a_clear_error_and_the_next_fit_works(
    engine, tmp_path, monkeypatch
):
    if engine.name != "pystan":
        pytest.skip("httpstan's process pool concerns pystan (see test_engine_cmdstanpy.py)")
    psutil = pytest.importorskip("psutil")
    import httpstan.services_stub as stub

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the chains' sockets appear
    program = load_program("hierarchical")
    data, inits = hierarchical_input()
    long_run = SamplerSettings(chains=2, draws=200_000, warmup=200, seed=1, inits=inits(2))
    outcome: dict[str, object] = {}

    def fit() -> None:
        try:
            engine.sample(program, data, long_run)
        except Exception as error:
            outcome["error"] = error
        outcome["ended"] = time.monotonic()

    thread = threading.Thread(target=fit, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("httpstan_*.sock")):  # a chain has been handed to the pool
        assert time.monotonic() < deadline and thread.is_alive(), "sampling did not start"
        time.sleep(0.05)
    time.sleep(0.5)
    workers = [process.pid for process in stub.executor._processes.values()]
    os.kill(workers[0], signal.SIGKILL)  # what the out-of-memory killer does
    killed = time.monotonic()
    thread.join(60)

    assert not thread.is_alive(), "the fit hangs after a chain process was killed"
    assert isinstance(outcome.get("error"), ChainProcessError), outcome
    assert "ended abnormally" in str(outcome["error"])
    assert outcome["ended"] - killed < 15  # seconds (measured: about 1)
    alive = [
        pid
        for pid in workers
        if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    ]
    assert alive == [], "chain processes of the broken pool are left running"
    assert list(tmp_path.glob("httpstan_*.sock")) == []

    short = SamplerSettings(chains=2, draws=40, warmup=40, seed=2, inits=inits(2))
    idata = engine.sample(program, data, short)  # the same Python process goes on
    assert idata.posterior.sizes["chain"] == 2 and idata.posterior.sizes["draw"] == 40


# --- the process running a fit is killed ---

FIT_TO_KILL = """
from bayes_hier.engines import PyStanEngine, SamplerSettings
from bayes_hier.stan_programs import load_program
from tests.test_engines import hierarchical_input

data, inits = hierarchical_input()
settings = SamplerSettings(chains=2, draws=200_000, warmup=200, seed=1, inits=inits(2))
PyStanEngine().sample(load_program("hierarchical"), data, settings)
"""


@pytest.mark.stan
def test_the_chain_processes_of_a_killed_fit_end_with_it(engine, tmp_path):
    """A Python process killed during a fit (SIGKILL: a restarted Jupyter kernel, a job
    scheduler) takes its chain processes with it. httpstan's own pool kept them alive for ever,
    waiting for their next task (measured: still there minutes later)."""
    if engine.name != "pystan":
        pytest.skip("httpstan's process pool concerns pystan")
    psutil = pytest.importorskip("psutil")
    root = Path(__file__).resolve().parents[1]
    environment = {**os.environ, "PYTHONPATH": str(root), "TMPDIR": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-c", FIT_TO_KILL], cwd=root, env=environment, start_new_session=True
    )
    chains: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob("httpstan_*.sock")):  # a chain has been handed to the pool
            assert time.monotonic() < deadline and process.poll() is None, "no fit started"
            time.sleep(0.05)
        time.sleep(1.0)
        chains = [child.pid for child in psutil.Process(process.pid).children(recursive=True)]
        assert chains, "no chain process found"
        process.kill()
        process.wait(60)
        deadline = time.monotonic() + 60
        while not all(_gone(pid) for pid in chains) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in chains if not _gone(pid)] == [], "chain processes outlived it"
    finally:
        process.kill()
        for pid in chains:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


# --- a chain process still running when the interpreter exits ---

STUCK_CHAIN_AT_EXIT = """
import concurrent.futures, multiprocessing, sys, time, types
import bayes_hier.engines.pystan_engine
stub = types.ModuleType("httpstan.services_stub")  # httpstan's pool, as the engine finds it
stub.executor = concurrent.futures.ProcessPoolExecutor(
    1, mp_context=multiprocessing.get_context("fork")
)
sys.modules["httpstan.services_stub"] = stub
stub.executor.submit(time.sleep, 600)  # a chain that would run for 10 minutes
time.sleep(1)
print("main thread done", flush=True)
"""


@pytest.mark.slow
def test_the_interpreter_exits_at_once_although_a_chain_process_still_runs():
    """concurrent.futures joins its pools at exit before :mod:`atexit` runs; the engine's hook
    must stop the chain processes before that join, or the exit waits for the chain (measured
    without the hook: the exit waited for the whole ``sleep``)."""
    process = subprocess.Popen(
        [sys.executable, "-c", STUCK_CHAIN_AT_EXIT],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("the interpreter waited for the chain process at exit")
    assert process.returncode == 0
    assert "main thread done" in output


# --- two processes compiling the same program at once ---

_COMPILE_AND_SAMPLE = textwrap.dedent(
    """
    import sys
    from bayes_hier.engines import PyStanEngine, SamplerSettings
    from bayes_hier.stan_programs import StanProgram
    program = StanProgram(name="tiny", code=sys.argv[1])
    idata = PyStanEngine().sample(program, {}, SamplerSettings(chains=1, draws=2000, seed=1))
    print(float(idata.posterior["y"].mean()))
    """
)


def _isolated_caches(root: Path) -> dict[str, str]:
    """Environment with this package's and httpstan's caches under ``root``."""
    return {
        **os.environ,
        "BAYES_HIER_CACHE": str(root / "bayes_hier"),
        "XDG_CACHE_HOME": str(root / "xdg"),
    }


@pytest.mark.stan
def test_two_processes_compiling_the_same_program_compile_once_and_both_fit(tmp_path, monkeypatch):
    """Also the pystan engine's first compile: it leaves the working directory empty."""
    environment = _isolated_caches(tmp_path)
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(Path(__file__).resolve().parent.parent), environment.get("PYTHONPATH")) if p
    )
    work = tmp_path / "work"
    work.mkdir()
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _COMPILE_AND_SAMPLE, TINY.code],
            env=environment,
            cwd=work,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=900) for run in runs]
    for run, (out, err) in zip(runs, outputs):
        assert run.returncode == 0, err[-3000:]
        assert abs(float(out.strip().splitlines()[-1]) - 1.0) < 0.3  # y ~ normal(1, 2)
    compiled = sum("compiling the Stan program 'tiny'" in err for _, err in outputs)
    assert compiled == 1
    assert sorted(os.listdir(work)) == []  # nothing written where the user works

    for name in ("BAYES_HIER_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, environment[name])
    entry = _httpstan_cache.CacheEntry.of(TINY)
    assert list(entry.directory.parent.iterdir()) == [entry.directory]  # one cache entry
    assert _httpstan_cache.problem(entry) is None  # complete, with a matching manifest


# --- a broken cache entry: detected, rebuilt, the user told once ---


@pytest.fixture
def copied_cache_entry(engine, tmp_path, monkeypatch):
    """The compiled hierarchical model, copied into a private httpstan cache (no compilation).

    Returns the entry and a fake compiler that restores the good copy, standing in for the
    minute-long real compilation; it counts its calls.
    """
    if engine.name != "pystan":
        pytest.skip("httpstan's cache concerns pystan")
    program = load_program("hierarchical")
    original = _httpstan_cache.CacheEntry.of(program)
    assert original.module is not None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("BAYES_HIER_CACHE", str(tmp_path / "bayes_hier"))
    entry = _httpstan_cache.CacheEntry.of(program)
    assert entry.directory != original.directory
    entry.directory.mkdir(parents=True)
    good = tmp_path / "good.so"
    shutil.copyfile(original.module, good)
    shutil.copyfile(good, entry.directory / original.module.name)
    compilations: list[str] = []

    def fake_compile(self, program, entry):
        compilations.append(program.name)
        entry.directory.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(good, entry.directory / original.module.name)
        _httpstan_cache.write_manifest(entry)

    monkeypatch.setattr(PyStanEngine, "_compile_into_cache", fake_compile)
    return program, entry, compilations


def _truncate(path: Path) -> None:
    with path.open("r+b") as stream:
        stream.truncate(path.stat().st_size // 2)


@pytest.mark.stan
@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("truncated", "truncated"),  # with the manifest of the complete file
        ("truncated-no-manifest", "truncated"),  # told by the ELF header's sizes
        ("garbage-no-manifest", "does not load"),  # told by loading it in another process
    ],
)
def test_a_broken_cache_entry_is_detected_and_rebuilt_telling_the_user_once(
    copied_cache_entry, damage, reason
):
    """Loading a truncated module kills the process (SIGBUS): it must never be loaded here."""
    program, entry, compilations = copied_cache_entry
    if damage == "truncated":
        _httpstan_cache.write_manifest(entry)
    if damage.startswith("truncated"):
        _truncate(entry.module)
    else:
        entry.module.write_bytes(b"not a compiled module\n" * 1000)
    engine = PyStanEngine()
    with pytest.warns(CacheRebuiltWarning) as told:
        engine.compile(program)
    assert len(told) == 1
    assert reason in str(told[0].message) and str(entry.directory) in str(told[0].message)
    assert compilations == ["hierarchical"]
    assert _httpstan_cache.problem(entry) is None
    engine.compile(program)  # told once: the rebuilt entry is used silently
    PyStanEngine().compile(program)  # also by a new engine (another process)
    assert compilations == ["hierarchical"]


@pytest.mark.stan
def test_a_cache_entry_from_another_version_is_rebuilt(copied_cache_entry):
    program, entry, compilations = copied_cache_entry
    _httpstan_cache.write_manifest(entry)
    manifest_path = entry.directory / _httpstan_cache.MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest_path.write_text(json.dumps({**manifest, "httpstan": "4.0.0"}))
    with pytest.warns(CacheRebuiltWarning, match="another version"):
        PyStanEngine().compile(program)
    assert compilations == ["hierarchical"]
    assert json.loads(manifest_path.read_text())["httpstan"] == manifest["httpstan"]


# --- a cache folder that cannot be written ---
# Tests run as root, for whom a read-only folder is still writable; a path through a regular
# file cannot be created by anyone, and a full disk is simulated by making the write fail
# with ENOSPC.


def test_a_cache_folder_that_cannot_be_created_names_it_and_the_variable(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    folder = blocker / "cache"
    monkeypatch.setenv("BAYES_HIER_CACHE", str(folder))
    with pytest.raises(CacheDirectoryError) as raised:
        cache_directory()
    message = str(raised.value)
    assert str(folder) in message and "BAYES_HIER_CACHE" in message


def test_a_full_cache_folder_names_it_the_reason_and_the_variable(tmp_path, monkeypatch):
    from bayes_hier.engines import _cache

    def no_space(*arguments, **keywords):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setenv("BAYES_HIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(_cache.tempfile, "NamedTemporaryFile", no_space)
    with pytest.raises(CacheDirectoryError, match="No space left on device") as raised:
        cache_directory()
    assert str(tmp_path / "cache") in str(raised.value)
    assert "BAYES_HIER_CACHE" in str(raised.value)


def test_pystan_names_httpstan_cache_folder_and_its_variable_before_compiling(
    tmp_path, monkeypatch
):
    import httpstan.cache

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("BAYES_HIER_CACHE", str(tmp_path / "bayes_hier"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    with pytest.raises(CacheDirectoryError) as raised:
        PyStanEngine().compile(TINY)
    message = str(raised.value)
    assert str(httpstan.cache.cache_directory()) in message and "XDG_CACHE_HOME" in message


def test_cmdstanpy_names_the_cache_folder_when_the_program_cannot_be_written(tmp_path, monkeypatch):
    import cmdstanpy

    from bayes_hier.engines import CmdStanPyEngine

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(cmdstanpy, "cmdstan_path", lambda: str(tmp_path))
    monkeypatch.setattr(cmdstanpy, "cmdstan_version", lambda: (2, 35))
    monkeypatch.setenv("BAYES_HIER_CACHE", str(blocker / "cache"))
    with pytest.raises(CacheDirectoryError, match="BAYES_HIER_CACHE"):
        CmdStanPyEngine().compile(TINY)


@pytest.mark.stan
def test_an_interrupted_fit_stops_its_chains_and_the_next_fit_works(engine, tmp_path, monkeypatch):
    """Ctrl-C during a fit: KeyboardInterrupt at once, the chains stop, the session goes on."""
    if engine.name != "pystan":
        pytest.skip("httpstan's process pool concerns pystan")
    psutil = pytest.importorskip("psutil")
    import httpstan.services_stub as stub

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    program = load_program("hierarchical")
    data, inits = hierarchical_input()
    long_run = SamplerSettings(chains=2, draws=200_000, warmup=200, seed=1, inits=inits(2))
    workers: list[int] = []

    def press_ctrl_c() -> None:
        deadline = time.monotonic() + 120
        while not list(tmp_path.rglob("httpstan_*.sock")) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        workers.extend(process.pid for process in stub.executor._processes.values())
        os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C sends

    # Ctrl-C as a user's session has it: Python's default handler raises KeyboardInterrupt in
    # the main thread (a library imported by an earlier test may have installed another one).
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=press_ctrl_c, daemon=True).start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            engine.sample(program, data, long_run)
    finally:
        signal.signal(signal.SIGINT, handler)
    assert workers
    assert time.monotonic() - started < 60  # interrupted, not finished (it takes minutes)
    deadline = time.monotonic() + 15
    while any(
        psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        for pid in workers
    ):
        assert time.monotonic() < deadline, "the chains of the interrupted fit still run"
        time.sleep(0.1)

    short = SamplerSettings(chains=2, draws=40, warmup=40, seed=2, inits=inits(2))
    idata = engine.sample(program, data, short)
    assert idata.posterior.sizes["draw"] == 40
