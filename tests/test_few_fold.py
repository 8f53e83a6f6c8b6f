"""The few-fold study generator: its stated properties (no Stan)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayes_hier.compare import model_scores
from bayes_hier.data import CVData
from bayes_hier.few_fold import SPREAD_RANGE, few_fold_design, few_fold_study


@pytest.fixture(scope="module")
def large() -> pd.DataFrame:
    return few_fold_study(16, 132, seed=1)


def differences(frame: pd.DataFrame, first: str, second: str) -> np.ndarray:
    """(data sets x folds) second - first."""
    wide = frame.pivot_table(index=["dataset", "fold"], columns="model", values="score")
    return (wide[second] - wide[first]).unstack("fold").to_numpy()


def test_shape_columns_and_score_range(large):
    assert list(large.columns) == ["dataset", "model", "run", "fold", "score"]
    assert len(large) == 16 * 132 * 4
    assert large.groupby(["dataset", "model"]).size().eq(4).all()
    assert large["score"].between(0.5, 1.0).all()
    assert large["score"].min() == 0.5 and large["score"].max() == 1.0


def test_same_seed_same_frame_other_seed_other_frame():
    pd.testing.assert_frame_equal(few_fold_study(seed=3), few_fold_study(seed=3))
    assert not few_fold_study(seed=3)["score"].equals(few_fold_study(seed=4)["score"])


def test_frame_is_read_as_cross_validation_data(large):
    scores = model_scores(large)
    assert list(scores.models) == [f"m{j:02d}" for j in range(16)]
    assert len(scores.datasets) == 132
    cv = CVData.from_frame(large, models=["m00", "m01"])
    assert cv.q == 132 and set(cv.n) == {4}
    np.testing.assert_allclose(cv.means, differences(large, "m00", "m01").mean(axis=1))


def test_spreads_are_log_uniform_over_three_orders_of_magnitude():
    design = few_fold_design(16, 2000, 10, 0.02, np.random.default_rng(0))
    low, high = np.log(SPREAD_RANGE)
    logs = np.log(design.spreads)
    assert low <= logs.min() and logs.max() <= high
    # Kolmogorov-Smirnov against U(log 2e-4, log 0.2): p far above 0.001 for the right law
    assert stats.kstest(logs, stats.uniform(low, high - low).cdf).pvalue > 0.001


def test_fold_differences_have_the_design_spread():
    """On data sets where no model fails and nothing is clipped, the sd of a pair's fold
    differences is s_i: the pooled variance of (d - mean) / s_i over the folds is 1."""
    frame = few_fold_study(2, 3000, seed=2, failure_rate=0.0, ties=0)
    design = few_fold_design(2, 3000, 0, 0.0, np.random.default_rng(2))
    d = differences(frame, "m00", "m01")
    inside = (
        frame.groupby("dataset")["score"]
        .agg(["min", "max"])
        .pipe(lambda m: (m["min"] > 0.5) & (m["max"] < 1.0))
    ).to_numpy()
    ratio = np.var(d[inside], axis=1, ddof=1) / design.spreads[inside] ** 2
    # mean of chi2(3)/3 over ~2500 data sets: 1 within 4 standard errors (sd sqrt(2/3)/sqrt(N))
    assert abs(ratio.mean() - 1) < 4 * np.sqrt(2 / 3 / inside.sum())


def test_ties_give_constant_zero_differences_for_every_pair(large):
    wide = large.pivot_table(index=["dataset", "fold"], columns="model", values="score")
    same = wide.eq(wide["m00"], axis=0).all(axis=1).groupby("dataset").all()
    assert same.sum() == round(0.08 * 132)
    for first, second in (("m00", "m01"), ("m03", "m11"), ("m14", "m15")):
        d = differences(large, first, second)
        assert (np.ptp(d, axis=1) == 0).sum() >= same.sum()
        assert np.all(d[same.to_numpy()] == 0)


def test_mean_differences_mostly_small_a_few_large(large):
    means = np.concatenate(
        [differences(large, a, b).mean(axis=1) for a, b in (("m00", "m01"), ("m02", "m05"))]
    )
    assert np.median(np.abs(means)) < 0.01
    assert 1 <= (np.abs(means) > 0.1).sum() <= 0.15 * means.size
    assert np.abs(means).max() <= 0.5


def test_base_case_has_several_ties_per_pair():
    frame = few_fold_study(seed=0)
    assert frame["dataset"].nunique() == 20 and frame["model"].nunique() == 5
    assert (np.ptp(differences(frame, "m00", "m04"), axis=1) == 0).sum() >= 2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"models": 1}, "models must be an integer >= 2"),
        ({"folds": 2.5}, "folds must be an integer >= 2"),
        ({"ties": 21}, "ties must be between 0 and datasets=20"),
        ({"failure_rate": 1.5}, "failure_rate must be a probability"),
    ],
)
def test_invalid_arguments_say_what_is_allowed(kwargs, message):
    with pytest.raises(ValueError, match=message):
        few_fold_study(**kwargs)


@pytest.mark.parametrize("sigma_power", [0.0, 1.0])
def test_noise_mode_mass_matches_its_closed_form_without_a_population_spread(sigma_power):
    """With σ₀ → 0 and ν large (τ_i ≈ 1), x̄_i ~ N(0, σ_i² b/n): in u = 1/σ_i² the conditional is
    Gamma((n − 1 + k)/2, rate C), C = SS/(2a) + n x̄²/(2b), so P(σ_i > 1) = P(u < 1)."""
    from benchmarks.few_fold import noise_mode_mass

    xbar, ss, n, rho = 1.0, 0.5, 4, 0.25
    a, b = 1 - rho, 1 + (n - 1) * rho
    rate = ss / (2 * a) + n * xbar**2 / (2 * b)
    expected = stats.gamma((n - 1 + sigma_power) / 2, scale=1 / rate).cdf(1.0)
    mass = noise_mode_mass(xbar, ss, n, rho, sigma0=1e-6, nu=1000.0, sigma_power=sigma_power)
    assert mass == pytest.approx(expected, abs=5e-3)
