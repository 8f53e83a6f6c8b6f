"""Simulation-based calibration (bayes_hier.calibration): ranks, uniformity tests, the
hierarchical model's simulator, the generic driver with every model's simulator (no Stan), the
error-rate table, the command line, and a small SBC of the hierarchical model (Stan)."""

from __future__ import annotations

import arviz as az
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayes_hier.calibration import (
    SBCConfig,
    chi_square_test,
    ecdf_band,
    ecdf_test,
    rank_of,
    run_sbc,
    thin,
)
from bayes_hier.calibration.analysis import bonferroni_passes, uniformity_table
from bayes_hier.calibration.error_rates import (
    simulate_differences,
    summarise_error_rates,
    zero_count_upper_bound,
)
from bayes_hier.calibration.run import SUITES, CalibrationPlan, model_suite
from bayes_hier.calibration.sbc import rank_columns, replicate_streams, replicate_tasks
from bayes_hier.calibration.uniformity import ecdf_difference
from bayes_hier.data import CVData
from bayes_hier.fitting import SamplerOptions
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input
from bayes_hier.hierarchical.simulate import (
    PARAMETERS,
    HierarchicalCalibrationPrior,
    HierarchicalSimulator,
    calibration_model_input,
    draw_parameters,
    simulate,
)
from bayes_hier.parallel import InlineExecutor
from bayes_hier.rope import Rope


# ------------------------------------------------------------------------------------ ranks
def test_thin_takes_a_constant_stride_over_the_concatenated_chains():
    draws = np.arange(600.0).reshape(2, 300)
    kept = thin(draws, 59)
    assert kept.size == 59
    np.testing.assert_array_equal(kept, np.arange(0, 590, 10))
    with pytest.raises(ValueError, match="Cannot thin 600 draws to 601"):
        thin(draws, 601)


def test_rank_counts_the_draws_below_and_breaks_ties_uniformly():
    rng = np.random.default_rng(0)
    assert rank_of(0.5, np.array([0.1, 0.9, 0.2]), rng) == 2
    assert rank_of(-1.0, np.array([0.1, 0.9, 0.2]), rng) == 0
    tied = [rank_of(1.0, np.array([0.0, 1.0, 1.0, 1.0]), rng) for _ in range(8000)]
    # one draw below, three ties: the rank is uniform on {1, 2, 3, 4}
    counts = np.bincount(tied, minlength=5)
    assert counts[0] == 0
    assert stats.chisquare(counts[1:]).pvalue > 0.001


# ------------------------------------------------------------------------------- uniformity
def test_chi_square_bins_equal_rank_ranges_as_scipy():
    ranks = np.array([0, 1, 2, 3, 4, 5, 5, 5, 9, 9, 8, 7])  # L = 9: 10 values, 5 bins of 2
    expected = stats.chisquare([2, 2, 3, 1, 4]).pvalue
    assert chi_square_test(ranks, 9, 5) == pytest.approx(expected)
    with pytest.raises(ValueError, match="cannot be split into 3 equal bins"):
        chi_square_test(ranks, 9, 3)
    with pytest.raises(ValueError, match=r"ranks must lie in 0\.\.9"):
        chi_square_test(np.array([0, 10]), 9, 5)


def test_ecdf_difference_is_the_binomial_count_minus_the_grid():
    ranks = np.array([0, 0, 1, 3])  # L = 3: grid 1/4, 2/4, 3/4
    z, difference = ecdf_difference(ranks, 3)
    np.testing.assert_allclose(z, [0.25, 0.5, 0.75])
    np.testing.assert_allclose(difference, np.array([2, 3, 3]) / 4 - z)


