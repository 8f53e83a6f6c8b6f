"""Vectorised R-hat / ESS (bayes_hier.diagnostics) against arviz, one-chain R-hat, NaN checks."""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pytest
from arviz.stats import diagnostics as arviz_diagnostics

from bayes_hier import diagnostics as d


def autoregressive(rng, chains, draws, columns, phi):
    """AR(1) chains x_t = phi x_{t-1} + e_t: autocorrelated draws with a known structure."""
    x = np.zeros((chains, draws, columns))
    noise = rng.normal(size=(chains, draws, columns))
    for t in range(1, draws):
        x[:, t] = phi * x[:, t - 1] + noise[:, t]
    return x


def fixed_idata(chains: int, draws: int) -> az.InferenceData:
    """Scalars, vectors, strong and negative autocorrelation, a constant, ties, a shifted chain."""
    rng = np.random.default_rng(chains * 1000 + draws)
    vector = autoregressive(rng, chains, draws, 6, 0.9) + np.arange(6) * 0.1
    vector[..., 5] = np.round(vector[..., 5])  # heavy ties in the ranks
    shifted = autoregressive(rng, chains, draws, 1, 0.5)[..., 0]
    shifted[0] += 3.0  # one chain elsewhere: R-hat far above 1 when chains > 1
    posterior = {
        "scalar": autoregressive(rng, chains, draws, 1, 0.3)[..., 0],
        "vector": vector,
        "constant": np.ones((chains, draws, 2)),
        "negative": autoregressive(rng, chains, draws, 3, -0.5),
        "shifted": shifted,
    }
    return az.from_dict(posterior=posterior)


