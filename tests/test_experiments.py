"""The paper's experiments (bayes_hier.experiments): generators, drivers, executors, report."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

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
from bayes_hier.experiments.cart import RpartClassifier, prune_on_misclassification
from bayes_hier.experiments.checkpoints import Checkpoints, TaskTiming, task_digest
from bayes_hier.experiments.generators import (
    FOLD_SD,
    cauchy_deltas,
    friedman_classification,
    friedman_median,
    friedman_sample,
    friedman_settings,
    friedman_threshold,
    mixture_deltas,
    mixture_moments,
    simulate_differences,
)
from bayes_hier.experiments.report import markdown_table, write_report
from bayes_hier.experiments.runner import ExperimentOutput, InlineExecutor, run_tasks
from bayes_hier.parallel import WorkerLostError
from bayes_hier.parallel import tasks as parallel_tasks
from bayes_hier.seeding import derive_seed


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


def test_friedman_threshold_is_the_median_at_the_lowest_noise():
    """One threshold per function: the median of y at its lowest noise, for all noise levels."""
    for function, lowest in ((1, 0.5), (2, 62.5), (3, 0.05)):
        assert friedman_threshold(function, 7) == friedman_median(function, lowest, 7)
    # Balanced at every noise level of F1; F3's y is skewed, so at its highest noise (setting
    # 48, sd 0.2) only about 43 % of the cases lie above the threshold.
    for setting_id, share in ((12, 0.5), (48, 0.427)):
        setting = friedman_settings()[setting_id]
        threshold = friedman_threshold(setting.function)
        _, labels = friedman_classification(setting, 40_000, np.random.default_rng(4), threshold)
        assert labels.mean() == pytest.approx(share, abs=0.015)


# ------------------------------------------------------------------------ CART as rpart's
#      0 (errors 50)
#     / \
#    1   2          1: errors 25, 2: errors 25 (a leaf)
#   / \
#  3   4            3: errors 10, 4: errors 5
TREE_LEFT = np.array([1, 3, -1, -1, -1])
TREE_RIGHT = np.array([2, 4, -1, -1, -1])
TREE_ERRORS = np.array([50.0, 25.0, 25.0, 10.0, 5.0])


def test_pruning_keeps_a_split_only_if_it_saves_more_than_alpha_per_extra_leaf():
    """Node 1's split saves 10 errors for 1 extra leaf; the root's saves 50 - 40 = 10 errors for
    2 extra leaves (5 per leaf): at alpha = 4.9 the whole tree stays, at alpha = 5 (a tie) the
    root's subtree costs 50 + 5 = 55 either way and is pruned, as rpart snips a split of
    complexity <= cp."""
    keep = prune_on_misclassification(TREE_LEFT, TREE_RIGHT, TREE_ERRORS, 4.9)
    assert keep.tolist() == [False, False, True, True, True]
    tie = prune_on_misclassification(TREE_LEFT, TREE_RIGHT, TREE_ERRORS, 5.0)
    assert tie.tolist() == [True, False, False, False, False]
    # alpha = 7: node 1's split alone would pay (10 errors saved > 7), but the root's subtree of
    # 3 leaves costs 40 + 3 * 7 = 61 > 50 + 7: the root becomes a leaf.
    assert prune_on_misclassification(TREE_LEFT, TREE_RIGHT, TREE_ERRORS, 7.0)[0]
    assert prune_on_misclassification(TREE_LEFT, TREE_RIGHT, TREE_ERRORS, 0.0)[[2, 3, 4]].all()


def _subtree_costs(left, right, errors, alpha, node=0):
    """Brute force: (cost, leaves) of every pruned subtree rooted at ``node``."""
    options = [(errors[node] + alpha, 1)]
    if left[node] >= 0:
        for cost_l, leaves_l in _subtree_costs(left, right, errors, alpha, left[node]):
            for cost_r, leaves_r in _subtree_costs(left, right, errors, alpha, right[node]):
                options.append((cost_l + cost_r, leaves_l + leaves_r))
    return options


def test_pruning_finds_the_smallest_cost_complexity_optimum_of_real_trees():
    """On trees grown on random data, the pruned tree's cost equals the brute-force minimum over
    all prunings, and no pruning of equal cost has fewer leaves."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(11)
    for trial in range(6):
        x = rng.uniform(size=(80, 3))
        y = (x[:, 0] + 0.4 * rng.standard_normal(80) > 0.5).astype(int)
        tree = DecisionTreeClassifier(max_leaf_nodes=9, random_state=trial).fit(x, y).tree_
        counts = tree.value[:, 0, :] * tree.weighted_n_node_samples[:, None]
        errors = counts.sum(axis=1) - counts.max(axis=1)
        for alpha in (0.5, 1.0, 2.0, 3.5):
            leaf = prune_on_misclassification(
                tree.children_left, tree.children_right, errors, alpha
            )
            cost = errors[leaf].sum() + alpha * leaf.sum()
            options = _subtree_costs(tree.children_left, tree.children_right, errors, alpha)
            best = min(c for c, _ in options)
            assert cost == pytest.approx(best)
            assert leaf.sum() == min(n for c, n in options if c == pytest.approx(best))


