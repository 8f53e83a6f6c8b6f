"""The joint model with fold-level noise through Stan: log density and a fit on few folds."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayes_hier.diagnostics import SamplingWarning
from bayes_hier.few_fold import few_fold_study
from bayes_hier.joint import FewFoldsWarning, NoiseMisfitWarning, joint_test
from bayes_hier.joint.contrasts import helmert_contrasts, observed_contrasts
from bayes_hier.joint.model_input import (
    JointPrior,
    build_joint_input,
    initial_values,
)
from bayes_hier.joint.posterior import theta0_from_raw
from bayes_hier.joint.simulate import fold_calibration_prior
from bayes_hier.rope import Rope
from bayes_hier.stan_programs import load_program

from .reference_priors import (
    population_log_prior,
    random_population_point,
    randomise_mixing,
    scale_mixture_log_prior,
)
from .test_joint import _data, _literal_observed_log_likelihood
from .test_joint_fold_noise import _few_fold_blocks

pytestmark = pytest.mark.stan


@pytest.fixture(scope="module")
def fold_engine(engine):
    """The suite's engine with the fold-level program compiled."""
    engine.compile(load_program("joint_fold"))
    return engine


def _input(nu_prior: str, folds=(3, 4, 2, 4, 3, 4), **options):
    blocks = _few_fold_blocks(folds=folds, missing=[(1, 3), (4, 0)])
    data = _data(blocks, rho=np.linspace(0.2, 0.35, len(blocks)))
    return build_joint_input(
        data,
        Rope(-0.01, 0.01),
        JointPrior(nu_prior=nu_prior),
        np.random.default_rng(0),
        noise="fold",
        **options,
    )


def _random_points(model_input, count: int = 4) -> list[dict]:
    rng = np.random.default_rng(42)
    points = initial_values(model_input, count, rng)
    d = model_input.data["k"] - 1
    for point in points:
        point["theta0_raw"] = rng.normal(0, 1, d)
        random_population_point(point, rng)
        point["noise_level"] = rng.normal(0, 0.5, point["noise_level"].size)
        point["model_noise_raw"] = rng.normal(0, 1, d)
        point["noise_spread"] = float(rng.choice([-1, 1]) * rng.uniform(0.1, 1.5))
        point["noise_raw"] = rng.normal(0, 1, point["noise_raw"].shape)
        randomise_mixing(point, rng)
    return points


def _reference_log_density(model_input, point) -> float:
    """The model in NumPy/scipy, each data set's likelihood the literal normal of its observed
    models' contrasts (θ_i integrated out) with Ω_i = C_i diag(σ_i²) C_iᵀ; log σ_im restated
    from the coordinates (the level λ_i at the root mean square over the models run); the
    priors: Σ₀'s as in the full model, standard normal κ_raw and η_raw,i, standard normal on the
    signed coordinate ω̃ of ω = |ω̃| (the half-normal on ω), flat λ_i (normal with the calibration
    prior)."""
    data = model_input.data
    k = data["k"]
    contrasts = helmert_contrasts(k)
    calibration = data["calibration_prior"] == 1
    theta0 = theta0_from_raw(data, point["theta0_raw"])
    mixture_log_prior, inverse_tau = scale_mixture_log_prior(data, point)
    log_prior, population = population_log_prior(data, point, inverse_tau)
    log_prior += mixture_log_prior
    log_prior += stats.norm.logpdf(point["model_noise_raw"]).sum()
    log_prior += stats.norm.logpdf(point["noise_spread"])
    log_prior += stats.norm.logpdf(point["noise_raw"]).sum()
    if calibration:
        log_prior += stats.norm(0, data["theta0_prior_sd"]).logpdf(theta0).sum()
        log_prior += stats.norm(0, data["noise_level_prior_sd"]).logpdf(point["noise_level"]).sum()
    log_lik = 0.0
    for i, block in enumerate(model_input.scores):
        run = np.isfinite(block[0])
        deviation = (
            contrasts.T @ point["model_noise_raw"]
            + point["noise_spread"] * contrasts.T @ point["noise_raw"][i]
        )
        root_mean_square = 0.5 * np.log(np.mean(np.exp(2 * deviation[run])))
        log_sigma = (
            data["log_noise_level"][i] + point["noise_level"][i] + deviation - root_mean_square
        )
        own, _ = observed_contrasts(contrasts, run)
        noise = own @ np.diag(np.exp(2 * log_sigma[run])) @ own.T
        log_lik += _literal_observed_log_likelihood(
            block, data["rho"][i], theta0, population * inverse_tau[i], noise
        )
    return float(log_lik + log_prior)


