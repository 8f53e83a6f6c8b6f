"""The hierarchical test end to end on simulated data (few draws, real properties)."""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from bayes_hier import HierarchicalResult, hierarchical_test
from bayes_hier.diagnostics import SamplingWarning
from bayes_hier.hierarchical.model_input import ConstantDifferencesWarning

from .conftest import simulated_scores

pytestmark = pytest.mark.stan
FAST = {"chains": 2, "draws": 300, "warmup": 300, "warn": False}


@pytest.fixture(scope="module")
def clear_win(engine):
    """Second model better by 0.05 on 12 data sets (rope 0.01): right must dominate."""
    x, y = simulated_scores(12, np.linspace(0.03, 0.07, 12), seed=1)
    # 4 x 400 draws: enough to pass the convergence checks a decision needs (2 x 300 gave R-hat
    # 1.025, 2 x 600 1.0101: "not converged").
    settings = {**FAST, "chains": 4, "draws": 400, "warmup": 400}
    return hierarchical_test(
        x, y, rope=0.01, runs=10, names=("A", "B"), seed=7, engine=engine, **settings
    )


def test_clear_winner_is_declared(clear_win):
    res = clear_win
    assert isinstance(res, HierarchicalResult)
    assert res.probs.right > 0.95 and res.decision().outcome == "right"
    assert res.probs_by_name["B better"] == res.probs.right
    assert sum(res.probs) == pytest.approx(1.0)
    assert sum(res.predictive) == pytest.approx(1.0)
    assert 0.03 < res.population.mean < 0.07
    assert res.population.hdi_low < res.population.mean < res.population.hdi_high


def test_per_dataset_table_and_shrinkage(clear_win):
    table = clear_win.per_dataset
    assert list(table.columns) == [
        "dataset",
        "mle",
        "shrunk",
        "hdi_low",
        "hdi_high",
        "p_left",
        "p_rope",
        "p_right",
    ]
    assert len(table) == 12
    np.testing.assert_allclose(table[["p_left", "p_rope", "p_right"]].sum(axis=1), 1.0)
    assert (table.hdi_low <= table.shrunk).all() and (table.shrunk <= table.hdi_high).all()
    # shrinkage pulls the estimates toward the population mean: their spread shrinks
    assert table.shrunk.std() < table.mle.std()
    centre = clear_win.population.mean
    assert np.mean(np.abs(table.shrunk - centre)) < np.mean(np.abs(table.mle - centre))


def test_result_reports_and_tables(clear_win):
    text = str(clear_win)
    for needle in ("A vs B on 12 data sets", "P(B better", "Decision", "divergences", "delta0"):
        assert needle in text
    frame = clear_win.to_frame()
    assert list(frame.outcome) == ["left", "rope", "right"]
    assert frame.probability.tolist() == list(clear_win.probs)
    assert set(clear_win.diagnostics) >= {
        "divergences",
        "max_rhat",
        "min_ess_bulk",
        "min_ess_tail",
        "max_treedepth_hits",
        "min_ebfmi",
    }
    assert set(clear_win.idata.posterior.data_vars) >= {"delta0", "sigma0", "nu", "delta", "sigma"}
    assert clear_win.idata.posterior["delta"].dims == ("chain", "draw", "dataset")
    assert clear_win.odds.odds.min() >= 1


def test_plots_return_figures_and_accept_axes(clear_win):
    for method in ("plot_simplex", "plot_shrinkage", "plot_density"):
        fig = getattr(clear_win, method)()
        assert fig.axes
        _, ax = plt.subplots()
        assert getattr(clear_win, method)(ax=ax) is ax.figure
        plt.close("all")
    plt.close(clear_win.plot())


def test_same_seed_same_numbers_other_seed_other_numbers(engine):
    x, y = simulated_scores(6, 0.004, seed=3)
    runs = [
        hierarchical_test(x, y, rope=0.01, runs=10, seed=s, engine=engine, **FAST)
        for s in (11, 11, 12)
    ]
    np.testing.assert_array_equal(runs[0].sample, runs[1].sample)
    assert runs[0].probs == runs[1].probs
    # the true differences are drawn in Python from their full conditional: seeded as well
    pd.testing.assert_frame_equal(runs[0].per_dataset, runs[1].per_dataset)
    assert not np.array_equal(runs[0].sample, runs[2].sample)


def test_equivalent_models_land_in_the_rope(engine):
    x, y = simulated_scores(15, 0.0, sigma=0.01, seed=4)
    res = hierarchical_test(x, y, rope=0.01, runs=10, seed=5, engine=engine, **FAST)
    assert res.probs.rope > 0.9
    assert res.population.probs.rope > 0.9


