"""The joint model's fold-level noise without Stan: its closed forms, inputs and simulator."""

import warnings

import numpy as np
import pytest

from bayes_hier.joint.contrasts import (
    helmert_contrasts,
    observed_contrasts,
    observed_pair_vectors,
)
from bayes_hier.joint.fit import (
    FewFoldsWarning,
    noise_structure,
    results_for_full_noise,
    warn_heavy_tailed_noise,
)
from bayes_hier.joint.fold_noise import (
    fold_noise_covariances,
    log_determinant,
    log_sigmas,
    noise_contrasts,
    quadratic_trace,
    score_scatters,
)
from bayes_hier.joint.model_input import (
    JointPrior,
    build_joint_input,
    contrast_statistics,
    initial_values,
)
from bayes_hier.joint.posterior import fold_pair_noise_sd, pair_labels
from bayes_hier.joint.simulate import (
    FoldNoiseSimulator,
    TwoFoldNoiseSimulator,
    draw_fold_noise,
    fold_calibration_prior,
    simulate_joint,
)
from bayes_hier.rope import Rope

from .test_joint import _data


def _few_fold_blocks(k=5, folds=(3, 4, 2, 4, 3, 4), seed=0, missing=()):
    """Scores with fewer folds than models; ``missing``: (data set, model) left out."""
    rng = np.random.default_rng(seed)
    blocks = []
    for i, n in enumerate(folds):
        sd = np.exp(rng.normal(np.log(0.01), 0.5, k))
        block = (
            0.8
            + rng.normal(0, 0.01, k)
            + rng.normal(0, 0.02, (n, 1))
            + sd * rng.normal(0, 1, (n, k))
        )
        for dataset, model in missing:
            if dataset == i:
                block[:, model] = np.nan
        blocks.append(block)
    return blocks


@pytest.mark.parametrize("run", [[1, 1, 1, 1, 1], [1, 0, 1, 1, 0], [0, 1, 1, 0, 0]])
def test_closed_forms_equal_the_matrix_algebra(run):
    """tr(Ω⁻¹S) and log|Ω| from the weights equal the explicit inverse and determinant of
    Ω = C_i D C_iᵀ on the observed models' own contrasts, and T_i gives C_i T_i C_iᵀ = S_i."""
    rng = np.random.default_rng(1)
    run = np.array(run, bool)
    k = run.size
    block = rng.normal(0, 1, (6, k))
    block[:, ~run] = np.nan
    log_sigma = rng.normal(0, 0.7, k)
    own, _ = observed_contrasts(helmert_contrasts(k), run)
    omega = own @ np.diag(np.exp(2 * log_sigma[run])) @ own.T
    scores = block[:, run]
    contrasts = (scores - scores.mean(axis=0)) @ own.T
    scatter = contrasts.T @ contrasts
    t = score_scatters([block])[0]
    np.testing.assert_allclose(own @ t[np.ix_(run, run)] @ own.T, scatter, atol=1e-12)
    assert not t[~run].any() and not t[:, ~run].any()
    expected_trace = np.trace(np.linalg.solve(omega, scatter))
    np.testing.assert_allclose(quadratic_trace(t, log_sigma, run.astype(float)), expected_trace)
    np.testing.assert_allclose(
        log_determinant(log_sigma, run.astype(float)), np.linalg.slogdet(omega)[1], rtol=1e-12
    )


def test_noise_contrasts_and_padded_covariances():
    """B_i D B_iᵀ is Ω_i of the observed contrasts, padded with the identity beyond d_i."""
    rng = np.random.default_rng(2)
    contrasts = helmert_contrasts(4)
    observed = np.array([[1, 1, 1, 1], [1, 0, 1, 0], [0, 1, 1, 1]], bool)
    log_sigma = rng.normal(0, 0.5, (3, 4))
    stan_data = {
        "noise_contrasts": noise_contrasts(contrasts, observed),
        "observed": observed.sum(axis=1) - 1,
    }
    covariances = fold_noise_covariances(stan_data, log_sigma)
    for i, run in enumerate(observed):
        own, _ = observed_contrasts(contrasts, run)
        m = own.shape[0]
        expected = own @ np.diag(np.exp(2 * log_sigma[i, run])) @ own.T
        np.testing.assert_allclose(covariances[i, :m, :m], expected, atol=1e-14)
        np.testing.assert_allclose(covariances[i, m:, m:], np.eye(3 - m))
        assert not covariances[i, :m, m:].any()


