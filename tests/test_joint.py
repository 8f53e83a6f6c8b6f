"""The joint model's Python layer without Stan: contrasts, likelihood, inputs, posterior maths."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayes_hier.compare.tidy import model_scores
from bayes_hier.hierarchical.model_input import ConstantDifferencesWarning
from bayes_hier.joint.contrasts import helmert_contrasts, pair_vectors
from bayes_hier.joint.data import MultiCVData
from bayes_hier.joint.likelihood import marginal_contrast_log_likelihood, theta_full_conditional
from bayes_hier.joint.model_input import (
    JointPrior,
    build_joint_input,
    contrast_statistics,
    initial_values,
    perturb_ties,
)
from bayes_hier.rope import Rope


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


def test_theta_full_conditional_matches_the_precision_form():
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
    mean, cov = theta_full_conditional(n, rho, ybar, theta0, v, omega)
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-10)
    np.testing.assert_allclose(cov, expected_cov, rtol=1e-10)
    # a singular population covariance (V = 0) gives the population mean exactly
    mean, cov = theta_full_conditional(n, rho, ybar, theta0, np.zeros((d, d)), omega)
    np.testing.assert_allclose(mean, theta0)
    np.testing.assert_allclose(cov, 0, atol=1e-15)


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


def test_a_missing_model_is_a_clear_error():
    frame = _frame(_blocks(sizes=(6, 6, 6)))
    frame = frame[~((frame.dataset == "set 1") & (frame.model == "b"))]
    with pytest.raises(ValueError, match=r"lacks \['b'\].*missing models are not supported"):
        MultiCVData.from_scores(model_scores(frame))


def test_ties_get_a_deterministic_mean_preserving_spread():
    blocks = _blocks(k=4, sizes=(10, 10, 10, 10))
    blocks[1][:, 2] = blocks[1][:, 0] + 0.01  # c ties with a on set 1
    blocks[2][:, 1] = blocks[2][:, 0]  # b ties with a on set 2 ...
    blocks[2][:, 3] = blocks[2][:, 1]  # ... and d with both
    data = _data(blocks)
    with pytest.warns(ConstantDifferencesWarning):
        first, labels = perturb_ties(data, Rope(-0.01, 0.01), np.random.default_rng(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        second, _ = perturb_ties(data, Rope(-0.01, 0.01), np.random.default_rng(1))
    assert labels == ("set 2: b vs a", "set 1: c vs a", "set 2: d vs a")
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
    n, a = np.array(stan["n"]), 1 - stan["rho"]
    scatter_sd = np.sqrt(np.trace(stan["scatter"], axis1=1, axis2=2) / ((n - 1) * 2))
    np.testing.assert_allclose(scatter_sd.mean(), 1.0)  # unit scale
    basis = stan["noise_basis"]
    np.testing.assert_allclose(
        basis @ np.swapaxes(basis, 1, 2), stan["scatter"] / ((n - 1) * a)[:, None, None]
    )
    ybar, _ = contrast_statistics(blocks, helmert_contrasts(3))
    np.testing.assert_allclose(stan["ybar"] * model_input.scale, ybar)
    assert model_input.rope == Rope(-0.01 / model_input.scale, 0.01 / model_input.scale)
    inits = initial_values(model_input, 3, np.random.default_rng(0))
    assert len(inits) == 3 and inits[0]["noise_factor"].shape == (4, 2, 2)


def test_too_few_data_sets_for_the_models_is_an_error():
    with pytest.raises(ValueError, match="at least 3 data sets"):
        build_joint_input(_data(_blocks(sizes=(6, 6))), Rope(-0.01, 0.01), JointPrior(), None)


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
