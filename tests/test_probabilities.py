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
