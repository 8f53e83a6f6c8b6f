"""Frequentist comparison of several models on several data sets (Demšar 2006; conventions §5).

The Friedman test of equal mean ranks (with the Iman–Davenport F correction), the Nemenyi
post-hoc test with its critical difference, and Holm-corrected pairwise Wilcoxon signed-rank
tests as an alternative post-hoc. Ranks are computed per data set, rank 1 = best model, ties
averaged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import check_bool, check_finite, check_int
from ..data import DEFAULT_COLUMNS, check_key_values, finite_scores
from ._result import ScipyPValue, check_alpha
from .several import wilcoxon_signed_rank


# ---------------------------------------------------------------------------------- input
def _tidy_to_wide(frame: pd.DataFrame, roles: Mapping[str, str]) -> pd.DataFrame:
    """Average a tidy frame's scores per (data set, model) and pivot to data sets x models.

    The averages are paired: every model of a data set must have the same (run, fold) cells,
    each once; a frame without a fold column must have one row per data set and model.
    """
    if roles["dataset"] not in frame.columns:
        raise ValueError(
            f"The tidy frame has no data-set column {roles['dataset']!r} (columns: "
            f"{list(frame.columns)}); these tests compare models over several data sets. Name "
            "it with columns={'dataset': '...'}."
        )
    check_key_values(frame, roles)
    score = finite_scores(frame, roles["score"], [roles["dataset"], roles["model"]])
    _check_paired_cells(frame, roles)
    keys = [frame[roles["dataset"]], frame[roles["model"]]]
    means = score.groupby(keys, sort=False).mean()
    return means.unstack(level=1).reindex(
        index=pd.unique(frame[roles["dataset"]]), columns=pd.unique(frame[roles["model"]])
    )


def _check_paired_cells(frame: pd.DataFrame, roles: Mapping[str, str]) -> None:
    """ValueError for duplicated rows, or for a (run, fold) cell that some but not all of a data
    set's models have (their means would average different folds)."""
    has_folds = roles["fold"] in frame.columns
    cells = [roles[key] for key in ("run", "fold") if has_folds and roles[key] in frame.columns]
    keys = [roles["dataset"], roles["model"], *cells]
    duplicated = frame.duplicated(subset=keys, keep=False)
    if duplicated.any():
        example = tuple(frame.loc[duplicated, keys].iloc[0])
        hint = "" if cells else f" (the frame has no fold column {roles['fold']!r})"
        raise ValueError(
            f"{int(duplicated.sum())} rows share a ({', '.join(keys)}), e.g. {example}{hint}; "
            "each model needs one row per data set and fold. Remove or aggregate the duplicates."
        )
    if not cells:
        return
    models_per_set = frame.groupby(roles["dataset"], sort=False)[roles["model"]].nunique()
    per_cell = frame.groupby([roles["dataset"], *cells], sort=False)[roles["model"]].nunique()
    expected = models_per_set.reindex(per_cell.index.get_level_values(0)).to_numpy()
    unpaired = per_cell[per_cell.to_numpy() < expected]
    if len(unpaired):
        dataset = unpaired.index[0][0]
        raise ValueError(
            f"{len(unpaired)} (data set, {', '.join(cells)}) cells are scored for some models "
            f"but not all, e.g. on data set {dataset!r} at {unpaired.index[0][1:]}; the models' "
            "mean scores would average different folds. Remove those folds for every model, or "
            "use bayes_hier.compare(...), whose frequentist view keeps complete data sets only."
        )