def test_ecdf_band_has_its_simultaneous_coverage():
    """Uniform samples leave the 95% band in about 5% of cases (a pointwise band would be left
    far more often); the test's p-value is at most alpha exactly for the samples outside it."""
    size, max_rank, alpha = 100, 19, 0.05
    band = ecdf_band(size, max_rank, alpha)
    rng = np.random.default_rng(123)
    outside, p_values = [], []
    for _ in range(1000):
        ranks = rng.integers(0, max_rank + 1, size)
        _, difference = ecdf_difference(ranks, max_rank)
        outside.append(
            np.any((difference < band.lower - 1e-12) | (difference > band.upper + 1e-12))
        )
        p_values.append(ecdf_test(ranks, max_rank))
    outside, p_values = np.array(outside), np.array(p_values)
    # 1000 samples: the standard error of a 5% rate is 0.7%
    assert 0.03 < outside.mean() <= 0.065
    assert band.gamma < alpha / 2  # simultaneous: each point is tested at a smaller level
    # the band and the test agree: outside the band <=> p-value <= alpha (up to the resolution
    # 1/4001 of the simulated null and the samples whose T falls between two simulated values)
    assert np.mean(outside == (p_values <= alpha)) >= 0.99


def _conjugate_normal_ranks(
    simulations: int, draws: int, rng: np.random.Generator, shift: float = 0.0, sd_factor=1.0
) -> np.ndarray:
    """SBC of θ ~ N(0, 1), y_1..y_5 ~ N(θ, 1) with exact posterior draws N(Σy/6, 1/6), optionally
    shifted by ``shift`` posterior sds or with a scaled sd (a wrong posterior)."""
    theta = rng.standard_normal(simulations)
    y = theta[:, None] + rng.standard_normal((simulations, 5))
    mean, sd = y.sum(axis=1) / 6, np.sqrt(1 / 6)
    posterior = mean[:, None] + sd * (shift + sd_factor * rng.standard_normal((simulations, draws)))
    return np.array([rank_of(t, p, rng) for t, p in zip(theta, posterior)])


def test_exact_posterior_ranks_pass_and_wrong_posteriors_fail():
    rng = np.random.default_rng(2018)
    exact = _conjugate_normal_ranks(500, 59, rng)
    assert chi_square_test(exact, 59, 10) > 0.001
    assert ecdf_test(exact, 59) > 0.001
    shifted = _conjugate_normal_ranks(500, 59, rng, shift=0.5)
    assert chi_square_test(shifted, 59, 10) < 1e-6
    assert ecdf_test(shifted, 59) < 0.001
    overconfident = _conjugate_normal_ranks(500, 59, rng, sd_factor=0.6)
    assert chi_square_test(overconfident, 59, 10) < 1e-6
    assert ecdf_test(overconfident, 59) < 0.001


def test_uniformity_table_and_bonferroni():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "nu_prior": ["a"] * 300,
            "rank_good": rng.integers(0, 20, 300),
            "rank_bad": np.minimum(rng.integers(0, 20, 300), rng.integers(0, 20, 300)),
            "ess_good": 100.0,
            "ess_bad": np.arange(300.0),
        }
    )
    table = uniformity_table(frame, ["good", "bad"], 19, 5)
    assert list(table["parameter"]) == ["good", "bad"]
    assert table.loc[0, "chi2_p"] == pytest.approx(
        chi_square_test(frame["rank_good"].values, 19, 5)
    )
    assert table.loc[1, "min_ess"] == 0.0 and table.loc[1, "median_ess"] == 149.5
    np.testing.assert_array_equal(bonferroni_passes(table, 0.05), [True, False])


# ------------------------------------------------------------------------------- simulation
def test_prior_draws_have_the_prior_moments():
    rng = np.random.default_rng(7)
    prior = HierarchicalCalibrationPrior(nu_prior="juarez-steel", delta0_bound=2.0, sigma_upper=3.0)
    draws = [draw_parameters(prior, 4, rng) for _ in range(20_000)]
    nu = np.array([d["nu"] for d in draws])
    tau = np.concatenate([d["tau"] for d in draws])
    delta0 = np.array([d["delta0"] for d in draws])
    sigma = np.concatenate([d["sigma"] for d in draws])
    assert np.mean(nu - 1) == pytest.approx(2 / 0.1, rel=0.02)  # Gamma(2, 0.1): mean 20
    assert np.mean(tau) == pytest.approx(1.0, abs=0.01)  # Gamma(nu/2, nu/2): mean 1
    assert stats.kstest(delta0, stats.uniform(-2, 4).cdf).pvalue > 0.001
    assert stats.kstest(sigma, stats.uniform(0, 3).cdf).pvalue > 0.001
    # the standardised population draws (delta - delta0) / sigma0 are Student-t(nu) given nu
    z = np.array([(d["delta"][0] - d["delta0"]) / d["sigma0"] for d in draws])
    u = stats.t.cdf(z, df=nu)
    assert stats.kstest(u, "uniform").pvalue > 0.001


