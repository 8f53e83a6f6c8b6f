"""Correlated t, sign and signed-rank tests against closed forms and brute force (user guide,
Model and conventions §1-2)."""

import itertools
import math
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from bayes_hier import (
    CorrelatedTResult,
    RopeScaleWarning,
    SimplexResult,
    correlated_ttest,
    sign_test,
    signed_rank_test,
)
from bayes_hier.bayesian_tests import signed_rank as sr
from bayes_hier.bayesian_tests.sign import sign_counts, sign_dirichlet_alpha
from bayes_hier.decision import ExpectedCost, expected_cost
from bayes_hier.probabilities import Probabilities
from bayes_hier.rope import Rope


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def cv_scores(n=100, delta=0.01, sd=0.02, seed=0):
    rng = np.random.default_rng(seed)
    x = 0.8 + rng.normal(0, 0.01, n)
    return x, x + delta + rng.normal(0, sd, n)


def per_dataset_scores(q=40, delta=0.005, sd=0.02, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.6, 0.9, q)
    return x, x + delta + rng.normal(0, sd, q)


# ---------------------------------------------------------------------- correlated t-test
def closed_form(x, y, runs, rho=None):
    d = np.asarray(y) - np.asarray(x)
    n = d.size
    rho = runs / n if rho is None else rho
    scale = np.sqrt((1 / n + rho / (1 - rho)) * np.var(d, ddof=1))
    return n - 1, d.mean(), scale


@pytest.mark.parametrize("rope", [0.01, 0.003, (-0.002, 0.015)])
def test_correlated_t_matches_the_student_cdf(rope):
    x, y = cv_scores()
    res = correlated_ttest(x, y, rope=rope, runs=10, names=("A", "B"))
    df, loc, scale = closed_form(x, y, 10)
    low, high = (-rope, rope) if np.isscalar(rope) else rope
    assert isinstance(res, CorrelatedTResult)
    assert (res.df, res.loc) == (df, pytest.approx(loc, rel=1e-12))
    assert res.scale == pytest.approx(scale, rel=1e-12)
    expected_left = stats.t.cdf(low, df, loc, scale)
    expected_right = 1 - stats.t.cdf(high, df, loc, scale)
    assert res.probs.left == pytest.approx(expected_left, rel=1e-10)
    assert res.probs.right == pytest.approx(expected_right, rel=1e-10)
    assert res.probs.rope == pytest.approx(1 - expected_left - expected_right, rel=1e-10)
    assert res.probs_by_name == {
        "A better": res.probs.left,
        "practically equivalent": res.probs.rope,
        "B better": res.probs.right,
    }


def test_correlated_t_rho_and_the_nadeau_bengio_default():
    x, y = cv_scores(n=50)
    by_runs = correlated_ttest(x, y, rope=0.01, runs=5)  # 5 x 10 folds: rho = 0.1
    by_rho = correlated_ttest(x, y, rope=0.01, runs=5, rho=0.1)
    assert by_runs.rho == pytest.approx(0.1)
    assert by_runs.probs == pytest.approx(by_rho.probs)
    other = correlated_ttest(x, y, rope=0.01, runs=5, rho=0.25)
    assert other.scale == pytest.approx(closed_form(x, y, 5, rho=0.25)[2])


def test_correlated_t_rope_zero_gives_two_outcomes():
    x, y = cv_scores()
    res = correlated_ttest(x, y, rope=0, runs=10)
    df, loc, scale = closed_form(x, y, 10)
    assert res.probs.rope == 0
    assert res.probs.right == pytest.approx(stats.t.sf(0, df, loc, scale))
    assert res.probs.left + res.probs.right == pytest.approx(1.0)
    assert set(res.odds.favoured) | set(res.odds.against) == {"left", "right"}


@pytest.mark.parametrize(
    ("delta", "rope", "expected"),
    [
        (0.005, 0.01, (0.0, 1.0, 0.0)),  # inside the rope
        (0.5, 0.5, (0.0, 1.0, 0.0)),  # on the edge: counts as rope
        (-0.5, 0.5, (0.0, 1.0, 0.0)),
        (0.02, 0.01, (0.0, 0.0, 1.0)),
        (-0.02, 0.01, (1.0, 0.0, 0.0)),
        (0.0, 0.0, (0.5, 0.0, 0.5)),  # rope 0 and mean 0: half each
        (0.02, 0.0, (0.0, 0.0, 1.0)),
    ],
)
def test_correlated_t_zero_variance_is_a_point_mass(delta, rope, expected):
    x = np.full(10, 10.0)  # scores on a scale where a rope of 0.5 is plausible
    y = x + delta
    res = correlated_ttest(x, y, rope=rope, runs=1)
    assert res.scale == 0
    assert tuple(res.probs) == expected
    assert res.hdi() == (pytest.approx(delta), pytest.approx(delta))
    assert np.all(res.sample(10, seed=1) == res.loc)


