"""The joint model's Python layer without Stan: contrasts, likelihood, inputs, posterior maths."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from bayes_hier.hierarchical.model_input import ConstantDifferencesWarning
from bayes_hier.joint.contrasts import helmert_contrasts, pair_vectors
from bayes_hier.joint.data import MultiCVData
from bayes_hier.joint.likelihood import (
    inverse_wishart_draws,
    marginal_contrast_log_likelihood,
    noise_marginal,
    theta_given_mean_noise,
)
from bayes_hier.joint.model_input import (
    JointCalibrationPrior,
    JointPrior,
    build_joint_input,
    contrast_statistics,
    initial_values,
    observed_designs,
    perturb_ties,
)
from bayes_hier.joint.posterior import covariance_root, draw_theta_given_mean_noise
from bayes_hier.joint.propriety import check_models_seen_enough
from bayes_hier.rope import Rope
from bayes_hier.scores import MissingDataWarning, model_scores


def _blocks(k=3, sizes=(6, 8, 10, 6), seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(0.8, 0.02, (n, k)) + rng.normal(0, 0.01, k) for n in sizes]


def _data(blocks, runs=None, rho=None):
    q, k = len(blocks), blocks[0].shape[1]
    return MultiCVData(
        tuple(blocks),
        tuple("abcdefg"[:k]),
        tuple(f"set {i}" for i in range(q)),
        np.ones(q, int) if runs is None else np.asarray(runs),
        np.full(q, 0.1) if rho is None else np.asarray(rho, float),
    )


@pytest.mark.parametrize("k", [2, 3, 5])
def test_helmert_contrasts_are_orthonormal_and_orthogonal_to_one(k):
    contrasts = helmert_contrasts(k)
    np.testing.assert_allclose(contrasts @ contrasts.T, np.eye(k - 1), atol=1e-14)
    np.testing.assert_allclose(contrasts @ np.ones(k), 0, atol=1e-14)
    np.testing.assert_allclose(contrasts.T @ contrasts, np.eye(k) - 1 / k, atol=1e-14)


def test_two_model_contrast_is_the_difference_over_root_two():
    np.testing.assert_allclose(helmert_contrasts(2), [[-(0.5**0.5), 0.5**0.5]])
    x = np.array([[0.8, 0.83], [0.79, 0.85]])
    np.testing.assert_allclose(x @ helmert_contrasts(2).T, (x[:, [1]] - x[:, [0]]) / 2**0.5)


def test_permuting_models_is_an_orthogonal_map_of_the_contrasts():
    """C Pᵀ = Q C with Q = C Pᵀ Cᵀ orthogonal: why invariant priors make the model invariant."""
    contrasts = helmert_contrasts(4)
    for permutation in itertools.permutations(range(4)):
        p = np.eye(4)[list(permutation)]
        q = contrasts @ p.T @ contrasts.T
        np.testing.assert_allclose(q @ q.T, np.eye(3), atol=1e-13)
        np.testing.assert_allclose(contrasts @ p.T, q @ contrasts, atol=1e-13)


def test_pair_vectors_give_model_differences():
    contrasts = helmert_contrasts(4)
    theta = np.array([0.3, -1.2, 0.7])
    effects = contrasts.T @ theta
    pairs = list(itertools.combinations(range(4), 2))
    np.testing.assert_allclose(
        pair_vectors(contrasts, pairs) @ theta, [effects[b] - effects[a] for a, b in pairs]
    )


def _kronecker_log_density(y, rho, theta0, population_cov, noise_cov):
    """scipy: vec(Y) ~ MVN(θ₀ ⊗ 1, Ω ⊗ R + V ⊗ 11ᵀ), columns stacked."""
    n = y.shape[0]
    r = (1 - rho) * np.eye(n) + rho * np.ones((n, n))
    cov = np.kron(noise_cov, r) + np.kron(population_cov, np.ones((n, n)))
    return stats.multivariate_normal(np.repeat(theta0, n), cov).logpdf(y.T.reshape(-1))


def test_closed_form_equals_the_literal_kronecker_normal():
    rng = np.random.default_rng(3)
    contrasts = helmert_contrasts(4)
    blocks = _blocks(k=4, sizes=(5, 7, 12))
    rho = np.array([0.2, 0.1, 0.3])
    ybar, scatter = contrast_statistics(blocks, contrasts)
    theta0 = rng.normal(0, 0.02, 3)
    root = rng.normal(0, 0.02, (3, 3, 3))
    noise = root @ np.swapaxes(root, 1, 2) + 1e-4 * np.eye(3)
    population = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.5]]) * 1e-4
    for v in (population, np.zeros((3, 3))):
        closed = marginal_contrast_log_likelihood([5, 7, 12], rho, ybar, scatter, theta0, v, noise)
        literal = [
            _kronecker_log_density(block @ contrasts.T, rho[i], theta0, v, noise[i])
            for i, block in enumerate(blocks)
        ]
        np.testing.assert_allclose(closed, literal, rtol=1e-10)


def _noise_integral(block, rho, theta0, design, prior=None, draws=200_000, seed=0):
    """log of the integral over the noise covariance Ω of p(Y | θ, Ω) p(Ω), by importance
    sampling from Ω's law given the scatter alone (InvWishart(n − d − 1, S/a) under
    p(Ω) ∝ |Ω|^(−1/2); InvWishart(ν + n − 1, Ψ + S/a) under InvWishart(ν, Ψ)); the likelihood
    is :func:`marginal_contrast_log_likelihood` (the literal Kronecker normal: test above)."""
    rng = np.random.default_rng(seed)
    n, d = block.shape
    a = 1 - rho
    ybar = block.mean(axis=0)
    scatter = (block - ybar).T @ (block - ybar)
    if prior is None:
        proposal = stats.invwishart(n - d - 1, scatter / a)
    else:
        proposal = stats.invwishart(prior[0] + n - 1, prior[1] + scatter / a)
    omegas = proposal.rvs(draws, random_state=rng)
    log_lik = np.array(
        [
            marginal_contrast_log_likelihood(
                [n], [rho], [ybar], [scatter], theta0, np.zeros((1, d, d)), [omega], [design]
            )[0]
            for omega in omegas[:200]
        ]
    )
    # the weights' Omega-dependence is the normal density of ybar; all else is one constant,
    # which the first 200 draws give exactly: log p(Y|θ,Ω) + log p(Ω) − log q(Ω) − log N(ybar)
    b_over_n = (1 + (n - 1) * rho) / n
    residual = ybar - design @ theta0
    quadratic = np.einsum("i,nij,j->n", residual, np.linalg.inv(omegas), residual)
    log_normal = (
        -0.5 * d * np.log(2 * np.pi * b_over_n)
        - 0.5 * np.linalg.slogdet(omegas)[1]
        - 0.5 * quadratic / b_over_n
    )
    log_prior = (
        -0.5 * np.linalg.slogdet(omegas[:200])[1]
        if prior is None
        else stats.invwishart(*prior).logpdf(omegas[:200].T).T
    )
    constant = log_lik + log_prior - proposal.logpdf(omegas[:200].T).T - log_normal[:200]
    np.testing.assert_allclose(constant, constant[0], atol=1e-8)
    return constant[0] + special.logsumexp(log_normal) - np.log(draws)


@pytest.mark.parametrize("prior", [None, (6.0, np.array([[2.0, -0.4], [-0.4, 1.0]]))])
def test_integrating_the_noise_out_leaves_the_student_t_of_noise_marginal(prior):
    """∫ p(Y_i | θ, Ω) p(Ω) dΩ, by importance sampling, is the multivariate t density of ȳ_i with
    noise_marginal's df and scale times one constant, at three θ that move the density by a
    factor of about 30 (tolerance 0.03 on the log: the Monte Carlo error of 200 000 weights)."""
    rng = np.random.default_rng(11)
    n, rho = 9, 0.15
    block = rng.normal(size=(n, 2)) @ np.array([[1.0, 0.0], [0.6, 0.8]])
    ybar = block.mean(axis=0)
    scatter = (block - ybar).T @ (block - ybar)
    args = () if prior is None else (np.array([prior[0]]), prior[1][None])
    df, mean_noise = noise_marginal([n], [rho], scatter[None], [2], *args)
    assert df[0] == (n - 4 if prior is None else prior[0] + n - 2)
    design = np.eye(2)
    differences = []
    for theta in (ybar, ybar + np.array([0.4, -0.2]), ybar - np.array([0.3, 0.5])):
        integral = _noise_integral(block, rho, theta, design, prior)
        student = stats.multivariate_t(theta, mean_noise[0], df=df[0]).logpdf(ybar)
        differences.append(integral - student)
    assert np.ptp([d for d in differences]) < 0.03


def test_noise_marginal_refuses_too_few_results():
    """df_i = n − 2d_i must be at least 1; the padded scale is the identity beyond d_i."""
    scatter = np.diag([2.0, 3.0, 0.0])[None]
    with pytest.raises(ValueError, match=r"2d \+ 1 results"):
        noise_marginal([4], [0.1], scatter, [2])
    df, scale = noise_marginal([5], [0.1], scatter, [2])
    assert df[0] == 1
    b_over_n = (1 + 4 * 0.1) / 5
    np.testing.assert_allclose(scale[0], np.diag([2.0 * b_over_n / 0.9, 3.0 * b_over_n / 0.9, 1]))


def test_inverse_wishart_draws_have_scipys_moments():
    """Bartlett draws: mean B/(ν − d − 1) and Var(Ω_11) = 2B_11²/((ν − d − 1)²(ν − d − 3)) of
    scipy's inverse Wishart, within 5 Monte Carlo standard errors, for two (ν, B) at once."""
    rng = np.random.default_rng(2)
    scale = np.array([[[2.0, 0.5, 0.1], [0.5, 1.0, -0.3], [0.1, -0.3, 0.7]], np.eye(3) * 0.5])
    df = np.array([9.0, 12.0])
    draws = inverse_wishart_draws(np.broadcast_to(df, (40_000, 2)), scale, rng)
    for j in range(2):
        reference = stats.invwishart(df[j], scale[j])
        sample = draws[:, j]
        sd = np.sqrt(np.var(sample, axis=0) / len(sample))
        assert np.all(np.abs(sample.mean(axis=0) - reference.mean()) < 5 * sd)
        variance = 2 * scale[j, 0, 0] ** 2 / ((df[j] - 4) ** 2 * (df[j] - 6))
        assert abs(np.var(sample[:, 0, 0]) / variance - 1) < 0.15
        np.testing.assert_allclose(sample, np.swapaxes(sample, -1, -2))


