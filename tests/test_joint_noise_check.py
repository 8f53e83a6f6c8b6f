"""The posterior predictive check of the joint model's fold noise (no Stan)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayes_hier.joint.noise_check import (
    misfit_message,
    noise_check_table,
    pair_scatters,
    predictive_p_values,
)

FOLDS = 5
RHO = 0.2


def _correlated_differences(sigma: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per data set, FOLDS differences ~ N(δ_i 1, σ_i² R), R = (1 − ρ)I + ρ11ᵀ."""
    root = np.linalg.cholesky((1 - RHO) * np.eye(FOLDS) + RHO * np.ones((FOLDS, FOLDS)))
    z = rng.standard_normal((sigma.size, FOLDS)) @ root.T
    return rng.normal(0, 1, (sigma.size, 1)) + sigma[:, None] * z


def test_pair_scatters_match_the_direct_sums():
    """T_iab = Σ_j (d_ij − d̄_i)² / (1 − ρ_i) with d = x_b − x_a; NaN where a model was not run."""
    rng = np.random.default_rng(1)
    first = rng.normal(size=(4, 3))
    second = rng.normal(size=(6, 3))
    second[:, 1] = np.nan  # model 1 not run on data set 2
    rho = np.array([0.25, 0.1])
    scatter, dof = pair_scatters([first, second], rho, [(0, 1), (0, 2), (2, 1)])
    d = first[:, 2] - first[:, 0]
    assert scatter[0, 1] == pytest.approx(((d - d.mean()) ** 2).sum() / 0.75)
    d = second[:, 2] - second[:, 0]
    assert scatter[1, 1] == pytest.approx(((d - d.mean()) ** 2).sum() / 0.9)
    assert np.isnan(scatter[1, 0]) and np.isnan(scatter[1, 2])
    np.testing.assert_array_equal(dof[0], [3, 3, 3])
    assert dof[1, 1] == 5


def _check(sigma_true: np.ndarray, factor: float, rng: np.random.Generator):
    differences = _correlated_differences(sigma_true, rng)
    scores = [np.column_stack([np.zeros(FOLDS), row]) for row in differences]
    scatter, dof = pair_scatters(scores, np.full(sigma_true.size, RHO), [(0, 1)])
    # every posterior "draw" at factor x the true sd: a posterior that has learnt the noise
    draws = np.tile(factor * sigma_true[None, :, None], (3, 1, 1))
    return scatter, dof, noise_check_table(scatter, dof, draws, [("a", "b")])


def test_a_fitting_noise_gives_uniform_p_values_and_a_ratio_near_one():
    """With the true σ as the posterior, T/σ² ~ χ²(n − 1) exactly: each tail holds 2.5 % of the
    data sets (4 Monte Carlo sd: 0.01 for 4000 data sets), the median ratio is 1 (its sampling
    sd about 0.007 here) and the pair is not flagged."""
    rng = np.random.default_rng(2)
    sigma = np.exp(rng.uniform(-6, -1, 4000))
    scatter, dof, table = _check(sigma, 1.0, rng)
    row = table.iloc[0]
    assert row.datasets == 4000
    assert row.share_overstated == pytest.approx(0.025, abs=0.01)
    assert row.share_understated == pytest.approx(0.025, abs=0.01)
    assert row.sd_ratio == pytest.approx(1.0, abs=0.03)
    assert not row.misfit
    p = predictive_p_values(scatter, dof, sigma[None, :, None])[:, 0]
    assert stats.kstest(p, "uniform").pvalue > 1e-3


def test_overstated_noise_is_flagged_by_the_closed_form_share():
    """With twice the true σ, p < 0.025 ⇔ T/σ² < 4 F⁻¹(0.025): a share F(4 F⁻¹(0.025)) of the
    data sets (0.089 with 4 degrees of freedom), the ratio halves and the pair is flagged."""
    rng = np.random.default_rng(3)
    sigma = np.exp(rng.uniform(-6, -1, 4000))
    _, _, table = _check(sigma, 2.0, rng)
    row = table.iloc[0]
    nu = FOLDS - 1
    expected_share = stats.chi2.cdf(4 * stats.chi2.ppf(0.025, nu), nu)
    assert row.share_overstated == pytest.approx(expected_share, abs=0.03)
    assert row.share_understated == 0.0
    assert row.sd_ratio == pytest.approx(0.5, abs=0.015)
    assert row.misfit


def test_level_must_be_a_probability():
    with pytest.raises(ValueError, match="level must be between 0 and 1"):
        noise_check_table(np.ones((1, 1)), np.ones((1, 1)), np.ones((2, 1, 1)), [("a", "b")], 1.5)


def test_a_pair_is_flagged_when_a_tail_count_is_improbable():
    """The flag is the binomial tail bound at level 0.01 / (2 x pairs): with 40 data sets and one
    pair (threshold 0.005), 4 in one tail is not flagged (P(X >= 4 | 40, 0.025) = 0.017) and 5
    is (0.0031)."""
    count = 40
    threshold = 0.01 / 2
    needed = next(c for c in range(count + 1) if stats.binom.sf(c - 1, count, 0.025) < threshold)
    assert needed == 5
    for hits, flagged in ((needed - 1, False), (needed, True)):
        scatter = np.ones((count, 1))
        dof = np.full((count, 1), 4.0)
        sigma = np.ones((1, count, 1))
        # data sets 0..hits-1 far below their fitted scatter (p near 0), the rest at the median
        scatter[:hits] = 1e-6
        scatter[hits:] = stats.chi2.median(4)
        table = noise_check_table(scatter, dof, sigma, [("a", "b")])
        assert table.misfit[0] == flagged
        assert table.share_overstated[0] == hits / count


def test_the_misfit_message_names_the_flagged_pairs():
    """The flagged pairs are named with their ratios; none flagged gives no message."""
    table = pd.DataFrame(
        {
            "first": ["a", "a", "b"],
            "second": ["b", "c", "c"],
            "datasets": [10, 10, 10],
            "sd_ratio": [0.48, 1.0, 1.7],
            "share_overstated": [0.8, 0.1, 0.0],
            "share_understated": [0.0, 0.1, 0.3],
            "misfit": [True, False, True],
        }
    )
    message = misfit_message(table)
    assert "2 of 3 pairs (a vs b, b vs c)" in message
    assert "0.48, 1.70" in message
    assert misfit_message(table.iloc[[1]]) is None
