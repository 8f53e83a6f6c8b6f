"""The baycomp-compatible facade: baycomp's API and semantics, the native numbers."""

import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from scipy import stats

import bayes_hier
from bayes_hier import compat
from bayes_hier.compat import (
    CorrelatedTTest,
    HierarchicalTest,
    Posterior,
    SignedRankTest,
    SignTest,
    SinglePosterior,
    two_on_multiple,
    two_on_single,
)

from .conftest import simulated_scores


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def fold_scores():
    rng = np.random.default_rng(1)
    x = 0.8 + rng.normal(0, 0.01, 100)
    return x, x + 0.008 + rng.normal(0, 0.02, 100)


@pytest.fixture
def dataset_scores():
    rng = np.random.default_rng(2)
    x = rng.uniform(0.6, 0.9, 30)
    return x, x + 0.01 + rng.normal(0, 0.02, 30)


def test_names_are_exported_from_the_package():
    for name in compat.__all__:
        if name in ("Posterior", "SinglePosterior"):
            continue
        assert getattr(bayes_hier, name) is getattr(compat, name)
    assert (SignTest.LEFT, SignTest.ROPE, SignTest.RIGHT) == (0, 1, 2)


# ---------------------------------------------------------------------- correlated t-test
def test_correlated_t_facade_matches_native_and_baycomp_formula(fold_scores):
    x, y = fold_scores
    native = bayes_hier.correlated_ttest(x, y, rope=0.01, runs=10)
    assert CorrelatedTTest.probs(x, y, 0.01, 10) == pytest.approx(tuple(native.probs))
    assert len(CorrelatedTTest.probs(x, y, 0.01, 10)) == 3
    two = CorrelatedTTest.probs(x, y, rope=0, runs=10)
    assert len(two) == 2 and sum(two) == pytest.approx(1)
    mean, var, df = CorrelatedTTest.compute_statistics(x, y, runs=10)
    d = y - x
    assert mean == pytest.approx(d.mean())
    assert var == pytest.approx(np.var(d, ddof=1) * (1 / 100 + 1 / (10 - 1)))  # baycomp's
    assert df == 99


def test_correlated_t_posterior_object(fold_scores):
    x, y = fold_scores
    posterior = CorrelatedTTest(x, y, 0.01, 10, names=("A", "B"), nsamples=1000, random_state=3)
    assert posterior.probs() == pytest.approx(tuple(posterior.result.probs))
    assert posterior.sample.shape == (1000,)
    assert posterior.sample is posterior.sample
    again = CorrelatedTTest.sample(x, y, 10, nsamples=1000, random_state=3)
    np.testing.assert_array_equal(posterior.sample, again)
    assert (posterior.meanx, posterior.meany) == (pytest.approx(x.mean()), pytest.approx(y.mean()))
    assert isinstance(posterior.plot(), Figure)
    assert isinstance(CorrelatedTTest.plot(x, y, 0.01, 10, names=("A", "B")), Figure)


def test_correlated_t_zero_variance_like_baycomp():
    x = np.full(10, 0.8)
    assert CorrelatedTTest.probs(x, x, rope=0) == (0.5, 0.5)
    assert CorrelatedTTest.probs(x, x + 0.005, rope=0.01) == (0.0, 1.0, 0.0)
    assert CorrelatedTTest.probs(x, x + 0.02, rope=0.01) == (0.0, 0.0, 1.0)


def test_two_on_single(fold_scores):
    x, y = fold_scores
    probs = two_on_single(x, y, 0.01, runs=10)
    assert probs == CorrelatedTTest.probs(x, y, 0.01, 10)
    probs_again, fig = two_on_single(x, y, 0.01, runs=10, names=("A", "B"), plot=True)
    assert probs_again == probs and isinstance(fig, Figure)
    assert len(two_on_single(x, y, runs=10)) == 2


# ---------------------------------------------------------------------- sign and signed-rank
def test_sign_test_facade_equals_native(dataset_scores):
    x, y = dataset_scores
    native = bayes_hier.sign_test(x, y, rope=0.01, nsamples=5000, seed=7)
    assert SignTest.probs(x, y, 0.01, nsamples=5000, random_state=7) == tuple(native.probs)
    np.testing.assert_array_equal(
        SignTest.sample(x, y, 0.01, nsamples=5000, random_state=7), native.sample
    )
    placed = bayes_hier.sign_test(
        x, y, rope=0.01, prior=2.0, prior_place="left", nsamples=5000, seed=7
    )
    assert SignTest.probs(
        x, y, 0.01, prior=(2.0, SignTest.LEFT), nsamples=5000, random_state=7
    ) == tuple(placed.probs)


