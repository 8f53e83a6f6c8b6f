"""E5: Friedman functions, linear discriminant analysis (first) vs a classification tree (second).

Ground truth (``e5_friedman.csv``): for each setting, the true δ is the mean over
``e5_truth_reps`` fresh training sets of the accuracy difference tree − LDA on one large test set
(``e5_test_size`` draws) of that setting; each setting is one task, saved in the checkpoints like
every repetition (a rerun reuses it, and its run time counts in the experiment's).

Classifiers, as in the paper's code (R caret: ``lda`` and ``rpart1SE``, which calls ``rpart`` with
its defaults): scikit-learn's ``LinearDiscriminantAnalysis`` with its defaults, and
:class:`~.cart.RpartClassifier`, CART with rpart's default stopping rules (minsplit 20,
minbucket 7) and its pruning at cp = 0.01. Classes: y above a threshold, the median of y at the
function's lowest noise level, one threshold per function (:func:`~.generators.friedman_threshold`,
as the paper's code). With these the ground truth matches the paper's (mean δ 0.02 in the paper's
sign LDA − tree, 65 % of the settings right of the rope); the unpruned scikit-learn tree of an
earlier version gave 0.034 and 76 % (``benchmarks/E5_GROUND_TRUTH.md`` compares the candidates).

Analysis (``e5_summary.csv``): ``e5_reps`` times, pick ``e5_pick`` settings per function, draw a
fresh sample of each, run paired ``runs × folds`` cross-validation (scikit-learn
``RepeatedStratifiedKFold``: folds stratified by class as caret's ``repeatedcv`` makes them; both
classifiers on the same folds), then analyse the
fold-wise accuracy differences with the hierarchical model (rope 0.01) and the Wilcoxon
signed-rank test on the mean differences. Reported: power (hierarchical: P(left) or P(right) >
0.95; signed-rank: p < 0.05), the decisions, the evidence grade (Raftery) of the posterior odds of
the most probable outcome against the runner-up, and the MSE of the MLE and of the shrinkage
estimates against the true δ's.

Both task functions run with one BLAS thread per process (:func:`one_blas_thread`): the workers
already fill the cores, and OpenBLAS threads on an oversubscribed machine wait for each other.
Measured on 2 cores with the paper run's workers busy: LDA on 900 x 30 took 0.34 s per fit with
OpenBLAS's default 2 threads and 0.008 s with one; a setting's 10 x 10 cross-validation at
n = 1000 with 20 irrelevant features 37 s of CPU against 2.3 s, with identical differences.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from ..decision import evidence_grade
from . import runner
from .cart import RpartClassifier
from .generators import FriedmanSetting, friedman_classification, friedman_threshold
from .generators import friedman_settings as all_settings
from .runner import ExperimentOutput, Settings

EXPERIMENT_ID = 5
TRUTH_CSV = "e5_friedman.csv"
SUMMARY_CSV = "e5_summary.csv"
FIGURE = "e5_mse.png"
ANALYSIS_SETTING = 1000  # the setting id of the analysis repetitions' seeds
TEST_SET = 2**31 - 1  # the "repetition" id of the seeds of a setting's test set


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit the BLAS and OpenMP thread pools of this process to one thread inside the block
    (threadpoolctl, a dependency of scikit-learn); the results do not depend on it."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


#: What the tasks' results depend on besides their arguments (salted into the checkpoints, so
#: that results of another classification tree are never reused).
TREE = "RpartClassifier(min_split=20, min_bucket=7, cp=0.01); one threshold per function"
#: The ``tree`` column of ``e5_friedman.csv`` (a table without it is of the unpruned
#: scikit-learn tree and one threshold per noise level of earlier versions).
TREE_LABEL = "rpart"


def _classifiers():
    """LDA (scikit-learn defaults) and CART with R rpart's defaults (:mod:`.cart`)."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    return LinearDiscriminantAnalysis(), RpartClassifier()


