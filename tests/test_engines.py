"""The engine interface: selection, compile cache across processes, event loops."""

import asyncio
import os
import subprocess
import sys
import textwrap

import pytest

from bayes_hier.engines import (
    ENGINE_VARIABLE,
    CmdStanPyEngine,
    PyStanEngine,
    SamplerSettings,
    get_engine,
)
from bayes_hier.engines._event_loop import run_outside_event_loop
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
        with pytest.raises(RuntimeError, match="install CmdStan"):
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
        return run_outside_event_loop(uses_asyncio_run)

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
def test_seeded_fits_leave_nothing_in_the_httpstan_cache(engine):
    if engine.name != "pystan":
        pytest.skip("httpstan's fit cache concerns pystan only")
    import httpstan.cache
    import httpstan.models
    import numpy as np

    from bayes_hier import hierarchical_test

    model = httpstan.models.calculate_model_name(load_program("hierarchical").code)
    fits = httpstan.cache.model_directory(model) / "fits"
    before = set(fits.glob("*")) if fits.exists() else set()
    rng = np.random.default_rng(1)
    x = rng.uniform(0.7, 0.8, (3, 10))
    hierarchical_test(
        x,
        x + 0.02 + rng.normal(0, 0.01, (3, 10)),
        seed=3,
        chains=2,
        draws=30,
        warmup=30,
        engine=engine,
        warn=False,
    )
    after = set(fits.glob("*")) if fits.exists() else set()
    assert after <= before


@pytest.mark.skipif(
    not CMDSTAN,
    reason="CmdStan is not installed (cmdstanpy.cmdstan_path() "
    "fails); the cmdstanpy engine cannot run here",
)
@pytest.mark.stan
def test_cmdstanpy_and_pystan_agree_on_the_log_density():
    import numpy as np

    from bayes_hier import CVData
    from bayes_hier.hierarchical.model_input import (
        HierarchicalPrior,
        build_model_input,
        initial_values,
    )
    from bayes_hier.rope import Rope

    rng = np.random.default_rng(0)
    x = rng.uniform(0.7, 0.8, (4, 10))
    cv = CVData.from_arrays(x, x + rng.normal(0.01, 0.02, (4, 10)))
    model_input = build_model_input(cv, Rope(-0.01, 0.01), HierarchicalPrior(), rng)
    point = initial_values(model_input, 1, rng)[0]
    program = load_program("hierarchical")
    a = CmdStanPyEngine().log_density(program, model_input.data, [point])
    b = PyStanEngine().log_density(program, model_input.data, [point])
    np.testing.assert_allclose(a, b, rtol=1e-8)
