"""The joint model through Stan: log density, permutation invariance, k = 2, recovery."""

import copy
import functools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayes_hier.hierarchical import hierarchical_test
from bayes_hier.hierarchical.scale_mixture import (
    standardised_log_gamma_log_density,
    tau_from_standardised,
)
from bayes_hier.joint import compare_joint, joint_test
from bayes_hier.joint.contrasts import helmert_contrasts
from bayes_hier.joint.data import MultiCVData
from bayes_hier.joint.model_input import (
    JointCalibrationPrior,
    JointPrior,
    build_joint_input,
    initial_values,
)
from bayes_hier.joint.posterior import theta0_from_raw
from bayes_hier.rope import Rope
from bayes_hier.scores import MissingDataWarning
from bayes_hier.stan_programs import load_program

from .reference_priors import (
    population_log_prior,
    random_population_point,
    randomise_mixing,
    scale_mixture_log_prior,
)

pytestmark = pytest.mark.stan


@pytest.fixture(scope="module")
def joint_engine(engine):
    """The suite's engine with the joint program compiled."""
    engine.compile(load_program("joint"))
    return engine


def _input(nu_prior: str, k: int = 3, seed: int = 1, **options):
    rng = np.random.default_rng(seed)
    sizes = (6, 8, 10, 6)
    blocks = [rng.normal(0.8, 0.02, (n, k)) + rng.normal(0, 0.01, k) for n in sizes]
    data = MultiCVData(
        tuple(blocks),
        tuple("abcde"[:k]),
        tuple(f"set {i}" for i in range(len(sizes))),
        np.array([1, 2, 1, 1]),
        np.array([0.1, 0.2, 0.15, 0.3]),
    )
    return build_joint_input(data, Rope(-0.01, 0.01), JointPrior(nu_prior=nu_prior), rng, **options)


def _random_points(model_input, count: int = 4) -> list[dict]:
    """Points away from the initial values: noise weights, heavy tails, other means."""
    rng = np.random.default_rng(42)
    points = initial_values(model_input, count, rng)
    d = model_input.data["k"] - 1
    for point in points:
        point["theta0_raw"] = rng.normal(0, 1, d)
        random_population_point(point, rng)
        point["noise_weight_raw"] = rng.normal(0, 1.5, point["noise_weight_raw"].shape)
        randomise_mixing(point, rng)
    return points


def _reference_log_density(model_input, point, calibration=None) -> float:
    """The model in NumPy/scipy, from the scores themselves, data set by data set: with d_i
    observed contrasts y = X_i E_iᵀC_iᵀ (the data set's own Helmert contrasts C_i of the models
    run there, M_i = C_iE_iCᵀ), their mean ȳ_i and scatter S_i, and Ω_i integrated out, ȳ_i
    given τ_i and the noise weight w_i is normal with mean M_iθ₀ and covariance
    M_iΣ₀M_iᵀ/τ_i + V_i/w_i, V_i = (b_i/n_i)(S_i/a_i)/df_i, df_i = n_i − 2d_i, and the
    standardised log of w_i has the density of a Gamma(df_i/2, df_i/2) variable's; plus the
    standardised-log densities of ν − 1 and τ_i and Σ₀'s prior
    (:func:`~.reference_priors.population_log_prior`).

    With a ``calibration`` prior (``JointCalibrationPrior``, up to a constant): θ₀ ~ N(0, sd² I),
    Σ₀ inverse Wishart, and Ω_i ~ InvWishart(ν − d + d_i, M_iΨM_iᵀ), which makes
    df_i = ν − d + n_i and V_i = (b_i/n_i)(M_iΨM_iᵀ + S_i/a_i)/df_i."""
    data = model_input.data
    d = data["k"] - 1
    contrasts = helmert_contrasts(d + 1)
    theta0 = theta0_from_raw(data, point["theta0_raw"])
    log_prior, inverse_tau = scale_mixture_log_prior(data, point)
    population_log, population = population_log_prior(data, point, inverse_tau)
    log_prior += population_log
    if calibration is not None:
        log_prior += stats.norm(0, data["theta0_prior_sd"]).logpdf(theta0).sum()
    log_lik = 0.0
    for i, block in enumerate(model_input.scores):
        run = np.isfinite(block[0])
        own = helmert_contrasts(int(run.sum()))
        design = own @ np.eye(d + 1)[run] @ contrasts.T
        y = block[:, run] @ own.T
        n, m = y.shape
        rho = data["rho"][i]
        scatter = (y - y.mean(axis=0)).T @ (y - y.mean(axis=0)) / (1 - rho)
        if calibration is None:
            df = n - 2 * m
        else:
            df = calibration.noise_df - d + n
            scatter = scatter + design @ calibration.noise_scale @ design.T
        mean_noise = (1 + (n - 1) * rho) / n * scatter / df
        z = point["noise_weight_raw"][i]
        log_prior += float(standardised_log_gamma_log_density(z, df / 2, df / 2))
        weight = float(tau_from_standardised(z, df))
        log_lik += stats.multivariate_normal(
            design @ theta0, design @ population @ design.T * inverse_tau[i] + mean_noise / weight
        ).logpdf(y.mean(axis=0))
    return float(log_lik + log_prior)