def test_rpart_classifier_follows_rpart_defaults():
    """minbucket 7, minsplit 20, cp 0.01 of the root's errors, majority class per leaf."""
    rng = np.random.default_rng(3)
    x = rng.uniform(size=(1000, 5))
    y = (x[:, 0] + x[:, 1] + 0.3 * rng.standard_normal(1000) > 1).astype(int)
    model = RpartClassifier().fit(x, y)
    tree = model.tree_.tree_
    kept = np.flatnonzero(model.leaf_)
    assert tree.n_node_samples[kept].min() >= 7
    internal = tree.children_left >= 0
    assert tree.n_node_samples[internal].min() >= 20
    predictions = model.predict(x)
    # Every case gets the majority class of the training cases of its pruned leaf.
    answer_node = {}
    for node in kept:
        for case in np.flatnonzero(model.tree_.decision_path(x)[:, node].toarray().ravel()):
            answer_node[case] = node
    for node in kept:
        cases = [case for case, n in answer_node.items() if n == node]
        majority = np.bincount(y[cases], minlength=2).argmax()
        assert set(predictions[cases]) == {majority}
    # Pruning removes leaves: far fewer than the tree grown with the stopping rules alone.
    assert 2 <= model.n_leaves < model.tree_.get_n_leaves() / 3
    # cp so high that no split pays: one leaf, the majority class.
    stump = RpartClassifier(cp=1.0).fit(x, y)
    assert stump.n_leaves == 1
    assert set(stump.predict(x)) == {np.bincount(y).argmax()}
    with pytest.raises(ValueError, match="min_split >= 2"):
        RpartClassifier(min_split=1)


def test_rpart_classifier_on_thirty_cases_splits_at_most_into_leaves_of_seven():
    rng = np.random.default_rng(8)
    x = rng.uniform(size=(30, 4))
    y = (x[:, 0] > 0.5).astype(int)
    model = RpartClassifier().fit(x, y)
    assert 2 <= model.n_leaves <= 30 // 7
    assert np.mean(model.predict(x) == y) >= 0.9


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


def test_e5_cross_validation_stratifies_its_folds_by_class():
    """The fold scheme is a real choice: stratified folds (caret's repeatedcv) and plain folds
    give other differences on the same sample; an unknown scheme is refused."""
    settings = Settings.tiny()
    setting = e5_friedman.all_settings()[0]  # n = 30
    stratified = e5_friedman.cross_validate(setting, np.random.default_rng(2), settings)
    plain = e5_friedman.cross_validate(setting, np.random.default_rng(2), settings, "plain")
    assert stratified.shape == plain.shape == (settings.e5_runs * settings.e5_folds,)
    assert not np.array_equal(stratified, plain)
    with pytest.raises(ValueError, match="folds must be one of"):
        e5_friedman.cross_validate(setting, np.random.default_rng(2), settings, "loo")


def test_e5_cross_validation_is_run_on_one_blas_thread_with_the_same_differences():
    """one_blas_thread limits the BLAS pools inside the block only, and the fold differences
    (LDA's SVD included) are the same as with the default threads."""
    from threadpoolctl import threadpool_info

    settings = Settings.tiny()
    setting = e5_friedman.all_settings()[3]  # n = 100, 20 irrelevant features: 30 columns
    default = e5_friedman.cross_validate(setting, np.random.default_rng(5), settings)
    before = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    with e5_friedman.one_blas_thread():
        inside = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
        single = e5_friedman.cross_validate(setting, np.random.default_rng(5), settings)
    after = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert inside and set(inside) == {1} and after == before
    np.testing.assert_array_equal(single, default)


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
    assert "All repetitions:" not in text  # no repetitions were timed


