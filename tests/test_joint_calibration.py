"""Simulation-based calibration of the joint model: its simulator (bayes_hier.joint.simulate)
against closed forms without Stan, and a small SBC of the shipped program through the generic
calibration run (Stan)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from bayes_hier.calibration.analysis import bonferroni_passes
from bayes_hier.calibration.run import CalibrationPlan, run_calibration
from bayes_hier.joint.contrasts import helmert_contrasts, pair_vectors
from bayes_hier.joint.model_input import JointPrior
from bayes_hier.joint.simulate import (
    JOINT_PARAMETERS,
    JointSimulator,
    draw_joint_parameters,
    posterior_quantities,
    simulate_joint,
    truth_quantities,
)

CONFIG = JointSimulator()


def equicorrelation(n: int, rho: float) -> np.ndarray:
    return (1 - rho) * np.eye(n) + rho * np.ones((n, n))


def within(empirical: np.ndarray, expected: np.ndarray, size: int, sigmas: float = 5.0) -> bool:
    """Every entry of an empirical covariance of ``size`` normal draws within ``sigmas`` standard
    errors sqrt((σ_aa σ_bb + σ_ab²)/N) of the expected one."""
    diagonal = np.diag(expected)
    se = np.sqrt((np.outer(diagonal, diagonal) + expected**2) / size)
    return bool(np.all(np.abs(empirical - expected) < sigmas * se))


# ------------------------------------------------------------------------------ the prior
def test_prior_draws_have_the_calibration_prior_moments():
    """θ₀ ~ N(0, s²I); E Σ₀ = S₀/(ν₀ − d − 1), E Ω_i = S_Ω/(ν_Ω − d − 1); E[ν − 1] = E[α]E[1/β]
    = 2.75 · ln(3)/0.1; and sqrt(τ_i) L₀⁻¹(θ_i − θ₀) ~ N(0, I) exactly (the scale mixture)."""
    calibration = replace(CONFIG.calibration, theta0_sd=2.0, population_df=9.0, noise_df=9.0)
    rng = np.random.default_rng(12)
    draws = [draw_joint_parameters(calibration, JointPrior(), 2, rng) for _ in range(12_000)]
    theta0 = np.array([d["theta0"] for d in draws])
    np.testing.assert_allclose(theta0.mean(axis=0), 0, atol=4 * 2 / np.sqrt(12_000))
    assert within(np.cov(theta0, rowvar=False), 4 * np.eye(2), 12_000)
    # df 9, d 2: E = S / 6; entries' sd of the mean below 0.003
    sigma0 = np.array([d["Sigma0"] for d in draws]).mean(axis=0)
    np.testing.assert_allclose(sigma0, np.eye(2) / 6, atol=0.012)
    omega = np.concatenate([d["Omega"] for d in draws]).mean(axis=0)
    np.testing.assert_allclose(omega, 3 * np.eye(2) / 6, atol=0.02)
    nu_minus_one = np.array([d["nu"] for d in draws]) - 1
    expected = 2.75 * np.log(3) / 0.1  # 30.2
    assert abs(nu_minus_one.mean() - expected) < 4 * nu_minus_one.std() / np.sqrt(12_000)
    white = np.concatenate(
        [
            np.sqrt(d["tau"])[:, None]
            * np.linalg.solve(np.linalg.cholesky(d["Sigma0"]), (d["theta"] - d["theta0"]).T).T
            for d in draws
        ]
    )
    np.testing.assert_allclose(white.mean(axis=0), 0, atol=4 / np.sqrt(white.shape[0]))
    assert within(np.cov(white, rowvar=False), np.eye(2), white.shape[0])


def test_the_gaussian_nu_prior_cannot_be_calibrated():
    with pytest.raises(ValueError, match="Student-t nu prior"):
        draw_joint_parameters(
            CONFIG.calibration, JointPrior(nu_prior="gaussian"), 3, np.random.default_rng(0)
        )


# ------------------------------------------------------------------------------ the scores
def test_simulated_scores_and_contrasts_have_their_kronecker_covariances():
    """Given the drawn truth, the contrasts X_iCᵀ have mean 1θ_iᵀ and covariance Ω_i ⊗ R, and the
    scores X_i mean 1(Cᵀθ_i + m_i1)ᵀ and covariance Λ_i ⊗ R: whitened by the true Ω_i (Λ_i), the
    residuals' vec has covariance I ⊗ R, checked on 6000 data sets of n = 5 folds."""
    contrasts = helmert_contrasts(3)
    rng = np.random.default_rng(4)
    n, rho = 5, 0.1
    contrast_white, score_white = [], []
    for _ in range(3000):
        simulated = simulate_joint(CONFIG.calibration, JointPrior(), 2, n, rng, rho=rho)
        truth = simulated.truth
        for i, block in enumerate(simulated.scores):
            residual = block @ contrasts.T - truth["theta"][i]
            root = np.linalg.cholesky(truth["Omega"][i])
            contrast_white.append(np.linalg.solve(root, residual.T).ravel())
            mean = truth["theta"][i] @ contrasts + truth["difficulty"][i]
            root = np.linalg.cholesky(truth["Lambda"][i])
            score_white.append(np.linalg.solve(root, (block - mean).T).ravel())
    for white, models in ((np.array(contrast_white), 2), (np.array(score_white), 3)):
        size = white.shape[0]
        expected = np.kron(np.eye(models), equicorrelation(n, rho))
        np.testing.assert_allclose(white.mean(axis=0), 0, atol=5 / np.sqrt(size))
        assert within(np.cov(white, rowvar=False), expected, size)