def _program_states(engine, model_input, reference, up_to_constant=False, rtol=1e-9):
    """joint.stan equals ``reference(model_input, point)`` at random points (constants included,
    or up to a constant); returns the points and joint.stan's values. A literal (Kronecker)
    reference agrees to about 1e-10 relative (1e-9 where large terms cancel), not to the
    last digits."""
    points = _random_points(model_input)
    closed = engine.log_density(load_program("joint"), model_input.data, points)
    expected = np.array([reference(model_input, point) for point in points])
    assert np.ptp(closed) > 1.0
    if up_to_constant:
        np.testing.assert_allclose(closed - expected, (closed - expected)[0], atol=1e-6)
    else:
        np.testing.assert_allclose(closed, expected, rtol=rtol)
    return points, closed


@pytest.mark.parametrize("nu_prior", ["hierarchical", "juarez-steel", "gaussian"])
def test_joint_program_states_the_reference_log_density(joint_engine, nu_prior):
    """joint.stan = the NumPy/scipy statement of the model with Ω_i integrated out, constants
    included, at points that really differ (that the integral over Ω_i of the literal Kronecker
    normal of vec(Y_i) is this Student-t: test_joint)."""
    _program_states(joint_engine, _input(nu_prior), _reference_log_density)


@pytest.mark.parametrize("nu_prior", ["hierarchical", "gaussian"])
def test_calibration_prior_replaces_the_improper_priors(joint_engine, nu_prior):
    """calibration_prior = 1 (fixed unit scale): joint.stan = scipy's normal θ₀ and inverse
    Wishart Σ₀ (with the Jacobians of its coordinates) + the likelihood with the Ω_i integrated
    out under their inverse Wishart prior, up to a constant; and the flag really changes the
    density (not the same differences as without)."""
    calibration = JointCalibrationPrior(
        theta0_sd=0.7,
        population_df=5.0,
        population_scale=np.array([[1.0, 0.3], [0.3, 0.5]]),
        noise_df=6.0,
        noise_scale=np.array([[2.0, -0.4], [-0.4, 1.0]]),
    )
    model_input = _input(nu_prior, scale=0.02, calibration=calibration)
    assert model_input.scale == 0.02 and model_input.data["calibration_prior"] == 1
    reference = functools.partial(_reference_log_density, calibration=calibration)
    points, closed = _program_states(joint_engine, model_input, reference, True)
    default = _input(nu_prior, scale=0.02)
    assert default.data["calibration_prior"] == 0
    flat = joint_engine.log_density(load_program("joint"), default.data, points)
    assert np.ptp((closed - flat) - (closed - flat)[0]) > 0.1