def test_theta_conditional_matches_the_precision_form():
    rng = np.random.default_rng(4)
    d = 3
    a = rng.normal(size=(d, d))
    v = a @ a.T + np.eye(d)
    b = rng.normal(size=(d, d))
    omega = b @ b.T + np.eye(d)
    ybar, theta0, n, rho = rng.normal(size=d), rng.normal(size=d), 20, 0.1
    w = (1 + (n - 1) * rho) / n * omega
    precision = np.linalg.inv(v) + np.linalg.inv(w)
    expected_cov = np.linalg.inv(precision)
    expected_mean = expected_cov @ (np.linalg.solve(v, theta0) + np.linalg.solve(w, ybar))
    mean, cov = theta_given_mean_noise(ybar, theta0, v, w)
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-10)
    np.testing.assert_allclose(cov, expected_cov, rtol=1e-10)
    # a singular population covariance (V = 0) gives the population mean exactly
    mean, cov = theta_given_mean_noise(ybar, theta0, np.zeros((d, d)), w)
    np.testing.assert_allclose(mean, theta0)
    np.testing.assert_allclose(cov, 0, atol=1e-15)
    # V + W singular (V = diag(1, 0, 0), W = diag(0, 0, w)): θ_1 is ȳ_1 exactly (no noise), the
    # others θ₀ (no population spread); the pseudo-inverse gives that limit instead of an error
    singular_v, singular_w = np.diag([1.0, 0.0, 0.0]), np.diag([0.0, 0.0, 2.0])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.solve(singular_v + singular_w, singular_v)
    mean, cov = theta_given_mean_noise(ybar, theta0, singular_v, singular_w)
    np.testing.assert_allclose(mean, [ybar[0], theta0[1], theta0[2]], rtol=1e-12)
    np.testing.assert_allclose(cov, 0, atol=1e-15)


