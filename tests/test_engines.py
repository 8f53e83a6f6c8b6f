"""The engine interface: selection, compile cache across processes, event loops."""

import asyncio
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

from bayes_hier.engines import (
    ENGINE_VARIABLE,
    CmdStanPyEngine,
    EngineError,
    PyStanEngine,
    SamplerSettings,
    get_engine,
)
from bayes_hier.engines._httpstan import run_in_stan_thread
from bayes_hier.stan_programs import load_program

CMDSTAN = CmdStanPyEngine.available()


def test_auto_prefers_cmdstanpy_only_when_cmdstan_is_installed(monkeypatch):
    monkeypatch.delenv(ENGINE_VARIABLE, raising=False)
    expected = "cmdstanpy" if CMDSTAN else "pystan"
    assert get_engine("auto").name == expected


def test_environment_variable_overrides_auto_and_argument_overrides_both(monkeypatch):
    monkeypatch.setenv(ENGINE_VARIABLE, "pystan")
    assert get_engine().name == "pystan"
    monkeypatch.setenv(ENGINE_VARIABLE, "nonsense")
    with pytest.raises(ValueError, match=r"Unknown engine 'nonsense'.*BAYES_HIER_ENGINE"):
        get_engine()
    assert get_engine("pystan").name == "pystan"


def test_unknown_engine_and_unavailable_cmdstan_have_clear_errors():
    with pytest.raises(ValueError, match="choose one of"):
        get_engine("jags")
    if not CMDSTAN:
        with pytest.raises(EngineError, match=r"CmdStan is not installed.*install_cmdstan\(\)"):
            get_engine("cmdstanpy")


def test_engine_instance_passes_through():
    engine = PyStanEngine()
    assert get_engine(engine) is engine


def test_sampler_settings_validate():
    with pytest.raises(ValueError, match="seed"):
        SamplerSettings(seed=-1)
    with pytest.raises(ValueError, match="adapt_delta"):
        SamplerSettings(adapt_delta=1.0)
    with pytest.raises(ValueError, match="one dict of initial values per chain"):
        SamplerSettings(chains=2, inits=[{}])


def test_blocking_asyncio_call_works_inside_a_running_loop():
    """What a Jupyter cell does: call code that uses asyncio.run while a loop runs."""

    def uses_asyncio_run() -> int:
        async def answer() -> int:
            return 42

        return asyncio.run(answer())

    async def notebook_cell() -> int:
        return run_in_stan_thread(uses_asyncio_run)

    assert asyncio.run(notebook_cell()) == 42


@pytest.mark.stan
def test_fit_inside_a_running_event_loop(engine):
    """The whole test runs inside a loop, as in a Jupyter kernel."""
    import numpy as np

    from bayes_hier import hierarchical_test

    rng = np.random.default_rng(0)
    x = rng.uniform(0.7, 0.8, (3, 10))
    y = x + rng.normal(0.05, 0.01, (3, 10))

    async def cell():
        return hierarchical_test(
            x, y, rope=0.01, seed=1, chains=1, draws=50, warmup=50, engine=engine, warn=False
        )

    assert asyncio.run(cell()).probs.right > 0.5