def score_matrix(
    scores: Any,
    *,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    names: Sequence[str] | None = None,
    min_models: int = 2,
) -> pd.DataFrame:
    """The data sets x models table of scores, validated.

    Parameters
    ----------
    scores
        A 2-D array (N data sets x k models), a wide frame (index: data sets, columns: models)
        or a tidy frame with columns ``dataset, model, score`` (``run``, ``fold`` optional;
        scores are averaged per data set and model).
    models
        Models to keep, in this order (default: all, in order of appearance).
    columns
        Column names of a tidy frame, as in :meth:`bayes_hier.data.CVData.from_frame`.
    names
        New names of the models (one per column kept).
    min_models
        Smallest number of models accepted.
    """
    roles = {**DEFAULT_COLUMNS, **(dict(columns) if columns else {})}
    if isinstance(scores, pd.DataFrame):
        tidy = roles["model"] in scores.columns and roles["score"] in scores.columns
        table = _tidy_to_wide(scores, roles) if tidy else scores.copy()
    else:
        try:
            array = np.asarray(scores, dtype=float)
        except ValueError:  # ragged rows, or text
            raise ValueError(
                "scores must be a data sets x models table of numbers, one score per model on "
                "every data set (rows of equal length); got rows of different lengths or "
                "non-numbers."
            ) from None
        if array.ndim != 2:
            raise ValueError(
                f"scores must be a 2-D array (data sets x models), a wide or a tidy data frame; "
                f"got an array with {array.ndim} dimension(s)."
            )
        table = pd.DataFrame(
            array,
            index=[f"dataset {i}" for i in range(array.shape[0])],
            columns=[f"model {j}" for j in range(array.shape[1])],
        )
    table.columns = [str(c) for c in table.columns]
    if models is not None:
        missing = [m for m in models if str(m) not in table.columns]
        if missing:
            raise ValueError(f"Models {missing} are not in the scores (models: {list(table)}).")
        table = table[[str(m) for m in models]]
    if names is not None:
        if len(names) != table.shape[1]:
            raise ValueError(f"Got {len(names)} names for {table.shape[1]} models.")
        table.columns = [str(n) for n in names]
    if len(set(table.columns)) != table.shape[1]:
        raise ValueError(f"Model names must be unique; got {list(table.columns)}.")
    try:
        table = table.astype(float)
    except (TypeError, ValueError) as error:
        raise ValueError(
            "The scores must be numbers. For a tidy frame, name its columns with "
            "columns={'dataset': ..., 'model': ..., 'score': ...}."
        ) from error
    values = table.to_numpy()
    check_finite(
        values,
        lambda count, i, j: (
            f"{count} missing, NaN or infinite scores, e.g. model "
            f"{table.columns[j]!r} on data set {table.index[i]!r}. Every model must be scored on "
            "every data set."
        ),
    )
    n, k = values.shape
    if k < min_models:
        raise ValueError(
            f"Got {k} model(s); this test compares at least {min_models}. For two models use "
            "wilcoxon_signed_rank or sign_test_freq."
        )
    if n < 2:
        raise ValueError(f"Got {n} data set(s); at least 2 are needed to rank models across them.")
    return table


def rank_matrix(table: pd.DataFrame, higher_is_better: bool = True) -> pd.DataFrame:
    """Ranks of the models within each data set: 1 = best, ties get the average rank."""
    higher_is_better = check_bool(higher_is_better, "higher_is_better")
    values = table.to_numpy(dtype=float)
    ranks = stats.rankdata(-values if higher_is_better else values, axis=1, method="average")
    return pd.DataFrame(ranks, index=table.index, columns=table.columns)