def test_sign_test_prior_tuple_is_strength_then_place(dataset_scores):
    """baycomp's docstring shows (SignTest.LEFT, 1.0), its code unpacks (strength, place): a
    float in the place is refused rather than read as strength 0 on the rope."""
    x, y = dataset_scores
    with pytest.raises(ValueError, match=r"tuple \(strength, place\), e\.g\. \(1\.0, SignTest"):
        SignTest.probs(x, y, 0.01, prior=(SignTest.LEFT, 1.0), random_state=1)
    with pytest.raises(ValueError, match="tuple"):
        SignTest.probs(x, y, 0.01, prior=(1.0,), random_state=1)


def test_sign_test_rope_zero_two_tuple(dataset_scores):
    x, y = dataset_scores
    probs = SignTest.probs(x, y, 0, nsamples=5000, random_state=1)
    assert len(probs) == 2 and sum(probs) == pytest.approx(1)
    posterior = SignTest(x, y, 0, nsamples=5000, random_state=1)
    winners = np.bincount(posterior.sample.argmax(axis=1), minlength=3)
    assert probs[1] == pytest.approx(winners[2] / (winners[0] + winners[2]))


def test_signed_rank_facade_equals_native(dataset_scores):
    x, y = dataset_scores
    for rope in (0, 0.01):
        native = bayes_hier.signed_rank_test(x, y, rope=rope, nsamples=4000, seed=5)
        facade = SignedRankTest.probs(x, y, rope, nsamples=4000, random_state=5)
        assert facade == native.probs.as_tuple(include_rope=rope > 0)
    posterior = SignedRankTest(x, y, 0.01, nsamples=4000, random_state=5)
    np.testing.assert_array_equal(posterior.sample, native.sample)
    assert posterior.probs() == tuple(native.probs)
    assert posterior.probs(with_rope=False) == pytest.approx(
        (
            native.probs.left / (native.probs.left + native.probs.right),
            native.probs.right / (native.probs.left + native.probs.right),
        )
    )
    # seeds are honoured: same seed identical, other seed different, RandomState accepted
    same = SignedRankTest.sample(x, y, 0.01, nsamples=500, random_state=1)
    np.testing.assert_array_equal(
        same, SignedRankTest.sample(x, y, 0.01, nsamples=500, random_state=1)
    )
    assert not np.array_equal(same, SignedRankTest.sample(x, y, 0.01, nsamples=500, random_state=2))
    rs = SignedRankTest.sample(x, y, 0.01, nsamples=50, random_state=np.random.RandomState(0))
    assert rs.shape == (50, 3)


def test_plots_of_the_multiple_tests(dataset_scores):
    x, y = dataset_scores
    kw = {"nsamples": 2000, "random_state": 0, "names": ("A", "B")}
    for figure in (
        SignedRankTest.plot(x, y, 0.01, **kw),
        SignedRankTest.plot_simplex(x, y, 0.01, **kw),
        SignedRankTest.plot_histogram(x, y, **kw),
        SignTest.plot(x, y, 0.01, **kw),
        SignedRankTest(x, y, 0, nsamples=2000, random_state=0).plot(("C", "D")),
    ):
        assert isinstance(figure, Figure)


def test_two_on_multiple_one_dimensional_is_signed_rank(dataset_scores):
    x, y = dataset_scores
    probs = two_on_multiple(x, y, 0.01, random_state=4, nsamples=3000)
    assert probs == SignedRankTest.probs(x, y, 0.01, random_state=4, nsamples=3000)
    probs_again, fig = two_on_multiple(
        x, y, 0.01, random_state=4, nsamples=3000, plot=True, names=("A", "B")
    )
    assert probs_again == probs and isinstance(fig, Figure)


def test_nothing_is_written_to_the_working_directory(tmp_path, monkeypatch, fold_scores):
    monkeypatch.chdir(tmp_path)
    x, y = fold_scores
    two_on_single(x, y, 0.01, runs=10, plot=True)
    two_on_multiple(x[:20], y[:20], 0.01, nsamples=500, plot=True)
    SignTest.probs(x[:20], y[:20], 0.01, nsamples=500)
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------------- baycomp's constructors
def test_posterior_built_from_a_sample_like_baycomps_documented_example():
    """baycomp's own test of ``multiple.Posterior``: argmax shares (2, 1, 3)/6, (2, 3)/5."""
    sample = np.array(
        [
            [0.2, 0.1, 0.7],
            [0.4, 0.1, 0.5],
            [0.1, 0.1, 0.8],
            [0.9, 0.0, 0.1],
            [0.8, 0.1, 0.1],
            [0, 1, 0],
        ]
    )
    posterior = Posterior(sample)
    np.testing.assert_allclose(posterior.probs(), np.array([2, 1, 3]) / 6)
    np.testing.assert_allclose(posterior.probs(True), np.array([2, 1, 3]) / 6)
    np.testing.assert_allclose(posterior.probs(False), np.array([2, 3]) / 5)
    assert posterior.result is None and posterior.names is None
    named = Posterior(sample, names=("a", "b"))
    for figure in (named.plot(), named.plot_simplex(), named.plot_histogram(("c", "d"))):
        assert isinstance(figure, Figure)
    with pytest.raises(ValueError, match=r"shape \(nsamples, 3\)"):
        Posterior(np.ones((4, 2)))