def test_lambda_holds_omega_in_contrast_space_and_the_common_effect_in_the_mean():
    """Λ_i = CᵀΩ_iC + c²11ᵀ: C Λ_i Cᵀ = Ω_i and 1ᵀΛ_i1 = k²c²; the pair sd ranked for data set 1
    is sqrt((e₂ − e₁)ᵀΛ₁(e₂ − e₁)) (the common effect cancels in a difference)."""
    simulated = simulate_joint(
        CONFIG.calibration, JointPrior(), 4, 10, np.random.default_rng(9), common_sd=0.7
    )
    truth, contrasts = simulated.truth, helmert_contrasts(3)
    lam = truth["Lambda"]
    np.testing.assert_allclose(contrasts @ lam @ contrasts.T, truth["Omega"], atol=1e-12)
    np.testing.assert_allclose(lam.sum(axis=(1, 2)), 9 * 0.49, rtol=1e-12)
    values = truth_quantities(simulated)
    difference = np.array([-1.0, 1.0, 0.0])
    assert values["log_sigma1_12"] == pytest.approx(0.5 * np.log(difference @ lam[0] @ difference))
    sigma0 = truth["Sigma0"]
    assert values["corr_Sigma0"] == pytest.approx(
        sigma0[0, 1] / np.sqrt(sigma0[0, 0] * sigma0[1, 1])
    )
    assert values["log_Sigma0_22"] == pytest.approx(np.log(sigma0[1, 1]))
    assert values["theta1_1"] == truth["theta"][0, 0]
    assert set(values) == set(JOINT_PARAMETERS)


def test_posterior_and_truth_quantities_agree_on_the_same_values():
    """A posterior whose only draw is the truth, stored as the completed joint posterior stores
    it (θ₀, Σ₀, ν, μ_i = Cᵀθ_i, σ_i per pair), gives the truth's ranked quantities."""
    simulated = simulate_joint(CONFIG.calibration, JointPrior(), 3, 10, np.random.default_rng(1))
    truth, contrasts = simulated.truth, helmert_contrasts(3)
    vectors = pair_vectors(contrasts, [(0, 1), (0, 2), (1, 2)])
    sigma = np.sqrt(np.einsum("pj,ijl,pl->ip", vectors, truth["Omega"], vectors))
    posterior = xr.Dataset(
        {
            "theta0": (("chain", "draw", "contrast"), truth["theta0"][None, None]),
            "Sigma0": (("chain", "draw", "contrast", "contrast_"), truth["Sigma0"][None, None]),
            "nu": (("chain", "draw"), np.array([[truth["nu"]]])),
            "mu": (("chain", "draw", "dataset", "model"), (truth["theta"] @ contrasts)[None, None]),
            "sigma": (("chain", "draw", "dataset", "pair"), sigma[None, None]),
        }
    )
    draws = posterior_quantities(posterior, contrasts)
    expected = truth_quantities(simulated)
    for name in JOINT_PARAMETERS:
        assert draws[name].shape == (1, 1)
        assert draws[name][0, 0] == pytest.approx(expected[name], rel=1e-10, abs=1e-12)


