"""Frequentist tests of two models on several data sets, one score per data set (conventions §5).

Demšar (2006) recommends them over a t-test on the per-data-set means: they do not assume
normality or commensurable differences across data sets. The analysed difference per data set is
``d_i = y_i − x_i`` (second − first, negated when lower scores are better).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats

from ..data import per_dataset_differences
from ._result import TestResult, check_alpha


def dataset_differences(
    x: Any, y: Any = None, **selection: Any
) -> tuple[np.ndarray, tuple[str, str], tuple[str, ...]]:
    """One difference ``d_i = y_i − x_i`` per data set, with the model and data-set names.

    ``x`` and ``y`` are 1-D (one score per data set; a :class:`pandas.Series` lends its index as
    data-set names) or fold scores (2-D arrays, lists of arrays, a tidy frame or a
    :class:`CVData`), which are validated by :class:`CVData` and averaged per data set;
    ``selection`` (``names, models, columns, higher_is_better``) as for
    ``bayes_hier.data.per_dataset_differences``.
    """
    data = per_dataset_differences(x, y, **selection)
    if data.differences.size < 2:
        raise ValueError(f"At least 2 data sets are needed; got {data.differences.size}.")
    return data.differences, data.names, data.datasets


def wilcoxon_signed_rank(
    x: Any,
    y: Any = None,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    higher_is_better: bool = True,
    method: str = "auto",
    correction: bool = False,
    alpha: float = 0.05,
) -> TestResult:
    """Wilcoxon signed-rank test on the per-data-set differences (Demšar 2006; conventions §5).

    Wraps :func:`scipy.stats.wilcoxon` (``zero_method="wilcox"``): zero differences are
    dropped, the remaining ``|d_i|`` are ranked with ties averaged, ``R+`` (``R−``) is the sum
    of the ranks of the data sets on which the second (first) model is better, and the
    two-sided statistic is scipy's ``W = min(R+, R−)``. The p-value is exact for small samples
    without ties (scipy's ``method="auto"``: up to 50 non-zero differences) and otherwise
    from the normal approximation ``z = (W − q(q+1)/4) / sqrt(q(q+1)(2q+1)/24)`` (tie
    corrected; ``correction`` adds the continuity correction).

    Parameters
    ----------
    x, y
        Scores of the first and second model, one per data set (1-D), or fold scores (2-D
        arrays, a tidy frame or a :class:`CVData`) averaged per data set.
    names, models, columns, higher_is_better
        As in :func:`bayes_hier.data.as_cvdata`.
    method, correction
        Passed to :func:`scipy.stats.wilcoxon`.
    alpha
        Level of :attr:`TestResult.significant` and of the interpretation.

    Returns
    -------
    TestResult
        ``estimate`` is the matched-pairs rank-biserial correlation ``(R+ − R−)/(R+ + R−)``
        (Kerby 2014), positive when the second model is better; ``details`` holds ``r_plus``,
        ``r_minus``, the number of non-zero differences and their median. All differences zero:
        ``statistic = 0`` and ``p = 1``.
    """
    alpha = check_alpha(alpha)
    d, names_, datasets = dataset_differences(
        x, y, names=names, models=models, columns=columns, higher_is_better=higher_is_better
    )
    nonzero = d[d != 0]
    ranks = stats.rankdata(np.abs(nonzero))
    r_plus, r_minus = float(ranks[nonzero > 0].sum()), float(ranks[nonzero < 0].sum())
    if nonzero.size == 0:
        statistic, p_value = 0.0, 1.0
    else:
        result = stats.wilcoxon(d, zero_method="wilcox", correction=correction, method=method)
        statistic, p_value = float(result.statistic), float(result.pvalue)
    total = r_plus + r_minus
    return TestResult(
        "Wilcoxon signed-rank test",
        statistic,
        p_value,
        None,
        names_,
        (r_plus - r_minus) / total if total else 0.0,
        "rank-biserial correlation",
        int(d.size),
        alpha,
        {
            "r_plus": r_plus,
            "r_minus": r_minus,
            "n_nonzero": int(nonzero.size),
            "median_difference": float(np.median(d)),
            "datasets": datasets,
        },
    )


def sign_test_freq(
    x: Any,
    y: Any = None,
    *,
    ties: str = "drop",
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    higher_is_better: bool = True,
    alpha: float = 0.05,
) -> TestResult:
    """The (frequentist) sign test on the per-data-set differences (conventions §5).

    Counts the data sets won by the second model (``d_i > 0``), by the first (``d_i < 0``) and
    the ties (``d_i = 0``); under the null hypothesis each model wins a non-tied data set with
    probability 1/2, so ``wins ~ Bin(n, 1/2)``, two-sided exact p from
    :func:`scipy.stats.binomtest`.

    Parameters
    ----------
    x, y, names, models, columns, higher_is_better
        As in :func:`wilcoxon_signed_rank`.
    ties
        ``"drop"`` (the textbook sign test: ``n`` = non-tied data sets) or ``"split"`` (Demšar
        2006: ties are shared evenly between the models, one is ignored if their number is odd).
    alpha
        Level of :attr:`TestResult.significant` and of the interpretation.

    Returns
    -------
    TestResult
        ``statistic`` is the number of wins of the second model (after handling ties),
        ``estimate`` the wins minus the losses; all data sets tied: ``p = 1``.
    """
    alpha = check_alpha(alpha)
    if ties not in ("drop", "split"):
        raise ValueError(f"ties must be 'drop' or 'split'; got {ties!r}.")
    d, names_, datasets = dataset_differences(
        x, y, names=names, models=models, columns=columns, higher_is_better=higher_is_better
    )
    wins, losses, tied = int(np.sum(d > 0)), int(np.sum(d < 0)), int(np.sum(d == 0))
    if ties == "split":
        wins, losses = wins + tied // 2, losses + tied // 2
    n = wins + losses
    p_value = float(stats.binomtest(wins, n, 0.5).pvalue) if n else 1.0
    return TestResult(
        "Sign test",
        float(wins),
        p_value,
        None,
        names_,
        float(wins - losses),
        "wins minus losses",
        int(d.size),
        alpha,
        {"wins": wins, "losses": losses, "ties": tied, "n": n, "datasets": datasets},
    )