def test_report_states_the_run_time_of_all_repetitions(tmp_path):
    outputs = [
        ExperimentOutput("e1", "E1", "d", seconds=10.0, timing=TaskTiming(4, 1, 1200.0, 600.0)),
        ExperimentOutput("e2", "E2", "d", seconds=5.0, timing=TaskTiming(2, 0, 600.0, 200.0)),
    ]
    text = write_report(
        tmp_path, outputs, Settings.tiny(), engine="pystan", seconds=15.0, jobs=2, reused=1
    ).read_text()
    assert "| e1 | E1 | 10 | 4 (1) | 20 | 10.0 |" in text
    assert "All repetitions: 30.0 min summed, about 13.3 min of wall time." in text
    assert "1 finished repetitions were reused" in text
    dask = ExperimentOutput("e3", "E3", "d", timing=TaskTiming(1, 0, 60.0, None))
    text = write_report(tmp_path, [*outputs, dask], Settings.tiny(), engine="pystan", seconds=1)
    assert "about unknown min of wall time" in text.read_text()


def test_task_timing_divides_each_task_by_its_workers():
    timing = TaskTiming()
    timing.add(6.0, 3, reused=True)
    timing.add(4.0, 2, reused=False)
    assert (timing.tasks, timing.reused, timing.seconds, timing.wall_seconds) == (2, 1, 10.0, 4.0)
    timing.add(1.0, None, reused=False)  # a Dask task: the wall time is unknown from then on
    assert timing.wall_seconds is None and timing.seconds == 11.0


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
    import matplotlib

    previous = matplotlib.get_backend()
    matplotlib.use("svg")  # a caller's backend (e.g. a notebook's) must survive the run
    try:
        outputs = run_experiments(SMALL, tmp_path, jobs=1, progress=False)
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(previous)
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
def test_dask_multiprocess_cluster_gives_the_same_numbers(tmp_path):
    pytest.importorskip("distributed")
    import dask
    from distributed import LocalCluster

    settings = replace(SMALL, e23_reps=2, experiments=("e2",))
    # pystan forks chain processes: the worker processes must not be daemonic.
    with dask.config.set({"distributed.worker.daemon": False}):
        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            with make_executor(scheduler=cluster) as executor:
                dask_run = e2_equivalent.run(settings, executor, tmp_path / "dask", progress=False)
    (tmp_path / "local").mkdir()
    local = e2_equivalent.run(settings, InlineExecutor(), tmp_path / "local", progress=False)
    pd.testing.assert_frame_equal(
        dask_run.tables["e2_equivalent.csv"], local.tables["e2_equivalent.csv"]
    )
    assert len(Checkpoints(tmp_path / "dask" / "checkpoints" / "e2")) == 2


# ------------------------------------------------------------------------------ resuming
def seeded_draw(name: str, settings: Settings) -> dict:
    """A cheap stand-in for a repetition: numbers from the repetition's own derived seed."""
    rng = np.random.default_rng(derive_seed(settings.base_seed, "test", name))
    return {"name": name, "value": float(rng.normal()), "array": rng.normal(size=3)}


def kill_own_worker_once(index: int, marker_folder: str) -> int:
    """Kills the worker process that runs it the first time it sees ``index == 1``."""
    marker = Path(marker_folder) / f"killed-{index}"
    if index == 1 and not marker.exists():
        marker.write_text("x")
        os.kill(os.getpid(), signal.SIGKILL)
    return index * index


def always_kill_on_one(index: int) -> int:
    if index == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return index * index