def test_hierarchical_prior_draws_alpha_and_beta():
    rng = np.random.default_rng(8)
    draws = [draw_parameters(HierarchicalCalibrationPrior(), 2, rng) for _ in range(5000)]
    alpha = np.array([d["nu_alpha"] for d in draws])
    assert alpha.min() >= 0.5 and alpha.max() <= 5.0
    assert np.mean([d["nu_beta"] for d in draws]) == pytest.approx(0.1, abs=0.002)


def test_calibration_input_is_the_package_input_with_fixed_bounds():
    prior = HierarchicalCalibrationPrior(
        nu_prior="juarez-steel", delta0_bound=0.5, sigma0_upper=2.0
    )
    _, differences = simulate(prior, 6, 10, np.random.default_rng(3))
    model_input = calibration_model_input(prior, CVData(differences, rho=0.1))
    package = build_model_input(
        CVData(differences, rho=0.1),
        Rope(0.0, 0.0),
        HierarchicalPrior(nu_prior="juarez-steel"),
        np.random.default_rng(0),
    )
    scale = model_input.scale
    assert scale == pytest.approx(differences.std(axis=1, ddof=1).mean())
    for key, value in package.data.items():
        if key not in ("sigma_upper", "sigma0_upper", "delta0_bound"):
            np.testing.assert_array_equal(model_input.data[key], value)
    assert model_input.data["delta0_bound"] * scale == pytest.approx(0.5)
    assert model_input.data["sigma0_upper"] * scale == pytest.approx(2.0)
    assert model_input.data["sigma_upper"] * scale == pytest.approx(1.0)
    assert model_input.perturbed == ()
    misspecified = calibration_model_input(prior, CVData(differences, rho=0.01))
    np.testing.assert_array_equal(misspecified.data["rho"], np.full(6, 0.01))
    np.testing.assert_array_equal(misspecified.data["xbar"], model_input.data["xbar"])


def test_calibration_prior_validation():
    with pytest.raises(ValueError, match="nu_prior must be one of"):
        HierarchicalCalibrationPrior(nu_prior="gaussian")
    with pytest.raises(ValueError, match="sigma_upper must be positive"):
        HierarchicalCalibrationPrior(sigma_upper=0.0)
    with pytest.raises(ValueError, match="q >= 2"):
        simulate(HierarchicalCalibrationPrior(), 1, 10, np.random.default_rng(0))


# ------------------------------------------------------------------------------ error rates
def test_error_rate_table_counts_decisions_with_standard_errors():
    reps = pd.DataFrame(
        {
            "scenario": ["s"] * 4,
            "q": [10] * 4,
            "rep": range(4),
            "p_left": [0.96, 0.0, 0.0, 0.01],
            "p_rope": [0.04, 0.97, 0.5, 0.0],
            "p_right": [0.0, 0.03, 0.5, 0.99],
            "wilcoxon_p": [0.01, 0.5, 0.04, 0.2],
        }
    )
    row = summarise_error_rates(reps).iloc[0]
    assert row["hier_better"] == 0.5 and row["hier_better_se"] == pytest.approx(0.25)
    assert row["hier_equivalent"] == 0.25
    assert row["hier_equivalent_se"] == pytest.approx(np.sqrt(0.25 * 0.75 / 4))
    assert row["hier_no_decision"] == 0.25
    assert row["signed_rank_difference"] == 0.5
    # Clopper-Pearson: P(0 of 30 | p) = 0.05 at the bound
    assert (1 - zero_count_upper_bound(30)) ** 30 == pytest.approx(0.05)
    assert zero_count_upper_bound(30) == pytest.approx(stats.beta.ppf(0.95, 1, 30))


