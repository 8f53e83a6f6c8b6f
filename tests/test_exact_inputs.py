"""Exact inputs get exact answers: identical models, and differences that are constant up to
rounding, neither collapse the priors' bounds to rounding noise nor stall the sampler."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayes_hier import compare, hierarchical_test
from bayes_hier.data import CVData
from bayes_hier.diagnostics import SamplingWarning, format_beyond
from bayes_hier.hierarchical.model_input import (
    HierarchicalPrior,
    build_model_input,
    constant_datasets,
    spread_of_means_or_unit,
)
from bayes_hier.joint.data import MultiCVData
from bayes_hier.joint.model_input import perturb_ties
from bayes_hier.rope import Rope
from bayes_hier.scores import model_scores

RNG = np.random.default_rng(0)
X = RNG.uniform(0.7, 0.9, size=(10, 10))


def model_input(y: np.ndarray, rope: float = 0.01):
    cv = CVData.from_arrays(X, y, runs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cv, build_model_input(
            cv, Rope(-rope, rope), HierarchicalPrior(), np.random.default_rng(1)
        )


@pytest.mark.parametrize("shift", [0.0, 0.02, 0.3])
def test_constant_differences_give_exact_means_and_unit_bounds(shift):
    """X vs X + shift: every data set is constant (exactly for 0; up to the last bits otherwise),
    its mean is the same number on every data set, and the spread of the means (0) does not set
    σ₀'s bound (1000 · 1e-17 before) nor δ₀'s coordinate: both use the unit, mean_i(s_i) = 1."""
    cv, built = model_input(X + shift)
    assert constant_datasets(cv).all()
    assert len(built.perturbed) == 10
    scaled = np.asarray(built.data["xbar"]) * built.scale
    assert np.ptp(scaled) <= 1e-15 and scaled[0] == pytest.approx(shift, abs=1e-15)
    assert built.data["sigma0_upper"] == 1000.0
    assert built.data["delta0_spread"] == pytest.approx(1 / np.sqrt(10))
    # the perturbation keeps each mean: the spread is ±u_j around it
    for d, mean in zip(built.differences, built.data["xbar"]):
        assert np.sort(d - mean)[:5] == pytest.approx(-np.sort(d - mean)[::-1][:5], abs=1e-12)


def test_identical_scores_give_means_of_exactly_zero():
    _, built = model_input(X.copy())
    assert np.all(np.asarray(built.data["xbar"]) == 0.0)
    assert built.data["delta0_centre"] == 0.0


def test_a_real_spread_of_means_is_kept():
    """Data whose means differ keep sd(x̄) as the scale of σ₀'s bound, to the last bit."""
    y = X + RNG.normal(0.01, 0.02, X.shape)
    cv, built = model_input(y)
    means = np.asarray(built.data["xbar"])
    assert not constant_datasets(cv).any() and built.perturbed == ()
    assert built.data["sigma0_upper"] == 1000.0 * np.std(means, ddof=1)
    assert spread_of_means_or_unit(means, 1.0) == np.std(means, ddof=1)


def test_spread_of_means_within_rounding_is_the_unit():
    means = np.array([0.02, 0.02 + 3e-18, 0.02 - 3e-18])
    assert spread_of_means_or_unit(means, 0.9) == 1.0
    assert spread_of_means_or_unit(np.array([0.5]), 0.9) == 1.0
    assert spread_of_means_or_unit(np.array([0.0, 1e-6]), 0.9) == pytest.approx(1e-6 / np.sqrt(2))


def test_joint_ties_are_found_up_to_rounding():
    """Model b = a + 0.02 on every fold (the differences differ in the last bits) is a tie of the
    joint model: perturbed, so its contrasts' scatter is regular."""
    other = X + RNG.normal(0.0, 0.02, X.shape)
    scores = model_scores({"a": X, "b": X + 0.02, "c": other}, runs=1)
    data = MultiCVData.from_scores(scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blocks, labels = perturb_ties(data, Rope(-0.01, 0.01), np.random.default_rng(0))
    assert len(labels) == 10 and all(label.endswith("a vs b") for label in labels)
    for block in blocks:
        difference = block[:, 1] - block[:, 0]
        assert difference.mean() == pytest.approx(0.02, abs=1e-15)
        assert 0 < np.ptp(difference) <= 0.02


@pytest.mark.parametrize(
    ("value", "threshold", "decimals", "text"),
    [
        (1.0103, 1.01, 3, "1.0103"),
        (1.012, 1.01, 3, "1.012"),
        (1.0100004, 1.01, 3, "1.0100004"),
        (399.6, 400, 0, "399.6"),
        (12.2, 400, 0, "12"),
        (0.2996, 0.3, 2, "0.2996"),
    ],
)
def test_a_failing_value_never_prints_as_its_threshold(value, threshold, decimals, text):
    assert format_beyond(value, threshold, decimals) == text


def assert_no_sampling_warning(caught):
    problems = [str(w.message) for w in caught if issubclass(w.category, SamplingWarning)]
    assert problems == []


@pytest.mark.stan
def test_identical_models_are_practically_equivalent_without_sampling_problems(engine):
    """hierarchical_test(X, X.copy()): P(rope) = 1 (every draw of the next data set's
    Student-t has its mass in the rope) and the fit converges with the default settings
    (before: R-hat 12, bulk ESS 4)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = hierarchical_test(X, X.copy(), rope=0.01, runs=1, seed=1, engine=engine)
    assert_no_sampling_warning(caught)
    assert tuple(result.probs) == pytest.approx((0.0, 1.0, 0.0), abs=0.005)
    assert result.diagnostics["max_rhat"] <= 1.01


@pytest.mark.stan
def test_compare_of_identical_models_is_practically_equivalent(engine):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compare({"a": X, "b": X.copy()}, rope=0.01, seed=2, engine=engine)
    assert_no_sampling_warning(caught)
    assert result.problems == {}
    row = result.pairs.iloc[0]
    assert (row.p_first_better, row.p_rope, row.p_second_better) == pytest.approx(
        (0.0, 1.0, 0.0), abs=0.005
    )


def test_package_warnings_name_the_callers_line():
    """Warnings raised deep in the package (the rope check inside a test, the diagnostics) point
    at the user's call, not at the package's own line."""
    from bayes_hier import signed_rank_test
    from bayes_hier.diagnostics import warn_on_problems

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        signed_rank_test(X * 100, X * 100 + 1, rope=0.01)  # a [0, 1] rope on percentages
        warn_on_problems(["max R-hat is 1.0103 > 1.01"], "joint model")
    assert [w.filename for w in caught if w.category.__module__.startswith("bayes_hier")] == [
        __file__,
        __file__,
    ]


@pytest.mark.stan
def test_joint_model_of_identical_models_warns_at_the_callers_line():
    """Three identical models in the joint model: the ties are spread (the contrasts' means are 0
    up to rounding, which sets no scale), every pair is practically equivalent, and each warning
    (the ties; any diagnostic of these short chains) names this file, not the package."""
    from bayes_hier import joint_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = joint_test(
            {"a": X, "b": X.copy(), "c": X.copy()},
            rope=0.01,
            seed=1,
            chains=2,
            draws=200,
            warmup=200,
        )
    ours = [w for w in caught if w.category.__module__.startswith("bayes_hier")]
    assert ours and {w.filename for w in ours} == {__file__}
    assert len(result.model_input.perturbed) == 20  # b and c tie with a on all 10 data sets
    for pair in result.pair_results.values():
        assert pair.probs.rope >= 0.99
