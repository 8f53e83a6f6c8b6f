"""The Student-t population as a scale mixture, in the sampler's standardised coordinates."""

import numpy as np
import pytest
from scipy import integrate, stats

from bayes_hier.hierarchical.scale_mixture import (
    log_gamma_from_standardised,
    nu_from_standardised,
    standardised_log_gamma_log_density,
    tau_from_standardised,
)


@pytest.mark.parametrize(("shape", "rate"), [(0.5, 0.5), (2.0, 0.1), (25.0, 25.0), (0.7, 0.05)])
def test_standardised_log_gamma_has_mean_0_and_sd_1(shape, rate):
    gamma = stats.gamma(shape, scale=1 / rate)
    mean_log = gamma.expect(np.log)
    sd_log = np.sqrt(gamma.expect(lambda g: (np.log(g) - mean_log) ** 2))
    assert log_gamma_from_standardised(0.0, shape, rate) == pytest.approx(mean_log, rel=1e-6)
    assert log_gamma_from_standardised(1.0, shape, rate) - mean_log == pytest.approx(
        sd_log, rel=1e-6
    )


@pytest.mark.parametrize(("shape", "rate"), [(0.5, 0.5), (3.0, 0.1)])
def test_density_of_the_standardised_value_is_a_density(shape, rate):
    """The change of variables g -> z keeps the mass: the Jacobian g * s is right."""
    total, _ = integrate.quad(
        lambda z: np.exp(standardised_log_gamma_log_density(z, shape, rate)), -30, 30
    )
    assert total == pytest.approx(1.0, abs=1e-8)


@pytest.mark.parametrize("nu", [1.0, 2.5, 30.0])
def test_normal_mixed_over_gamma_precisions_is_student_t(nu):
    """delta | tau ~ N(d0, s0^2 / tau), tau ~ Gamma(nu/2, nu/2)  =>  delta ~ t(nu, d0, s0)."""
    d0, s0 = 0.3, 0.7
    for point in (-2.0, 0.1, 4.0):
        mixed, _ = integrate.quad(
            lambda z, point=point: (
                stats.norm.cdf((point - d0) * np.sqrt(tau_from_standardised(z, nu)) / s0)
                * np.exp(standardised_log_gamma_log_density(z, nu / 2, nu / 2))
            ),
            -40,
            40,
            limit=200,
        )
        assert mixed == pytest.approx(stats.t(nu, d0, s0).cdf(point), abs=1e-8)


def test_nu_is_one_plus_the_gamma_variable():
    shape, rate = 2.0, 0.1
    z = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(
        nu_from_standardised(z, shape, rate) - 1,
        np.exp(log_gamma_from_standardised(z, shape, rate)),
    )
