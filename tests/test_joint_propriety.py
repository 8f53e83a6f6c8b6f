"""The joint model's proper prior of Σ₀: every number of data sets from 2 has a proper posterior;
one data set is refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from bayes_hier.joint.model_input import JointPrior
from bayes_hier.joint.propriety import MINIMUM_DATASETS, check_enough_datasets


def test_two_data_sets_are_accepted_and_one_refused():
    assert MINIMUM_DATASETS == 2
    check_enough_datasets(2)
    with pytest.raises(ValueError, match=r"at least 2 data sets; got 1\..*correlated_t"):
        check_enough_datasets(1)


@pytest.mark.parametrize("q", [2, 3, 4])
def test_one_contrast_the_population_scale_has_a_finite_posterior_mass(q):
    # d = 1, theta0 integrated out, noise negligible: the likelihood of the population scale is
    # sigma0^-(q-1) exp(-S / (2 sigma0^2)). Under the old flat prior its mass beyond 10 grew
    # like log(upper) at q = 2; times the half-normal(0, 2) prior it converges, for every q.
    scatter = 1.0
    prior = stats.halfnorm(scale=2.0)

    def mass(upper: float) -> float:  # flat prior, over log sigma0 (smooth integrand)
        def integrand(u: float) -> float:
            return np.exp(u) ** -(q - 2) * np.exp(-scatter / (2 * np.exp(2 * u)))

        return integrate.quad(integrand, np.log(10.0), np.log(upper), limit=200)[0]

    # sigma0 >= 10: the kernel is at most 10^-(q-1), so the mass is at most that times the tail
    tail = integrate.quad(lambda s: s ** -(q - 1) * np.exp(-scatter / (2 * s**2)) * prior.pdf(s),
                          10.0, np.inf)[0]  # fmt: skip
    assert 0 < tail <= prior.sf(10.0) * 10.0 ** -(q - 1)
    if q == 2:  # the old prior: improper
        assert mass(1e8) - mass(1e4) == pytest.approx(np.log(1e4), rel=1e-3)


def test_the_prior_of_sigma0_is_checked():
    assert JointPrior().stan_data()["population_corr_shape"] == 2.0
    assert JointPrior(population_sd_scale=1).stan_data()["population_sd_scale"] == 1.0
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(
            ValueError, match="population_sd_scale must be a finite positive number"
        ):
            JointPrior(population_sd_scale=bad)
    for bad in ("2", True):
        with pytest.raises(TypeError, match="population_corr_shape must be a positive number"):
            JointPrior(population_corr_shape=bad)


def test_joint_test_refuses_one_data_set_before_sampling():
    from bayes_hier.joint import joint_test

    rng = np.random.default_rng(0)
    rows = [
        ("d0", model, 1, fold, 80 + rng.normal()) for model in ("a", "b", "c") for fold in range(10)
    ]
    frame = pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])
    with pytest.raises(ValueError, match="at least 2 data sets"):
        joint_test(frame, rope=0.5, engine="no such engine")