# ---------------------------------------------------------------------------------- Friedman
@dataclass(frozen=True)
class FriedmanResult(ScipyPValue):
    """Friedman test of equal mean ranks, with the Iman–Davenport correction.

    Attributes
    ----------
    statistic, p_value, df
        Friedman's χ²_F, its p-value and degrees of freedom ``k − 1``.
    iman_davenport, p_value_iman_davenport, df_iman_davenport
        ``F_F = (N − 1) χ²_F / (N(k − 1) − χ²_F)``, its p-value from the F distribution with
        ``(k − 1, (k − 1)(N − 1))`` df.
    mean_ranks
        Mean rank of each model over the data sets (1 = best).
    ranks
        Rank of each model on each data set.
    alpha
        Level of :attr:`significant` (decided on the Iman–Davenport p-value, as Demšar advises).
    """

    statistic: float
    p_value: float
    df: int
    iman_davenport: float
    p_value_iman_davenport: float
    df_iman_davenport: tuple[int, int]
    mean_ranks: pd.Series
    ranks: pd.DataFrame
    alpha: float = 0.05
    tie_correction: bool = True

    @property
    def n_datasets(self) -> int:
        """Number of data sets N."""
        return int(self.ranks.shape[0])

    @property
    def n_models(self) -> int:
        """Number of models k."""
        return int(self.ranks.shape[1])

    @property
    def significant(self) -> bool:
        """Whether the Iman–Davenport p-value is at most ``alpha``."""
        return bool(self.p_value_iman_davenport <= self.alpha)

    @property
    def interpretation(self) -> str:
        """One sentence: are the models' mean ranks significantly different?"""
        best = self.mean_ranks.idxmin()
        head = (
            f"Friedman test on {self.n_models} models and {self.n_datasets} data sets: "
            f"chi2_F = {self.statistic:.4g} (p = {self.p_value:.3g}), Iman–Davenport F = "
            f"{self.iman_davenport:.4g} (p = {self.p_value_iman_davenport:.3g})"
        )
        if self.significant:
            return (
                f"{head}, so the hypothesis that all models perform equally is rejected at "
                f"alpha = {self.alpha:g} (best mean rank: {best}, {self.mean_ranks[best]:.2f}); "
                "a post-hoc test tells which pairs differ."
            )
        return (
            f"{head}: no significant difference between the mean ranks at alpha = "
            f"{self.alpha:g}, which is not evidence that the models are equivalent."
        )

    def to_frame(self) -> pd.DataFrame:
        """Two rows: the Friedman χ² test and the Iman–Davenport F test."""
        return pd.DataFrame(
            {
                "test": ["Friedman chi2", "Iman-Davenport F"],
                "statistic": [self.statistic, self.iman_davenport],
                "df": [self.df, self.df_iman_davenport],
                "p_value": [self.p_value, self.p_value_iman_davenport],
                "n_datasets": self.n_datasets,
                "n_models": self.n_models,
            }
        )

    def __str__(self) -> str:
        ranks = ", ".join(f"{m} {r:.2f}" for m, r in self.mean_ranks.sort_values().items())
        return f"{self.interpretation}\nMean ranks: {ranks}"


def iman_davenport(chi2: float, n: int, k: int) -> tuple[float, float]:
    """``F_F = (N − 1) χ²_F / (N(k − 1) − χ²_F)`` and its p-value, F((k − 1), (k − 1)(N − 1)).

    Perfect agreement (``χ²_F = N(k − 1)``, every data set ranks the models alike) gives
    ``F = inf, p = 0``.
    """
    denominator = n * (k - 1) - chi2
    if denominator <= 1e-12 * n * (k - 1):
        return np.inf, 0.0
    f = (n - 1) * chi2 / denominator
    return float(f), float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))