@pytest.mark.parametrize(("n", "delta"), [(100, 0.7), (10, 0.01), (30, 0.1)])
def test_all_equal_differences_whose_float_mean_is_off_are_still_a_point_mass(n, delta):
    """Summing n copies of delta misses delta by an ulp (0.7 x 100 / 100 = 0.7000000000000002):
    the point mass must not become a Student t of scale 1e-17 that puts the edge outside."""
    y = np.full(n, delta)
    assert np.mean(y) != delta  # the case the test is about
    res = correlated_ttest(np.zeros(n), y, rope=delta, runs=1)
    assert (res.loc, res.scale) == (delta, 0.0)
    assert tuple(res.probs) == (0.0, 1.0, 0.0)
    assert res.t_statistic == math.inf
    assert correlated_ttest(np.zeros(n), np.zeros(n), rope=delta).t_statistic == 0.0


def test_correlated_t_percent_scores_with_rope_in_points():
    x, y = cv_scores()
    fraction = correlated_ttest(x, y, rope=0.01, runs=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        percent = correlated_ttest(100 * x, 100 * y, rope=1, runs=10)
    assert percent.probs == pytest.approx(fraction.probs, rel=1e-9)
    assert percent.loc == pytest.approx(100 * fraction.loc)
    with pytest.warns(RopeScaleWarning):
        correlated_ttest(100 * x, 100 * y, rope=0.01, runs=10)


def test_correlated_t_mean_hdi_and_sample():
    x, y = cv_scores(seed=3)
    res = correlated_ttest(x, y, rope=0.01, runs=10)
    df, loc, scale = closed_form(x, y, 10)
    assert res.mean == pytest.approx(loc)
    for mass in (0.5, 0.9, 0.95):
        low, high = res.hdi(mass)
        assert stats.t.cdf(high, df, loc, scale) - stats.t.cdf(low, df, loc, scale) == (
            pytest.approx(mass)
        )
        assert (low + high) / 2 == pytest.approx(loc)  # symmetric, hence the shortest
        assert high - loc == pytest.approx(stats.t.ppf(0.5 + mass / 2, df) * scale)
    assert res.hdi() == res.hdi(0.95)
    draws = res.sample(200_000, seed=5)
    np.testing.assert_array_equal(draws, res.sample(200_000, seed=5))
    assert not np.array_equal(draws[:10], res.sample(10, seed=6))
    assert draws.mean() == pytest.approx(loc, abs=5 * scale / np.sqrt(draws.size) * 1.1)
    assert np.mean(draws < -0.01) == pytest.approx(res.probs.left, abs=0.005)
    with pytest.raises(ValueError, match="HDI mass"):
        res.hdi(1.5)
    with pytest.raises(TypeError, match="HDI mass must be a number"):
        res.hdi("0.9")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"hdi_prob": "0.9"}, TypeError, "hdi_prob must be a number in \\(0, 1\\)"),
        ({"hdi_prob": 1.0}, ValueError, "hdi_prob must be in \\(0, 1\\)"),
        ({"rho": "0.3"}, TypeError, "rho must be one number"),
        ({"rho": True}, TypeError, "rho must be one number"),
    ],
)
def test_correlated_t_levels_and_rho_are_numbers(kwargs, error, message):
    x, y = cv_scores()
    with pytest.raises(error, match=message):
        correlated_ttest(x, y, rope=0.01, runs=10, **kwargs)