def test_units_do_not_matter(engine):
    """Percent scores with a rope in percentage points give the fraction-scale answer."""
    x, y = simulated_scores(8, 0.012, seed=6)
    a = hierarchical_test(x, y, rope=0.01, runs=10, seed=9, engine=engine, **FAST)
    b = hierarchical_test(100 * x, 100 * y, rope=1.0, runs=10, seed=9, engine=engine, **FAST)
    assert b.population.mean == pytest.approx(100 * a.population.mean, rel=0.05)
    np.testing.assert_allclose(b.probs, a.probs, atol=0.05)


def test_lower_is_better_mirrors_the_answer(engine):
    x, y = simulated_scores(8, 0.03, seed=8)
    higher = hierarchical_test(x, y, rope=0.01, runs=10, seed=2, engine=engine, **FAST)
    errors = hierarchical_test(
        1 - x, 1 - y, rope=0.01, runs=10, seed=2, engine=engine, higher_is_better=False, **FAST
    )
    assert higher.probs.right > 0.9 and errors.probs.right > 0.9


@pytest.mark.parametrize("nu_prior", ["juarez-steel", "kruschke", "gaussian"])
def test_nu_prior_variants(engine, nu_prior):
    x, y = simulated_scores(6, 0.03, seed=10)
    res = hierarchical_test(
        x, y, rope=0.01, runs=10, seed=1, nu_prior=nu_prior, engine=engine, **FAST
    )
    assert res.probs.right > 0.8
    has_nu = "nu" in res.idata.posterior
    assert has_nu == (nu_prior != "gaussian")
    assert ("nu_alpha" in res.idata.posterior) is False
    assert np.isinf(res.nu_draws).all() == (nu_prior == "gaussian")


def test_constant_data_sets_are_perturbed_reproducibly_and_reported(engine):
    x, y = simulated_scores(6, 0.02, seed=12)
    y[2] = x[2] + 0.01  # identical difference on every fold
    with pytest.warns(ConstantDifferencesWarning, match="dataset 2"):
        a = hierarchical_test(x, y, rope=0.01, runs=10, seed=3, engine=engine, **FAST)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantDifferencesWarning)
        b = hierarchical_test(x, y, rope=0.01, runs=10, seed=3, engine=engine, **FAST)
    assert a.model_input.perturbed == ("dataset 2",)
    np.testing.assert_array_equal(a.model_input.differences[2], b.model_input.differences[2])
    assert a.per_dataset.loc[2, "mle"] == pytest.approx(0.01)
    assert "Perturbed" in str(a)


def test_tidy_frame_input_matches_arrays(engine):
    x, y = simulated_scores(4, 0.02, seed=13)
    rows = [
        (f"d{i}", m, j // 10, j % 10, s[i, j])
        for m, s in (("a", x), ("b", y))
        for i in range(4)
        for j in range(100)
    ]
    frame = pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])
    a = hierarchical_test(frame, rope=0.01, models=("a", "b"), seed=4, engine=engine, **FAST)
    b = hierarchical_test(x, y, rope=0.01, runs=10, names=("a", "b"), seed=4, engine=engine, **FAST)
    np.testing.assert_array_equal(a.sample, b.sample)
    assert list(a.per_dataset.dataset) == ["d0", "d1", "d2", "d3"]


def test_too_few_draws_warn_with_a_fix(engine):
    x, y = simulated_scores(4, 0.02, seed=14)
    with pytest.warns(SamplingWarning, match="ESS"):
        result = hierarchical_test(
            x, y, rope=0.01, runs=10, seed=1, chains=2, draws=20, warmup=100, engine=engine
        )
    # A fit that failed its convergence checks declares nothing; its probabilities stay readable.
    decision = result.decision()
    assert decision.outcome == decision.label == "not converged"
    assert decision.problems == result.convergence_problems and decision.problems
    assert "Increase draws" in str(decision)
    assert sum(result.probs) == pytest.approx(1.0)


def test_single_data_set_is_refused():
    x, y = simulated_scores(1, 0.02)
    with pytest.raises(ValueError, match="correlated t-test"):
        hierarchical_test(x, y, rope=0.01, runs=10)


def test_rope_sensitivity_and_expected_cost_reuse_the_draws(clear_win):
    table = clear_win.rope_sensitivity(max_rope=0.2, num=5)
    assert list(table.rope) == pytest.approx([0, 0.05, 0.1, 0.15, 0.2])
    np.testing.assert_allclose(table[["left", "rope_prob", "right"]].sum(axis=1), 1.0)
    assert table.rope_prob.iloc[0] == 0 and table.rope_prob.is_monotonic_increasing
    assert table.rope_prob.iloc[-1] > 0.95  # a rope wider than every difference
    plt.close(clear_win.plot_rope_sensitivity(max_rope=0.2, num=5))
    cost = clear_win.expected_cost([[0, 1, 10], [10, 1, 0]])
    p = clear_win.probs
    np.testing.assert_allclose(cost.costs, [p.rope + 10 * p.right, 10 * p.left + p.rope])
    assert cost.best == "choose B"