def test_pair_noise_sd_is_the_quadratic_form_of_the_fold_covariance():
    """√(σ_ia² + σ_ib²) = √(c_iᵀΩ_ic_i) with Ω_i = B_iD_iB_iᵀ and c_i the pair's vector in the
    data set's own contrasts, for every pair on complete and incomplete data sets (draws of
    shape (2, 3, q, k)); NaN exactly where a model of the pair was not run."""
    rng = np.random.default_rng(5)
    k, models = 5, tuple("abcde")
    contrasts = helmert_contrasts(k)
    observed = np.array([[1, 1, 1, 1, 1], [1, 0, 1, 1, 0], [0, 1, 1, 1, 1]], bool)
    log_sigma = rng.normal(0, 0.7, (2, 3, 3, k))
    stan_data = {
        "noise_contrasts": noise_contrasts(contrasts, observed),
        "observed": observed.sum(axis=1) - 1,
    }
    noise_cov = fold_noise_covariances(stan_data, log_sigma)
    indices = [(models.index(a), models.index(b)) for a, b in pair_labels(models)]
    vectors = observed_pair_vectors(contrasts, observed, indices)
    expected = np.sqrt(np.einsum("ipj,...ijl,ipl->...ip", vectors, noise_cov, vectors))
    noise_sd = np.where(observed, np.exp(log_sigma), np.nan)
    closed = fold_pair_noise_sd(noise_sd, indices)
    assert closed.shape == (2, 3, 3, len(indices))
    np.testing.assert_array_equal(np.isnan(closed), np.isnan(expected))
    assert np.isnan(closed).any() and np.isfinite(closed).sum() > 40
    np.testing.assert_allclose(closed, expected, rtol=1e-12)


def test_diagnosed_view_leaves_out_the_models_not_run():
    """The diagnostics see the σ_im and pair σ of the models run only: NaN cells of ``noise_sd``
    and ``sigma`` are dropped, the others kept in order; the fold-level model diagnoses σ_im in
    place of the pairs' σ."""
    import arviz as az
    import xarray as xr

    from bayes_hier.joint.model import DIAGNOSED, FOLD_DIAGNOSED, diagnosed_view

    rng = np.random.default_rng(1)
    noise_sd = rng.uniform(0.5, 1, (2, 6, 3, 4))
    noise_sd[..., 1, 2] = np.nan
    sigma = rng.uniform(0.5, 1, (2, 6, 3, 6))
    sigma[..., 0, [1, 4]] = np.nan
    posterior = xr.Dataset(
        {
            "noise_sd": (("chain", "draw", "dataset", "model"), noise_sd),
            "sigma": (("chain", "draw", "dataset", "pair"), sigma),
            "nu": (("chain", "draw"), rng.uniform(1, 2, (2, 6))),
        }
    )
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 6), bool))})
    view = diagnosed_view(az.InferenceData(posterior=posterior, sample_stats=stats)).posterior
    assert view["noise_sd"].shape == (2, 6, 11) and view["sigma"].shape == (2, 6, 16)
    np.testing.assert_array_equal(view["noise_sd"].values[..., 6], noise_sd[..., 1, 3])
    np.testing.assert_array_equal(view["sigma"].values[..., :4], sigma[..., 0, [0, 2, 3, 5]])
    np.testing.assert_array_equal(view["nu"].values, posterior["nu"].values)
    assert "sigma" in DIAGNOSED and "sigma" not in FOLD_DIAGNOSED
    assert {"noise_sd", "tau", "mu", "delta0"} <= set(FOLD_DIAGNOSED)


def test_log_sigmas_put_the_level_at_the_root_mean_square():
    """log σ_im = log s_i + λ_i + r_im − ½ log mean_m exp(2r_im), r_im = κ_m + ω η_im: the root
    mean square of σ_im over the models run on data set i is s_i e^λ_i (models not run do not
    count), and the differences log σ_im − log σ_im' are r_im − r_im'."""
    rng = np.random.default_rng(3)
    q, k = 4, 5
    run = np.ones((q, k))
    run[1, 2] = run[3, [0, 4]] = 0
    stan_data = {"log_noise_level": rng.normal(0, 1, q), "run": run}
    level = rng.normal(0, 1, (2, 3, q))
    model_noise_raw = rng.normal(0, 1, (2, 3, k - 1))
    spread = np.abs(rng.normal(0, 1, (2, 3)))
    noise_raw = rng.normal(0, 1, (2, 3, q, k - 1))
    log_sigma = log_sigmas(stan_data, level, model_noise_raw, spread, noise_raw)
    assert log_sigma.shape == (2, 3, q, k)
    mean_square = (run * np.exp(2 * log_sigma)).sum(axis=-1) / run.sum(axis=-1)
    np.testing.assert_allclose(
        0.5 * np.log(mean_square), stan_data["log_noise_level"] + level, rtol=1e-12
    )
    contrasts = helmert_contrasts(k)
    deviation = (model_noise_raw @ contrasts)[..., None, :] + spread[..., None, None] * (
        noise_raw @ contrasts
    )
    np.testing.assert_allclose(
        log_sigma - log_sigma[..., :1], deviation - deviation[..., :1], atol=1e-12
    )


