"""The paper's experiments (bayes_hier.experiments): generators, drivers, executors, report."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from bayes_hier.experiments import (
    Settings,
    e1_shrinkage,
    e2_equivalent,
    e5_friedman,
    make_executor,
    repetition_seeds,
    run_experiments,
)
from bayes_hier.experiments.generators import (
    FOLD_SD,
    cauchy_deltas,
    friedman_classification,
    friedman_median,
    friedman_sample,
    friedman_settings,
    mixture_deltas,
    mixture_moments,
    simulate_differences,
)
from bayes_hier.experiments.report import markdown_table, write_report
from bayes_hier.experiments.runner import ExperimentOutput, InlineExecutor, run_tasks


# ------------------------------------------------------------------------------ generators
def test_mixture_moments_and_modes():
    rng = np.random.default_rng(0)
    draws = mixture_deltas(200_000, rng)
    mean, variance = mixture_moments()
    assert mean == pytest.approx(0.0125)
    assert variance == pytest.approx(0.001**2 + 0.0075**2)
    assert draws.mean() == pytest.approx(mean, abs=1e-4)
    assert draws.var() == pytest.approx(variance, rel=0.02)
    # Two well-separated modes, half the mass each.
    assert np.mean(draws < 0.0125) == pytest.approx(0.5, abs=0.01)
    assert np.all(np.abs(draws - 0.005) < 0.006) or np.any(draws > 0.015)


def test_cauchy_settings():
    rng = np.random.default_rng(1)
    draws = cauchy_deltas(100_000, 0.005, 0.01 / 6, rng)
    assert np.median(draws) == pytest.approx(0.005, abs=1e-4)
    quartiles = np.percentile(draws, [25, 75])
    assert quartiles[1] - quartiles[0] == pytest.approx(2 * 0.01 / 6, rel=0.05)
    assert np.abs(draws).max() <= 1.0


def test_simulated_differences_have_the_model_error():
    rng = np.random.default_rng(2)
    deltas = np.zeros(4000)
    differences = simulate_differences(deltas, rng)
    assert differences.shape == (4000, 100)
    assert differences.std() == pytest.approx(FOLD_SD, rel=0.03)
    mle_error = np.mean(differences.mean(axis=1) ** 2)
    assert mle_error == pytest.approx(FOLD_SD**2 * (1 + 99 * 0.1) / 100, rel=0.1)


@pytest.mark.parametrize("function, width", [(1, 10), (2, 4), (3, 4)])
def test_friedman_shapes(function, width):
    rng = np.random.default_rng(3)
    x, y = friedman_sample(function, 50, 0.1, rng)
    assert x.shape == (50, width) and y.shape == (50,)
    x, y = friedman_sample(function, 50, 0.1, rng, irrelevant=20)
    assert x.shape == (50, width + 20)
    assert np.all(np.isfinite(y))
    if function > 1:
        assert x[:, 1].min() >= 40 * np.pi and x[:, 1].max() <= 560 * np.pi
        assert x[:, 3].min() >= 1 and x[:, 3].max() <= 11


def test_friedman_median_split_is_balanced_and_deterministic():
    settings = friedman_settings()
    assert len(settings) == 54
    assert [sum(s.function == f for s in settings) for f in (1, 2, 3)] == [18, 18, 18]
    setting = settings[20]
    median = friedman_median(setting.function, setting.noise)
    assert median == friedman_median(setting.function, setting.noise)
    _, labels = friedman_classification(setting, 20_000, np.random.default_rng(4), median)
    assert labels.mean() == pytest.approx(0.5, abs=0.02)


def test_repetition_seeds_are_reproducible_and_distinct():
    a_rng, a_seed = repetition_seeds(1, 2, 3, 4)
    b_rng, b_seed = repetition_seeds(1, 2, 3, 4)
    c_rng, c_seed = repetition_seeds(1, 2, 3, 5)
    assert a_seed == b_seed != c_seed
    assert a_rng.random() == b_rng.random() != c_rng.random()


def test_e5_truth_repetition_without_stan():
    settings = Settings.tiny()
    value = e5_friedman.truth_repetition(0, 0, settings)
    assert value == e5_friedman.truth_repetition(0, 0, settings)
    assert -1 <= value <= 1


def test_run_tasks_keeps_order():
    assert run_tasks(InlineExecutor(), pow, [(2, 3), (3, 2)], "t", progress=False) == [8, 9]


# ------------------------------------------------------------------------------ report
def test_report_writer(tmp_path):
    table = pd.DataFrame({"q": [5, 10], "reps": [2, 2], "mse_mle": [1e-4, 2e-4]})
    output = ExperimentOutput(
        "e1", "E1: test", "a description", {"e1_shrinkage.csv": table}, {"e1.png": "a figure"}, 1.5
    )
    path = write_report(tmp_path, [output], Settings.tiny(), engine="pystan", seconds=3.0)
    text = path.read_text()
    for expected in ("E1: test", "e1_shrinkage.csv", "![a figure](e1.png)", "numpy", "pystan"):
        assert expected in text
    assert "base_seed = " in text and "Base seed" in text
    assert markdown_table(table).count("\n") == 3


# ------------------------------------------------------------------------------ Stan
SMALL = Settings.tiny()


@pytest.mark.stan
def test_single_repetition_is_reproducible():
    first = e1_shrinkage.run_repetition(5, 0, SMALL)
    again = e1_shrinkage.run_repetition(5, 0, SMALL)
    assert first == again
    assert first["mse_mle"] > 0 and first["mse_shrinkage"] > 0


@pytest.mark.stan
def test_tiny_run_end_to_end(tmp_path, uci):
    outputs = run_experiments(SMALL, tmp_path, jobs=1, progress=False)
    assert [o.key for o in outputs] == ["e1", "e2", "e3", "e4", "e5", "e6"]
    columns = {
        "e1_shrinkage.csv": ["q", "reps", "mse_mle", "mse_shrinkage"],
        "e2_equivalent.csv": [
            "q",
            "reps",
            "mean_p_rope",
            "share_p_rope_gt_95",
            "share_p_side_gt_95",
            "signed_rank_rejection_rate",
        ],
        "e4_power.csv": ["delta0", "reps", "hierarchical_power", "signed_rank_power"],
        "e6_real_data.csv": [
            "first",
            "second",
            "variant",
            "p_left",
            "p_rope",
            "p_right",
            "wilcoxon_p",
            "divergences",
            "max_rhat",
        ],
    }
    for name, expected in columns.items():
        assert list(pd.read_csv(tmp_path / name).columns) == expected
    e3 = pd.read_csv(tmp_path / "e3_practically_equivalent.csv")
    assert list(e3.columns) == columns["e2_equivalent.csv"]
    summary = pd.read_csv(tmp_path / "e5_summary.csv")
    for column in ("hierarchical_power", "signed_rank_power", "mse_mle", "mse_shrinkage"):
        assert column in summary
    for png in ("e2_equivalent.png", "e4_power.png", "e5_mse.png", "e6_densities.png"):
        assert (tmp_path / png).stat().st_size > 0
    report = (tmp_path / "REPORT.md").read_text()
    assert "e6_real_data.csv" in report and "Run times" in report
    # The ground truth of E5 is cached: a rerun of E5 alone reuses it.
    rerun = e5_friedman.run(SMALL, InlineExecutor(), tmp_path, progress=False)
    assert "reused" in rerun.description


@pytest.mark.stan
def test_dask_local_cluster_gives_the_same_numbers(tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    settings = replace(SMALL, e23_reps=2, experiments=("e2",))
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        with make_executor(scheduler=cluster) as executor:
            dask = e2_equivalent.run(settings, executor, tmp_path, progress=False)
    local = e2_equivalent.run(settings, InlineExecutor(), tmp_path, progress=False)
    pd.testing.assert_frame_equal(
        dask.tables["e2_equivalent.csv"], local.tables["e2_equivalent.csv"]
    )
