"""Simulation-based calibration (bayes_hier.calibration): ranks, uniformity tests, simulation
from the prior, the error-rate table, and a small SBC of the hierarchical model (Stan)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayes_hier.calibration import (
    PARAMETERS,
    CalibrationPrior,
    SBCConfig,
    SBCSetting,
    calibration_model_input,
    chi_square_test,
    ecdf_band,
    ecdf_test,
    rank_of,
    run_sbc,
    simulate,
    thin,
)
from bayes_hier.calibration.analysis import bonferroni_passes, uniformity_table
from bayes_hier.calibration.error_rates import summarise_error_rates, zero_count_upper_bound
from bayes_hier.calibration.simulate import draw_parameters
from bayes_hier.calibration.uniformity import ecdf_difference
from bayes_hier.data import CVData
from bayes_hier.experiments.runner import InlineExecutor
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input
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
    prior = CalibrationPrior(nu_prior="juarez-steel", delta0_bound=2.0, sigma_upper=3.0)
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
    draws = [draw_parameters(CalibrationPrior(), 2, rng) for _ in range(5000)]
    alpha = np.array([d["nu_alpha"] for d in draws])
    assert alpha.min() >= 0.5 and alpha.max() <= 5.0
    assert np.mean([d["nu_beta"] for d in draws]) == pytest.approx(0.1, abs=0.002)


def test_calibration_input_is_the_package_input_with_fixed_bounds():
    prior = CalibrationPrior(nu_prior="juarez-steel", delta0_bound=0.5, sigma0_upper=2.0)
    simulated = simulate(prior, 6, 10, np.random.default_rng(3))
    model_input = calibration_model_input(prior, simulated)
    package = build_model_input(
        CVData(simulated.differences, rho=0.1),
        Rope(0.0, 0.0),
        HierarchicalPrior(nu_prior="juarez-steel"),
        np.random.default_rng(0),
    )
    scale = model_input.scale
    assert scale == pytest.approx(simulated.differences.std(axis=1, ddof=1).mean())
    for key, value in package.data.items():
        if key not in ("sigma_upper", "sigma0_upper", "delta0_bound"):
            np.testing.assert_array_equal(model_input.data[key], value)
    assert model_input.data["delta0_bound"] * scale == pytest.approx(0.5)
    assert model_input.data["sigma0_upper"] * scale == pytest.approx(2.0)
    assert model_input.data["sigma_upper"] * scale == pytest.approx(1.0)
    assert model_input.perturbed == ()
    misspecified = calibration_model_input(prior, simulated, fit_rho=0.01)
    np.testing.assert_array_equal(misspecified.data["rho"], np.full(6, 0.01))
    np.testing.assert_array_equal(misspecified.data["xbar"], model_input.data["xbar"])


def test_calibration_prior_validation():
    with pytest.raises(ValueError, match="nu_prior must be one of"):
        CalibrationPrior(nu_prior="gaussian")
    with pytest.raises(ValueError, match="sigma_upper must be positive"):
        CalibrationPrior(sigma_upper=0.0)
    with pytest.raises(ValueError, match="q >= 2"):
        simulate(CalibrationPrior(), 1, 10, np.random.default_rng(0))


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


# ----------------------------------------------------------------------------------- Stan SBC
@pytest.mark.stan
def test_small_sbc_of_the_hierarchical_model_has_uniform_ranks(engine):
    """100 replicates at q = 10, n = 10 with the hierarchical ν prior, 2 chains × 300 draws.

    Fails when any of the 7 parameters' ranks fails the chi-square or the ECDF test at
    0.001 / 14 (Bonferroni over 14 tests): a calibrated model fails with probability at most
    0.001. A posterior shifted by half a posterior sd fails it (see the conjugate test above,
    where 500 replicates give p < 1e-6).
    """
    config = SBCConfig(engine=engine.name, seed=15)
    ranks = run_sbc([SBCSetting(10, 10)], 100, config, InlineExecutor(), progress=False)
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
    assert plan.config.engine == "pystan" and plan.sbc and not plan.error_rates
    assert len(plan.settings()) == 8 and seen["progress"] is False
    assert {s.nu_prior for s in plan.settings()} == {"hierarchical", "juarez-steel"}