def _simulated_frame(effects, q=10, folds=10, sigma=1.0, spread=1.0, seed=0) -> pd.DataFrame:
    """Scores of k models on q data sets: data-set difficulty + model effect + a data set's own
    deviation (sd ``spread``) + fold noise equicorrelated across folds (ρ = 1/folds) and
    correlated 0.5 across models."""
    rng = np.random.default_rng(seed)
    effects = np.asarray(effects, float)
    k, rho = effects.size, 1 / folds
    rows = []
    for i in range(q):
        true = 70 + rng.normal(0, 5) + effects + rng.normal(0, spread, k)
        shared = rng.normal(size=(folds, 1))
        z = np.sqrt(0.5) * shared + np.sqrt(0.5) * rng.normal(size=(folds, k))
        g = np.sqrt(0.5) * rng.normal() + np.sqrt(0.5) * rng.normal(size=k)
        scores = true + sigma * (np.sqrt(rho) * g + np.sqrt(1 - rho) * z)
        for j in range(folds):
            for a in range(k):
                rows.append((f"set {i}", f"m{a}", 0, j, scores[j, a]))
    return pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])


FIT = {"chains": 2, "draws": 1000, "warmup": 1000, "engine": "pystan", "warn": False}


@pytest.fixture(scope="module")
def recovery(joint_engine):
    """m2 better than m0 and m1 by 3 points on average (data sets' own deviations sd 0.5, so a
    new data set's difference has sd 0.7 and m2 is best with probability about 0.99)."""
    return joint_test(_simulated_frame([0.0, 0.0, 3.0], q=10, spread=0.5), rope=0.5, seed=5, **FIT)


def test_rank_table_and_p_best_are_distributions(recovery):
    ranks = recovery.rank_probabilities
    assert ranks.shape == (3, 3) and list(ranks.columns) == [1, 2, 3]
    np.testing.assert_allclose(ranks.sum(axis=1), 1.0)
    np.testing.assert_allclose(ranks.sum(axis=0), 1.0)  # each rank is held by one model
    np.testing.assert_allclose(recovery.p_best.sum(), 1.0)
    assert recovery.p_practically_best.sum() >= 1.0
    np.testing.assert_allclose(recovery.expected_rank, (ranks * np.array([1, 2, 3])).sum(axis=1))


def test_the_better_model_is_recovered(recovery):
    assert recovery.p_best["m2"] > 0.9
    assert recovery.expected_rank["m2"] < 1.2
    assert recovery.order[0] == "m2"
    for other in ("m0", "m1"):
        assert recovery[other, "m2"].probs.right > 0.9  # m2 (second) better
        assert recovery["m2", other].probs.left > 0.9  # the same pair written the other way
    assert recovery.diagnostics["divergences"] == 0
    assert recovery.diagnostics["max_rhat"] < 1.02


def test_pairs_table_and_shrinkage(recovery):
    pairs = recovery.pairs
    assert list(zip(pairs["first"], pairs["second"])) == [("m0", "m1"), ("m0", "m2"), ("m1", "m2")]
    for prefix in ("p_", "p_population_"):
        columns = [f"{prefix}first_better", f"{prefix}rope", f"{prefix}second_better"]
        np.testing.assert_allclose(pairs[columns].sum(axis=1), 1.0)
    shrinkage = recovery.per_dataset
    assert len(shrinkage) == 30
    # centred effects: the shrinkage estimates of a data set sum to 0 over the models
    np.testing.assert_allclose(shrinkage.groupby("dataset")["shrunk"].sum(), 0.0, atol=1e-9)
    # and lie between the data set's own estimate and the population's, on average
    pair = recovery["m0", "m2"].per_dataset
    population = recovery["m0", "m2"].population.mean
    assert np.mean(np.abs(pair["shrunk"] - population)) < np.mean(np.abs(pair["mle"] - population))


def test_plots_and_text(recovery):
    import matplotlib.pyplot as plt

    for figure in (
        recovery.plot_rank_probabilities(),
        recovery.plot_p_best(),
        recovery.plot_bayesian_cd(),
    ):
        assert figure.axes
        plt.close(figure)
    text = str(recovery)
    assert "P(best)" in text and "m2" in text and "divergences" in text


def _population(result, first, second):
    """(left, rope, right) of the population mean difference second − first."""
    if (first, second) in result.pair_results:
        return tuple(result.pair_results[first, second].population.probs)
    return tuple(result.pair_results[second, first].population.probs)[::-1]


