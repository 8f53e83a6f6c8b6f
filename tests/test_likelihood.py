"""The closed-form equicorrelated likelihood (SPEC §3.1) against scipy's multivariate normal."""

import numpy as np
import pytest
from scipy import stats

from bayes_hier.hierarchical.likelihood import equicorrelated_log_likelihood


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