def arviz_values(idata, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "rhat":
            dataset = az.rhat(idata)
        else:
            dataset = az.ess(idata, method=method)
    return np.concatenate([np.ravel(dataset[v].values) for v in idata.posterior.data_vars])


@pytest.mark.parametrize("chains, draws", [(4, 1000), (2, 37), (3, 5), (4, 4), (1, 200)])
def test_vectorised_diagnostics_equal_arviz(chains, draws):
    idata = fixed_idata(chains, draws)
    x = d.draws_matrix(idata, list(idata.posterior.data_vars))
    assert x.shape == (chains, draws, 1 + 6 + 2 + 3 + 1)
    np.testing.assert_allclose(d.bulk_ess(x), arviz_values(idata, "bulk"), rtol=1e-10)
    np.testing.assert_allclose(d.tail_ess(x), arviz_values(idata, "tail"), rtol=1e-10)
    if chains > 1:
        rhat = d.rank_rhat(x)
        np.testing.assert_allclose(rhat, arviz_values(idata, "rhat"), rtol=1e-10)
        assert rhat[-1] > 1.1  # the shifted chain is caught


def test_average_ranks_equal_scipy_with_and_without_ties():
    """Rows without ties take their sorted positions, rows with ties (rounded draws, a constant
    row, a tie of the extremes) their average ranks: scipy's ``rankdata(method="average")``."""
    from scipy import stats

    rng = np.random.default_rng(4)
    rows = rng.normal(size=(7, 50))
    rows[1] = np.round(rows[1])
    rows[3] = 2.5
    rows[4, :3] = rows[4].max()
    rows[5, [0, 9, 17]] = rows[5].min()
    ranks = d.average_ranks(rows)
    np.testing.assert_array_equal(ranks, stats.rankdata(rows, axis=1, method="average"))
    np.testing.assert_array_equal(ranks[3], np.full(50, 25.5))


@pytest.mark.parametrize("threads", [2, 3, 13])
def test_column_blocks_on_threads_give_the_one_thread_numbers(threads):
    """R-hat and the ESS of each column depend on that column alone: cut into blocks diagnosed on
    threads (13 blocks of 1 column), the numbers are those of one pass over all columns, in the
    columns' order (a shifted chain in one column, a constant column)."""
    rng = np.random.default_rng(3)
    x = autoregressive(rng, 4, 300, 13, 0.5)
    x[2, :, 5] += 1.5
    x[:, :, 9] = 0.25
    one = d.column_diagnostics(x, threads=1)
    np.testing.assert_allclose(one[0], d.rank_rhat(x), rtol=1e-14)
    np.testing.assert_allclose(one[1], d.bulk_ess(x), rtol=1e-14)
    np.testing.assert_allclose(one[2], d.tail_ess(x), rtol=1e-14)
    assert np.nanargmax(one[0]) == 5 and one[0][5] > 1.1 and np.isnan(one[0][9])
    for single, threaded in zip(one, d.column_diagnostics(x, threads=threads), strict=True):
        np.testing.assert_allclose(threaded, single, rtol=1e-14)


def test_one_chain_gets_the_split_rhat_of_its_halves():
    rng = np.random.default_rng(7)
    chain = autoregressive(rng, 1, 2000, 3, 0.2)
    chain[0, 1000:, 2] += 2.0  # the second half drifted
    rhat = d.rank_rhat(chain)
    assert np.all(np.isfinite(rhat))
    # arviz leaves one chain at NaN; its own split-R-hat steps on the halves give our number.
    for k in range(3):
        halves = arviz_diagnostics._split_chains(chain[0, :, k])
        bulk = arviz_diagnostics._rhat(arviz_diagnostics._z_scale(halves))
        folded = np.abs(halves - np.median(halves))
        tail = arviz_diagnostics._rhat(arviz_diagnostics._z_scale(folded))
        assert rhat[k] == pytest.approx(max(bulk, tail), rel=1e-12)
    assert rhat[0] < 1.05 and rhat[2] > 1.5


def with_stats(idata: az.InferenceData, chains: int, draws: int) -> az.InferenceData:
    rng = np.random.default_rng(1)
    idata.add_groups(
        sample_stats={
            "diverging": np.zeros((chains, draws), bool),
            "tree_depth": np.full((chains, draws), 3),
            "energy": rng.normal(size=(chains, draws)).cumsum(axis=1) * 0.1
            + rng.normal(size=(chains, draws)),
        }
    )
    return idata


def test_one_chain_fit_is_judged_not_nan():
    idata = with_stats(
        az.from_dict(posterior={"mu": np.random.default_rng(2).normal(size=(1, 500))}), 1, 500
    )
    diagnostics = d.compute_diagnostics(idata, ["mu"], max_treedepth=10)
    assert np.isfinite(diagnostics["max_rhat"]) and diagnostics["max_rhat"] < 1.01
    assert not any("R-hat" in p for p in d.diagnostic_problems(diagnostics))


def test_diagnostics_that_cannot_be_computed_are_reported():
    idata = with_stats(az.from_dict(posterior={"mu": np.arange(6.0).reshape(2, 3)}), 2, 3)
    diagnostics = d.compute_diagnostics(idata, ["mu"], max_treedepth=10)
    assert np.isnan(diagnostics["max_rhat"]) and np.isnan(diagnostics["min_ess_bulk"])
    problems = d.diagnostic_problems(diagnostics)
    assert any("R-hat cannot be computed" in p for p in problems)
    assert any("bulk ESS cannot be computed" in p for p in problems)
    with pytest.warns(d.SamplingWarning, match="cannot be judged"):
        d.warn_on_problems(problems, "test")


def test_compute_diagnostics_matches_arviz_extremes():
    idata = with_stats(fixed_idata(4, 300), 4, 300)
    names = ["scalar", "vector", "negative"]
    diagnostics = d.compute_diagnostics(idata, names, max_treedepth=3)
    subset = idata.posterior[names]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rhat = az.rhat(subset).to_array().values
        bulk = az.ess(subset, method="bulk").to_array().values
    assert diagnostics["max_rhat"] == pytest.approx(np.nanmax(rhat), rel=1e-10)
    assert diagnostics["min_ess_bulk"] == pytest.approx(np.nanmin(bulk), rel=1e-10)
    assert diagnostics["max_treedepth_hits"] == 4 * 300
    assert diagnostics["min_ebfmi"] == pytest.approx(float(np.min(az.bfmi(idata))))


@pytest.mark.stan
def test_one_chain_hierarchical_fit_reports_a_split_rhat(engine):
    from bayes_hier import CVData, hierarchical_test

    rng = np.random.default_rng(3)
    cv = CVData(rng.normal(0.01, 0.03, (6, 20)), runs=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = hierarchical_test(cv, rope=0.01, chains=1, draws=300, warmup=300, seed=2)
    rhat = result.diagnostics["max_rhat"]
    assert np.isfinite(rhat) and 0.99 < rhat < 1.1
    # Equal to the split R-hat of the half-chains of every diagnosed variable, computed apart.
    from bayes_hier.hierarchical.model import DIAGNOSED

    names = [v for v in DIAGNOSED if v in result.idata.posterior]
    assert rhat == pytest.approx(np.nanmax(d.rank_rhat(d.draws_matrix(result.idata, names))))
    assert not any("R-hat cannot" in str(w.message) for w in caught)


#: Diagnostics of a fit that passes every check.
HEALTHY = {
    "divergences": 0,
    "max_rhat": 1.002,
    "min_ess_bulk": 900.0,
    "min_ess_tail": 800.0,
    "max_treedepth_hits": 0,
    "min_ebfmi": 0.8,
    "chains": 4,
    "draws": 1000,
}


def test_only_convergence_failures_block_a_decision():
    healthy = HEALTHY
    assert d.diagnostic_problems(healthy) == d.convergence_problems(healthy) == []
    slow = {**healthy, "max_treedepth_hits": 3, "min_ebfmi": 0.2}  # efficiency, not validity
    assert len(d.diagnostic_problems(slow)) == 2 and d.convergence_problems(slow) == []
    for failure in (
        {"divergences": 1},
        {"max_rhat": 1.02},
        {"max_rhat": float("nan")},
        {"min_ess_bulk": 399.0},
        {"min_ess_tail": 120.0},
    ):
        problems = d.convergence_problems({**healthy, **failure})
        assert len(problems) == 1
        assert problems == d.diagnostic_problems({**healthy, **failure})


def test_a_one_fit_results_hints_follow_its_failed_checks_only():
    """A model's failure hints are added after the failed checks (in ``problems`` and in the
    warnings), and never to a fit whose checks passed."""
    healthy = HEALTHY

    class Fit(d.OneFitChecks):
        fit_label = "some model"

        def __init__(self, diagnostics):
            self.diagnostics = diagnostics

        def failure_hints(self):
            return ["the cause, and its fix."]

    assert Fit(healthy).problems == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Fit(healthy).warn()  # nothing to warn about
    failed = Fit({**healthy, "divergences": 3})
    ((key, found),) = failed.problems.items()
    assert key == ("some model", "all pairs")
    assert len(found) == 2 and "3 divergent transitions" in found[0]
    assert found[1] == "the cause, and its fix."
    with pytest.warns(d.SamplingWarning) as caught:
        failed.warn()
    assert [str(w.message) for w in caught][-1] == "some model: the cause, and its fix."
    assert not failed.converged
    assert failed.not_converged_note.endswith("; the cause, and its fix.)")
    assert Fit(healthy).not_converged_note is None