def sleep_for(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


class InterruptAfter(Checkpoints):
    """Checkpoints that raise KeyboardInterrupt (as Ctrl-C would) after ``limit`` saves."""

    def __init__(self, folder, limit):
        super().__init__(folder)
        self.limit = limit

    def save(self, function, task, result, seconds=0.0, workers=1):
        super().save(function, task, result, seconds, workers)
        self.limit -= 1
        if self.limit == 0:
            raise KeyboardInterrupt


def test_checkpoint_digest_ignores_only_the_choice_of_experiments():
    settings = Settings.tiny()
    frame = pd.DataFrame({"a": [1.0, 2.0]})
    base = task_digest(seeded_draw, ("x", settings, frame))
    assert base == task_digest(seeded_draw, ("x", replace(settings, experiments=("e1",)), frame))
    assert base != task_digest(seeded_draw, ("x", replace(settings, e1_reps=3), frame))
    assert base != task_digest(seeded_draw, ("x", settings, frame.assign(a=[1.0, 2.5])))
    assert base != task_digest(seeded_draw, ("y", settings, frame))
    assert task_digest(seeded_draw, (0.1,)) != task_digest(seeded_draw, (0.1 + 1e-17 + 1e-16,))


def test_checkpoints_round_trip_and_unreadable_files(tmp_path):
    store = Checkpoints(tmp_path / "c")
    task = ("a", Settings.tiny())
    assert store.load(seeded_draw, task) == (False, None)
    value = seeded_draw(*task)
    store.save(seeded_draw, task, value)
    found, loaded = store.load(seeded_draw, task)
    assert found and loaded["value"] == value["value"]
    np.testing.assert_array_equal(loaded["array"], value["array"])
    assert len(store) == 1 and not list(store.folder.glob(".partial-*"))
    store.path(seeded_draw, task).write_bytes(b"\x80truncated")  # a torn file is recomputed
    assert store.load(seeded_draw, task) == (False, None)
    bare = pickle.dumps(value)  # a result without its run time (an older layout) is recomputed
    store.path(seeded_draw, task).write_bytes(bare)
    assert store.load(seeded_draw, task) == (False, None)
    without_workers = pickle.dumps({"result": 7, "seconds": 2.0})  # workers unknown: kept
    store.path(seeded_draw, task).write_bytes(without_workers)
    assert store.load(seeded_draw, task) == (True, 7) and store.timing.wall_seconds is None


def test_checkpoint_salt_separates_results_of_different_programs(tmp_path):
    task = ("a", Settings.tiny())
    assert task_digest(seeded_draw, task) == task_digest(seeded_draw, task, "")
    assert task_digest(seeded_draw, task, "program-1") != task_digest(seeded_draw, task)
    first = Checkpoints(tmp_path / "c", salt="program-1")
    first.save(seeded_draw, task, 1, seconds=2.5)
    assert Checkpoints(tmp_path / "c", salt="program-2").load(seeded_draw, task) == (False, None)
    assert Checkpoints(tmp_path / "c", salt="program-1").load(seeded_draw, task) == (True, 1)


def test_experiment_checkpoints_are_salted_with_the_stan_program(tmp_path):
    from bayes_hier.experiments.runner import checkpoints
    from bayes_hier.stan_programs import load_program

    store = checkpoints(tmp_path, "e2", replace(Settings.tiny(), engine="pystan"))
    assert store.salt == load_program("hierarchical").digest
    assert store.folder == tmp_path / "checkpoints" / "e2"


def test_experiment_checkpoints_of_another_engine_have_another_salt(tmp_path, monkeypatch):
    from bayes_hier.experiments import runner

    class Engine:
        name = "cmdstanpy"

    monkeypatch.setattr("bayes_hier.engines.get_engine", lambda engine: Engine())
    store = runner.checkpoints(tmp_path, "e2", Settings.tiny())
    assert store.salt.endswith("|cmdstanpy") and len(store.salt) > len("|cmdstanpy")


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_timing_sums_the_run_times_of_computed_and_reused_tasks(tmp_path, jobs):
    tasks = [(0.05,), (0.15,)]
    store = Checkpoints(tmp_path / "c")
    with make_executor(jobs) as executor:
        assert run_tasks(executor, sleep_for, tasks, "t", False, checkpoints=store) == [0.05, 0.15]
    assert 0.2 <= store.timing.seconds < 0.2 + 0.5  # each timed where it ran
    assert store.timing.wall_seconds == pytest.approx(store.timing.seconds / jobs)
    assert (store.timing.tasks, store.timing.reused) == (2, 0)
    reused = Checkpoints(tmp_path / "c")
    run_tasks(InlineExecutor(), sleep_for, tasks, "t", False, checkpoints=reused)
    assert reused.timing == replace(store.timing, reused=2)  # read back, not re-timed


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_interrupted_tasks_resume_with_identical_results(tmp_path, jobs):
    settings = Settings.tiny()
    tasks = [(f"rep{i}", settings) for i in range(6)]
    reference = run_tasks(InlineExecutor(), seeded_draw, tasks, "t", progress=False)
    store = InterruptAfter(tmp_path / "c", limit=2)
    with pytest.raises(KeyboardInterrupt):
        with make_executor(jobs) as executor:
            run_tasks(executor, seeded_draw, tasks, "t", progress=False, checkpoints=store)
    assert len(store) == 2  # written as they finished, kept after Ctrl-C
    calls = []
    store = Checkpoints(tmp_path / "c")
    original_save = store.save
    store.save = lambda f, t, r, s, w: (calls.append(t[0]), original_save(f, t, r, s, w))
    with make_executor(jobs) as executor:
        resumed = run_tasks(executor, seeded_draw, tasks, "t", progress=False, checkpoints=store)
    assert len(calls) == 4 and len(store) == 6  # only the missing four ran
    for got, expected in zip(resumed, reference):
        assert got["name"] == expected["name"] and got["value"] == expected["value"]
        np.testing.assert_array_equal(got["array"], expected["array"])


@pytest.mark.slow
def test_a_lost_local_worker_is_replaced_and_the_run_goes_on(tmp_path):
    tasks = [(i, str(tmp_path)) for i in range(5)]
    store = Checkpoints(tmp_path / "c")
    with pytest.warns(RuntimeWarning, match="worker process was lost"):
        with make_executor(2) as executor:
            results = run_tasks(
                executor, kill_own_worker_once, tasks, "t", progress=False, checkpoints=store
            )
    assert results == [0, 1, 4, 9, 16]
    assert (tmp_path / "killed-1").exists() and len(store) == 5


@pytest.mark.slow
def test_a_worker_lost_again_and_again_stops_with_a_message(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel_tasks, "RESTARTS", 1)
    store = Checkpoints(tmp_path / "c")
    tasks = [(i,) for i in range(4)]
    store.save(always_kill_on_one, (3,), 9)  # written by an earlier, interrupted run
    with pytest.warns(RuntimeWarning), pytest.raises(WorkerLostError, match="resume") as error:
        with make_executor(2) as executor:
            run_tasks(executor, always_kill_on_one, tasks, "t", progress=False, checkpoints=store)
    assert str(store.folder) in str(error.value)
    # Nothing already written is lost, the task that kills its worker has no result, and what
    # was saved is right. (Which of tasks 0 and 2 finish before the pool gives up depends on
    # the scheduling of the two workers, so the test does not name them.)
    assert store.load(always_kill_on_one, (3,)) == (True, 9)
    assert store.load(always_kill_on_one, (1,))[0] is False
    for task in tasks:
        found, value = store.load(always_kill_on_one, task)
        assert not found or value == task[0] ** 2


def spawn_grandchild_and_wait(seconds: float) -> int:
    """A task that starts a child process (as pystan starts chain processes) and waits."""
    child = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"])
    time.sleep(seconds)
    return child.pid


@pytest.mark.slow
def test_ctrl_c_leaves_no_orphan_processes():
    psutil = pytest.importorskip("psutil")

    def workers_and_their_children(pool):
        workers = [psutil.Process(pid) for pid in pool.worker_pids()]
        return workers + [c for w in workers for c in w.children(recursive=True)]

    with pytest.raises(KeyboardInterrupt):
        with make_executor(2) as executor:
            futures = [executor.submit(spawn_grandchild_and_wait, 60) for _ in range(2)]
            deadline = time.monotonic() + 60
            while len(workers_and_their_children(executor)) < 4 and time.monotonic() < deadline:
                time.sleep(0.2)
            started = workers_and_their_children(executor)
            assert len(started) == 4  # two workers, each with a "chain process"
            raise KeyboardInterrupt
    for process in started:
        assert not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    assert all(f.done() for f in futures)


@pytest.mark.slow
def test_lost_dask_worker_is_rescheduled(tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    tasks = [(i, str(tmp_path)) for i in range(4)]
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with make_executor(scheduler=cluster) as executor:
            results = run_tasks(
                executor,
                kill_own_worker_once,
                tasks,
                "t",
                progress=False,
                checkpoints=Checkpoints(tmp_path / "c"),
            )
    assert results == [0, 1, 4, 9]
    assert (tmp_path / "killed-1").exists()


@pytest.mark.stan
def test_interrupted_experiment_resumes_to_the_uninterrupted_numbers(tmp_path, monkeypatch):
    settings = replace(SMALL, e23_q=(10,), e23_reps=3, experiments=("e2",))
    (tmp_path / "whole").mkdir()
    whole = e2_equivalent.run(settings, InlineExecutor(), tmp_path / "whole", progress=False)
    (tmp_path / "parts").mkdir()
    original = Checkpoints.save
    saves = []

    def interrupting_save(self, function, task, result, seconds=0.0, workers=1):
        original(self, function, task, result, seconds, workers)
        saves.append(task)
        if len(saves) == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(Checkpoints, "save", interrupting_save)
    with pytest.raises(KeyboardInterrupt):
        e2_equivalent.run(settings, InlineExecutor(), tmp_path / "parts", progress=False)
    assert not (tmp_path / "parts" / "e2_repetitions.csv").exists()
    resumed = e2_equivalent.run(settings, InlineExecutor(), tmp_path / "parts", progress=False)
    assert len(saves) == 3  # one before the interruption, two after
    for name in ("e2_repetitions.csv", "e2_equivalent.csv"):
        pd.testing.assert_frame_equal(
            pd.read_csv(tmp_path / "parts" / name), pd.read_csv(tmp_path / "whole" / name)
        )
    pd.testing.assert_frame_equal(
        resumed.tables["e2_equivalent.csv"], whole.tables["e2_equivalent.csv"]
    )