@pytest.mark.stan
def test_a_second_process_does_not_recompile(engine):
    program = load_program("hierarchical")
    assert engine.is_compiled(program)
    script = textwrap.dedent(
        f"""
        import time
        from bayes_hier.engines import get_engine
        from bayes_hier.stan_programs import load_program
        engine = get_engine({engine.name!r})
        program = load_program("hierarchical")
        assert engine.is_compiled(program), "not in the cache"
        start = time.perf_counter()
        engine.compile(program)
        print(time.perf_counter() - start)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        check=True,
    )
    assert float(out.stdout.strip().splitlines()[-1]) < 5.0  # a compile takes about a minute
    assert "compiling" not in out.stderr


@pytest.mark.stan
def test_seeded_fits_leave_nothing_in_the_httpstan_cache(engine, monkeypatch):
    """The fits httpstan stores for this process are deleted, and each has a name of its own.

    The fits are recorded as httpstan writes them: the shared cache folder also receives the
    (transient) fits of other processes running at the same time.
    """
    if engine.name != "pystan":
        pytest.skip("httpstan's fit cache concerns pystan only")
    import httpstan.cache

    stored: list[str] = []
    dump_fit = httpstan.cache.dump_fit

    def recording(fit_bytes: bytes, name: str) -> None:
        stored.append(name)
        dump_fit(fit_bytes, name)

    monkeypatch.setattr(httpstan.cache, "dump_fit", recording)
    _small_fit(engine)
    _small_fit(engine)  # the same seeded request again
    assert len(stored) == 4 and len(set(stored)) == 4  # 2 fits x 2 chains, no name shared
    assert [name for name in stored if httpstan.cache.fit_path(name).exists()] == []


@pytest.mark.skipif(
    not CMDSTAN,
    reason="CmdStan is not installed (cmdstanpy.cmdstan_path() "
    "fails); the cmdstanpy engine cannot run here",
)
@pytest.mark.stan
def test_cmdstanpy_and_pystan_agree_on_the_log_density():
    import numpy as np

    data, inits = hierarchical_input(q=4)
    point = inits(1)[0]
    program = load_program("hierarchical")
    a = CmdStanPyEngine().log_density(program, data, [point])
    b = PyStanEngine().log_density(program, data, [point])
    np.testing.assert_allclose(a, b, rtol=1e-8)


def hierarchical_input(q: int = 3, seed: int = 0):
    """Stan data of the hierarchical model for q simulated data sets, and a function giving
    initial values for a number of chains."""
    import numpy as np

    from bayes_hier import CVData
    from bayes_hier.hierarchical.model_input import (
        HierarchicalPrior,
        build_model_input,
        initial_values,
    )
    from bayes_hier.rope import Rope

    rng = np.random.default_rng(seed)
    x = rng.uniform(0.7, 0.8, (q, 10))
    cv = CVData.from_arrays(x, x + rng.normal(0.01, 0.02, (q, 10)))
    model_input = build_model_input(cv, Rope(-0.01, 0.01), HierarchicalPrior(), rng)
    return model_input.data, lambda chains: initial_values(model_input, chains, rng)


# --- pystan: one progress bar or nothing, and no file left in the temporary folder ---


def test_progress_reader_turns_pystan_lines_into_one_bar():
    import io

    from bayes_hier.engines._progress import ProgressReader

    shown = io.StringIO()
    reader = ProgressReader(show=True, output=shown)
    reader.write("Sampling:   0%")
    reader.write("\nSampling:  25% (100/400)\nGradient evaluation took 1e-05 seconds\n")
    assert (reader.bar.n, reader.bar.total) == (100, 400)
    reader.write("Sampling: 100% (400/400), done.\nMessages received during sampling:\n")
    reader.close()
    text = shown.getvalue()
    assert "400/400" in text
    assert "Gradient" not in text and "Messages" not in text
    silent = io.StringIO()
    quiet = ProgressReader(show=False, output=silent)
    quiet.write("Sampling:  25% (100/400)\n")
    quiet.close()
    assert silent.getvalue() == ""


def _small_fit(engine, progress: bool = False, **settings):
    import numpy as np

    from bayes_hier import hierarchical_test

    rng = np.random.default_rng(1)
    x = rng.uniform(0.7, 0.8, (3, 10))
    return hierarchical_test(
        x,
        x + 0.02 + rng.normal(0, 0.01, (3, 10)),
        seed=3,
        engine=engine,
        warn=False,
        progress=progress,
        **{"chains": 2, "draws": 30, "warmup": 30, **settings},
    )


@pytest.mark.stan
def test_output_is_one_progress_bar_or_nothing(engine, capfd):
    """Both engines: nothing with progress off; with it on, one bar counting the iterations of
    all chains on stderr, nothing on stdout (cmdstanpy: no bar per chain, no log line, no line
    of spaces)."""
    _small_fit(engine, progress=False)
    quiet = capfd.readouterr()
    assert quiet.out == "" and quiet.err == ""
    _small_fit(engine, progress=True)
    shown = capfd.readouterr()
    assert shown.out == ""
    assert "Sampling: 100%" in shown.err and "120/120" in shown.err  # 2 x (30 + 30)
    assert shown.err.count("120/120") == shown.err.count("Sampling: 100%")  # one bar
    raw_output = ("Gradient evaluation took", "has no priors", "Building", "Messages", "chain 1")
    for raw in (*raw_output, "CmdStan start processing", "INFO", "Iteration:"):
        assert raw not in shown.err + shown.out


@pytest.mark.stan
def test_pystan_fit_leaves_the_temporary_folder_as_found(engine, tmp_path, monkeypatch):
    if engine.name != "pystan":
        pytest.skip("httpstan's socket files concern pystan only")
    import cmdstanpy  # noqa: F401 (its own temporary folder is made at import, before the switch)

    fresh = tmp_path / "tmp"
    fresh.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(fresh))
    _small_fit(engine)
    assert os.listdir(fresh) == []


def test_stanc_gets_minutes_not_httpstans_one_second(monkeypatch):
    """httpstan runs stanc with timeout=1, which a loaded machine exceeds; compilations run
    inside patient_stanc(), where the translation gets STANC_TIMEOUT seconds."""
    import subprocess

    import httpstan.compile

    from bayes_hier.engines._httpstan import STANC_TIMEOUT, patient_stanc

    timeouts = []
    real_run = subprocess.run

    def recording_run(*arguments, **keywords):
        timeouts.append(keywords.get("timeout"))
        return real_run(*arguments, **keywords)

    monkeypatch.setattr(subprocess, "run", recording_run)
    program = "parameters { real x; } model { x ~ normal(0, 1); }"
    with patient_stanc():
        code, _ = httpstan.compile.compile(program, "patient_model")
    httpstan.compile.compile(program, "hasty_model")
    assert "patient_model" in code
    assert timeouts == [STANC_TIMEOUT, 1]
    assert httpstan.compile.subprocess is subprocess


def test_stanc_gets_the_programs_compiler_options():
    """Inside patient_stanc(("--O1",)), httpstan's translation is Stan's --O1 one (a vector of
    autodiff variables becomes one ``var_value`` of a vector); outside, the default."""
    import httpstan.compile

    from bayes_hier.engines._httpstan import patient_stanc

    program = "parameters { vector[3] x; } model { x ~ normal(0, 1); }"
    with patient_stanc(("--O1",)):
        optimised, _ = httpstan.compile.compile(program, "optimised_model")
    default, _ = httpstan.compile.compile(program, "default_model")
    assert "var_value<Eigen::Matrix<double,-1,1>>" in optimised
    assert "var_value<Eigen" not in default
    assert "optimised_model" in optimised


def test_fit_scope_stores_the_chains_messages_uncompressed():
    """Inside a fit, httpstan's gzip stream of the chains' messages stores them (level 0): still
    valid gzip with the same content, and no smaller than the messages; outside, httpstan's own
    zlib is back."""
    import gzip
    import zlib

    import httpstan.services_stub as stub

    from bayes_hier.engines._httpstan import httpstan_fit_scope

    messages = b'{"topic": "sample", "values": [0.125, 0.25]}\n' * 2000
    with httpstan_fit_scope():
        # the call httpstan.services_stub.call makes, through its module global
        stream = stub.zlib.compressobj(level=zlib.Z_BEST_SPEED, wbits=zlib.MAX_WBITS | 16)
        stored = stream.compress(messages) + stream.flush()
    assert gzip.decompress(stored) == messages
    assert len(stored) > len(messages)  # stored: nothing compressed
    assert stub.zlib is zlib
    compressed = zlib.compressobj(zlib.Z_BEST_SPEED, wbits=zlib.MAX_WBITS | 16)
    assert len(compressed.compress(messages) + compressed.flush()) < len(messages) / 10


def test_fit_scope_drops_the_diagnostic_writers_messages_only():
    """Inside a fit, the stream of a socket whose first message has the topic "diagnostic" (the
    sampler's position, momentum and gradient, which pystan does not read) is dropped, whatever
    the chunks it arrives in; the draws' stream keeps every byte, and so does a stream that
    ends before its first line does."""
    import gzip
    import zlib

    import httpstan.services_stub as stub

    from bayes_hier.engines._httpstan import httpstan_fit_scope

    def relayed(messages: bytes, chunk: int) -> bytes:
        stream = stub.zlib.compressobj(level=zlib.Z_BEST_SPEED, wbits=zlib.MAX_WBITS | 16)
        parts = [stream.compress(messages[i : i + chunk]) for i in range(0, len(messages), chunk)]
        return gzip.decompress(b"".join(parts) + stream.flush())

    draws = b'{"version":1,"topic":"sample","values":{"lp__":-1.5,"x.1":0.25}}\n' * 300
    diagnostic = b'{"version":1,"topic":"diagnostic","values":{"lp__":-1.5,"x":0.25}}\n' * 300
    with httpstan_fit_scope():
        for chunk in (7, 64, 8192):
            assert relayed(draws, chunk) == draws
            assert relayed(diagnostic, chunk) == b""
        assert relayed(b'{"version":1,"topic":"logger"', 5) == b'{"version":1,"topic":"logger"'
        # a draw whose values mention the word is kept: only the topic counts
        mention = b'{"version":1,"topic":"sample","values":{"diagnostic":1}}\n'
        assert relayed(mention, 10) == mention