def test_correlated_t_accepts_a_tidy_frame_and_lower_is_better():
    x, y = cv_scores(n=20)
    rows = [
        {"dataset": "d", "model": m, "run": i // 10, "fold": i % 10, "score": s}
        for m, scores in (("a", x), ("b", y))
        for i, s in enumerate(scores)
    ]
    frame = pd.DataFrame(rows)
    from_frame = correlated_ttest(frame, rope=0.01)
    from_arrays = correlated_ttest(x, y, rope=0.01, runs=2)
    assert from_frame.names == ("a", "b")
    assert from_frame.probs == pytest.approx(from_arrays.probs)
    two = pd.concat([frame, frame.assign(dataset="e")])
    with pytest.raises(ValueError, match="one data set"):
        correlated_ttest(two, rope=0.01)
    assert correlated_ttest(two, rope=0.01, dataset="e").probs == pytest.approx(from_frame.probs)
    errors = correlated_ttest(x, y, rope=0.01, runs=2, higher_is_better=False)
    assert tuple(errors.probs) == pytest.approx(tuple(reversed(from_arrays.probs)))


def test_correlated_t_reports():
    x, y = cv_scores()
    res = correlated_ttest(x, y, rope=0.01, runs=10, names=("svm", "forest"))
    table = res.to_frame()
    assert list(table.columns) == ["outcome", "label", "probability"]
    assert table.probability.sum() == pytest.approx(1)
    text = str(res)
    assert "svm vs forest" in text and "HDI" in text and "Decision" in text
    assert res.decision(0.5).outcome in ("left", "rope", "right", "inconclusive")
    assert "CorrelatedTResult" in repr(res)


# ---------------------------------------------------------------------- sign test
def test_sign_counts_put_rope_edges_in_the_rope():
    z = np.array([-0.5, -0.25, 0.0, 0.25, 0.5, 0.75])
    assert sign_counts(z, Rope(-0.25, 0.25)) == (1, 3, 2)
    alpha = sign_dirichlet_alpha(z, Rope(-0.25, 0.25), prior=2, prior_place="left")
    np.testing.assert_allclose(alpha, [1 + 2 + 1e-4, 3 + 1e-4, 2 + 1e-4])


@pytest.mark.parametrize("place", ["rope", "left", "right"])
def test_sign_test_sample_mean_is_the_dirichlet_mean(place):
    x, y = per_dataset_scores(q=30)
    res = sign_test(x, y, rope=0.01, prior=1.5, prior_place=place, nsamples=200_000, seed=4)
    alpha = np.array(res.settings["alpha"])
    counts = np.array(sign_counts(res.differences, res.rope), float)
    expected_alpha = counts + 1e-4
    expected_alpha[("left", "rope", "right").index(place)] += 1.5
    np.testing.assert_allclose(alpha, expected_alpha)
    a0 = alpha.sum()
    mean = alpha / a0
    sd = np.sqrt(alpha * (a0 - alpha) / (a0**2 * (a0 + 1)))
    tolerance = 5 * sd / np.sqrt(res.settings["nsamples"])  # 5 Monte Carlo standard errors
    assert np.all(np.abs(res.sample.mean(axis=0) - mean) < tolerance)
    np.testing.assert_allclose(res.mean, res.sample.mean(axis=0))


def test_sign_test_argmax_probabilities_against_numerical_integration():
    z = np.array([-0.3] * 3 + [0.0] * 4 + [0.3] * 5)  # counts 3, 4, 5 with rope 0.1
    res = sign_test(np.zeros_like(z), z, rope=0.1, nsamples=200_000, seed=1)
    alpha = np.array(res.settings["alpha"])

    def region_mass(k):
        # θ = G / ΣG with independent G_j ~ Gamma(α_j): θ_k is the largest iff G_k is, so
        # P = ∫ pdf_k(g) Π_{j≠k} cdf_j(g) dg (one-dimensional quadrature).
        others = [j for j in range(3) if j != k]

        def integrand(g):
            return stats.gamma.pdf(g, alpha[k]) * np.prod(
                [stats.gamma.cdf(g, alpha[j]) for j in others]
            )

        return integrate.quad(integrand, 0, np.inf, epsabs=1e-10)[0]

    exact = [region_mass(k) for k in range(3)]
    assert sum(exact) == pytest.approx(1, abs=1e-3)
    for p, e in zip(res.probs, exact):
        assert p == pytest.approx(e, abs=4 * np.sqrt(e * (1 - e) / 200_000) + 2e-3)


def test_sign_test_rope_zero_renormalises_left_and_right():
    x, y = per_dataset_scores(q=10, delta=0.0)
    res = sign_test(x, y, rope=0, seed=2)
    assert res.probs.rope == 0
    assert res.probs.left + res.probs.right == pytest.approx(1)
    counts = np.bincount(res.sample.argmax(axis=1), minlength=3)
    assert res.probs.right == pytest.approx(counts[2] / (counts[0] + counts[2]))


def test_sign_test_averages_fold_scores_per_data_set():
    rng = np.random.default_rng(0)
    x = rng.uniform(0.7, 0.9, (12, 10))
    y = x + rng.normal(0.01, 0.02, (12, 10))
    folds = sign_test(x, y, rope=0.01, seed=3)
    means = sign_test(x.mean(axis=1), y.mean(axis=1), rope=0.01, seed=3)
    np.testing.assert_allclose(folds.differences, means.differences)
    np.testing.assert_array_equal(folds.sample, means.sample)


# ---------------------------------------------------------------------- signed-rank test
def brute_force_theta(w, z, rope):
    """The double loop of conventions §2 with H(0) = 1/2, for one weight vector."""

    def heaviside(a):
        return 1.0 if a > 0 else 0.5 if a == 0 else 0.0

    left = right = 0.0
    for i, j in itertools.product(range(z.size), repeat=2):
        s = z[i] + z[j]
        right += w[i] * w[j] * heaviside(s - 2 * rope.high)
        left += w[i] * w[j] * heaviside(2 * rope.low - s)
    return left, 1 - left - right, right


@pytest.mark.parametrize(
    ("z", "rope"),
    [
        ([0.0, 0.5, 1.5], Rope(-0.5, 0.5)),  # q = 2, exact ties z_i + z_j = 2r
        ([0.0, -0.5, 1.5, 0.25], Rope(-0.5, 0.5)),  # q = 3 with ties
        ([0.0, -0.5, 1.5, 0.25], Rope(-0.25, 0.75)),  # asymmetric rope
        ([0.0, 0.3, -0.7], Rope(0.0, 0.0)),  # empty rope
        ([0.0, 0.0, 0.0], Rope(-0.1, 0.1)),  # all in the rope
    ],
)
def test_vectorised_theta_equals_the_double_loop(z, rope):
    z = np.array(z)
    weights = np.random.default_rng(0).dirichlet([0.5] + [1.0] * (z.size - 1), 200)
    weights[0] = 1 / z.size  # and one uniform weight vector
    expected = np.array([brute_force_theta(w, z, rope) for w in weights])
    np.testing.assert_allclose(sr.theta_quadratic(weights, z, rope), expected, atol=1e-12)
    np.testing.assert_allclose(sr.theta_sorted(weights, z, rope), expected, atol=1e-12)


def test_signed_rank_sample_mean_equals_the_exact_expectation():
    z_data = np.array([-0.02, 0.005, 0.015, 0.03, 0.01])
    rope = Rope(-0.01, 0.01)
    res = signed_rank_test(np.zeros(5), z_data, rope=0.01, prior=0.5, nsamples=200_000, seed=1)
    z = np.concatenate([[0.0], z_data])
    a = np.array([0.5] + [1.0] * 5)
    a0 = a.sum()
    second_moment = np.outer(a, a) / (a0 * (a0 + 1))  # E[w_i w_j] of a Dirichlet
    second_moment[np.diag_indices_from(second_moment)] = a * (a + 1) / (a0 * (a0 + 1))
    left_matrix, right_matrix = sr.walsh_matrices(z, rope)
    exact = np.array([np.sum(second_moment * left_matrix), 0, np.sum(second_moment * right_matrix)])
    exact[1] = 1 - exact[0] - exact[2]
    sd = res.sample.std(axis=0)
    assert np.all(np.abs(res.sample.mean(axis=0) - exact) < 5 * sd / np.sqrt(200_000))


def test_signed_rank_agrees_with_a_per_sample_loop():
    x, y = per_dataset_scores(q=15, delta=0.01)
    res = signed_rank_test(x, y, rope=0.01, nsamples=20_000, seed=2)
    z = np.concatenate([[0.0], y - x])
    weights = np.random.RandomState(9).dirichlet([0.5] + [1.0] * 15, 20_000)
    loop = np.array([brute_force_theta(w, z, res.rope) for w in weights[:2000]])
    np.testing.assert_allclose(loop, sr.theta_sorted(weights[:2000], z, res.rope), atol=1e-12)
    reference = Probabilities(*np.bincount(loop.argmax(1), minlength=3) / len(loop))
    for p, r in zip(res.probs, reference):
        assert p == pytest.approx(r, abs=0.05)


def test_signed_rank_rope_zero():
    x, y = per_dataset_scores(q=20, delta=0.0)
    res = signed_rank_test(x, y, rope=0, nsamples=5000, seed=1)
    assert np.all(res.sample[:, 1] == 0)
    np.testing.assert_allclose(res.sample[:, 0], 1 - res.sample[:, 2])
    assert res.probs.rope == 0 and sum(res.probs) == pytest.approx(1)


@pytest.mark.parametrize("test", [sign_test, signed_rank_test])
def test_seeded_determinism(test):
    x, y = per_dataset_scores(q=25)
    first = test(x, y, rope=0.01, nsamples=3000, seed=11)
    again = test(x, y, rope=0.01, nsamples=3000, seed=11)
    other = test(x, y, rope=0.01, nsamples=3000, seed=12)
    np.testing.assert_array_equal(first.sample, again.sample)
    assert first.probs == again.probs
    assert not np.array_equal(first.sample, other.sample)
    assert test(x, y, rope=0.01, nsamples=10, seed=np.random.default_rng(1)).sample.shape == (10, 3)
    fresh = test(x, y, rope=0.01, nsamples=50)
    replay = test(x, y, rope=0.01, nsamples=50, seed=fresh.settings["seed"])
    np.testing.assert_array_equal(fresh.sample, replay.sample)


def test_signed_rank_scales_to_a_thousand_data_sets(monkeypatch):
    x, y = per_dataset_scores(q=1000)
    monkeypatch.setattr(sr, "BATCH_FLOATS", 20_000)  # batches of 19 samples
    res = signed_rank_test(x, y, rope=0.01, nsamples=1000, seed=0)
    assert res.sample.shape == (1000, 3)
    np.testing.assert_allclose(res.sample.sum(axis=1), 1)
    assert np.all(res.sample >= 0)


def test_simplex_result_reports_and_validation():
    x, y = per_dataset_scores(q=20)
    res = signed_rank_test(x, y, rope=0.01, nsamples=2000, seed=0, names=("nb", "svm"))
    assert isinstance(res, SimplexResult)
    table = res.to_frame()
    assert list(table.columns) == ["outcome", "label", "probability", "mean_theta"]
    assert table.probability.sum() == pytest.approx(1)
    assert "nb vs svm" in str(res) and "seed 0" in str(res)
    assert set(res.probs_by_name) == {"nb better", "practically equivalent", "svm better"}
    with pytest.raises(ValueError, match="different lengths"):
        signed_rank_test(x, y[:-1])
    with pytest.raises(ValueError, match="NaN"):
        sign_test(np.r_[x[:-1], np.nan], y)
    with pytest.raises(ValueError, match="prior"):
        sign_test(x, y, prior=-1)
    for place in ("middle", 1.0, True, 3):  # 1.0 == ROPE once passed as a place: not a place
        with pytest.raises(ValueError, match="prior_place"):
            sign_test(x, y, prior_place=place)
    assert sign_test(x, y, prior_place=np.int64(2), seed=1).settings["prior_place"] == "right"
    with pytest.raises(ValueError, match="nsamples"):
        signed_rank_test(x, y, nsamples=0)


def test_sign_and_signed_rank_on_a_tidy_frame():
    rng = np.random.default_rng(0)
    rows = []
    for d in range(6):
        for m, shift in (("a", 0.0), ("b", 0.02)):
            for fold in range(5):
                rows.append(
                    {
                        "dataset": f"d{d}",
                        "model": m,
                        "fold": fold,
                        "score": 0.8 + shift + rng.normal(0, 0.01),
                    }
                )
    frame = pd.DataFrame(rows)
    res = signed_rank_test(frame, rope=0.01, nsamples=1000, seed=0)
    assert res.names == ("a", "b") and res.datasets == tuple(f"d{d}" for d in range(6))
    means = frame.groupby(["dataset", "model"]).score.mean().unstack()
    np.testing.assert_allclose(res.differences, (means.b - means.a).to_numpy())


# ---------------------------------------------------------------------- decisions and rope
def test_expected_cost_is_the_cost_matrix_times_the_probabilities():
    probs = Probabilities(0.2, 0.5, 0.3)
    cost = [[0, 1, 3], [3, 1, 0], [1, 0.2, 1]]
    result = expected_cost(cost, probs)
    assert isinstance(result, ExpectedCost)
    np.testing.assert_allclose(result.costs, [0.5 + 0.9, 0.6 + 0.5, 0.2 + 0.1 + 0.3])
    assert result.best == "no decision"
    assert result.actions == ("choose first", "choose second", "no decision")
    named = expected_cost(cost[:2], probs, actions=["keep", "switch"])
    assert named.best == "switch" and named.best_index == 1
    frame = pd.DataFrame(cost, index=["x", "y", "z"], columns=["left", "rope", "right"])
    assert expected_cost(frame, probs).best == "z"
    assert "Recommended action: z" in str(expected_cost(frame, probs))
    with pytest.raises(ValueError, match="columns"):
        expected_cost([[0, 1]], probs)
    with pytest.raises(ValueError, match="action names"):
        expected_cost(cost, probs, actions=["a", "b"])


def test_result_expected_cost_uses_model_names():
    x, y = cv_scores()
    res = correlated_ttest(x, y, rope=0.01, runs=10, names=("A", "B"))
    choice = res.expected_cost([[0, 0, 1], [1, 0, 0]])
    assert choice.actions == ("choose A", "choose B")
    np.testing.assert_allclose(choice.costs, [res.probs.right, res.probs.left])


def test_rope_sensitivity_tables():
    x, y = cv_scores()
    res = correlated_ttest(x, y, rope=0.01, runs=10)
    table = res.rope_sensitivity(max_rope=0.02, num=5)
    assert list(table.columns) == ["rope", "left", "rope_prob", "right"]
    np.testing.assert_allclose(table.rope, [0, 0.005, 0.01, 0.015, 0.02])
    assert table.rope_prob.iloc[0] == 0
    assert np.all(np.diff(table.rope_prob) >= 0)
    assert tuple(table.iloc[2, 1:]) == pytest.approx(tuple(res.probs))
    np.testing.assert_allclose(table[["left", "rope_prob", "right"]].sum(axis=1), 1)
    xs, ys = per_dataset_scores(q=20)
    simplex = sign_test(xs, ys, rope=0.01, nsamples=2000, seed=3)
    table = simplex.rope_sensitivity(max_rope=0.02, num=3)
    assert tuple(table.iloc[1, 1:]) == pytest.approx(tuple(simplex.probs))
    assert len(simplex.rope_sensitivity(num=4)) == 4


# ---------------------------------------------------------------------- plots
def test_plots_return_figures_and_accept_axes():
    from matplotlib.figure import Figure

    x, y = cv_scores()
    t = correlated_ttest(x, y, rope=0.01, runs=10, names=("A", "B"))
    xs, ys = per_dataset_scores(q=20)
    s = signed_rank_test(xs, ys, rope=0.01, nsamples=2000, seed=0, names=("A", "B"))
    s0 = sign_test(xs, ys, rope=0, nsamples=2000, seed=0)
    point = correlated_ttest(np.full(10, 0.8), np.full(10, 0.805), rope=0.01)
    for figure in (
        t.plot(),
        t.plot_density(),
        point.plot(),
        t.plot_rope_sensitivity(num=5),
        s.plot(),
        s.plot_simplex(),
        s.plot_histogram(),
        s.plot_rope_sensitivity(num=3),
        s0.plot(),
        s0.plot_histogram(),
    ):
        assert isinstance(figure, Figure)
    fig, axes = plt.subplots(1, 3)
    assert t.plot_density(ax=axes[0]) is fig
    assert s.plot_simplex(ax=axes[1]) is fig
    assert s.plot_histogram(ax=axes[2]) is fig
    texts = " ".join(text.get_text() for text in t.plot().axes[0].texts)
    assert "A better" in texts and "B better" in texts


def test_differences_that_overflow_are_an_error():
    x, y = np.array([1e308, -1e308, 1.0]), np.array([-1e308, 1e308, 2.0])
    for test in (sign_test, signed_rank_test):
        with pytest.raises(ValueError, match="overflow to infinity"):
            test(x, y, rope=0.01)


@pytest.mark.parametrize("test", [sign_test, signed_rank_test])
def test_simplex_results_pickle_and_keep_their_rope_sensitivity(test):
    """A result is saved with pickle (it holds a partial of a module function, not a closure);
    the loaded one recomputes probabilities at other ropes identically."""
    import pickle

    x, y = np.linspace(0.70, 0.80, 12), np.linspace(0.71, 0.82, 12)
    result = test(x, y, rope=0.01, nsamples=2000, seed=3)
    loaded = pickle.loads(pickle.dumps(result))
    assert loaded.probs == result.probs
    pd.testing.assert_frame_equal(
        loaded.rope_sensitivity(max_rope=0.02, num=3), result.rope_sensitivity(max_rope=0.02, num=3)
    )