@pytest.mark.parametrize(
    ("nu_prior", "folds"),
    [
        ("hierarchical", (3, 4, 2, 4, 3, 4)),
        ("gaussian", (3, 4, 2, 4, 3, 4)),
        ("hierarchical", (3, 8, 2, 7, 3, 4)),
    ],
)
def test_fold_program_states_the_literal_model(fold_engine, nu_prior, folds):
    """joint_fold.stan = the literal Kronecker normal of every data set's observed contrasts
    plus the priors, constants included, at points that really differ; two data sets lack a
    model, and every data set has fewer folds than models (the scatter T_i of the scores, of
    rank n_i - 1, enters through a root of n_i - 1 rows) or two have more (a root of k rows)."""
    model_input = _input(nu_prior, folds)
    points = _random_points(model_input)
    closed = fold_engine.log_density(load_program("joint_fold"), model_input.data, points)
    expected = [_reference_log_density(model_input, point) for point in points]
    assert np.ptp(closed) > 1.0
    np.testing.assert_allclose(closed, expected, rtol=1e-9)


def test_fold_program_depends_on_the_spread_through_its_product_with_the_deviations(fold_engine):
    """The signed coordinate ω̃ of the spread: (ω̃, η_raw) and (−ω̃, −η_raw) have the same log
    density (the model sees ω̃η_i only, and ω̃'s prior is symmetric), and negating ω̃ alone moves
    it, so the sampler's two mirror images of every posterior point are the same model."""
    model_input = _input("hierarchical")
    points = _random_points(model_input)
    mirrored = [
        {**point, "noise_spread": -point["noise_spread"], "noise_raw": -point["noise_raw"]}
        for point in points
    ]
    half = [{**point, "noise_spread": -point["noise_spread"]} for point in points]
    program = load_program("joint_fold")
    closed = fold_engine.log_density(program, model_input.data, points)
    np.testing.assert_allclose(
        fold_engine.log_density(program, model_input.data, mirrored), closed, rtol=1e-12
    )
    assert np.min(np.abs(fold_engine.log_density(program, model_input.data, half) - closed)) > 1e-3


def test_fold_calibration_prior(fold_engine):
    """calibration_prior = 1 (unit scale): normal θ₀ and λ_i, inverse Wishart Σ₀, s_i = 1; the
    program equals the reference up to a constant, and the flag changes the density."""
    calibration = fold_calibration_prior(5)
    model_input = _input("hierarchical", scale=0.01, calibration=calibration)
    np.testing.assert_array_equal(model_input.data["log_noise_level"], 0.0)
    points = _random_points(model_input)
    closed = fold_engine.log_density(load_program("joint_fold"), model_input.data, points)
    expected = np.array([_reference_log_density(model_input, point) for point in points])
    np.testing.assert_allclose(closed - expected, (closed - expected)[0], atol=1e-6)
    default = _input("hierarchical", scale=0.01)
    flat = fold_engine.log_density(load_program("joint_fold"), default.data, points)
    assert np.ptp((closed - flat) - (closed - flat)[0]) > 0.1