def test_covariance_root_is_cholesky_or_the_clipped_symmetric_root():
    """RRᵀ = cov: the Cholesky factor of positive definite matrices; where one matrix of the
    stack has a (rounding-size) negative eigenvalue, as conditional covariances from draws of very
    different scales can, the symmetric root of the matrix with that eigenvalue set to 0, and a
    singular covariance (V = 0 above) gives zero draws instead of an error."""
    rng = np.random.default_rng(5)
    a = rng.normal(size=(3, 4, 4))
    positive = a @ np.swapaxes(a, -1, -2) + np.eye(4)
    np.testing.assert_array_equal(covariance_root(positive), np.linalg.cholesky(positive))
    vectors = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    eigenvalues = np.array([1e6, 1.0, 1e-3, -1e-10])
    stack = np.stack([positive[0], vectors @ np.diag(eigenvalues) @ vectors.T])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(stack)
    root = covariance_root(stack)
    clipped = vectors @ np.diag(np.clip(eigenvalues, 0, None)) @ vectors.T
    np.testing.assert_allclose(root[0] @ root[0].T, positive[0], rtol=1e-12)
    np.testing.assert_allclose(root[1] @ root[1].T, clipped, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(covariance_root(np.zeros((2, 3, 3))), 0)


def _frame(blocks, models=("a", "b", "c"), runs=1):
    rows = []
    for i, block in enumerate(blocks):
        for j in range(block.shape[0]):
            for a, model in enumerate(models):
                per_run = block.shape[0] // runs
                rows.append((f"set {i}", model, j // per_run, j % per_run, block[j, a]))
    return pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])


def test_multi_cv_data_from_the_tidy_input_of_compare():
    blocks = _blocks(sizes=(10, 20, 10))
    frame = _frame(blocks, runs=2)
    data = MultiCVData.from_scores(model_scores(frame), higher_is_better=False)
    assert data.models == ("a", "b", "c") and data.q == 3 and list(data.n) == [10, 20, 10]
    np.testing.assert_array_equal(data.runs, [2, 2, 2])
    np.testing.assert_allclose(data.rho, [0.2, 0.1, 0.2])  # 1 / folds per run
    for mine, block in zip(data.scores, blocks):
        np.testing.assert_allclose(mine, -block)  # lower is better: negated
    chosen = MultiCVData.from_scores(model_scores(frame, models=["c", "a"]))
    np.testing.assert_allclose(chosen.scores[1], blocks[1][:, [2, 0]])


def _without(frame, dataset, model):
    return frame[~((frame.dataset == dataset) & (frame.model == model))]


def test_a_model_missing_on_a_data_set_is_a_nan_block():
    blocks = _blocks(sizes=(6, 8, 6))
    frame = _without(_frame(blocks), "set 1", "b")
    data = MultiCVData.from_scores(model_scores(frame))
    np.testing.assert_array_equal(data.observed, [[1, 1, 1], [1, 0, 1], [1, 1, 1]])
    assert not data.complete and np.isnan(data.scores[1][:, 1]).all()
    np.testing.assert_allclose(data.scores[1][:, [0, 2]], blocks[1][:, [0, 2]])
    # the {model: matrix} form: a NaN row is a model missing on that data set
    matrices = {
        m: np.array([b[:, a] for b in _blocks(sizes=(6, 6, 6))]) for a, m in enumerate("abc")
    }
    matrices["c"][2] = np.nan
    data = MultiCVData.from_scores(model_scores(matrices))
    np.testing.assert_array_equal(data.observed[:, 2], [True, True, False])


def test_a_nan_inside_a_block_is_an_error_that_says_how_to_fix_it():
    frame = _frame(_blocks(sizes=(6, 6, 6)))
    holes = frame.index[(frame.dataset == "set 1") & (frame.model == "b")][:2]
    with pytest.raises(ValueError, match=r"'set 1': model 'b' lacks 2 of its 6 fold.*remove all"):
        MultiCVData.from_scores(model_scores(frame.drop(holes)))
    frame.loc[holes, "score"] = np.nan
    with pytest.raises(ValueError, match=r"model 'b' lacks 2 of its 6"):
        MultiCVData.from_scores(model_scores(frame))
    blocks = _blocks(sizes=(6, 6, 6))
    blocks[0][3, 1] = np.nan
    with pytest.raises(ValueError, match=r"model 'b' lacks 1 of its 6"):
        _data(blocks)


def test_data_sets_with_one_model_are_dropped_with_a_warning():
    frame = _frame(_blocks(sizes=(6, 6, 6, 6)), runs=1)
    frame = _without(_without(frame, "set 2", "a"), "set 2", "c")
    with pytest.warns(MissingDataWarning, match=r"fewer than 2 models.*'set 2'"):
        data = MultiCVData.from_scores(model_scores(frame), rho=[0.1, 0.2, 0.3, 0.4])
    assert data.datasets == ("set 0", "set 1", "set 3")
    np.testing.assert_allclose(data.rho, [0.1, 0.2, 0.4])
    lone = frame[frame.model == "b"].assign(
        model=lambda f: np.where(f.dataset == "set 0", "a", "b")
    )
    lone = lone[lone.dataset.isin(["set 0", "set 1"])]
    with pytest.raises(ValueError, match="No data set has scores for at least 2 of the models"):
        MultiCVData.from_scores(model_scores(lone))


def test_statistics_of_a_data_set_use_the_contrasts_of_its_observed_models():
    blocks = _blocks(k=4, sizes=(6, 8, 7, 9, 6))
    blocks[1][:, 2] = np.nan
    blocks[3][:, [0, 3]] = np.nan
    contrasts = helmert_contrasts(4)
    means, scatters = contrast_statistics(blocks, contrasts)
    y = blocks[1][:, [0, 1, 3]] @ helmert_contrasts(3).T
    np.testing.assert_allclose(means[1], [*y.mean(axis=0), 0])
    np.testing.assert_allclose(scatters[1][:2, :2], (len(y) - 1) * np.cov(y, rowvar=False))
    np.testing.assert_array_equal(scatters[1][2], 0)
    y = blocks[3][:, [1, 2]] @ helmert_contrasts(2).T
    np.testing.assert_allclose(means[3], [y.mean(), 0, 0])
    full, _ = contrast_statistics([blocks[0]], contrasts)
    np.testing.assert_allclose(full[0], (blocks[0] @ contrasts.T).mean(axis=0))
    # M_i maps θ to the mean of the observed contrasts: C_i x_observed = M_i C x for every x
    sizes, design = observed_designs(contrasts, np.isfinite(np.array([b[0] for b in blocks])))
    np.testing.assert_array_equal(sizes, [3, 2, 3, 1, 3])
    x = np.random.default_rng(0).normal(size=4)
    np.testing.assert_allclose(design[1][:2] @ contrasts @ x, helmert_contrasts(3) @ x[[0, 1, 3]])
    np.testing.assert_allclose(design[0], np.eye(3))


def _literal_observed_log_likelihood(block, rho, theta0, population_cov, noise_cov):
    """scipy: the observed scores' own Helmert contrasts, vec ~ MVN with θ_i integrated out."""
    run = np.isfinite(block[0])
    own = helmert_contrasts(int(run.sum()))
    selection = np.eye(run.size)[run]
    design = own @ selection @ helmert_contrasts(run.size).T
    return _kronecker_log_density(
        block[:, run] @ own.T,
        rho,
        design @ theta0,
        design @ population_cov @ design.T,
        noise_cov,
    )


def test_deleting_a_model_on_one_data_set_changes_only_that_data_sets_term():
    """Same scale (fixed), same parameters: the other data sets' data and likelihood terms are
    unchanged, and the changed data set's term is the literal normal of its observed contrasts."""
    blocks = _blocks(k=4, sizes=(7, 8, 7, 9, 8), seed=2)
    rho = [0.1, 0.2, 0.15, 0.3, 0.1]
    lacking = [block.copy() for block in blocks]
    lacking[2][:, 1] = np.nan
    inputs = [
        build_joint_input(_data(b, rho=rho), Rope(-0.01, 0.01), JointPrior(), None, scale=0.01)
        for b in (blocks, lacking)
    ]
    full, partial = (model_input.data for model_input in inputs)
    others = [0, 1, 3, 4]
    for name in ("ybar", "noise_df", "mean_noise_root", "design"):
        np.testing.assert_array_equal(
            np.asarray(full[name])[others], np.asarray(partial[name])[others]
        )
    assert partial["observed"] == [3, 3, 2, 3, 3]
    # the changed data set's Student-t: df = n - 2 d_i, V from its own contrasts' scatter
    own = helmert_contrasts(3)
    y = inputs[1].scores[2][:, [0, 2, 3]] @ own.T
    n, rho_2 = 7, rho[2]
    scatter = (y - y.mean(axis=0)).T @ (y - y.mean(axis=0))
    assert partial["noise_df"][2] == n - 4
    root = np.asarray(partial["mean_noise_root"][2])
    np.testing.assert_allclose(
        (root @ root.T)[:2, :2],
        (1 + (n - 1) * rho_2) / n * scatter / (1 - rho_2) / (n - 4),
        rtol=1e-12,
    )
    np.testing.assert_array_equal((root @ root.T)[2], [0, 0, 1])
    rng = np.random.default_rng(5)
    theta0 = rng.normal(0, 1, 3)
    population = np.array([[1.0, 0.3, 0.0], [0.3, 2.0, 0.4], [0.0, 0.4, 0.5]])
    root = np.tril(rng.normal(0, 0.3, (5, 3, 3))) + np.eye(3)
    noise = root @ np.swapaxes(root, 1, 2)
    terms = []
    for model_input in inputs:
        means, scatters = contrast_statistics(model_input.scores, helmert_contrasts(4))
        m, design = observed_designs(
            helmert_contrasts(4), np.isfinite(np.array([b[0] for b in model_input.scores]))
        )
        terms.append(
            marginal_contrast_log_likelihood(
                model_input.data["n"],
                model_input.data["rho"],
                [y[:size] for y, size in zip(means, m)],
                [s[:size, :size] for s, size in zip(scatters, m)],
                theta0,
                population,
                [o[:size, :size] for o, size in zip(noise, m)],
                [x[:size] for x, size in zip(design, m)],
            )
        )
    np.testing.assert_array_equal(terms[0][others], terms[1][others])
    assert abs(terms[0][2] - terms[1][2]) > 0.1
    for model_input, term in zip(inputs, terms):
        block = model_input.scores[2]
        omega = noise[2][
            : int(np.isfinite(block[0]).sum()) - 1, : int(np.isfinite(block[0]).sum()) - 1
        ]
        literal = _literal_observed_log_likelihood(block, rho[2], theta0, population, omega)
        np.testing.assert_allclose(term[2], literal, rtol=1e-10)


def test_matheron_draws_of_theta_follow_the_full_conditional():
    """Draws by Matheron's rule have the mean and covariance of theta_given_mean_noise: 40 000
    draws, one data set with every model and one with a model missing (padded), with and
    without a design; means within 4.5 standard errors, covariances within 0.03 of the sd
    product (about 6 Monte Carlo standard errors)."""
    rng = np.random.default_rng(11)
    draws, d = 40_000, 3
    a = rng.normal(size=(d, d))
    population = a @ a.T + 0.5 * np.eye(d)
    inverse_tau = np.array([0.7, 1.6])
    omega = np.array([[1.5, 0.4], [0.4, 0.8]])
    missing = helmert_contrasts(3) @ np.eye(4)[[0, 1, 3]] @ helmert_contrasts(4).T
    design = np.stack([np.eye(d), np.vstack([missing, np.zeros(d)])])
    b = rng.normal(size=(d, d))
    noise = np.stack([b @ b.T + 0.3 * np.eye(d), np.eye(d)])
    noise[1, :2, :2] = omega
    ybar = np.stack([rng.normal(size=d), np.append(rng.normal(size=2), 0.0)])
    theta0 = rng.normal(size=d)

    def stacked(x: np.ndarray) -> np.ndarray:
        return np.broadcast_to(x, (draws, *x.shape))

    # with the design, both data sets; without it (the identity), the complete one
    for design_argument, used in ((design, 2), (None, 1)):
        got = draw_theta_given_mean_noise(
            ybar[:used],
            stacked(theta0),
            stacked(population),
            stacked(inverse_tau[:used]),
            stacked(noise[:used]),
            np.random.default_rng(5),
            design_argument,
        )
        for i in range(used):
            mean, cov = theta_given_mean_noise(
                ybar[i], theta0, population * inverse_tau[i], noise[i], design[i]
            )
            sd = np.sqrt(np.diag(cov))
            assert np.all(np.abs(got[:, i].mean(axis=0) - mean) < 4.5 * sd / np.sqrt(draws))
            np.testing.assert_allclose(np.cov(got[:, i].T), cov, atol=0.03 * sd.max() ** 2)


def test_theta_conditional_with_missing_models_matches_the_precision_form():
    """θ_i | ȳ_i with ȳ_i | θ_i ~ N(Mθ_i, W): precision V⁻¹ + MᵀW⁻¹M; padding changes nothing."""
    rng = np.random.default_rng(7)
    a = rng.normal(size=(3, 3))
    v = a @ a.T + np.eye(3)
    omega = np.array([[1.5, 0.4], [0.4, 0.8]])
    design = helmert_contrasts(3) @ np.eye(4)[[0, 1, 3]] @ helmert_contrasts(4).T
    ybar, theta0, n, rho = rng.normal(size=2), rng.normal(size=3), 10, 0.1
    w = (1 + (n - 1) * rho) / n * omega
    cov = np.linalg.inv(np.linalg.inv(v) + design.T @ np.linalg.solve(w, design))
    mean = cov @ (np.linalg.solve(v, theta0) + design.T @ np.linalg.solve(w, ybar))
    got = theta_given_mean_noise(ybar, theta0, v, w, design)
    np.testing.assert_allclose(got[0], mean, rtol=1e-10)
    np.testing.assert_allclose(got[1], cov, rtol=1e-10)
    padded = theta_given_mean_noise(
        np.append(ybar, 0.0),
        theta0,
        v,
        np.block([[w, np.zeros((2, 1))], [np.zeros((1, 2)), np.eye(1)]]),
        np.vstack([design, np.zeros(3)]),
    )
    np.testing.assert_allclose(padded[0], mean, rtol=1e-10)
    np.testing.assert_allclose(padded[1], cov, rtol=1e-10)


def test_models_never_run_together_are_an_error_and_rare_models_a_warning():
    blocks = _blocks(k=4, sizes=(6,) * 6)
    for i in range(3):
        blocks[i][:, [2, 3]] = np.nan  # a, b on sets 0-2
        blocks[i + 3][:, [0, 1]] = np.nan  # c, d on sets 3-5
    with pytest.raises(
        ValueError, match=r"\['a', 'b'\] and \['c', 'd'\] are never run on a common"
    ):
        build_joint_input(_data(blocks), Rope(-0.01, 0.01), JointPrior(), None)
    blocks = _blocks(k=3, sizes=(6,) * 5)
    for i in range(2, 5):
        blocks[i][:, 2] = np.nan
    # the Stan input itself takes a rare model (the calibration prior is proper) ...
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model_input = build_joint_input(_data(blocks), Rope(-0.01, 0.01), JointPrior(), None)
    assert model_input.data["observed"] == [2, 2, 1, 1, 1]
    np.testing.assert_array_equal(model_input.observed[:, 2], [1, 1, 0, 0, 0])


def _sparse_frame(present: int, q: int = 8, folds: int = 4) -> pd.DataFrame:
    """Models A, B on q data sets and C on the first ``present`` of them."""
    rng = np.random.default_rng(0)
    rows = [
        {"dataset": f"d{i}", "model": m, "run": 0, "fold": f, "score": rng.normal(0.8, 0.01)}
        for i in range(q)
        for f in range(folds)
        for m in "ABC"
        if m != "C" or i < present
    ]
    return pd.DataFrame(rows)


def test_joint_test_refuses_a_model_run_on_one_data_set():
    """joint_test needs every model on 2 data sets (propriety.py): the refusal names the model,
    its count and the fix, before any sampling."""
    from bayes_hier import compare, joint_test

    expected = r"every model run on at least 2 data sets.*'C' \(1\).*models=\['A', 'B'\]"
    with pytest.raises(ValueError, match=expected):
        joint_test(_sparse_frame(1), rope=0.01, seed=1, engine="pystan")
    with pytest.raises(ValueError, match=expected):
        compare(_sparse_frame(1), rope=0.01, method="joint", seed=1, engine="pystan")


def test_the_per_model_minimum_is_two_data_sets():
    check_models_seen_enough([8, 8, 2], ["A", "B", "C"])
    with pytest.raises(ValueError, match=r"'c' \(1\), 'd' \(0\).*Leave them out \(models="):
        check_models_seen_enough([5, 5, 1, 0], ["a", "b", "c", "d"])
    with pytest.raises(ValueError, match=r"'a' \(1\), 'c' \(1\)\..*Add data sets where every"):
        check_models_seen_enough([1, 8, 1], ["a", "b", "c"])


def test_ties_get_a_deterministic_mean_preserving_spread():
    blocks = _blocks(k=4, sizes=(10, 10, 10, 10))
    blocks[1][:, 2] = blocks[1][:, 0] + 0.01  # c ties with a on set 1
    blocks[2][:, 1] = blocks[2][:, 0]  # b ties with a on set 2 ...
    blocks[2][:, 3] = blocks[2][:, 1]  # ... and d with both
    data = _data(blocks)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, labels = perturb_ties(data, Rope(-0.01, 0.01), np.random.default_rng(1))
    # one warning for all the ties (not one per model), grouped by data set
    assert [w.category for w in caught] == [ConstantDifferencesWarning]
    assert str(caught[0].message).startswith(
        "3 pair(s) of models have the same difference on every fold of 2 data set(s): "
        "set 2 (a vs b, a vs d); set 1 (a vs c). Their variance would be 0"
    )
    assert "spread of ±0.01 (half the rope width)" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        second, _ = perturb_ties(data, Rope(-0.01, 0.01), np.random.default_rng(1))
    assert labels == ("set 2: a vs b", "set 1: a vs c", "set 2: a vs d")
    for mine, again, block in zip(first, second, blocks):
        np.testing.assert_array_equal(mine, again)
        np.testing.assert_allclose(mine.mean(axis=0), block.mean(axis=0), atol=1e-15)
        assert np.all(np.abs(mine - block) <= 0.01)
    _, scatter = contrast_statistics(first, helmert_contrasts(4))
    assert np.linalg.eigvalsh(scatter).min() > 0


def test_model_input_rescales_and_chooses_unit_bases():
    blocks = _blocks(sizes=(6, 8, 10, 6))
    data = _data(blocks, runs=[1, 2, 1, 1], rho=[0.1, 0.2, 0.15, 0.3])
    model_input = build_joint_input(data, Rope(-0.01, 0.01), JointPrior(), None)
    stan = model_input.data
    assert stan["observed"] == [2, 2, 2, 2] and stan["calibration_prior"] == 0
    np.testing.assert_array_equal(stan["design"], np.broadcast_to(np.eye(2), (4, 2, 2)))
    n, a = np.array(stan["n"]), 1 - stan["rho"]
    b = 1 + (n - 1) * stan["rho"]
    _, scatter = contrast_statistics(model_input.scores, helmert_contrasts(3))
    scatter_sd = np.sqrt(np.trace(scatter, axis1=1, axis2=2) / ((n - 1) * 2))
    np.testing.assert_allclose(scatter_sd.mean(), 1.0)  # unit scale
    # the Student-t of ybar_i | theta_i with Omega_i integrated out: df = n - 2d, V below
    np.testing.assert_array_equal(stan["noise_df"], n - 4)
    root = stan["mean_noise_root"]
    np.testing.assert_allclose(
        root @ np.swapaxes(root, 1, 2), (b / n / a / (n - 4))[:, None, None] * scatter
    )
    ybar, _ = contrast_statistics(blocks, helmert_contrasts(3))
    np.testing.assert_allclose(stan["ybar"] * model_input.scale, ybar)
    assert model_input.rope == Rope(-0.01 / model_input.scale, 0.01 / model_input.scale)
    inits = initial_values(model_input, 3, np.random.default_rng(0))
    assert len(inits) == 3 and inits[0]["noise_weight_raw"].shape == (4,)


def test_too_few_data_sets_for_the_models_is_an_error():
    """The builder needs the 2 data sets that give the means a spread (propriety.py)."""
    rope, rng = Rope(-0.01, 0.01), np.random.default_rng(0)
    calibration = JointCalibrationPrior(1.0, 4.0, np.eye(2), 4.0, np.eye(2))
    two = build_joint_input(_data(_blocks(sizes=(6, 8))), rope, JointPrior(), rng, scale=1.0,
                            calibration=calibration)  # fmt: skip
    assert two.data["q"] == 2 and two.data["calibration_prior"] == 1
    basis = two.data["population_basis"]  # lower Cholesky factor of a positive definite spread
    assert np.all(np.diag(basis) > 0) and basis[0, 1] == 0
    with pytest.raises(ValueError, match="at least 2 data sets"):
        build_joint_input(_data(_blocks(sizes=(6,))), rope, JointPrior(), rng, scale=1.0,
                          calibration=calibration)  # fmt: skip


def test_compare_dispatches_method_joint_to_the_joint_model():
    """``compare(method="joint")`` reaches :func:`bayes_hier.joint.compare_joint` (registered by
    ``bayes_hier.joint``), whose argument check answers before any fit."""
    from bayes_hier import compare

    frame = pd.DataFrame(
        {
            "dataset": np.repeat(["d1", "d2", "d3"], 6),
            "model": np.tile(np.repeat(["a", "b", "c"], 2), 3),
            "fold": np.tile([0, 1], 9),
            "score": np.linspace(0.5, 0.9, 18),
        }
    )
    with pytest.raises(ValueError, match="control= is for pairwise methods"):
        compare(frame, rope=0.01, method="joint", control="a")


def test_too_few_folds_for_the_full_noise_is_a_clear_error():
    """4 models (d = 3 contrasts) need 2k - 1 = 7 results for the full noise: with n results
    the noise covariance integrates out to a Student-t with n - 2d degrees of freedom (none at
    6, an improper posterior below); the message names the data set and the fix, not a linear
    dependence."""
    blocks = _blocks(k=4, sizes=(8, 3, 7, 9, 7, 8, 7), seed=1)
    with pytest.raises(ValueError, match=r"'set 1' has 3 .* for 4 models.*at least 2k - 1 = 7"):
        build_joint_input(_data(blocks), Rope(-0.01, 0.01), JointPrior(), None, scale=0.01)
    blocks[1] = _blocks(k=4, sizes=(6,), seed=2)[0]
    with pytest.raises(ValueError, match=r"'set 1' has 6 .*noise='fold'"):
        build_joint_input(_data(blocks), Rope(-0.01, 0.01), JointPrior(), None, scale=0.01)
    blocks[1] = _blocks(k=4, sizes=(7,), seed=2)[0]
    model_input = build_joint_input(
        _data(blocks), Rope(-0.01, 0.01), JointPrior(), None, scale=0.01
    )
    assert model_input.data["noise_df"][1] == 1


def test_a_few_fold_study_needs_the_fold_level_noise():
    """The few-fold generator's 5 models x 20 data sets x 4 folds: Omega_i (4 x 4) cannot be
    estimated from 4 folds, so compare(method="joint", noise="full") refuses in one line with the
    data set and the fix, and noise="auto" chooses the fold-level noise."""
    from bayes_hier import compare
    from bayes_hier.few_fold import few_fold_study
    from bayes_hier.joint.fit import joint_data, noise_structure

    study = few_fold_study(5, 20, 4, seed=0)
    with pytest.raises(ValueError, match=r"'d000' has 4 .* for 5 models.*noise='fold'") as error:
        compare(study, rope=0.01, method="joint", noise="full", engine="pystan")
    assert "\n" not in str(error.value)
    assert noise_structure("auto", joint_data(model_scores(study), None, True)) == "fold"