def test_fold_noise_accepts_fewer_folds_than_models():
    """The full covariance refuses 4 folds for 5 models and names the fold-level noise; the
    fold-level input has the statistics of its program, its level s_i the root mean variance of
    the contrasts, and ``auto`` picks it only where some data set has too few folds."""
    blocks = _few_fold_blocks(missing=[(1, 3)])
    data = _data(blocks, rho=np.full(len(blocks), 0.25))
    with pytest.raises(ValueError, match="noise='fold'"):
        build_joint_input(data, Rope(-0.01, 0.01), JointPrior(), np.random.default_rng(0))
    model_input = build_joint_input(
        data, Rope(-0.01, 0.01), JointPrior(), np.random.default_rng(0), noise="fold"
    )
    stan = model_input.data
    assert model_input.noise == "fold" and "scatter" not in stan
    assert stan["observed"] == [4, 3, 4, 4, 4, 4]
    np.testing.assert_array_equal(stan["run"][1], [1, 1, 1, 0, 1])
    contrasts = helmert_contrasts(5)
    _, scatters = contrast_statistics(list(model_input.scores), contrasts)
    n, d_i = np.array([3, 4, 2, 4, 3, 4]), np.array(stan["observed"])
    expected = np.sqrt(np.trace(scatters, axis1=1, axis2=2) / ((n - 1) * 0.75 * d_i))
    np.testing.assert_allclose(np.exp(stan["log_noise_level"]), expected)
    inits = initial_values(model_input, 2, np.random.default_rng(1))
    assert inits[0]["noise_raw"].shape == (6, 4) and "noise_factor" not in inits[0]
    assert noise_structure("auto", data) == "fold"
    enough = _data(_few_fold_blocks(k=3, folds=(8, 9, 10)))
    assert noise_structure("auto", enough) == "full"
    with pytest.raises(ValueError, match="noise must be one of"):
        noise_structure("diagonal", enough)


def test_auto_fits_the_full_noise_from_2k_plus_2_results():
    """``noise="auto"`` takes the full Ω_i only where every data set has 2k_i + 2 results for its
    k_i ≥ 3 models (Ω_i's posterior then has a finite variance), 3 for two models (the
    program's minimum 2k_i − 1): 3 models need 8 folds, a data set of a 4-model study where one
    of them was not run needs 8 instead of 10; ``noise="full"`` below that warns, naming the
    data sets, from 2k_i − 1 results on (below, the input refuses)."""
    np.testing.assert_array_equal(results_for_full_noise(np.array([2, 3, 5, 16])), [3, 8, 12, 34])
    assert noise_structure("auto", _data(_few_fold_blocks(k=3, folds=(8, 8, 8)))) == "full"
    assert noise_structure("auto", _data(_few_fold_blocks(k=3, folds=(8, 7, 8)))) == "fold"
    assert noise_structure("auto", _data(_few_fold_blocks(k=2, folds=(3, 4, 3)))) == "full"
    assert noise_structure("auto", _data(_few_fold_blocks(k=2, folds=(2, 4, 3)))) == "fold"
    missing = [(1, 3)]
    eight = _data(_few_fold_blocks(k=4, folds=(10, 8, 10), missing=missing))
    seven = _data(_few_fold_blocks(k=4, folds=(10, 7, 10), missing=missing))
    assert noise_structure("auto", eight) == "full"
    assert noise_structure("auto", seven) == "fold"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_heavy_tailed_noise(eight)
    short = _data(_few_fold_blocks(k=4, folds=(10, 6, 7), missing=missing))
    with pytest.warns(FewFoldsWarning) as caught:
        warn_heavy_tailed_noise(short)
    message = str(caught[0].message)
    assert "on 2 data set(s)" in message and "noise='auto'" in message
    assert f"{short.datasets[1]} (6 for 3 models)" in message
    assert f"{short.datasets[2]} (7 for 4 models)" in message
    refused = _data(_few_fold_blocks(k=4, folds=(10, 4, 7), missing=missing))
    with pytest.warns(FewFoldsWarning) as caught:
        warn_heavy_tailed_noise(refused)
    assert "on 1 data set(s)" in str(caught[0].message)  # 4 results for 3 models: refused later