def _better_model_frame(seed: int = 3) -> pd.DataFrame:
    """4 models on 12 data sets with 3 folds: c is better by 0.04, the others equal; per-model
    noise scales, a fold effect shared by the models."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(12):
        level = rng.uniform(0.7, 0.9)
        sd = 0.01 * np.exp(rng.normal(0, 0.3, 4))
        folds = rng.normal(0, 0.02, 3)
        effects = np.array([0.0, 0.0, 0.04, 0.0]) + rng.normal(0, 0.004, 4)
        for m, model in enumerate("abcd"):
            scores = level + effects[m] + folds + sd[m] * rng.normal(0, 1, 3)
            rows += [(f"d{i:02d}", model, 1, f + 1, s) for f, s in enumerate(scores)]
    return pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])


def test_few_folds_fit_and_find_the_better_model(fold_engine):
    """noise='auto' on 3 folds for 4 models fits the fold-level noise; the chains converge and
    the truly better model c is found (P(best) > 0.9, its pairs with the others in its favour),
    and the noise scales are reported per model and data set."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # A fit of this study has one divergent transition now and then (measured over 40 seeds:
        # 3 fits at Stan's default optimisation level, 2 at --O1, never more than one): seed 1
        # is not one of them. The test checks the decision, not the rate (see the joint model's
        # page, "Where it works and where it struggles").
        result = joint_test(_better_model_frame(), 0.01, seed=1, draws=500, warmup=500)
    assert not [w for w in caught if issubclass(w.category, NoiseMisfitWarning)]
    assert result.settings["options"]["noise"] == "fold"
    assert result.diagnostics["divergences"] == 0
    assert result.diagnostics["max_rhat"] < 1.02
    assert result.p_best["c"] > 0.9
    assert result.order[0] == "c"
    for other in "abd":
        assert result[other, "c"].probs.right > 0.5  # c (second) better
    noise_sd = result.idata.posterior["noise_sd"]
    assert noise_sd.sizes["model"] == 4 and noise_sd.sizes["dataset"] == 12
    assert 0.004 < float(noise_sd.median()) < 0.025
    # the data follow the fold-level structure: the fitted noise agrees with the folds' scatter
    check = result.noise_check()
    assert len(check) == 6 and (check.datasets == 12).all()
    assert check.sd_ratio.between(0.6, 1.6).all()
    assert "Noise check" in result.summary()


def test_a_few_fold_study_converges_with_the_default_settings(fold_engine):
    """5 models x 20 data sets x 4 folds of the few-fold generator (heterogeneous spreads,
    constant differences, a few large differences): compare's joint method with its defaults
    (4 chains x 1000 draws after 500) has no divergence, R-hat <= 1.01 and bulk ESS >= 400.
    With Σ₀'s old improper prior sampled in L₀'s own entries this study gave 391 divergent
    transitions (the joint model page, "The population's scale"). Not every seed is clean: over
    seeds 1-8, with 500 or with 1000 warm-up iterations, the program gave 1 divergent transition
    of 4 000 at seed 1 (before its likelihood was rewritten with the same log density, 4 at seed
    2 of seeds 1-4), and such a fit reads "not converged"; seed 3 had none in all three."""
    study = few_fold_study(5, 20, folds=4, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = joint_test(study, 0.01, seed=3, warn=False)
    assert result.settings["options"]["noise"] == "fold"
    assert result.diagnostics["divergences"] == 0
    assert result.diagnostics["max_rhat"] <= 1.01
    assert result.diagnostics["min_ess_bulk"] >= 400
    assert result.converged


def _homogeneous_frame(models: int, datasets: int, folds: int, seed: int = 0) -> pd.DataFrame:
    """Every model with the same noise (sd 0.01) around a shared fold effect (sd 0.01), effects
    0, 0.01, 0.02, ... that vary little across data sets (sd 0.005)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(datasets):
        level = rng.normal(0.8, 0.05)
        deviation = rng.normal(0, 0.005, models)
        shared = rng.normal(0, 0.01, folds)
        for m in range(models):
            scores = level + 0.01 * m + deviation[m] + shared + rng.normal(0, 0.01, folds)
            rows += [(f"d{i}", f"m{m}", 0, f, s) for f, s in enumerate(scores)]
    return pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])


def test_auto_samples_a_small_few_fold_study_with_the_fold_level_noise(fold_engine):
    """3 models x 8 data sets x 4 folds, equal noise, little spread across data sets: below
    2k + 2 = 8 results noise='auto' fits the fold-level noise, which samples this design with the
    default settings at R-hat <= 1.01 and at most a few divergent transitions of 4 000 (measured
    on this and four similar studies: 4, 1, 3, 0 and 0, 27-44 leapfrog steps per draw; such a fit
    reads "not converged"), where the full covariances' heavy-tailed posterior gave 222 divergent
    transitions and 230 steps per draw on a similar study; asking for the full covariances there
    is refused (4 results are fewer than the 2k - 1 = 5 the program needs), and at 5 folds
    warns."""
    frame = _homogeneous_frame(3, 8, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = joint_test(frame, 0.01, seed=1, warn=False)
    assert result.settings["options"]["noise"] == "fold"
    assert result.diagnostics["divergences"] <= 10
    assert result.diagnostics["max_rhat"] <= 1.01
    assert result.diagnostics["min_ess_bulk"] >= 400
    with pytest.raises(ValueError, match=r"has 4 .* for 3 models.*2k - 1 = 5"):
        joint_test(frame, 0.01, noise="full", seed=1, warn=False, chains=1, draws=20, warmup=20)
    with pytest.warns(FewFoldsWarning, match="8 data set"):
        joint_test(
            _homogeneous_frame(3, 8, 5),
            0.01,
            noise="full",
            seed=1,
            warn=False,
            chains=1,
            draws=20,
            warmup=20,
        )


def _family_frame(seed: int = 4) -> pd.DataFrame:
    """4 models on 12 data sets with 10 folds; a and b (one family) share an error of sd 0.02 on
    every fold, c and d have their own errors of sd 0.005: not the fold-level structure, which
    has no noise shared by some models only."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(12):
        level = rng.uniform(0.7, 0.9)
        family = rng.normal(0, 0.02, 10)
        for model in "abcd":
            own = rng.normal(0, 0.002 if model in "ab" else 0.005, 10)
            scores = level + own + (family if model in "ab" else 0.0)
            rows += [(f"d{i:02d}", model, 1, f + 1, s) for f, s in enumerate(scores)]
    return pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])


