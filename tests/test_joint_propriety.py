"""The joint model refuses designs whose posterior is improper (q < 2k - 1 data sets)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate

from bayes_hier.joint.propriety import check_enough_datasets, minimum_datasets


@pytest.mark.parametrize("k", [2, 3, 4, 5, 16])
def test_the_boundary_is_two_k_minus_one(k):
    assert minimum_datasets(k) == 2 * k - 1
    check_enough_datasets(2 * k - 1, k)
    with pytest.raises(ValueError, match=rf"at least {2 * k - 1} data sets .*got {2 * k - 2}"):
        check_enough_datasets(2 * k - 2, k)


@pytest.mark.parametrize(("q", "proper"), [(2, False), (3, True), (4, True)])
def test_one_contrast_the_population_scale_integrates_exactly_from_three_data_sets(q, proper):
    # d = 1, theta0 integrated out, noise negligible: the posterior of sigma0 under the flat prior
    # of the module text is sigma0^-(q-1) exp(-S / (2 sigma0^2)). Its mass beyond sigma0 = 10
    # either grows without bound with the upper limit (q = 2: like log) or converges.
    scatter = 1.0

    def kernel(sigma):
        return sigma ** -(q - 1) * np.exp(-scatter / (2 * sigma**2))

    def mass(upper):  # over log sigma0, where the integrand is smooth
        return integrate.quad(lambda u: kernel(np.exp(u)) * np.exp(u), np.log(10.0), np.log(upper))[
            0
        ]

    growth = mass(1e8) - mass(1e4)
    if proper:
        assert growth < 1e-3
    else:
        assert growth == pytest.approx(np.log(1e4), rel=1e-3)


def test_joint_test_refuses_too_few_data_sets_before_sampling():
    from bayes_hier.joint import joint_test

    rng = np.random.default_rng(0)
    rows = [
        (f"d{i}", model, 1, fold, 80 + rng.normal())
        for i in range(4)
        for model in ("a", "b", "c")
        for fold in range(10)
    ]
    frame = pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])
    with pytest.raises(ValueError, match="needs at least 5 data sets"):
        joint_test(frame, rope=0.5, engine="no such engine")
