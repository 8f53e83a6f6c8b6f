"""Frequentist tests of two models on one data set (conventions §5, first paragraph).

All tests are two-sided and follow the package convention: the analysed difference is
``d = y - x`` (second − first; negated when lower scores are better), so a positive statistic or
estimate favours the second model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import check_bool, check_pair_names
from ..data import CVData, as_single_cvdata
from ._result import TestResult, check_alpha, two_sided_t


def one_dataset(
    x: Any,
    y: Any,
    test: str,
    *,
    runs: int | None = 1,
    rho: float | None = None,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    higher_is_better: bool = True,
) -> CVData:
    """Validate the fold scores of one data set through :class:`CVData` (arrays, frame, CVData).

    ``runs`` applies to arrays only: a frame or a CVData carries its own runs.
    """
    return as_single_cvdata(
        x,
        y,
        None if isinstance(x, (pd.DataFrame, CVData)) else runs,
        test=test,
        hint="Select one, e.g. frame[frame.dataset == name], or compare across data sets with "
        "wilcoxon_signed_rank or sign_test_freq.",
        names=names,
        models=models,
        columns=columns,
        rho=rho,
        higher_is_better=higher_is_better,
    )


def mean_difference_ttest(
    test: str, cv: CVData, standard_error: float, alpha: float, details: dict[str, Any]
) -> TestResult:
    """The t-test of the mean fold difference ``d̄`` of the one data set of ``cv``:
    ``t = d̄ / standard_error``, two-sided p from Student's t with ``n − 1`` df
    (:func:`two_sided_t`); the paired and the corrected resampled t-tests differ only in the
    standard error."""
    n = int(cv.n[0])
    mean = float(cv.means[0])
    t, p = two_sided_t(mean, standard_error, n - 1)
    return TestResult(test, t, p, n - 1, cv.names, mean, "mean difference", n, alpha, details)


def paired_ttest(
    x: Any,
    y: Any = None,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    higher_is_better: bool = True,
    alpha: float = 0.05,
) -> TestResult:
    """Paired t-test over the folds of one data set (Student; conventions §5).

    ``t = sqrt(n) · d̄ / s`` with ``d̄`` and ``s`` (ddof = 1) the mean and standard deviation of the
    ``n`` paired differences ``d = y − x``; two-sided p from Student's t with ``n − 1`` df.
    Identical to :func:`scipy.stats.ttest_rel` on ``(y, x)``.

    This test is **anti-conservative** on cross-validation results and is given for contrast
    only: it assumes independent differences, but the training sets of the folds overlap (two
    training sets of a k-fold split share ``(k − 2)/(k − 1)`` of the data) and so do the test
    sets of repeated runs. The differences are positively correlated (correlation ρ), so
    ``Var(d̄) = σ²(ρ + (1 − ρ)/n)`` while ``s²/n`` estimates only ``σ²(1 − ρ)/n``: the standard
    error is underestimated, ``t`` is inflated and the type I error exceeds ``alpha``, more so
    with more runs (Dietterich 1998; Nadeau & Bengio 2003; Bouckaert 2003). Use
    :func:`corrected_resampled_ttest` instead.

    Parameters
    ----------
    x, y
        Fold scores of the first and second model on one data set (1-D arrays, paired fold by
        fold), or a tidy frame / :class:`CVData` as ``x`` alone.
    names, models, columns, higher_is_better
        As in :func:`bayes_hier.data.as_cvdata`.
    alpha
        Level of :attr:`TestResult.significant` and of the interpretation.

    Notes
    -----
    All differences equal (``s = 0``): ``t = ±inf, p = 0`` if they are non-zero, ``t = 0,
    p = 1`` if they are all zero.
    """
    alpha = check_alpha(alpha)
    cv = one_dataset(
        x,
        y,
        "paired t-test",
        names=names,
        models=models,
        columns=columns,
        higher_is_better=higher_is_better,
    )
    sd = float(cv.stds[0])
    return mean_difference_ttest(
        "Paired t-test", cv, sd / np.sqrt(int(cv.n[0])), alpha, {"std": sd}
    )


def corrected_resampled_ttest(
    x: Any,
    y: Any = None,
    runs: int = 1,
    rho: float | None = None,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    higher_is_better: bool = True,
    alpha: float = 0.05,
) -> TestResult:
    """Corrected resampled t-test of Nadeau & Bengio (2003) on one data set (conventions §1, §5).

    ``t = d̄ / sqrt((1/n + ρ/(1 − ρ)) · s²)``, two-sided p from Student's t with ``n − 1`` df,
    where ``d̄``, ``s²`` (ddof = 1) are the mean and variance of the ``n = runs · k`` differences
    ``d = y − x``. The term ``ρ/(1 − ρ)`` corrects the variance for the correlation between
    folds (see :func:`paired_ttest`); it is the frequentist twin of the Bayesian correlated
    t-test, whose posterior of the mean is the Student t with the same location, scale and df.

    Parameters
    ----------
    x, y
        Fold scores of the first and second model on one data set, run-major (run 0 folds
        0..k−1, run 1, ...), or a tidy frame / :class:`CVData` as ``x`` alone (runs are then
        read from the frame and ``runs`` is ignored).
    runs
        Repetitions of the cross-validation; ``k = n / runs`` folds per run.
    rho
        Correlation between folds, ``n_test / (n_test + n_train)``; default ``1 / k``.
    names, models, columns, higher_is_better
        As in :func:`bayes_hier.data.as_cvdata`.
    alpha
        Level of :attr:`TestResult.significant` and of the interpretation.
    """
    alpha = check_alpha(alpha)
    cv = one_dataset(
        x,
        y,
        "corrected resampled t-test",
        runs=runs,
        rho=rho,
        names=names,
        models=models,
        columns=columns,
        higher_is_better=higher_is_better,
    )
    return mean_difference_ttest(
        "Corrected resampled t-test",
        cv,
        float(cv.standard_errors[0]),
        alpha,
        {
            "std": float(cv.stds[0]),
            "rho": float(cv.rho[0]),
            "runs": int(cv.runs[0]),
            "folds": int(cv.folds[0]),
            "standard_error": float(cv.standard_errors[0]),
        },
    )


# ---------------------------------------------------------------------------------- McNemar
def _mcnemar_table(table: Any, y_true: Any, pred_a: Any, pred_b: Any) -> np.ndarray:
    """The 2×2 table ``[[both wrong, a wrong b right], [a right b wrong, both right]]``."""
    arrays = (y_true, pred_a, pred_b)
    if table is not None:
        if any(a is not None for a in arrays):
            raise ValueError("Pass either table= or y_true=, pred_a=, pred_b=, not both.")
        counts = np.asarray(table, dtype=float)
        if counts.shape != (2, 2):
            raise ValueError(
                f"table must be a 2x2 array of counts; got shape {counts.shape}. Rows: first "
                "model wrong / right; columns: second model wrong / right."
            )
        if not np.all(np.isfinite(counts)) or np.any(counts < 0):
            raise ValueError(f"table must hold non-negative counts; got {counts.tolist()}.")
        if np.any(counts != np.round(counts)):
            raise ValueError(f"table must hold whole numbers (counts); got {counts.tolist()}.")
        return counts.astype(int)
    if any(a is None for a in arrays):
        raise ValueError(
            "Give the 2x2 table (table=) or all of y_true=, pred_a= and pred_b= (the labels and "
            "the two models' predictions on the same test set)."
        )
    labels = [np.asarray(a) for a in arrays]
    for name, a in zip(("y_true", "pred_a", "pred_b"), labels):
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D array; got shape {a.shape}.")
    if not labels[0].shape == labels[1].shape == labels[2].shape:
        raise ValueError(
            f"y_true, pred_a and pred_b must have the same length (one entry per test example); "
            f"got {[a.size for a in labels]}."
        )
    a_right = labels[1] == labels[0]
    b_right = labels[2] == labels[0]
    counts = np.array(
        [
            [np.sum(~a_right & ~b_right), np.sum(~a_right & b_right)],
            [np.sum(a_right & ~b_right), np.sum(a_right & b_right)],
        ]
    )
    return counts


def mcnemar(
    table: Any = None,
    *,
    y_true: Any = None,
    pred_a: Any = None,
    pred_b: Any = None,
    exact: bool = False,
    correction: bool = True,
    names: Sequence[str] = ("first", "second"),
    alpha: float = 0.05,
) -> TestResult:
    """McNemar's test of two classifiers on a single test set (Dietterich 1998; conventions §5).

    Built on :func:`statsmodels.stats.contingency_tables.mcnemar`. Only the discordant counts
    matter: ``e01`` (first model wrong, second right) and ``e10`` (first right, second wrong).

    * ``exact=False``: ``χ² = (|e01 − e10| − 1)² / (e01 + e10)`` with Edwards' continuity
      correction (``(e01 − e10)² / (e01 + e10)`` with ``correction=False``), χ² with 1 df.
    * ``exact=True``: the exact binomial test, ``statistic = min(e01, e10)`` and
      ``p = min(1, 2 · P(Bin(e01 + e10, 1/2) <= min(e01, e10)))``; ``df`` is ``None``.

    Edge case of the χ² form, where statsmodels' formula is not meaningful: ``e01 = e10``
    (including no discordant pair at all) gives ``χ² = 0`` and ``p = 1`` (the continuity
    correction is not allowed to push ``|e01 − e10| − 1`` below 0).

    Parameters
    ----------
    table
        2×2 counts ``[[both wrong, first wrong & second right], [first right & second wrong,
        both right]]`` (rows: first model wrong/right; columns: second model wrong/right).
    y_true, pred_a, pred_b
        Instead of ``table``: the true labels and the predictions of the first (``pred_a``) and
        second (``pred_b``) model on the same test examples.
    exact, correction
        Exact binomial test or χ² approximation (with or without continuity correction).
    names
        Names of the first and second model.
    alpha
        Level of :attr:`TestResult.significant` and of the interpretation.

    Returns
    -------
    TestResult
        ``estimate`` is the accuracy difference ``(e01 − e10) / total`` (second − first);
        ``details`` holds the table and ``e01``, ``e10``.
    """
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    alpha = check_alpha(alpha)
    exact, correction = check_bool(exact, "exact"), check_bool(correction, "correction")
    names = check_pair_names(names)
    counts = _mcnemar_table(table, y_true, pred_a, pred_b)
    e01, e10 = int(counts[0, 1]), int(counts[1, 0])
    total = int(counts.sum())
    if total == 0:
        raise ValueError("The McNemar table is empty: there are no test examples.")
    if e01 == e10 and not exact:
        statistic, p_value = 0.0, 1.0
    else:
        result = sm_mcnemar(counts, exact=exact, correction=correction)
        statistic, p_value = float(result.statistic), float(min(result.pvalue, 1.0))
    return TestResult(
        "McNemar's exact test" if exact else "McNemar's test",
        statistic,
        p_value,
        None if exact else 1,
        (str(names[0]), str(names[1])),
        (e01 - e10) / total,
        "accuracy difference",
        total,
        alpha,
        {"table": counts, "e01": e01, "e10": e10},
    )


# ---------------------------------------------------------------------------------- 5x2cv
def _cv52(diffs: Any, models: Sequence[str] | None, names: Sequence[str] | None) -> CVData:
    """The 5 × 2 differences as a :class:`CVData` (5 runs of 2 folds), validated."""
    if isinstance(diffs, (pd.DataFrame, CVData)):
        cv = one_dataset(diffs, None, "5x2cv test", models=models, names=names)
        if cv.runs[0] != 5 or cv.folds[0] != 2:
            raise ValueError(
                f"The 5x2cv tests need 5 runs of 2-fold cross-validation; got {cv.runs[0]} "
                f"run(s) of {cv.folds[0]} folds."
            )
        return cv
    array = np.asarray(diffs, dtype=float)
    if array.shape != (5, 2):
        raise ValueError(
            f"diffs must be the 5 x 2 array of differences (5 replications of 2-fold CV, "
            f"diffs[i, j] = second − first on fold j of replication i); got shape {array.shape}."
        )
    return CVData([array.ravel()], runs=5, names=names or ("first", "second"))


def cv52_paired_ttest(
    diffs: Any,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    alpha: float = 0.05,
) -> TestResult:
    """Dietterich's (1998) 5×2cv paired t-test.

    With ``p_i^(j)`` the difference on fold ``j`` of replication ``i``, ``p̄_i`` the mean of the
    two folds of replication ``i`` and ``s_i² = (p_i^(1) − p̄_i)² + (p_i^(2) − p̄_i)²``:

        t = p_1^(1) / sqrt((1/5) Σ_i s_i²),   Student t with 5 df, two-sided.

    Parameters
    ----------
    diffs
        The 5 × 2 array of differences ``second − first`` (rows: replications, columns: the two
        folds), or a tidy frame / :class:`CVData` with 5 runs of 2 folds.
    names, models
        Model names (arrays) or the two models to take from a frame.
    alpha
        Level of :attr:`TestResult.significant` and of the interpretation.

    Notes
    -----
    Only the first fold's difference enters the numerator, so the statistic depends on the
    order of the replications. ``Σ s_i² = 0`` gives ``t = ±inf, p = 0`` (or ``0, 1`` when
    ``p_1^(1) = 0``).
    """
    alpha = check_alpha(alpha)
    cv = _cv52(diffs, models, names)
    p = cv.differences[0].reshape(5, 2)
    s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    t, p_value = two_sided_t(float(p[0, 0]), float(np.sqrt(s2.mean())), 5)
    return TestResult(
        "5x2cv paired t-test",
        t,
        p_value,
        5,
        cv.names,
        float(p.mean()),
        "mean difference",
        10,
        alpha,
        {"s2": s2},
    )


def cv52_combined_ftest(
    diffs: Any,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    alpha: float = 0.05,
) -> TestResult:
    """Alpaydin's (1999) combined 5×2cv F-test.

        F = Σ_i Σ_j (p_i^(j))² / (2 Σ_i s_i²),   F distribution with (10, 5) df, upper tail,

    with ``p_i^(j)`` and ``s_i²`` as in :func:`cv52_paired_ttest`. It uses all ten differences,
    so it does not depend on their order, and is more robust than the 5×2cv t-test.
    The F statistic has no sign; ``estimate`` (the mean of the ten differences) tells which
    model did better.

    Notes
    -----
    ``Σ s_i² = 0`` gives ``F = inf, p = 0``, or ``F = 0, p = 1`` when all differences are 0.
    """
    alpha = check_alpha(alpha)
    cv = _cv52(diffs, models, names)
    p = cv.differences[0].reshape(5, 2)
    s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    numerator, denominator = float((p**2).sum()), float(2 * s2.sum())
    if denominator == 0:
        f, p_value = (0.0, 1.0) if numerator == 0 else (np.inf, 0.0)
    else:
        f = numerator / denominator
        p_value = float(stats.f.sf(f, 10, 5))
    return TestResult(
        "5x2cv combined F-test",
        float(f),
        p_value,
        (10, 5),
        cv.names,
        float(p.mean()),
        "mean difference",
        10,
        alpha,
        {"s2": s2},
    )