def test_the_noise_check_flags_models_that_err_together(fold_engine):
    """Where two models share their errors, the fold-level noise misfits a pair on most data
    sets (here c vs d: the shared fold term follows a and b, so c and d each get the family's
    error as their own noise and c - d about 3 times its sd): the check flags it and the fit
    warns naming it; the full covariance, fitted to the same data, is not flagged."""
    frame = _family_frame()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fold = joint_test(frame, 0.01, seed=3, noise="fold", draws=1000, warmup=500)
        full = joint_test(frame, 0.01, seed=3, noise="full", draws=300, warmup=300, warn=False)
    assert fold.converged
    misfit = [str(w.message) for w in caught if issubclass(w.category, NoiseMisfitWarning)]
    assert len(misfit) == 1 and "does not fit" in misfit[0]
    check = fold.noise_check().set_index(["first", "second"])
    assert check.misfit.sum() == 1 and check.misfit["c", "d"]
    assert check.share_overstated["c", "d"] > 0.5 and check.sd_ratio["c", "d"] < 0.5
    assert "(c vs d)" in misfit[0]
    assert not full.noise_check().misfit.any()


def test_a_failed_fit_with_nu_at_its_bound_names_its_farthest_data_sets(fold_engine):
    """The hint of a failed fit reads the fit's own ν and τ_i: with ν's draws set near 1 in a
    short fit that fails its checks (20 draws), the hint follows the failed checks in the
    result's problems and names the three data sets with the smallest posterior median τ_i."""
    result = joint_test(
        _better_model_frame(), 0.01, seed=1, chains=2, draws=20, warmup=20, warn=False
    )
    assert not result.converged
    posterior = result.idata.posterior
    posterior["nu"] = posterior["nu"] * 0 + 1.01
    tau = posterior["tau"].median(dim=("chain", "draw"))
    farthest = [str(name) for name in tau.sortby(tau).coords["dataset"].values[:3]]
    assert set(farthest) <= set(_better_model_frame().dataset)  # the data's own labels
    (hint,) = result.failure_hints()
    assert f"most of all {', '.join(farthest)}." in hint
    ((_, found),) = result.problems.items()
    assert found[-1] == hint and len(found) > 1
    assert hint in result.summary()  # in the line that heads it: not converged, and why
    assert any(hint.rstrip(".") in line for line in result.warnings)  # the reports' warnings
    with pytest.warns(SamplingWarning, match="pairwise"):
        result.warn()
