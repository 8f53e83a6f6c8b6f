"""What the ranking models read from the scores: wins per pair, one ranking per data set.

Both models see the data sets, not the folds: Bradley-Terry counts, for every pair, the data sets
on which one model's fold mean beats the other's; Plackett-Luce orders the models on every data
set by their fold means. Folds enter only through the local rope (a tie when the mean paired
difference is small against its fold-to-fold spread) and, when asked, as rankings of their own.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from .._validate import check_bool
from ..scores import KEYS, ModelScores

#: Tie policies of the Bradley-Terry model (see :func:`tie_counts`).
TIE_POLICIES = ("spread", "add", "forget", "davidson")

#: Tie rules of the Plackett-Luce rankings (see :func:`rankings`).
TIE_RULES = ("random", "order")


def oriented_cells(scores: ModelScores, higher_is_better: bool) -> pd.DataFrame:
    """Scores as (dataset, run, fold) x model, negated when lower is better (so that higher is
    always better); NaN where a model has no finite score."""
    sign = 1.0 if check_bool(higher_is_better, "higher_is_better") else -1.0
    cells = scores.table.pivot_table(
        index=list(KEYS), columns="model", values="score", aggfunc="first", dropna=False
    )
    return sign * cells.reindex(columns=list(scores.models))


def check_local_rope(local_rope: float | None) -> float | None:
    """``None`` or a non-negative finite number."""
    if local_rope is None:
        return None
    if isinstance(local_rope, bool) or not isinstance(local_rope, int | float):
        raise TypeError(f"local_rope must be a number or None; got {local_rope!r}.")
    if not np.isfinite(local_rope) or local_rope < 0:
        raise ValueError(
            f"local_rope must be >= 0 (in units of the paired differences' sd) or None for an "
            f"exact comparison of the means; got {local_rope!r}."
        )
    return float(local_rope)


def win_table(
    scores: ModelScores, local_rope: float | None = 0.4, higher_is_better: bool = True
) -> pd.DataFrame:
    """For every pair (first, second) of ``scores.models``: the data sets where first wins,
    where second wins, and the ties, from the (run, fold) cells both models have.

    On data set i with paired differences d_ij = first − second (j over the common cells),
    mean m_i and standard deviation s_i (ddof = 1; 0 with a single cell): first wins when
    m_i > r_i, second when m_i < −r_i, a tie otherwise, with r_i = ``local_rope`` · s_i (the paired
    local rope of Wainer's bbtcomp, default 0.4). ``local_rope=None``: r_i = 0 and a tie only when
    the means are equal. A data set where either model has no score is left out of the pair.

    Returns
    -------
    DataFrame
        Columns ``first, second, win_first, win_second, ties, n_datasets``, pairs in the order
        ``(models[i], models[j])``, i < j.
    """
    local_rope = check_local_rope(local_rope)
    cells = oriented_cells(scores, higher_is_better)
    rows = []
    for first, second in combinations(scores.models, 2):
        difference = (cells[first] - cells[second]).dropna()
        grouped = difference.groupby(level="dataset", sort=False)
        mean = grouped.mean().to_numpy()
        spread = grouped.std(ddof=1).fillna(0.0).to_numpy()
        rope = 0.0 if local_rope is None else local_rope * spread
        rows.append(
            {
                "first": first,
                "second": second,
                "win_first": int(np.sum(mean > rope)),
                "win_second": int(np.sum(mean < -rope)),
                "ties": int(np.sum(np.abs(mean) <= rope)),
                "n_datasets": int(mean.size),
            }
        )
    return pd.DataFrame(rows)


def tie_counts(table: pd.DataFrame, ties: str) -> pd.DataFrame:
    """The counts the model reads under a tie policy.

    * ``"spread"``: half a win to each side (bbtcomp adds ``ceil(ties / 2)`` to each; here the
      halves are kept, so the counts sum to the data sets compared);
    * ``"add"``: a win to each side for every tie;
    * ``"forget"``: ties dropped;
    * ``"davidson"``: ties kept, for Davidson's tie parameter.
    """
    if ties not in TIE_POLICIES:
        raise ValueError(f"ties must be one of {list(TIE_POLICIES)}; got {ties!r}.")
    out = table.copy()
    out[["win_first", "win_second", "ties"]] = out[["win_first", "win_second", "ties"]].astype(
        float
    )
    share = {"spread": 0.5, "add": 1.0, "forget": 0.0, "davidson": 0.0}[ties]
    out["win_first"] += share * out["ties"]
    out["win_second"] += share * out["ties"]
    if ties != "davidson":
        out["ties"] = 0.0
    return out


def rankings(
    scores: ModelScores,
    *,
    by_fold: bool = False,
    tie_rule: str = "random",
    rng: np.random.Generator | None = None,
    higher_is_better: bool = True,
) -> tuple[list[np.ndarray], list[str]]:
    """One ranking of the models per data set (by fold mean), or per (data set, run, fold) cell
    with ``by_fold`` (cells treated as independent rankings, which they are not: folds of one
    data set share it).

    A ranking lists model indices, best first, of the models with a score there; units with
    fewer than two models are left out. Equal scores are ordered at random (``"random"``, drawn
    from ``rng``, as Calvo et al. do) or in the order of ``scores.models`` (``"order"``).

    Returns
    -------
    (orders, labels)
        The rankings and the unit each comes from (``"dataset"`` or ``"dataset/run/fold"``).
    """
    if tie_rule not in TIE_RULES:
        raise ValueError(f"tie_rule must be one of {list(TIE_RULES)}; got {tie_rule!r}.")
    if tie_rule == "random" and rng is None:
        raise ValueError("tie_rule='random' needs a random generator.")
    cells = oriented_cells(scores, higher_is_better)
    units = cells if check_bool(by_fold, "by_fold") else cells.groupby(level="dataset").mean()
    if not by_fold:
        units = units.reindex(list(scores.datasets))
    orders, labels = [], []
    k = len(scores.models)
    for label, row in units.iterrows():
        values = row.to_numpy(float)
        present = np.flatnonzero(np.isfinite(values))
        if present.size < 2:
            continue
        breaker = rng.random(k) if tie_rule == "random" else np.arange(k, dtype=float)
        # lexsort sorts by the last key first: score descending, then the tie breaker
        orders.append(present[np.lexsort((breaker[present], -values[present]))])
        labels.append("/".join(str(part) for part in np.atleast_1d(label)))
    return orders, labels


__all__ = [
    "TIE_POLICIES",
    "TIE_RULES",
    "check_local_rope",
    "oriented_cells",
    "rankings",
    "tie_counts",
    "win_table",
]