def test_draw_fold_noise_states_its_covariance():
    """The simulator's Ω_i = C diag(σ_i²) Cᵀ, its λ_i ~ N(0, sd²) is the log of the root mean
    square σ_im (sd 2 over many data sets), and the prior's ω is half-normal (mean √(2/π) over
    many draws)."""
    rng = np.random.default_rng(4)
    draw = draw_fold_noise(1.0, 6, 4, rng)
    contrasts = helmert_contrasts(4)
    for sd, omega in zip(draw["noise_sd"], draw["Omega"]):
        np.testing.assert_allclose(omega, contrasts @ np.diag(sd**2) @ contrasts.T)
    levels = 0.5 * np.log((draw_fold_noise(2.0, 4000, 3, rng)["noise_sd"] ** 2).mean(axis=1))
    assert abs(levels.mean()) < 4 * 2.0 / np.sqrt(4000)
    assert abs(levels.std() - 2.0) < 4 * 2.0 / np.sqrt(2 * 4000)
    spreads = [draw_fold_noise(1.0, 1, 3, rng)["noise_spread"] for _ in range(4000)]
    assert abs(np.mean(spreads) - np.sqrt(2 / np.pi)) < 4 * np.std(spreads) / np.sqrt(4000)


def test_fold_simulator_builds_a_calibration_input():
    """FoldNoiseSimulator: k = 5, 4 folds, the fold-level program's calibration input (s_i = 1,
    λ_i's proper prior on) and a truth for every checked quantity."""
    simulator = FoldNoiseSimulator()
    simulation = simulator.simulate(np.random.default_rng(5))
    stan = simulation.model_input.data
    assert simulator.setting == {"k": 5, "q": 10, "n": 4}
    assert stan["calibration_prior"] == 1 and stan["noise_level_prior_sd"] == 1.0
    np.testing.assert_array_equal(stan["log_noise_level"], 0.0)
    assert set(simulation.truth) == set(simulator.checked)
    assert simulator.model.program == "joint_fold"
    assert "Ω_i = C diag(σ_i²) Cᵀ" in simulator.describe()


def test_two_fold_simulator_is_the_extreme_design():
    """TwoFoldNoiseSimulator: k = 8 models on 2 folds, Σ₀ ~ InvWishart(11, I) on 7 contrasts;
    its suite is registered for make calibrate-joint."""
    from bayes_hier.calibration.run import model_suite

    simulator = TwoFoldNoiseSimulator()
    simulation = simulator.simulate(np.random.default_rng(7))
    assert simulator.setting == {"k": 8, "q": 10, "n": 2}
    assert simulation.model_input.data["k"] == 8 and set(simulation.model_input.data["n"]) == {2}
    assert simulator.calibration.population_df == 11.0
    np.testing.assert_array_equal(simulator.calibration.population_scale, np.eye(7))
    assert set(simulation.truth) == set(simulator.checked)
    suite = model_suite("joint_fold_two")
    assert isinstance(suite.simulators[0], TwoFoldNoiseSimulator)


def test_simulated_fold_scores_have_the_stated_contrast_covariance():
    """Monte Carlo: the contrasts of scores simulated with fixed fold-level scales have the
    covariance C D Cᵀ (1 − ρ) across folds of one data set (within 4 standard errors)."""
    rng = np.random.default_rng(6)
    calibration = fold_calibration_prior(3)
    simulated = simulate_joint(
        calibration, JointPrior(), q=2, n=4000, rng=rng, rho=0.2, noise="fold"
    )
    contrasts = helmert_contrasts(3)
    y = simulated.scores[0] @ contrasts.T
    centred = y - y.mean(axis=0)
    estimate = centred.T @ centred / (y.shape[0] - 1)
    expected = (1 - 0.2) * simulated.truth["Omega"][0]
    se = np.sqrt((expected**2 + np.outer(np.diag(expected), np.diag(expected))) / y.shape[0])
    assert np.all(np.abs(estimate - expected) < 4 * se)