def test_permuting_the_models_permutes_the_answers(joint_engine):
    """Same data, models listed in another order: every probability within Monte Carlo error
    (the likelihood and the priors of θ₀ and Ω_i are invariant; Σ₀'s weak prior acts in the
    data-based basis A₀, which rotates with the order, and must not move the answers)."""
    frame = _simulated_frame([0.0, 0.6, 1.0], q=8, spread=1.0, seed=3)
    one = joint_test(frame, rope=0.5, models=["m0", "m1", "m2"], seed=1, **FIT)
    two = joint_test(frame, rope=0.5, models=["m2", "m0", "m1"], seed=2, **FIT)
    tolerance = 0.07  # about 4 Monte Carlo standard errors of a difference of two fits
    np.testing.assert_allclose(two.p_best.loc[list(one.models)], one.p_best, atol=tolerance)
    np.testing.assert_allclose(
        two.rank_probabilities.loc[list(one.models)], one.rank_probabilities, atol=tolerance
    )
    for first, second in one.pair_results:
        np.testing.assert_allclose(
            two[first, second].probs, one[first, second].probs, atol=tolerance
        )
        np.testing.assert_allclose(
            _population(two, first, second), _population(one, first, second), atol=tolerance
        )


def test_two_models_reproduce_the_hierarchical_test(joint_engine, uci):
    """k = 2 is the paper's model: the same left/rope/right as hierarchical_test (one real pair
    here; ``python -m benchmarks.joint --pairs`` checks all ten at 0.03)."""
    pair = ("nbc", "aode")
    frame = uci[uci["model"].isin(pair)]
    settings = {"chains": 4, "draws": 1000, "warmup": 1000, "engine": "pystan", "warn": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        joint = joint_test(frame, rope=1.0, models=list(pair), seed=11, **settings)
        reference = hierarchical_test(frame, rope=1.0, models=pair, seed=12, **settings)
    np.testing.assert_allclose(joint[pair].probs, reference.probs, atol=0.05)
    np.testing.assert_allclose(joint[pair].population.probs, reference.population.probs, atol=0.05)


def test_reports_and_matrices_of_compare_work_unchanged(recovery, tmp_path):
    """The joint result is a ManyModelResult: compare's matrices and reports take it as is."""
    better = recovery.matrix("better")
    assert list(better.index) == recovery.order
    np.testing.assert_allclose(better.loc["m2", "m0"], recovery["m2", "m0"].probs.left)
    assert "Joint Bayesian hierarchical model" in recovery.to_markdown()
    assert recovery.to_dict()["method"] == "joint"
    written = recovery.write_report(tmp_path)
    report = (tmp_path / "report.md").read_text()
    best = recovery.ranking.index[0]
    assert f"| {best} | {float(recovery.ranking.round(3).loc[best, 'p_best'])} |" in report
    assert "P(rank r on a new data set)" in report and "pairs.csv" not in report
    assert f"Seed: {recovery.settings['seed']}, of the one fit that gives every pair." in report
    assert {"rank_probabilities.png", "p_best.png", "report.html"} <= set(written)


def test_compare_joint_takes_compares_arguments(joint_engine):
    frame = _simulated_frame([0.0, 0.0, 3.0], q=10, spread=0.5)
    with pytest.raises(ValueError, match="control"):
        compare_joint(frame, rope=0.5, control="m0")
    result = compare_joint(
        frame, rope=0.5, seed=5, jobs=2, min_folds=2, models=["m2", "m0", "m1"], **FIT
    )
    assert result.models == ("m2", "m0", "m1") and result.p_best["m2"] > 0.9


def test_to_dict_carries_the_ranking(recovery):
    out = recovery.to_dict()
    assert out["p_best"] == pytest.approx(recovery.p_best.to_dict())
    assert out["rank_probabilities"]["m2"] == pytest.approx(
        recovery.rank_probabilities.loc["m2"].tolist()
    )


def _missing_input(nu_prior: str, **options):
    """k = 4 on 5 data sets: set 1 lacks model c, set 3 lacks a and d (2 models left)."""
    rng = np.random.default_rng(3)
    sizes = (7, 8, 7, 9, 8)
    blocks = [rng.normal(0.8, 0.02, (n, 4)) + rng.normal(0, 0.01, 4) for n in sizes]
    blocks[1][:, 2] = np.nan
    blocks[3][:, [0, 3]] = np.nan
    data = MultiCVData(
        tuple(blocks),
        tuple("abcd"),
        tuple(f"set {i}" for i in range(len(sizes))),
        np.array([1, 2, 1, 1, 1]),
        np.array([0.1, 0.2, 0.15, 0.3, 0.2]),
    )
    return build_joint_input(data, Rope(-0.01, 0.01), JointPrior(nu_prior=nu_prior), rng, **options)


@pytest.mark.parametrize("nu_prior", ["hierarchical", "gaussian"])
def test_models_missing_on_some_data_sets_state_the_observed_likelihood(joint_engine, nu_prior):
    """joint.stan = the likelihood of the observed scores' own contrasts only (Ω_i of their
    size, integrated out) + the prior, constants included, for a design with one and with two
    models missing on a data set."""
    model_input = _missing_input(nu_prior)
    assert model_input.data["observed"] == [3, 2, 3, 1, 3]
    _program_states(joint_engine, model_input, _reference_log_density, rtol=1e-9)


def test_calibration_prior_with_missing_models(joint_engine):
    """The calibration prior on a data set's observed contrasts is the law of M_iΩM_iᵀ:
    InvWishart(ν − d + d_i, M_iΨM_iᵀ); joint.stan = scipy up to a constant."""
    calibration = JointCalibrationPrior(
        theta0_sd=2.0,
        population_df=6.0,
        population_scale=np.diag([1.0, 2.0, 0.5]),
        noise_df=7.0,
        noise_scale=np.array([[1.0, 0.2, 0.0], [0.2, 1.5, -0.3], [0.0, -0.3, 0.8]]),
    )
    model_input = _missing_input("hierarchical", scale=0.02, calibration=calibration)
    reference = functools.partial(_reference_log_density, calibration=calibration)
    _program_states(joint_engine, model_input, reference, True)


def test_a_model_run_on_few_data_sets_is_uncertain_and_leaves_the_others_alone(
    joint_engine, recovery
):
    """m1 kept on 5 of the 10 data sets of ``recovery``: m1's pairs use those 5 data sets and
    their population differences are more uncertain than with every model everywhere, while
    m0 vs m2 keeps its answer. Measured with 4 × 4000 draws (fit seeds 5 and 6): 1.20 and 1.19,
    1.23 and 1.22 times the posterior sd for m1's two pairs, 1.01 and 1.04 for m0 vs m2; at this
    test's 2 × 1000 draws the ratios of m1's pairs ranged from 1.10 to 1.31 over seeds 5-8 (an sd
    of these heavy-tailed draws is a noisy estimate), so their mean is checked against 1.08.
    With Σ₀'s old improper prior the ratios were 2.7 and 2.8: that prior favoured large
    population scales where few data sets hold them."""
    frame = _simulated_frame([0.0, 0.0, 3.0], q=10, spread=0.5)
    kept = [f"set {i}" for i in range(5)]
    rare = frame[(frame.model != "m1") | frame.dataset.isin(kept)]
    result = joint_test(rare, rope=0.5, seed=5, **FIT)
    assert result.usage["m0", "m1"].datasets == tuple(kept)
    assert result["m0", "m1"].cv.q == 5 and result["m0", "m2"].cv.q == 10
    spread = {}
    for fit, name in ((recovery, "complete"), (result, "rare")):
        for pair in (("m0", "m1"), ("m1", "m2"), ("m0", "m2")):
            spread[name, pair] = float(np.std(fit[pair].posterior_draws("delta0")))
    pairs = (("m0", "m1"), ("m1", "m2"), ("m0", "m2"))
    ratios = {pair: spread["rare", pair] / spread["complete", pair] for pair in pairs}
    assert (ratios["m0", "m1"] + ratios["m1", "m2"]) / 2 > 1.08
    assert 0.85 < ratios["m0", "m2"] < 1.2
    np.testing.assert_allclose(result["m0", "m2"].probs, recovery["m0", "m2"].probs, atol=0.02)
    # the per-data-set noise of m1's pairs exists only where m1 was run
    sigma = result.idata.posterior["sigma"].sel(pair="m1 - m0").values
    assert np.isfinite(sigma[..., :5]).all() and np.isnan(sigma[..., 5:]).all()
    table = result.per_dataset
    assert not table[(table.model == "m1") & (table.dataset == "set 5")]["run"].item()
    np.testing.assert_allclose(result.p_best.sum(), 1.0)
    # a fit that failed its checks says so above its numbers and in the report's caption
    failed = copy.copy(result)
    failed.diagnostics = {**result.diagnostics, "divergences": 3}
    assert not failed.converged and failed.problems
    assert (
        failed.summary()
        .splitlines()[1]
        .startswith(
            "NOT CONVERGED: the numbers below are not fit for decisions (3 divergent transitions"
        )
    )
    assert "NOT CONVERGED" in failed.ranking_caption


def test_compare_joint_with_missing_rows_end_to_end(joint_engine):
    """compare(method="joint") on a tidy frame lacking rows: a model missing on two data sets and
    a data set with one model left (dropped with a warning); bad input says how to fix it."""
    from bayes_hier import compare

    frame = _simulated_frame([0.0, 0.5, 1.0, 1.5], q=8, spread=0.5, seed=4)
    frame = frame[~((frame.model == "m3") & frame.dataset.isin(["set 1", "set 4"]))]
    frame = frame[~((frame.dataset == "set 6") & (frame.model != "m0"))]
    small = {"chains": 1, "draws": 200, "warmup": 200, "engine": "pystan", "warn": False}
    with pytest.warns(MissingDataWarning, match=r"fewer than 2 models.*'set 6'"):
        result = compare(frame, rope=0.5, method="joint", seed=3, **small)
    assert result.data.datasets == tuple(f"set {i}" for i in (0, 1, 2, 3, 4, 5, 7))
    assert len(result.pairs) == 6 and result.rank_probabilities.shape == (4, 4)
    usage = result.usage["m0", "m3"]
    assert set(usage.dropped) == {"set 1", "set 4"} and len(usage.datasets) == 5
    assert result["m0", "m1"].cv.q == 7
    assert "run on only some data sets (how many): m3 (5)" in str(result)
    # m1 lacking 3 of set 2's 10 folds: 3 models x 10 folds beat 4 models x 7 folds, so m1 is
    # left out there (the paired block), with a warning that says so
    holes = frame.index[(frame.dataset == "set 2") & (frame.model == "m1")][:3]
    with pytest.warns(MissingDataWarning, match=r"set 2: m1 lacks 3 of 10 folds; left out there"):
        cut = compare(frame.drop(holes), rope=0.5, method="joint", seed=3, **small)
    assert cut.usage["m0", "m1"].dropped["set 2"] == (
        "m1 lacks 3 of 10 folds (left out of the paired block)"
    )
    assert "set 2" not in result.usage["m0", "m1"].dropped
    assert cut.usage["m0", "m3"].dropped == {
        "set 1": "no scores for m3",
        "set 4": "no scores for m3",
    }
    assert cut.data.observed.sum() == result.data.observed.sum() - 1
    # a model lacking one fold: the data set keeps its 9 common folds, 1 cell left out
    one = frame.index[(frame.dataset == "set 5") & (frame.model == "m2")][:1]
    with pytest.warns(MissingDataWarning, match=r"set 5: m2 lacks 1 of 10 folds; used on the 9"):
        cut = compare(frame.drop(one), rope=0.5, method="joint", seed=3, **small)
    assert cut.usage["m0", "m1"].partial == {"set 5": 1}
    assert cut.usage["m0", "m1"].folds["set 5"] == 9
    alone = frame[frame.model == "m0"].assign(
        model=np.where(frame[frame.model == "m0"].dataset == "set 0", "m0", "m1")
    )
    with pytest.raises(ValueError, match="No data set has scores for at least 2 of the models"):
        compare(alone, rope=0.5, method="joint", seed=3, **small)