def friedman(
    scores: Any,
    *,
    higher_is_better: bool = True,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    names: Sequence[str] | None = None,
    tie_correction: bool = True,
    alpha: float = 0.05,
) -> FriedmanResult:
    """Friedman's test that k models have equal mean ranks over N data sets (Demšar 2006).

    With ``R_j`` the mean rank of model ``j`` (1 = best, ties averaged),

        χ²_F = 12N / (k(k + 1)) · (Σ_j R_j² − k(k + 1)² / 4),   χ² with k − 1 df,

    computed by :func:`scipy.stats.friedmanchisquare`, which divides by the tie correction
    ``1 − Σ(t³ − t) / (N k (k² − 1))`` (``t``: sizes of groups of tied scores within a data
    set); ``tie_correction=False`` gives Demšar's uncorrected formula (the two agree without
    ties). Iman & Davenport's less conservative correction is
    ``F_F = (N − 1)χ²_F / (N(k − 1) − χ²_F)`` with ``(k − 1, (k − 1)(N − 1))`` df.

    Parameters
    ----------
    scores
        N data sets x k models: a 2-D array, a wide frame (index: data sets, columns: models)
        or a tidy frame (``dataset, model, [run, fold,] score``; averaged per data set and
        model). See :func:`score_matrix`.
    higher_is_better
        ``False`` for errors, losses or times: the lowest score then gets rank 1.
    models, columns, names
        Models to keep, tidy column names and new model names (:func:`score_matrix`).
    tie_correction
        Use scipy's tie-corrected χ²_F (default) or Demšar's formula.
    alpha
        Level of :attr:`FriedmanResult.significant`.

    Notes
    -----
    Every data set ties all models: χ²_F = 0 and p = 1 (scipy's correction would divide 0 by 0).
    """
    alpha = check_alpha(alpha)
    table = score_matrix(scores, models=models, columns=columns, names=names, min_models=3)
    ranks = rank_matrix(table, higher_is_better)
    n, k = ranks.shape
    mean_ranks = ranks.mean(axis=0).rename("mean_rank")
    if np.all(ranks.to_numpy() == (k + 1) / 2):
        chi2, p_value = 0.0, 1.0
    elif tie_correction:
        result = stats.friedmanchisquare(*table.to_numpy().T)
        chi2, p_value = float(result.statistic), float(result.pvalue)
    else:
        r = mean_ranks.to_numpy()
        chi2 = 12 * n / (k * (k + 1)) * (np.sum(r**2) - k * (k + 1) ** 2 / 4)
        chi2 = float(max(chi2, 0.0))
        p_value = float(stats.chi2.sf(chi2, k - 1))
    f, p_f = iman_davenport(chi2, n, k)
    return FriedmanResult(
        chi2,
        p_value,
        k - 1,
        f,
        p_f,
        (k - 1, (k - 1) * (n - 1)),
        mean_ranks,
        ranks,
        alpha,
        tie_correction,
    )


# ---------------------------------------------------------------------------------- post-hoc
def nonsignificant_groups(
    order: Sequence[str], different: Callable[[str, str], bool]
) -> list[tuple[str, ...]]:
    """Maximal runs of models, consecutive in ``order`` (by mean rank), no two of which differ.

    These are the groups joined by a bar in a critical-difference diagram. Runs contained in
    another run, and single models, are left out.
    """
    runs = []
    for i in range(len(order)):
        j = i
        while j + 1 < len(order) and not any(different(m, order[j + 1]) for m in order[i : j + 1]):
            j += 1
        if j > i:
            runs.append((i, j))
    maximal = [
        (i, j) for i, j in runs if not any(a <= i and j <= b and (a, b) != (i, j) for a, b in runs)
    ]
    return [tuple(order[i : j + 1]) for i, j in maximal]