def accuracy(model, x_train, y_train, x_test, y_test) -> float:
    """Share of the test cases that ``model``, fitted on the training set, classifies right."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(x_train, y_train)
        return float(np.mean(model.predict(x_test) == y_test))


def truth_repetition(setting_id: int, rep: int, settings: Settings) -> float:
    """Accuracy difference tree − LDA of one fresh training set on the setting's test set."""
    setting = all_settings()[setting_id]
    median = friedman_threshold(setting.function, settings.base_seed)
    test_rng, _ = runner.repetition_seeds(settings.base_seed, EXPERIMENT_ID, setting_id, TEST_SET)
    x_test, y_test = friedman_classification(setting, settings.e5_test_size, test_rng, median)
    rng, _ = runner.repetition_seeds(settings.base_seed, EXPERIMENT_ID, setting_id, rep)
    x, y = friedman_classification(setting, setting.n, rng, median)
    if np.unique(y).size < 2:  # a one-class training set: both predict that class
        return 0.0
    lda, tree = _classifiers()
    return accuracy(tree, x, y, x_test, y_test) - accuracy(lda, x, y, x_test, y_test)


def truth_setting(setting_id: int, settings: Settings) -> dict[str, float]:
    """The ground truth of one setting (one task: all its repetitions)."""
    setting = all_settings()[setting_id]
    with one_blas_thread():
        values = np.array(
            [truth_repetition(setting_id, r, settings) for r in range(settings.e5_truth_reps)]
        )
    return {
        "setting_id": setting_id,
        "function": setting.function,
        "noise": setting.noise,
        "n": setting.n,
        "irrelevant": setting.irrelevant,
        "reps": settings.e5_truth_reps,
        "test_size": settings.e5_test_size,
        "base_seed": settings.base_seed,
        "delta": float(values.mean()),
        "sd": float(values.std(ddof=1)) if values.size > 1 else 0.0,
    }


#: How the analysis splits a sample into folds: ``stratified`` (each fold with the classes in
#: the sample's proportions, as caret's ``repeatedcv`` in the paper's code) or ``plain``.
FOLDS = ("stratified", "plain")


def cross_validate(
    setting: FriedmanSetting,
    rng: np.random.Generator,
    settings: Settings,
    folds: str = "stratified",
) -> np.ndarray:
    """Fold-wise accuracy differences tree − LDA of a paired runs × folds CV on a fresh sample;
    ``folds`` (:data:`FOLDS`): scikit-learn's ``RepeatedStratifiedKFold`` or ``RepeatedKFold``."""
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    if folds not in FOLDS:
        raise ValueError(f"folds must be one of {FOLDS}; got {folds!r}.")
    median = friedman_threshold(setting.function, settings.base_seed)
    x, y = friedman_classification(setting, setting.n, rng, median)
    splitter = (RepeatedStratifiedKFold if folds == "stratified" else RepeatedKFold)(
        n_splits=settings.e5_folds,
        n_repeats=settings.e5_runs,
        random_state=int(rng.integers(2**31)),
    )
    differences = []
    with warnings.catch_warnings():  # a class with fewer cases than folds (rare at n = 30)
        warnings.simplefilter("ignore", UserWarning)
        splits = list(splitter.split(x, y))
    for train, test in splits:
        if np.unique(y[train]).size < 2:
            differences.append(0.0)
            continue
        lda, tree = _classifiers()
        differences.append(
            accuracy(tree, x[train], y[train], x[test], y[test])
            - accuracy(lda, x[train], y[train], x[test], y[test])
        )
    return np.asarray(differences)


def analysis_repetition(
    rep: int, truth: dict[int, float], settings: Settings, folds: str = "stratified"
) -> dict:
    """One analysis repetition of E5 (picks settings, cross-validates with ``folds``, fits,
    tests)."""
    from ..data import CVData

    rng, seed = runner.repetition_seeds(settings.base_seed, EXPERIMENT_ID, ANALYSIS_SETTING, rep)
    chosen: list[FriedmanSetting] = []
    for function in (1, 2, 3):
        pool = [s for s in all_settings() if s.function == function and s.setting_id in truth]
        if pool:
            pick = rng.choice(len(pool), min(settings.e5_pick, len(pool)), replace=False)
            chosen.extend(pool[i] for i in sorted(pick))
    with one_blas_thread():
        differences = [cross_validate(s, rng, settings, folds) for s in chosen]
    cv = CVData(
        differences,
        runs=settings.e5_runs,
        datasets=[s.label for s in chosen],
        names=("lda", "tree"),
    )
    result = runner.fit(cv, settings, seed)
    true = np.array([truth[s.setting_id] for s in chosen])
    table = result.per_dataset
    probs = np.array(result.probs)
    order = np.argsort(probs)[::-1]
    odds = probs[order[0]] / probs[order[1]] if probs[order[1]] > 0 else np.inf
    decided = np.flatnonzero(probs > 0.95)
    p_value = runner.signed_rank_p(cv.means)
    return {
        "rep": rep,
        "q": len(chosen),
        "p_left": probs[0],
        "p_rope": probs[1],
        "p_right": probs[2],
        "decision": ("left", "rope", "right")[decided[0]] if decided.size else "inconclusive",
        "favoured": ("left", "rope", "right")[order[0]],
        "odds": float(odds),
        "evidence": evidence_grade(float(odds)),
        "wilcoxon_p": p_value,
        "mse_mle": float(np.mean((table["mle"].to_numpy() - true) ** 2)),
        "mse_shrinkage": float(np.mean((table["shrunk"].to_numpy() - true) ** 2)),
        **runner.fit_diagnostics(result),
    }