def test_single_posterior_built_from_its_statistics():
    """``SinglePosterior(mean, var, df, rope)``: the Student CDF, as baycomp computes it."""
    mean, var, df = 0.01, 0.004**2, 9
    posterior = SinglePosterior(mean, var, df, 0.005, names=("A", "B"), nsamples=2000)
    t = stats.t(df, mean, np.sqrt(var))
    left, right = t.cdf(-0.005), t.sf(0.005)
    assert posterior.probs() == pytest.approx((left, 1 - left - right, right), abs=1e-12)
    assert SinglePosterior(mean, var, df).probs() == pytest.approx((t.cdf(0), t.sf(0)))
    assert SinglePosterior(0.0, 0.0, 9).probs() == (0.5, 0.5)  # point mass at 0
    assert SinglePosterior(0.02, 0.0, 9, 0.01).probs() == (0.0, 0.0, 1.0)
    seeded = SinglePosterior(mean, var, df, nsamples=50_000, random_state=1)
    assert seeded.sample is seeded.sample
    assert seeded.sample.mean() == pytest.approx(mean, abs=4 * np.sqrt(var * 9 / 7 / 50_000))
    assert isinstance(posterior.plot(), Figure)
    with pytest.raises(ValueError, match="var >= 0"):
        SinglePosterior(0.0, -1.0, 9)


def test_correlated_t_posterior_equals_the_one_built_from_its_statistics(fold_scores):
    x, y = fold_scores
    built = CorrelatedTTest(x, y, 0.01, 10)
    direct = SinglePosterior(built.mean, built.var, built.df, built.rope)
    assert direct.probs() == built.probs()


# ---------------------------------------------------------------------- decided differences
def test_posterior_probs_keeps_the_rope_share_at_rope_zero_like_baycomp():
    x = np.array([0.8, 0.7, 0.9, 0.6, 0.75, 0.85])
    y = x + np.array([0.0, 0.0, 0.0, 0.0, 0.02, -0.01])  # four exact zeros
    posterior = SignTest(x, y, 0, nsamples=4000, random_state=3)
    raw = posterior.probs()
    winners = np.bincount(posterior.sample.argmax(axis=1), minlength=3) / 4000
    np.testing.assert_allclose(raw, winners)
    assert raw[1] > 0.5  # the zeros' share stays with the rope
    left, right = SignTest.probs(x, y, 0, nsamples=4000, random_state=3)
    assert (left, right) == pytest.approx((raw[0] / (raw[0] + raw[2]), raw[2] / (raw[0] + raw[2])))


def test_two_on_multiple_sends_lists_of_fold_arrays_to_the_hierarchical_test(dataset_scores):
    """Data sets with 10 and 5 folds (a list of 1-D arrays) are fold-level data: the
    hierarchical test's engine check answers, not numpy's 'inhomogeneous shape'."""
    rng = np.random.default_rng(0)
    x = [rng.normal(0.8, 0.01, n) for n in (10, 10, 10, 5)]
    y = [row + 0.01 for row in x]
    with pytest.raises(ValueError, match="Unknown engine 'no such engine'"):
        two_on_multiple(x, y, 0.01, engine="no such engine")
    means = two_on_multiple([r.mean() for r in x], [r.mean() for r in y], 0.01, nsamples=100)
    assert len(means) == 3  # one score per data set: the signed-rank test


def test_two_on_multiple_returns_three_values_at_rope_zero_like_baycomp(dataset_scores):
    x, y = dataset_scores
    probs = two_on_multiple(x, y, 0, nsamples=2000, random_state=1)
    assert len(probs) == 3 and sum(probs) == pytest.approx(1)
    assert probs == SignedRankTest(x, y, 0, nsamples=2000, random_state=1).probs()


def test_no_winner_at_rope_zero_is_an_even_split_not_nan(dataset_scores):
    x, _ = dataset_scores
    assert SignTest.probs(x, x, 0, nsamples=1000, random_state=0) == (0.5, 0.5)


def test_signed_rank_prior_zero_is_accepted(dataset_scores):
    x, y = dataset_scores
    probs = SignedRankTest.probs(x, y, 0.01, prior=0, nsamples=2000, random_state=0)
    assert len(probs) == 3 and sum(probs) == pytest.approx(1)
    with pytest.raises(ValueError, match="prior"):
        SignedRankTest.probs(x, y, 0.01, prior=-1, nsamples=100)


