"""Ground truth of the Friedman experiment (E5) under candidate classification trees.

The paper (Corani et al. 2017, section 4.7) reports for its 54 Friedman settings a mean accuracy
difference LDA − CART of δ0 = 0.02, with 65 % of the settings' δ right of the rope (LDA better by
more than 0.01). This benchmark measures the same three numbers (mean δ, share right of the rope,
share inside it) for several trees, on the very training and test sets of E5's ground truth
(same seeds, :func:`bayes_hier.experiments.e5_friedman.truth_repetition`'s), with fewer
repetitions per setting than the experiment's 500 to keep it cheap:

* ``unpruned``: scikit-learn's ``DecisionTreeClassifier(random_state=0)``, grown until its leaves
  are pure (the tree of the first full run);
* ``stopping only``: rpart's stopping rules (min_samples_split 20, min_samples_leaf 7), unpruned;
* ``rpart``: :class:`~bayes_hier.experiments.cart.RpartClassifier`, the stopping rules and
  rpart's pruning at cp = 0.01 on the misclassification risk;
* ``rpart, one median per function``: as ``rpart``, but the class threshold of all noise levels
  of a function is the median of y at its lowest noise (as the paper's code does), not one median
  per noise level.

Sign: δ = acc(LDA) − acc(tree), the paper's. Writes ``benchmarks/E5_GROUND_TRUTH.md``; run with
``python -m benchmarks.e5_ground_truth [--reps 100]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from bayes_hier.experiments.cart import RpartClassifier
from bayes_hier.experiments.e5_friedman import (
    EXPERIMENT_ID,
    TEST_SET,
    accuracy,
    one_blas_thread,
)
from bayes_hier.experiments.generators import (
    FRIEDMAN_NOISE,
    friedman_classification,
    friedman_median,
    friedman_settings,
)
from bayes_hier.experiments.runner import BASE_SEED, repetition_seeds

PAPER_MEAN = 0.02
PAPER_RIGHT = 0.65
ROPE = 0.01
OUT = Path(__file__).with_name("E5_GROUND_TRUTH.md")


def _unpruned():
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(random_state=0)


def _stopping_only():
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(min_samples_split=20, min_samples_leaf=7, random_state=0)


#: candidate name -> (tree factory, median rule: "noise" (one per noise level) or "function").
CANDIDATES: dict[str, tuple[Callable, str]] = {
    "unpruned": (_unpruned, "noise"),
    "stopping only": (_stopping_only, "noise"),
    "rpart": (RpartClassifier, "noise"),
    "rpart, one median per function": (RpartClassifier, "function"),
}


def setting_deltas(setting, reps: int, test_size: int) -> dict[str, np.ndarray]:
    """δ = acc(LDA) − acc(tree) of ``reps`` training sets of one setting, per candidate."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    medians = {
        "noise": friedman_median(setting.function, setting.noise, BASE_SEED),
        "function": friedman_median(
            setting.function, FRIEDMAN_NOISE[setting.function][0], BASE_SEED
        ),
    }
    rules = {rule for _, rule in CANDIDATES.values()}
    out = {name: np.empty(reps) for name in CANDIDATES}
    tests = {}
    for rule in rules:
        rng, _ = repetition_seeds(BASE_SEED, EXPERIMENT_ID, setting.setting_id, TEST_SET)
        tests[rule] = friedman_classification(setting, test_size, rng, medians[rule])
    for rep in range(reps):
        for rule in rules:
            rng, _ = repetition_seeds(BASE_SEED, EXPERIMENT_ID, setting.setting_id, rep)
            x, y = friedman_classification(setting, setting.n, rng, medians[rule])
            x_test, y_test = tests[rule]
            lda = None
            for name, (factory, candidate_rule) in CANDIDATES.items():
                if candidate_rule != rule:
                    continue
                if np.unique(y).size < 2:
                    out[name][rep] = 0.0
                    continue
                if lda is None:
                    lda = accuracy(LinearDiscriminantAnalysis(), x, y, x_test, y_test)
                out[name][rep] = lda - accuracy(factory(), x, y, x_test, y_test)
    return out


def measure(reps: int, test_size: int) -> pd.DataFrame:
    """One row per setting and candidate: mean δ and its Monte Carlo standard error."""
    rows = []
    with one_blas_thread():
        for setting in friedman_settings():
            for name, values in setting_deltas(setting, reps, test_size).items():
                rows.append(
                    {
                        "candidate": name,
                        "setting_id": setting.setting_id,
                        "label": setting.label,
                        "n": setting.n,
                        "delta": values.mean(),
                        "se": values.std(ddof=1) / np.sqrt(reps),
                    }
                )
    return pd.DataFrame(rows)


def summarise(per_setting: pd.DataFrame) -> pd.DataFrame:
    """Per candidate: mean δ over the 54 settings, shares right of / in / left of the rope."""
    rows = []
    for name, group in per_setting.groupby("candidate", sort=False):
        delta = group["delta"].to_numpy()
        rows.append(
            {
                "candidate": name,
                "mean δ": delta.mean(),
                "right of rope": np.mean(delta > ROPE),
                "in rope": np.mean(np.abs(delta) <= ROPE),
                "left of rope": np.mean(delta < -ROPE),
                **{f"mean δ, n = {n}": g["delta"].mean() for n, g in group.groupby("n")},
            }
        )
    return pd.DataFrame(rows)


def report(summary: pd.DataFrame, reps: int, test_size: int, seconds: float) -> str:
    lines = [
        "# E5 ground truth under candidate classification trees",
        "",
        "Written by `python -m benchmarks.e5_ground_truth` (see its docstring for the candidates).",
        f"{reps} training sets per setting (the experiment uses 500), test sets of {test_size};",
        "δ = acc(LDA) − acc(tree), the paper's sign. Paper: mean δ0 = 0.02, 65 % of the 54",
        f"settings right of the rope (±{ROPE}). Run time {seconds / 60:.1f} min.",
        "",
        "| candidate | mean δ | right of rope | in rope | left of rope | mean δ n=30 | n=100 "
        "| n=1000 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in summary.itertuples(index=False):
        values = list(row)
        lines.append(
            f"| {values[0]} | {values[1]:.4f} | {values[2]:.0%} | {values[3]:.0%} "
            f"| {values[4]:.0%} | {values[5]:.4f} | {values[6]:.4f} | {values[7]:.4f} |"
        )
    lines.append(f"| paper | {PAPER_MEAN} | {PAPER_RIGHT:.0%} | | | | | |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--test-size", type=int, default=5000)
    parser.add_argument("--csv", type=Path, help="also save the per-setting table here")
    args = parser.parse_args()
    start = time.perf_counter()
    per_setting = measure(args.reps, args.test_size)
    if args.csv:
        per_setting.to_csv(args.csv, index=False)
    summary = summarise(per_setting)
    text = report(summary, args.reps, args.test_size, time.perf_counter() - start)
    OUT.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
