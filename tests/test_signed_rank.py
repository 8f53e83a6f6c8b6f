"""The linear-time Bayesian signed-rank test: exact ties, the O(q²) definition, closed forms."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from bayes_hier import signed_rank_test
from bayes_hier.bayesian_tests import signed_rank as sr
from bayes_hier.compat import SignedRankTest
from bayes_hier.rope import Rope


# ------------------------------------------------------------------ the reference (O(q²), exact)
def exact_heaviside(a: float, b: float, t: float) -> float:
    """H(a + b − t) with H(0) = 1/2, on the exact rational values of the floats."""
    difference = Fraction(a) + Fraction(b) - Fraction(t)
    return 1.0 if difference > 0 else 0.5 if difference == 0 else 0.0


def reference_theta(weights: np.ndarray, z: np.ndarray, rope: Rope) -> np.ndarray:
    """(θ_left, θ_rope, θ_right) per row of ``weights`` as quadratic forms of the Walsh-average
    indicator matrices, every tie decided in exact rational arithmetic (conventions §2)."""
    m = z.size
    right = np.array(
        [[exact_heaviside(z[i], z[j], 2 * rope.high) for j in range(m)] for i in range(m)]
    )
    left = np.array(
        [[exact_heaviside(-z[i], -z[j], -2 * rope.low) for j in range(m)] for i in range(m)]
    )
    w = np.atleast_2d(weights)
    theta_left = np.einsum("bi,ij,bj->b", w, left, w)
    theta_right = np.einsum("bi,ij,bj->b", w, right, w)
    return np.stack([theta_left, 1 - theta_left - theta_right, theta_right], axis=1)


def random_z(rng: np.random.Generator, q: int, kind: str) -> np.ndarray:
    """Differences with z_0 = 0 first: continuous, on a coarse grid (many exact ties), or
    floats whose rounded sums hit the threshold while the exact sums do not."""
    if kind == "continuous":
        data = rng.normal(0.005, 0.02, q)
    elif kind == "grid":
        data = rng.integers(-3, 4, q) * 0.005
    else:  # near-ties: 0.01 ± one ulp and tiny values that vanish in a rounded sum
        data = rng.choice([0.01, np.nextafter(0.01, 1), np.nextafter(0.01, 0), 1e-20, -1e-20], q)
    return np.concatenate([[0.0], data])


# ------------------------------------------------------------------ exact comparisons
def test_sum_sign_is_the_sign_of_the_exact_sum():
    rng = np.random.default_rng(0)
    a = rng.normal(0, 1, 2000)
    b = rng.normal(0, 1, 2000)
    t = a + b  # rounded sums: exactly the cases where float comparison says "tie"
    t[::3] = rng.normal(0, 1, t[::3].size)
    expected = [np.sign(Fraction(x) + Fraction(y) - Fraction(c)) for x, y, c in zip(a, b, t)]
    # A scalar t as in the test: every element against the same threshold.
    got = [int(sr.sum_sign(x, y, c)) for x, y, c in zip(a, b, t)]
    assert got == expected
    assert sum(e != 0 for e in expected[1::3]) > 100  # most rounded "ties" are not exact ties
    # Rounded sum equal to t, exact sum above / below / equal.
    assert sr.sum_sign(1.0, 1e-17, 1.0) == 1
    assert sr.sum_sign(1.0, -1e-17, 1.0) == -1
    assert sr.sum_sign(0.25, 0.25, 0.5) == 0
    assert sr.sum_sign(0.0, 0.0, 0.0) == 0


@pytest.mark.parametrize("kind", ["continuous", "grid", "near-ties"])
def test_count_sums_below_is_exact(kind):
    rng = np.random.default_rng(1)
    for _ in range(5):
        z = np.sort(random_z(rng, int(rng.integers(1, 40)), kind))
        for t in (0.02, -0.02, 0.0, 2 * 0.01):
            for strict in (True, False):
                expected = [
                    sum(
                        (Fraction(a) + Fraction(b) < Fraction(t))
                        if strict
                        else (Fraction(a) + Fraction(b) <= Fraction(t))
                        for b in z
                    )
                    for a in z
                ]
                np.testing.assert_array_equal(sr.count_sums_below(z, t, strict=strict), expected)


# ------------------------------------------------------------------ θ against the definition
@pytest.mark.parametrize("kind", ["continuous", "grid", "near-ties"])
@pytest.mark.parametrize("rope", [Rope(-0.01, 0.01), Rope(0.0, 0.0), Rope(-0.005, 0.015)])
def test_linear_theta_equals_the_exact_quadratic_form(kind, rope):
    rng = np.random.default_rng(2)
    for q in (1, 2, 7, 30):
        z = random_z(rng, q, kind)
        weights = rng.dirichlet([0.5] + [1.0] * q, 50)
        expected = reference_theta(weights, z, rope)
        np.testing.assert_allclose(sr.theta_sorted(weights, z, rope), expected, atol=1e-12)
        np.testing.assert_allclose(sr.theta_quadratic(weights, z, rope), expected, atol=1e-12)


def test_near_ties_are_not_decided_by_rounding():
    # 0.02 + 1e-20 rounds to 0.02 = 2r, but the exact sum is above: a full 1, not 1/2.
    z = np.array([0.0, 1e-20, 0.02])
    assert z[1] + z[2] == 2 * 0.01
    w = np.array([0.2, 0.3, 0.5])
    theta = sr.theta_sorted(w[None, :], z, Rope(-0.01, 0.01))
    # right: (2, 2) and (1, 2), (2, 1) fully, the exact ties (0, 2), (2, 0) half.
    expected = w[2] ** 2 + 2 * w[1] * w[2] + w[0] * w[2]
    assert theta[0, 2] == pytest.approx(expected, abs=1e-15)
    assert expected == pytest.approx(0.65)


# ------------------------------------------------------------------ exact zeros and closed forms
def test_all_zero_differences_with_rope_zero_split_evenly():
    x = np.full(12, 0.8)
    result = signed_rank_test(x, x.copy(), rope=0, nsamples=3000, seed=3)
    np.testing.assert_array_equal(result.sample[:, 0], result.sample[:, 2])  # bit for bit
    assert np.all(result.sample[:, 1] == 0)
    assert tuple(result.probs) == (0.5, 0.0, 0.5)
    # ... and through the baycomp-compatible facade.
    assert SignedRankTest.probs(x, x.copy(), 0, nsamples=3000, random_state=3) == (0.5, 0.5)


def test_all_zero_differences_with_a_rope_are_all_in_the_rope():
    x = np.full(5, 0.8)
    result = signed_rank_test(x, x.copy(), rope=0.01, nsamples=500, seed=1)
    np.testing.assert_array_equal(result.sample, np.tile([0.0, 1.0, 0.0], (500, 1)))


def test_one_data_set_has_the_beta_closed_form():
    # z = (0, d) with 2r > d > r: only the pair (1, 1) is right of the rope, θ_right = w_1² with
    # w_1 ~ Beta(1, s). P(right is the largest) = P(w_1² > 1/2) = (1 − 1/√2)^s,
    # E[θ_right] = 2 / ((1 + s)(2 + s)).
    s, nsamples = 0.5, 200_000
    result = signed_rank_test([0.0], [0.015], rope=0.01, prior=s, nsamples=nsamples, seed=4)
    theta_right = result.sample[:, 2]
    assert theta_right.mean() == pytest.approx(
        2 / ((1 + s) * (2 + s)), abs=5 * theta_right.std() / np.sqrt(nsamples)
    )
    p = (1 - 1 / np.sqrt(2)) ** s
    assert result.probs.right == pytest.approx(p, abs=5 * np.sqrt(p * (1 - p) / nsamples))
    assert result.probs.left == 0


def test_batches_do_not_change_the_distribution(monkeypatch):
    x = np.random.default_rng(5).normal(0.005, 0.02, 200)
    big = signed_rank_test(np.zeros(200), x, rope=0.01, nsamples=20_000, seed=6)
    monkeypatch.setattr(sr, "BATCH_FLOATS", 1000)
    monkeypatch.setattr(sr, "MIN_BATCH", 7)
    small = signed_rank_test(np.zeros(200), x, rope=0.01, nsamples=20_000, seed=6)
    assert small.sample.shape == big.sample.shape
    sd = big.sample.std(axis=0) / np.sqrt(20_000)
    assert np.all(np.abs(small.sample.mean(axis=0) - big.sample.mean(axis=0)) < 6 * sd + 1e-12)


@pytest.mark.parametrize("seed", [1.7, "a", True, [1]])
def test_seed_policy(seed):
    with pytest.raises(TypeError, match="seed"):
        signed_rank_test(np.zeros(5), np.ones(5), rope=0.01, nsamples=10, seed=seed)


def test_seed_sequence_and_generator_are_accepted():
    x, y = np.zeros(6), np.linspace(-0.02, 0.03, 6)
    a = signed_rank_test(x, y, nsamples=100, seed=np.random.SeedSequence(3))
    b = signed_rank_test(x, y, nsamples=100, seed=np.random.SeedSequence(3))
    np.testing.assert_array_equal(a.sample, b.sample)
    assert signed_rank_test(x, y, nsamples=10, seed=np.random.default_rng(0)).sample.shape == (
        10,
        3,
    )