@pytest.mark.parametrize("bad", [1.7, "a", True, [1]])
def test_random_state_follows_the_seed_policy(dataset_scores, fold_scores, bad):
    x, y = dataset_scores
    for call in (
        lambda: SignTest(x, y, 0.01, nsamples=100, random_state=bad),
        lambda: SignedRankTest.probs(x, y, 0.01, nsamples=100, random_state=bad),
        lambda: CorrelatedTTest(*fold_scores, 0.01, 10, random_state=bad),
        lambda: SinglePosterior(0.0, 1.0, 9, random_state=bad),
    ):
        with pytest.raises(TypeError, match="random_state"):
            call()
    generator = SignTest.sample(x, y, 0.01, nsamples=100, random_state=np.random.default_rng(4))
    again = SignTest.sample(x, y, 0.01, nsamples=100, random_state=np.random.default_rng(4))
    np.testing.assert_array_equal(generator, again)
    sequence = SignTest.sample(x, y, 0.01, nsamples=100, random_state=np.random.SeedSequence(4))
    assert sequence.shape == (100, 3)


def test_facade_pairs_pandas_series_by_label(dataset_scores, fold_scores):
    x, y = dataset_scores
    labels = [f"d{i}" for i in range(x.size)]
    xs, ys = pd.Series(x, index=labels), pd.Series(y, index=labels)
    shuffled = ys.iloc[np.random.default_rng(0).permutation(x.size)]
    for test in (SignTest, SignedRankTest):
        assert test.probs(xs, shuffled, 0.01, nsamples=500, random_state=1) == test.probs(
            x, y, 0.01, nsamples=500, random_state=1
        )
    assert two_on_multiple(xs, shuffled, 0.01, nsamples=500, random_state=1) == two_on_multiple(
        x, y, 0.01, nsamples=500, random_state=1
    )
    fx, fy = fold_scores
    folds = pd.Series(fx), pd.Series(fy)
    order = np.random.default_rng(1).permutation(fx.size)
    assert CorrelatedTTest.probs(folds[0], folds[1].iloc[order], 0.01, 10) == pytest.approx(
        CorrelatedTTest.probs(fx, fy, 0.01, 10)
    )
    with pytest.raises(ValueError, match="x and y have different index labels"):
        SignTest.probs(xs, ys.set_axis([f"e{i}" for i in range(x.size)]), 0.01)


def test_facade_counts_are_integers(fold_scores):
    x, y = fold_scores
    with pytest.raises(TypeError, match="runs"):
        CorrelatedTTest.probs(x, y, 0.01, runs=True)
    with pytest.raises(ValueError, match="runs"):
        CorrelatedTTest.probs(x, y, 0.01, runs=2.5)
    assert CorrelatedTTest.probs(x, y, 0.01, runs=10.0) == CorrelatedTTest.probs(x, y, 0.01, 10)
    with pytest.raises(TypeError, match="nsamples"):
        SignTest.probs(x[:20], y[:20], 0.01, nsamples="many")


# ---------------------------------------------------------------------- hierarchical
FAST = {"chains": 2, "nsamples": 400, "warmup": 200, "warn": False}


@pytest.mark.stan
def test_hierarchical_facade(engine, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x, y = simulated_scores(6, 0.03, seed=3)
    posterior = HierarchicalTest(x, y, 0.01, runs=10, random_state=11, engine=engine, **FAST)
    assert posterior.sample.shape == (400, 3)  # nsamples = total draws over the chains
    result = posterior.result
    assert result.settings["draws"] == 200 and result.settings["seed"] == 11
    assert {"divergences", "max_rhat"} <= set(result.diagnostics)
    probs = posterior.probs()
    assert len(probs) == 3 and sum(probs) == pytest.approx(1)
    native = bayes_hier.hierarchical_test(
        x, y, 0.01, 10, seed=11, chains=2, draws=200, warmup=200, engine=engine, warn=False
    )
    assert probs == tuple(native.probs)
    again = HierarchicalTest.probs(x, y, 0.01, 10, random_state=11, engine=engine, **FAST)
    assert again == probs
    three = two_on_multiple(x, y, 0, runs=10, random_state=11, engine=engine, **FAST)
    assert len(three) == 3 and sum(three) == pytest.approx(1)  # as baycomp's code returns
    assert os.listdir(tmp_path) == []
    posterior = HierarchicalTest(
        x, y, 0.01, 10, lower_alpha=1, upper_beta=0.2, random_state=1, engine=engine, **FAST
    )
    assert posterior.result.prior.alpha_range == (1, 5.0)
    assert posterior.result.prior.beta_range == (0.05, 0.2)
