"""The cmdstanpy engine: arguments, cache keys, output, clean-up and errors.

Each behaviour is tested twice where it can be: against a fake ``CmdStanModel`` that does what
cmdstanpy 1.3 does (argument checks, files written, environment set, progress hooks, log lines,
error messages), so that it runs everywhere, and against a real CmdStan, skipped where none is
found (``make test-cmdstan`` runs the Stan tests with ``BAYES_HIER_ENGINE=cmdstanpy``).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from bayes_hier.engines import (
    ChainProcessError,
    CmdStanPyEngine,
    EngineError,
    SamplerSettings,
)
from bayes_hier.engines._cmdstan_install import CmdStanInstallation, installation_fingerprint
from bayes_hier.stan_programs import StanProgram

CMDSTAN = CmdStanPyEngine.available()
needs_cmdstan = pytest.mark.skipif(
    not CMDSTAN, reason="no CmdStan found (cmdstanpy.cmdstan_path() fails)"
)

TINY = "parameters { real y; } model { y ~ normal(0, 1); }"


def tiny_program(code: str = TINY) -> StanProgram:
    return StanProgram(name="tiny", code=code)


# --- a fake cmdstanpy ---


class FakeFit:
    """Stands in for cmdstanpy's CmdStanMCMC."""


#: The keyword arguments of ``CmdStanModel.sample`` that cmdstanpy checks as the sampler's.
SAMPLER_ARGUMENTS = (
    "iter_warmup",
    "iter_sampling",
    "save_warmup",
    "thin",
    "max_treedepth",
    "adapt_engaged",
    "adapt_delta",
    "adapt_init_phase",
    "adapt_metric_window",
    "adapt_step_size",
)