def test_the_simulation_is_the_fits_input_with_the_calibration_prior():
    """The simulator's data are the scores; its input is the joint input in unit 1 with the
    calibration prior switched on and its truth the ranked quantities of the drawn parameters."""
    simulation = CONFIG.simulate(np.random.default_rng(5))
    again = simulate_joint(
        CONFIG.calibration, JointPrior(), CONFIG.q, CONFIG.n, np.random.default_rng(5)
    )
    assert simulation.truth == truth_quantities(again)
    data = simulation.model_input.data
    assert simulation.model_input.scale == 1.0 and data["calibration_prior"] == 1
    # the inverse Wishart prior of the Omega_i enters through the Student-t of ybar_i | theta_i:
    # df = nu_N - d + n and V = (b/n)(Psi + S/a)/df (noise_marginal), Psi = 3I here
    n, rho = np.asarray(data["n"], float), np.asarray(data["rho"])
    np.testing.assert_array_equal(data["noise_df"], CONFIG.calibration.noise_df - 2 + n)
    contrasts = simulation.model_input.contrasts
    for i, block in enumerate(simulation.model_input.scores):
        y = block @ contrasts.T
        scatter = (y - y.mean(axis=0)).T @ (y - y.mean(axis=0))
        b_over_n = (1 + (n[i] - 1) * rho[i]) / n[i]
        root = data["mean_noise_root"][i]
        np.testing.assert_allclose(
            root @ root.T, b_over_n * (3 * np.eye(2) + scatter / (1 - rho[i])) / data["noise_df"][i]
        )
    assert simulation.data.datasets == tuple(f"d{i + 1}" for i in range(10))
    assert list(simulation.truth) == list(JOINT_PARAMETERS) == list(CONFIG.checked)


# ------------------------------------------------------------------------------ Stan
@pytest.mark.stan
def test_a_small_sbc_of_the_joint_model_is_uniform(engine, tmp_path):
    """20 replicates at k = 3, q = 10, n = 10 with short chains (2 × 100 draws after 100
    warm-up, thinned to L = 19): none of the 8 ranked quantities fails the chi-square (5 bins) or
    the ECDF test at 0.001 / 16 (Bonferroni: a calibrated model fails with probability
    ≤ 0.001); the report, CSVs and figures are written."""
    plan = CalibrationPlan(
        models=("joint",), replicates=20, warmup=100, draws=100, thinned=19,
        engine=engine.name, jobs=1, bins=5,
    )  # fmt: skip
    path = run_calibration(plan, tmp_path, progress=False)
    table = pd.read_csv(tmp_path / "sbc_uniformity.csv")
    ranks = pd.read_csv(tmp_path / "sbc_ranks.csv")
    assert len(ranks) == 20 and list(table["parameter"]) == list(JOINT_PARAMETERS)
    assert bonferroni_passes(table, 0.001).all(), table
    # the ranks are not degenerate (a fit that returned the truth would rank it in the middle)
    assert all(ranks[f"rank_{name}"].nunique() > 6 for name in JOINT_PARAMETERS)
    assert (ranks["divergences"] > 0).mean() <= 0.1
    assert "rows pass" in path.read_text() and "k=3 q=10 n=10" in path.read_text()
    assert (tmp_path / "sbc_ecdf_joint.png").exists()
    assert (tmp_path / "sbc_histograms_joint.png").exists()