def summarise(reps: pd.DataFrame) -> pd.DataFrame:
    """One row: power of both tests, decisions, evidence breakdown and mean MSEs."""
    row = {
        "reps": len(reps),
        "data_sets": int(reps["q"].iloc[0]) if len(reps) else 0,
        "hierarchical_power": float(((reps["p_left"] > 0.95) | (reps["p_right"] > 0.95)).mean()),
        "signed_rank_power": float((reps["wilcoxon_p"] < 0.05).mean()),
    }
    for outcome in ("left", "rope", "right", "inconclusive"):
        row[f"decision_{outcome}"] = float((reps["decision"] == outcome).mean())
    for grade in ("weak", "positive", "strong"):
        row[f"evidence_{grade}"] = float((reps["evidence"] == grade).mean())
    row["mse_mle"] = float(reps["mse_mle"].mean())
    row["mse_shrinkage"] = float(reps["mse_shrinkage"].mean())
    return pd.DataFrame([row])


def run(settings: Settings, executor, out: Path, progress: bool = True) -> ExperimentOutput:
    start = time.perf_counter()
    saved = runner.checkpoints(out, "e5", settings, salt=TREE)
    tasks = [(setting_id, settings) for setting_id in settings.e5_settings]
    truth_frame = pd.DataFrame(
        runner.run_tasks(
            executor, truth_setting, tasks, "E5 ground truth", progress, checkpoints=saved
        )
    )
    truth_reused = saved.timing.reused
    truth_frame["tree"] = TREE_LABEL  # which tree the table's truths are of
    truth_frame.to_csv(out / TRUTH_CSV, index=False)
    truth = dict(zip(truth_frame["setting_id"].astype(int), truth_frame["delta"]))
    # The fold scheme is part of each task (and so of its checkpoint's digest).
    tasks = [(rep, truth, settings, "stratified") for rep in range(settings.e5_reps)]
    reps = runner.run_repetitions(
        executor,
        analysis_repetition,
        tasks,
        "E5 analysis",
        progress,
        saved,
        out,
        "e5",
    )
    summary = summarise(reps)
    summary.to_csv(out / SUMMARY_CSV, index=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 4))
    ax.boxplot([reps["mse_mle"], reps["mse_shrinkage"]])
    ax.set_xticks([1, 2], ["MLE", "shrinkage"])
    ax.set_ylabel("MSE against the true δ")
    ax.set_title("E5: Friedman data sets, MSE per repetition")
    runner.save_figure(fig, out / FIGURE)
    return ExperimentOutput(
        "e5",
        "E5: Friedman functions (LDA vs classification tree)",
        f"{len(settings.e5_settings)} settings; ground truth from {settings.e5_truth_reps} "
        f"training sets each on a test set of {settings.e5_test_size}"
        + (f" ({truth_reused} settings' truths reused from checkpoints/)" if truth_reused else "")
        + f"; {settings.e5_reps} analysis repetitions picking {settings.e5_pick} settings per "
        f"function, paired {settings.e5_runs}×{settings.e5_folds} CV (folds stratified by class); "
        f"d = tree − LDA; rope "
        f"{settings.rope}. CART with rpart's defaults (minsplit 20, minbucket 7, cp 0.01); "
        "class threshold: the median of y at the function's lowest noise (10 000 draws). "
        f"{runner.diagnostics_sentence(reps)}.",
        tables={TRUTH_CSV: truth_frame, SUMMARY_CSV: summary},
        figures={FIGURE: "E5: MSE of the MLE and of the shrinkage estimates"},
        seconds=time.perf_counter() - start,
        timing=saved.timing,
    )