class FakeCmdStanModel:
    """Records what the engine hands to cmdstanpy and behaves as cmdstanpy 1.3 does: compiles
    (writes an executable) when there is none, checks the sampler's arguments with cmdstanpy's
    own ``SamplerArgs`` (adaptation without warm-up, adaptation settings without adaptation), sets
    ``STAN_NUM_THREADS``, draws one bar per chain through ``_wrap_sampler_progress_hook`` and
    then a line of spaces on stdout, logs INFO lines, writes CSV and console files, and reports a
    failed run with the paths of its files and a ``show_console`` hint."""

    instances: list = []  # noqa: RUF012 (reset per test by the fixture)
    compilations: list = []  # noqa: RUF012
    #: (return codes, console text) of the next runs to fail; empty: runs succeed
    failures: list = []  # noqa: RUF012

    def __init__(self, stan_file: str, stanc_options: dict | None = None) -> None:
        from cmdstanpy.utils import get_logger

        self.stan_file = stan_file
        self.stanc_options = stanc_options
        self.name = os.path.basename(stan_file)[: -len(".stan")]
        self.sample_calls: list[dict] = []
        self.log_prob_calls: list[dict] = []
        executable = Path(stan_file).with_suffix("")
        if not executable.exists():
            get_logger().info("compiling stan file %s", stan_file)
            executable.write_text("#!/bin/sh\nexit 0\n")
            executable.chmod(0o755)
            FakeCmdStanModel.compilations.append(stan_file)
        FakeCmdStanModel.instances.append(self)

    @staticmethod
    def _wrap_sampler_progress_hook(chain_ids, total):
        bars = {chain: f"chain {chain}" for chain in chain_ids}

        def hook(line, index):
            print(f"{bars[chain_ids[0]]} |{line}", file=sys.stderr)

        return hook

    def sample(self, **arguments):
        from cmdstanpy.cmdstan_args import SamplerArgs
        from cmdstanpy.utils import get_logger

        self.sample_calls.append(arguments)
        # cmdstanpy's own check of the sampler's arguments (ValueError, as CmdStanModel.sample)
        sampler = {name: arguments[name] for name in SAMPLER_ARGUMENTS if name in arguments}
        SamplerArgs(**sampler).validate(arguments["chains"])
        os.environ["STAN_NUM_THREADS"] = str(arguments["chains"])
        get_logger().info("CmdStan start processing")
        folder = arguments["output_dir"]
        chains = list(range(1, arguments["chains"] + 1))
        codes, console = FakeCmdStanModel.failures.pop(0) if self.failures else ([0], "")
        for chain in chains:
            with open(os.path.join(folder, f"{self.name}-{chain}.csv"), "w") as stream:
                stream.write("lp__\n0\n")
            with open(os.path.join(folder, f"{self.name}-{chain}-stdout.txt"), "w") as stream:
                stream.write(f"Chain [{chain}] method = sample\n")
                stream.write(f"    file = {folder}/{self.name}-{chain}.csv\n{console}\n")
        if arguments["show_progress"]:
            total = arguments["iter_warmup"] + arguments["iter_sampling"]
            hook = self._wrap_sampler_progress_hook(chain_ids=chains, total=total)
            for chain in chains:
                for done in range(0, total + 1, max(1, total // 2)):
                    hook(f"Chain [{chain}] Iteration: {done} / {total} [ 50%]  (Warmup)", 0)
            hook("Done", -1)
            sys.stdout.write(" " * 160 + "\n")
        if any(code != 0 for code in codes):
            files = "\n".join(os.path.join(folder, name) for name in sorted(os.listdir(folder)))
            raise RuntimeError(
                f"Error during sampling:\n{console}\nCommand and output files:\n"
                f"RunSet: chains={len(chains)}, retcodes={codes}\n csv_files:\n{files}\n"
                "Consider re-running with show_console=True if the above output is unclear!"
            )
        return FakeFit()

    def log_prob(self, params, data=None, *, jacobian=True, sig_figs=None):
        import cmdstanpy
        import pandas as pd

        self.log_prob_calls.append({"jacobian": jacobian, "sig_figs": sig_figs})
        os.makedirs(tempfile.mkdtemp(prefix=self.name, dir=cmdstanpy._TMPDIR), exist_ok=True)
        return pd.DataFrame({"lp__": [sum(float(v) for v in params.values())]})


@pytest.fixture
def fake_cmdstan(monkeypatch, tmp_path):
    """A CmdStan 'installation' in tmp_path (with a makefile, make/local and bin/stanc), a fake
    CmdStanModel, and a fresh cache."""
    import arviz
    import cmdstanpy

    FakeCmdStanModel.instances = []
    FakeCmdStanModel.compilations = []
    FakeCmdStanModel.failures = []
    installation = tmp_path / "cmdstan-2.35.0"
    (installation / "make").mkdir(parents=True)
    (installation / "bin").mkdir()
    (installation / "makefile").write_text("# CmdStan makefile\n")
    (installation / "make" / "local").write_text("")
    (installation / "bin" / "stanc").write_bytes(b"stanc binary")
    monkeypatch.setattr(cmdstanpy, "cmdstan_path", lambda: str(installation))
    monkeypatch.setattr(cmdstanpy, "cmdstan_version", lambda: (2, 35))
    monkeypatch.setattr(cmdstanpy, "CmdStanModel", FakeCmdStanModel)
    monkeypatch.setattr(arviz, "from_cmdstanpy", lambda posterior, coords, dims: posterior)
    monkeypatch.setenv("BAYES_HIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("STAN_NUM_THREADS", raising=False)
    return installation


# --- arguments ---


def test_sample_arguments_carry_the_settings_and_18_significant_figures(fake_cmdstan):
    settings = SamplerSettings(
        chains=3,
        draws=7,
        warmup=5,
        seed=11,
        inits=[{"y": 0.1}] * 3,
        max_treedepth=8,
        adapt_delta=0.95,
    )
    CmdStanPyEngine().sample(tiny_program(), {"n": 1}, settings)
    (model,) = FakeCmdStanModel.instances
    (arguments,) = model.sample_calls
    assert arguments["sig_figs"] == 18
    assert arguments["data"] == {"n": 1}
    assert arguments["chains"] == 3
    assert arguments["parallel_chains"] == min(3, os.cpu_count() or 1)
    assert (arguments["iter_warmup"], arguments["iter_sampling"]) == (5, 7)
    assert (arguments["seed"], arguments["max_treedepth"]) == (11, 8)
    assert arguments["adapt_delta"] == 0.95
    assert arguments["adapt_engaged"] is True
    assert arguments["inits"] == [{"y": 0.1}] * 3
    assert arguments["show_progress"] is False


def test_no_warm_up_switches_adaptation_off(fake_cmdstan):
    """cmdstanpy refuses adapt_engaged=True with iter_warmup=0, and adapt_delta with
    adapt_engaged=False (ValueError); warmup=0 is a valid setting."""
    CmdStanPyEngine().sample(tiny_program(), {}, SamplerSettings(chains=1, draws=5, warmup=0))
    (arguments,) = FakeCmdStanModel.instances[0].sample_calls
    assert (arguments["iter_warmup"], arguments["adapt_engaged"]) == (0, False)
    # cmdstanpy also refuses adaptation settings without adaptation ("Conflicting arguments")
    assert "adapt_delta" not in arguments


def test_a_value_error_of_cmdstanpy_becomes_an_engine_error(fake_cmdstan, monkeypatch):
    from bayes_hier.engines import cmdstanpy_engine

    original = cmdstanpy_engine.sample_arguments
    monkeypatch.setattr(
        cmdstanpy_engine,
        "sample_arguments",
        lambda *arguments: {**original(*arguments), "adapt_engaged": True},
    )
    with pytest.raises(EngineError, match="iter_warmup > 0"):
        CmdStanPyEngine().sample(tiny_program(), {}, SamplerSettings(chains=1, draws=5, warmup=0))


def test_log_density_asks_for_18_significant_figures_without_jacobian(fake_cmdstan):
    values = CmdStanPyEngine().log_density(tiny_program(), {}, [{"y": 1.5}, {"y": -2.0}])
    assert values.tolist() == [1.5, -2.0]
    (model,) = FakeCmdStanModel.instances
    assert model.log_prob_calls == [{"jacobian": False, "sig_figs": 18}] * 2


# --- what is shown: one compile line, one progress bar, nothing else ---


def test_the_first_compile_says_so_and_a_cached_one_is_silent(fake_cmdstan, capfd):
    CmdStanPyEngine().compile(tiny_program())
    first = capfd.readouterr()
    assert first.err == (
        "bayes_hier: compiling the Stan program 'tiny' with CmdStan (first use on this "
        "machine; about a minute)...\n"
    )
    assert first.out == ""
    CmdStanPyEngine().compile(tiny_program())  # a new engine, as in another process
    assert capfd.readouterr() == ("", "")
    assert len(FakeCmdStanModel.compilations) == 1


def test_the_programs_compiler_options_reach_cmdstanpy_and_its_cache_key(fake_cmdstan):
    """A program asking for ``--O1`` is compiled with cmdstanpy's ``{"O1": True}`` into an
    executable of its own; one asking for nothing gets no options."""
    plain = tiny_program()
    optimised = tiny_program(TINY + "\n// stanc options: --O1\n")
    assert optimised.stanc_options == ("--O1",)
    CmdStanPyEngine().compile(plain)
    CmdStanPyEngine().compile(optimised)
    assert [m.stanc_options for m in FakeCmdStanModel.instances] == [None, {"O1": True}]
    assert len(FakeCmdStanModel.compilations) == 2
    assert FakeCmdStanModel.compilations[0] != FakeCmdStanModel.compilations[1]


def test_progress_is_one_bar_for_all_chains_and_nothing_else(fake_cmdstan, capfd, caplog):
    caplog.set_level(logging.DEBUG, logger="cmdstanpy")
    engine = CmdStanPyEngine()
    engine.compile(tiny_program())
    capfd.readouterr()
    engine.sample(tiny_program(), {}, SamplerSettings(chains=2, draws=5, warmup=5))
    assert capfd.readouterr() == ("", "")
    engine.sample(tiny_program(), {}, SamplerSettings(chains=2, draws=5, warmup=5, progress=True))
    shown = capfd.readouterr()
    assert shown.out == ""  # cmdstanpy's line of 160 spaces is not shown
    assert "Sampling: 100%" in shown.err and "20/20" in shown.err  # 2 chains x (5 + 5)
    assert "chain 1" not in shown.err and "chain 2" not in shown.err
    assert [r for r in caplog.records if r.name == "cmdstanpy"] == []
    assert not logging.getLogger("cmdstanpy").disabled  # the user's own setting is restored


def test_the_chain_progress_hook_adds_the_chains_up():
    import io

    from bayes_hier.engines._progress import chain_progress_hook

    shown = io.StringIO()
    hook = chain_progress_hook([1, 2], total=100, output=shown)
    hook("Chain [1] Iteration:  40 / 100 [ 40%]  (Warmup)", 0)
    hook("Chain [2] Iteration:  30 / 100 [ 30%]  (Warmup)", 0)
    hook("Chain [1] Iteration:  20 / 100 [ 20%]  (Warmup)", 0)  # late line: no step back
    hook("Gradient evaluation took 1e-05 seconds", 1)
    hook("Iteration:  50 / 100 [ 50%]  (Sampling)", 1)  # one chain per process: by index
    assert (hook.progress.bar.n, hook.progress.bar.total) == (40 + 50, 200)
    hook("Done", -1)
    assert "200/200" in shown.getvalue()


# --- the cache: keys, asking without writing, rebuilt CmdStan ---


def test_cache_key_depends_on_program_cmdstan_path_version_and_build(tmp_path):
    program = tiny_program()
    base = CmdStanInstallation("/opt/cmdstan-2.35.0", "2.35", "build-a")
    keys = {
        base.executable_key(program),
        CmdStanInstallation("/home/u/cmdstan-2.35.0", "2.35", "build-a").executable_key(program),
        CmdStanInstallation("/opt/cmdstan-2.35.0", "2.36", "build-a").executable_key(program),
        CmdStanInstallation("/opt/cmdstan-2.35.0", "2.35", "build-b").executable_key(program),
        base.executable_key(tiny_program(TINY + "\n")),
    }
    assert len(keys) == 5
    assert all(k.startswith("tiny-") for k in keys)
    assert base.executable_key(program) == base.executable_key(program)


def test_installation_fingerprint_changes_when_cmdstan_is_rebuilt(fake_cmdstan):
    """A rebuild in place rewrites bin/stanc; other options change make/local."""
    before = installation_fingerprint(fake_cmdstan)
    assert installation_fingerprint(fake_cmdstan) == before  # nothing changed: same key
    (fake_cmdstan / "make" / "local").write_text("STAN_THREADS=true\n")
    threads = installation_fingerprint(fake_cmdstan)
    assert threads != before
    stanc = fake_cmdstan / "bin" / "stanc"
    status = stanc.stat()
    os.utime(stanc, ns=(status.st_atime_ns, status.st_mtime_ns + 10**9))  # same size, rebuilt
    assert installation_fingerprint(fake_cmdstan) != threads
    assert "make/local=absent" in installation_fingerprint(fake_cmdstan / "missing")


def test_a_rebuilt_cmdstan_compiles_the_program_again(fake_cmdstan):
    program = tiny_program()
    CmdStanPyEngine().compile(program)
    (fake_cmdstan / "make" / "local").write_text("O=0\n")
    engine = CmdStanPyEngine()
    assert not engine.is_compiled(program)
    engine.compile(program)
    assert len(FakeCmdStanModel.compilations) == 2
    assert FakeCmdStanModel.compilations[0] != FakeCmdStanModel.compilations[1]


def test_is_compiled_writes_nothing_and_a_cache_it_cannot_write_is_not_an_error(
    fake_cmdstan, tmp_path, monkeypatch
):
    engine = CmdStanPyEngine()
    cache = tmp_path / "cache"
    assert engine.is_compiled(tiny_program()) is False
    assert not cache.exists()  # asking created no folder
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("BAYES_HIER_CACHE", str(blocker / "cache"))  # cannot exist
    assert engine.is_compiled(tiny_program()) is False
    monkeypatch.setenv("BAYES_HIER_CACHE", str(cache))
    engine.compile(tiny_program())
    assert engine.is_compiled(tiny_program()) is True


def _cached_executable(program, exit_code: int):
    """Put a fake compiled executable (a script exiting with ``exit_code``) in the cache."""
    from bayes_hier.engines.base import cache_directory

    key = CmdStanInstallation.current().executable_key(program)
    folder = cache_directory() / "cmdstanpy" / key
    folder.mkdir(parents=True)
    (folder / f"{program.name}.stan").write_text(program.code)
    executable = folder / program.name
    executable.write_text(f"#!/bin/sh\nexit {exit_code}\n")
    executable.chmod(0o755)
    return executable


def test_a_cached_executable_that_cannot_start_is_compiled_again(fake_cmdstan):
    from bayes_hier.engines import CacheRebuiltWarning

    program = tiny_program()
    executable = _cached_executable(program, 127)  # "libtbb.so not found" after a CmdStan move
    with pytest.warns(CacheRebuiltWarning, match="does not start"):
        CmdStanPyEngine().compile(program)
    assert FakeCmdStanModel.compilations == [str(executable) + ".stan"]


def test_a_cached_executable_that_starts_is_kept(fake_cmdstan, recwarn):
    program = tiny_program()
    executable = _cached_executable(program, 0)
    CmdStanPyEngine().compile(program)
    assert executable.exists()
    assert FakeCmdStanModel.compilations == []
    assert not [w for w in recwarn if "does not start" in str(w.message)]


# --- what a fit leaves: temporary folders, the environment ---


def test_a_fit_leaves_the_temporary_folders_as_found(fake_cmdstan, tmp_path, monkeypatch):
    import cmdstanpy

    fresh = tmp_path / "tmp"
    fresh.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(fresh))
    own = set(os.listdir(cmdstanpy._TMPDIR))
    engine = CmdStanPyEngine()
    engine.sample(tiny_program(), {}, SamplerSettings(chains=2, draws=5, warmup=5))
    engine.log_density(tiny_program(), {}, [{"y": 1.0}])
    (model,) = FakeCmdStanModel.instances
    written = model.sample_calls[0]["output_dir"]
    assert os.path.dirname(written) == str(fresh)  # the CSV files went to a private folder...
    assert os.listdir(fresh) == []  # ... deleted once read
    assert set(os.listdir(cmdstanpy._TMPDIR)) == own  # log_prob's output folder removed too


@pytest.mark.parametrize("before", [None, "3"])
def test_stan_num_threads_is_put_back_as_it_was(fake_cmdstan, monkeypatch, before):
    if before is not None:
        monkeypatch.setenv("STAN_NUM_THREADS", before)
    engine = CmdStanPyEngine()
    engine.sample(tiny_program(), {}, SamplerSettings(chains=2, draws=5, warmup=5))
    assert os.environ.get("STAN_NUM_THREADS") == before
    FakeCmdStanModel.failures = [([70, 0], "Rejecting initial value")]
    with pytest.raises(EngineError):
        engine.sample(tiny_program(), {}, SamplerSettings(chains=2, draws=5, warmup=5))
    assert os.environ.get("STAN_NUM_THREADS") == before


# --- errors ---


def test_a_failed_run_names_no_deleted_file_and_quotes_the_chains_console(fake_cmdstan):
    FakeCmdStanModel.failures = [([70, 0], "Rejecting initial value:\n  Log probability is -inf")]
    with pytest.raises(EngineError) as raised:
        CmdStanPyEngine().sample(tiny_program(), {}, SamplerSettings(chains=2, draws=5, warmup=5))
    message = str(raised.value)
    assert type(raised.value) is EngineError
    assert message.startswith("CmdStan failed while sampling 'tiny':")
    assert "Rejecting initial value" in message and "Log probability is -inf" in message
    assert "Return codes of the chain processes: 70, 0" in message
    assert (
        "Console of chain process 1 (last lines):\nChain [1] method = sample\nRejecting" in message
    )
    folder = FakeCmdStanModel.instances[0].sample_calls[0]["output_dir"]
    assert folder not in message and not os.path.exists(folder)
    assert "show_console" not in message


def test_a_chain_ended_by_a_signal_gives_chain_process_error(fake_cmdstan):
    FakeCmdStanModel.failures = [([0, -9], "")]
    engine = CmdStanPyEngine()
    with pytest.raises(ChainProcessError, match="ended by a signal"):
        engine.sample(tiny_program(), {}, SamplerSettings(chains=2, draws=5, warmup=5))
    engine.sample(tiny_program(), {}, SamplerSettings(chains=2, draws=5, warmup=5))  # goes on


# --- the same, against a real CmdStan ---


@pytest.fixture
def real_cmdstan(tmp_path, monkeypatch):
    """A fresh cache folder for this package (the tiny program is compiled anew)."""
    monkeypatch.setenv("BAYES_HIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("STAN_NUM_THREADS", raising=False)
    return CmdStanPyEngine()


@needs_cmdstan
@pytest.mark.stan
def test_real_cmdstan_first_compile_shows_one_line_and_asking_writes_nothing(
    real_cmdstan, tmp_path, capfd
):
    program = tiny_program(TINY + "\n// bayes_hier cmdstanpy test")
    assert real_cmdstan.is_compiled(program) is False
    assert not (tmp_path / "cache").exists()
    real_cmdstan.compile(program)
    shown = capfd.readouterr()
    assert shown.out == ""
    assert shown.err.splitlines() == [
        "bayes_hier: compiling the Stan program 'tiny' with CmdStan (first use on this "
        "machine; about a minute)..."
    ]
    assert real_cmdstan.is_compiled(program) is True
    fingerprint = CmdStanInstallation.current().fingerprint
    assert "bin/stanc=absent" not in fingerprint or "bin/stanc.exe=absent" not in fingerprint


@needs_cmdstan
@pytest.mark.stan
def test_real_cmdstan_fit_without_warm_up_restores_the_environment_and_shows_one_bar(
    real_cmdstan, capfd
):
    idata = real_cmdstan.sample(
        tiny_program(), {}, SamplerSettings(chains=2, draws=50, warmup=0, seed=1)
    )
    assert idata.posterior.sizes["draw"] == 50
    assert np.isfinite(idata.posterior["y"].values).all()
    assert "STAN_NUM_THREADS" not in os.environ
    capfd.readouterr()
    real_cmdstan.sample(
        tiny_program(), {}, SamplerSettings(chains=2, draws=50, warmup=50, progress=True)
    )
    shown = capfd.readouterr()
    assert shown.out == ""
    assert "Sampling: 100%" in shown.err and "200/200" in shown.err
    assert "chain 1" not in shown.err and "CmdStan start processing" not in shown.err


@needs_cmdstan
@pytest.mark.stan
def test_real_cmdstan_failed_run_names_no_deleted_file(real_cmdstan):
    program = StanProgram(
        name="positive",
        code="data { real<lower=0> s; } parameters { real y; } model { y ~ normal(0, s); }",
    )
    with pytest.raises(EngineError) as raised:
        real_cmdstan.sample(program, {"s": -1.0}, SamplerSettings(chains=1, draws=5, warmup=5))
    message = str(raised.value)
    assert "show_console" not in message
    assert tempfile.gettempdir() + os.sep + "bayes_hier_cmdstan_" not in message
    assert "must be greater than or equal to 0" in message and "Return codes" in message


@needs_cmdstan
@pytest.mark.stan
def test_real_cmdstan_and_pystan_give_the_same_draws_for_the_same_seed():
    """Measured with CmdStan 2.35 and pystan 3.10: the largest difference was 0.0 in every
    variable (CmdStan writes 18 significant figures)."""
    from bayes_hier.engines import PyStanEngine, available_engines
    from bayes_hier.stan_programs import load_program

    from .test_engines import hierarchical_input

    if "pystan" not in available_engines():
        pytest.skip("pystan is not installed: nothing to compare with")
    data, inits = hierarchical_input(q=4)
    settings = SamplerSettings(chains=2, draws=100, warmup=100, seed=5, inits=inits(2))
    program = load_program("hierarchical")
    a = CmdStanPyEngine().sample(program, data, settings).posterior
    b = PyStanEngine().sample(program, data, settings).posterior
    for name in ("delta0_raw", "sigma0", "sigma"):
        np.testing.assert_allclose(a[name].values, b[name].values, rtol=1e-12, atol=0)