@dataclass(frozen=True)
class PosthocResult:
    """Pairwise post-hoc comparison of k models after a Friedman test.

    Attributes
    ----------
    method
        ``"Nemenyi"`` or ``"Wilcoxon-Holm"``.
    mean_ranks
        Mean rank of each model (1 = best).
    pairwise
        One row per pair: ``first``, ``second``, their mean ranks, ``rank_difference``
        (absolute), ``better`` (lower mean rank), ``statistic``, ``p_value`` and
        ``significant``. Nemenyi's p-value already accounts for the k models (Studentized
        range); for Wilcoxon-Holm ``p_value`` is the raw p-value and ``p_holm`` the adjusted one.
    alpha
        Family-wise level.
    cd, q_alpha
        Nemenyi's critical difference and ``q_α`` (``None`` for Wilcoxon-Holm).
    friedman
        The omnibus Friedman test on the same scores.
    """

    method: str
    mean_ranks: pd.Series
    pairwise: pd.DataFrame
    alpha: float
    friedman: FriedmanResult
    cd: float | None = None
    q_alpha: float | None = None

    @property
    def n_datasets(self) -> int:
        """Number of data sets N."""
        return self.friedman.n_datasets

    @property
    def n_models(self) -> int:
        """Number of models k."""
        return self.friedman.n_models

    @property
    def significance(self) -> pd.DataFrame:
        """k x k table: ``True`` where the two models differ significantly."""
        models = list(self.mean_ranks.index)
        table = pd.DataFrame(False, index=models, columns=models)
        for row in self.pairwise.itertuples():
            table.loc[row.first, row.second] = table.loc[row.second, row.first] = row.significant
        return table

    @property
    def groups(self) -> list[tuple[str, ...]]:
        """Maximal groups of models, adjacent by mean rank, not significantly different."""
        significance = self.significance
        order = list(self.mean_ranks.sort_values(kind="stable").index)
        return nonsignificant_groups(order, lambda a, b: bool(significance.loc[a, b]))

    @property
    def interpretation(self) -> str:
        """One sentence: how many pairs differ, and whether Friedman rejected first."""
        n_sig = int(self.pairwise["significant"].sum())
        best = self.mean_ranks.idxmin()
        cd = "" if self.cd is None else f", CD = {self.cd:.3f}"
        text = (
            f"{self.method} post-hoc test (alpha = {self.alpha:g}{cd}): {n_sig} of "
            f"{len(self.pairwise)} pairs of models differ significantly; best mean rank: "
            f"{best} ({self.mean_ranks[best]:.2f})"
        )
        if not self.friedman.significant:
            text += (
                f", but the Friedman test does not reject equal performance (Iman–Davenport "
                f"p = {self.friedman.p_value_iman_davenport:.3g}), so no pair should be called "
                "different"
            )
        return text + "."

    def to_frame(self) -> pd.DataFrame:
        """The pairwise table."""
        return self.pairwise.copy()

    def __str__(self) -> str:
        ranks = ", ".join(f"{m} {r:.2f}" for m, r in self.mean_ranks.sort_values().items())
        return f"{self.interpretation}\nMean ranks: {ranks}"


def rank_pairs(mean_ranks: pd.Series) -> Iterator[dict[str, Any]]:
    """Every pair of models (in the order of ``mean_ranks``) with what both post-hoc tables
    show of it: ``first, second``, their mean ranks, the absolute difference and the model with
    the better (lower) mean rank (``""`` when equal)."""
    for a, b in combinations(mean_ranks.index, 2):
        ra, rb = float(mean_ranks[a]), float(mean_ranks[b])
        yield {
            "first": a,
            "second": b,
            "rank_first": ra,
            "rank_second": rb,
            "rank_difference": abs(ra - rb),
            "better": a if ra < rb else b if rb < ra else "",
        }


