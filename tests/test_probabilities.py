import numpy as np
import pytest
from scipy import integrate, stats

from bayes_hier.probabilities import (
    Probabilities,
    argmax_shares,
    region_shares,
    student_t_region_masses,
)
from bayes_hier.rope import Rope


def test_student_t_masses_match_numerical_integration():
    rope = Rope(-0.01, 0.02)
    loc, scale, df = np.array([0.005, -0.03]), np.array([0.02, 0.01]), np.array([3.0, 40.0])
    masses = student_t_region_masses(loc, scale, df, rope)
    for k in range(2):
        pdf = stats.t(df[k], loc[k], scale[k]).pdf
        left = integrate.quad(pdf, -np.inf, rope.low)[0]
        inside = integrate.quad(pdf, rope.low, rope.high)[0]
        right = integrate.quad(pdf, rope.high, np.inf)[0]
        np.testing.assert_allclose(masses[k], [left, inside, right], atol=1e-9)


def test_infinite_df_is_normal():
    masses = student_t_region_masses(
        np.array([0.01]), np.array([0.02]), np.array([np.inf]), Rope(-0.01, 0.01)
    )
    norm = stats.norm(0.01, 0.02)
    np.testing.assert_allclose(
        masses[0], [norm.cdf(-0.01), norm.cdf(0.01) - norm.cdf(-0.01), norm.sf(0.01)]
    )


def test_argmax_shares_split_ties():
    sample = np.array([[0.5, 0.2, 0.3], [0.1, 0.1, 0.8], [0.4, 0.2, 0.4], [0.2, 0.6, 0.2]])
    assert argmax_shares(sample) == Probabilities(
        pytest.approx(1.5 / 4), pytest.approx(1 / 4), pytest.approx(1.5 / 4)
    )


def test_region_shares_count_rope_edges_as_rope():
    p = region_shares(np.array([-0.02, -0.01, 0.0, 0.01, 0.03]), Rope(-0.01, 0.01))
    assert p == Probabilities(0.2, pytest.approx(0.6), 0.2)


def test_as_tuple_without_rope():
    assert Probabilities(0.2, 0.0, 0.8).as_tuple(include_rope=False) == (0.2, 0.8)


def test_an_empty_rope_has_exactly_zero_mass_and_the_sides_still_sum_to_one():
    """1 - cdf - sf leaves rounding remainders (about 1e-16) that a table would show as a
    rope probability; a point has no mass under a continuous distribution."""
    rng = np.random.default_rng(4)
    loc, scale = rng.normal(0, 0.05, 2000), rng.uniform(0.001, 0.1, 2000)
    df = np.where(rng.random(2000) < 0.5, rng.uniform(1, 50, 2000), np.inf)
    masses = student_t_region_masses(loc, scale, df, Rope(0.0, 0.0))
    assert np.all(masses[:, 1] == 0.0)
    np.testing.assert_allclose(masses.sum(axis=1), 1.0, atol=1e-15)
    z = -loc / scale
    finite = np.isfinite(df)
    expected_left = np.where(finite, stats.t.cdf(z, np.where(finite, df, 1)), stats.norm.cdf(z))
    np.testing.assert_allclose(masses[:, 0], expected_left, rtol=1e-12)


@pytest.mark.parametrize("n, below", [(3, 1), (5, 4), (7, 1)])
def test_region_shares_of_a_sample_without_draws_in_the_rope_are_exactly_zero(n, below):
    # 1 - 1/3 - 2/3 is 1.1e-16 in floating point: the rope share is counted, not subtracted.
    sample = np.r_[np.full(below, -1.0), np.full(n - below, 1.0)]
    p = region_shares(sample, Rope(0.0, 0.0))
    assert p == Probabilities(below / n, 0.0, (n - below) / n)