def _completion_draws():
    """(posterior draws of 1 chain x 3 draws, model input, data) of a few-fold study with a model
    missing on one data set, for the completion's tests."""
    blocks = _few_fold_blocks(missing=[(1, 3)])
    data = _data(blocks, rho=np.full(len(blocks), 0.25))
    model_input = build_joint_input(
        data, Rope(-0.01, 0.01), JointPrior(), np.random.default_rng(0), noise="fold"
    )
    inits = initial_values(model_input, 3, np.random.default_rng(5))
    posterior = {
        name: np.stack([init[name] for init in inits])[None]
        for name in inits[0]
        if name != "population_corr"
    }
    posterior["population_factor"] = np.stack(
        [np.diag(init["population_sd"]) @ init["population_corr"] for init in inits]
    )[None]
    rng = np.random.default_rng(9)
    posterior["noise_spread"] = np.array([[0.7, -0.4, 1.3]])
    posterior["noise_raw"] = rng.normal(0, 1, posterior["noise_raw"].shape)
    return posterior, model_input, data


def test_completion_reports_the_spread_whatever_the_sign_of_its_coordinate():
    """``joint_fold.stan`` samples ω as a signed coordinate ω̃ (ω = |ω̃|; the model depends on ω̃ and
    η_i only through ω̃η_i). Draws (ω̃, η) and (−ω̃, −η) complete to the same quantities, with
    ``noise_spread`` = |ω̃| ≥ 0, and a draw with ω̃ alone negated does not."""
    import arviz as az

    from bayes_hier.joint.posterior import complete_posterior

    posterior, model_input, data = _completion_draws()

    def completed(spread_sign: float, raw_sign: float):
        draws = dict(posterior)
        draws["noise_spread"] = spread_sign * posterior["noise_spread"]
        draws["noise_raw"] = raw_sign * posterior["noise_raw"]
        idata = az.from_dict(posterior=draws)
        return complete_posterior(
            idata, model_input, data.models, data.datasets, np.random.default_rng(2)
        ).posterior

    plain, flipped, spread_only = completed(1, 1), completed(-1, -1), completed(-1, 1)
    np.testing.assert_array_equal(plain["noise_spread"].values, [[0.7, 0.4, 1.3]])
    np.testing.assert_array_equal(flipped["noise_spread"].values, plain["noise_spread"].values)
    for name in ("noise_sd", "sigma", "mu", "delta0", "sigma0"):
        np.testing.assert_allclose(flipped[name].values, plain[name].values, rtol=1e-12)
    assert not np.allclose(spread_only["noise_sd"].values, plain["noise_sd"].values, equal_nan=True)


@pytest.mark.parametrize("block_draws", [1, 2])
def test_completion_draws_the_same_numbers_on_any_number_of_threads(monkeypatch, block_draws):
    """The θ_i are drawn in blocks of draws, each with its own random stream spawned in the
    blocks' order, so one thread and four give the same numbers; a different seed does not. The
    pairs' noise sd, computed in blocks of draws too, equals √(σ_ia² + σ_ib²) of the same draws."""
    import arviz as az

    from bayes_hier.joint import posterior as completion

    draws, model_input, data = _completion_draws()
    monkeypatch.setattr(completion, "THETA_BLOCK_DRAWS", block_draws)
    monkeypatch.setattr(completion, "PAIR_BLOCK_DRAWS", block_draws)

    def completed(threads: int, seed: int = 2):
        monkeypatch.setattr(completion, "default_threads", lambda blocks: min(threads, blocks))
        idata = az.from_dict(posterior=dict(draws))
        return completion.complete_posterior(
            idata, model_input, data.models, data.datasets, np.random.default_rng(seed)
        ).posterior

    one, four, other_seed = completed(1), completed(4), completed(4, seed=3)
    np.testing.assert_array_equal(four["mu"].values, one["mu"].values)
    assert np.isfinite(one["mu"].values).all()
    assert not np.allclose(other_seed["mu"].values, one["mu"].values)
    noise_sd = one["noise_sd"].values
    for p, (a, b) in enumerate(pair_labels(data.models)):
        first, second = data.models.index(a), data.models.index(b)
        expected = np.sqrt(noise_sd[..., first] ** 2 + noise_sd[..., second] ** 2)
        np.testing.assert_allclose(one["sigma"].values[..., p], expected, rtol=1e-14)
