"""The closed-form equicorrelated likelihood (user guide, Model and conventions §3.1) against
scipy's multivariate normal."""

import numpy as np
import pytest
from scipy import stats

from bayes_hier.hierarchical.likelihood import delta_full_conditional, equicorrelated_log_likelihood


@pytest.mark.parametrize(("n", "rho"), [(2, 0.5), (10, 0.1), (100, 0.1), (37, 0.33)])
def test_closed_form_equals_dense_multivariate_normal(n, rho):
    rng = np.random.default_rng(n)
    x = rng.normal(0.02, 0.05, n)
    for delta, sigma in [(0.0, 0.05), (0.03, 0.2), (-0.1, 0.01)]:
        cov = sigma**2 * ((1 - rho) * np.eye(n) + rho * np.ones((n, n)))
        expected = stats.multivariate_normal(np.full(n, delta), cov).logpdf(x)
        got = equicorrelated_log_likelihood(
            n, x.mean(), np.sum((x - x.mean()) ** 2), rho, delta, sigma
        )
        assert got == pytest.approx(expected, rel=1e-10)


def test_vectorised_over_data_sets():
    rng = np.random.default_rng(0)
    xs = [rng.normal(0, 1, n) for n in (5, 8, 13)]
    rho = np.array([0.2, 0.125, 0.1])
    delta, sigma = np.array([0.1, -0.2, 0.3]), np.array([1.0, 0.5, 2.0])
    got = equicorrelated_log_likelihood(
        [x.size for x in xs],
        [x.mean() for x in xs],
        [np.sum((x - x.mean()) ** 2) for x in xs],
        rho,
        delta,
        sigma,
    )
    for i, x in enumerate(xs):
        n = x.size
        cov = sigma[i] ** 2 * ((1 - rho[i]) * np.eye(n) + rho[i] * np.ones((n, n)))
        assert got[i] == pytest.approx(
            stats.multivariate_normal(np.full(n, delta[i]), cov).logpdf(x)
        )


def test_integrating_a_normal_delta_out_adds_its_variance_on_the_ones_direction():
    """∫ N(δ; δ0, v) L(δ, σ) dδ equals the likelihood of δ0 with the common variance v."""
    from scipy import integrate

    rng = np.random.default_rng(3)
    n, rho, sigma, delta0, v = 20, 0.1, 0.05, 0.01, 0.02**2
    x = rng.normal(0.03, sigma, n)
    stats_x = (n, x.mean(), np.sum((x - x.mean()) ** 2), rho)

    def joint(delta: float) -> float:
        log_lik = equicorrelated_log_likelihood(*stats_x, delta, sigma)
        return float(np.exp(log_lik + stats.norm(delta0, np.sqrt(v)).logpdf(delta)))

    scale = float(np.exp(equicorrelated_log_likelihood(*stats_x, x.mean(), sigma)))
    marginal, _ = integrate.quad(lambda d: joint(d) / scale, -0.5, 0.5, points=[x.mean()])
    expected = equicorrelated_log_likelihood(*stats_x, delta0, sigma, common_variance=v)
    assert np.log(marginal * scale) == pytest.approx(expected, rel=1e-9)
    cov = sigma**2 * ((1 - rho) * np.eye(n) + rho * np.ones((n, n))) + v
    assert expected == pytest.approx(stats.multivariate_normal(np.full(n, delta0), cov).logpdf(x))


def test_full_conditional_of_delta_is_the_normalised_product_of_prior_and_likelihood():
    rng = np.random.default_rng(4)
    n, rho, sigma, delta0, v = 30, 0.1, 0.04, -0.01, 0.015**2
    x = rng.normal(0.02, sigma, n)
    grid = np.linspace(-0.2, 0.2, 40_001)
    log_post = equicorrelated_log_likelihood(
        n, x.mean(), np.sum((x - x.mean()) ** 2), rho, grid, sigma
    ) + stats.norm(delta0, np.sqrt(v)).logpdf(grid)
    weights = np.exp(log_post - log_post.max())
    weights /= weights.sum()
    grid_mean = np.sum(weights * grid)
    grid_variance = np.sum(weights * (grid - grid_mean) ** 2)
    mean, variance = delta_full_conditional(n, x.mean(), rho, sigma, delta0, v)
    assert mean == pytest.approx(grid_mean, rel=1e-8)
    assert variance == pytest.approx(grid_variance, rel=1e-6)


def test_full_conditional_with_a_degenerate_population_is_the_population_mean():
    mean, variance = delta_full_conditional(10, 0.3, 0.1, 1.0, 0.05, 0.0)
    assert mean == pytest.approx(0.05, rel=1e-15)
    assert variance == 0.0
