"""compare(method="hierarchical"): each pair is hierarchical_test on that pair, whatever the
number of workers (small simulated frames, short chains)."""

from __future__ import annotations

import json
import math
import warnings

import pytest

from bayes_hier import compare, hierarchical_test
from bayes_hier.compare.core import pair_seed

from .test_compare import make_frame

MCMC = {"chains": 2, "draws": 300, "warmup": 300}


@pytest.fixture(scope="module")
def frame():
    return make_frame({"a": 0.0, "b": 0.01, "c": 0.02}, q=4, runs=2, folds=5, seed=3)


@pytest.fixture(scope="module")
def inline(frame, engine):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(frame, rope=0.005, seed=7, engine=engine, **MCMC)


@pytest.mark.stan
def test_each_pair_is_the_two_model_hierarchical_test(frame, inline, engine):
    assert inline.method == "hierarchical"
    for first, second in [("a", "b"), ("a", "c"), ("b", "c")]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            alone = hierarchical_test(
                frame,
                rope=0.005,
                models=(first, second),
                seed=pair_seed(7, first, second),
                engine=engine,
                **MCMC,
            )
        pair = inline[first, second]
        assert type(pair) is type(alone)
        assert pair.probs == alone.probs
        assert pair.population.mean == alone.population.mean
    table = inline.pairs
    assert (table["divergences"] >= 0).all() and table["max_rhat"].between(0.9, 1.5).all()
    assert not math.isnan(table["hdi_low"].iloc[0])
    assert inline["c", "a"].probs.left == inline["a", "c"].probs.right


@pytest.mark.stan
def test_warnings_section_lists_every_pair_failing_a_check(inline):
    # The fits' own thresholds (Vehtari et al. 2021): R-hat <= 1.01, ESS >= 100 per chain (2 here).
    failing = {
        pair
        for pair, result in inline.pair_results.items()
        if result.diagnostics["divergences"] > 0
        or result.diagnostics["max_rhat"] > 1.01
        or min(result.diagnostics["min_ess_bulk"], result.diagnostics["min_ess_tail"]) < 200
        or result.diagnostics["max_treedepth_hits"] > 0
        or result.diagnostics["min_ebfmi"] < 0.3
    }
    assert set(inline.problems) == failing
    warnings_section = inline.to_markdown().split("## Warnings")[1]
    for (first, second), reasons in inline.problems.items():
        text = "; ".join(reason.rstrip(".") for reason in reasons)
        assert f"{first} vs {second}: {text}." in warnings_section
    payload = json.loads(json.dumps(inline.to_dict()))  # the engine object among the options
    assert payload["settings"]["options"]["chains"] == 2


@pytest.mark.stan
def test_two_workers_give_the_same_numbers(frame, inline):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel = compare(frame, rope=0.005, seed=7, jobs=2, **MCMC)
    columns = ["p_first_better", "p_rope", "p_second_better", "mean_difference", "max_rhat"]
    assert parallel.pairs[columns].equals(inline.pairs[columns])


@pytest.mark.stan
def test_a_dask_cluster_gives_the_same_numbers(frame, inline):
    pytest.importorskip("distributed")
    import dask
    from distributed import LocalCluster

    # pystan forks chain processes: the worker processes must not be daemonic.
    with dask.config.set({"distributed.worker.daemon": False}):
        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                on_dask = compare(frame, rope=0.005, seed=7, scheduler=cluster, **MCMC)
    columns = ["p_first_better", "p_rope", "p_second_better", "mean_difference"]
    assert on_dask.pairs[columns].equals(inline.pairs[columns])


@pytest.mark.stan
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_pairs_warnings_reach_the_caller_named_by_pair(frame, jobs):
    """b = a + 0.01 on every fold of set0: the pair's test spreads the ties and warns; the warning
    is issued in this process, prefixed with the pair, also when a worker process ran the pair
    (its own standard error would lose it in Jupyter)."""
    from bayes_hier.hierarchical.model_input import ConstantDifferencesWarning

    two = frame[frame["model"].isin(["a", "b"])].copy()
    on_set0 = two["dataset"] == "set0"
    a_scores = two.loc[on_set0 & (two["model"] == "a"), "score"].to_numpy()
    two.loc[on_set0 & (two["model"] == "b"), "score"] = a_scores + 0.01
    with pytest.warns(ConstantDifferencesWarning) as caught:
        compare(two, rope=0.005, seed=7, jobs=jobs, **MCMC)
    messages = [str(w.message) for w in caught if w.category is ConstantDifferencesWarning]
    assert len(messages) == 1
    assert messages[0].startswith("a vs b: 1 data set(s) have the same difference on every fold")
    assert "(set0)" in messages[0]