def critical_difference(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Nemenyi's ``CD = q_α sqrt(k(k + 1) / (6N))`` and ``q_α``.

    ``q_α`` is the ``1 − α`` quantile of the Studentized range of ``k`` means with infinite df
    (:data:`scipy.stats.studentized_range`) divided by ``sqrt(2)`` (Demšar 2006, Table 5:
    2.728 for k = 5 at α = 0.05).
    """
    alpha = check_alpha(alpha)
    k, n = check_int(k, "k (models)", minimum=2), check_int(n, "n (data sets)", minimum=1)
    q = float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))
    return q * np.sqrt(k * (k + 1) / (6 * n)), q


def nemenyi(
    scores: Any,
    alpha: float = 0.05,
    *,
    higher_is_better: bool = True,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    names: Sequence[str] | None = None,
) -> PosthocResult:
    """Nemenyi's post-hoc test of all pairs of models (Demšar 2006).

    Two models differ significantly when their mean ranks differ by at least the critical
    difference ``CD = q_α sqrt(k(k + 1)/(6N))`` (:func:`critical_difference`). The pairwise
    p-value is ``P(Q_k,∞ >= sqrt(2) z)`` with ``z = |R_i − R_j| / sqrt(k(k + 1)/(6N))`` and
    ``Q`` the Studentized range, so ``p <= α`` exactly when the difference reaches the CD.

    The Nemenyi test is conservative and its verdicts depend on the other models in the
    comparison; :func:`wilcoxon_holm` (pairwise Wilcoxon signed-rank tests with Holm's
    correction) is a more powerful alternative (Benavoli, Corani & Mangili, JMLR 2016).

    Parameters
    ----------
    scores, higher_is_better, models, columns, names
        As in :func:`friedman`.
    alpha
        Family-wise level.

    Returns
    -------
    PosthocResult
        ``mean_ranks``, ``cd``, ``q_alpha``, the ``pairwise`` table, ``significance``,
        ``groups`` and the omnibus ``friedman`` test.
    """
    alpha = check_alpha(alpha)
    fr = friedman(
        scores,
        higher_is_better=higher_is_better,
        models=models,
        columns=columns,
        names=names,
        alpha=alpha,
    )
    k, n = fr.n_models, fr.n_datasets
    cd, q = critical_difference(k, n, alpha)
    se = np.sqrt(k * (k + 1) / (6 * n))
    rows = []
    for pair in rank_pairs(fr.mean_ranks):
        z = pair["rank_difference"] / se
        rows.append(
            {
                **pair,
                "statistic": z,
                "p_value": float(stats.studentized_range.sf(z * np.sqrt(2), k, np.inf)),
                "significant": bool(pair["rank_difference"] >= cd),
            }
        )
    return PosthocResult("Nemenyi", fr.mean_ranks, pd.DataFrame(rows), alpha, fr, cd, q)


def wilcoxon_holm(
    scores: Any,
    alpha: float = 0.05,
    *,
    higher_is_better: bool = True,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    names: Sequence[str] | None = None,
) -> PosthocResult:
    """Pairwise Wilcoxon signed-rank tests with Holm's step-down correction.

    Every pair of models is compared with :func:`wilcoxon_signed_rank` on the per-data-set
    scores; the p-values are adjusted with Holm's method
    (:func:`statsmodels.stats.multitest.multipletests`, ``method="holm"``), which controls the
    family-wise error at ``alpha``. An alternative to :func:`nemenyi` whose verdict on a pair
    does not depend on the other models (Benavoli, Corani & Mangili, JMLR 2016).

    Returns
    -------
    PosthocResult
        ``pairwise`` has the Wilcoxon ``statistic``, the raw ``p_value``, the adjusted
        ``p_holm`` and ``significant`` (``p_holm <= alpha``); ``cd`` is ``None``.
    """
    from statsmodels.stats.multitest import multipletests

    alpha = check_alpha(alpha)
    fr = friedman(
        scores,
        higher_is_better=higher_is_better,
        models=models,
        columns=columns,
        names=names,
        alpha=alpha,
    )
    table = score_matrix(scores, models=models, columns=columns, names=names, min_models=3)
    rows = []
    for pair in rank_pairs(fr.mean_ranks):
        a, b = pair["first"], pair["second"]
        test = wilcoxon_signed_rank(
            table[a].to_numpy(),
            table[b].to_numpy(),
            names=(a, b),
            higher_is_better=higher_is_better,
        )
        rows.append({**pair, "statistic": test.statistic, "p_value": test.p_value})
    pairwise = pd.DataFrame(rows)
    reject, p_holm, _, _ = multipletests(pairwise["p_value"].to_numpy(), alpha, method="holm")
    pairwise["p_holm"] = p_holm
    pairwise["significant"] = reject.astype(bool)
    return PosthocResult("Wilcoxon-Holm", fr.mean_ranks, pairwise, alpha, fr)
