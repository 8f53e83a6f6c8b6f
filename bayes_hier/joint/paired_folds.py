"""Models that lack some folds on a data set: the paired block the joint model uses there.

The joint model's sufficient statistics (the contrasts' mean ȳ_i and scatter S_i) need, on each
data set, a block of folds on which every model used there has a score: a contrast removes the
fold's difficulty only when all the models it compares are present on that fold. When a model
lacks some folds of a data set (a crashed run, a time-out), this module keeps the larger of two
paired blocks there:

* **leave the incomplete models out** on that data set (all its folds, the models with every
  fold; a model left out is missing there, as if it had not been run), or
* **keep the common folds** (every model with a score there, on the folds where all of them have
  one).

"Larger" counts the scores kept; a tie keeps the common folds (more models compared). A block
with fewer than 2 folds or 2 models is never chosen over the other; when neither has both, the
complete models are kept, and a data set left with fewer than 2 models is then dropped as usual
(with a :class:`~bayes_hier.scores.MissingDataWarning`).

Either block is a subset of the scores chosen by where scores are missing, not by their values,
so the joint model's likelihood of the kept block is exact when the scores are missing at random.
What is given up is the information of the scores left out: the likelihood of a ragged block
(each fold's contrasts of the models present on it, correlated across folds) has no
fixed-size sufficient statistics. Leaving folds out does not change ρ_i, the correlation of two
results of one cross-validation (Nadeau and Bengio: the test share 1/K of the K-fold design), so
the default ρ_i is taken from the design before any fold is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from ..data import per_dataset_values
from ..scores import KEYS, ModelScores


def paired_block(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The folds (rows) and models (columns) of ``block`` (folds × models, NaN where a model has
    no score) that form the larger paired block (module text).

    Returns
    -------
    rows, columns
        Booleans: the folds kept and the models kept. A column without any score is never kept;
        a block without holes is kept whole.

    Examples
    --------
    >>> block = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, np.nan, 3.0], [1.0, np.nan, 3.0]])
    >>> paired_block(block)  # 4 folds x 2 models (8 scores) beat 2 folds x 3 models (6)
    (array([ True,  True,  True,  True]), array([ True, False,  True]))
    """
    finite = np.isfinite(block)
    present = finite.any(axis=0)
    whole = finite.all(axis=0)
    all_folds = np.ones(block.shape[0], bool)
    if whole[present].all():
        return all_folds, present
    common = finite[:, present].all(axis=1)
    by_models = int(whole.sum()) * block.shape[0] if whole.sum() >= 2 else 0
    by_folds = int(common.sum()) * int(present.sum()) if common.sum() >= 2 else -1
    if by_folds >= by_models:
        return common, present
    return all_folds, whole


def paired_scores(
    scores: ModelScores, rho: float | Sequence[float] | None = None
) -> tuple[ModelScores, np.ndarray | None, tuple[str, ...]]:
    """``scores`` restricted, data set by data set, to their paired blocks (:func:`paired_block`).

    Parameters
    ----------
    scores
        The validated tidy scores.
    rho
        The fold correlation as the user gave it (one value, or one per data set of
        ``scores.datasets``), or None for the default 1/folds.

    Returns
    -------
    scores, rho, notes
        The kept scores (a data set whose folds were cut keeps its common (run, fold) cells,
        renumbered as folds 1..n' of one run); the fold correlation per data set (``rho`` as given
        when nothing was cut, else one value per data set, 1/folds of the original design where
        none was given); and one sentence per data set that was cut, saying what was left out.
    """
    blocks = _blocks(scores)
    holes_by_dataset = {dataset: _holes(values) for dataset, values in blocks.items()}
    if not any(holes.any() for holes in holes_by_dataset.values()):
        return scores, rho, ()
    models = list(scores.models)
    table = scores.table[scores.table["model"].isin(models)]
    parts, notes = [], []
    for dataset, values in blocks.items():
        part, holes = table[table["dataset"] == dataset], holes_by_dataset[dataset]
        if not holes.any():
            parts.append(part)
            continue
        block = values.to_numpy(dtype=float)
        finite = np.isfinite(block)
        rows, columns = paired_block(block)
        lacking = ", ".join(
            f"{m} lacks {int((~finite[:, a]).sum())} of {len(values)} folds"
            for a, m in enumerate(models)
            if holes[a]
        )
        if rows.all():
            dropped = [m for a, m in enumerate(models) if holes[a] and not columns[a]]
            parts.append(part[~part["model"].isin(dropped)])
            notes.append(f"{dataset}: {lacking}; left out there: {', '.join(dropped)}")
        else:
            kept = list(values.index[rows])
            parts.append(_renumbered(part, kept))
            notes.append(
                f"{dataset}: {lacking}; used on the {len(kept)} folds where every model has a score"
            )
    folds = scores.design(models)["folds"].to_numpy(dtype=float)
    given = 1.0 / folds if rho is None else per_dataset_values(rho, len(folds), "rho")
    return replace(scores, table=pd.concat(parts, ignore_index=True)), given, tuple(notes)


def _blocks(scores: ModelScores) -> dict[str, pd.DataFrame]:
    """Per data set, its (run, fold) cells × models scores (NaN where a model has no score)."""
    models = list(scores.models)
    table = scores.table[scores.table["model"].isin(models)]
    wide = table.pivot(index=list(KEYS), columns="model", values="score").reindex(columns=models)
    return {dataset: wide.loc[dataset].sort_index() for dataset in scores.datasets}


def _holes(values: pd.DataFrame) -> np.ndarray:
    """Per model (column): whether it has some scores on the data set but not all."""
    finite = np.isfinite(values.to_numpy(dtype=float))
    return finite.any(axis=0) & ~finite.all(axis=0)


def _renumbered(part: pd.DataFrame, kept: list[tuple]) -> pd.DataFrame:
    """The rows of one data set on the ``kept`` (run, fold) cells, as one run (the first kept
    cell's) with folds 1..n' (text labels when the fold column holds text)."""
    number = {cell: j + 1 for j, cell in enumerate(kept)}
    cells = list(zip(part["run"], part["fold"]))
    mask = np.array([cell in number for cell in cells])
    folds = np.array([number[cell] for cell, keep in zip(cells, mask) if keep])
    if part["fold"].dtype.kind not in "iu":
        folds = folds.astype(str)
    return part[mask].assign(run=kept[0][0], fold=folds)


__all__ = ["paired_block", "paired_scores"]