# ------------------------------------------------------- every model's simulator, no Stan
def _truth_posterior(name: str, simulation, simulator, draws: int = 40, jitter: float = 0.0):
    """A completed posterior of model ``name`` whose draws are the simulated truth (times
    exp(jitter · N(0, 1)) per draw), stored as the model's completion stores its quantities;
    entries that are not checked are filled with ones."""
    import xarray as xr

    from bayes_hier.joint.contrasts import helmert_contrasts

    t, rng = simulation.truth, np.random.default_rng(0)

    def variable(values, *dims):
        values = np.asarray(values, float)
        noise = np.exp(jitter * rng.standard_normal((2, draws, *values.shape)))
        return (("chain", "draw", *dims), values * noise)

    if name.startswith("hierarchical"):
        q = simulator.q
        vectors = {
            base: np.r_[t[f"{base}[0]"], t[f"{base}[1]"], np.ones(q - 2)]
            for base in ("delta", "sigma")
        }
        content = {key: variable(t[key]) for key in ("delta0", "sigma0", "nu")}
        content.update({key: variable(value, "dataset") for key, value in vectors.items()})
    elif name.startswith("joint"):
        k = simulator.k
        sd = np.exp(0.5 * np.array([t["log_Sigma0_11"], t["log_Sigma0_22"]]))
        covariance = t["corr_Sigma0"] * sd[0] * sd[1]
        sigma0 = np.eye(k - 1)
        sigma0[:2, :2] = [[sd[0] ** 2, covariance], [covariance, sd[1] ** 2]]
        mu = np.ones((simulator.q, k))
        mu[0] = np.r_[t["theta1_1"], np.zeros(k - 2)] @ helmert_contrasts(k)
        pairs = np.ones((simulator.q, k * (k - 1) // 2))
        pairs[0, 0] = np.exp(t["log_sigma1_12"])
        content = {
            "theta0": variable(np.r_[t["theta0_1"], t["theta0_2"], np.ones(k - 3)], "contrast"),
            "Sigma0": variable(sigma0, "contrast", "contrast_"),
            "nu": variable(t["nu"]),
            "mu": variable(mu, "dataset", "model"),
            "sigma": variable(pairs, "dataset", "pair"),
        }
        if "noise_spread" in t:
            content["noise_spread"] = variable(t["noise_spread"])
    elif name == "bradley_terry":
        beta = [t[f"beta_{a + 1}"] for a in range(simulator.k)]
        content = {"sigma": variable(t["sigma"]), "beta": variable(beta, "model")}
    else:
        content = {"w": variable([t[f"w_{a + 1}"] for a in range(simulator.k)], "model")}
    shape = (2, draws)
    stats = xr.Dataset(
        {
            "diverging": (("chain", "draw"), np.zeros(shape, bool)),
            "tree_depth": (("chain", "draw"), np.full(shape, 3)),
            "energy": (("chain", "draw"), rng.standard_normal(shape)),
        }
    )
    return az.InferenceData(posterior=xr.Dataset(content), sample_stats=stats)


def _default_prior(name: str, simulator):
    from bayes_hier.joint.model_input import JointPrior
    from bayes_hier.ranking.bradley_terry import BradleyTerryPrior
    from bayes_hier.ranking.plackett_luce import PlackettLucePrior

    if name.startswith("hierarchical"):
        return HierarchicalPrior(nu_prior=simulator.prior.nu_prior)
    if name.startswith("joint"):
        return JointPrior()
    return BradleyTerryPrior() if name == "bradley_terry" else PlackettLucePrior()


@pytest.mark.parametrize("name", sorted(SUITES))
def test_every_models_simulator_gives_valid_input_and_checked_quantities(name):
    """For each model's default calibration: the simulated data are input of the model's own
    ``build_input`` (same program fields of the same shapes as the calibration's input), the
    truth holds exactly the checked quantities, the same seed gives the same draw, and the
    checked quantities read from a posterior whose draws are the truth are the truth."""
    suite = model_suite(name)
    assert suite.thinned <= suite.chains * suite.draws and (suite.thinned + 1) % 10 == 0
    for simulator in suite.simulators[:2]:
        model = simulator.model
        simulation = simulator.simulate(np.random.default_rng(11))
        again = simulator.simulate(np.random.default_rng(11))
        assert list(simulation.truth) == list(simulator.checked)
        assert simulation.truth == again.truth
        assert all(np.isfinite(list(simulation.truth.values())))
        rebuilt = model.build_input(
            simulation.data,
            Rope(0.0, 0.0),
            _default_prior(name, simulator),
            np.random.default_rng(0),
        )
        assert set(rebuilt.data) == set(simulation.model_input.data)
        for key, value in rebuilt.data.items():
            assert np.shape(value) == np.shape(simulation.model_input.data[key]), key
        inits = model.initial_values(simulation.model_input, 2, np.random.default_rng(1))
        assert len(inits) == 2
        model.coordinates(simulation.data, simulation.model_input)
        posterior = _truth_posterior(name, simulation, simulator)
        draws = simulator.checked_draws(posterior)
        for quantity, value in simulation.truth.items():
            assert draws[quantity].shape == (2, 40)
            np.testing.assert_allclose(draws[quantity], value, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(SUITES))
def test_the_generic_driver_runs_every_models_simulator(name, monkeypatch):
    """run_sbc over the first setting of each model, with the sampler replaced by a posterior
    of 2 × 40 draws at the truth times exp(0.1 · N(0, 1)): one row per replicate with the
    setting, the diagnostics and a rank in 0..L of every checked quantity."""
    import bayes_hier.calibration.sbc as sbc

    suite = model_suite(name)
    simulator = suite.simulators[0]
    last = {}

    class Recording:
        model, checked, setting = simulator.model, simulator.checked, simulator.setting

        def simulate(self, rng):
            last["simulation"] = simulator.simulate(rng)
            return last["simulation"]

        def checked_draws(self, idata):
            return simulator.checked_draws(idata)

    def fake_sample(model, data, model_input, settings, *, engine, rng):
        assert model is simulator.model and len(settings.inits) == settings.chains == 2
        return _truth_posterior(name, last["simulation"], simulator, jitter=0.1)

    monkeypatch.setattr(sbc, "sample_model", fake_sample)
    monkeypatch.setattr(sbc, "get_engine", lambda engine: engine)
    config = SBCConfig.of(suite, warmup=10, draws=40, thinned=19)
    ranks = run_sbc([Recording()], 3, config, InlineExecutor(), progress=False)
    assert len(ranks) == 3 and list(ranks["rep"]) == [0, 1, 2]
    assert (ranks["model"] == simulator.model.program).all()
    for column, value in simulator.setting.items():
        assert (ranks[column] == value).all()
    assert (ranks["divergences"] == 0).all() and (ranks["max_treedepth_hits"] == 0).all()
    for quantity in simulator.checked:
        assert ranks[f"rank_{quantity}"].between(0, 19).all()
        assert ranks[f"ess_{quantity}"].gt(0).all()
    # the ranks of a posterior centred on the truth lie near the middle of 0..19
    middle = ranks.filter(like="rank_").to_numpy().mean()
    assert 5 < middle < 14


def test_sbc_config_takes_a_suites_defaults_and_checks_the_thinning():
    config = SBCConfig.of(model_suite("joint"), draws=100, engine="pystan")
    assert (config.options.chains, config.options.warmup, config.options.draws) == (2, 150, 100)
    assert config.thinned == 29 and config.seed == 20181026 and config.options.engine == "pystan"
    with pytest.raises(ValueError, match=r"thinned=301 must lie in 1\.\.300"):
        SBCConfig.of(model_suite("joint"), thinned=301)
    with pytest.raises(ValueError, match="replicates must be a whole number"):
        replicate_tasks(model_suite("joint").simulators, 0, config)


def test_replicate_streams_depend_on_the_setting_and_the_replicate_only():
    first, second = HierarchicalSimulator(q=10, n=10), HierarchicalSimulator(q=50, n=10)
    state = [s.generate_state(1)[0] for s in replicate_streams(first, 3, 1)]
    assert state == [s.generate_state(1)[0] for s in replicate_streams(first, 3, 1)]
    assert len(set(state)) == 5
    assert state[0] != replicate_streams(second, 3, 1)[0].generate_state(1)[0]
    assert state[0] != replicate_streams(first, 4, 1)[0].generate_state(1)[0]


def test_rank_columns_rank_the_thinned_draws_and_give_the_bulk_ess():
    draws = {"a": np.arange(600.0).reshape(2, 300)}
    row = rank_columns({"a": 295.0}, draws, 59, np.random.default_rng(0))
    assert row["rank_a"] == 30 and row["true_a"] == 295.0  # kept: 0, 10, ..., 580
    assert row["ess_a"] > 0


def test_error_rate_differences_have_the_stated_distribution():
    """100 differences per data set with sd 0.057 and fold correlation 0.1: the per-data-set
    mean has variance 0.057²(1 + 99 · 0.1)/100 (3.54e-4) around δ_i."""
    rng = np.random.default_rng(3)
    differences = simulate_differences(4000, 0.0, rng)
    assert differences.shape == (4000, 100)
    within = differences - differences.mean(axis=1, keepdims=True)
    assert np.sqrt(np.mean(within**2) * 100 / 99) == pytest.approx(0.057 * np.sqrt(0.9), rel=0.01)


# ----------------------------------------------------------------------------------- Stan SBC
@pytest.mark.stan
def test_small_sbc_of_the_hierarchical_model_has_uniform_ranks(engine):
    """100 replicates at q = 10, n = 10 with the hierarchical ν prior, 2 chains × 200 draws,
    through the generic driver.

    Fails when any of the 7 parameters' ranks fails the chi-square or the ECDF test at
    0.001 / 14 (Bonferroni over 14 tests): a calibrated model fails with probability at most
    0.001. A posterior shifted by half a posterior sd fails it (see the conjugate test above,
    where 500 replicates give p < 1e-6).
    """
    config = SBCConfig(SamplerOptions(chains=2, warmup=200, draws=200, engine=engine), seed=15)
    simulator = HierarchicalSimulator(q=10, n=10)
    ranks = run_sbc([simulator], 100, config, InlineExecutor(), progress=False)
    table = uniformity_table(ranks, PARAMETERS, config.thinned, 10, simulations=20_000)
    threshold = 0.001 / (2 * len(PARAMETERS))
    assert len(ranks) == 100
    failing = table[table["min_p"] <= threshold]
    assert failing.empty, failing.to_string()
    assert ranks["max_rhat"].max() < 1.1


# -------------------------------------------------------------------------------------- CLI
def test_command_line_builds_the_plan(monkeypatch, tmp_path):
    from bayes_hier.calibration import __main__ as cli

    seen = {}

    def fake_run(plan, out, progress=True):
        seen.update(plan=plan, out=out, progress=progress)
        return tmp_path / "CALIBRATION.md"

    monkeypatch.setattr(cli, "run_calibration", fake_run)
    argv = ["--out", str(tmp_path), "--replicates", "3", "--error-reps", "2", "--jobs", "1"]
    assert cli.main([*argv, "--engine", "pystan", "--skip-error-rates", "--no-progress"]) == 0
    plan = seen["plan"]
    assert (plan.replicates, plan.error_repetitions, plan.jobs) == (3, 2, 1)
    assert plan.engine == "pystan" and plan.sbc and not plan.runs_error_rates
    assert plan.models == ("hierarchical",) and seen["progress"] is False
    suite = model_suite("hierarchical")
    assert len(suite.simulators) == 8 and plan.replicates_of(suite) == 3
    assert {s.prior.nu_prior for s in suite.simulators} == {"hierarchical", "juarez-steel"}
    assert plan.config(suite).options.engine == "pystan"
    assert cli.main([*argv, "--model", "bradley_terry", "plackett_luce", "--draws", "50"]) == 0
    plan = seen["plan"]
    assert plan.models == ("bradley_terry", "plackett_luce") and not plan.runs_error_rates
    assert plan.config(model_suite("plackett_luce")).options.draws == 50


def test_the_plan_refuses_an_unknown_model():
    with pytest.raises(ValueError, match="Unknown model 'probit'; choose from"):
        CalibrationPlan(models=("probit",))
